# core.Dockerfile (test variant, ~ torch) - a wheel with a C++ extension module and a HIP
# library: kernels.hip compiled by the real hipcc for PYTORCH_ROCM_ARCH, through the HIP
# wrapper directory with-compiler-cache.sh passes as HIP_CLANG_PATH (ROCm below 7.13).
FROM base AS build

ARG CORE_VERSION
ARG CACHE_TYPE
ARG SOURCE_DATE_EPOCH

COPY src/core /src/core
WORKDIR /src/core
RUN --network=none --mount=type=cache,id=rocm-bake-e2e-ccache,target=/root/.cache/ccache \
    --mount=type=cache,id=rocm-bake-e2e-sccache,target=/root/.cache/sccache \
    COMPILER_CACHE_STATS_NAME=core \
    with-compiler-cache.sh python -m pip wheel --no-build-isolation --no-deps --no-index \
        -w /wheels . \
    && ls /wheels/rb_core-*.whl

FROM scratch AS wheels
COPY --from=build /wheels/ /wheels/
COPY --from=build /var/log/rocm-bake/compiler-cache/ /compiler-cache/
