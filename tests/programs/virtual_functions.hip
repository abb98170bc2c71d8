// Virtual functions in device code, with objects built on the device: an abstract base class
// with pure virtual functions, derived classes (a class template among them) overriding them
// over three levels, calls through base pointers and references, a base-class member function
// calling a virtual one (the template-method pattern), a qualified call of a base's version,
// virtual calls in a constructor (they see the constructor's own class, as C++ says), virtual
// destructors run through a base pointer by delete (derived part first, then the base's), and
// implicit constructors, sliced copies and assignments (an object keeps its own class). Every element is compared with a host reference computed by the same classes.
#include "test_common.h"

#include <new>

struct Integrand {
  int* destroyed;  // counts destructions, derived and base parts apart
  int kind_at_construction;

  __host__ __device__ explicit Integrand(int* d) : destroyed(d) { kind_at_construction = kind(); }
  __host__ __device__ virtual ~Integrand() { destroyed[0] += 1; }
  __host__ __device__ virtual float eval(float x) const = 0;
  __host__ __device__ virtual int kind() const { return 0; }
  // The template-method pattern: a non-virtual member calling virtual ones.
  __host__ __device__ float integrate(float a, float b, int steps) const {
    float h = (b - a) / steps, sum = 0.0f;
    for (int k = 0; k < steps; ++k) sum += eval(a + (k + 0.5f) * h) * h;
    return sum + 1000.0f * kind();
  }
};

struct Linear : Integrand {
  float slope;
  __host__ __device__ Linear(int* d, float s) : Integrand(d), slope(s) {}
  __host__ __device__ ~Linear() override { destroyed[1] += 1; }
  __host__ __device__ float eval(float x) const override { return slope * x; }
  __host__ __device__ int kind() const override { return 1; }
};

// A second level: overrides one function, inherits the other.
struct Affine : Linear {
  float offset;
  __host__ __device__ Affine(int* d, float s, float o) : Linear(d, s), offset(o) {}
  __host__ __device__ ~Affine() override { destroyed[2] += 1; }
  __host__ __device__ float eval(float x) const override { return Linear::eval(x) + offset; }
};

template <int Power>
struct Monomial : Integrand {
  float coefficient;
  __host__ __device__ Monomial(int* d, float c) : Integrand(d), coefficient(c) {}
  __host__ __device__ float eval(float x) const override {
    float p = coefficient;
    for (int k = 0; k < Power; ++k) p *= x;
    return p;
  }
  __host__ __device__ int kind() const override { return 10 + Power; }
};

__host__ __device__ Integrand* make(int i, int* destroyed) {
  switch (i % 4) {
    case 0:
      return new Linear(destroyed, 0.5f + i % 3);
    case 1:
      return new Affine(destroyed, 2.0f, -1.0f * (i % 5));
    case 2:
      return new Monomial<2>(destroyed, 0.25f * (1 + i % 4));
    default:
      return new Monomial<3>(destroyed, 1.0f);
  }
}

// Implicit constructors, a sliced copy and an assignment: each object keeps its own class.
struct Counter {
  int n = 0;
  __host__ __device__ virtual int step() { return n += 1; }
};
struct Doubler : Counter {
  __host__ __device__ int step() override { return n += 2; }
};

__host__ __device__ int copies(int i) {
  Doubler d;
  d.n = i % 5;
  d.step();
  Counter sliced = d;  // the Counter part of d: a Counter
  Counter& as_counter = d;
  Counter c;
  c = d;  // c stays a Counter
  return sliced.step() * 1000 + as_counter.step() * 100 + c.step() * 10;
}

__host__ __device__ float use(int i, int* destroyed) {
  Integrand* f = make(i, destroyed);
  const Integrand& ref = *f;
  float value = ref.integrate(0.0f, 1.0f + i % 3, 16) + f->eval(0.5f) * 10.0f;
  value += 100000.0f * f->kind_at_construction;
  // A local object of a derived class, through a base reference.
  Affine local(destroyed + 3, 1.0f, static_cast<float>(i));
  Integrand& as_base = local;
  value += as_base.eval(2.0f) + as_base.kind() * 7.0f;
  delete f;
  return value + 1000000.0f * copies(i);
}

__global__ void run(float* out, int* destroyed, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = use(i, destroyed + 6 * i);
}

int main() {
  const int n = 200;
  float* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(float)));
  std::vector<int> zeros(6 * n, 0);
  int* d_destroyed = to_device(zeros);
  run<<<(n + 63) / 64, 64>>>(d_out, d_destroyed, n);
  HIP_CHECK(hipGetLastError());
  std::vector<float> got = from_device(d_out, n);
  std::vector<int> got_destroyed = from_device(d_destroyed, 6 * n);

  std::vector<int> want_destroyed(6 * n, 0);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    float want = use(i, want_destroyed.data() + 6 * i);
    if (std::fabs(got[i] - want) > 1e-4f * (1.0f + std::fabs(want)) && bad++ < 5) {
      std::printf("element %d: got %.6f, want %.6f\n", i, got[i], want);
    }
  }
  int failures = 0;
  failures += report("virtual calls", bad);
  failures += report("virtual destructors",
                     count_mismatches("destroyed", got_destroyed, want_destroyed));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_destroyed));
  return failures;
}
