// CUDA twin of bench/kernels/stencil.hip, built by nvcc: 1D stencil of radius RADIUS, each block
// staging its inputs plus a halo on both sides in shared memory.
#define RADIUS 3
#define BLOCK_SIZE 256

__global__ void stencil_1d(const float* in, float* out, int n) {
  __shared__ float temp[BLOCK_SIZE + 2 * RADIUS];
  int gindex = blockIdx.x * blockDim.x + threadIdx.x;
  int lindex = threadIdx.x + RADIUS;
  temp[lindex] = gindex < n ? in[gindex] : 0.0f;
  if (threadIdx.x < RADIUS) {
    int left = gindex - RADIUS;
    int right = gindex + BLOCK_SIZE;
    temp[lindex - RADIUS] = left >= 0 ? in[left] : 0.0f;
    temp[lindex + BLOCK_SIZE] = right < n ? in[right] : 0.0f;
  }
  __syncthreads();
  if (gindex < n) {
    float result = 0.0f;
    for (int offset = -RADIUS; offset <= RADIUS; offset++) {
      result += temp[lindex + offset];
    }
    out[gindex] = result;
  }
}
