// The rest of C's expressions on the device: sizeof/alignof, hex/octal/binary literals and
// suffixes, the comma operator, pre/post increment in expressions, enum classes, using aliases,
// __restrict__, bool arrays, unsigned 32-bit wrap of blockIdx.x * blockDim.x, and the legacy
// hipThreadIdx_x builtins.
#include "test_common.h"

#include <cstdint>

enum class Color : short { Red = 3, Green = 0x10, Blue = 017 };
using u64 = unsigned long long;
struct alignas(16) Wide {
  char c;
  double d;
};

__host__ __device__ long long literals_and_sizes(int x) {
  u64 mask = 0xFFFF'0000ull | 0b1010;
  long long v = x * 1000000007LL + 017 + 0x7fu + 'a' + L'b' + 10ul;
  v += sizeof(Wide) * 100 + alignof(Wide) + sizeof(int) * 7 + sizeof(Color) + alignof(double);
  v += static_cast<short>(Color::Green) + static_cast<int>(Color::Blue) * 3;
  int a = x, b = 0;
  b = (a += 2, a * 3);        // comma: the left side runs, the right side is the value
  int c = a++;                // post- and pre-increment values, each statement sequenced
  c += ++a;
  c -= a--;
  bool flags[4] = {x > 0, x % 2 == 0, false, true};
  int set = 0;
  for (int i = 0; i < 4; ++i) set += flags[i] << i;
  return v + static_cast<long long>(mask % 1000) + b + c + set;
}

__global__ void expressions(const int* __restrict__ in, long long* __restrict__ out,
                            unsigned* __restrict__ wrapped, int n) {
  int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
  if (i < n) out[i] = literals_and_sizes(in[i]);
  // Unsigned 32-bit arithmetic wraps as on a GPU.
  if (i == 0) wrapped[0] = (blockIdx.x + 4000000000u) * (blockDim.x * 3u) + threadIdx.x;
}

int main() {
  const int n = 777;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = i * 31 - 2000;
  std::vector<long long> want(n);
  for (int i = 0; i < n; ++i) want[i] = literals_and_sizes(in[i]);
  int* d_in = to_device(in);
  long long* d_out = nullptr;
  unsigned* d_wrapped = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(long long)));
  HIP_CHECK(hipMalloc(&d_wrapped, sizeof(unsigned)));
  expressions<<<(n + 63) / 64, 64>>>(d_in, d_out, d_wrapped, n);
  HIP_CHECK(hipGetLastError());
  int bad = count_mismatches("expressions", from_device(d_out, n), want);
  unsigned want_wrapped = (0u + 4000000000u) * (64u * 3u) + 0u;
  bad += count_mismatches("wrap", from_device(d_wrapped, 1), std::vector<unsigned>{want_wrapped});
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_wrapped));
  return report("expressions", bad);
}
