#!/usr/bin/env bash
# The whole test suite on a fresh machine (root): installs the project and its dev tools into
# .venv, installs and starts the build engine + registry (scripts/engine.sh) and the WebDAV
# store (scripts/webdav.sh), then runs the
# fast unit tests, the linters, the buildx-oracle tests and the engine end-to-end tests.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
./inv --version >/dev/null
.venv/bin/python -m pip install --quiet --group dev
bash scripts/engine.sh install
eval "$(bash scripts/engine.sh start)"
export DOCKER_HOST
bash scripts/engine.sh base-image
bash scripts/webdav.sh install
bash scripts/webdav.sh start >/dev/null
# The cache test stack's downloads (LightGBM sdist, CMake wheel, sccache binary): fetched once
# into /var/cache/rocm-bake/cachestack, so its builds (tests/e2e/cachestack) are offline.
bash scripts/cachestack.sh >/dev/null
# The real HIP compiler image (trixie clang-22 + ROCm 7.2.4 HIP, tests/hip) and a ROCm wheel from
# PyPI for the arch audit: built/fetched once into /var/cache/rocm-bake, offline after.
bash scripts/hip-toolchain.sh image
bash scripts/hip-fixtures.sh >/dev/null
# The nox sessions' virtualenvs the tests use are installed here, so the tests reuse them
# offline (-R): build-gfx950 (tests/cli) and lint (tests/tooling).
.venv/bin/nox --install-only -s build-gfx950 lint >/dev/null
bash scripts/docs-deps.sh

pytest=(.venv/bin/pytest -p no:cacheprovider)
# Every stage runs, whatever an earlier one did; the failures are listed at the end and the
# exit status is non-zero if any stage failed.
failed=()
stage() {  # stage NAME COMMAND...
    local name=$1 started=$SECONDS
    shift
    echo "== $name"
    if "$@"; then
        echo "-- $name: ok ($((SECONDS - started)) s)"
    else
        echo "-- $name: FAILED ($((SECONDS - started)) s)"
        failed+=("$name")
    fi
}
lint() {
    .venv/bin/ruff check . && .venv/bin/mypy && .venv/bin/inv lint
}
docs() {
    .venv/bin/inv docs --check &&
        NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet --site-dir site &&
        "${pytest[@]}" tests/docs
}
stage "unit tests" "${pytest[@]}" tests/unit tests/caches
stage "lint" lint
stage "nox -s lint in its own env, from pyproject.toml's dev group" \
    "${pytest[@]}" tests/tooling
stage "lint rules and the drift checker against local git and HTTP servers" \
    "${pytest[@]}" tests/lint tests/drift
stage "docs: generated pages fresh, strict offline build, the site in headless Chromium" docs
stage "buildx oracle, CLI and engine tests" "${pytest[@]}" tests/buildx tests/cli tests/e2e
stage "real HIP: the toolchain image, sccache on HIP, the arch audit (inv audit-arch)" \
    "${pytest[@]}" tests/hip
stage "the fleet: two engines sharing one registry (inv fleet.*), a mutual-TLS node, the lanes, the reports in Chromium" \
    "${pytest[@]}" tests/fleet tests/reports

if ((${#failed[@]})); then
    printf 'FAILED stages (%d):\n' "${#failed[@]}"
    printf '  %s\n' "${failed[@]}"
    exit 1
fi
echo "every stage passed"
