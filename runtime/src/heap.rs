//! The device heap: the memory behind `malloc`, `free`, `new` and `delete` in device code.
//!
//! The allocator itself is device code in hipmlir's headers (`hip/hipmlir_heap.h`: size classes
//! with lock-free free lists over one arena of device memory, its state in module variables). The
//! module's variable `DEVICE_HEAP_VARIABLE` holds the arena's address; the header defines it
//! beside the allocator, so only modules whose code allocates have it, and only they get an
//! arena. This side provides the arenas:
//!
//! * Before the first launch of a kernel of such a module (and again after `hipDeviceReset`
//!   rebuilds its program), an arena is allocated, its size written into its first 16 bytes and
//!   its address into the variable, whose address is found through its address kernel as for any
//!   device variable.
//!   Each module has its own arena (the allocator's state is in its variables): memory a kernel
//!   allocates is usable and freeable by every kernel of its module.
//! * An arena's size is `hipLimitMallocHeapSize`: [`DEFAULT_HEAP_BYTES`] unless the program set
//!   another before the first launch that allocates; setting it once an arena exists is
//!   `hipErrorInvalidValue`, as in CUDA.
//! * Arenas are device memory entered in the allocation table as `AllocKind::Heap`, so SVM
//!   launches list them and copies from device-malloc'd pointers work; `hipDeviceReset` releases
//!   them with every allocation.
//!
//! This file keeps the size and whether an arena exists; each backend makes and binds the arenas
//! (`opencl::variables::prepare_heap`, `cuda::module`).

use std::sync::{Mutex, MutexGuard};

use crate::error::{Failure, HipResult};

/// The heap's size unless the program sets `hipLimitMallocHeapSize`: 64 MiB (CUDA's default is
/// 8 MiB; HIP on AMD GPUs grows its heap on demand, and programs written for it allocate more).
pub const DEFAULT_HEAP_BYTES: usize = 64 << 20;

/// The arena's first bytes: its size (a 64-bit word), then padding to the first block.
pub const ARENA_HEADER_BYTES: usize = 16;

pub struct Heap {
    /// `hipLimitMallocHeapSize`.
    limit: usize,
    /// Whether an arena exists (the limit is then fixed).
    pub started: bool,
}

impl Heap {
    /// The size of a new arena.
    pub fn arena_bytes(&self) -> usize {
        self.limit.max(ARENA_HEADER_BYTES)
    }
}

static HEAP: Mutex<Heap> = Mutex::new(Heap {
    limit: DEFAULT_HEAP_BYTES,
    started: false,
});

/// The heap's settings, locked: a backend binding a module's arena holds them meanwhile.
pub fn lock() -> MutexGuard<'static, Heap> {
    HEAP.lock().unwrap_or_else(|p| p.into_inner())
}

/// `hipDeviceGetLimit(hipLimitMallocHeapSize)`.
pub fn limit() -> usize {
    lock().limit
}

/// `hipDeviceSetLimit(hipLimitMallocHeapSize, bytes)`: only before the heap exists.
pub fn set_limit(bytes: usize) -> HipResult<()> {
    let mut h = lock();
    if h.started && bytes != h.limit {
        return Err(Failure::invalid_value(format!(
            "the device heap ({} bytes) already exists: hipLimitMallocHeapSize must be set before \
             the first launch of a kernel that uses malloc or new",
            h.limit
        )));
    }
    h.limit = bytes;
    Ok(())
}

/// An arena exists (the CUDA backend made one): the limit is fixed from now on.
pub fn note_started() {
    lock().started = true;
}

/// `hipDeviceReset` released the arenas with every allocation: a new limit may be set.
pub fn forget() {
    lock().started = false;
}
