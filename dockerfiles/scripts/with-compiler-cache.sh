#!/usr/bin/env bash
# with-compiler-cache.sh COMMAND [ARGS...]
#
# Run one build command with the compiler cache selected by CACHE_TYPE (sccache|ccache|none),
# the way TheRock's v2 design does it:
#   - host code: CMAKE_C/CXX/HIP_COMPILER_LAUNCHER=<tool>; COMPILER_LAUNCHER=<tool> for
#     autotools/meson steps that spell it themselves (CC="$COMPILER_LAUNCHER gcc");
#   - HIP code:  HIP_CLANG_LAUNCHER=<tool> when hipcc supports it (ROCm >= 7.13), else the
#                wrapper directory WRAPPERS/<tool>/bin as HIP_CLANG_PATH for this command only
#                (install-compiler-wrappers.sh; ROCm's clang is never replaced, and
#                HIP_CLANG_PATH never lands in the image's ENV).
#   - every other compile: CC/CXX (and CUDAHOSTCXX) name the host wrappers WRAPPERS/<tool>/host/
#     {cc,c++,gcc,g++} for setuptools, torch.utils.cpp_extension, make and CMake's compiler
#     detection (a CC/CXX the command chose itself, e.g. hipcc, is kept); USE_CCACHE=0 (PyTorch
#     would otherwise pick ccache by itself); a PATH without the cache tools not chosen (vLLM's
#     setup.py passes -DCMAKE_*_COMPILER_LAUNCHER=sccache whenever sccache is on PATH, else
#     ccache whenever ccache is): CACHE_TYPE=none compiles with no cache at all.
# The compiler a cache keys on is the compiler that runs (a later stage may switch /usr/bin/c++
# with update-alternatives, as torch.Dockerfile does, after the wrappers were written):
#   - ccache: compiler_check is a command, compiler-identity.sh %compiler%, run at every call:
#     the name and sha256 of the file the compiler (or the compiler a wrapper runs) resolves to;
#   - sccache: it hashes the file it is given, a wrapper when a CMake launcher runs one, so each
#     wrapper's "# identity:" line is brought up to date before the command runs (its server is
#     the command's own, so it reads the wrappers again): a compiler switched in the middle of
#     one command is seen by ccache at once and by sccache from the next command on.
# Fails fast when the requested tool is missing (no silent uncached fallback) and when an
# sccache server cannot start (a dead remote backend fails every compile anyway).
# Counts this command's compiles only and writes them to STATS_DIR/<name>.{json,txt} after --
# also when the command fails -- and prints them, plus one line
# `rocm-bake-cache-stats <name> <json>` that inv build and inv perf read from the log.
# sccache: its own server per command, zeroed first. ccache: direct mode (a hit runs no
# preprocessor), remote storage from the secret (CCACHE_REMOTE_STORAGE: the WebDAV store over
# HTTP); the cache directory is a cache mount other steps (other arches, other components) use
# at the same time, so its counters are never zeroed or read; each compile of this command
# appends to a private stats log (CCACHE_STATSLOG) and the statistics are that log's, per
# language by the source's extension (.cu/.hip: HIP; .c/.cc/.cpp/.cxx: C/C++).
# The `wheels` stages copy STATS_DIR to /compiler-cache, so a wheels export carries them
# (runtime images do not).
# Remote-cache settings and credentials come only from a BuildKit secret mounted at
# /run/secrets/sccache (KEY=VALUE lines; only SCCACHE_*, AWS_* and CCACHE_* keys are read).
set -euo pipefail

cache_type=${CACHE_TYPE:-none}
rocm_path=${ROCM_PATH:-/opt/rocm}
wrappers=${COMPILER_WRAPPERS:-/opt/rocm-bake/compiler-wrappers}
stats_dir=${COMPILER_CACHE_STATS_DIR:-/var/log/rocm-bake/compiler-cache}
secret=${COMPILER_CACHE_SECRET:-/run/secrets/sccache}
name=${COMPILER_CACHE_STATS_NAME:-$(basename "$PWD")}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
identity=$here/compiler-identity.sh

die() { echo "with-compiler-cache: $*" >&2; exit 2; }

# rocm_at_least MAJOR MINOR: the ROCm in ROCM_PATH is at least MAJOR.MINOR.
rocm_at_least() {
    local v major rest minor
    v=$(cut -d- -f1 "$rocm_path/.info/version" 2>/dev/null || echo 0.0)
    major=${v%%.*}; rest=${v#*.}; minor=${rest%%.*}
    [ "$major" -gt "$1" ] || { [ "$major" -eq "$1" ] && [ "$minor" -ge "$2" ]; }
}

# hide_tools DIR TOOL...: PATH without the TOOLs: each PATH directory holding one is replaced
# by DIR/<n>, symlinks to everything else in it.
hide_tools() {
    local out=$1 dir entry tool n=0 path="" hit
    shift
    local -a dirs
    IFS=: read -r -a dirs <<< "$PATH"
    for dir in "${dirs[@]}"; do
        hit=
        for tool in "$@"; do [ ! -e "$dir/$tool" ] || hit=1; done
        if [ -n "$hit" ]; then
            n=$((n + 1)); mkdir -p "$out/$n"
            for entry in "$dir"/*; do
                case " $* " in *" ${entry##*/} "*) continue ;; esac
                ln -s "$entry" "$out/$n/${entry##*/}"
            done
            dir=$out/$n
        fi
        path=${path:+$path:}$dir
    done
    export PATH=$path
}

# host_compiler VAR NAME: VAR (CC or CXX) names the host wrapper NAME, unless the command
# chose another compiler itself (e.g. CXX=hipcc, which reaches the cache through HIP_CLANG_PATH).
host_compiler() {
    case "${!1:-}" in
        '' | cc | gcc | c++ | g++ | /usr/bin/cc | /usr/bin/gcc | /usr/bin/c++ | /usr/bin/g++)
            export "$1=$wrappers/$cache_type/host/$2" ;;
    esac
}

# refresh_wrappers WRAPPER...: each wrapper's "# identity:" line names the compiler it runs now
# (compiler-identity.sh); a wrapper is written again only when its compiler changed.
refresh_wrappers() {
    local file old new tmp
    for file in "$@"; do
        [ -f "$file" ] || continue
        grep -q '^# runs: ' "$file" \
            || die "$file names no compiler (# runs:): install-compiler-wrappers.sh is older than this script"
        old=$(sed -n 's/^# identity: //p' "$file")
        new=$("$identity" "$file") || die "$file: the compiler it runs cannot be identified"
        [ "$old" != "$new" ] || continue
        tmp=$(mktemp "$file.XXXXXX")
        sed "s|^# identity: .*|# identity: $new|" "$file" > "$tmp"
        chmod 0755 "$tmp"
        mv -f "$tmp" "$file"
        echo "with-compiler-cache: ${file#"$wrappers"/}: compiler now $new (was ${old:-none})" >&2
    done
}

load_secret() {
    [ -f "$secret" ] || return 0
    local line key
    while IFS= read -r line || [ -n "$line" ]; do
        case "$line" in '' | '#'*) continue ;; esac
        key=${line%%=*}
        case "$key" in
            SCCACHE_* | AWS_* | CCACHE_*) export "$key=${line#*=}" ;;
            *) die "$secret: only SCCACHE_*, AWS_* and CCACHE_* settings are allowed (got $key)" ;;
        esac
    done < "$secret"
}

# ccache_json < STATSLOG: the stats log's counters per language, one JSON object:
# {"ccache": {"HIP": {"direct_cache_hit": 3, ...}, "C/C++": {...}, "other": {...}}}.
ccache_json() {
    awk '
        /^# / { f = substr($0, 3); lang = "other"
                if (f ~ /\.(cu|hip)$/) lang = "HIP"
                else if (f ~ /\.(c|cc|cpp|cxx|C)$/) lang = "C/C++"
                next }
        NF == 1 { n[lang, $1]++; langs[lang] = 1; keys[lang] = keys[lang] " " $1 }
        END {
            printf "{\"ccache\": {"; sep = ""
            for (l in langs) {
                printf "%s\"%s\": {", sep, l; sep = ", "; s2 = ""
                split(keys[l], ks, " "); delete seen
                for (i in ks) if (!(ks[i] in seen)) {
                    seen[ks[i]] = 1; printf "%s\"%s\": %d", s2, ks[i], n[l, ks[i]]; s2 = ", " }
                printf "}"
            }
            printf "}}\n"
        }'
}

write_stats() {
    mkdir -p "$stats_dir"
    case "$cache_type" in
        sccache)
            sccache --show-stats --stats-format=json > "$stats_dir/$name.json" 2>&1 || true
            sccache --show-stats || true
            # One machine-readable line for the build log (inv build's cache-health summary).
            printf 'rocm-bake-cache-stats %s %s\n' "$name" "$(tr -d '\n' < "$stats_dir/$name.json")"
            sccache --stop-server > /dev/null 2>&1 || true ;;
        ccache)
            ccache --show-log-stats --verbose > "$stats_dir/$name.txt" 2>&1 || true
            cat "$stats_dir/$name.txt"
            ccache_json < "$CCACHE_STATSLOG" > "$stats_dir/$name.json"
            printf 'rocm-bake-cache-stats %s %s\n' "$name" "$(cat "$stats_dir/$name.json")"
            rm -f "$CCACHE_STATSLOG" ;;
        *)
            # The caches' own traces: a ccache call appends to the stats log, an sccache call
            # starts a server on the private socket.
            printf 'CACHE_TYPE=none: compiled without a compiler cache (ccache calls: %s; sccache server: %s)\n' \
                "$(grep -c '^# ' "$CCACHE_STATSLOG" || true)" \
                "$([ -e "$SCCACHE_SERVER_UDS" ] && echo started || echo not started)" \
                | tee "$stats_dir/$name.txt"
            rm -f "$CCACHE_STATSLOG" ;;
    esac
}

case "$cache_type" in
    sccache | ccache)
        command -v "$cache_type" > /dev/null \
            || die "CACHE_TYPE=$cache_type but $cache_type is not installed in the base image"
        [ -x "$identity" ] || die "no $identity beside this script"
        # Identities kept for this command only (compiler-identity.sh reads each compiler once).
        COMPILER_IDENTITY_MEMO=$(mktemp -d "${TMPDIR:-/tmp}/rocm-bake-compiler-identity.XXXXXX")
        export COMPILER_IDENTITY_MEMO
        export COMPILER_LAUNCHER=$cache_type
        export CMAKE_C_COMPILER_LAUNCHER=$cache_type CMAKE_CXX_COMPILER_LAUNCHER=$cache_type
        export CMAKE_HIP_COMPILER_LAUNCHER=$cache_type
        [ -x "$wrappers/$cache_type/host/c++" ] \
            || die "no host compiler wrappers in $wrappers/$cache_type/host (install-compiler-wrappers.sh)"
        host_compiler CC cc
        host_compiler CXX c++
        export CUDAHOSTCXX=$wrappers/$cache_type/host/c++
        if rocm_at_least 7 13; then
            export HIP_CLANG_LAUNCHER=$cache_type
        else
            [ -x "$wrappers/$cache_type/bin/clang++" ] \
                || die "no HIP compiler wrappers in $wrappers/$cache_type/bin (install-compiler-wrappers.sh)"
            export HIP_CLANG_PATH=$wrappers/$cache_type/bin
        fi
        refresh_wrappers "$wrappers/$cache_type"/host/* "$wrappers/$cache_type"/bin/clang \
            "$wrappers/$cache_type"/bin/clang++
        load_secret
        if [ "$cache_type" = sccache ]; then
            export SCCACHE_DIR=${SCCACHE_DIR:-/root/.cache/sccache}
            # A server of this step only: RUN --network=host shares 127.0.0.1:4226 with every
            # other build container and the host, and a compile sent to another container's
            # server fails (its file system) or uses its backend settings (a stale server).
            if [ -z "${SCCACHE_SERVER_PORT:-}" ] && [ -z "${SCCACHE_SERVER_UDS:-}" ]; then
                export SCCACHE_SERVER_UDS=${TMPDIR:-/tmp}/rocm-bake-sccache-$$.sock
            fi
            sccache --stop-server > /dev/null 2>&1 || true
            timeout 30 sccache --start-server > /dev/null \
                || die "the sccache server did not start (backend unreachable?)"
            sccache --zero-stats > /dev/null
        else
            export CCACHE_DIR=${CCACHE_DIR:-/root/.cache/ccache}
            # The command's output is hashed in place of the compiler file (ccache splits it on
            # whitespace: the script's path has none).
            case "$identity" in *[[:space:]]*) die "$identity: a path with whitespace" ;; esac
            export CCACHE_COMPILERCHECK="$identity %compiler%"
            # Direct mode: a hit is found from the source, the command line and the headers
            # the manifest names, without running the preprocessor (ccache's default, said).
            export CCACHE_DIRECT=true
            # ccache before 4.6 (Ubuntu 22.04's 4.5) calls its remote storage "secondary".
            if [ -n "${CCACHE_REMOTE_STORAGE:-}" ] \
                && ! ccache --get-config remote_storage > /dev/null 2>&1; then
                export CCACHE_SECONDARY_STORAGE=$CCACHE_REMOTE_STORAGE
            fi
            CCACHE_STATSLOG=$(mktemp "${TMPDIR:-/tmp}/rocm-bake-ccache-stats.XXXXXX")
            export CCACHE_STATSLOG
        fi
        ;;
    none)
        export COMPILER_LAUNCHER=
        unset CMAKE_C_COMPILER_LAUNCHER CMAKE_CXX_COMPILER_LAUNCHER CMAKE_HIP_COMPILER_LAUNCHER \
            HIP_CLANG_LAUNCHER
        # Where a cache called anyway (by an absolute path) would leave its trace.
        CCACHE_STATSLOG=$(mktemp "${TMPDIR:-/tmp}/rocm-bake-ccache-stats.XXXXXX")
        export CCACHE_STATSLOG SCCACHE_SERVER_UDS=${TMPDIR:-/tmp}/rocm-bake-none-$$.sock ;;
    *) die "CACHE_TYPE must be sccache, ccache or none (got '$cache_type')" ;;
esac

# PyTorch turns USE_CCACHE on by itself when it finds ccache and no launcher is set.
export USE_CCACHE=0
# vLLM's setup.py adds -DCMAKE_*_COMPILER_LAUNCHER=sccache whenever sccache is on PATH, else
# =ccache whenever ccache is: the command runs with a PATH that hides every cache tool but the
# chosen one (CACHE_TYPE=none: both).
others=()
for tool in sccache ccache; do
    [ "$tool" = "$cache_type" ] || ! command -v "$tool" > /dev/null || others+=("$tool")
done
own_path=$PATH
if [ "${#others[@]}" -gt 0 ]; then
    hidden=$(mktemp -d "${TMPDIR:-/tmp}/rocm-bake-path.XXXXXX")
    hide_tools "$hidden" "${others[@]}"
fi

rc=0
"$@" || rc=$?
export PATH=$own_path
[ -z "${hidden:-}" ] || rm -rf "$hidden"
[ -z "${COMPILER_IDENTITY_MEMO:-}" ] || rm -rf "$COMPILER_IDENTITY_MEMO"
write_stats
exit "$rc"
