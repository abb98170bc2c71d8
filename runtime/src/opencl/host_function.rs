//! Host functions on streams (`hipLaunchHostFunc`, `hipStreamAddCallback`). OpenCL has no such
//! command, so three pieces stand for one: a marker reaches the function's place in the stream, an
//! event callback runs the function when the marker completes (on a driver thread, as HIP allows),
//! and a second marker waiting on a user event, completed when the function returns, holds back
//! everything enqueued after it, as HIP requires.

use std::panic::{catch_unwind, AssertUnwindSafe};

use cl3::types::cl_int;

use super::cl::OwnedEvent;
use super::device::Runtime;
use super::stream::{cl_failure, marker, ClQueue};
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
    let job = Box::new(move |status: cl_int| {
        // `hipSuccess`, or `hipErrorLaunchFailure` when earlier work on the stream failed.
        let hip_status = if status < 0 {
            HipError::LaunchFailure as i32
        } else {
            0
        };
        let _ = catch_unwind(AssertUnwindSafe(|| function(hip_status)));
        let _ = cl3::event::set_user_event_status(release_after.get(), cl3::event::CL_COMPLETE);
    });
    if let Err(e) = reached.on_complete(job) {
        // Release the stream: nothing will run, and nothing may wait forever.
        let _ = cl3::event::set_user_event_status(release.get(), cl3::event::CL_COMPLETE);
        return Err(cl_failure("clSetEventCallback", e));
    }
    let _ = target.queue.flush();
    Ok(())
}
