// Kernels as ordinary values in host code, as nvcc and hipcc for AMD take them: assigned to plain
// function pointers (`void (*k)(float*, int) = &kernel;`, `auto k = kernel;`), compared, kept in
// arrays, maps and vectors of function pointers, passed to functions taking a function pointer,
// and launched later through them: with <<<>>>, hipLaunchKernelGGL, and hipLaunchKernel given the
// pointer as a `const void*`. Each pointer launches the kernel it points at.
#include "test_common.h"

#include <map>
#include <string>
#include <utility>

using step_kernel = void (*)(float*, int);

__global__ void negate(float* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = -v[i];
}

__global__ void square(float* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * v[i];
}

__global__ void halve(float* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * 0.5f;
}

template <int Add>
__global__ void shift(float* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += Add;
}

namespace {

float host_step(const std::string& name, float x) {
  if (name == "negate") return -x;
  if (name == "square") return x * x;
  if (name == "halve") return x * 0.5f;
  return x + 3;  // shift<3>
}

// Runs a pipeline of kernels given as function pointers.
void run_all(const std::vector<std::pair<std::string, step_kernel>>& steps, float* v, int n,
             hipStream_t stream) {
  for (const auto& step : steps) step.second<<<(n + 127) / 128, 128, 0, stream>>>(v, n);
}

// Takes the kernel as a plain function pointer argument.
void launch_twice(step_kernel kernel, float* v, int n) {
  kernel<<<(n + 255) / 256, 256>>>(v, n);
  hipLaunchKernelGGL(kernel, dim3((n + 255) / 256), dim3(256), 0, 0, v, n);
}

}  // namespace

int main() {
  const int n = 777;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = 0.25f * static_cast<float>(i % 41) - 4.0f;
  float* d = to_device(host);
  int failures = 0;

  // Plain function pointers and auto, compared.
  void (*first)(float*, int) = &negate;
  auto second = square;
  step_kernel third = halve;
  const bool compares = first == &negate && second == square && first != second &&
                        third == static_cast<step_kernel>(halve);
  failures += report("kernel pointers compare", compares ? 0 : 1);

  // A table, a map and a vector of them, launched later.
  step_kernel table[] = {first, second, third, shift<3>};
  std::map<std::string, step_kernel> by_name{
      {"negate", negate}, {"square", &square}, {"halve", third}, {"shift<3>", shift<3>}};
  std::vector<std::pair<std::string, step_kernel>> steps = {
      {"square", table[1]}, {"shift<3>", by_name["shift<3>"]}, {"negate", by_name.at("negate")}};

  std::vector<float> want = host;
  for (int k = 0; k < 4; ++k) {
    table[k]<<<(n + 63) / 64, 64>>>(d, n);
  }
  for (float& x : want) x = host_step("shift<3>", host_step("halve", host_step("square", -x)));
  hipStream_t stream;
  HIP_CHECK(hipStreamCreate(&stream));
  run_all(steps, d, n, stream);
  HIP_CHECK(hipStreamSynchronize(stream));
  for (float& x : want) {
    for (const auto& step : steps) x = host_step(step.first, x);
  }
  std::vector<float> got = from_device(d, n);
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += got[i] != want[i];
  failures += report("kernels launched from a table, a map and a vector", bad);

  // Passed as a function pointer argument, launched with <<<>>> and hipLaunchKernelGGL.
  launch_twice(by_name["halve"], d, n);
  HIP_CHECK(hipGetLastError());
  for (float& x : want) x *= 0.25f;

  // hipLaunchKernel with the pointer as a `const void*`, arguments by address.
  int count = n;
  void* args[] = {&d, &count};
  HIP_CHECK(hipLaunchKernel(reinterpret_cast<const void*>(table[0]), dim3((n + 127) / 128),
                            dim3(128), args, 0, nullptr));
  HIP_CHECK(hipLaunchKernel((const void*)by_name["shift<3>"], dim3((n + 127) / 128), dim3(128),
                            args, 0, nullptr));
  for (float& x : want) x = -x + 3;
  got = from_device(d, n);
  bad = 0;
  for (int i = 0; i < n; ++i) bad += got[i] != want[i];
  failures += report("kernel pointers passed on and launched by address", bad);

  // The runtime answers for the kernel a pointer points at.
  hipFuncAttributes attributes;
  HIP_CHECK(hipFuncGetAttributes(&attributes, reinterpret_cast<const void*>(second)));
  failures += report("hipFuncGetAttributes through a pointer",
                     attributes.maxThreadsPerBlock > 0 ? 0 : 1);

  HIP_CHECK(hipStreamDestroy(stream));
  HIP_CHECK(hipFree(d));
  if (failures) return 1;
  std::printf("kernels_in_function_pointers PASSED\n");
  return 0;
}
