// __half2 as HIP's class (hip/hip_fp16.h): built from two halves, from one (a scalar of any
// arithmetic type is both lanes: `static_cast<__half2>(short)`), by brace initialization, and
// from its bits (__half2_raw, both ways); lane-wise operators and compound assignment; comparisons
// (both lanes); bit casts; lane moves. Inputs are small integers and divisors powers of two, so
// every result is exact: the device's bits are compared with a float reference converted to half.
#include "test_common.h"

#include <hip/hip_fp16.h>

constexpr int kPairs = 12;   // __half2 results per element
constexpr int kFlags = 8;    // int results per element

template <typename Scalar>
__device__ __half2 splat(Scalar s) {
  return static_cast<__half2>(s);
}

__global__ void half2_kernel(const short* a, const short* b, const int* shift, __half2* pairs,
                             int* flags, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __half ha = a[i], hb = b[i];
  __half2 p(ha, hb);                            // two halves
  __half2 q = {hb, ha};                         // brace initialization
  __half2 s = splat(a[i]);                      // a short in both lanes
  const __half2 zero = splat(0);                // +0, +0
  const __half2 scale = splat(static_cast<float>(1 << shift[i]));
  __half2* o = pairs + kPairs * i;
  o[0] = p;
  o[1] = q;
  o[2] = s;
  o[3] = p + q;
  o[4] = p - q;
  o[5] = p * q;
  o[6] = p / scale;
  o[7] = -p;
  __half2 acc = zero;
  acc += p;
  acc *= s;
  acc -= q;
  acc /= scale;
  o[8] = acc;
  __half2_raw raw = q;                          // to its bits
  raw.x = static_cast<unsigned short>(raw.x ^ 0x8000u);  // flip lane x's sign
  o[9] = raw;                                   // and back
  o[10] = __lowhigh2highlow(p) + __lows2half2(p, q);
  o[11] = __half2half2(__high2half(q)) + __halves2half2(ha, hb);

  int* f = flags + kFlags * i;
  f[0] = p == q;
  f[1] = p != q;
  f[2] = p < s;
  f[3] = p >= s;
  f[4] = __half_as_ushort(ha);
  __half_raw hr;
  hr.x = static_cast<unsigned short>(__half_as_short(hb));
  const __half back = __ushort_as_half(hr.x);
  f[5] = static_cast<int>(back) * 3;
  f[6] = __half_as_ushort(__ushort_as_half(static_cast<unsigned short>(0x3c00 + i)));
  f[7] = static_cast<int>(__low2float(s) + __high2float(zero));
}

static unsigned short bits(float v) {
  return __half_as_ushort(static_cast<__half>(v));
}

int main() {
  const int n = 777;
  std::vector<short> a(n), b(n);
  std::vector<int> shift(n);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<short>((i * 37) % 61 - 30);
    b[i] = static_cast<short>((i * 11) % 29 - 14);
    if (i % 9 == 0) b[i] = a[i];  // some equal pairs
    shift[i] = i % 5;
  }
  short* d_a = to_device(a);
  short* d_b = to_device(b);
  int* d_shift = to_device(shift);
  __half2* d_pairs = nullptr;
  int* d_flags = nullptr;
  HIP_CHECK(hipMalloc(&d_pairs, kPairs * n * sizeof(__half2)));
  HIP_CHECK(hipMalloc(&d_flags, kFlags * n * sizeof(int)));
  half2_kernel<<<(n + 127) / 128, 128>>>(d_a, d_b, d_shift, d_pairs, d_flags, n);
  HIP_CHECK(hipGetLastError());
  std::vector<__half2> got_pairs = from_device(d_pairs, kPairs * n);
  std::vector<int> flags = from_device(d_flags, kFlags * n);

  std::vector<unsigned short> got(2 * kPairs * n), want(2 * kPairs * n);
  std::vector<int> want_flags(kFlags * n);
  for (int i = 0; i < n; ++i) {
    const float x = a[i], y = b[i], d = static_cast<float>(1 << shift[i]);
    // (lane x, lane y) of each result, in the kernel's order.
    const float lanes[kPairs][2] = {
        {x, y},
        {y, x},
        {x, x},
        {x + y, y + x},
        {x - y, y - x},
        {x * y, y * x},
        {x / d, y / d},
        {-x, -y},
        {(x * x - y) / d, (y * x - x) / d},
        {-y, x},
        {y + x, x + y},
        {x + x, x + y},
    };
    for (int k = 0; k < kPairs; ++k) {
      const __half2 g = got_pairs[kPairs * i + k];
      got[2 * (kPairs * i + k)] = __half_as_ushort(g.x);
      got[2 * (kPairs * i + k) + 1] = __half_as_ushort(g.y);
      want[2 * (kPairs * i + k)] = bits(lanes[k][0]);
      want[2 * (kPairs * i + k) + 1] = bits(lanes[k][1]);
    }
    int* f = &want_flags[kFlags * i];
    f[0] = x == y;
    f[1] = x != y;
    f[2] = x < x && y < x;
    f[3] = !(x < x && y < x);
    f[4] = bits(x);
    f[5] = static_cast<int>(y) * 3;
    f[6] = 0x3c00 + i;
    f[7] = static_cast<int>(x);
  }
  int bad = count_mismatches("half2 lanes (bits)", got, want);
  bad += count_mismatches("half2 flags", flags, want_flags);
  // The host side of the same class: constructors, raw round trip, operators.
  std::vector<unsigned short> host_got, host_want;
  for (int i = 0; i < n; ++i) {
    const __half2 s = static_cast<__half2>(a[i]);
    const __half2 p(static_cast<__half>(a[i]), static_cast<__half>(b[i]));
    const __half2_raw raw = p;
    const __half2 back = raw;
    const __half2 sum = back + s;
    host_got.push_back(__half_as_ushort(sum.x));
    host_got.push_back(__half_as_ushort(sum.y));
    host_want.push_back(bits(2.0f * a[i]));
    host_want.push_back(bits(static_cast<float>(b[i]) + a[i]));
  }
  bad += count_mismatches("half2 on the host", host_got, host_want);
  HIP_CHECK(hipFree(d_a));
  HIP_CHECK(hipFree(d_b));
  HIP_CHECK(hipFree(d_shift));
  HIP_CHECK(hipFree(d_pairs));
  HIP_CHECK(hipFree(d_flags));
  return report("half2_constructors", bad);
}
