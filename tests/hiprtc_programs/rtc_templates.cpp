// Kernels compiled at run time, the way JIT code writes them: a kernel template instantiated
// through name expressions, headers given by name (one included with quotes, one with angle
// brackets from a folder of its own), macros and options, a __device__ table read back by name,
// and what a hipcc device compile sees without any #include (threadIdx, math, shared memory,
// atomics, __HIPCC_RTC__). Every result is compared with a host reference.
#include <cmath>

#include "rtc_common.h"

static const char* kMathHeader = R"(
#pragma once
namespace rtc {
template <typename T>
__device__ T affine(T x, T a, T b) { return a * x + b; }
}
)";

static const char* kParamsHeader = R"(
#pragma once
namespace params {
constexpr int kBias = 7;
}
)";

static const char* kSource = R"(
#include "rtc_math.h"
#include <rtc/params.h>

namespace ops {
__device__ int table[4] = {3, 1, 4, 1};

template <typename T, int Factor>
__global__ void scale(const T* in, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = rtc::affine(in[i], T(Factor), T(OFFSET)) + T(params::kBias);
}
}  // namespace ops

#ifdef __HIPCC_RTC__
#define RTC_MARK 1000.0f
#else
#define RTC_MARK 0.0f
#endif

// Math, a block reduction in shared memory and an atomic: no #include needed.
extern "C" __global__ void norms(const float* in, float* out, float* total, int n) {
  __shared__ float partial[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? sqrtf(in[i]) + expf(-in[i]) + RTC_MARK + ops::table[i % 4] : 0.0f;
  if (i < n) out[i] = v;
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(total, partial[0]);
}
)";

int main() {
  const int n = 1000;
  const int block = 64;
  const int grid = (n + block - 1) / block;

  const char* headers[] = {kMathHeader, kParamsHeader};
  const char* names[] = {"rtc_math.h", "rtc/params.h"};
  hiprtcProgram prog;
  HIPRTC_CHECK(hiprtcCreateProgram(&prog, kSource, "templates.cu", 2, headers, names));
  HIPRTC_CHECK(hiprtcAddNameExpression(prog, "ops::scale<float, 3>"));
  HIPRTC_CHECK(hiprtcAddNameExpression(prog, "&ops::scale<int, 2>"));
  HIPRTC_CHECK(hiprtcAddNameExpression(prog, "&ops::table"));
  compile(prog, {"-DOFFSET=5", "-std=c++17", "-O3", "--fmad=false"});
  std::vector<char> code = code_of(prog);

  hipModule_t module;
  HIP_CHECK(hipModuleLoadData(&module, code.data()));
  // The names as written in a lookup need not be spelt as added.
  hipFunction_t scale_float = kernel_of(module, prog, "ops::scale< float, 3 >");
  hipFunction_t scale_int = kernel_of(module, prog, "&ops::scale<int, 2>");
  hipFunction_t norms = nullptr;
  HIP_CHECK(hipModuleGetFunction(&norms, module, "norms"));
  const char* table_name = nullptr;
  HIPRTC_CHECK(hiprtcGetLoweredName(prog, "&ops::table", &table_name));
  std::string table_symbol = table_name;
  HIPRTC_CHECK(hiprtcDestroyProgram(&prog));
  if (prog != nullptr) {
    std::printf("hiprtcDestroyProgram left the handle set\n");
    return 1;
  }

  int mismatches = 0;
  {
    std::vector<float> in(n), want(n);
    for (int i = 0; i < n; ++i) {
      in[i] = 0.25f * i - 40.0f;
      want[i] = 3.0f * in[i] + 5.0f + 7.0f;
    }
    float* d_in = to_device(in);
    float* d_out = to_device(std::vector<float>(n, 0.0f));
    int count = n;
    void* args[] = {&d_in, &d_out, &count};
    HIP_CHECK(hipModuleLaunchKernel(scale_float, grid, 1, 1, block, 1, 1, 0, nullptr, args,
                                    nullptr));
    mismatches += count_float_mismatches("scale<float, 3>", from_device(d_out, n), want, 0.0f);
    HIP_CHECK(hipFree(d_in));
    HIP_CHECK(hipFree(d_out));
  }
  {
    std::vector<int> in(n), want(n);
    for (int i = 0; i < n; ++i) {
      in[i] = i * 7 - 3000;
      want[i] = 2 * in[i] + 5 + 7;
    }
    int* d_in = to_device(in);
    int* d_out = to_device(std::vector<int>(n, 0));
    // hip-tests' way: the arguments packed in one buffer.
    struct {
      int* in;
      int* out;
      int n;
    } packed{d_in, d_out, n};
    size_t size = sizeof(packed);
    void* extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &packed, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     HIP_LAUNCH_PARAM_END};
    HIP_CHECK(hipModuleLaunchKernel(scale_int, grid, 1, 1, block, 1, 1, 0, nullptr, nullptr,
                                    extra));
    mismatches += count_mismatches("scale<int, 2>", from_device(d_out, n), want);
    HIP_CHECK(hipFree(d_in));
    HIP_CHECK(hipFree(d_out));
  }
  {
    const int table[4] = {3, 1, 4, 1};
    std::vector<float> in(n), want(n);
    double want_total = 0.0;
    for (int i = 0; i < n; ++i) {
      in[i] = 0.01f * i;
      want[i] = std::sqrt(in[i]) + std::exp(-in[i]) + 1000.0f + table[i % 4];
      want_total += want[i];
    }
    float* d_in = to_device(in);
    float* d_out = to_device(std::vector<float>(n, 0.0f));
    float* d_total = to_device(std::vector<float>(1, 0.0f));
    int count = n;
    void* args[] = {&d_in, &d_out, &d_total, &count};
    HIP_CHECK(hipModuleLaunchKernel(norms, grid, 1, 1, block, 1, 1, 0, nullptr, args, nullptr));
    mismatches += count_float_mismatches("norms", from_device(d_out, n), want, 1e-5f);
    std::vector<float> total = from_device(d_total, 1);
    mismatches += count_float_mismatches("norms total", total,
                                         {static_cast<float>(want_total)}, 1e-4f);
    HIP_CHECK(hipFree(d_in));
    HIP_CHECK(hipFree(d_out));
    HIP_CHECK(hipFree(d_total));

    // The table, by the name its name expression lowered to.
    void* d_table = nullptr;
    size_t bytes = 0;
    HIP_CHECK(hipModuleGetGlobal(&d_table, &bytes, module, table_symbol.c_str()));
    std::vector<int> got(4, 0);
    if (bytes != sizeof(table)) {
      std::printf("ops::table is %zu bytes, not %zu\n", bytes, sizeof(table));
      ++mismatches;
    } else {
      HIP_CHECK(hipMemcpy(got.data(), d_table, bytes, hipMemcpyDeviceToHost));
      mismatches += count_mismatches("ops::table", got, std::vector<int>(table, table + 4));
    }
  }
  HIP_CHECK(hipModuleUnload(module));
  return report("rtc_templates", mismatches);
}
