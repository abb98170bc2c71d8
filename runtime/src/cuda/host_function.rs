//! Host functions on the CUDA backend. The driver runs its own (`cuStreamAddCallback`) on its
//! callback thread, where it refuses every driver call (`CUDA_ERROR_NOT_PERMITTED`), so a HIP
//! program's function, which may call the runtime as AMD's HIP allows, cannot run there. The
//! driver's callback only hands the function to a thread of the runtime
//! (`backend/host_function.rs`) and returns; the stream is held until the function returns by a
//! wait on a word of pinned host memory (`cuStreamWaitValue32`, greater or equal), which the
//! function's end sets to the function's number on its stream.

use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use super::device::CudaDevice;
use super::driver::{check, hip_code, sys, HOST_ALLOC_MAPPED};
use crate::backend::host_function::{self as shared, StreamAt};
use crate::backend::HostFunction;
use crate::error::HipResult;

/// The word a stream's host functions count on: the number of the last one that returned.
pub struct Gate {
    /// Pinned, mapped host memory (its host address is its device address).
    word: usize,
    /// The number given to the last function enqueued; enqueues hold it to stay in order.
    issued: Mutex<u32>,
    device: usize,
    /// The context generation the memory belongs to (a reset frees it with the context).
    pub generation: usize,
}

/// Words of streams that went, for the next stream (their memory lives as long as the context).
/// A word is only given back when no function of its stream is left to set it, and it keeps
/// counting up, so a wait still pending on the old stream stays satisfied.
fn spare_words() -> &'static Mutex<Vec<(usize, usize, usize)>> {
    static SPARE: Mutex<Vec<(usize, usize, usize)>> = Mutex::new(Vec::new());
    &SPARE
}

impl Gate {
    /// A gate for a stream of `device` (made current by the caller).
    pub fn new(device: &CudaDevice) -> HipResult<Arc<Gate>> {
        let generation = device.generation.load(Ordering::Acquire);
        let reused = {
            let mut spare = spare_words().lock().unwrap_or_else(|p| p.into_inner());
            spare.retain(|&(d, g, _)| d != device.index || g == generation);
            spare
                .iter()
                .position(|&(d, _, _)| d == device.index)
                .map(|i| spare.swap_remove(i).2)
        };
        let word = match reused {
            Some(word) => word,
            None => {
                let mut p: *mut c_void = std::ptr::null_mut();
                // SAFETY: writes one pointer; four bytes of pinned memory the device maps.
                check("cuMemHostAlloc", unsafe {
                    sys::cuMemHostAlloc(&mut p, 4, HOST_ALLOC_MAPPED)
                })?;
                // SAFETY: fresh, aligned memory of the word's size.
                unsafe { p.cast::<u32>().write(0) };
                p as usize
            }
        };
        let gate = Gate {
            word,
            issued: Mutex::new(0),
            device: device.index,
            generation,
        };
        *gate.issued.lock().unwrap_or_else(|p| p.into_inner()) =
            gate.atomic().load(Ordering::Acquire);
        Ok(Arc::new(gate))
    }

    fn atomic(&self) -> &AtomicU32 {
        // SAFETY: an aligned word of pinned memory that lives as long as the context; the host
        // only touches it atomically, the device only reads it.
        unsafe { AtomicU32::from_ptr(self.word as *mut u32) }
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        let mut spare = spare_words().lock().unwrap_or_else(|p| p.into_inner());
        spare.push((self.device, self.generation, self.word));
    }
}

/// A function on its way: what runs, and what it opens when it returns.
struct Pending {
    function: HostFunction,
    on: StreamAt,
    gate: Arc<Gate>,
    number: u32,
    returned: Arc<(Mutex<bool>, Condvar)>,
}

/// The driver's callback: hands the function over and returns at once.
unsafe extern "C" fn hand_over(_: sys::CUstream, status: sys::CUresult, data: *mut c_void) {
    // SAFETY: boxed by `enqueue` and handed to the driver once.
    let pending = unsafe { Box::from_raw(data.cast::<Pending>()) };
    let Pending {
        function,
        on,
        gate,
        number,
        returned,
    } = *pending;
    shared::run(on, function, hip_code(status).code(), move || {
        gate.atomic().store(number, Ordering::Release);
        let (done, signal) = &*returned;
        *done.lock().unwrap_or_else(|p| p.into_inner()) = true;
        signal.notify_all();
    });
}

/// Enqueues `function` on `stream` (`on` describes it), counted on `gate`.
pub fn enqueue(
    stream: sys::CUstream,
    on: StreamAt,
    gate: Arc<Gate>,
    function: HostFunction,
) -> HipResult<()> {
    let word = gate.word as u64;
    let mut issued = gate.issued.lock().unwrap_or_else(|p| p.into_inner());
    let number = issued.wrapping_add(1);
    let returned = Arc::new((Mutex::new(false), Condvar::new()));
    let data = Box::into_raw(Box::new(Pending {
        function,
        on,
        gate: gate.clone(),
        number,
        returned: returned.clone(),
    }));
    // SAFETY: a valid stream; the callback takes the box back exactly once.
    let added = check("cuStreamAddCallback", unsafe {
        sys::cuStreamAddCallback(stream, Some(hand_over), data.cast(), 0)
    });
    if added.is_err() {
        // SAFETY: the driver did not take it.
        drop(unsafe { Box::from_raw(data) });
        return added;
    }
    *issued = number;
    // The driver compares cyclically, so the count may wrap.
    // SAFETY: a valid stream; the word is mapped pinned memory.
    let held = check("cuStreamWaitValue32", unsafe {
        sys::cuStreamWaitValue32_v2(
            stream,
            word,
            number,
            sys::CUstreamWaitValue_flags::CU_STREAM_WAIT_VALUE_GEQ as u32,
        )
    });
    if held.is_err() {
        // The stream is not held: keep the order by waiting here until the function returned.
        let (done, signal) = &*returned;
        let mut finished = done.lock().unwrap_or_else(|p| p.into_inner());
        while !*finished {
            finished = signal.wait(finished).unwrap_or_else(|p| p.into_inner());
        }
    }
    Ok(())
}
