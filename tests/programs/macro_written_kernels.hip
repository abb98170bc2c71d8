// Kernels a macro writes for several types (names pasted from its argument): each launch runs
// its own type's kernel, by <<<>>> (also from a macro) and by hipLaunchKernelGGL, and each
// kernel reads its own type's device variable.
#include "test_common.h"
#include "include/typed_kernels.h"

DEFINE_TYPED_KERNELS(int)
DEFINE_TYPED_KERNELS(float)
DEFINE_TYPED_KERNELS(double)

#define LAUNCH_1D(kernel, n, ...) kernel<<<((n) + 127) / 128, 128>>>(__VA_ARGS__)

template <typename T, typename Launch>
int check(const char* what, T a, T bias, Launch launch) {
  const int n = 1000;
  std::vector<T> in(n), want(n);
  for (int i = 0; i < n; ++i) {
    in[i] = static_cast<T>(i % 37);
    want[i] = a * in[i] + bias;
  }
  T* din = to_device(in);
  T* dout = nullptr;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(T)));
  launch(dout, din, n);
  HIP_CHECK(hipGetLastError());
  int bad = count_mismatches(what, from_device(dout, n), want);
  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dout));
  return bad;
}

int main() {
  int bad = 0;
  set_int_bias<<<1, 1>>>(5);
  hipLaunchKernelGGL(set_float_bias, dim3(1), dim3(1), 0, 0, 0.25f);
  set_double_bias<<<1, 1>>>(-1.5);
  HIP_CHECK(hipDeviceSynchronize());
  bad += check<int>("int", 3, 5, [](int* out, const int* in, int n) {
    LAUNCH_1D(int_axpb, n, out, in, 3, n);
  });
  bad += check<float>("float", 2.0f, 0.25f, [](float* out, const float* in, int n) {
    hipLaunchKernelGGL(float_axpb, dim3((n + 127) / 128), dim3(128), 0, 0, out, in, 2.0f, n);
  });
  bad += check<double>("double", 0.5, -1.5, [](double* out, const double* in, int n) {
    LAUNCH_1D(double_axpb, n, out, in, 0.5, n);
  });
  return report("macro_written_kernels", bad);
}
