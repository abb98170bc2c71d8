// HIP's device intrinsics beyond the math library: bit reinterpretation (__float_as_int ...),
// conversions with rounding modes (__float2int_rn/_rz/_rd/_ru ...), `_rn` arithmetic,
// __saturatef, high halves of products (__umulhi, __mul64hi ...), 24-bit products, __sad and
// __ldg. Host references are written out independently of the device definitions.
#include "test_common.h"

#include <cmath>
#include <cstdint>
#include <cstring>

constexpr int kOutputs = 16;

__global__ void intrinsics_kernel(const float* f, const int* i, const long long* l, long long* out,
                                  int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  float x = __ldg(f + t);
  int a = __ldg(&i[t]);
  int b = i[(t + 7) % n];
  long long p = l[t];
  long long q = l[(t + 3) % n];
  long long* o = out + kOutputs * t;
  o[0] = __float_as_int(x);
  o[1] = __float_as_uint(__int_as_float(a)) == (unsigned int)a ? 1 : 0;
  o[2] = __float2int_rn(x);
  o[3] = __float2int_rz(x);
  o[4] = __float2int_rd(x);
  o[5] = __float2int_ru(x);
  o[6] = __double2ll_rn((double)x * 1000.5);
  o[7] = __float_as_int(__fmaf_rn(x, 3.0f, __fmul_rn(x, x)));
  o[8] = __float_as_int(__saturatef(x * 0.25f));
  o[9] = __mulhi(a, b);
  o[10] = __umulhi((unsigned int)a, (unsigned int)b);
  o[11] = (long long)__umul64hi((unsigned long long)p, (unsigned long long)q);
  o[12] = __mul64hi(p, q);
  o[13] = __mul24(a & 0x7fffff, b & 0x7fffff);
  o[14] = __sad(a, b, 5u);
  o[15] = __double_as_longlong(__longlong_as_double(p)) == p ? 1 : 0;
}

static long long bits_of(float v) {
  int32_t r;
  std::memcpy(&r, &v, sizeof r);
  return r;
}

static uint64_t umul64hi(uint64_t a, uint64_t b) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
}

int main() {
  const int n = 4096;
  std::vector<float> f(n);
  std::vector<int> i(n);
  std::vector<long long> l(n);
  for (int k = 0; k < n; ++k) {
    // Values on both sides of zero, halves (for rounding to even) and the [0, 4] range.
    f[k] = (k % 2 ? -1.0f : 1.0f) * (k % 40) * 0.25f + (k % 7 == 0 ? 0.5f : 0.0f);
    i[k] = static_cast<int>((k * 2654435761u) ^ (k << 7));
    l[k] = static_cast<long long>((k + 1) * 0x9E3779B97F4A7C15ull);
  }
  std::vector<long long> want(static_cast<size_t>(kOutputs) * n);
  for (int t = 0; t < n; ++t) {
    float x = f[t];
    int a = i[t], b = i[(t + 7) % n];
    long long p = l[t], q = l[(t + 3) % n];
    long long* o = &want[static_cast<size_t>(kOutputs) * t];
    o[0] = bits_of(x);
    o[1] = 1;
    o[2] = static_cast<int>(std::nearbyint(x));
    o[3] = static_cast<int>(x);
    o[4] = static_cast<int>(std::floor(x));
    o[5] = static_cast<int>(std::ceil(x));
    o[6] = static_cast<long long>(std::nearbyint(static_cast<double>(x) * 1000.5));
    o[7] = bits_of(std::fma(x, 3.0f, x * x));
    o[8] = bits_of(std::fmin(std::fmax(x * 0.25f, 0.0f), 1.0f));
    o[9] = static_cast<int>((static_cast<long long>(a) * b) >> 32);
    o[10] = static_cast<unsigned int>((static_cast<uint64_t>(static_cast<unsigned>(a)) *
                                       static_cast<unsigned>(b)) >> 32);
    o[11] = static_cast<long long>(umul64hi(static_cast<uint64_t>(p), static_cast<uint64_t>(q)));
    o[12] = static_cast<long long>((static_cast<__int128>(p) * q) >> 64);
    int a24 = a & 0x7fffff, b24 = b & 0x7fffff;
    o[13] = static_cast<int>(static_cast<uint32_t>(a24 * static_cast<long long>(b24)));
    o[14] = static_cast<unsigned int>(std::llabs(static_cast<long long>(a) - b) + 5);
    o[15] = 1;
  }

  hipDeviceProp_t props;
  HIP_CHECK(hipGetDeviceProperties(&props, 0));
  float* d_f = to_device(f);
  int* d_i = to_device(i);
  long long* d_l = to_device(l);
  long long* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, want.size() * sizeof(long long)));
  hipLaunchKernelGGL(intrinsics_kernel, dim3((n + 255) / 256), dim3(256), 0, 0, d_f, d_i, d_l,
                     d_out, n);
  HIP_CHECK(hipGetLastError());
  std::vector<long long> got = from_device(d_out, want.size());
  std::printf("%s: %d threads x %d intrinsics\n", props.name, n, kOutputs);
  HIP_CHECK(hipFree(d_f));
  HIP_CHECK(hipFree(d_i));
  HIP_CHECK(hipFree(d_l));
  HIP_CHECK(hipFree(d_out));
  return report("intrinsics", count_mismatches("out", got, want));
}
