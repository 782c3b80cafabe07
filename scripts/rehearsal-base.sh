#!/usr/bin/env bash
# rehearsal-base.sh - the stand-in for the ROCm dev image in `inv rehearse` (docs/rehearsal.md).
#
# The real base (rocm/dev-ubuntu-22.04, ROCm's compilers) cannot be pulled here, and the real
# compiles cannot run without it.  The rehearsal runs the real Dockerfiles on this image
# instead: Debian bookworm with what dockerfiles/*.Dockerfile call outside a compile (bash,
# git, curl, ccache, a host C/C++ toolchain with dpkg-dev (as Ubuntu's build-essential has it:
# meson then lays libraries out in lib/<triplet>), patchelf for auditwheel, xz), and CPython
# $PY_MINOR (the base Dockerfile's python${PYTHON_VERSION}), laid out where Ubuntu's deadsnakes
# package puts it.  Every .deb is pinned by content in rehearsal-base.lock and the rootfs is
# built offline by mmdebstrap from them (the machinery of hip-toolchain.sh / engine.sh), so
# it is the same on any machine; CPython $PY_MINOR, which Debian does not package, is copied
# from the machine's own interpreter (python$PY_MINOR on PATH, else pyenv's), its version and
# sha256 recorded in the image's labels.  The ROCm-dependent layer (the /opt/rocm layout, the
# stand-in compilers and apt) is added per rehearsal by rocm_bake.rehearsal (base.py).
set -Eeuo pipefail

# shellcheck source=hip-toolchain.sh
. "$(dirname "${BASH_SOURCE[0]}")/hip-toolchain.sh"
PROG=rehearsal-base.sh

# hip-toolchain.sh's rootfs machinery, pointed at this image's suite and lock.
HIP_SUITE=bookworm
HIP_LOCK=${ROCM_BAKE_REHEARSAL_LOCK:-$(dirname "${BASH_SOURCE[0]}")/rehearsal-base.lock}
# shellcheck disable=SC2034  # read by engine.sh's fetch_locked
RELOCK_HINT="re-lock: scripts/$PROG lock"
REHEARSAL_IMAGE=${ROCM_BAKE_REHEARSAL_BASE:-rocm-bake/rehearsal-base:test}
PY_MINOR=3.12
PY_MINOR_TUPLE=3,12
# What the Dockerfiles run outside a compile, and the shared libraries CPython's modules need.
REHEARSAL_PACKAGES=bash,ca-certificates,git,curl,ccache,gcc,g++,libc6-dev,make,dpkg-dev,patch,patchelf,xz-utils,file,procps,libssl3,libffi8,libsqlite3-0,libbz2-1.0,liblzma5,libncursesw6,libreadline8,libuuid1,libnsl2,libtirpc3,libexpat1,zlib1g,libcrypt1

usage() {
    cat <<EOF
Usage: scripts/$PROG COMMAND [RUN_DIR]

The stand-in base image of the rehearsal (inv rehearse): $REHEARSAL_IMAGE.

Commands:
  lock              resolve Debian $HIP_SUITE's $REHEARSAL_PACKAGES against the mirror and
                    rewrite ${HIP_LOCK##*/} (then 'image': the image changes).
  fetch             download the lock's .debs that the cache lacks, each checked by sha256.
  image [RUN_DIR]   build the rootfs (once, offline, from the lock) with CPython $PY_MINOR and
                    load $REHEARSAL_IMAGE into the engine; a no-op when it is the lock's.
  python            print the CPython $PY_MINOR prefix that goes into the image.
  -h, --help        this help.
Exit status: 0 ok, 2 usage error or failure.
EOF
}

# python_prefix: the installation prefix of the machine's CPython PY_MINOR: the first of
# ROCM_BAKE_REHEARSAL_PYTHON, python$PY_MINOR on PATH (a pyenv shim of an inactive version
# does not run) and pyenv's newest $PY_MINOR.x that runs.
python_prefix() {
    local exe root candidates=()
    [ -z "${ROCM_BAKE_REHEARSAL_PYTHON:-}" ] || candidates+=("$ROCM_BAKE_REHEARSAL_PYTHON")
    ! command -v "python$PY_MINOR" >/dev/null 2>&1 || candidates+=("$(command -v "python$PY_MINOR")")
    root=${PYENV_ROOT:-$HOME/.pyenv}
    if [ -d "$root/versions" ]; then
        while IFS= read -r exe; do candidates+=("$exe"); done < <(
            find "$root/versions" -maxdepth 3 -path "*/$PY_MINOR.*/bin/python$PY_MINOR" 2>/dev/null | sort -rV)
    fi
    for exe in "${candidates[@]}"; do
        "$exe" -c "import sys; assert sys.version_info[:2] == ($PY_MINOR_TUPLE); print(sys.base_prefix)" 2>/dev/null &&
            return 0
    done
    die "no CPython $PY_MINOR on this machine for the stand-in base: install one (pyenv install $PY_MINOR) or set ROCM_BAKE_REHEARSAL_PYTHON"
}

# The cached tarball, named after the lock, the packages, the interpreter and this code.
rehearsal_tarball() {
    local key prefix
    prefix=$(python_prefix) || exit 2
    key=$(printf '%s %s %s %s\n' "$REHEARSAL_PACKAGES" "$ROOTFS_EPOCH" "$prefix" "$("$prefix/bin/python$PY_MINOR" --version)" |
        cat - "$HIP_LOCK" <(declare -f rootfs_tarball python_layout) | sha256sum | cut -c1-12)
    printf '%s/rehearsal-debian-%s-%s.tar\n' "${ROOTFS_CACHE_DIR%/}" "$HIP_SUITE" "$key"
}

# python_layout ROOT PREFIX: CPython from PREFIX into ROOT/usr/local (a customize hook): its
# prefix is found from the executable's place, its libpython through ld.so.cache.
python_layout() {
    local root=$1 prefix=$2
    mkdir -p "$root/usr/local/bin" "$root/usr/local/lib" "$root/usr/local/include"
    cp -a "$prefix/lib/python$PY_MINOR" "$root/usr/local/lib/"
    cp -a "$prefix"/lib/libpython"$PY_MINOR"*.so* "$root/usr/local/lib/" 2>/dev/null || true
    cp -a "$prefix/include/python$PY_MINOR" "$root/usr/local/include/" 2>/dev/null || true
    cp -a "$prefix/bin/python$PY_MINOR" "$root/usr/local/bin/"
    # pyenv's test suites are not part of an installed CPython (and are 100 MB).
    rm -rf "$root/usr/local/lib/python$PY_MINOR/test" "$root/usr/local/lib/python$PY_MINOR/site-packages"/*
    find "$root/usr/local/lib/python$PY_MINOR" -name __pycache__ -prune -exec rm -rf {} +
    mkdir -p "$root/usr/local/lib/python$PY_MINOR/site-packages"
    # Where Ubuntu's deadsnakes package puts it.
    ln -sf "/usr/local/bin/python$PY_MINOR" "$root/usr/bin/python$PY_MINOR"
    chroot "$root" ldconfig
    chroot "$root" "python$PY_MINOR" -c 'import ssl, ctypes, sqlite3, lzma, bz2, venv, ensurepip' ||
        die "CPython $PY_MINOR does not run in the rootfs"
}

cmd_lock() {
    command -v mmdebstrap >/dev/null 2>&1 || die "mmdebstrap not installed; run 'engine.sh install'"
    local mirror list new
    mirror=$(debian_mirror) || die "no Debian mirror found in /etc/apt/sources.list{,.d}"
    list=$(mktemp "${TMPDIR:-/tmp}/rocm-bake-lock.XXXXXX")
    new=$(mktemp "$HIP_LOCK.XXXXXX")
    TMP_PATHS+=("$list" "$new")
    trap cleanup_install EXIT
    log "lock: resolving $REHEARSAL_PACKAGES on $mirror $HIP_SUITE (mmdebstrap)"
    mmdebstrap --quiet --mode=root --variant=minbase --include="$REHEARSAL_PACKAGES" \
        --aptopt='Acquire::Languages "none"' \
        --customize-hook="chroot \"\$1\" dpkg-query -W -f='\${Package}:\${Architecture}=\${Version}\\n' > '$list'" \
        "$HIP_SUITE" /dev/null "$mirror" >&2 || die "mmdebstrap $HIP_SUITE failed"
    fetch_lists lock "$HIP_SUITE"
    {
        printf '# The .debs of %s (scripts/%s), pinned by content:\n' "$REHEARSAL_IMAGE" "$PROG"
        printf '# ROLE SHA256 SIZE POOL_PATH (under the Debian mirror).  Written by\n'
        printf "# 'scripts/%s lock' from Debian %s; do not edit.\n" "$PROG" "$HIP_SUITE"
        # shellcheck disable=SC2046  # one package=version a word
        apt-get "${FETCH_APT_OPTS[@]}" --print-uris download $(cat "$list") | lock_from_uris install "$mirror" | sort -k4
    } >"$new" || die "lock: apt-get --print-uris failed"
    [ "$(lock_lines "$new" install | wc -l)" -eq "$(wc -l <"$list")" ] || die "lock: apt did not print every installed .deb"
    mv -f "$new" "$HIP_LOCK"
    log "lock: $HIP_LOCK: $(lock_lines "$HIP_LOCK" | wc -l) .debs"
}

cmd_image() {
    set_run_dir "${1:-}"
    docker_up || die "engine not running at $SOCK; run 'engine.sh start $RUN_DIR'"
    export DOCKER_HOST=unix://$SOCK
    local tarball have prefix version sha ctx
    tarball=$(rehearsal_tarball) || exit 2
    have=$(docker image inspect -f '{{index .Config.Labels "org.rocm-bake.rehearsal-tarball"}}' \
        "$REHEARSAL_IMAGE" 2>/dev/null || true)
    if [ "$have" = "${tarball##*/}" ]; then
        log "image: $REHEARSAL_IMAGE already present"
        return 0
    fi
    prefix=$(python_prefix) || exit 2
    if [ ! -f "$tarball" ]; then
        rootfs_tarball "$tarball" all \
            --customize-hook="bash '${BASH_SOURCE[0]}' python-layout \"\$1\" '$prefix'"
        find "$(dirname "$tarball")" -maxdepth 1 -name 'rehearsal-debian-*.tar' ! -name "${tarball##*/}" -delete
    fi
    version=$("$prefix/bin/python$PY_MINOR" -c 'import platform; print(platform.python_version())')
    sha=$(sha256sum <"$prefix/bin/python$PY_MINOR" | cut -d' ' -f1)
    ctx=$(mktemp -d /tmp/rocm-bake-rehearsal.XXXXXX)
    TMP_PATHS+=("$ctx")
    trap cleanup_install EXIT
    cp "$tarball" "$ctx/rootfs.tar"
    printf '%s\n' 'FROM scratch' 'ADD rootfs.tar /' \
        'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8' \
        "LABEL org.rocm-bake.rehearsal-tarball=${tarball##*/} org.rocm-bake.python-version=$version org.rocm-bake.python-sha256=$sha" \
        'CMD ["/bin/bash"]' >"$ctx/Dockerfile"
    SOURCE_DATE_EPOCH=$ROOTFS_EPOCH docker buildx build --progress=quiet --provenance=false --no-cache \
        --build-arg "SOURCE_DATE_EPOCH=$ROOTFS_EPOCH" --tag "$REHEARSAL_IMAGE" \
        --output "type=docker,dest=$ctx/image.tar,rewrite-timestamp=true" "$ctx" >&2 ||
        die "build of $REHEARSAL_IMAGE failed"
    docker image load -q -i "$ctx/image.tar" >/dev/null || die "docker image load of $REHEARSAL_IMAGE failed"
    docker run --rm --network=none "$REHEARSAL_IMAGE" "python$PY_MINOR" -c "import ensurepip, venv, ssl" \
        >/dev/null 2>&1 || die "$REHEARSAL_IMAGE built but python$PY_MINOR does not run in it"
    log "image: $REHEARSAL_IMAGE ready (CPython $version)"
}

rehearsal_main() {
    [ "$#" -ge 1 ] || {
        usage >&2
        exit 2
    }
    local cmd=$1
    shift
    case "$cmd" in
    -h | --help | help) usage ;;
    lock) cmd_lock ;;
    fetch) fetch_locked fetch "$HIP_LOCK" ;;
    image)
        [ "$#" -le 1 ] || die "image takes at most one argument (RUN_DIR)"
        cmd_image "$@"
        ;;
    python) python_prefix ;;
    python-layout) # internal: the mmdebstrap customize hook
        [ "$#" -eq 2 ] || die "python-layout takes two arguments (ROOT PREFIX)"
        python_layout "$1" "$2"
        ;;
    *) die "unknown command '$cmd' (try --help)" ;;
    esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then rehearsal_main "$@"; fi
