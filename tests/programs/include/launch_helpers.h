// Launch helpers of the kind test suites and libraries write: the kernel is a value (a parameter
// of a host function template, a template parameter, a struct member), launched with <<<>>>.
#pragma once

#include <cstdint>
#include <utility>

#include "../test_common.h"

// The kernel's type is a template parameter, as HIP's own test suite launches.
template <typename... Typenames, typename Kernel, typename Dim, typename... Args>
void launch_kernel(Kernel kernel, Dim blocks, Dim threads, std::uint32_t shared_bytes,
                   hipStream_t stream, Args&&... args) {
  kernel<<<blocks, threads, shared_bytes, stream>>>(std::forward<Args>(args)...);
  HIP_CHECK(hipGetLastError());
}

// The kernel's parameter types deduced from the pointer it is passed as.
template <typename... A>
void launch_1d(void (*kernel)(A...), int n, A... args) {
  kernel<<<(n + 127) / 128, 128>>>(args...);
  HIP_CHECK(hipGetLastError());
}

// Never instantiated by the program: its launch is rewritten all the same.
template <typename F>
void launch_unused(F kernel, int* data) {
  kernel<<<1, 64>>>(data);
}

// A kernel chosen at compile time, as a non-type template parameter.
template <void (*Kernel)(int*, int)>
void launch_fixed(int* data, int n) {
  Kernel<<<dim3((n + 63) / 64), dim3(64)>>>(data, n);
  HIP_CHECK(hipGetLastError());
}

// The whole launch in a macro; the kernel is whatever expression the macro is given.
#define LAUNCH_GRID(kernel, n, ...) kernel<<<((n) + 255) / 256, 256>>>(__VA_ARGS__)

// Kernels held by a struct and launched by its member functions.
struct Pipeline {
  void (*first)(int*, int);
  void (*second)(int*, int);

  void run(int* data, int n) const {
    first<<<(n + 127) / 128, 128>>>(data, n);
    LAUNCH_GRID(second, n, data, n);
    HIP_CHECK(hipGetLastError());
  }
};

// A class template whose member launches the kernel it holds.
template <typename T>
struct Filler {
  void (*kernel)(T*, T, int);
  hipStream_t stream;

  void operator()(T* out, T value, int n) const {
    kernel<<<(n + 63) / 64, 64, 0, stream>>>(out, value, n);
    HIP_CHECK(hipStreamSynchronize(stream));
  }
};
