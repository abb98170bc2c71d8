//! The installed `hipmlir-compiler`: a small program that loads the compiler from
//! `libhiprtc.so`, which holds all of it for hiprtc (src/lib.rs), and runs it. An install then
//! holds one copy of the compiler, not two (each some 120 MB of static MLIR). `make install`
//! installs it under the compiler's name; in a cargo build the launcher runs the
//! `hipmlir-compiler` binary itself.
use std::ffi::{c_int, CStr, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Where the library is, from this program's folder: an install's `lib/` beside its `bin/`,
/// else this folder (a cargo build's `target/<profile>/`).
const LIBRARY_PLACES: [&str; 2] = ["../lib/libhiprtc.so", "libhiprtc.so"];

/// The compiler's entry point in the library (hiprtc/src/lib.rs).
const ENTRY: &CStr = c"hipmlir_compiler_main";

fn main() -> std::process::ExitCode {
    let here = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    let places: Vec<PathBuf> = LIBRARY_PLACES.iter().map(|p| here.join(p)).collect();
    let Some(library) = places.iter().find(|p| p.is_file()) else {
        eprintln!(
            "hipmlir: error: cannot find the compiler's library (looked for {})",
            places
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        return std::process::ExitCode::FAILURE;
    };
    let name = CString::new(library.as_os_str().as_bytes()).unwrap_or_default();
    // SAFETY: dlopen and dlsym with NUL-terminated names; the entry point has the signature
    // hiprtc/src/lib.rs gives it and runs the compiler to its exit status.
    unsafe {
        let handle = libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
        let entry = if handle.is_null() {
            std::ptr::null_mut()
        } else {
            libc::dlsym(handle, ENTRY.as_ptr())
        };
        if entry.is_null() {
            let why = libc::dlerror();
            let why = if why.is_null() {
                String::new()
            } else {
                CStr::from_ptr(why).to_string_lossy().into_owned()
            };
            eprintln!(
                "hipmlir: error: cannot load the compiler from '{}': {why}",
                library.display()
            );
            return std::process::ExitCode::FAILURE;
        }
        let entry: extern "C" fn() -> c_int = std::mem::transmute(entry);
        std::process::ExitCode::from(entry() as u8)
    }
}
