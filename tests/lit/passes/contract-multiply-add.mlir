// RUN: hipmlir-opt %s --hipmlir-contract-multiply-add | FileCheck %s

// A contractible multiply feeding a contractible add or subtract becomes one fma (SPIR-V has
// no flag that lets the device's compiler fuse them). A multiply used elsewhere too, and
// operations without the contract flag (a `#pragma clang fp contract(off)` region, hipmlir's
// device library) stay apart.

// CHECK-LABEL: func.func @fused
// CHECK-SAME: %[[A:[^:]*]]: f32, %[[B:[^:]*]]: f32, %[[C:[^:]*]]: f32
// CHECK-NOT: arith.mulf
// CHECK: %[[R1:.*]] = math.fma %[[A]], %[[B]], %[[C]] fastmath<contract> : f32
// CHECK: %[[R2:.*]] = math.fma %[[A]], %[[B]], %[[R1]] fastmath<contract> : f32
// CHECK: %[[NC:.*]] = arith.negf %[[C]] fastmath<contract> : f32
// CHECK: %[[R3:.*]] = math.fma %[[A]], %[[B]], %[[NC]] fastmath<contract> : f32
// CHECK: %[[NA:.*]] = arith.negf %[[A]] fastmath<contract> : f32
// CHECK: %[[R4:.*]] = math.fma %[[NA]], %[[B]], %[[R3]] fastmath<contract> : f32
// CHECK: return %[[R4]]
func.func @fused(%a: f32, %b: f32, %c: f32) -> f32 {
  %m1 = arith.mulf %a, %b fastmath<contract> : f32
  %r1 = arith.addf %m1, %c fastmath<contract> : f32
  %m2 = arith.mulf %a, %b fastmath<contract> : f32
  %r2 = arith.addf %r1, %m2 fastmath<contract> : f32
  %m3 = arith.mulf %a, %b fastmath<contract> : f32
  %r3 = arith.subf %m3, %c fastmath<contract> : f32
  %m4 = arith.mulf %a, %b fastmath<contract> : f32
  %r4 = arith.subf %r3, %m4 fastmath<contract> : f32
  %unused = arith.addf %r2, %r2 : f32
  return %r4 : f32
}

// CHECK-LABEL: func.func @apart
// CHECK-NOT: math.fma
// CHECK: return
func.func @apart(%a: vector<4xf32>, %b: vector<4xf32>, %c: vector<4xf32>) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>) {
  // Used twice: the product stays.
  %m1 = arith.mulf %a, %b fastmath<contract> : vector<4xf32>
  %r1 = arith.addf %m1, %c fastmath<contract> : vector<4xf32>
  %s1 = arith.addf %m1, %r1 fastmath<contract> : vector<4xf32>
  // No contract flag on the add, or on the multiply.
  %m2 = arith.mulf %a, %b fastmath<contract> : vector<4xf32>
  %r2 = arith.addf %m2, %c : vector<4xf32>
  %m3 = arith.mulf %a, %b : vector<4xf32>
  %r3 = arith.addf %m3, %c fastmath<contract> : vector<4xf32>
  return %s1, %r2, %r3 : vector<4xf32>, vector<4xf32>, vector<4xf32>
}

// CHECK-LABEL: func.func @double_vector
// CHECK: math.fma %{{.*}}, %{{.*}}, %{{.*}} fastmath<fast> : vector<2xf64>
func.func @double_vector(%a: vector<2xf64>, %b: vector<2xf64>, %c: vector<2xf64>) -> vector<2xf64> {
  %m = arith.mulf %a, %b fastmath<fast> : vector<2xf64>
  %r = arith.addf %c, %m fastmath<fast> : vector<2xf64>
  return %r : vector<2xf64>
}
