// A small HIP translation unit: one kernel and its host-side launch.
#include <hip/hip_runtime.h>
__global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
void launch(float a, const float* x, float* y, int n) {
  hipLaunchKernelGGL(axpy, dim3((n + 255) / 256), dim3(256), 0, 0, a, x, y, n);
}
