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

// Atomics: clang's atomicrmw on a generic pointer reaches Intel's runtime as a generic legacy
// atomic it does not provide, so dispatch on the address space at run time (to_local/to_global
// are OpGenericCastToPtrExplicit) and use the address-space-specific atomic builtins.
#define __HIPSHIM_AS1 __attribute__((address_space(1)))
#define __HIPSHIM_AS3 __attribute__((address_space(3)))
__device__ __HIPSHIM_AS3 void* to_local(void*);
__device__ __HIPSHIM_AS1 void* to_global(void*);
__device__ int atomic_add(volatile __HIPSHIM_AS1 int*, int);
__device__ int atomic_add(volatile __HIPSHIM_AS3 int*, int);
__device__ unsigned int atomic_add(volatile __HIPSHIM_AS1 unsigned int*, unsigned int);
__device__ unsigned int atomic_add(volatile __HIPSHIM_AS3 unsigned int*, unsigned int);
template <typename T>
__device__ __forceinline__ T __hipshim_atomic_add(T* p, T v) {
  if (__HIPSHIM_AS3 void* l = to_local(p)) return atomic_add((volatile __HIPSHIM_AS3 T*)l, v);
  return atomic_add((volatile __HIPSHIM_AS1 T*)to_global(p), v);
}
__device__ __forceinline__ unsigned int atomicAdd(unsigned int* p, unsigned int v) {
  return __hipshim_atomic_add(p, v);
}
__device__ __forceinline__ int atomicAdd(int* p, int v) { return __hipshim_atomic_add(p, v); }
