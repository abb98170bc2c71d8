//! Every test program builds with hipmlir and passes on the OpenCL device: each one compares
//! the device's output with a host reference on every element and prints PASSED.
mod common;

use common::*;

#[test]
fn example_vector_add_passes() {
    let dir = scratch();
    let exe = build(&repo().join("examples/vector_add.hip"), dir.path(), None);
    let out = run_program(&exe);
    assert!(out.contains("PASSED: 1048576 elements"), "{out}");
}

#[test]
fn test_programs_pass() {
    let dir = scratch();
    for program in programs() {
        let exe = build(&program, dir.path(), None);
        run_program(&exe);
    }
}

#[test]
fn test_programs_pass_with_clang_and_libcxx() {
    let dir = scratch();
    for program in programs() {
        let exe = build(&program, dir.path(), Some("clang++-22 -stdlib=libc++"));
        run_program(&exe);
    }
}

#[test]
fn executable_finds_the_runtime_by_rpath_and_the_device_with_no_variables() {
    let dir = scratch();
    let exe = build(&repo().join("examples/vector_add.hip"), dir.path(), None);
    let out = std::process::Command::new(&exe)
        .env_clear()
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("PASSED"));
}

#[test]
fn kernel_printf_output_appears_by_synchronize() {
    let dir = scratch();
    let exe = build(
        &repo().join("tests/printf/kernel_printf.hip"),
        dir.path(),
        None,
    );
    let out = run_program(&exe);
    let expected = [
        "thread 0: int 7 unsigned 4000000000 hex ff char A",
        "thread 1: int 8 unsigned 4000000000 hex 100 char B",
        "thread 0: float 0.000000 1.500 1.234568e+04 0.5 width [    1.50]",
        "thread 1: float 1.500000 1.500 1.234568e+04 0.5 width [    1.50]",
        "thread 0: long 1234567890123 long long 1234567890123 string text",
        "thread 1: long -42 long long -42 string text",
    ];
    for line in expected {
        assert_eq!(out.matches(line).count(), 1, "{line:?} once in:\n{out}");
    }
    // Everything the kernel printed came before the host's line after the synchronize.
    let last_kernel_line = expected.iter().filter_map(|l| out.find(l)).max().unwrap();
    assert!(
        last_kernel_line < out.find("kernel_printf PASSED").unwrap(),
        "{out}"
    );
}

/// Device printf writes the bytes of its format and `%s` strings as the source has them, bytes
/// above 0x7f included (string_literal_bytes.hip checks the rest of its bytes itself).
#[test]
fn device_printf_keeps_bytes_that_are_not_utf8() {
    let dir = scratch();
    let exe = build(
        &repo().join("tests/programs/string_literal_bytes.hip"),
        dir.path(),
        None,
    );
    let out = std::process::Command::new(&exe)
        .env("HIPMLIR_CACHE_DIR", dir.path().join("cache"))
        .output()
        .expect("program runs");
    assert!(out.status.success(), "{}", stderr(&out));
    let line: &[u8] = b"printf bytes: [caf\xe9 \xe9] [\xe9t\xe9\xff]\n";
    assert!(
        out.stdout.windows(line.len()).any(|w| w == line),
        "{:?}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// A failed assert in device code stops the program, as HIP does: the assertion's message is
/// printed, the runtime names the kernel, and the process ends with SIGABRT before the host
/// goes on to use the kernel's results.
#[test]
fn a_failed_device_assert_stops_the_program() {
    let dir = scratch();
    let source = dir.path().join("failing_assert.hip");
    std::fs::write(
        &source,
        r#"#include <hip/hip_runtime.h>
#include <cassert>
#include <cstdio>
__device__ int checked(const int* p, int i, int n) {
  assert(i < n && "index in range");
  return p[i < n ? i : 0];
}
__global__ void read_past(const int* p, int* out, int n) {
  int i = threadIdx.x;
  out[i] = checked(p, i + 1, n);
}
int main() {
  int *p = nullptr, *out = nullptr;
  if (hipMalloc(&p, 64 * sizeof(int)) != hipSuccess) return 1;
  if (hipMalloc(&out, 64 * sizeof(int)) != hipSuccess) return 1;
  read_past<<<1, 64>>>(p, out, 64);
  hipDeviceSynchronize();
  std::printf("the host went on after the failed assert\n");
  return 0;
}
"#,
    )
    .unwrap();
    let exe = build(&source, dir.path(), None);
    let out = std::process::Command::new(&exe)
        .env("HIPMLIR_CACHE_DIR", dir.path().join("cache"))
        .output()
        .expect("program runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), Some(6), "SIGABRT expected:\n{text}");
    assert!(
        text.contains("Device-side assertion `i < n && \"index in range\"' failed."),
        "{text}"
    );
    assert!(
        text.contains("kernel 'read_past' stopped the program from device code"),
        "{text}"
    );
    assert!(!text.contains("the host went on"), "{text}");
    // An abort the program asked for, not a crash: no crash handler's report.
    assert!(!text.contains("PLEASE submit a bug report"), "{text}");
}

/// `__builtin_trap()`, CUDA's `__trap()`, `abort()`, a failed assert and a call through a
/// function pointer naming no device function stop the program alike (tests/stopping_programs/device_trap.hip, which the GPU check runs too): the
/// runtime names the kernel and the process ends with SIGABRT before the host uses the kernel's
/// results (on OpenCL, where nothing stops a work-item, as on a GPU).
#[test]
fn a_device_trap_stops_the_program() {
    let dir = scratch();
    let exe = build(
        &repo().join("tests/stopping_programs/device_trap.hip"),
        dir.path(),
        None,
    );
    for (how, kernel) in [
        ("builtin_trap", "halve<0>"),
        ("trap", "halve<1>"),
        ("abort", "halve<2>"),
        ("assert", "halve<3>"),
        ("bad_function_pointer", "apply_through"),
    ] {
        let out = std::process::Command::new(&exe)
            .arg(how)
            .env("HIPMLIR_CACHE_DIR", dir.path().join("cache"))
            .output()
            .expect("program runs");
        let text = format!("{}{}", stdout(&out), stderr(&out));
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(
            out.status.signal(),
            Some(6),
            "{how}: SIGABRT expected:\n{text}"
        );
        assert!(
            text.contains(&format!(
                "kernel '{kernel}' stopped the program from device code (a trap"
            )),
            "{how}: {text}"
        );
        assert!(!text.contains("the host went on"), "{how}: {text}");
        assert!(
            !text.contains("PLEASE submit a bug report"),
            "{how}: {text}"
        );
    }
}

/// A virtual call on an object device code did not construct (one copied from host memory,
/// whose virtual table pointer means nothing on the device) stops the program, naming the
/// function, before the host uses the kernel's results.
#[test]
fn a_virtual_call_on_a_host_built_object_stops_the_program() {
    let dir = scratch();
    let source = dir.path().join("host_built_object.hip");
    std::fs::write(
        &source,
        r#"#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstring>
struct Shape {
  __host__ __device__ virtual float area() const { return 0.0f; }
};
struct Square : Shape {
  float side = 2.0f;
  __host__ __device__ float area() const override { return side * side; }
};
__global__ void areas(const Shape* shapes, float* out) {
  // Device code builds a Square too, so the dispatcher knows the class.
  Square local;
  out[threadIdx.x] = shapes[0].area() + local.area();
}
int main() {
  Square host_square;
  Square* shapes = nullptr;
  float* out = nullptr;
  if (hipMalloc(&shapes, sizeof(Square)) != hipSuccess) return 1;
  if (hipMalloc(&out, 4 * sizeof(float)) != hipSuccess) return 1;
  hipMemcpy(shapes, &host_square, sizeof(Square), hipMemcpyHostToDevice);
  areas<<<1, 4>>>(shapes, out);
  hipDeviceSynchronize();
  std::printf("the host went on after the bad virtual call\n");
  return 0;
}
"#,
    )
    .unwrap();
    let exe = build(&source, dir.path(), None);
    let out = std::process::Command::new(&exe)
        .env("HIPMLIR_CACHE_DIR", dir.path().join("cache"))
        .output()
        .expect("program runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), Some(6), "SIGABRT expected:\n{text}");
    assert!(
        text.contains(
            "Device-side virtual call of Shape::area on an object that device code did not \
             construct."
        ),
        "{text}"
    );
    assert!(!text.contains("the host went on"), "{text}");
}

/// A call through a pointer that names no device function of the module (null, a host
/// function's address) has no target: the work-item reports the pointer and the program stops
/// as at a trap, before the host uses the kernel's results (OpenCL cannot stop the work-item:
/// it runs on to its second bad call, which reports too).
#[test]
fn calls_through_unknown_function_pointers_stop_the_program() {
    let dir = scratch();
    let source = dir.path().join("unknown_function_pointer.hip");
    std::fs::write(
        &source,
        r#"#include <hip/hip_runtime.h>
#include <cstdio>
typedef int (*Op)(int);
__device__ int twice(int x) { return 2 * x; }
int host_function(int x) { return x; }
__global__ void k(Op from_host, int* out, int choose) {
  Op chosen = choose ? twice : nullptr;
  out[0] = from_host(5);
  out[1] = chosen(7);
  out[2] = (choose ? chosen : twice)(4);
}
int main() {
  int* d = nullptr;
  if (hipMalloc(&d, 3 * sizeof(int)) != hipSuccess) return 1;
  k<<<1, 1>>>(host_function, d, 0);
  int h[3] = {-1, -1, -1};
  hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost);
  std::printf("the host went on: results %d %d %d\n", h[0], h[1], h[2]);
  return 0;
}
"#,
    )
    .unwrap();
    let exe = build(&source, dir.path(), None);
    let out = std::process::Command::new(&exe)
        .env("HIPMLIR_CACHE_DIR", dir.path().join("cache"))
        .output()
        .expect("program runs");
    let text = format!("{}{}", stdout(&out), stderr(&out));
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), Some(6), "SIGABRT expected:\n{text}");
    let report = "that names no device function of this module; the program stops";
    assert_eq!(text.matches(report).count(), 2, "{text}");
    assert!(text.contains("function pointer (0x0)"), "{text}");
    assert!(
        text.contains("kernel 'k' stopped the program from device code"),
        "{text}"
    );
    assert!(!text.contains("the host went on"), "{text}");
}
