// Braced lists used as values in device code, as real code writes them: `return {a, b, c};`
// from a function returning a struct, `{a, b}` passed to a by-value or const-reference struct
// parameter, assigned (`p = {x, y}`), and braced scalars (`T{}`, `float{v}`) in templates.
#include "test_common.h"

struct Vec3 {
  float x, y, z;
  __host__ __device__ Vec3 operator+(const Vec3& o) const { return {x + o.x, y + o.y, z + o.z}; }
  __host__ __device__ Vec3 scaled(float s) const { return {x * s, y * s, z * s}; }
};

struct Pair {
  int key;
  float value;
};

__host__ __device__ float dot(Vec3 a, const Vec3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
__host__ __device__ float weigh(const Pair& p) { return p.key * p.value; }

template <typename T>
__host__ __device__ T zero_or(bool pick, T v) {
  return pick ? T{} : T{v};
}

__global__ void braced(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  Vec3 a = Vec3{v, 2 * v, 3 * v} + Vec3{1, 1, 1};
  Pair p;
  p = {i % 7, v};
  out[i] = dot(a.scaled(0.5f), {1.0f, -1.0f, 2.0f}) + weigh({i % 3, 0.25f}) + weigh(p) +
           zero_or(i % 2 == 0, v) + static_cast<float>(zero_or<int>(false, i));
}

int main() {
  const int n = 300;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = 0.5f * i - 40.0f;
  float* d_in = to_device(in);
  float* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(float)));
  braced<<<(n + 63) / 64, 64>>>(d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  std::vector<float> got = from_device(d_out, n);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    float v = in[i];
    Vec3 a = Vec3{v, 2 * v, 3 * v} + Vec3{1, 1, 1};
    Pair p = {i % 7, v};
    float want = dot(a.scaled(0.5f), {1.0f, -1.0f, 2.0f}) + weigh({i % 3, 0.25f}) + weigh(p) +
                 zero_or(i % 2 == 0, v) + static_cast<float>(zero_or<int>(false, i));
    if (std::fabs(got[i] - want) > 1e-4f * std::fmax(1.0f, std::fabs(want))) {
      if (bad < 5) std::printf("mismatch at %d: got %g, want %g\n", i, got[i], want);
      ++bad;
    }
  }
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  if (bad) {
    std::printf("FAILED: %d mismatches\n", bad);
    return 1;
  }
  std::printf("PASSED\n");
  return 0;
}
