//! `hipmlir` (and `hipcc`, `hipconfig`): the launcher of the compiler, `hipmlir-compiler`.
//!
//! The launcher links nothing but the C library, so it starts in a millisecond. It hands the
//! compile to the compile server (hipmlir-compile-server) when one runs for this compiler;
//! otherwise it starts one for the next compile and becomes the compiler itself (`exec`), as a
//! plain run. `HIPMLIR_COMPILE_SERVER=0` turns the server off.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;

use hipmlir_compile_server::client::{self, Served};
use hipmlir_compile_server::place::ServerPlace;
use hipmlir_compile_server::protocol::Request;

/// The compiler's file name; it is installed beside the launcher.
const COMPILER: &str = "hipmlir-compiler";

fn main() {
    let Some(compiler) = compiler() else {
        eprintln!("hipmlir: error: cannot find {COMPILER} beside this program");
        std::process::exit(1);
    };
    if server_wanted() {
        if let (Some(place), Ok(request)) = (
            ServerPlace::for_compiler(&compiler),
            Request::of_this_process(),
        ) {
            match client::compile_through(&place, &request) {
                Served::Finished(outcome) => client::finish(outcome),
                Served::NoServer => client::start_server(&compiler, &place),
                Served::NotTaken => {}
                Served::Lost => {
                    eprintln!(
                        "hipmlir: error: the compile server ended during the compile \
                         (HIPMLIR_COMPILE_SERVER=0 compiles without it)"
                    );
                    std::process::exit(1);
                }
            }
        }
    }
    // A plain run: the compiler in place of this process, called by the same name.
    let mut args = std::env::args_os();
    let name = args.next().unwrap_or_else(|| "hipmlir".into());
    let error = Command::new(&compiler).arg0(name).args(args).exec();
    eprintln!(
        "hipmlir: error: cannot run '{}': {error}",
        compiler.display()
    );
    std::process::exit(1);
}

/// Whether compiles go through a server: yes unless the switch variable turns it off.
fn server_wanted() -> bool {
    std::env::var(hipmlir_compile_server::SWITCH_VARIABLE)
        .map_or(true, |v| !hipmlir_cache::says_off(&v))
}

/// `hipmlir-compiler` in the folder of this program (links followed: `hipcc` is a link).
fn compiler() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?.canonicalize().ok()?;
    let compiler = exe.parent()?.join(COMPILER);
    compiler.is_file().then_some(compiler)
}
