// Device lambdas written in host code and passed, through host function templates, to kernel
// templates: the kernel instance for each closure type is compiled, launched by `<<<>>>` and
// hipLaunchKernelGGL, its host stub found although it has internal linkage.
#include "test_common.h"

template <typename T, typename Op>
__global__ void apply_unary(Op op, const T* in, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = op(in[i]);
}

template <typename T, typename Op>
std::vector<T> run_unary(Op op, const std::vector<T>& in) {
  int n = static_cast<int>(in.size());
  T* din = to_device(in);
  T* dout;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(T)));
  apply_unary<<<(n + 63) / 64, 64>>>(op, din, dout, n);
  HIP_CHECK(hipGetLastError());
  std::vector<T> out = from_device(dout, n);
  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dout));
  return out;
}

template <typename Op>
std::vector<int> run_binary_ggl(Op op, const std::vector<int>& a) {
  int n = static_cast<int>(a.size());
  int* da = to_device(a);
  int* dout;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(int)));
  hipLaunchKernelGGL(apply_unary, dim3((n + 63) / 64), dim3(64), 0, 0, op, da, dout, n);
  HIP_CHECK(hipGetLastError());
  std::vector<int> out = from_device(dout, n);
  HIP_CHECK(hipFree(da));
  HIP_CHECK(hipFree(dout));
  return out;
}

// The lambdas are written in an inline function (generic_device_lambdas.hip writes them in one
// that is not inline, whose closure types the host clang names `$_0`, `$_1`, ...).
inline int run_all() {
  const int n = 500;
  std::vector<float> x(n);
  std::vector<int> k(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.01f * i - 2.0f;
    k[i] = i * 37 % 1000 - 500;
  }
  int failures = 0;
  std::vector<float> got = run_unary([] __device__(float v) { return v * 2.0f - 1.0f; }, x);
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = x[i] * 2.0f - 1.0f;  // exact: fused or not
  failures += report("lambda through a host template", count_mismatches("square", got, want));

  std::vector<int> goti = run_unary([] __device__(int v) { return v < 0 ? -v : 2 * v; }, k);
  std::vector<int> wanti(n);
  for (int i = 0; i < n; ++i) wanti[i] = k[i] < 0 ? -k[i] : 2 * k[i];
  failures += report("second closure type", count_mismatches("abs2", goti, wanti));

  goti = run_binary_ggl([] __device__(long v) { return __popcll(static_cast<unsigned long long>(v)) + static_cast<int>(min(v, 7L)); },
                        k);
  for (int i = 0; i < n; ++i) {
    wanti[i] = __builtin_popcountll(static_cast<long>(k[i])) + static_cast<int>(std::min<long>(k[i], 7));
  }
  failures += report("lambda launched by hipLaunchKernelGGL", count_mismatches("ggl", goti, wanti));
  return failures;
}

int main() {
  if (run_all()) return 1;
  std::printf("device_lambdas_from_host PASSED\n");
  return 0;
}
