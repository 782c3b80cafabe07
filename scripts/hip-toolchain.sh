#!/usr/bin/env bash
# hip-toolchain.sh - a real HIP toolchain image for the tests: Debian trixie with clang-22,
# lld-22, llvm-22, clang-tools-22, and from Debian experimental rocm-device-libs-22,
# libamdhip64-dev and hipcc (ROCm 7.2.4, unpacked with dpkg-deb -x: their other
# dependencies need a newer glibc than trixie has), laid out like a ROCm install so that
# dockerfiles/scripts/with-compiler-cache.sh and install-compiler-wrappers.sh run unchanged.
#
# Fetched once from the machine's own Debian mirror (read from its apt configuration); the
# rootfs tarball is kept in ROOTFS_DIR, so a restarted engine re-imports it offline.
set -Eeuo pipefail

# The helpers of engine.sh (debian_mirror, fetch_debs, set_run_dir, docker_up, die, log ...).
# shellcheck source=engine.sh
. "$(dirname "${BASH_SOURCE[0]}")/engine.sh"
PROG=hip-toolchain.sh

HIP_IMAGE=${ROCM_BAKE_HIP_IMAGE:-rocm-bake/hip:test}
HIP_SUITE=trixie
LLVM_MAJOR=22
ROCM_VERSION=7.2.4
# The trixie part; the same build tools as the Debian test rootfs (engine.sh rootfs-image), so
# the image is also a base for the test stage graph.
HIP_PACKAGES=clang-$LLVM_MAJOR,lld-$LLVM_MAJOR,llvm-$LLVM_MAJOR,clang-tools-$LLVM_MAJOR,$ROOTFS_PACKAGES
# From experimental, unpacked (not installed): PKG whose version must start with ROCM_VERSION.
# libamdhip64-7 is the HIP runtime library: here only so that links (hipcc -shared, CMake's
# hip-lang package) find libamdhip64.so; nothing can run GPU code on these machines.
HIP_DEBS=(rocm-device-libs-$LLVM_MAJOR libamdhip64-dev libamdhip64-7 hipcc)

usage() {
    cat <<EOF
Usage: scripts/$PROG COMMAND [RUN_DIR]

A real HIP compiler image for the tests (no GPU needed to compile).

Commands:
  image [RUN_DIR]   build (once, with mmdebstrap from the machine's Debian mirror) and import
                    $HIP_IMAGE: Debian $HIP_SUITE + clang-$LLVM_MAJOR lld-$LLVM_MAJOR llvm-$LLVM_MAJOR clang-tools-$LLVM_MAJOR,
                    and ${HIP_DEBS[*]} $ROCM_VERSION from experimental,
                    in a ROCm layout under /opt/rocm (llvm/bin/clang{,++}, bin/hipcc,
                    .info/version, include/hip, amdgcn/bitcode).  No-op if the image is
                    present; the tarball is kept in ROOTFS_DIR and reused offline.
  tarball           print the path of the cached tarball (nothing is built).
  -h, --help        this help.

RUN_DIR defaults to \${ROCM_BAKE_ENGINE_DIR:-/tmp/rocm-bake-engine}; ROOTFS_DIR is
\${ROCM_BAKE_ROOTFS_DIR:-/var/cache/rocm-bake}; the image name \${ROCM_BAKE_HIP_IMAGE:-rocm-bake/hip:test}.
Exit status: 0 ok, 2 usage error or failure.
EOF
}

hip_tarball() {
    local mirror=$1 key
    key=$(printf '%s %s %s %s %s %s\n' "$HIP_SUITE" "$mirror" "$HIP_PACKAGES" "${HIP_DEBS[*]}" \
        "$ROCM_VERSION" "$ROOTFS_EPOCH" | cat - <(declare -f rocm_layout) |
        sha256sum | cut -c1-12)
    printf '%s/hip-debian-%s-rocm%s-%s.tar\n' "${ROOTFS_CACHE_DIR%/}" "$HIP_SUITE" "$ROCM_VERSION" "$key"
}

# The ROCm layout inside ROOT (a customize hook of mmdebstrap: runs on the host).
rocm_layout() {
    local root=$1 llvm=/usr/lib/llvm-$LLVM_MAJOR
    local res=$llvm/lib/clang/$LLVM_MAJOR
    [ -x "$root$llvm/bin/clang++" ] || die "no $llvm/bin/clang++ in the rootfs"
    [ -d "$root$res/amdgcn/bitcode" ] || die "no $res/amdgcn/bitcode (rocm-device-libs-$LLVM_MAJOR) in the rootfs"
    [ -f "$root/usr/include/hip/hip_runtime.h" ] || die "no HIP headers (libamdhip64-dev) in the rootfs"
    [ -x "$root/usr/bin/hipcc" ] || die "no /usr/bin/hipcc in the rootfs"
    [ -e "$root/usr/lib/x86_64-linux-gnu/libamdhip64.so" ] || die "no libamdhip64.so (libamdhip64-7) in the rootfs"
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
    printf '%s\n' "$ROCM_VERSION" >"$root/opt/rocm/.info/version"
}

build_hip_tarball() {
    local mirror=$1 out=$2 tmp deb v p debs=()
    command -v mmdebstrap >/dev/null 2>&1 || die "mmdebstrap not installed; run 'engine.sh install'"
    mkdir -p "$(dirname "$out")" || die "cannot create $(dirname "$out")"
    local want=()
    for p in "${HIP_DEBS[@]}"; do want+=("$p/experimental"); done
    fetch_debs image "${want[@]}"
    for p in "${HIP_DEBS[@]}"; do
        deb=$(find "$FETCH_DIR/debs" -name "${p}_*.deb" | head -n1)
        [ -n "$deb" ] || die "image: no $p .deb downloaded"
        v=$(dpkg-deb -f "$deb" Version)
        case "$v" in
        "$ROCM_VERSION"*) ;;
        *) die "image: experimental has $p $v, this script wants $ROCM_VERSION" ;;
        esac
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
    hooks+=(--customize-hook="bash '${BASH_SOURCE[0]}' layout \"\$1\"")
    # Which .debs went in, for whoever inspects the image.
    hooks+=(--customize-hook="mkdir -p \"\$1/opt/rocm/.info\" && cd '$keep' && ls *.deb > \"\$1/opt/rocm/.info/debs\"")
    log "image: mmdebstrap $HIP_SUITE + ${HIP_DEBS[*]} from $mirror (a few minutes, once)"
    SOURCE_DATE_EPOCH=$ROOTFS_EPOCH mmdebstrap --quiet --mode=root --variant=minbase \
        --include="$HIP_PACKAGES" --aptopt='Acquire::Languages "none"' \
        --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
        --dpkgopt='path-exclude=/usr/share/locale/*' "${hooks[@]}" \
        "$HIP_SUITE" "$tmp" "$mirror" >&2 || die "mmdebstrap $HIP_SUITE failed"
    mv -f "$tmp" "$out"   # only a complete tarball ever has the final name
    # Older tarballs of this image (another package list or layout): ~1 GB each.
    find "$(dirname "$out")" -maxdepth 1 -name 'hip-debian-*.tar' ! -name "${out##*/}" -delete
}

cmd_image() {
    set_run_dir "${1:-}"
    docker_up || die "engine not running at $SOCK; run 'engine.sh start $RUN_DIR'"
    export DOCKER_HOST=unix://$SOCK
    local mirror tarball have
    mirror=$(debian_mirror) || die "no Debian mirror found in /etc/apt/sources.list{,.d}"
    tarball=$(hip_tarball "$mirror")
    # The image records which tarball it was imported from: a changed package list or layout
    # re-imports instead of reusing a stale image.
    have=$(docker image inspect -f '{{index .Config.Labels "org.rocm-bake.hip-tarball"}}' \
        "$HIP_IMAGE" 2>/dev/null || true)
    if [ "$have" = "${tarball##*/}" ]; then
        log "image: $HIP_IMAGE already present"
        return 0
    fi
    if [ -f "$tarball" ]; then
        log "image: reusing $tarball"
    else
        build_hip_tarball "$mirror" "$tarball"
    fi
    log "image: importing $HIP_IMAGE"
    docker import --change 'CMD ["/bin/bash"]' \
        --change 'ENV PATH=/opt/rocm/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'ENV LANG=C.UTF-8' --change 'ENV ROCM_PATH=/opt/rocm' \
        --change "LABEL org.rocm-bake.hip-tarball=${tarball##*/}" \
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
    image)
        [ "$#" -le 1 ] || die "image takes at most one argument (RUN_DIR)"
        cmd_image "$@"
        ;;
    tarball)
        [ "$#" -eq 0 ] || die "tarball takes no arguments"
        hip_tarball "$(debian_mirror)" || die "no Debian mirror found"
        ;;
    layout) # internal: the mmdebstrap customize hook
        [ "$#" -eq 1 ] || die "layout takes one argument (ROOT)"
        rocm_layout "$1"
        ;;
    *) die "unknown command '$cmd' (try --help)" ;;
    esac
}

hip_main "$@"
