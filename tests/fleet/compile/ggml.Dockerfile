# One compile cell of tests/fleet/compile/fleet-compile.hcl: ggml from the llama-cpp-python sdist,
# the cell's units (GGML_TUS) compiled one at a time by the cache stack's Makefile through
# with-compiler-cache.sh. SALT only names the compile step (a new layer); the objects do not
# depend on it, so the compiler cache serves them again (warm).
FROM base AS build
ARG LLAMA_CPP_PYTHON_VERSION
RUN --network=none --mount=type=bind,from=downloads,target=/downloads \
    tar -xzf "/downloads/llama_cpp_python-${LLAMA_CPP_PYTHON_VERSION}.tar.gz" -C /src \
        "llama_cpp_python-${LLAMA_CPP_PYTHON_VERSION}/vendor/llama.cpp/ggml" \
    && mv "/src/llama_cpp_python-${LLAMA_CPP_PYTHON_VERSION}/vendor/llama.cpp/ggml" /src/ggml \
    && rm -rf "/src/llama_cpp_python-${LLAMA_CPP_PYTHON_VERSION}"
COPY --from=stack Makefile /src/Makefile

ARG CACHE_TYPE
ARG GPU_ARCHS
ARG GGML_TUS
ARG PART
ARG SALT
RUN --network=host --mount=type=secret,id=sccache \
    echo "${SALT}" > /out/salt \
    && COMPILER_CACHE_STATS_NAME="ggml${PART}" with-compiler-cache.sh \
        make -f /src/Makefile -j1 GGML_TUS="${GGML_TUS}" GPU_ARCHS="${GPU_ARCHS}"

FROM scratch
COPY --from=build /out/ggml/ /out/ggml/
