#!/usr/bin/env bash
# Setup download of the HIP tests (tests/hip), fetched once into a cache directory so the
# tests read it offline:
#   amd_mori-1.2.4-cp312-*.whl   a real ROCm wheel from PyPI (AMD's MORI, 9 MB) whose extension
#                                modules carry .hip_fatbin offload bundles (gfx942, gfx950)
#   scripts/hip-fixtures.sh [DIR]   (default /var/cache/rocm-bake/hip-fixtures); prints DIR
set -euo pipefail
dir=${1:-${ROCM_BAKE_HIP_FIXTURES_DIR:-/var/cache/rocm-bake/hip-fixtures}}
python=${PYTHON:-$(dirname "${BASH_SOURCE[0]}")/../.venv/bin/python}
mkdir -p "$dir"
ls "$dir"/amd_mori-1.2.4-cp312-*.whl >/dev/null 2>&1 ||
    "$python" -m pip download --quiet --disable-pip-version-check --no-deps -d "$dir" \
        --only-binary :all: --platform manylinux_2_39_x86_64 --python-version 3.12 \
        amd-mori==1.2.4
echo "$dir"
