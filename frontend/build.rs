//! Builds the small C++ shims that read statement parts from clang's AST nodes
//! (cxx/statement_parts.cpp), read virtual bases' offsets (cxx/record_layout.cpp) and trim a precompiled header (cxx/precompiled_header.cpp), against
//! the headers of the LLVM that libclang comes from.
#[path = "../build-support/cxx_shim.rs"]
mod cxx_shim;

fn main() {
    println!("cargo:rerun-if-changed=cxx/translation_unit.h");
    cxx_shim::build(
        "cxx/statement_parts.cpp",
        "hipmlir_statement_parts",
        "clang's headers",
    );
    cxx_shim::build(
        "cxx/record_layout.cpp",
        "hipmlir_record_layout",
        "clang's headers",
    );
    cxx_shim::build(
        "cxx/precompiled_header.cpp",
        "hipmlir_precompiled_header",
        "clang's headers",
    );
}
