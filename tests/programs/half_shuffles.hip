// Warp shuffles of half-precision values (__half and __half2 overloads of __shfl, __shfl_up,
// __shfl_down, __shfl_xor and their _sync forms), with and without a width, checked against
// HIP's lane rules (a lane whose source falls outside its segment keeps its own value).
#include "test_common.h"

#include <hip/hip_fp16.h>

#include <cstring>

constexpr int kOutputs = 6;

__global__ void shuffles(float* out) {
  int lane = threadIdx.x % warpSize;
  __half h = __float2half(0.5f * threadIdx.x);
  __half2 h2 = __floats2half2_rn(static_cast<float>(threadIdx.x), -static_cast<float>(threadIdx.x));
  float* o = out + kOutputs * threadIdx.x;
  o[0] = __half2float(__shfl(h, (lane + 3) % warpSize));
  __half2 down = __shfl_down(h2, 1u, 16);
  o[1] = __low2float(down);
  o[2] = __high2float(down);
  o[3] = __half2float(__shfl_xor(h, 5));
  __half2 up = __shfl_up_sync(~0ull, h2, 2u);
  o[4] = __low2float(up);
  o[5] = __half2float(__shfl_sync(~0ull, h, 0, 8));
}

int main() {
  const int threads = 64;
  float* dout;
  HIP_CHECK(hipMalloc(&dout, sizeof(float) * kOutputs * threads));
  shuffles<<<1, threads>>>(dout);
  HIP_CHECK(hipGetLastError());
  std::vector<float> got = from_device(dout, kOutputs * threads), want(got.size());
  const int warp = 32;
  for (int t = 0; t < threads; ++t) {
    int lane = t % warp, base = t - lane;
    float* w = &want[kOutputs * t];
    w[0] = 0.5f * (base + (lane + 3) % warp);
    int down = lane % 16 + 1 < 16 ? t + 1 : t;  // within the 16-lane segment
    w[1] = static_cast<float>(down);
    w[2] = -static_cast<float>(down);
    w[3] = 0.5f * (base + (lane ^ 5));
    int up = lane >= 2 ? t - 2 : t;
    w[4] = static_cast<float>(up);
    w[5] = 0.5f * (t - lane % 8);  // lane 0 of each 8-lane segment
  }
  int bad = count_mismatches("half shuffles", got, want);
  HIP_CHECK(hipFree(dout));
  return report("half_shuffles", bad);
}
