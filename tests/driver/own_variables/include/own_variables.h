// Two sources of one program, each defining device and managed variables, and kernels of internal
// linkage, of the same names: built without -fgpu-rdc, each source's are its own (as with
// hipcc), through the symbol API, on the host and in its kernels alike, and each source launches
// its own kernels. Every element is compared with a host reference.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define HIP_CHECK(call)                                                                 \
  do {                                                                                  \
    hipError_t err_ = (call);                                                           \
    if (err_ != hipSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,         \
                   hipGetErrorString(err_));                                            \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

constexpr int kSymbols = 96;

// Defined in this header: every source that includes it has its own.
__device__ int header_offsets[4];

// Tables a macro defines (as generated code and test suites write them), with each source's own
// values: a table, and a step in constant memory.
#define DEFINE_SCALED_TABLE(name, type, scale)                                        \
  __device__ type name[8] = {1 * (scale), 2 * (scale), 3 * (scale), 4 * (scale),      \
                             5 * (scale), 6 * (scale), 7 * (scale), 8 * (scale)};     \
  __constant__ __device__ type name##_step = (scale);

// The values DEFINE_SCALED_TABLE(name, type, scale) starts with, and after `scaled_update`.
template <typename T>
std::vector<T> scaled_table(T scale, int updates) {
  std::vector<T> t(8);
  for (int i = 0; i < 8; ++i) t[i] = static_cast<T>((i + 1) * scale + updates * scale * i);
  return t;
}

// Each runs its source's part and returns the number of mismatches.
int run_first();
int run_second();
// Reads the first source's variables again (after the second source used its own).
int check_first_again();
// Launch each source's own kernels (internal linkage: `static`, an anonymous namespace), whose
// names the two sources share, with other bodies.
int run_first_kernels();
int run_second_kernels();

// out[i] for i < 64 after a source's `own_fill` (the first 32) and `hidden_fill` (the rest).
std::vector<int> own_kernels_result(int (*own)(int), int (*hidden)(int));

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
