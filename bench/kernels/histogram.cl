// 256-bin histogram of bytes: each work-group counts into a private histogram in local memory
// with atomics (grid-stride loop over the input), then adds it to the global bins atomically.
#define NUM_BINS 256

__kernel void histogram256(__global const uchar* data, __global uint* bins, int n) {
  __local uint local_bins[NUM_BINS];
  int lid = get_local_id(0);
  int lsize = get_local_size(0);
  for (int b = lid; b < NUM_BINS; b += lsize) {
    local_bins[b] = 0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  int stride = lsize * get_num_groups(0);
  for (int i = get_global_id(0); i < n; i += stride) {
    atomic_inc(&local_bins[data[i]]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int b = lid; b < NUM_BINS; b += lsize) {
    atomic_add(&bins[b], local_bins[b]);
  }
}
