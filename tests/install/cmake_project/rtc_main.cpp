// Host code only (any C++ compiler builds it): a kernel template compiled at run time with
// hiprtc, loaded as a module and run; every element is compared with a host reference.
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

#include <cstdio>
#include <string>
#include <vector>

#define CHECK(call, ok)                                                        \
  do {                                                                         \
    if ((call) != (ok)) {                                                      \
      std::printf("%s failed\n", #call);                                       \
      return 1;                                                                \
    }                                                                          \
  } while (0)

static const char* kSource = R"(
template <typename T>
__global__ void axpb(T a, const T* x, T b, T* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}
)";

int main() {
  hiprtcProgram prog;
  CHECK(hiprtcCreateProgram(&prog, kSource, "axpb.hip", 0, nullptr, nullptr), HIPRTC_SUCCESS);
  CHECK(hiprtcAddNameExpression(prog, "axpb<float>"), HIPRTC_SUCCESS);
  if (hiprtcCompileProgram(prog, 0, nullptr) != HIPRTC_SUCCESS) {
    size_t size = 0;
    hiprtcGetProgramLogSize(prog, &size);
    std::string log(size, '\0');
    hiprtcGetProgramLog(prog, &log[0]);
    std::printf("compile failed:\n%s\n", log.c_str());
    return 1;
  }
  size_t size = 0;
  CHECK(hiprtcGetCodeSize(prog, &size), HIPRTC_SUCCESS);
  std::vector<char> code(size);
  CHECK(hiprtcGetCode(prog, code.data()), HIPRTC_SUCCESS);
  const char* name = nullptr;
  CHECK(hiprtcGetLoweredName(prog, "axpb<float>", &name), HIPRTC_SUCCESS);
  hipModule_t module;
  hipFunction_t kernel;
  CHECK(hipModuleLoadData(&module, code.data()), hipSuccess);
  CHECK(hipModuleGetFunction(&kernel, module, name), hipSuccess);
  CHECK(hiprtcDestroyProgram(&prog), HIPRTC_SUCCESS);

  const int n = 5000;
  std::vector<float> x(n), y(n, 0.0f);
  for (int i = 0; i < n; ++i) x[i] = 0.5f * i;
  float *dx, *dy;
  CHECK(hipMalloc(&dx, n * sizeof(float)), hipSuccess);
  CHECK(hipMalloc(&dy, n * sizeof(float)), hipSuccess);
  CHECK(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice), hipSuccess);
  float a = 3.0f, b = -1.0f;
  int count = n;
  void* args[] = {&a, &dx, &b, &dy, &count};
  CHECK(hipModuleLaunchKernel(kernel, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr),
        hipSuccess);
  CHECK(hipMemcpy(y.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost), hipSuccess);
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += y[i] != a * x[i] + b;
  hipFree(dx);
  hipFree(dy);
  hipModuleUnload(module);
  std::printf("hiprtc %s: %d mismatches\n", bad ? "FAILED" : "PASSED", bad);
  return bad != 0;
}
