//! `hipmlir`: compiles HIP programs for OpenCL devices that take SPIR-V.
mod build;
mod cli;
mod device;
mod dump;
mod elf;
mod hipconfig;
mod host;
mod host_overlay;
mod host_pch;
mod host_preamble;
mod inspect;
mod outputs;
mod paths;
mod time_report;

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
    // libclang parses on a thread of its own with an 8 MiB stack unless told not to; parsed on
    // ours instead, deeply nested sources get the stack below. Set before any thread starts.
    std::env::set_var("LIBCLANG_NOTHREADS", "1");
    // Clang's parser and Sema, our AST walk and MLIR's passes all recurse on the nesting of the
    // source: a 10,000-deep `- - - a` or `a ? b : c ? ...` needs hundreds of MiB of stack, which
    // is only address space until it is touched.
    let tool = invoked_as();
    let compile = std::thread::Builder::new()
        .name("hipmlir".into())
        .stack_size(COMPILE_STACK)
        .spawn(move || {
            if tool == "hipconfig" {
                hipconfig::run(&args).map(|()| ExitCode::SUCCESS)
            } else {
                run(&args)
            }
        });
    let result = match compile {
        Ok(thread) => thread.join(),
        Err(e) => Ok(Err(format!(
            "hipmlir: error: cannot start the compile thread with a {} MiB stack: {e}",
            COMPILE_STACK >> 20
        ))),
    };
    match result {
        Ok(Ok(code)) => code,
        Ok(Err(e)) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
        Err(_) => ExitCode::FAILURE,
    }
}

/// The compile thread's stack: enough for clang's own limits (`-fbracket-depth`, template and
/// constexpr depths) and for nesting no limit bounds up to depths far beyond real code.
const COMPILE_STACK: usize = 2 << 30;
