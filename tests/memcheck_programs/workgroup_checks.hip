// Kernels the memory checker versions per work-group (workgroup_kernels.h): with the checker
// on they give the host's results on every element ("correct"), and a bad access in the last
// block ("past_end") or in a block in the middle of the grid ("middle_block") is still
// reported, and fails the launch with hipErrorIllegalAddress.
#include <hip/hip_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>
#include "workgroup_kernels.h"

#define HIP_CHECK(call)                                                              \
  do {                                                                               \
    hipError_t e_ = (call);                                                          \
    if (e_ != hipSuccess) {                                                          \
      std::printf("%s failed: %s\n", #call, hipGetErrorName(e_));                    \
      return 1;                                                                      \
    }                                                                                \
  } while (0)

#define LAUNCH(kernel, blocks, threads, ...) kernel<<<(blocks), (threads)>>>(__VA_ARGS__)

template <typename T>
static T* to_device(const std::vector<T>& host) {
  T* device = nullptr;
  if (hipMalloc(&device, host.size() * sizeof(T)) != hipSuccess) return nullptr;
  if (hipMemcpy(device, host.data(), host.size() * sizeof(T), hipMemcpyHostToDevice) !=
      hipSuccess)
    return nullptr;
  return device;
}

template <typename T>
static std::vector<T> to_host(const T* device, size_t n) {
  std::vector<T> host(n);
  if (hipMemcpy(host.data(), device, n * sizeof(T), hipMemcpyDeviceToHost) != hipSuccess)
    host.clear();
  return host;
}

static int mismatches = 0;

template <typename T>
static void expect(const char* what, const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size()) {
    std::printf("%s: %zu elements, not %zu\n", what, got.size(), want.size());
    ++mismatches;
    return;
  }
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::fabs(double(got[i]) - double(want[i])) > 1e-3 * (1 + std::fabs(double(want[i])))) {
      std::printf("%s: element %zu is %g, not %g\n", what, i, double(got[i]), double(want[i]));
      ++mismatches;
      return;
    }
  }
}

static int correct() {
  // y = a * x + y over a grid whose last block is partly outside n.
  const int n = 100003;
  std::vector<float> x(n), y(n), want(n);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i % 97) * 0.5f;
    y[i] = float(i % 13);
    want[i] = 3.0f * x[i] + y[i];
  }
  float* dx = to_device(x);
  float* dy = to_device(y);
  LAUNCH(scale_add<float>, (n + 255) / 256, 256, 3.0f, dx, dy, n);
  HIP_CHECK(hipDeviceSynchronize());
  expect("scale_add", to_host(dy, n), want);

  // C = A * B, n not a multiple of the tile.
  for (int m : {64, 70}) {
    std::vector<float> a(m * m), b(m * m), c(m * m, 0.0f);
    for (int i = 0; i < m * m; ++i) {
      a[i] = float((i * 7) % 11) - 5.0f;
      b[i] = float((i * 3) % 5) + 1.0f;
    }
    for (int r = 0; r < m; ++r)
      for (int k = 0; k < m; ++k)
        for (int col = 0; col < m; ++col) c[r * m + col] += a[r * m + k] * b[k * m + col];
    float* da = to_device(a);
    float* db = to_device(b);
    float* dc = nullptr;
    HIP_CHECK(hipMalloc(&dc, m * m * sizeof(float)));
    dim3 grid((m + TILE - 1) / TILE, (m + TILE - 1) / TILE), block(TILE, TILE);
    LAUNCH(tiled_product, grid, block, da, db, dc, m);
    HIP_CHECK(hipDeviceSynchronize());
    expect("tiled_product", to_host(dc, m * m), c);
    HIP_CHECK(hipFree(da));
    HIP_CHECK(hipFree(db));
    HIP_CHECK(hipFree(dc));
  }

  // Halo reads: each block's first three threads read before the block's start.
  const int blocks = 40, halo = 3;
  std::vector<float> in(blocks * 128), halos(blocks * 3, 0.0f), want_halos(blocks * 3, 0.0f);
  for (size_t i = 0; i < in.size(); ++i) in[i] = float(i);
  for (int blk = 1; blk < blocks; ++blk)
    for (int t = 0; t < 3; ++t) want_halos[blk * 3 + t] = in[blk * 128 + t - halo];
  float* din = to_device(in);
  float* dhalos = to_device(halos);
  // (Block 0 has no elements before it: it starts at 1.)
  LAUNCH(left_halo, 1, 128, din + 128, dhalos + 3, halo);
  LAUNCH(left_halo, blocks - 2, 128, din + 256, dhalos + 6, halo);
  HIP_CHECK(hipDeviceSynchronize());
  expect("left_halo", to_host(dhalos, blocks * 3), want_halos);

  // Unsigned arithmetic that wraps in block 0.
  const int count = 5000;
  std::vector<int> values(count + 16), shifted(count);
  for (size_t i = 0; i < values.size(); ++i) values[i] = int(i) * 3 - 7;
  for (int i = 0; i < count; ++i) shifted[i] = values[i];
  int* dvalues = to_device(values);
  int* dshifted = nullptr;
  HIP_CHECK(hipMalloc(&dshifted, count * sizeof(int)));
  LAUNCH(shifted_read, (count + 63) / 64, 64, dvalues + 16, dshifted, count);
  HIP_CHECK(hipDeviceSynchronize());
  expect("shifted_read", to_host(dshifted, count), shifted);

  // A device lambda.
  std::vector<float> doubled(n);
  for (int i = 0; i < n; ++i) doubled[i] = x[i] * 2.0f + 1.0f;
  float* dout = nullptr;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(float)));
  LAUNCH(transform, (n + 127) / 128, 128, dx, dout, n,
         [] __device__(float v) { return v * 2.0f + 1.0f; });
  HIP_CHECK(hipDeviceSynchronize());
  expect("transform", to_host(dout, n), doubled);

  if (mismatches != 0) return 1;
  std::printf("RESULTS OK\n");
  return 0;
}

// The launch fails with hipErrorIllegalAddress; a reset clears it.
static int reported() {
  hipError_t synced = hipDeviceSynchronize();
  if (synced != hipErrorIllegalAddress) {
    std::printf("synchronize gave %s, not hipErrorIllegalAddress\n", hipGetErrorName(synced));
    return 1;
  }
  HIP_CHECK(hipDeviceReset());
  std::printf("REPORTED\n");
  return 0;
}

int main(int argc, char** argv) {
  const char* what = argc > 1 ? argv[1] : "";
  if (std::strcmp(what, "correct") == 0) return correct();
  if (std::strcmp(what, "past_end") == 0) {
    const int n = 1000;
    float* out = nullptr;
    HIP_CHECK(hipMalloc(&out, n * sizeof(float)));
    LAUNCH(fill_through, 4, 256, out, n, 2.0f);
    return reported();
  }
  if (std::strcmp(what, "middle_block") == 0) {
    const int n = 1024;
    float* out = nullptr;
    HIP_CHECK(hipMalloc(&out, n * sizeof(float)));
    LAUNCH(fill_shifted, 4, 256, out, n, 2);
    return reported();
  }
  std::printf("unknown case '%s'\n", what);
  return 2;
}
