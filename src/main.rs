//! `hipmlir-compiler`: compiles HIP programs for OpenCL devices that take SPIR-V. Users call it
//! through the `hipmlir` launcher (src/launcher.rs), which runs it in a child of the compile
//! server (`--serve-compiles`, hipmlir-compile-server) or in its own place. The compiler is the
//! library's (src/lib.rs), which hiprtc shares.
fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(hipmlir_compiler::main())
}
