// HIP's 8-bit floats (hip_fp8.h, FNUZ encodings): every one of the 256 codes of each format
// decoded on the device, and floats, doubles, halves and bfloat16s encoded with and without
// saturation, checked against a host reference built from the formats' definitions: the table of
// every code's value, searched for the nearest (ties to even mantissa).
#include "test_common.h"

#include <hip/hip_fp8.h>

#include <algorithm>
#include <cmath>
#include <cstring>

constexpr int kEncodings = 10;

__global__ void decode(float* out) {
  int code = threadIdx.x;
  __hip_fp8_e4m3_fnuz a;
  a.__x = static_cast<__hip_fp8_storage_t>(code);
  __hip_fp8_e5m2_fnuz b;
  b.__x = static_cast<__hip_fp8_storage_t>(code);
  out[code] = static_cast<float>(a);
  out[256 + code] = static_cast<float>(b);
  __half_raw h = __hip_cvt_fp8_to_halfraw(static_cast<__hip_fp8_storage_t>(code), __HIP_E5M2_FNUZ);
  out[512 + code] = __half2float(__ushort_as_half(h.x));
}

__global__ void encode(const float* f, unsigned char* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = f[i];
  unsigned char* o = out + kEncodings * i;
  o[0] = __hip_cvt_float_to_fp8(x, __HIP_SATFINITE, __HIP_E4M3_FNUZ);
  o[1] = __hip_cvt_float_to_fp8(x, __HIP_NOSAT, __HIP_E4M3_FNUZ);
  o[2] = __hip_cvt_float_to_fp8(x, __HIP_SATFINITE, __HIP_E5M2_FNUZ);
  o[3] = __hip_cvt_double_to_fp8(static_cast<double>(x), __HIP_NOSAT, __HIP_E5M2_FNUZ);
  o[4] = __hip_fp8_e4m3_fnuz(x).__x;  // the constructors saturate
  o[5] = __hip_fp8_e5m2_fnuz(static_cast<double>(x)).__x;
  __half_raw hr(__float2half(x));
  o[6] = __hip_cvt_halfraw_to_fp8(hr, __HIP_SATFINITE, __HIP_E4M3_FNUZ);
  o[7] = __hip_cvt_bfloat16raw_to_fp8(__hip_bfloat16(x), __HIP_SATFINITE, __HIP_E5M2_FNUZ);
  __hip_fp8x2_e4m3_fnuz pair(make_float2(x, -x));
  o[8] = static_cast<unsigned char>(pair.__x & 0xff);
  o[9] = static_cast<unsigned char>(pair.__x >> 8);
}

// ---- host reference from the formats' definitions ----
struct Format {
  int exponent_bits, mantissa_bits, bias;
  float value(int code) const {
    if (code == 0x80) return NAN;
    int e = (code >> mantissa_bits) & ((1 << exponent_bits) - 1), m = code & ((1 << mantissa_bits) - 1);
    float v = e == 0 ? std::ldexp(static_cast<float>(m), 1 - bias - mantissa_bits)
                     : std::ldexp(1.0f + static_cast<float>(m) / (1 << mantissa_bits), e - bias);
    return (code & 0x80) ? -v : v;
  }
  // The code of x rounded to nearest, ties to the even code; beyond the largest finite value by
  // half a step or more, the largest (saturating) or NaN.
  unsigned char encode(double x, bool saturate) const {
    if (std::isnan(x)) return 0x80;
    std::vector<std::pair<double, int>> values;
    for (int c = 0; c < 256; ++c) {
      if (c != 0x80) values.push_back({value(c), c});
    }
    std::sort(values.begin(), values.end());
    double largest = values.back().first;
    double step = largest - values[values.size() - 2].first;
    if (std::fabs(x) >= largest + step / 2) {
      return saturate ? static_cast<unsigned char>((x < 0 ? 0x80 : 0) | 0x7f) : 0x80;
    }
    int best = 0;
    double best_distance = INFINITY;
    for (auto& v : values) {
      double d = std::fabs(v.first - x);
      if (d < best_distance || (d == best_distance && (v.second & 1) == 0)) {
        best_distance = d;
        best = v.second;
      }
    }
    return static_cast<unsigned char>(best);
  }
};

int main() {
  const Format e4m3{4, 3, 8}, e5m2{5, 2, 16};
  float* ddec;
  HIP_CHECK(hipMalloc(&ddec, sizeof(float) * 768));
  decode<<<1, 256>>>(ddec);
  HIP_CHECK(hipGetLastError());
  std::vector<float> decoded = from_device(ddec, 768);
  int bad = 0;
  for (int c = 0; c < 256; ++c) {
    const float want[3] = {e4m3.value(c), e5m2.value(c), e5m2.value(c)};
    for (int k = 0; k < 3; ++k) {
      float have = decoded[k * 256 + c];
      if (!(have == want[k] || (std::isnan(have) && std::isnan(want[k])))) {
        if (bad < 8) std::printf("decode %d of code %#x: got %g, want %g\n", k, c, have, want[k]);
        ++bad;
      }
    }
  }
  // Inputs: every code's value and the midpoints and quarter points between neighbours (ties and
  // near-ties), values beyond the ranges, zeros, infinities and NaN.
  std::vector<float> inputs;
  for (const Format* fmt : {&e4m3, &e5m2}) {
    for (int c = 0; c < 128; ++c) {
      float v = fmt->value(c), next = c < 127 ? fmt->value(c + 1) : 2 * v;
      for (float t : {0.0f, 0.25f, 0.5f, 0.75f}) {
        inputs.push_back(v + t * (next - v));
        inputs.push_back(-(v + t * (next - v)));
      }
    }
  }
  for (float v : {1e6f, -1e6f, 300.0f, 70000.0f, INFINITY, -INFINITY, NAN, -0.0f, 1e-30f}) {
    inputs.push_back(v);
  }
  const int n = static_cast<int>(inputs.size());
  float* din = to_device(inputs);
  unsigned char* dout;
  HIP_CHECK(hipMalloc(&dout, kEncodings * n));
  encode<<<(n + 127) / 128, 128>>>(din, dout, n);
  HIP_CHECK(hipGetLastError());
  std::vector<unsigned char> got = from_device(dout, static_cast<size_t>(kEncodings) * n);
  for (int i = 0; i < n; ++i) {
    float x = inputs[i];
    // Halves and bfloat16s first round x to their own format (exactly, on the host).
    float as_half = static_cast<float>(static_cast<_Float16>(x));
    uint32_t u;
    std::memcpy(&u, &x, 4);
    if (!std::isnan(x)) u += 0x7fffu + ((u >> 16) & 1u);
    u &= 0xffff0000u;
    float as_bf16;
    std::memcpy(&as_bf16, &u, 4);
    if (std::isnan(x)) as_bf16 = NAN;
    const unsigned char want[kEncodings] = {e4m3.encode(x, true),       e4m3.encode(x, false),
                                            e5m2.encode(x, true),       e5m2.encode(x, false),
                                            e4m3.encode(x, true),       e5m2.encode(x, true),
                                            e4m3.encode(as_half, true), e5m2.encode(as_bf16, true),
                                            e4m3.encode(x, true),       e4m3.encode(-x, true)};
    for (int k = 0; k < kEncodings; ++k) {
      unsigned char have = got[static_cast<size_t>(kEncodings) * i + k];
      if (have != want[k]) {
        if (bad < 8) std::printf("encode %d of %a: got %#x, want %#x\n", k, (double)x, have, want[k]);
        ++bad;
      }
    }
  }
  HIP_CHECK(hipFree(ddec));
  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dout));
  return report("fp8_conversions", bad);
}
