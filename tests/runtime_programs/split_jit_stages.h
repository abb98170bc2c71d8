// Device code of split_jit.hip: kernels that share device variables. A module of this many
// kernels is built one kernel at a time, and the variables must stay one instance each.
#pragma once

#include <hip/hip_runtime.h>

constexpr int kThreads = 64;
constexpr int kStages = 20;

__device__ int mailbox[kThreads];         // written by produce, read by consume and the host
__device__ unsigned long long weighed = 0;  // how many values weigh() saw
__device__ int total = 100;               // bumped by every stage, and through its address
__constant__ int weights[4] = {1, 2, 3, 4};  // overwritten by the host

// Called by several kernels, and itself uses shared variables.
__device__ __noinline__ int weigh(int v, int i) {
  atomicAdd(&weighed, 1ull);
  return v * weights[i % 4];
}

__global__ void produce(int seed) {
  int i = threadIdx.x;
  mailbox[i] = weigh(seed + i, i);
}

__global__ void consume(int* out) {
  int i = threadIdx.x;
  out[i] = mailbox[i] + 1;
}

// Adds to a variable through a pointer the host got from hipGetSymbolAddress.
__global__ void add_through(int* p, int v) { atomicAdd(p, v); }

template <int K>
__global__ void stage(int* trace) {
  if (threadIdx.x == 0) {
    trace[K] = atomicAdd(&total, K);
  }
}
