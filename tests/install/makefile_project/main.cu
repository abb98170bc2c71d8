#include <cstdio>
#include <cstdlib>
#include <vector>

#include <hip/hip_runtime.h>

#include "reference.h"

#define BINS 64

__global__ void histogram(const unsigned char* data, int n, unsigned* bins) {
  __shared__ unsigned local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i] % BINS], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

int main(int argc, char* argv[]) {
  if (argc != 3) {
    printf("Usage: %s <size> <repeat>\n", argv[0]);
    return 1;
  }
  const int n = atoi(argv[1]), repeat = atoi(argv[2]);
  std::vector<unsigned char> data(n);
  for (int i = 0; i < n; ++i) data[i] = (unsigned char)((i * 7919) % 251);
  std::vector<unsigned> want = histogram_reference(data, BINS);
  for (unsigned& w : want) w *= repeat;

  unsigned char* d_data;
  unsigned* d_bins;
  hipMalloc(&d_data, n);
  hipMalloc(&d_bins, BINS * sizeof(unsigned));
  hipMemcpy(d_data, data.data(), n, hipMemcpyHostToDevice);
  hipMemset(d_bins, 0, BINS * sizeof(unsigned));
  for (int r = 0; r < repeat; ++r)
    hipLaunchKernelGGL(histogram, dim3(32), dim3(128), 0, 0, d_data, n, d_bins);
  std::vector<unsigned> got(BINS);
  hipMemcpy(got.data(), d_bins, BINS * sizeof(unsigned), hipMemcpyDeviceToHost);
  hipFree(d_data);
  hipFree(d_bins);
  int bad = 0;
  for (int b = 0; b < BINS; ++b) bad += got[b] != want[b];
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}
