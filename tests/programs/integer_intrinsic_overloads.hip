// HIP's bit-counting intrinsics called with every integer type real code passes them: __popcll
// takes an unsigned long long, so an int, a long, a short, a char or an unsigned long converts to
// it (a negative value to its two's complement); __popc, __clz, __clzll, __ffs and __ffsll
// likewise with their own parameter types. Checked against the host's builtins.
#include "test_common.h"

#include <cstdint>

constexpr int kOutputs = 12;

__global__ void counts(const long long* v, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long x = v[i];
  int* o = out + kOutputs * i;
  o[0] = __popcll(static_cast<int>(x));
  o[1] = __popcll(static_cast<unsigned int>(x));
  o[2] = __popcll(static_cast<long>(x));
  o[3] = __popcll(static_cast<unsigned long>(x));
  o[4] = __popcll(x);
  o[5] = __popcll(static_cast<unsigned long long>(x));
  o[6] = __popcll(static_cast<short>(x));
  o[7] = __popcll(static_cast<char>(x));
  o[8] = __popc(static_cast<unsigned int>(x)) + 100 * __popc(static_cast<int>(x >> 8));
  o[9] = __clz(static_cast<int>(x)) + 100 * __clzll(x);
  o[10] = __ffs(static_cast<int>(x)) + 100 * __ffs(static_cast<unsigned int>(x >> 3));
  o[11] = __ffsll(x) + 100 * __ffsll(static_cast<unsigned long long>(x >> 5));
}

static int popc(unsigned long long v) { return __builtin_popcountll(v); }
static int clz32(uint32_t v) { return v ? __builtin_clz(v) : 32; }
static int clz64(uint64_t v) { return v ? __builtin_clzll(v) : 64; }
static int ffs64(uint64_t v) { return v ? __builtin_ctzll(v) + 1 : 0; }

int main() {
  const int n = 2048;
  std::vector<long long> v(n);
  uint64_t state = 99;
  for (int i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v[i] = static_cast<long long>(state >> (i % 64));
    if (i % 3 == 0) v[i] = -v[i];
    if (i % 17 == 0) v[i] = 0;
  }
  long long* dv = to_device(v);
  int* dout;
  HIP_CHECK(hipMalloc(&dout, sizeof(int) * kOutputs * n));
  counts<<<n / 128, 128>>>(dv, dout, n);
  HIP_CHECK(hipGetLastError());
  std::vector<int> got = from_device(dout, static_cast<size_t>(kOutputs) * n), want(got.size());
  for (int i = 0; i < n; ++i) {
    long long x = v[i];
    int* w = &want[static_cast<size_t>(kOutputs) * i];
    // Each argument converted to unsigned long long first, as the call's parameter does.
    w[0] = popc(static_cast<unsigned long long>(static_cast<int>(x)));
    w[1] = popc(static_cast<unsigned int>(x));
    w[2] = popc(static_cast<unsigned long long>(static_cast<long>(x)));
    w[3] = popc(static_cast<unsigned long>(x));
    w[4] = popc(static_cast<unsigned long long>(x));
    w[5] = popc(static_cast<unsigned long long>(x));
    w[6] = popc(static_cast<unsigned long long>(static_cast<short>(x)));
    w[7] = popc(static_cast<unsigned long long>(static_cast<char>(x)));
    w[8] = popc(static_cast<unsigned int>(x)) + 100 * popc(static_cast<unsigned int>(x >> 8));
    w[9] = clz32(static_cast<uint32_t>(x)) + 100 * clz64(static_cast<uint64_t>(x));
    w[10] = ffs64(static_cast<uint32_t>(x)) + 100 * ffs64(static_cast<uint32_t>(x >> 3));
    w[11] = ffs64(static_cast<uint64_t>(x)) + 100 * ffs64(static_cast<uint64_t>(x >> 5));
  }
  int bad = count_mismatches("bit counts", got, want);
  HIP_CHECK(hipFree(dv));
  HIP_CHECK(hipFree(dout));
  return report("integer_intrinsic_overloads", bad);
}
