#!/usr/bin/env bash
# A CI lane run here as its workflow would run it: `scripts/lane.sh pr` runs the `run:` steps
# of .github/workflows/pr.yml, in order, in a fresh clone of this checkout's current commit
# (uncommitted changes are not in it) in a temporary directory, with the workflow's and each
# step's env, CI=true, GITHUB_WORKSPACE = the clone, ${{ github.base_ref }} = main.
# `scripts/lane.sh floor` runs .github/workflows/engine-floor.yml the same way: the suite on the
# floor engine (Docker 26.1.5).
# It runs in a private mount namespace whose /var/run is an empty tmpfs holding a decoy
# docker.sock (tests/lane/decoy.py), as a CI container sees its runner's engine there; the lane
# fails if any request reached it. Needs root (the steps apt-get install; unshare; mount).
# Its last line is the tests' "N passed, N failed, N skipped", lane failures counted in.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# The runner itself needs this checkout's .venv with PyYAML (the dev group).
if ! .venv/bin/python -c "import yaml" 2>/dev/null; then
    ./inv --version >/dev/null
    .venv/bin/python -m pip install --quiet --group dev
fi
# The machine's mount namespace, for the lane to tell its own from it (tests/lane/decoy.py).
ROCM_BAKE_LANE_MOUNTS=$(readlink /proc/self/ns/mnt)
export ROCM_BAKE_LANE_MOUNTS
exec unshare --mount --propagation private -- .venv/bin/python -m tests.lane "$@"
