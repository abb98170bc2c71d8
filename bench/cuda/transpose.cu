// CUDA twin of bench/kernels/transpose.hip, built by nvcc: tiled transpose through a padded
// shared-memory tile; blocks of TILE_DIM x BLOCK_ROWS threads.
#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose(float* out, const float* in, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (x < width && y + j < height) {
      tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    }
  }
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (x < height && y + j < width) {
      out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
    }
  }
}
