// RUN: not hipmlir-opt %s --split-input-file --hipmlir-lower-hip-to-nvptx 2>&1 | FileCheck %s

// A device library function libdevice has no counterpart of is reported at the call, never
// left for the JIT link to fail on.
// CHECK: k.hip:3:5: error: unsupported construct in device code: a call of the device library function 'mystery' on NVPTX targets
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    func.func private @mystery(f32) -> f32
    gpu.func @k(%f: f32) kernel {
      %0 = func.call @mystery(%f) : (f32) -> f32 loc("k.hip":3:5)
      gpu.return
    }
  }
}

// -----

// A warp reduction with no helper (a float product) is unsupported, at the construct.
// CHECK: k.hip:7:9: error: unsupported construct in device code: a warp reduction 'mul' of f32 on NVPTX targets
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    gpu.func @k(%f: f32) kernel {
      %0 = gpu.subgroup_reduce mul %f : (f32) -> f32 loc("k.hip":7:9)
      gpu.return
    }
  }
}
