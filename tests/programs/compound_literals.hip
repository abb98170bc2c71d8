// C compound literals in device code, as FFT kernels write complex numbers: `(float2){re, im}` as
// a value, returned, passed and assigned.
#include "test_common.h"

typedef float2 cplx;

__device__ cplx cmul(cplx a, cplx b) {
  return (cplx){a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x};
}

__global__ void rotate(const float* re, const float* im, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cplx z = (cplx){re[i], im[i]};
  cplx w = cmul(z, (cplx){0.0f, 1.0f});  // multiply by i
  out[2 * i] = w.x;
  out[2 * i + 1] = ((cplx){w.y, w.x}).x;
}

int main() {
  const int n = 256;
  std::vector<float> re(n), im(n);
  for (int i = 0; i < n; ++i) {
    re[i] = 0.5f * i;
    im[i] = 3.0f - i;
  }
  float* dre = to_device(re);
  float* dim_ = to_device(im);
  float* dout;
  HIP_CHECK(hipMalloc(&dout, 2 * n * sizeof(float)));
  hipLaunchKernelGGL(rotate, dim3(4), dim3(64), 0, 0, dre, dim_, dout, n);
  HIP_CHECK(hipGetLastError());
  std::vector<float> got = from_device(dout, 2 * n);
  std::vector<float> want(2 * n);
  for (int i = 0; i < n; ++i) {
    want[2 * i] = -im[i];
    want[2 * i + 1] = re[i];
  }
  int failures = report("compound literals", count_mismatches("rotate", got, want));
  HIP_CHECK(hipFree(dre));
  HIP_CHECK(hipFree(dim_));
  HIP_CHECK(hipFree(dout));
  if (failures) return 1;
  std::printf("compound_literals PASSED\n");
  return 0;
}
