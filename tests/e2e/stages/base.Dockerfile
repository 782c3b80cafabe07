# base.Dockerfile (test variant) - what dockerfiles/base.Dockerfile is, on the real HIP toolchain
# image (scripts/hip-toolchain.sh: Debian trixie, clang-22, ROCm 7.x HIP in /opt/rocm): a venv,
# the project's own build scripts (named context `scripts`), the compiler-cache tools (ccache,
# and sccache from the named context `downloads`) and the wrapper directories (HIP and host)
# built by the real install-compiler-wrappers.sh around ROCm's clang and the host compilers.
ARG BASE_IMAGE

FROM ${BASE_IMAGE} AS base

ARG ROCM_VERSION
ARG PYTORCH_ROCM_ARCH
ARG GPU_ARCHS
ARG HCC_AMDGPU_TARGET
ARG SOURCE_DATE_EPOCH

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

ENV ROCM_PATH=/opt/rocm \
    PATH=/opt/rocm-bake/bin:/opt/venv/bin:/opt/rocm/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTORCH_ROCM_ARCH=${PYTORCH_ROCM_ARCH} \
    GPU_ARCHS=${GPU_ARCHS} \
    HCC_AMDGPU_TARGET=${HCC_AMDGPU_TARGET} \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

COPY --from=scripts . /opt/rocm-bake/bin/
# sccache beside the image's own ccache (Debian's), as the real base image has both.
COPY --from=downloads --chmod=0755 sccache /usr/local/bin/sccache

# The image must be the ROCm release the bake file says it is, and the arch spellings this
# cell's one arch (empty or "native" would mean the build host's GPU -- there is none here).
RUN --network=none test "$(cut -d- -f1 /opt/rocm/.info/version)" = "${ROCM_VERSION}" \
    && test -n "${PYTORCH_ROCM_ARCH}" && test -n "${GPU_ARCHS}" && test "${GPU_ARCHS}" != native \
    && test -n "${HCC_AMDGPU_TARGET}" \
    && mkdir -p /wheels /src \
    && install-compiler-wrappers.sh /opt/rocm/llvm/bin /opt/rocm-bake/compiler-wrappers ccache sccache \
    && python3 -m venv --system-site-packages /opt/venv \
    && python -c "import setuptools, wheel" && ccache --version | head -n1

WORKDIR /src
