# mori.Dockerfile - the amd_mori wheel for one cell (target mori-<arch>).
# Named contexts: base, torch.  Cells listed in SKIP (gfx1201, gfx1250: outside MoRI's
# setup.py _supported_arch_list) never reach this file: their consumers get `empty`.
# Follows vllm-project/vllm docker/Dockerfile.rocm_72_base stage build_mori (VLLM_REF v0.33.0):
# the cell's torch installed, ROCm/mori at MORI_REF with its submodules, `python3 setup.py
# bdist_wheel`.
FROM base AS build

ARG MORI_REPO
ARG MORI_REF
ARG MORI_COMMIT
ARG PYTORCH_ROCM_ARCH
ARG GPU_ARCHS
ARG MORI_GPU_ARCHS
ARG HCC_AMDGPU_TARGET
ARG MAX_JOBS
ARG CACHE_TYPE

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

# The cell's torch by sha256 (--wheels), everything else from the mori lock (locks/mori.txt,
# `inv lock`): MoRI's [build-system].requires (setuptools, setuptools_scm, wheel, ninja, cmake,
# pybind11, Cython; pyproject.toml read at tag v1.2.2, MORI_REF's own not readable where this
# was written)
# are all the base image's build tools (requirements/build-tools.txt), as upstream's base
# installs them; then the cell's constraints file.
COPY locks/mori.txt /opt/rocm-bake/locks/mori.txt
RUN --mount=type=bind,from=torch,source=/wheels,target=/deps/torch \
    write-constraints.py --wheels /tmp/cell-wheels.txt /opt/rocm-bake/constraints.txt \
        /deps/torch \
    && pip install --no-cache-dir --require-hashes -r /opt/rocm-bake/locks/mori.txt \
        -r /tmp/cell-wheels.txt
ENV PIP_CONSTRAINT=/opt/rocm-bake/constraints.txt

# Tags stay in the clone: setuptools_scm derives amd_mori's version from them.
RUN fetch-source.sh "${MORI_REPO}" "${MORI_REF}" "${MORI_COMMIT}" /src/mori --submodules \
    && git -C /src/mori describe --tags

# MORI_GPU_ARCHS is the cell's one arch (rocm-bake.hcl ARCH_ARGS): MoRI's setup.py takes
# MORI_GPU_ARCHS first and otherwise the build host's GPU (rocm_agent_enumerator) before
# PYTORCH_ROCM_ARCH, so it must be set.
WORKDIR /src/mori
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    --mount=type=secret,id=sccache \
    test -n "${MORI_GPU_ARCHS}" \
    && PIP_NO_INDEX=1 with-compiler-cache.sh python setup.py bdist_wheel --dist-dir=/wheels \
    && ls -l /wheels/amd_mori-*.whl

FROM scratch AS wheels
COPY --from=build /wheels/ /wheels/
COPY --from=build /var/log/rocm-bake/compiler-cache/ /compiler-cache/
