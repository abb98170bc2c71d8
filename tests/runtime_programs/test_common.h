// Shared by the test programs: error checking and comparison with a host reference.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define HIP_CHECK(call)                                                              \
  do {                                                                               \
    hipError_t err_ = (call);                                                        \
    if (err_ != hipSuccess) {                                                        \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call, \
                   hipGetErrorString(err_), hipGetErrorName(err_));                  \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

// Compares every element; prints the first few mismatches. Returns the number of mismatches.
template <typename T>
int count_mismatches(const char* what, const std::vector<T>& got, const std::vector<T>& want) {
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!(got[i] == want[i])) {
      if (bad < 5) {
        std::printf("%s: mismatch at %zu: got %lld, want %lld\n", what, i,
                    static_cast<long long>(got[i]), static_cast<long long>(want[i]));
      }
      ++bad;
    }
  }
  return bad;
}

// A device buffer holding a copy of `host`.
template <typename T>
T* to_device(const std::vector<T>& host) {
  T* ptr = nullptr;
  HIP_CHECK(hipMalloc(&ptr, host.size() * sizeof(T)));
  HIP_CHECK(hipMemcpy(ptr, host.data(), host.size() * sizeof(T), hipMemcpyHostToDevice));
  return ptr;
}

template <typename T>
std::vector<T> from_device(const T* ptr, size_t n) {
  std::vector<T> host(n);
  HIP_CHECK(hipMemcpy(host.data(), ptr, n * sizeof(T), hipMemcpyDeviceToHost));
  return host;
}

inline int report(const char* name, int mismatches) {
  if (mismatches) {
    std::printf("%s FAILED: %d mismatches\n", name, mismatches);
    return 1;
  }
  std::printf("%s PASSED\n", name);
  return 0;
}

// Expects `call` to fail with `code` (a misuse test), and the last error to say so.
#define EXPECT_ERROR(call, code)                                                          \
  do {                                                                                    \
    hipError_t got_ = (call);                                                             \
    if (got_ != (code)) {                                                                 \
      std::fprintf(stderr, "%s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__,    \
                   #call, hipGetErrorName(got_), hipGetErrorName(code));                  \
      std::exit(1);                                                                       \
    }                                                                                     \
    if (hipGetLastError() != (code) || hipGetLastError() != hipSuccess) {                 \
      std::fprintf(stderr, "%s:%d: last error not recorded for %s\n", __FILE__, __LINE__, \
                   #call);                                                                \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)
