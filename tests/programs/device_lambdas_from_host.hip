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

// Lambdas with a capture default beside `*this`, init-captures and a by-copy capture: the
// closure holds the written captures in order, then the implicit ones in the order of first use
// (a nested lambda's use among them), as the host compiler lays it out.
struct Scaler {
  int base = 1000;
  short step = 9;
  std::vector<int> run(const std::vector<int>& k) const {
    int x = 1, z = 3, q = 11;
    double w = 4.5;
    char c = 6;
    auto first = [=, *this, y = 5] __device__(int v) {
      auto inner = [=] { return q * v + z; };
      return inner() + x * y + base + (int)w * c + step;
    };
    std::vector<int> got = run_unary(first, k);
    auto second = [=, y = 7, s = step] __device__(int v) { return (int)w + c * v + z - y * s + q; };
    std::vector<int> more = run_unary(second, k);
    got.insert(got.end(), more.begin(), more.end());
    return got;
  }
};

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

  std::vector<int> mixed = Scaler().run(k), want_mixed(2 * n);
  for (int i = 0; i < n; ++i) {
    want_mixed[i] = (11 * k[i] + 3) + 1 * 5 + 1000 + 4 * 6 + 9;
    want_mixed[n + i] = 4 + 6 * k[i] + 3 - 7 * 9 + 11;
  }
  failures += report("capture default beside *this and init-captures",
                     count_mismatches("mixed", mixed, want_mixed));
  return failures;
}

int main() {
  if (run_all()) return 1;
  std::printf("device_lambdas_from_host PASSED\n");
  return 0;
}
