// Pairs of halves lane by lane (__hadd2, __hsub2, __hmul2, __hmax2, __hmin2), single halves'
// __hmax/__hmin, and __byte_perm, on the values where implementations part ways: NaNs of both
// signs, signed zeros, infinities, the largest finite half, subnormals (the smallest, the
// largest, one between), and ordinary numbers, every operand paired with every other, lane x
// and lane y different. The host reference is written here on the halves' bits (not with
// hip_fp16.h): a sum, difference or product of two halves is exact enough in float (24 bits >=
// 2 * 11 + 2) that rounding it to a half once is correctly rounded. A NaN result is checked to
// be a NaN (its payload is the device's); __hmax/__hmin return the number when one operand is
// NaN (fmax, fmin), and either zero for +0 against -0. Signaling NaNs are left out: fmax may
// quiet them. __byte_perm: constant selectors (nibbles above 7 take their low three bits, bits
// 16 and up unused) and selectors read from memory.
#include "test_common.h"

#include <hip/hip_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>

// The halves under test, as bits.
static const uint16_t kValues[] = {
    0x0000, 0x8000,  // +0, -0
    0x0001, 0x8001,  // smallest subnormals
    0x03ff, 0x83ff,  // largest subnormals
    0x0200,          // a subnormal between
    0x0400,          // smallest normal
    0x3c00, 0xbc00,  // 1, -1
    0x3555, 0x4248,  // 0.333, 3.14
    0xc500,          // -5
    0x7bff, 0xfbff,  // largest finite
    0x7c00, 0xfc00,  // infinities
    0x7e00, 0xfe00,  // quiet NaNs
    0x7fff,          // a quiet NaN with a payload
};
constexpr int kCount = sizeof(kValues) / sizeof(kValues[0]);
constexpr int kN = kCount * kCount;

// Constant selectors of __byte_perm in the kernel, in this order.
static const uint32_t kSelectors[] = {0x3210u, 0x5410u, 0x7654u, 0x0123u,
                                      0x4444u, 0x89abu, 0xffff7351u, 0xcdefu};
constexpr int kPerms = sizeof(kSelectors) / sizeof(kSelectors[0]);
// Results per element of the permutation kernel: the constant selectors on a's and b's bits,
// a selector read from memory on them, and one on the difference's bits.
constexpr int kPermResults = kPerms + 2;

struct PairResults {
  __half2 add, sub, mul, max, min;
  __half hmax, hmin;
};

__global__ void pair_lanes(const __half2* a, const __half2* b, PairResults* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half2 x = a[i];
  __half2 y = b[i];
  out[i].add = __hadd2(x, y);
  out[i].sub = __hsub2(x, y);
  out[i].mul = __hmul2(x, y);
  out[i].max = __hmax2(x, y);
  out[i].min = __hmin2(x, y);
  out[i].hmax = __hmax(__low2half(x), __high2half(y));
  out[i].hmin = __hmin(__high2half(x), __low2half(y));
}

__global__ void permutations(const __half2* a, const __half2* b, const unsigned int* selectors,
                             unsigned int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned int x = reinterpret_cast<const unsigned int*>(a)[i];
  unsigned int y = reinterpret_cast<const unsigned int*>(b)[i];
  unsigned int* o = out + i * kPermResults;
  o[0] = __byte_perm(x, y, 0x3210u);
  o[1] = __byte_perm(x, y, 0x5410u);
  o[2] = __byte_perm(x, y, 0x7654u);
  o[3] = __byte_perm(x, y, 0x0123u);
  o[4] = __byte_perm(x, y, 0x4444u);
  o[5] = __byte_perm(x, y, 0x89abu);
  o[6] = __byte_perm(x, y, 0xffff7351u);
  o[7] = __byte_perm(x, y, 0xcdefu);
  o[8] = __byte_perm(x, y, selectors[i]);
  __half2 d = __hsub2(a[i], b[i]);
  unsigned int bits_d = *reinterpret_cast<const unsigned int*>(&d);
  o[9] = __byte_perm(bits_d, x, selectors[n - 1 - i]);
}

// ---- the host's reference, on bits ----

static uint16_t bits_of(__half h) {
  uint16_t u;
  std::memcpy(&u, &h, sizeof u);
  return u;
}

static bool is_nan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x03ffu) != 0; }
static bool is_zero(uint16_t h) { return (h & 0x7fffu) == 0; }

static float to_float(uint16_t h) {
  int sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  float magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    magnitude = mantissa ? NAN : INFINITY;
  } else {
    magnitude = std::ldexp(static_cast<float>(1024 + mantissa), exponent - 25);
  }
  return sign ? -magnitude : magnitude;
}

// Round to nearest even; a NaN becomes the quiet NaN 0x7e00 (only NaN-ness is compared).
static uint16_t to_half(float f) {
  if (std::isnan(f)) return 0x7e00;
  uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  double a = std::fabs(static_cast<double>(f));
  if (a >= 65520.0) return sign | 0x7c00;  // rounds to infinity
  // Units of the smallest subnormal (2^-24); normals have 11 significant bits.
  int e = a == 0 ? -25 : std::ilogb(a);
  double ulp = std::ldexp(1.0, (e < -14 ? -14 : e) - 10);
  double q = a / ulp;
  double r = std::nearbyint(q);  // the default rounding: to nearest, ties to even
  double rounded = r * ulp;
  if (rounded == 0) return sign;
  int re = std::ilogb(rounded);
  if (re < -14) return sign | static_cast<uint16_t>(std::ldexp(rounded, 24));
  uint16_t mantissa = static_cast<uint16_t>(std::ldexp(rounded, 10 - re) - 1024);
  return sign | static_cast<uint16_t>((re + 15) << 10) | mantissa;
}

// fmax/fmin: the number when one is NaN.
static uint16_t fmax_bits(uint16_t a, uint16_t b) {
  if (is_nan(a)) return b;
  if (is_nan(b)) return a;
  return to_float(a) >= to_float(b) ? a : b;
}

static uint16_t fmin_bits(uint16_t a, uint16_t b) {
  if (is_nan(a)) return b;
  if (is_nan(b)) return a;
  return to_float(a) <= to_float(b) ? a : b;
}

static uint32_t byte_perm(uint32_t x, uint32_t y, uint32_t s) {
  uint64_t v = (static_cast<uint64_t>(y) << 32) | x;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t select = (s >> (4 * i)) & 7u;
    r |= static_cast<uint32_t>((v >> (8 * select)) & 0xffu) << (8 * i);
  }
  return r;
}

static uint32_t word_of(__half2 p) {
  uint32_t u;
  std::memcpy(&u, &p, sizeof u);
  return u;
}

static __half2 pair_of(uint16_t x, uint16_t y) {
  uint32_t u = x | (static_cast<uint32_t>(y) << 16);
  __half2 p;
  std::memcpy(&p, &u, sizeof u);
  return p;
}

// A lane's result against the reference: NaN for NaN, either zero where a max or min of +0
// and -0 may give either, else the same bits.
static bool lane_ok(uint16_t got, uint16_t want, bool zeros_either) {
  if (is_nan(want)) return is_nan(got);
  if (zeros_either && is_zero(want)) return is_zero(got);
  return got == want;
}

static int check_lane(const char* what, int i, uint16_t got, uint16_t want, bool zeros_either,
                      int& shown) {
  if (lane_ok(got, want, zeros_either)) return 0;
  if (shown++ < 10) {
    std::printf("%s: element %d: got 0x%04x, want 0x%04x\n", what, i, got, want);
  }
  return 1;
}

int main() {
  std::vector<__half2> a(kN), b(kN);
  for (int i = 0; i < kN; ++i) {
    // Every value against every other in lane x; lane y pairs them differently.
    uint16_t ax = kValues[i % kCount], bx = kValues[i / kCount];
    uint16_t ay = kValues[(i / kCount + 3) % kCount], by = kValues[(i * 7 + 1) % kCount];
    a[i] = pair_of(ax, ay);
    b[i] = pair_of(bx, by);
  }
  std::vector<unsigned int> selectors(kN);
  uint32_t state = 12345;
  for (int i = 0; i < kN; ++i) {
    state = state * 1664525u + 1013904223u;
    selectors[i] = state;
  }

  __half2* d_a = to_device(a);
  __half2* d_b = to_device(b);
  unsigned int* d_selectors = to_device(selectors);
  PairResults* d_out = nullptr;
  unsigned int* d_perms = nullptr;
  HIP_CHECK(hipMalloc(&d_out, kN * sizeof(PairResults)));
  HIP_CHECK(hipMalloc(&d_perms, kN * kPermResults * sizeof(unsigned int)));
  const int block = 64;
  const int grid = (kN + block - 1) / block;
  hipLaunchKernelGGL(pair_lanes, dim3(grid), dim3(block), 0, 0, d_a, d_b, d_out, kN);
  HIP_CHECK(hipGetLastError());
  hipLaunchKernelGGL(permutations, dim3(grid), dim3(block), 0, 0, d_a, d_b, d_selectors, d_perms,
                     kN);
  HIP_CHECK(hipGetLastError());
  std::vector<PairResults> out(kN);
  std::vector<unsigned int> perms(kN * kPermResults);
  HIP_CHECK(hipMemcpy(out.data(), d_out, kN * sizeof(PairResults), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(perms.data(), d_perms, perms.size() * sizeof(unsigned int),
                      hipMemcpyDeviceToHost));

  int bad = 0, shown = 0;
  for (int i = 0; i < kN; ++i) {
    uint32_t wa = word_of(a[i]), wb = word_of(b[i]);
    uint16_t x[2] = {static_cast<uint16_t>(wa), static_cast<uint16_t>(wa >> 16)};
    uint16_t y[2] = {static_cast<uint16_t>(wb), static_cast<uint16_t>(wb >> 16)};
    const PairResults& r = out[i];
    uint32_t got[5] = {word_of(r.add), word_of(r.sub), word_of(r.mul), word_of(r.max),
                       word_of(r.min)};
    for (int lane = 0; lane < 2; ++lane) {
      float fx = to_float(x[lane]), fy = to_float(y[lane]);
      uint16_t want[5] = {to_half(fx + fy), to_half(fx - fy), to_half(fx * fy),
                          fmax_bits(x[lane], y[lane]), fmin_bits(x[lane], y[lane])};
      static const char* names[5] = {"__hadd2", "__hsub2", "__hmul2", "__hmax2", "__hmin2"};
      for (int op = 0; op < 5; ++op) {
        uint16_t g = static_cast<uint16_t>(got[op] >> (16 * lane));
        bad += check_lane(names[op], i, g, want[op], op >= 3, shown);
      }
    }
    bad += check_lane("__hmax", i, bits_of(r.hmax), fmax_bits(x[0], y[1]), true, shown);
    bad += check_lane("__hmin", i, bits_of(r.hmin), fmin_bits(x[1], y[0]), true, shown);

    // The difference's bits as the kernel had them (checked above, lane by lane).
    uint32_t d = word_of(r.sub);
    std::vector<uint32_t> want_perm(kPermResults);
    for (int p = 0; p < kPerms; ++p) want_perm[p] = byte_perm(wa, wb, kSelectors[p]);
    want_perm[kPerms] = byte_perm(wa, wb, selectors[i]);
    want_perm[kPerms + 1] = byte_perm(d, wa, selectors[kN - 1 - i]);
    for (int p = 0; p < kPermResults; ++p) {
      uint32_t g = perms[i * kPermResults + p];
      // The last one permutes a difference whose NaN payloads are the device's.
      bool nan_lane = is_nan(static_cast<uint16_t>(d)) || is_nan(static_cast<uint16_t>(d >> 16));
      if (p == kPerms + 1 && nan_lane) continue;
      if (g != want_perm[p]) {
        if (shown++ < 10) {
          std::printf("__byte_perm %d: element %d: got 0x%08x, want 0x%08x\n", p, i, g,
                      want_perm[p]);
        }
        ++bad;
      }
    }
  }

  HIP_CHECK(hipFree(d_a));
  HIP_CHECK(hipFree(d_b));
  HIP_CHECK(hipFree(d_selectors));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_perms));
  if (bad) {
    std::printf("FAILED: %d mismatches\n", bad);
    return 1;
  }
  std::printf("PASSED\n");
  return 0;
}
