//! The runtime's streams and events as programs hold them: a `hipStream_t` or `hipEvent_t` is a
//! number of a handle table (`handles`), checked on every call, whichever backend serves the
//! process. A [`Stream`] owns its backend's [`Queue`]; HIP's special stream values are the
//! device's own streams: null and `hipStreamLegacy` (1) its null stream, `hipStreamPerThread` (2)
//! the calling thread's.
//!
//! Stream capture keeps its state here, on the [`Stream`] (`graph::capture`): the operations
//! that reach a stream all pass through `ops`, which records them while the stream captures.

use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use super::{Device, DeviceId, Event, Queue};
use crate::error::{Failure, HipError, HipResult};
use crate::graph::capture::{self, Joined};
use crate::handles::{HandleTable, Kind};

/// `hipStreamLegacy`.
pub const LEGACY_HANDLE: usize = 1;
/// `hipStreamPerThread`.
pub const PER_THREAD_HANDLE: usize = 2;

/// A stream: the device it belongs to and the backend's queue.
pub struct Stream {
    device: DeviceId,
    queue: Arc<dyn Queue>,
    /// The device's legacy null stream.
    null: bool,
    /// Its part in a stream capture, while it takes part in one.
    capture: Mutex<Option<Joined>>,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Stream {{ device: {} }}", self.device)
    }
}

impl Stream {
    pub fn new(device: DeviceId, queue: Arc<dyn Queue>) -> Self {
        Stream {
            device,
            queue,
            null: false,
            capture: Mutex::new(None),
        }
    }

    /// The device's legacy null stream.
    pub fn null(device: DeviceId, queue: Arc<dyn Queue>) -> Self {
        Stream {
            null: true,
            ..Stream::new(device, queue)
        }
    }

    pub fn is_null(&self) -> bool {
        self.null
    }

    /// Its part in a stream capture (`graph::capture`).
    pub fn capture(&self) -> MutexGuard<'_, Option<Joined>> {
        self.capture.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn device(&self) -> DeviceId {
        self.device
    }

    pub fn queue(&self) -> &dyn Queue {
        &*self.queue
    }
}

fn streams() -> &'static HandleTable<Stream> {
    static TABLE: OnceLock<HandleTable<Stream>> = OnceLock::new();
    TABLE.get_or_init(|| HandleTable::new(Kind::Stream))
}

fn events() -> &'static HandleTable<dyn Event> {
    static TABLE: OnceLock<HandleTable<dyn Event>> = OnceLock::new();
    TABLE.get_or_init(|| HandleTable::new(Kind::Event))
}

/// A handle that names no live stream is `hipErrorContextIsDestroyed`, as HIP answers every
/// call naming one, destroyed or never made; the message says which.
fn bad_stream(handle: usize) -> Failure {
    let what = if Kind::Stream.made(handle) {
        "a destroyed stream"
    } else {
        "not a stream (hipStreamCreate never made it)"
    };
    Failure::new(
        HipError::ContextIsDestroyed,
        format!("{handle:#x} is {what}"),
    )
}

fn bad_event(handle: usize) -> Failure {
    Failure::new(
        HipError::InvalidHandle,
        format!("{handle:#x} is not a live event (destroyed, or never created by hipEventCreate)"),
    )
}

/// Gives a new stream its handle.
pub fn insert_stream(stream: Stream) -> usize {
    streams().insert(Arc::new(stream))
}

/// The stream a `hipStream_t` names; the special values name `device`'s own streams.
pub fn resolve(device: &dyn Device, handle: usize) -> HipResult<Arc<Stream>> {
    match handle {
        0 | LEGACY_HANDLE => Ok(device.null_stream()),
        PER_THREAD_HANDLE => device.per_thread_stream(),
        h => streams().get(h).ok_or_else(|| bad_stream(h)),
    }
}

/// `hipStreamDestroy`: forgets the handle; work already queued still runs to completion.
pub fn remove_stream(handle: usize) -> HipResult<()> {
    if handle <= PER_THREAD_HANDLE {
        return Err(Failure::new(
            HipError::InvalidHandle,
            "the null stream, hipStreamLegacy and hipStreamPerThread cannot be destroyed",
        ));
    }
    let stream = streams().remove(handle).ok_or_else(|| bad_stream(handle))?;
    capture::stream_destroyed(&stream);
    Ok(())
}

/// Gives a new event its handle.
pub fn insert_event(event: Box<dyn Event>) -> usize {
    events().insert(Arc::from(event))
}

/// The event a `hipEvent_t` names.
pub fn event(handle: usize) -> HipResult<Arc<dyn Event>> {
    events().get(handle).ok_or_else(|| bad_event(handle))
}

/// `hipEventDestroy`.
pub fn remove_event(handle: usize) -> HipResult<()> {
    let event = events().remove(handle).ok_or_else(|| bad_event(handle))?;
    capture::forget_event(&event);
    Ok(())
}

/// Forgets the streams and events of `device` (`hipDeviceReset`, before the device resets).
pub fn clear_device(device: DeviceId) {
    drop(streams().remove_where(|s| s.device() == device));
    drop(events().remove_where(|e| e.device() == device));
}
