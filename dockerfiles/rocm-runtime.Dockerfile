# rocm-runtime.Dockerfile - ROCm's runtime libraries rebuilt over the base image's ROCm 7.2.3,
# for one cell (target rocm-runtime-<arch>, stage staging: a prefix under /staging that the vLLM
# image copies into /opt/rocm).  Named contexts: base.
# Follows vllm-project/vllm docker/Dockerfile.rocm_72_base (VLLM_REF v0.33.0) stages
# build_rocprofiler_sdk (lines 377-419: rocprofiler-sdk at ROCPROFILER_SDK_COMMIT with two
# commits' queue-interposition fixes) and build_rocm_runtime (lines 322-375: ROCr + CLR,
# libhsa-runtime64 and libamdhip64, at ROCM_RUNTIME_COMMIT), both from ROCm/rocm-systems, and
# its final stage's order (lines 425-442): rocprofiler-sdk's prefix, then ROCr + CLR over it.
# Host code only: neither stage passes a GPU arch.
# Deliberate differences, each for a pin by content or one clone:
#   - one stage builds both, rocprofiler-sdk first, so it builds against the base image's ROCr
#     as upstream's does (ROCr is installed into /opt/rocm only after it);
#   - one clone of rocm-systems by fetch-source.sh at ROCM_RUNTIME_COMMIT (without blobs), the
#     other commits fetched into it by hash, where upstream fetches a sparse checkout per stage;
#   - CppHeaderParser (which CLR's HIP API tracing generator imports) is its PyPI sdist by
#     sha256, and its one requirement ply its PyPI wheel by sha256, unpacked onto the build's
#     PYTHONPATH, where upstream runs an unpinned `pip install CppHeaderParser` (PyPI has no
#     wheel of it, so no wheels-only lock can hold it);
#   - each fix is its commit's own patch (`git format-patch -1`, the text GitHub serves as
#     <repo>/commit/<sha>.patch) made in the clone, where upstream downloads that URL by curl
#     with no checksum: the commit's hash pins the patch.
FROM base AS build

ARG ROCM_RUNTIME_REPO
ARG ROCM_RUNTIME_COMMIT
ARG ROCM_RUNTIME_REF
ARG ROCPROFILER_SDK_COMMIT
ARG ROCPROFILER_SDK_PR_7796_COMMIT
ARG ROCPROFILER_SDK_PR_7924_COMMIT
ARG MAX_JOBS
ARG CACHE_TYPE

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

# Lines 328-331 and 382-384 (g++ is the base image's compiler here).  Not version-pinned, as
# base.Dockerfile's apt step is not (lint/policy.toml apt-pin).
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        libelf-dev libdrm-dev libnuma-dev libdw-dev xxd libsqlite3-dev libzstd-dev \
    && rm -rf /var/lib/apt/lists/*

# Line 332: CppHeaderParser 2.7.4 (its newest release) and ply 3.11, by sha256.
ADD --checksum=sha256:382b30416d95b0a5e8502b214810dcac2a56432917e2651447d3abe253e3cc42 \
    https://files.pythonhosted.org/packages/3c/ba/d8d168a4b54cae66eaf13d1d9197ca9349c94653815e061f79e7eed86c01/CppHeaderParser-2.7.4.tar.gz \
    /tmp/clr-python/CppHeaderParser-2.7.4.tar.gz
ADD --checksum=sha256:096f9b8350b65ebd2fd1346b12452efe5b9607f7482813ffca50c22722a807ce \
    https://files.pythonhosted.org/packages/a3/58/35da89ee790598a0700ea49b2a66594140f44dec458c07e8e3d4979137fc/ply-3.11-py2.py3-none-any.whl \
    /tmp/clr-python/ply-3.11-py2.py3-none-any.whl
ENV CLR_PYTHONPATH=/opt/rocm-bake/clr-python
RUN --network=none mkdir -p "${CLR_PYTHONPATH}" \
    && tar -xzf /tmp/clr-python/CppHeaderParser-2.7.4.tar.gz -C "${CLR_PYTHONPATH}" \
        --strip-components=1 CppHeaderParser-2.7.4/CppHeaderParser \
    && python -m zipfile -e /tmp/clr-python/ply-3.11-py2.py3-none-any.whl "${CLR_PYTHONPATH}" \
    && rm -rf /tmp/clr-python \
    && PYTHONPATH="${CLR_PYTHONPATH}" python -W ignore -c "import CppHeaderParser, ply.lex"

# Lines 333-341 and 385-393: rocm-systems at ROCM_RUNTIME_COMMIT; rocprofiler-sdk's commit and
# the two fixes' commits fetched into the same clone by hash where it lacks them.
RUN fetch-source.sh "${ROCM_RUNTIME_REPO}" "${ROCM_RUNTIME_REF}" "${ROCM_RUNTIME_COMMIT}" \
        /src/rocm-systems
WORKDIR /src/rocm-systems
RUN { git cat-file -e "${ROCPROFILER_SDK_COMMIT}^{commit}" 2>/dev/null \
        || git fetch --quiet --filter=blob:none origin "${ROCPROFILER_SDK_COMMIT}"; } \
    && { git cat-file -e "${ROCPROFILER_SDK_PR_7796_COMMIT}^{commit}" 2>/dev/null \
        || git fetch --quiet --filter=blob:none origin "${ROCPROFILER_SDK_PR_7796_COMMIT}"; } \
    && { git cat-file -e "${ROCPROFILER_SDK_PR_7924_COMMIT}^{commit}" 2>/dev/null \
        || git fetch --quiet --filter=blob:none origin "${ROCPROFILER_SDK_PR_7924_COMMIT}"; } \
    && git worktree add --detach /src/rocprofiler-sdk "${ROCPROFILER_SDK_COMMIT}"

# Lines 394-405: the queue-interposition fixes (rocm-systems PRs 7796 and 7924), only their
# files under rocprofiler-sdk's hsa/ (upstream's --include).
WORKDIR /src/rocprofiler-sdk
RUN hsa_paths='projects/rocprofiler-sdk/source/lib/rocprofiler-sdk/hsa/*' \
    && git format-patch -1 --stdout "${ROCPROFILER_SDK_PR_7796_COMMIT}" > /tmp/qi-7796.patch \
    && git format-patch -1 --stdout "${ROCPROFILER_SDK_PR_7924_COMMIT}" > /tmp/qi-7924.patch \
    && git apply -p1 --include="${hsa_paths}" --verbose /tmp/qi-7796.patch \
    && git apply -p1 --include="${hsa_paths}" --verbose /tmp/qi-7924.patch \
    && rm /tmp/qi-7796.patch /tmp/qi-7924.patch

# Lines 406-419: rocprofiler-sdk into the prefix /staging (their sccache switch is this
# project's compiler-cache wrapper; MAX_JOBS where upstream runs $(nproc)).
WORKDIR /src/rocprofiler-sdk/projects/rocprofiler-sdk
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    --mount=type=secret,id=sccache \
    cmake -B build -G Ninja \
        -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH=/opt/rocm \
        -DCMAKE_INSTALL_PREFIX=/opt/rocm \
        -DROCPROFILER_BUILD_TESTS=OFF \
        -DROCPROFILER_BUILD_SAMPLES=OFF \
        -DROCPROFILER_BUILD_DOCS=OFF \
    && with-compiler-cache.sh cmake --build build --parallel "${MAX_JOBS}" \
    && cmake --install build --prefix /staging --strip

# Lines 342-347: ROCr's trap handler and blit shaders ask find_package(Clang/LLVM) only for
# IMPORTED executables; the ROCm image has the binaries but no CMake package for them.
RUN --network=none mkdir -p /opt/rocm-cmake-shim \
    && printf 'if(NOT TARGET clang)\n  add_executable(clang IMPORTED GLOBAL)\n  set_target_properties(clang PROPERTIES IMPORTED_LOCATION "/opt/rocm/llvm/bin/clang")\nendif()\nset(Clang_PACKAGE_VERSION "rocm-image-shim")\n' > /opt/rocm-cmake-shim/ClangConfig.cmake \
    && printf 'if(NOT TARGET llvm-objcopy)\n  add_executable(llvm-objcopy IMPORTED GLOBAL)\n  set_target_properties(llvm-objcopy PROPERTIES IMPORTED_LOCATION "/opt/rocm/llvm/bin/llvm-objcopy")\nendif()\nset(LLVM_FOUND TRUE)\nset(LLVM_PACKAGE_VERSION "rocm-image-shim")\n' > /opt/rocm-cmake-shim/LLVMConfig.cmake

# Lines 348-358: ROCr, installed into /opt/rocm (the CLR build below needs its headers).
# MAX_JOBS where upstream hard-codes --parallel 16.
WORKDIR /src/rocm-systems/projects/rocr-runtime
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    --mount=type=secret,id=sccache \
    cmake -B build -G Ninja \
        -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH=/opt/rocm \
        -DCMAKE_INSTALL_PREFIX=/opt/rocm \
        -DClang_DIR=/opt/rocm-cmake-shim \
        -DLLVM_DIR=/opt/rocm-cmake-shim \
    && with-compiler-cache.sh cmake --build build --parallel "${MAX_JOBS}" \
    && cmake --install build \
    && cmake --install build --prefix /rocr-install --strip

# Lines 359-371: CLR with HIP, no OpenCL (CppHeaderParser on its PYTHONPATH).
WORKDIR /src/rocm-systems/projects/clr
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    --mount=type=secret,id=sccache \
    export PYTHONPATH="${CLR_PYTHONPATH}" \
    && cmake -B build -G Ninja \
        -DCMAKE_BUILD_TYPE=Release \
        -DCLR_BUILD_HIP=ON \
        -DCLR_BUILD_OCL=OFF \
        -DHIP_COMMON_DIR=/src/rocm-systems/projects/hip \
        -DROCM_PATH=/opt/rocm \
        -DCMAKE_PREFIX_PATH=/opt/rocm \
        -DCMAKE_INSTALL_PREFIX=/opt/rocm \
        -DLLVM_DIR=/opt/rocm-cmake-shim \
        -DHIP_LLVM_ROOT=/opt/rocm/llvm \
    && with-compiler-cache.sh cmake --build build --parallel "${MAX_JOBS}" \
    && cmake --install build --prefix /clr-install --strip

# Lines 372-375: ROCr + CLR over rocprofiler-sdk's prefix, as the final stage copies them.
RUN --network=none mkdir -p /staging/lib \
    && cp -P /rocr-install/lib/libhsa-runtime64.so* /staging/lib/ \
    && cp -P /clr-install/lib/libamdhip64.so* /staging/lib/ \
    && ls -l /staging/lib/libhsa-runtime64.so* /staging/lib/libamdhip64.so* \
        /staging/lib/librocprofiler-sdk.so*

FROM scratch AS staging
COPY --from=build /staging/ /staging/
