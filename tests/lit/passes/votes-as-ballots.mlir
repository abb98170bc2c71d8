// RUN: hipmlir-opt %s --hipmlir-votes-as-ballots | FileCheck %s

// A subgroup vote (OpGroupNonUniformAny) becomes a ballot of its condition, its four words
// or-ed and compared with zero: the same answer, which Intel's CPU compiler computes from the
// lanes' mask at once instead of testing each lane with a branch.

// CHECK-LABEL: spirv.func @subgroup
// CHECK-NOT: spirv.GroupNonUniformAny
// CHECK: %[[MASK:.*]] = spirv.GroupNonUniformBallot <Subgroup> %arg0 : vector<4xi32>
// CHECK-NEXT: %[[W0:.*]] = spirv.CompositeExtract %[[MASK]][0 : i32] : vector<4xi32>
// CHECK-NEXT: %[[W1:.*]] = spirv.CompositeExtract %[[MASK]][1 : i32] : vector<4xi32>
// CHECK-NEXT: %[[OR1:.*]] = spirv.BitwiseOr %[[W0]], %[[W1]] : i32
// CHECK-NEXT: %[[W2:.*]] = spirv.CompositeExtract %[[MASK]][2 : i32] : vector<4xi32>
// CHECK-NEXT: %[[OR2:.*]] = spirv.BitwiseOr %[[OR1]], %[[W2]] : i32
// CHECK-NEXT: %[[W3:.*]] = spirv.CompositeExtract %[[MASK]][3 : i32] : vector<4xi32>
// CHECK-NEXT: %[[OR3:.*]] = spirv.BitwiseOr %[[OR2]], %[[W3]] : i32
// CHECK-NEXT: %[[ZERO:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT: %[[ANY:.*]] = spirv.INotEqual %[[OR3]], %[[ZERO]] : i32
// CHECK-NEXT: spirv.ReturnValue %[[ANY]] : i1
module attributes {gpu.container_module} {
  gpu.module @g {
    spirv.module @m Physical64 OpenCL requires #spirv.vce<v1.3, [Kernel, Addresses, GroupNonUniformVote, GroupNonUniformBallot], []> {
      spirv.func @subgroup(%c: i1) -> i1 "None" {
        %any = spirv.GroupNonUniformAny <Subgroup> %c : i1
        spirv.ReturnValue %any : i1
      }
    }
  }
}
