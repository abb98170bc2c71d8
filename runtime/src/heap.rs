//! The device heap: the memory behind `malloc`, `free`, `new` and `delete` in device code.
//!
//! The allocator itself is device code in hipmlir's headers (`hip/hipmlir_heap.h`: size classes
//! with lock-free free lists over one region of device memory). Its state lives at the start of
//! the region; this side provides the region:
//!
//! * One region per process, allocated on the first launch of a kernel whose module uses it and
//!   shared by every module (memory allocated by one module's kernel may be freed by another's).
//!   Its size is `hipLimitMallocHeapSize`: [`DEFAULT_HEAP_BYTES`] unless the program set another
//!   before that first launch; setting it once the heap exists is `hipErrorInvalidValue`, as in
//!   CUDA.
//! * A module uses the heap when its image defines `DEVICE_HEAP_VARIABLE`, which the header
//!   defines beside the allocator: only code that allocates pays for a heap. Before the module's
//!   first launch (and again after `hipDeviceReset` rebuilds its program) the region's address is
//!   written into that variable, the variable's address found through its address kernel as for
//!   any device variable.
//! * The region is device memory entered in the allocation table as `AllocKind::Heap`, so SVM
//!   launches list it and copies from device-malloc'd pointers work; `hipDeviceReset` releases it
//!   with every allocation and the next use starts an empty heap.

use std::ffi::c_void;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};

use hipmlir_device_image::DEVICE_HEAP_HEADER_BYTES;

use crate::error::{Failure, HipResult};
use crate::hlog;
use crate::memory::{self, MemcpyKind};
use crate::registry::Module;

/// The heap's size unless the program sets `hipLimitMallocHeapSize`: 64 MiB (CUDA's default is
/// 8 MiB; HIP on AMD GPUs grows its heap on demand, and programs written for it allocate more).
pub const DEFAULT_HEAP_BYTES: usize = 64 << 20;

struct Heap {
    /// `hipLimitMallocHeapSize`.
    limit: usize,
    /// The region's device address, once allocated.
    region: Option<usize>,
}

static HEAP: Mutex<Heap> = Mutex::new(Heap {
    limit: DEFAULT_HEAP_BYTES,
    region: None,
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
    if h.region.is_some() && bytes != h.limit {
        return Err(Failure::invalid_value(format!(
            "the device heap ({} bytes) already exists: hipLimitMallocHeapSize must be set before \
             the first launch of a kernel that uses malloc or new",
            h.limit
        )));
    }
    h.limit = bytes;
    Ok(())
}

/// Makes `module`'s heap variable point at the heap (allocating it on first use); a no-op for
/// modules that do not allocate, and once done until the module's program is rebuilt. Called
/// before each launch of one of the module's kernels.
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
    let region = match h.region {
        Some(region) => region,
        None => {
            let region = create(h.limit)?;
            h.region = Some(region);
            region
        }
    };
    let variable = crate::symbols::address_of(module, index)?;
    let address = region as u64;
    memory::memcpy(
        variable as *mut c_void,
        (&address as *const u64).cast(),
        8,
        MemcpyKind::HostToDevice as i32,
    )?;
    module.heap_bound.store(true, Ordering::Release);
    Ok(())
}

/// Allocates a region of `limit` bytes (at least its header) and writes the allocator's empty
/// state: the region's size, then zeros.
fn create(limit: usize) -> HipResult<usize> {
    let size = limit.max(DEVICE_HEAP_HEADER_BYTES);
    let region = memory::alloc_heap(size)?;
    let mut header = vec![0u8; DEVICE_HEAP_HEADER_BYTES];
    header[..8].copy_from_slice(&(size as u64).to_ne_bytes());
    memory::memcpy(
        region,
        header.as_ptr().cast(),
        header.len(),
        MemcpyKind::HostToDevice as i32,
    )?;
    hlog!(Debug, "device heap of {size} bytes at {region:p}");
    Ok(region as usize)
}

/// `hipDeviceReset` released the region with every allocation: the next use allocates a new one.
pub fn forget() {
    heap().region = None;
}
