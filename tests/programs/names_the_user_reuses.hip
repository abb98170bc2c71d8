// Generated host code depends on no name the user's code can hide: kernels whose parameters and
// locals reuse the kernel's own name, the names of the HIP API and `std`, kernels in a namespace
// of their own name, and host code whose locals are named like hipmlir's own helpers, launched
// with <<<>>>, hipLaunchKernelGGL and through pointers. Nor on what differs between the uses of a
// macro: kernels written by one macro under names given as its argument each launch themselves.
#include "test_common.h"

// The parameter hides the kernel inside its own body.
__global__ void scale(float* scale, float by, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) scale[i] *= by;
}

// Parameters named after HIP's types and values, and after `std`.
__global__ void offset(int* std, int hipSuccess, int dim3, int hipStream_t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < hipStream_t) std[i] += hipSuccess * dim3;
}

// A namespace, a kernel template and its parameter all named `fill`; an unnamed parameter.
namespace fill {
template <typename T>
__global__ void fill(T* fill, T value, int, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  T offset = value;  // a local named like another kernel
  if (i < n) fill[i] = offset;
}
}  // namespace fill

// A kernel template whose template parameter reuses a HIP name.
template <int hipLaunchKernelGGL>
__global__ void times(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] *= hipLaunchKernelGGL;
}

struct Counters {
  // A static member kernel whose parameter is named like the class and the kernel.
  __global__ static void count(int* Counters, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) Counters[i] += 1;
  }
};

// One macro writes several kernels, each named by its argument.
#define ELEMENTWISE(name, expression)                \
  __global__ void name(int* v, int n) {              \
    int i = blockIdx.x * blockDim.x + threadIdx.x;   \
    if (i < n) v[i] = (expression);                  \
  }
ELEMENTWISE(plus_seven, v[i] + 7)
ELEMENTWISE(times_five, v[i] * 5)
ELEMENTWISE(minus_index, v[i] - i)

int main() {
  const int n = 513;
  int failures = 0;
  // Host locals named like hipmlir's helpers and HIP's values: the launches must not see them.
  int hipmlir = 3, detail = 4, configure = 5, chevron = 6;
  std::vector<float> f(n);
  for (int i = 0; i < n; ++i) f[i] = static_cast<float>(i) - 200.0f;
  float* df = to_device(f);
  scale<<<(n + 127) / 128, 128>>>(df, 2.0f, n);
  hipLaunchKernelGGL(scale, dim3((n + 127) / 128), dim3(128), 0, 0, df, 0.5f * hipmlir, n);
  std::vector<float> fgot = from_device(df, n);
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += fgot[i] != f[i] * 2.0f * 1.5f;
  failures += report("a parameter named like its kernel", bad);

  std::vector<int> v(n, 10);
  int* dv = to_device(v);
  offset<<<dim3((n + 255) / 256), dim3(256)>>>(dv, detail, configure, n);
  void (*through_pointer)(int*, int, int, int) = offset;
  through_pointer<<<(n + 255) / 256, 256>>>(dv, chevron, 1, n);
  std::vector<int> want(n, 10 + 4 * 5 + 6);
  failures += report("parameters named after HIP and std",
                     count_mismatches("offset", from_device(dv, n), want));

  fill::fill<<<(n + 63) / 64, 64>>>(dv, 9, 0, n);
  hipLaunchKernelGGL(times<3>, dim3((n + 63) / 64), dim3(64), 0, 0, dv, n);
  Counters::count<<<(n + 63) / 64, 64>>>(dv, n);
  failures += report("namespace, template and static member reusing names",
                     count_mismatches("fill, times, count", from_device(dv, n),
                                      std::vector<int>(n, 9 * 3 + 1)));

  plus_seven<<<(n + 127) / 128, 128>>>(dv, n);
  hipLaunchKernelGGL(times_five, dim3((n + 127) / 128), dim3(128), 0, 0, dv, n);
  void (*last)(int*, int) = minus_index;
  last<<<(n + 127) / 128, 128>>>(dv, n);
  for (int i = 0; i < n; ++i) want[i] = (9 * 3 + 1 + 7) * 5 - i;
  failures += report("kernels one macro writes under the names it is given",
                     count_mismatches("elementwise", from_device(dv, n), want));

  HIP_CHECK(hipFree(df));
  HIP_CHECK(hipFree(dv));
  if (failures) return 1;
  std::printf("names_the_user_reuses PASSED\n");
  return 0;
}
