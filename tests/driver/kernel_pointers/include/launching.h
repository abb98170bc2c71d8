// A launch helper both sources instantiate: the kernel is a parameter.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                    \
  do {                                                                                 \
    hipError_t e_ = (call);                                                            \
    if (e_ != hipSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, hipGetErrorString(e_)); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

template <typename Kernel, typename... Args>
void launch_over(Kernel kernel, int n, Args... args) {
  kernel<<<(n + 127) / 128, 128>>>(args...);
  CHECK(hipGetLastError());
}
