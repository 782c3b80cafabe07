FROM rocm-bake/busybox:test
ARG ARCH
ARG SALT
ARG SLEEP
ARG GATE
ARG CELL
RUN --network=host if [ -n "$GATE" ]; then until wget -q -O /dev/null "$GATE/$CELL"; do sleep 0.2; done; fi \
    && echo "base $ARCH $SALT" > /base.txt && sleep "$SLEEP"
