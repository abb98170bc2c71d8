// Unions in device code: type punning (float/bits/bytes), initialization of the first member,
// copies, an anonymous union inside a struct, a union wider than its first member, a union
// passed by value as a kernel argument; and a struct with array fields next to a default member
// initializer.
#include "test_common.h"

union Bits {
  float f;
  unsigned int u;
  unsigned char bytes[4];
};

struct Tagged {
  int kind;
  union {
    int i;
    float f;
  } value;
};

union Wide {
  double d;
  int parts[2];
  short s;
};

struct Window {
  float taps[3];
  int width = 3;  // a default member initializer after an array field
};

__host__ __device__ unsigned int work(float x, int k) {
  Bits b;
  b.f = x;
  unsigned int r = b.u ^ b.bytes[3];
  Bits c = {x * 2.0f};
  Bits d = c;
  d.bytes[0] = 7;
  Tagged t;
  t.kind = k & 1;
  if (t.kind) {
    t.value.i = k * 3;
  } else {
    t.value.f = x + 1.0f;
  }
  int v = t.kind ? t.value.i : static_cast<int>(t.value.f);
  Wide w = {};
  w.s = static_cast<short>(k);
  Window win;
  for (int i = 0; i < 3; ++i) win.taps[i] = x * i;
  int window = static_cast<int>(win.taps[2]) * win.width;
  return r + d.u + static_cast<unsigned>(v) + static_cast<unsigned>(w.parts[0]) +
         static_cast<unsigned>(w.parts[1]) + static_cast<unsigned>(window);
}

__global__ void union_kernel(const float* in, unsigned int* out, Bits extra, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = work(in[i], i) + extra.u;
}

int main() {
  const int n = 3000;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = i * 0.37f - 50.0f;
  Bits extra;
  extra.u = 12345u;
  std::vector<unsigned int> want(n);
  for (int i = 0; i < n; ++i) want[i] = work(in[i], i) + extra.u;

  float* d_in = to_device(in);
  unsigned int* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(unsigned int)));
  union_kernel<<<(n + 255) / 256, 256>>>(d_in, d_out, extra, n);
  HIP_CHECK(hipGetLastError());
  std::vector<unsigned int> got = from_device(d_out, n);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return report("unions", count_mismatches("out", got, want));
}
