// hip/hip_complex.h and hip/hip_bf16.h on the device, checked against host references written
// independently of the headers: std::complex for the complex functions, and bfloat16 rounding
// found by comparing the two nearest bfloat16 values exactly in double.
#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <hip/hip_complex.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>

#include "test_common.h"

constexpr int N = 256;

struct ComplexResults {
  hipFloatComplex mul, div, fma, conj;
  float abs;
  hipDoubleComplex dmul, ddiv;
  double dabs;
};

__global__ void complex_ops(ComplexResults* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  hipFloatComplex z = make_hipFloatComplex(i * 0.5f - 30.0f, 2.0f - i * 0.25f);
  hipFloatComplex w = make_hipComplex(1.5f, -0.5f);
  ComplexResults r;
  r.mul = hipCmulf(z, w);
  r.div = hipCdivf(z, w);
  r.fma = hipCfmaf(z, w, hipConjf(z));
  r.conj = hipConjf(z);
  r.abs = hipCabsf(z);
  hipDoubleComplex dz = hipComplexFloatToDouble(z);
  hipDoubleComplex dw = make_hipDoubleComplex(hipCreal(hipComplexFloatToDouble(w)), -0.5);
  r.dmul = hipCmul(dz, dw);
  r.ddiv = hipCdiv(dz, dw);
  r.dabs = hipCabs(dz);
  out[i] = r;
}

// Inputs for bfloat16: values around rounding ties, NaN, infinities, tiny and huge values.
__host__ __device__ float bf16_input(int i) {
  const float specials[8] = {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 1.0e-30f, 3.0e38f, -7.75f};
  if (i < 8) return specials[i];
  // 1 + k/256 for k odd lies halfway between two bfloat16 values near 1.
  return (i % 2 ? -1.0f : 1.0f) * (1.0f + (i % 64) / 256.0f) * (float)(1 << (i % 13));
}

__global__ void bf16_ops(unsigned short* rounded, unsigned short* sums, unsigned short* products,
                         float* back, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __hip_bfloat16 a = __float2bfloat16(bf16_input(i));
  __hip_bfloat16 b = __float2bfloat16(bf16_input((i * 7 + 3) % n));
  rounded[i] = __bfloat16_as_ushort(a);
  sums[i] = __bfloat16_as_ushort(a + b);
  __hip_bfloat162 pair = __halves2bfloat162(a, b);
  products[i] = __bfloat16_as_ushort(__low2bfloat16(__hmul2(pair, pair)));
  back[i] = __bfloat162float(__hfma(a, b, __hneg(a)));
}

// The bfloat16 nearest to f (ties to even), found without the header's bit trick.
static uint16_t bf16_reference(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40);
  uint16_t down = static_cast<uint16_t>(u >> 16);
  if ((u & 0xffff) == 0) return down;
  uint16_t up = static_cast<uint16_t>(down + 1);
  // Above the largest finite bfloat16, the next value up is infinity, which rounding treats as
  // 2^128 (the next power of two).
  auto value = [](uint16_t b) {
    if ((b & 0x7fff) == 0x7f80) return (b & 0x8000) ? -std::ldexp(1.0, 128) : std::ldexp(1.0, 128);
    uint32_t v = static_cast<uint32_t>(b) << 16;
    float g;
    std::memcpy(&g, &v, 4);
    return static_cast<double>(g);
  };
  double dd = std::fabs(static_cast<double>(f) - value(down));
  double du = std::fabs(value(up) - static_cast<double>(f));
  if (dd < du) return down;
  if (du < dd) return up;
  return (down & 1) ? up : down;
}

static float bf16_value(uint16_t b) {
  uint32_t v = static_cast<uint32_t>(b) << 16;
  float g;
  std::memcpy(&g, &v, 4);
  return g;
}

static bool close(double got, double want, double tolerance) {
  return std::fabs(got - want) <= tolerance * std::fmax(1.0, std::fabs(want));
}

int main() {
  int bad = 0;

  ComplexResults* d_complex = nullptr;
  HIP_CHECK(hipMalloc(&d_complex, N * sizeof(ComplexResults)));
  complex_ops<<<N / 64, 64>>>(d_complex, N);
  HIP_CHECK(hipGetLastError());
  std::vector<ComplexResults> got(N);
  HIP_CHECK(hipMemcpy(got.data(), d_complex, N * sizeof(ComplexResults), hipMemcpyDeviceToHost));
  for (int i = 0; i < N; ++i) {
    std::complex<double> z(i * 0.5f - 30.0f, 2.0f - i * 0.25f), w(1.5, -0.5);
    const ComplexResults& r = got[i];
    bool ok = close(r.mul.x, (z * w).real(), 1e-6) && close(r.mul.y, (z * w).imag(), 1e-6) &&
              close(r.div.x, (z / w).real(), 1e-6) && close(r.div.y, (z / w).imag(), 1e-6) &&
              close(r.fma.x, (z * w + std::conj(z)).real(), 1e-6) &&
              close(r.fma.y, (z * w + std::conj(z)).imag(), 1e-6) && r.conj.x == z.real() &&
              r.conj.y == -z.imag() && close(r.abs, std::abs(z), 1e-6) &&
              close(r.dmul.x, (z * w).real(), 1e-14) && close(r.dmul.y, (z * w).imag(), 1e-14) &&
              close(r.ddiv.x, (z / w).real(), 1e-14) && close(r.ddiv.y, (z / w).imag(), 1e-14) &&
              close(r.dabs, std::abs(z), 1e-14);
    if (!ok && bad++ < 5) std::printf("complex %d: mismatch\n", i);
  }
  HIP_CHECK(hipFree(d_complex));

  unsigned short *d_rounded, *d_sums, *d_products;
  float* d_back;
  HIP_CHECK(hipMalloc(&d_rounded, N * sizeof(unsigned short)));
  HIP_CHECK(hipMalloc(&d_sums, N * sizeof(unsigned short)));
  HIP_CHECK(hipMalloc(&d_products, N * sizeof(unsigned short)));
  HIP_CHECK(hipMalloc(&d_back, N * sizeof(float)));
  bf16_ops<<<N / 64, 64>>>(d_rounded, d_sums, d_products, d_back, N);
  HIP_CHECK(hipGetLastError());
  std::vector<unsigned short> rounded(N), sums(N), products(N);
  std::vector<float> back(N);
  HIP_CHECK(hipMemcpy(rounded.data(), d_rounded, N * 2, hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(sums.data(), d_sums, N * 2, hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(products.data(), d_products, N * 2, hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(back.data(), d_back, N * 4, hipMemcpyDeviceToHost));
  for (int i = 0; i < N; ++i) {
    uint16_t a = bf16_reference(bf16_input(i));
    uint16_t b = bf16_reference(bf16_input((i * 7 + 3) % N));
    float fa = bf16_value(a), fb = bf16_value(b);
    uint16_t sum = bf16_reference(fa + fb);
    uint16_t product = bf16_reference(fa * fa);
    float fma = bf16_value(bf16_reference(fa * fb + -fa));
    if (rounded[i] != a || sums[i] != sum || products[i] != product ||
        !(back[i] == fma || (std::isnan(back[i]) && std::isnan(fma)))) {
      if (bad++ < 5)
        std::printf("bf16 %d: got %04x %04x %04x %g, want %04x %04x %04x %g\n", i, rounded[i],
                    sums[i], products[i], back[i], a, sum, product, fma);
    }
  }
  HIP_CHECK(hipFree(d_rounded));
  HIP_CHECK(hipFree(d_sums));
  HIP_CHECK(hipFree(d_products));
  HIP_CHECK(hipFree(d_back));

  if (bad) {
    std::printf("complex and bfloat16 FAILED: %d mismatches\n", bad);
    return 1;
  }
  std::printf("complex and bfloat16 PASSED: %d elements each\n", N);
  return 0;
}
