# flash-attn.Dockerfile - the flash_attn wheel for one cell (target flash-attn-<arch>).
# Named contexts: base, torch.  Cells listed in SKIP (gfx1201, gfx1250) never reach this
# file: their consumers get the `empty` target instead.
# Follows vllm-project/vllm docker/Dockerfile.rocm_72_base stage build_fa (VLLM_REF v0.33.0):
# the cell's torch installed, Dao-AILab/flash-attention at FA_COMMIT with its submodules
# (composable_kernel: the ROCm backend), `python3 setup.py bdist_wheel` with GPU_ARCHS.
FROM base AS build

ARG FA_REPO
ARG FA_COMMIT
ARG FA_REF
ARG FA_VERSION
ARG PYTORCH_ROCM_ARCH
ARG GPU_ARCHS
ARG HCC_AMDGPU_TARGET
ARG MAX_JOBS
ARG CACHE_TYPE

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

# The cell's torch by sha256 (--wheels), everything else -- requirements/flash-attn-build.txt
# (setup.py's build requirements) -- from the flash-attn lock
# (locks/flash-attn.txt, `inv lock`); then the cell's constraints file: every later pip runs
# against it, so nothing can swap in a PyPI (CUDA) torch.
COPY locks/flash-attn.txt /opt/rocm-bake/locks/flash-attn.txt
RUN --mount=type=bind,from=torch,source=/wheels,target=/deps/torch \
    write-constraints.py --wheels /tmp/cell-wheels.txt /opt/rocm-bake/constraints.txt \
        /deps/torch \
    && pip install --no-cache-dir --require-hashes -r /opt/rocm-bake/locks/flash-attn.txt \
        -r /tmp/cell-wheels.txt
ENV PIP_CONSTRAINT=/opt/rocm-bake/constraints.txt

RUN fetch-source.sh "${FA_REPO}" "${FA_REF}" "${FA_COMMIT}" /src/flash-attention --submodules

# GPU_ARCHS is the cell's one arch (rocm-bake.hcl ARCH_ARGS): upstream strips the gfx1xxx
# archs from PYTORCH_ROCM_ARCH for it, and flash-attention's own default "native" would mean
# the build host's GPU.  FLASH_ATTENTION_FORCE_BUILD=TRUE: setup.py's bdist_wheel otherwise
# first tries to download a prebuilt wheel from GitHub (a build must not depend on that).
WORKDIR /src/flash-attention
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    --mount=type=secret,id=sccache \
    test -n "${GPU_ARCHS}" && test "${GPU_ARCHS}" != native \
    && FLASH_ATTENTION_FORCE_BUILD=TRUE PIP_NO_INDEX=1 \
       with-compiler-cache.sh python setup.py bdist_wheel --dist-dir=/wheels \
    && ls -l "/wheels/flash_attn-${FA_VERSION}"*.whl

FROM scratch AS wheels
COPY --from=build /wheels/ /wheels/
COPY --from=build /var/log/rocm-bake/compiler-cache/ /compiler-cache/
