// Tiled matrix transpose through local memory (a padded tile avoids bank conflicts).
// Work-groups are TILE_DIM x BLOCK_ROWS; each work-item moves TILE_DIM / BLOCK_ROWS elements.
#define TILE_DIM 32
#define BLOCK_ROWS 8

__kernel void transpose(__global float* out, __global const float* in, int width, int height) {
  __local float tile[TILE_DIM][TILE_DIM + 1];
  int lx = get_local_id(0);
  int ly = get_local_id(1);
  int x = get_group_id(0) * TILE_DIM + lx;
  int y = get_group_id(1) * TILE_DIM + ly;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (x < width && y + j < height) {
      tile[ly + j][lx] = in[(y + j) * width + x];
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  x = get_group_id(1) * TILE_DIM + lx;
  y = get_group_id(0) * TILE_DIM + ly;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (x < height && y + j < width) {
      out[(y + j) * height + x] = tile[lx][ly + j];
    }
  }
}
