// `__shared__` arrays of structs and vector types (default-constructed, so no initialization),
// reference members bound in constructors, and reference casts (`reinterpret_cast<T&>`), as
// CUB-style block primitives write them.
#include "test_common.h"

struct Pair {
  int key;
  float value;
};

struct Storage {
  int words[64];
  __device__ Storage& alias() { return reinterpret_cast<Storage&>(*this); }
};

struct BlockSum {
  Storage& storage;  // a reference member bound in the constructor
  __device__ explicit BlockSum(Storage& s) : storage(s.alias()) {}
  __device__ int sum(int v) {
    storage.words[threadIdx.x] = v;
    __syncthreads();
    int total = 0;
    for (int i = 0; i < 64; ++i) total += storage.words[i];
    __syncthreads();
    return total;
  }
};

__global__ void shared_objects(const int* in, int* out, float4* vout) {
  __shared__ Pair pairs[64];
  __shared__ float4 vecs[64];
  __shared__ Storage storage;
  int t = threadIdx.x;
  int i = blockIdx.x * 64 + t;
  pairs[t].key = in[i];
  pairs[t].value = 0.5f * in[i];
  vecs[t] = make_float4(in[i], 1.0f, 2.0f, 3.0f);
  __syncthreads();
  const Pair& mirror = pairs[63 - t];
  BlockSum block(storage);
  out[i] = mirror.key + static_cast<int>(mirror.value * 2.0f) + block.sum(in[i]);
  float4 v = vecs[(t + 1) % 64];
  reinterpret_cast<float&>(v.w) += 1.0f;
  vout[i] = v;
}

int main() {
  const int blocks = 4, n = 64 * blocks;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 13) % 50 - 20;
  int* din = to_device(in);
  int* dout;
  float4* dvout;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&dvout, n * sizeof(float4)));
  hipLaunchKernelGGL(shared_objects, dim3(blocks), dim3(64), 0, 0, din, dout, dvout);
  HIP_CHECK(hipGetLastError());
  std::vector<int> got = from_device(dout, n);
  std::vector<float4> vgot = from_device(dvout, n);
  std::vector<int> want(n);
  int bad_vectors = 0;
  for (int b = 0; b < blocks; ++b) {
    int total = 0;
    for (int t = 0; t < 64; ++t) total += in[b * 64 + t];
    for (int t = 0; t < 64; ++t) {
      int m = in[b * 64 + 63 - t];
      want[b * 64 + t] = m + static_cast<int>(0.5f * m * 2.0f) + total;
      const float4& v = vgot[b * 64 + t];
      float x = static_cast<float>(in[b * 64 + (t + 1) % 64]);
      if (v.x != x || v.y != 1.0f || v.z != 2.0f || v.w != 4.0f) ++bad_vectors;
    }
  }
  int failures = report("shared structs and reference members", count_mismatches("out", got, want));
  failures += report("shared vector types", bad_vectors);
  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dout));
  HIP_CHECK(hipFree(dvout));
  if (failures) return 1;
  std::printf("shared_objects PASSED\n");
  return 0;
}
