// RUN: hipmlir %s --offload-arch=sm_90 --emit-ptx -o - | FileCheck %s

// A half's sign flipped through its bits (and __hneg) is a sign-bit flip in the PTX: LLVM folds
// the xor into fneg, which NVPTX would emit as neg.f16, whose NaN results PTX leaves
// unspecified (an H200 returns the canonical NaN). The serialized PTX has xor.b16/xor.b32.

#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

// CHECK-LABEL: .entry {{.*}}flip_bits
// CHECK-NOT: neg.f16
// CHECK: xor.b16 {{.*}}, 0x8000;
__global__ void flip_bits(const __half* in, __half* out, __half* squares) {
  __half x = in[threadIdx.x];
  squares[threadIdx.x] = __hmul(x, x);
  __half_raw raw = x;
  __half_raw flipped{static_cast<unsigned short>(raw.x ^ 0x8000u)};
  out[threadIdx.x] = static_cast<__half>(flipped);
}

// CHECK-LABEL: .entry {{.*}}negate_pairs
// CHECK-NOT: neg.f16x2
// CHECK: xor.b32
__global__ void negate_pairs(const __half2* in, __half2* out) {
  out[threadIdx.x] = __hneg2(in[threadIdx.x]);
}
