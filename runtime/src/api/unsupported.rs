//! HIP functions hipmlir does not implement yet. Each returns `hipErrorNotSupported` and says so
//! once per process (a `warn` line of `HIPMLIR_LOG`); none aborts. Their arguments are ignored.

use std::ffi::c_void;

use super::{device_at, guard, hipError_t};
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
    hipDeviceEnablePeerAccess(peer: i32, flags: u32)
        => "hipmlir shows one device";
    hipDeviceDisablePeerAccess(peer: i32)
        => "hipmlir shows one device";
    hipIpcGetMemHandle(handle: *mut c_void, ptr: *mut c_void)
        => "inter-process memory has no OpenCL equivalent";
    hipIpcOpenMemHandle(ptr: *mut *mut c_void, handle: *mut c_void, flags: u32)
        => "inter-process memory has no OpenCL equivalent";
    hipGraphCreate(graph: *mut *mut c_void, flags: u32)
        => "graphs are not implemented";
    hipStreamBeginCapture(stream: *mut c_void, mode: i32)
        => "stream capture (graphs) is not implemented";
}

/// Whether `device` can reach `peer`'s memory (`Device::can_access_peer`; a device is not its
/// own peer). Either ordinal out of range is `hipErrorInvalidDevice`.
///
/// # Safety
/// `can` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceCanAccessPeer(
    can: *mut i32,
    device: i32,
    peer: i32,
) -> hipError_t {
    guard("hipDeviceCanAccessPeer", || {
        let (d, p) = (device_at(device)?, device_at(peer)?);
        let answer = d.id() != p.id() && d.can_access_peer(p.id());
        // SAFETY: `write_out` checks null; valid per the caller.
        unsafe { super::write_out(can, i32::from(answer), "the result pointer") }
    })
}
