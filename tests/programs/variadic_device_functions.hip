// C-variadic device functions whose bodies do not read their variable arguments: the fallback
// overload of SFINAE dispatch (`f(...)` beside a template enabled for integral pointees), a
// catch-all "sink" that takes anything, and a variadic function with named parameters, called
// with arguments that have side effects (which happen, once each).
#include "test_common.h"

#include <type_traits>

namespace {
constexpr int kN = 777;
}

// Integral element types are counted as such; anything else falls to the variadic overload.
template <typename T, typename std::enable_if<std::is_integral<T>{}>::type* = nullptr>
__device__ int kind_of(T*) {
  return 100 + static_cast<int>(sizeof(T));
}
__device__ int kind_of(...) { return 1; }

// Swallows its arguments: a debugging hook compiled out, as libraries write them.
__device__ void sink(...) {}

// The named parameters are used; the rest are ignored.
__device__ int first_plus(int a, int b, ...) { return a + b; }

__global__ void classify(int* kinds, int* counter, const float* f, const int* i, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const double* d = nullptr;
  const short* s = nullptr;
  kinds[4 * t + 0] = kind_of(f + t);  // float*: variadic
  kinds[4 * t + 1] = kind_of(i + t);  // const int*: the template
  kinds[4 * t + 2] = kind_of(d) + kind_of(s);
  // Extra arguments are evaluated (each atomicAdd happens once) and not passed.
  sink(atomicAdd(counter, 1), f[t], t);
  int extra = 0;
  const int sum = first_plus(t, 2, ++extra, f + t, 3.5);
  kinds[4 * t + 3] = sum + extra;
}

int main() {
  std::vector<float> f(kN);
  std::vector<int> i(kN);
  for (int k = 0; k < kN; ++k) {
    f[k] = 0.5f * k;
    i[k] = k;
  }
  float* d_f = to_device(f);
  int* d_i = to_device(i);
  int* d_kinds = nullptr;
  int* d_counter = nullptr;
  HIP_CHECK(hipMalloc(&d_kinds, 4 * kN * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_counter, sizeof(int)));
  HIP_CHECK(hipMemset(d_counter, 0, sizeof(int)));
  classify<<<(kN + 127) / 128, 128>>>(d_kinds, d_counter, d_f, d_i, kN);
  HIP_CHECK(hipGetLastError());

  std::vector<int> want(4 * kN);
  for (int t = 0; t < kN; ++t) {
    want[4 * t + 0] = 1;
    want[4 * t + 1] = 100 + static_cast<int>(sizeof(int));
    want[4 * t + 2] = 1 + 100 + static_cast<int>(sizeof(short));
    want[4 * t + 3] = t + 2 + 1;
  }
  int bad = count_mismatches("kinds", from_device(d_kinds, 4 * kN), want);
  bad += count_mismatches("side effects", from_device(d_counter, 1), std::vector<int>{kN});
  HIP_CHECK(hipFree(d_f));
  HIP_CHECK(hipFree(d_i));
  HIP_CHECK(hipFree(d_kinds));
  HIP_CHECK(hipFree(d_counter));
  return report("variadic_device_functions", bad);
}
