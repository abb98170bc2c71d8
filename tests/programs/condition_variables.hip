// Conditions that declare a variable, as device code writes them: `while (T x = e)` walking a
// linked list and draining a bit mask, `for (init; T x = e; inc)`, `switch (T x = e)` and
// `switch (init; cond)`, `if (T x = e)`, with break and continue in their bodies, and a class
// whose destructor counts how often each condition variable dies. Every element is compared
// with a host reference computed by the same code.
#include "test_common.h"

#include <cstdint>

struct Node {
  int value;
  int next;  // -1 ends the list
};

// A handle whose destructor counts: each condition variable is destroyed once per evaluation.
struct Token {
  int id;
  int* deaths;
  __host__ __device__ Token(int i, int* d) : id(i), deaths(d) {}
  __host__ __device__ ~Token() { ++*deaths; }
  __host__ __device__ explicit operator bool() const { return id != 0; }
};

__host__ __device__ inline int lowest_bit(uint32_t mask) {
  for (int b = 0; b < 32; ++b) {
    if (mask & (1u << b)) return b + 1;
  }
  return 0;
}

__host__ __device__ long walk(int i, const Node* nodes, int* deaths) {
  long acc = 0;
  // A linked list: the node pointer is the condition.
  int at = i % 8;
  while (const Node* n = at >= 0 ? &nodes[at] : nullptr) {
    acc += n->value;
    at = n->next;
  }
  // Draining a mask: the lowest set bit (1-based) is the condition.
  uint32_t mask = 0x9E3779B9u ^ static_cast<uint32_t>(i * 2654435761u);
  while (int bit = lowest_bit(mask)) {
    mask &= mask - 1;
    if (bit % 5 == 0) continue;
    if (bit > 20 + i % 9) break;
    acc += 10 * bit;
  }
  for (int k = i % 6; int left = 6 - k; ++k) acc += 100 * left;
  for (int k = 0; Token t = Token(3 - k, deaths); ++k) acc += 1000 * t.id;
  switch (int r = i % 4) {
    case 0:
      acc += 7;
      break;
    case 2:
      acc += 70 * r;
      [[fallthrough]];
    default:
      acc -= r;
  }
  switch (long twice = 2L * i; twice % 3) {
    case 1:
      acc += twice;
      break;
  }
  if (Token t = Token(i % 2, deaths)) acc += 5;
  return acc;
}

__global__ void run(const Node* nodes, long* out, int* deaths, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = walk(i, nodes, &deaths[i]);
}

int main() {
  const int n = 256;
  std::vector<Node> nodes(8);
  for (int k = 0; k < 8; ++k) nodes[k] = {k * k + 1, k % 3 == 0 ? -1 : k - 1};
  Node* d_nodes = to_device(nodes);
  long* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(long)));
  std::vector<int> zeros(n, 0);
  int* d_deaths = to_device(zeros);
  run<<<(n + 127) / 128, 128>>>(d_nodes, d_out, d_deaths, n);
  HIP_CHECK(hipGetLastError());

  std::vector<long> want(n);
  std::vector<int> want_deaths(n, 0);
  for (int i = 0; i < n; ++i) want[i] = walk(i, nodes.data(), &want_deaths[i]);
  int failures = 0;
  failures += report("conditions that declare variables",
                     count_mismatches("values", from_device(d_out, n), want));
  failures += report("condition variables destroyed",
                     count_mismatches("deaths", from_device(d_deaths, n), want_deaths));
  HIP_CHECK(hipFree(d_nodes));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_deaths));
  return failures;
}
