// One HIP-path translation unit: compiled through the stand-in hipcc and the sccache wrapper
// directory (HIP_CLANG_PATH), like the real stages on ROCm < 7.13. PROBE_DEFINE changes its
// cache key only (a pull-request build's miss that must not be written).
#include <cstdio>
int probe() { std::printf("probe %d\n", PROBE_DEFINE); return PROBE_DEFINE; }
