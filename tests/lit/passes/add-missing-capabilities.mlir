// RUN: hipmlir-opt %s --split-input-file --hipmlir-add-missing-capabilities | FileCheck %s

// spirv-update-vce does not derive Int64Atomics from 64-bit atomics, nor the extension of
// no-wrap decorations: added when the module needs them, and only then.

// CHECK: spirv.module @m Physical64 OpenCL requires #spirv.vce<v1.0, [Int64Atomics, Kernel, Addresses, Int64], [SPV_KHR_no_integer_wrap_decoration]>
module attributes {gpu.container_module} {
  gpu.module @g {
    spirv.module @m Physical64 OpenCL requires #spirv.vce<v1.0, [Kernel, Addresses, Int64], []> {
      spirv.func @f(%p: !spirv.ptr<i64, CrossWorkgroup>, %v: i64, %a: i32) "None" {
        %0 = spirv.AtomicIAdd <Device> <None> %p, %v : !spirv.ptr<i64, CrossWorkgroup>
        %1 = spirv.IAdd %a, %a {no_signed_wrap} : i32
        spirv.Return
      }
    }
  }
}

// -----

// CHECK: spirv.module @m Physical64 OpenCL requires #spirv.vce<v1.0, [Kernel, Addresses], []>
module attributes {gpu.container_module} {
  gpu.module @g {
    spirv.module @m Physical64 OpenCL requires #spirv.vce<v1.0, [Kernel, Addresses], []> {
      spirv.func @f(%p: !spirv.ptr<i32, CrossWorkgroup>, %v: i32) "None" {
        %0 = spirv.AtomicIAdd <Device> <None> %p, %v : !spirv.ptr<i32, CrossWorkgroup>
        spirv.Return
      }
    }
  }
}

// -----

// A module reading the device clock (the placeholder of hipmlir-lower-clocks-to-spirv) needs
// ShaderClockKHR and its extension.

// CHECK: spirv.module @m Physical64 OpenCL requires #spirv.vce<v1.0, [ShaderClockKHR, Kernel, Addresses, Int64], [SPV_KHR_shader_clock]>
module attributes {gpu.container_module} {
  gpu.module @g {
    spirv.module @m Physical64 OpenCL requires #spirv.vce<v1.0, [Kernel, Addresses, Int64], []> {
      spirv.func @__hipmlir_spirv_read_clock(i32) -> i64 "None" attributes {linkage_attributes = #spirv.linkage_attributes<linkage_name = "__hipmlir_spirv_read_clock", linkage_type = <Import>>}
      spirv.func @f(%p: !spirv.ptr<i64, CrossWorkgroup>) "None" {
        %scope = spirv.Constant 1 : i32
        %0 = spirv.FunctionCall @__hipmlir_spirv_read_clock(%scope) : (i32) -> i64
        spirv.Store "CrossWorkgroup" %p, %0 : i64
        spirv.Return
      }
    }
  }
}

// -----

// An exported variable (a device variable the host reaches) needs Linkage.

// CHECK: spirv.module @m Physical64 OpenCL requires #spirv.vce<v1.0, [Linkage, Kernel, Addresses], []>
module attributes {gpu.container_module} {
  gpu.module @g {
    spirv.module @m Physical64 OpenCL requires #spirv.vce<v1.0, [Kernel, Addresses], []> {
      spirv.GlobalVariable @counter {linkage_attributes = #spirv.linkage_attributes<linkage_name = "counter", linkage_type = <Export>>} : !spirv.ptr<i32, CrossWorkgroup>
    }
  }
}
