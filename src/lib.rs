//! The compiler as a library: the whole of `hipmlir-compiler` (src/main.rs calls [`main`]),
//! whose device path (a HIP source's device code through the frontend, the device link and the
//! target pipelines to an image) hiprtc (`libhiprtc.so`, hiprtc/) compiles with too, so a
//! kernel compiled at run time is the kernel a build makes. An install holds one copy of it:
//! `libhiprtc.so`, which the installed compiler loads (src/bin/hipmlir-compiler-shared.rs).
mod build;
pub mod cli;
pub mod device;
mod dump;
pub mod elf;
pub mod error;
mod hipconfig;
mod host;
mod inspect;
mod memory_limit;
mod outputs;
pub mod paths;
mod response_files;
mod temp_folders;
pub mod time_report;

use cli::Command;
pub use error::Error;
use error::Result;
use hipmlir_compile_server::protocol::Request;

/// Runs a command; false when it failed having said why (`inspect` finding a bad image).
fn run(args: &[String]) -> Result<bool> {
    let args = response_files::expand(args.to_vec())?;
    match cli::parse(&args)? {
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
    Ok(true)
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

/// `hipmlir-compiler`'s entry point: its exit status.
pub fn main() -> u8 {
    // Like other command-line tools, stop quietly when the reader of stdout goes away
    // (`hipmlir inspect app | head`) instead of failing on EPIPE.
    // SAFETY: SIGPIPE back to its default action; nothing else is involved.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let args = match utf8_arguments(std::env::args_os().skip(1)) {
        Ok(args) => args,
        Err(status) => return status,
    };
    if args.first().map(String::as_str) == Some(hipmlir_compile_server::SERVE_OPTION) {
        return serve_compiles(&args[1..]);
    }
    compile(&invoked_as(), args)
}

/// One compile, as a process of its own or in a child of the compile server: its exit status.
fn compile(tool: &str, args: Vec<String>) -> u8 {
    // A bug must still end in one clear line and a failure status.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("hipmlir: error: internal compiler error: {info}");
    }));
    // Before any thread starts: Ctrl-C and the like leave no temporary folder behind.
    temp_folders::remove_on_signal();
    // An #include that never ends stops with an error, not with the machine's memory.
    memory_limit::watch();
    // libclang parses on a thread of its own with an 8 MiB stack unless told not to; parsed on
    // ours instead, deeply nested sources get the stack below. Set before any thread starts.
    std::env::set_var("LIBCLANG_NOTHREADS", "1");
    // Clang's parser and Sema, our AST walk and MLIR's passes all recurse on the nesting of the
    // source: a 10,000-deep `- - - a` or `a ? b : c ? ...` needs hundreds of MiB of stack, which
    // is only address space until it is touched.
    let tool = tool.to_string();
    let compile = std::thread::Builder::new()
        .name("hipmlir".into())
        .stack_size(COMPILE_STACK)
        .spawn(move || {
            if tool == "hipconfig" {
                hipconfig::run(&args).map(|()| true)
            } else {
                run(&args)
            }
        });
    let result = match compile {
        // A signal ending the compile kills its children first: the failure the compile then
        // sees is not reported, and the process ends by the signal (temp_folders).
        Ok(thread) => match thread.join().inspect(|_| temp_folders::hold_while_ending()) {
            Ok(result) => result,
            // The panic hook has said why.
            Err(_) => return 1,
        },
        Err(e) => Err(Error::Setup(format!(
            "cannot start the compile thread with a {} MiB stack: {e}",
            COMPILE_STACK >> 20
        ))),
    };
    exit_status(result)
}

/// The exit status of a command's result, its error printed: the one place where an error
/// becomes what the user reads.
fn exit_status(result: Result<bool>) -> u8 {
    match result {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(e) => {
            eprintln!("{e}");
            1
        }
    }
}

/// `hipmlir-compiler --serve-compiles SOCKET`: the compile server (started by the launcher).
fn serve_compiles(args: &[String]) -> u8 {
    exit_status(serve(args))
}

/// The compile server's life: false when it ended by a failure.
fn serve(args: &[String]) -> Result<bool> {
    let [socket] = args else {
        return Err(Error::Usage(format!(
            "{} takes a socket path",
            hipmlir_compile_server::SERVE_OPTION
        )));
    };
    if !std::path::Path::new(socket).is_absolute() {
        return Err(Error::Usage(format!(
            "the compile server's socket path must be absolute: '{socket}'"
        )));
    }
    // What every compile does once per process is done here, once for all children.
    hipmlir_dialect_passes::prepare_process();
    hipmlir_frontend::clang::prepare_process();
    let idle = std::env::var(hipmlir_compile_server::IDLE_VARIABLE)
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(SERVER_IDLE, std::time::Duration::from_secs_f64);
    let place = hipmlir_compile_server::place::ServerPlace::of_socket(socket.as_ref());
    // The server reports its own failures (it may have no terminal left).
    Ok(hipmlir_compile_server::server::serve(&place, idle, compile_request).is_ok())
}

/// Set in a compile server's child: `-v` says where the compile runs.
static IN_SERVER_CHILD: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether this compile runs in a child of the compile server.
pub fn in_server_child() -> bool {
    IN_SERVER_CHILD.load(std::sync::atomic::Ordering::Relaxed)
}

/// A compile server's child running one launcher's request.
fn compile_request(request: &Request) -> i32 {
    IN_SERVER_CHILD.store(true, std::sync::atomic::Ordering::Relaxed);
    match utf8_arguments(request.args.iter().cloned()) {
        Ok(args) => compile(&request.tool.to_string_lossy(), args).into(),
        Err(status) => status.into(),
    }
}

/// The arguments as text. One that is not UTF-8 (a file named in Latin-1 bytes) is an error
/// naming it: read lossily it named another file (`no such file`, or one whose name has U+FFFD
/// where the bytes were) and `-o` wrote under another name.
fn utf8_arguments(args: impl Iterator<Item = std::ffi::OsString>) -> Result<Vec<String>, u8> {
    args.enumerate()
        .map(|(i, a)| {
            a.into_string().map_err(|a| {
                eprintln!(
                    "hipmlir: error: argument {} ('{}') is not valid UTF-8: hipmlir reads \
                     flags and file names as UTF-8 (rename the file, or name it through a \
                     symbolic link with a UTF-8 name)",
                    i + 1,
                    a.to_string_lossy()
                );
                1
            })
        })
        .collect()
}

/// How long a compile server waits for the next compile before it ends.
const SERVER_IDLE: std::time::Duration = std::time::Duration::from_secs(600);

/// The compile thread's stack: enough for clang's own limits (`-fbracket-depth`, template and
/// constexpr depths) and for nesting no limit bounds up to depths far beyond real code.
const COMPILE_STACK: usize = 2 << 30;
