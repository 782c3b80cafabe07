# ucx-nixl.Dockerfile - UCX (--with-rocm) and the nixl-rocm wheel for one cell
# (target nixl-<arch>).  Named context: base.  NIXL links UCX, not torch.
# The wheel bundles the UCX plugins it needs (contrib/wheel_add_ucx_plugins.py).
FROM base AS build

ARG UCX_REPO
ARG UCX_COMMIT
ARG UCX_REF
ARG NIXL_REPO
ARG NIXL_COMMIT
ARG NIXL_REF
ARG MAX_JOBS
ARG CACHE_TYPE

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]

ENV UCX_HOME=/usr/local/ucx \
    NIXL_HOME=/usr/local/nixl

# Build tools: requirements/nixl-build.txt, installed from the nixl lock made from it
# (locks/nixl.txt, `inv lock`), by version and sha256.
COPY locks/nixl.txt /opt/rocm-bake/locks/nixl.txt
RUN pip install --no-cache-dir --require-hashes -r /opt/rocm-bake/locks/nixl.txt

RUN fetch-source.sh "${UCX_REPO}" "${UCX_REF}" "${UCX_COMMIT}" /src/ucx \
    && fetch-source.sh "${NIXL_REPO}" "${NIXL_REF}" "${NIXL_COMMIT}" /src/nixl

# UCX from its pinned commit (never the moving v1.21.x branch NIXL suggests).
# Autotools: configure and make run inside with-compiler-cache.sh, which exports
# COMPILER_LAUNCHER (the cache tool, or empty for CACHE_TYPE=none) for CC/CXX.
WORKDIR /src/ucx
# The single quotes are deliberate: the inner bash expands COMPILER_LAUNCHER.
# hadolint ignore=SC2016
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    --mount=type=secret,id=sccache \
    ./autogen.sh \
    && with-compiler-cache.sh bash -euo pipefail -c ' \
        ./configure CC="${COMPILER_LAUNCHER:+$COMPILER_LAUNCHER }gcc" \
            CXX="${COMPILER_LAUNCHER:+$COMPILER_LAUNCHER }g++" \
            --prefix="${UCX_HOME}" --enable-shared --disable-static \
            --disable-doxygen-doc --enable-optimizations --enable-devel-headers \
            --enable-mt --with-rocm=/opt/rocm --with-verbs --with-dm \
        && make -j"${MAX_JOBS}"' \
    && make install

# NIXL: the ROCm wheel variant (-Dwheel_variant=rocm), renamed nixl-rocm (PyPI's nixl is
# CUDA-only).  meson reads the cache tool from CC/CXX; the whole build is one cached step.
# The wheel is built by a front end that does not re-check [build-system].requires under
# --no-build-isolation (`pip wheel`; vLLM uses `uv build`): nixl's pyproject.toml at the
# pinned commit also requires torch==2.11.*, which its meson build never imports, and
# `python -m build --no-isolation` stops on it ("Missing dependencies").  The other build
# requirements (setuptools>=80.9.0, pytest, types-PyYAML, build, ...) are installed from
# requirements/nixl-build.txt.  Follows vllm-project/vllm docker/Dockerfile.rocm_72 (build_nixl, lines 384-486:
# `uv pip install ... pytest tomlkit "setuptools>=80.9.0"`, then
# `uv build --wheel --no-build-isolation -Csetup-args=...`), and tagged manylinux_2_35 as
# upstream tags it (lines 462-463, 479: NIXL >= 1.5 links GLIBCXX_3.4.30 symbols, which
# manylinux_2_34 does not allow; the Ubuntu 22.04 base has glibc 2.35).
WORKDIR /src/nixl
# The single quotes are deliberate: the inner bash expands COMPILER_LAUNCHER.
# hadolint ignore=SC2016
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    --mount=type=secret,id=sccache \
    with-compiler-cache.sh bash -euo pipefail -c ' \
        export CC="${COMPILER_LAUNCHER:+$COMPILER_LAUNCHER }gcc" \
            CXX="${COMPILER_LAUNCHER:+$COMPILER_LAUNCHER }g++" \
        && meson setup build --prefix="${NIXL_HOME}" -Ducx_path="${UCX_HOME}" \
            -Dwheel_variant=rocm -Dbuild_tests=false -Dbuild_examples=false \
        && ninja -C build -j"${MAX_JOBS}" install \
        && ./contrib/tomlutil.py --wheel-name nixl-rocm pyproject.toml \
        && pip wheel --no-build-isolation --no-deps --wheel-dir /tmp/nixl-dist \
            -Csetup-args=-Ducx_path="${UCX_HOME}" -Csetup-args=-Dwheel_variant=rocm \
            -Csetup-args=-Dbuild_tests=false -Csetup-args=-Dbuild_examples=false .' \
    && LD_LIBRARY_PATH="${UCX_HOME}/lib:${LD_LIBRARY_PATH}" auditwheel repair \
        --exclude 'libamdhip64*' --exclude 'libcore*' --exclude 'libpull*' \
        --plat "manylinux_2_35_$(uname -m)" --wheel-dir /wheels /tmp/nixl-dist/nixl_rocm*.whl \
    && ./contrib/wheel_add_ucx_plugins.py --ucx-plugins-dir "${UCX_HOME}/lib/ucx" \
        --nixl-plugins-dir "${NIXL_HOME}/lib/$(uname -m)-linux-gnu/plugins" /wheels/nixl_rocm*.whl \
    && ls -l /wheels/nixl_rocm-*.whl

FROM scratch AS wheels
COPY --from=build /wheels/ /wheels/
COPY --from=build /var/log/rocm-bake/compiler-cache/ /compiler-cache/
