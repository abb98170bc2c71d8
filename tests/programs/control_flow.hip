// Structured and unstructured control flow in kernels and device functions:
// loops with break/continue, early returns, do-while, ?:, short-circuit && and ||, range-based for
// over arrays.
#include "test_common.h"

#include <chrono>

// Used on both sides: the host computes the reference with the same code.
__host__ __device__ int collatz_steps(int n) {
  int steps = 0;
  while (n != 1) {
    if (n % 2 == 0) {
      n = n / 2;
    } else {
      n = 3 * n + 1;
    }
    ++steps;
    if (steps > 500) return -1;
  }
  return steps;
}

__host__ __device__ int first_divisor(int n) {
  if (n < 2) return 0;
  for (int d = 2; d * d <= n; d++) {
    if (n % d == 0) return d;
  }
  return n;
}

__host__ __device__ int skip_and_stop(int n) {
  int sum = 0;
  for (int i = 0; i < 100; i++) {
    if (i % 3 == 0) continue;
    if (i > n) break;
    sum += i;
  }
  int k = 0;
  do {
    k += 2;
  } while (k < n % 7);
  return sum * 10 + k;
}

__host__ __device__ int side_effects(int a, int b) {
  int calls = 0;
  // Short circuit: the right operands must not run when the left decides.
  if (a > 0 && ++calls > 0 && b > 0) calls += 10;
  if (a < 0 || ++calls > 100) calls += 100;
  int m = a > b ? a - b : b - a;
  return calls * 1000 + m;
}

constexpr int kRounds = 6;
struct Limits {
  static constexpr int kCap = 40;
};

// switch with fallthrough, default in the middle, break out of the switch inside a loop,
// continue of the loop from inside the switch, and #pragma unroll.
__host__ __device__ int switch_machine(int v) {
  int acc = 0;
#pragma unroll
  for (int round = 0; round < kRounds; ++round) {
    switch ((v + round) % 7) {
      case 0:
        acc += 1;  // falls through
      case 1:
        acc += 10;
        break;
      default:
        acc -= 3;
      case 5:
        acc *= 2;
        if (acc > Limits::kCap) continue;
        acc += 7;
        break;
      case 6: {
        int t = acc;
        acc = t % 5 + round;
        break;
      }
    }
    acc += round;
  }
  switch (v & 3) {
    case 2:
      return acc * 100;
  }
  return acc;
}

// A lookup table in a `static const` local, as device code often keeps its constants.
__host__ __device__ int table_lookup(int v) {
  static const int primes[8] = {2, 3, 5, 7, 11, 13, 17, 19};
  static constexpr int mask = 7;
  return primes[v & mask] * primes[(v >> 3) & mask];
}

// A span: range-based for calls its begin() and end().
struct IntSpan {
  int* first;
  int count;
  __host__ __device__ int* begin() const { return first; }
  __host__ __device__ int* end() const { return first + count; }
};

struct Samples {
  int values[5];
  int bias;
};

// Range-based for over arrays: by value, by reference (writing through it), const reference with
// continue and break, nested over a 2-D array, over a struct member, and an early return inside.
__host__ __device__ int range_loops(int v) {
  int a[6] = {v % 11, v % 13, v % 17, v % 19, v % 23, v % 29};
  for (auto& x : a) x = x * 2 - 7;
  int sum = 0;
  for (int x : a) sum += x;
  int picked = 0;
  for (const int& x : a) {
    if (x < 0) continue;
    if (x > 30) break;
    picked += x;
  }
  int grid[3][4];
  int k = v % 5;
  for (auto& row : grid) {
    for (int& cell : row) cell = k++;
  }
  int diag = 0;
  for (const auto& row : grid) {
    for (int cell : row) diag ^= cell * 3;
  }
  Samples s = {{v % 3, v % 7, v % 9, v % 4, v % 6}, v % 10};
  int weighted = s.bias;
  for (int x : s.values) weighted = weighted * 3 + x;
  IntSpan middle{a + 1, 4};
  for (int& x : middle) x += 1;
  for (int x : middle) sum += x * 10;
  for (int x : s.values) {
    if (x == 5) return sum * 1000 + picked * 100 + diag - weighted;  // early return from the loop
  }
  return sum * 1000 + picked * 100 + diag + weighted;
}

__global__ void control_kernel(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;  // early exit, as in most real kernels
  int v = in[i];
  out[4 * i] = collatz_steps(v % 97 + 1);
  out[4 * i + 1] = first_divisor(v) + table_lookup(v) * 1000;
  out[4 * i + 2] = skip_and_stop(v % 120);
  out[4 * i + 3] = side_effects(v % 7 - 3, v % 5 - 2) + switch_machine(v) * 7 + range_loops(v);
}

int main() {
  const int n = 5000;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 7919) % 10007;

  std::vector<int> want(4 * n);
  for (int i = 0; i < n; ++i) {
    int v = in[i];
    want[4 * i] = collatz_steps(v % 97 + 1);
    want[4 * i + 1] = first_divisor(v) + table_lookup(v) * 1000;
    want[4 * i + 2] = skip_and_stop(v % 120);
    want[4 * i + 3] = side_effects(v % 7 - 3, v % 5 - 2) + switch_machine(v) * 7 + range_loops(v);
  }

  int* d_in = to_device(in);
  int* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, want.size() * sizeof(int)));
  auto start = std::chrono::steady_clock::now();
  hipLaunchKernelGGL(control_kernel, dim3((n + 127) / 128), dim3(128), 0, 0, d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());
  auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start);
  std::printf("kernel took %.3f ms\n", ms.count());
  std::vector<int> got = from_device(d_out, want.size());
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return report("control_flow", count_mismatches("out", got, want));
}
