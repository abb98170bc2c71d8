//! What a program sets on a device or kernel and reads back: `hipSetDeviceFlags` /
//! `hipGetDeviceFlags`, `hipDeviceSet/GetCacheConfig`, `hipDeviceSet/GetSharedMemConfig`,
//! `hipFuncSetCacheConfig`, `hipFuncSetSharedMemConfig`, and what identifies a device:
//! `hipDeviceGetUuid`; the profiler's switch: `hipProfilerStart`/`hipProfilerStop`. Each device
//! has its own settings (the calling thread's device, `hipSetDevice`).

use std::ffi::{c_int, c_uint, c_void};

use super::launch::kernel_of;
use super::{current_device, device_at, guard, hipError_t, write_out};
use crate::backend::{CacheConfig, DeviceFlags, SharedMemConfig};
use crate::error::Failure;

/// Sets the calling thread's device's flags: one scheduling policy (`hipDeviceScheduleAuto`,
/// `Spin`, `Yield` or `BlockingSync`), `hipDeviceMapHost`, `hipDeviceLmemResizeToMax`.
/// Overlapping policies or unknown bits are `hipErrorInvalidValue`.
#[no_mangle]
pub extern "C" fn hipSetDeviceFlags(flags: c_uint) -> hipError_t {
    guard("hipSetDeviceFlags", || {
        let flags = DeviceFlags::parse(flags)?;
        let device = current_device()?;
        device.make_current()?;
        device.set_device_flags(flags)
    })
}

/// Writes the flags of the calling thread's current context: one made by `hipCtxCreate` has
/// the flags it was created with; else the device's scheduling flags (0, `hipDeviceScheduleAuto`,
/// until set; the other flags are not reported back, as in ROCm).
///
/// # Safety
/// `flags` must be null or valid for writing an `unsigned int`.
#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceFlags(flags: *mut c_uint) -> hipError_t {
    guard("hipGetDeviceFlags", || {
        if flags.is_null() {
            return Err(Failure::invalid_value("the flags pointer is null"));
        }
        let value = match super::context::created_context_flags()? {
            Some(flags) => flags,
            None => current_device()?.device_flags()?.reported(),
        };
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(flags, value, "the flags pointer") }
    })
}

/// Sets the device's preference between shared memory and L1 cache (`hipFuncCache_t`; the CUDA
/// driver's context keeps it, OpenCL has no such control and keeps it to report back).
#[no_mangle]
pub extern "C" fn hipDeviceSetCacheConfig(config: c_int) -> hipError_t {
    guard("hipDeviceSetCacheConfig", || {
        current_device()?.set_cache_config(CacheConfig::parse(config)?)
    })
}

/// Writes the device's cache preference.
///
/// # Safety
/// `config` must be null or valid for writing a `hipFuncCache_t`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetCacheConfig(config: *mut c_int) -> hipError_t {
    guard("hipDeviceGetCacheConfig", || {
        if config.is_null() {
            return Err(Failure::invalid_value("the config pointer is null"));
        }
        let value = current_device()?.cache_config()?.raw();
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(config, value, "the config pointer") }
    })
}

/// Sets the device's shared-memory bank width (`hipSharedMemConfig`): kept and reported back
/// (banks are fixed on the GPUs the CUDA driver of today serves, and on OpenCL devices).
#[no_mangle]
pub extern "C" fn hipDeviceSetSharedMemConfig(config: c_int) -> hipError_t {
    guard("hipDeviceSetSharedMemConfig", || {
        current_device()?.set_shared_mem_config(SharedMemConfig::parse(config)?)
    })
}

/// Writes the device's shared-memory bank width.
///
/// # Safety
/// `config` must be null or valid for writing a `hipSharedMemConfig`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetSharedMemConfig(config: *mut c_int) -> hipError_t {
    guard("hipDeviceGetSharedMemConfig", || {
        if config.is_null() {
            return Err(Failure::invalid_value("the config pointer is null"));
        }
        let value = current_device()?.shared_mem_config()?.raw();
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(config, value, "the config pointer") }
    })
}

/// Sets a kernel's cache preference (`cuFuncSetCacheConfig` on CUDA; kept in the kernel's
/// settings on OpenCL, which has no such control).
#[no_mangle]
pub extern "C" fn hipFuncSetCacheConfig(function: *const c_void, config: c_int) -> hipError_t {
    guard("hipFuncSetCacheConfig", || {
        let kernel = kernel_of(function)?;
        let parsed = CacheConfig::parse(config)?;
        current_device()?.set_func_cache_config(&kernel, parsed)?;
        kernel.update_settings(|s| s.cache_config = config);
        Ok(())
    })
}

/// Sets a kernel's shared-memory bank width (kept in the kernel's settings).
#[no_mangle]
pub extern "C" fn hipFuncSetSharedMemConfig(function: *const c_void, config: c_int) -> hipError_t {
    guard("hipFuncSetSharedMemConfig", || {
        let kernel = kernel_of(function)?;
        let parsed = SharedMemConfig::parse(config)?;
        current_device()?.set_func_shared_mem_config(&kernel, parsed)?;
        kernel.update_settings(|s| s.shared_mem_config = config);
        Ok(())
    })
}

/// `hipUUID`: 16 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HipUuid {
    pub bytes: [std::ffi::c_char; 16],
}

/// Writes the device's UUID (the driver's: `cuDeviceGetUuid`, OpenCL's `CL_DEVICE_UUID_KHR`;
/// else one derived from what identifies the device, stable across processes).
///
/// # Safety
/// `uuid` must be null or valid for writing a `hipUUID`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetUuid(uuid: *mut HipUuid, device: c_int) -> hipError_t {
    guard("hipDeviceGetUuid", || {
        if uuid.is_null() {
            return Err(Failure::invalid_value("the UUID pointer is null"));
        }
        let bytes = device_at(device)?.uuid()?;
        let value = HipUuid {
            bytes: bytes.map(|b| b as std::ffi::c_char),
        };
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(uuid, value, "the UUID pointer") }
    })
}

/// Turns an attached profiler's recording on (`cuProfilerStart` on CUDA); OpenCL has no such
/// switch (`hipErrorNotSupported`).
#[no_mangle]
pub extern "C" fn hipProfilerStart() -> hipError_t {
    guard("hipProfilerStart", || current_device()?.set_profiling(true))
}

/// Turns an attached profiler's recording off (see [`hipProfilerStart`]).
#[no_mangle]
pub extern "C" fn hipProfilerStop() -> hipError_t {
    guard("hipProfilerStop", || current_device()?.set_profiling(false))
}
