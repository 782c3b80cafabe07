#include <hip/hip_runtime.h>
// A second translation unit: a library linked from two objects holds two offload bundles.
__global__ void scale(float a, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= a;
}
void launch_scale(float a, float* y, int n) {
  hipLaunchKernelGGL(scale, dim3((n + 255) / 256), dim3(256), 0, 0, a, y, n);
}
