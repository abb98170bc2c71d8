// RUN: hipmlir-opt %s --hipmlir-complete-entry-point-interfaces | FileCheck %s

// Each entry point lists the built-in variables of every function it reaches through calls,
// not only of its own function (SPIR-V requires it; spirv-lower-abi-attrs lists only the
// function's own): the kernel @reports reads the local id itself and the block id through a
// helper not inlined, which a recursive helper also calls. What it listed stays first; the
// variables added come in the module's order. An entry point whose calls read no built-in
// keeps its interface.

// CHECK: spirv.EntryPoint "Kernel" @reports, @__builtin__LocalInvocationId__, @__builtin__WorkgroupId__, @__builtin__NumWorkgroups__
// CHECK-NEXT: spirv.EntryPoint "Kernel" @quiet{{$}}
// CHECK-NEXT: spirv.EntryPoint "Kernel" @own, @__builtin__LocalInvocationId__{{$}}
module attributes {gpu.container_module} {
  gpu.module @g {
    spirv.module @m Physical64 OpenCL requires #spirv.vce<v1.3, [Kernel, Addresses, Int64], []> {
      spirv.GlobalVariable @__builtin__WorkgroupId__ built_in("WorkgroupId") : !spirv.ptr<vector<3xi64>, Input>
      spirv.GlobalVariable @__builtin__LocalInvocationId__ built_in("LocalInvocationId") : !spirv.ptr<vector<3xi64>, Input>
      spirv.GlobalVariable @__builtin__NumWorkgroups__ built_in("NumWorkgroups") : !spirv.ptr<vector<3xi64>, Input>
      spirv.func @block_x() -> i64 "DontInline" {
        %addr = spirv.mlir.addressof @__builtin__WorkgroupId__ : !spirv.ptr<vector<3xi64>, Input>
        %v = spirv.Load "Input" %addr : vector<3xi64>
        %x = spirv.CompositeExtract %v[0 : i32] : vector<3xi64>
        spirv.ReturnValue %x : i64
      }
      spirv.func @countdown(%n: i64) -> i64 "DontInline" {
        %zero = spirv.Constant 0 : i64
        %done = spirv.IEqual %n, %zero : i64
        spirv.BranchConditional %done, ^end, ^more
      ^more:
        %one = spirv.Constant 1 : i64
        %m = spirv.ISub %n, %one : i64
        %r = spirv.FunctionCall @countdown(%m) : (i64) -> i64
        %addr = spirv.mlir.addressof @__builtin__NumWorkgroups__ : !spirv.ptr<vector<3xi64>, Input>
        %v = spirv.Load "Input" %addr : vector<3xi64>
        %b = spirv.FunctionCall @block_x() : () -> i64
        spirv.ReturnValue %b : i64
      ^end:
        spirv.ReturnValue %n : i64
      }
      spirv.func @reports() "None" {
        %addr = spirv.mlir.addressof @__builtin__LocalInvocationId__ : !spirv.ptr<vector<3xi64>, Input>
        %v = spirv.Load "Input" %addr : vector<3xi64>
        %x = spirv.CompositeExtract %v[0 : i32] : vector<3xi64>
        %r = spirv.FunctionCall @countdown(%x) : (i64) -> i64
        spirv.Return
      }
      spirv.func @quiet() "None" {
        spirv.Return
      }
      spirv.func @own() "None" {
        %addr = spirv.mlir.addressof @__builtin__LocalInvocationId__ : !spirv.ptr<vector<3xi64>, Input>
        %v = spirv.Load "Input" %addr : vector<3xi64>
        spirv.Return
      }
      spirv.EntryPoint "Kernel" @reports, @__builtin__LocalInvocationId__
      spirv.EntryPoint "Kernel" @quiet
      spirv.EntryPoint "Kernel" @own, @__builtin__LocalInvocationId__
    }
  }
}
