//! Devices: count, selection, properties, attributes, limits, synchronization, versions.

use std::ffi::c_int;

use super::{
    backend, current_device, current_device_id, device_at, guard, hipError_t, set_current_device,
    write_c_string, write_out,
};
use crate::backend::{DeviceAttribute, Limit};
use crate::error::{Failure, HipResult};
use crate::props::{HipDeviceProp, HIP_VERSION};

/// Writes the number of devices (0 with `hipErrorNoDevice` when there is none).
///
/// # Safety
/// `count` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceCount(count: *mut c_int) -> hipError_t {
    guard("hipGetDeviceCount", || {
        if count.is_null() {
            return Err(Failure::invalid_value("the count pointer is null"));
        }
        let found = backend().map(|b| c_int::try_from(b.device_count()).unwrap_or(c_int::MAX));
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(count, *found.as_ref().unwrap_or(&0), "the count pointer")? };
        found.map(drop)
    })
}

/// Selects the calling thread's device.
#[no_mangle]
pub extern "C" fn hipSetDevice(device: c_int) -> hipError_t {
    guard("hipSetDevice", || set_current_device(device_at(device)?))
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
        backend()?;
        let current = c_int::try_from(current_device_id()).unwrap_or(c_int::MAX);
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
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(prop, properties(device)?, "the properties pointer") }
    })
}

/// HIP 6's name of [`hipGetDeviceProperties`] (`hipDeviceProp_tR0600`: the layout hipmlir's
/// headers declare as `hipDeviceProp_t`).
///
/// # Safety
/// As [`hipGetDeviceProperties`].
#[no_mangle]
pub unsafe extern "C" fn hipGetDevicePropertiesR0600(
    prop: *mut HipDeviceProp,
    device: c_int,
) -> hipError_t {
    // SAFETY: per the caller.
    unsafe { hipGetDeviceProperties(prop, device) }
}

/// The properties of `device` (what `hipGetDeviceProperties` reports).
pub(super) fn properties(device: c_int) -> HipResult<HipDeviceProp> {
    Ok(device_at(device)?.properties())
}

/// Waits for all queued work on every stream of the calling thread's device. A kernel that
/// failed while running shows up here as `hipErrorLaunchFailure`.
#[no_mangle]
pub extern "C" fn hipDeviceSynchronize() -> hipError_t {
    guard("hipDeviceSynchronize", || {
        let device = current_device()?;
        crate::graph::capture::check_device_synchronize(device.id())?;
        device.synchronize()?;
        crate::mempool::after_synchronize();
        crate::memcheck::idle(device.id());
        Ok(())
    })
}

/// Resets the calling thread's device: waits for its work, then destroys its streams and events
/// and frees its allocations; its modules are built or loaded again on their next use, their
/// variables back at their initial values, as in a new context. Other devices keep theirs.
#[no_mangle]
pub extern "C" fn hipDeviceReset() -> hipError_t {
    guard("hipDeviceReset", || reset(current_device()?))
}

/// What `hipDeviceReset` does to `device` (also `hipDevicePrimaryCtxReset`): its streams, module
/// states (with their abort words), arrays, pools and graph allocations go.
pub(super) fn reset(device: &dyn crate::backend::Device) -> HipResult<()> {
    // A failed kernel does not stop a reset; a wait that may not happen (from a host function
    // of this device, which the reset would destroy under itself) does.
    if let Err(e) = device.synchronize() {
        if e.code == crate::error::HipError::IllegalState {
            return Err(e);
        }
    }
    crate::memcheck::reset(device.id());
    crate::backend::stream::clear_device(device.id());
    for module in crate::registry::all_modules() {
        module.reset_state_of(device.id());
    }
    crate::heap::forget();
    crate::arrays::forget_on(device);
    crate::mipmaps::forget_dead();
    crate::mempool::reset(device.id());
    crate::graph::memory::reset(device.id());
    device.settings().reset();
    device.reset()
}

/// Initializes the runtime (opens the device). `flags` must be 0.
#[no_mangle]
pub extern "C" fn hipInit(flags: std::ffi::c_uint) -> hipError_t {
    guard("hipInit", || {
        if flags != 0 {
            return Err(Failure::invalid_value("flags must be 0"));
        }
        current_device()?.make_current()
    })
}

/// Writes the device's name (truncated to `len - 1` bytes, NUL-terminated).
///
/// # Safety
/// `name` must be null or valid for writing `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetName(
    name: *mut std::ffi::c_char,
    len: c_int,
    device: c_int,
) -> hipError_t {
    guard("hipDeviceGetName", || {
        if name.is_null() || len <= 0 {
            return Err(Failure::invalid_value("the name buffer is null or empty"));
        }
        let device = device_at(device)?;
        // SAFETY: checked non-null and non-empty; valid for `len` bytes per the caller.
        unsafe { write_c_string(name, len, device.name()) };
        Ok(())
    })
}

/// Writes the device's global memory size.
///
/// # Safety
/// `bytes` must be null or valid for writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceTotalMem(bytes: *mut usize, device: c_int) -> hipError_t {
    guard("hipDeviceTotalMem", || {
        let total = device_at(device)?.properties().totalGlobalMem;
        // SAFETY: `write_out` checks null; valid per the caller.
        unsafe { write_out(bytes, total, "the size pointer") }
    })
}

/// Writes (major, minor) as `hipDeviceProp_t` reports them (OpenCL: the device's OpenCL
/// version; CUDA: the compute capability).
///
/// # Safety
/// Both pointers must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceComputeCapability(
    major: *mut c_int,
    minor: *mut c_int,
    device: c_int,
) -> hipError_t {
    guard("hipDeviceComputeCapability", || {
        let p = device_at(device)?.properties();
        // SAFETY: `write_out` checks null; valid per the caller.
        unsafe {
            write_out(major, p.major, "the major pointer")?;
            write_out(minor, p.minor, "the minor pointer")
        }
    })
}

/// Writes one device attribute (`hipDeviceAttribute_t`, HIP 6 numbering, the AMD-specific ones
/// included; see `backend::attributes`). Unknown attributes are `hipErrorInvalidValue`; the HDP
/// register addresses `hipErrorNotSupported`.
///
/// # Safety
/// `value` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetAttribute(
    value: *mut c_int,
    attribute: c_int,
    device: c_int,
) -> hipError_t {
    guard("hipDeviceGetAttribute", || {
        if value.is_null() {
            return Err(Failure::invalid_value("the value pointer is null"));
        }
        let device = device_at(device)?;
        let v = device.attribute(DeviceAttribute::parse(attribute)?)?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(value, v, "the value pointer") }
    })
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

/// Reads a device limit (see each backend's `Device::limit`).
///
/// # Safety
/// `value` must be null or valid for writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetLimit(value: *mut usize, limit: c_int) -> hipError_t {
    guard("hipDeviceGetLimit", || {
        let device = current_device()?;
        let v = device.limit(Limit::parse(limit)?)?;
        // SAFETY: per the caller.
        unsafe { write_out(value, v, "the limit pointer") }
    })
}

/// Sets a device limit where the backend can honour it; one it cannot is
/// `hipErrorNotSupported`, never silently ignored.
#[no_mangle]
pub extern "C" fn hipDeviceSetLimit(limit: c_int, value: usize) -> hipError_t {
    guard("hipDeviceSetLimit", || {
        let device = current_device()?;
        device.set_limit(Limit::parse(limit)?, value)
    })
}
