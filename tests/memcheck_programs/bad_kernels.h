// Kernels that each make one bad access, from the thread whose global id is `who`.
#pragma once
#include <hip/hip_runtime.h>

__device__ inline int global_id() { return blockIdx.x * blockDim.x + threadIdx.x; }

template <typename T>
__global__ void store_at(T* p, int index, T value, int who) {
  if (global_id() == who) p[index] = value;
}

__global__ void load_at(const int* p, int index, int* out, int who) {
  if (global_id() == who) out[0] = p[index];
}

__global__ void add_at(int* p, int index, int who) {
  if (global_id() == who) atomicAdd(&p[index], 1);
}

__global__ void shared_past(int* out, int index, int who) {
  __shared__ int tile[64];
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (global_id() == who) tile[index] = -1;
  __syncthreads();
  out[global_id()] = tile[threadIdx.x];
}

__global__ void local_past(float* out, int n, int who) {
  float local[8];
  for (int i = 0; i < 8; ++i) local[i] = i * 0.5f;
  if (global_id() == who) local[n] = 1.0f;
  out[global_id()] = local[global_id() % 8];
}

// A lock word taken with compare-and-swap, one past the end.
__global__ void cas_at(unsigned int* p, int index, unsigned int* old, int who) {
  if (global_id() == who) old[0] = atomicCAS(&p[index], 0u, 1u);
}

// Dynamic shared memory, sized by the launch: element `index` may lie past its end.
__global__ void dynamic_past(int* out, int index, int who) {
  extern __shared__ int cells[];
  cells[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (global_id() == who) cells[index] = -1;
  __syncthreads();
  out[global_id()] = cells[threadIdx.x];
}

// Sums `count` elements from `first` in a loop: the first element past the end is the bad
// access (the loop's addresses, checked once before it, fail; each element's check finds it).
__global__ void sum_range(const int* p, int first, int count, int* out, int who) {
  if (global_id() != who) return;
  int s = 0;
  for (int i = 0; i < count; ++i) s += p[first + i];
  out[0] = s;
}

// The same over a shared array.
__global__ void shared_range(int* out, int first, int count, int who) {
  __shared__ int tile[64];
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  int s = 0;
  if (global_id() == who)
    for (int i = 0; i < count; ++i) s += tile[first + i];
  out[global_id()] = s;
}

// A table and a pointer into it that an initializer sets (a relocation): reads through the
// pointer are checked against the runtime's allocations, which hold the module's variables.
__device__ int lookup[64];
__device__ int* lookup_cursor = &lookup[8];
__global__ void read_through_cursor(int index, int* out, int who) {
  if (global_id() == who) out[0] = lookup_cursor[index];
}

// A by-value struct argument (each thread's own copy) read past its end.
struct Window {
  int values[4];
  int count;
};
__global__ void byval_past(Window w, int at, int* out, int who) {
  if (global_id() == who) out[0] = w.values[at] + w.count;
}

// Reads every fourth element below `count` (a loop counting by 4), each under a condition: the
// first element past the end that is read is the bad access.
__global__ void strided_range(const int* p, int count, int skip, int* out, int who) {
  if (global_id() != who) return;
  int s = 0;
  for (int i = 0; i < count; i += 4)
    if (i != skip) s += p[i];
  out[0] = s;
}

// A read under a condition only some threads take: its check is made before the condition,
// for the threads that take it (the others' addresses are never read, nor reported).
__global__ void read_where(const int* p, int first, int limit, int* out) {
  int t = global_id();
  out[t] = t < limit ? p[first + t] : -1;
}

// A helper's local array, inlined where only one thread calls it: after inlining the array is
// made inside the condition's block, not in the kernel's entry block.
__device__ inline float fill_and_pick(int pick, int at) {
  float scratch[8];
  for (int i = 0; i < 8; ++i) scratch[i] = i * 0.25f;
  scratch[at] = 2.0f;
  return scratch[pick % 8];
}
__global__ void helper_local_past(float* out, int at, int who) {
  int t = global_id();
  if (t >= 16) return;
  out[t] = t == who ? fill_and_pick(t, at) : 0.0f;
}

// Blocks of 8 x 4 threads: the thread (tx, ty) of block 1 stores one int at `index`.
__global__ void store_at_2d(int* p, int index, int tx, int ty) {
  if (blockIdx.x == 1 && threadIdx.x == tx && threadIdx.y == ty) p[index] = 7;
}

// The same with a warp's sum first: a kernel using warp operations runs as a linear block on
// SPIR-V devices, where the report must still name HIP's (x, y) of the thread.
__global__ void warp_sum_at_2d(int* p, int index, int tx, int ty) {
  int v = threadIdx.x + threadIdx.y;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor(v, offset);
  if (blockIdx.x == 1 && threadIdx.x == tx && threadIdx.y == ty) p[index] = v;
}
