// One more HIP translation unit, written here (the workload itself is ggml's upstream code):
// PROBE_DEFINE changes its cache key only, so a pull-request build can make one miss that
// must not be written.
#include <hip/hip_runtime.h>

__global__ void probe_kernel(int* out) { out[threadIdx.x] = PROBE_DEFINE + threadIdx.x; }
