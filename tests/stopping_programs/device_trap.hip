// A program that device code stops: `__builtin_trap()`, `__trap()`, `abort()`, a failed assert
// or a call through a function pointer that names no device function (a host function's address)
// in a kernel (argv[1] picks one) ends it with SIGABRT, the kernel named, before the host uses the
// kernel's results. scripts/gpu-check.sh runs it on NVIDIA GPUs for each way (OpenCL's run is
// tests/end_to_end.rs's).
#include <hip/hip_runtime.h>

#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cstring>

enum class Stop { BuiltinTrap, Trap, Abort, Assert };

template <Stop how>
__device__ int checked_half(int v) {
  if (how == Stop::Assert) assert(v >= 0 && "a value below zero");
  if (v < 0) {
    if (how == Stop::BuiltinTrap) __builtin_trap();
    if (how == Stop::Trap) __trap();
    if (how == Stop::Abort) abort();
  }
  return v / 2;
}

template <Stop how>
__global__ void halve(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = checked_half<how>(in[i]);
}

using Transform = int (*)(int);

__device__ int device_half(int v) { return v / 2; }
__device__ Transform device_pointer = device_half;

// Element 700 goes through `other`: in the bad run a host function's address.
__global__ void apply_through(Transform other, const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (i == 700 ? other : device_pointer)(in[i]);
}

int host_half(int v) { return v / 2; }

int main(int argc, char** argv) {
  const int n = 1024;
  static int host[n];
  for (int i = 0; i < n; ++i) host[i] = i == 700 ? -1 : i;
  int *in = nullptr, *out = nullptr;
  if (hipMalloc(&in, sizeof host) != hipSuccess || hipMalloc(&out, sizeof host) != hipSuccess) {
    return 1;
  }
  if (hipMemcpy(in, host, sizeof host, hipMemcpyHostToDevice) != hipSuccess) return 1;
  const char* how = argc > 1 ? argv[1] : "builtin_trap";
  if (std::strcmp(how, "trap") == 0) {
    halve<Stop::Trap><<<n / 256, 256>>>(in, out, n);
  } else if (std::strcmp(how, "abort") == 0) {
    halve<Stop::Abort><<<n / 256, 256>>>(in, out, n);
  } else if (std::strcmp(how, "assert") == 0) {
    halve<Stop::Assert><<<n / 256, 256>>>(in, out, n);
  } else if (std::strcmp(how, "bad_function_pointer") == 0) {
    apply_through<<<n / 256, 256>>>(&host_half, in, out, n);
  } else {
    halve<Stop::BuiltinTrap><<<n / 256, 256>>>(in, out, n);
  }
  hipError_t e = hipDeviceSynchronize();
  hipMemcpy(host, out, sizeof host, hipMemcpyDeviceToHost);
  std::printf("the host went on: %s\n", hipGetErrorName(e));
  return 0;
}
