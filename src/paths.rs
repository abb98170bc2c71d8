//! Where hipmlir finds its headers and its runtime library.
//!
//! Looked up in order: environment overrides, then beside the running code (the executable, or
//! `libhiprtc.so` for hiprtc: an install puts `bin/hipmlir`, `lib/libhiprtc.so`,
//! `lib/libhipmlir_rt.so` and `include/hip/`; a cargo build puts the binaries and the libraries
//! in `target/<profile>/`), then the source tree hipmlir was built from.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

pub struct Toolchain {
    /// The folder holding `hip/hip_runtime.h`.
    pub include_dir: PathBuf,
    /// The folder holding `libhipmlir_rt.so`.
    pub runtime_dir: PathBuf,
}

const RUNTIME_LIB: &str = "libhipmlir_rt.so";

/// The folder holding `hip/hip_runtime.h`.
pub fn include_dir() -> Result<PathBuf> {
    let source_tree = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let include_candidates = [
        std::env::var_os("HIPMLIR_INCLUDE_DIR").map(PathBuf::from),
        Some(code_dir().join("../include")),
        Some(source_tree.join("headers")),
    ];
    let include_dir = include_candidates
        .into_iter()
        .flatten()
        .find(|d| d.join("hip/hip_runtime.h").is_file())
        .ok_or_else(|| {
            Error::Setup("cannot find hip/hip_runtime.h (set HIPMLIR_INCLUDE_DIR)".into())
        })?;
    Ok(include_dir.canonicalize().unwrap_or(include_dir))
}

/// The folder of the code running: the shared library that holds it (hiprtc's
/// `libhiprtc.so`), else the executable. An install keeps `bin/` and `lib/` side by side, so
/// `../include` and `../lib` name the same folders from either.
pub fn code_dir() -> PathBuf {
    code_file()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("."))
}

pub use hipmlir_cache::code_file;

impl Toolchain {
    pub fn locate() -> Result<Toolchain> {
        let exe_dir = code_dir();
        let include_dir = include_dir()?;

        let runtime_candidates = [
            std::env::var_os("HIPMLIR_RUNTIME_DIR").map(PathBuf::from),
            Some(exe_dir.clone()),
            Some(exe_dir.join("../lib")),
        ];
        let runtime_dir = runtime_candidates
            .into_iter()
            .flatten()
            .find(|d| d.join(RUNTIME_LIB).is_file())
            .ok_or_else(|| {
                Error::Setup("cannot find libhipmlir_rt.so (set HIPMLIR_RUNTIME_DIR)".into())
            })?;
        Ok(Toolchain {
            include_dir,
            runtime_dir: runtime_dir.canonicalize().unwrap_or(runtime_dir),
        })
    }
}

/// Where `scripts/setup.sh` installs libdevice (from the `nvidia-cuda-nvcc-cu12` wheel on
/// PyPI), outside any clone.
pub const SETUP_LIBDEVICE: &str = "/opt/hipmlir-deps/libdevice/libdevice.10.bc";

/// Where an install keeps its copy, relative to `bin/hipmlir` (and to `lib/libhiprtc.so`).
pub const INSTALLED_LIBDEVICE: &str = "../lib/hipmlir/libdevice.10.bc";

/// libdevice (`libdevice.10.bc`, the `__nv_*` math functions PTX kernels call): named by
/// `HIPMLIR_LIBDEVICE`, else an install's copy beside the compiler (or hiprtc), else the
/// set-up's. None when there is none (or the variable names no file): kernels calling its
/// functions are then refused with a message saying where libdevice comes from.
pub fn libdevice() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("HIPMLIR_LIBDEVICE") {
        let path = PathBuf::from(path);
        return path.is_file().then_some(path);
    }
    let installed = code_dir().join(INSTALLED_LIBDEVICE);
    [installed, PathBuf::from(SETUP_LIBDEVICE)]
        .into_iter()
        .find(|p| p.is_file())
        .map(|p| p.canonicalize().unwrap_or(p))
}
