//! Bad input gets a clang-style diagnostic and a non-zero exit, never a panic.
mod common;

use common::*;

/// Compiles `source` (written to a file) and returns (exit code, stderr).
fn compile(name: &str, source: &str, extra: &[&str]) -> (i32, String, String) {
    let dir = scratch();
    let path = dir.path().join(name);
    std::fs::write(&path, source).unwrap();
    let mut args = vec![path.to_str().unwrap().to_string()];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend([
        "-o".to_string(),
        dir.path().join("out").to_str().unwrap().to_string(),
    ]);
    let out = hipmlir().args(&args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        stderr(&out),
        path.to_str().unwrap().to_string(),
    )
}

fn assert_clean_failure(code: i32, err: &str) {
    assert_eq!(code, 1, "exit code 1 expected:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn missing_file() {
    let out = run_hipmlir(&["/nonexistent/k.hip", "--emit-spirv", "-o", "/dev/null"]);
    let err = stderr(&out);
    assert_clean_failure(out.status.code().unwrap_or(-1), &err);
    // As clang reports a missing input.
    assert!(
        err.contains("error: no such file or directory: '/nonexistent/k.hip'"),
        "{err}"
    );
}

#[test]
fn syntax_error_is_reported_at_its_line_and_column() {
    let (code, err, path) = compile(
        "bad.hip",
        "#include <hip/hip_runtime.h>\n__global__ void k(int* a) {\n  a[0] = 1\n}\n",
        &["--emit-spirv"],
    );
    assert_clean_failure(code, &err);
    assert!(
        err.contains(&format!("{path}:3:11: error: expected ';'")),
        "{err}"
    );
}

#[test]
fn unsupported_construct_is_named_with_its_location() {
    // Across a switch's unbraced body, from one branch of an `if` into the other: running the
    // switch again would enter it, past its condition variable's initialization.
    let (code, err, path) = compile(
        "unsupported.hip",
        "#include <hip/hip_runtime.h>\n__global__ void k(int* a) {\n  switch (int k = a[0])\n    if (k & 1) {\n    odd:\n      a[1] += k;\n    } else if (a[1] < 30) {\n      goto odd;\n    }\n}\n",
        &["--emit-spirv"],
    );
    assert_clean_failure(code, &err);
    assert!(
        err.contains(&format!(
            "{path}:8:7: error: unsupported construct in device code: goto jumping into a switch \
             whose condition declares a variable holding label 'odd'"
        )),
        "{err}"
    );
    // Into a loop whose condition declares a variable: past its initialization, which clang
    // refuses.
    let (code, err, path) = compile(
        "declared.hip",
        "#include <hip/hip_runtime.h>\n__global__ void k(int* a) {\n  if (a[0]) goto in;\n  while (int n = a[1]--) {\n  in:\n    a[2] += 1;\n  }\n}\n",
        &["--emit-spirv"],
    );
    assert_clean_failure(code, &err);
    assert!(
        err.contains(&format!(
            "{path}:3:13: error: cannot jump from this goto statement to its label"
        )),
        "{err}"
    );
}

#[test]
fn host_lambdas_capturing_references_or_this_are_rejected() {
    // A host variable's address means nothing on the device: clang's own error.
    let source = "#include <hip/hip_runtime.h>
template <typename F> __global__ void k(F f, int* out) { out[threadIdx.x] = f(threadIdx.x); }
void run(int* out) {
  int base = 3;
  k<<<1, 32>>>([&] __device__(int i) { return base + i; }, out);
}
";
    let (code, err, path) = compile("lambda_by_reference.hip", source, &["--emit-spirv"]);
    assert_clean_failure(code, &err);
    assert!(
        err.contains(&format!(
            "{path}:5:47: error: capture host variable 'base' by reference in device or host \
             device lambda function"
        )),
        "{err}"
    );
    let source = "#include <hip/hip_runtime.h>
template <typename F> __global__ void k(F f, int* out) { out[threadIdx.x] = f(threadIdx.x); }
struct Offsets {
  int base = 3;
  void run(int* out) { k<<<1, 32>>>([=] __device__(int i) { return base + i; }, out); }
};
";
    let (code, err, path) = compile("lambda_this.hip", source, &["--emit-spirv"]);
    assert_clean_failure(code, &err);
    assert!(
        err.contains(&format!(
            "{path}:5:37: error: unsupported construct in device code: lambda passed from host \
             code capturing 'this' by reference (a host address, which device code cannot \
             reach; capture a copy: '*this')"
        )),
        "{err}"
    );
}

#[test]
fn static_local_with_a_computed_initializer_is_named() {
    // A mutable static local is a device variable; one initialized from a value known only at
    // run time (which needs a guarded first-call initialization) is not built.
    let source = "#include <hip/hip_runtime.h>
__global__ void k(int* a) {
  static const int table[2] = {4, 5};
  static int calls = threadIdx.x;
  a[0] = table[++calls & 1];
}
";
    let (code, err, path) = compile("static_local.hip", source, &["--emit-spirv"]);
    assert_clean_failure(code, &err);
    assert!(
        err.contains(&format!(
            "{path}:4:32: error: unsupported construct in device code: a device variable \
             initializer that is not constant"
        )),
        "{err}"
    );
}

#[test]
fn device_pointers_initialized_with_addresses_targets_cannot_hold_are_named() {
    // A variable holding its own address: SPIR-V defines an initializer before its variable.
    let source = "#include <hip/hip_runtime.h>
struct Node { Node* next; int value; };
__device__ Node ring = {&ring, 1};
__global__ void k(int* a) { a[0] = ring.next->value; }
";
    let (code, err, path) = compile("ring.hip", source, &["--emit-spirv"]);
    assert_clean_failure(code, &err);
    assert!(
        err.contains(&format!(
            "{path}:3:24: error: unsupported construct in device code: device variable 'ring' \
             initialized with its own address"
        )),
        "{err}"
    );
    // A pointer in a packed struct, at an offset the targets' pointer words cannot take.
    let source = "#include <hip/hip_runtime.h>
__device__ int table[4];
struct __attribute__((packed)) Tagged { char tag; int* p; };
__device__ Tagged tagged = {1, &table[1]};
__global__ void k(int* a) { a[0] = *tagged.p; }
";
    let (code, err, path) = compile("packed.hip", source, &["--emit-spirv"]);
    assert_clean_failure(code, &err);
    assert!(
        err.contains(&format!(
            "{path}:4:28: error: unsupported construct in device code: device variable 'tagged' \
             initialized with an address at an offset that is not a multiple of 8"
        )),
        "{err}"
    );
}

#[test]
fn variadic_device_functions_that_read_their_arguments_are_named() {
    // A variadic device function may be called (its extra arguments are evaluated and not
    // passed); one whose body reads them cannot be compiled.
    let source = "#include <hip/hip_runtime.h>
#include <cstdarg>
__device__ int sum(int n, ...) {
  va_list ap;
  va_start(ap, n);
  int s = 0;
  for (int i = 0; i < n; ++i) s += va_arg(ap, int);
  va_end(ap);
  return s;
}
__global__ void k(int* a) { a[0] = sum(2, 3, 4); }
";
    let (code, err, path) = compile("variadic.hip", source, &["--emit-spirv"]);
    assert_clean_failure(code, &err);
    assert!(
        err.contains(&format!(
            "{path}:5:3: error: unsupported construct in device code: reading the variable \
             arguments of 'sum' (va_start, va_arg): calls of a variadic device function pass \
             only its named parameters"
        )),
        "{err}"
    );
}

#[test]
fn emit_spirv_of_a_file_without_kernels_is_an_error() {
    let source = "#include <hip/hip_runtime.h>\n__device__ int twice(int x) { return 2 * x; }\n";
    let (code, err, path) = compile("no_kernels.hip", source, &["--emit-spirv"]);
    assert_clean_failure(code, &err);
    assert!(
        err.contains(&format!("hipmlir: error: '{path}' defines no kernels")),
        "{err}"
    );
}

#[test]
fn undefined_device_function_is_an_error() {
    let (code, err, path) = compile(
        "undef.hip",
        "#include <hip/hip_runtime.h>\n__device__ float f(float);\n__global__ void k(float* a) {\n  a[0] = f(a[1]);\n}\n",
        &["--emit-spirv"],
    );
    assert_clean_failure(code, &err);
    assert!(
        err.contains(&format!(
            "{path}:4:10: error: device function 'f' is not defined in this source: compile with -fgpu-rdc"
        )),
        "{err}"
    );
}

#[test]
fn host_compile_errors_fail_the_build() {
    let (code, err, path) = compile(
        "host_error.hip",
        "#include <hip/hip_runtime.h>\n__global__ void k(int* a) { a[0] = 1; }\nint main() { return undeclared_name; }\n",
        &[],
    );
    assert_clean_failure(code, &err);
    assert!(err.contains(&format!("{path}:3:21: error")), "{err}");
}

#[test]
fn help_and_version() {
    let out = run_hipmlir(&["--help"]);
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(
        text.contains("--emit-spirv") && text.contains("--emit-mlir"),
        "{text}"
    );
    let out = run_hipmlir(&["--version"]);
    assert!(out.status.success());
    assert!(stdout(&out).starts_with("hipmlir "));
}

#[test]
fn recursion_and_multiple_polymorphic_bases_are_named() {
    // Recursion itself compiles for SPIR-V (through SPV_INTEL_function_pointers); what a
    // recursive function cannot do there is named with the cycle.
    let (code, err, path) = compile(
        "recursion.hip",
        "#include <hip/hip_runtime.h>\n__device__ int sum(int n) { return n <= 0 ? __shfl(n, 0) : n + sum(n - 1); }\n__global__ void k(int* a) { a[0] = sum(a[1]); }\n",
        &["--emit-spirv"],
    );
    assert_clean_failure(code, &err);
    assert!(
        err.contains(&format!(
            "{path}:2:45: error: unsupported construct in device code: a warp operation"
        )),
        "{err}"
    );
    assert!(err.contains("'sum(int)' calls itself"), "{err}");

    // Implicit assignment of a class whose virtual base's assignment operator takes its operand
    // by value (a copy of the source would be made first).
    let (code, err, path) = compile(
        "virtual.hip",
        "#include <hip/hip_runtime.h>\nstruct A { int x; __device__ A& operator=(A o) { x = o.x + 1; return *this; } };\nstruct B : virtual A { int y; };\n__global__ void k(int* o) { B b, c; b.x = o[0]; c = b; o[1] = c.x; }\n",
        &["--emit-spirv"],
    );
    assert_clean_failure(code, &err);
    assert!(
        err.contains(&format!(
            "{path}:4:49: error: unsupported construct in device code: implicit assignment \
             calling 'operator=(A)' ({path}:2:33), which takes its operand by value"
        )),
        "{err}"
    );
}

#[test]
fn function_pointer_constructs_not_supported_are_named() {
    let cases = [
        (
            "member_struct_result.hip",
            "#include <hip/hip_runtime.h>\nstruct P { int a, b; };\nstruct S { __device__ P m(int x) { return {x, x}; } };\n__global__ void k(int* o) { P (S::*f)(int) = &S::m; S s; o[0] = (s.*f)(1).a; }\n",
            "4:65: error: unsupported construct in device code: call through a function pointer returning a struct by value",
        ),
        (
            "function_reference.hip",
            "#include <hip/hip_runtime.h>\ntemplate <typename F> __device__ int ap(F&& f, int x) { return f(x); }\n__device__ int one(int x) { return x; }\n__global__ void k(int* o) { o[0] = ap(one, 1); }\n",
            "unsupported construct in device code: reference to a function ('int (&)(int)')",
        ),
        (
            "struct_result.hip",
            "#include <hip/hip_runtime.h>\nstruct P { int a, b; };\n__device__ P mk(int x) { return {x, x}; }\n__global__ void k(int* o) { P (*f)(int) = mk; o[0] = f(1).a; }\n",
            "4:54: error: unsupported construct in device code: call through a function pointer returning a struct by value",
        ),
        (
            "library_address.hip",
            "#include <hip/hip_runtime.h>\n__global__ void k(float* o) { float (*p)(float) = sqrtf; o[0] = p(o[0]); }\n",
            "2:51: error: unsupported construct in device code: address of device library function 'sqrtf'",
        ),
    ];
    for (name, source, message) in cases {
        let (code, err, path) = compile(name, source, &["--emit-spirv"]);
        assert_clean_failure(code, &err);
        assert!(err.contains(&format!("{path}:")), "{err}");
        assert!(err.contains(message), "{name}: {err}");
    }
}
