// Classes built from base classes in device code, as accessor and functor libraries write them:
// base-class initializers (plain and template bases), a second base at a non-zero offset,
// derived-to-base pointers and references, base methods called on derived objects, and a
// delegating constructor.
#include "test_common.h"

template <typename T, int N>
struct Storage {
  T values[N];
  __host__ __device__ Storage(T fill) {
    for (int i = 0; i < N; ++i) values[i] = fill;
  }
  __host__ __device__ T sum() const {
    T s = 0;
    for (int i = 0; i < N; ++i) s += values[i];
    return s;
  }
};

struct Scale {
  int factor;
  __host__ __device__ explicit Scale(int f) : factor(f) {}
  __host__ __device__ int apply(int x) const { return x * factor; }
};

// Storage first (offset 0), Scale second (after the array: a non-zero offset).
template <typename T, int N>
struct Scaled : Storage<T, N>, Scale {
  int bias;
  __host__ __device__ Scaled(T fill, int f, int b) : Storage<T, N>(fill), Scale(f), bias(b) {}
  __host__ __device__ Scaled(T fill) : Scaled(fill, 2, 1) {}  // delegating
  __host__ __device__ int result() const { return apply(static_cast<int>(this->sum())) + bias; }
};

__device__ int through_base_pointer(const Scale* s, int x) { return s->apply(x); }
__device__ int through_base_reference(const Scale& s, int x) { return s.apply(x); }

__global__ void hierarchy(int* out, const int* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Scaled<int, 3> a(in[i], in[i] % 5, i);
  Scaled<int, 3> b(in[i]);
  const Scale* as_scale = &a;
  const Storage<int, 3>* as_storage = &b;
  out[4 * i + 0] = a.result();
  out[4 * i + 1] = b.result();
  out[4 * i + 2] = through_base_pointer(as_scale, i) + through_base_reference(b, i);
  out[4 * i + 3] = as_storage->sum() + static_cast<const Scaled<int, 3>*>(as_scale)->bias;
}

int main() {
  const int n = 300;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 7) % 23 - 11;
  int* din = to_device(in);
  int* dout;
  HIP_CHECK(hipMalloc(&dout, 4 * n * sizeof(int)));
  hipLaunchKernelGGL(hierarchy, dim3((n + 63) / 64), dim3(64), 0, 0, dout, din, n);
  HIP_CHECK(hipGetLastError());
  std::vector<int> got = from_device(dout, 4 * n);
  std::vector<int> want(4 * n);
  for (int i = 0; i < n; ++i) {
    Scaled<int, 3> a(in[i], in[i] % 5, i);
    Scaled<int, 3> b(in[i]);
    want[4 * i + 0] = a.result();
    want[4 * i + 1] = b.result();
    want[4 * i + 2] = a.apply(i) + b.apply(i);
    want[4 * i + 3] = b.sum() + a.bias;
  }
  int failures = report("class hierarchies", count_mismatches("hierarchy", got, want));
  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dout));
  if (failures) return 1;
  std::printf("class_hierarchies PASSED\n");
  return 0;
}
