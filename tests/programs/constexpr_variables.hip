// Constants of host code read by device code, as clang takes them: the standard type traits'
// variable templates (std::is_same_v, std::is_integral_v, ...) in if constexpr and in
// expressions, variable templates of the program's own, constexpr arrays and structs at
// namespace scope indexed at run time, static constexpr members of class templates, and
// constexpr locals. Kernel templates instantiated for several types; every element checked.
#include "test_common.h"

#include <cstdint>
#include <limits>
#include <type_traits>

namespace stencil {
constexpr int kRadius = 2;
constexpr float kWeights[2 * kRadius + 1] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
}  // namespace stencil

struct Scale {
  int numerator, denominator;
};
constexpr Scale kScales[3] = {{1, 2}, {3, 4}, {5, 8}};

// The program's own variable templates, as libraries write them.
template <typename T>
inline constexpr int kLanes = 16 / sizeof(T);
template <typename T>
constexpr bool is_wide_v = sizeof(T) >= 8;
template <typename T>
constexpr T kBias[2] = {T(3), T(5)};

template <typename T>
struct Limits {
  static constexpr T lowest = std::numeric_limits<T>::lowest();
  static constexpr int digits = std::numeric_limits<T>::digits;
};

// What each type contributes: picked by type traits as library code picks it.
template <typename T>
__host__ __device__ int type_code() {
  int code = 0;
  if constexpr (std::is_integral_v<T>) {
    code += std::is_signed_v<T> ? 1 : 2;
  } else if constexpr (std::is_floating_point_v<T>) {
    code += std::is_same_v<T, float> ? 3 : 4;
  }
  code += 10 * kLanes<T> + 1000 * is_wide_v<T>;
  code += std::is_same<T, std::int64_t>::value ? 10000 : 0;
  return code;
}

template <typename T>
__global__ void blur(const T* in, T* out, int* codes, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int k = -stencil::kRadius; k <= stencil::kRadius; ++k) {
    int j = i + k < 0 ? 0 : (i + k >= n ? n - 1 : i + k);
    acc += stencil::kWeights[k + stencil::kRadius] * static_cast<float>(in[j]);
  }
  const Scale& s = kScales[i % 3];
  constexpr int kDigits = Limits<T>::digits;
  T value = static_cast<T>(acc * s.numerator / s.denominator) + kBias<T>[i % 2];
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    value = value < Limits<T>::lowest + 1 ? Limits<T>::lowest + 1 : value;
  }
  out[i] = value;
  codes[i] = type_code<T>() + kDigits * 100000;
}

template <typename T>
static int run(const char* name, int n) {
  std::vector<T> in(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<T>((i * 7) % 23);
  T* d_in = to_device(in);
  T* d_out = nullptr;
  int* d_codes = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(T)));
  HIP_CHECK(hipMalloc(&d_codes, n * sizeof(int)));
  blur<T><<<(n + 63) / 64, 64>>>(d_in, d_out, d_codes, n);
  HIP_CHECK(hipGetLastError());
  std::vector<T> out = from_device(d_out, n);
  std::vector<int> codes = from_device(d_codes, n);

  int bad = 0;
  for (int i = 0; i < n; ++i) {
    float acc = 0.0f;
    for (int k = -stencil::kRadius; k <= stencil::kRadius; ++k) {
      int j = i + k < 0 ? 0 : (i + k >= n ? n - 1 : i + k);
      acc += stencil::kWeights[k + stencil::kRadius] * static_cast<float>(in[j]);
    }
    const Scale& s = kScales[i % 3];
    T want = static_cast<T>(acc * s.numerator / s.denominator) + kBias<T>[i % 2];
    int want_code = type_code<T>() + Limits<T>::digits * 100000;
    bool ok = std::is_floating_point_v<T>
                  ? std::fabs(static_cast<double>(out[i] - want)) <= 1e-5 * (1 + std::fabs(double(want)))
                  : out[i] == want;
    if ((!ok || codes[i] != want_code) && bad++ < 5) {
      std::printf("%s: element %d: got %g (code %d), want %g (code %d)\n", name, i,
                  static_cast<double>(out[i]), codes[i], static_cast<double>(want), want_code);
    }
  }
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_codes));
  return report(name, bad);
}

int main() {
  const int n = 333;
  int failures = 0;
  failures += run<float>("float", n);
  failures += run<double>("double", n);
  failures += run<int>("int", n);
  failures += run<unsigned short>("unsigned short", n);
  failures += run<std::int64_t>("int64_t", n);
  return failures;
}
