// A second source launching another instance of the header's template kernel, and its own copy
// of the internal-linkage kernel.
#include "grid_kernels.hh"

#include <vector>

int blend_doubles(int n) {
  std::vector<double> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = 1.0 / (i + 1);
    b[i] = i * 3.0;
  }
  double *da, *db, *dout;
  HIP_CHECK(hipMalloc(&da, n * sizeof(double)));
  HIP_CHECK(hipMalloc(&db, n * sizeof(double)));
  HIP_CHECK(hipMalloc(&dout, n * sizeof(double)));
  HIP_CHECK(hipMemcpy(da, a.data(), n * sizeof(double), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(db, b.data(), n * sizeof(double), hipMemcpyHostToDevice));
  blend<double><<<GRID_FOR(n), BLOCK>>>(dout, da, db, 0.75, n);
  HIP_CHECK(hipGetLastError());
  std::vector<double> got(n);
  HIP_CHECK(hipMemcpy(got.data(), dout, n * sizeof(double), hipMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += got[i] != a[i] * 0.75 + b[i] * (1.0 - 0.75);

  int* dtotal;
  std::vector<int> ones(n, 1);
  int* dones;
  HIP_CHECK(hipMalloc(&dtotal, sizeof(int)));
  HIP_CHECK(hipMalloc(&dones, n * sizeof(int)));
  HIP_CHECK(hipMemcpy(dones, ones.data(), n * sizeof(int), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemset(dtotal, 0, sizeof(int)));
  launch_count_odd(dones, dtotal, n, 0);
  int total = 0;
  HIP_CHECK(hipMemcpy(&total, dtotal, sizeof(int), hipMemcpyDeviceToHost));
  bad += total != n;
  HIP_CHECK(hipFree(da));
  HIP_CHECK(hipFree(db));
  HIP_CHECK(hipFree(dout));
  HIP_CHECK(hipFree(dtotal));
  HIP_CHECK(hipFree(dones));
  return bad;
}
