#!/usr/bin/env bash
# The test suite's set-up on a fresh machine (root), idempotent: installs the project and its dev
# tools into .venv, installs and starts the build engine + registry (scripts/engine.sh) and the
# WebDAV store (scripts/webdav.sh) and the S3 store (scripts/s3.sh), fetches what the offline
# tests read, and prints three lines on stdout for eval:
#   export DOCKER_HOST=unix://RUN_DIR/docker.sock
#   export ROCM_BAKE_ENGINE_RELEASE=current which engine the suite runs on (engine.sh start)
#   ROCM_BAKE_STARTED='engine webdav s3'    the services it started (not those already running),
#                                           which scripts/test.sh stops when it ends
# scripts/test.sh and scripts/soak.sh run it first.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# The engine of the suite: the current one (scripts/engine.sh's default), as its users run;
# the tests that compare the engines start the floor (Docker 26.1.5) beside it, and
# ROCM_BAKE_ENGINE_RELEASE=floor runs the whole suite on the floor (the floor lane,
# .github/workflows/engine-floor.yml).
ROCM_BAKE_ENGINE_RELEASE=${ROCM_BAKE_ENGINE_RELEASE:-current}
export ROCM_BAKE_ENGINE_RELEASE

started=()
setup() {
    local service
    for service in engine webdav s3; do
        bash "scripts/$service.sh" running || started+=("$service")
    done
    ./inv --version >/dev/null
    .venv/bin/python -m pip install --quiet --group dev
    bash scripts/engine.sh install
    start=$(bash scripts/engine.sh start)
    eval "$start"
    export DOCKER_HOST
    bash scripts/engine.sh base-image
    bash scripts/webdav.sh install
    bash scripts/webdav.sh start >/dev/null
    # The S3 store (moto's server from .venv, tests/e2e/cachestack's S3 tests).
    bash scripts/s3.sh start >/dev/null
    # The cache test stack's downloads (llama-cpp-python sdist, sccache binary, and the
    # hipBLAS/rocBLAS .debs of scripts/cachestack.lock: all sha256-checked): fetched once into
    # /var/cache/rocm-bake/cachestack, so its builds (tests/e2e/cachestack) are offline.
    bash scripts/cachestack.sh >/dev/null
    # The real HIP compiler image (trixie clang-22 + one ROCm 7.x's HIP, every .deb pinned by
    # sha256 in scripts/hip-toolchain.lock; its ROCm version logged and kept in its labels;
    # tests/hip) and a ROCm wheel from PyPI for the arch audit: the .debs fetched (checked) and
    # the rootfs built once into /var/cache/rocm-bake, offline after.
    bash scripts/hip-toolchain.sh fetch >/dev/null
    bash scripts/hip-toolchain.sh image
    bash scripts/hip-fixtures.sh >/dev/null
    # The rehearsal's stand-in base (inv rehearse): Debian bookworm from the pinned .debs of
    # scripts/rehearsal-base.lock, with the machine's CPython 3.12; built once, offline after.
    bash scripts/rehearsal-base.sh fetch >/dev/null
    bash scripts/rehearsal-base.sh image
    # The nox sessions' virtualenvs the tests use are installed here, so the tests reuse them
    # offline (-R): build-gfx950 (tests/cli) and lint (tests/tooling).
    .venv/bin/nox --install-only -s build-gfx950 lint >/dev/null
    bash scripts/docs-deps.sh
}

# What the steps print goes to stderr (and no daemon they start holds our stdout: a caller
# reading it with $(...) would wait for that daemon to end); stdout carries the one line.
# A set-up that fails stops what it started: nobody else knows of it.
stop_on_failure() {
    local status=$? service
    [ "$status" = 0 ] || for service in "${started[@]}"; do
        bash "scripts/$service.sh" stop >&2 || true
    done
}
trap stop_on_failure EXIT
setup >&2
echo "$start"
echo "export ROCM_BAKE_ENGINE_RELEASE=$ROCM_BAKE_ENGINE_RELEASE"
echo "ROCM_BAKE_STARTED='${started[*]}'"
