# ggml.Dockerfile (cache test stack, ~ a real compile stage): ggml's HIP backend and host C/C++
# code from the released llama-cpp-python sdist, a chosen set of translation units (GGML_TUS)
# compiled for the cell's archs (GPU_ARCHS) by the real HIP compiler through the HIP wrapper
# directory (hipcc -> HIP_CLANG_PATH -> sccache -> clang++) and the host compiler through
# COMPILER_LAUNCHER, all under with-compiler-cache.sh; sccache's remote settings come only from
# the BuildKit secret `sccache`, its local level from a cache mount. Offline except loopback
# (--network=host reaches the WebDAV store on 127.0.0.1).
FROM base AS build
ARG LLAMA_CPP_PYTHON_VERSION
RUN --network=none --mount=type=bind,from=downloads,target=/downloads \
    tar -xzf "/downloads/llama_cpp_python-${LLAMA_CPP_PYTHON_VERSION}.tar.gz" -C /src \
        "llama_cpp_python-${LLAMA_CPP_PYTHON_VERSION}/vendor/llama.cpp/ggml" \
    && mv "/src/llama_cpp_python-${LLAMA_CPP_PYTHON_VERSION}/vendor/llama.cpp/ggml" /src/ggml \
    && rm -rf "/src/llama_cpp_python-${LLAMA_CPP_PYTHON_VERSION}"

# Declared after the unpack step: every RUN sees the ARGs declared before it, so a new pin
# declared above would unpack the sdist again on every warm build.
ARG CACHE_TYPE
ARG GPU_ARCHS
ARG GGML_TUS
# A pin of this stage: bumping it re-runs the compile steps (the *warm* condition).
ARG GGML_PIN
ARG PROBE_DEFINE

COPY src/Makefile /src/Makefile
RUN --network=host --mount=type=cache,id=rocm-bake-cachestack-sccache,target=/root/.cache/sccache \
    --mount=type=secret,id=sccache \
    echo "${GGML_PIN}" > /out/pin \
    && COMPILER_CACHE_STATS_NAME=ggml with-compiler-cache.sh \
        make -f /src/Makefile -j2 GGML_TUS="${GGML_TUS}" GPU_ARCHS="${GPU_ARCHS}"

COPY src/probe.hip /src/probe/probe.hip
# The shell is bash (base.Dockerfile's SHELL), which hadolint cannot see from this file.
# hadolint ignore=SC3060
RUN --network=host --mount=type=cache,id=rocm-bake-cachestack-sccache,target=/root/.cache/sccache \
    --mount=type=secret,id=sccache \
    archs=(${GPU_ARCHS//;/ }) \
    && COMPILER_CACHE_STATS_NAME=probe with-compiler-cache.sh \
        hipcc -x hip "${archs[@]/#/--offload-arch=}" -O2 -cuid=probe \
            -DPROBE_DEFINE="${PROBE_DEFINE}" -c /src/probe/probe.hip -o /out/probe.o

FROM scratch AS wheels
COPY --from=build /out/ /out/
COPY --from=build /var/log/rocm-bake/compiler-cache/ /compiler-cache/
