// Recursion in device code, as real programs write it: a recursive walk of a tree held in a
// device array of nodes (counting visits with atomics), a recursive-descent parser (mutual
// recursion: expression -> term -> factor -> expression), a recursive quicksort on each thread's
// own slice, a recursive divide-and-conquer template, frames each holding a local array across
// their recursive call, one recursive function called from two kernels, and recursion through
// a device function pointer. NVIDIA targets run it with PTX's call stack; on SPIR-V the
// recursive calls go through SPV_INTEL_function_pointers (Intel's OpenCL runtimes take them).
// Every element is compared with a host reference computed by the same code.
#include "test_common.h"

struct Node {
  int value;
  int left, right;  // -1: none
};

__host__ __device__ long tree_sum(const Node* nodes, int at, int depth) {
  if (at < 0) return 0;
  const Node& n = nodes[at];
  return n.value * depth + tree_sum(nodes, n.left, depth + 1) + tree_sum(nodes, n.right, depth + 1);
}

// The height of the subtree at `at`, counting every node visited in `visits`.
__device__ int tree_height(const Node* nodes, int at, unsigned* visits) {
  if (at < 0) return 0;
  atomicAdd(&visits[at], 1u);
  int l = tree_height(nodes, nodes[at].left, visits);
  int r = tree_height(nodes, nodes[at].right, visits);
  return 1 + (l > r ? l : r);
}

int host_tree_height(const std::vector<Node>& nodes, int at, std::vector<unsigned>& visits) {
  if (at < 0) return 0;
  ++visits[at];
  int l = host_tree_height(nodes, nodes[at].left, visits);
  int r = host_tree_height(nodes, nodes[at].right, visits);
  return 1 + (l > r ? l : r);
}

// Mutual recursion: a recursive-descent evaluator of "1+2*(3-4)" over a NUL-terminated string.
struct Parser {
  const char* text;
  int pos;
};

__host__ __device__ long parse_expression(Parser* p);

__host__ __device__ long parse_factor(Parser* p) {
  char c = p->text[p->pos];
  if (c == '(') {
    ++p->pos;
    long v = parse_expression(p);
    ++p->pos;  // ')'
    return v;
  }
  if (c == '-') {
    ++p->pos;
    return -parse_factor(p);
  }
  long v = 0;
  while (p->text[p->pos] >= '0' && p->text[p->pos] <= '9') v = v * 10 + (p->text[p->pos++] - '0');
  return v;
}

__host__ __device__ long parse_term(Parser* p) {
  long v = parse_factor(p);
  while (p->text[p->pos] == '*') {
    ++p->pos;
    v *= parse_factor(p);
  }
  return v;
}

__host__ __device__ long parse_expression(Parser* p) {
  long v = parse_term(p);
  while (p->text[p->pos] == '+' || p->text[p->pos] == '-') {
    char op = p->text[p->pos++];
    long t = parse_term(p);
    v = op == '+' ? v + t : v - t;
  }
  return v;
}

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

// A recursive template: the largest element by divide and conquer, for two element types.
template <typename T>
__host__ __device__ T range_max(const T* v, int lo, int hi) {
  if (hi - lo == 1) return v[lo];
  int mid = lo + (hi - lo) / 2;
  T a = range_max(v, lo, mid), b = range_max(v, mid, hi);
  return a > b ? a : b;
}

// Template recursion resolved at compile time (each instantiation calls the next).
template <int N>
__host__ __device__ long power_sum(long x) {
  if constexpr (N == 0) {
    return 1;
  } else {
    return x * power_sum<N - 1>(x) + 1;
  }
}

// Each frame fills a local array, recurses, and reads its array back: frames must not share it.
__host__ __device__ int frame_sum(int depth, int seed) {
  int local[8];
  for (int k = 0; k < 8; ++k) local[k] = seed * k + depth;
  int below = depth > 0 ? frame_sum(depth - 1, seed + 3) : 0;
  int s = 0;
  for (int k = 0; k < 8; ++k) s += local[k] * (k + 1);
  return s + below;
}

// Recursion through a device function pointer: the walk calls whatever it was given.
typedef int (*Counter)(const Node*, int, int);

__host__ __device__ int count_deeper(const Node* nodes, int at, int min_depth);

__host__ __device__ int count_through(Counter self, const Node* nodes, int at, int min_depth) {
  return at < 0 ? 0 : self(nodes, at, min_depth);
}

__host__ __device__ int count_deeper(const Node* nodes, int at, int min_depth) {
  Counter self = count_deeper;
  return (min_depth <= 0 ? 1 : 0) + count_through(self, nodes, nodes[at].left, min_depth - 1) +
         count_through(self, nodes, nodes[at].right, min_depth - 1);
}

constexpr int kSlice = 24;
constexpr int kExpr = 32;  // bytes per expression

__global__ void run(const Node* nodes, int count, int* slices, const char* exprs, long* out,
                    int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  quicksort(slices + i * kSlice, 0, kSlice - 1);
  Parser p{exprs + i * kExpr, 0};
  out[i] = tree_sum(nodes, i % count, 1) + 1000L * parse_expression(&p) + power_sum<5>(i % 7) +
           range_max(slices + i * kSlice, 0, kSlice) * 7L + frame_sum(i % 9, i) +
           100000L * count_through(count_deeper, nodes, 0, i % 6);
}

// A second kernel calling the same recursive function.
__global__ void subtree_sums(const Node* nodes, int count, long* out, double* maxima,
                             const double* values, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = tree_sum(nodes, i % count, 2);
  maxima[i] = range_max(values, i % 5, i % 5 + 1 + i % 17);
}

__global__ void heights(const Node* nodes, int count, unsigned* visits, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = tree_height(nodes, i, visits);
}

int main() {
  const int count = 31, n = 200;
  // A complete binary tree of 31 nodes, stored as an array.
  std::vector<Node> nodes(count);
  for (int k = 0; k < count; ++k) {
    nodes[k] = {k * 3 + 1, 2 * k + 1 < count ? 2 * k + 1 : -1, 2 * k + 2 < count ? 2 * k + 2 : -1};
  }
  std::vector<int> slices(n * kSlice);
  for (size_t k = 0; k < slices.size(); ++k) slices[k] = static_cast<int>((k * 7919) % 1000) - 500;
  std::vector<char> exprs(n * kExpr, 0);
  for (int i = 0; i < n; ++i) {
    std::snprintf(&exprs[i * kExpr], kExpr, "%d+%d*(%d-(%d*-2))-%d", i, i % 13, i % 7, i % 5, 3);
  }
  std::vector<double> values(40);
  for (int k = 0; k < 40; ++k) values[k] = (k * 37 % 23) * 0.5 - 3.0;

  Node* d_nodes = to_device(nodes);
  int* d_slices = to_device(slices);
  char* d_exprs = to_device(exprs);
  double* d_values = to_device(values);
  long* d_out = nullptr;
  long* d_sums = nullptr;
  double* d_maxima = nullptr;
  unsigned* d_visits = nullptr;
  int* d_heights = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(long)));
  HIP_CHECK(hipMalloc(&d_sums, n * sizeof(long)));
  HIP_CHECK(hipMalloc(&d_maxima, n * sizeof(double)));
  HIP_CHECK(hipMalloc(&d_visits, count * sizeof(unsigned)));
  HIP_CHECK(hipMalloc(&d_heights, count * sizeof(int)));
  HIP_CHECK(hipMemset(d_visits, 0, count * sizeof(unsigned)));
  run<<<(n + 63) / 64, 64>>>(d_nodes, count, d_slices, d_exprs, d_out, n);
  HIP_CHECK(hipGetLastError());
  subtree_sums<<<(n + 63) / 64, 64>>>(d_nodes, count, d_sums, d_maxima, d_values, n);
  HIP_CHECK(hipGetLastError());
  heights<<<1, 32>>>(d_nodes, count, d_visits, d_heights);
  HIP_CHECK(hipGetLastError());

  std::vector<long> want(n), want_sums(n);
  std::vector<double> want_maxima(n);
  for (int i = 0; i < n; ++i) {
    quicksort(slices.data() + i * kSlice, 0, kSlice - 1);
    Parser p{&exprs[i * kExpr], 0};
    want[i] = tree_sum(nodes.data(), i % count, 1) + 1000L * parse_expression(&p) +
              power_sum<5>(i % 7) + range_max(slices.data() + i * kSlice, 0, kSlice) * 7L +
              frame_sum(i % 9, i) + 100000L * count_through(count_deeper, nodes.data(), 0, i % 6);
    want_sums[i] = tree_sum(nodes.data(), i % count, 2);
    want_maxima[i] = range_max(values.data(), i % 5, i % 5 + 1 + i % 17);
  }
  std::vector<unsigned> want_visits(count, 0);
  std::vector<int> want_heights(count);
  for (int k = 0; k < count; ++k) want_heights[k] = host_tree_height(nodes, k, want_visits);

  int failures = 0;
  failures += report("recursion", count_mismatches("values", from_device(d_out, n), want));
  failures += report("recursive quicksort",
                     count_mismatches("sorted", from_device(d_slices, n * kSlice), slices));
  failures += report("recursion from a second kernel",
                     count_mismatches("sums", from_device(d_sums, n), want_sums) +
                         count_mismatches("maxima", from_device(d_maxima, n), want_maxima));
  failures += report("recursive tree walk with atomics",
                     count_mismatches("heights", from_device(d_heights, count), want_heights) +
                         count_mismatches("visits", from_device(d_visits, count), want_visits));
  HIP_CHECK(hipFree(d_nodes));
  HIP_CHECK(hipFree(d_slices));
  HIP_CHECK(hipFree(d_exprs));
  HIP_CHECK(hipFree(d_values));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_sums));
  HIP_CHECK(hipFree(d_maxima));
  HIP_CHECK(hipFree(d_visits));
  HIP_CHECK(hipFree(d_heights));
  return failures;
}
