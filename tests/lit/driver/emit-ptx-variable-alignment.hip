// RUN: hipmlir %s --emit-ptx --offload-arch=sm_90 -o - | FileCheck %s

// Device variables are aligned as their types are (clang's alignof), as nvcc aligns them: a
// variable's bytes are an array of i8, which alone would be aligned to 1, so a vector load of
// a float4 variable could fault.

#include <hip/hip_runtime.h>

struct alignas(16) Packet {
  float lanes[4];
};

// CHECK-DAG: .visible .global .align 4 .b8 weights[32]
__device__ float weights[8] = {1, 2, 3, 4, 5, 6, 7, 8};
// CHECK-DAG: .visible .global .align 16 .b8 packets[64]
__device__ Packet packets[4];
// CHECK-DAG: .visible .global .align 16 .b8 vectors[32]
__device__ float4 vectors[2];
// CHECK-DAG: .visible .global .align 8 .b8 total[8]
__device__ double total;
// CHECK-DAG: .visible .global .align 2 .b8 halves[6]
__device__ short halves[3];
// CHECK-DAG: .visible .global .align 1 .b8 bytes[5]
__device__ char bytes[5];
// __constant__ variables are in the global space too (the runtime writes them like others).
// CHECK-DAG: .visible .global .align 8 .b8 scale[16]
__constant__ double scale[2] = {0.5, 2.0};

__global__ void k(float* out) {
  out[0] = weights[threadIdx.x % 8] + packets[1].lanes[2] + vectors[1].y + static_cast<float>(total) +
           halves[2] + bytes[4] + static_cast<float>(scale[1]);
}
