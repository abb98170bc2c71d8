//! Peer access between devices: `hipDeviceCanAccessPeer`, `hipDeviceGetP2PAttribute`,
//! `hipDeviceEnablePeerAccess`, `hipDeviceDisablePeerAccess`, and copies between devices:
//! `hipMemcpyPeer`, `hipMemcpyPeerAsync`. Each backend answers per pair
//! (`Device::can_access_peer`: the CUDA driver's answer; OpenCL devices never reach another's
//! memory, each having a context of its own). Copies between devices need no peer access: they
//! go through `ops::copy_peer` (`hipMemcpyPeer`) or any copy naming another device's memory.

use std::ffi::{c_int, c_uint, c_void};

use super::{current_device, device_at, guard, hipError_t, hipStream_t, stream, write_out};
use crate::backend::{ops, Copy3d, Device, P2pAttribute};
use crate::error::{Failure, HipError, HipResult};

/// Whether `device` reaches `peer`'s memory; a device is not its own peer.
fn can_access(device: &dyn Device, peer: &dyn Device) -> bool {
    device.id() != peer.id() && device.can_access_peer(peer.id())
}

/// Writes whether `device` can reach `peer`'s memory (1 or 0; 0 for a device and itself).
/// Either ordinal out of range is `hipErrorInvalidDevice`.
///
/// # Safety
/// `can` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceCanAccessPeer(
    can: *mut c_int,
    device: c_int,
    peer: c_int,
) -> hipError_t {
    guard("hipDeviceCanAccessPeer", || {
        if can.is_null() {
            return Err(Failure::invalid_value("the result pointer is null"));
        }
        let (d, p) = (device_at(device)?, device_at(peer)?);
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(can, c_int::from(can_access(d, p)), "the result pointer") }
    })
}

/// Writes an attribute of the link from `src` to `dst` (`hipDeviceP2PAttr`). A device with
/// itself is `hipErrorInvalidDevice`, as in HIP; an unknown attribute `hipErrorInvalidValue`.
///
/// # Safety
/// `value` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetP2PAttribute(
    value: *mut c_int,
    attribute: c_int,
    src: c_int,
    dst: c_int,
) -> hipError_t {
    guard("hipDeviceGetP2PAttribute", || {
        if value.is_null() {
            return Err(Failure::invalid_value("the value pointer is null"));
        }
        let attribute = P2pAttribute::parse(attribute)?;
        let (s, d) = (device_at(src)?, device_at(dst)?);
        if s.id() == d.id() {
            return Err(Failure::new(
                HipError::InvalidDevice,
                format!("device {src} with itself is no peer link"),
            ));
        }
        let v = s.p2p_attribute(d.id(), attribute)?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(value, v, "the value pointer") }
    })
}

/// The peer of the calling thread's device that `peer` names, if the pair has peer access;
/// else `hipErrorInvalidDevice`, as HIP answers for a device it cannot pair.
fn peer_of_current(peer: c_int) -> HipResult<(&'static dyn Device, &'static dyn Device)> {
    let here = current_device()?;
    let there = device_at(peer)?;
    if !can_access(here, there) {
        return Err(Failure::new(
            HipError::InvalidDevice,
            format!(
                "device {} cannot reach device {peer}'s memory (hipDeviceCanAccessPeer answers 0{})",
                here.id(),
                if here.id() == there.id() {
                    ": a device is not its own peer"
                } else {
                    ""
                }
            ),
        ));
    }
    Ok((here, there))
}

/// Lets the calling thread's device reach `peer`'s memory. `flags` must be 0; a second time is
/// `hipErrorPeerAccessAlreadyEnabled`.
#[no_mangle]
pub extern "C" fn hipDeviceEnablePeerAccess(peer: c_int, flags: c_uint) -> hipError_t {
    guard("hipDeviceEnablePeerAccess", || {
        if flags != 0 {
            return Err(Failure::invalid_value(format!(
                "flags must be 0, got {flags:#x}"
            )));
        }
        let (here, there) = peer_of_current(peer)?;
        here.enable_peer_access(there.id())
    })
}

/// Undoes [`hipDeviceEnablePeerAccess`]; not enabled is `hipErrorPeerAccessNotEnabled`.
#[no_mangle]
pub extern "C" fn hipDeviceDisablePeerAccess(peer: c_int) -> hipError_t {
    guard("hipDeviceDisablePeerAccess", || {
        let (here, there) = peer_of_current(peer)?;
        here.disable_peer_access(there.id())
    })
}

/// Copies `bytes` from `src` on device `src_device` to `dst` on device `dst_device`, after the
/// work queued on both devices (and in order with the calling thread's device's null stream);
/// returns once done. Either device out of range is `hipErrorInvalidDevice`; a pointer that is
/// not memory of the device named is `hipErrorInvalidValue`.
#[no_mangle]
pub extern "C" fn hipMemcpyPeer(
    dst: *mut c_void,
    dst_device: c_int,
    src: *const c_void,
    src_device: c_int,
    bytes: usize,
) -> hipError_t {
    guard("hipMemcpyPeer", || {
        let (d, s) = (device_at(dst_device)?, device_at(src_device)?);
        let here = current_device()?;
        // As CUDA's: serialized with the work pending on the two devices.
        for other in [d, s] {
            if other.id() != here.id() {
                other.synchronize()?;
            }
        }
        let on = here.null_stream();
        ops::copy_peer(&on, &Copy3d::linear(dst, src, bytes), d.id(), s.id(), true)
    })
}

/// [`hipMemcpyPeer`] in the order of stream `s`; returns at once.
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
        let (d, sd) = (device_at(dst_device)?, device_at(src_device)?);
        let on = stream(s)?;
        ops::copy_peer(
            &on,
            &Copy3d::linear(dst, src, bytes),
            d.id(),
            sd.id(),
            false,
        )
    })
}
