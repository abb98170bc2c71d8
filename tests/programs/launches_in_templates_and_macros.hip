// Launches the host compile alone can resolve: <<<>>> inside host function templates and class
// templates (the kernel instance depends on their template parameters), and inside macros, where
// the kernel, the configuration or the arguments are macro parameters.
#include "test_common.h"

#include <chrono>
#include <cstdint>

namespace ops {
template <typename T, int SCALE>
__global__ void axpb(T* x, T b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * T(SCALE) + b;
}
}  // namespace ops

template <typename T>
__global__ void iota(T* out, T start, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = start + T(i);
}

__global__ void add_one(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}

// The whole launch in a macro, kernel and configuration as parameters.
#define LAUNCH_1D(kernel, n, ...) \
  kernel<<<((n) + 127) / 128, 128>>>(__VA_ARGS__)
// Not a launch: `>>>` closing nested template argument lists stays as written.
#define NESTED_TABLE std::vector<std::vector<std::vector<int>>>
// Only the configuration in a macro; the arguments follow its use.
#define ON_STREAM(stream, n) <<<dim3(((n) + 63) / 64), dim3(64), 0, stream>>>

// A host function template: each instance launches a different kernel instance.
template <typename T, int SCALE>
std::vector<T> run_axpb(std::vector<T> host, T b) {
  const int n = static_cast<int>(host.size());
  T* d = to_device(host);
  ops::axpb<T, SCALE><<<(n + 255) / 256, 256>>>(d, b, n);
  HIP_CHECK(hipGetLastError());
  // The same instance again through hipLaunchKernelGGL, then a second instance (x + 1).
  hipLaunchKernelGGL(HIP_KERNEL_NAME(ops::axpb<T, SCALE>), dim3((n + 127) / 128), dim3(128), 0, 0,
                     d, b, n);
  hipLaunchKernelGGL(HIP_KERNEL_NAME(ops::axpb<T, 1>), dim3((n + 127) / 128), dim3(128), 0, 0, d,
                     T(1), n);
  HIP_CHECK(hipGetLastError());
  std::vector<T> out = from_device(d, n);
  HIP_CHECK(hipFree(d));
  return out;
}

// A class template launching through a macro from a member function.
template <typename T>
class Sequence {
 public:
  explicit Sequence(int n) : n_(n) { HIP_CHECK(hipMalloc(&data_, n * sizeof(T))); }
  ~Sequence() { (void)hipFree(data_); }
  std::vector<T> fill_from(T start) {
    LAUNCH_1D(iota<T>, n_, data_, start, n_);
    HIP_CHECK(hipGetLastError());
    return from_device(data_, n_);
  }

 private:
  T* data_ = nullptr;
  int n_;
};

template <typename T, int SCALE>
int check_axpb(const char* what, int n) {
  std::vector<T> in(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<T>(i % 97);
  std::vector<T> want(n);
  for (int i = 0; i < n; ++i) want[i] = (in[i] * T(SCALE) + T(5)) * T(SCALE) + T(5) + T(1);
  return count_mismatches(what, run_axpb<T, SCALE>(in, T(5)), want);
}

template <typename T>
int check_sequence(const char* what, int n, T start) {
  std::vector<T> want(n);
  for (int i = 0; i < n; ++i) want[i] = start + T(i);
  return count_mismatches(what, Sequence<T>(n).fill_from(start), want);
}

int main() {
  hipDeviceProp_t props;
  HIP_CHECK(hipGetDeviceProperties(&props, 0));
  std::printf("device: %s\n", props.name);
  auto t0 = std::chrono::steady_clock::now();
  int bad = 0;
  bad += check_axpb<float, 3>("axpb<float, 3>", 1000);
  bad += check_axpb<int, -2>("axpb<int, -2>", 777);
  bad += check_axpb<std::int64_t, 7>("axpb<int64_t, 7>", 300);
  NESTED_TABLE nested(3, std::vector<std::vector<int>>(2, std::vector<int>(4, 1)));
  if (nested[2][1][3] != 1) ++bad;
  bad += check_sequence<int>("iota<int>", 515, -40);
  bad += check_sequence<unsigned>("iota<unsigned>", 129, 4000000000u);

  // Macros in plain host code: a concrete kernel, and a configuration-only macro on a stream.
  const int n = 1500;
  std::vector<int> host(n);
  for (int i = 0; i < n; ++i) host[i] = 3 * i;
  int* d = to_device(host);
  hipStream_t stream;
  HIP_CHECK(hipStreamCreate(&stream));
  LAUNCH_1D(add_one, n, d, n);
  add_one ON_STREAM(stream, n)(d, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipStreamSynchronize(stream));
  std::vector<int> want(n);
  for (int i = 0; i < n; ++i) want[i] = 3 * i + 2;
  bad += count_mismatches("add_one twice", from_device(d, n), want);
  HIP_CHECK(hipStreamDestroy(stream));
  HIP_CHECK(hipFree(d));

  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s (%.1f ms)\n", bad == 0 ? "PASSED" : "FAILED", ms);
  return bad == 0 ? 0 : 1;
}
