// Generic device lambdas written in host code and passed to kernel templates: `auto` parameters
// take the kernel's element types, several lambdas of one shape in one function, one lambda
// launched for two element types, `__host__ __device__` lambdas the host calls too, and atomics
// through `auto*` parameters. The lambdas are written in a function that is not inline, whose
// closure types each host compiler names its own way (g++ numbers them in one sequence, clang
// calls them `$_0`, `$_1`, ...).
#include "test_common.h"

template <typename T, typename F>
__global__ void map_kernel(F f, const T* in, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f(in[i]);
}

template <typename T, typename F>
__global__ void zip_kernel(F f, const T* a, const T* b, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f(a[i], b[i]);
}

// `accumulate(total, value)` adds atomically and returns the old total, as atomicAdd does.
template <typename T, typename F>
__global__ void reduce_kernel(F accumulate, const T* in, T* total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) (void)accumulate(total, in[i]);
}

template <typename T, typename F>
std::vector<T> map(F f, const std::vector<T>& in) {
  int n = static_cast<int>(in.size());
  T* din = to_device(in);
  T* dout;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(T)));
  map_kernel<<<(n + 127) / 128, 128>>>(f, din, dout, n);
  HIP_CHECK(hipGetLastError());
  std::vector<T> out = from_device(dout, n);
  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dout));
  return out;
}

template <typename T, typename F>
std::vector<T> zip(F f, const std::vector<T>& a, const std::vector<T>& b) {
  int n = static_cast<int>(a.size());
  T* da = to_device(a);
  T* db = to_device(b);
  T* dout;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(T)));
  hipLaunchKernelGGL(zip_kernel, dim3((n + 63) / 64), dim3(64), 0, 0, f, da, db, dout, n);
  HIP_CHECK(hipGetLastError());
  std::vector<T> out = from_device(dout, n);
  HIP_CHECK(hipFree(da));
  HIP_CHECK(hipFree(db));
  HIP_CHECK(hipFree(dout));
  return out;
}

template <typename T, typename F>
T reduce(F accumulate, const std::vector<T>& in) {
  int n = static_cast<int>(in.size());
  T* din = to_device(in);
  T* dtotal = to_device(std::vector<T>(1, T(0)));
  reduce_kernel<<<(n + 255) / 256, 256>>>(accumulate, din, dtotal, n);
  HIP_CHECK(hipGetLastError());
  std::vector<T> total = from_device(dtotal, 1);
  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dtotal));
  return total[0];
}

int run_generic_lambdas() {
  const int n = 1000;
  std::vector<float> x(n), y(n);
  std::vector<int> k(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.25f * (i % 97) - 6.0f;
    y[i] = 0.5f * (i % 13) + 1.0f;
    k[i] = (i * 37) % 1001 - 500;
  }
  int failures = 0;
  std::vector<float> want(n);
  std::vector<int> wanti(n);

  // Two lambdas of one shape (`auto` to `auto`) in one function, to one kernel template.
  std::vector<float> got = map([] __device__(auto v) { return v * v - 1.0f; }, x);
  for (int i = 0; i < n; ++i) want[i] = x[i] * x[i] - 1.0f;
  failures += report("generic lambda", count_mismatches("square", got, want));

  got = map([] __device__(auto v) { return v * 0.5f + 3.0f; }, x);
  for (int i = 0; i < n; ++i) want[i] = x[i] * 0.5f + 3.0f;
  failures += report("second lambda of the same shape", count_mismatches("half", got, want));

  // One lambda, two kernel instances: its operator() is instantiated for float and for int.
  auto twice = [] __device__(auto v) { return v + v; };
  got = map(twice, x);
  for (int i = 0; i < n; ++i) want[i] = x[i] + x[i];
  failures += report("one lambda for float", count_mismatches("twice float", got, want));
  std::vector<int> goti = map(twice, k);
  for (int i = 0; i < n; ++i) wanti[i] = k[i] + k[i];
  failures += report("the same lambda for int", count_mismatches("twice int", goti, wanti));

  // A __host__ __device__ lambda: the host reference calls the same lambda.
  auto magnitude = [] __host__ __device__(auto v) { return v < 0 ? -v : v; };
  goti = map(magnitude, k);
  for (int i = 0; i < n; ++i) wanti[i] = magnitude(k[i]);
  failures += report("host and device lambda", count_mismatches("magnitude", goti, wanti));

  // Two parameters, launched by hipLaunchKernelGGL.
  got = zip([] __device__(auto a, auto b) { return a * b + (a < b ? a : b); }, x, y);
  for (int i = 0; i < n; ++i) want[i] = x[i] * y[i] + (x[i] < y[i] ? x[i] : y[i]);
  failures += report("two auto parameters", count_mismatches("zip", got, want));

  // An `auto*` parameter: the lambda is the atomic operation.
  auto add = [] __device__(auto* total, auto value) { return atomicAdd(total, value); };
  std::vector<int> small(n);
  std::vector<float> smallf(n);
  int sum = 0;
  for (int i = 0; i < n; ++i) {
    small[i] = i % 17;
    smallf[i] = static_cast<float>(i % 5);
    sum += small[i];
  }
  float sumf = 0;
  for (int i = 0; i < n; ++i) sumf += smallf[i];
  std::vector<int> sums = {reduce(add, small), static_cast<int>(reduce(add, smallf))};
  std::vector<int> want_sums = {sum, static_cast<int>(sumf)};
  failures += report("atomicAdd through auto*", count_mismatches("sums", sums, want_sums));
  return failures;
}

int main() {
  if (run_generic_lambdas()) return 1;
  std::printf("generic_device_lambdas PASSED\n");
  return 0;
}
