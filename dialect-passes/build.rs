//! Builds the small C++ shim that makes SPIR-V types and attributes (cxx/spirv_ir.cpp), against
//! the headers of the MLIR that mlir-sys links.
use std::process::Command;

fn main() {
    let llvm_config =
        std::env::var("LLVM_CONFIG_PATH").unwrap_or_else(|_| "llvm-config-22".to_string());
    let include_dir = Command::new(&llvm_config)
        .arg("--includedir")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| panic!("cannot run '{llvm_config}' to find MLIR's headers"));
    println!("cargo:rerun-if-changed=cxx/spirv_ir.cpp");
    println!("cargo:rerun-if-env-changed=LLVM_CONFIG_PATH");
    cc::Build::new()
        .cpp(true)
        .std("c++17")
        .include(include_dir)
        .flag("-fno-exceptions")
        .flag("-fno-rtti")
        .warnings(false)
        .file("cxx/spirv_ir.cpp")
        .compile("hipmlir_spirv_ir");
}
