//! The outlining stage of the device pipeline: what turns the frontend's kernels and launches
//! into one `gpu.module` of kernels with their metadata.
//!
//! - `hipmlir-outline-kernels` ([`outline_kernels`]): kernels (`func.func` marked
//!   `hipmlir.kernel`) become `gpu.func ... kernel` in one `gpu.module`, named by their kernel
//!   symbol, carrying their `hipmlir.*` metadata; the device functions and variables they use
//!   move there too, and launches become `gpu.launch_func`;
//! - `hipmlir-drop-host-functions` ([`drop_host_functions`]): the functions standing for host
//!   code go, so that only the gpu.module is device code;
//! - [`kernel_metadata`] reads the metadata back from the kernels once the passes are done with
//!   them (they may add arguments, as dynamic shared memory does).
//!
//! Both passes run on hipmlir-ir's rewrite driver; dialect-passes registers them with MLIR.

mod host;
mod metadata;
mod outline;

use hipmlir_ir::rewrite::RewriteError;
use hipmlir_ir::{source_location, SourceLoc};
use melior::ir::Location;

pub use host::drop_host_functions;
pub use metadata::{kernel_metadata, linear_block_kernels};
pub use outline::{outline_kernels, GPU_MODULE_NAME};

/// The outlining pass's name in a pipeline and its one-line summary (`hipmlir --list-passes`).
pub const OUTLINE_KERNELS: &str = "hipmlir-outline-kernels";
pub const OUTLINE_KERNELS_SUMMARY: &str = "kernels (func.func marked hipmlir.kernel) become \
gpu.func in one gpu.module with the device code they use; launches become gpu.launch_func";

/// The pass dropping host functions, and its summary.
pub const DROP_HOST_FUNCTIONS: &str = "hipmlir-drop-host-functions";
pub const DROP_HOST_FUNCTIONS_SUMMARY: &str = "removes the functions standing for host code \
(launch sites, hipmlir.host): only the gpu.module is device code";

#[derive(Debug, thiserror::Error)]
pub enum OutlineError {
    /// A bug of hipmlir's; `location` is the source position of the operation being outlined.
    #[error("{}internal compiler error in the outliner: {message}", location.as_ref().map(|l| format!("{l}: ")).unwrap_or_default())]
    Internal {
        location: Option<SourceLoc>,
        message: String,
    },
    /// Kernel metadata that does not read back (a bug of hipmlir's).
    #[error("kernel metadata: {0}")]
    Metadata(String),
}

impl OutlineError {
    fn at(loc: Location, message: impl std::fmt::Display) -> Self {
        OutlineError::Internal {
            location: source_location(loc),
            message: message.to_string(),
        }
    }
}

impl From<RewriteError> for OutlineError {
    fn from(e: RewriteError) -> Self {
        OutlineError::Internal {
            message: format!("cannot erase '{}': {}", e.operation, e.reason),
            location: e.location,
        }
    }
}
