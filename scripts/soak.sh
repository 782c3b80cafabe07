#!/usr/bin/env bash
# Soak test (not part of CI): hunts tests that can fail by chance.
#   scripts/soak.sh [RUNS] [HOG_RUNS]
# 1. the drift and fleet suites RUNS times in a row (default 10);
# 2. the whole suite (scripts/test.sh) HOG_RUNS times (default 2) with every core kept busy by
#    stress-ng (Debian's package, installed when missing).
# It counts the passes and failures of each part and exits non-zero if any run failed.
# Run it as root: it runs the suite's set-up first (scripts/test-setup.sh, quick once done).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs=${1:-10}
hog_runs=${2:-2}
log_dir=${SOAK_LOGS:-soak-logs}
mkdir -p "$log_dir"
passed=0 failed=0

setup=$(bash scripts/test-setup.sh) || { echo "soak: the set-up failed" >&2; exit 2; }
eval "$setup"
export DOCKER_HOST
if ! command -v stress-ng >/dev/null; then
    apt-get install -y -qq stress-ng >/dev/null ||
        { echo "soak: cannot install stress-ng" >&2; exit 2; }
fi

record() {  # record NAME STATUS
    if [ "$2" -eq 0 ]; then passed=$((passed + 1)); echo "   $1: passed"
    else failed=$((failed + 1)); echo "   $1: FAILED (log: $log_dir/$1.log)"; fi
}

echo "== drift + fleet suites, $runs runs in a row"
for ((i = 1; i <= runs; i++)); do
    .venv/bin/pytest -p no:cacheprovider -q tests/drift tests/fleet >"$log_dir/suites-$i.log" 2>&1
    record "suites-$i" $?
done
echo "-- drift + fleet suites: $passed passed, $failed failed"
suites_passed=$passed suites_failed=$failed

echo "== the whole suite under a CPU hog, $hog_runs runs"
for ((i = 1; i <= hog_runs; i++)); do
    stress-ng --cpu "$(nproc)" --timeout 0 --quiet &
    hog=$!
    bash scripts/test.sh >"$log_dir/hog-$i.log" 2>&1
    status=$?
    kill "$hog"; wait "$hog" 2>/dev/null
    record "hog-$i" $status
done
echo "-- the whole suite under a CPU hog: $((passed - suites_passed)) passed," \
    "$((failed - suites_failed)) failed"

echo "soak: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
