//! Builds the small C++ shim that reads statement parts from clang's AST nodes (see
//! cxx/statement_parts.cpp), against the headers of the LLVM that libclang comes from.
#[path = "../build-support/cxx_shim.rs"]
mod cxx_shim;

fn main() {
    cxx_shim::build(
        "cxx/statement_parts.cpp",
        "hipmlir_statement_parts",
        "clang's headers",
    );
}
