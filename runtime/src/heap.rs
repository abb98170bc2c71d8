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

use std::ffi::c_void;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::error::{Failure, HipResult};
use crate::hlog;
use crate::memory::{self, MemcpyKind};
use crate::registry::Module;

/// The heap's size unless the program sets `hipLimitMallocHeapSize`: 64 MiB (CUDA's default is
/// 8 MiB; HIP on AMD GPUs grows its heap on demand, and programs written for it allocate more).
pub const DEFAULT_HEAP_BYTES: usize = 64 << 20;

/// The arena's first bytes: its size (a 64-bit word), then padding to the first block.
const ARENA_HEADER_BYTES: usize = 16;

struct Heap {
    /// `hipLimitMallocHeapSize`.
    limit: usize,
    /// Whether an arena exists (the limit is then fixed).
    started: bool,
}

static HEAP: Mutex<Heap> = Mutex::new(Heap {
    limit: DEFAULT_HEAP_BYTES,
    started: false,
});

fn heap() -> MutexGuard<'static, Heap> {
    HEAP.lock().unwrap_or_else(|p| p.into_inner())
}

/// `hipDeviceGetLimit(hipLimitMallocHeapSize)`.
pub fn limit() -> usize {
    heap().limit
}

/// `hipDeviceSetLimit(hipLimitMallocHeapSize, bytes)`: only before the heap exists.
pub fn set_limit(bytes: usize) -> HipResult<()> {
    let mut h = heap();
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

/// Gives `module` its arena (writing its address and size into the module's heap variable); a
/// no-op for modules that do not allocate, and once done until the module's program is rebuilt.
/// Called before each launch of one of the module's kernels.
pub fn prepare(module: &Arc<Module>) -> HipResult<()> {
    let Some(index) = module.heap_variable else {
        return Ok(());
    };
    if module.heap_bound.load(Ordering::Acquire) {
        return Ok(());
    }
    let mut h = heap();
    if module.heap_bound.load(Ordering::Acquire) {
        return Ok(());
    }
    let variable = crate::symbols::address_of(module, index)?;
    let size = h.limit.max(ARENA_HEADER_BYTES);
    let arena = memory::alloc_heap(size)?;
    h.started = true;
    let header = [size as u64, 0];
    let address = arena as u64;
    let copy = |to: *mut c_void, from: *const c_void, bytes: usize| {
        memory::memcpy(to, from, bytes, MemcpyKind::HostToDevice as i32)
    };
    copy(arena, header.as_ptr().cast(), ARENA_HEADER_BYTES)?;
    copy(variable as *mut c_void, (&address as *const u64).cast(), 8)?;
    hlog!(
        Debug,
        "device heap of {} at {arena:p}: {size} bytes",
        module.label
    );
    module.heap_bound.store(true, Ordering::Release);
    Ok(())
}

/// An arena exists (the CUDA backend made one): the limit is fixed from now on.
pub fn note_started() {
    heap().started = true;
}

/// `hipDeviceReset` released the arenas with every allocation: a new limit may be set.
pub fn forget() {
    heap().started = false;
}
