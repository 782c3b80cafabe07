// rb_plugin_gpu: the GPU half of rb-plugin (~ triton/aiter kernels), a CMake HIP target built
// for CMAKE_HIP_ARCHITECTURES (from GPU_ARCHS). Shipped in the wheel, not loaded here.
#include <hip/hip_runtime.h>

__global__ void rb_plugin_scale_kernel(long* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 3;
}

extern "C" int rb_plugin_gpu_scale(long* x, int n) {
    hipLaunchKernelGGL(rb_plugin_scale_kernel, dim3((n + 255) / 256), dim3(256), 0, 0, x, n);
    return static_cast<int>(hipGetLastError());
}
