//! Command-line flags and what each mode does.

use std::path::PathBuf;

use clap::{Parser, ValueEnum};

use crate::device::{compile_device, Stage};
use crate::host::build_executable;
use crate::paths::Toolchain;

#[derive(Debug, Parser)]
#[command(
    name = "hipmlir",
    version,
    about = "An MLIR-based HIP compiler for OpenCL devices that take SPIR-V",
    long_about = "Compiles a HIP program (kernels and host code) into an executable that runs its \
                  kernels on an OpenCL device through SPIR-V, or emits the SPIR-V or an MLIR stage."
)]
pub struct Args {
    /// The HIP source file.
    pub input: PathBuf,
    /// Output file (`-` for stdout with --emit-mlir).
    #[arg(short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Write the kernels' SPIR-V module instead of building an executable.
    #[arg(long, conflicts_with = "emit_mlir")]
    pub emit_spirv: bool,
    /// Write the MLIR of one pipeline stage instead of building an executable.
    #[arg(long, value_name = "STAGE")]
    pub emit_mlir: Option<EmitStage>,
    /// Print the MLIR after every pass to stderr.
    #[arg(long)]
    pub mlir_print_ir_after_all: bool,
    /// Add a folder to the include search path.
    #[arg(short = 'I', value_name = "DIR")]
    pub include_dirs: Vec<PathBuf>,
    /// Define a macro (`-DNAME` or `-DNAME=VALUE`).
    #[arg(short = 'D', value_name = "MACRO")]
    pub defines: Vec<String>,
    /// Language standard for device and host code.
    #[arg(long = "std", value_name = "STD")]
    pub std: Option<String>,
    /// Print the commands hipmlir runs.
    #[arg(short = 'v')]
    pub verbose: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EmitStage {
    /// The frontend's output: kernels as func.func with hipmlir.kernel_args.
    Frontend,
    /// Kernels outlined into a gpu.module as gpu.func.
    Outlined,
    /// HIP semantics lowered, ready for SPIR-V conversion.
    Lowered,
    /// The spirv.module that is serialized.
    Spirv,
}

/// Runs one invocation; the error is printed as is (clang-style diagnostics).
pub fn run(args: &Args) -> Result<(), String> {
    let toolchain = Toolchain::locate()?;
    let options = hipmlir_frontend::FrontendOptions {
        hip_headers: toolchain.include_dir.clone(),
        include_dirs: args.include_dirs.clone(),
        macro_flags: args.defines.iter().map(|d| format!("-D{d}")).collect(),
        std: args.std.clone(),
    };
    let stop_at = match (args.emit_mlir, args.emit_spirv) {
        (Some(EmitStage::Frontend), _) => Stage::Frontend,
        (Some(EmitStage::Outlined), _) => Stage::Outlined,
        (Some(EmitStage::Lowered), _) => Stage::Lowered,
        (Some(EmitStage::Spirv), _) => Stage::SpirvDialect,
        (None, _) => Stage::Binary,
    };
    let device = compile_device(&args.input, &options, stop_at, args.mlir_print_ir_after_all)?;
    for w in &device.warnings {
        eprintln!("{w}");
    }
    if let Some(text) = &device.mlir_text {
        return write_output(args.output.as_ref(), text.as_bytes(), "-");
    }
    if args.emit_spirv {
        let default = args.input.with_extension("spv");
        return write_output(
            args.output.as_ref(),
            &device.image.spirv,
            &default.to_string_lossy(),
        );
    }
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from("a.out"));
    build_executable(args, &toolchain, &device, &output)
}

fn write_output(output: Option<&PathBuf>, bytes: &[u8], default: &str) -> Result<(), String> {
    let path = output.cloned().unwrap_or_else(|| PathBuf::from(default));
    if path.as_os_str() == "-" {
        use std::io::Write;
        return std::io::stdout()
            .write_all(bytes)
            .map_err(|e| format!("hipmlir: error: cannot write to stdout: {e}"));
    }
    std::fs::write(&path, bytes)
        .map_err(|e| format!("hipmlir: error: cannot write '{}': {e}", path.display()))
}
