// The kernel ABI: arguments of every size and alignment, structs by value (padding, pointers
// inside, nested, a large one passed through a buffer), implicit conversions at the launch,
// zero arguments and 26 arguments, with hipLaunchKernelGGL and <<<>>>.
#include "test_common.h"

#include <cstddef>

struct Inner {
  short s;
  double d;
};

struct Mixed {
  char c;          // 7 bytes of padding follow
  double scale;
  int* out;        // a device pointer inside a struct
  Inner inner;
  bool flag;
};

struct Big {
  float table[400];  // 1600 bytes: more than OpenCL guarantees for kernel parameters
  int count;
};

__global__ void mixed_args(bool b, char c, unsigned char uc, short s, unsigned short us, int i,
                           unsigned u, long long ll, unsigned long long ull, float f, double d,
                           const float* cp, size_t n, Mixed m, long long* out) {
  long long sum = b + c + uc + s + us + i + u + ll + static_cast<long long>(ull % 1000) +
                  static_cast<long long>(f * 4) + static_cast<long long>(d * 8) +
                  static_cast<long long>(cp[1] * 2) + static_cast<long long>(n);
  sum += m.c + static_cast<long long>(m.scale * 16) + m.inner.s +
         static_cast<long long>(m.inner.d * 4) + m.flag;
  out[threadIdx.x] = sum + threadIdx.x;
  m.out[threadIdx.x] = static_cast<int>(threadIdx.x) * 3;
}

__global__ void no_args() {}

__global__ void many_args(int* out, int a1, int a2, char a3, int a4, double a5, int a6, short a7,
                          int a8, float a9, int a10, long long a11, int a12, int a13, bool a14,
                          int a15, int a16, unsigned a17, int a18, int a19, double a20, int a21,
                          char a22, int a23, int a24, int a25) {
  out[0] = a1 + a2 + a3 + a4 + static_cast<int>(a5) + a6 + a7 + a8 + static_cast<int>(a9) + a10 +
           static_cast<int>(a11) + a12 + a13 + a14 + a15 + a16 + static_cast<int>(a17) + a18 +
           a19 + static_cast<int>(a20) + a21 + a22 + a23 + a24 + a25;
}

__global__ void big_struct(Big big, float* out) {
  int t = threadIdx.x;
  if (t < big.count) out[t] = big.table[t] * 2.0f + big.table[399];
}

int main() {
  int bad = 0;
  int* d_ints = nullptr;
  long long* d_out = nullptr;
  float* d_floats = nullptr;
  HIP_CHECK(hipMalloc(&d_ints, 32 * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_out, 32 * sizeof(long long)));
  std::vector<float> floats = {0.5f, 2.25f, 4.0f};
  d_floats = to_device(floats);

  Mixed m{'x', 1.25, d_ints, {-7, 2.5}, true};
  // Implicit conversions: 100 (int) to size_t, float* to const float*, 0.75 (double) to float.
  hipLaunchKernelGGL(mixed_args, dim3(1), dim3(32), 0, 0, true, 'c', 200, -300, 60000, -40000,
                     3000000000u, -5000000000LL, 18000000000000000000ull, 0.75, 0.125, d_floats,
                     100, m, d_out);
  HIP_CHECK(hipGetLastError());
  long long base = 1 + 'c' + 200 - 300 + 60000 - 40000 + 3000000000LL - 5000000000LL +
                   static_cast<long long>(18000000000000000000ull % 1000) + 3 + 1 +
                   static_cast<long long>(2.25f * 2) + 100 + 'x' + 20 - 7 + 10 + 1;
  std::vector<long long> want(32);
  std::vector<int> want_ints(32);
  for (int t = 0; t < 32; ++t) {
    want[t] = base + t;
    want_ints[t] = 3 * t;
  }
  bad += count_mismatches("mixed", from_device(d_out, 32), want);
  bad += count_mismatches("pointer in struct", from_device(d_ints, 32), want_ints);

  no_args<<<1, 1>>>();
  HIP_CHECK(hipGetLastError());

  many_args<<<1, 1>>>(d_ints, 1, 2, 3, 4, 5.0, 6, 7, 8, 9.0f, 10, 11, 12, 13, true, 15, 16, 17u, 18,
                      19, 20.0, 21, 22, 23, 24, 25);
  HIP_CHECK(hipGetLastError());
  bad += count_mismatches("26 arguments", from_device(d_ints, 1), std::vector<int>{325 - 14 + 1});

  Big big{};
  for (int i = 0; i < 400; ++i) big.table[i] = i * 0.5f;
  big.count = 64;
  float* d_big_out = nullptr;
  HIP_CHECK(hipMalloc(&d_big_out, 64 * sizeof(float)));
  hipLaunchKernelGGL(big_struct, dim3(1), dim3(64), 0, 0, big, d_big_out);
  HIP_CHECK(hipGetLastError());
  std::vector<float> want_big(64);
  for (int t = 0; t < 64; ++t) want_big[t] = big.table[t] * 2.0f + big.table[399];
  bad += count_mismatches("big struct", from_device(d_big_out, 64), want_big);

  HIP_CHECK(hipFree(d_ints));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_floats));
  HIP_CHECK(hipFree(d_big_out));
  return report("kernel_abi", bad);
}
