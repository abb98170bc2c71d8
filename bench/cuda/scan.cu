// CUDA twin of bench/kernels/scan.hip, built by nvcc. Exclusive prefix sum (work-efficient
// Blelloch scan): scan_blocks scans SCAN_ELEMS elements per block in shared memory (up-sweep, then
// down-sweep) and writes each block's total; the totals are scanned the same way, and
// add_block_offsets adds each block's scanned total back.
#define SCAN_BLOCK 256
#define SCAN_ELEMS (2 * SCAN_BLOCK)

__global__ void scan_blocks(const unsigned int* in, unsigned int* out, unsigned int* block_sums,
                            int n) {
  __shared__ unsigned int temp[SCAN_ELEMS];
  int tid = threadIdx.x;
  int base = blockIdx.x * SCAN_ELEMS;
  int ai = tid;
  int bi = tid + SCAN_BLOCK;
  temp[ai] = base + ai < n ? in[base + ai] : 0u;
  temp[bi] = base + bi < n ? in[base + bi] : 0u;
  int offset = 1;
  for (int d = SCAN_ELEMS >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (tid < d) {
      int a = offset * (2 * tid + 1) - 1;
      int b = offset * (2 * tid + 2) - 1;
      temp[b] += temp[a];
    }
    offset <<= 1;
  }
  if (tid == 0) {
    block_sums[blockIdx.x] = temp[SCAN_ELEMS - 1];
    temp[SCAN_ELEMS - 1] = 0;
  }
  for (int d = 1; d < SCAN_ELEMS; d <<= 1) {
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      int a = offset * (2 * tid + 1) - 1;
      int b = offset * (2 * tid + 2) - 1;
      unsigned int t = temp[a];
      temp[a] = temp[b];
      temp[b] += t;
    }
  }
  __syncthreads();
  if (base + ai < n) out[base + ai] = temp[ai];
  if (base + bi < n) out[base + bi] = temp[bi];
}

__global__ void add_block_offsets(unsigned int* data, const unsigned int* offsets, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    data[i] += offsets[i / SCAN_ELEMS];
  }
}
