// Kernels launched as values with <<<>>>: a parameter of a host function template (its type a
// template parameter, or a function pointer type whose parameters are deduced), a non-type
// template parameter, a local variable, a struct member, a lambda's parameter or capture, and a
// macro's argument; in templates instantiated or not, and in lambdas.
#include "test_common.h"

#include "include/elementwise_kernels.h"
#include "include/launch_helpers.h"

namespace {

std::vector<int> iota_vector(int n, int start) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = start + i;
  return v;
}

template <typename T>
int check(const char* what, T* device, const std::vector<T>& want) {
  return report(what, count_mismatches(what, from_device(device, want.size()), want));
}

}  // namespace

int main() {
  const int n = 1000;
  int failures = 0;

  // The kernel's type a template parameter (the way hip_test_common.hh launches).
  std::vector<float> fx(n);
  for (int i = 0; i < n; ++i) fx[i] = 0.5f * i - 100.0f;
  float* df = to_device(fx);
  launch_kernel(scale_by, dim3((n + 255) / 256), dim3(256), 0, nullptr, df, 3.0f, n);
  std::vector<float> fwant(n);
  for (int i = 0; i < n; ++i) fwant[i] = fx[i] * 3.0f;
  std::vector<float> fgot = from_device(df, n);
  int fbad = 0;
  for (int i = 0; i < n; ++i) fbad += fgot[i] != fwant[i];
  failures += report("kernel as a template parameter's value", fbad);

  // A function pointer parameter whose parameter types are deduced; a kernel template instance.
  int* d = to_device(iota_vector(n, -300));
  launch_1d(add_index, n, d, n);
  std::vector<int> want = iota_vector(n, -300);
  for (int i = 0; i < n; ++i) want[i] += i;
  failures += check("kernel as a deduced function pointer", d, want);
  launch_1d(fill_with<int>, n, d, 7, n);
  failures += check("kernel template instance as a pointer", d, std::vector<int>(n, 7));

  // A non-type template parameter.
  launch_fixed<negate>(d, n);
  failures += check("kernel as a non-type template parameter", d, std::vector<int>(n, -7));

  // A local variable, then the same variable pointing at another kernel.
  void (*step)(int*, int) = &add_index;
  step<<<(n + 127) / 128, 128>>>(d, n);
  for (int i = 0; i < n; ++i) want[i] = -7 + i;
  failures += check("kernel in a local variable", d, want);
  step = negate;
  step<<<(n + 127) / 128, 128>>>(d, n);
  for (int i = 0; i < n; ++i) want[i] = -want[i];
  failures += check("local variable pointed at another kernel", d, want);

  // Struct members, one launched through a macro.
  Pipeline pipeline{negate, add_index};
  pipeline.run(d, n);
  for (int i = 0; i < n; ++i) want[i] = -want[i] + i;
  failures += check("kernels held by a struct", d, want);

  // Lambdas: a generic one whose parameter is the kernel, one capturing the kernel pointer, and
  // a macro given a lambda's capture.
  auto launch_generic = [](auto kernel, int* data, int count) {
    kernel<<<(count + 63) / 64, 64>>>(data, count);
  };
  launch_generic(negate, d, n);
  for (int i = 0; i < n; ++i) want[i] = -want[i];
  failures += check("kernel as a generic lambda's parameter", d, want);
  auto chained = [first = step, then = &add_index](int* data, int count) {
    first<<<(count + 63) / 64, 64>>>(data, count);
    LAUNCH_GRID(then, count, data, count);
  };
  chained(d, n);
  for (int i = 0; i < n; ++i) want[i] = -want[i] + i;
  failures += check("kernels captured by a lambda", d, want);

  // A class template's member holding a kernel template instance, on a stream.
  hipStream_t stream;
  HIP_CHECK(hipStreamCreate(&stream));
  Filler<float> filler{fill_with<float>, stream};
  filler(df, 2.5f, n);
  fgot = from_device(df, n);
  fbad = 0;
  for (int i = 0; i < n; ++i) fbad += fgot[i] != 2.5f;
  failures += report("kernel held by a class template", fbad);

  // A kernel template instance for a device lambda, launched through the helper.
  auto cube_plus_one = [] __device__(float x) { return x * x * x + 1.0f; };
  launch_kernel(apply_each<float, decltype(cube_plus_one)>, (n + 127) / 128, 128, 0, stream, df,
                cube_plus_one, n);
  HIP_CHECK(hipStreamSynchronize(stream));
  fgot = from_device(df, n);
  fbad = 0;
  for (int i = 0; i < n; ++i) fbad += fgot[i] != 2.5f * 2.5f * 2.5f + 1.0f;
  failures += report("device lambda kernel through a helper", fbad);

  HIP_CHECK(hipStreamDestroy(stream));
  HIP_CHECK(hipFree(d));
  HIP_CHECK(hipFree(df));
  if (failures) return 1;
  std::printf("launches_through_values PASSED\n");
  return 0;
}
