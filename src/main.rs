//! `hipmlir`: compiles HIP programs for OpenCL devices that take SPIR-V.
mod build;
mod cli;
mod device;
mod dump;
mod elf;
mod hipconfig;
mod host;
mod host_overlay;
mod inspect;
mod paths;

use std::process::ExitCode;

use cli::Command;

fn run(args: &[String]) -> Result<ExitCode, String> {
    match cli::parse(args)? {
        Command::Help => print!("{}", cli::USAGE),
        Command::Version => println!("{}", version_text()),
        Command::PrintIncludeDir => {
            println!("{}", paths::Toolchain::locate()?.include_dir.display())
        }
        Command::PrintRuntimeDir => {
            println!("{}", paths::Toolchain::locate()?.runtime_dir.display())
        }
        Command::ListPasses => print!("{}", hipmlir_dialect_passes::describe_passes()),
        Command::Inspect(files) => return inspect::inspect(&files),
        Command::Build(opts) => build::build(&opts)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// hipmlir's version, the HIP API level its headers implement and the LLVM/MLIR it is built on.
pub fn version_text() -> String {
    let (major, minor, patch) = hipmlir_device_image::hip_api_version();
    format!(
        "hipmlir {} (HIP {major}.{minor}.{patch}, SPIR-V platform)\nLLVM/MLIR/libclang: {}",
        env!("CARGO_PKG_VERSION"),
        hipmlir_frontend::clang::clang_version()
    )
}

/// The name hipmlir was called by: installed as `hipcc` and `hipconfig` too, it acts as those.
fn invoked_as() -> String {
    std::env::args_os()
        .next()
        .map(std::path::PathBuf::from)
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default()
}

extern "C" {
    fn signal(signum: i32, handler: usize) -> usize;
}

fn main() -> ExitCode {
    // Like other command-line tools, stop quietly when the reader of stdout goes away
    // (`hipmlir inspect app | head`) instead of failing on EPIPE.
    // SAFETY: SIGPIPE (13) back to its default action (SIG_DFL, 0); nothing else is involved.
    unsafe { signal(13, 0) };
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    // A bug must still end in one clear line and a failure status.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("hipmlir: error: internal compiler error: {info}");
    }));
    let tool = invoked_as();
    match std::panic::catch_unwind(|| {
        if tool == "hipconfig" {
            hipconfig::run(&args).map(|()| ExitCode::SUCCESS)
        } else {
            run(&args)
        }
    }) {
        Ok(Ok(code)) => code,
        Ok(Err(e)) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
        Err(_) => ExitCode::FAILURE,
    }
}
