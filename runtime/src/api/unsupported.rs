//! HIP functions hipmlir does not implement yet. Each returns `hipErrorNotSupported` and says so
//! once per process (a `warn` line of `HIPMLIR_LOG`); none aborts. Their arguments are ignored.

use std::ffi::c_void;

use super::{current_device, guard, hipError_t};
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
    hipLaunchCooperativeKernel(f: *const c_void, grid: crate::backend::Dim3, block: crate::backend::Dim3, args: *mut *mut c_void, shmem: u32, stream: *mut c_void)
        => "cooperative launches (grid-wide sync) have no OpenCL equivalent";
    hipExtGetLinkTypeAndHopCount(device: i32, peer: i32, link_type: *mut u32, hop_count: *mut u32)
        => "the link type and hop count between two devices are AMD GPUs' (HSA) facts: neither OpenCL nor the CUDA driver tells them";
}

/// Pins existing host memory for the device: served by the CUDA backend (`cuMemHostRegister`,
/// mapped and portable); OpenCL has no equivalent (`hipErrorNotSupported`).
#[no_mangle]
pub extern "C" fn hipHostRegister(ptr: *mut c_void, bytes: usize, flags: u32) -> hipError_t {
    guard("hipHostRegister", || {
        current_device()?.host_register(ptr, bytes, flags)
    })
}

/// Undoes [`hipHostRegister`].
#[no_mangle]
pub extern "C" fn hipHostUnregister(ptr: *mut c_void) -> hipError_t {
    guard("hipHostUnregister", || {
        current_device()?.host_unregister(ptr)
    })
}
