// RUN: hipmlir %s --emit-spirv -o %t.spv && spirv-dis %t.spv | FileCheck %s --check-prefix=SPIRV
// RUN: hipmlir %s --emit-ptx --offload-arch=sm_90 -o - | FileCheck %s --check-prefix=PTX

// A packed record reaches the device compilers packed: on SPIR-V a `CPacked` struct (no member
// offsets, which need the Shader capability) and its members' accesses `Aligned 1`; on PTX
// byte accesses at clang's offsets (`id` at 1, `mass` at 5), never a 4-byte load from an odd
// address, and a computed float's bytes stored from a register a `mov` wrote (ptxas converts
// a float instruction's register stored as a byte: emit-ptx-float-bytes.hip).

#include <hip/hip_runtime.h>

struct __attribute__((packed)) Particle {
  char kind;
  int id;
  double mass;
};

// SPIRV-NOT: Offset
// SPIRV: OpDecorate %[[STRUCT:.*]] CPacked
// SPIRV: %[[STRUCT]] = OpTypeStruct %uchar %uint %double
// SPIRV: OpLoad %uint %{{.*}} Aligned 1
// SPIRV: OpStore %{{.*}} %{{.*}} Aligned 1

// PTX-LABEL: .entry _Z4bumpP8Particle(
// PTX: ld.global.{{[bu]}}8 {{.*}}+1]
// PTX-NOT: ld.global.{{[bu]}}32 {{.*}}+1]
// PTX: mul.{{(rn.)?}}f64 [[PRODUCT:%rd[0-9]+]]
// PTX: { .reg .b64 %hipmlir_bits0; mov.b64 %hipmlir_bits0, [[PRODUCT]]; st.global.b8 [{{.*}}+5], %hipmlir_bits0; }
__global__ void bump(Particle* p) {
  int i = threadIdx.x;
  p[i].mass = p[i].id * 0.5;
}
