//! Host functions on streams on OpenCL, which has no such command: a marker reaches the
//! function's place in the stream, an event callback hands the function to a thread of the
//! runtime when the marker completes (`backend/host_function.rs`: where it runs and which waits
//! it may make), and a second marker waiting on a user event, completed when the function
//! returns, holds back everything enqueued after it, as HIP requires.

use cl3::types::cl_int;

use super::cl::OwnedEvent;
use super::device::Runtime;
use super::stream::{cl_failure, marker, ClQueue};
use crate::backend::host_function::{self as shared, StreamAt};
use crate::backend::HostFunction;
use crate::error::{Failure, HipError, HipResult};

/// Runs `function` on the host once everything enqueued before it on `target` has completed;
/// work enqueued after it waits for it to return.
pub fn enqueue(rt: &Runtime, target: &ClQueue, function: HostFunction) -> HipResult<()> {
    let release = cl3::event::create_user_event(rt.context.get())
        .map_err(|e| cl_failure("clCreateUserEvent", e))
        .and_then(|e| {
            OwnedEvent::from_raw(e)
                .ok_or_else(|| Failure::new(HipError::Unknown, "clCreateUserEvent gave no event"))
        })?;
    let mut reached = None;
    target.enqueue(rt, &[], |queue, deps| {
        reached = Some(marker(queue, deps)?);
        marker(queue, &[release.get()])
    })?;
    let Some(reached) = reached else {
        return Err(Failure::new(
            HipError::Unknown,
            "the marker returned no event",
        ));
    };
    let release_after = release.clone();
    let running = at(rt, target);
    let job = Box::new(move |status: cl_int| {
        // `hipSuccess`, or `hipErrorLaunchFailure` when earlier work on the stream failed.
        let hip_status = if status < 0 {
            HipError::LaunchFailure as i32
        } else {
            0
        };
        shared::run(running, function, hip_status, move || {
            let _ = cl3::event::set_user_event_status(release_after.get(), cl3::event::CL_COMPLETE);
        });
    });
    if let Err(e) = reached.on_complete(job) {
        // Release the stream: nothing will run, and nothing may wait forever.
        let _ = cl3::event::set_user_event_status(release.get(), cl3::event::CL_COMPLETE);
        return Err(cl_failure("clSetEventCallback", e));
    }
    let _ = target.queue.flush();
    Ok(())
}

/// `target` as host functions see it.
fn at(rt: &Runtime, target: &ClQueue) -> StreamAt {
    StreamAt {
        device: rt.id,
        queue: target.queue.get() as usize,
        is_null: target.is_null,
        blocking: target.is_blocking(),
    }
}

/// What a wait is for: a stream's work, or everything of the device.
pub enum Waited<'a> {
    Device,
    Stream(&'a ClQueue),
    /// An event's marker on the raw queue it was recorded on (not yet complete).
    Marker(usize),
}

/// Refuses a wait on `rt` that the calling host function would never see end: one for work
/// queued behind the function, which its stream (and the null stream, for a blocking one) holds
/// back until it returns. Outside host functions, and for other devices, waits are allowed.
pub fn check_wait(rt: &Runtime, waited: Waited, call: &str) -> HipResult<()> {
    let waited = match waited {
        Waited::Device => shared::Waited::Device,
        Waited::Stream(s) => shared::Waited::Stream(at(rt, s)),
        Waited::Marker(queue) => shared::Waited::Marker { queue },
    };
    shared::check_wait(rt.id, rt.null_queue.queue.get() as usize, waited, call)
}
