// Lambdas in device code: held by a local and called, or called where written; captures by copy
// (the value when the lambda was made), by reference (writes reach the enclosing variable), by
// default ([=], [&]) and explicitly, of scalars, pointers and arrays; lambdas with loops and early
// returns; lambdas inside device function templates; lambdas passed to function templates (by
// value, by const reference, forwarded, passed on again, written in the call). Every result is
// checked against the same code run on the host.
#include "test_common.h"

#include <chrono>

template <typename T>
__host__ __device__ T clamp_sum(const T* v, int n, T limit) {
  auto add_clamped = [limit](T acc, T x) {
    T s = acc + x;
    if (s > limit) return limit;  // early return from the lambda
    return s;
  };
  T acc = T(0);
  for (int i = 0; i < n; ++i) acc = add_clamped(acc, v[i]);
  return acc;
}

// Generic helpers taking callables, as real HIP code writes them.
template <typename F>
__host__ __device__ void for_each_index(int n, F f) {
  for (int i = 0; i < n; ++i) f(i);
}

template <typename T, typename Op>
__host__ __device__ T fold(const T* v, int n, T init, const Op& op) {
  T acc = init;
  for (int i = 0; i < n; ++i) acc = op(acc, v[i]);
  return acc;
}

template <typename F>
__host__ __device__ int twice(F&& f, int x) {
  return f(f(x));
}

template <typename F>
__host__ __device__ int twice_then_add(F f, int x, int add) {
  return twice(f, x) + add;  // passed on again
}

__host__ __device__ int callables(int v) {
  int sum = 0;
  int squares[6];
  for_each_index(6, [&](int i) {
    squares[i] = (v + i) % 10 * ((v + i) % 10);
    sum += squares[i];
  });
  int biggest = fold(squares, 6, -1, [](int a, int b) { return a > b ? a : b; });
  int offset = v % 4;
  int shifted = twice_then_add([offset](int x) { return x * 2 + offset; }, v % 50, sum);
  return sum * 3 + biggest * 5 + shifted;
}

__host__ __device__ int mix(int v) {
  int base = v % 17;
  auto by_copy = [=](int x) { return x * 3 + base; };
  base += 100;  // by_copy keeps the value it captured
  int counter = 0;
  auto bump = [&](int by) {
    counter += by;
    return counter;
  };
  bump(v % 5);
  bump(2);
  int table[4] = {v % 3, v % 7, v % 11, v % 13};
  auto sum_table = [&table]() {
    int s = 0;
    for (int i = 0; i < 4; ++i) s += table[i];
    return s;
  };
  auto table_then = [table]() { return table[2] * 2 + table[0]; };  // a copy of the array
  table[2] = 50;  // captured by reference: the lambda sees the new value
  int copied = table_then();  // ...but the copy keeps the old one
  int first_big = [&](int threshold) {
    for (int i = 0; i < 4; ++i) {
      if (table[i] > threshold) return i;
    }
    return -1;
  }(v % 9);
  auto pick = [base, &counter](bool b) { return b ? base : counter; };
  return by_copy(v) + counter * 7 + sum_table() * 13 + first_big * 1000 + pick(v % 2 == 0) +
         base + copied * 100000;
}

__global__ void lambda_kernel(const int* in, int* out, const float* vals, float* sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  auto in_range = [n](int j) { return j < n; };
  if (!in_range(i)) return;
  auto at = [in](int j) { return in[j]; };
  out[i] = mix(at(i)) + callables(at(i)) * 1000;
  sums[i] = clamp_sum(vals + i % 64, 16, 20.0f);
}

int main() {
  hipDeviceProp_t props;
  HIP_CHECK(hipGetDeviceProperties(&props, 0));
  const int n = 3000;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37 + 11) % 1000;
  std::vector<float> vals(64 + 16);
  for (size_t i = 0; i < vals.size(); ++i) vals[i] = static_cast<float>(i % 9) * 0.75f;

  std::vector<int> want(n);
  std::vector<float> want_sums(n);
  for (int i = 0; i < n; ++i) {
    want[i] = mix(in[i]) + callables(in[i]) * 1000;
    want_sums[i] = clamp_sum(vals.data() + i % 64, 16, 20.0f);
  }

  int* d_in = to_device(in);
  float* d_vals = to_device(vals);
  int* d_out = nullptr;
  float* d_sums = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_sums, n * sizeof(float)));
  auto start = std::chrono::steady_clock::now();
  lambda_kernel<<<(n + 255) / 256, 256>>>(d_in, d_out, d_vals, d_sums, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());
  auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start);
  std::printf("%s: lambda kernel took %.3f ms\n", props.name, ms.count());
  int bad = count_mismatches("mix", from_device(d_out, n), want);
  bad += count_mismatches("clamp_sum", from_device(d_sums, n), want_sums);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_vals));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_sums));
  return report("lambdas", bad);
}
