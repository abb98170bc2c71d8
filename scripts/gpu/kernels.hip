// Kernels of the PTX self-test (scripts/gpu/ptx_selftest.cpp): one HIP feature each, built with
// `hipmlir scripts/gpu/kernels.hip --offload-arch=sm_70 --emit-ptx -o kernels.ptx` and run on an
// NVIDIA GPU by the CUDA driver API, every element compared with a host reference.
#include <hip/hip_runtime.h>

struct Affine {
  float scale;
  double shift;
  int flags;
};

// Indexing in 2-D grids and blocks.
extern "C" __global__ void index2d(int* out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) out[y * width + x] = y * 1000 + x + gridDim.x * 0;
}

// A struct by value, float and double arithmetic.
extern "C" __global__ void affine(const float* in, double* out, Affine a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * a.scale + a.shift + (a.flags & 1 ? 1.0 : 0.0);
}

// Static shared memory and barriers: each block reverses its 256 elements.
extern "C" __global__ void reverse_block(const int* in, int* out) {
  __shared__ int tile[256];
  int t = threadIdx.x;
  int base = blockIdx.x * 256;
  tile[t] = in[base + t];
  __syncthreads();
  out[base + t] = tile[255 - t];
}

// Dynamic shared memory: a tree reduction per block.
extern "C" __global__ void block_sum(const float* in, float* out) {
  extern __shared__ float partial[];
  int t = threadIdx.x;
  partial[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

// Atomics: int, unsigned max, float add, CAS.
extern "C" __global__ void atomics(const int* in, int* sum, unsigned* maximum, float* fsum,
                                   int* cas_count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(sum, in[i]);
  atomicMax(maximum, (unsigned)in[i]);
  atomicAdd(fsum, 0.5f);
  int old = atomicCAS(cas_count, 0, 0);
  while (atomicCAS(cas_count, old, old + 1) != old) old = atomicCAS(cas_count, 0, 0);
}

// Math through libdevice.
extern "C" __global__ void math(const float* x, float* out, double* dout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    out[i] = sinf(v) + expf(v * 0.1f) + powf(v, 1.5f) + sqrtf(v) + fmodf(v, 0.7f) + tanhf(v);
    dout[i] = cos((double)v) + log1p((double)v) + erf((double)v);
  }
}

// Warp operations with warpSize 32: a shuffle reduction, a ballot and a vote.
extern "C" __global__ void warp(const int* in, int* sums, unsigned long long* ballots, int* anys) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);
  unsigned long long b = __ballot(in[i] % 3 == 0);
  int any = __any(in[i] == 7);
  if (threadIdx.x % warpSize == 0) {
    int w = i / warpSize;
    sums[w] = v;
    ballots[w] = b;
    anys[w] = any;
  }
}

// Block-wide votes.
extern "C" __global__ void block_votes(const int* in, int* counts, int* alls) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int c = __syncthreads_count(in[i] > 50);
  int a = __syncthreads_and(in[i] >= 0);
  if (threadIdx.x == 0) {
    counts[blockIdx.x] = c;
    alls[blockIdx.x] = a;
  }
}

// printf through vprintf.
extern "C" __global__ void hello(int tag) {
  if (threadIdx.x == 0 && blockIdx.x == 0) printf("hello from the GPU: tag %d, %s, %.2f\n", tag, "str", 2.5);
}

// __syncwarp: lanes exchange values through shared memory within their warp.
extern "C" __global__ void warp_exchange(const int* in, int* out) {
  __shared__ int buf[256];
  int t = threadIdx.x;
  buf[t] = in[blockIdx.x * 256 + t];
  __syncwarp();
  out[blockIdx.x * 256 + t] = buf[t ^ 1] + buf[t & ~31];
}
