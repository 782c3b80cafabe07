// rb_plugin_scale(x) -> 3 * x, in C++ behind a C ABI (loaded with ctypes).
#include <array>
#include <numeric>

extern "C" long rb_plugin_scale(long x) {
    std::array<long, 3> parts{x, x, x};
    return std::accumulate(parts.begin(), parts.end(), 0L);
}
