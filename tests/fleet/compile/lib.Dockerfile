# The link cell of tests/fleet/compile/fleet-compile.hcl: the objects of the eight compile
# cells in one archive.
FROM base AS link
SHELL ["/bin/bash", "-euo", "pipefail", "-c"]
ARG OBJECTS
COPY --from=ggml1 /out/ /out/
COPY --from=ggml2 /out/ /out/
COPY --from=ggml3 /out/ /out/
COPY --from=ggml4 /out/ /out/
COPY --from=ggml5 /out/ /out/
COPY --from=ggml6 /out/ /out/
COPY --from=ggml7 /out/ /out/
COPY --from=ggml8 /out/ /out/
RUN --network=none find /out -name '*.o' | sort > /objects \
    && test "$(wc -l < /objects)" = "${OBJECTS}" \
    && xargs ar rcs /libggml-hip.a < /objects

FROM scratch
COPY --from=link /libggml-hip.a /objects /
