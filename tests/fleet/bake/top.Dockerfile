FROM mid
ARG SALT
ARG SLEEP
RUN --network=none cat /mid.txt > /top.txt && echo "top $SALT" >> /top.txt && sleep "$SLEEP"
