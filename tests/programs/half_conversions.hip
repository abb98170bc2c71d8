// HIP's __half conversion intrinsics in every rounding mode: half to int, unsigned, short,
// unsigned short, long long and unsigned long long (_rn, _rz, _rd, _ru, saturating, NaN to 0);
// those integers and floats to half (_rn, _rz, _rd, _ru); __half_raw both ways; and the half
// math functions (hsqrt ... h2rint), each against a host reference found independently of the
// headers: the nearest half below and above a value from the sorted table of every finite half.
#include "test_common.h"

#include <hip/hip_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

constexpr int kHalfToInt = 6 * 4;   // six integer types, four modes
constexpr int kIntToHalf = 6 * 4 + 4;  // six integer types and float, four modes each
constexpr int kMath = 15;

__global__ void half_to_integers(const __half* h, long long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half x = h[i];
  long long* o = out + kHalfToInt * i;
  o[0] = __half2int_rn(x);
  o[1] = __half2int_rz(x);
  o[2] = __half2int_rd(x);
  o[3] = __half2int_ru(x);
  o[4] = __half2uint_rn(x);
  o[5] = __half2uint_rz(x);
  o[6] = __half2uint_rd(x);
  o[7] = __half2uint_ru(x);
  o[8] = __half2short_rn(x);
  o[9] = __half2short_rz(x);
  o[10] = __half2short_rd(x);
  o[11] = __half2short_ru(x);
  o[12] = __half2ushort_rn(x);
  o[13] = __half2ushort_rz(x);
  o[14] = __half2ushort_rd(x);
  o[15] = __half2ushort_ru(x);
  o[16] = __half2ll_rn(x);
  o[17] = __half2ll_rz(x);
  o[18] = __half2ll_rd(x);
  o[19] = __half2ll_ru(x);
  o[20] = (long long)__half2ull_rn(x);
  o[21] = (long long)__half2ull_rz(x);
  o[22] = (long long)__half2ull_rd(x);
  o[23] = (long long)__half2ull_ru(x);
}

__global__ void integers_to_half(const long long* v, const float* f, unsigned short* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long x = v[i];
  unsigned short* o = out + kIntToHalf * i;
  o[0] = __half_as_ushort(__int2half_rn((int)x));
  o[1] = __half_as_ushort(__int2half_rz((int)x));
  o[2] = __half_as_ushort(__int2half_rd((int)x));
  o[3] = __half_as_ushort(__int2half_ru((int)x));
  o[4] = __half_as_ushort(__uint2half_rn((unsigned int)x));
  o[5] = __half_as_ushort(__uint2half_rz((unsigned int)x));
  o[6] = __half_as_ushort(__uint2half_rd((unsigned int)x));
  o[7] = __half_as_ushort(__uint2half_ru((unsigned int)x));
  o[8] = __half_as_ushort(__short2half_rn((short)x));
  o[9] = __half_as_ushort(__short2half_rz((short)x));
  o[10] = __half_as_ushort(__short2half_rd((short)x));
  o[11] = __half_as_ushort(__short2half_ru((short)x));
  o[12] = __half_as_ushort(__ushort2half_rn((unsigned short)x));
  o[13] = __half_as_ushort(__ushort2half_rz((unsigned short)x));
  o[14] = __half_as_ushort(__ushort2half_rd((unsigned short)x));
  o[15] = __half_as_ushort(__ushort2half_ru((unsigned short)x));
  o[16] = __half_as_ushort(__ll2half_rn(x));
  o[17] = __half_as_ushort(__ll2half_rz(x));
  o[18] = __half_as_ushort(__ll2half_rd(x));
  o[19] = __half_as_ushort(__ll2half_ru(x));
  o[20] = __half_as_ushort(__ull2half_rn((unsigned long long)x));
  o[21] = __half_as_ushort(__ull2half_rz((unsigned long long)x));
  o[22] = __half_as_ushort(__ull2half_rd((unsigned long long)x));
  o[23] = __half_as_ushort(__ull2half_ru((unsigned long long)x));
  o[24] = __half_as_ushort(__float2half_rn(f[i]));
  o[25] = __half_as_ushort(__float2half_rz(f[i]));
  o[26] = __half_as_ushort(__float2half_rd(f[i]));
  o[27] = __half_as_ushort(__float2half_ru(f[i]));
}

// Half math and the raw conversions: results as bits.
__global__ void half_math(const __half* h, unsigned short* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half x = h[i];
  unsigned short* o = out + kMath * i;
  o[0] = __half_as_ushort(hsqrt(x));
  o[1] = __half_as_ushort(hexp(x));
  o[2] = __half_as_ushort(hlog(x));
  o[3] = __half_as_ushort(hsin(x));
  o[4] = __half_as_ushort(hcos(x));
  o[5] = __half_as_ushort(hfloor(x));
  o[6] = __half_as_ushort(hceil(x));
  o[7] = __half_as_ushort(htrunc(x));
  o[8] = __half_as_ushort(hrint(x));
  o[9] = __half_as_ushort(hrcp(x));
  __half2 pair = __halves2half2(x, __hneg(x));
  __half2 roots = h2sqrt(__habs2(pair));
  o[10] = __half_as_ushort(__high2half(roots));
  // The bits through __half_raw and back.
  __half_raw raw = x;
  __half back = raw;
  o[11] = raw.x;
  o[12] = __half_as_ushort(back);
  __half_raw built{static_cast<unsigned short>(raw.x ^ 0x8000u)};
  o[13] = __half_as_ushort(static_cast<__half>(built));
  o[14] = (unsigned short)((__hisnan(x) ? 1 : 0) | (__hisinf(x) ? 2 : 0) |
                           (__hbeq2(pair, pair) ? 4 : 0) | (__hequ(x, x) ? 8 : 0));
}

// ---- host references ----
static float half_value(unsigned short bits) {
  int e = (bits >> 10) & 0x1f, m = bits & 0x3ff;
  float v = e == 0 ? std::ldexp(static_cast<float>(m), -24)
                   : (e == 31 ? (m ? NAN : INFINITY)
                              : std::ldexp(static_cast<float>(1024 + m), e - 25));
  return (bits & 0x8000) ? -v : v;
}

struct HalfTable {
  std::vector<std::pair<double, unsigned short>> values;  // the non-NaN halves but -0, ascending
  HalfTable() {
    for (unsigned b = 0; b < 0x10000; ++b) {
      float v = half_value(static_cast<unsigned short>(b));
      if (!std::isnan(v) && b != 0x8000) values.push_back({v, static_cast<unsigned short>(b)});
    }
    std::sort(values.begin(), values.end());
  }
  // The half of value v in a mode (0 nearest even, 1 toward zero, 2 down, 3 up); a negative value
  // that rounds to zero gives -0.
  unsigned short round(double v, int mode) const {
    unsigned short r = round_magnitude(v, mode);
    return (r == 0 && std::signbit(v)) ? 0x8000 : r;
  }
  unsigned short round_magnitude(double v, int mode) const {
    if (std::isnan(v)) return 0x7e00;
    auto above = std::lower_bound(values.begin(), values.end(), std::make_pair(v, (unsigned short)0));
    if (above != values.end() && above->first == v) return above->second;
    auto below = above - 1;  // the infinities bound every value
    const double max_half = 65504.0;
    switch (mode) {
      case 1: return v > 0 ? below->second : above->second;
      case 2: return below->second;
      case 3: return above->second;
      default: {
        // Beyond the largest half by half its step or more: infinity.
        if (v >= max_half + 16.0) return 0x7c00;
        if (v <= -max_half - 16.0) return 0xfc00;
        if (below->first == -INFINITY) return above->second;
        if (above->first == INFINITY) return below->second;
        double db = v - below->first, da = above->first - v;
        if (db != da) return db < da ? below->second : above->second;
        return (below->second & 1) ? above->second : below->second;  // ties to even
      }
    }
  }
};

// r saturated to [lo, hi] (NaN to 0), as the 64 bits the kernel stores (unsigned 64-bit values
// reinterpreted as long long).
static long long saturate(double r, double lo, double hi, bool unsigned64) {
  if (std::isnan(r)) return 0;
  if (r <= lo) return static_cast<long long>(lo);
  if (r >= hi) {
    return unsigned64 ? static_cast<long long>(UINT64_MAX)
                      : (hi > 9.2e18 ? INT64_MAX : static_cast<long long>(hi));
  }
  return unsigned64 ? static_cast<long long>(static_cast<unsigned long long>(r))
                    : static_cast<long long>(r);
}

int main() {
  HalfTable table;
  // Halves: every 7th bit pattern (NaNs, infinities, subnormals, ties such as 2.5 included).
  std::vector<__half> halves;
  std::vector<unsigned short> half_bits;
  for (unsigned b = 0; b < 0x10000; b += 7) half_bits.push_back(static_cast<unsigned short>(b));
  for (unsigned short b : {0x4100, 0xc100, 0x3800, 0xb800, 0x7c00, 0xfc00, 0x7bff, 0x0001, 0x8000}) {
    half_bits.push_back(b);  // 2.5, -2.5, 0.5, -0.5, infinities, the largest, the smallest, -0
  }
  for (unsigned short b : half_bits) {
    __half h;
    std::memcpy(&h, &b, 2);
    halves.push_back(h);
  }
  const int nh = static_cast<int>(halves.size());

  // Integers of every size and floats around halves' steps and range ends.
  std::vector<long long> ints;
  std::vector<float> floats;
  uint64_t state = 12345;
  for (int i = 0; i < 4096; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    int shift = i % 64;
    long long v = static_cast<long long>(state >> shift);
    if (i % 3 == 0) v = -v;
    if (i % 7 == 0) v = 2049 + 2 * (i % 50);  // odd integers beyond 2048: halfway cases
    if (i % 11 == 0) v = 65504 + (i % 40) - 20;
    ints.push_back(v);
    float f = std::ldexp(static_cast<float>(state >> 40) / static_cast<float>(1ull << 24),
                         (i % 50) - 28);
    if (i % 2) f = -f;
    if (i % 13 == 0) f = 65520.0f + (i % 5) - 2;
    if (i % 17 == 0) f = i % 34 ? NAN : INFINITY;
    floats.push_back(f);
  }
  const int ni = static_cast<int>(ints.size());

  __half* dh = to_device(halves);
  long long *dints = to_device(ints), *dout_i;
  float* dfloats = to_device(floats);
  unsigned short *dout_h, *dout_m;
  HIP_CHECK(hipMalloc(&dout_i, sizeof(long long) * kHalfToInt * nh));
  HIP_CHECK(hipMalloc(&dout_h, sizeof(unsigned short) * kIntToHalf * ni));
  HIP_CHECK(hipMalloc(&dout_m, sizeof(unsigned short) * kMath * nh));
  half_to_integers<<<(nh + 127) / 128, 128>>>(dh, dout_i, nh);
  integers_to_half<<<(ni + 127) / 128, 128>>>(dints, dfloats, dout_h, ni);
  half_math<<<(nh + 127) / 128, 128>>>(dh, dout_m, nh);
  HIP_CHECK(hipGetLastError());
  std::vector<long long> got_i = from_device(dout_i, static_cast<size_t>(kHalfToInt) * nh);
  std::vector<unsigned short> got_h = from_device(dout_h, static_cast<size_t>(kIntToHalf) * ni);
  std::vector<unsigned short> got_m = from_device(dout_m, static_cast<size_t>(kMath) * nh);

  int bad = 0;
  // Half to integers: the value rounded, then saturated to the type.
  const double limits[6][2] = {{-2147483648.0, 2147483647.0},
                               {0.0, 4294967295.0},
                               {-32768.0, 32767.0},
                               {0.0, 65535.0},
                               {-9223372036854775808.0, 9223372036854775807.0},
                               {0.0, 18446744073709551615.0}};
  for (int i = 0; i < nh; ++i) {
    double v = half_value(half_bits[i]);
    const double rounded[4] = {std::nearbyint(v), std::trunc(v), std::floor(v), std::ceil(v)};
    for (int t = 0; t < 6; ++t) {
      for (int m = 0; m < 4; ++m) {
        long long want = saturate(rounded[m], limits[t][0], limits[t][1], t == 5);
        long long have = got_i[i * kHalfToInt + t * 4 + m];
        if (have != want) {
          if (bad < 8) std::printf("half %#x to type %d mode %d: got %lld, want %lld\n",
                                   half_bits[i], t, m, have, want);
          ++bad;
        }
      }
    }
  }
  // Integers and floats to half.
  for (int i = 0; i < ni; ++i) {
    long long x = ints[i];
    const double as[6] = {static_cast<double>(static_cast<int>(x)),
                          static_cast<double>(static_cast<unsigned int>(x)),
                          static_cast<double>(static_cast<short>(x)),
                          static_cast<double>(static_cast<unsigned short>(x)),
                          static_cast<double>(x),
                          static_cast<double>(static_cast<unsigned long long>(x))};
    for (int t = 0; t < 7; ++t) {
      // Doubles hold the 32-bit values exactly; 64-bit ones far beyond the halves round the same.
      double v = t < 6 ? as[t] : static_cast<double>(floats[i]);
      for (int m = 0; m < 4; ++m) {
        unsigned short want = table.round(v, m), have = got_h[i * kIntToHalf + t * 4 + m];
        bool same = want == have || (std::isnan(v) && (have & 0x7fff) > 0x7c00);
        if (!same) {
          if (bad < 8) std::printf("%.17g to half (type %d, mode %d): got %#x, want %#x\n", v, t, m,
                                   have, want);
          ++bad;
        }
      }
    }
  }
  // Math: the float function's result rounded to half; raw conversions and classification.
  for (int i = 0; i < nh; ++i) {
    float v = half_value(half_bits[i]);
    const float f[11] = {std::sqrt(v),  std::exp(v),   std::log(v),   std::sin(v),
                         std::cos(v),   std::floor(v), std::ceil(v),  std::trunc(v),
                         std::nearbyint(v), 1.0f / v, std::sqrt(std::fabs(v))};
    for (int k = 0; k < 11; ++k) {
      unsigned short have = got_m[i * kMath + k];
      unsigned short want = table.round(f[k], 0);
      bool same = have == want || (std::isnan(f[k]) && (have & 0x7fff) > 0x7c00);
      // exp, log, sin and cos: the device's float functions may differ from the host's by a few
      // float ulps, which can move a result across a half's rounding boundary: one step allowed.
      if (!same && k >= 1 && k <= 4 && !std::isnan(f[k])) {
        same = have == table.round(f[k], 2) || have == table.round(f[k], 3);
      }
      if (!same) {
        if (bad < 8) std::printf("half math %d of %g: got %#x, want %#x\n", k, v, have, want);
        ++bad;
      }
    }
    unsigned short b = half_bits[i];
    bool nan = std::isnan(v);
    // __hequ is unordered: true for NaN too.
    unsigned want_flags = (nan ? 1 : 0) | (std::isinf(v) ? 2 : 0) | (nan ? 0 : 4) | 8;
    if (got_m[i * kMath + 11] != b || got_m[i * kMath + 12] != b ||
        got_m[i * kMath + 13] != static_cast<unsigned short>(b ^ 0x8000u) ||
        got_m[i * kMath + 14] != want_flags) {
      if (bad < 8) std::printf("raw/flags of %#x: %#x %#x %#x %#x\n", b, got_m[i * kMath + 11],
                               got_m[i * kMath + 12], got_m[i * kMath + 13], got_m[i * kMath + 14]);
      ++bad;
    }
  }
  HIP_CHECK(hipFree(dh));
  HIP_CHECK(hipFree(dints));
  HIP_CHECK(hipFree(dfloats));
  HIP_CHECK(hipFree(dout_i));
  HIP_CHECK(hipFree(dout_h));
  HIP_CHECK(hipFree(dout_m));
  return report("half_conversions", bad);
}
