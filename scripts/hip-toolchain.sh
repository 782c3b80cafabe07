#!/usr/bin/env bash
# hip-toolchain.sh - a real HIP toolchain image for the tests: Debian trixie with clang-22,
# lld-22, llvm-22, clang-tools-22, plus rocm-device-libs-22, libamdhip64-dev, libamdhip64-7 and
# hipcc of the newest ROCm 7.x that Debian experimental and unstable have all four at
# (unpacked with dpkg-deb -x: their other dependencies need a newer glibc than trixie has),
# laid out like a ROCm install so that dockerfiles/scripts/with-compiler-cache.sh and
# install-compiler-wrappers.sh run unchanged.
#
# 'fetch' reads the package lists of the machine's own Debian mirror (from its apt
# configuration), picks the set and builds the rootfs tarball into ROOTFS_DIR: named by its
# ROCm version, keyed by the exact set, beside a .set file that records the set.  'image' is
# offline: it imports that tarball, so a restarted engine re-imports it without the network.
set -Eeuo pipefail

# The helpers of engine.sh (debian_mirror, fetch_lists, set_run_dir, docker_up, die, log ...)
# and rocm_set (the newest coherent ROCm set of package lists).
# shellcheck source=engine.sh
. "$(dirname "${BASH_SOURCE[0]}")/engine.sh"
# shellcheck source=rocm-set.sh
. "$(dirname "${BASH_SOURCE[0]}")/rocm-set.sh"
PROG=hip-toolchain.sh

HIP_IMAGE=${ROCM_BAKE_HIP_IMAGE:-rocm-bake/hip:test}
HIP_SUITE=trixie
LLVM_MAJOR=22
# The ROCm major the tests can use (libamdhip64-7 is the runtime of ROCm 7.x: soname 7).
ROCM_MAJOR=7
# The trixie part; the same build tools as the Debian test rootfs (engine.sh rootfs-image), so
# the image is also a base for the test stage graph.
HIP_PACKAGES=clang-$LLVM_MAJOR,lld-$LLVM_MAJOR,llvm-$LLVM_MAJOR,clang-tools-$LLVM_MAJOR,$ROOTFS_PACKAGES
# Unpacked (not installed), all four at one ROCm version, from whichever of HIP_DEB_SUITES
# has it.  libamdhip64-7 is the HIP runtime library: here only so that links (hipcc -shared,
# CMake's hip-lang package) find libamdhip64.so; nothing can run GPU code on these machines.
HIP_DEBS=(rocm-device-libs-$LLVM_MAJOR libamdhip64-dev libamdhip64-$ROCM_MAJOR hipcc)
HIP_DEB_SUITES=(experimental unstable)

usage() {
    cat <<EOF
Usage: scripts/$PROG COMMAND [RUN_DIR]

A real HIP compiler image for the tests (no GPU needed to compile).

Commands:
  fetch             pick the set: the newest ROCm $ROCM_MAJOR.x version that the Debian suites
                    ${HIP_DEB_SUITES[*]} (together) have ${HIP_DEBS[*]} at,
                    each package at its newest Debian revision of it; log it, then build
                    (once, with mmdebstrap from the machine's Debian mirror) the tarball:
                    Debian $HIP_SUITE + clang-$LLVM_MAJOR lld-$LLVM_MAJOR llvm-$LLVM_MAJOR clang-tools-$LLVM_MAJOR and the set
                    in a ROCm layout under /opt/rocm (llvm/bin/clang{,++}, bin/hipcc,
                    .info/version, include/hip, amdgcn/bitcode); older tarballs are
                    removed.  Prints the tarball's path.  Needs the network, no engine.
                    No such set (no $ROCM_MAJOR.x at all, only another major, no version all
                    four share) is an error naming what the lists have.
  image [RUN_DIR]   import the tarball 'fetch' built as $HIP_IMAGE, labelled with its
                    ROCm version (org.rocm-bake.rocm-version) and its .debs
                    (org.rocm-bake.hip-debs); logs them.  No-op if the image is that
                    tarball's.  Offline.
  -h, --help        this help.

RUN_DIR defaults to \${ROCM_BAKE_ENGINE_DIR:-/tmp/rocm-bake-engine}; ROOTFS_DIR is
\${ROCM_BAKE_ROOTFS_DIR:-/var/cache/rocm-bake}; the image name \${ROCM_BAKE_HIP_IMAGE:-rocm-bake/hip:test}.
Exit status: 0 ok, 2 usage error or failure.
EOF
}

# hip_tarball MIRROR SET: the path of the tarball of SET (rocm_set's output) built by this
# script from MIRROR.  Its .set file is the same path with .set for .tar.
hip_tarball() {
    local mirror=$1 set=$2 key
    key=$(printf '%s %s %s %s\n%s\n' "$HIP_SUITE" "$mirror" "$HIP_PACKAGES" "$ROOTFS_EPOCH" \
        "$set" | cat - <(declare -f rocm_layout) | sha256sum | cut -c1-12)
    printf '%s/hip-debian-%s-rocm%s-%s.tar\n' "${ROOTFS_CACHE_DIR%/}" "$HIP_SUITE" \
        "$(head -n1 <<<"$set")" "$key"
}

# set_debs SET: PKG=VERSION of each package of SET, one a line.
set_debs() { tail -n +2 <<<"$1" | cut -d' ' -f1; }

# set_summary SET: "ROCm VERSION (PKG=VERSION SUITE, ...)" for the logs.
set_summary() {
    printf 'ROCm %s (%s)\n' "$(head -n1 <<<"$1")" "$(tail -n +2 <<<"$1" | sed ':a;N;$!ba;s/\n/, /g')"
}

# The ROCm layout of ROCm VERSION inside ROOT (a customize hook of mmdebstrap: runs on the host).
rocm_layout() {
    local root=$1 version=$2 llvm=/usr/lib/llvm-$LLVM_MAJOR
    local res=$llvm/lib/clang/$LLVM_MAJOR
    [ -x "$root$llvm/bin/clang++" ] || die "no $llvm/bin/clang++ in the rootfs"
    [ -d "$root$res/amdgcn/bitcode" ] || die "no $res/amdgcn/bitcode (rocm-device-libs-$LLVM_MAJOR) in the rootfs"
    [ -f "$root/usr/include/hip/hip_runtime.h" ] || die "no HIP headers (libamdhip64-dev) in the rootfs"
    [ -x "$root/usr/bin/hipcc" ] || die "no /usr/bin/hipcc in the rootfs"
    [ -e "$root/usr/lib/x86_64-linux-gnu/libamdhip64.so" ] || die "no libamdhip64.so (libamdhip64-$ROCM_MAJOR) in the rootfs"
    mkdir -p "$root/opt/rocm/.info" "$root/opt/rocm/bin" "$root/opt/rocm/include" \
        "$root/opt/rocm/lib" "$root/opt/rocm/share"
    ln -s "$llvm" "$root/opt/rocm/llvm"
    ln -s "$llvm" "$root/opt/rocm/lib/llvm-$LLVM_MAJOR"
    ln -s /usr/bin/hipcc "$root/opt/rocm/bin/hipcc"
    ln -s /usr/bin/hipconfig "$root/opt/rocm/bin/hipconfig"
    ln -s /usr/include/hip "$root/opt/rocm/include/hip"
    ln -s /usr/share/hip "$root/opt/rocm/share/hip"
    ln -s "$res/amdgcn" "$root/opt/rocm/amdgcn"
    # CMake's HIP language looks for <ROCm root>/lib/cmake/hip-lang (Debian's config resolves
    # its prefix through the link); links find the runtime library in <ROCm root>/lib.
    ln -s /usr/lib/x86_64-linux-gnu/cmake "$root/opt/rocm/lib/cmake"
    local lib
    for lib in "$root"/usr/lib/x86_64-linux-gnu/libamdhip64.so*; do
        ln -s "${lib#"$root"}" "$root/opt/rocm/lib/${lib##*/}"
    done
    printf '%s\n' "$version" >"$root/opt/rocm/.info/version"
}

# build_hip_tarball SET OUT: the .debs of SET (through fetch_lists' apt state) unpacked into a
# fresh Debian rootfs in the ROCm layout.  OUT's .set file, then OUT, only once complete.
build_hip_tarball() {
    local set=$1 out=$2 tmp deb p v want=() debs=() version
    version=$(head -n1 <<<"$set")
    command -v mmdebstrap >/dev/null 2>&1 || die "mmdebstrap not installed; run 'engine.sh install'"
    mkdir -p "$(dirname "$out")" || die "cannot create $(dirname "$out")"
    mapfile -t want < <(set_debs "$set")
    apt_download fetch "${want[@]}"
    for p in "${want[@]}"; do
        deb=$(find "$FETCH_DIR/debs" -name "${p%%=*}_*.deb" | head -n1)
        [ -n "$deb" ] || die "fetch: no ${p%%=*} .deb downloaded"
        v=$(dpkg-deb -f "$deb" Version)
        [ "$v" = "${p#*=}" ] || die "fetch: downloaded ${p%%=*} $v, wanted ${p#*=}"
        debs+=("$deb")
    done
    tmp=$(mktemp "$out.XXXXXX.tar")
    TMP_PATHS+=("$tmp")
    # The .debs next to the tarball for the hooks (a shared /tmp is no place to keep them
    # through a build of several minutes).
    local keep hooks=() d
    keep=$(mktemp -d "$out.debs.XXXXXX")
    TMP_PATHS+=("$keep")
    cp "${debs[@]}" "$keep/"
    for d in "${debs[@]}"; do hooks+=(--customize-hook="dpkg-deb -x '$keep/${d##*/}' \"\$1\""); done
    hooks+=(--customize-hook="bash '${BASH_SOURCE[0]}' layout \"\$1\" '$version'")
    # Which .debs went in, for whoever inspects the image.
    hooks+=(--customize-hook="mkdir -p \"\$1/opt/rocm/.info\" && cd '$keep' && ls *.deb > \"\$1/opt/rocm/.info/debs\"")
    log "fetch: mmdebstrap $HIP_SUITE + ${want[*]} (a few minutes, once)"
    SOURCE_DATE_EPOCH=$ROOTFS_EPOCH mmdebstrap --quiet --mode=root --variant=minbase \
        --include="$HIP_PACKAGES" --aptopt='Acquire::Languages "none"' \
        --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
        --dpkgopt='path-exclude=/usr/share/locale/*' "${hooks[@]}" \
        "$HIP_SUITE" "$tmp" "$(debian_mirror)" >&2 || die "mmdebstrap $HIP_SUITE failed"
    local set_tmp
    set_tmp=$(mktemp "${out%.tar}.XXXXXX.set")
    TMP_PATHS+=("$set_tmp")
    printf '%s\n' "$set" >"$set_tmp"
    chmod 644 "$set_tmp"
    # Only a complete tarball ever has the final name, and never without its .set file.
    mv -f "$set_tmp" "${out%.tar}.set"
    mv -f "$tmp" "$out"
}

cmd_fetch() {
    local mirror lists=() s f set tarball
    mirror=$(debian_mirror) || die "no Debian mirror found in /etc/apt/sources.list{,.d}"
    fetch_lists fetch "${HIP_DEB_SUITES[@]}"
    # (die in a $(...) exits only the subshell: || exit 2, or the ERR trap adds a line.)
    for s in "${HIP_DEB_SUITES[@]}"; do
        f=$(suite_packages "$s") || exit 2
        lists+=("$s=$f")
    done
    set=$(rocm_set "$ROCM_MAJOR" "${HIP_DEBS[*]}" "${lists[@]}") || exit 2
    tarball=$(hip_tarball "$mirror" "$set")
    log "fetch: the newest ROCm $ROCM_MAJOR.x set: $(set_summary "$set")"
    if [ -f "$tarball" ] && [ -f "${tarball%.tar}.set" ]; then
        log "fetch: $tarball already built"
    else
        build_hip_tarball "$set" "$tarball"
    fi
    # Older tarballs of this image (another set, package list or layout): ~1 GB each.
    local old
    for old in "$(dirname "$tarball")"/hip-debian-*.tar; do
        [ -f "$old" ] && [ "$old" != "$tarball" ] || continue
        log "fetch: removing the older ${old##*/}"
        rm -f "$old" "${old%.tar}.set"
    done
    printf '%s\n' "$tarball"
}

# current_set MIRROR: the set of the tarball in ROOTFS_DIR that 'fetch' built with this script
# (its .set file, checked against the tarball's name), or an error saying to run 'fetch'.
current_set() {
    local mirror=$1 f found=()
    for f in "${ROOTFS_CACHE_DIR%/}/hip-debian-$HIP_SUITE-rocm"*.set; do
        [ -f "$f" ] && [ -f "${f%.set}.tar" ] || continue
        if [ "$(hip_tarball "$mirror" "$(cat "$f")")" = "${f%.set}.tar" ]; then found+=("$f"); fi
    done
    case "${#found[@]}" in
    0) die "image: no HIP toolchain tarball of this script in $ROOTFS_CACHE_DIR: run 'scripts/$PROG fetch' first (it needs the Debian mirror)" ;;
    1) cat "${found[0]}" ;;
    *) die "image: ${#found[@]} HIP toolchain tarballs in $ROOTFS_CACHE_DIR (${found[*]##*/}): run 'scripts/$PROG fetch' (it keeps the newest set's)" ;;
    esac
}

cmd_image() {
    set_run_dir "${1:-}"
    docker_up || die "engine not running at $SOCK; run 'engine.sh start $RUN_DIR'"
    export DOCKER_HOST=unix://$SOCK
    local mirror set tarball have
    mirror=$(debian_mirror) || die "no Debian mirror found in /etc/apt/sources.list{,.d}"
    set=$(current_set "$mirror") || exit 2
    tarball=$(hip_tarball "$mirror" "$set")
    log "image: $HIP_IMAGE holds $(set_summary "$set")"
    # The image records which tarball it was imported from: another set, package list or
    # layout re-imports instead of reusing a stale image.
    have=$(docker image inspect -f '{{index .Config.Labels "org.rocm-bake.hip-tarball"}}' \
        "$HIP_IMAGE" 2>/dev/null || true)
    if [ "$have" = "${tarball##*/}" ]; then
        log "image: $HIP_IMAGE already present"
        return 0
    fi
    log "image: importing $HIP_IMAGE from $tarball"
    docker import --change 'CMD ["/bin/bash"]' \
        --change 'ENV PATH=/opt/rocm/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'ENV LANG=C.UTF-8' --change 'ENV ROCM_PATH=/opt/rocm' \
        --change "LABEL org.rocm-bake.hip-tarball=${tarball##*/}" \
        --change "LABEL org.rocm-bake.rocm-version=$(head -n1 <<<"$set")" \
        --change "LABEL org.rocm-bake.hip-debs=\"$(set_debs "$set" | tr '\n' ' ' | sed 's/ $//')\"" \
        "$tarball" "$HIP_IMAGE" >/dev/null || die "docker import of $HIP_IMAGE failed"
    docker run --rm --network=none "$HIP_IMAGE" /bin/sh -c \
        '/opt/rocm/llvm/bin/clang++ --version && hipcc --version && python3 -c "import setuptools, wheel"' \
        >/dev/null 2>&1 || die "$HIP_IMAGE imported but clang++/hipcc/python3 do not run in it"
    log "image: $HIP_IMAGE ready"
}

hip_main() {
    [ "$#" -ge 1 ] || {
        usage >&2
        exit 2
    }
    local cmd=$1
    shift
    case "$cmd" in
    -h | --help | help) usage ;;
    fetch)
        [ "$#" -eq 0 ] || die "fetch takes no arguments"
        cmd_fetch
        ;;
    image)
        [ "$#" -le 1 ] || die "image takes at most one argument (RUN_DIR)"
        cmd_image "$@"
        ;;
    layout) # internal: the mmdebstrap customize hook
        [ "$#" -eq 2 ] || die "layout takes two arguments (ROOT VERSION)"
        rocm_layout "$1" "$2"
        ;;
    *) die "unknown command '$cmd' (try --help)" ;;
    esac
}

# Sourced (tests/hip/test_rocm_set.py reads hip_tarball and current_set): define only.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then hip_main "$@"; fi
