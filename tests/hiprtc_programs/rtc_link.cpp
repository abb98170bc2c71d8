// Relocatable device code compiled at run time and linked by hiprtcLink*: one program defines a
// __device__ function and a __device__ variable, another's kernels use them (and a kernel
// template instantiated through a name expression). The first is added from memory, the second
// from a file, as programs that keep compiled code on disk do. A link missing a definition
// fails with the log naming it. Every result is compared with a host reference.
#include <cstring>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "rtc_common.h"

static const char* kLibrary = R"(
__device__ int g_scale = 3;

__device__ float lerp_to(float a, float b, float t) { return a + t * (b - a); }
)";

static const char* kKernels = R"(
extern __device__ int g_scale;
__device__ float lerp_to(float a, float b, float t);

extern "C" __global__ void blend(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = lerp_to(a[i], b[i], 0.25f) * g_scale;
}

template <typename T>
__global__ void fill(T* out, T value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value + T(i) * T(g_scale);
}
)";

// A program compiled with -fgpu-rdc: its relocatable device code.
static std::vector<char> relocatable(const char* source, const char* name,
                                     const char* expression, std::string* lowered) {
  hiprtcProgram prog;
  HIPRTC_CHECK(hiprtcCreateProgram(&prog, source, name, 0, nullptr, nullptr));
  if (expression) HIPRTC_CHECK(hiprtcAddNameExpression(prog, expression));
  compile(prog, {"-fgpu-rdc"});
  size_t size = 0;
  // A relocatable program is linked, not loaded: it has no code object of its own.
  EXPECT_RTC(hiprtcGetCodeSize(prog, &size), HIPRTC_ERROR_INVALID_PROGRAM);
  HIPRTC_CHECK(hiprtcGetBitcodeSize(prog, &size));
  std::vector<char> bitcode(size);
  HIPRTC_CHECK(hiprtcGetBitcode(prog, bitcode.data()));
  if (expression) {
    const char* name_of = nullptr;
    HIPRTC_CHECK(hiprtcGetLoweredName(prog, expression, &name_of));
    *lowered = name_of;
  }
  HIPRTC_CHECK(hiprtcDestroyProgram(&prog));
  return bitcode;
}

int main() {
  std::string fill_int;
  std::vector<char> library = relocatable(kLibrary, "library.cu", nullptr, nullptr);
  std::vector<char> kernels = relocatable(kKernels, "kernels.cu", "fill<int>", &fill_int);

  // Without the library: the link fails and its error log names what is missing.
  {
    char error_log[1024] = {0};
    hiprtcJIT_option options[] = {HIPRTC_JIT_ERROR_LOG_BUFFER,
                                  HIPRTC_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {error_log, reinterpret_cast<void*>(sizeof(error_log))};
    hiprtcLinkState link;
    HIPRTC_CHECK(hiprtcLinkCreate(2, options, values, &link));
    HIPRTC_CHECK(hiprtcLinkAddData(link, HIPRTC_JIT_INPUT_LLVM_BITCODE, kernels.data(),
                                   kernels.size(), "kernels", 0, nullptr, nullptr));
    void* image = nullptr;
    size_t size = 0;
    EXPECT_RTC(hiprtcLinkComplete(link, &image, &size), HIPRTC_ERROR_LINKING);
    if (!std::strstr(error_log, "kernels.cu:") || !std::strstr(error_log, "lerp_to") ||
        !std::strstr(error_log, "is defined in no source of the program")) {
      std::printf("the link's error log says:\n%s\n", error_log);
      return 1;
    }
    HIPRTC_CHECK(hiprtcLinkDestroy(link));
  }

  // The library from a file, the kernels from memory.
  std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("rtc_link_library_" + std::to_string(getpid()));
  std::ofstream(file, std::ios::binary).write(library.data(), library.size());
  hiprtcLinkState link;
  HIPRTC_CHECK(hiprtcLinkCreate(0, nullptr, nullptr, &link));
  HIPRTC_CHECK(hiprtcLinkAddFile(link, HIPRTC_JIT_INPUT_LLVM_BITCODE, file.c_str(), 0, nullptr,
                                 nullptr));
  std::filesystem::remove(file);
  HIPRTC_CHECK(hiprtcLinkAddData(link, HIPRTC_JIT_INPUT_LLVM_BITCODE, kernels.data(),
                                 kernels.size(), "kernels", 0, nullptr, nullptr));
  void* image = nullptr;
  size_t image_size = 0;
  HIPRTC_CHECK(hiprtcLinkComplete(link, &image, &image_size));
  if (image == nullptr || image_size == 0) {
    std::printf("the link completed with no image\n");
    return 1;
  }
  hipModule_t module;
  HIP_CHECK(hipModuleLoadData(&module, image));
  // The image is the link's until it is destroyed; the module holds its own copy.
  HIPRTC_CHECK(hiprtcLinkDestroy(link));

  const int n = 3000;
  int mismatches = 0;
  {
    hipFunction_t blend = nullptr;
    HIP_CHECK(hipModuleGetFunction(&blend, module, "blend"));
    std::vector<float> a(n), b(n), want(n);
    for (int i = 0; i < n; ++i) {
      a[i] = 0.5f * i;
      b[i] = 100.0f - i;
      want[i] = (a[i] + 0.25f * (b[i] - a[i])) * 3;
    }
    float* d_a = to_device(a);
    float* d_b = to_device(b);
    float* d_out = to_device(std::vector<float>(n, 0.0f));
    int count = n;
    void* args[] = {&d_a, &d_b, &d_out, &count};
    HIP_CHECK(hipModuleLaunchKernel(blend, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args,
                                    nullptr));
    mismatches += count_float_mismatches("blend", from_device(d_out, n), want, 1e-6f);
    HIP_CHECK(hipFree(d_a));
    HIP_CHECK(hipFree(d_b));
    HIP_CHECK(hipFree(d_out));
  }
  {
    hipFunction_t fill = nullptr;
    HIP_CHECK(hipModuleGetFunction(&fill, module, fill_int.c_str()));
    std::vector<int> want(n);
    for (int i = 0; i < n; ++i) want[i] = -50 + i * 3;
    int* d_out = to_device(std::vector<int>(n, 0));
    int value = -50, count = n;
    void* args[] = {&d_out, &value, &count};
    HIP_CHECK(hipModuleLaunchKernel(fill, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args,
                                    nullptr));
    mismatches += count_mismatches("fill<int>", from_device(d_out, n), want);
    HIP_CHECK(hipFree(d_out));
  }
  HIP_CHECK(hipModuleUnload(module));
  return report("rtc_link", mismatches);
}
