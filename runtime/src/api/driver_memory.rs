//! The driver API's copies: `hipMemcpyHtoDAsync`, `hipMemcpyDtoHAsync`, `hipMemcpyDtoDAsync`,
//! `hipMemcpyParam2D[Async]`, `hipDrvMemcpy2DUnaligned` and `hipDrvMemcpy3D[Async]` (their
//! descriptions are read by `drv_copy`).

use std::ffi::{c_int, c_void};

use super::memory::copy_on;
use super::texture::target;
use super::{guard, hipError_t, hipStream_t, read_in};
use crate::backend::{Copy3d, MemcpyKind};
use crate::drv_copy::{self, Memcpy2D, Memcpy3D};

/// Host to device memory on a stream, returning at once.
///
/// # Safety
/// `src` must be valid for `size` bytes until the copy is done.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyHtoDAsync(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipMemcpyHtoDAsync", || {
        let kind = MemcpyKind::HostToDevice as c_int;
        copy_on(stream, Copy3d::linear(dst, src, size), kind, false)
    })
}

/// Device to host memory on a stream, returning at once.
///
/// # Safety
/// `dst` must be valid for `size` bytes until the copy is done.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyDtoHAsync(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipMemcpyDtoHAsync", || {
        let kind = MemcpyKind::DeviceToHost as c_int;
        copy_on(stream, Copy3d::linear(dst, src, size), kind, false)
    })
}

/// Device to device memory on a stream, returning at once.
#[no_mangle]
pub extern "C" fn hipMemcpyDtoDAsync(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipMemcpyDtoDAsync", || {
        let kind = MemcpyKind::DeviceToDevice as c_int;
        copy_on(stream, Copy3d::linear(dst, src, size), kind, false)
    })
}

/// A 2-D copy between host, device and array memory as `hip_Memcpy2D` describes it (the
/// direction from the two memory types). Synchronous.
///
/// # Safety
/// `p` must be null or valid for reading; its host ranges valid for the copy.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyParam2D(p: *const Memcpy2D) -> hipError_t {
    guard("hipMemcpyParam2D", || {
        // SAFETY: per the caller.
        let p = unsafe { read_in(p, "the copy's description") }?;
        let (device, _) = target(None)?;
        drv_copy::copy_2d(device, None, &p)
    })
}

/// `hipMemcpyParam2D` on a stream.
///
/// # Safety
/// As `hipMemcpyParam2D`, for as long as the copy is pending.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyParam2DAsync(
    p: *const Memcpy2D,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipMemcpyParam2DAsync", || {
        // SAFETY: per the caller.
        let p = unsafe { read_in(p, "the copy's description") }?;
        let (device, on) = target(Some(stream))?;
        drv_copy::copy_2d(device, on.as_deref(), &p)
    })
}

/// `hipMemcpyParam2D` (the driver's unaligned form: no position or pitch needs an alignment
/// here in the first place).
///
/// # Safety
/// As `hipMemcpyParam2D`.
#[no_mangle]
pub unsafe extern "C" fn hipDrvMemcpy2DUnaligned(p: *const Memcpy2D) -> hipError_t {
    guard("hipDrvMemcpy2DUnaligned", || {
        // SAFETY: per the caller.
        let p = unsafe { read_in(p, "the copy's description") }?;
        let (device, _) = target(None)?;
        drv_copy::copy_2d(device, None, &p)
    })
}

/// A 3-D copy between host, device and array memory as `HIP_MEMCPY3D` describes it (mipmap
/// level 0; the direction from the two memory types). Synchronous.
///
/// # Safety
/// `p` must be null or valid for reading; its host ranges valid for the copy.
#[no_mangle]
pub unsafe extern "C" fn hipDrvMemcpy3D(p: *const Memcpy3D) -> hipError_t {
    guard("hipDrvMemcpy3D", || {
        // SAFETY: per the caller.
        let p = unsafe { read_in(p, "the copy's description") }?;
        let (device, _) = target(None)?;
        drv_copy::copy_3d(device, None, &p)
    })
}

/// `hipDrvMemcpy3D` on a stream.
///
/// # Safety
/// As `hipDrvMemcpy3D`, for as long as the copy is pending.
#[no_mangle]
pub unsafe extern "C" fn hipDrvMemcpy3DAsync(
    p: *const Memcpy3D,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipDrvMemcpy3DAsync", || {
        // SAFETY: per the caller.
        let p = unsafe { read_in(p, "the copy's description") }?;
        let (device, on) = target(Some(stream))?;
        drv_copy::copy_3d(device, on.as_deref(), &p)
    })
}
