//! hiprtc (`libhiprtc.so`, hiprtc/) from real HIP programs built by hipmlir
//! (tests/hiprtc_programs/*.cpp): kernels compiled at run time, loaded with hipModuleLoadData and
//! run on the OpenCL device, every element compared with a host reference; and the API's answers
//! to misuse. The programs call hiprtc without naming the library: hipmlir links it where a
//! program calls it, as the runtime of a SPIR-V platform provides it. The compile cache is a
//! temporary folder, never the user's.
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

fn program(name: &str) -> PathBuf {
    repo().join("tests/hiprtc_programs").join(name)
}

/// Builds `name` and runs it with the compile cache in `cache`; its output.
fn run_with_cache(exe: &Path, cache: &Path) -> String {
    let out = Command::new(exe)
        .env("HIPMLIR_CACHE_DIR", cache)
        .output()
        .expect("the program runs");
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        out.status.success() && text.contains("PASSED"),
        "{} failed ({}):\n{text}",
        exe.display(),
        out.status
    );
    text
}

fn build_and_run(name: &str) -> String {
    let dir = scratch();
    let exe = build(&program(name), dir.path(), None);
    run_with_cache(&exe, &dir.path().join("cache"))
}

#[test]
fn templates_headers_and_name_expressions() {
    let out = build_and_run("rtc_templates.cpp");
    assert!(out.contains("rtc_templates PASSED"), "{out}");
}

#[test]
fn bad_input_is_an_error_code_never_a_crash() {
    let out = build_and_run("rtc_errors.cpp");
    assert!(out.contains("rtc_errors PASSED"), "{out}");
}

/// `-fsanitize=address` among hiprtc's options: the memory checker catches a bad write of a
/// kernel compiled at run time.
#[test]
fn the_memory_checker_at_run_time() {
    let out = build_and_run("rtc_memcheck.cpp");
    assert!(out.contains("rtc_memcheck PASSED"), "{out}");
    assert!(
        out.contains("memory checker: illegal write of 4 bytes"),
        "{out}"
    );
}

#[test]
fn relocatable_programs_link() {
    let out = build_and_run("rtc_link.cpp");
    assert!(out.contains("rtc_link PASSED"), "{out}");
}

/// A header from an `-I` folder, changed between compiles (each program run compiles with it,
/// compiles again, changes it and compiles once more): every compile after the change sees it,
/// the cache keeps what was compiled, and a damaged cache entry is compiled again.
#[test]
fn include_folders_and_the_compile_cache() {
    let dir = scratch();
    let exe = build(&program("rtc_include_dirs.cpp"), dir.path(), None);
    let cache = dir.path().join("cache");
    run_with_cache(&exe, &cache);
    let entries = |cache: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(cache.join("hiprtc"))
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default()
    };
    let kept = entries(&cache);
    assert!(
        kept.iter()
            .any(|p| p.extension().is_some_and(|x| x == "rtc")),
        "no compile was cached: {kept:?}"
    );
    run_with_cache(&exe, &cache);
    // A damaged entry is compiled again, not loaded.
    for entry in entries(&cache) {
        std::fs::write(&entry, b"damaged").unwrap();
    }
    run_with_cache(&exe, &cache);
}

/// hip/hiprtc.h is C as well as C++, as HIP's is.
#[test]
fn the_header_is_c() {
    let dir = scratch();
    let source = dir.path().join("uses_hiprtc.c");
    std::fs::write(
        &source,
        "#include <hip/hiprtc.h>\n\
         int main(void) {\n\
           hiprtcProgram p;\n\
           int major, minor;\n\
           return hiprtcVersion(&major, &minor) == HIPRTC_SUCCESS ? 0 : (int)sizeof(p);\n\
         }\n",
    )
    .unwrap();
    let out = Command::new("cc")
        .args(["-std=c99", "-Wall", "-Werror", "-fsyntax-only", "-I"])
        .arg(repo().join("headers"))
        .arg(&source)
        .output()
        .expect("cc runs");
    assert!(out.status.success(), "{}", stderr(&out));
}

/// The runtime library links no MLIR or libclang, and does not hold hiprtc: hiprtc is a
/// library of its own, loaded only by programs that compile at run time.
#[test]
fn the_runtime_stays_free_of_the_compiler() {
    let release = PathBuf::from(env!("CARGO_BIN_EXE_hipmlir"))
        .parent()
        .expect("the build folder")
        .to_path_buf();
    let dynamic = |library: &str| {
        let out = Command::new("readelf")
            .args(["--dyn-syms", "-d", "-W"])
            .arg(release.join(library))
            .output()
            .expect("readelf runs");
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    let runtime = dynamic("libhipmlir_rt.so");
    for compiler in ["libclang", "libLLVM", "libMLIR", "hiprtcCompileProgram"] {
        assert!(
            !runtime.contains(compiler),
            "libhipmlir_rt.so names {compiler}"
        );
    }
    assert!(dynamic("libhiprtc.so").contains("hiprtcCompileProgram"));
}
