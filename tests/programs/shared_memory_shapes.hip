// The shapes the SPIR-V pipeline rewrites for the CPU device's vectorizer, checked element by
// element against the host: shared arrays subscripted by threadIdx (64-bit ids instead of
// zero-extended 32-bit ones, accesses in the workgroup space rather than through generic
// pointers), atomics on shared memory (the work-group's scope), and a * b + c (one fma where
// contraction is allowed, two roundings under `#pragma clang fp contract(off)`).
#include "test_common.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

constexpr int kTile = 32;
constexpr int kRows = 8;
constexpr int kBins = 64;

// Tiled transpose through a padded shared tile, written with unsigned and signed subscripts
// and a pointer into the tile taken once per row.
template <typename T>
__global__ void transpose_tiles(T* out, const T* in, int width, int height) {
  __shared__ T tile[kTile][kTile + 1];
  unsigned tx = threadIdx.x;
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    T* row = tile[threadIdx.y + j];
    if (x < width && y + j < height) row[tx] = in[(y + j) * width + x];
  }
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (x < height && y + j < width) {
      out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
    }
  }
}

// Per-block histograms in shared memory (add, max, compare-and-swap), merged into global bins;
// the last block of each pass also records the largest value it saw per bin.
__global__ void shared_histogram(const unsigned char* data, unsigned* bins, unsigned* largest,
                                 unsigned long long* sums, int n) {
  __shared__ unsigned counts[kBins];
  __shared__ unsigned maxima[kBins];
  __shared__ unsigned long long total;
  for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x) {
    counts[b] = 0;
    maxima[b] = 0;
  }
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    unsigned v = data[i];
    atomicAdd(&counts[v % kBins], 1u);
    atomicMax(&maxima[v % kBins], v);
    unsigned long long seen = total;
    unsigned long long assumed;
    do {
      assumed = seen;
      seen = atomicCAS(&total, assumed, assumed + v);
    } while (seen != assumed);
  }
  __syncthreads();
  for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x) {
    atomicAdd(&bins[b], counts[b]);
    atomicMax(&largest[b], maxima[b]);
  }
  if (threadIdx.x == 0) atomicAdd(sums, total);
}

// out = a * b + c twice: contracted (hipcc's default) and with contraction off.
__global__ void multiply_add(const float* a, const float* b, const float* c, float* fused,
                             float* separate, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    fused[i] = a[i] * b[i] + c[i];
    {
#pragma clang fp contract(off)
      separate[i] = a[i] * b[i] + c[i];
    }
  }
}

static int check_transpose() {
  const int width = 100, height = 70;  // not multiples of the tile
  std::vector<int64_t> in(width * height), want(width * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) in[y * width + x] = (int64_t{y} << 32) | (x * 7 + 1);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) want[x * height + y] = in[y * width + x];
  int64_t* d_in = to_device(in);
  int64_t* d_out = to_device(std::vector<int64_t>(width * height, -1));
  dim3 grid((width + kTile - 1) / kTile, (height + kTile - 1) / kTile);
  transpose_tiles<<<grid, dim3(kTile, kRows)>>>(d_out, d_in, width, height);
  HIP_CHECK(hipGetLastError());
  int bad = count_mismatches("transpose", from_device(d_out, want.size()), want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return bad;
}

static int check_histogram() {
  const int n = 50000;
  std::vector<unsigned char> data(n);
  for (int i = 0; i < n; ++i) data[i] = static_cast<unsigned char>((i * 2654435761u) >> 24);
  std::vector<unsigned> want_bins(kBins, 0), want_largest(kBins, 0);
  unsigned long long want_sum = 0;
  for (unsigned char v : data) {
    ++want_bins[v % kBins];
    want_largest[v % kBins] = std::max<unsigned>(want_largest[v % kBins], v);
    want_sum += v;
  }
  unsigned char* d_data = to_device(data);
  unsigned* d_bins = to_device(std::vector<unsigned>(kBins, 0));
  unsigned* d_largest = to_device(std::vector<unsigned>(kBins, 0));
  unsigned long long* d_sum = to_device(std::vector<unsigned long long>(1, 0));
  shared_histogram<<<13, 96>>>(d_data, d_bins, d_largest, d_sum, n);
  HIP_CHECK(hipGetLastError());
  int bad = count_mismatches("histogram bins", from_device(d_bins, kBins), want_bins);
  bad += count_mismatches("histogram maxima", from_device(d_largest, kBins), want_largest);
  bad += count_mismatches("histogram sum", from_device(d_sum, 1),
                          std::vector<unsigned long long>(1, want_sum));
  HIP_CHECK(hipFree(d_data));
  HIP_CHECK(hipFree(d_bins));
  HIP_CHECK(hipFree(d_largest));
  HIP_CHECK(hipFree(d_sum));
  return bad;
}

static int check_multiply_add() {
  const int n = 4096;
  std::vector<float> a(n), b(n), c(n), want_fused(n), want_separate(n);
  int differ = 0;
  for (int i = 0; i < n; ++i) {
    // Products whose low bits the separate rounding loses, so that fused and separate differ.
    a[i] = 1.0f + static_cast<float>(i) * 0x1p-12f + 0x1p-20f;
    b[i] = 1.0f - static_cast<float>(i % 97) * 0x1p-13f + 0x1p-21f;
    c[i] = -a[i] * b[i];
    want_fused[i] = std::fma(a[i], b[i], c[i]);
    volatile float product = a[i] * b[i];
    want_separate[i] = product + c[i];
    differ += want_fused[i] != want_separate[i];
  }
  if (differ < n / 2) {
    std::printf("multiply-add: only %d of %d inputs tell fused from separate\n", differ, n);
    return 1;
  }
  float* d_a = to_device(a);
  float* d_b = to_device(b);
  float* d_c = to_device(c);
  float* d_fused = to_device(std::vector<float>(n, 0.0f));
  float* d_separate = to_device(std::vector<float>(n, 0.0f));
  multiply_add<<<(n + 255) / 256, 256>>>(d_a, d_b, d_c, d_fused, d_separate, n);
  HIP_CHECK(hipGetLastError());
  std::vector<float> fused = from_device(d_fused, n), separate = from_device(d_separate, n);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    if (fused[i] != want_fused[i] || separate[i] != want_separate[i]) {
      if (bad < 5) {
        std::printf("multiply-add at %d: fused %a (want %a), separate %a (want %a)\n", i,
                    fused[i], want_fused[i], separate[i], want_separate[i]);
      }
      ++bad;
    }
  }
  HIP_CHECK(hipFree(d_a));
  HIP_CHECK(hipFree(d_b));
  HIP_CHECK(hipFree(d_c));
  HIP_CHECK(hipFree(d_fused));
  HIP_CHECK(hipFree(d_separate));
  return bad;
}

int main() {
  int bad = check_transpose();
  bad += check_histogram();
  bad += check_multiply_add();
  return report("shared_memory_shapes", bad);
}
