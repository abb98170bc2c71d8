//! The memory checker on the CUDA backend (see the runtime's `memcheck` for the shared part):
//! each checked module's state and table in device memory, written in order on the launch's
//! stream, its report in pinned host memory (the host reads it after the kernel's trap, when
//! the context no longer answers); and the live allocations the table holds, noted as the
//! backend makes and frees them (the driver lists none).

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::{Mutex, MutexGuard};

use hipmlir_device_image::memcheck::{REPORT_WORDS, STATE_REPORT, STATE_TABLE, STATE_WORDS};

use super::driver::{check, sys, HOST_ALLOC_MAPPED};
use crate::backend::DeviceId;
use crate::error::HipResult;
use crate::memcheck::CheckerMemory;

/// A live allocation: its size, and the device whose context owns it (None: none resets it).
#[derive(Clone, Copy)]
struct Live {
    size: u64,
    owner: Option<DeviceId>,
}

static LIVE: Mutex<BTreeMap<u64, Live>> = Mutex::new(BTreeMap::new());

fn live() -> MutexGuard<'static, BTreeMap<u64, Live>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Notes memory a kernel may reach: `size` bytes at `base` (null or empty: nothing).
pub fn allocated(base: *const c_void, size: usize, owner: Option<DeviceId>) {
    if !base.is_null() && size > 0 {
        let size = size as u64;
        live().insert(base as u64, Live { size, owner });
    }
}

/// Forgets the allocation at `base`; `freed`: the program freed it (a later access to it is
/// reported as such), rather than unregistered or unmapped it.
pub fn released(base: *const c_void, freed: bool) {
    if let Some(l) = live().remove(&(base as u64)) {
        if freed {
            crate::memcheck::freed(base as usize, l.size as usize);
        }
    }
}

/// The context of `device` was reset: its allocations went with it.
pub fn forget_device(device: DeviceId) {
    live().retain(|_, l| l.owner != Some(device));
}

/// The live allocations as sorted (base, end) ranges, for the checker's table.
pub fn ranges() -> Vec<(u64, u64)> {
    live()
        .iter()
        .map(|(&b, l)| (b, b.saturating_add(l.size)))
        .collect()
}

/// One checked module's memory on one device (whose context is current when it is made,
/// written and dropped).
pub struct DeviceMemory {
    state: sys::CUdeviceptr,
    /// Pinned, device-mapped host memory (the device reaches it at this address).
    report: usize,
    table: Option<sys::CUdeviceptr>,
    retired: Vec<sys::CUdeviceptr>,
}

impl DeviceMemory {
    /// A zeroed state pointing at a zeroed report, written in order on `stream` (before the
    /// module's next launch there).
    pub fn new(stream: sys::CUstream) -> HipResult<DeviceMemory> {
        let mut memory = DeviceMemory {
            state: 0,
            report: 0,
            table: None,
            retired: Vec::new(),
        };
        let report_bytes = (REPORT_WORDS * 8) as usize;
        let mut report: *mut c_void = std::ptr::null_mut();
        // SAFETY: plain driver calls on the current context; the report is zeroed before the
        // device can see it; the staged words are copied before cuMemcpyHtoDAsync returns
        // (pageable memory). Dropping `memory` frees what was allocated when a step fails.
        unsafe {
            check(
                "cuMemHostAlloc (memory checker)",
                sys::cuMemHostAlloc(&mut report, report_bytes, HOST_ALLOC_MAPPED),
            )?;
            std::ptr::write_bytes(report.cast::<u8>(), 0, report_bytes);
            memory.report = report as usize;
            check(
                "cuMemAlloc (memory checker)",
                sys::cuMemAlloc_v2(&mut memory.state, (STATE_WORDS * 8) as usize),
            )?;
            let mut words = vec![0u64; STATE_WORDS as usize];
            words[STATE_REPORT as usize] = report as u64;
            check(
                "cuMemcpyHtoDAsync (memory checker)",
                sys::cuMemcpyHtoDAsync_v2(
                    memory.state,
                    words.as_ptr().cast(),
                    words.len() * 8,
                    stream,
                ),
            )?;
        }
        Ok(memory)
    }
}

impl CheckerMemory for DeviceMemory {
    fn state(&self) -> u64 {
        self.state
    }

    fn report(&self, index: u64) -> u64 {
        if index >= REPORT_WORDS {
            return 0;
        }
        // SAFETY: the pinned report lives as long as `self`; the device writes it.
        unsafe {
            (self.report as *const u64)
                .add(index as usize)
                .read_volatile()
        }
    }

    fn set_table(&mut self, words: &[u64], queue: usize) -> HipResult<()> {
        let stream = queue as sys::CUstream;
        let bytes = words.len() * 8;
        let mut table: sys::CUdeviceptr = 0;
        // SAFETY: plain driver calls on the current context; the staged words are copied before
        // cuMemcpyHtoDAsync returns (pageable memory), in order before the launch on `stream`.
        unsafe {
            check(
                "cuMemAlloc (memory checker's table)",
                sys::cuMemAlloc_v2(&mut table, bytes),
            )?;
            let copied = check(
                "cuMemcpyHtoDAsync (memory checker's table)",
                sys::cuMemcpyHtoDAsync_v2(table, words.as_ptr().cast(), bytes, stream),
            )
            .and_then(|()| {
                check(
                    "cuMemcpyHtoDAsync (memory checker's state)",
                    sys::cuMemcpyHtoDAsync_v2(
                        self.state + STATE_TABLE * 8,
                        (&table as *const u64).cast(),
                        8,
                        stream,
                    ),
                )
            });
            if let Err(e) = copied {
                let _ = sys::cuMemFree_v2(table);
                return Err(e);
            }
        }
        if let Some(old) = self.table.replace(table) {
            self.retired.push(old);
        }
        Ok(())
    }

    fn set_word(&mut self, index: u64, value: u64, queue: usize) -> HipResult<()> {
        // SAFETY: a word of our state; the value is staged before cuMemcpyHtoDAsync returns
        // (pageable memory), in order before the launch on the queue.
        check("cuMemcpyHtoDAsync (memory checker's state)", unsafe {
            sys::cuMemcpyHtoDAsync_v2(
                self.state + index * 8,
                (&value as *const u64).cast(),
                8,
                queue as sys::CUstream,
            )
        })
    }

    fn release_retired(&mut self) {
        for table in self.retired.drain(..) {
            // SAFETY: a table of ours that no kernel reads any more (the device is idle).
            let _ = unsafe { sys::cuMemFree_v2(table) };
        }
    }
}

impl Drop for DeviceMemory {
    fn drop(&mut self) {
        self.release_retired();
        // SAFETY: memory of ours, dropped once the device is idle (or its context is gone, when
        // the driver refuses and the context's end freed it).
        unsafe {
            if let Some(table) = self.table.take() {
                let _ = sys::cuMemFree_v2(table);
            }
            if self.state != 0 {
                let _ = sys::cuMemFree_v2(self.state);
            }
            if self.report != 0 {
                let _ = sys::cuMemFreeHost(self.report as *mut c_void);
            }
        }
    }
}
