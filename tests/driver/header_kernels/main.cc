// No device keyword in this file: its kernels come from grid_kernels.hh.
#include "grid_kernels.hh"

#include <vector>

int blend_doubles(int n);  // blend_doubles.cpp
int odd_numbers(const std::vector<int>& values);  // host_only.cpp, host code only

int main() {
  const int n = 1000;
  std::vector<float> a(n), b(n), want(n);
  for (int i = 0; i < n; ++i) {
    a[i] = 0.5f * i;
    b[i] = 100.0f - i;
    want[i] = a[i] * 0.25f + b[i] * (1.0f - 0.25f);
  }
  float *da, *db, *dout;
  HIP_CHECK(hipMalloc(&da, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&db, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&dout, n * sizeof(float)));
  HIP_CHECK(hipMemcpy(da, a.data(), n * sizeof(float), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(db, b.data(), n * sizeof(float), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(HIP_KERNEL_NAME(blend<float>), GRID_FOR(n), dim3(BLOCK), 0, 0, dout, da, db,
                     0.25f, n);
  HIP_CHECK(hipGetLastError());
  std::vector<float> got(n);
  HIP_CHECK(hipMemcpy(got.data(), dout, n * sizeof(float), hipMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += got[i] != want[i];

  std::vector<int> values(n);
  for (int i = 0; i < n; ++i) values[i] = (i * 7919) % 1009;
  int *dvalues, *dtotal;
  HIP_CHECK(hipMalloc(&dvalues, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&dtotal, sizeof(int)));
  HIP_CHECK(hipMemcpy(dvalues, values.data(), n * sizeof(int), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemset(dtotal, 0, sizeof(int)));
  launch_count_odd(dvalues, dtotal, n, 0);
  int total = 0;
  HIP_CHECK(hipMemcpy(&total, dtotal, sizeof(int), hipMemcpyDeviceToHost));
  bad += total != odd_numbers(values);

  bad += blend_doubles(n);
  HIP_CHECK(hipFree(da));
  HIP_CHECK(hipFree(db));
  HIP_CHECK(hipFree(dout));
  HIP_CHECK(hipFree(dvalues));
  HIP_CHECK(hipFree(dtotal));
  std::printf("header kernels %s (%d mismatches)\n", bad ? "FAILED" : "PASSED", bad);
  return bad != 0;
}
