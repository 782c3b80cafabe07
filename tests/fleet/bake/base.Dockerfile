FROM rocm-bake/busybox:test
ARG ARCH
ARG SALT
ARG SLEEP
RUN --network=none echo "base $ARCH $SALT" > /base.txt && sleep "$SLEEP"
