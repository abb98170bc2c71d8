//! Streams on OpenCL: each is an in-order OpenCL queue ([`ClQueue`]). The null stream is HIP's legacy default stream:
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
//! `hipStreamPerThread` is a blocking stream created for each host thread on first use, and
//! waited for when the thread exits.

use std::any::Any;
use std::cell::RefCell;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, MutexGuard};

use cl3::types::{cl_command_queue, cl_event, cl_int};
use opencl3::context::Context;
use opencl3::device::Device;

use super::cl::{error_name, OwnedEvent, OwnedQueue};
use super::device::{runtime_of, Runtime};
use super::event::ClEvent;
use crate::backend::{
    downcast, Copy3d, DeviceId, Event, Fill, HostFunction, LaunchConfig, Location, MemcpyKind,
    Queue, Stream, StreamFlags, ValueWait, ValueWrite,
};
use crate::error::{Failure, HipError, HipResult};
use crate::registry::KernelRef;

/// One OpenCL stream: an in-order queue of one device and the event of its last command.
pub struct ClQueue {
    /// The device (its `Runtime`'s ordinal).
    pub device: DeviceId,
    pub queue: OwnedQueue,
    pub flags: StreamFlags,
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

impl Drop for ClQueue {
    /// A destroyed stream's work still runs: its last command stays with the device, so that
    /// `hipDeviceSynchronize` and `hipFree` still wait for it (a copy into memory freed under
    /// it would write into the heap).
    fn drop(&mut self) {
        let Some(last) = self.tail() else {
            return;
        };
        let Ok(rt) = super::device::runtime_of(self.device) else {
            return;
        };
        let mut retired = rt.retired.lock().unwrap_or_else(|p| p.into_inner());
        retired.retain(|e| !matches!(e.status(), Ok(s) if s <= cl3::event::CL_COMPLETE));
        if !matches!(last.status(), Ok(s) if s <= cl3::event::CL_COMPLETE) {
            retired.push(last);
        }
    }
}

impl std::fmt::Debug for ClQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ClQueue {{ null: {}, flags: {:?}, priority: {} }}",
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
        // A copy whose source and destination overlap: HIP leaves it undefined; the driver
        // refuses it, which is the program's error, not the device's.
        cl3::error_codes::CL_MEM_COPY_OVERLAP => HipError::InvalidValue,
        _ => HipError::LaunchFailure,
    };
    Failure::new(hip, format!("{what}: {}", error_name(code)))
}

impl ClQueue {
    pub fn new(
        id: DeviceId,
        context: &Context,
        device: &Device,
        flags: StreamFlags,
        priority: i32,
        is_null: bool,
    ) -> Result<Self, cl_int> {
        Ok(ClQueue {
            device: id,
            queue: OwnedQueue::create(context.get(), device.id())?,
            flags,
            priority,
            is_null,
            tail: Mutex::new(Tail::default()),
        })
    }

    /// The queue's device.
    pub fn rt(&self) -> HipResult<&'static Runtime> {
        runtime_of(self.device)
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
        !self.is_null && !self.flags.non_blocking
    }

    /// The events an operation on this stream must wait for (legacy default stream rules).
    fn implicit_dependencies(&self, rt: &Runtime) -> Vec<OwnedEvent> {
        if self.is_null {
            blocking_streams(rt)
                .iter()
                .filter_map(|s| s.tail())
                .collect()
        } else if self.is_blocking() {
            rt.null_queue.tail().into_iter().collect()
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
    pub fn synchronize_own(&self) -> HipResult<()> {
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
    pub fn is_idle_own(&self) -> HipResult<bool> {
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

/// Live created streams (not the null stream), dropping the entries of dropped ones.
pub fn all_streams(rt: &Runtime) -> Vec<Arc<ClQueue>> {
    let mut list = rt.streams.lock().unwrap_or_else(|p| p.into_inner());
    list.retain(|w| w.strong_count() > 0);
    list.iter().filter_map(|w| w.upgrade()).collect()
}

/// Live blocking streams (per-thread streams included).
fn blocking_streams(rt: &Runtime) -> Vec<Arc<ClQueue>> {
    let mut all = all_streams(rt);
    all.retain(|s| s.is_blocking());
    all
}

/// `hipStreamCreateWithPriority`: a new stream, known to the device until it is dropped.
pub fn create(rt: &Runtime, flags: StreamFlags, priority: i32) -> HipResult<Arc<ClQueue>> {
    let queue = ClQueue::new(rt.id, &rt.context, &rt.device, flags, priority, false)
        .map_err(|e| cl_failure("clCreateCommandQueueWithProperties", e))?;
    let queue = Arc::new(queue);
    rt.streams
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(Arc::downgrade(&queue));
    Ok(queue)
}

/// This thread's `hipStreamPerThread` of each device it used, waited for when the thread exits
/// (so that `hipDeviceSynchronize`, which no longer sees them then, need not).
struct PerThread(Vec<(Arc<ClQueue>, Arc<Stream>)>);

impl Drop for PerThread {
    fn drop(&mut self) {
        for (queue, _) in self.0.drain(..) {
            let _ = queue.synchronize_own();
        }
    }
}

thread_local! {
    static PER_THREAD: RefCell<PerThread> = const { RefCell::new(PerThread(Vec::new())) };
}

/// The calling thread's `hipStreamPerThread` of `rt`, created on first use.
pub fn per_thread_stream(rt: &Runtime) -> HipResult<Arc<Stream>> {
    PER_THREAD
        .try_with(|cell| -> HipResult<Arc<Stream>> {
            let mut slot = cell.borrow_mut();
            if let Some((_, s)) = slot.0.iter().find(|(q, _)| q.device == rt.id) {
                return Ok(s.clone());
            }
            let queue = create(rt, StreamFlags::default(), 0)?;
            let stream = Arc::new(Stream::new(rt.id, queue.clone()));
            slot.0.push((queue, stream.clone()));
            Ok(stream)
        })
        .map_err(|_| Failure::new(HipError::InvalidHandle, "the thread is exiting"))?
}

/// Waits for all work on every stream (`hipDeviceSynchronize`), destroyed streams' included.
pub fn synchronize_all(rt: &Runtime) -> HipResult<()> {
    super::host_function::check_wait(
        rt,
        super::host_function::Waited::Device,
        "a device-wide wait",
    )?;
    let retired = std::mem::take(&mut *rt.retired.lock().unwrap_or_else(|p| p.into_inner()));
    for event in retired {
        // A failure there was the destroyed stream's; nothing is left to report it to.
        let _ = event.wait();
    }
    let mut first_error = rt.null_queue.synchronize_own().err();
    for s in all_streams(rt) {
        if let Err(e) = s.synchronize_own() {
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
pub fn synchronize(rt: &Runtime, stream: &ClQueue) -> HipResult<()> {
    super::host_function::check_wait(
        rt,
        super::host_function::Waited::Stream(stream),
        "a stream's wait",
    )?;
    if stream.is_blocking() {
        // Read before waiting: null-stream work enqueued later by other threads is not ours.
        let null_tail = rt.null_queue.tail();
        stream.synchronize_own()?;
        if let Some(tail) = null_tail {
            tail.wait()
                .map_err(|e| cl_failure("a command on the null stream failed", e))?;
        }
        return Ok(());
    }
    stream.synchronize_own()?;
    if stream.is_null {
        for s in blocking_streams(rt) {
            s.synchronize_own()?;
        }
    }
    Ok(())
}

/// `hipStreamQuery`: by the same rules as [`synchronize`], a blocking stream is not idle while
/// the null stream has pending work.
pub fn query(rt: &Runtime, stream: &ClQueue) -> HipResult<bool> {
    if !stream.is_idle_own()? {
        return Ok(false);
    }
    if stream.is_null {
        for s in blocking_streams(rt) {
            if !s.is_idle_own()? {
                return Ok(false);
            }
        }
    } else if stream.is_blocking() && !rt.null_queue.is_idle_own()? {
        return Ok(false);
    }
    Ok(true)
}

/// Enqueues a marker that completes when everything before it on `stream` has (and `waits`).
pub fn enqueue_marker(
    rt: &Runtime,
    stream: &ClQueue,
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

impl Queue for ClQueue {
    fn launch(&self, kernel: &KernelRef, cfg: &LaunchConfig) -> HipResult<()> {
        super::launch::launch(self.rt()?, self, kernel, cfg)
    }

    /// A copy touching another device's memory (HIP's unified addressing lets any stream name
    /// any pointer) takes the peer path; others run on this device.
    fn copy(&self, copy: &Copy3d, kind: MemcpyKind, wait: bool) -> HipResult<()> {
        if let Some((dst_device, src_device)) = super::peer::foreign_sides(self.device, copy) {
            return super::peer::copy(self, copy, dst_device, src_device, wait);
        }
        // The runtime's own copies (peer staging) call memory::copy directly.
        let rt = self.rt()?;
        let pageable_source_only = super::memory::is_pageable(copy.src)
            && !super::memory::is_pageable(copy.dst.cast_const());
        if !wait && pageable_source_only && rt.system_memory {
            return super::memory::copy_from_snapshot(rt, self, copy, kind);
        }
        let wait = wait || super::memory::touches_pageable_memory(copy);
        super::memory::copy(rt, self, copy, kind, wait)
    }

    /// A fill of another device's memory runs there, in this stream's order.
    fn fill(&self, fill: &Fill, wait: bool) -> HipResult<()> {
        if let Some(owner) = super::peer::foreign_fill(self.device, fill) {
            return super::peer::fill(self, fill, owner, wait);
        }
        super::memory::fill(self.rt()?, self, fill, wait)
    }

    /// USM shared memory is coherent for both sides, and on a CPU device both are the same
    /// memory, so no data moves (Intel's CPU runtime refuses `clEnqueueMigrateMemINTEL` on
    /// shared allocations); a marker keeps HIP's ordering, and the destination is recorded for
    /// `hipMemRangeGetAttribute`.
    fn prefetch(&self, p: *const c_void, count: usize, to: Location) -> HipResult<()> {
        super::managed::note_prefetch(p as usize, count, to)?;
        enqueue_marker(self.rt()?, self, &[])?;
        let _ = self.queue.flush();
        Ok(())
    }

    /// An event of this device is waited for by a marker; one of another device (another
    /// context) through a user event of this context that the event's completion sets.
    fn wait_event(&self, event: &dyn Event) -> HipResult<()> {
        let event: &ClEvent = downcast(event.as_any(), "an event")?;
        let Some(marker) = event.marker() else {
            return Ok(());
        };
        let rt = self.rt()?;
        let waited = if event.device == self.device {
            marker
        } else {
            super::peer::relay(&marker, rt)?
        };
        enqueue_marker(rt, self, &[waited])?;
        let _ = self.queue.flush();
        Ok(())
    }

    fn host_function(&self, function: HostFunction) -> HipResult<()> {
        super::host_function::enqueue(self.rt()?, self, function)
    }

    fn synchronize(&self) -> HipResult<()> {
        synchronize(self.rt()?, self)
    }

    fn is_idle(&self) -> HipResult<bool> {
        query(self.rt()?, self)
    }

    fn flags(&self) -> HipResult<u32> {
        Ok(self.flags.raw())
    }

    fn priority(&self) -> HipResult<i32> {
        Ok(self.priority)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    /// OpenCL promises nothing about work-groups running at once, so only a grid of one block,
    /// resident by itself, is a cooperative launch here.
    fn launch_cooperative(&self, kernel: &KernelRef, cfg: &LaunchConfig) -> HipResult<()> {
        if cfg.grid.as_array().iter().product::<u32>() != 1 {
            return Err(crate::backend::not_supported(&format!(
                "a cooperative launch of a {}x{}x{} grid: OpenCL cannot promise that several \
                 work-groups run at once (a grid of one block is launched)",
                cfg.grid.x, cfg.grid.y, cfg.grid.z
            )));
        }
        self.launch(kernel, cfg)
    }

    fn copy_peer(
        &self,
        copy: &Copy3d,
        dst_device: DeviceId,
        src_device: DeviceId,
        wait: bool,
    ) -> HipResult<()> {
        super::peer::copy(self, copy, dst_device, src_device, wait)
    }

    fn write_value(&self, write: &ValueWrite) -> HipResult<()> {
        super::stream_value::write(self.rt()?, self, write)
    }

    fn wait_value(&self, wait: &ValueWait) -> HipResult<()> {
        super::stream_value::wait(self.rt()?, self, wait)
    }
}
