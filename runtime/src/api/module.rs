//! Registration of device images and kernel stubs, called from the compiled program's static
//! constructors (before `main`; no OpenCL work happens here).

use std::ffi::{c_char, c_void};

use super::{c_string, guard};
use crate::error::Failure;
use crate::registry::{register_image, registry};

/// Registers a device image (a clang offload bundle with SPIR-V and hipmlir metadata). An invalid
/// image is reported on stderr and remembered: launching its kernels then fails with
/// `hipErrorInvalidImage` naming the problem.
///
/// # Safety
/// `bundle` must be null or valid for reading `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn __hipmlirRegisterImage(bundle: *const u8, size: usize) {
    guard("__hipmlirRegisterImage", || {
        let bytes: &[u8] = if bundle.is_null() || size == 0 {
            &[]
        } else {
            // SAFETY: valid per the caller.
            unsafe { std::slice::from_raw_parts(bundle, size) }
        };
        register_image(bytes).map(|_| ())
    });
}

/// Maps a host stub's address to the mangled name of its kernel.
///
/// # Safety
/// `kernel_name` must be null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn __hipmlirRegisterFunction(
    host_fn: *const c_void,
    kernel_name: *const c_char,
) {
    guard("__hipmlirRegisterFunction", || {
        if host_fn.is_null() {
            return Err(Failure::invalid_value("the host function is null"));
        }
        // SAFETY: per the caller.
        let name = unsafe { c_string(kernel_name, "the kernel name") }?;
        registry().add_host_function(host_fn as usize, name.into_owned());
        Ok(())
    });
}
