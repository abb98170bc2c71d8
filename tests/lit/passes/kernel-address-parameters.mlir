// RUN: hipmlir-opt %s --split-input-file --hipmlir-kernel-address-parameters | FileCheck %s

// A kernel's global pointers become 64-bit integers at its entry point: a wrapper with the
// kernel's name converts them and calls the kernel's function, renamed NAME.body and inlined.
// The body keeps its pointer parameters and their no-alias facts; the metadata and the by-value
// structs go to the wrapper; by-value scalars, by-value structs and dynamic shared memory pass
// through. The module gains Int64.

// CHECK: spirv.module @m Physical64 OpenCL requires #spirv.vce<v1.0, [Int64, Kernel, Addresses], []>
// CHECK: spirv.func @k.body(%[[X:.*]]: !spirv.ptr<i8, CrossWorkgroup>, %[[Y:.*]]: !spirv.ptr<i8, CrossWorkgroup>, %{{.*}}: !spirv.ptr<!spirv.struct<(f32, i32)>, Function>, %{{.*}}: i32, %{{.*}}: !spirv.ptr<i8, Workgroup>) "Inline" attributes {hipmlir.noalias = array<i64: 0, 1>} {
// CHECK-NOT: hipmlir.kernel_args
// CHECK: spirv.Store "CrossWorkgroup"
// CHECK: spirv.func @k(%[[A0:.*]]: i64, %[[A1:.*]]: i64, %[[S:.*]]: !spirv.ptr<!spirv.struct<(f32, i32)>, Function>, %[[N:.*]]: i32, %[[L:.*]]: !spirv.ptr<i8, Workgroup>) "None" attributes {hipmlir.byval = {"2" = !spirv.struct<(f32, i32)>}, hipmlir.kernel_args = [{is_pointer = true, name = "y"}, {is_pointer = true, name = "x"}, {is_pointer = false, name = "s"}, {is_pointer = false, name = "n"}], hipmlir.kernel_name = "k"} {
// CHECK-NEXT: %[[P0:.*]] = spirv.ConvertUToPtr %[[A0]] : i64 to !spirv.ptr<i8, CrossWorkgroup>
// CHECK-NEXT: %[[P1:.*]] = spirv.ConvertUToPtr %[[A1]] : i64 to !spirv.ptr<i8, CrossWorkgroup>
// CHECK-NEXT: spirv.FunctionCall @k.body(%[[P0]], %[[P1]], %[[S]], %[[N]], %[[L]]) : (!spirv.ptr<i8, CrossWorkgroup>, !spirv.ptr<i8, CrossWorkgroup>, !spirv.ptr<!spirv.struct<(f32, i32)>, Function>, i32, !spirv.ptr<i8, Workgroup>) -> ()
// CHECK-NEXT: spirv.Return
// CHECK: spirv.EntryPoint "Kernel" @k
module attributes {gpu.container_module} {
  gpu.module @g {
    spirv.module @m Physical64 OpenCL requires #spirv.vce<v1.0, [Kernel, Addresses], []> {
      spirv.func @k(%y: !spirv.ptr<i8, CrossWorkgroup>, %x: !spirv.ptr<i8, CrossWorkgroup>, %s: !spirv.ptr<!spirv.struct<(f32, i32)>, Function>, %n: i32, %l: !spirv.ptr<i8, Workgroup>) "None" attributes {hipmlir.byval = {"2" = !spirv.struct<(f32, i32)>}, hipmlir.kernel_args = [{is_pointer = true, name = "y"}, {is_pointer = true, name = "x"}, {is_pointer = false, name = "s"}, {is_pointer = false, name = "n"}], hipmlir.kernel_name = "k", hipmlir.noalias = array<i64: 0, 1>} {
        %0 = spirv.Bitcast %x : !spirv.ptr<i8, CrossWorkgroup> to !spirv.ptr<f32, CrossWorkgroup>
        %1 = spirv.Load "CrossWorkgroup" %0 : f32
        %2 = spirv.Bitcast %y : !spirv.ptr<i8, CrossWorkgroup> to !spirv.ptr<f32, CrossWorkgroup>
        spirv.Store "CrossWorkgroup" %2, %1 : f32
        spirv.Return
      }
      spirv.EntryPoint "Kernel" @k
    }
  }
}

// -----

// A kernel without global pointers, and a device function that takes one, stay as they are.

// CHECK: spirv.module @m Physical64 OpenCL requires #spirv.vce<v1.0, [Kernel, Addresses], []>
// CHECK: spirv.func @helper(%{{.*}}: !spirv.ptr<i32, CrossWorkgroup>) "None"
// CHECK: spirv.func @plain(%{{.*}}: i32) "None"
// CHECK-NOT: ConvertUToPtr
// CHECK-NOT: .body
module attributes {gpu.container_module} {
  gpu.module @g {
    spirv.module @m Physical64 OpenCL requires #spirv.vce<v1.0, [Kernel, Addresses], []> {
      spirv.func @helper(%p: !spirv.ptr<i32, CrossWorkgroup>) "None" {
        spirv.Return
      }
      spirv.func @plain(%n: i32) "None" {
        spirv.Return
      }
      spirv.EntryPoint "Kernel" @plain
    }
  }
}
