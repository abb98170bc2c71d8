// RUN: hipmlir-opt %s --split-input-file --hipmlir-lower-math-to-opencl | FileCheck %s

// Math operations and calls of device library functions become OpenCL.std instructions: MLIR's
// spirv.CL op where it has one (sqrt, printf), otherwise a call of an OpenCL.std function
// imported by linkage (one import per function and signature) until the serializer's patch
// turns it into OpExtInst. printf is OpenCL's.

// CHECK-NOT: func.func private @hypotf
// CHECK-NOT: func.func private @__hipmlir_printf_0
// CHECK-NOT: spirv.func @__hipmlir_opencl_std_61_sqrt
// CHECK-NOT: spirv.func @{{.*}}printf
// CHECK-DAG: spirv.func @__hipmlir_opencl_std_32_hypot_f32_f32_f32(f32, f32) -> f32 "Pure" attributes {linkage_attributes = #spirv.linkage_attributes<linkage_name = "__hipmlir_opencl_std_32_hypot_f32_f32_f32", linkage_type = <Import>>}
// CHECK: gpu.func @k(%[[D:.*]]: f64, %[[F:.*]]: f32, %[[S:.*]]: !spirv.ptr<i8, UniformConstant>)
// CHECK: spirv.CL.sqrt %[[D]] : f64
// CHECK: spirv.FunctionCall @__hipmlir_opencl_std_32_hypot_f32_f32_f32(%[[F]], %[[F]])
// CHECK: spirv.CL.printf %[[S]] %[[D]] : !spirv.ptr<i8, UniformConstant>, f64 -> i32
// CHECK: spirv.IsNan %[[F]]
// CHECK-NOT: math.
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    func.func private @hypotf(f32, f32) -> f32
    func.func private @__hipmlir_printf_0(!spirv.ptr<i8, UniformConstant>, f64) -> i32
    gpu.func @k(%d: f64, %f: f32, %s: !spirv.ptr<i8, UniformConstant>) kernel {
      %0 = math.sqrt %d : f64
      %1 = func.call @hypotf(%f, %f) : (f32, f32) -> f32
      %2 = func.call @__hipmlir_printf_0(%s, %d) : (!spirv.ptr<i8, UniformConstant>, f64) -> i32
      %3 = math.isnan %f : f32
      gpu.return
    }
  }
}

// -----
// The fast intrinsics use OpenCL.std's full-precision functions, not native_* (whose precision
// is the device's to choose and misses HIP's bounds on some), and __fdividef is a division.

// CHECK-LABEL: gpu.module @fast
// CHECK-NOT: func.func private @__expf
// CHECK-NOT: func.func private @__fdividef
// CHECK-NOT: native
// CHECK: gpu.func @fast_intrinsics(%[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK: spirv.CL.exp %[[X]] : f32
// CHECK: spirv.CL.sin %[[X]] : f32
// CHECK: spirv.FunctionCall @__hipmlir_opencl_std_50_powr_f32_f32_f32(%[[Y]], %[[X]])
// CHECK: arith.divf %[[X]], %[[Y]] : f32
module attributes {gpu.container_module} {
  gpu.module @fast {
    func.func private @__expf(f32) -> f32
    func.func private @__sinf(f32) -> f32
    func.func private @__powf(f32, f32) -> f32
    func.func private @__fdividef(f32, f32) -> f32
    gpu.func @fast_intrinsics(%x: f32, %y: f32) kernel {
      %0 = func.call @__expf(%x) : (f32) -> f32
      %1 = func.call @__sinf(%x) : (f32) -> f32
      %2 = func.call @__powf(%y, %x) : (f32, f32) -> f32
      %3 = func.call @__fdividef(%x, %y) : (f32, f32) -> f32
      gpu.return
    }
  }
}
