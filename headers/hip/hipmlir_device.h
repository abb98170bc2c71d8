// Device-side HIP language: function and variable qualifiers and the work-item builtins.
//
// hipmlir's frontend recognizes these declarations by name (threadIdx.x becomes gpu.thread_id x,
// warpSize the subgroup size); they have no definitions anywhere.
#ifndef HIPMLIR_DEVICE_H
#define HIPMLIR_DEVICE_H

#if defined(__HIP__) || defined(__CUDA__)
// clang in HIP mode knows the CUDA/HIP attributes.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#else
// The host compiler sees only host code and kernel stubs.
#define __global__
#define __device__
#define __host__
#define __shared__
#define __constant__
#define __managed__
#endif

#define __forceinline__ inline __attribute__((always_inline))
// clang knows __noinline__ as a keyword in HIP mode. For the host compiler it must expand to
// nothing: libc++ writes __attribute__((__noinline__)), and __attribute__(()) stays valid.
#if !defined(__HIP__) && !defined(__CUDA__) && !defined(__noinline__)
#define __noinline__
#endif
// The device parse reads a kernel's bounds (the most threads a block may have) into its
// metadata, and the runtime refuses larger blocks as HIP does; the host compiler needs nothing.
#if defined(__HIP__) || defined(__CUDA__)
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#else
#define __launch_bounds__(...)
#endif
#define __align__(n) __attribute__((aligned(n)))
#ifndef __restrict__
#define __restrict__ __restrict
#endif

// The unsigned 3-vector type of threadIdx, blockIdx, blockDim and gridDim.
struct __hipmlir_uint3 {
  unsigned int x, y, z;
};

#if defined(__HIP_DEVICE_COMPILE__)
extern __device__ const __hipmlir_uint3 threadIdx;
extern __device__ const __hipmlir_uint3 blockIdx;
extern __device__ const __hipmlir_uint3 blockDim;
extern __device__ const __hipmlir_uint3 gridDim;
extern __device__ const int warpSize;

// printf from kernels: OpenCL's printf; the output appears by the next synchronization.
extern "C" __device__ int printf(const char* format, ...);

// Synchronization. The _count/_and/_or forms also reduce a predicate over the block.
__device__ void __syncthreads(void);
__device__ int __syncthreads_count(int predicate);
__device__ int __syncthreads_and(int predicate);
__device__ int __syncthreads_or(int predicate);
__device__ void __threadfence(void);
__device__ void __threadfence_block(void);
__device__ void __threadfence_system(void);

// Atomics: each returns the old value. The _block and _system forms narrow or widen the scope.
#define HIPMLIR_ATOMIC(name, T)                 \
  __device__ T name(T* address, T value);       \
  __device__ T name##_block(T* address, T value); \
  __device__ T name##_system(T* address, T value);
#define HIPMLIR_ATOMIC_INTEGERS(name)            \
  HIPMLIR_ATOMIC(name, int)                      \
  HIPMLIR_ATOMIC(name, unsigned int)             \
  HIPMLIR_ATOMIC(name, unsigned long)            \
  HIPMLIR_ATOMIC(name, unsigned long long)       \
  HIPMLIR_ATOMIC(name, long long)
HIPMLIR_ATOMIC_INTEGERS(atomicAdd)
HIPMLIR_ATOMIC(atomicAdd, float)
HIPMLIR_ATOMIC(atomicAdd, double)
HIPMLIR_ATOMIC_INTEGERS(atomicSub)
HIPMLIR_ATOMIC(atomicSub, float)
HIPMLIR_ATOMIC(atomicSub, double)
HIPMLIR_ATOMIC_INTEGERS(atomicExch)
HIPMLIR_ATOMIC(atomicExch, float)
HIPMLIR_ATOMIC(atomicExch, double)
HIPMLIR_ATOMIC_INTEGERS(atomicMin)
HIPMLIR_ATOMIC(atomicMin, float)
HIPMLIR_ATOMIC(atomicMin, double)
HIPMLIR_ATOMIC_INTEGERS(atomicMax)
HIPMLIR_ATOMIC(atomicMax, float)
HIPMLIR_ATOMIC(atomicMax, double)
HIPMLIR_ATOMIC_INTEGERS(atomicAnd)
HIPMLIR_ATOMIC_INTEGERS(atomicOr)
HIPMLIR_ATOMIC_INTEGERS(atomicXor)
HIPMLIR_ATOMIC(atomicInc, unsigned int)
HIPMLIR_ATOMIC(atomicDec, unsigned int)
#undef HIPMLIR_ATOMIC_INTEGERS
#undef HIPMLIR_ATOMIC
#define HIPMLIR_ATOMIC_CAS(T)                                  \
  __device__ T atomicCAS(T* address, T compare, T value);        \
  __device__ T atomicCAS_block(T* address, T compare, T value);  \
  __device__ T atomicCAS_system(T* address, T compare, T value);
HIPMLIR_ATOMIC_CAS(int)
HIPMLIR_ATOMIC_CAS(unsigned int)
HIPMLIR_ATOMIC_CAS(unsigned long)
HIPMLIR_ATOMIC_CAS(unsigned long long)
HIPMLIR_ATOMIC_CAS(long long)
#undef HIPMLIR_ATOMIC_CAS

// Warp (subgroup) operations. warpSize is 32: hipmlir compiles kernels for 32-wide subgroups.
#define HIPMLIR_SHUFFLES(T)                                                      \
  __device__ T __shfl(T var, int src_lane);                                      \
  __device__ T __shfl(T var, int src_lane, int width);                           \
  __device__ T __shfl_up(T var, unsigned int delta);                             \
  __device__ T __shfl_up(T var, unsigned int delta, int width);                  \
  __device__ T __shfl_down(T var, unsigned int delta);                           \
  __device__ T __shfl_down(T var, unsigned int delta, int width);                \
  __device__ T __shfl_xor(T var, int lane_mask);                                 \
  __device__ T __shfl_xor(T var, int lane_mask, int width);                      \
  __device__ T __shfl_sync(unsigned long long mask, T var, int src_lane);        \
  __device__ T __shfl_sync(unsigned long long mask, T var, int src_lane, int width); \
  __device__ T __shfl_up_sync(unsigned long long mask, T var, unsigned int delta); \
  __device__ T __shfl_up_sync(unsigned long long mask, T var, unsigned int delta, int width); \
  __device__ T __shfl_down_sync(unsigned long long mask, T var, unsigned int delta); \
  __device__ T __shfl_down_sync(unsigned long long mask, T var, unsigned int delta, int width); \
  __device__ T __shfl_xor_sync(unsigned long long mask, T var, int lane_mask);   \
  __device__ T __shfl_xor_sync(unsigned long long mask, T var, int lane_mask, int width);
HIPMLIR_SHUFFLES(int)
HIPMLIR_SHUFFLES(unsigned int)
HIPMLIR_SHUFFLES(long)
HIPMLIR_SHUFFLES(unsigned long)
HIPMLIR_SHUFFLES(long long)
HIPMLIR_SHUFFLES(unsigned long long)
HIPMLIR_SHUFFLES(float)
HIPMLIR_SHUFFLES(double)
#undef HIPMLIR_SHUFFLES
__device__ unsigned long long __ballot(int predicate);
__device__ unsigned long long __ballot_sync(unsigned long long mask, int predicate);
__device__ int __any(int predicate);
__device__ int __all(int predicate);
__device__ int __any_sync(unsigned long long mask, int predicate);
__device__ int __all_sync(unsigned long long mask, int predicate);
__device__ unsigned long long __activemask(void);
__device__ void __syncwarp(void);
__device__ void __syncwarp(unsigned long long mask);
__device__ unsigned int __lane_id(void);

// The device's clocks: a counter of clock cycles (clock64, __clock64, __clock and clock; what
// hipDeviceAttributeClockInstructionRate states) and a constant-rate wall clock (wall_clock64;
// hipDeviceAttributeWallClockRate). SPIR-V reads both through OpReadClockKHR (the device's
// clock), PTX through %clock64 and %globaltimer.
__device__ long long int clock64(void);
__device__ long long int __clock64(void);
__device__ long long int __clock(void);
__device__ unsigned long long int wall_clock64(void);
#include <time.h>
// Device code's clock(): a device overload of the C library's host function (clang tells the
// two apart by their __device__ and __host__ targets; the type is <time.h>'s clock_t).
__device__ clock_t clock(void);
#endif

#if defined(__HIP__)
// clang checks `k<<<grid, block, shmem, stream>>>(args)` against this declaration in the device
// parse. On the host the runtime exports it: launches become a push of the configuration and a
// call of the kernel's host stub, which pops it (hipmlir_launch.h).
extern "C" hipError_t __hipPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0,
                                                 hipStream_t stream = 0);
#endif

// Dynamic shared memory, sized by the launch's shared-memory argument.
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)

#endif  // HIPMLIR_DEVICE_H
