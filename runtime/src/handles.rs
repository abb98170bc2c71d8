//! Opaque handles (`hipStream_t`, `hipEvent_t`, `hipModule_t`, `hipFunction_t`, `hipArray_t`,
//! `hipCtx_t`) and the tables that validate them.
//!
//! A handle is a number, never a pointer the runtime dereferences: `TAG_BASE | serial << 4 | kind`.
//! Serials are never reused, so a destroyed handle stays invalid forever (no ABA), and a handle of
//! the wrong kind (an event passed as a stream) is refused. A bad handle is `hipErrorInvalidHandle`
//! (or `hipErrorInvalidValue`, as the caller decides), never a crash.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

const TAG_BASE: u64 = 0x4850_0000_0000_0000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum Kind {
    Stream = 1,
    Event = 2,
    Module = 3,
    Function = 4,
    Array = 5,
    // Graphs, stream capture and memory pools (rt-graphs).
    Graph = 6,
    GraphNode = 7,
    GraphExec = 8,
    MemPool = 9,
    /// Driver API contexts (`hipCtx_t`).
    Context = 10,
    /// Physical allocations of virtual memory management (`hipMemGenericAllocationHandle_t`).
    PhysicalMemory = 11,
    /// `hipUserObject_t` (rt-devices; the top value, leaving 6.. to the others' kinds).
    UserObject = 15,
}

impl Kind {
    /// The kind a handle was made for, whether or not it is still live (a destroyed stream is
    /// still recognisable as one, for HIP's "context is destroyed" answers).
    pub fn of(handle: usize) -> Option<u64> {
        let h = handle as u64;
        (h & 0xffff_0000_0000_0000 == TAG_BASE).then_some(h & 0xf)
    }

    /// Whether `handle` was made by a table of this kind (live or not).
    pub fn made(self, handle: usize) -> bool {
        Kind::of(handle) == Some(self as u64)
    }
}

static SERIAL: AtomicU64 = AtomicU64::new(1);

/// A table of live objects of one kind.
pub struct HandleTable<T: ?Sized> {
    kind: Kind,
    live: Mutex<HashMap<usize, Arc<T>>>,
}

impl<T: ?Sized> HandleTable<T> {
    pub fn new(kind: Kind) -> Self {
        HandleTable {
            kind,
            live: Mutex::new(HashMap::new()),
        }
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<usize, Arc<T>>> {
        self.live.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Registers `value` and returns its new handle.
    pub fn insert(&self, value: Arc<T>) -> usize {
        let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
        let handle = (TAG_BASE | (serial << 4) | self.kind as u64) as usize;
        self.map().insert(handle, value);
        handle
    }

    pub fn get(&self, handle: usize) -> Option<Arc<T>> {
        self.map().get(&handle).cloned()
    }

    pub fn remove(&self, handle: usize) -> Option<Arc<T>> {
        self.map().remove(&handle)
    }

    /// All live objects (their handles and values).
    pub fn all(&self) -> Vec<(usize, Arc<T>)> {
        self.map().iter().map(|(&h, v)| (h, v.clone())).collect()
    }

    /// Removes the objects `doomed` picks (hipDeviceReset of one device) and returns them.
    pub fn remove_where(&self, doomed: impl Fn(&T) -> bool) -> Vec<Arc<T>> {
        let mut map = self.map();
        let handles: Vec<usize> = map
            .iter()
            .filter(|(_, v)| doomed(v))
            .map(|(&h, _)| h)
            .collect();
        handles.iter().filter_map(|h| map.remove(h)).collect()
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.map().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_are_unique_typed_and_never_reused() {
        let streams: HandleTable<u32> = HandleTable::new(Kind::Stream);
        let events: HandleTable<u32> = HandleTable::new(Kind::Event);
        let a = streams.insert(Arc::new(1));
        let b = streams.insert(Arc::new(2));
        assert_ne!(a, b);
        assert_eq!(*streams.get(a).unwrap(), 1);
        assert!(events.get(a).is_none());
        let e = events.insert(Arc::new(3));
        assert!(streams.get(e).is_none());
        assert_eq!(*streams.remove(a).unwrap(), 1);
        assert!(streams.get(a).is_none());
        let c = streams.insert(Arc::new(4));
        assert_ne!(c, a);
        assert!(streams.get(0).is_none() && streams.get(2).is_none());
        assert_eq!(streams.len(), 2);
        assert_eq!(streams.remove_where(|&v| v == 4).len(), 1);
        assert_eq!(streams.len(), 1);
        assert_eq!(streams.remove_where(|_| true).len(), 1);
        assert_eq!(streams.len(), 0);
    }
}
