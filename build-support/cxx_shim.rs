//! Compiling a crate's small C++ shim against the headers of the LLVM 22 that libclang and MLIR
//! come from (shared by the build scripts of frontend/ and dialect-passes/, which include it).
use std::process::Command;

/// Compiles `source` (relative to the crate) into the static library `library`, linked into the
/// crate. `headers` names what the shim reads, for the error when llvm-config cannot be run.
pub fn build(source: &str, library: &str, headers: &str) {
    let llvm_config =
        std::env::var("LLVM_CONFIG_PATH").unwrap_or_else(|_| "llvm-config-22".to_string());
    let include_dir = Command::new(&llvm_config)
        .arg("--includedir")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| panic!("cannot run '{llvm_config}' to find {headers}"));
    println!("cargo:rerun-if-changed={source}");
    println!("cargo:rerun-if-changed=../build-support/cxx_shim.rs");
    println!("cargo:rerun-if-env-changed=LLVM_CONFIG_PATH");
    cc::Build::new()
        .cpp(true)
        .std("c++17")
        .include(include_dir)
        .flag("-fno-exceptions")
        .flag("-fno-rtti")
        // As the LLVM libraries were built: class layouts must match theirs.
        .define("NDEBUG", None)
        .warnings(false)
        .file(source)
        .compile(library);
}
