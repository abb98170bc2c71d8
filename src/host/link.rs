//! Links: objects into one relocatable object (`ld -r`), and a program's objects and libraries
//! with the runtime into the output.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::command::run;
use super::cxx::{on_path, HostCompiler};
use crate::cli::{BuildOptions, LinkItem};
use crate::error::{Result, Tool};
use crate::paths::Toolchain;

/// `ld -r host stub -o object`.
pub fn combine(opts: &BuildOptions, host: &Path, stub: &Path, object: &Path) -> Result<()> {
    let mut ld = Command::new("ld");
    ld.arg("-r").arg(host).arg(stub).arg("-o").arg(object);
    run(ld, opts.verbose, Tool::Linker)
}

/// hiprtc's library, beside the runtime's.
const HIPRTC_LIBRARY: &str = "libhiprtc.so";

/// Links objects and libraries into `output` with the runtime.
pub fn link(
    opts: &BuildOptions,
    toolchain: &Toolchain,
    objects: &[PathBuf],
    extra: &[PathBuf],
    output: &Path,
) -> Result<()> {
    let cxx = HostCompiler::from_env();
    let mut cmd = cxx.command();
    cmd.args(&opts.host_flags);
    if opts.debug {
        cmd.arg("-g");
    }
    for item in &opts.link_items {
        match item {
            LinkItem::Input(i) => {
                cmd.arg(&objects[*i]);
            }
            LinkItem::Flag(f) => {
                cmd.arg(f);
            }
        }
    }
    cmd.args(extra);
    cmd.arg(format!("-L{}", toolchain.runtime_dir.display()));
    cmd.arg("-lhipmlir_rt");
    // hiprtc comes with the HIP runtime on SPIR-V platforms (chipStar's runtime holds it, and
    // HIP's CMake links nothing more there): linked where the program calls it, else dropped.
    if toolchain.runtime_dir.join(HIPRTC_LIBRARY).is_file() {
        cmd.args(["-Wl,--as-needed", "-lhiprtc", "-Wl,--no-as-needed"]);
    }
    cmd.arg(format!("-Wl,-rpath,{}", toolchain.runtime_dir.display()));
    if let Some(linker) = default_linker(opts, &cxx) {
        cmd.arg(linker);
    }
    cmd.arg("-o").arg(output);
    run(cmd, opts.verbose, Tool::Link)
}

/// The linker a link uses unless the user chose one (`-fuse-ld=`): gold, where binutils has it
/// (it links a HIP program in a third of the time GNU ld takes: GNU ld reads the C++ runtime's
/// symbols page by page), else the compiler's own default. A sanitized link keeps the default:
/// gold warns about every symbol clang's AddressSanitizer runtime exports.
fn default_linker(opts: &BuildOptions, cxx: &HostCompiler) -> Option<&'static str> {
    let sanitized = opts
        .host_flags
        .iter()
        .chain(&cxx.flags)
        .any(|f| f.starts_with("-fsanitize="));
    let chosen = sanitized
        || opts
            .host_flags
            .iter()
            .chain(&cxx.flags)
            .any(|f| f.starts_with("-fuse-ld="))
        || opts
            .link_items
            .iter()
            .any(|i| matches!(i, LinkItem::Flag(f) if f.starts_with("-fuse-ld=")));
    (!chosen && on_path("ld.gold")).then_some("-fuse-ld=gold")
}
