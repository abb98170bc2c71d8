// HIP's __HIP_ARCH_HAS_*__ macros: in device code they tell what the device supports, and each
// feature they claim is used under its macro here (shared 64-bit atomics, float atomic add and
// exchange, warp votes, ballots, shuffles and funnel shifts, the __syncthreads votes, a 3-D grid)
// with its result checked; hipDeviceProp_t.arch reports the same bits, and host code sees them
// all 0, as with ROCm.
#include "test_common.h"

#include <cstdint>

constexpr int kMacros = 17;

#if !defined(__HIP_DEVICE_COMPILE__) && (__HIP_ARCH_HAS_GLOBAL_INT32_ATOMICS__ || __HIP_ARCH_HAS_DOUBLES__)
#error "host code sees the device feature macros as 0"
#endif

__global__ void features(int* macros, long long* results, float* fresults) {
  __shared__ unsigned long long shared64;
  __shared__ float shared_f;
  unsigned int rank = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  if (rank == 0) {
    shared64 = 0;
    shared_f = 0.0f;
  }
  __syncthreads();
  if (block == 0 && rank == 0) {
    const int values[kMacros] = {
        __HIP_ARCH_HAS_GLOBAL_INT32_ATOMICS__, __HIP_ARCH_HAS_GLOBAL_FLOAT_ATOMIC_EXCH__,
        __HIP_ARCH_HAS_SHARED_INT32_ATOMICS__, __HIP_ARCH_HAS_SHARED_FLOAT_ATOMIC_EXCH__,
        __HIP_ARCH_HAS_FLOAT_ATOMIC_ADD__,     __HIP_ARCH_HAS_GLOBAL_INT64_ATOMICS__,
        __HIP_ARCH_HAS_SHARED_INT64_ATOMICS__, __HIP_ARCH_HAS_DOUBLES__,
        __HIP_ARCH_HAS_WARP_VOTE__,            __HIP_ARCH_HAS_WARP_BALLOT__,
        __HIP_ARCH_HAS_WARP_SHUFFLE__,         __HIP_ARCH_HAS_WARP_FUNNEL_SHIFT__,
        __HIP_ARCH_HAS_THREAD_FENCE_SYSTEM__,  __HIP_ARCH_HAS_SYNC_THREAD_EXT__,
        __HIP_ARCH_HAS_SURFACE_FUNCS__,        __HIP_ARCH_HAS_3DGRID__,
        __HIP_ARCH_HAS_DYNAMIC_PARALLEL__};
    for (int k = 0; k < kMacros; ++k) macros[k] = values[k];
  }
  unsigned int lane = rank % 32u;
#if __HIP_ARCH_HAS_SHARED_INT64_ATOMICS__ && __HIP_ARCH_HAS_GLOBAL_INT64_ATOMICS__
  atomicAdd(&shared64, 1ull << 33);
#endif
#if __HIP_ARCH_HAS_FLOAT_ATOMIC_ADD__ && __HIP_ARCH_HAS_SHARED_FLOAT_ATOMIC_EXCH__
  atomicAdd(&shared_f, 0.5f);
#endif
#if __HIP_ARCH_HAS_SYNC_THREAD_EXT__
  int odd = __syncthreads_count(rank & 1u);
#else
  __syncthreads();
  int odd = 0;
#endif
  if (rank == 0) {
#if __HIP_ARCH_HAS_GLOBAL_INT64_ATOMICS__
    atomicAdd(reinterpret_cast<unsigned long long*>(&results[0]), shared64);
#endif
#if __HIP_ARCH_HAS_GLOBAL_FLOAT_ATOMIC_EXCH__
    atomicExch(&fresults[block], shared_f);
#endif
    atomicAdd(reinterpret_cast<unsigned long long*>(&results[1]),
              static_cast<unsigned long long>(odd));
  }
#if __HIP_ARCH_HAS_WARP_VOTE__ && __HIP_ARCH_HAS_WARP_BALLOT__ && __HIP_ARCH_HAS_WARP_SHUFFLE__
  // Per warp: whether all lanes are below 32, how many have an even lane, lane 0's rank.
  int all = __all(lane < 32u);
  unsigned long long even = __ballot((lane & 1u) == 0u);
  unsigned int first = __shfl(rank, 0);
  if (lane == 0 && block == 0) {
    atomicAdd(reinterpret_cast<unsigned long long*>(&results[2]),
              static_cast<unsigned long long>(all + __popcll(even) + (first == rank ? 1 : 0)));
  }
#endif
#if __HIP_ARCH_HAS_WARP_FUNNEL_SHIFT__
  if (block == 0 && rank == 0) results[3] = __funnelshift_l(0x89abcdefu, 0x01234567u, 8);
#endif
#if __HIP_ARCH_HAS_3DGRID__
  if (rank == 0) atomicAdd(reinterpret_cast<unsigned long long*>(&results[4]), 1ull + blockIdx.z);
#endif
}

int main() {
  hipDeviceProp_t prop;
  HIP_CHECK(hipGetDeviceProperties(&prop, 0));
  const dim3 grid(2, 2, 3), block(8, 4, 2);  // 64 threads: two warps per block
  const int blocks = 12, threads = 64;
  int* dmacros;
  long long* dresults;
  float* dfresults;
  HIP_CHECK(hipMalloc(&dmacros, sizeof(int) * kMacros));
  HIP_CHECK(hipMalloc(&dresults, sizeof(long long) * 5));
  HIP_CHECK(hipMalloc(&dfresults, sizeof(float) * blocks));
  HIP_CHECK(hipMemset(dresults, 0, sizeof(long long) * 5));
  HIP_CHECK(hipMemset(dfresults, 0, sizeof(float) * blocks));
  features<<<grid, block>>>(dmacros, dresults, dfresults);
  HIP_CHECK(hipGetLastError());
  std::vector<int> macros = from_device(dmacros, kMacros);
  std::vector<long long> results = from_device(dresults, 5);
  std::vector<float> fresults = from_device(dfresults, blocks);

  // What hipmlir's device code has: everything but dynamic parallelism.
  const int want_macros[kMacros] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0};
  const unsigned arch_bits[kMacros] = {
      prop.arch.hasGlobalInt32Atomics, prop.arch.hasGlobalFloatAtomicExch,
      prop.arch.hasSharedInt32Atomics, prop.arch.hasSharedFloatAtomicExch,
      prop.arch.hasFloatAtomicAdd,     prop.arch.hasGlobalInt64Atomics,
      prop.arch.hasSharedInt64Atomics, prop.arch.hasDoubles,
      prop.arch.hasWarpVote,           prop.arch.hasWarpBallot,
      prop.arch.hasWarpShuffle,        prop.arch.hasFunnelShift,
      prop.arch.hasThreadFenceSystem,  prop.arch.hasSyncThreadsExt,
      prop.arch.hasSurfaceFuncs,       prop.arch.has3dGrid,
      prop.arch.hasDynamicParallelism};
  int bad = 0;
  for (int k = 0; k < kMacros; ++k) {
    if (macros[k] != want_macros[k] || static_cast<int>(arch_bits[k]) != want_macros[k]) {
      std::printf("feature %d: macro %d, hipDeviceProp_t.arch %u, want %d\n", k, macros[k],
                  arch_bits[k], want_macros[k]);
      ++bad;
    }
  }
  const long long total_threads = static_cast<long long>(blocks) * threads;
  const long long want_results[5] = {
      total_threads << 33,                       // shared 64-bit atomics, summed per block
      total_threads / 2,                          // odd ranks counted by __syncthreads_count
      2 * (1 + 16 + 1),                           // two warps in block 0: all, even lanes, lane 0
      static_cast<long long>(0x23456789u),        // the upper half of (hi:lo << 8)
      4 * (1 + 2 + 3)};                           // four blocks in each of three z slices
  for (int k = 0; k < 5; ++k) {
    if (results[k] != want_results[k]) {
      std::printf("result %d: got %lld, want %lld\n", k, results[k], want_results[k]);
      ++bad;
    }
  }
  for (int b = 0; b < blocks; ++b) {
    if (fresults[b] != 0.5f * threads) {
      std::printf("block %d: shared float sum %g\n", b, fresults[b]);
      ++bad;
    }
  }
  HIP_CHECK(hipFree(dmacros));
  HIP_CHECK(hipFree(dresults));
  HIP_CHECK(hipFree(dfresults));
  return report("device_feature_macros", bad);
}
