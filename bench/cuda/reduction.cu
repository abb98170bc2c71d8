// CUDA twin of bench/kernels/reduction.hip, built by nvcc: each block of BLOCK_SIZE threads sums
// 2 * BLOCK_SIZE inputs (the first add during the load) with a tree in shared memory.
#define BLOCK_SIZE 256

__global__ void reduce_sum(const float* in, float* partial, int n) {
  __shared__ float sdata[BLOCK_SIZE];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  float v = 0.0f;
  if (i < n) v = in[i];
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  sdata[tid] = v;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] += sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) {
    partial[blockIdx.x] = sdata[0];
  }
}
