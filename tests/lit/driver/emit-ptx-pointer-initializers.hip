// RUN: hipmlir %s --offload-arch=sm_90 --emit-ptx -o - | FileCheck %s

// Device variables initialized with addresses, in PTX as nvcc writes them: 64-bit words whose
// addresses are generic(variable)+offset, for the driver to resolve when it loads the module.

#include <hip/hip_runtime.h>

__device__ int table[16];
__device__ int* cursor = &table[2];
struct Span {
  int* begin;
  int count;
  int* end;
};
__device__ Span span = {table + 1, 4, table + 16};
__constant__ const char* names[] = {"a", "bc", nullptr};

__global__ void k(int* out) { out[0] = *cursor + *span.end + names[1][0]; }

// CHECK-DAG: .visible .global .align 8 .u64 cursor[1] = {generic(table)+8};
// CHECK-DAG: .visible .global .align 8 .u64 span[3] = {generic(table)+4, 4, generic(table)+64};
// CHECK-DAG: .visible .global .align 8 .u64 names[3] = {generic(__hipmlir_string_{{[0-9a-f]+}}_2), generic(__hipmlir_string_{{[0-9a-f]+}}_3), 0};
