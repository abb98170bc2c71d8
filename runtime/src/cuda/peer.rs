//! Several CUDA devices: peer access between pairs (the driver's answer per pair), peer copies
//! between two devices' memory, memory and events shared with other processes
//! (`cuIpc*`), and the stream memory operations (`cuStreamWriteValue*`,
//! `cuStreamWaitValue*`).

use std::ffi::c_void;

use super::device::CudaDevice;
use super::driver::{check, sys};
use super::stream::{CudaEvent, CudaQueue};
use crate::backend::{
    not_supported, Copy3d, DeviceId, EventFlags, IpcHandle, P2pAttribute, ValueWait, ValueWidth,
    ValueWrite, IPC_HANDLE_SIZE, IPC_MEM_LAZY_ENABLE_PEER_ACCESS,
};
use crate::error::{Failure, HipError, HipResult};

fn dptr(p: *const c_void) -> sys::CUdeviceptr {
    p as usize as u64
}

/// Whether `device` can reach `peer`'s memory (`cuDeviceCanAccessPeer`); a failed query is no.
pub fn can_access_peer(device: &CudaDevice, peer: DeviceId) -> bool {
    let Ok(peer) = super::device_at(peer) else {
        return false;
    };
    let mut can = 0;
    // SAFETY: writes one int.
    let r = unsafe { sys::cuDeviceCanAccessPeer(&mut can, device.ordinal, peer.ordinal) };
    r == sys::CUresult::CUDA_SUCCESS && can != 0
}

/// `cuDeviceGetP2PAttribute` with `device` as the source.
pub fn p2p_attribute(
    device: &CudaDevice,
    peer: DeviceId,
    attribute: P2pAttribute,
) -> HipResult<i32> {
    use sys::CUdevice_P2PAttribute as A;
    let which = match attribute {
        P2pAttribute::PerformanceRank => A::CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK,
        P2pAttribute::AccessSupported => A::CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED,
        P2pAttribute::NativeAtomicSupported => A::CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED,
        P2pAttribute::ArrayAccessSupported => {
            A::CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED
        }
    };
    let peer = super::device_at(peer)?;
    let mut value = 0;
    // SAFETY: writes one int.
    check("cuDeviceGetP2PAttribute", unsafe {
        sys::cuDeviceGetP2PAttribute(&mut value, which, device.ordinal, peer.ordinal)
    })?;
    Ok(value)
}

/// `cuCtxEnablePeerAccess` from `device`'s context to `peer`'s (the driver answers
/// `CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED` the second time).
pub fn enable_peer_access(device: &CudaDevice, peer: DeviceId) -> HipResult<()> {
    let peer_context = super::device_at(peer)?.context()?;
    device.bind()?;
    // SAFETY: both contexts are retained primary contexts.
    check("cuCtxEnablePeerAccess", unsafe {
        sys::cuCtxEnablePeerAccess(peer_context, 0)
    })
}

/// `cuCtxDisablePeerAccess` (`CUDA_ERROR_PEER_ACCESS_NOT_ENABLED` when it was not enabled).
pub fn disable_peer_access(device: &CudaDevice, peer: DeviceId) -> HipResult<()> {
    let peer_context = super::device_at(peer)?.context()?;
    device.bind()?;
    // SAFETY: both contexts are retained primary contexts.
    check("cuCtxDisablePeerAccess", unsafe {
        sys::cuCtxDisablePeerAccess(peer_context)
    })
}

/// A peer copy on `queue`: each plane of the region with `cuMemcpy3DPeerAsync`, naming both
/// devices' contexts (the driver stages it through the host when peer access is off).
pub fn copy(
    queue: &CudaQueue,
    c: &Copy3d,
    dst_device: DeviceId,
    src_device: DeviceId,
    wait: bool,
) -> HipResult<()> {
    let dst_context = super::device_at(dst_device)?.context()?;
    let src_context = super::device_at(src_device)?.context()?;
    super::device_at(queue.device)?.bind()?;
    for plane in c.planes() {
        let desc = sys::CUDA_MEMCPY3D_PEER {
            srcXInBytes: 0,
            srcY: 0,
            srcZ: 0,
            srcLOD: 0,
            srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_UNIFIED,
            srcHost: std::ptr::null(),
            srcDevice: dptr(plane.src),
            srcArray: std::ptr::null_mut(),
            srcContext: src_context,
            srcPitch: plane.spitch,
            srcHeight: plane.height,
            dstXInBytes: 0,
            dstY: 0,
            dstZ: 0,
            dstLOD: 0,
            dstMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_UNIFIED,
            dstHost: std::ptr::null_mut(),
            dstDevice: dptr(plane.dst),
            dstArray: std::ptr::null_mut(),
            dstContext: dst_context,
            dstPitch: plane.dpitch,
            dstHeight: plane.height,
            WidthInBytes: plane.width,
            Height: plane.height,
            Depth: 1,
        };
        // SAFETY: the descriptor names ranges of both devices, valid per the caller.
        check("cuMemcpy3DPeerAsync", unsafe {
            sys::cuMemcpy3DPeerAsync(&desc, queue.raw())
        })?;
    }
    if wait {
        // SAFETY: a valid stream.
        check("cuStreamSynchronize", unsafe {
            sys::cuStreamSynchronize(queue.raw())
        })?;
    }
    Ok(())
}

/// `cuIpcGetMemHandle` for the allocation `p` starts (the driver refuses interior and freed
/// pointers).
pub fn memory_handle(device: &CudaDevice, p: *mut c_void) -> HipResult<IpcHandle> {
    device.bind()?;
    let mut handle = sys::CUipcMemHandle {
        reserved: [0; IPC_HANDLE_SIZE],
    };
    // SAFETY: writes one handle.
    check("cuIpcGetMemHandle", unsafe {
        sys::cuIpcGetMemHandle(&mut handle, dptr(p))
    })
    .map_err(as_invalid_value)?;
    Ok(handle.reserved.map(|b| b as u8))
}

/// `cuIpcOpenMemHandle`: the other process's allocation in this one (the creating process
/// itself is refused by the driver with `CUDA_ERROR_INVALID_CONTEXT`).
pub fn open_memory(device: &CudaDevice, handle: &IpcHandle, flags: u32) -> HipResult<*mut c_void> {
    device.bind()?;
    let raw = sys::CUipcMemHandle {
        reserved: handle.map(|b| b as std::ffi::c_char),
    };
    // hipIpcMemLazyEnablePeerAccess is the driver's CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS.
    let mut p = 0;
    // SAFETY: writes one device pointer.
    check("cuIpcOpenMemHandle", unsafe {
        sys::cuIpcOpenMemHandle_v2(&mut p, raw, flags & IPC_MEM_LAZY_ENABLE_PEER_ACCESS)
    })?;
    Ok(p as usize as *mut c_void)
}

/// `cuIpcCloseMemHandle`.
pub fn close_memory(device: &CudaDevice, p: *mut c_void) -> HipResult<()> {
    device.bind()?;
    // SAFETY: the driver checks that `p` was opened from a handle.
    check("cuIpcCloseMemHandle", unsafe {
        sys::cuIpcCloseMemHandle(dptr(p))
    })
    .map_err(as_invalid_value)
}

/// `cuIpcGetEventHandle` (the event was created interprocess; the driver checks).
pub fn event_handle(event: &CudaEvent) -> HipResult<IpcHandle> {
    super::device_at(event.device_index())?.bind()?;
    let mut handle = sys::CUipcEventHandle {
        reserved: [0; IPC_HANDLE_SIZE],
    };
    // SAFETY: writes one handle.
    check("cuIpcGetEventHandle", unsafe {
        sys::cuIpcGetEventHandle(&mut handle, event.raw())
    })?;
    Ok(handle.reserved.map(|b| b as u8))
}

/// `cuIpcOpenEventHandle`: another process's event, destroyed like any event of this one.
pub fn open_event(device: &CudaDevice, handle: &IpcHandle) -> HipResult<CudaEvent> {
    device.bind()?;
    let raw = sys::CUipcEventHandle {
        reserved: handle.map(|b| b as std::ffi::c_char),
    };
    let mut e: sys::CUevent = std::ptr::null_mut();
    // SAFETY: writes one handle.
    check("cuIpcOpenEventHandle", unsafe {
        sys::cuIpcOpenEventHandle(&mut e, raw)
    })?;
    let flags = EventFlags {
        disable_timing: true,
        interprocess: true,
        ..EventFlags::default()
    };
    Ok(CudaEvent::adopt(device, e, flags))
}

/// A refused pointer is the caller's bad argument, as HIP reports it.
fn as_invalid_value(f: Failure) -> Failure {
    match f.code {
        HipError::InvalidHandle | HipError::InvalidDevicePointer | HipError::NotFound => {
            Failure::new(HipError::InvalidValue, f.message)
        }
        _ => f,
    }
}

/// `cuStreamWriteValue32/64`.
pub fn write_value(queue: &CudaQueue, w: &ValueWrite) -> HipResult<()> {
    super::device_at(queue.device)?.bind()?;
    let addr = w.address as u64;
    // SAFETY: a word of device-accessible memory, per the caller; flags 0 (a write with the
    // default memory barrier).
    check("cuStreamWriteValue", unsafe {
        match w.width {
            ValueWidth::Bits32 => {
                sys::cuStreamWriteValue32_v2(queue.raw(), addr, w.value as u32, 0)
            }
            ValueWidth::Bits64 => sys::cuStreamWriteValue64_v2(queue.raw(), addr, w.value, 0),
        }
    })
}

/// `cuStreamWaitValue32/64` for the comparisons the driver makes as HIP does: equality, a
/// common bit, a bit in neither, all without a mask. The driver's "greater or equal" compares
/// cyclically (`(int)(stored - value) >= 0`), not as HIP's plain unsigned comparison, and it
/// has no mask: those are refused rather than answered differently.
pub fn wait_value(queue: &CudaQueue, w: &ValueWait) -> HipResult<()> {
    use crate::backend::WaitCondition;
    if !w.is_unmasked() {
        return Err(not_supported(
            "hipStreamWaitValue with a mask: the CUDA driver's stream waits compare the whole word",
        ));
    }
    if w.condition == WaitCondition::GreaterOrEqual {
        return Err(not_supported(
            "hipStreamWaitValueGte on CUDA: the driver's CU_STREAM_WAIT_VALUE_GEQ compares \
             cyclically, not as HIP's unsigned greater-or-equal",
        ));
    }
    super::device_at(queue.device)?.bind()?;
    let addr = w.address as u64;
    // SAFETY: a word of device-accessible memory, per the caller; HIP's comparison numbers are
    // the driver's CU_STREAM_WAIT_VALUE_*.
    check("cuStreamWaitValue", unsafe {
        match w.width {
            ValueWidth::Bits32 => {
                sys::cuStreamWaitValue32_v2(queue.raw(), addr, w.value as u32, w.condition.raw())
            }
            ValueWidth::Bits64 => {
                sys::cuStreamWaitValue64_v2(queue.raw(), addr, w.value, w.condition.raw())
            }
        }
    })
}
