# base.Dockerfile - the ROCm build base of one cell (target base-<arch>).
#
# ROCm dev image (tag + digest from rocm-bake.hcl) + CPython <PYTHON_VERSION> in a
# venv + build tools + the pinned compiler-cache tools.  Every later stage starts
# FROM this image (named context "base"), so tools are never installed inside a
# component build.  The arch knobs are set once here, for this cell's one arch:
# several of them default to "the GPU of the build host" when unset.
ARG BASE_IMAGE

FROM ${BASE_IMAGE} AS base

ARG ROCM_VERSION
ARG PYTHON_VERSION
ARG PYTORCH_ROCM_ARCH
ARG GPU_ARCHS
ARG HCC_AMDGPU_TARGET
ARG SCCACHE_VERSION
ARG SCCACHE_SHA256

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

ENV DEBIAN_FRONTEND=noninteractive \
    ROCM_PATH=/opt/rocm \
    ROCM_HOME=/opt/rocm \
    HIP_PATH=/opt/rocm \
    PATH=/opt/venv/bin:/opt/rocm/llvm/bin:/opt/rocm/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LD_LIBRARY_PATH=/opt/rocm/lib:/usr/local/lib \
    PYTORCH_ROCM_ARCH=${PYTORCH_ROCM_ARCH} \
    GPU_ARCHS=${GPU_ARCHS} \
    HCC_AMDGPU_TARGET=${HCC_AMDGPU_TARGET} \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# The image must be the ROCm release the bake file says it is.
RUN test "$(cut -d- -f1 /opt/rocm/.info/version)" = "${ROCM_VERSION}" \
    || { echo "base image is ROCm $(cat /opt/rocm/.info/version), expected ${ROCM_VERSION}" >&2; exit 1; }

# OS build dependencies, CPython from the deadsnakes PPA (22.04 ships 3.10),
# ccache from the distribution.  Distribution packages are not version-pinned:
# the base image digest fixes the release; an apt snapshot would fix the rest.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends software-properties-common gpg-agent \
    && add-apt-repository -y ppa:deadsnakes/ppa \
    && apt-get update \
    && apt-get install -y --no-install-recommends \
        git curl ca-certificates build-essential pkg-config ccache \
        autoconf automake libtool \
        libnuma-dev libdrm-dev libelf-dev liblzma-dev libjpeg-dev libpng-dev \
        libaio-dev libibverbs-dev librdmacm-dev \
        "python${PYTHON_VERSION}" "python${PYTHON_VERSION}-dev" "python${PYTHON_VERSION}-venv" \
    && rm -rf /var/lib/apt/lists/*

# One interpreter for every stage: a venv, first on PATH.  Build tools in version
# ranges (exact pins belong in a constraints file, next pass).
# hadolint ignore=DL3013
RUN "python${PYTHON_VERSION}" -m venv /opt/venv \
    && python -m pip install --upgrade "pip>=25,<26" \
    && python -m pip install \
        "setuptools>=77,<80" wheel packaging build "cmake>=3.28,<4" ninja \
        pybind11 "Cython>=3,<4" "setuptools-scm>=8,<9" pyyaml \
    && python --version

# sccache: the pinned release tarball, verified against its sha256 before use.
RUN tarball="sccache-v${SCCACHE_VERSION}-x86_64-unknown-linux-musl.tar.gz" \
    && curl -fsSL --retry 3 -o "/tmp/${tarball}" \
        "https://github.com/mozilla/sccache/releases/download/v${SCCACHE_VERSION}/${tarball}" \
    && echo "${SCCACHE_SHA256}  /tmp/${tarball}" | sha256sum --check --strict - \
    && tar -xzf "/tmp/${tarball}" -C /tmp \
    && install -m 0755 "/tmp/sccache-v${SCCACHE_VERSION}-x86_64-unknown-linux-musl/sccache" /usr/local/bin/sccache \
    && rm -rf /tmp/sccache* \
    && sccache --version

# HIP compiler wrappers for ROCm < 7.13 (no HIP_CLANG_LAUNCHER): a separate
# directory used as HIP_CLANG_PATH for one RUN only.  The original keeps a name
# ending in clang/clang++ so the driver mode stays right.
RUN for tool in sccache ccache; do \
        mkdir -p "/opt/rocm-bake/compiler-wrappers/${tool}"; \
        for cc in clang clang++; do \
            printf '#!/bin/sh\nexec %s /opt/rocm/llvm/bin/%s "$@"\n' "${tool}" "${cc}" \
                > "/opt/rocm-bake/compiler-wrappers/${tool}/${cc}"; \
            chmod 0755 "/opt/rocm-bake/compiler-wrappers/${tool}/${cc}"; \
        done; \
    done

COPY scripts/fetch-source.sh scripts/with-compiler-cache.sh /opt/rocm-bake/bin/
ENV PATH=/opt/rocm-bake/bin:${PATH}

RUN mkdir -p /wheels /src
WORKDIR /src
