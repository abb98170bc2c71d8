// Correct code the memory checker (-fsanitize=address) must pass without a report, in shapes it
// once got wrong: a struct passed by value and indexed (the thread's copy is no allocation of
// the runtime's table); a device function with a local array, inlined into a loop and walked
// through pointers (the array is made anew in the loop's body); a device pointer variable
// initialized with the address of another device variable and read through; and a local whose
// address is taken, inlined after an access of the kernel's (naming it at that access made the
// module invalid); and reads in a loop counting by 16 under a bound, whose addresses at the
// loop's last count lie past the data. Every result is compared with a host reference.
#include "../programs/test_common.h"

#include <algorithm>
#include <cmath>

constexpr int kN = 256;

struct Stencil {
  float weights[5];
  int radius;
};

// Reads the by-value argument at an index known only at run time.
__global__ void weighted(const float* in, float* out, Stencil s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
  for (int k = -s.radius; k <= s.radius; ++k) {
    int j = min(max(i + k, 0), n - 1);
    sum += s.weights[k + s.radius] * in[j];
  }
  out[i] = sum;
}

// A local array walked by range-for and by a pointer: inlined into the caller's loop.
__device__ int digits_sum(int v) {
  int digits[6] = {v % 10, v / 10 % 10, v / 100 % 10, 1, 2, 3};
  for (auto& d : digits) d *= 2;
  int sum = 0;
  for (const int* p = digits; p != digits + 6; ++p) sum += *p;
  return sum;
}

__global__ void sums(int* out, int per_thread) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * per_thread;
  for (int k = 0; k < per_thread; ++k) out[base + k] = digits_sum(base + k);
}

__device__ int table[32];
__device__ int* middle = &table[16];
__device__ int* rows[2] = {table, table + 8};

__global__ void through_pointers(int* out) {
  int t = threadIdx.x;
  table[t] = 3 * t;
  __syncthreads();
  out[t] = middle[t % 16 - 8] + rows[t % 2][t % 8];
}

struct Pair {
  short lo, hi;
};

__device__ inline int packed(int v) {
  Pair p{static_cast<short>(v), static_cast<short>(v >> 16)};
  const short* view = &p.lo;
  return view[0] + 2 * view[1];
}

// The global store comes before the inlined local whose address is taken.
__global__ void store_then_local(int* out, int n) {
  int i = threadIdx.x;
  out[i] = i;
  out[n + i] = packed(i * 65537);
}

// Sums each row in tiles of 16 (a loop counting by 16, its reads under a bound that the last
// tile crosses, as a tiled matrix product's are): at the last count the reads' addresses lie
// past the data, where they never read, so the check made before the loop fails and each read
// is checked on its own, and passes.
__global__ void tiled_row_sums(const int* in, int* out, int n) {
  int row = blockIdx.x;
  int tx = threadIdx.x;
  int s = 0;
  for (int t = 0; t < n; t += 16) s += (t + tx < n) ? in[row * n + t + tx] : 0;
  out[row * 16 + tx] = s;
}

int main() {
  int bad = 0;
  std::vector<float> in(kN), want(kN);
  for (int i = 0; i < kN; ++i) in[i] = 0.5f * (i % 17);
  Stencil s{{0.125f, 0.25f, 0.25f, 0.25f, 0.125f}, 2};
  for (int i = 0; i < kN; ++i) {
    float sum = 0.0f;
    for (int k = -2; k <= 2; ++k) sum += s.weights[k + 2] * in[std::min(std::max(i + k, 0), kN - 1)];
    want[i] = sum;
  }
  float* d_in = to_device(in);
  float* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, kN * sizeof(float)));
  hipLaunchKernelGGL(weighted, dim3(kN / 64), dim3(64), 0, 0, d_in, d_out, s, kN);
  HIP_CHECK(hipGetLastError());
  std::vector<float> got = from_device(d_out, kN);
  for (int i = 0; i < kN; ++i)
    if (std::fabs(got[i] - want[i]) > 1e-5f) {
      if (bad < 5) std::printf("weighted: element %d is %f, want %f\n", i, got[i], want[i]);
      ++bad;
    }

  const int per_thread = 4, count = 2 * 64 * per_thread;
  int* d_sums = nullptr;
  HIP_CHECK(hipMalloc(&d_sums, count * sizeof(int)));
  hipLaunchKernelGGL(sums, dim3(2), dim3(64), 0, 0, d_sums, per_thread);
  HIP_CHECK(hipGetLastError());
  std::vector<int> want_sums(count);
  for (int v = 0; v < count; ++v) want_sums[v] = 2 * (v % 10 + v / 10 % 10 + v / 100 % 10 + 6);
  bad += count_mismatches("sums", from_device(d_sums, count), want_sums);

  int* d_ptr = nullptr;
  HIP_CHECK(hipMalloc(&d_ptr, 32 * sizeof(int)));
  hipLaunchKernelGGL(through_pointers, dim3(1), dim3(32), 0, 0, d_ptr);
  HIP_CHECK(hipGetLastError());
  std::vector<int> want_ptr(32);
  for (int t = 0; t < 32; ++t) want_ptr[t] = 3 * (16 + t % 16 - 8) + 3 * ((t % 2) * 8 + t % 8);
  bad += count_mismatches("through_pointers", from_device(d_ptr, 32), want_ptr);

  int* d_packed = nullptr;
  HIP_CHECK(hipMalloc(&d_packed, 2 * 64 * sizeof(int)));
  hipLaunchKernelGGL(store_then_local, dim3(1), dim3(64), 0, 0, d_packed, 64);
  HIP_CHECK(hipGetLastError());
  std::vector<int> want_packed(128);
  for (int i = 0; i < 64; ++i) {
    want_packed[i] = i;
    int v = i * 65537;
    want_packed[64 + i] = static_cast<short>(v) + 2 * static_cast<short>(v >> 16);
  }
  bad += count_mismatches("store_then_local", from_device(d_packed, 128), want_packed);

  const int rows = 8, width = 100;
  std::vector<int> cells(rows * width), want_rows(rows * 16, 0);
  for (int i = 0; i < rows * width; ++i) cells[i] = i % 23 - 7;
  for (int row = 0; row < rows; ++row)
    for (int tx = 0; tx < 16; ++tx)
      for (int t = 0; t + tx < width; t += 16) want_rows[row * 16 + tx] += cells[row * width + t + tx];
  int* d_cells = to_device(cells);
  int* d_rows = nullptr;
  HIP_CHECK(hipMalloc(&d_rows, rows * 16 * sizeof(int)));
  tiled_row_sums<<<rows, 16>>>(d_cells, d_rows, width);
  HIP_CHECK(hipGetLastError());
  bad += count_mismatches("tiled_row_sums", from_device(d_rows, rows * 16), want_rows);

  HIP_CHECK(hipFree(d_cells));
  HIP_CHECK(hipFree(d_rows));
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_sums));
  HIP_CHECK(hipFree(d_ptr));
  HIP_CHECK(hipFree(d_packed));
  if (bad) {
    std::printf("correct_patterns FAILED (%d)\n", bad);
    return 1;
  }
  std::printf("correct_patterns PASSED\n");
  return 0;
}
