# base.Dockerfile - the ROCm build base of one cell (target base-<arch>).
#
# ROCm dev image (tag + digest from rocm-bake.hcl) + CPython <PYTHON_VERSION> in a venv +
# pinned build tools (cmake, ninja, requirements/build-tools.txt) + the compiler-cache tools:
# sccache from its sha256 allow-list (scripts/install-sccache.sh, fails closed) and ccache.
# Every later stage starts FROM this image (named context "base"), so no tool is installed
# inside a component build.  The arch knobs are set once here, for this cell's one arch:
# several of them default to "the GPU of the build host" when unset.
ARG BASE_IMAGE

FROM ${BASE_IMAGE} AS base

ARG ROCM_VERSION
ARG PYTHON_VERSION
ARG CMAKE_VERSION
ARG NINJA_VERSION
ARG PYTORCH_ROCM_ARCH
ARG GPU_ARCHS
ARG HCC_AMDGPU_TARGET
ARG SCCACHE_VERSION
ARG SCCACHE_SHA256

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

# No HIP_CLANG_PATH and no compiler wrapper here: with-compiler-cache.sh sets them for one
# build step only.
ENV DEBIAN_FRONTEND=noninteractive \
    ROCM_PATH=/opt/rocm \
    ROCM_HOME=/opt/rocm \
    HIP_PATH=/opt/rocm \
    PATH=/opt/rocm-bake/bin:/opt/venv/bin:/opt/rocm/llvm/bin:/opt/rocm/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LD_LIBRARY_PATH=/opt/rocm/lib:/usr/local/lib \
    PYTORCH_ROCM_ARCH=${PYTORCH_ROCM_ARCH} \
    GPU_ARCHS=${GPU_ARCHS} \
    HCC_AMDGPU_TARGET=${HCC_AMDGPU_TARGET} \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# The image must be the ROCm release the bake file says it is, and the arch spellings must
# be this cell's one arch (GPU_ARCHS "native" or empty would mean the build host's GPU).
RUN --network=none test "$(cut -d- -f1 /opt/rocm/.info/version)" = "${ROCM_VERSION}" \
        || { echo "base image is ROCm $(cat /opt/rocm/.info/version), expected ${ROCM_VERSION}" >&2; exit 1; } \
    && test -n "${PYTORCH_ROCM_ARCH}" && test -n "${GPU_ARCHS}" && test "${GPU_ARCHS}" != native \
    && test -n "${HCC_AMDGPU_TARGET}" \
    && test -z "$(printf '%s' "${HCC_AMDGPU_TARGET}" | tr -dc ';')"

# OS build dependencies, CPython from the deadsnakes PPA (22.04 ships 3.10), ccache, and
# gcc-13/g++-13 from the ubuntu-toolchain-r/test PPA: vllm-project/vllm
# docker/Dockerfile.rocm_72_base (v0.33.0 sdist) adds both PPAs at lines 53-55 and installs
# gcc-13 g++-13 at line 59 for its torch builds ("torch 2.12 emits float->__bf16 libcalls
# (__truncsfbf2) absent from gcc-11 libgcc", line 146); torch.Dockerfile switches to
# them for torch, torchvision and torchaudio only, as upstream does; every other build keeps
# jammy's gcc-11.
# Not version-pinned (DL3008; lint apt-pin and apt-repository, waived in lint/policy.toml),
# deliberately: the base image digest fixes the Ubuntu release and the PPAs drop old builds,
# so exact apt pins would break on every PPA update; the exact Python and every wheel land in
# the runtime images' versions.json instead.  The PPA step is tried three times, as vLLM's
# docker/Dockerfile.rocm_72_base does (Launchpad's key server fails now and then); the third
# failure fails the build.
# libopenmpi-dev and libpci-dev as vllm-project/vllm docker/Dockerfile.rocm_72_base (v0.33.0)
# installs them in its base: with MPI found,
# torch builds torch.distributed's MPI backend as upstream's wheel has it (torch.Dockerfile).
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends software-properties-common gpg-agent \
    && for attempt in 1 2 3; do \
           add-apt-repository -y ppa:deadsnakes/ppa \
               && add-apt-repository -y ppa:ubuntu-toolchain-r/test && break; \
           [ "${attempt}" -lt 3 ] || exit 1; \
           echo "add-apt-repository failed (attempt ${attempt} of 3); retrying" >&2; \
           sleep 5; \
       done \
    && apt-get update \
    && apt-get install -y --no-install-recommends \
        git curl ca-certificates build-essential pkg-config ccache \
        autoconf automake libtool \
        libnuma-dev libdrm-dev libelf-dev liblzma-dev libjpeg-dev libpng-dev \
        libaio-dev libibverbs-dev librdmacm-dev libopenmpi-dev libpci-dev \
        "python${PYTHON_VERSION}" "python${PYTHON_VERSION}-dev" "python${PYTHON_VERSION}-venv" \
        gcc-13 g++-13 \
    && gcc-13 --version && g++-13 --version \
    && rm -rf /var/lib/apt/lists/*

# One interpreter for every stage: a venv, first on PATH, checked to be the pinned Python.
# Its tools (requirements/build-tools.txt: pip, setuptools, ..., cmake and ninja at
# CMAKE_VERSION and NINJA_VERSION) come from the base lock, by version and sha256
# (dockerfiles/locks/base.txt, made by `inv lock`); the versions are checked against the pins.
COPY locks/base.txt /opt/rocm-bake/locks/base.txt
RUN "python${PYTHON_VERSION}" -m venv /opt/venv \
    && python -c "import sys; v = '%d.%d' % sys.version_info[:2]; assert v == '${PYTHON_VERSION}', v" \
    && python -m pip install --no-cache-dir --require-hashes -r /opt/rocm-bake/locks/base.txt \
    && python -c "from importlib.metadata import version as v; \
assert (v('cmake'), v('ninja')) == ('${CMAKE_VERSION}', '${NINJA_VERSION}'), (v('cmake'), v('ninja'))" \
    && cmake --version && ninja --version

# Compiler caches: sccache from the allow-list (version -> sha256; unknown versions fail),
# ccache from the distribution; HIP wrapper directories for ROCm < 7.13.
COPY scripts/ /opt/rocm-bake/bin/
RUN install-sccache.sh "${SCCACHE_VERSION}" "${SCCACHE_SHA256}" \
    && ccache --version \
    && install-compiler-wrappers.sh /opt/rocm/llvm/bin /opt/rocm-bake/compiler-wrappers sccache ccache

RUN --network=none mkdir -p /wheels /src
WORKDIR /src
