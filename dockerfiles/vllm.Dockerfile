# vllm.Dockerfile - the vLLM wheel for one cell (target vllm-<arch>).
# Named contexts: base, torch, triton, aiter, nixl.  aiter (and nixl) may be the
# `empty` target for cells that skip them; their /wheels is then empty and the
# install below simply finds nothing there.
# hadolint ignore=DL3006
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
    python use_existing_torch.py \
    && build_reqs=requirements/build/rocm.txt \
    && if [ ! -f "${build_reqs}" ]; then build_reqs=requirements/rocm-build.txt; fi \
    && pip install --no-cache-dir -r "${build_reqs}" "setuptools-rust>=1.9" \
    && test -n "${PYTORCH_ROCM_ARCH}" \
    && VLLM_TARGET_DEVICE=rocm \
       SETUPTOOLS_SCM_PRETEND_VERSION="${VLLM_REF#v}" \
       with-compiler-cache.sh pip wheel --no-build-isolation --no-deps -w /wheels . \
    && ls -l /wheels/vllm-*.whl

FROM scratch AS wheels
COPY --from=build /wheels/ /wheels/
