//! Whether a module is JIT-compiled per kernel or whole (`HIPMLIR_JIT`), one rule for both
//! backends: OpenCL cuts SPIR-V (`spirv_split`), CUDA cuts PTX (`ptx_split`).

use std::sync::OnceLock;

use crate::hlog;

/// A module of more kernels than this is built per kernel, unless `HIPMLIR_JIT` says otherwise.
/// Below it the whole module is built (on CUDA by the preload thread, before the first launch),
/// which costs programs nothing: split at 16 kernels, real programs of a few dozen kernels paid
/// a JIT compile inside their timed first launches (HeCBench's scatter: 2.1x nvcc on an H200).
/// A 1000-kernel module built whole takes seconds, per kernel a tenth of a second.
pub const SPLIT_MIN_KERNELS: usize = 256;

/// `HIPMLIR_JIT`: `Some(true)` (`kernel`), `Some(false)` (`module`), or `None` (by size).
fn setting() -> Option<bool> {
    static SETTING: OnceLock<Option<bool>> = OnceLock::new();
    *SETTING.get_or_init(|| match std::env::var("HIPMLIR_JIT").ok()?.as_str() {
        "kernel" => Some(true),
        "module" => Some(false),
        other => {
            hlog!(
                Warn,
                "HIPMLIR_JIT={other} is neither 'kernel' nor 'module'; ignored"
            );
            None
        }
    })
}

/// Whether a module of `kernels` kernels is built one kernel at a time.
pub fn per_kernel(kernels: usize) -> bool {
    setting().unwrap_or(kernels > SPLIT_MIN_KERNELS)
}
