// Warp operations: shuffles (all four kinds, full width and segments), ballot, any/all,
// activemask, lane ids and warpSize, and a warp-shuffle reduction as real kernels write it.
#include "test_common.h"

__device__ float warp_sum(float v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);
  return v;
}

__global__ void warp_kernel(const int* in, int* out, float* sums, unsigned long long* votes,
                            int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  int v = i < n ? in[i] : 0;
  int* o = out + 8 * i;
  o[0] = __shfl(v, 3);              // everyone reads lane 3
  o[1] = __shfl(v, lane + 1, 8);    // rotate within segments of 8
  o[2] = __shfl_up(v, 2);
  o[3] = __shfl_down(v, 5, 16);
  o[4] = __shfl_xor(v, 1);
  o[5] = __shfl_xor(v, 4, 4);       // partner outside the 4-wide segment: keep own value
  o[6] = __lane_id() * 100 + warpSize;
  o[7] = __any(v % 7 == 0) * 10 + __all(v >= 0);
  float s = warp_sum(static_cast<float>(v));
  if (lane == 0) sums[i / warpSize] = s;
  unsigned long long ballot = __ballot(v % 3 == 0);
  if (lane == 0) votes[2 * (i / warpSize)] = ballot;
  if (lane % 2 == 0) {
    unsigned long long active = __activemask();
    if (lane == 0) votes[2 * (i / warpSize) + 1] = active;
  }
}

// A 2-D block: HIP's lanes follow the x-fastest linear thread index, so in an 8x4 block lane
// ^ 8 is the thread one row further in the same column.
__global__ void rows_2d(const int* in, int* out) {
  int linear = threadIdx.y * blockDim.x + threadIdx.x;
  int id = blockIdx.x * blockDim.x * blockDim.y + linear;
  int v = in[id];
  out[3 * id] = __shfl_xor(v, 8);
  out[3 * id + 1] = __lane_id();
  out[3 * id + 2] = static_cast<int>(threadIdx.x * 100 + threadIdx.y * 10 + blockDim.y);
}

// Shuffles in code that only part of the warp runs: each half swaps with its neighbour lane,
// reading only lanes of its own half (HIP leaves reads of inactive lanes undefined).
__global__ void divergent_shuffles(const int* in, int* out) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % 32;
  int v = in[id];
  if (lane < 16) {
    v = __shfl(v, lane ^ 1) + 1000;
  } else if (lane % 4 == 0) {
    v = __shfl_xor(v, 0) + 2000;
  }
  out[id] = v;
}

int main() {
  hipDeviceProp_t props;
  HIP_CHECK(hipGetDeviceProperties(&props, 0));
  const int ws = props.warpSize;
  if (ws != 32) {
    std::printf("warp_ops FAILED: warpSize %d, expected 32\n", ws);
    return 1;
  }
  const int n = 1024;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 101;
  std::vector<int> want(8 * n);
  std::vector<float> want_sums(n / ws, 0.0f);
  std::vector<unsigned long long> want_votes(2 * (n / ws), 0);
  for (int i = 0; i < n; ++i) {
    int lane = i % ws, base = i - lane;
    auto at = [&](int l) { return in[base + l]; };
    int* o = &want[8 * i];
    o[0] = at(3);
    o[1] = at((lane & ~7) + ((lane + 1) & 7));
    o[2] = lane < 2 ? at(lane) : at(lane - 2);
    o[3] = (lane & 15) + 5 >= 16 ? at(lane) : at(lane + 5);
    o[4] = at(lane ^ 1);
    o[5] = at(lane);
    o[6] = lane * 100 + 32;
    bool any = false, all = true;
    for (int l = 0; l < ws; ++l) {
      any |= at(l) % 7 == 0;
      all &= at(l) >= 0;
    }
    o[7] = any * 10 + all;
    want_sums[i / ws] += static_cast<float>(in[i]);
    if (in[i] % 3 == 0) want_votes[2 * (i / ws)] |= 1ull << lane;
    if (lane % 2 == 0) want_votes[2 * (i / ws) + 1] |= 1ull << lane;
  }
  int* d_in = to_device(in);
  int* d_out = nullptr;
  float* d_sums = nullptr;
  unsigned long long* d_votes = nullptr;
  HIP_CHECK(hipMalloc(&d_out, 8 * n * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_sums, n / ws * sizeof(float)));
  HIP_CHECK(hipMalloc(&d_votes, 2 * (n / ws) * sizeof(unsigned long long)));
  warp_kernel<<<n / 128, 128>>>(d_in, d_out, d_sums, d_votes, n);
  HIP_CHECK(hipGetLastError());
  int bad = count_mismatches("shuffles", from_device(d_out, 8 * n), want);
  bad += count_mismatches("warp sums", from_device(d_sums, n / ws), want_sums);
  bad += count_mismatches("ballots", from_device(d_votes, 2 * (n / ws)), want_votes);
  // 2-D blocks of 8x4 threads, 4 blocks.
  const int per_block = 32, blocks2d = 4;
  std::vector<int> in2(per_block * blocks2d), want2(3 * per_block * blocks2d);
  for (int i = 0; i < per_block * blocks2d; ++i) in2[i] = i * 7 + 1;
  for (int b = 0; b < blocks2d; ++b)
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 8; ++x) {
        int lin = y * 8 + x, id = b * per_block + lin;
        want2[3 * id] = in2[b * per_block + (lin ^ 8)];
        want2[3 * id + 1] = lin;
        want2[3 * id + 2] = x * 100 + y * 10 + 4;
      }
  int* d_in2 = to_device(in2);
  int* d_out2 = nullptr;
  HIP_CHECK(hipMalloc(&d_out2, want2.size() * sizeof(int)));
  rows_2d<<<blocks2d, dim3(8, 4)>>>(d_in2, d_out2);
  HIP_CHECK(hipGetLastError());
  bad += count_mismatches("2-D block shuffles", from_device(d_out2, want2.size()), want2);
  HIP_CHECK(hipFree(d_in2));
  HIP_CHECK(hipFree(d_out2));

  // Divergent shuffles finish (under a whole-warp mask a GPU would wait for lanes that never
  // come) and read the lanes asked for.
  {
    const int m = 256;
    std::vector<int> vin(m), vwant(m);
    for (int i = 0; i < m; ++i) vin[i] = i * 13 + 5;
    for (int i = 0; i < m; ++i) {
      int lane = i % 32;
      vwant[i] = lane < 16 ? vin[i - lane + (lane ^ 1)] + 1000
                           : (lane % 4 == 0 ? vin[i] + 2000 : vin[i]);
    }
    int* d_vin = to_device(vin);
    int* d_vout = nullptr;
    HIP_CHECK(hipMalloc(&d_vout, m * sizeof(int)));
    divergent_shuffles<<<m / 64, 64>>>(d_vin, d_vout);
    HIP_CHECK(hipGetLastError());
    bad += count_mismatches("divergent shuffles", from_device(d_vout, m), vwant);
    HIP_CHECK(hipFree(d_vin));
    HIP_CHECK(hipFree(d_vout));
  }

  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_sums));
  HIP_CHECK(hipFree(d_votes));
  return report("warp_ops", bad);
}
