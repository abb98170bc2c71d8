// RUN: hipmlir-opt %s --hipmlir-lower-math-to-opencl | FileCheck %s

// Math operations and calls of device library functions become calls of OpenCL.std functions,
// imported by linkage (one import per function and signature) until the serializer turns them
// into OpExtInst. printf is OpenCL's.

// CHECK-NOT: func.func private @hypotf
// CHECK-NOT: func.func private @__hipmlir_printf_0
// CHECK-DAG: spirv.func @__hipmlir_opencl_std_61_sqrt_f64_f64(f64) -> f64 "Pure" attributes {linkage_attributes = #spirv.linkage_attributes<linkage_name = "__hipmlir_opencl_std_61_sqrt_f64_f64", linkage_type = <Import>>}
// CHECK-DAG: spirv.func @__hipmlir_opencl_std_32_hypot_f32_f32_f32(f32, f32) -> f32
// CHECK-DAG: spirv.func @"__hipmlir_opencl_std_184_printf_!spirv.ptr<i8, UniformConstant>_f64_i32"(!spirv.ptr<i8, UniformConstant>, f64) -> i32
// CHECK: gpu.func @k(%[[D:.*]]: f64, %[[F:.*]]: f32, %[[S:.*]]: !spirv.ptr<i8, UniformConstant>)
// CHECK: spirv.FunctionCall @__hipmlir_opencl_std_61_sqrt_f64_f64(%[[D]])
// CHECK: spirv.FunctionCall @__hipmlir_opencl_std_32_hypot_f32_f32_f32(%[[F]], %[[F]])
// CHECK: spirv.FunctionCall @"__hipmlir_opencl_std_184_printf_{{.*}}"(%[[S]], %[[D]])
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
