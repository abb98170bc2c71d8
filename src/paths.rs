//! Where hipmlir finds its headers and its runtime library.
//!
//! Looked up in order: environment overrides, then beside the executable (an install puts
//! `bin/hipmlir`, `lib/libhipmlir_rt.so` and `include/hip/`; a cargo build puts the binary and
//! the library in `target/<profile>/`), then the source tree hipmlir was built from.

use std::path::{Path, PathBuf};

pub struct Toolchain {
    /// The folder holding `hip/hip_runtime.h`.
    pub include_dir: PathBuf,
    /// The folder holding `libhipmlir_rt.so`.
    pub runtime_dir: PathBuf,
}

const RUNTIME_LIB: &str = "libhipmlir_rt.so";

impl Toolchain {
    pub fn locate() -> Result<Toolchain, String> {
        let exe = std::env::current_exe()
            .ok()
            .and_then(|p| p.canonicalize().ok())
            .unwrap_or_default();
        let exe_dir = exe.parent().unwrap_or(Path::new(".")).to_path_buf();
        let source_tree = PathBuf::from(env!("CARGO_MANIFEST_DIR"));

        let include_candidates = [
            std::env::var_os("HIPMLIR_INCLUDE_DIR").map(PathBuf::from),
            Some(exe_dir.join("../include")),
            Some(source_tree.join("headers")),
        ];
        let include_dir = include_candidates
            .into_iter()
            .flatten()
            .find(|d| d.join("hip/hip_runtime.h").is_file())
            .ok_or("hipmlir: error: cannot find hip/hip_runtime.h (set HIPMLIR_INCLUDE_DIR)")?;

        let runtime_candidates = [
            std::env::var_os("HIPMLIR_RUNTIME_DIR").map(PathBuf::from),
            Some(exe_dir.clone()),
            Some(exe_dir.join("../lib")),
        ];
        let runtime_dir = runtime_candidates
            .into_iter()
            .flatten()
            .find(|d| d.join(RUNTIME_LIB).is_file())
            .ok_or("hipmlir: error: cannot find libhipmlir_rt.so (set HIPMLIR_RUNTIME_DIR)")?;
        Ok(Toolchain {
            include_dir: include_dir.canonicalize().unwrap_or(include_dir),
            runtime_dir: runtime_dir.canonicalize().unwrap_or(runtime_dir),
        })
    }
}

/// Where `scripts/setup.sh` installs libdevice (from the `nvidia-cuda-nvcc-cu12` wheel on
/// PyPI), outside any clone.
pub const SETUP_LIBDEVICE: &str = "/opt/hipmlir-deps/libdevice/libdevice.10.bc";

/// Where an install keeps its copy, relative to `bin/hipmlir`.
pub const INSTALLED_LIBDEVICE: &str = "../lib/hipmlir/libdevice.10.bc";

/// libdevice (`libdevice.10.bc`, the `__nv_*` math functions PTX kernels call): named by
/// `HIPMLIR_LIBDEVICE`, else an install's copy beside the compiler, else the set-up's. None when
/// there is none (or the variable names no file): kernels calling its functions are then
/// refused with a message saying where libdevice comes from.
pub fn libdevice() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("HIPMLIR_LIBDEVICE") {
        let path = PathBuf::from(path);
        return path.is_file().then_some(path);
    }
    let exe = std::env::current_exe().ok()?.canonicalize().ok()?;
    let installed = exe.parent()?.join(INSTALLED_LIBDEVICE);
    [installed, PathBuf::from(SETUP_LIBDEVICE)]
        .into_iter()
        .find(|p| p.is_file())
        .map(|p| p.canonicalize().unwrap_or(p))
}
