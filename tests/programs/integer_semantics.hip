// C's integer and floating-point rules on the device: promotions, unsigned wrap-around,
// signed/unsigned division and shifts, narrowing and widening, int<->float conversions.
#include "test_common.h"

#include <algorithm>

__host__ __device__ unsigned int wrap_mul(unsigned int a, unsigned int b) { return a * b + 7u; }

__host__ __device__ long long mixed(int a, unsigned short s, signed char c, long long big) {
  int q = a / 7;                  // rounds toward zero
  int r = a % 7;                  // sign of the dividend
  unsigned u = (unsigned)a >> 3;  // logical shift
  int sr = a >> 2;                // arithmetic shift
  int promoted = s * c;           // both promote to int
  short narrowed = (short)(a * 1000);
  unsigned char byte = (unsigned char)(a + 300);
  long long wide = big * a + (a ^ 0x5a5a) - (~a & 0xff) + (a | 3);
  bool flag = a > 0;
  long long clamped = std::min(a, 7) + std::max(q, r) + std::min<long long>(wide, 1LL << 20);
  return q + r + (long long)u + sr + promoted + narrowed + byte + wide + flag + (a != 0) + clamped;
}

__host__ __device__ float to_float(int a, unsigned b) {
  float f = a;        // int -> float
  double d = b;       // unsigned -> double
  int back = f / 3;   // float -> int (truncation)
  unsigned ub = d / 5.0;
  return f * 0.5f + (float)d + back + ub;
}

__global__ void semantics(const int* in, long long* out_ll, unsigned* out_u, float* out_f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int a = in[i];
    out_u[i] = wrap_mul((unsigned)a * 2654435761u, 40503u + i);
    out_ll[i] = mixed(a, (unsigned short)(a * 3), (signed char)a, 1LL << 40);
    out_f[i] = to_float(a, (unsigned)a * 3u);
  }
}

int main() {
  hipDeviceProp_t props;
  HIP_CHECK(hipGetDeviceProperties(&props, 0));
  std::printf("device: %s, warp size %d\n", props.name, props.warpSize);

  const int n = 4096;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i - n / 2) * 104729 + (i % 3 ? 17 : -17);

  std::vector<long long> want_ll(n);
  std::vector<unsigned> want_u(n);
  std::vector<float> want_f(n);
  for (int i = 0; i < n; ++i) {
    int a = in[i];
    want_u[i] = wrap_mul((unsigned)a * 2654435761u, 40503u + i);
    want_ll[i] = mixed(a, (unsigned short)(a * 3), (signed char)a, 1LL << 40);
    want_f[i] = to_float(a, (unsigned)a * 3u);
  }

  int* d_in = to_device(in);
  long long* d_ll = nullptr;
  unsigned* d_u = nullptr;
  float* d_f = nullptr;
  HIP_CHECK(hipMalloc(&d_ll, n * sizeof(long long)));
  HIP_CHECK(hipMalloc(&d_u, n * sizeof(unsigned)));
  HIP_CHECK(hipMalloc(&d_f, n * sizeof(float)));
  hipLaunchKernelGGL(semantics, dim3(n / 256), dim3(256), 0, 0, d_in, d_ll, d_u, d_f, n);
  HIP_CHECK(hipGetLastError());

  int bad = count_mismatches("long long", from_device(d_ll, n), want_ll);
  bad += count_mismatches("unsigned", from_device(d_u, n), want_u);
  bad += count_mismatches("float", from_device(d_f, n), want_f);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_ll));
  HIP_CHECK(hipFree(d_u));
  HIP_CHECK(hipFree(d_f));
  return report("integer_semantics", bad);
}
