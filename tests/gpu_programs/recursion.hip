// Recursion in device code, which NVIDIA GPUs run (PTX has a call stack) and hipmlir's SPIR-V
// does not (every call is inlined there): built for NVIDIA targets alone
// (--offload-arch=sm_XX), by scripts/gpu-check.sh. A recursive tree sum, mutual recursion, a
// recursive quicksort on each thread's own slice and a recursive template; every element is
// compared with a host reference computed by the same code.
#include "../programs/test_common.h"

struct Node {
  int value;
  int left, right;  // -1: none
};

__host__ __device__ long tree_sum(const Node* nodes, int at, int depth) {
  if (at < 0) return 0;
  const Node& n = nodes[at];
  return n.value * depth + tree_sum(nodes, n.left, depth + 1) + tree_sum(nodes, n.right, depth + 1);
}

__host__ __device__ bool is_odd(unsigned n);
__host__ __device__ bool is_even(unsigned n) { return n == 0 ? true : is_odd(n - 1); }
__host__ __device__ bool is_odd(unsigned n) { return n == 0 ? false : is_even(n - 1); }

__host__ __device__ void quicksort(int* a, int lo, int hi) {
  if (lo >= hi) return;
  int pivot = a[(lo + hi) / 2], i = lo, j = hi;
  while (i <= j) {
    while (a[i] < pivot) ++i;
    while (a[j] > pivot) --j;
    if (i <= j) {
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
      ++i;
      --j;
    }
  }
  quicksort(a, lo, j);
  quicksort(a, i, hi);
}

template <int N>
__host__ __device__ long power_sum(long x) {
  if constexpr (N == 0) {
    return 1;
  } else {
    return x * power_sum<N - 1>(x) + 1;
  }
}

constexpr int kSlice = 24;

__global__ void run(const Node* nodes, int count, int* slices, long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  quicksort(slices + i * kSlice, 0, kSlice - 1);
  out[i] = tree_sum(nodes, i % count, 1) + 1000L * is_even(i) + power_sum<5>(i % 7);
}

int main() {
  const int count = 31, n = 200;
  std::vector<Node> nodes(count);
  for (int k = 0; k < count; ++k) {
    nodes[k] = {k * 3 + 1, 2 * k + 1 < count ? 2 * k + 1 : -1, 2 * k + 2 < count ? 2 * k + 2 : -1};
  }
  std::vector<int> slices(n * kSlice);
  for (size_t k = 0; k < slices.size(); ++k) slices[k] = static_cast<int>((k * 7919) % 1000) - 500;
  Node* d_nodes = to_device(nodes);
  int* d_slices = to_device(slices);
  long* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(long)));
  run<<<(n + 63) / 64, 64>>>(d_nodes, count, d_slices, d_out, n);
  HIP_CHECK(hipGetLastError());

  std::vector<long> want(n);
  for (int i = 0; i < n; ++i) {
    quicksort(slices.data() + i * kSlice, 0, kSlice - 1);
    want[i] = tree_sum(nodes.data(), i % count, 1) + 1000L * is_even(i) + power_sum<5>(i % 7);
  }
  int failures = 0;
  failures += report("recursion", count_mismatches("values", from_device(d_out, n), want));
  failures += report("recursive quicksort",
                     count_mismatches("sorted", from_device(d_slices, n * kSlice), slices));
  HIP_CHECK(hipFree(d_nodes));
  HIP_CHECK(hipFree(d_slices));
  HIP_CHECK(hipFree(d_out));
  return failures;
}
