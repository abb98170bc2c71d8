//! Surface objects, host side: `hipCreateSurfaceObject` and `hipDestroySurfaceObject` (see
//! `surface`).

use super::{current_device, guard, hipError_t, read_in, write_out};
use crate::error::Failure;
use crate::surface;
use crate::texture::ResourceDesc;

/// Creates a surface object over an array (`hipResourceTypeArray`).
///
/// # Safety
/// `out` must be null or valid for writing; `res` null or valid for reading.
#[no_mangle]
pub unsafe extern "C" fn hipCreateSurfaceObject(
    out: *mut usize,
    res: *const ResourceDesc,
) -> hipError_t {
    guard("hipCreateSurfaceObject", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the surface object pointer is null"));
        }
        // SAFETY: per the caller.
        let res = unsafe { read_in(res, "the resource description") }?;
        let object = surface::create(current_device()?, &res)?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(out, object, "the surface object pointer") }
    })
}

/// Destroys a surface object (after the work queued before); null is a no-op.
#[no_mangle]
pub extern "C" fn hipDestroySurfaceObject(object: usize) -> hipError_t {
    guard("hipDestroySurfaceObject", || {
        surface::destroy(current_device()?, object)
    })
}
