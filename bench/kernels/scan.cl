// Exclusive prefix sum (work-efficient Blelloch scan). scan_blocks scans SCAN_ELEMS elements per
// work-group in local memory (up-sweep, then down-sweep) and writes each group's total; the totals
// are scanned the same way, and add_block_offsets adds each group's scanned total back.
#define SCAN_BLOCK 256
#define SCAN_ELEMS (2 * SCAN_BLOCK)

__kernel void scan_blocks(__global const uint* in, __global uint* out, __global uint* block_sums,
                          int n) {
  __local uint temp[SCAN_ELEMS];
  int tid = get_local_id(0);
  int base = get_group_id(0) * SCAN_ELEMS;
  int ai = tid;
  int bi = tid + SCAN_BLOCK;
  temp[ai] = base + ai < n ? in[base + ai] : 0u;
  temp[bi] = base + bi < n ? in[base + bi] : 0u;
  int offset = 1;
  for (int d = SCAN_ELEMS >> 1; d > 0; d >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (tid < d) {
      int a = offset * (2 * tid + 1) - 1;
      int b = offset * (2 * tid + 2) - 1;
      temp[b] += temp[a];
    }
    offset <<= 1;
  }
  if (tid == 0) {
    block_sums[get_group_id(0)] = temp[SCAN_ELEMS - 1];
    temp[SCAN_ELEMS - 1] = 0;
  }
  for (int d = 1; d < SCAN_ELEMS; d <<= 1) {
    offset >>= 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (tid < d) {
      int a = offset * (2 * tid + 1) - 1;
      int b = offset * (2 * tid + 2) - 1;
      uint t = temp[a];
      temp[a] = temp[b];
      temp[b] += t;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (base + ai < n) out[base + ai] = temp[ai];
  if (base + bi < n) out[base + bi] = temp[bi];
}

__kernel void add_block_offsets(__global uint* data, __global const uint* offsets, int n) {
  int i = get_global_id(0);
  if (i < n) {
    data[i] += offsets[i / SCAN_ELEMS];
  }
}
