#!/usr/bin/env bash
# with-compiler-cache.sh COMMAND [ARGS...]
#
# Run one build command with the compiler cache selected by CACHE_TYPE
# (sccache | ccache | none), the way TheRock's v2 design does it:
#   - host code: CMAKE_C/CXX_COMPILER_LAUNCHER=<tool>
#   - HIP code:  HIP_CLANG_LAUNCHER=<tool> when hipcc supports it (ROCm >= 7.13),
#                else a wrapper directory passed as HIP_CLANG_PATH for this
#                command only (never replace ROCm's clang in place, never leave
#                HIP_CLANG_PATH in the image's ENV).
# Fails fast when the requested tool is missing (no silent uncached fallback).
# Zeroes the stats before and prints them after, also when the build fails.
set -euo pipefail

cache_type=${CACHE_TYPE:-none}
rocm_path=${ROCM_PATH:-/opt/rocm}
wrappers=/opt/rocm-bake/compiler-wrappers

rocm_at_least() {   # rocm_at_least MAJOR MINOR
    local v
    v=$(cut -d- -f1 "$rocm_path/.info/version" 2>/dev/null || echo 0.0)
    local major=${v%%.*} rest=${v#*.}
    local minor=${rest%%.*}
    [ "$major" -gt "$1" ] || { [ "$major" -eq "$1" ] && [ "$minor" -ge "$2" ]; }
}

case "$cache_type" in
    sccache|ccache)
        command -v "$cache_type" >/dev/null \
            || { echo "CACHE_TYPE=$cache_type but $cache_type is not installed in the base image" >&2; exit 2; }
        export CMAKE_C_COMPILER_LAUNCHER=$cache_type CMAKE_CXX_COMPILER_LAUNCHER=$cache_type
        if rocm_at_least 7 13; then
            export HIP_CLANG_LAUNCHER=$cache_type
        else
            export HIP_CLANG_PATH=$wrappers/$cache_type
        fi
        if [ "$cache_type" = sccache ]; then
            export SCCACHE_DIR=${SCCACHE_DIR:-/root/.cache/sccache}
            sccache --stop-server >/dev/null 2>&1 || true
            sccache --start-server
            sccache --zero-stats >/dev/null
        else
            export CCACHE_DIR=${CCACHE_DIR:-/root/.cache/ccache} CCACHE_COMPILERCHECK=content
            ccache --zero-stats >/dev/null
        fi
        ;;
    none) ;;
    *) echo "CACHE_TYPE must be sccache, ccache or none (got '$cache_type')" >&2; exit 2 ;;
esac

rc=0
"$@" || rc=$?

case "$cache_type" in
    sccache) sccache --show-stats || true; sccache --stop-server >/dev/null 2>&1 || true ;;
    ccache)  ccache --show-stats || true ;;
esac
exit "$rc"
