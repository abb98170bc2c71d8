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
