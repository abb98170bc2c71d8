//! HIP functions hipmlir does not implement yet. Each returns `hipErrorNotSupported` and says so
//! once per process (a `warn` line of `HIPMLIR_LOG`); none aborts. Their arguments are ignored.

use std::ffi::c_void;

use super::{current_device, device_at, guard, hipError_t};
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
    hipDeviceEnablePeerAccess(peer: i32, flags: u32)
        => "hipmlir shows one device";
    hipMemcpyPeer(dst: *mut c_void, dst_device: i32, src: *const c_void, src_device: i32, bytes: usize)
        => "hipmlir shows one device";
    hipIpcGetMemHandle(handle: *mut c_void, ptr: *mut c_void)
        => "inter-process memory has no OpenCL equivalent";
    hipIpcOpenMemHandle(ptr: *mut *mut c_void, handle: *mut c_void, flags: u32)
        => "inter-process memory has no OpenCL equivalent";
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
