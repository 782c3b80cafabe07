# aiter.Dockerfile - the amd-aiter wheel for one cell (target aiter-<arch>).
# Named contexts: base, torch, triton.  Cells listed in SKIP (gfx1250) never reach this file:
# their consumers get the `empty` target instead.  A cell in TRITON_ONLY (gfx1201) passes
# AITER_TRITON_ONLY=1 and builds AITER's Triton-only wheel (see the build step).
FROM base AS build

ARG AITER_REPO
ARG AITER_REF
ARG AITER_COMMIT
ARG PYTORCH_ROCM_ARCH
ARG GPU_ARCHS
ARG HCC_AMDGPU_TARGET
ARG MAX_JOBS
ARG CACHE_TYPE
# 1 for a TRITON_ONLY cell (below); else AITER's own default (setup.py line 24: "0").
ARG AITER_TRITON_ONLY=0

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

# The cell's constraints file (write-constraints.py): every later pip runs against it, so
# AITER's requirements.txt cannot replace the cell's torch or triton.  The cell's wheels are
# installed by sha256 (--wheels), everything else -- AITER's requirements.txt and its setup.py's
# setup_requires (requirements/aiter-setup.txt) among it -- from the aiter lock
# (locks/aiter.txt, made by `inv lock` from those files at AITER_REF).
COPY locks/aiter.txt /opt/rocm-bake/locks/aiter.txt
RUN --mount=type=bind,from=torch,source=/wheels,target=/deps/torch \
    --mount=type=bind,from=triton,source=/wheels,target=/deps/triton \
    write-constraints.py --wheels /tmp/cell-wheels.txt /opt/rocm-bake/constraints.txt \
        /deps/torch /deps/triton \
    && pip install --no-cache-dir --require-hashes -r /opt/rocm-bake/locks/aiter.txt \
        -r /tmp/cell-wheels.txt
ENV PIP_CONSTRAINT=/opt/rocm-bake/constraints.txt

# Tags stay in the clone: setuptools_scm derives amd-aiter's version from them.
RUN fetch-source.sh "${AITER_REPO}" "${AITER_REF}" "${AITER_COMMIT}" /src/aiter --submodules \
    && git -C /src/aiter describe --tags

# GPU_ARCHS must be explicit: AITER's default "native" means the build host's GPU.
# PREBUILD_KERNELS=1 compiles the kernels into the wheel instead of JIT at first use;
# AITER_USE_SYSTEM_TRITON=1 keeps the triton built above.  AITER's `pip install -r
# requirements.txt` was the aiter lock's install above.  PIP_NO_INDEX=1: the step keeps the
# network (the compiler cache's WebDAV store), so setuptools could fetch setup.py's
# setup_requires into .eggs unpinned; they are all installed from the lock, and an index is
# refused.
# `python setup.py bdist_wheel`, not `pip wheel .`: pip first runs setup.py for metadata only
# (egg_info/dist_info), where ROCm/aiter setup.py skips its sys.path insert of aiter/ but its
# PREBUILD_KERNELS block still imports jit.utils... ("No module named 'jit'").  Follows
# vllm-project/vllm docker/Dockerfile.rocm_72_base (build_aiter, line 272: PREBUILD_KERNELS=1
# AITER_USE_SYSTEM_TRITON=1 GPU_ARCHS=${AITER_ROCM_ARCH} python3 setup.py bdist_wheel) and
# aiter's release workflow.
# Upstream compiles AITER's kernels for AITER_ROCM_ARCH=gfx942;gfx950 (Dockerfile.rocm_72_base
# line 37) and ships the wheel in its one image for every arch of PYTORCH_ROCM_ARCH (line 35,
# gfx1201 among them): on gfx1201 it is there for its Triton kernels.  That cell
# (rocm-bake.hcl TRITON_ONLY) passes AITER_TRITON_ONLY=1, which this same setup.py call reads
# (ROCm/aiter setup.py at AITER_REF, lines 24-27: CK and PREBUILD_KERNELS off; lines 164-167:
# no hsa/ code objects; lines 463-464: its requirements) -- as upstream switches a build of
# its own per arch by the environment, with the build_aiter RUN unchanged
# (Dockerfile.rocm_base_gfx1250 lines 35 and 38: ENABLE_CK=0, PREBUILD_KERNELS=0).
WORKDIR /src/aiter
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    --mount=type=secret,id=sccache \
    test -n "${GPU_ARCHS}" && test "${GPU_ARCHS}" != native \
    && PREBUILD_KERNELS=1 AITER_USE_SYSTEM_TRITON=1 PIP_NO_INDEX=1 \
       with-compiler-cache.sh python setup.py bdist_wheel --dist-dir=/wheels \
    && ls -l /wheels/amd_aiter-*.whl

FROM scratch AS wheels
COPY --from=build /wheels/ /wheels/
COPY --from=build /var/log/rocm-bake/compiler-cache/ /compiler-cache/
