# base.Dockerfile (cache test stack) - the real HIP toolchain image (scripts/hip-toolchain.sh:
# trixie clang-22, ROCm 7.x HIP headers, device libraries and hipcc in a ROCm layout) plus
# what the real base image carries for compiler caching: the project's scripts (named context
# `scripts`), the sccache binary (ccache is the image's own, Debian's) and the hipBLAS/rocBLAS
# 7.x headers ggml's HIP backend includes (Debian .debs, unpacked: their dependencies do not
# resolve on trixie; all fetched at setup by scripts/cachestack.sh into the `downloads`
# context), and the HIP
# wrapper directories of both tools (ROCm below 7.13: HIP goes through HIP_CLANG_PATH, not
# HIP_CLANG_LAUNCHER).
ARG BASE_IMAGE

FROM ${BASE_IMAGE} AS base

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

ENV ROCM_PATH=/opt/rocm \
    PATH=/opt/rocm-bake/bin:/opt/rocm/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

COPY --from=scripts . /opt/rocm-bake/bin/

RUN --network=none --mount=type=bind,from=downloads,target=/downloads \
    for deb in /downloads/libhipblas-dev_*.deb /downloads/libhipblas-common-dev_*.deb \
               /downloads/librocblas-dev_*.deb; do dpkg-deb -x "$deb" /; done \
    && test -f /usr/include/hipblas/hipblas.h && test -f /usr/include/rocblas/rocblas.h \
    && mkdir -p /src /out \
    && install -m 0755 /downloads/sccache /usr/local/bin/sccache \
    && install-compiler-wrappers.sh /opt/rocm/llvm/bin /opt/rocm-bake/compiler-wrappers sccache ccache \
    && hipcc --version > /dev/null && sccache --version && ccache --version | head -n1

WORKDIR /src
