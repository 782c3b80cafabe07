# lmcache.Dockerfile - LMCache built for HIP (BUILD_WITH_HIP=1) for one cell
# (target lmcache-<arch>, stage runtime).  Named contexts: base, torch, triton, cupy, vllm
# (the cell's vLLM runtime image).
#   build    builds the lmcache wheel in an environment that already holds the cell's vLLM
#   wheels   just that wheel (FROM scratch)
#   runtime  the vLLM runtime image + CuPy + LMCache, its versions manifest extended with
#            them; /wheels holds the vLLM and LMCache wheels
FROM base AS build

ARG LMCACHE_REPO
ARG LMCACHE_COMMIT
ARG LMCACHE_REF
ARG PYTORCH_ROCM_ARCH
ARG GPU_ARCHS
ARG HCC_AMDGPU_TARGET
ARG MAX_JOBS
ARG CACHE_TYPE

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

RUN --mount=type=bind,from=torch,source=/wheels,target=/deps/torch \
    --mount=type=bind,from=triton,source=/wheels,target=/deps/triton \
    --mount=type=bind,from=cupy,source=/wheels,target=/deps/cupy \
    --mount=type=bind,from=vllm,source=/wheels,target=/deps/vllm \
    shopt -s nullglob \
    && pip install --no-cache-dir /deps/torch/*.whl /deps/triton/*.whl /deps/cupy/*.whl /deps/vllm/*.whl

RUN fetch-source.sh "${LMCACHE_REPO}" "${LMCACHE_REF}" "${LMCACHE_COMMIT}" /src/lmcache

WORKDIR /src/lmcache
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    --mount=type=secret,id=sccache \
    test -n "${PYTORCH_ROCM_ARCH}" \
    && BUILD_WITH_HIP=1 CXX=hipcc TORCH_DONT_CHECK_COMPILER_ABI=1 \
       SETUPTOOLS_SCM_PRETEND_VERSION="${LMCACHE_REF#v}" \
       with-compiler-cache.sh pip wheel --no-build-isolation --no-deps -w /wheels . \
    && python -c "import zipfile, glob; w = glob.glob('/wheels/lmcache-*.whl')[0]; \
assert any(n.endswith('.so') for n in zipfile.ZipFile(w).namelist()), 'LMCache wheel has no compiled HIP extension'; print(w)"

FROM scratch AS wheels
COPY --from=build /wheels/ /wheels/
COPY --from=build /var/log/rocm-bake/compiler-cache/ /compiler-cache/

FROM vllm AS runtime

ARG ROCM_BAKE_PINS
# In the environment of the RUN below: pip then writes hash-based .pyc files.
ARG SOURCE_DATE_EPOCH

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

RUN --mount=type=bind,from=cupy,source=/wheels,target=/deps/cupy \
    --mount=type=bind,from=wheels,source=/wheels,target=/deps/lmcache \
    shopt -s nullglob \
    && pip install --no-cache-dir /deps/cupy/*.whl /deps/lmcache/*.whl \
    && pip check \
    && write-manifest.py /opt/rocm-bake/versions.json /deps/cupy /deps/lmcache \
    && python -c "import lmcache, vllm; print('lmcache on vllm', vllm.__version__)"

COPY --from=wheels /wheels/ /wheels/
