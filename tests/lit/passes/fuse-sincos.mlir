// RUN: hipmlir-opt %s --split-input-file --hipmlir-fuse-sincos | FileCheck %s

// A sine and a cosine of the same value in one block become one math.sincos, where the first
// of them was; the fast-math flags are kept.

// CHECK-LABEL: func.func @twiddle(
// CHECK-SAME: %[[PHI:.*]]: f64
// CHECK-NEXT: %[[S:.*]], %[[C:.*]] = math.sincos %[[PHI]] : f64
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[C]], %[[S]] : f64
// CHECK-NEXT: return %[[P]]
func.func @twiddle(%phi: f64) -> f64 {
  %c = math.cos %phi : f64
  %s = math.sin %phi : f64
  %p = arith.mulf %c, %s : f64
  return %p : f64
}

// -----
// Apart: another angle, another block, other flags, or a sine alone.

// CHECK-LABEL: func.func @apart(
// CHECK-NOT: math.sincos
// CHECK: math.sin %arg0
// CHECK: math.cos %arg1
// CHECK: math.cos %arg0 fastmath<afn>
// CHECK: scf.if
// CHECK: math.cos %arg0 : f32
func.func @apart(%x: f32, %y: f32, %b: i1) -> f32 {
  %s = math.sin %x : f32
  %c = math.cos %y : f32
  %f = math.cos %x fastmath<afn> : f32
  %r = scf.if %b -> f32 {
    %k = math.cos %x : f32
    scf.yield %k : f32
  } else {
    scf.yield %s : f32
  }
  %a = arith.addf %c, %f : f32
  %t = arith.addf %a, %r : f32
  return %t : f32
}
