//! The stream memory operations on OpenCL, which has no such commands.
//!
//! * `hipStreamWriteValue32/64`: a copy of the word from host memory, in stream order (kept alive
//!   until the copy is done).
//! * `hipStreamWaitValue32/64`: as a host function is (see `host_function`), a marker reaches the
//!   wait's place in the stream, and a second marker waiting on a user event holds back the
//!   stream's later work. When the first marker completes, the word is read: if it meets the
//!   condition the user event is set at once, else the wait goes to the poller, one thread that
//!   reads every pending word (sleeping a little longer each round, from 20 µs up to 1 ms) and
//!   sets each user event once its condition holds. Memory the host reaches (host and managed
//!   memory, and every allocation of a CPU device or one sharing the host's memory) is read
//!   directly; other device memory through a copy on a queue of the poller's own, so that no
//!   stream's work can stand in front of the read.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use super::cl::{OwnedEvent, OwnedQueue};
use super::device::{runtime_of, Runtime};
use super::memory::{self, AllocKind};
use super::stream::{cl_failure, marker, ClQueue};
use crate::backend::{Copy3d, DeviceId, MemcpyKind, Queue, ValueWait, ValueWidth, ValueWrite};
use crate::error::{Failure, HipError, HipResult};
use crate::hlog;

/// `hipStreamWriteValue*`: the word, copied from host memory in stream order. The call never
/// waits for the copy (the stream may be held by a wait only the caller will release): the
/// word is the runtime's, kept until the copy has read it, and a destination this device
/// holds is copied to directly; another device's memory goes through the stream's copy.
pub fn write(rt: &Runtime, queue: &ClQueue, w: &ValueWrite) -> HipResult<()> {
    let word: Arc<Vec<u8>> = Arc::new(w.bytes());
    let copy = Copy3d::linear(w.address as *mut _, word.as_ptr().cast(), word.len());
    match memory::owner_of(w.address) {
        Some((device, ..)) if device == rt.id => {
            memory::copy(rt, queue, &copy, MemcpyKind::Default, false)?
        }
        _ => queue.copy(&copy, MemcpyKind::Default, false)?,
    }
    match queue.tail() {
        // The word lives until the copy has read it.
        Some(done) => {
            let keep = word.clone();
            if done.on_complete(Box::new(move |_| drop(keep))).is_err() {
                let _ = done.wait();
            }
        }
        None => queue.synchronize_own()?,
    }
    Ok(())
}

/// How the poller reads a word.
#[derive(Debug, Clone, Copy)]
enum Reader {
    /// Memory the host reaches.
    Direct,
    /// Device memory of this device: read by a copy.
    Device(DeviceId),
}

fn reader_of(address: usize) -> Reader {
    match memory::owner_of(address) {
        Some((device, _, _, AllocKind::Device | AllocKind::Variable | AllocKind::Heap)) => {
            match runtime_of(device) {
                Ok(rt) if !rt.info.is_cpu && !rt.info.host_unified_memory => Reader::Device(device),
                _ => Reader::Direct,
            }
        }
        _ => Reader::Direct,
    }
}

/// A wait reached in its stream, not yet met.
struct Pending {
    wait: ValueWait,
    reader: Reader,
    release: OwnedEvent,
}

/// `hipStreamWaitValue*`: see the module docs.
pub fn wait(rt: &Runtime, queue: &ClQueue, w: &ValueWait) -> HipResult<()> {
    let release = cl3::event::create_user_event(rt.context.get())
        .map_err(|e| cl_failure("clCreateUserEvent", e))
        .and_then(|e| {
            OwnedEvent::from_raw(e)
                .ok_or_else(|| Failure::new(HipError::Unknown, "clCreateUserEvent gave no event"))
        })?;
    let mut reached = None;
    queue.enqueue(rt, &[], |q, deps| {
        reached = Some(marker(q, deps)?);
        marker(q, &[release.get()])
    })?;
    let Some(reached) = reached else {
        return Err(Failure::new(
            HipError::Unknown,
            "the marker returned no event",
        ));
    };
    let pending = Pending {
        wait: *w,
        reader: reader_of(w.address),
        release: release.clone(),
    };
    let registered = reached.on_complete(Box::new(move |status| {
        if status < 0 {
            // Earlier work failed: so does everything after it.
            let _ = cl3::event::set_user_event_status(pending.release.get(), status);
        } else {
            poller().add(pending);
        }
    }));
    if let Err(e) = registered {
        let _ = cl3::event::set_user_event_status(release.get(), cl3::event::CL_COMPLETE);
        return Err(cl_failure("clSetEventCallback", e));
    }
    let _ = queue.queue.flush();
    Ok(())
}

/// The thread that watches pending waits.
struct Poller {
    pending: Mutex<Vec<Pending>>,
    arrived: Condvar,
}

fn poller() -> &'static Poller {
    static POLLER: OnceLock<Poller> = OnceLock::new();
    static STARTED: OnceLock<()> = OnceLock::new();
    let p = POLLER.get_or_init(|| Poller {
        pending: Mutex::new(Vec::new()),
        arrived: Condvar::new(),
    });
    STARTED.get_or_init(|| {
        let spawned = std::thread::Builder::new()
            .name("hipmlir-wait-value".into())
            .spawn(|| poll_forever(poller()));
        if let Err(e) = spawned {
            hlog!(Error, "cannot start the thread of hipStreamWaitValue: {e}");
        }
    });
    p
}

impl Poller {
    fn lock(&self) -> MutexGuard<'_, Vec<Pending>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A wait its stream has reached (called from an event callback): released at once if its
    /// word, read directly, already meets it; words read through a copy are the poller's (no
    /// blocking OpenCL call in a callback).
    fn add(&self, pending: Pending) {
        if let Reader::Direct = pending.reader {
            if let Ok(true) = check(&pending, &mut HashMap::new()) {
                release(&pending, cl3::event::CL_COMPLETE);
                return;
            }
        }
        self.lock().push(pending);
        self.arrived.notify_one();
    }
}

fn release(pending: &Pending, status: i32) {
    let _ = cl3::event::set_user_event_status(pending.release.get(), status);
}

/// Reads the pending waits' words until each is met.
fn poll_forever(poller: &Poller) {
    const FIRST: Duration = Duration::from_micros(20);
    const LONGEST: Duration = Duration::from_millis(1);
    let mut queues: HashMap<DeviceId, OwnedQueue> = HashMap::new();
    let mut pause = FIRST;
    loop {
        let waits: Vec<Pending> = {
            let mut list = poller.lock();
            while list.is_empty() {
                list = poller.arrived.wait(list).unwrap_or_else(|p| p.into_inner());
                pause = FIRST;
            }
            std::mem::take(&mut *list)
        };
        let mut still = Vec::new();
        for pending in waits {
            match check(&pending, &mut queues) {
                Ok(false) => still.push(pending),
                Ok(true) => {
                    release(&pending, cl3::event::CL_COMPLETE);
                    pause = FIRST;
                }
                Err(status) => release(&pending, status),
            }
        }
        if !still.is_empty() {
            poller.lock().extend(still);
            std::thread::sleep(pause);
            pause = (pause * 2).min(LONGEST);
        }
    }
}

/// Whether the wait's word meets its condition now; `Err` with an OpenCL status when it cannot
/// be read.
fn check(pending: &Pending, queues: &mut HashMap<DeviceId, OwnedQueue>) -> Result<bool, i32> {
    let w = &pending.wait;
    let stored = match pending.reader {
        Reader::Direct => {
            std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
            // SAFETY: host-reachable memory of at least the word's width, aligned (checked by the
            // caller), as the program's wait promises.
            unsafe {
                match w.width {
                    ValueWidth::Bits32 => u64::from((w.address as *const u32).read_volatile()),
                    ValueWidth::Bits64 => (w.address as *const u64).read_volatile(),
                }
            }
        }
        Reader::Device(device) => read_device_word(device, w, queues)?,
    };
    Ok(w.is_met_by(stored))
}

/// Reads a word of device memory through a copy on the poller's queue of its device.
fn read_device_word(
    device: DeviceId,
    w: &ValueWait,
    queues: &mut HashMap<DeviceId, OwnedQueue>,
) -> Result<u64, i32> {
    let rt = runtime_of(device).map_err(|_| cl3::error_codes::CL_INVALID_DEVICE)?;
    let queue = match queues.get(&device) {
        Some(q) => q.clone(),
        None => {
            let q = OwnedQueue::create(rt.context.get(), rt.device_id())?;
            queues.insert(device, q.clone());
            q
        }
    };
    let mut word = 0u64;
    // SAFETY: a device word of the queue's context; the host word is ours until the copy ends.
    let event = unsafe {
        rt.memory.copy(
            queue.get(),
            (&mut word as *mut u64).cast(),
            w.address as *const _,
            w.width.bytes(),
            &[],
        )
    }?;
    OwnedEvent::from_raw(event)
        .ok_or(cl3::error_codes::CL_INVALID_EVENT)?
        .wait()?;
    Ok(match w.width {
        // The word's bytes are the lower ones of `word` on a little-endian host.
        ValueWidth::Bits32 => u64::from(u32::from_ne_bytes(
            word.to_ne_bytes()[..4].try_into().unwrap_or([0; 4]),
        )),
        ValueWidth::Bits64 => word,
    })
}
