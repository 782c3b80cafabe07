#!/usr/bin/env bash
# install-compiler-wrappers.sh LLVM_BIN WRAPPER_ROOT [TOOL...]
#
# For each compiler-cache TOOL (default: sccache ccache) make WRAPPER_ROOT/TOOL/bin, a
# directory to pass as HIP_CLANG_PATH for ONE build step on ROCm < 7.13 (hipcc has no
# HIP_CLANG_LAUNCHER there):
#   bin/clang, bin/clang++   exec TOOL LLVM_BIN/clang[++] "$@"  -- the original is run by a
#                            name still ending in clang/clang++, so the driver mode stays right
#   bin/<anything else>      symlinks to LLVM_BIN/<same>  (hipcc looks tools up next to clang)
#   lib                      symlink to LLVM_BIN/../lib   (hipcc reads $HIP_CLANG_PATH/../lib)
#   host/cc, c++, gcc, g++   exec TOOL /usr/bin/<same> "$@"  -- the host compilers, for CC/CXX
#                            of one build step (setuptools, torch.utils.cpp_extension, CMake)
# Every wrapper run by a cache tool already (a CMake launcher in front of CC) runs the compiler
# itself: a compile is cached once. Each names the compiler it runs on a "# runs:" line and
# carries that compiler's identity on a "# identity:" line (compiler-identity.sh: the sha256 of
# the file it resolves to), so a cache tool that hashes the wrapper as "the compiler" sees a
# new compiler as new; with-compiler-cache.sh brings the identity up to date at the start of
# every command (a later stage may switch /usr/bin/c++ with update-alternatives).
# ROCm's own clang is never replaced, and nothing here is put in the image's ENV.
set -euo pipefail

llvm_bin=${1:?usage: install-compiler-wrappers.sh LLVM_BIN WRAPPER_ROOT [TOOL...]}
root=${2:?usage: install-compiler-wrappers.sh LLVM_BIN WRAPPER_ROOT [TOOL...]}
shift 2
tools=("$@")
[ "${#tools[@]}" -gt 0 ] || tools=(sccache ccache)
identity=$(dirname "${BASH_SOURCE[0]}")/compiler-identity.sh

# wrapper FILE TOOL COMPILER: FILE runs COMPILER through TOOL, or COMPILER itself when TOOL
# (either cache tool) runs FILE.
wrapper() {
    printf '#!/bin/sh\n# runs: %s\n# identity: %s\ncase "$(cat /proc/$PPID/comm 2>/dev/null)" in\n    sccache | ccache) exec %s "$@" ;;\nesac\nexec %s %s "$@"\n' \
        "$3" "$("$identity" "$3")" "$3" "$2" "$3" > "$1"
    chmod 0755 "$1"
}

for compiler in clang clang++; do
    [ -x "$llvm_bin/$compiler" ] || { echo "install-compiler-wrappers: no $llvm_bin/$compiler" >&2; exit 1; }
done
for tool in "${tools[@]}"; do
    dir=$root/$tool/bin
    mkdir -p "$dir"
    for entry in "$llvm_bin"/*; do
        name=${entry##*/}
        case "$name" in clang | clang++) continue ;; esac
        ln -sfn "$entry" "$dir/$name"
    done
    ln -sfn "$(cd "$llvm_bin/.." && pwd)/lib" "$root/$tool/lib"
    for compiler in clang clang++; do
        wrapper "$dir/$compiler" "$tool" "$llvm_bin/$compiler"
    done
    mkdir -p "$root/$tool/host"
    for compiler in cc c++ gcc g++; do
        [ -x "/usr/bin/$compiler" ] || continue
        wrapper "$root/$tool/host/$compiler" "$tool" "/usr/bin/$compiler"
    done
done
