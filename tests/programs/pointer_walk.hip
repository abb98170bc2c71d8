// Pointer arithmetic in device code: p + i, p++, *p, &a[i], p - q, pointers into the middle of
// a buffer passed from the host, and doubles.
#include "test_common.h"

#include <cmath>

__device__ double dot_strided(const double* x, const double* y, int len, int stride) {
  double acc = 0.0;
  const double* end = x + len * stride;
  for (const double* p = x; p < end; p += stride) {
    acc += *p * *y;
    y++;
  }
  return acc;
}

__global__ void rows_dot(const double* matrix, const double* v, double* out, long* spans,
                         int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    const double* row = &matrix[r * cols];
    out[r] = dot_strided(row, v, cols, 1) + dot_strided(matrix + r, v, rows, cols) * 0.5;
    const double* last = row + (cols - 1);
    spans[r] = last - row;
  }
}

int main() {
  const int rows = 300, cols = 300;
  std::vector<double> m(rows * cols), v(cols);
  for (int i = 0; i < rows * cols; ++i) m[i] = (i % 17) * 0.25 - 1.0;
  for (int j = 0; j < cols; ++j) v[j] = 1.0 / (j + 1);

  std::vector<double> want(rows);
  std::vector<long> want_span(rows, cols - 1);
  for (int r = 0; r < rows; ++r) {
    double a = 0.0, b = 0.0;
    for (int j = 0; j < cols; ++j) a += m[r * cols + j] * v[j];
    for (int j = 0; j < rows; ++j) b += m[j * cols + r] * v[j];
    want[r] = a + b * 0.5;
  }

  double* d_m = to_device(m);
  double* d_v = to_device(v);
  double* d_out = nullptr;
  long* d_span = nullptr;
  HIP_CHECK(hipMalloc(&d_out, rows * sizeof(double)));
  HIP_CHECK(hipMalloc(&d_span, rows * sizeof(long)));
  hipLaunchKernelGGL(rows_dot, dim3((rows + 63) / 64), dim3(64), 0, 0, d_m, d_v, d_out, d_span,
                     rows, cols);
  HIP_CHECK(hipGetLastError());
  std::vector<double> got = from_device(d_out, rows);
  int bad = 0;
  for (int r = 0; r < rows; ++r) {
    // The device may contract a*b+c into an fma (OpenCL allows it, as HIP does): allow for
    // rounding differences, nothing more.
    if (std::fabs(got[r] - want[r]) > 1e-12 * std::fabs(want[r]) + 1e-12) {
      if (bad < 5) std::printf("row %d: got %.17g want %.17g\n", r, got[r], want[r]);
      ++bad;
    }
  }
  bad += count_mismatches("span", from_device(d_span, rows), want_span);
  HIP_CHECK(hipFree(d_m));
  HIP_CHECK(hipFree(d_v));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_span));
  return report("pointer_walk", bad);
}
