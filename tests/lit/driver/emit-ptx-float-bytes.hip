// RUN: hipmlir %s --emit-ptx --offload-arch=sm_90 -o - | FileCheck %s

// A computed float's bytes stored one by one (memcpy to an unaligned place, a union's byte
// view) are stored from a register a `mov` wrote: LLVM stores the low byte straight from the
// register the float instruction wrote, and ptxas converts such a register to the byte
// (18.7 is stored as 0x12) where PTX truncates it. The other bytes, shifted by integer
// instructions, and stores of integers stay as LLVM wrote them.

#include <hip/hip_runtime.h>
#include <cstring>

// CHECK-LABEL: .entry _Z4packPKfPh(
// CHECK: mul.{{(rn.)?}}f32 [[V:%r[0-9]+]]
// CHECK: { .reg .b32 %hipmlir_bits0; mov.b32 %hipmlir_bits0, [[V]]; st.global.b8 [{{%rd[0-9]+}}+1], %hipmlir_bits0; }
// CHECK: shr.u32 [[HIGH:%r[0-9]+]], [[V]], 24;
// CHECK-NEXT: st.global.b8 [{{%rd[0-9]+}}+4], [[HIGH]];
__global__ void pack(const float* in, unsigned char* out) {
  int i = threadIdx.x;
  float v = in[i] * 3.0f;
  memcpy(out + 5 * i + 1, &v, sizeof v);
}

union Bits {
  float value;
  unsigned char bytes[4];
};

// CHECK-LABEL: .entry _Z5bytesPKfPh(
// CHECK: mul.{{(rn.)?}}f32 [[U:%r[0-9]+]]
// CHECK: mov.b32 %hipmlir_bits0, [[U]]; st.global.b8
__global__ void bytes(const float* in, unsigned char* out) {
  int i = threadIdx.x;
  Bits u;
  u.value = in[i] * 0.5f;
  for (int k = 0; k < 4; ++k) out[4 * i + k] = u.bytes[k];
}

// CHECK-LABEL: .entry _Z8integersPKiPh(
// CHECK-NOT: hipmlir_bits
// CHECK: ret;
__global__ void integers(const int* in, unsigned char* out) {
  int i = threadIdx.x;
  int v = in[i] * 3;
  memcpy(out + 5 * i + 1, &v, sizeof v);
}
