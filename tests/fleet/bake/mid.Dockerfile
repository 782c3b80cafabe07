FROM base
ARG SALT
ARG SLEEP
RUN --network=none cat /base.txt > /mid.txt && echo "mid $SALT" >> /mid.txt && sleep "$SLEEP"
