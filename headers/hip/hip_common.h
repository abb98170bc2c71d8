// What every HIP header needs first: the platform macros hipcc defines for a SPIR-V platform, and
// the device's feature macros (__HIP_ARCH_HAS_*__).
//
// hipmlir compiles device code for OpenCL devices that take SPIR-V and for NVIDIA GPUs (PTX); the
// AMD and NVIDIA platform macros stay undefined (programs choose their HIP code paths by them).
// __HIP_DEVICE_COMPILE__ is defined by the device parse only.
#ifndef HIPMLIR_HIP_COMMON_H
#define HIPMLIR_HIP_COMMON_H

#ifndef __HIPCC__
#define __HIPCC__ 1
#endif
#ifndef __HIP_PLATFORM_SPIRV__
#define __HIP_PLATFORM_SPIRV__ 1
#endif
#define __HIPMLIR__ 1

// Programs test `defined(__HIP_PLATFORM_HCC__) || defined(__HIP_PLATFORM_AMD__)` for AMD-only
// code (inline assembly, __builtin_amdgcn_*): neither is defined here.

// The device's features, as HIP spells them: 1 where every device hipmlir compiles for has the
// feature (the SPIR-V and PTX lowerings implement it), 0 where none has. As ROCm does, the host
// side of a compile sees them all 0.
#if defined(__HIP_DEVICE_COMPILE__)
// 32-bit atomics: integer atomics and float exchange on global and shared memory, float add.
#define __HIP_ARCH_HAS_GLOBAL_INT32_ATOMICS__ (1)
#define __HIP_ARCH_HAS_GLOBAL_FLOAT_ATOMIC_EXCH__ (1)
#define __HIP_ARCH_HAS_SHARED_INT32_ATOMICS__ (1)
#define __HIP_ARCH_HAS_SHARED_FLOAT_ATOMIC_EXCH__ (1)
#define __HIP_ARCH_HAS_FLOAT_ATOMIC_ADD__ (1)
// 64-bit integer atomics on global and shared memory.
#define __HIP_ARCH_HAS_GLOBAL_INT64_ATOMICS__ (1)
#define __HIP_ARCH_HAS_SHARED_INT64_ATOMICS__ (1)
// Double precision.
#define __HIP_ARCH_HAS_DOUBLES__ (1)
// Warp votes (__all, __any), ballots, shuffles and funnel shifts.
#define __HIP_ARCH_HAS_WARP_VOTE__ (1)
#define __HIP_ARCH_HAS_WARP_BALLOT__ (1)
#define __HIP_ARCH_HAS_WARP_SHUFFLE__ (1)
#define __HIP_ARCH_HAS_WARP_FUNNEL_SHIFT__ (1)
// __threadfence_system and __syncthreads_count/_and/_or.
#define __HIP_ARCH_HAS_THREAD_FENCE_SYSTEM__ (1)
#define __HIP_ARCH_HAS_SYNC_THREAD_EXT__ (1)
// Surface reads and writes (hipmlir_surface.h).
#define __HIP_ARCH_HAS_SURFACE_FUNCS__ (1)
// 3-D grids and blocks.
#define __HIP_ARCH_HAS_3DGRID__ (1)
// Kernels launching kernels: no.
#define __HIP_ARCH_HAS_DYNAMIC_PARALLEL__ (0)
#else
#define __HIP_ARCH_HAS_GLOBAL_INT32_ATOMICS__ (0)
#define __HIP_ARCH_HAS_GLOBAL_FLOAT_ATOMIC_EXCH__ (0)
#define __HIP_ARCH_HAS_SHARED_INT32_ATOMICS__ (0)
#define __HIP_ARCH_HAS_SHARED_FLOAT_ATOMIC_EXCH__ (0)
#define __HIP_ARCH_HAS_FLOAT_ATOMIC_ADD__ (0)
#define __HIP_ARCH_HAS_GLOBAL_INT64_ATOMICS__ (0)
#define __HIP_ARCH_HAS_SHARED_INT64_ATOMICS__ (0)
#define __HIP_ARCH_HAS_DOUBLES__ (0)
#define __HIP_ARCH_HAS_WARP_VOTE__ (0)
#define __HIP_ARCH_HAS_WARP_BALLOT__ (0)
#define __HIP_ARCH_HAS_WARP_SHUFFLE__ (0)
#define __HIP_ARCH_HAS_WARP_FUNNEL_SHIFT__ (0)
#define __HIP_ARCH_HAS_THREAD_FENCE_SYSTEM__ (0)
#define __HIP_ARCH_HAS_SYNC_THREAD_EXT__ (0)
#define __HIP_ARCH_HAS_SURFACE_FUNCS__ (0)
#define __HIP_ARCH_HAS_3DGRID__ (0)
#define __HIP_ARCH_HAS_DYNAMIC_PARALLEL__ (0)
#endif

// Default arguments of the C functions, in C++ only.
#ifdef __cplusplus
#define HIPMLIR_DEFAULT(value) = value
#else
#define HIPMLIR_DEFAULT(value)
#endif

#endif  // HIPMLIR_HIP_COMMON_H
