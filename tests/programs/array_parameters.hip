// Array-typed parameters, as real kernels declare them: `int out[]` on a kernel, `T p[8]`,
// `int a[][W]` and `float (*a)[N]` on device functions (each is the pointer C passes), with
// shared and local multi-dimensional arrays passed to them.
#include "test_common.h"

template <int W>
__device__ int sum_rows(int rows, int a[][W]) {
  int s = 0;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < W; ++c) s += a[r][c] * (c + 1);
  return s;
}

__device__ int sum8(const int p[8]) {
  int s = 0;
  for (int i = 0; i < 8; ++i) s += p[i];
  return s;
}

__device__ float corners(float (*a)[4], int r) { return a[r][0] - a[r][3]; }

template <typename T, int H, int W>
__device__ void scale_tile(T tile[H][W], T by) {
  for (int r = 0; r < H; ++r)
    for (int c = 0; c < W; ++c) tile[r][c] *= by;
}

__global__ void array_params(int out[], float fout[], const int in[], int n) {
  __shared__ int t[3][4];
  __shared__ float f[2][4];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int local[8];
  for (int k = 0; k < 8; ++k) local[k] = in[(i + k) % n];
  if (threadIdx.x < 12) t[threadIdx.x / 4][threadIdx.x % 4] = in[(blockIdx.x + threadIdx.x) % n];
  if (threadIdx.x < 8) f[threadIdx.x / 4][threadIdx.x % 4] = 0.5f * threadIdx.x;
  __syncthreads();
  if (i >= n) return;
  float tile[2][3] = {{1, 2, 3}, {4, 5, 6}};
  scale_tile<float, 2, 3>(tile, 2.0f);
  out[2 * i] = sum_rows<4>(3, t) + sum8(local);
  out[2 * i + 1] = static_cast<int>(tile[1][2]);
  fout[i] = corners(f, i % 2);
}

int main() {
  const int n = 200;
  const int block = 32;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 11) % 29 - 9;
  int* din = to_device(in);
  int* dout;
  float* dfout;
  HIP_CHECK(hipMalloc(&dout, 2 * n * sizeof(int)));
  HIP_CHECK(hipMalloc(&dfout, n * sizeof(float)));
  hipLaunchKernelGGL(array_params, dim3((n + block - 1) / block), dim3(block), 0, 0, dout, dfout,
                     din, n);
  HIP_CHECK(hipGetLastError());
  std::vector<int> got = from_device(dout, 2 * n);
  std::vector<float> fgot = from_device(dfout, n);
  std::vector<int> want(2 * n);
  std::vector<float> fwant(n);
  for (int i = 0; i < n; ++i) {
    int b = i / block;
    int rows = 0;
    for (int x = 0; x < 12; ++x) rows += in[(b + x) % n] * (x % 4 + 1);
    int s8 = 0;
    for (int k = 0; k < 8; ++k) s8 += in[(i + k) % n];
    want[2 * i] = rows + s8;
    want[2 * i + 1] = 12;
    int r = i % 2;
    fwant[i] = 0.5f * (4 * r) - 0.5f * (4 * r + 3);
  }
  int failures = report("array parameters", count_mismatches("ints", got, want));
  failures += report("pointer-to-array parameter", count_mismatches("floats", fgot, fwant));
  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dout));
  HIP_CHECK(hipFree(dfout));
  if (failures) return 1;
  std::printf("array_parameters PASSED\n");
  return 0;
}
