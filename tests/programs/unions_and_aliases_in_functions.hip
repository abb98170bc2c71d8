// Declarations inside device functions and anonymous members, as real kernels write them: a
// union type declared in a kernel for type punning, an anonymous union at block scope, classes
// with anonymous unions and structs as members (read and written by member name, in member
// functions, from constructors' initializer lists and default member initializers, and passed
// to kernels by value), and namespace aliases, using-declarations and using-directives in
// kernels. Every element is compared with a host reference.
#include "test_common.h"

#include <hip/hip_cooperative_groups.h>

#include <cstdint>
#include <cstring>

namespace keys {
namespace detail {
// The order-preserving unsigned key of a float (radix sorts use it).
__host__ __device__ inline uint32_t flip(uint32_t bits) {
  return (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
}
}  // namespace detail
}  // namespace keys

// A packed pair of 16-bit halves, as a half2's raw form is written.
struct Pair16 {
  union {
    struct {
      uint16_t lo, hi;
    };
    uint32_t data;
  };
  int tag = 9;

  __host__ __device__ Pair16(uint16_t l, uint16_t h) : lo(l), hi(h) {}
  __host__ __device__ explicit Pair16(uint32_t d) : data(d), tag(4) {}
  __host__ __device__ uint32_t swapped() const { return (uint32_t(lo) << 16) | hi; }
  __host__ __device__ void bump_hi() { ++hi; }
};

// A variant member with a default initializer.
struct Counter {
  union {
    int count = 100;
    float weight;
  };
  short step = 3;
};

__global__ void float_keys(const float* in, uint32_t* out, int n) {
  namespace kd = keys::detail;
  union FloatBits {
    float f;
    uint32_t u;
  };
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  FloatBits b;
  b.f = in[i];
  out[i] = kd::flip(b.u);
}

__global__ void pairs(Pair16 base, const uint32_t* in, uint32_t* out, int n) {
  namespace cg = cooperative_groups;
  using std::max;
  using namespace keys;
  cg::thread_block block = cg::this_thread_block();
  int i = blockIdx.x * blockDim.x + block.thread_rank();
  if (i >= n) return;
  // An anonymous union at block scope: its members are named as variables.
  union {
    uint32_t word;
    uint8_t bytes[4];
  };
  word = in[i];
  Pair16 p(uint16_t(bytes[0] + bytes[1]), uint16_t(max(bytes[2], bytes[3])));
  p.bump_hi();
  Pair16 q(in[i]);
  Counter c;
  if (i % 2) c.weight = 0.5f;
  uint32_t weight_bits = 0;
  memcpy(&weight_bits, &c.weight, sizeof weight_bits);
  out[i] = p.swapped() + q.lo * 3u + q.hi + uint32_t(p.tag + q.tag) + base.data + base.swapped() +
           uint32_t(base.tag) + (i % 2 ? weight_bits >> 20 : uint32_t(c.count)) + c.step +
           detail::flip(uint32_t(i)) % 7u;
}

int main() {
  const int n = 777;
  int failures = 0;

  std::vector<float> f(n);
  for (int i = 0; i < n; ++i) f[i] = (i % 3 == 0 ? -1.0f : 1.0f) * static_cast<float>(i) * 0.37f;
  float* d_f = to_device(f);
  uint32_t* d_keys = nullptr;
  HIP_CHECK(hipMalloc(&d_keys, n * sizeof(uint32_t)));
  float_keys<<<(n + 127) / 128, 128>>>(d_f, d_keys, n);
  HIP_CHECK(hipGetLastError());
  std::vector<uint32_t> want_keys(n);
  for (int i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &f[i], sizeof bits);
    want_keys[i] = keys::detail::flip(bits);
  }
  failures += report("a union declared in a kernel",
                     count_mismatches("keys", from_device(d_keys, n), want_keys));

  std::vector<uint32_t> in(n);
  for (int i = 0; i < n; ++i) in[i] = 0x9E3779B9u * static_cast<uint32_t>(i + 1);
  uint32_t* d_in = to_device(in);
  uint32_t* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(uint32_t)));
  Pair16 base(uint16_t(0x1234), uint16_t(0x0042));
  base.tag = 17;
  pairs<<<(n + 63) / 64, 64>>>(base, d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  std::vector<uint32_t> want(n);
  for (int i = 0; i < n; ++i) {
    uint8_t b[4];
    std::memcpy(b, &in[i], 4);
    Pair16 p(uint16_t(b[0] + b[1]), uint16_t(std::max(b[2], b[3])));
    p.bump_hi();
    Pair16 q(in[i]);
    Counter c;
    if (i % 2) c.weight = 0.5f;
    uint32_t weight_bits = 0;
    std::memcpy(&weight_bits, &c.weight, sizeof weight_bits);
    want[i] = p.swapped() + q.lo * 3u + q.hi + uint32_t(p.tag + q.tag) + base.data +
              base.swapped() + uint32_t(base.tag) +
              (i % 2 ? weight_bits >> 20 : uint32_t(c.count)) + c.step +
              keys::detail::flip(uint32_t(i)) % 7u;
  }
  failures += report("anonymous unions and structs, namespace aliases",
                     count_mismatches("pairs", from_device(d_out, n), want));

  HIP_CHECK(hipFree(d_f));
  HIP_CHECK(hipFree(d_keys));
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return failures;
}
