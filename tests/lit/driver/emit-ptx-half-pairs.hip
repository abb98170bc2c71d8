// RUN: hipmlir %s --offload-arch=sm_90 --emit-ptx -o - | FileCheck %s
// RUN: hipmlir %s --offload-arch=sm_70 --emit-ptx -o - | FileCheck %s --check-prefix=SM70

// Pairs of halves on PTX: a __half2 is read and written as one 32-bit access (clang's 4-byte
// alignment of the type on the loads and stores), __hadd2/__hsub2/__hmul2 are one f16x2
// instruction each, __hmax2/__hmin2 and __hmax/__hmin are max/min.f16x2 and .f16 from sm_80
// (PTX's max returns the number when one operand is NaN, as HIP's fmax-like __hmax does),
// and __byte_perm is one prmt.b32. On sm_70 (no f16 max/min in PTX), max/min go through
// float, exact for halves.

#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

// CHECK-LABEL: .entry {{.*}}pair_arithmetic
// CHECK-NOT: ld.global.b16
// CHECK-DAG: ld.global.b32
// CHECK-DAG: add.rn.f16x2
// CHECK-DAG: sub.rn.f16x2
// CHECK-DAG: mul.rn.f16x2
// CHECK-DAG: max.f16x2
// CHECK-DAG: min.f16x2
// CHECK-DAG: st.global.b32
// CHECK-NOT: st.global.b16
// CHECK: ret;
// SM70-LABEL: .entry {{.*}}pair_arithmetic
// SM70-DAG: sub.rn.f16x2
// SM70-DAG: max.f32
// SM70-DAG: min.f32
// SM70-NOT: max.f16
// SM70: ret;
__global__ void pair_arithmetic(const __half2* a, const __half2* b, __half2* out) {
  int i = threadIdx.x;
  __half2 x = a[i], y = b[i];
  out[5 * i] = __hadd2(x, y);
  out[5 * i + 1] = __hsub2(x, y);
  out[5 * i + 2] = __hmul2(x, y);
  out[5 * i + 3] = __hmax2(x, y);
  out[5 * i + 4] = __hmin2(x, y);
}

// CHECK-LABEL: .entry {{.*}}half_max_min
// CHECK-DAG: max.f16 
// CHECK-DAG: min.f16 
// CHECK: ret;
__global__ void half_max_min(const __half* a, __half* out) {
  int i = threadIdx.x;
  out[2 * i] = __hmax(a[i], a[i + 1]);
  out[2 * i + 1] = __hmin(a[i], a[i + 1]);
}

// The bench's half2_max: each pair read once, one sub.rn.f16x2, one prmt.b32.
// CHECK-LABEL: .entry {{.*}}half2_max
// CHECK-NOT: ld.global.b16
// CHECK: ld.global.b32
// CHECK: ld.global.b32
// CHECK-NOT: ld.global
// CHECK: sub.rn.f16x2
// CHECK: prmt.b32 {{.*}}, 0x5410U;
// CHECK: st.global.b32
// SM70-LABEL: .entry {{.*}}half2_max
// SM70: prmt.b32
__global__ void half2_max(const __half2* a, const __half2* b, __half2* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __half2 d = __hsub2(a[i], b[i]);
    unsigned int bits_a = reinterpret_cast<const unsigned int*>(a)[i];
    unsigned int bits_b = reinterpret_cast<const unsigned int*>(b)[i];
    unsigned int bits_d = *reinterpret_cast<const unsigned int*>(&d);
    unsigned int low = (unsigned int)((int)(bits_d << 16) >> 31);
    unsigned int high = (unsigned int)((int)bits_d >> 31);
    unsigned int m = __byte_perm(low, high, 0x5410);
    reinterpret_cast<unsigned int*>(c)[i] = (bits_a & ~m) | (bits_b & m);
  }
}

// A selector known only at run time: masked to HIP's three bits per nibble, then prmt.b32.
// CHECK-LABEL: .entry {{.*}}runtime_selector
// CHECK: and.b32 {{.*}}, 30583;
// CHECK: prmt.b32
__global__ void runtime_selector(const unsigned int* x, const unsigned int* s, unsigned int* out) {
  int i = threadIdx.x;
  out[i] = __byte_perm(x[i], x[i + 1], s[i]);
}

// A float4 (16-byte aligned) is one vector access.
// CHECK-LABEL: .entry {{.*}}copy_float4
// CHECK: ld.global.v4.b32
// CHECK: st.global.v4.b32
__global__ void copy_float4(const float4* a, float4* b) {
  int i = threadIdx.x;
  float4 v = a[i];
  v.x += 1.0f;
  b[i] = v;
}
