// Pointers to data members of anonymous structs and unions, as register-style and tagged-value
// code declares them: members of an anonymous union, of an anonymous struct, of a struct nested
// in an anonymous union, chosen at run time, read and written through `.*` and `->*`, compared,
// and checked against the host running the same code.
#include "test_common.h"

#include <cstdint>

struct Register {
  int id;
  union {
    uint32_t word;
    struct {
      uint16_t low;
      uint16_t high;
    };
  };
  struct {
    float scale;
    int bias;
  };
};

__host__ __device__ void exercise(int v, int* out) {
  Register r{};
  r.id = v;
  r.word = 0x10001u * static_cast<uint32_t>(v);
  r.scale = 0.5f * static_cast<float>(v % 5);
  r.bias = v - 50;
  uint16_t Register::*halves[2] = {&Register::low, &Register::high};
  int Register::*ints[2] = {&Register::id, &Register::bias};
  float Register::*scale = &Register::scale;
  uint32_t Register::*word = &Register::word;
  Register* p = &r;
  // Write through one, read through the others.
  p->*halves[v % 2] += static_cast<uint16_t>(3);
  r.*ints[(v + 1) % 2] *= 2;
  out[0] = static_cast<int>(r.*word);
  out[1] = r.*halves[0] + 7 * (p->*halves[1]);
  out[2] = r.*ints[0] + r.*ints[1];
  out[3] = static_cast<int>(r.*scale * 100.0f);
  out[4] = (halves[v % 2] == &Register::low) * 10 + (ints[0] != &Register::bias);
}

__global__ void member_pointers(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  exercise(in[i], out + 5 * i);
}

int main() {
  constexpr int n = 160;
  std::vector<int> in(n), want(5 * n), got(5 * n);
  for (int i = 0; i < n; ++i) in[i] = (i * 7) % 113;
  for (int i = 0; i < n; ++i) exercise(in[i], want.data() + 5 * i);
  int* d_in = to_device(in);
  int* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, got.size() * sizeof(int)));
  hipLaunchKernelGGL(member_pointers, dim3((n + 63) / 64), dim3(64), 0, 0, d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(got.data(), d_out, got.size() * sizeof(int), hipMemcpyDeviceToHost));
  int failures = count_mismatches("anonymous member pointers", got, want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return report("anonymous_member_pointers", failures);
}
