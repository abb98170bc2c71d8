// hipModuleLoad of a SPIR-V file (argv[1], written by `hipmlir --emit-spirv` or `--genco`),
// hipModuleGetFunction and hipModuleLaunchKernel with kernelParams and with extra; kernels and
// device variables a macro writes (names pasted from its argument), found by name;
// hipLaunchKernel and hipFuncGetAttributes by host stub; misuse of modules and functions.
#include "test_common.h"

#include <string>

extern "C" __global__ void triad(double* out, const double* a, const double* b, double s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + s * b[i];
}

// One kernel and one device variable per element type, written by a macro: their names are
// pasted from its argument.
#define OFFSET_KERNEL(T)                                                           \
  __device__ T T##_offset = 0;                                                     \
  extern "C" __global__ void add_offset_##T(T* v, int n) {                         \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                                 \
    if (i < n) v[i] += T##_offset;                                                 \
  }
OFFSET_KERNEL(int)
OFFSET_KERNEL(double)

// Sets the macro-written variable through hipModuleGetGlobal and runs the macro-written kernel.
// A SPIR-V file carries no table of device variables (a code object does): there the variable
// keeps its initial 0.
template <typename T>
int run_offset_kernel(hipModule_t module, bool has_variables, const char* kernel,
                      const char* variable, T offset) {
  if (!has_variables) offset = 0;
  const int n = 500;
  std::vector<T> v(n), want(n);
  for (int i = 0; i < n; ++i) {
    v[i] = static_cast<T>(i * 3);
    want[i] = v[i] + offset;
  }
  T* dv = to_device(v);
  if (has_variables) {
    void* global = nullptr;  // a hipDeviceptr_t
    size_t bytes = 0;
    HIP_CHECK(hipModuleGetGlobal(&global, &bytes, module, variable));
    if (bytes != sizeof(T)) return 1;
    HIP_CHECK(hipMemcpyHtoD(global, &offset, sizeof(T)));
  }
  hipFunction_t f;
  HIP_CHECK(hipModuleGetFunction(&f, module, kernel));
  int count = n;
  void* params[] = {&dv, &count};
  HIP_CHECK(hipModuleLaunchKernel(f, (n + 63) / 64, 1, 1, 64, 1, 1, 0, 0, params, nullptr));
  int bad = count_mismatches(kernel, from_device(dv, n), want);
  HIP_CHECK(hipFree(dv));
  return bad;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::printf("usage: modules file.spv | modules file.co --code-object\n");
    return 1;
  }
  const int n = 3000;
  std::vector<double> a(n), b(n), want(n);
  for (int i = 0; i < n; ++i) {
    a[i] = i * 0.25;
    b[i] = 100.0 - i;
    want[i] = a[i] + 1.5 * b[i];
  }
  double* da = to_device(a);
  double* db = to_device(b);
  double* dout = nullptr;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(double)));

  hipModule_t module;
  HIP_CHECK(hipModuleLoad(&module, argv[1]));
  hipFunction_t f;
  HIP_CHECK(hipModuleGetFunction(&f, module, "triad"));
  double s = 1.5;
  int count = n;
  void* params[] = {&dout, &da, &db, &s, &count};
  HIP_CHECK(hipModuleLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, 0, params, nullptr));
  int bad = count_mismatches("kernelParams", from_device(dout, n), want);

  HIP_CHECK(hipMemset(dout, 0, n * sizeof(double)));
  struct {
    double* out;
    const double* a;
    const double* b;
    double s;
    int n;
  } packed = {dout, da, db, 1.5, n};
  size_t size = sizeof(packed);
  void* extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &packed, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                   HIP_LAUNCH_PARAM_END};
  HIP_CHECK(hipModuleLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, 0, nullptr, extra));
  bad += count_mismatches("extra", from_device(dout, n), want);

  const bool code_object = argc > 2 && std::string(argv[2]) == "--code-object";
  bad += run_offset_kernel<int>(module, code_object, "add_offset_int", "int_offset", 7);
  bad += run_offset_kernel<double>(module, code_object, "add_offset_double", "double_offset", 0.5);

  hipFuncAttributes fa;
  HIP_CHECK(hipFuncGetAttributes(&fa, reinterpret_cast<const void*>(f)));
  if (fa.maxThreadsPerBlock < 128) ++bad;

  // hipLaunchKernel by host stub (found through the stub's symbol).
  HIP_CHECK(hipMemset(dout, 0, n * sizeof(double)));
  HIP_CHECK(hipLaunchKernel(reinterpret_cast<const void*>(triad), dim3((n + 127) / 128), dim3(128),
                            params, 0, 0));
  bad += count_mismatches("hipLaunchKernel", from_device(dout, n), want);
  int grid = 0, block = 0;
  HIP_CHECK(hipOccupancyMaxPotentialBlockSize(&grid, &block, triad, 0, 256));
  if (block <= 0 || block > 256 || grid <= 0) ++bad;

  // Misuse.
  hipFunction_t missing;
  EXPECT_ERROR(hipModuleGetFunction(&missing, module, "no_such_kernel"), hipErrorNotFound);
  hipModule_t none;
  EXPECT_ERROR(hipModuleLoad(&none, "/nonexistent/kernels.spv"), hipErrorFileNotFound);
  EXPECT_ERROR(hipModuleLoad(&none, argv[0]), hipErrorInvalidImage);  // an ELF file
  EXPECT_ERROR(hipModuleLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, params, extra), hipErrorInvalidValue);
  EXPECT_ERROR(hipModuleLaunchKernel(f, 1, 1, 1, 100000, 1, 1, 0, 0, params, nullptr),
               hipErrorInvalidConfiguration);
  HIP_CHECK(hipModuleUnload(module));
  EXPECT_ERROR(hipModuleLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, params, nullptr), hipErrorInvalidHandle);
  EXPECT_ERROR(hipModuleUnload(module), hipErrorInvalidHandle);

  HIP_CHECK(hipFree(da));
  HIP_CHECK(hipFree(db));
  HIP_CHECK(hipFree(dout));
  return report("modules", bad);
}
