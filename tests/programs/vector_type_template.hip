// HIP_vector_type<T, N> as the class template float4 and the rest are instances of: generic code
// that specializes on it (a partial specialization deducing T and N), the constructors (N values
// converted to T, a scalar for every lane, braces), and the element-wise operators (arithmetic,
// %, bitwise, shifts, ++, unary minus, ==), in kernels and on the host alike.
#include "test_common.h"

#include <type_traits>

// A trait over vector types, as libraries write them.
template <class V>
struct lanes_of {
  static constexpr int value = 1;
};
template <class T, unsigned int N>
struct lanes_of<HIP_vector_type<T, N>> {
  static constexpr int value = static_cast<int>(N);
  typedef T element;
};
static_assert(lanes_of<float4>::value == 4, "float4 deduces as HIP_vector_type<float, 4>");
static_assert(lanes_of<uchar2>::value == 2, "uchar2");
static_assert(lanes_of<int>::value == 1, "a scalar");
static_assert(std::is_same<lanes_of<double3>::element, double>::value, "double3's element");
static_assert(std::is_same<HIP_vector_type<int, 4>, int4>::value, "int4");
static_assert(sizeof(float3) == 12 && alignof(float3) == 4, "three lanes: element alignment");
static_assert(sizeof(double4) == 32 && alignof(double4) == 32, "four lanes: aligned to size");
static_assert(std::is_trivially_copyable<float4>::value, "vectors pass to kernels by value");

// Sums the lanes of any vector type.
template <class V>
__host__ __device__ typename lanes_of<V>::element lane_sum(V v) {
  typename lanes_of<V>::element s = v.x;
  if constexpr (lanes_of<V>::value > 1) s += v.y;
  if constexpr (lanes_of<V>::value > 2) s += v.z;
  if constexpr (lanes_of<V>::value > 3) s += v.w;
  return s;
}

template <class Int4>
__host__ __device__ Int4 integer_ops(Int4 a, Int4 b) {
  Int4 r = (a % b) + (a & b) - (a | b) + (a ^ b);
  r += (a << 2) >> 1;
  ++r;
  Int4 c = r--;
  return c + r + (-a);
}

__host__ __device__ float float_ops(float x, float y) {
  float4 a(x, y, 1.5f, -2);     // four values, converted
  float4 b = float4(x);         // one value in every lane
  float4 c{0.5f, y, x, 4.0f};   // braces
  float2 d = make_float2(x, y) * 2.0f + float2(1.0f, 3.0f);
  float4 e = (a * b - c) / 2.0f;
  e -= float4(y);
  bool equal = (a == a) && !(a != a) && !(a == b && x != y);
  return lane_sum(e) + lane_sum(d) + (equal ? 1.0f : 0.0f);
}

__global__ void vectors(const float* x, const int* k, float* out_f, int* out_i, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out_f[i] = float_ops(x[i], x[(i + 1) % n]);
  int4 a = make_int4(k[i], k[i] + 3, -k[i], 7);
  int4 b = int4(k[(i + 5) % n] | 1, 5, 9, 3);
  out_i[i] = lane_sum(integer_ops(a, b));
}

int main() {
  const int n = 1024;
  std::vector<float> x(n);
  std::vector<int> k(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 37) * 0.25f - 3.0f;
    k[i] = (i * 7919) % 1000 + 1;
  }
  float* dx = to_device(x);
  int* dk = to_device(k);
  float* dof;
  int* doi;
  HIP_CHECK(hipMalloc(&dof, sizeof(float) * n));
  HIP_CHECK(hipMalloc(&doi, sizeof(int) * n));
  vectors<<<n / 128, 128>>>(dx, dk, dof, doi, n);
  HIP_CHECK(hipGetLastError());
  std::vector<float> got_f = from_device(dof, n);
  std::vector<int> got_i = from_device(doi, n);
  std::vector<float> want_f(n);
  std::vector<int> want_i(n);
  for (int i = 0; i < n; ++i) {
    // The same functions on the host (the vector types are host types too).
    want_f[i] = float_ops(x[i], x[(i + 1) % n]);
    int4 a = make_int4(k[i], k[i] + 3, -k[i], 7);
    int4 b = int4(k[(i + 5) % n] | 1, 5, 9, 3);
    want_i[i] = lane_sum(integer_ops(a, b));
  }
  // And an independent scalar reference for the integer operations.
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    const int a[4] = {k[i], k[i] + 3, -k[i], 7}, b[4] = {k[(i + 5) % n] | 1, 5, 9, 3};
    int sum = 0;
    for (int l = 0; l < 4; ++l) {
      int r = (a[l] % b[l]) + (a[l] & b[l]) - (a[l] | b[l]) + (a[l] ^ b[l]);
      r += (a[l] << 2) >> 1;
      ++r;
      int c = r--;
      sum += c + r - a[l];
    }
    if (sum != want_i[i]) ++bad;
  }
  bad += count_mismatches("float vector ops", got_f, want_f);
  bad += count_mismatches("int vector ops", got_i, want_i);
  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dk));
  HIP_CHECK(hipFree(dof));
  HIP_CHECK(hipFree(doi));
  return report("vector_type_template", bad);
}
