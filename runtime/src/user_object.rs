//! User objects (`hipUserObject_t`): a resource the program hands to the runtime with a
//! destructor and a reference count. References are held by the program (`hipUserObjectRetain`,
//! `hipUserObjectRelease`) and by owners inside the runtime (a graph holds them through an
//! [`OwnedReferences`]: `hipGraphRetainUserObject`, `hipGraphReleaseUserObject`, and all it holds
//! when it is destroyed). The release of the last reference runs the destructor once, on the
//! releasing thread, outside every lock of the runtime (`hipUserObjectNoDestructorSync`, the one
//! flag: nothing waits for it, and it must not call HIP). A handle whose object is gone is
//! `hipErrorInvalidValue`, never a crash.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::error::{Failure, HipResult};
use crate::handles::{HandleTable, Kind};

/// `hipHostFn_t`: the destructor, called with the object's pointer.
pub type Destructor = unsafe extern "C" fn(*mut c_void);

/// The most references one call may add or drop (HIP's `count`, an `unsigned int` up to
/// `INT_MAX`).
pub const MAX_COUNT: u32 = i32::MAX as u32;

/// One user object.
pub struct UserObject {
    ptr: usize,
    destroy: Destructor,
    /// References still held (the object is gone at 0).
    count: Mutex<u64>,
}

fn table() -> &'static HandleTable<UserObject> {
    static TABLE: OnceLock<HandleTable<UserObject>> = OnceLock::new();
    TABLE.get_or_init(|| HandleTable::new(Kind::UserObject))
}

fn checked_count(count: u32) -> HipResult<u64> {
    if count == 0 || count > MAX_COUNT {
        return Err(Failure::invalid_value(format!(
            "a reference count of {count}: must be 1..={MAX_COUNT}"
        )));
    }
    Ok(u64::from(count))
}

fn object(handle: usize) -> HipResult<Arc<UserObject>> {
    table().get(handle).ok_or_else(|| {
        Failure::invalid_value(format!(
            "{handle:#x} is not a live user object (its last reference was released, or it \
             never was one)"
        ))
    })
}

impl UserObject {
    fn lock(&self) -> MutexGuard<'_, u64> {
        self.count.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// `hipUserObjectCreate`: an object holding `initial` references for the caller.
pub fn create(ptr: *mut c_void, destroy: Destructor, initial: u32) -> HipResult<usize> {
    let count = checked_count(initial)?;
    Ok(table().insert(Arc::new(UserObject {
        ptr: ptr as usize,
        destroy,
        count: Mutex::new(count),
    })))
}

/// Adds `count` references to the object `handle` names.
pub fn retain(handle: usize, count: u32) -> HipResult<()> {
    let add = checked_count(count)?;
    let o = object(handle)?;
    let mut held = o.lock();
    if *held == 0 {
        // Released to nothing by another thread meanwhile.
        return Err(Failure::invalid_value(format!(
            "{handle:#x} is not a live user object"
        )));
    }
    *held += add;
    Ok(())
}

/// Drops `count` references (more than are held drops them all, as HIP allows); the last one
/// runs the destructor.
pub fn release(handle: usize, count: u32) -> HipResult<()> {
    let drop_count = checked_count(count)?;
    let o = object(handle)?;
    let gone = {
        let mut held = o.lock();
        if *held == 0 {
            return Err(Failure::invalid_value(format!(
                "{handle:#x} is not a live user object"
            )));
        }
        *held = held.saturating_sub(drop_count);
        *held == 0
    };
    if gone {
        table().remove(handle);
        // SAFETY: the program's destructor with the program's pointer, called once.
        unsafe { (o.destroy)(o.ptr as *mut c_void) };
    }
    Ok(())
}

/// The references an owner inside the runtime holds (a graph): released when it is dropped.
#[derive(Debug, Default)]
pub struct OwnedReferences {
    held: Mutex<HashMap<usize, u32>>,
}

impl OwnedReferences {
    fn lock(&self) -> MutexGuard<'_, HashMap<usize, u32>> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `hipGraphRetainUserObject`: the owner takes `count` references; with `moved`
    /// (`hipGraphUserObjectMove`), the caller's own, else new ones.
    pub fn retain(&self, handle: usize, count: u32, moved: bool) -> HipResult<()> {
        checked_count(count)?;
        if moved {
            // The caller hands over references it holds: the object must be alive.
            object(handle)?;
        } else {
            retain(handle, count)?;
        }
        let mut held = self.lock();
        let entry = held.entry(handle).or_insert(0);
        *entry = entry.saturating_add(count);
        Ok(())
    }

    /// `hipGraphReleaseUserObject`: drops up to `count` of the owner's references.
    pub fn release(&self, handle: usize, count: u32) -> HipResult<()> {
        checked_count(count)?;
        let dropped = {
            let mut held = self.lock();
            let Some(have) = held.get_mut(&handle) else {
                return Err(Failure::invalid_value(format!(
                    "the graph holds no reference to user object {handle:#x}"
                )));
            };
            let dropped = count.min(*have);
            *have -= dropped;
            if *have == 0 {
                held.remove(&handle);
            }
            dropped
        };
        release(handle, dropped)
    }

    /// The same objects, a reference to each as many times as this owner holds it (a cloned or
    /// instantiated graph holds the resources its source does).
    pub fn duplicate(&self) -> HipResult<OwnedReferences> {
        let held = self.lock().clone();
        for (&handle, &count) in &held {
            retain(handle, count)?;
        }
        Ok(OwnedReferences {
            held: Mutex::new(held),
        })
    }

    /// How many references the owner holds to `handle`.
    #[cfg(test)]
    pub fn count(&self, handle: usize) -> u32 {
        self.lock().get(&handle).copied().unwrap_or(0)
    }
}

impl Drop for OwnedReferences {
    fn drop(&mut self) {
        let held = std::mem::take(self.held.get_mut().unwrap_or_else(|p| p.into_inner()));
        for (handle, count) in held {
            let _ = release(handle, count);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static DESTROYED: AtomicUsize = AtomicUsize::new(0);

    unsafe extern "C" fn count_destruction(p: *mut c_void) {
        DESTROYED.fetch_add(p as usize, Ordering::SeqCst);
    }

    #[test]
    fn the_last_reference_runs_the_destructor_once() {
        let before = DESTROYED.load(Ordering::SeqCst);
        let h = create(1000 as *mut c_void, count_destruction, 2).unwrap();
        retain(h, 1).unwrap();
        release(h, 2).unwrap();
        assert_eq!(DESTROYED.load(Ordering::SeqCst), before);
        // More than are held drops them all.
        release(h, 5).unwrap();
        assert_eq!(DESTROYED.load(Ordering::SeqCst), before + 1000);
        assert!(retain(h, 1).is_err() && release(h, 1).is_err());
        assert!(create(std::ptr::null_mut(), count_destruction, 0).is_err());
        assert!(create(std::ptr::null_mut(), count_destruction, u32::MAX).is_err());
    }

    #[test]
    fn owners_hold_references_until_dropped() {
        let before = DESTROYED.load(Ordering::SeqCst);
        let h = create(7 as *mut c_void, count_destruction, 1).unwrap();
        let graph = OwnedReferences::default();
        graph.retain(h, 2, false).unwrap();
        let clone = graph.duplicate().unwrap();
        assert_eq!(clone.count(h), 2);
        // The program's reference moved to the graph.
        graph.retain(h, 1, true).unwrap();
        assert_eq!(graph.count(h), 3);
        graph.release(h, 1).unwrap();
        assert!(graph.release(h + 16, 1).is_err());
        drop(graph);
        assert_eq!(DESTROYED.load(Ordering::SeqCst), before);
        drop(clone);
        assert_eq!(DESTROYED.load(Ordering::SeqCst), before + 7);
    }
}
