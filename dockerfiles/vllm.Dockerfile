# vllm.Dockerfile - the vLLM runtime image of one cell (target vllm-<arch>, stage runtime).
# Named contexts: base, torch, triton, aiter, nixl.  aiter (and nixl) may be the `empty`
# target for cells that skip them; their /wheels is then empty and the installs below
# simply find nothing there.
#   build    builds the vllm wheel into /wheels
#   wheels   just that wheel (FROM scratch)
#   runtime  base + every wheel of the cell installed + /opt/rocm-bake/versions.json (every
#            pin, every wheel's version and sha256); keeps its own wheel in /wheels, the
#            contract every consumer (lmcache, wheels-<arch>) bind-mounts
FROM base AS build

ARG VLLM_REPO
ARG VLLM_COMMIT
ARG VLLM_REF
ARG PYTORCH_ROCM_ARCH
ARG GPU_ARCHS
ARG HCC_AMDGPU_TARGET
ARG MAX_JOBS
ARG CACHE_TYPE

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

# The cell's own torch/triton/aiter/nixl, installed together so pip resolves
# their dependencies once and never swaps in a PyPI (CUDA) torch.
RUN --mount=type=bind,from=torch,source=/wheels,target=/deps/torch \
    --mount=type=bind,from=triton,source=/wheels,target=/deps/triton \
    --mount=type=bind,from=aiter,source=/wheels,target=/deps/aiter \
    --mount=type=bind,from=nixl,source=/wheels,target=/deps/nixl \
    shopt -s nullglob \
    && pip install --no-cache-dir /deps/torch/*.whl /deps/triton/*.whl /deps/aiter/*.whl /deps/nixl/*.whl \
    && pip check

RUN fetch-source.sh "${VLLM_REPO}" "${VLLM_REF}" "${VLLM_COMMIT}" /src/vllm

# use_existing_torch.py drops vLLM's torch pins so the torch above is kept.
# (The Rust frontend, vllm-rs, is optional: without cargo in the image setup.py
# skips it; a later pass adds a pinned Rust toolchain to base.)
WORKDIR /src/vllm
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    --mount=type=secret,id=sccache \
    python use_existing_torch.py \
    && build_reqs=requirements/build/rocm.txt \
    && if [ ! -f "${build_reqs}" ]; then build_reqs=requirements/rocm-build.txt; fi \
    && pip install --no-cache-dir -r "${build_reqs}" "setuptools-rust==1.11.1" \
    && test -n "${PYTORCH_ROCM_ARCH}" \
    && VLLM_TARGET_DEVICE=rocm \
       SETUPTOOLS_SCM_PRETEND_VERSION="${VLLM_REF#v}" \
       with-compiler-cache.sh pip wheel --no-build-isolation --no-deps -w /wheels . \
    && ls -l /wheels/vllm-*.whl

FROM scratch AS wheels
COPY --from=build /wheels/ /wheels/
COPY --from=build /var/log/rocm-bake/compiler-cache/ /compiler-cache/

FROM base AS runtime

ARG ROCM_BAKE_PINS
# In the environment of the RUN below: pip then writes hash-based .pyc files.
ARG SOURCE_DATE_EPOCH

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

RUN --mount=type=bind,from=torch,source=/wheels,target=/deps/torch \
    --mount=type=bind,from=triton,source=/wheels,target=/deps/triton \
    --mount=type=bind,from=aiter,source=/wheels,target=/deps/aiter \
    --mount=type=bind,from=nixl,source=/wheels,target=/deps/nixl \
    --mount=type=bind,from=wheels,source=/wheels,target=/deps/vllm \
    shopt -s nullglob \
    && pip install --no-cache-dir /deps/torch/*.whl /deps/triton/*.whl /deps/aiter/*.whl \
        /deps/nixl/*.whl /deps/vllm/*.whl \
    && pip check \
    && write-manifest.py /opt/rocm-bake/versions.json \
        /deps/torch /deps/triton /deps/aiter /deps/nixl /deps/vllm \
    && python -c "import torch, vllm; assert torch.version.hip; print('vllm', vllm.__version__)"

COPY --from=wheels /wheels/ /wheels/
WORKDIR /
ENTRYPOINT ["vllm", "serve"]
