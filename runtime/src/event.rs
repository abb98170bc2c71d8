//! Events: `hipEventRecord` enqueues a marker on the stream (an OpenCL event that completes when
//! everything before it on the stream has); `hipEventElapsedTime` reads the markers' profiling
//! timestamps (`CL_PROFILING_COMMAND_END`; every queue is created with profiling enabled).

use std::sync::{Arc, Mutex, OnceLock};

use crate::cl::OwnedEvent;
use crate::device::runtime;
use crate::error::{Failure, HipError, HipResult};
use crate::handles::{HandleTable, Kind};
use crate::stream::{cl_failure, enqueue_marker, resolve, Stream};

pub const BLOCKING_SYNC: u32 = 1;
pub const DISABLE_TIMING: u32 = 2;
pub const INTERPROCESS: u32 = 4;

#[derive(Debug)]
pub struct Event {
    pub flags: u32,
    recorded: Mutex<Option<Recorded>>,
}

#[derive(Debug, Clone)]
struct Recorded {
    marker: OwnedEvent,
    stream: Arc<Stream>,
}

fn table() -> &'static HandleTable<Event> {
    static TABLE: OnceLock<HandleTable<Event>> = OnceLock::new();
    TABLE.get_or_init(|| HandleTable::new(Kind::Event))
}

fn bad_event(handle: usize) -> Failure {
    Failure::new(
        HipError::InvalidHandle,
        format!("{handle:#x} is not a live event (destroyed, or never created by hipEventCreate)"),
    )
}

pub fn create(flags: u32) -> HipResult<usize> {
    if flags & !(BLOCKING_SYNC | DISABLE_TIMING | INTERPROCESS) != 0 {
        return Err(Failure::invalid_value(format!(
            "event flags {flags:#x}: known flags are hipEventBlockingSync (1), \
             hipEventDisableTiming (2) and hipEventInterprocess (4)"
        )));
    }
    if flags & INTERPROCESS != 0 {
        return Err(Failure::new(
            HipError::NotSupported,
            "hipEventInterprocess: events cannot be shared between processes on OpenCL",
        ));
    }
    runtime()?;
    Ok(table().insert(Arc::new(Event {
        flags,
        recorded: Mutex::new(None),
    })))
}

pub fn get(handle: usize) -> HipResult<Arc<Event>> {
    table().get(handle).ok_or_else(|| bad_event(handle))
}

pub fn destroy(handle: usize) -> HipResult<()> {
    table()
        .remove(handle)
        .map(|_| ())
        .ok_or_else(|| bad_event(handle))
}

/// Destroys every event (`hipDeviceReset`).
pub fn destroy_all() {
    table().clear();
}

impl Event {
    fn recorded(&self) -> Option<Recorded> {
        self.recorded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The marker of the last record, if recorded.
    pub fn marker(&self) -> Option<OwnedEvent> {
        self.recorded().map(|r| r.marker)
    }

    /// `hipEventRecord`.
    pub fn record(&self, stream_handle: usize) -> HipResult<()> {
        let rt = runtime()?;
        let stream = resolve(stream_handle)?;
        let marker = enqueue_marker(rt, &stream, &[])?;
        let _ = stream.queue.flush();
        *self.recorded.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(Recorded { marker, stream });
        Ok(())
    }

    /// `hipEventSynchronize`: an event never recorded is complete.
    pub fn synchronize(&self) -> HipResult<()> {
        match self.recorded() {
            None => Ok(()),
            Some(r) => r
                .marker
                .wait()
                .map_err(|e| cl_failure("work before the event failed", e)),
        }
    }

    /// `hipEventQuery`: `Ok(true)` when complete (or never recorded).
    pub fn is_complete(&self) -> HipResult<bool> {
        match self.recorded() {
            None => Ok(true),
            Some(r) => {
                let _ = r.stream.queue.flush();
                match r.marker.status() {
                    Ok(0) => Ok(true),
                    Ok(s) if s > 0 => Ok(false),
                    Ok(s) | Err(s) => Err(cl_failure("work before the event failed", s)),
                }
            }
        }
    }

    /// The device timestamp (ns) at which the event completed.
    fn timestamp(&self, which: &str) -> HipResult<u64> {
        if self.flags & DISABLE_TIMING != 0 {
            return Err(Failure::new(
                HipError::InvalidHandle,
                format!("the {which} event was created with hipEventDisableTiming"),
            ));
        }
        let r = self.recorded().ok_or_else(|| {
            Failure::new(
                HipError::InvalidHandle,
                format!("the {which} event has not been recorded"),
            )
        })?;
        if !self.is_complete()? {
            return Err(Failure::quiet(HipError::NotReady));
        }
        r.marker
            .profiling(cl3::event::CL_PROFILING_COMMAND_END)
            .or_else(|_| r.marker.profiling(cl3::event::CL_PROFILING_COMMAND_START))
            .map_err(|e| {
                Failure::new(
                    HipError::NotSupported,
                    format!(
                        "the device gives no profiling timestamps for markers ({})",
                        crate::cl::error_name(e)
                    ),
                )
            })
    }
}

/// `hipEventElapsedTime` in milliseconds (negative if `stop` completed before `start`).
pub fn elapsed_ms(start: &Event, stop: &Event) -> HipResult<f32> {
    let t0 = start.timestamp("start")?;
    let t1 = stop.timestamp("stop")?;
    Ok(((t1 as i128 - t0 as i128) as f64 / 1.0e6) as f32)
}
