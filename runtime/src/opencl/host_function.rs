//! Host functions on streams (`hipLaunchHostFunc`, `hipStreamAddCallback`). OpenCL has no such
//! command, so three pieces stand for one: a marker reaches the function's place in the stream, an
//! event callback hands the function to a thread of the runtime when the marker completes, and a
//! second marker waiting on a user event, completed when the function returns, holds back
//! everything enqueued after it, as HIP requires.
//!
//! The function never runs in the event callback itself: a driver may call it at once, on the
//! thread that sets it, when the marker is already complete (Intel's CPU runtime does), and a
//! function that waits for something the caller does next would then never return. The
//! runtime's threads ([`run_on_worker`]): an idle one takes the next function; when none is idle
//! another is started, so a function blocked on another stream's never holds that one back.
//!
//! A host function that waits for work queued behind it (its own stream, the null stream it
//! holds back, the whole device) would wait forever: HIP forbids runtime calls in host
//! functions, and such a wait is refused with `hipErrorIllegalState` ([`check_wait`]), as CUDA
//! answers one with `cudaErrorNotPermitted`.

use std::cell::Cell;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::Duration;

use cl3::types::cl_int;

use super::cl::OwnedEvent;
use super::device::Runtime;
use super::stream::{cl_failure, marker, ClQueue};
use crate::backend::{DeviceId, HostFunction};
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
    let running = Running {
        device: rt.id,
        queue: target.queue.get() as usize,
        is_null: target.is_null,
        blocking: target.is_blocking(),
    };
    let job = Box::new(move |status: cl_int| {
        // `hipSuccess`, or `hipErrorLaunchFailure` when earlier work on the stream failed.
        let hip_status = if status < 0 {
            HipError::LaunchFailure as i32
        } else {
            0
        };
        run_on_worker(Box::new(move || {
            RUNNING.with(|r| r.set(Some(running)));
            let _ = catch_unwind(AssertUnwindSafe(|| function(hip_status)));
            RUNNING.with(|r| r.set(None));
            let _ = cl3::event::set_user_event_status(release_after.get(), cl3::event::CL_COMPLETE);
        }));
    });
    if let Err(e) = reached.on_complete(job) {
        // Release the stream: nothing will run, and nothing may wait forever.
        let _ = cl3::event::set_user_event_status(release.get(), cl3::event::CL_COMPLETE);
        return Err(cl_failure("clSetEventCallback", e));
    }
    let _ = target.queue.flush();
    Ok(())
}

/// The stream whose host function the calling thread runs.
#[derive(Clone, Copy)]
struct Running {
    device: DeviceId,
    /// Its OpenCL queue.
    queue: usize,
    is_null: bool,
    /// Null-stream work waits for it.
    blocking: bool,
}

thread_local! {
    static RUNNING: Cell<Option<Running>> = const { Cell::new(None) };
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
    let Some(r) = RUNNING.with(Cell::get).filter(|r| r.device == rt.id) else {
        return Ok(());
    };
    let null_queue = rt.null_queue.queue.get() as usize;
    let behind = match waited {
        Waited::Device => true,
        Waited::Stream(s) => {
            s.queue.get() as usize == r.queue
                || (s.is_null && r.blocking)
                || (r.is_null && s.is_blocking())
        }
        Waited::Marker(queue) => queue == r.queue || (queue == null_queue && r.blocking),
    };
    if !behind {
        return Ok(());
    }
    Err(Failure::new(
        HipError::IllegalState,
        format!(
            "{call} inside a host function (hipLaunchHostFunc, hipStreamAddCallback) would wait \
             for work queued behind the function itself; host functions must not wait for their \
             own stream or device"
        ),
    ))
}

/// A host function ready to run, with the release of its stream.
type Job = Box<dyn FnOnce() + Send>;

/// Host functions waiting for a thread, and how many threads wait for one.
struct Workers {
    jobs: Mutex<(VecDeque<Job>, usize)>,
    ready: Condvar,
}

fn workers() -> &'static Workers {
    static WORKERS: OnceLock<Workers> = OnceLock::new();
    WORKERS.get_or_init(|| Workers {
        jobs: Mutex::new((VecDeque::new(), 0)),
        ready: Condvar::new(),
    })
}

/// Runs `job` on a thread of the runtime: an idle one, else a new one (a thread idle for a
/// minute ends). Every waiting job has a thread of its own to come: jobs that outnumber the
/// idle threads start new ones, so a job never waits behind another that may wait for it.
fn run_on_worker(job: Job) {
    let w = workers();
    let mut state = w.jobs.lock().unwrap_or_else(|p| p.into_inner());
    state.0.push_back(job);
    w.ready.notify_one();
    if state.0.len() <= state.1 {
        return;
    }
    drop(state);
    let spawned = std::thread::Builder::new()
        .name("hipmlir-host-fn".into())
        .spawn(work);
    if spawned.is_err() {
        // No thread to be had: run it here rather than never.
        let next = w
            .jobs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .0
            .pop_front();
        if let Some(job) = next {
            job();
        }
    }
}

/// A worker: runs jobs until none comes for a minute.
fn work() {
    let w = workers();
    loop {
        let mut state = w.jobs.lock().unwrap_or_else(|p| p.into_inner());
        let job = loop {
            if let Some(job) = state.0.pop_front() {
                break Some(job);
            }
            state.1 += 1;
            let (next, timeout) = w
                .ready
                .wait_timeout(state, Duration::from_secs(60))
                .unwrap_or_else(|p| p.into_inner());
            state = next;
            state.1 -= 1;
            if timeout.timed_out() && state.0.is_empty() {
                break None;
            }
        };
        drop(state);
        match job {
            Some(job) => job(),
            None => return,
        }
    }
}
