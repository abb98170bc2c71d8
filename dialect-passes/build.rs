//! Builds the small C++ shims that make SPIR-V types and attributes (cxx/spirv_ir.cpp) and
//! register the upstream passes the pipelines name (cxx/upstream_passes.cpp), against the
//! headers of the MLIR that mlir-sys links.
#[path = "../build-support/cxx_shim.rs"]
mod cxx_shim;

fn main() {
    cxx_shim::build("cxx/spirv_ir.cpp", "hipmlir_spirv_ir", "MLIR's headers");
    cxx_shim::build(
        "cxx/upstream_passes.cpp",
        "hipmlir_upstream_passes",
        "MLIR's headers",
    );
}
