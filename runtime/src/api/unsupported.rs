//! HIP functions hipmlir does not implement yet. Each returns `hipErrorNotSupported` and says so
//! once per process (a `warn` line of `HIPMLIR_LOG`); none aborts. Their arguments are ignored.

use super::{guard, hipError_t};
use crate::error::{Failure, HipError};

fn not_supported(function: &str, why: &str) -> hipError_t {
    guard(function, || {
        Err(Failure::new(
            HipError::NotSupported,
            format!("not supported by hipmlir: {why}"),
        ))
    })
}

macro_rules! unsupported {
    ($($name:ident($($arg:ident: $ty:ty),*) => $why:literal;)*) => {$(
        /// Not supported: returns `hipErrorNotSupported` (see the module docs).
        #[no_mangle]
        pub extern "C" fn $name($($arg: $ty),*) -> hipError_t {
            $(let _ = $arg;)*
            not_supported(stringify!($name), $why)
        }
    )*};
}

unsupported! {
    hipExtGetLinkTypeAndHopCount(device: i32, peer: i32, link_type: *mut u32, hop_count: *mut u32)
        => "the link type and hop count between two devices are AMD GPUs' (HSA) facts: neither OpenCL nor the CUDA driver tells them";
}
