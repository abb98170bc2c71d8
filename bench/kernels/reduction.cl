// Sum reduction in local memory: each work-group of BLOCK_SIZE work-items sums 2 * BLOCK_SIZE
// inputs (the first add happens during the load) with a tree and writes one partial sum.
#define BLOCK_SIZE 256

__kernel void reduce_sum(__global const float* in, __global float* partial, int n) {
  __local float sdata[BLOCK_SIZE];
  unsigned int tid = get_local_id(0);
  unsigned int i = get_group_id(0) * (get_local_size(0) * 2) + tid;
  float v = 0.0f;
  if (i < n) v = in[i];
  if (i + get_local_size(0) < n) v += in[i + get_local_size(0)];
  sdata[tid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (unsigned int s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] += sdata[tid + s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tid == 0) {
    partial[get_group_id(0)] = sdata[0];
  }
}
