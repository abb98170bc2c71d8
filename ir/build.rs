//! Builds the small C++ shim that makes gpu and arith enum attributes (cxx/attributes.cpp),
//! against the headers of the MLIR that mlir-sys links.
#[path = "../build-support/cxx_shim.rs"]
mod cxx_shim;

fn main() {
    cxx_shim::build(
        "cxx/attributes.cpp",
        "hipmlir_ir_attributes",
        "MLIR's headers",
    );
}
