//! Streams and events on the CUDA backend: a [`CudaQueue`] is a `CUstream`, a [`CudaEvent`] a
//! `CUevent`. The device's null stream is the driver's legacy default stream (the null
//! `CUstream`) and `hipStreamPerThread` the driver's per-thread one (`CU_STREAM_PER_THREAD`);
//! streams and events the program creates are destroyed when their handle goes (never after a
//! `hipDeviceReset`, which destroyed them with the context).

use std::any::Any;
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::device::CudaDevice;
use super::driver::{check, sys};
use super::host_function::{self, Gate};
use super::launch::Mode;
use super::memory;
use crate::backend::host_function::{StreamAt, Waited};
use crate::backend::{
    downcast, Copy3d, DeviceId, Event, EventFlags, Fill, HostFunction, IpcHandle, LaunchConfig,
    Location, MemcpyKind, Queue, StreamFlags, ValueWait, ValueWrite,
};
use crate::error::HipResult;
use crate::registry::KernelRef;

/// The reset generation of device `index` (see `CudaDevice::generation`).
fn generation_of(index: usize) -> Option<usize> {
    super::device_at(index)
        .ok()
        .map(|d| d.generation.load(Ordering::Acquire))
}

/// `CU_STREAM_PER_THREAD`.
const PER_THREAD: usize = 2;

/// A stream of one device.
pub struct CudaQueue {
    /// The device's index among the backend's devices.
    pub device: usize,
    /// The `CUstream` (0: the legacy default stream; 2: the per-thread one).
    raw: usize,
    /// The context generation a created stream belongs to (`None`: the driver's own streams).
    created_in: Option<usize>,
    /// Work on the null stream waits for it (not `hipStreamNonBlocking`).
    blocking: bool,
    /// The word its host functions count on, made at the first one (again after a reset).
    host_functions: Mutex<Option<Arc<Gate>>>,
}

impl CudaQueue {
    /// The device's null (legacy default) stream.
    pub fn null(device: usize) -> Self {
        CudaQueue {
            device,
            raw: 0,
            created_in: None,
            blocking: true,
            host_functions: Mutex::new(None),
        }
    }

    /// The driver's per-thread default stream.
    pub fn per_thread(device: usize) -> Self {
        CudaQueue {
            device,
            raw: PER_THREAD,
            created_in: None,
            blocking: true,
            host_functions: Mutex::new(None),
        }
    }

    /// `hipStreamCreateWithPriority`: `hipStreamNonBlocking` is `CU_STREAM_NON_BLOCKING`; the
    /// driver clamps the priority to its range.
    pub fn create(device: &CudaDevice, flags: StreamFlags, priority: c_int) -> HipResult<Self> {
        device.bind()?;
        let mut s: sys::CUstream = std::ptr::null_mut();
        // SAFETY: writes one handle.
        check("cuStreamCreateWithPriority", unsafe {
            sys::cuStreamCreateWithPriority(&mut s, flags.raw(), priority)
        })?;
        Ok(CudaQueue {
            device: device.index,
            raw: s as usize,
            created_in: Some(device.generation.load(Ordering::Acquire)),
            blocking: !flags.non_blocking,
            host_functions: Mutex::new(None),
        })
    }

    pub fn raw(&self) -> sys::CUstream {
        self.raw as sys::CUstream
    }

    fn device(&self) -> HipResult<&'static CudaDevice> {
        let device = super::device_at(self.device)?;
        device.bind()?;
        Ok(device)
    }

    /// Whether this is the null stream (synchronous calls use the driver's blocking forms).
    pub fn is_null(&self) -> bool {
        self.raw == 0
    }

    /// This stream as host functions see it.
    pub fn at(&self) -> StreamAt {
        StreamAt {
            device: self.device,
            queue: self.raw,
            is_null: self.is_null(),
            blocking: self.blocking,
        }
    }

    /// Refuses a wait for this stream's work inside a host function that the wait would never
    /// see end (`backend/host_function.rs`).
    pub fn check_wait(&self, call: &str) -> HipResult<()> {
        check_wait(self.device, Waited::Stream(self.at()), call)
    }
}

impl Drop for CudaQueue {
    fn drop(&mut self) {
        if self.created_in == generation_of(self.device) {
            let _ = super::device_at(self.device).map(|d| d.bind());
            // SAFETY: a stream this backend created in the live context; work already queued
            // still runs (as in CUDA).
            let _ = unsafe { sys::cuStreamDestroy_v2(self.raw()) };
        }
    }
}

/// Refuses a wait of device `device` inside a host function that would never see it end.
pub fn check_wait(device: usize, waited: Waited, call: &str) -> HipResult<()> {
    crate::backend::host_function::check_wait(device, 0, waited, call)
}

impl Queue for CudaQueue {
    /// The driver keeps the promise (`cuStreamAttachMemAsync`).
    fn attach_memory(&self, p: *mut c_void, length: usize, flags: u32) -> HipResult<()> {
        self.device()?;
        // SAFETY: managed memory or pageable memory (checked by the caller), a stream of ours.
        check("cuStreamAttachMemAsync", unsafe {
            sys::cuStreamAttachMemAsync(self.raw() as sys::CUstream, p as u64, length, flags)
        })
    }

    fn launch(&self, kernel: &KernelRef, cfg: &LaunchConfig) -> HipResult<()> {
        super::launch::launch(self.device()?, self.raw(), kernel, cfg, Mode::Plain)
    }

    fn launch_cooperative(&self, kernel: &KernelRef, cfg: &LaunchConfig) -> HipResult<()> {
        super::launch::launch(self.device()?, self.raw(), kernel, cfg, Mode::Cooperative)
    }

    fn copy(&self, copy: &Copy3d, kind: MemcpyKind, wait: bool) -> HipResult<()> {
        self.device()?;
        memory::copy(self, copy, kind, wait)
    }

    fn fill(&self, fill: &Fill, wait: bool) -> HipResult<()> {
        self.device()?;
        memory::fill(self, fill, wait)
    }

    fn prefetch(&self, p: *const c_void, count: usize, to: Location) -> HipResult<()> {
        let target = match to {
            Location::Host => -1,
            Location::Device(d) => super::device_at(d)?.ordinal,
        };
        self.device()?;
        memory::prefetch(p, count, target, self.raw())
    }

    fn wait_event(&self, event: &dyn Event) -> HipResult<()> {
        let event: &CudaEvent = downcast(event.as_any(), "an event")?;
        self.device()?;
        // SAFETY: valid handles.
        check("cuStreamWaitEvent", unsafe {
            sys::cuStreamWaitEvent(self.raw(), event.raw(), 0)
        })
    }

    /// In stream order, told the status of the work before it; run on a thread of the runtime
    /// (`cuda/host_function.rs`).
    fn host_function(&self, function: HostFunction) -> HipResult<()> {
        let device = self.device()?;
        let generation = device.generation.load(Ordering::Acquire);
        let gate = {
            let mut slot = self
                .host_functions
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            match &*slot {
                Some(gate) if gate.generation == generation => gate.clone(),
                _ => {
                    let gate = Gate::new(device)?;
                    *slot = Some(gate.clone());
                    gate
                }
            }
        };
        host_function::enqueue(self.raw(), self.at(), gate, function)
    }

    fn synchronize(&self) -> HipResult<()> {
        self.device()?;
        self.check_wait("a stream's wait")?;
        // SAFETY: a valid stream.
        check("cuStreamSynchronize", unsafe {
            sys::cuStreamSynchronize(self.raw())
        })
    }

    fn is_idle(&self) -> HipResult<bool> {
        self.device()?;
        // SAFETY: a valid stream.
        match unsafe { sys::cuStreamQuery(self.raw()) } {
            sys::CUresult::CUDA_SUCCESS => Ok(true),
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            r => check("cuStreamQuery", r).map(|()| true),
        }
    }

    fn flags(&self) -> HipResult<u32> {
        self.device()?;
        let mut f = 0;
        // SAFETY: writes one uint.
        check("cuStreamGetFlags", unsafe {
            sys::cuStreamGetFlags(self.raw(), &mut f)
        })?;
        Ok(f)
    }

    fn priority(&self) -> HipResult<i32> {
        self.device()?;
        let mut p = 0;
        // SAFETY: writes one int.
        check("cuStreamGetPriority", unsafe {
            sys::cuStreamGetPriority(self.raw(), &mut p)
        })?;
        Ok(p)
    }

    fn as_any(&self) -> &dyn Any {
        self
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
        super::peer::write_value(self, write)
    }

    fn wait_value(&self, wait: &ValueWait) -> HipResult<()> {
        super::peer::wait_value(self, wait)
    }
}

/// An event of one device.
pub struct CudaEvent {
    device: usize,
    raw: usize,
    created_in: usize,
    flags: EventFlags,
    /// The stream it was last recorded on (`NOT_RECORDED`: none), for waits in host functions.
    recorded_on: AtomicUsize,
}

const NOT_RECORDED: usize = usize::MAX;

impl CudaEvent {
    /// `hipEventCreateWithFlags`: HIP's flags are the driver's.
    pub fn create(device: &CudaDevice, flags: EventFlags) -> HipResult<Self> {
        device.bind()?;
        let mut e: sys::CUevent = std::ptr::null_mut();
        // The driver knows HIP's first three flags by the same bits; the release scopes of AMD
        // GPUs' caches and the system fence mean nothing to it.
        let driver_flags = flags.raw()
            & (EventFlags::BLOCKING_SYNC | EventFlags::DISABLE_TIMING | EventFlags::INTERPROCESS);
        // SAFETY: writes one handle.
        check("cuEventCreate", unsafe {
            sys::cuEventCreate(&mut e, driver_flags)
        })?;
        Ok(CudaEvent::adopt(device, e, flags))
    }

    /// An event the driver made for `device` (created, or opened from another process).
    pub fn adopt(device: &CudaDevice, e: sys::CUevent, flags: EventFlags) -> Self {
        CudaEvent {
            device: device.index,
            raw: e as usize,
            created_in: device.generation.load(Ordering::Acquire),
            flags,
            recorded_on: AtomicUsize::new(NOT_RECORDED),
        }
    }

    pub fn raw(&self) -> sys::CUevent {
        self.raw as sys::CUevent
    }

    pub fn device_index(&self) -> usize {
        self.device
    }

    fn bind(&self) -> HipResult<()> {
        super::device_at(self.device)?.bind()
    }
}

impl Drop for CudaEvent {
    fn drop(&mut self) {
        if Some(self.created_in) == generation_of(self.device) {
            let _ = self.bind();
            // SAFETY: an event this backend created in the live context.
            let _ = unsafe { sys::cuEventDestroy_v2(self.raw()) };
        }
    }
}

impl Event for CudaEvent {
    fn record(&self, queue: &dyn Queue) -> HipResult<()> {
        let queue: &CudaQueue = downcast(queue.as_any(), "a stream")?;
        self.bind()?;
        // SAFETY: valid handles.
        check("cuEventRecord", unsafe {
            sys::cuEventRecord(self.raw(), queue.raw())
        })?;
        self.recorded_on
            .store(queue.raw as usize, Ordering::Release);
        Ok(())
    }

    fn synchronize(&self) -> HipResult<()> {
        self.bind()?;
        let queue = self.recorded_on.load(Ordering::Acquire);
        if queue != NOT_RECORDED && !self.is_complete()? {
            check_wait(self.device, Waited::Marker { queue }, "an event's wait")?;
        }
        // SAFETY: a valid event.
        check("cuEventSynchronize", unsafe {
            sys::cuEventSynchronize(self.raw())
        })
    }

    fn is_complete(&self) -> HipResult<bool> {
        self.bind()?;
        // SAFETY: a valid event.
        match unsafe { sys::cuEventQuery(self.raw()) } {
            sys::CUresult::CUDA_SUCCESS => Ok(true),
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            r => check("cuEventQuery", r).map(|()| true),
        }
    }

    fn elapsed_ms(&self, stop: &dyn Event) -> HipResult<f32> {
        let stop: &CudaEvent = downcast(stop.as_any(), "an event")?;
        self.bind()?;
        let mut ms = 0f32;
        // SAFETY: valid events; writes one float.
        check("cuEventElapsedTime", unsafe {
            sys::cuEventElapsedTime(&mut ms, self.raw(), stop.raw())
        })?;
        Ok(ms)
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

    fn ipc_handle(&self) -> HipResult<IpcHandle> {
        super::peer::event_handle(self)
    }
}
