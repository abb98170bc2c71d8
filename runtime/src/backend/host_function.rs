//! Host functions on streams (`hipLaunchHostFunc`, `hipStreamAddCallback`), the part both
//! backends share: the function runs on a thread of the runtime, never on a driver's thread, and
//! a wait it makes for work queued behind itself is refused.
//!
//! Never on a driver's thread, because drivers limit what happens there: Intel's OpenCL runtime
//! may call an event callback at once on the thread that completes the event, and the CUDA driver
//! refuses every call made from its callback thread (`CUDA_ERROR_NOT_PERMITTED`). AMD's HIP
//! runs host functions on a thread of its own, where runtime calls work, and programs written
//! for it make them. Each backend holds the stream back until the function returns
//! (`opencl/host_function.rs`: a user event; `cuda/host_function.rs`: a stream wait on a word
//! the function's end writes).
//!
//! The runtime's threads ([`run`]): an idle one takes the next function; when none is idle
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

use super::{DeviceId, HostFunction};
use crate::error::{Failure, HipError, HipResult};

/// A stream as host functions see it: the backend's queue handle and how it orders with the
/// null stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamAt {
    pub device: DeviceId,
    /// The backend's handle of the queue (an OpenCL queue, a `CUstream`).
    pub queue: usize,
    pub is_null: bool,
    /// Null-stream work waits for it (and it for the null stream's).
    pub blocking: bool,
}

/// What a wait is for.
pub enum Waited {
    /// Everything of the device.
    Device,
    /// A stream's work (and, by the null stream's rules, what it orders with).
    Stream(StreamAt),
    /// A point recorded on the queue `queue` (an event).
    Marker { queue: usize },
}

thread_local! {
    /// The stream whose host function the calling thread runs.
    static RUNNING: Cell<Option<StreamAt>> = const { Cell::new(None) };
}

/// Runs `function` on a thread of the runtime, told `status` (`hipSuccess`, or the failure of
/// earlier work), then `done` (which lets the stream go on). Waits the function makes are checked
/// against `on`.
pub fn run(
    on: StreamAt,
    function: HostFunction,
    status: i32,
    done: impl FnOnce() + Send + 'static,
) {
    run_on_worker(Box::new(move || {
        RUNNING.with(|r| r.set(Some(on)));
        let _ = catch_unwind(AssertUnwindSafe(|| function(status)));
        RUNNING.with(|r| r.set(None));
        done();
    }));
}

/// Refuses a wait on `device`, whose null stream's queue is `null_queue`, that the calling host
/// function would never see end: one for work queued behind the function, which its stream (and
/// the null stream, for a blocking one) holds back until it returns. Outside host functions, and
/// for other devices, waits are allowed.
pub fn check_wait(
    device: DeviceId,
    null_queue: usize,
    waited: Waited,
    call: &str,
) -> HipResult<()> {
    let Some(r) = RUNNING.with(Cell::get).filter(|r| r.device == device) else {
        return Ok(());
    };
    let behind = match waited {
        Waited::Device => true,
        Waited::Stream(s) => {
            s.queue == r.queue || (s.is_null && r.blocking) || (r.is_null && s.blocking)
        }
        Waited::Marker { queue } => queue == r.queue || (queue == null_queue && r.blocking),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn at(queue: usize, is_null: bool, blocking: bool) -> StreamAt {
        StreamAt {
            device: 0,
            queue,
            is_null,
            blocking,
        }
    }

    /// Which waits a function on a blocking stream, a non-blocking one and the null stream
    /// refuses, checked on the worker that runs it.
    #[test]
    fn waits_behind_the_function_are_refused() {
        let null = at(1, true, true);
        let blocking = at(2, false, true);
        let non_blocking = at(3, false, false);
        let cases = [
            (blocking, vec![true, true, true, false, true]),
            (non_blocking, vec![true, false, true, false, false]),
            (null, vec![true, true, true, false, true]),
        ];
        for (on, want) in cases {
            let (tx, rx) = std::sync::mpsc::channel();
            let f: HostFunction = Box::new(move |_| {
                let refused = |w: Waited| check_wait(0, 1, w, "a wait").is_err();
                let got = vec![
                    refused(Waited::Device),
                    refused(Waited::Stream(null)),
                    refused(Waited::Stream(on)),
                    refused(Waited::Stream(at(4, false, false))),
                    refused(Waited::Marker { queue: 1 }),
                ];
                // Another device's waits are never refused.
                let other = check_wait(1, 1, Waited::Device, "a wait").is_ok();
                tx.send((got, other)).unwrap();
            });
            run(on, f, 0, || {});
            let (got, other) = rx.recv().unwrap();
            assert_eq!(got, want, "{on:?}");
            assert!(other);
        }
        // Outside host functions nothing is refused.
        assert!(check_wait(0, 1, Waited::Device, "a wait").is_ok());
    }
}
