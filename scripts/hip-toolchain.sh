#!/usr/bin/env bash
# hip-toolchain.sh - a real HIP toolchain image for the tests: Debian trixie with clang-22,
# lld-22, llvm-22, clang-tools-22, plus rocm-device-libs-22, libamdhip64-dev, libamdhip64-7 and
# hipcc of one ROCm 7.x (unpacked with dpkg-deb -x: their other dependencies need a newer
# glibc than trixie has), laid out like a ROCm install so that
# dockerfiles/scripts/with-compiler-cache.sh and install-compiler-wrappers.sh run unchanged.
#
# Every .deb is pinned by content in hip-toolchain.lock (sha256, size, pool path): the rootfs
# is built offline, by mmdebstrap from a local repository of exactly those .debs, so it is the
# same on any machine.  The .debs are fetched once from the machine's own Debian mirror (read
# from its apt configuration) and checked; they and the rootfs tarball are kept in ROOTFS_DIR,
# so a restarted engine re-imports it offline.  'lock' re-resolves the lock from the archive:
# Debian trixie, and the newest ROCm 7.x that Debian experimental and unstable have all four
# ROCm packages at (rocm-set.sh).
set -Eeuo pipefail

# The helpers of engine.sh (debian_mirror, fetch_lists, fetch_locked, set_run_dir, docker_up,
# die, log ...) and rocm_set (the newest coherent ROCm set of package lists).
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
# File times of the rootfs (2025-01-01): older than any test build's SOURCE_DATE_EPOCH.
ROOTFS_EPOCH=1735689600
# The build tools of the test stage graph (tests/e2e/stages, whose base this image is): a
# C/C++ toolchain, CMake, Python with setuptools/wheel/pip/venv and ccache.
ROOTFS_PACKAGES=ca-certificates,gcc,g++,libc6-dev,make,cmake,ccache,python3,python3-dev,python3-setuptools,python3-wheel,python3-pip,python3-venv
# The trixie part: the LLVM toolchain and those build tools.
HIP_PACKAGES=clang-$LLVM_MAJOR,lld-$LLVM_MAJOR,llvm-$LLVM_MAJOR,clang-tools-$LLVM_MAJOR,$ROOTFS_PACKAGES
# Unpacked (not installed), all four at one ROCm version, locked from whichever of
# HIP_DEB_SUITES has it.  libamdhip64-7 is the HIP runtime library: here only so that links
# (hipcc -shared, CMake's hip-lang package) find libamdhip64.so; nothing can run GPU code on
# these machines.
HIP_DEBS=(rocm-device-libs-$LLVM_MAJOR libamdhip64-dev libamdhip64-$ROCM_MAJOR hipcc)
HIP_DEB_SUITES=(experimental unstable)
# The runtime image (the test variant's runtime stage, ~ vLLM's final image, runs on it):
# Python with venv and the C++ runtime, from the same pinned .debs, no toolchain, as a real
# runtime image leaves its build tools behind (docs/reproducibility.md: what a reproducible
# export of an image on the toolchain costs).
RUNTIME_IMAGE=${ROCM_BAKE_HIP_RUNTIME_IMAGE:-rocm-bake/hip-runtime:test}
RUNTIME_PACKAGES=python3,python3-venv,libstdc++6
HIP_LOCK=${ROCM_BAKE_HIP_LOCK:-$(dirname "${BASH_SOURCE[0]}")/hip-toolchain.lock}
# What fetch_locked says when the mirror no longer has a pinned .deb.
# shellcheck disable=SC2034  # read by engine.sh's fetch_locked
RELOCK_HINT="re-lock: scripts/$PROG lock (then rebuild, and record the test variant's new expectation: inv verify-repro --record)"

usage() {
    cat <<EOF
Usage: scripts/$PROG COMMAND [RUN_DIR]

A real HIP compiler image for the tests (no GPU needed to compile).

Commands:
  fetch             download the lock's .debs that ROOTFS_DIR/debs lacks, each checked
                    against its sha256 (the only step that uses the network).  A .deb the
                    mirror no longer has (Debian drops superseded versions) is an error
                    saying to re-lock.
  image [RUN_DIR]   build (once, offline, with mmdebstrap from the .debs of the lock) and
                    import $HIP_IMAGE: Debian $HIP_SUITE + clang-$LLVM_MAJOR lld-$LLVM_MAJOR llvm-$LLVM_MAJOR clang-tools-$LLVM_MAJOR,
                    and the lock's ${HIP_DEBS[*]},
                    in a ROCm layout under /opt/rocm (llvm/bin/clang{,++}, bin/hipcc,
                    .info/version, include/hip, amdgcn/bitcode), labelled with its ROCm
                    version (org.rocm-bake.rocm-version) and those .debs
                    (org.rocm-bake.hip-debs).  Then $RUNTIME_IMAGE, the runtime
                    image: Debian $HIP_SUITE + $RUNTIME_PACKAGES from the same .debs and
                    the HIP runtime library (libamdhip64-$ROCM_MAJOR) in /opt/rocm/lib.
                    No-op for an image that is the lock's; the tarballs are kept in
                    ROOTFS_DIR and reused offline.
  rootfs            build the tarball from the fetched .debs (no engine needed); prints its path.
  lock              resolve the package set against the mirror today and rewrite the lock:
                    Debian $HIP_SUITE, and the newest ROCm $ROCM_MAJOR.x version that ${HIP_DEB_SUITES[*]}
                    (together) have all of ${HIP_DEBS[*]} at, each at its newest
                    Debian revision of it (then fetch and rebuild: the image changes).
  tarball           print the path of the cached tarball (nothing is built).
  -h, --help        this help.

RUN_DIR defaults to \${ROCM_BAKE_ENGINE_DIR:-/tmp/rocm-bake-engine}; ROOTFS_DIR is
\${ROCM_BAKE_ROOTFS_DIR:-/var/cache/rocm-bake}; the image name \${ROCM_BAKE_HIP_IMAGE:-rocm-bake/hip:test};
the lock \${ROCM_BAKE_HIP_LOCK:-scripts/hip-toolchain.lock}.
Exit status: 0 ok, 2 usage error or failure.
EOF
}

# lock_set: the lock's ROCm set, as rocm_set prints it (without suites):
#   ROCM_VERSION
#   PKG=DEBIAN_VERSION      one line per HIP_DEBS package, in that order
# A lock whose unpacked .debs are not exactly HIP_DEBS, or not of one ROCm version, is an error.
lock_set() {
    local -A have=()
    local line p d v version=""
    while read -r _ _ _ path; do
        d=$(deb_of "$path")
        have["${d%%=*}"]=${d#*=}
    done < <(lock_lines "$HIP_LOCK" unpack)
    [ "${#have[@]}" -eq "${#HIP_DEBS[@]}" ] ||
        die "$HIP_LOCK unpacks ${!have[*]}; this script wants ${HIP_DEBS[*]}: re-lock (scripts/$PROG lock)"
    for p in "${HIP_DEBS[@]}"; do
        v=${have[$p]:-}
        [ -n "$v" ] || die "$HIP_LOCK does not pin $p: re-lock (scripts/$PROG lock)"
        line=$(rocm_upstream "$v")
        [ -z "$version" ] || [ "$line" = "$version" ] ||
            die "$HIP_LOCK pins ROCm $version and $line ($p=$v): not one ROCm version"
        version=$line
    done
    printf '%s\n' "$version"
    for p in "${HIP_DEBS[@]}"; do printf '%s=%s\n' "$p" "${have[$p]}"; done
}

# lock_version: the lock's ROCm version, the first line of lock_set (read whole: a pipe into
# head could end lock_set by SIGPIPE, which pipefail makes a failure).
lock_version() {
    local set
    set=$(lock_set) || exit 2
    printf '%s\n' "${set%%$'\n'*}"
}

# The cached tarball: named after its ROCm version and a hash of the lock (the exact .debs),
# the package list, the layout and the epoch -- not of the mirror: the lock alone says what
# goes in.
hip_tarball() {
    local key set
    set=$(lock_set) || exit 2
    key=$(printf '%s %s %s\n' "$HIP_PACKAGES" "${HIP_DEBS[*]}" "$ROOTFS_EPOCH" |
        cat - "$HIP_LOCK" <(declare -f rocm_layout build_hip_tarball rootfs_tarball) | sha256sum | cut -c1-12)
    printf '%s/hip-debian-%s-rocm%s-%s.tar\n' "${ROOTFS_CACHE_DIR%/}" "$HIP_SUITE" "$(head -n1 <<<"$set")" "$key"
}

# The runtime image's cached tarball, named after a hash of the lock, its packages and the
# code that builds it.
runtime_tarball() {
    local key
    key=$(printf '%s %s\n' "$RUNTIME_PACKAGES" "$ROOTFS_EPOCH" |
        cat - "$HIP_LOCK" <(declare -f rootfs_tarball build_runtime_tarball runtime_layout runtime_image) |
        sha256sum | cut -c1-12)
    printf '%s/runtime-debian-%s-%s.tar\n' "${ROOTFS_CACHE_DIR%/}" "$HIP_SUITE" "$key"
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

# rootfs_tarball OUT INCLUDE [HOOK...]: Debian HIP_SUITE (minbase) into the tarball OUT,
# offline, by mmdebstrap from a local repository of the lock's installed .debs: the packages
# INCLUDE (comma-separated; "all": every package of the lock) and the extra customize HOOKs;
# file times ROOTFS_EPOCH.
rootfs_tarball() {
    local out=$1 want=$2 tmp keep include hooks=()
    shift 2
    command -v mmdebstrap >/dev/null 2>&1 || die "mmdebstrap not installed; run 'engine.sh install'"
    command -v dpkg-scanpackages >/dev/null 2>&1 || die "dpkg-scanpackages not installed (apt-get install dpkg-dev)"
    mkdir -p "$(dirname "$out")" || die "cannot create $(dirname "$out")"
    fetch_locked image "$HIP_LOCK"
    trap cleanup_install EXIT
    tmp=$(mktemp "$out.XXXXXX.tar")
    TMP_PATHS+=("$tmp")
    # The repository: mmdebstrap bind-mounts it into the chroot at its own path (its
    # file-mirror-automount hooks: dpkg reads the .debs in place), so it is under /tmp, which
    # mmdebstrap empties in the chroot at the end -- no trace of the path in the image.
    keep=$(mktemp -d /tmp/rocm-bake-hip-repo.XXXXXX)
    TMP_PATHS+=("$keep")
    chmod 755 "$keep"
    include=$(local_repo "$HIP_LOCK" "$keep/repo" "$HIP_SUITE")
    [ "$want" = all ] || include=$want
    hooks+=(--hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount)
    # mmdebstrap copies the host's resolv.conf and hostname: the same content on any machine.
    # shellcheck disable=SC2016  # "$1" is mmdebstrap's, expanded by its hook
    hooks+=(--customize-hook='printf "nameserver 127.0.0.1\n" > "$1/etc/resolv.conf"'
        --customize-hook='printf "rocm-bake\n" > "$1/etc/hostname"' "$@")
    # No apt source (the image was built from the lock, not from an archive).
    # shellcheck disable=SC2016  # "$1" is mmdebstrap's, expanded by its hook
    hooks+=(--customize-hook='rm -f "$1/etc/apt/sources.list" && touch "$1/etc/apt/sources.list"')
    log "image: mmdebstrap $HIP_SUITE ($want) from the pinned .debs of ${HIP_LOCK##*/} (offline, once)"
    SOURCE_DATE_EPOCH=$ROOTFS_EPOCH mmdebstrap --quiet --mode=root --variant=minbase \
        --include="$include" --aptopt='Acquire::Languages "none"' \
        --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
        --dpkgopt='path-exclude=/usr/share/locale/*' "${hooks[@]}" \
        "$HIP_SUITE" "$tmp" "deb [trusted=yes] file://$keep/repo ./" >&2 || die "mmdebstrap $HIP_SUITE failed"
    mv -f "$tmp" "$out"   # only a complete tarball ever has the final name
}

# The ROCm runtime layout of ROCm VERSION inside ROOT: the HIP runtime library in
# /opt/rocm/lib and .info/version (a customize hook of mmdebstrap: runs on the host).
runtime_layout() {
    local root=$1 version=$2 lib
    [ -e "$root/usr/lib/x86_64-linux-gnu/libamdhip64.so.$ROCM_MAJOR" ] ||
        die "no libamdhip64.so.$ROCM_MAJOR (libamdhip64-$ROCM_MAJOR) in the rootfs"
    mkdir -p "$root/opt/rocm/.info" "$root/opt/rocm/lib"
    for lib in "$root"/usr/lib/x86_64-linux-gnu/libamdhip64.so*; do
        ln -s "${lib#"$root"}" "$root/opt/rocm/lib/${lib##*/}"
    done
    printf '%s\n' "$version" >"$root/opt/rocm/.info/version"
}

# The runtime image's tarball: RUNTIME_PACKAGES and the lock's HIP runtime library.
build_runtime_tarball() {
    local out=$1 sha path version hooks=()
    version=$(lock_version) || exit 2
    fetch_locked image "$HIP_LOCK"
    while read -r _ sha _ path; do
        case "${path##*/}" in
        "libamdhip64-${ROCM_MAJOR}_"*) hooks+=(--customize-hook="dpkg-deb -x '$(locked_deb "$sha")' \"\$1\"") ;;
        esac
    done < <(lock_lines "$HIP_LOCK" unpack)
    [ "${#hooks[@]}" -eq 1 ] || die "$HIP_LOCK unpacks no single libamdhip64-$ROCM_MAJOR"
    hooks+=(--customize-hook="bash '${BASH_SOURCE[0]}' runtime-layout \"\$1\" '$version'")
    rootfs_tarball "$out" "$RUNTIME_PACKAGES" "${hooks[@]}"
    find "$(dirname "$out")" -maxdepth 1 -name 'runtime-debian-*.tar' ! -name "${out##*/}" -delete
}

build_hip_tarball() {
    local out=$1 sha path v version hooks=()
    version=$(lock_version) || exit 2
    fetch_locked image "$HIP_LOCK"
    while read -r _ sha _ path; do
        v=$(dpkg-deb -f "$(locked_deb "$sha")" Version)
        [ "$(rocm_upstream "$v")" = "$version" ] ||
            die "image: ${path##*/} in $HIP_LOCK is $v, not ROCm $version"
        hooks+=(--customize-hook="dpkg-deb -x '$(locked_deb "$sha")' \"\$1\"")
    done < <(lock_lines "$HIP_LOCK" unpack)
    hooks+=(--customize-hook="bash '${BASH_SOURCE[0]}' layout \"\$1\" '$version'")
    # Which .debs were unpacked, for whoever inspects the image.
    hooks+=(--customize-hook="mkdir -p \"\$1/opt/rocm/.info\" && awk '!/^#/ && \$1 == \"unpack\" {n = split(\$4, p, \"/\"); print p[n]}' '$HIP_LOCK' > \"\$1/opt/rocm/.info/debs\"")
    rootfs_tarball "$out" all "${hooks[@]}"
    # Older tarballs of this image (another lock, package list or layout): ~1 GB each.
    find "$(dirname "$out")" -maxdepth 1 -name 'hip-debian-*.tar' ! -name "${out##*/}" -delete
}

# The tarball of the lock, built if it is not in ROOTFS_DIR yet.
ensure_hip_tarball() {
    local tarball
    tarball=$(hip_tarball)
    if [ -f "$tarball" ]; then
        log "image: reusing $tarball"
    else
        build_hip_tarball "$tarball"
    fi
    printf '%s\n' "$tarball"
}

# Resolve the package set against the archive today: mmdebstrap installs it (output
# discarded) and lists what it installed; apt prints each .deb's pool path and sha256.
cmd_lock() {
    command -v mmdebstrap >/dev/null 2>&1 || die "mmdebstrap not installed; run 'engine.sh install'"
    local mirror list new p
    mirror=$(debian_mirror) || die "no Debian mirror found in /etc/apt/sources.list{,.d}"
    list=$(mktemp "${TMPDIR:-/tmp}/rocm-bake-lock.XXXXXX")
    new=$(mktemp "$HIP_LOCK.XXXXXX")
    TMP_PATHS+=("$list" "$new")
    trap cleanup_install EXIT
    log "lock: resolving $HIP_PACKAGES on $mirror $HIP_SUITE (mmdebstrap, a few minutes)"
    mmdebstrap --quiet --mode=root --variant=minbase --include="$HIP_PACKAGES" \
        --aptopt='Acquire::Languages "none"' \
        --customize-hook="chroot \"\$1\" dpkg-query -W -f='\${Package}:\${Architecture}=\${Version}\\n' > '$list'" \
        "$HIP_SUITE" /dev/null "$mirror" >&2 || die "mmdebstrap $HIP_SUITE failed"
    fetch_lists lock "$HIP_SUITE" "${HIP_DEB_SUITES[@]}"
    # The newest ROCm set the suites share (die in a $(...) exits only the subshell: || exit 2).
    local lists=() s f set unpack=()
    for s in "${HIP_DEB_SUITES[@]}"; do
        f=$(suite_packages "$s") || exit 2
        lists+=("$s=$f")
    done
    set=$(rocm_set "$ROCM_MAJOR" "${HIP_DEBS[*]}" "${lists[@]}") || exit 2
    log "lock: ROCm $(head -n1 <<<"$set"): $(tail -n +2 <<<"$set" | sed ':a;N;$!ba;s/\n/, /g')"
    mapfile -t unpack < <(tail -n +2 <<<"$set" | cut -d' ' -f1)
    {
        printf '# The .debs of %s (scripts/hip-toolchain.sh), pinned by content:\n' "$HIP_IMAGE"
        printf '# ROLE SHA256 SIZE POOL_PATH (under the Debian mirror).  Written by\n'
        printf "# 'scripts/hip-toolchain.sh lock' from Debian %s + %s; do not edit.\n" "$HIP_SUITE" "${HIP_DEB_SUITES[*]}"
        # shellcheck disable=SC2046  # one package=version a word
        apt-get "${FETCH_APT_OPTS[@]}" --print-uris download $(cat "$list") | lock_from_uris install "$mirror" | sort -k4
        apt-get "${FETCH_APT_OPTS[@]}" --print-uris download "${unpack[@]}" | lock_from_uris unpack "$mirror" | sort -k4
    } >"$new" || die "lock: apt-get --print-uris failed"
    [ "$(lock_lines "$new" install | wc -l)" -eq "$(wc -l <"$list")" ] || die "lock: apt did not print every installed .deb"
    [ "$(lock_lines "$new" unpack | wc -l)" -eq "${#HIP_DEBS[@]}" ] || die "lock: apt did not print every ROCm .deb"
    mv -f "$new" "$HIP_LOCK"
    log "lock: $HIP_LOCK: $(lock_lines "$HIP_LOCK" | wc -l) .debs"
}

cmd_image() {
    set_run_dir "${1:-}"
    docker_up || die "engine not running at $SOCK; run 'engine.sh start $RUN_DIR'"
    export DOCKER_HOST=unix://$SOCK
    local tarball have set
    set=$(lock_set) || exit 2
    tarball=$(hip_tarball) || exit 2
    log "image: $HIP_IMAGE holds ROCm $(head -n1 <<<"$set") ($(tail -n +2 <<<"$set" | paste -sd' ' -))"
    # The image records which tarball it was imported from: a changed lock, package list or
    # layout re-imports instead of reusing a stale image.
    have=$(docker image inspect -f '{{index .Config.Labels "org.rocm-bake.hip-tarball"}}' \
        "$HIP_IMAGE" 2>/dev/null || true)
    if [ "$have" = "${tarball##*/}" ]; then
        log "image: $HIP_IMAGE already present"
        runtime_image
        return 0
    fi
    tarball=$(ensure_hip_tarball) || exit 2
    log "image: importing $HIP_IMAGE"
    docker import --change 'CMD ["/bin/bash"]' \
        --change 'ENV PATH=/opt/rocm/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'ENV LANG=C.UTF-8' --change 'ENV ROCM_PATH=/opt/rocm' \
        --change "LABEL org.rocm-bake.hip-tarball=${tarball##*/}" \
        --change "LABEL org.rocm-bake.rocm-version=$(head -n1 <<<"$set")" \
        --change "LABEL org.rocm-bake.hip-debs=\"$(tail -n +2 <<<"$set" | paste -sd' ' -)\"" \
        "$tarball" "$HIP_IMAGE" >/dev/null || die "docker import of $HIP_IMAGE failed"
    docker run --rm --network=none "$HIP_IMAGE" /bin/sh -c \
        '/opt/rocm/llvm/bin/clang++ --version && hipcc --version && python3 -c "import setuptools, wheel"' \
        >/dev/null 2>&1 || die "$HIP_IMAGE imported but clang++/hipcc/python3 do not run in it"
    log "image: $HIP_IMAGE ready"
    runtime_image
}

# The runtime image, built from its tarball (built once, offline) unless the engine has it: a
# BuildKit build with SOURCE_DATE_EPOCH=ROOTFS_EPOCH, exported with rewrite-timestamp and
# loaded, so its config (created, history) and layer are the same on every machine (--no-cache:
# each build is a real one, which tests/hip checks) -- an
# imported image's history carries the time of the import, which every image built FROM it
# inherits.
runtime_image() {
    local tarball have ctx version
    tarball=$(runtime_tarball)
    have=$(docker image inspect -f '{{index .Config.Labels "org.rocm-bake.runtime-tarball"}}' \
        "$RUNTIME_IMAGE" 2>/dev/null || true)
    if [ "$have" = "${tarball##*/}" ]; then
        log "image: $RUNTIME_IMAGE already present"
        return 0
    fi
    if [ -f "$tarball" ]; then
        log "image: reusing $tarball"
    else
        build_runtime_tarball "$tarball"
    fi
    version=$(lock_version) || exit 2
    ctx=$(mktemp -d /tmp/rocm-bake-runtime.XXXXXX)
    TMP_PATHS+=("$ctx")
    trap cleanup_install EXIT
    cp "$tarball" "$ctx/rootfs.tar"
    printf '%s\n' 'FROM scratch' 'ADD rootfs.tar /' \
        'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 ROCM_PATH=/opt/rocm' \
        "LABEL org.rocm-bake.runtime-tarball=${tarball##*/} org.rocm-bake.rocm-version=$version" \
        'CMD ["/bin/bash"]' >"$ctx/Dockerfile"
    SOURCE_DATE_EPOCH=$ROOTFS_EPOCH docker buildx build --progress=quiet --provenance=false --no-cache \
        --build-arg "SOURCE_DATE_EPOCH=$ROOTFS_EPOCH" --tag "$RUNTIME_IMAGE" \
        --output "type=docker,dest=$ctx/image.tar,rewrite-timestamp=true" "$ctx" >&2 ||
        die "build of $RUNTIME_IMAGE failed"
    docker image load -q -i "$ctx/image.tar" >/dev/null || die "docker image load of $RUNTIME_IMAGE failed"
    docker run --rm --network=none "$RUNTIME_IMAGE" python3 -c "import ensurepip, venv" \
        >/dev/null 2>&1 || die "$RUNTIME_IMAGE built but python3 (venv) does not run in it"
    log "image: $RUNTIME_IMAGE ready"
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
        hip_tarball
        ;;
    rootfs)
        [ "$#" -eq 0 ] || die "rootfs takes no arguments"
        ensure_hip_tarball
        ;;
    fetch)
        [ "$#" -eq 0 ] || die "fetch takes no arguments"
        fetch_locked fetch "$HIP_LOCK"
        ;;
    lock)
        [ "$#" -eq 0 ] || die "lock takes no arguments"
        cmd_lock
        ;;
    layout) # internal: the mmdebstrap customize hook
        [ "$#" -eq 2 ] || die "layout takes two arguments (ROOT VERSION)"
        rocm_layout "$1" "$2"
        ;;
    runtime-layout) # internal: the mmdebstrap customize hook of the runtime image
        [ "$#" -eq 2 ] || die "runtime-layout takes two arguments (ROOT VERSION)"
        runtime_layout "$1" "$2"
        ;;
    *) die "unknown command '$cmd' (try --help)" ;;
    esac
}

# Sourced (tests/hip read lock_set and hip_tarball): define only.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then hip_main "$@"; fi
