// Shared memory with __syncthreads (a block reduction and a tiled transpose in 2-D blocks) and
// atomics on global and shared memory: integer and floating, every HIP atomic, _block scope.
#include "test_common.h"

#include <cmath>

constexpr int kBlock = 256;
constexpr int kTile = 16;

__global__ void block_sums(const int* in, long long* sums, int n) {
  __shared__ long long partial[kBlock];
  unsigned t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  partial[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
}

__global__ void transpose(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];  // +1 avoids bank conflicts on GPUs
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  if (x < rows && y < cols) out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}

struct Counters {
  int add, sub, min, max, exch_seen, cas_wins;
  unsigned and_bits, or_bits, xor_bits, inc, dec;
  unsigned long long big;
  float fsum, fmin, fmax;
  double dsum;
};

__global__ void atomics(const int* values, Counters* c, int* histogram, int n) {
  __shared__ int local_hist[8];
  if (threadIdx.x < 8) local_hist[threadIdx.x] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = values[i];
    atomicAdd(&c->add, v);
    atomicSub(&c->sub, v);
    atomicMin(&c->min, v);
    atomicMax(&c->max, v);
    if (atomicExch(&c->exch_seen, 1) == 0) atomicAdd(&c->cas_wins, 100);
    if (atomicCAS(&c->cas_wins, 100, 101) == 100) atomicAdd(&c->cas_wins, 1000);
    atomicAnd(&c->and_bits, ~(1u << (i % 32)));
    atomicOr(&c->or_bits, 1u << (v & 31));
    atomicXor(&c->xor_bits, (unsigned)v);
    atomicInc(&c->inc, 9u);
    atomicDec(&c->dec, 7u);
    atomicAdd(&c->big, 1ull << 33);
    atomicAdd(&c->fsum, 0.5f);
    atomicMin(&c->fmin, v * 0.25f);
    atomicMax(&c->fmax, v * 0.25f);
    atomicAdd(&c->dsum, v * 0.125);
    atomicAdd_block(&local_hist[v & 7], 1);
  }
  __syncthreads();
  __threadfence();
  if (threadIdx.x < 8) atomicAdd(&histogram[threadIdx.x], local_hist[threadIdx.x]);
}

int main() {
  int bad = 0;

  // Block reduction.
  const int n = 100000;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 1001 - 500;
  const int blocks = (n + kBlock - 1) / kBlock;
  std::vector<long long> want_sums(blocks, 0);
  for (int i = 0; i < n; ++i) want_sums[i / kBlock] += in[i];
  int* d_in = to_device(in);
  long long* d_sums = nullptr;
  HIP_CHECK(hipMalloc(&d_sums, blocks * sizeof(long long)));
  hipLaunchKernelGGL(block_sums, dim3(blocks), dim3(kBlock), 0, 0, d_in, d_sums, n);
  HIP_CHECK(hipGetLastError());
  bad += count_mismatches("block sums", from_device(d_sums, blocks), want_sums);

  // Tiled transpose in 16x16 blocks.
  const int rows = 200, cols = 333;
  std::vector<float> m(rows * cols), want_t(rows * cols);
  for (int i = 0; i < rows * cols; ++i) m[i] = i * 0.5f;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) want_t[c * rows + r] = m[r * cols + c];
  float* d_m = to_device(m);
  float* d_t = nullptr;
  HIP_CHECK(hipMalloc(&d_t, rows * cols * sizeof(float)));
  hipLaunchKernelGGL(transpose, dim3((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile),
                     dim3(kTile, kTile), 0, 0, d_m, d_t, rows, cols);
  HIP_CHECK(hipGetLastError());
  bad += count_mismatches("transpose", from_device(d_t, rows * cols), want_t);

  // Atomics.
  const int count = 5000;
  std::vector<int> values(count);
  for (int i = 0; i < count; ++i) values[i] = (i * 7919) % 2001 - 1000;
  Counters init{};
  init.min = 1 << 30;
  init.max = -(1 << 30);
  init.and_bits = ~0u;
  init.dec = 5;
  init.fmin = 1e30f;
  init.fmax = -1e30f;
  Counters want = init;
  std::vector<int> want_hist(8, 0);
  for (int i = 0; i < count; ++i) {
    int v = values[i];
    want.add += v;
    want.sub -= v;
    want.min = std::min(want.min, v);
    want.max = std::max(want.max, v);
    want.and_bits &= ~(1u << (i % 32));
    want.or_bits |= 1u << (v & 31);
    want.xor_bits ^= (unsigned)v;
    want.inc = want.inc >= 9u ? 0 : want.inc + 1;
    want.dec = (want.dec == 0 || want.dec > 7u) ? 7u : want.dec - 1;
    want.big += 1ull << 33;
    want.fsum += 0.5f;
    want.fmin = std::fmin(want.fmin, v * 0.25f);
    want.fmax = std::fmax(want.fmax, v * 0.25f);
    want.dsum += v * 0.125;
    want_hist[v & 7]++;
  }
  int* d_values = to_device(values);
  Counters* d_c = to_device(std::vector<Counters>{init});
  int* d_hist = to_device(std::vector<int>(8, 0));
  hipLaunchKernelGGL(atomics, dim3((count + 127) / 128), dim3(128), 0, 0, d_values, d_c, d_hist,
                     count);
  HIP_CHECK(hipGetLastError());
  Counters got = from_device(d_c, 1)[0];
  auto expect = [&](const char* what, long long g, long long w) {
    if (g != w) {
      std::printf("%s: got %lld want %lld\n", what, g, w);
      ++bad;
    }
  };
  expect("add", got.add, want.add);
  expect("sub", got.sub, want.sub);
  expect("min", got.min, want.min);
  expect("max", got.max, want.max);
  expect("exch", got.exch_seen, 1);
  expect("cas", got.cas_wins, 1101);
  expect("and", got.and_bits, want.and_bits);
  expect("or", got.or_bits, want.or_bits);
  expect("xor", got.xor_bits, want.xor_bits);
  // Inc and dec wrap: with concurrent updates only the set of reachable values is fixed; the
  // final value after `count` steps from the start is the same whatever the order.
  expect("inc", got.inc, want.inc);
  expect("dec", got.dec, want.dec);
  expect("big", (long long)got.big, (long long)want.big);
  expect("fsum", (long long)got.fsum, (long long)want.fsum);
  expect("fmin", (long long)(got.fmin * 4), (long long)(want.fmin * 4));
  expect("fmax", (long long)(got.fmax * 4), (long long)(want.fmax * 4));
  expect("dsum", (long long)(got.dsum * 8), (long long)(want.dsum * 8));
  bad += count_mismatches("histogram", from_device(d_hist, 8), want_hist);

  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_sums));
  HIP_CHECK(hipFree(d_m));
  HIP_CHECK(hipFree(d_t));
  HIP_CHECK(hipFree(d_values));
  HIP_CHECK(hipFree(d_c));
  HIP_CHECK(hipFree(d_hist));
  return report("shared_and_atomics", bad);
}
