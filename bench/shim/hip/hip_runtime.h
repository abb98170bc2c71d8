// A minimal HIP device header for the bench's reference build of bench/kernels/*.hip by clang-22
// (`-x hip --offload=spirv64 --cuda-device-only -nogpuinc -fdeclspec`, then llc-22 to SPIR-V). It is
// not hipmlir's header (headers/hip is): it maps the HIP builtins the bench kernels use onto the
// OpenCL builtins that LLVM's SPIR-V backend recognizes by their mangled names, and nothing more.
#pragma once
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __forceinline__ inline __attribute__((always_inline))

__device__ unsigned long get_local_id(unsigned int);
__device__ unsigned long get_group_id(unsigned int);
__device__ unsigned long get_local_size(unsigned int);
__device__ unsigned long get_num_groups(unsigned int);
__device__ void barrier(unsigned int);

#define __HIPSHIM_VAR(NAME, FN)                                                                  \
  struct __hipshim_##NAME {                                                                      \
    __declspec(property(get = gx)) unsigned int x;                                               \
    __declspec(property(get = gy)) unsigned int y;                                               \
    __declspec(property(get = gz)) unsigned int z;                                               \
    static __device__ __forceinline__ unsigned int gx() { return (unsigned int)FN(0); }          \
    static __device__ __forceinline__ unsigned int gy() { return (unsigned int)FN(1); }          \
    static __device__ __forceinline__ unsigned int gz() { return (unsigned int)FN(2); }          \
  };                                                                                             \
  extern const __device__ __attribute__((weak)) __hipshim_##NAME NAME;

__HIPSHIM_VAR(threadIdx, get_local_id)
__HIPSHIM_VAR(blockIdx, get_group_id)
__HIPSHIM_VAR(blockDim, get_local_size)
__HIPSHIM_VAR(gridDim, get_num_groups)

// CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE
__device__ __forceinline__ void __syncthreads() { barrier(3); }

// No atomics: clang's atomics on HIP's generic pointers reach Intel's CPU runtime as generic
// legacy atomics it does not provide, and dispatching on the address space at run time
// (to_local/to_global) lost increments now and then on that runtime. A kernel using atomicAdd
// therefore fails to compile here, and the report says so, rather than give a flaky reference.
