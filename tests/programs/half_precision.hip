// Half precision (hip/hip_fp16.h): __half in memory and as a kernel argument, conversions,
// __hadd/__hmul/__hfma/__hmax/comparisons, __half2 pairs. Inputs are small dyadic numbers so that
// every result is exact in half precision: the host reference (the same __host__ __device__
// intrinsics) cannot differ by rounding.
#include "test_common.h"

#include <hip/hip_fp16.h>

#include <chrono>

__global__ void half_kernel(const __half* a, const __half* b, const __half2* pairs, __half scale,
                            __half* out, float* as_float, int* flags, __half2* out_pairs, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half x = a[i];
  __half y = b[i];
  __half sum = __hadd(x, y);
  __half fused = __hfma(x, scale, y);
  out[i] = __hmax(__hmul(sum, __float2half(0.5f)), fused) - __hneg(y);
  as_float[i] = __half2float(x) * 4.0f + __half2float(fused);
  flags[i] = (__hlt(x, y) ? 1 : 0) | (__heq(x, y) ? 2 : 0) | (x >= scale ? 4 : 0) |
             (__half2int_rz(sum) << 3);
  __half2 p = pairs[i];
  out_pairs[i] = __hfma2(p, __halves2half2(scale, y), __hadd2(p, __float2half2_rn(1.0f)));
}

static bool same(__half a, __half b) { return static_cast<float>(a) == static_cast<float>(b); }

int main() {
  hipDeviceProp_t props;
  HIP_CHECK(hipGetDeviceProperties(&props, 0));
  const int n = 2048;
  std::vector<__half> a(n), b(n);
  std::vector<__half2> pairs(n);
  for (int i = 0; i < n; ++i) {
    a[i] = __float2half((i % 32) * 0.5f - 4.0f);
    b[i] = __float2half((i % 16) * 0.25f);
    pairs[i] = __floats2half2_rn((i % 8) * 0.5f, (i % 5) - 2.0f);
  }
  const __half scale = __float2half(1.5f);

  std::vector<__half> want(n);
  std::vector<float> want_float(n);
  std::vector<int> want_flags(n);
  std::vector<__half2> want_pairs(n);
  for (int i = 0; i < n; ++i) {
    __half x = a[i], y = b[i];
    __half sum = __hadd(x, y);
    __half fused = __hfma(x, scale, y);
    want[i] = __hmax(__hmul(sum, __float2half(0.5f)), fused) - __hneg(y);
    want_float[i] = __half2float(x) * 4.0f + __half2float(fused);
    want_flags[i] = (__hlt(x, y) ? 1 : 0) | (__heq(x, y) ? 2 : 0) | (x >= scale ? 4 : 0) |
                    (__half2int_rz(sum) << 3);
    want_pairs[i] = __hfma2(pairs[i], __halves2half2(scale, y),
                            __hadd2(pairs[i], __float2half2_rn(1.0f)));
  }

  __half* d_a = to_device(a);
  __half* d_b = to_device(b);
  __half2* d_pairs = to_device(pairs);
  __half* d_out = nullptr;
  float* d_float = nullptr;
  int* d_flags = nullptr;
  __half2* d_out_pairs = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(__half)));
  HIP_CHECK(hipMalloc(&d_float, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&d_flags, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_out_pairs, n * sizeof(__half2)));
  auto start = std::chrono::steady_clock::now();
  half_kernel<<<(n + 127) / 128, 128>>>(d_a, d_b, d_pairs, scale, d_out, d_float, d_flags,
                                         d_out_pairs, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());
  auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start);
  std::printf("%s: half kernel took %.3f ms\n", props.name, ms.count());

  std::vector<__half> got = from_device(d_out, n);
  std::vector<__half2> got_pairs = from_device(d_out_pairs, n);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    bool ok = same(got[i], want[i]) && same(got_pairs[i].x, want_pairs[i].x) &&
              same(got_pairs[i].y, want_pairs[i].y);
    if (!ok && bad++ < 5) {
      std::printf("mismatch at %d: got %g (%g, %g), want %g (%g, %g)\n", i,
                  static_cast<double>(got[i]), static_cast<double>(got_pairs[i].x),
                  static_cast<double>(got_pairs[i].y), static_cast<double>(want[i]),
                  static_cast<double>(want_pairs[i].x), static_cast<double>(want_pairs[i].y));
    }
  }
  bad += count_mismatches("as_float", from_device(d_float, n), want_float);
  bad += count_mismatches("flags", from_device(d_flags, n), want_flags);
  for (void* p : {static_cast<void*>(d_a), static_cast<void*>(d_b), static_cast<void*>(d_pairs),
                  static_cast<void*>(d_out), static_cast<void*>(d_float),
                  static_cast<void*>(d_flags), static_cast<void*>(d_out_pairs)}) {
    HIP_CHECK(hipFree(p));
  }
  return report("half_precision", bad);
}
