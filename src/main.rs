//! `hipmlir`: compiles HIP programs for OpenCL devices that take SPIR-V.
mod build;
mod cli;
mod device;
mod dump;
mod elf;
mod host;
mod host_overlay;
mod inspect;
mod outputs;
mod paths;

use std::process::ExitCode;

use cli::Command;

fn run(args: &[String]) -> Result<ExitCode, String> {
    match cli::parse(args)? {
        Command::Help => print!("{}", cli::USAGE),
        Command::Version => println!("hipmlir {}", env!("CARGO_PKG_VERSION")),
        Command::PrintIncludeDir => {
            println!("{}", paths::Toolchain::locate()?.include_dir.display())
        }
        Command::PrintRuntimeDir => {
            println!("{}", paths::Toolchain::locate()?.runtime_dir.display())
        }
        Command::Inspect(files) => return inspect::inspect(&files),
        Command::Build(opts) => build::build(&opts)?,
    }
    Ok(ExitCode::SUCCESS)
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
    match std::panic::catch_unwind(|| run(&args)) {
        Ok(Ok(code)) => code,
        Ok(Err(e)) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
        Err(_) => ExitCode::FAILURE,
    }
}
