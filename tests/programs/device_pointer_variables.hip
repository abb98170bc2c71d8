// Device pointer variables with null initializers, as library code declares them: `nullptr`,
// `0`, `NULL`, casts of them, empty braces, null members of a struct and elements of an array;
// a `static` one. Kernels check that they start null, the host points them at buffers with
// hipMemcpyToSymbol, a kernel points one at a buffer itself, and kernels then work through them.
#include "test_common.h"

#include <cstddef>
#include <cstdint>

namespace {
constexpr int kN = 1000;
constexpr int kPointers = 9;
}  // namespace

__device__ static char* scratch = nullptr;
__device__ float* weights = 0;
__device__ int* counts = NULL;
__device__ const double* table = static_cast<const double*>(nullptr);
__device__ void* opaque = (void*)0;
__device__ unsigned long long* totals{};

struct Buffers {
  int* data;
  int size;
  float* extra;
};
__device__ Buffers buffers = {nullptr, kN, NULL};

namespace lib {
__device__ int* slots[3] = {nullptr, 0};
}

// flags[k] = 1 where the k-th pointer is null; sizes[0] = buffers.size.
__global__ void check_null(int* flags, int* sizes) {
  const void* all[kPointers] = {scratch,       weights,       counts,
                                table,         opaque,        totals,
                                buffers.data,  buffers.extra, lib::slots[2]};
  for (int k = 0; k < kPointers; ++k) flags[k] = all[k] == nullptr ? 1 : 0;
  sizes[0] = buffers.size;
}

// The device points `scratch` at a buffer it is given.
__global__ void bind_scratch(char* p) { scratch = p; }

// Work through the pointers the host set: weighted counts, a table lookup, bytes into scratch.
__global__ void weigh(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = weights[i] * counts[i] + static_cast<float>(table[i % 4]);
    scratch[i] = static_cast<char>('a' + i % 26);
    atomicAdd(&totals[i % 2], static_cast<unsigned long long>(counts[i]));
    buffers.data[i] = counts[i] * 2;
    lib::slots[1][i] = i + 7;
  }
}

template <typename T>
void set_pointer(T*& symbol, T* value) {
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(symbol), &value, sizeof value));
}

int main() {
  int bad = 0;
  int* d_flags = nullptr;
  int* d_sizes = nullptr;
  HIP_CHECK(hipMalloc(&d_flags, kPointers * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_sizes, sizeof(int)));
  check_null<<<1, 1>>>(d_flags, d_sizes);
  HIP_CHECK(hipGetLastError());
  bad += count_mismatches("null at start", from_device(d_flags, kPointers),
                          std::vector<int>(kPointers, 1));
  bad += count_mismatches("size member", from_device(d_sizes, 1), std::vector<int>{kN});

  std::vector<float> w(kN);
  std::vector<int> c(kN);
  for (int i = 0; i < kN; ++i) {
    w[i] = 0.25f * (i % 8);
    c[i] = (i * 7) % 13;
  }
  const std::vector<double> t = {1.0, -2.0, 3.5, 0.125};
  float* d_w = to_device(w);
  int* d_c = to_device(c);
  double* d_t = to_device(t);
  char* d_scratch = nullptr;
  unsigned long long* d_totals = nullptr;
  int* d_data = nullptr;
  int* d_slot = nullptr;
  float* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_scratch, kN));
  HIP_CHECK(hipMalloc(&d_totals, 2 * sizeof(unsigned long long)));
  HIP_CHECK(hipMemset(d_totals, 0, 2 * sizeof(unsigned long long)));
  HIP_CHECK(hipMalloc(&d_data, kN * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_slot, kN * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_out, kN * sizeof(float)));

  set_pointer(weights, d_w);
  set_pointer(counts, d_c);
  set_pointer(table, static_cast<const double*>(d_t));
  set_pointer(totals, d_totals);
  Buffers b = {d_data, kN, nullptr};
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(buffers), &b, sizeof b));
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(lib::slots), &d_slot, sizeof d_slot, sizeof(int*)));
  bind_scratch<<<1, 1>>>(d_scratch);
  weigh<<<(kN + 255) / 256, 256>>>(d_out, kN);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());

  std::vector<float> want_out(kN);
  std::vector<char> want_scratch(kN);
  std::vector<int> want_data(kN);
  std::vector<int> want_slot(kN);
  std::vector<unsigned long long> want_totals(2, 0);
  for (int i = 0; i < kN; ++i) {
    want_out[i] = w[i] * c[i] + static_cast<float>(t[i % 4]);
    want_scratch[i] = static_cast<char>('a' + i % 26);
    want_data[i] = c[i] * 2;
    want_slot[i] = i + 7;
    want_totals[i % 2] += c[i];
  }
  bad += count_mismatches("weights * counts + table", from_device(d_out, kN), want_out);
  bad += count_mismatches("scratch", from_device(d_scratch, kN), want_scratch);
  bad += count_mismatches("buffers.data", from_device(d_data, kN), want_data);
  bad += count_mismatches("lib::slots[1]", from_device(d_slot, kN), want_slot);
  bad += count_mismatches("totals", from_device(d_totals, 2), want_totals);

  // The pointers now hold the host's values, read back by symbol; the unset ones stay null.
  float* got_weights = nullptr;
  void* got_opaque = reinterpret_cast<void*>(1);
  char* got_scratch = nullptr;
  HIP_CHECK(hipMemcpyFromSymbol(&got_weights, HIP_SYMBOL(weights), sizeof got_weights));
  HIP_CHECK(hipMemcpyFromSymbol(&got_opaque, HIP_SYMBOL(opaque), sizeof got_opaque));
  HIP_CHECK(hipMemcpyFromSymbol(&got_scratch, HIP_SYMBOL(scratch), sizeof got_scratch));
  const std::vector<std::uintptr_t> got = {reinterpret_cast<std::uintptr_t>(got_weights),
                                           reinterpret_cast<std::uintptr_t>(got_opaque),
                                           reinterpret_cast<std::uintptr_t>(got_scratch)};
  const std::vector<std::uintptr_t> want = {reinterpret_cast<std::uintptr_t>(d_w), 0,
                                            reinterpret_cast<std::uintptr_t>(d_scratch)};
  bad += count_mismatches("pointers read back", got, want);

  for (void* p : {static_cast<void*>(d_flags), static_cast<void*>(d_sizes),
                  static_cast<void*>(d_w), static_cast<void*>(d_c), static_cast<void*>(d_t),
                  static_cast<void*>(d_scratch), static_cast<void*>(d_totals),
                  static_cast<void*>(d_data), static_cast<void*>(d_slot),
                  static_cast<void*>(d_out)}) {
    HIP_CHECK(hipFree(p));
  }
  return report("device_pointer_variables", bad);
}
