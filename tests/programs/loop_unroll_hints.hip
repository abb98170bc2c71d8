// Unroll hints (`#pragma unroll`, `#pragma unroll N`, `#pragma nounroll`, `#pragma GCC unroll`,
// `#pragma clang loop unroll(full)`) reach the device compiler as LLVM loop metadata; unrolled or
// not, every loop computes what the source says.
#include "test_common.h"
#include "include/unrolled_kernels.h"

template <int ITEMS>
static int check_blocked(const std::vector<float>& in) {
  const int n = static_cast<int>(in.size());
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = in[i] * 2.0f + static_cast<float>(i % ITEMS);
  float* d_in = to_device(in);
  float* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(float)));
  const int threads = (n + ITEMS - 1) / ITEMS;
  blocked_transform<ITEMS><<<(threads + 63) / 64, 64>>>(d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  int bad = count_mismatches("blocked_transform", from_device(d_out, n), want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return bad;
}

int main() {
  int bad = 0;
  std::vector<float> in(4099);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>((i * 37) % 101) - 50.0f;
  bad += check_blocked<4>(in);
  bad += check_blocked<8>(in);
  bad += check_blocked<1>(in);

  // Buckets: edges -31.5, -30.5, ..., 31.5; value x falls in the count of edges <= x.
  std::vector<float> edges(64);
  for (int i = 0; i < 64; ++i) edges[i] = static_cast<float>(i) - 31.5f;
  const int n = 3001;
  std::vector<float> values(n);
  for (int i = 0; i < n; ++i) values[i] = static_cast<float>((i * 7919) % 80) - 40.0f + 0.25f;
  std::vector<unsigned char> want_buckets(n);
  for (int i = 0; i < n; ++i) {
    int lo = 0;
    for (int step = 32; step > 0; step >>= 1) {
      if (values[i] >= edges[lo + step - 1]) lo += step;
    }
    want_buckets[i] = static_cast<unsigned char>(lo);
  }
  float* d_edges = to_device(edges);
  float* d_values = to_device(values);
  unsigned char* d_buckets = nullptr;
  HIP_CHECK(hipMalloc(&d_buckets, n));
  hipLaunchKernelGGL(bucket_of, dim3((n / 2 + 127) / 128), dim3(128), 0, 0, d_edges, d_values,
                     d_buckets, n);
  HIP_CHECK(hipGetLastError());
  bad += count_mismatches("bucket_of", from_device(d_buckets, n), want_buckets);

  const int rows = 256, width = 37, limit = 90;
  std::vector<int> grid(rows * width);
  for (int i = 0; i < rows * width; ++i) grid[i] = (i * 131 + 17) % 97;
  std::vector<int> want_found(rows), want_sums(rows);
  for (int r = 0; r < rows; ++r) {
    want_found[r] = -1;
    for (int j = 0; j < width; ++j) {
      if (grid[r * width + j] > limit) {
        want_found[r] = j;
        break;
      }
    }
    int sum = 0;
    for (int k = 0; k < width; ++k) {
      if (grid[r * width + k] % 3 != 0) sum += grid[r * width + k];
    }
    want_sums[r] = sum;
  }
  int* d_grid = to_device(grid);
  int* d_found = nullptr;
  int* d_sums = nullptr;
  HIP_CHECK(hipMalloc(&d_found, rows * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_sums, rows * sizeof(int)));
  first_above<<<rows / 64, 64>>>(d_grid, width, limit, d_found, d_sums);
  HIP_CHECK(hipGetLastError());
  bad += count_mismatches("first_above found", from_device(d_found, rows), want_found);
  bad += count_mismatches("first_above sums", from_device(d_sums, rows), want_sums);

  for (void* p : {static_cast<void*>(d_edges), static_cast<void*>(d_values),
                  static_cast<void*>(d_buckets), static_cast<void*>(d_grid),
                  static_cast<void*>(d_found), static_cast<void*>(d_sums)}) {
    HIP_CHECK(hipFree(p));
  }
  return report("loop_unroll_hints", bad);
}
