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
