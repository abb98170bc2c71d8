// A plain build: this file is compiled by the system compiler alone,
//   g++ main.cpp -I$(hipmlir --print-include-dir) -L$(hipmlir --print-runtime-dir) -lhipmlir_rt
// and its kernels come from kernels.spv (`hipmlir kernels.hip --emit-spirv -o kernels.spv`), which
// the runtime finds by kernel name at the first launch: in HIPMLIR_MODULE_PATH, else beside the
// executable.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define HIP_CHECK(call)                                                            \
  do {                                                                             \
    hipError_t err_ = (call);                                                      \
    if (err_ != hipSuccess) {                                                      \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,    \
                   hipGetErrorString(err_));                                       \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

// Declared for hipLaunchKernelGGL; weak, so the link needs no definition: the stub's address is
// null and the runtime finds the kernel by the name the macro spells.
__global__ void scale(float* p, float factor, int n) __attribute__((weak));

template <class T>
static int compare(const char* what, const std::vector<T>& got, const std::vector<T>& want) {
  int errors = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (got[i] != want[i]) {
      if (errors < 10) {
        std::printf("%s: mismatch at %zu: %f != %f\n", what, i, (double)got[i], (double)want[i]);
      }
      ++errors;
    }
  }
  return errors;
}

int main() {
  const int n = 10000;  // not a multiple of the block
  const int block = 256;
  const int grid = (n + block - 1) / block;
  const size_t bytes = n * sizeof(float);
  std::vector<float> a(n), b(n), c(n), want(n);
  for (int i = 0; i < n; ++i) {
    a[i] = 0.5f * i;
    b[i] = 2.0f * i + 1.0f;
  }
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  HIP_CHECK(hipMalloc(&da, bytes));
  HIP_CHECK(hipMalloc(&db, bytes));
  HIP_CHECK(hipMalloc(&dc, bytes));
  HIP_CHECK(hipMemcpy(da, a.data(), bytes, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(db, b.data(), bytes, hipMemcpyHostToDevice));
  int errors = 0;

  // By source name, packed by the header's helper.
  // (The extra parentheses keep the template arguments' commas out of the macro.)
  HIP_CHECK((hipmlir::launch_by_name<const float*, const float*, float*, int>(
      "vector_add", dim3(grid), dim3(block), 0, nullptr, da, db, dc, n)));
  HIP_CHECK(hipMemcpy(c.data(), dc, bytes, hipMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) want[i] = a[i] + b[i];
  errors += compare("vector_add", c, want);

  // By mangled name, with the argument block packed by hand (a C struct of the parameters).
  struct {
    const float* a;
    const float* b;
    float* c;
    int n;
  } block_args = {db, db, dc, n};
  HIP_CHECK(hipLaunchKernelByName("_Z10vector_addPKfS0_Pfi", dim3(grid), dim3(block), 0, nullptr,
                                  &block_args, sizeof block_args));
  HIP_CHECK(hipMemcpy(c.data(), dc, bytes, hipMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) want[i] = b[i] + b[i];
  errors += compare("vector_add by mangled name", c, want);

  // A namespaced kernel by its qualified name, then by its unqualified name; the arguments
  // converted to the parameters' types (int → float, size_t, double).
  std::vector<float> y(n);
  for (int i = 0; i < n; ++i) y[i] = 1.0f * i;
  HIP_CHECK(hipMemcpy(dc, y.data(), bytes, hipMemcpyHostToDevice));
  HIP_CHECK((hipmlir::launch_by_name<float, const float*, float*, size_t, char, double>(
      "ops::saxpy", dim3(grid), dim3(block), 0, nullptr, 2, da, dc, n, 'd', 0.5f)));
  hipStream_t stream;
  HIP_CHECK(hipStreamCreate(&stream));
  HIP_CHECK((hipmlir::launch_by_name<float, const float*, float*, size_t, char, double>(
      "saxpy", dim3(grid), dim3(block), 0, stream, 3.0f, db, dc, n, 'a', 1)));
  HIP_CHECK(hipStreamSynchronize(stream));
  HIP_CHECK(hipMemcpy(c.data(), dc, bytes, hipMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    float first = 2.0f * a[i] + y[i] + 3.0f + 0.5f;
    want[i] = 3.0f * b[i] + first + 0.0f + 1.0f;
  }
  errors += compare("ops::saxpy", c, want);

  // hipLaunchKernelGGL: found by its spelled name.
  hipLaunchKernelGGL(scale, dim3(grid), dim3(block), 0, 0, dc, 0.25f, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(c.data(), dc, bytes, hipMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) want[i] *= 0.25f;
  errors += compare("scale", c, want);

  // Overloads: the source name is ambiguous; the mangled names are not.
  hipError_t err = hipmlir::launch_by_name<float*, int>("twice", dim3(grid), dim3(block), 0,
                                                        nullptr, dc, n);
  if (err != hipErrorInvalidDeviceFunction) {
    std::printf("twice: expected hipErrorInvalidDeviceFunction, got %s\n", hipGetErrorName(err));
    ++errors;
  }
  (void)hipGetLastError();
  std::vector<int> ints(n);
  for (int i = 0; i < n; ++i) ints[i] = i - 5000;
  int* di = nullptr;
  HIP_CHECK(hipMalloc(&di, n * sizeof(int)));
  HIP_CHECK(hipMemcpy(di, ints.data(), n * sizeof(int), hipMemcpyHostToDevice));
  HIP_CHECK((hipmlir::launch_by_name<int*, int>("_Z5twicePii", dim3(grid), dim3(block), 0,
                                                nullptr, di, n)));
  HIP_CHECK((hipmlir::launch_by_name<float*, int>("_Z5twicePfi", dim3(grid), dim3(block), 0,
                                                  nullptr, dc, n)));
  std::vector<int> got_ints(n), want_ints(n);
  HIP_CHECK(hipMemcpy(got_ints.data(), di, n * sizeof(int), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(c.data(), dc, bytes, hipMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    want_ints[i] = 2 * ints[i];
    want[i] *= 2.0f;
  }
  errors += compare("twice<int>", got_ints, want_ints);
  errors += compare("twice<float>", c, want);

  // A name no module has.
  err = hipmlir::launch_by_name<float*, int>("no_such_kernel", dim3(1), dim3(1), 0, nullptr, dc, n);
  if (err != hipErrorInvalidDeviceFunction) {
    std::printf("no_such_kernel: expected hipErrorInvalidDeviceFunction, got %s\n",
                hipGetErrorName(err));
    ++errors;
  }
  (void)hipGetLastError();

  HIP_CHECK(hipStreamDestroy(stream));
  HIP_CHECK(hipFree(da));
  HIP_CHECK(hipFree(db));
  HIP_CHECK(hipFree(dc));
  HIP_CHECK(hipFree(di));
  if (errors) {
    std::printf("FAILED: %d elements wrong\n", errors);
    return 1;
  }
  std::printf("plain build PASSED: %d elements\n", n);
  return 0;
}
