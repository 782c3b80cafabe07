#!/bin/bash
# Run inside rocm-bake/hip:test with the sources in /src and the output in /out: compile the
# test kernels with the real clang-22 / hipcc, and record what LLVM's own tools say of them
# (clang-offload-bundler --list, llvm-readelf -h of each unbundled code object) as oracles.
set -euo pipefail
bin=/opt/rocm/llvm/bin
cd /out
# A fixed -cuid per translation unit (its output name): reproducible bytes, and two TUs of one
# library never share a __hip_cuid_* symbol.
hip() { "$bin/clang++" -x hip -O2 -cuid="${*: -1}" "$@"; }
for arch in gfx950 gfx1201 gfx1250; do
    hip --offload-arch="$arch" -c /src/axpy.hip -o "axpy-$arch.o"
done
hipcc --offload-arch=gfx1201 -O2 -c /src/axpy.hip -o axpy-hipcc-gfx1201.o
hip --offload-arch=gfx950 --offload-arch=gfx1201 --offload-arch=gfx1250 -c /src/axpy.hip \
    -o axpy-three.o
hip --offload-arch=gfx1250 --offload-compress -c /src/axpy.hip -o axpy-gfx1250-ccob.o
hip --offload-arch=gfx950 --offload-compress -c /src/scale.hip -o scale-gfx950-ccob.o
# Two translation units in one library: two bundles (one plain, one compressed) in one section.
"$bin/clang++" -shared axpy-gfx950.o scale-gfx950-ccob.o -o libtwo-gfx950.so
mkdir -p oracle
for f in *.o *.so; do
    "$bin/llvm-objcopy" --dump-section=.hip_fatbin="oracle/$f.fatbin" "$f" /dev/null
    "$bin/clang-offload-bundler" --list --type=o --input="oracle/$f.fatbin" >"oracle/$f.list"
done
for arch in gfx950 gfx1201 gfx1250; do
    "$bin/clang-offload-bundler" --unbundle --type=o --input="oracle/axpy-$arch.o.fatbin" \
        --targets="hipv4-amdgcn-amd-amdhsa--$arch" --output="oracle/$arch.co"
    "$bin/llvm-readelf" -h "oracle/$arch.co" >"oracle/$arch.readelf"
done
# Damaged copies: a bundle cut short (plain and compressed) inside an otherwise valid object.
head -c 100 oracle/axpy-gfx950.o.fatbin >oracle/cut.fatbin
"$bin/llvm-objcopy" --update-section=.hip_fatbin=oracle/cut.fatbin axpy-gfx950.o cut-bundle.o
head -c 200 oracle/axpy-gfx1250-ccob.o.fatbin >oracle/cut-ccob.fatbin
"$bin/llvm-objcopy" --update-section=.hip_fatbin=oracle/cut-ccob.fatbin axpy-gfx1250-ccob.o \
    cut-ccob.o
# HIP.md's -cuid trap: one TU compiled to two output paths, once with clang's own per-TU id
# (derived from the output path) and once with a fixed -cuid.
for d in a b; do
    mkdir -p "trap/$d" "trap/fixed-$d"
    "$bin/clang++" -x hip -O2 --offload-arch=gfx950 -c /src/axpy.hip -o "trap/$d/axpy.o"
    "$bin/clang++" -x hip -O2 --offload-arch=gfx950 -cuid=axpy -c /src/axpy.hip \
        -o "trap/fixed-$d/axpy.o"
done
