// CUDA twin of bench/kernels/vector_add.hip, built by nvcc: c = a + b, one element per thread.
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    c[i] = a[i] + b[i];
  }
}
