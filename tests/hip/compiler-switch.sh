#!/bin/bash
# Run inside rocm-bake/hip:test with the project's scripts in /opt/rocm-bake/bin, sccache on
# PATH and /w writable: the same two units, compiled with the same flags through the real
# wrappers and real ccache/sccache, one with-compiler-cache.sh command per step and tool, while
# the compilers behind the wrappers change between steps as a later Dockerfile stage changes
# them (update-alternatives, a symlink). Each command prints its `rocm-bake-cache-stats` line;
# each step prints `objects STEP TOOL <.comment of the launcher-route object>`.
#   launcher.cpp  "$COMPILER_LAUNCHER" "$CXX"   (a CMake launcher in front of the host wrapper:
#                                                the cache tool is given the wrapper)
#   direct.cpp    "$CXX"                        (the wrapper runs the cache tool itself)
#   hip.cpp       "$COMPILER_LAUNCHER" WRAPPERS/<tool>/bin/clang++  (the HIP wrapper, ditto)
set -euo pipefail
export PATH=/opt/rocm-bake/bin:$PATH
wrappers=/opt/rocm-bake/compiler-wrappers
install-compiler-wrappers.sh /opt/rocm/llvm/bin "$wrappers" ccache sccache
for unit in launcher direct hip; do
    printf 'int %s_triple(int x) { return 3 * x; }\n' "$unit" > "/w/$unit.cpp"
done

# step NAME: the three compiles, once per tool, each tool with its own cache directory.
step() {
    local tool
    for tool in ccache sccache; do
        mkdir -p "/w/$1/$tool"
        CACHE_TYPE=$tool CCACHE_DIR=/w/ccache SCCACHE_DIR=/w/sccache \
            COMPILER_CACHE_STATS_DIR=/w/stats COMPILER_CACHE_STATS_NAME="$1-$tool" \
            OUT="/w/$1/$tool" HIP_WRAPPER="$wrappers/$tool/bin/clang++" \
            with-compiler-cache.sh bash -euo pipefail -c '
                "$COMPILER_LAUNCHER" "$CXX" -O2 -c /w/launcher.cpp -o "$OUT/launcher.o"
                "$CXX" -O2 -c /w/direct.cpp -o "$OUT/direct.o"
                "$COMPILER_LAUNCHER" "$HIP_WRAPPER" -O2 -c /w/hip.cpp -o "$OUT/hip.o"'
        printf 'objects %s %s %s\n' "$1" "$tool" \
            "$(readelf -p .comment "/w/$1/$tool/launcher.o" | sed -n 's/^ *\[ *[0-9a-f]*\] *//p' | head -n1)"
    done
}

# rebuilt FILE: a second build of the same compiler -- the same version, other bytes (one byte
# appended: an ELF file's trailing bytes are never loaded), beside it so it finds its own parts.
rebuilt() {
    cp -p "$1" "$1-rebuilt"
    printf '\n' >> "$1-rebuilt"
    echo "$1-rebuilt"
}

step cold
step warm
# A rebuilt g++ of the same version behind /usr/bin/c++ (update-alternatives, as
# torch.Dockerfile switches gcc/g++), and a rebuilt ROCm clang behind the HIP wrapper's clang++.
update-alternatives --install /usr/bin/c++ c++ "$(rebuilt "$(readlink -f /usr/bin/c++)")" 100 > /dev/null
ln -sfn "$(basename "$(rebuilt "$(readlink -f /opt/rocm/llvm/bin/clang++)")")" /opt/rocm/llvm/bin/clang++
echo "c++ is now $(readlink -f /usr/bin/c++): $(/usr/bin/c++ --version | head -n1)"
step rebuilt
# Another compiler altogether: clang++-22 behind /usr/bin/c++. (In this image /opt/rocm/llvm is
# Debian's /usr/lib/llvm-22, so clang++-22 now resolves to the rebuilt clang as well: the HIP
# unit's compiler does not change in this step, the host units' does.)
update-alternatives --install /usr/bin/c++ c++ /usr/bin/clang++-22 200 > /dev/null
echo "c++ is now $(readlink -f /usr/bin/c++): $(/usr/bin/c++ --version | head -n1)"
step clang
step clang-again
