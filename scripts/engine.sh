#!/usr/bin/env bash
# engine.sh - install, start and stop a loopback-only build engine for tests:
# dockerd (containerd image store), buildx and an OCI registry on 127.0.0.1.
#
# Everything comes from Debian's package registry (see --help).  The engine
# never uses /var/run/docker.sock: it lives entirely under RUN_DIR.
set -Eeuo pipefail

PROG=engine.sh
DEFAULT_RUN_DIR=${ROCM_BAKE_ENGINE_DIR:-/tmp/rocm-bake-engine}
PORT=${ROCM_BAKE_REGISTRY_PORT:-5000}
# ROCM_BAKE_REGISTRY=none: start only dockerd (a second fleet node that uses the
# registry another engine.sh start runs on 127.0.0.1:$PORT, which it still trusts).
REGISTRY_MODE=${ROCM_BAKE_REGISTRY:-local}
TIMEOUT=${ROCM_BAKE_ENGINE_TIMEOUT:-60}
# ROCM_BAKE_ENGINE_CPUS=LIST (e.g. 0 or 2-3): dockerd and everything it starts (containerd,
# the build containers) run on those CPUs only (taskset), so several engines on one machine
# are as many machines of that size (benchmarks/fleet.py: one core per node).
CPUS=${ROCM_BAKE_ENGINE_CPUS:-}
BASE_IMAGE=rocm-bake/busybox:test
ROOTFS_CACHE_DIR=${ROCM_BAKE_ROOTFS_DIR:-/var/cache/rocm-bake}
MIN_BUILDX=0.24.0
OLD_BUILDX_DIR=${ROCM_BAKE_OLD_BUILDX_DIR:-/var/cache/rocm-bake/old-buildx}
NEWEST_BUILDX_DIR=${ROCM_BAKE_NEWEST_BUILDX_DIR:-/var/cache/rocm-bake/newest-buildx}
# The newest suite of Debian: its docker-buildx is the newest buildx Debian has.
NEWEST_SUITE=sid
# Which engine 'start' runs: current (the default) or floor (docs/reproducibility.md, "The engines").
ENGINE_RELEASE=${ROCM_BAKE_ENGINE_RELEASE:-current}
# The current engine: Debian's newest docker.io and containerd that run here, their .debs
# pinned by sha256 in ENGINE_LOCK ('lock' resolves it) and unpacked by 'install' into
# ENGINE_ROOT/docker-VERSION, nothing system-wide; it runs the machine's own runc (the
# newer suites' runc needs a newer glibc than the machine may have).
ENGINE_LOCK=${ROCM_BAKE_ENGINE_LOCK:-$(dirname "${BASH_SOURCE[0]}")/engine.lock}
ENGINE_ROOT=${ROCM_BAKE_ENGINE_ROOT:-/opt/rocm-bake/engine}
ENGINE_DEBS=(docker.io containerd)
ENGINE_SUITES=(forky sid)
# The floor: the oldest engine the project supports, Debian trixie's docker.io (BuildKit
# 0.13), installed system-wide by 'install' (apt) and tested in a lane of its own.
FLOOR_VERSION=26.1.5
FLOOR_SUITE=trixie

usage() {
    local current
    current=$(current_version 2>/dev/null) || current="(ENGINE_LOCK unreadable)"
    cat <<EOF
Usage: scripts/$PROG COMMAND [RUN_DIR]

Test build engine for rocm-bake (loopback only, no image hub needed).

Two engines: 'current' (the default), Docker $current from the .debs of
ENGINE_LOCK (Debian's newest docker.io and containerd that run here) unpacked into
ENGINE_ROOT/docker-VERSION, running the machine's runc; and 'floor', the oldest engine the
project supports: Docker $FLOOR_VERSION (Debian $FLOOR_SUITE's docker.io, BuildKit 0.13),
installed system-wide.  ROCM_BAKE_ENGINE_RELEASE=floor selects the floor.

Commands:
  install           the current engine: the .debs of ENGINE_LOCK, fetched (each
                    checked against its sha256) and unpacked into
                    ENGINE_ROOT/docker-VERSION (no-op if there and running);
                    then the floor, dockerd + containerd (Debian $FLOOR_SUITE), runc
                    (the machine's suite), docker-buildx
                    (Debian forky, >= $MIN_BUILDX), docker-registry, skopeo and
                    busybox-static (bookworm), all from the machine's Debian
                    mirror.  Skips what is already there.  No service starts
                    (policy-rc.d during the install) and the units the install
                    enabled (docker.service, docker.socket, containerd,
                    docker-registry) are disabled after it: nothing starts at
                    boot and nothing owns /var/run/docker.sock.
                    Ends with 'old-buildx' (its stdout line is not printed).
  apt-install PKG|DEB...
                    apt-get install with services held, as 'install' does
                    (scripts/webdav.sh uses it for nginx).
  old-buildx        put an OLD buildx (Debian trixie's docker-buildx, 0.13.x,
                    < $MIN_BUILDX) in OLD_DIR/cli-plugins/docker-buildx, for tests
                    of the version gate; nothing is installed system-wide.  No-op
                    if it is already there and runs.  Prints one line on stdout:
                    OLD_DIR, to use as DOCKER_CONFIG:
                      DOCKER_CONFIG=\$(scripts/$PROG old-buildx) docker buildx version
  newest-buildx     put the NEWEST buildx Debian has (docker-buildx of Debian
                    $NEWEST_SUITE) in NEWEST_DIR/cli-plugins/docker-buildx, for the
                    nightly's run of tests/buildx against it beside the pinned one
                    (ROCM_BAKE_BUILDX_PLUGINS=NEWEST_DIR/cli-plugins); nothing is
                    installed system-wide; it is fetched again every time (the
                    newest changes).  Prints one line on stdout: NEWEST_DIR.
  start [RUN_DIR]   start dockerd of the selected engine (socket RUN_DIR/docker.sock)
                    and a registry on 127.0.0.1:\$ROCM_BAKE_REGISTRY_PORT; no-op if
                    running.  The engine's version is checked first (the lock's, or
                    $FLOOR_VERSION), and so is a running one's: a dockerd of the
                    other engine in RUN_DIR is an error.  Prints one line on
                    stdout:  export DOCKER_HOST=unix://RUN_DIR/docker.sock
                    so that  eval "\$(scripts/$PROG start)"  works.
  which             print the selected engine: 'RELEASE VERSION DOCKERD' (exit 1,
                    saying why, when it is not installed or not its version).
  lock              resolve ENGINE_LOCK again: the newest ${ENGINE_DEBS[*]} of Debian
                    ${ENGINE_SUITES[*]} whose glibc need this machine meets (then
                    'install'; the images' encodings may change: docs/reproducibility.md).
  stop [RUN_DIR]    stop the registry and dockerd started there (pid files).
  running [RUN_DIR] exit 0 if the dockerd started there runs, else 1.
  base-image [RUN_DIR]
                    import a busybox image as $BASE_IMAGE (no-op if present).
  clean [RUN_DIR]   stop the engine at RUN_DIR and remove what this script left:
                    RUN_DIR (images, build cache, the registry's test
                    repositories), old rootfs-debian-*.tar in ROOTFS_DIR, OLD_DIR and
                    leftover /tmp/rocm-bake-apt.* and /tmp/rocm-bake-busybox.*
                    dirs.  The Debian packages stay (apt-get purge them), and so
                    does the current engine in ENGINE_ROOT (rm -r it).
  -h, --help        this help.

RUN_DIR defaults to \${ROCM_BAKE_ENGINE_DIR:-/tmp/rocm-bake-engine}.
ENGINE_LOCK is \${ROCM_BAKE_ENGINE_LOCK:-scripts/engine.lock}.
ENGINE_ROOT is \${ROCM_BAKE_ENGINE_ROOT:-/opt/rocm-bake/engine}.
OLD_DIR is \${ROCM_BAKE_OLD_BUILDX_DIR:-/var/cache/rocm-bake/old-buildx}.
NEWEST_DIR is \${ROCM_BAKE_NEWEST_BUILDX_DIR:-/var/cache/rocm-bake/newest-buildx}.
ROOTFS_DIR is \${ROCM_BAKE_ROOTFS_DIR:-/var/cache/rocm-bake}.
Environment: ROCM_BAKE_ENGINE_RELEASE (start, which: current, the default, or floor),
             ROCM_BAKE_REGISTRY_PORT (default 5000),
             ROCM_BAKE_REGISTRY=none (start: no registry of its own; the engine
             still trusts 127.0.0.1:\$ROCM_BAKE_REGISTRY_PORT, e.g. a second node),
             ROCM_BAKE_ENGINE_TIMEOUT (seconds to wait for readiness, default 60),
             ROCM_BAKE_ENGINE_CPUS (start: a CPU list, e.g. 0 or 2-3; dockerd and
             all it starts, builds included, run on those CPUs only; a running
             engine on other CPUs is an error),
             ROCM_BAKE_REGISTRY_MIRROR (start: a pull-through mirror for Docker
             Hub images, e.g. the ROCm base image; applies when dockerd starts),
             ROCM_BAKE_ENGINE_TLS_DIR + ROCM_BAKE_ENGINE_TCP_PORT (start: dockerd also
             listens on tcp://127.0.0.1:PORT with mutual TLS: DIR/ca.pem,
             DIR/server-cert.pem, DIR/server-key.pem).
'./inv build' runs 'start' itself when no builder is reachable (and 'install'
first when run as root); ROCM_BAKE_ENGINE=off turns that off.
Exit status: 0 ok, 2 usage error or failure.
EOF
}

log() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() {
    printf '%s: error: %s\n' "$PROG" "$*" >&2
    exit 2
}

# ---------------------------------------------------------------- helpers

# Any unexpected failure: one line, exit 2.
trap 'die "command failed (line $LINENO): $BASH_COMMAND"' ERR

need_root() {
    [ "$(id -u)" -eq 0 ] || die "'$1' must run as root"
}

# Version of the buildx plugin the docker client finds ("" if none).
buildx_version() {
    command -v docker >/dev/null 2>&1 || return 0
    docker buildx version 2>/dev/null |
        grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n1 || true
}

buildx_ok() {
    local v
    v=$(buildx_version)
    [ -n "$v" ] && dpkg --compare-versions "$v" ge "$MIN_BUILDX"
}

pkg_installed() {
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" = installed ]
}

# The machine's own Debian mirror (URI of an entry for this release's main
# suite), read from its apt configuration.  Both the one-line and the deb822
# formats are understood.  ROCM_BAKE_APT_ETC (default /etc/apt) is only a
# hook for testing this parser.
debian_mirror() {
    local codename files=() f uri
    # shellcheck disable=SC1091
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    local etc=${ROCM_BAKE_APT_ETC:-/etc/apt}
    [ -f "$etc/sources.list" ] && files+=("$etc/sources.list")
    for f in "$etc"/sources.list.d/*.list "$etc"/sources.list.d/*.sources; do
        [ -f "$f" ] && files+=("$f")
    done
    [ "${#files[@]}" -gt 0 ] || return 1
    uri=$(awk -v want="$codename" '
        function reset() { types = ""; uris = ""; suites = "" }
        function emit(u) { sub(/\/+$/, "", u); print u; done = 1; exit }
        # deb822 stanza: Types/URIs/Suites gathered until a blank line.
        function check(   n, s, k) {
            if (types !~ /(^|[ \t])deb([ \t]|$)/) { reset(); return }
            n = split(suites, s, /[ \t]+/)
            for (k = 1; k <= n; k++)
                if (s[k] == want) { split(uris, s, /[ \t]+/); emit(s[1] != "" ? s[1] : s[2]) }
            reset()
        }
        FNR == 1 { check() }
        /^[ \t]*#/ { next }
        FILENAME ~ /\.sources$/ {
            if ($0 ~ /^[ \t]*$/) { check(); next }
            key = tolower($1); $1 = ""
            if (key == "types:") types = $0
            else if (key == "uris:") uris = $0
            else if (key == "suites:") suites = $0
            next
        }
        $1 == "deb" {
            i = 2
            if ($i ~ /^\[/) { while ($i !~ /\]$/ && i < NF) i++; i++ }
            if ($(i + 1) == want) emit($i)
        }
        END { if (!done) check() }
    ' "${files[@]}" 2>/dev/null | head -n1)
    [ -n "$uri" ] || return 1
    printf '%s\n' "$uri"
}

# ---------------------------------------------------------------- install

TMP_PATHS=()
POLICY_CREATED=0
# shellcheck disable=SC2317  # invoked via trap
cleanup_install() {
    [ "${#TMP_PATHS[@]}" -eq 0 ] || rm -rf "${TMP_PATHS[@]}"
    if [ "$POLICY_CREATED" = 1 ]; then rm -f /usr/sbin/policy-rc.d; fi
}

# fetch_debs WHAT PKG/SUITE...: download the .debs of PKGs from SUITEs of the
# machine's own Debian mirror into FETCH_DIR/debs (fetch_lists, then apt_download).
fetch_debs() {
    local what=$1
    shift
    local p s suites=()
    for p in "$@"; do
        case "$p" in
        */*) ;;
        *) die "fetch_debs: '$p' is not PKG/SUITE" ;;
        esac
        s=${p##*/}
        case " ${suites[*]} " in
        *" $s "*) ;;
        *) suites+=("$s") ;;
        esac
    done
    fetch_lists "$what" "${suites[@]}"
    apt_download "$what" "$@"
}

# fetch_lists WHAT SUITE...: an apt state (sources, lists, cache) of its own in
# FETCH_DIR with the package lists of SUITEs of the machine's own Debian mirror: the
# system's apt sources and lists are left alone.  FETCH_DIR is a fresh temp dir,
# removed on exit; FETCH_LISTS is its lists directory.  WHAT is the command, for the log.
FETCH_DIR=""
FETCH_LISTS=""
FETCH_APT_OPTS=()
fetch_lists() {
    local what=$1
    shift
    local mirror arch tmp s
    mirror=$(debian_mirror) || die "no Debian mirror for this release found in /etc/apt/sources.list{,.d}"
    arch=$(dpkg --print-architecture)
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocm-bake-apt.XXXXXX")
    TMP_PATHS+=("$tmp")
    trap cleanup_install EXIT
    FETCH_DIR=$tmp
    FETCH_LISTS=$tmp/lists
    chmod 755 "$tmp"
    mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/debs"
    for s in "$@"; do
        printf 'deb [arch=%s] %s %s main\n' "$arch" "$mirror" "$s"
    done >"$tmp/sources.list"
    FETCH_APT_OPTS=(-o "Dir::Etc::sourcelist=$tmp/sources.list" -o Dir::Etc::sourceparts=/dev/null
        -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache"
        -o Acquire::Languages=none -o Acquire::GzipIndexes=false -o APT::Sandbox::User=root)
    log "$what: fetching $* package lists from $mirror"
    apt-get "${FETCH_APT_OPTS[@]}" update -qq >&2 || die "apt-get update for $* failed"
}

# suite_packages SUITE: the Packages list of SUITE's main component that fetch_lists fetched.
suite_packages() {
    local f
    f=$(find "$FETCH_LISTS" -maxdepth 1 -name "*_dists_${1}_main_binary-*_Packages" | head -n1)
    [ -n "$f" ] || die "no $1 Packages list in $FETCH_LISTS"
    printf '%s\n' "$f"
}

# apt_download WHAT PKG[=VERSION][/SUITE]...: apt-get download into FETCH_DIR/debs with
# the state of fetch_lists (apt checks each file against the signed lists).
apt_download() {
    local what=$1
    shift
    log "$what: downloading $*"
    (cd "$FETCH_DIR/debs" && apt-get "${FETCH_APT_OPTS[@]}" download -qq "$@" >&2) ||
        die "apt-get download $* failed"
}

# ---------------------------------------------------------------- pinned .debs
# A lock file pins every .deb of a rootfs by content: one .deb a line,
#   ROLE SHA256 SIZE POOL_PATH
# ROLE is "install" (installed by mmdebstrap) or "unpack" (dpkg-deb -x'd by a hook);
# POOL_PATH is the .deb's path under the Debian mirror (as apt prints it).  Lines
# starting with '#' are comments.  Nothing is resolved against the live archive when a
# rootfs is built: the same lock gives the same .debs on any machine.

# The .debs of a lock are kept by content in ROOTFS_DIR/debs/SHA256.deb.
locked_deb() { printf '%s/debs/%s.deb\n' "${ROOTFS_CACHE_DIR%/}" "$1"; }

# lock_lines LOCK [ROLE]: the lock's .deb lines (of one ROLE, or all).
lock_lines() {
    [ -f "$1" ] || die "no lock file $1"
    awk -v role="${2:-}" '!/^[ \t]*(#|$)/ && (role == "" || $1 == role)' "$1"
}

# fetch_locked WHAT LOCK: every .deb of LOCK in ROOTFS_DIR/debs, checked against its
# sha256; a missing one is downloaded from the machine's Debian mirror by its pool path
# (the only network use) and kept only if its sha256 is the lock's.
fetch_locked() {
    local what=$1 lock=$2 role sha path deb mirror="" tmp code n=0 got=0
    mkdir -p "${ROOTFS_CACHE_DIR%/}/debs" || die "cannot create ${ROOTFS_CACHE_DIR%/}/debs"
    while read -r role sha _ path; do
        [[ "$sha" =~ ^[0-9a-f]{64}$ ]] || die "$lock: '$role $sha ...' has no sha256"
        n=$((n + 1))
        deb=$(locked_deb "$sha")
        if [ -f "$deb" ] && [ "$(sha256sum <"$deb" | cut -d' ' -f1)" = "$sha" ]; then continue; fi
        if [ -z "$mirror" ]; then
            mirror=$(debian_mirror) || die "no Debian mirror found in /etc/apt/sources.list{,.d}"
        fi
        tmp=$(mktemp "$deb.XXXXXX")
        TMP_PATHS+=("$tmp")
        trap cleanup_install EXIT
        code=$(curl -sSL --retry 3 -o "$tmp" -w '%{http_code}' "$mirror/$path") ||
            die "$what: cannot download $mirror/$path (run this outside a network namespace)"
        case "$code" in
        200) ;;
        404 | 410) die "$what: the mirror no longer has $path (pinned in $lock; Debian drops superseded versions): ${RELOCK_HINT:-re-lock}" ;;
        *) die "$what: $mirror/$path: HTTP $code" ;;
        esac
        [ "$(sha256sum <"$tmp" | cut -d' ' -f1)" = "$sha" ] ||
            die "$what: $mirror/$path does not have the sha256 of $lock ($sha): the archive changed; ${RELOCK_HINT:-re-lock}"
        mv -f "$tmp" "$deb"
        got=$((got + 1))
    done < <(lock_lines "$lock")
    [ "$n" -gt 0 ] || die "$lock pins no .debs"
    log "$what: $n .debs of ${lock##*/} verified by sha256 ($got downloaded)"
}

# local_repo LOCK DIR SUITE: a flat apt repository in DIR holding exactly the lock's
# "install" .debs (hard links into ROOTFS_DIR/debs), its Release saying it is SUITE (so
# mmdebstrap's essential and required sets, which it selects by suite, come from it).
# Prints the package names, comma-separated.
local_repo() {
    local lock=$1 dir=$2 suite=$3 role sha rest deb
    mkdir -p "$dir"
    while read -r role sha rest; do
        deb=$(locked_deb "$sha")
        ln -f "$deb" "$dir/$sha.deb" 2>/dev/null || cp -f "$deb" "$dir/$sha.deb"
    done < <(lock_lines "$lock" install)
    (cd "$dir" && dpkg-scanpackages --multiversion . /dev/null >Packages 2>/dev/null) ||
        die "dpkg-scanpackages failed in $dir"
    {
        printf 'Origin: rocm-bake\nLabel: pinned\nSuite: %s\nCodename: %s\n' "$suite" "$suite"
        printf 'Architectures: %s all\nSHA256:\n' "$(dpkg --print-architecture)"
        printf ' %s %s Packages\n' "$(sha256sum <"$dir/Packages" | cut -d' ' -f1)" "$(stat -c %s "$dir/Packages")"
    } >"$dir/Release"
    awk '/^Package: /{print $2}' "$dir/Packages" | sort -u | paste -sd, -
}

# lock_from_uris ROLE: apt-get --print-uris lines on stdin -> lock lines of ROLE.
lock_from_uris() {
    local role=$1 mirror=$2
    awk -v role="$role" -v mirror="$mirror/" -v q="'" '
        substr($0, 1, 1) == q {
            uri = $1; gsub(q, "", uri)
            if (index(uri, mirror) != 1) { print "not under the mirror: " uri > "/dev/stderr"; exit 1 }
            sha = $4; sub(/^SHA256:/, "", sha)
            if (sha !~ /^[0-9a-f]+$/ || length(sha) != 64) { print "no SHA256 for " uri > "/dev/stderr"; exit 1 }
            print role, sha, $3, substr(uri, length(mirror) + 1)
        }'
}

# ---------------------------------------------------------------- the two engines

# deb_of POOL_PATH: "PKG=VERSION" of a .deb's pool file name (pkg_version_arch.deb, the
# version URL-encoded as apt prints it).
deb_of() {
    local f=${1##*/}
    f=${f%_*}
    f=${f//%2b/+}
    f=${f//%2B/+}
    f=${f//%3a/:}
    f=${f//%3A/:}
    f=${f//%7e/\~}
    f=${f//%7E/\~}
    printf '%s=%s\n' "${f%%_*}" "${f#*_}"
}

# upstream_of DEBIAN_VERSION: the upstream version (28.5.2+dfsg4-5 -> 28.5.2).
upstream_of() {
    local v=${1#*:}
    printf '%s\n' "${v%%[+~-]*}"
}

# lock_deb PKG: "PKG=VERSION" of the lock's .deb of PKG (die if it pins none).
lock_deb() {
    local path d
    [ -f "$ENGINE_LOCK" ] || die "no lock file $ENGINE_LOCK (the current engine's .debs: '$PROG lock' writes it)"
    while read -r _ _ _ path; do
        d=$(deb_of "$path")
        [ "${d%%=*}" != "$1" ] || {
            printf '%s\n' "$d"
            return 0
        }
    done < <(lock_lines "$ENGINE_LOCK" unpack)
    die "$ENGINE_LOCK pins no $1 .deb: re-lock ('$PROG lock')"
}

# The current engine's Docker version (the lock's docker.io) and where it is unpacked.
current_version() {
    local d
    d=$(lock_deb docker.io) || exit 2
    upstream_of "${d#*=}"
}
current_prefix() {
    local v
    v=$(current_version) || exit 2
    printf '%s/docker-%s\n' "${ENGINE_ROOT%/}" "$v"
}

# The version a dockerd binary says it is ("" if it does not run).
dockerd_version() {
    "$1" --version 2>/dev/null | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n1 || true
}

# current_ok PREFIX: PREFIX holds the lock's engine: unpacked from exactly the lock's .debs,
# and its dockerd and containerd run (here: with this machine's glibc) as the lock's versions.
current_ok() {
    local prefix=$1 d
    [ -x "$prefix/usr/sbin/dockerd" ] && [ -x "$prefix/usr/bin/containerd" ] || return 1
    cmp -s <(lock_lines "$ENGINE_LOCK") <(lock_lines "$prefix/engine.lock" 2>/dev/null) || return 1
    [ "$(dockerd_version "$prefix/usr/sbin/dockerd")" = "$(current_version)" ] || return 1
    d=$(lock_deb containerd) || return 1
    "$prefix/usr/bin/containerd" --version 2>/dev/null | grep -qF " $(upstream_of "${d#*=}")" || return 1
}

# install_current: the lock's .debs (fetched and checked by sha256) unpacked into a fresh
# directory beside the prefix, checked, then renamed to it: never a half engine.
install_current() {
    local prefix version sha path tmp
    version=$(current_version) || exit 2
    prefix=$(current_prefix) || exit 2
    if current_ok "$prefix"; then
        log "install: Docker $version (the current engine) already in $prefix"
        return 0
    fi
    command -v dpkg-deb >/dev/null 2>&1 || die "dpkg-deb not found"
    RELOCK_HINT="re-lock: scripts/$PROG lock" fetch_locked install "$ENGINE_LOCK"
    mkdir -p "${ENGINE_ROOT%/}" || die "cannot create $ENGINE_ROOT"
    tmp=$(mktemp -d "$prefix.XXXXXX")
    TMP_PATHS+=("$tmp")
    trap cleanup_install EXIT
    while read -r _ sha _ path; do
        dpkg-deb -x "$(locked_deb "$sha")" "$tmp" || die "dpkg-deb -x ${path##*/} failed"
    done < <(lock_lines "$ENGINE_LOCK" unpack)
    lock_lines "$ENGINE_LOCK" >"$tmp/engine.lock"
    chmod 755 "$tmp"
    current_ok "$tmp" ||
        die "install: the .debs of $ENGINE_LOCK do not give a dockerd $version and containerd that run here (glibc $(ldd --version 2>/dev/null | grep -oE '[0-9]+\.[0-9]+$' | head -n1)): re-lock ('$PROG lock')"
    rm -rf "$prefix"
    mv "$tmp" "$prefix"
    log "install: Docker $version (the current engine: $(lock_deb docker.io) $(lock_deb containerd)) in $prefix"
}

# The engine 'start' runs: sets DOCKERD (its binary), DOCKERD_PATH (the PATH it runs with: the
# current engine's containerd and shim first, the machine's runc after) and ENGINE_VERSION, or
# says why not (exit 2 by die; which_engine's caller decides).
ENGINE_WHY=""
select_engine() {
    local prefix have
    ENGINE_WHY=""
    case "$ENGINE_RELEASE" in
    current)
        ENGINE_VERSION=$(current_version) || exit 2
        prefix=$(current_prefix) || exit 2
        DOCKERD=$prefix/usr/sbin/dockerd
        DOCKERD_PATH=$prefix/usr/bin:$prefix/usr/sbin:$PATH
        if [ ! -x "$DOCKERD" ]; then
            ENGINE_WHY="Docker $ENGINE_VERSION (the current engine) is not installed in $prefix; run '$PROG install' (or ROCM_BAKE_ENGINE_RELEASE=floor)"
            return 1
        fi
        ;;
    floor)
        ENGINE_VERSION=$FLOOR_VERSION
        DOCKERD=$(command -v dockerd 2>/dev/null) || {
            ENGINE_WHY="dockerd (the floor engine, Docker $FLOOR_VERSION) not installed; run '$PROG install'"
            return 1
        }
        DOCKERD_PATH=$PATH
        ;;
    *) die "ROCM_BAKE_ENGINE_RELEASE must be 'current' or 'floor', got '$ENGINE_RELEASE'" ;;
    esac
    have=$(dockerd_version "$DOCKERD")
    if [ "$have" != "$ENGINE_VERSION" ]; then
        ENGINE_WHY="$DOCKERD is Docker ${have:-(does not run)}, not $ENGINE_VERSION (the $ENGINE_RELEASE engine); run '$PROG install'"
        return 1
    fi
    PATH=$DOCKERD_PATH command -v runc >/dev/null 2>&1 || {
        ENGINE_WHY="no runc on PATH (the engine runs the machine's); run '$PROG install'"
        return 1
    }
}

cmd_which() {
    select_engine || {
        log "which: $ENGINE_WHY"
        exit 1
    }
    printf '%s %s %s\n' "$ENGINE_RELEASE" "$ENGINE_VERSION" "$DOCKERD"
}

# newest_here PKG PACKAGES_FILE...: "VERSION" of the newest PKG in the lists whose libc6
# need (Depends: libc6 (>= X)) the machine's glibc meets.
newest_here() {
    local pkg=$1 glibc best="" v need
    shift
    glibc=$(dpkg-query -W -f='${Version}' libc6 2>/dev/null) || die "cannot read the version of libc6"
    while read -r v need; do
        [ -z "$need" ] || dpkg --compare-versions "$glibc" ge "$need" || continue
        [ -n "$best" ] && dpkg --compare-versions "$best" ge "$v" || best=$v
    done < <(awk -v want="$pkg" '
        /^Package: / { p = $2; v = ""; need = "" }
        /^Version: / { v = $2 }
        /^Depends: / && match($0, /libc6 \(>= [^)]+\)/) { need = substr($0, RSTART + 10, RLENGTH - 11) }
        /^$/ { if (p == want && v != "") print v, need; p = "" }
        END { if (p == want && v != "") print v, need }' "$@")
    [ -n "$best" ] || die "lock: no $pkg in Debian ${ENGINE_SUITES[*]} that runs with glibc $glibc"
    printf '%s\n' "$best"
}

# Resolve ENGINE_LOCK against the archive today.
cmd_lock() {
    local mirror s f lists=() pkg v want=() new
    mirror=$(debian_mirror) || die "no Debian mirror found in /etc/apt/sources.list{,.d}"
    fetch_lists lock "${ENGINE_SUITES[@]}"
    for s in "${ENGINE_SUITES[@]}"; do
        f=$(suite_packages "$s") || exit 2
        lists+=("$f")
    done
    for pkg in "${ENGINE_DEBS[@]}"; do
        v=$(newest_here "$pkg" "${lists[@]}") || exit 2
        want+=("$pkg=$v")
    done
    log "lock: ${want[*]}"
    new=$(mktemp "$ENGINE_LOCK.XXXXXX")
    TMP_PATHS+=("$new")
    {
        printf '# The current engine of scripts/engine.sh (unpacked into ENGINE_ROOT/docker-VERSION),\n'
        printf '# pinned by content: ROLE SHA256 SIZE POOL_PATH (under the Debian mirror).  Written by\n'
        printf "# 'scripts/engine.sh lock' (the newest %s of Debian %s that run here); do not edit.\n" "${ENGINE_DEBS[*]}" "${ENGINE_SUITES[*]}"
        apt-get "${FETCH_APT_OPTS[@]}" --print-uris download "${want[@]}" | lock_from_uris unpack "$mirror" | sort -k4
    } >"$new" || die "lock: apt-get --print-uris failed"
    [ "$(lock_lines "$new" unpack | wc -l)" -eq "${#ENGINE_DEBS[@]}" ] || die "lock: apt did not print every .deb"
    mv -f "$new" "$ENGINE_LOCK"
    log "lock: $ENGINE_LOCK: ${want[*]}"
}

cmd_install() {
    need_root install
    install_current
    install_packages
    # Also the old buildx for the version-gate tests (CI runs only 'install').
    cmd_old_buildx >/dev/null
}

install_packages() {
    local want_engine=0 want_buildx=0 want_cli=0 want=()
    # The machine usually has a newer docker client (/usr/local/bin/docker);
    # trixie's docker-cli is only a fallback.
    command -v docker >/dev/null 2>&1 || want_cli=1
    command -v dockerd >/dev/null 2>&1 && command -v containerd >/dev/null 2>&1 || want_engine=1
    buildx_ok || want_buildx=1
    command -v docker-registry >/dev/null 2>&1 || want+=(docker-registry)
    # The current engine runs the machine's runc, and its dockerd links libsystemd.
    command -v runc >/dev/null 2>&1 || want+=(runc)
    pkg_installed libsystemd0 || want+=(libsystemd0)
    command -v skopeo >/dev/null 2>&1 || want+=(skopeo)
    pkg_installed busybox-static || want+=(busybox-static)
    command -v mmdebstrap >/dev/null 2>&1 || want+=(mmdebstrap)
    command -v curl >/dev/null 2>&1 || want+=(curl)
    if [ "$want_engine$want_buildx$want_cli" = 000 ] && [ "${#want[@]}" -eq 0 ]; then
        log "install: everything is already installed (buildx $(buildx_version))"
        return 0
    fi

    export DEBIAN_FRONTEND=noninteractive
    log "install: apt-get update"
    apt-get update -qq >&2 || die "apt-get update failed"

    local debs=()
    trap cleanup_install EXIT

    if [ "$want_engine$want_buildx$want_cli" != 000 ]; then
        local pkgs=() d
        [ "$want_engine" = 1 ] && pkgs+=("docker.io/$FLOOR_SUITE" "containerd/$FLOOR_SUITE")
        [ "$want_buildx" = 1 ] && pkgs+=(docker-buildx/forky)
        [ "$want_cli" = 1 ] && pkgs+=(docker-cli/trixie)
        fetch_debs install "${pkgs[@]}"
        for d in "$FETCH_DIR"/debs/*.deb; do debs+=("$d"); done
    fi

    log "install: apt-get install ${debs[*]##*/} ${want[*]}"
    apt_install_held "${debs[@]}" "${want[@]}"

    command -v dockerd >/dev/null 2>&1 || die "dockerd missing after install"
    buildx_ok || die "docker buildx >= $MIN_BUILDX missing after install (found '$(buildx_version)')"
    command -v docker-registry >/dev/null 2>&1 || die "docker-registry missing after install"
    command -v skopeo >/dev/null 2>&1 || die "skopeo missing after install"
    log "install: done (the floor: dockerd $(dockerd_version "$(command -v dockerd)"), buildx $(buildx_version))"
}

# The units enabled now, one name a line: the links in /etc/systemd/system's
# *.wants and *.requires dirs (what 'systemctl enable' and deb-systemd-helper
# make; read the same whether systemd runs or not).
enabled_units() {
    find /etc/systemd/system -mindepth 2 -maxdepth 2 -type l \
        \( -path '*.wants/*' -o -path '*.requires/*' \) -printf '%f\n' 2>/dev/null | sort -u
}

# apt_install_held PKG|DEB...: apt-get install, no service started (policy-rc.d,
# exit 101, for the install only; an existing one is left alone) and every unit
# the install enabled (docker.service, docker.socket, containerd,
# docker-registry, nginx...) disabled afterwards: deb-systemd-helper records it,
# so upgrades keep it off, and systemctl disable works without a running
# systemd.  Units enabled before the install stay as they were.
apt_install_held() {
    local before after u
    before=$(enabled_units)
    trap cleanup_install EXIT
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\n# rocm-bake engine.sh: no service starts during the install\nexit 101\n' \
            >/usr/sbin/policy-rc.d
        chmod 755 /usr/sbin/policy-rc.d
        POLICY_CREATED=1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 "$@" >&2 ||
        die "apt-get install failed"
    if [ "$POLICY_CREATED" = 1 ]; then
        rm -f /usr/sbin/policy-rc.d
        POLICY_CREATED=0
    fi
    after=$(comm -13 <(printf '%s\n' "$before") <(enabled_units))
    for u in $after; do
        log "install: disabling $u (the engine is started by '$PROG start' only)"
        if command -v deb-systemd-helper >/dev/null 2>&1; then
            deb-systemd-helper disable "$u" >/dev/null 2>&1 || true
        fi
        if command -v systemctl >/dev/null 2>&1; then
            systemctl disable --quiet "$u" >/dev/null 2>&1 || true
        fi
        ! enabled_units | grep -qxF "$u" || die "could not disable $u"
    done
    return 0
}

cmd_apt_install() {
    need_root apt-install
    [ "$#" -ge 1 ] || die "apt-install needs at least one package or .deb"
    apt_install_held "$@"
}

# ---------------------------------------------------------------- clean

cmd_clean() {
    set_run_dir "${1:-}"
    cmd_stop "$RUN_DIR"
    local p removed=()
    if [ -d "$RUN_DIR" ]; then
        unmount_leftover
        awk -v d="$RUN_DIR/" 'index($2, d) == 1 { f = 1 } END { exit !f }' /proc/mounts &&
            die "clean: mounts remain under $RUN_DIR; not removing it"
        rm -rf "$RUN_DIR"
        removed+=("$RUN_DIR")
    fi
    for p in "${ROOTFS_CACHE_DIR%/}"/rootfs-debian-*.tar "${OLD_BUILDX_DIR%/}" \
        /tmp/rocm-bake-apt.* /tmp/rocm-bake-busybox.*; do
        [ -e "$p" ] || continue
        rm -rf "$p"
        removed+=("$p")
    done
    log "clean: removed ${removed[*]:-nothing}"
}

# ---------------------------------------------------------------- old buildx

# Version a buildx plugin binary prints when run on its own ("" if it fails).
plugin_version() {
    "$1" version 2>/dev/null | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n1 || true
}

# FILE is an executable buildx plugin that runs and is older than MIN_BUILDX.
old_buildx_ok() {
    local v
    [ -f "$1" ] && [ -x "$1" ] || return 1
    v=$(plugin_version "$1")
    [ -n "$v" ] && dpkg --compare-versions "$v" lt "$MIN_BUILDX"
}

# runs_buildx FILE: FILE is an executable buildx plugin that runs.
runs_buildx() {
    [ -f "$1" ] && [ -x "$1" ] && [ -n "$(plugin_version "$1")" ]
}

# put_buildx WHAT SUITE DIR CHECK WANTED VARIABLE: Debian SUITE's docker-buildx into
# DIR/cli-plugins/docker-buildx (DIR absolute), copied beside it, checked by the function
# CHECK (WANTED says what it wants), then renamed into place: never a half file.  VARIABLE
# names DIR's setting.
put_buildx() {
    local what=$1 suite=$2 dir=$3 check=$4 wanted=$5 variable=$6
    command -v dpkg-deb >/dev/null 2>&1 || die "dpkg-deb not found"
    if ! mkdir -p "$dir/cli-plugins" 2>/dev/null || [ ! -w "$dir/cli-plugins" ]; then
        die "cannot write $dir/cli-plugins (run as root or set $variable)"
    fi
    fetch_debs "$what" "docker-buildx/$suite"
    local debs deb src new
    debs=("$FETCH_DIR"/debs/docker-buildx_*.deb)
    deb=${debs[0]}
    [ -f "$deb" ] || die "$what: no docker-buildx .deb downloaded"
    dpkg-deb -x "$deb" "$FETCH_DIR/x" || die "dpkg-deb -x ${deb##*/} failed"
    src=$(find "$FETCH_DIR/x" -path '*/cli-plugins/docker-buildx' -type f | head -n1)
    [ -n "$src" ] || die "$what: no cli-plugins/docker-buildx in ${deb##*/}"
    new=$(mktemp "$dir/cli-plugins/.docker-buildx.XXXXXX")
    TMP_PATHS+=("$new")
    cp "$src" "$new"
    chmod 755 "$new"
    "$check" "$new" ||
        die "$what: ${deb##*/} gives buildx '$(plugin_version "$new")', want $wanted"
    mv -f "$new" "$dir/cli-plugins/docker-buildx"
    log "$what: buildx $(plugin_version "$dir/cli-plugins/docker-buildx") (${deb##*/}, Debian $suite) in $dir/cli-plugins"
}

absolute() {
    case "$1" in
    /*) printf '%s\n' "${1%/}" ;;
    *) printf '%s\n' "$PWD/${1%/}" ;;
    esac
}

cmd_old_buildx() {
    local dir
    dir=$(absolute "$OLD_BUILDX_DIR")
    if old_buildx_ok "$dir/cli-plugins/docker-buildx"; then
        log "old-buildx: buildx $(plugin_version "$dir/cli-plugins/docker-buildx") already in $dir/cli-plugins"
    else
        put_buildx old-buildx trixie "$dir" old_buildx_ok "one that runs and is < $MIN_BUILDX" \
            ROCM_BAKE_OLD_BUILDX_DIR
    fi
    printf '%s\n' "$dir"
}

# newest-buildx: the docker-buildx of Debian's newest suite in NEWEST_DIR/cli-plugins,
# fetched anew each time (the newest changes).
cmd_newest_buildx() {
    local dir
    dir=$(absolute "$NEWEST_BUILDX_DIR")
    put_buildx newest-buildx "$NEWEST_SUITE" "$dir" runs_buildx "one that runs" \
        ROCM_BAKE_NEWEST_BUILDX_DIR
    printf '%s\n' "$dir"
}

# ---------------------------------------------------------------- start/stop

set_run_dir() {
    RUN_DIR=${1:-$DEFAULT_RUN_DIR}
    case "$RUN_DIR" in
    /*) ;;
    *) RUN_DIR=$PWD/$RUN_DIR ;;
    esac
    RUN_DIR=${RUN_DIR%/}
    SOCK=$RUN_DIR/docker.sock
    # unix socket paths are limited to 108 bytes
    [ "${#SOCK}" -lt 100 ] || die "RUN_DIR too long for a unix socket: $RUN_DIR"
    case "$PORT" in
    '' | *[!0-9]*) die "ROCM_BAKE_REGISTRY_PORT must be a number, got '$PORT'" ;;
    esac
    case "$TIMEOUT" in
    '' | *[!0-9]*) die "ROCM_BAKE_ENGINE_TIMEOUT must be a number, got '$TIMEOUT'" ;;
    esac
    if [ -n "$CPUS" ]; then
        [[ "$CPUS" =~ ^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$ ]] ||
            die "ROCM_BAKE_ENGINE_CPUS must be a CPU list such as 0 or 0,2-3, got '$CPUS'"
        local allowed
        allowed=$(cpu_set "$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status)")
        local cpu
        for cpu in $(cpu_set "$CPUS"); do
            [[ " $allowed " == *" $cpu "* ]] ||
                die "ROCM_BAKE_ENGINE_CPUS: CPU $cpu is not one this machine lets us use ($allowed)"
        done
    fi
}

# The CPUs of a list such as 0,2-3, one per word, sorted: "0 2 3".
cpu_set() {
    local item out=()
    local IFS=,
    for item in $1; do
        if [[ "$item" == *-* ]]; then
            out+=($(seq "${item%-*}" "${item#*-}"))
        else
            out+=("$item")
        fi
    done
    printf '%s\n' "${out[@]}" | sort -nu | tr '\n' ' ' | sed 's/ $//'
}

# A running dockerd must already be on ROCM_BAKE_ENGINE_CPUS (when set).
check_cpus() {
    local pid=$1 now
    [ -n "$CPUS" ] || return 0
    now=$(cpu_set "$(awk '/^Cpus_allowed_list:/ {print $2}' "/proc/$pid/status")")
    [ "$now" = "$(cpu_set "$CPUS")" ] ||
        die "dockerd (pid $pid) runs on CPUs $now, not ROCM_BAKE_ENGINE_CPUS=$CPUS; run '$PROG stop $RUN_DIR' first"
}

# pid from FILE if that process is alive and its command line matches WORD.
live_pid() {
    local file=$1 word=$2 pid
    [ -f "$file" ] || return 1
    pid=$(tr -dc '0-9' <"$file")
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$word" || return 1
    printf '%s\n' "$pid"
}

docker_up() { DOCKER_HOST=unix://$SOCK docker info >/dev/null 2>&1; }
registry_up() { curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/v2/" 2>/dev/null; }

LAUNCHED=()

# Print the tail of a log, stop what this call launched, exit 2.
fail_with_log() {
    local what=$1 logf=$2
    log "$what; last lines of $logf:"
    tail -n 30 "$logf" >&2 2>/dev/null || true
    local l
    for l in "${LAUNCHED[@]}"; do
        case "$l" in
        registry) stop_pid registry "$RUN_DIR/registry.pid" docker-registry 10 ;;
        dockerd)
            stop_pid dockerd "$RUN_DIR/docker.pid" dockerd 30
            stop_pid dockerd "$RUN_DIR/dockerd.launch.pid" dockerd 30
            ;;
        esac
    done
    exit 2
}

launch_dockerd() {
    local mirrors=""
    if [ -n "${ROCM_BAKE_REGISTRY_MIRROR:-}" ]; then
        case "$ROCM_BAKE_REGISTRY_MIRROR" in
        http://* | https://*) ;;
        *) die "ROCM_BAKE_REGISTRY_MIRROR must be an http(s):// URL" ;;
        esac
        mirrors=$(printf ',\n  "registry-mirrors": ["%s"]' "$ROCM_BAKE_REGISTRY_MIRROR")
    fi
    cat >"$RUN_DIR/daemon.json" <<EOF
{
  "features": {"containerd-snapshotter": true},
  "insecure-registries": ["127.0.0.1:$PORT"]$mirrors
}
EOF
    unmount_leftover
    # Each release keeps a data root of its own: an image store is its engine's encoding of
    # what it built (a layer's gzip blob is reused by every later export of that layer), so a
    # store one engine filled would make the other's images carry its blobs; and containerd
    # 2.x migrates a 1.x metadata store it opens.
    remove_shared_root
    mkdir -p "$RUN_DIR/root-$ENGINE_RELEASE" "$RUN_DIR/exec"
    rm -f "$RUN_DIR/docker.pid"
    log "start: Docker $ENGINE_VERSION (the $ENGINE_RELEASE engine, $DOCKERD) on $SOCK (log $RUN_DIR/dockerd.log)"
    # setsid: own session, so the caller's job control and terminal don't
    # reach it; all output to the log so "$(engine.sh start)" returns.
    # ROCM_BAKE_ENGINE_TLS_DIR + ROCM_BAKE_ENGINE_TCP_PORT: also listen on
    # tcp://127.0.0.1:PORT with mutual TLS (ca.pem, server-cert.pem, server-key.pem).
    local tcp=()
    if [ -n "${ROCM_BAKE_ENGINE_TLS_DIR:-}" ]; then
        local tls=$ROCM_BAKE_ENGINE_TLS_DIR
        [ -n "${ROCM_BAKE_ENGINE_TCP_PORT:-}" ] || die "ROCM_BAKE_ENGINE_TLS_DIR needs ROCM_BAKE_ENGINE_TCP_PORT"
        tcp=(--host "tcp://127.0.0.1:$ROCM_BAKE_ENGINE_TCP_PORT" --tlsverify
             --tlscacert "$tls/ca.pem" --tlscert "$tls/server-cert.pem" --tlskey "$tls/server-key.pem")
        log "start: dockerd also on tcp://127.0.0.1:$ROCM_BAKE_ENGINE_TCP_PORT (mutual TLS)"
    fi
    local pin=()
    if [ -n "$CPUS" ]; then
        command -v taskset >/dev/null 2>&1 || die "ROCM_BAKE_ENGINE_CPUS needs taskset (util-linux)"
        pin=(taskset -c "$CPUS")
        log "start: dockerd and its builds on CPUs $CPUS"
    fi
    # The selected engine's dockerd (select_engine), with its PATH: the current engine's
    # containerd and shim, the machine's runc.
    setsid nohup env PATH="$DOCKERD_PATH" "${pin[@]}" "$DOCKERD" --config-file "$RUN_DIR/daemon.json" \
        --data-root "$RUN_DIR/root-$ENGINE_RELEASE" --exec-root "$RUN_DIR/exec" \
        --host "unix://$SOCK" "${tcp[@]}" --pidfile "$RUN_DIR/docker.pid" \
        --bridge=none --iptables=false --ip-forward=false --ip-masq=false \
        </dev/null >>"$RUN_DIR/dockerd.log" 2>&1 &
    echo $! >"$RUN_DIR/dockerd.launch.pid"
    LAUNCHED+=(dockerd)
}

launch_registry() {
    mkdir -p "$RUN_DIR/registry"
    cat >"$RUN_DIR/registry.yml" <<EOF
version: 0.1
log:
  level: info
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: $RUN_DIR/registry
  delete:
    enabled: true
http:
  addr: 127.0.0.1:$PORT
EOF
    log "start: registry on 127.0.0.1:$PORT (log $RUN_DIR/registry.log)"
    setsid nohup docker-registry serve "$RUN_DIR/registry.yml" \
        </dev/null >>"$RUN_DIR/registry.log" 2>&1 &
    echo $! >"$RUN_DIR/registry.pid"
    LAUNCHED+=(registry)
}

cmd_start() {
    set_run_dir "${1:-}"
    command -v curl >/dev/null 2>&1 || die "curl not installed; run '$PROG install'"
    command -v docker >/dev/null 2>&1 || die "docker client not installed; run '$PROG install'"
    mkdir -p "$RUN_DIR"

    # Decide everything before launching anything.
    local need_d=1 need_r=1
    if live_pid "$RUN_DIR/docker.pid" dockerd >/dev/null; then
        docker_up || die "dockerd (pid $(cat "$RUN_DIR/docker.pid")) runs but $SOCK does not answer; run '$PROG stop $RUN_DIR'"
        check_cpus "$(live_pid "$RUN_DIR/docker.pid" dockerd)"
        check_running_engine
        log "start: Docker $ENGINE_VERSION (the $ENGINE_RELEASE engine) already running on $SOCK"
        need_d=0
    elif docker_up; then
        die "$SOCK answers but no dockerd pid file in $RUN_DIR; stop that daemon first"
    else
        select_engine || die "$ENGINE_WHY"
    fi
    case "$REGISTRY_MODE" in
    local | none) ;;
    *) die "ROCM_BAKE_REGISTRY must be 'local' or 'none', got '$REGISTRY_MODE'" ;;
    esac
    if [ "$REGISTRY_MODE" = none ]; then
        need_r=0
    elif live_pid "$RUN_DIR/registry.pid" docker-registry >/dev/null; then
        registry_up || die "registry (pid $(cat "$RUN_DIR/registry.pid")) runs but 127.0.0.1:$PORT does not answer; run '$PROG stop $RUN_DIR'"
        log "start: registry already running on 127.0.0.1:$PORT"
        need_r=0
    elif registry_up; then
        die "127.0.0.1:$PORT already answers, not from a registry started in $RUN_DIR; set ROCM_BAKE_REGISTRY_PORT"
    else
        command -v docker-registry >/dev/null 2>&1 || die "docker-registry not installed; run '$PROG install'"
    fi
    [ "$need_d" = 0 ] || launch_dockerd
    [ "$need_r" = 0 ] || launch_registry

    local t0=$SECONDS d_ok=$((1 - need_d)) r_ok=$((1 - need_r))
    while [ "$d_ok" = 0 ] || [ "$r_ok" = 0 ]; do
        if [ "$d_ok" = 0 ]; then
            if docker_up; then
                d_ok=1
            elif ! live_pid "$RUN_DIR/dockerd.launch.pid" dockerd >/dev/null; then
                fail_with_log "dockerd exited" "$RUN_DIR/dockerd.log"
            fi
        fi
        if [ "$r_ok" = 0 ]; then
            if registry_up; then
                r_ok=1
            elif ! live_pid "$RUN_DIR/registry.pid" docker-registry >/dev/null; then
                fail_with_log "registry exited" "$RUN_DIR/registry.log"
            fi
        fi
        [ "$d_ok" = 0 ] || [ "$r_ok" = 0 ] || break
        if [ $((SECONDS - t0)) -ge "$TIMEOUT" ]; then
            [ "$d_ok" = 1 ] || fail_with_log "dockerd not ready after ${TIMEOUT}s" "$RUN_DIR/dockerd.log"
            fail_with_log "registry not ready after ${TIMEOUT}s" "$RUN_DIR/registry.log"
        fi
        sleep 0.5
    done
    [ "${#LAUNCHED[@]}" -eq 0 ] || log "start: ready after $((SECONDS - t0))s (${LAUNCHED[*]})"
    printf 'export DOCKER_HOST=unix://%s\n' "$SOCK"
}

# The dockerd running in RUN_DIR is the selected engine's version (the current engine's lock
# may have moved on, or the other engine runs there).
check_running_engine() {
    local have other=floor
    case "$ENGINE_RELEASE" in
    current) ENGINE_VERSION=$(current_version) || exit 2 ;;
    floor) ENGINE_VERSION=$FLOOR_VERSION other=current ;;
    *) die "ROCM_BAKE_ENGINE_RELEASE must be 'current' or 'floor', got '$ENGINE_RELEASE'" ;;
    esac
    have=$(DOCKER_HOST=unix://$SOCK docker version --format '{{.Server.Version}}' 2>/dev/null |
        grep -oE '^[0-9]+\.[0-9]+\.[0-9]+' || true)
    [ "$have" = "$ENGINE_VERSION" ] ||
        die "the dockerd running in $RUN_DIR is Docker ${have:-?}, not $ENGINE_VERSION (the $ENGINE_RELEASE engine): '$PROG stop $RUN_DIR' first, or ROCM_BAKE_ENGINE_RELEASE=$other"
}

# stop_pid NAME PIDFILE WORD GRACE
stop_pid() {
    local name=$1 file=$2 word=$3 grace=$4 pid i
    if ! pid=$(live_pid "$file" "$word"); then
        rm -f "$file"
        return 0
    fi
    log "stop: $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < grace * 10; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        log "stop: $name did not exit in ${grace}s, killing"
        kill -KILL "$pid" 2>/dev/null || true
        sleep 0.5
    fi
    rm -f "$file"
}

# dockerd bind-mounts its data root onto itself; a killed one leaves that
# mount behind (and a new dockerd would stack another on it).
unmount_leftover() {
    local i root
    for root in "$RUN_DIR/root" "$RUN_DIR"/root-*; do  # root: before the data root per release
        for ((i = 0; i < 5; i++)); do
            awk -v d="$root" '$2 == d { f = 1 } END { exit !f }' /proc/mounts || break
            log "unmounting leftover mount $root"
            # -R: a killed dockerd also leaves its build containers' mounts beneath it.
            umount -R "$root" || umount -R -l "$root" || {
                log "could not unmount $root"
                break
            }
        done
    done
}

# Before the data root per release, both releases shared RUN_DIR/root: no engine opens it any
# more, and it holds a whole store (tens of GB after the rehearsal), so start removes it.
remove_shared_root() {
    [ -d "$RUN_DIR/root" ] || return 0
    awk -v d="$RUN_DIR/root" '$2 == d || index($2, d "/") == 1 { f = 1 } END { exit !f }' \
        /proc/mounts && die "mounts remain under $RUN_DIR/root (the data root of before one per release)"
    log "start: removing $RUN_DIR/root, the data root both releases shared before each had its own"
    rm -rf "$RUN_DIR/root"
}

cmd_stop() {
    set_run_dir "${1:-}"
    stop_pid registry "$RUN_DIR/registry.pid" docker-registry 10
    stop_pid dockerd "$RUN_DIR/docker.pid" dockerd 30
    # The launch pid is dockerd itself when the daemon died before its pid file.
    stop_pid dockerd "$RUN_DIR/dockerd.launch.pid" dockerd 30
    # containerd outlives a killed dockerd; it is only ours if under RUN_DIR.
    stop_pid containerd "$RUN_DIR/exec/containerd/containerd.pid" containerd 10
    unmount_leftover
    log "stop: done ($RUN_DIR)"
}

# ---------------------------------------------------------------- base image

cmd_base_image() {
    set_run_dir "${1:-}"
    docker_up || die "engine not running at $SOCK; run '$PROG start $RUN_DIR'"
    export DOCKER_HOST=unix://$SOCK
    if docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
        log "base-image: $BASE_IMAGE already present"
        return 0
    fi
    local bb
    pkg_installed busybox-static || die "busybox-static not installed; run '$PROG install'"
    bb=$(dpkg-query -L busybox-static | grep -E '/bin/busybox$' | head -n1)
    [ -x "$bb" ] || die "static busybox binary not found (busybox-static)"
    local tmp
    tmp=$(mktemp -d /tmp/rocm-bake-busybox.XXXXXX)
    # shellcheck disable=SC2064  # expand tmp now
    trap "rm -rf '$tmp'" EXIT
    local root=$tmp/rootfs app up
    mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/usr/sbin" \
        "$root/etc" "$root/root" "$root/tmp" "$root/var/tmp"
    chmod 1777 "$root/tmp" "$root/var/tmp"
    cp "$bb" "$root/bin/busybox"
    # Like 'busybox --install -s', but with relative links so they resolve in
    # the image ('--install' links to the absolute path of this copy).
    while IFS= read -r app; do
        if [ -z "$app" ] || [ -e "$root/$app" ] || [ -L "$root/$app" ]; then continue; fi
        up=${app//[!\/]/}       # one "../" per directory level
        ln -s "${up//\//../}bin/busybox" "$root/$app"
    done < <("$root/bin/busybox" --list-full)
    printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$root/etc/passwd"
    printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
    log "base-image: importing $BASE_IMAGE"
    tar -C "$root" --numeric-owner --owner=0 --group=0 -cf - . |
        docker import --change 'CMD ["/bin/sh"]' \
            --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
            - "$BASE_IMAGE" >/dev/null || die "docker import of $BASE_IMAGE failed"
    docker run --rm --network=none "$BASE_IMAGE" /bin/sh -c 'echo ok' >/dev/null 2>&1 ||
        die "$BASE_IMAGE imported but cannot run /bin/sh"
    log "base-image: $BASE_IMAGE ready"
}

# ---------------------------------------------------------------- main

main() {
    [ "$#" -ge 1 ] || {
        usage >&2
        exit 2
    }
    local cmd=$1
    shift
    case "$cmd" in
    -h | --help | help) usage ;;
    install)
        [ "$#" -eq 0 ] || die "install takes no arguments"
        cmd_install
        ;;
    old-buildx)
        [ "$#" -eq 0 ] || die "old-buildx takes no arguments"
        cmd_old_buildx
        ;;
    newest-buildx)
        [ "$#" -eq 0 ] || die "newest-buildx takes no arguments"
        cmd_newest_buildx
        ;;
    apt-install) cmd_apt_install "$@" ;;
    which)
        [ "$#" -eq 0 ] || die "which takes no arguments"
        cmd_which
        ;;
    lock)
        [ "$#" -eq 0 ] || die "lock takes no arguments"
        cmd_lock
        ;;
    start | stop | running | base-image | clean)
        [ "$#" -le 1 ] || die "$cmd takes at most one argument (RUN_DIR)"
        case "$cmd" in
        start) cmd_start "$@" ;;
        running)
            set_run_dir "${1:-}"
            if live_pid "$RUN_DIR/docker.pid" dockerd >/dev/null; then exit 0; else exit 1; fi
            ;;
        stop) cmd_stop "$@" ;;
        base-image) cmd_base_image "$@" ;;
        clean) cmd_clean "$@" ;;
        esac
        ;;
    *) die "unknown command '$cmd' (try --help)" ;;
    esac
}

# Sourced (scripts/hip-toolchain.sh uses its helpers): define only, run nothing.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then main "$@"; fi
