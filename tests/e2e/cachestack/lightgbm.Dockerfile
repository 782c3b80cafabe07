# lightgbm.Dockerfile (cache test stack, ~ a real compile stage): LightGBM's C++ library built
# with CMake through CMAKE_*_COMPILER_LAUNCHER=sccache and one TU through the HIP wrapper
# directory, both under with-compiler-cache.sh; sccache's remote settings come only from the
# BuildKit secret `sccache`, its local level from a cache mount. Offline except loopback
# (--network=host reaches the WebDAV store on 127.0.0.1).
FROM base AS build

ARG CACHE_TYPE
ARG LIGHTGBM_VERSION
# A pin of this stage: bumping it re-runs the compile steps (the *warm* condition).
ARG LIGHTGBM_PIN
ARG PROBE_DEFINE

RUN --network=none --mount=type=bind,from=downloads,target=/downloads \
    tar -xzf "/downloads/lightgbm-${LIGHTGBM_VERSION}.tar.gz" -C /src \
    && mv "/src/lightgbm-${LIGHTGBM_VERSION}" /src/lightgbm

RUN --network=host --mount=type=cache,id=rocm-bake-cachestack-sccache,target=/root/.cache/sccache \
    --mount=type=secret,id=sccache \
    echo "${LIGHTGBM_PIN}" > /out/pin \
    && COMPILER_CACHE_STATS_NAME=lightgbm with-compiler-cache.sh sh -c \
        'cmake -S /src/lightgbm -B /build/lightgbm -DUSE_DEBUG=ON -DUSE_OPENMP=OFF -DBUILD_CLI=OFF \
         && cmake --build /build/lightgbm -j2' \
    && cp /src/lightgbm/lib_lightgbm.so /out/

COPY src/probe.cpp /src/probe/probe.cpp
RUN --network=host --mount=type=cache,id=rocm-bake-cachestack-sccache,target=/root/.cache/sccache \
    --mount=type=secret,id=sccache \
    COMPILER_CACHE_STATS_NAME=hip with-compiler-cache.sh \
        hipcc -O0 -DPROBE_DEFINE="${PROBE_DEFINE}" -c /src/probe/probe.cpp -o /out/probe.o

FROM scratch AS wheels
COPY --from=build /out/ /out/
COPY --from=build /var/log/rocm-bake/compiler-cache/ /compiler-cache/
