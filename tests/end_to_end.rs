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
