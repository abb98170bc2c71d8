//! Between OpenCL devices. Each HIP device has an OpenCL context of its own, so one device's
//! allocations and events mean nothing to another's queues (no OpenCL device can reach another
//! context's memory: `hipDeviceCanAccessPeer` answers no). What HIP still allows is done through
//! the host, in stream order and without blocking the calling thread:
//!
//! * a copy touching another device's memory (`hipMemcpyPeer`, or any copy naming such a
//!   pointer) runs as *hops*, each a copy on the transfer queue of the device whose memory it
//!   touches: one hop when the other side is host memory or on the same device, two through a
//!   host staging buffer when the sides lie on two devices. Each hop waits for the one before;
//!   the first waits for the work enqueued before it on the stream, and the stream's later work
//!   waits for the last;
//! * a fill of another device's memory runs the same way, one hop on that device;
//! * an event of one device waited for by another device's stream ([`relay`]): a user event of
//!   the waiting context, set when the event completes (with its error status if it failed).

use std::ffi::c_void;
use std::sync::Arc;

use super::cl::OwnedEvent;
use super::device::{runtime_of, Runtime};
use super::memory::{self, AllocKind};
use super::stream::{cl_failure, enqueue_marker, ClQueue};
use crate::backend::{Copy3d, DeviceId, Fill, MemcpyKind, StreamFlags};
use crate::error::{Failure, HipError, HipResult};

/// The device whose context `p` belongs to (plain host memory belongs to none).
fn context_of(p: usize) -> Option<DeviceId> {
    memory::owner_of(p)
        .filter(|(_, _, _, kind)| *kind != AllocKind::HostPlain)
        .map(|(device, ..)| device)
}

/// The devices of a copy's two sides when one lies in the memory of a device other than
/// `device` (a side of host memory counts as `device`'s); `None` when `device` can do it alone.
pub fn foreign_sides(device: DeviceId, c: &Copy3d) -> Option<(DeviceId, DeviceId)> {
    let dst = context_of(c.dst as usize);
    let src = context_of(c.src as usize);
    if dst.unwrap_or(device) == device && src.unwrap_or(device) == device {
        return None;
    }
    Some((dst.unwrap_or(device), src.unwrap_or(device)))
}

/// A user event of `to`'s context that completes when `event` does (with its error status when
/// it failed), for a wait list of `to`'s queues.
pub fn relay(event: &OwnedEvent, to: &Runtime) -> HipResult<OwnedEvent> {
    let user = cl3::event::create_user_event(to.context.get())
        .map_err(|e| cl_failure("clCreateUserEvent", e))
        .and_then(|e| {
            OwnedEvent::from_raw(e)
                .ok_or_else(|| Failure::new(HipError::Unknown, "clCreateUserEvent gave no event"))
        })?;
    let set = user.clone();
    let registered = event.on_complete(Box::new(move |status| {
        let status = if status < 0 {
            status
        } else {
            cl3::event::CL_COMPLETE
        };
        let _ = cl3::event::set_user_event_status(set.get(), status);
    }));
    if let Err(e) = registered {
        // Nothing would ever set it: fail it now, so that nothing waits forever.
        let _ = cl3::event::set_user_event_status(user.get(), e.min(-1));
        return Err(cl_failure("clSetEventCallback", e));
    }
    Ok(user)
}

/// One step of a peer copy: a copy on `device`'s transfer queue.
struct Hop {
    device: DeviceId,
    copy: Copy3d,
}

/// A copy between memory of `dst_device` and `src_device` (either may be host memory, then
/// counted as `queue`'s device), ordered on `queue`; with `wait`, returns once done.
pub fn copy(
    queue: &ClQueue,
    c: &Copy3d,
    dst_device: DeviceId,
    src_device: DeviceId,
    wait: bool,
) -> HipResult<()> {
    let here = queue.rt()?;
    for (side, p, device) in [
        ("destination", c.dst as usize, dst_device),
        ("source", c.src as usize, src_device),
    ] {
        if let Some(owner) = context_of(p).filter(|&owner| owner != device) {
            return Err(Failure::invalid_value(format!(
                "the {side} {p:#x} is memory of device {owner}, not of device {device}"
            )));
        }
    }
    if dst_device == here.id && src_device == here.id {
        return memory::copy(here, queue, c, MemcpyKind::Default, wait);
    }
    // The sides of one device other than the stream's: one hop there.
    let mut staging: Option<Arc<Vec<u8>>> = None;
    let dst_is_host = context_of(c.dst as usize).is_none();
    let src_is_host = context_of(c.src as usize).is_none();
    let hops = if dst_device == src_device || (dst_device == here.id && dst_is_host) {
        vec![Hop {
            device: src_device,
            copy: *c,
        }]
    } else if src_device == here.id && src_is_host {
        vec![Hop {
            device: dst_device,
            copy: *c,
        }]
    } else {
        // Two devices: through a packed host buffer.
        let row = c.width;
        let plane = row.checked_mul(c.height);
        let bytes = plane
            .and_then(|p| p.checked_mul(c.depth))
            .ok_or_else(|| Failure::invalid_value("the peer copy's extent overflows"))?;
        let buffer = Arc::new(vec![0u8; bytes]);
        let at = buffer.as_ptr() as *mut c_void;
        let plane = plane.unwrap_or(0);
        staging = Some(buffer);
        vec![
            Hop {
                device: src_device,
                copy: Copy3d {
                    dst: at,
                    dst_pitch: row,
                    dst_slice: plane,
                    ..*c
                },
            },
            Hop {
                device: dst_device,
                copy: Copy3d {
                    src: at,
                    src_pitch: row,
                    src_slice: plane,
                    ..*c
                },
            },
        ]
    };
    // The work before the copy on the stream.
    let mut last = enqueue_marker(here, queue, &[])?;
    let mut last_device = here.id;
    for hop in &hops {
        let rt = runtime_of(hop.device)?;
        let transfer = transfer_queue(rt)?;
        let waited = if last_device == rt.id {
            last
        } else {
            relay(&last, rt)?
        };
        enqueue_marker(rt, &transfer, &[waited])?;
        memory::copy(rt, &transfer, &hop.copy, MemcpyKind::Default, false)?;
        last = transfer
            .tail()
            .ok_or_else(|| Failure::new(HipError::Unknown, "the peer copy left no event"))?;
        last_device = rt.id;
    }
    let waited = if last_device == here.id {
        last.clone()
    } else {
        relay(&last, here)?
    };
    let done = enqueue_marker(here, queue, &[waited])?;
    let _ = queue.queue.flush();
    if let Some(buffer) = staging {
        // The staging buffer lives until its last reader is done.
        let keep = buffer.clone();
        if last.on_complete(Box::new(move |_| drop(keep))).is_err() {
            let _ = last.wait();
        }
        drop(buffer);
    }
    if wait {
        done.wait()
            .map_err(|e| cl_failure(&format!("copying {} bytes between devices", c.width), e))?;
    }
    Ok(())
}

/// The device whose memory `f` fills, when it is not `device`.
pub fn foreign_fill(device: DeviceId, f: &Fill) -> Option<DeviceId> {
    context_of(f.dst as usize).filter(|&owner| owner != device)
}

/// A fill of device `owner`'s memory in `queue`'s order: one hop on `owner`'s transfer queue,
/// after the work before it on `queue`, which waits for it; with `wait`, returns once done.
pub fn fill(queue: &ClQueue, f: &Fill, owner: DeviceId, wait: bool) -> HipResult<()> {
    let here = queue.rt()?;
    let there = runtime_of(owner)?;
    let transfer = transfer_queue(there)?;
    let before = enqueue_marker(here, queue, &[])?;
    enqueue_marker(there, &transfer, &[relay(&before, there)?])?;
    memory::fill(there, &transfer, f, false)?;
    let filled = transfer
        .tail()
        .ok_or_else(|| Failure::new(HipError::Unknown, "the fill left no event"))?;
    let done = enqueue_marker(here, queue, &[relay(&filled, here)?])?;
    let _ = queue.queue.flush();
    if wait {
        done.wait()
            .map_err(|e| cl_failure("filling another device's memory", e))?;
    }
    Ok(())
}

/// `rt`'s queue for peer copies: non-blocking (no implicit wait on the null stream), its order
/// given by the events each hop waits for.
pub(super) fn transfer_queue(rt: &Runtime) -> HipResult<Arc<ClQueue>> {
    if let Some(q) = rt.transfer.get() {
        return Ok(q.clone());
    }
    let flags = StreamFlags { non_blocking: true };
    let q = ClQueue::new(rt.id, &rt.context, &rt.device, flags, 0, false)
        .map_err(|e| cl_failure("clCreateCommandQueueWithProperties", e))?;
    Ok(rt.transfer.get_or_init(|| Arc::new(q)).clone())
}
