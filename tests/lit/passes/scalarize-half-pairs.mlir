// RUN: hipmlir-opt %s --hipmlir-scalarize-half-pairs | FileCheck %s

// An op on pairs of halves becomes the op on each lane (attributes kept). The frontend's pairs
// come from and go back to 32-bit words (vector.bitcast of a one-lane vector): a lane is read
// as the word's low or high 16 bits, and the lanes are packed back into a word, lane 0 low, so
// that no vector<2xf16> is left; the bitcasts go.

// CHECK-LABEL: func.func @sub
// CHECK-SAME: (%[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK-NOT: vector<2xf16>
// CHECK: %[[WA:.*]] = vector.broadcast %[[A]] : i32 to vector<1xi32>
// CHECK: %[[WB:.*]] = vector.broadcast %[[B]] : i32 to vector<1xi32>
// CHECK: %[[A0W:.*]] = vector.extract %[[WA]][0] : i32 from vector<1xi32>
// CHECK: %[[A0S:.*]] = arith.shrui %[[A0W]], %{{.*}} : i32
// CHECK: %[[A0T:.*]] = arith.trunci %[[A0S]] : i32 to i16
// CHECK: %[[A0:.*]] = arith.bitcast %[[A0T]] : i16 to f16
// CHECK: %[[B0:.*]] = arith.bitcast %{{.*}} : i16 to f16
// CHECK: %[[D0:.*]] = arith.subf %[[A0]], %[[B0]] fastmath<contract> : f16
// CHECK: %[[C16:.*]] = arith.constant 16 : i32
// CHECK: arith.shrui %{{.*}}, %[[C16]] : i32
// CHECK: %[[D1:.*]] = arith.subf %{{.*}}, %{{.*}} fastmath<contract> : f16
// CHECK: %[[D0B:.*]] = arith.bitcast %[[D0]] : f16 to i16
// CHECK: %[[D0W:.*]] = arith.extui %[[D0B]] : i16 to i32
// CHECK: %[[LOW:.*]] = arith.shli %[[D0W]], %{{.*}} : i32
// CHECK: %[[D1B:.*]] = arith.bitcast %[[D1]] : f16 to i16
// CHECK: %[[D1W:.*]] = arith.extui %[[D1B]] : i16 to i32
// CHECK: %[[HIGH:.*]] = arith.shli %[[D1W]], %{{.*}} : i32
// CHECK: %[[BITS:.*]] = arith.ori %[[LOW]], %[[HIGH]] : i32
// CHECK: %[[W:.*]] = vector.broadcast %[[BITS]] : i32 to vector<1xi32>
// CHECK: %[[R:.*]] = vector.extract %[[W]][0] : i32 from vector<1xi32>
// CHECK: return %[[R]] : i32

// A pair from elsewhere (an argument) is read lane by lane with vector.extract; a compare keeps
// its predicate and gives a pair of booleans.
// CHECK-LABEL: func.func @compare
// CHECK-SAME: (%[[X:.*]]: vector<2xf16>, %[[Y:.*]]: vector<2xf16>)
// CHECK: %[[X0:.*]] = vector.extract %[[X]][0] : f16 from vector<2xf16>
// CHECK: %[[Y0:.*]] = vector.extract %[[Y]][0] : f16 from vector<2xf16>
// CHECK: %[[L0:.*]] = arith.cmpf olt, %[[X0]], %[[Y0]] : f16
// CHECK: %[[X1:.*]] = vector.extract %[[X]][1] : f16 from vector<2xf16>
// CHECK: %[[Y1:.*]] = vector.extract %[[Y]][1] : f16 from vector<2xf16>
// CHECK: %[[L1:.*]] = arith.cmpf olt, %[[X1]], %[[Y1]] : f16
// CHECK: %[[LT:.*]] = vector.from_elements %[[L0]], %[[L1]] : vector<2xi1>
// CHECK: %[[M0:.*]] = arith.maxnumf %{{.*}}, %{{.*}} : f16
// CHECK: %[[M1:.*]] = arith.maxnumf %{{.*}}, %{{.*}} : f16
// CHECK: %[[M:.*]] = vector.from_elements %[[M0]], %[[M1]] : vector<2xf16>
// CHECK: return %[[LT]], %[[M]]

// Other vectors and scalar halves are left alone.
// CHECK-LABEL: func.func @others
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<4xf16>
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK: arith.addf %{{.*}}, %{{.*}} : f16
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    func.func @sub(%a: i32, %b: i32) -> i32 {
      %0 = vector.broadcast %a : i32 to vector<1xi32>
      %1 = vector.bitcast %0 : vector<1xi32> to vector<2xf16>
      %2 = vector.broadcast %b : i32 to vector<1xi32>
      %3 = vector.bitcast %2 : vector<1xi32> to vector<2xf16>
      %4 = arith.subf %1, %3 fastmath<contract> : vector<2xf16>
      %5 = vector.bitcast %4 : vector<2xf16> to vector<1xi32>
      %6 = vector.extract %5[0] : i32 from vector<1xi32>
      return %6 : i32
    }
    func.func @compare(%x: vector<2xf16>, %y: vector<2xf16>) -> (vector<2xi1>, vector<2xf16>) {
      %0 = arith.cmpf olt, %x, %y : vector<2xf16>
      %1 = arith.maxnumf %x, %y : vector<2xf16>
      return %0, %1 : vector<2xi1>, vector<2xf16>
    }
    func.func @others(%a: vector<4xf16>, %b: vector<2xf32>, %c: f16) -> (vector<4xf16>, vector<2xf32>, f16) {
      %0 = arith.addf %a, %a : vector<4xf16>
      %1 = arith.addf %b, %b : vector<2xf32>
      %2 = arith.addf %c, %c : f16
      return %0, %1, %2 : vector<4xf16>, vector<2xf32>, f16
    }
  }
}
