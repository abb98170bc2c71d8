// HIP's bfloat16 types as real code uses them: __hip_bfloat16 built from float, double and
// integers by functional and C-style casts and by assignment, read back as float, with its
// operators and raw conversions; and hip_bfloat16 (the libraries' type) with its operators,
// increments and truncation. The host reference rounds by searching the sorted table of every
// bfloat16 for the nearest one (ties to even), independently of the headers.
#include "test_common.h"

#include <hip/hip_bf16.h>
#include <hip/hip_bfloat16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

constexpr int kOutputs = 12;

__global__ void construct(const float* f, const double* d, const int* i, unsigned short* out,
                          float* back, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  unsigned short* o = out + kOutputs * t;
  __hip_bfloat16 functional = __hip_bfloat16(f[t]);
  __hip_bfloat16 c_style = (__hip_bfloat16)d[t];
  __hip_bfloat16 from_int = __hip_bfloat16(i[t]);
  __hip_bfloat16 assigned;
  assigned = f[t];
  o[0] = __bfloat16_as_ushort(functional);
  o[1] = __bfloat16_as_ushort(c_style);
  o[2] = __bfloat16_as_ushort(from_int);
  o[3] = __bfloat16_as_ushort(assigned);
  o[4] = __bfloat16_as_ushort(__double2bfloat16(d[t]));
  // Operators, computed in float and rounded once.
  __hip_bfloat16 a = functional, b = from_int;
  o[5] = __bfloat16_as_ushort(a * b + a);
  o[6] = __bfloat16_as_ushort(-a / b);
  __hip_bfloat16 acc = a;
  acc += b;
  acc *= b;
  o[7] = __bfloat16_as_ushort(acc);
  // Raw conversions both ways.
  __hip_bfloat16_raw raw = a;
  __hip_bfloat16 from_raw = raw;
  o[8] = raw.x == __bfloat16_as_ushort(from_raw) ? 1 : 0;
  // hip_bfloat16: explicit from float (rounded, or truncated), operators, increments.
  hip_bfloat16 h(f[t]);
  hip_bfloat16 cut(f[t], hip_bfloat16::truncate);
  hip_bfloat16 g = h;
  g++;
  ++g;
  g -= hip_bfloat16(1.0f);
  o[9] = h.data;
  o[10] = cut.data;
  o[11] = g.data;
  back[t] = static_cast<float>(a) + float(h);
}

static float bf16_value(unsigned short b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

struct Table {
  std::vector<std::pair<double, unsigned short>> values;  // non-NaN bfloat16s but -0, ascending
  Table() {
    for (unsigned b = 0; b < 0x10000; ++b) {
      float v = bf16_value(static_cast<unsigned short>(b));
      if (!std::isnan(v) && b != 0x8000) values.push_back({v, static_cast<unsigned short>(b)});
    }
    std::sort(values.begin(), values.end());
  }
  unsigned short nearest(double v) const {
    if (std::isnan(v)) return 0x7fc0;
    auto above = std::lower_bound(values.begin(), values.end(), std::make_pair(v, (unsigned short)0));
    unsigned short r;
    if (above != values.end() && above->first == v) {
      r = above->second;
    } else {
      auto below = above - 1;
      const double max = bf16_value(0x7f7f), step = std::ldexp(1.0, 127 - 7);
      if (v >= max + step / 2) {
        r = 0x7f80;
      } else if (v <= -max - step / 2) {
        r = 0xff80;
      } else if (below->first == -INFINITY) {
        r = above->second;
      } else if (above->first == INFINITY) {
        r = below->second;
      } else {
        double db = v - below->first, da = above->first - v;
        r = db != da ? (db < da ? below->second : above->second)
                     : ((below->second & 1) ? above->second : below->second);
      }
    }
    return (r == 0 && std::signbit(v)) ? 0x8000 : r;
  }
};

static bool same(unsigned short have, unsigned short want) {
  bool nan_have = (have & 0x7fff) > 0x7f80, nan_want = (want & 0x7fff) > 0x7f80;
  return nan_have || nan_want ? nan_have && nan_want : have == want;
}

int main() {
  Table table;
  const int n = 4096;
  std::vector<float> f(n);
  std::vector<double> d(n);
  std::vector<int> ints(n);
  uint64_t state = 7;
  for (int t = 0; t < n; ++t) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t bits = static_cast<uint32_t>(state >> 32);
    std::memcpy(&f[t], &bits, 4);
    if (t % 4 == 0) f[t] = 1.0f + static_cast<float>(t % 256) / 256.0f;  // ties at 1 + k/256
    if (t % 4 == 1) f[t] = std::ldexp(f[t], -static_cast<int>(std::ilogb(f[t])) + (t % 20) - 10);
    d[t] = static_cast<double>(f[t]) * (1.0 + std::ldexp(1.0, -30) * (t % 7));  // not floats
    if (t % 9 == 0) d[t] = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);  // just past a tie
    ints[t] = static_cast<int>(state >> (t % 40));
    if (t % 5 == 0) ints[t] = (1 << 24) + (1 << 16) + 1 + t;  // beyond float's exact integers
  }
  float* df = to_device(f);
  double* dd = to_device(d);
  int* di = to_device(ints);
  unsigned short* dout;
  float* dback;
  HIP_CHECK(hipMalloc(&dout, sizeof(unsigned short) * kOutputs * n));
  HIP_CHECK(hipMalloc(&dback, sizeof(float) * n));
  construct<<<(n + 127) / 128, 128>>>(df, dd, di, dout, dback, n);
  HIP_CHECK(hipGetLastError());
  std::vector<unsigned short> got = from_device(dout, static_cast<size_t>(kOutputs) * n);
  std::vector<float> back = from_device(dback, n);

  int bad = 0;
  for (int t = 0; t < n; ++t) {
    const unsigned short* o = &got[static_cast<size_t>(kOutputs) * t];
    unsigned short a = table.nearest(f[t]), b = table.nearest(ints[t]);
    double fa = bf16_value(a), fb = bf16_value(b);
    unsigned short acc = table.nearest(bf16_value(table.nearest(fa + fb)) * fb);
    // hip_bfloat16: ties to even too, and truncation keeps the upper half; NaNs stay NaNs.
    uint32_t fbits;
    std::memcpy(&fbits, &f[t], 4);
    unsigned short h = table.nearest(f[t]);
    unsigned short cut = std::isnan(f[t]) ? 0x7fc0 : static_cast<unsigned short>(fbits >> 16);
    unsigned short g = table.nearest(
        bf16_value(table.nearest(bf16_value(table.nearest(bf16_value(h) + 1.0)) + 1.0)) - 1.0);
    const unsigned short want[kOutputs] = {a,
                                           table.nearest(d[t]),
                                           b,
                                           a,
                                           table.nearest(d[t]),
                                           table.nearest(bf16_value(table.nearest(fa * fb)) + fa),
                                           table.nearest(-fa / fb),
                                           acc,
                                           1,
                                           h,
                                           cut,
                                           g};
    for (int k = 0; k < kOutputs; ++k) {
      if (!same(o[k], want[k])) {
        if (bad < 8) {
          std::printf("value %d output %d (f %a, d %a, int %d): got %#x, want %#x\n", t, k,
                      (double)f[t], d[t], ints[t], o[k], want[k]);
        }
        ++bad;
      }
    }
    float want_back = bf16_value(a) + bf16_value(h);
    if (!(back[t] == want_back || (std::isnan(back[t]) && std::isnan(want_back)))) {
      if (bad < 8) std::printf("value %d as float: got %a, want %a\n", t, back[t], want_back);
      ++bad;
    }
  }
  HIP_CHECK(hipFree(df));
  HIP_CHECK(hipFree(dd));
  HIP_CHECK(hipFree(di));
  HIP_CHECK(hipFree(dout));
  HIP_CHECK(hipFree(dback));
  return report("bfloat16_values", bad);
}
