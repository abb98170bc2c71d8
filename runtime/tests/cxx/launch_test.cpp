// hipLaunchKernelGGL through hipmlir's host headers against libhipmlir_rt, on the real device.
// Built by runtime/tests/cxx.rs with g++ (libstdc++) and clang++ -stdlib=libc++, linked with a
// generated stub that embeds the device image (kernels.cl) and registers it and the kernel stubs.
#include "hip_runtime_api.h"
#include "hipmlir_launch.h"

#include <cstdio>
#include <cstring>
#include <vector>

#if defined(__HIP__)
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __constant__ __attribute__((constant))
#else
#define __global__
#define __device__
#define __constant__
#endif

// Host-side kernel stubs: hipmlir drops device bodies from the host compile.
__global__ void saxpy(float a, const float* x, float* y, size_t n, char tag, double bias, short s) {}
template <class T, int K>
__global__ void scale(T* p, int n) {}
__global__ void twice(float* p, int n) {}
__global__ void twice(int* p, int n) {}
__global__ void mixed(char c, double d, short s, int* out, long l) {}
__global__ void ping() {}
__global__ void apply(float* out) {}

// Device variables: on the host, their shadows (registered by the stub under these symbols).
__constant__ float coeffs[4];
__device__ int counter;
namespace ns {
__device__ double scale;
}

static int failures = 0;

#define CHECK(call)                                                                      \
  do {                                                                                   \
    hipError_t e_ = (call);                                                              \
    if (e_ != hipSuccess) {                                                              \
      std::fprintf(stderr, "%s:%d: %s returned %s (%s)\n", __FILE__, __LINE__, #call,     \
                   hipGetErrorName(e_), hipGetErrorString(e_));                          \
      return 1;                                                                          \
    }                                                                                    \
  } while (0)

#define EXPECT(cond)                                                                     \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);           \
      ++failures;                                                                        \
    }                                                                                    \
  } while (0)

// The header computes the same layout the compiler records (a C struct of the parameters).
// Only the host compile packs arguments (the device-mode parse skips that machinery).
#if !defined(__HIP_DEVICE_COMPILE__)
using MixedLayout = hipmlir::detail::ArgLayout<char, double, short, int*, long>;
static_assert(MixedLayout::offset(0) == 0 && MixedLayout::offset(1) == 8 &&
                  MixedLayout::offset(2) == 16 && MixedLayout::offset(3) == 24 &&
                  MixedLayout::offset(4) == 32 && MixedLayout::size == 40,
              "mixed layout");
static_assert(hipmlir::detail::ArgLayout<>::size == 0, "no parameters, empty block");
static_assert(hipmlir::detail::ArgLayout<double, char>::size == 16, "tail padding");
#endif

int main() {
  int count = 0;
  CHECK(hipGetDeviceCount(&count));
  EXPECT(count == 1);
  hipDeviceProp_t prop;
  std::memset(&prop, 0, sizeof prop);
  CHECK(hipGetDeviceProperties(&prop, 0));
  std::printf("device: %s, warpSize %d, maxThreadsPerBlock %d, OpenCL %d.%d\n", prop.name,
              prop.warpSize, prop.maxThreadsPerBlock, prop.major, prop.minor);
  EXPECT(prop.warpSize == 32);
  EXPECT(std::strcmp(prop.gcnArchName, "spirv64") == 0);
  int version = 0;
  CHECK(hipRuntimeGetVersion(&version));
  EXPECT(version == HIP_VERSION);

  // saxpy: double literal -> float, int literal -> size_t, 'A' -> char, int -> double, int -> short.
  const int n = 200;
  std::vector<float> x(n), y(n), out(n);
  for (int i = 0; i < n; ++i) {
    x[i] = i * 0.5f;
    y[i] = static_cast<float>(i);
  }
  float* dx = nullptr;
  float* dy = nullptr;
  CHECK(hipMalloc(&dx, n * sizeof(float)));
  CHECK(hipMalloc(&dy, n * sizeof(float)));
  CHECK(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(dy, y.data(), n * sizeof(float), hipMemcpyHostToDevice));
  CHECK(hipLaunchKernelGGL(saxpy, dim3(4), dim3(64), 0, 0, 2.0, dx, dy, 200, 'A', 1, 3));
  CHECK(hipGetLastError());
  CHECK(hipMemcpy(out.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    float want = 2.0f * x[i] + y[i] + 1.0f + 'A' + 3;
    if (out[i] != want) {
      std::fprintf(stderr, "saxpy[%d] = %g, want %g\n", i, out[i], want);
      ++failures;
      break;
    }
  }

  // A template instantiation named with HIP_KERNEL_NAME; found by its spelling "scale<int, 4>".
  std::vector<int> ints(100);
  for (int i = 0; i < 100; ++i) ints[i] = i - 50;
  int* di = nullptr;
  CHECK(hipMalloc(&di, ints.size() * sizeof(int)));
  CHECK(hipMemcpy(di, ints.data(), ints.size() * sizeof(int), hipMemcpyHostToDevice));
  CHECK(hipLaunchKernelGGL(HIP_KERNEL_NAME(scale<int, 4>), dim3(2), dim3(64), 0, nullptr, di, 100));

  // Overloads: the spelling is useless ("static_cast<...>(twice)"); the registered stub decides.
  // (Not in HIP device mode, where kernels have a calling convention no cast can spell.)
#if !defined(__HIP_DEVICE_COMPILE__)
  CHECK(hipLaunchKernelGGL(static_cast<void (*)(int*, int)>(twice), dim3(1), dim3(128), 0, 0, di,
                           100));
  std::vector<int> ints_out(100);
  CHECK(hipMemcpy(ints_out.data(), di, ints.size() * sizeof(int), hipMemcpyDefault));
  for (int i = 0; i < 100; ++i) EXPECT(ints_out[i] == ints[i] * 8);
  CHECK(hipLaunchKernelGGL(static_cast<void (*)(float*, int)>(twice), dim3(1), dim3(256), 0, 0, dx,
                           n));
  CHECK(hipMemcpy(out.data(), dx, n * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) EXPECT(out[i] == 2.0f * x[i]);
#endif

  // Mixed alignment through the header's packing: float -> double, int -> short, int -> long.
  int* dm = nullptr;
  CHECK(hipMalloc(&dm, 32 * sizeof(int)));
  CHECK(hipLaunchKernelGGL(mixed, dim3(1), dim3(32), 0, 0, 'x', 2.5f, 7, dm, 123456));
  std::vector<int> m(32);
  CHECK(hipMemcpy(m.data(), dm, 32 * sizeof(int), hipMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i) EXPECT(m[i] == 'x' + 2500 + 70 + 12345 + i * 100000);

  // Zero arguments.
  CHECK(hipLaunchKernelGGL(ping, dim3(3), dim3(5), 0, 0));
  CHECK(hipDeviceSynchronize());

  // Device variables by name (the header's templates) and by HIP_SYMBOL, with its defaults.
  float c[4] = {};
  CHECK(hipMemcpyFromSymbol(c, coeffs, sizeof c));
  EXPECT(c[0] == 0.5f && c[1] == 1.5f && c[2] == 2.5f && c[3] == 3.5f);
  const float nc[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  CHECK(hipMemcpyToSymbol(HIP_SYMBOL(coeffs), nc, sizeof nc));
  const int eleven = 11;
  CHECK(hipMemcpyToSymbol(counter, &eleven, sizeof eleven, 0, hipMemcpyHostToDevice));
  double s = 0;
  CHECK(hipMemcpyFromSymbol(&s, HIP_SYMBOL(ns::scale), sizeof s));
  EXPECT(s == 2.0);
  size_t bytes = 0;
  CHECK(hipGetSymbolSize(&bytes, ns::scale));
  EXPECT(bytes == sizeof(double));
  CHECK(hipGetSymbolSize(&bytes, HIP_SYMBOL(coeffs)));
  EXPECT(bytes == sizeof coeffs);
  CHECK(hipLaunchKernelGGL(apply, dim3(1), dim3(4), 0, 0, dx));
  CHECK(hipMemcpy(out.data(), dx, 4 * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < 4; ++i) EXPECT(out[i] == nc[i] * 2.0f + 11.0f);
  float* dc = nullptr;
  CHECK(hipGetSymbolAddress(reinterpret_cast<void**>(&dc), coeffs));
  void* dc2 = nullptr;
  CHECK(hipGetSymbolAddress(&dc2, HIP_SYMBOL(coeffs)));
  EXPECT(dc != nullptr && dc2 == dc);
  std::memset(c, 0, sizeof c);
  CHECK(hipMemcpy(c, dc + 1, 3 * sizeof(float), hipMemcpyDeviceToHost));
  EXPECT(c[0] == 2.0f && c[1] == 3.0f && c[2] == 4.0f);
  const int zero = 0;
  int back = -1;
  CHECK(hipMemcpyToSymbolAsync(counter, &zero, sizeof zero, 0, hipMemcpyHostToDevice));
  CHECK(hipMemcpyFromSymbolAsync(&back, counter, sizeof back, 0, hipMemcpyDeviceToHost, 0));
  CHECK(hipMemcpyFromSymbolAsync(&s, HIP_SYMBOL(ns::scale), sizeof s, 0, hipMemcpyDefault));
  CHECK(hipDeviceSynchronize());
  EXPECT(back == 0 && s == 2.0);
  EXPECT(hipMemcpyToSymbol(count, &eleven, sizeof eleven) == hipErrorInvalidSymbol);
  EXPECT(hipMemcpyToSymbol(nullptr, &eleven, sizeof eleven) == hipErrorInvalidSymbol);
  EXPECT(hipGetSymbolSize(&bytes, nullptr) == hipErrorInvalidSymbol);
  EXPECT(hipMemcpyFromSymbolAsync(&back, nullptr, sizeof back, 0, hipMemcpyDeviceToHost) ==
         hipErrorInvalidSymbol);
  EXPECT(hipMemcpyToSymbol(counter, nc, sizeof nc) == hipErrorInvalidValue);
  EXPECT(hipGetLastError() == hipErrorInvalidValue);

  // Misuse comes back as an error code and as the last error (a dimension of 0: invalid value).
  EXPECT(hipLaunchKernelGGL(ping, dim3(0), dim3(1), 0, 0) == hipErrorInvalidValue);
  EXPECT(hipPeekAtLastError() == hipErrorInvalidValue);
  EXPECT(hipGetLastError() == hipErrorInvalidValue);
  EXPECT(hipGetLastError() == hipSuccess);
  EXPECT(hipLaunchKernelByName("no_such_kernel", dim3(1), dim3(1), 0, 0, nullptr, 0) ==
         hipErrorInvalidDeviceFunction);
  EXPECT(hipFree(&count) == hipErrorInvalidValue);
  EXPECT(std::strcmp(hipGetErrorName(hipErrorInvalidValue), "hipErrorInvalidValue") == 0);
  EXPECT(std::strcmp(hipGetErrorString(hipSuccess), "no error") == 0);

  CHECK(hipFree(dx));
  CHECK(hipFree(dy));
  CHECK(hipFree(di));
  CHECK(hipFree(dm));
  if (failures) {
    std::fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  std::printf("ALL OK\n");
  return 0;
}
