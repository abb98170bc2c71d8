// RUN: hipmlir-opt %s --hipmlir-hint-scalar-kernels=branches=3 | FileCheck %s
// RUN: hipmlir-opt %s --hipmlir-hint-scalar-kernels | FileCheck %s --check-prefix=DEFAULT

// A kernel with at least `branches` structured branches and loops, its calls' counted once
// each (a recursive helper too), gets the vector type hint of one int (65538): Intel's CPU
// compiler then does not vectorize it across work-items, which took minutes on a kernel of
// 6800 branches. One under the count, and one whose subgroup size is pinned (warp
// operations), stay as they are. By default the count is 2000: nothing here is hinted.

// CHECK: spirv.EntryPoint "Kernel" @big
// CHECK-NEXT: spirv.ExecutionMode @big "VecTypeHint", 65538
// CHECK: spirv.EntryPoint "Kernel" @small
// CHECK-NOT: spirv.ExecutionMode @small
// CHECK: spirv.EntryPoint "Kernel" @warp
// CHECK-NOT: "VecTypeHint"
// DEFAULT-NOT: "VecTypeHint"
module attributes {gpu.container_module} {
  gpu.module @g {
    spirv.module @m Physical64 OpenCL requires #spirv.vce<v1.0, [Kernel, Addresses, SubgroupDispatch], []> {
      spirv.func @helper(%c: i1) "None" {
        spirv.mlir.selection {
          spirv.BranchConditional %c, ^then, ^merge
        ^then:
          spirv.FunctionCall @helper(%c) : (i1) -> ()
          spirv.Branch ^merge
        ^merge:
          spirv.mlir.merge
        }
        spirv.Return
      }
      spirv.func @big(%c: i1) "None" {
        spirv.mlir.selection {
          spirv.BranchConditional %c, ^then, ^merge
        ^then:
          spirv.Branch ^merge
        ^merge:
          spirv.mlir.merge
        }
        spirv.FunctionCall @helper(%c) : (i1) -> ()
        spirv.FunctionCall @helper(%c) : (i1) -> ()
        spirv.mlir.selection {
          spirv.BranchConditional %c, ^then, ^merge
        ^then:
          spirv.Branch ^merge
        ^merge:
          spirv.mlir.merge
        }
        spirv.Return
      }
      spirv.func @small(%c: i1) "None" {
        spirv.FunctionCall @helper(%c) : (i1) -> ()
        spirv.FunctionCall @helper(%c) : (i1) -> ()
        spirv.Return
      }
      spirv.func @warp(%c: i1) "None" {
        spirv.FunctionCall @big(%c) : (i1) -> ()
        spirv.Return
      }
      spirv.EntryPoint "Kernel" @big
      spirv.EntryPoint "Kernel" @small
      spirv.EntryPoint "Kernel" @warp
      spirv.ExecutionMode @warp "SubgroupSize", 32
    }
  }
}
