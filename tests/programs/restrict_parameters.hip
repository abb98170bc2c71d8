// __restrict__ kernel parameters: the compiler may keep what they point to in registers across
// a loop (noalias on NVIDIA targets, FuncParamAttr NoAlias in SPIR-V), and the results stay
// those of the source. Pointers without the qualifier may alias, and a kernel that walks two
// overlapping ranges must still see each of its own stores.
#include "test_common.h"

struct Affine {
  unsigned scale;
  unsigned offset;
};

// Many steps over the same elements: loads and stores through the restrict pointers can move
// out of the step loop.
template <typename T>
__global__ void accumulate(T* __restrict__ acc, T* __restrict__ mix, const T* __restrict__ in,
                           int steps, size_t n) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride) {
    for (int t = 1; t <= steps; ++t) {
      acc[j] = acc[j] * 3u + in[j] + static_cast<T>(t);
      mix[j] ^= acc[j] >> 3;
    }
  }
}

// A struct by value beside restrict pointers: both parameter attributes on one kernel.
__global__ void affine(unsigned* __restrict__ out, Affine f, const unsigned* __restrict__ in,
                       int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * f.scale + f.offset;
}

// No qualifier: `dst` may be `src + 1`, and each iteration then reads the previous one's store.
__global__ void running_copy(unsigned* dst, const unsigned* src, int n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    for (int i = 0; i < n; ++i) dst[i] = src[i] + 1u;
  }
}

int main() {
  const size_t n = 5000;
  const int steps = 40;
  std::vector<unsigned> acc(n), mix(n), in(n);
  for (size_t i = 0; i < n; ++i) {
    acc[i] = static_cast<unsigned>(i * 2654435761u);
    mix[i] = static_cast<unsigned>(i * 40503u + 7u);
    in[i] = static_cast<unsigned>(i % 97);
  }
  std::vector<unsigned> want_acc = acc, want_mix = mix;
  for (size_t j = 0; j < n; ++j) {
    for (int t = 1; t <= steps; ++t) {
      want_acc[j] = want_acc[j] * 3u + in[j] + static_cast<unsigned>(t);
      want_mix[j] ^= want_acc[j] >> 3;
    }
  }
  unsigned* d_acc = to_device(acc);
  unsigned* d_mix = to_device(mix);
  unsigned* d_in = to_device(in);
  accumulate<unsigned><<<8, 128>>>(d_acc, d_mix, d_in, steps, n);
  HIP_CHECK(hipGetLastError());
  int bad = count_mismatches("accumulate acc", from_device(d_acc, n), want_acc);
  bad += count_mismatches("accumulate mix", from_device(d_mix, n), want_mix);

  // 64-bit elements through the same template.
  std::vector<unsigned long long> wide(n), wide_mix(n, 0), wide_in(n);
  for (size_t i = 0; i < n; ++i) {
    wide[i] = i * 0x9E3779B97F4A7C15ull;
    wide_in[i] = i;
  }
  std::vector<unsigned long long> want_wide = wide, want_wide_mix = wide_mix;
  for (size_t j = 0; j < n; ++j) {
    for (int t = 1; t <= steps; ++t) {
      want_wide[j] = want_wide[j] * 3u + wide_in[j] + static_cast<unsigned long long>(t);
      want_wide_mix[j] ^= want_wide[j] >> 3;
    }
  }
  unsigned long long* d_wide = to_device(wide);
  unsigned long long* d_wide_mix = to_device(wide_mix);
  unsigned long long* d_wide_in = to_device(wide_in);
  hipLaunchKernelGGL(accumulate<unsigned long long>, dim3(5), dim3(256), 0, 0, d_wide,
                     d_wide_mix, d_wide_in, steps, n);
  HIP_CHECK(hipGetLastError());
  bad += count_mismatches("accumulate 64-bit", from_device(d_wide, n), want_wide);
  bad += count_mismatches("accumulate 64-bit mix", from_device(d_wide_mix, n), want_wide_mix);

  Affine f{7u, 11u};
  std::vector<unsigned> want_affine(n);
  for (size_t i = 0; i < n; ++i) want_affine[i] = in[i] * f.scale + f.offset;
  unsigned* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(unsigned)));
  affine<<<(n + 255) / 256, 256>>>(d_out, f, d_in, static_cast<int>(n));
  HIP_CHECK(hipGetLastError());
  bad += count_mismatches("affine", from_device(d_out, n), want_affine);

  // Overlapping ranges: dst = src + 1 turns the copy into a running count from src[0].
  const int m = 300;
  std::vector<unsigned> run(m + 1, 0);
  run[0] = 5;
  std::vector<unsigned> want_run(m + 1);
  want_run[0] = 5;
  for (int i = 0; i < m; ++i) want_run[i + 1] = want_run[i] + 1u;
  unsigned* d_run = to_device(run);
  running_copy<<<1, 32>>>(d_run + 1, d_run, m);
  HIP_CHECK(hipGetLastError());
  bad += count_mismatches("running copy", from_device(d_run, m + 1), want_run);

  for (void* p : {static_cast<void*>(d_acc), static_cast<void*>(d_mix), static_cast<void*>(d_in),
                  static_cast<void*>(d_wide), static_cast<void*>(d_wide_mix),
                  static_cast<void*>(d_wide_in), static_cast<void*>(d_out),
                  static_cast<void*>(d_run)}) {
    HIP_CHECK(hipFree(p));
  }
  return report("restrict_parameters", bad);
}
