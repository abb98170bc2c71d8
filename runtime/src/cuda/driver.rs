//! The CUDA driver API as the backend calls it: cudarc's raw bindings (resolved from libcuda by
//! name on first use), `CUresult` turned into HIP failures, and the driver's error names.

use std::ffi::CStr;

pub use cudarc::driver::sys;
use sys::CUresult;

use crate::error::{Failure, HipError, HipResult};

/// Whether libcuda can be loaded at all (no NVIDIA driver: false). Asked once per process.
pub fn driver_present() -> bool {
    static PRESENT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    // SAFETY: only tries to dlopen the library's usual names.
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

/// The driver's name for a result (`CUDA_ERROR_INVALID_PTX`).
pub fn error_name(r: CUresult) -> String {
    let mut p: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: cuGetErrorName writes a pointer to a static string, or fails.
    let ok = unsafe { sys::cuGetErrorName(r, &mut p) } == CUresult::CUDA_SUCCESS;
    if ok && !p.is_null() {
        // SAFETY: a NUL-terminated static string from the driver.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    } else {
        format!("CUresult {}", r as i32)
    }
}

/// The HIP code for a driver result.
pub fn hip_code(r: CUresult) -> HipError {
    use CUresult::*;
    match r {
        CUDA_SUCCESS => HipError::Success,
        CUDA_ERROR_INVALID_VALUE => HipError::InvalidValue,
        CUDA_ERROR_OUT_OF_MEMORY => HipError::OutOfMemory,
        CUDA_ERROR_NOT_INITIALIZED | CUDA_ERROR_DEINITIALIZED => HipError::NotInitialized,
        CUDA_ERROR_NO_DEVICE => HipError::NoDevice,
        CUDA_ERROR_INVALID_DEVICE => HipError::InvalidDevice,
        CUDA_ERROR_SYSTEM_DRIVER_MISMATCH | CUDA_ERROR_UNSUPPORTED_PTX_VERSION => {
            HipError::InsufficientDriver
        }
        CUDA_ERROR_INVALID_IMAGE | CUDA_ERROR_INVALID_PTX | CUDA_ERROR_JIT_COMPILER_NOT_FOUND => {
            HipError::InvalidImage
        }
        CUDA_ERROR_NO_BINARY_FOR_GPU => HipError::NoBinaryForGpu,
        CUDA_ERROR_INVALID_CONTEXT => HipError::InvalidContext,
        CUDA_ERROR_CONTEXT_IS_DESTROYED => HipError::ContextIsDestroyed,
        CUDA_ERROR_INVALID_HANDLE => HipError::InvalidHandle,
        CUDA_ERROR_NOT_FOUND => HipError::NotFound,
        CUDA_ERROR_NOT_READY => HipError::NotReady,
        CUDA_ERROR_ILLEGAL_ADDRESS => HipError::IllegalAddress,
        CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES => HipError::LaunchOutOfResources,
        CUDA_ERROR_ASSERT => HipError::Assert,
        CUDA_ERROR_LAUNCH_FAILED | CUDA_ERROR_LAUNCH_TIMEOUT => HipError::LaunchFailure,
        CUDA_ERROR_NOT_SUPPORTED => HipError::NotSupported,
        CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED => HipError::HostMemoryAlreadyRegistered,
        CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED => HipError::HostMemoryNotRegistered,
        CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE => HipError::CooperativeLaunchTooLarge,
        CUDA_ERROR_FILE_NOT_FOUND => HipError::FileNotFound,
        CUDA_ERROR_PEER_ACCESS_UNSUPPORTED => HipError::PeerAccessUnsupported,
        CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => HipError::PeerAccessAlreadyEnabled,
        CUDA_ERROR_PEER_ACCESS_NOT_ENABLED => HipError::PeerAccessNotEnabled,
        CUDA_ERROR_MAP_FAILED => HipError::MapFailed,
        CUDA_ERROR_ALREADY_MAPPED => HipError::AlreadyMapped,
        CUDA_ERROR_CONTEXT_ALREADY_IN_USE => HipError::ContextAlreadyInUse,
        CUDA_ERROR_UNSUPPORTED_LIMIT => HipError::UnsupportedLimit,
        CUDA_ERROR_PROFILER_DISABLED => HipError::ProfilerDisabled,
        CUDA_ERROR_PROFILER_NOT_INITIALIZED => HipError::ProfilerNotInitialized,
        CUDA_ERROR_PROFILER_ALREADY_STARTED => HipError::ProfilerAlreadyStarted,
        CUDA_ERROR_PROFILER_ALREADY_STOPPED => HipError::ProfilerAlreadyStopped,
        _ => HipError::Unknown,
    }
}

/// `Ok` for `CUDA_SUCCESS`, else a failure naming the call and the driver's error.
pub fn check(what: &str, r: CUresult) -> HipResult<()> {
    if r == CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        if is_trap(r) {
            // A kernel that trapped: a failed assert ends the program, as HIP does. The memory
            // checker's trap raises no abort word: its report turns the failure into
            // hipErrorIllegalAddress afterwards (`memcheck::after_call`).
            crate::device_abort::stop_if_raised();
        }
        Err(Failure::new(
            hip_code(r),
            format!("{what}: {}", error_name(r)),
        ))
    }
}

/// `cuMemHostAlloc` flags for host memory every context and device reaches at its host address
/// (portable, device-mapped; with unified addressing the pointers are the same).
pub const HOST_ALLOC_MAPPED: std::ffi::c_uint = 1 | 2;

/// What a kernel's trap (a failed assert, abort()) shows as.
fn is_trap(r: CUresult) -> bool {
    matches!(
        r,
        CUresult::CUDA_ERROR_LAUNCH_FAILED
            | CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUresult::CUDA_ERROR_ASSERT
    )
}

/// `check` with a HIP code chosen by the caller (e.g. a launch's invalid value is an invalid
/// configuration).
pub fn check_as(what: &str, r: CUresult, code: HipError) -> HipResult<()> {
    if r == CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(Failure::new(code, format!("{what}: {}", error_name(r))))
    }
}
