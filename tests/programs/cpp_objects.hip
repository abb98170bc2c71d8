// C++ objects in device code: constructors with initializer lists and default member
// initializers, member functions and operators (member and free), references returned from
// operator[], temporaries, static members, namespaces.
#include "test_common.h"

#include <cmath>

namespace geometry {

struct Vec2 {
  float x, y;
  float weight = 1.5f;
  __host__ __device__ Vec2() : x(0), y(0) {}
  __host__ __device__ Vec2(float a, float b) : x(a), y(b) {}
  __host__ __device__ float dot(const Vec2& o) const { return x * o.x + y * o.y; }
  __host__ __device__ Vec2 operator+(const Vec2& o) const { return Vec2(x + o.x, y + o.y); }
  __host__ __device__ Vec2& operator+=(const Vec2& o) {
    x += o.x;
    y += o.y;
    return *this;
  }
  __host__ __device__ float& operator[](int i) { return i == 0 ? x : y; }
  __host__ __device__ void scale(float s) {
    x *= s;
    this->y *= s;
  }
  static constexpr int kDims = 2;
  __host__ __device__ static float norm1(const Vec2& v) { return (v.x < 0 ? -v.x : v.x) + (v.y < 0 ? -v.y : v.y); }
};

__host__ __device__ inline Vec2 operator*(float s, const Vec2& v) { return Vec2(s * v.x, s * v.y); }

class Accumulator {
 public:
  __host__ __device__ explicit Accumulator(int start) : total_(start) {}
  __host__ __device__ void add(int v) { total_ += v * kScale; }
  __host__ __device__ int total() const { return total_; }

 private:
  static constexpr int kScale = 3;
  int total_;
  int calls_ = 0;
};

}  // namespace geometry

using geometry::Vec2;

__host__ __device__ float evaluate(float a, float b, int n) {
  Vec2 p(a, b);
  Vec2 q;
  Vec2 r = p + q + 2.0f * p;
  r.scale(0.5f);
  r += Vec2(1.0f, -1.0f);
  r[1] = r[1] * 3.0f + r[0];
  geometry::Accumulator acc(n);
  for (int i = 0; i < Vec2::kDims; ++i) acc.add(static_cast<int>(r[i]));
  return r.dot(p) + Vec2::norm1(r) + acc.total() + r.weight + q.weight + (p + q).x;
}

__global__ void objects_kernel(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = evaluate(a[i], b[i], i);
}

int main() {
  const int n = 3000;
  std::vector<float> a(n), b(n), want(n);
  for (int i = 0; i < n; ++i) {
    a[i] = (i % 37) * 0.25f - 4.0f;
    b[i] = (i % 11) * 0.5f;
    want[i] = evaluate(a[i], b[i], i);
  }
  float* d_a = to_device(a);
  float* d_b = to_device(b);
  float* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(float)));
  objects_kernel<<<(n + 255) / 256, 256>>>(d_a, d_b, d_out, n);
  HIP_CHECK(hipGetLastError());
  std::vector<float> got = from_device(d_out, n);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    // Same arithmetic; contraction into fma may move the last bits.
    if (std::fabs(got[i] - want[i]) > 1e-4f * std::fabs(want[i]) + 1e-4f) {
      if (bad < 5) std::printf("at %d: got %g want %g\n", i, got[i], want[i]);
      ++bad;
    }
  }
  HIP_CHECK(hipFree(d_a));
  HIP_CHECK(hipFree(d_b));
  HIP_CHECK(hipFree(d_out));
  return report("cpp_objects", bad);
}
