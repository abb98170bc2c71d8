//! Devices: count, selection, properties, synchronization, versions.
//!
//! hipmlir exposes one device: the first OpenCL device that accepts SPIR-V (see `device`).

use std::cell::Cell;
use std::ffi::c_int;

use super::{guard, hipError_t, write_out};
use crate::device::{runtime, runtime_if_initialized};
use crate::error::{Failure, HipError};
use crate::props::{HipDeviceProp, HIP_VERSION};

thread_local! {
    static CURRENT_DEVICE: Cell<c_int> = const { Cell::new(0) };
}

fn check_ordinal(device: c_int) -> Result<(), Failure> {
    runtime()?;
    if device != 0 {
        return Err(Failure::new(
            HipError::InvalidDevice,
            format!("device {device} does not exist (hipmlir has 1 device, ordinal 0)"),
        ));
    }
    Ok(())
}

/// Writes the number of devices (1, or 0 with `hipErrorNoDevice`).
///
/// # Safety
/// `count` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceCount(count: *mut c_int) -> hipError_t {
    guard("hipGetDeviceCount", || {
        if count.is_null() {
            return Err(Failure::invalid_value("the count pointer is null"));
        }
        let found = runtime().is_ok();
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(count, c_int::from(found), "the count pointer")? };
        if found {
            Ok(())
        } else {
            Err(Failure::quiet(HipError::NoDevice))
        }
    })
}

/// Selects the calling thread's device; only 0 exists.
#[no_mangle]
pub extern "C" fn hipSetDevice(device: c_int) -> hipError_t {
    guard("hipSetDevice", || {
        check_ordinal(device)?;
        let _ = CURRENT_DEVICE.try_with(|d| d.set(device));
        Ok(())
    })
}

/// Writes the calling thread's device.
///
/// # Safety
/// `device` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipGetDevice(device: *mut c_int) -> hipError_t {
    guard("hipGetDevice", || {
        if device.is_null() {
            return Err(Failure::invalid_value("the device pointer is null"));
        }
        runtime()?;
        let current = CURRENT_DEVICE.try_with(|d| d.get()).unwrap_or(0);
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(device, current, "the device pointer") }
    })
}

/// Fills `*prop` for device `device` (see `props` for how each field is obtained).
///
/// # Safety
/// `prop` must be null or valid for writing a `hipDeviceProp_t` as declared in
/// `headers/hip/hip_runtime_api.h`.
#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceProperties(
    prop: *mut HipDeviceProp,
    device: c_int,
) -> hipError_t {
    guard("hipGetDeviceProperties", || {
        if prop.is_null() {
            return Err(Failure::invalid_value("the properties pointer is null"));
        }
        check_ordinal(device)?;
        let rt = runtime()?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe {
            write_out(
                prop,
                HipDeviceProp::from_device(&rt.info),
                "the properties pointer",
            )
        }
    })
}

/// Waits for all queued work. A kernel that failed while running shows up here as
/// `hipErrorLaunchFailure`.
#[no_mangle]
pub extern "C" fn hipDeviceSynchronize() -> hipError_t {
    guard("hipDeviceSynchronize", || runtime()?.finish())
}

/// Writes the driver version: the HIP API level hipmlir implements (`HIP_VERSION`).
///
/// # Safety
/// `version` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipDriverGetVersion(version: *mut c_int) -> hipError_t {
    // SAFETY: `write_out` checks null; valid per the caller.
    guard("hipDriverGetVersion", || unsafe {
        write_out(version, HIP_VERSION, "the version pointer")
    })
}

/// Writes the runtime version: the HIP API level hipmlir implements (`HIP_VERSION`).
///
/// # Safety
/// `version` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipRuntimeGetVersion(version: *mut c_int) -> hipError_t {
    // SAFETY: `write_out` checks null; valid per the caller.
    guard("hipRuntimeGetVersion", || unsafe {
        write_out(version, HIP_VERSION, "the version pointer")
    })
}

/// Whether the device has been opened (for tests that must not trigger discovery).
pub fn device_opened() -> bool {
    runtime_if_initialized().is_some()
}
