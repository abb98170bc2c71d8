// The lambda forms of device code: mutable lambdas (state that persists across calls, copies
// with state of their own, passed by value and by reference to function templates),
// init-captures (by value, of objects, and by reference), lambdas capturing `this` (explicitly,
// through [=] and [&], from nested lambdas, reaching base-class members and member functions),
// [*this], and lambdas copied into other locals. Every element is compared with a host
// reference computed by the same code.
#include "test_common.h"

struct Vec3 {
  float x, y, z;
};

// Calls f n times with 0..n-1; takes f by value (its own copy), as algorithms do.
template <typename F>
__host__ __device__ float sum_of(F f, int n) {
  float s = 0;
  for (int k = 0; k < n; ++k) s += f(k);
  return s;
}

// The sum of n calls of f(); takes f by value: a mutable f's copy changes, not the caller's.
template <typename F>
__host__ __device__ float sum_of_calls(F f, int n) {
  float s = 0;
  for (int k = 0; k < n; ++k) s += f();
  return s;
}

// Calls f n times; takes f by reference, so a mutable f keeps what the calls did.
template <typename F>
__host__ __device__ void repeat(F& f, int n) {
  for (int k = 0; k < n; ++k) f();
}

struct Base {
  float offset;
};

struct Filter : Base {
  float gain;
  int taps;

  __host__ __device__ float scaled(float v) const { return v * gain; }

  __host__ __device__ float apply(const float* in, int i, int n) const {
    // [this] explicitly, a base-class member, a member function.
    auto at = [this, in, n](int k) { return k < n ? scaled(in[k]) + offset : 0.0f; };
    // [=] captures this implicitly; a nested [&] lambda reaches it too.
    auto window = [=](int k) {
      auto weight = [&] { return gain / static_cast<float>(taps); };
      return at(i + k) * weight();
    };
    float total = sum_of(window, taps);
    // [*this]: a copy of the object.
    auto copy = [*this](float v) { return v + gain + offset; };
    return copy(total);
  }
};

__host__ __device__ float forms(int i, const float* in, int n, Filter filter) {
  float acc = filter.apply(in, i, n);

  // A mutable counter: its state lives in the closure.
  int start = i % 5;
  auto counter = [start]() mutable { return ++start; };
  counter();
  counter();
  auto later = counter;  // a copy with the state so far, then its own
  later();
  repeat(counter, 3);           // by reference: counter advances
  float by_value = sum_of_calls(counter, 2);  // by value: a copy advances, counter does not
  acc += 100.0f * counter() + 10.0f * later() + by_value + start * 1000.0f;

  // Init-captures: a value, an object, and a reference.
  Vec3 v{in[i % n], 2.0f, 3.0f};
  float total = 0;
  auto dot = [scale = 0.5f * i, w = v, &sum = total](Vec3 u) {
    float d = scale * (u.x * w.x + u.y * w.y + u.z * w.z);
    sum += d;
    return d;
  };
  acc += dot(Vec3{1, 1, 1}) + dot(v);
  acc += total;

  // A mutable lambda with an init-capture, written where it is called.
  acc += [step = i % 3 + 1, k = 0]() mutable {
    for (int r = 0; r < 4; ++r) k += step;
    return static_cast<float>(k);
  }();

  // A plain copy of a lambda.
  auto square = [i](float x) { return x * x + i; };
  auto square_too = square;
  acc += square_too(3.0f) - square(2.0f);
  return acc;
}

__global__ void run(const float* in, float* out, int n, Filter filter) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = forms(i, in, n, filter);
}

int main() {
  const int n = 300;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<float>((i * 37) % 101) * 0.25f - 5.0f;
  float* d_in = to_device(in);
  float* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(float)));
  Filter filter;
  filter.offset = 0.5f;
  filter.gain = 1.5f;
  filter.taps = 4;
  run<<<(n + 127) / 128, 128>>>(d_in, d_out, n, filter);
  HIP_CHECK(hipGetLastError());
  std::vector<float> got = from_device(d_out, n);

  int bad = 0;
  for (int i = 0; i < n; ++i) {
    float want = forms(i, in.data(), n, filter);
    if (std::fabs(got[i] - want) > 1e-4f * (1.0f + std::fabs(want)) && bad++ < 5) {
      std::printf("element %d: got %.6f, want %.6f\n", i, got[i], want);
    }
  }
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return report("lambda forms", bad);
}
