//! hipGetProcAddress from a C program linked with the libhipmlir_rt.so of this build
//! (tests/c/proc_address.c): every function the library exports resolves, by name, to the
//! library's own; calls made through the pointers give the right results on the device; the
//! version, flag and argument checks answer as documented.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::*;

#[test]
fn every_exported_function_resolves_by_name_and_calls_work() {
    let dir = scratch_dir("proc-address");
    let lib = runtime_lib_dir();
    let exe = dir.join("proc_address");
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/proc_address.c");
    let built = Command::new("cc")
        .arg(&source)
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg("-lhipmlir_rt")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-ldl")
        .output()
        .expect("run cc");
    assert!(
        built.status.success(),
        "cc failed:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let names = exported_functions();
    assert!(names.len() > 100);
    // The library it was linked with (its run path), not another build's on LD_LIBRARY_PATH.
    let mut child = Command::new(&exe)
        .env_remove("LD_LIBRARY_PATH")
        .env("HIPMLIR_CACHE_DIR", dir.join("cache"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the program");
    let mut stdin = child.stdin.take().unwrap();
    for name in &names {
        writeln!(stdin, "{name}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && text.contains(&format!("proc_address PASSED {}", names.len())),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
