// Kernel templates with type and non-type parameters, function templates, overloads and
// default arguments, kernels in namespaces; launched with <<<>>> (2, 3 and 4 configuration
// arguments), hipLaunchKernelGGL (with HIP_KERNEL_NAME) and hipLaunchKernel.
#include "test_common.h"

#include <type_traits>

template <typename T>
__device__ T square(T x) {
  return x * x;
}

__device__ int offset(int x, int by = 3) { return x + by; }
__device__ float offset(float x, float by = 0.5f) { return x - by; }

template <typename T, int BLOCK>
__global__ void transform(const T* in, T* out, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) out[i] = square(in[i]) + offset(in[i]) + BLOCK;
}

namespace physics {
__global__ void damp(float* v, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= factor;
}
}  // namespace physics

__global__ void fill(int* out, int value) { out[threadIdx.x] = value + threadIdx.x; }

template <typename T, int BLOCK>
std::vector<T> expected(const std::vector<T>& in) {
  std::vector<T> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    T x = in[i];
    out[i] = x * x + (std::is_integral<T>::value ? x + 3 : static_cast<T>(x - 0.5f)) + BLOCK;
  }
  return out;
}

int main() {
  int bad = 0;
  const int n = 1000;
  std::vector<int> in_i(n);
  std::vector<float> in_f(n);
  for (int i = 0; i < n; ++i) {
    in_i[i] = i - 300;
    in_f[i] = i * 0.25f;
  }
  int* d_in_i = to_device(in_i);
  float* d_in_f = to_device(in_f);
  int* d_out_i = nullptr;
  float* d_out_f = nullptr;
  HIP_CHECK(hipMalloc(&d_out_i, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_out_f, n * sizeof(float)));

  // <<<>>> with a template kernel, two configuration arguments.
  transform<int, 64><<<(n + 63) / 64, 64>>>(d_in_i, d_out_i, n);
  HIP_CHECK(hipGetLastError());
  bad += count_mismatches("transform<int, 64>", from_device(d_out_i, n), expected<int, 64>(in_i));

  // hipLaunchKernelGGL with a comma in the kernel name.
  hipLaunchKernelGGL(HIP_KERNEL_NAME(transform<float, 128>), dim3((n + 127) / 128), dim3(128), 0,
                     0, d_in_f, d_out_f, n);
  HIP_CHECK(hipGetLastError());
  bad += count_mismatches("transform<float, 128>", from_device(d_out_f, n),
                          expected<float, 128>(in_f));

  // A namespaced kernel, four configuration arguments, dim3 with several components.
  physics::damp<<<dim3((n + 255) / 256, 1, 1), dim3(256, 1, 1), 0, 0>>>(d_out_f, 0.5f, n);
  HIP_CHECK(hipGetLastError());
  std::vector<float> damped = expected<float, 128>(in_f);
  for (float& v : damped) v *= 0.5f;
  bad += count_mismatches("physics::damp", from_device(d_out_f, n), damped);

  // hipLaunchKernel by host function, three configuration arguments for <<<>>>.
  int* d_fill = nullptr;
  HIP_CHECK(hipMalloc(&d_fill, 32 * sizeof(int)));
  fill<<<1, 32, 0>>>(d_fill, 7);
  HIP_CHECK(hipGetLastError());
  std::vector<int> want_fill(32);
  for (int i = 0; i < 32; ++i) want_fill[i] = 7 + i;
  bad += count_mismatches("fill <<<>>>", from_device(d_fill, 32), want_fill);
  int value = 100;
  void* args[] = {&d_fill, &value};
  HIP_CHECK(hipLaunchKernel(reinterpret_cast<const void*>(&fill), dim3(1), dim3(32), args, 0, 0));
  for (int i = 0; i < 32; ++i) want_fill[i] = 100 + i;
  bad += count_mismatches("fill hipLaunchKernel", from_device(d_fill, 32), want_fill);

  HIP_CHECK(hipFree(d_in_i));
  HIP_CHECK(hipFree(d_in_f));
  HIP_CHECK(hipFree(d_out_i));
  HIP_CHECK(hipFree(d_out_f));
  HIP_CHECK(hipFree(d_fill));
  return report("templates_and_launches", bad);
}
