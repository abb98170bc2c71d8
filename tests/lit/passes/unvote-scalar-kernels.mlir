// RUN: hipmlir-opt %s --hipmlir-unvote-scalar-kernels | FileCheck %s

// The memory checker's votes (marked hipmlir.memcheck_vote) in what a kernel hinted to compute
// on scalars reaches (VecTypeHint of one component, 65538) become the work-item's own
// condition: Intel's CPU compiler emulates such a kernel's subgroups and gets votes under
// divergent conditions wrong. A vote of the program's own (unmarked) keeps its meaning, and
// the checker's votes elsewhere (a kernel with no hint, or the hint of a 4-vector) stay, their
// mark removed (SPIR-V's serializer would take it for a decoration).

// CHECK-NOT: hipmlir.memcheck_vote
// CHECK-LABEL: spirv.func @helper
// CHECK-NOT: spirv.GroupNonUniformAny
// CHECK: spirv.ReturnValue %arg0
// CHECK-LABEL: spirv.func @scalar
// CHECK: %[[OWN:.*]] = spirv.GroupNonUniformAny <Subgroup> %arg0
// CHECK-NOT: spirv.GroupNonUniformAny
// CHECK: spirv.LogicalAnd %arg0, %[[OWN]]
// CHECK-LABEL: spirv.func @vector
// CHECK: %[[KEPT:.*]] = spirv.GroupNonUniformAny <Subgroup> %arg0 : i1
// CHECK: spirv.ReturnValue %[[KEPT]]
// CHECK-LABEL: spirv.func @wide
// CHECK: %[[WIDE:.*]] = spirv.GroupNonUniformAny <Subgroup> %arg0 : i1
// CHECK: spirv.ReturnValue %[[WIDE]]
// CHECK-NOT: hipmlir.memcheck_vote
module attributes {gpu.container_module} {
  gpu.module @g {
    spirv.module @m Physical64 OpenCL requires #spirv.vce<v1.3, [Kernel, Addresses, GroupNonUniformVote], []> {
      spirv.func @helper(%c: i1) -> i1 "None" {
        %any = spirv.GroupNonUniformAny <Subgroup> %c {hipmlir.memcheck_vote} : i1
        spirv.ReturnValue %any : i1
      }
      spirv.func @scalar(%c: i1) -> i1 "None" {
        %own = spirv.GroupNonUniformAny <Subgroup> %c : i1
        %checked = spirv.GroupNonUniformAny <Subgroup> %c {hipmlir.memcheck_vote} : i1
        %both = spirv.LogicalAnd %checked, %own : i1
        %called = spirv.FunctionCall @helper(%c) : (i1) -> i1
        %all = spirv.LogicalAnd %both, %called : i1
        spirv.ReturnValue %all : i1
      }
      spirv.func @vector(%c: i1) -> i1 "None" {
        %any = spirv.GroupNonUniformAny <Subgroup> %c {hipmlir.memcheck_vote} : i1
        spirv.ReturnValue %any : i1
      }
      spirv.func @wide(%c: i1) -> i1 "None" {
        %any = spirv.GroupNonUniformAny <Subgroup> %c {hipmlir.memcheck_vote} : i1
        spirv.ReturnValue %any : i1
      }
      spirv.EntryPoint "Kernel" @scalar
      spirv.EntryPoint "Kernel" @vector
      spirv.EntryPoint "Kernel" @wide
      spirv.ExecutionMode @scalar "VecTypeHint", 65538
      spirv.ExecutionMode @wide "VecTypeHint", 262146
    }
  }
}
