// Vector addition: the hello-world of HIP, built by hipmlir and run on an OpenCL device.
#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define HIP_CHECK(call)                                                            \
  do {                                                                             \
    hipError_t err_ = (call);                                                      \
    if (err_ != hipSuccess) {                                                      \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,    \
                   hipGetErrorString(err_));                                       \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    c[i] = a[i] + b[i];
  }
}

int main() {
  const int n = 1 << 20;
  std::vector<float> a(n), b(n), c(n, 0.0f);
  for (int i = 0; i < n; ++i) {
    a[i] = std::sin(i * 0.001f);
    b[i] = 0.5f * i;
  }

  hipDeviceProp_t props;
  HIP_CHECK(hipGetDeviceProperties(&props, 0));
  std::printf("device: %s\n", props.name);

  float *da = nullptr, *db = nullptr, *dc = nullptr;
  const size_t bytes = n * sizeof(float);
  HIP_CHECK(hipMalloc(&da, bytes));
  HIP_CHECK(hipMalloc(&db, bytes));
  HIP_CHECK(hipMalloc(&dc, bytes));
  HIP_CHECK(hipMemcpy(da, a.data(), bytes, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(db, b.data(), bytes, hipMemcpyHostToDevice));

  const int block = 256;
  const int grid = (n + block - 1) / block;
  hipLaunchKernelGGL(vector_add, dim3(grid), dim3(block), 0, 0, da, db, dc, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(c.data(), dc, bytes, hipMemcpyDeviceToHost));

  int errors = 0;
  for (int i = 0; i < n; ++i) {
    if (c[i] != a[i] + b[i]) {
      if (errors < 10) std::printf("mismatch at %d: %f != %f\n", i, c[i], a[i] + b[i]);
      ++errors;
    }
  }
  HIP_CHECK(hipFree(da));
  HIP_CHECK(hipFree(db));
  HIP_CHECK(hipFree(dc));
  if (errors) {
    std::printf("FAILED: %d of %d elements wrong\n", errors, n);
    return 1;
  }
  std::printf("PASSED: %d elements\n", n);
  return 0;
}
