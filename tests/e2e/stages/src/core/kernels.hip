// rb_core_gpu: the GPU half of rb-core (~ torch's HIP kernels), compiled by hipcc for every
// arch in PYTORCH_ROCM_ARCH. Shipped in the wheel; nothing here can run it (no GPU).
#include <hip/hip_runtime.h>

__global__ void rb_core_add(const long* a, const long* b, long* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}

extern "C" int rb_core_gpu_add(const long* a, const long* b, long* out, int n) {
    hipLaunchKernelGGL(rb_core_add, dim3((n + 255) / 256), dim3(256), 0, 0, a, b, out, n);
    return static_cast<int>(hipGetLastError());
}
