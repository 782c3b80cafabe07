# wheels-export.Dockerfile (test variant) - every wheel of a cell, versions.json and the
# compiler-cache statistics.
FROM base AS pins

ARG ROCM_BAKE_PINS
ARG SOURCE_DATE_EPOCH

RUN --network=none --mount=type=bind,from=core,source=/wheels,target=/deps/core \
    --mount=type=bind,from=plugin,source=/wheels,target=/deps/plugin \
    --mount=type=bind,from=app,source=/wheels,target=/deps/app \
    write-manifest.py /out/versions.json /deps/core /deps/plugin /deps/app

FROM scratch AS export
COPY --from=core /wheels/ /
COPY --from=plugin /wheels/ /
COPY --from=app /wheels/ /
COPY --from=pins /out/ /
# Compiler-cache statistics of the wheel-only stages (the app is a runtime image).
COPY --from=core /compiler-cache/ /compiler-cache/
COPY --from=plugin /compiler-cache/ /compiler-cache/
