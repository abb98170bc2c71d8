//! User objects: `hipUserObjectCreate`, `hipUserObjectRetain`, `hipUserObjectRelease` (see
//! `user_object`; graphs hold references through `user_object::OwnedReferences`).

use std::ffi::{c_uint, c_void};

use super::{guard, hipError_t, write_out};
use crate::error::Failure;
use crate::user_object::{self, Destructor};

/// `hipUserObject_t`: an opaque handle.
#[allow(non_camel_case_types)]
pub type hipUserObject_t = *mut c_void;

/// `hipUserObjectNoDestructorSync`, the one flag (and a required one, as in HIP and CUDA).
const NO_DESTRUCTOR_SYNC: c_uint = 1;

/// Creates a user object holding `initial` references (1..=`INT_MAX`) to `ptr` (which may be
/// null), destroyed by `destroy(ptr)` when the last is released. `flags` must be
/// `hipUserObjectNoDestructorSync`.
///
/// # Safety
/// `out` must be null or valid for writing a `hipUserObject_t`; `destroy` must be safe to call
/// with `ptr` once, from any thread.
#[no_mangle]
pub unsafe extern "C" fn hipUserObjectCreate(
    out: *mut hipUserObject_t,
    ptr: *mut c_void,
    destroy: Option<Destructor>,
    initial: c_uint,
    flags: c_uint,
) -> hipError_t {
    guard("hipUserObjectCreate", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the user object pointer is null"));
        }
        let destroy = destroy.ok_or_else(|| Failure::invalid_value("the destructor is null"))?;
        if flags != NO_DESTRUCTOR_SYNC {
            return Err(Failure::invalid_value(format!(
                "flags {flags:#x}: must be hipUserObjectNoDestructorSync"
            )));
        }
        let handle = user_object::create(ptr, destroy, initial)?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(out, handle as hipUserObject_t, "the user object pointer") }
    })
}

/// Adds `count` (1..=`INT_MAX`) references to the object.
#[no_mangle]
pub extern "C" fn hipUserObjectRetain(object: hipUserObject_t, count: c_uint) -> hipError_t {
    guard("hipUserObjectRetain", || {
        if object.is_null() {
            return Err(Failure::invalid_value("the user object is null"));
        }
        user_object::retain(object as usize, count)
    })
}

/// Drops `count` (1..=`INT_MAX`) references; the last runs the destructor. Dropping more than
/// are held drops them all, as HIP allows.
#[no_mangle]
pub extern "C" fn hipUserObjectRelease(object: hipUserObject_t, count: c_uint) -> hipError_t {
    guard("hipUserObjectRelease", || {
        if object.is_null() {
            return Err(Failure::invalid_value("the user object is null"));
        }
        user_object::release(object as usize, count)
    })
}
