// CUDA twin of bench/kernels/matmul.hip, built by nvcc: C = A * B (n x n, row-major) with
// TILE x TILE blocks staging tiles of A and B in shared memory.
#define TILE 16

__global__ void matmul(const float* A, const float* B, float* C, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < n; t += TILE) {
    As[ty][tx] = (row < n && t + tx < n) ? A[row * n + t + tx] : 0.0f;
    Bs[ty][tx] = (t + ty < n && col < n) ? B[(t + ty) * n + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) {
      acc += As[ty][k] * Bs[k][tx];
    }
    __syncthreads();
  }
  if (row < n && col < n) {
    C[row * n + col] = acc;
  }
}
