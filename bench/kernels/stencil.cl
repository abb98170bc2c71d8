// 1D stencil of radius RADIUS: out[i] = sum of in[i - RADIUS .. i + RADIUS] (zero outside),
// each work-group staging its inputs plus a halo on both sides in local memory.
#define RADIUS 3
#define BLOCK_SIZE 256

__kernel void stencil_1d(__global const float* in, __global float* out, int n) {
  __local float temp[BLOCK_SIZE + 2 * RADIUS];
  int lid = get_local_id(0);
  int gindex = get_global_id(0);
  int lindex = lid + RADIUS;
  temp[lindex] = gindex < n ? in[gindex] : 0.0f;
  if (lid < RADIUS) {
    int left = gindex - RADIUS;
    int right = gindex + BLOCK_SIZE;
    temp[lindex - RADIUS] = left >= 0 ? in[left] : 0.0f;
    temp[lindex + BLOCK_SIZE] = right < n ? in[right] : 0.0f;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (gindex < n) {
    float result = 0.0f;
    for (int offset = -RADIUS; offset <= RADIUS; offset++) {
      result += temp[lindex + offset];
    }
    out[gindex] = result;
  }
}
