# app.Dockerfile (test variant, ~ vllm) - a C extension built with CC="$COMPILER_LAUNCHER gcc"
# (the autotools/meson spelling), then the runtime image: every wheel of the cell installed +
# /opt/rocm-bake/versions.json, its own wheel kept in /wheels. The runtime image is on
# RUNTIME_IMAGE (Python and the C++ runtime, no toolchain: scripts/hip-toolchain.sh), not on
# the HIP toolchain image through the `base` target context: a reproducible export rewrites
# every layer of a base that comes through a target context (a minute for the toolchain's
# 1 GB here) and none of an image's FROM by reference (docs/reproducibility.md).
ARG RUNTIME_IMAGE

FROM base AS build

ARG APP_VERSION
ARG CACHE_TYPE
ARG SOURCE_DATE_EPOCH

# The cell's wheels by their sha256, as dockerfiles/ installs them (write-constraints.py --wheels).
RUN --network=none --mount=type=bind,from=core,source=/wheels,target=/deps/core \
    --mount=type=bind,from=plugin,source=/wheels,target=/deps/plugin \
    write-constraints.py --wheels /tmp/cell-wheels.txt /tmp/constraints.txt /deps/core \
        /deps/plugin \
    && pip install --no-cache-dir --no-index --require-hashes -r /tmp/cell-wheels.txt

COPY src/app /src/app
WORKDIR /src/app
# The single quotes are deliberate: the inner bash expands COMPILER_LAUNCHER.
# hadolint ignore=SC2016
RUN --network=none --mount=type=cache,id=rocm-bake-e2e-ccache,target=/root/.cache/ccache \
    --mount=type=cache,id=rocm-bake-e2e-sccache,target=/root/.cache/sccache \
    COMPILER_CACHE_STATS_NAME=app with-compiler-cache.sh bash -euo pipefail -c ' \
        CC="${COMPILER_LAUNCHER:+$COMPILER_LAUNCHER }gcc" \
        python -m pip wheel --no-build-isolation --no-deps --no-index -w /wheels .' \
    && ls /wheels/rb_app-*.whl

FROM scratch AS wheels
COPY --from=build /wheels/ /wheels/
COPY --from=build /var/log/rocm-bake/compiler-cache/ /compiler-cache/

FROM ${RUNTIME_IMAGE} AS runtime

ARG ROCM_BAKE_PINS
ARG SOURCE_DATE_EPOCH

SHELL ["/bin/bash", "-euo", "pipefail", "-c"]
ENV PATH=/opt/rocm-bake/bin:/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

COPY --from=scripts . /opt/rocm-bake/bin/
RUN --network=none --mount=type=bind,from=core,source=/wheels,target=/deps/core \
    --mount=type=bind,from=plugin,source=/wheels,target=/deps/plugin \
    --mount=type=bind,from=wheels,source=/wheels,target=/deps/app \
    python3 -m venv --system-site-packages /opt/venv \
    && pip install --no-cache-dir --no-index /deps/core/*.whl /deps/plugin/*.whl /deps/app/*.whl \
    && pip check \
    && write-manifest.py /opt/rocm-bake/versions.json /deps/core /deps/plugin /deps/app \
    && check-runtime.py --expect rb_core rb_plugin rb_app \
    && rb-app

COPY --from=wheels /wheels/ /wheels/
WORKDIR /
ENTRYPOINT ["rb-app"]
