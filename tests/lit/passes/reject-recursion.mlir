// RUN: hipmlir-opt %s --hipmlir-reject-recursion | FileCheck %s

// After inlining, calls of declarations (device library functions) are all device code may
// keep; host code (hipmlir.host) may call anything.

// CHECK-LABEL: func.func @kernel
// CHECK: call @sqrtf
module {
  func.func private @sqrtf(f32) -> f32
  func.func @kernel(%x: f32) -> f32 attributes {hipmlir.kernel} {
    %r = func.call @sqrtf(%x) : (f32) -> f32
    return %r : f32
  }
  func.func @launch(%x: f32) attributes {hipmlir.host} {
    %r = func.call @kernel(%x) : (f32) -> f32
    return
  }
}
