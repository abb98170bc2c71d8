//! Memory and events shared with other processes: `hipIpcGetMemHandle`, `hipIpcOpenMemHandle`,
//! `hipIpcCloseMemHandle`, `hipIpcGetEventHandle`, `hipIpcOpenEventHandle`. Served by the CUDA
//! driver (`cuIpc*`); OpenCL has no inter-process handles (`hipErrorNotSupported`, saying so).

use std::ffi::{c_char, c_uint, c_void};

use super::{current_device, event, guard, hipError_t, hipEvent_t, write_out};
use crate::backend::{IpcHandle, IPC_HANDLE_SIZE, IPC_MEM_LAZY_ENABLE_PEER_ACCESS};
use crate::error::{Failure, HipError};

/// `hipIpcMemHandle_t` and `hipIpcEventHandle_t`: 64 opaque bytes, passed by value.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HipIpcHandle {
    pub reserved: [c_char; IPC_HANDLE_SIZE],
}

impl HipIpcHandle {
    fn bytes(&self) -> IpcHandle {
        self.reserved.map(|b| b as u8)
    }

    fn from_bytes(bytes: IpcHandle) -> Self {
        HipIpcHandle {
            reserved: bytes.map(|b| b as c_char),
        }
    }
}

/// Writes a handle another process opens to reach the allocation `p` starts.
///
/// # Safety
/// `handle` must be null or valid for writing a `hipIpcMemHandle_t`.
#[no_mangle]
pub unsafe extern "C" fn hipIpcGetMemHandle(
    handle: *mut HipIpcHandle,
    p: *mut c_void,
) -> hipError_t {
    guard("hipIpcGetMemHandle", || {
        if handle.is_null() || p.is_null() {
            return Err(Failure::invalid_value("the handle or the pointer is null"));
        }
        let bytes = current_device()?.ipc_memory_handle(p)?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe {
            write_out(
                handle,
                HipIpcHandle::from_bytes(bytes),
                "the handle pointer",
            )
        }
    })
}

/// Maps another process's allocation into this one (`flags`: 0 or
/// `hipIpcMemLazyEnablePeerAccess`). Its own handle is `hipErrorInvalidContext`, as in HIP.
///
/// # Safety
/// `p` must be null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn hipIpcOpenMemHandle(
    p: *mut *mut c_void,
    handle: HipIpcHandle,
    flags: c_uint,
) -> hipError_t {
    guard("hipIpcOpenMemHandle", || {
        if p.is_null() {
            return Err(Failure::invalid_value("the pointer's pointer is null"));
        }
        if flags & !IPC_MEM_LAZY_ENABLE_PEER_ACCESS != 0 {
            return Err(Failure::invalid_value(format!(
                "flags {flags:#x}: only hipIpcMemLazyEnablePeerAccess exists"
            )));
        }
        let mapped = current_device()?.ipc_open_memory(&handle.bytes(), flags)?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(p, mapped, "the pointer's pointer") }
    })
}

/// Unmaps memory [`hipIpcOpenMemHandle`] mapped.
#[no_mangle]
pub extern "C" fn hipIpcCloseMemHandle(p: *mut c_void) -> hipError_t {
    guard("hipIpcCloseMemHandle", || {
        if p.is_null() {
            return Err(Failure::invalid_value("the pointer is null"));
        }
        current_device()?.ipc_close_memory(p)
    })
}

/// Writes a handle another process opens to wait for `e` (created with
/// `hipEventInterprocess | hipEventDisableTiming`; another event is
/// `hipErrorInvalidConfiguration`, as in HIP).
///
/// # Safety
/// `handle` must be null or valid for writing a `hipIpcEventHandle_t`.
#[no_mangle]
pub unsafe extern "C" fn hipIpcGetEventHandle(
    handle: *mut HipIpcHandle,
    e: hipEvent_t,
) -> hipError_t {
    guard("hipIpcGetEventHandle", || {
        if handle.is_null() || e.is_null() {
            return Err(Failure::invalid_value("the handle or the event is null"));
        }
        let ev = event(e)?;
        if !ev.flags().interprocess {
            return Err(Failure::new(
                HipError::InvalidConfiguration,
                "the event was not created with hipEventInterprocess",
            ));
        }
        let bytes = ev.ipc_handle()?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe {
            write_out(
                handle,
                HipIpcHandle::from_bytes(bytes),
                "the handle pointer",
            )
        }
    })
}

/// Opens another process's event as an event of the calling thread's device (timing disabled);
/// its own handle is `hipErrorInvalidContext`, as in HIP.
///
/// # Safety
/// `out` must be null or valid for writing a `hipEvent_t`.
#[no_mangle]
pub unsafe extern "C" fn hipIpcOpenEventHandle(
    out: *mut hipEvent_t,
    handle: HipIpcHandle,
) -> hipError_t {
    guard("hipIpcOpenEventHandle", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the event pointer is null"));
        }
        let opened = current_device()?.ipc_open_event(&handle.bytes())?;
        let h = crate::backend::stream::insert_event(opened);
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(out, h as hipEvent_t, "the event pointer") }
    })
}
