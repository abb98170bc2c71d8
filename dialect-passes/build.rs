//! Builds the small C++ shim that makes SPIR-V types and attributes (cxx/spirv_ir.cpp), against
//! the headers of the MLIR that mlir-sys links.
#[path = "../build-support/cxx_shim.rs"]
mod cxx_shim;

fn main() {
    cxx_shim::build("cxx/spirv_ir.cpp", "hipmlir_spirv_ir", "MLIR's headers");
}
