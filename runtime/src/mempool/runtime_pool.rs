//! A memory pool built by the runtime, for backends whose driver has none (OpenCL).
//!
//! Memory comes from the device in *blocks* (one per allocation, rounded up to
//! [`GRANULARITY`]). `hipFreeAsync` does not give a block back: it records an event on the
//! freeing stream after the work queued so far (the stream's tail) and keeps the block, free,
//! with that event. A later allocation of a size the block fits (at most twice over) reuses it
//! when HIP's reuse rules allow:
//! * on the stream that freed it: stream order already puts the allocation's users after the
//!   free;
//! * `hipMemPoolReuseAllowOpportunistic`: the free's event has completed;
//! * `hipMemPoolReuseAllowInternalDependencies`: the allocating stream is made to wait for the
//!   free's event.
//!
//! (`hipMemPoolReuseFollowEventDependencies` reuse, through events the program recorded and
//! waited for, is covered here by the internal dependency; the attribute is kept and reported.)
//!
//! Free blocks whose event completed go back to the device at `hipMemPoolTrimTo`, and after a
//! synchronization while the pool reserves more than its release threshold. Used bytes count
//! what allocations asked for; reserved bytes the blocks the pool holds.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use crate::backend::{
    AccessFlags, Device, DeviceId, Event, EventFlags, MemPool, MemoryKind, PoolAttribute,
    PoolConfig, Stream,
};
use crate::error::{Failure, HipError, HipResult};

/// Block sizes are multiples of this.
pub const GRANULARITY: usize = 256;

/// A block no allocation holds: where and when it was freed.
struct FreeBlock {
    address: usize,
    size: usize,
    stream: Weak<Stream>,
    event: Arc<dyn Event>,
}

#[derive(Default)]
struct State {
    /// Blocks held by allocations: address → (block size, bytes asked for).
    live: HashMap<usize, (usize, usize)>,
    free: Vec<FreeBlock>,
    reserved: u64,
    reserved_high: u64,
    used: u64,
    used_high: u64,
    release_threshold: u64,
    follow_event_dependencies: bool,
    allow_opportunistic: bool,
    allow_internal_dependencies: bool,
    /// Access other devices were given (the pool's own device always has read-write).
    access: HashMap<DeviceId, AccessFlags>,
}

pub struct RuntimePool {
    device: &'static dyn Device,
    config: PoolConfig,
    state: Mutex<State>,
}

impl RuntimePool {
    pub fn new(device: &'static dyn Device, config: PoolConfig) -> Self {
        RuntimePool {
            device,
            config,
            state: Mutex::new(State {
                follow_event_dependencies: true,
                allow_opportunistic: true,
                allow_internal_dependencies: true,
                ..State::default()
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes a free block for `size` (rounded) bytes that `stream` may use, making the stream
    /// wait for the block's free where the rules say so: its (address, size).
    fn reuse(
        &self,
        state: &mut State,
        size: usize,
        stream: &Arc<Stream>,
    ) -> HipResult<Option<(usize, usize)>> {
        let fits = |b: &&FreeBlock| b.size >= size && b.size <= size.saturating_mul(2);
        let ready = |b: &&FreeBlock| {
            b.stream.upgrade().is_some_and(|s| Arc::ptr_eq(&s, stream))
                || (state.allow_opportunistic && b.event.is_complete().unwrap_or(false))
        };
        let smallest = |candidates: Vec<(usize, &FreeBlock)>| {
            candidates
                .into_iter()
                .min_by_key(|(_, b)| b.size)
                .map(|(i, _)| i)
        };
        let fitting: Vec<(usize, &FreeBlock)> = state
            .free
            .iter()
            .enumerate()
            .filter(|(_, b)| fits(b))
            .collect();
        let without_wait = smallest(fitting.iter().filter(|(_, b)| ready(b)).copied().collect());
        let chosen = match without_wait {
            Some(i) => Some((i, false)),
            None if state.allow_internal_dependencies => smallest(fitting).map(|i| (i, true)),
            None => None,
        };
        let Some((i, wait)) = chosen else {
            return Ok(None);
        };
        if wait {
            stream.queue().wait_event(&*state.free[i].event)?;
        }
        let b = state.free.swap_remove(i);
        Ok(Some((b.address, b.size)))
    }

    /// Gives free blocks whose free has completed back to the device while the pool reserves
    /// more than `keep` bytes.
    fn release(&self, keep: u64) -> HipResult<()> {
        let mut first_error = None;
        loop {
            let taken = {
                let mut state = self.state();
                if state.reserved <= keep {
                    break;
                }
                let done = state
                    .free
                    .iter()
                    .position(|b| b.event.is_complete().unwrap_or(false));
                match done {
                    None => break,
                    Some(i) => {
                        let b = state.free.swap_remove(i);
                        state.reserved -= b.size as u64;
                        b
                    }
                }
            };
            if let Err(e) = self.device.free_idle(taken.address as *mut c_void) {
                first_error.get_or_insert(e);
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

impl Drop for RuntimePool {
    /// The pool's last allocation is gone (or the device is being reset): every block goes back.
    fn drop(&mut self) {
        let state = std::mem::take(&mut *self.state());
        for b in &state.free {
            let _ = b.event.synchronize();
        }
        let blocks = state.free.iter().map(|b| b.address);
        for address in blocks.chain(state.live.keys().copied()) {
            let _ = self.device.free_idle(address as *mut c_void);
        }
    }
}

fn raise(high: &mut u64, current: u64) {
    *high = (*high).max(current);
}

impl MemPool for RuntimePool {
    fn device(&self) -> DeviceId {
        self.device.id()
    }

    fn allocate(&self, size: usize, stream: &Arc<Stream>) -> HipResult<*mut c_void> {
        let rounded = size.checked_next_multiple_of(GRANULARITY).ok_or_else(|| {
            Failure::new(
                HipError::OutOfMemory,
                format!("{size} bytes overflow the address space"),
            )
        })?;
        let mut state = self.state();
        let (address, block) = match self.reuse(&mut state, rounded, stream)? {
            Some(found) => found,
            None => {
                let limit = self.config.max_size as u64;
                if limit != 0 && state.reserved + rounded as u64 > limit {
                    return Err(Failure::new(
                        HipError::OutOfMemory,
                        format!(
                            "the pool's maximum size is {limit} bytes; {} are reserved",
                            state.reserved
                        ),
                    ));
                }
                let p = self.device.allocate(MemoryKind::Device, rounded)? as usize;
                state.reserved += rounded as u64;
                let reserved = state.reserved;
                raise(&mut state.reserved_high, reserved);
                (p, rounded)
            }
        };
        state.live.insert(address, (block, size));
        state.used += size as u64;
        let used = state.used;
        raise(&mut state.used_high, used);
        Ok(address as *mut c_void)
    }

    fn free(&self, p: *mut c_void, stream: &Arc<Stream>) -> HipResult<()> {
        let event: Arc<dyn Event> = Arc::from(self.device.create_event(EventFlags {
            disable_timing: true,
            ..EventFlags::default()
        })?);
        event.record(stream.queue())?;
        let mut state = self.state();
        let (size, asked) = state.live.remove(&(p as usize)).ok_or_else(|| {
            Failure::invalid_value(format!("{p:p} is not a live allocation of this pool"))
        })?;
        state.used -= asked as u64;
        state.free.push(FreeBlock {
            address: p as usize,
            size,
            stream: Arc::downgrade(stream),
            event,
        });
        Ok(())
    }

    fn trim_to(&self, keep: usize) -> HipResult<()> {
        self.release(keep as u64)
    }

    fn set_attribute(&self, attribute: PoolAttribute, value: u64) -> HipResult<()> {
        let mut state = self.state();
        let on = value != 0;
        match attribute {
            PoolAttribute::ReuseFollowEventDependencies => state.follow_event_dependencies = on,
            PoolAttribute::ReuseAllowOpportunistic => state.allow_opportunistic = on,
            PoolAttribute::ReuseAllowInternalDependencies => state.allow_internal_dependencies = on,
            PoolAttribute::ReleaseThreshold => state.release_threshold = value,
            PoolAttribute::ReservedMemHigh | PoolAttribute::UsedMemHigh if value != 0 => {
                return Err(Failure::invalid_value(
                    "a high mark can only be reset, by setting it to 0",
                ))
            }
            PoolAttribute::ReservedMemHigh => state.reserved_high = state.reserved,
            PoolAttribute::UsedMemHigh => state.used_high = state.used,
            PoolAttribute::ReservedMemCurrent | PoolAttribute::UsedMemCurrent => {
                return Err(Failure::invalid_value(format!(
                    "{attribute:?} is read-only"
                )))
            }
        }
        Ok(())
    }

    fn attribute(&self, attribute: PoolAttribute) -> HipResult<u64> {
        let state = self.state();
        Ok(match attribute {
            PoolAttribute::ReuseFollowEventDependencies => {
                u64::from(state.follow_event_dependencies)
            }
            PoolAttribute::ReuseAllowOpportunistic => u64::from(state.allow_opportunistic),
            PoolAttribute::ReuseAllowInternalDependencies => {
                u64::from(state.allow_internal_dependencies)
            }
            PoolAttribute::ReleaseThreshold => state.release_threshold,
            PoolAttribute::ReservedMemCurrent => state.reserved,
            PoolAttribute::ReservedMemHigh => state.reserved_high,
            PoolAttribute::UsedMemCurrent => state.used,
            PoolAttribute::UsedMemHigh => state.used_high,
        })
    }

    fn set_access(&self, accessor: DeviceId, flags: AccessFlags) -> HipResult<()> {
        if accessor == self.device.id() {
            if flags != AccessFlags::ReadWrite {
                return Err(Failure::new(
                    HipError::InvalidDevice,
                    "a pool's own device keeps read-write access to it",
                ));
            }
            return Ok(());
        }
        if flags != AccessFlags::None {
            return Err(Failure::new(
                HipError::InvalidDevice,
                format!(
                    "device {accessor} cannot reach device {}'s memory (no peer access)",
                    self.device.id()
                ),
            ));
        }
        self.state().access.insert(accessor, flags);
        Ok(())
    }

    fn access(&self, accessor: DeviceId) -> HipResult<AccessFlags> {
        if accessor == self.device.id() {
            return Ok(AccessFlags::ReadWrite);
        }
        Ok(self
            .state()
            .access
            .get(&accessor)
            .copied()
            .unwrap_or(AccessFlags::None))
    }

    fn after_synchronize(&self) {
        let threshold = self.state().release_threshold;
        let _ = self.release(threshold);
    }
}
