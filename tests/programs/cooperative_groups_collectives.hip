// Cooperative groups' collectives as programs call them (hip/cooperative_groups/hip_reduce.h and
// hip_scan.h): cg::reduce, cg::inclusive_scan and cg::exclusive_scan over tiles of several sizes
// and over coalesced groups, with cg::plus/less/greater/bit_* functors and device lambdas, and
// kernels templated on the tile size (a 64-wide instance compiled, never launched, as programs do
// that pick the tile by the device's warpSize).
#include "test_common.h"

#include <hip/cooperative_groups/hip_reduce.h>
#include <hip/cooperative_groups/hip_scan.h>
#include <hip/hip_cooperative_groups.h>

namespace cg = cooperative_groups;

struct Out {
  int sum, min, max, bits, custom;
  int inclusive, exclusive, max_scan;
};

template <unsigned int Tile>
__global__ void tile_collectives(const int* in, Out* out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<Tile> tile = cg::tiled_partition<Tile>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  Out r;
  r.sum = cg::reduce(tile, v, cg::plus<int>());
  r.min = cg::reduce(tile, v, cg::less<int>());
  r.max = cg::reduce(tile, v, cg::greater<int>());
  r.bits = cg::reduce(tile, v & 0xff, cg::bit_or<int>()) ^ cg::reduce(tile, v, cg::bit_xor<int>());
  r.custom = cg::reduce(tile, v, [](int a, int b) { return a + 2 * b; } ) * 0 +
             cg::reduce(tile, v * v);
  r.inclusive = cg::inclusive_scan(tile, v);
  r.exclusive = cg::exclusive_scan(tile, v);
  r.max_scan = cg::inclusive_scan(tile, v, cg::greater<int>());
  if (i < n) out[i] = r;
}

// The lanes whose value is even form a coalesced group; so do the odd ones.
__global__ void coalesced_collectives(const int* in, int* sums, int* scans, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  if (v % 2 == 0) {
    cg::coalesced_group even = cg::coalesced_threads();
    sums[i] = cg::reduce(even, v);
    scans[i] = cg::inclusive_scan(even, v);
  } else {
    cg::coalesced_group odd = cg::coalesced_threads();
    sums[i] = cg::reduce(odd, v, cg::plus<int>());
    scans[i] = cg::exclusive_scan(odd, v);
  }
}

template <unsigned int Tile>
int check_tiles(const std::vector<int>& in, const std::vector<Out>& got) {
  int bad = 0;
  const int n = static_cast<int>(in.size());
  for (int start = 0; start < n; start += Tile) {
    int sum = 0, mn = in[start], mx = in[start], ors = 0, xors = 0, squares = 0;
    for (unsigned int k = 0; k < Tile; ++k) {
      int v = in[start + k];
      sum += v;
      mn = std::min(mn, v);
      mx = std::max(mx, v);
      ors |= v & 0xff;
      xors ^= v;
      squares += v * v;
    }
    int running = 0, running_max = in[start];
    for (unsigned int k = 0; k < Tile; ++k) {
      const Out& r = got[start + k];
      int v = in[start + k];
      int exclusive = running;
      running += v;
      running_max = std::max(running_max, v);
      bool ok = r.sum == sum && r.min == mn && r.max == mx && r.bits == (ors ^ xors) &&
                r.custom == squares && r.inclusive == running && r.exclusive == exclusive &&
                r.max_scan == running_max;
      if (!ok) {
        if (bad < 5) std::printf("tile %u: mismatch at %u\n", Tile, start + k);
        ++bad;
      }
    }
  }
  return bad;
}

template <unsigned int Tile>
int run_tiles(const std::vector<int>& in, const int* d_in, Out* d_out) {
  const int n = static_cast<int>(in.size());
  tile_collectives<Tile><<<n / 64, 64>>>(d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  return check_tiles<Tile>(in, from_device(d_out, n));
}

int main() {
  const int n = 256;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37 + 11) % 101 - 40;
  int* d_in = to_device(in);
  Out* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(Out)));
  hipDeviceProp_t prop;
  HIP_CHECK(hipGetDeviceProperties(&prop, 0));
  int bad = run_tiles<4>(in, d_in, d_out) + run_tiles<8>(in, d_in, d_out) +
            run_tiles<16>(in, d_in, d_out);
  // Programs instantiate both warp widths and launch the device's.
  bad += prop.warpSize == 64 ? run_tiles<64>(in, d_in, d_out) : run_tiles<32>(in, d_in, d_out);

  int *d_sums = nullptr, *d_scans = nullptr;
  HIP_CHECK(hipMalloc(&d_sums, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_scans, n * sizeof(int)));
  const int block = prop.warpSize;
  coalesced_collectives<<<n / block, block>>>(d_in, d_sums, d_scans, n);
  HIP_CHECK(hipGetLastError());
  std::vector<int> sums = from_device(d_sums, n), scans = from_device(d_scans, n);
  std::vector<int> want_sums(n), want_scans(n);
  for (int w = 0; w < n; w += block) {
    for (int parity = 0; parity < 2; ++parity) {
      int total = 0, running = 0;
      for (int k = w; k < w + block; ++k) {
        if ((in[k] % 2 != 0) == (parity == 1)) total += in[k];
      }
      for (int k = w; k < w + block; ++k) {
        if ((in[k] % 2 != 0) != (parity == 1)) continue;
        want_sums[k] = total;
        // Even lanes: inclusive; odd lanes: exclusive.
        want_scans[k] = parity == 0 ? running + in[k] : running;
        running += in[k];
      }
    }
  }
  bad += count_mismatches("coalesced reduce", sums, want_sums);
  bad += count_mismatches("coalesced scan", scans, want_scans);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_sums));
  HIP_CHECK(hipFree(d_scans));
  if (bad) {
    std::printf("FAILED: %d mismatches\n", bad);
    return 1;
  }
  std::printf("PASSED\n");
  return 0;
}
