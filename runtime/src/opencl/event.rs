//! Events on OpenCL: `hipEventRecord` enqueues a marker on the stream (an OpenCL event that
//! completes when everything before it on the stream has); `hipEventElapsedTime` reads the
//! markers' profiling timestamps (`CL_PROFILING_COMMAND_END`; every queue is created with
//! profiling enabled).

use std::any::Any;
use std::sync::Mutex;

use super::cl::{OwnedEvent, OwnedQueue};
use super::device::runtime_of;
use super::stream::{cl_failure, enqueue_marker, ClQueue};
use crate::backend::{downcast, DeviceId, Event, EventFlags, Queue};
use crate::error::{Failure, HipError, HipResult};

#[derive(Debug)]
pub struct ClEvent {
    /// The device it was created on (its streams record it).
    pub device: DeviceId,
    pub flags: EventFlags,
    recorded: Mutex<Option<Recorded>>,
}

#[derive(Debug, Clone)]
struct Recorded {
    marker: OwnedEvent,
    /// The queue the marker is on (flushed before a query, so the marker can complete).
    queue: OwnedQueue,
}

/// `hipEventCreateWithFlags` (the flags checked by the caller). An `hipEventInterprocess`
/// event works in this process; only its handle for another one is refused
/// (`Event::ipc_handle`: OpenCL events live in one process).
pub fn create(device: DeviceId, flags: EventFlags) -> ClEvent {
    ClEvent {
        device,
        flags,
        recorded: Mutex::new(None),
    }
}

impl ClEvent {
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

    /// The device timestamp (ns) at which the event completed.
    fn timestamp(&self, which: &str) -> HipResult<u64> {
        if self.flags.disable_timing {
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
                        super::cl::error_name(e)
                    ),
                )
            })
    }
}

impl Event for ClEvent {
    fn record(&self, queue: &dyn Queue) -> HipResult<()> {
        let queue: &ClQueue = downcast(queue.as_any(), "a stream")?;
        let marker = enqueue_marker(queue.rt()?, queue, &[])?;
        let _ = queue.queue.flush();
        *self.recorded.lock().unwrap_or_else(|p| p.into_inner()) = Some(Recorded {
            marker,
            queue: queue.queue.clone(),
        });
        Ok(())
    }

    fn synchronize(&self) -> HipResult<()> {
        match self.recorded() {
            None => Ok(()),
            Some(r) => {
                if !self.is_complete()? {
                    let waited = super::host_function::Waited::Marker(r.queue.get() as usize);
                    super::host_function::check_wait(
                        runtime_of(self.device)?,
                        waited,
                        "an event's wait",
                    )?;
                }
                r.marker
                    .wait()
                    .map_err(|e| cl_failure("work before the event failed", e))
            }
        }
    }

    fn is_complete(&self) -> HipResult<bool> {
        match self.recorded() {
            None => Ok(true),
            Some(r) => {
                let _ = r.queue.flush();
                match r.marker.status() {
                    Ok(0) => Ok(true),
                    Ok(s) if s > 0 => Ok(false),
                    Ok(s) | Err(s) => Err(cl_failure("work before the event failed", s)),
                }
            }
        }
    }

    /// Negative if `stop` completed before this event.
    fn elapsed_ms(&self, stop: &dyn Event) -> HipResult<f32> {
        let stop: &ClEvent = downcast(stop.as_any(), "an event")?;
        let t0 = self.timestamp("start")?;
        let t1 = stop.timestamp("stop")?;
        Ok(((t1 as i128 - t0 as i128) as f64 / 1.0e6) as f32)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn device(&self) -> DeviceId {
        self.device
    }

    fn flags(&self) -> EventFlags {
        self.flags
    }
}
