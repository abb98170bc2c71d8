//! The handles hiprtc gives out (`hiprtcProgram`, `hiprtcLinkState`): numbers never reused,
//! looked up in a table of live objects, so that a handle destroyed before, never made, or of
//! the other kind is an error code rather than a dangling pointer followed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The next handle of any table: one sequence, so that a program's handle is never a link
/// state's. Starts high and steps by 16 so that a handle is no small integer a program might
/// pass by mistake.
static NEXT: AtomicUsize = AtomicUsize::new(0x1000);

/// The live objects of one kind.
pub struct Handles<T> {
    live: Mutex<HashMap<usize, Arc<Mutex<T>>>>,
}

impl<T> Handles<T> {
    pub fn new() -> Self {
        Handles {
            live: Mutex::new(HashMap::new()),
        }
    }

    /// Registers `value`; its handle.
    pub fn insert(&self, value: T) -> usize {
        let handle = NEXT.fetch_add(16, Ordering::Relaxed);
        self.table().insert(handle, Arc::new(Mutex::new(value)));
        handle
    }

    /// The live object of `handle`.
    pub fn get(&self, handle: usize) -> Option<Arc<Mutex<T>>> {
        self.table().get(&handle).cloned()
    }

    /// Takes `handle` out of the table; None if it was not live.
    pub fn remove(&self, handle: usize) -> Option<Arc<Mutex<T>>> {
        self.table().remove(&handle)
    }

    /// The table, also after a panic while it was held (it holds no state a panic can break).
    fn table(&self) -> std::sync::MutexGuard<'_, HashMap<usize, Arc<Mutex<T>>>> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// An object's lock, also after a panic while it was held (the object is then as the panic left
/// it; the call that panicked already answered HIPRTC_ERROR_INTERNAL_ERROR).
pub fn lock<T>(object: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    object.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_are_never_reused_or_shared_between_kinds() {
        let a: Handles<u32> = Handles::new();
        let b: Handles<&str> = Handles::new();
        let h = a.insert(1);
        let k = b.insert("x");
        assert_ne!(h, k);
        assert!(a.get(k).is_none() && b.get(h).is_none());
        assert!(a.remove(h).is_some());
        assert!(a.remove(h).is_none(), "a handle is live once");
        assert!(a.get(h).is_none());
        let again = a.insert(2);
        assert_ne!(again, h, "a destroyed handle never names a new object");
    }
}
