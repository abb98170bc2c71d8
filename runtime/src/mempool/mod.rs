//! Stream-ordered allocation (`hipMallocAsync`, `hipFreeAsync`) and memory pools
//! (`hipMemPool_t`): the pools of each device, which one `hipMallocAsync` uses, and which pool
//! each live allocation came from.
//!
//! A pool is a backend's (`backend::MemPool`): the CUDA driver's own pools on CUDA; on OpenCL
//! the runtime's ([`runtime_pool`]). `hipMemPool_t` is a handle of this file's table; a bad or
//! destroyed one is `hipErrorInvalidValue`. Each device has a default pool (made on first use,
//! never destroyed) and a current pool (`hipDeviceSetMemPool`), the default until set. A
//! destroyed pool lives on until its last allocation is freed.

pub mod runtime_pool;

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::backend::{Device, DeviceId, MemPool, Stream};
use crate::error::{Failure, HipResult};
use crate::handles::{HandleTable, Kind};

/// A pool as its handle names it.
pub struct PoolEntry {
    pub pool: Arc<dyn MemPool>,
    pub is_default: bool,
}

#[derive(Default)]
struct Registry {
    /// Each device's default pool's handle.
    defaults: HashMap<DeviceId, usize>,
    /// Each device's current pool's handle, where set.
    current: HashMap<DeviceId, usize>,
    /// Each live pool allocation → its pool.
    allocations: HashMap<usize, Arc<dyn MemPool>>,
}

static REGISTRY: Mutex<Option<Registry>> = Mutex::new(None);

/// Set when memory is freed into a pool: the next synchronization lets pools release it.
static FREED_SINCE_SYNC: AtomicBool = AtomicBool::new(false);

fn with_registry<R>(f: impl FnOnce(&mut Registry) -> R) -> R {
    let mut guard: MutexGuard<'_, Option<Registry>> =
        REGISTRY.lock().unwrap_or_else(|p| p.into_inner());
    f(guard.get_or_insert_with(Registry::default))
}

fn pools() -> &'static HandleTable<PoolEntry> {
    static TABLE: OnceLock<HandleTable<PoolEntry>> = OnceLock::new();
    TABLE.get_or_init(|| HandleTable::new(Kind::MemPool))
}

/// The pool a `hipMemPool_t` names.
pub fn get(handle: usize) -> HipResult<Arc<PoolEntry>> {
    if handle == 0 {
        return Err(Failure::invalid_value("the memory pool is null"));
    }
    pools().get(handle).ok_or_else(|| {
        Failure::invalid_value(format!(
            "{handle:#x} is not a live memory pool (destroyed, or never created)"
        ))
    })
}

/// `hipDeviceGetDefaultMemPool`: the handle of `device`'s default pool.
pub fn default_pool(device: &dyn Device) -> HipResult<usize> {
    if let Some(h) = with_registry(|r| r.defaults.get(&device.id()).copied()) {
        return Ok(h);
    }
    let pool = device.default_mem_pool()?;
    Ok(with_registry(|r| {
        *r.defaults.entry(device.id()).or_insert_with(|| {
            pools().insert(Arc::new(PoolEntry {
                pool,
                is_default: true,
            }))
        })
    }))
}

/// `hipDeviceGetMemPool`: the handle of `device`'s current pool.
pub fn current_pool(device: &dyn Device) -> HipResult<usize> {
    match with_registry(|r| r.current.get(&device.id()).copied()) {
        Some(h) => Ok(h),
        None => default_pool(device),
    }
}

/// `hipDeviceSetMemPool`: `handle` (a pool of `device`) becomes its current pool.
pub fn set_current_pool(device: &dyn Device, handle: usize) -> HipResult<()> {
    let entry = get(handle)?;
    if entry.pool.device() != device.id() {
        return Err(Failure::invalid_value(format!(
            "the pool belongs to device {}, not device {}",
            entry.pool.device(),
            device.id()
        )));
    }
    with_registry(|r| r.current.insert(device.id(), handle));
    Ok(())
}

/// `hipMemPoolCreate`: a new pool's handle.
pub fn insert(pool: Arc<dyn MemPool>) -> usize {
    pools().insert(Arc::new(PoolEntry {
        pool,
        is_default: false,
    }))
}

/// `hipMemPoolDestroy`: default pools cannot be destroyed; a device whose current pool this
/// was uses its default pool again. Allocations not yet freed keep the pool alive.
pub fn destroy(handle: usize) -> HipResult<()> {
    let entry = get(handle)?;
    if entry.is_default {
        return Err(Failure::invalid_value(
            "a device's default memory pool cannot be destroyed",
        ));
    }
    pools().remove(handle);
    with_registry(|r| r.current.retain(|_, h| *h != handle));
    Ok(())
}

/// Allocates `size` bytes from `pool` in `stream`'s order and remembers where they came from.
pub fn allocate(
    pool: &Arc<dyn MemPool>,
    size: usize,
    stream: &Arc<Stream>,
) -> HipResult<*mut c_void> {
    let p = pool.allocate(size, stream)?;
    with_registry(|r| r.allocations.insert(p as usize, pool.clone()));
    Ok(p)
}

/// Remembers `p` (imported from another process) as an allocation of `pool`.
pub fn adopt(p: *mut c_void, pool: &Arc<dyn MemPool>) {
    with_registry(|r| r.allocations.insert(p as usize, pool.clone()));
}

/// The pool `p` (the start of a live allocation) came from, if it is a pool allocation.
pub fn pool_of(p: *mut c_void) -> Option<Arc<dyn MemPool>> {
    with_registry(|r| r.allocations.get(&(p as usize)).cloned())
}

/// `hipFreeAsync` of a pool allocation: `Ok(false)` if `p` is not one.
pub fn free_async(p: *mut c_void, stream: &Arc<Stream>) -> HipResult<bool> {
    let Some(pool) = with_registry(|r| r.allocations.remove(&(p as usize))) else {
        return Ok(false);
    };
    FREED_SINCE_SYNC.store(true, Ordering::Release);
    pool.free(p, stream).map(|()| true)
}

/// `hipFree` of a pool allocation: after the device's work, as `hipFree` waits (on the null
/// stream, which waits for the blocking streams). `Ok(false)` if `p` is not one.
pub fn free_sync(device: &dyn Device, p: *mut c_void) -> HipResult<bool> {
    if pool_of(p).is_none() {
        return Ok(false);
    }
    device.synchronize()?;
    free_async(p, &device.null_stream())
}

/// After a synchronization: pools release memory above their thresholds (cheap when nothing
/// was freed since the last one).
pub fn after_synchronize() {
    if !FREED_SINCE_SYNC.swap(false, Ordering::AcqRel) {
        return;
    }
    for (_, entry) in pools().all() {
        entry.pool.after_synchronize();
    }
}

/// `hipDeviceReset`: the device's pools and their memory are gone (the backend freed the
/// memory, or the driver destroyed the pools with the context).
pub fn reset(device: DeviceId) {
    let dropped: Vec<Arc<dyn MemPool>> = with_registry(|r| {
        r.defaults.remove(&device);
        r.current.remove(&device);
        let gone: Vec<usize> = r
            .allocations
            .iter()
            .filter(|(_, pool)| pool.device() == device)
            .map(|(&p, _)| p)
            .collect();
        gone.iter()
            .filter_map(|p| r.allocations.remove(p))
            .collect()
    });
    for (h, entry) in pools().all() {
        if entry.pool.device() == device {
            pools().remove(h);
        }
    }
    drop(dropped);
}
