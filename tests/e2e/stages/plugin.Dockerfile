# plugin.Dockerfile (test variant, ~ triton/aiter) - CMake-built shared libraries (through
# CMAKE_C/CXX/HIP_COMPILER_LAUNCHER): a host library and a HIP library compiled by ROCm's clang
# for CMAKE_HIP_ARCHITECTURES=${GPU_ARCHS}, and a make build (~ UCX) whose Makefile picks its
# launcher from PATH as vLLM's setup.py does, packed into a wheel that needs the cell's rb-core,
# which is installed from the core stage's /wheels by a bind mount, by its sha256 as
# dockerfiles/ installs the cell's wheels (write-constraints.py --wheels; the test variant needs
# nothing from a package index, so it has no lock).
FROM base AS build

ARG PLUGIN_VERSION
ARG CACHE_TYPE
ARG SOURCE_DATE_EPOCH

RUN --network=none --mount=type=bind,from=core,source=/wheels,target=/deps/core \
    write-constraints.py --wheels /tmp/cell-wheels.txt /tmp/constraints.txt /deps/core \
    && pip install --no-cache-dir --no-index --no-deps --require-hashes -r /tmp/cell-wheels.txt

COPY src/plugin /src/plugin
WORKDIR /src/plugin
# The single quotes are deliberate: the inner bash expands GPU_ARCHS.
# hadolint ignore=SC2016
RUN --network=none --mount=type=cache,id=rocm-bake-e2e-ccache,target=/root/.cache/ccache \
    --mount=type=cache,id=rocm-bake-e2e-sccache,target=/root/.cache/sccache \
    COMPILER_CACHE_STATS_NAME=plugin with-compiler-cache.sh \
        bash -euo pipefail -c 'cmake -S . -B cmake-build -DCMAKE_BUILD_TYPE=Release \
            -DCMAKE_HIP_COMPILER=/opt/rocm/llvm/bin/clang++ \
            "-DCMAKE_HIP_ARCHITECTURES=${GPU_ARCHS}" \
            && cmake --build cmake-build' \
    && cp cmake-build/librb_plugin.so cmake-build/librb_plugin_gpu.so rb_plugin/ \
    && COMPILER_CACHE_STATS_NAME=plugin-make with-compiler-cache.sh make -C make -j2 \
    && python -m pip wheel --no-build-isolation --no-deps --no-index -w /wheels . \
    && ls /wheels/rb_plugin-*.whl

FROM scratch AS wheels
COPY --from=build /wheels/ /wheels/
COPY --from=build /var/log/rocm-bake/compiler-cache/ /compiler-cache/
