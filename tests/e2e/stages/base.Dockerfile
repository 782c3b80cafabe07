# base.Dockerfile (test variant) - what dockerfiles/base.Dockerfile is, on a Debian rootfs:
# a venv, the project's own build scripts (named context `scripts`), the compiler-cache
# tools and a stand-in ROCm whose "clang" is gcc.
ARG BASE_IMAGE

FROM ${BASE_IMAGE} AS base

ARG ROCM_VERSION
ARG PYTORCH_ROCM_ARCH
ARG HCC_AMDGPU_TARGET
ARG SOURCE_DATE_EPOCH

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

ENV ROCM_PATH=/opt/rocm \
    PATH=/opt/rocm-bake/bin:/opt/venv/bin:/opt/rocm/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTORCH_ROCM_ARCH=${PYTORCH_ROCM_ARCH} \
    HCC_AMDGPU_TARGET=${HCC_AMDGPU_TARGET} \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

COPY --from=scripts . /opt/rocm-bake/bin/
COPY hipcc /opt/rocm/bin/hipcc

# The stand-in ROCm: its version file, an llvm/bin whose clang/clang++ are gcc/g++, and the
# HIP wrapper directories built by the real install-compiler-wrappers.sh.
RUN --network=none mkdir -p /opt/rocm/.info /opt/rocm/llvm/bin /opt/rocm/llvm/lib /wheels /src \
    && echo "${ROCM_VERSION}-1" > /opt/rocm/.info/version \
    && ln -s /usr/bin/gcc /opt/rocm/llvm/bin/clang \
    && ln -s /usr/bin/g++ /opt/rocm/llvm/bin/clang++ \
    && ln -s /usr/bin/ld /opt/rocm/llvm/bin/ld.lld \
    && install-compiler-wrappers.sh /opt/rocm/llvm/bin /opt/rocm-bake/compiler-wrappers ccache \
    && python3 -m venv --system-site-packages /opt/venv \
    && python -c "import setuptools, wheel" && ccache --version | head -n1

WORKDIR /src
