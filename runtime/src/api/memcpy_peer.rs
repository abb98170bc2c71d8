//! Copies between devices: `hipMemcpyPeer` and `hipMemcpyPeerAsync`. Device memory is in one
//! address space on both backends (USM or SVM addresses on OpenCL's one device, unified
//! addressing on CUDA, where the driver moves the bytes between GPUs directly or through the
//! host), so a peer copy is a device-to-device region copy; the ordinals are checked first.

use std::ffi::{c_int, c_void};

use super::{device_at, guard, hipError_t, hipStream_t, stream};
use crate::backend::{ops, Copy3d, MemcpyKind};
use crate::error::HipResult;

/// Copies `bytes` from `src` on device `src_device` to `dst` on `dst_device`: on the source
/// device's null stream once the destination device's null stream is done (the copy is ordered
/// after earlier work on both), returning when it is done.
fn peer_copy(
    dst: *mut c_void,
    dst_device: c_int,
    src: *const c_void,
    src_device: c_int,
    bytes: usize,
) -> HipResult<()> {
    let (to, from) = (device_at(dst_device)?, device_at(src_device)?);
    let copy = Copy3d::linear(dst, src, bytes);
    if to.id() != from.id() && !copy.is_empty() {
        to.null_stream().queue().synchronize()?;
    }
    ops::copy(&from.null_stream(), &copy, MemcpyKind::DeviceToDevice, true)
}

/// Copies `bytes` of device memory from device `src_device` to device `dst_device` (the same
/// device included). Synchronous.
#[no_mangle]
pub extern "C" fn hipMemcpyPeer(
    dst: *mut c_void,
    dst_device: c_int,
    src: *const c_void,
    src_device: c_int,
    bytes: usize,
) -> hipError_t {
    guard("hipMemcpyPeer", || {
        peer_copy(dst, dst_device, src, src_device, bytes)
    })
}

/// [`hipMemcpyPeer`] on a stream, returning at once.
#[no_mangle]
pub extern "C" fn hipMemcpyPeerAsync(
    dst: *mut c_void,
    dst_device: c_int,
    src: *const c_void,
    src_device: c_int,
    bytes: usize,
    s: hipStream_t,
) -> hipError_t {
    guard("hipMemcpyPeerAsync", || {
        device_at(dst_device)?;
        device_at(src_device)?;
        let copy = Copy3d::linear(dst, src, bytes);
        ops::copy(&*stream(s)?, &copy, MemcpyKind::DeviceToDevice, false)
    })
}
