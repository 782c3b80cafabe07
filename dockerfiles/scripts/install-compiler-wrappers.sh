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
#                            of one build step (setuptools, torch.utils.cpp_extension, CMake);
#                            run by a cache tool already (a CMake launcher in front of CC),
#                            they run the compiler itself: a compile is cached once
# ROCm's own clang is never replaced, and nothing here is put in the image's ENV.
set -euo pipefail

llvm_bin=${1:?usage: install-compiler-wrappers.sh LLVM_BIN WRAPPER_ROOT [TOOL...]}
root=${2:?usage: install-compiler-wrappers.sh LLVM_BIN WRAPPER_ROOT [TOOL...]}
shift 2
tools=("$@")
[ "${#tools[@]}" -gt 0 ] || tools=(sccache ccache)

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
        printf '#!/bin/sh\nexec %s %s/%s "$@"\n' "$tool" "$llvm_bin" "$compiler" > "$dir/$compiler"
        chmod 0755 "$dir/$compiler"
    done
    mkdir -p "$root/$tool/host"
    for compiler in cc c++ gcc g++; do
        [ -x "/usr/bin/$compiler" ] || continue
        # The compiler's own sha256 is in the wrapper: a cache that hashes the wrapper as
        # "the compiler" (a CMake launcher in front of CC) sees a new compiler as new.
        printf '#!/bin/sh\n# %s: sha256 %s\ncase "$(cat /proc/$PPID/comm 2>/dev/null)" in\n    sccache | ccache) exec /usr/bin/%s "$@" ;;\nesac\nexec %s /usr/bin/%s "$@"\n' \
            "$(readlink -f "/usr/bin/$compiler")" \
            "$(sha256sum "$(readlink -f "/usr/bin/$compiler")" | cut -d' ' -f1)" \
            "$compiler" "$tool" "$compiler" > "$root/$tool/host/$compiler"
        chmod 0755 "$root/$tool/host/$compiler"
    done
done
