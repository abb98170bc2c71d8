// A source and a header of device code that begin with a UTF-8 byte-order mark: clang skips the
// mark, and so must every copy of them hipmlir gives the host compiler.
#include "test_common.h"
#include "include/byte_order_mark_kernels.h"

__global__ void square_all(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= data[i];
}

int main() {
  const int n = 1000;
  std::vector<float> in(n), want(n);
  std::vector<int> squares(n), want_squares(n);
  for (int i = 0; i < n; ++i) {
    in[i] = 0.25f * i;
    want[i] = in[i] * 3.0f + 1.0f;
    squares[i] = i - 500;
    want_squares[i] = (i - 500) * (i - 500);
  }
  float* d_in = to_device(in);
  float* d_out;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(float)));
  int* d_squares = to_device(squares);
  scale_and_shift<float><<<(n + 255) / 256, 256>>>(d_in, d_out, 3.0f, 1.0f, n);
  HIP_CHECK(hipGetLastError());
  square_all<<<(n + 255) / 256, 256>>>(d_squares, n);
  HIP_CHECK(hipGetLastError());
  int bad = count_mismatches("scale_and_shift", from_device(d_out, n), want);
  bad += count_mismatches("square_all", from_device(d_squares, n), want_squares);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_squares));
  std::printf(bad == 0 ? "byte_order_mark PASSED\n" : "byte_order_mark FAILED\n");
  return bad == 0 ? 0 : 1;
}
