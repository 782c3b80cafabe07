# flash-attn.Dockerfile - the flash_attn wheel for one cell (target flash-attn-<arch>).
# Named contexts: base, torch.  Cells listed in SKIP (gfx1250) never reach this file: their
# consumers get the `empty` target instead.  A cell in TRITON_ONLY (gfx1201) passes
# FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE and builds FlashAttention's Triton backend.
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
# TRUE for a TRITON_ONLY cell (below); else FlashAttention's own default (setup.py line 65).
ARG FLASH_ATTENTION_TRITON_AMD_ENABLE=FALSE

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
# The cell's composable_kernel archs are upstream's (Dockerfile.rocm_72_base line 249:
# GPU_ARCHS=$(echo ${PYTORCH_ROCM_ARCH} | sed -e 's/;gfx1[0-9]\{3\}//g'), the cell's one arch
# read with a ';' before it, as each arch after upstream's first is).  None (gfx1201): upstream
# ships this wheel there without kernels for it, in its one image for every arch of
# PYTORCH_ROCM_ARCH (line 30), for FlashAttention's Triton backend; that cell (rocm-bake.hcl
# TRITON_ONLY) passes FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE, which this same setup.py call
# reads (Dao-AILab/flash-attention setup.py at FA_COMMIT, lines 65-66: no CK build, so no
# flash_attn_2_cuda; README "Triton Backend": FLASH_ATTENTION_TRITON_AMD_ENABLE="TRUE" python
# setup.py install) -- as upstream switches a build of its own per arch by the environment,
# with the build_fa RUN unchanged (Dockerfile.rocm_base_gfx1250 line 37).  The step fails
# where the switch and upstream's CK archs disagree.
WORKDIR /src/flash-attention
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    --mount=type=secret,id=sccache \
    test -n "${GPU_ARCHS}" && test "${GPU_ARCHS}" != native \
    && ck_archs="$(echo ";${PYTORCH_ROCM_ARCH}" | sed -e 's/;gfx1[0-9]\{3\}//g' -e 's/^;//')" \
    && if [ "${FLASH_ATTENTION_TRITON_AMD_ENABLE}" = TRUE ]; then \
           test -z "${ck_archs}" || { echo "FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE, but upstream builds composable_kernel for ${ck_archs}" >&2; exit 1; }; \
       else \
           test -n "${ck_archs}" || { echo "upstream builds no composable_kernel for ${PYTORCH_ROCM_ARCH}: set FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE (rocm-bake.hcl TRITON_ONLY)" >&2; exit 1; }; \
       fi \
    && FLASH_ATTENTION_FORCE_BUILD=TRUE PIP_NO_INDEX=1 \
       with-compiler-cache.sh python setup.py bdist_wheel --dist-dir=/wheels \
    && ls -l "/wheels/flash_attn-${FA_VERSION}"*.whl

FROM scratch AS wheels
COPY --from=build /wheels/ /wheels/
COPY --from=build /var/log/rocm-bake/compiler-cache/ /compiler-cache/
