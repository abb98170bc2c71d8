//! `hipmlir`: compiles HIP programs for OpenCL devices that take SPIR-V.
mod cli;
mod device;
mod host;
mod paths;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Args::parse();
    match cli::run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
