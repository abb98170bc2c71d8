// CUDA twin of bench/kernels/histogram.hip, built by nvcc: 256-bin byte histogram, a private
// histogram per block in shared memory (atomicAdd, grid-stride loop), then added to the global
// bins with atomicAdd.
#define NUM_BINS 256

__global__ void histogram256(const unsigned char* data, unsigned int* bins, int n) {
  __shared__ unsigned int local_bins[NUM_BINS];
  for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
    local_bins[b] = 0;
  }
  __syncthreads();
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    atomicAdd(&local_bins[data[i]], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
    atomicAdd(&bins[b], local_bins[b]);
  }
}
