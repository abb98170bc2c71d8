//! Streams: each is an in-order OpenCL queue. The null stream is HIP's legacy default stream:
//! work on it waits for all earlier work on *blocking* streams (created without
//! `hipStreamNonBlocking`), and work on a blocking stream waits for earlier null-stream work.
//!
//! How: every stream remembers the event of its last command (its *tail*). An operation on the
//! null stream is enqueued with the tails of all blocking streams as its wait list; one on a
//! blocking stream with the null stream's tail. The dependencies are read *before* the stream's own
//! lock is taken and the new tail is written under it, so two streams enqueueing at once can never
//! wait on each other in a cycle. Non-blocking streams take no dependencies.
//!
//! Kernel launches, the commonest command, are enqueued without an event (creating and releasing
//! one per launch doubles the driver's cost of a launch): the stream only notes that its tail is
//! stale, and the first reader of the tail enqueues a marker, which on an in-order queue completes
//! after everything before it.
//!
//! `hipStreamPerThread` is a blocking stream created for each host thread on first use.

use std::cell::RefCell;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use cl3::types::{cl_command_queue, cl_event, cl_int};

use crate::cl::{error_name, OwnedEvent, OwnedQueue};
use crate::device::{runtime, Runtime};
use crate::error::{Failure, HipError, HipResult};
use crate::handles::{HandleTable, Kind};

/// `hipStreamNonBlocking`.
pub const NON_BLOCKING: u32 = 1;
/// `hipStreamPerThread`'s handle value (HIP's).
pub const PER_THREAD_HANDLE: usize = 2;

pub struct Stream {
    pub queue: OwnedQueue,
    pub flags: u32,
    pub priority: i32,
    /// True only for the null stream.
    pub is_null: bool,
    tail: Mutex<Tail>,
}

#[derive(Default)]
struct Tail {
    event: Option<OwnedEvent>,
    /// Commands were enqueued after `event` without events of their own.
    stale: bool,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Stream {{ null: {}, flags: {}, priority: {} }}",
            self.is_null, self.flags, self.priority
        )
    }
}

/// A failed OpenCL call while running work: hipErrorLaunchFailure (or out of memory).
pub fn cl_failure(what: &str, code: cl_int) -> Failure {
    let hip = match code {
        cl3::error_codes::CL_OUT_OF_HOST_MEMORY
        | cl3::error_codes::CL_OUT_OF_RESOURCES
        | cl3::error_codes::CL_MEM_OBJECT_ALLOCATION_FAILURE => HipError::OutOfMemory,
        _ => HipError::LaunchFailure,
    };
    Failure::new(hip, format!("{what}: {}", error_name(code)))
}

impl Stream {
    pub fn new(
        rt_context: cl3::types::cl_context,
        device: cl3::types::cl_device_id,
        flags: u32,
        priority: i32,
        is_null: bool,
    ) -> Result<Self, cl_int> {
        Ok(Stream {
            queue: OwnedQueue::create(rt_context, device)?,
            flags,
            priority,
            is_null,
            tail: Mutex::new(Tail::default()),
        })
    }

    fn tail_lock(&self) -> MutexGuard<'_, Tail> {
        self.tail.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// An event that completes when the last command enqueued has, if any was.
    pub fn tail(&self) -> Option<OwnedEvent> {
        let mut tail = self.tail_lock();
        if tail.stale {
            // Should the marker fail, the older event is the best answer there is.
            if let Ok(event) = marker(self.queue.get(), &[]) {
                tail.event = Some(event);
                tail.stale = false;
                let _ = self.queue.flush();
            }
        }
        tail.event.clone()
    }

    pub fn is_blocking(&self) -> bool {
        !self.is_null && self.flags & NON_BLOCKING == 0
    }

    /// The events an operation on this stream must wait for (legacy default stream rules).
    fn implicit_dependencies(&self, rt: &Runtime) -> Vec<OwnedEvent> {
        if self.is_null {
            blocking_streams().iter().filter_map(|s| s.tail()).collect()
        } else if self.is_blocking() {
            rt.null_stream.tail().into_iter().collect()
        } else {
            Vec::new()
        }
    }

    /// Enqueues work in stream order. `enqueue(queue, wait_list)` makes the OpenCL calls (several
    /// are fine: the queue is in order) and returns the event of the last one, which becomes the
    /// stream's tail and is returned.
    pub fn enqueue(
        &self,
        rt: &Runtime,
        extra_waits: &[OwnedEvent],
        enqueue: impl FnOnce(cl_command_queue, &[cl_event]) -> HipResult<OwnedEvent>,
    ) -> HipResult<OwnedEvent> {
        let mut deps = self.implicit_dependencies(rt);
        deps.extend(extra_waits.iter().cloned());
        let raw: Vec<cl_event> = deps.iter().map(OwnedEvent::get).collect();
        let mut tail = self.tail_lock();
        let event = enqueue(self.queue.get(), &raw)?;
        *tail = Tail {
            event: Some(event.clone()),
            stale: false,
        };
        Ok(event)
    }

    /// As [`Stream::enqueue`], for commands enqueued without an event.
    pub fn enqueue_untracked(
        &self,
        rt: &Runtime,
        enqueue: impl FnOnce(cl_command_queue, &[cl_event]) -> HipResult<()>,
    ) -> HipResult<()> {
        let deps = self.implicit_dependencies(rt);
        let raw: Vec<cl_event> = deps.iter().map(OwnedEvent::get).collect();
        let mut tail = self.tail_lock();
        enqueue(self.queue.get(), &raw)?;
        tail.stale = true;
        Ok(())
    }

    /// Blocks until everything enqueued so far (and what it waits for) is done.
    pub fn synchronize(&self) -> HipResult<()> {
        self.queue
            .finish()
            .map_err(|e| cl_failure("waiting for the stream", e))?;
        if let Some(tail) = self.tail() {
            tail.wait()
                .map_err(|e| cl_failure("a command on the stream failed", e))?;
        }
        Ok(())
    }

    /// `Ok(true)` when all work is done, `Ok(false)` while some is pending.
    pub fn is_idle(&self) -> HipResult<bool> {
        let _ = self.queue.flush();
        match self.tail() {
            None => Ok(true),
            Some(tail) => match tail.status() {
                Ok(0) => Ok(true),
                Ok(s) if s > 0 => Ok(false),
                Ok(s) | Err(s) => Err(cl_failure("a command on the stream failed", s)),
            },
        }
    }
}

fn table() -> &'static HandleTable<Stream> {
    static TABLE: OnceLock<HandleTable<Stream>> = OnceLock::new();
    TABLE.get_or_init(|| HandleTable::new(Kind::Stream))
}

/// Live blocking streams (per-thread streams included).
fn blocking_streams() -> Vec<Arc<Stream>> {
    table()
        .all()
        .into_iter()
        .map(|(_, s)| s)
        .filter(|s| s.is_blocking())
        .collect()
}

/// All live created streams (not the null stream).
pub fn all_streams() -> Vec<Arc<Stream>> {
    table().all().into_iter().map(|(_, s)| s).collect()
}

/// `hipStreamCreateWithPriority`: a new stream and its handle.
pub fn create(flags: u32, priority: i32) -> HipResult<usize> {
    if flags & !NON_BLOCKING != 0 {
        return Err(Failure::invalid_value(format!(
            "stream flags {flags:#x}: only hipStreamDefault (0) and hipStreamNonBlocking (1) exist"
        )));
    }
    let rt = runtime()?;
    let stream = Stream::new(rt.context.get(), rt.device_id(), flags, priority, false)
        .map_err(|e| cl_failure("clCreateCommandQueueWithProperties", e))?;
    Ok(table().insert(Arc::new(stream)))
}

/// `hipStreamDestroy`: forgets the handle. Work already queued still runs to completion.
pub fn destroy(handle: usize) -> HipResult<()> {
    if handle == 0 || handle == PER_THREAD_HANDLE {
        return Err(Failure::new(
            HipError::InvalidHandle,
            "the null stream and hipStreamPerThread cannot be destroyed",
        ));
    }
    let stream = table().remove(handle).ok_or_else(|| bad_stream(handle))?;
    let _ = stream.queue.flush();
    Ok(())
}

fn bad_stream(handle: usize) -> Failure {
    Failure::new(
        HipError::InvalidHandle,
        format!(
            "{handle:#x} is not a live stream (destroyed, or never created by hipStreamCreate)"
        ),
    )
}

struct PerThread(Option<(usize, Arc<Stream>)>);

impl Drop for PerThread {
    fn drop(&mut self) {
        if let Some((handle, stream)) = self.0.take() {
            let _ = stream.synchronize();
            table().remove(handle);
        }
    }
}

thread_local! {
    static PER_THREAD: RefCell<PerThread> = const { RefCell::new(PerThread(None)) };
}

fn per_thread_stream() -> HipResult<Arc<Stream>> {
    PER_THREAD
        .try_with(|cell| -> HipResult<Arc<Stream>> {
            let mut slot = cell.borrow_mut();
            if let Some((_, s)) = &slot.0 {
                return Ok(s.clone());
            }
            let handle = create(0, 0)?;
            let stream = table().get(handle).ok_or_else(|| bad_stream(handle))?;
            slot.0 = Some((handle, stream.clone()));
            Ok(stream)
        })
        .map_err(|_| Failure::new(HipError::InvalidHandle, "the thread is exiting"))?
}

/// The stream a `hipStream_t` names: null → the null stream, `hipStreamPerThread` → this
/// thread's stream, else a live created stream.
pub fn resolve(handle: usize) -> HipResult<Arc<Stream>> {
    match handle {
        0 => Ok(runtime()?.null_stream.clone()),
        PER_THREAD_HANDLE => per_thread_stream(),
        h => table().get(h).ok_or_else(|| bad_stream(h)),
    }
}

/// Waits for all work on every stream (`hipDeviceSynchronize`).
pub fn synchronize_all(rt: &Runtime) -> HipResult<()> {
    let mut first_error = rt.null_stream.synchronize().err();
    for s in all_streams() {
        if let Err(e) = s.synchronize() {
            first_error.get_or_insert(e);
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// `hipStreamSynchronize`: the null stream also waits for blocking streams (it is synchronous
/// with them), and a blocking stream also waits for the null stream's work enqueued so far, as
/// HIP does: a kernel on the null stream is finished when `hipStreamSynchronize(s)` returns for
/// any blocking `s`, even one with no work of its own. Non-blocking streams wait only for
/// themselves.
pub fn synchronize(stream: &Stream) -> HipResult<()> {
    if stream.is_blocking() {
        // Read before waiting: null-stream work enqueued later by other threads is not ours.
        let null_tail = runtime()?.null_stream.tail();
        stream.synchronize()?;
        if let Some(tail) = null_tail {
            tail.wait()
                .map_err(|e| cl_failure("a command on the null stream failed", e))?;
        }
        return Ok(());
    }
    stream.synchronize()?;
    if stream.is_null {
        for s in blocking_streams() {
            s.synchronize()?;
        }
    }
    Ok(())
}

/// `hipStreamQuery`: by the same rules as [`synchronize`], a blocking stream is not idle while
/// the null stream has pending work.
pub fn query(stream: &Stream) -> HipResult<bool> {
    if !stream.is_idle()? {
        return Ok(false);
    }
    if stream.is_null {
        for s in blocking_streams() {
            if !s.is_idle()? {
                return Ok(false);
            }
        }
    } else if stream.is_blocking() && !runtime()?.null_stream.is_idle()? {
        return Ok(false);
    }
    Ok(true)
}

/// Destroys every created stream (`hipDeviceReset`), after waiting for them.
pub fn destroy_all() {
    for s in table().clear() {
        let _ = s.synchronize();
    }
}

/// Enqueues a marker that completes when everything before it on `stream` has (and `waits`).
pub fn enqueue_marker(
    rt: &Runtime,
    stream: &Stream,
    waits: &[OwnedEvent],
) -> HipResult<OwnedEvent> {
    stream.enqueue(rt, waits, marker)
}

/// Enqueues a marker on `queue` that completes when everything before it and `waits` have.
pub fn marker(queue: cl_command_queue, waits: &[cl_event]) -> HipResult<OwnedEvent> {
    // SAFETY: a valid queue; the wait list holds live events.
    let event = unsafe {
        cl3::command_queue::enqueue_marker_with_wait_list(
            queue,
            waits.len() as u32,
            if waits.is_empty() {
                std::ptr::null()
            } else {
                waits.as_ptr()
            },
        )
    }
    .map_err(|e| cl_failure("clEnqueueMarkerWithWaitList", e))?;
    OwnedEvent::from_raw(event)
        .ok_or_else(|| Failure::new(HipError::Unknown, "the marker returned no event"))
}
