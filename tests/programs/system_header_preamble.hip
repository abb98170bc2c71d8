// Begins with system headers only (a precompiled preamble's shape: the driver test
// `precompiled_preambles_never_change_a_build` builds it again and again), and uses them in
// device code: <algorithm>'s constexpr std::min/std::max, <limits>, <type_traits>, std::pair,
// std::move, std::forward and std::addressof (which clang treats as builtins, instantiating no
// body) in kernels and templates; <random> and <numeric> on the host.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <type_traits>
#include <utility>
#include <hip/hip_runtime.h>

#include "test_common.h"

template <typename T>
struct Clamp {
  T lo, hi;
  __host__ __device__ T operator()(T v) const { return std::min(std::max(v, lo), hi); }
};

// Saturating scale: results beyond T's range stick at its limits.
template <typename T, typename Op>
__global__ void scale_and_clamp(const T* in, T* out, int n, T factor, Op op) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  using Wide = std::conditional_t<std::is_signed<T>::value, long long, unsigned long long>;
  Wide wide = static_cast<Wide>(in[i]) * static_cast<Wide>(factor);
  Wide lo = std::numeric_limits<T>::min();
  Wide hi = std::numeric_limits<T>::max();
  out[i] = op(static_cast<T>(std::min(std::max(wide, lo), hi)));
}

__global__ void swap_pairs(int* data, int pairs) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < pairs) {
    // std::exchange is not constexpr before C++20 either: a pair's members move by hand.
    std::pair<int, int> p(data[2 * i], data[2 * i + 1]);
    int* first = std::addressof(data[2 * i]);
    *first = std::move(p.second);
    first[1] = std::forward<int&>(p.first);
  }
}

template <typename T>
int check_scale(const char* name, T factor, Clamp<T> op, std::mt19937& rng) {
  const int n = 4099;
  std::uniform_int_distribution<long long> pick(std::numeric_limits<T>::min(),
                                                std::numeric_limits<T>::max());
  std::vector<T> in(n);
  for (auto& v : in) v = static_cast<T>(pick(rng));
  T* d_in = to_device(in);
  T* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(T)));
  hipLaunchKernelGGL(HIP_KERNEL_NAME(scale_and_clamp<T, Clamp<T>>), dim3((n + 255) / 256), dim3(256),
                     0, 0, d_in, d_out, n, factor, op);
  HIP_CHECK(hipGetLastError());
  std::vector<T> got = from_device(d_out, n);
  std::vector<T> want(n);
  for (int i = 0; i < n; ++i) {
    long long wide = static_cast<long long>(in[i]) * static_cast<long long>(factor);
    wide = std::min<long long>(std::max<long long>(wide, std::numeric_limits<T>::min()),
                               std::numeric_limits<T>::max());
    want[i] = op(static_cast<T>(wide));
  }
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return count_mismatches(name, got, want);
}

int main() {
  std::mt19937 rng(2026);
  int bad = 0;
  bad += check_scale<int16_t>("int16 scale", 7, Clamp<int16_t>{-20000, 30000}, rng);
  bad += check_scale<int32_t>("int32 scale", -3, Clamp<int32_t>{-2000000000, 1500000000}, rng);
  bad += check_scale<uint8_t>("uint8 scale", 3, Clamp<uint8_t>{10, 250}, rng);

  const int pairs = 1000;
  std::vector<int> data(2 * pairs);
  std::iota(data.begin(), data.end(), 0);
  int* d_data = to_device(data);
  swap_pairs<<<(pairs + 127) / 128, 128>>>(d_data, pairs);
  HIP_CHECK(hipGetLastError());
  std::vector<int> swapped = from_device(d_data, data.size());
  std::vector<int> want(data.size());
  for (int i = 0; i < pairs; ++i) {
    want[2 * i] = 2 * i + 1;
    want[2 * i + 1] = 2 * i;
  }
  bad += count_mismatches("swap pairs", swapped, want);
  HIP_CHECK(hipFree(d_data));
  return report("system_header_preamble", bad);
}
