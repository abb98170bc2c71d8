//! Surface objects (`hipSurfaceObject_t`), host side: like a texture object, the device
//! address of a descriptor (`struct __hip_texture`'s layout, `texture::Descriptor`) of an
//! array's texels (base, row and slice pitch, extent, channel format), so device code could
//! read and write texels through it by byte offsets; there is no sampler state.

use std::collections::HashSet;
use std::ffi::c_void;
use std::sync::Mutex;

use crate::backend::{Device, FreeKind};
use crate::error::{Failure, HipError, HipResult};
use crate::handles::Kind;
use crate::texture::{self, ResourceDesc};

/// Live surface objects.
static SURFACES: Mutex<Option<HashSet<usize>>> = Mutex::new(None);

fn live<T>(f: impl FnOnce(&mut HashSet<usize>) -> T) -> T {
    let mut all = SURFACES.lock().unwrap_or_else(|p| p.into_inner());
    f(all.get_or_insert_with(HashSet::new))
}

/// `hipCreateSurfaceObject` over the array `res` names: a null handle is
/// `hipErrorInvalidHandle`, a freed one `hipErrorContextIsDestroyed`, as HIP answers them.
pub fn create(device: &dyn Device, res: &ResourceDesc) -> HipResult<usize> {
    let descriptor = texture::surface_descriptor(res).map_err(|f| {
        let handle = res.res[0] as usize;
        if f.code == HipError::InvalidHandle && Kind::Array.made(handle) {
            Failure::new(
                HipError::ContextIsDestroyed,
                format!("{handle:#x} is an array that was freed"),
            )
        } else {
            f
        }
    })?;
    let p = texture::upload(device, std::slice::from_ref(&descriptor))? as usize;
    live(|all| all.insert(p));
    Ok(p)
}

/// `hipDestroySurfaceObject`: null is a no-op; anything but a live surface object is
/// `hipErrorInvalidValue`.
pub fn destroy(device: &dyn Device, object: usize) -> HipResult<()> {
    if object == 0 {
        return Ok(());
    }
    if !live(|all| all.remove(&object)) {
        return Err(Failure::invalid_value(format!(
            "{object:#x} is not a live hipSurfaceObject_t"
        )));
    }
    device.free(object as *mut c_void, FreeKind::Device)
}
