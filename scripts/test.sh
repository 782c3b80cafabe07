#!/usr/bin/env bash
# The whole test suite on a fresh machine (root): the set-up (scripts/test-setup.sh: the project
# and its dev tools in .venv, the build engine + registry, the WebDAV and S3 stores, the offline
# fixtures), then the fast unit tests, the linters, the buildx-oracle tests and the engine
# end-to-end tests. Nothing may be skipped but what tests/skips.toml lists. When it ends it stops
# the services the set-up started (ROCM_BAKE_STARTED; those already running stay).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
setup=$(bash scripts/test-setup.sh)
eval "$setup"
export DOCKER_HOST
# The rehearsal runs beside the other stages, on an engine of its own (the current release, no
# registry: it pushes nothing), so its quarter of an hour overlaps theirs; its output is
# printed after theirs.
rehearsal_dir=${TMPDIR:-/tmp}/rocm-bake-engine-rehearsal
rehearsal_env=(ROCM_BAKE_ENGINE_DIR="$rehearsal_dir" ROCM_BAKE_ENGINE_RELEASE=current
               ROCM_BAKE_REGISTRY=none)
rehearsal_pid=
stop_started() {
    local service
    if [ -n "$rehearsal_pid" ]; then
        kill "$rehearsal_pid" 2>/dev/null || true
        env "${rehearsal_env[@]}" bash scripts/engine.sh stop "$rehearsal_dir" >&2 ||
            echo "test.sh: could not stop the rehearsal's engine" >&2
    fi
    for service in $ROCM_BAKE_STARTED; do
        bash "scripts/$service.sh" stop >&2 || echo "test.sh: could not stop $service" >&2
    done
}

# --durations: each stage names its slowest tests (the CI time, stage by stage).
pytest=(.venv/bin/pytest -p no:cacheprovider --durations=8)
# Every stage runs, whatever an earlier one did. Each prints its counts (its pytest run appends
# them to its own record, $ROCM_BAKE_TEST_RECORD: tests/conftest.py); a skip that
# tests/skips.toml does not list is a failure. The closing summary (tests/outcomes.py) lists
# the failed stages and every skip with its reason; its last line is "N passed, N failed, N
# skipped", and the exit status is non-zero if any stage failed.
records=$(mktemp -d)
trap 'rm -rf "$records"; stop_started' EXIT
stages=0
stage() {  # stage NAME COMMAND...
    stages=$((stages + 1))
    stage_into "$records/$(printf %02d "$stages").jsonl" "$@"
}
stage_into() {  # stage_into RECORD NAME COMMAND...
    local record=$1 name=$2 started=$SECONDS status=ok
    shift 2
    echo "== $name"
    ROCM_BAKE_TEST_RECORD=$record "$@" || status=failed
    .venv/bin/python -m tests.outcomes stage "$record" "$name" "$status" $((SECONDS - started))
}
lint() {
    .venv/bin/ruff check . && .venv/bin/mypy && .venv/bin/inv lint
}
# The rehearsal: inv rehearse on the default target (its output lists every substitution),
# then its failure cases and the other arch.
rehearsal() {
    local started host
    started=$(env "${rehearsal_env[@]}" bash scripts/engine.sh start "$rehearsal_dir") || return 1
    host=${started#export DOCKER_HOST=}
    env "${rehearsal_env[@]}" DOCKER_HOST="$host" .venv/bin/inv rehearse \
            --log "${TMPDIR:-/tmp}/rocm-bake-rehearsal.log" &&
        env "${rehearsal_env[@]}" DOCKER_HOST="$host" "${pytest[@]}" tests/rehearse
}
docs() {
    .venv/bin/inv docs --check &&
        NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet --site-dir site &&
        "${pytest[@]}" tests/docs
}
stage_into "$records/99-rehearsal.jsonl" \
    "the rehearsal (beside the stages below, on its own engine): the real Dockerfiles of vllm and lmcache (gfx950, then gfx1201) in the stand-in world, the recipes of main before issue 38 failing where a real builder would" \
    rehearsal > "$records/rehearsal.out" 2>&1 &
rehearsal_pid=$!
stage "unit tests" "${pytest[@]}" tests/unit tests/caches tests/lane
stage "lint" lint
stage "nox -s lint in its own env, from pyproject.toml's dev group" \
    "${pytest[@]}" tests/tooling
stage "lint rules, a component declared once, the drift checker and inv bump against local git, HTTP and registry servers" \
    "${pytest[@]}" tests/lint tests/components tests/drift tests/bump
stage "docs: generated pages fresh, strict offline build, the site in headless Chromium" docs
stage "buildx oracle, CLI and engine tests" "${pytest[@]}" tests/buildx tests/cli tests/e2e
stage "real HIP: the toolchain image, sccache on HIP, the arch audit (inv audit-arch)" \
    "${pytest[@]}" tests/hip
stage "the fleet: two engines sharing one registry (inv fleet.*), a mutual-TLS node, the lanes, the reports in Chromium" \
    "${pytest[@]}" tests/fleet tests/reports

wait "$rehearsal_pid" || true
rehearsal_pid=
cat "$records/rehearsal.out"
env "${rehearsal_env[@]}" bash scripts/engine.sh stop "$rehearsal_dir" >&2 ||
    echo "test.sh: could not stop the rehearsal's engine" >&2
.venv/bin/python -m tests.outcomes summary "$records"/*.jsonl
