//! Texture objects through the driver API (`hipTexObjectCreate`, `hipTexObjectDestroy` and
//! the `hipTexObjectGet*` queries), resource views of texture objects
//! (`hipGetTextureObjectResourceViewDesc`) and `hipDeviceGetTexture1DLinearMaxWidth`. The
//! driver descriptions are turned into the runtime's by `texture_driver`, and the one texture
//! object code (`texture`) makes the object; each query shows the descriptions in its API's
//! form, as given where they were given in that form.

use std::ffi::c_int;

use super::{current_device, device_at, guard, hipError_t, read_in, write_out};
use crate::arrays::{ChannelFormatDesc, Format};
use crate::error::Failure;
use crate::texture::{self, ResourceViewDesc};
use crate::texture_driver::{
    driver_resource, driver_texture, driver_view, resource_of, texture_of, view_of,
    DriverDescriptions, DrvResourceDesc, DrvResourceViewDesc, DrvTextureDesc,
};

/// Creates a texture object from the driver API's descriptions (the view may be null).
///
/// # Safety
/// `out` must be null or valid for writing; the descriptions null or valid for reading.
#[no_mangle]
pub unsafe extern "C" fn hipTexObjectCreate(
    out: *mut usize,
    res: *const DrvResourceDesc,
    tex: *const DrvTextureDesc,
    view: *const DrvResourceViewDesc,
) -> hipError_t {
    guard("hipTexObjectCreate", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the texture object pointer is null"));
        }
        // SAFETY: per the caller.
        let given = unsafe {
            DriverDescriptions {
                resource: read_in(res, "the resource description")?,
                texture: read_in(tex, "the texture description")?,
                view: (!view.is_null())
                    .then(|| read_in(view, "the resource view"))
                    .transpose()?,
            }
        };
        let resource = resource_of(&given.resource)?;
        let texture = texture_of(&given.texture, &resource)?;
        let view = given.view.as_ref().map(view_of);
        let object = texture::create_with(
            current_device()?,
            &resource,
            &texture,
            view.as_ref(),
            Some(given),
        )?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(out, object, "the texture object pointer") }
    })
}

/// Destroys a texture object (after the work queued before).
#[no_mangle]
pub extern "C" fn hipTexObjectDestroy(object: usize) -> hipError_t {
    guard("hipTexObjectDestroy", || {
        texture::destroy(current_device()?, object)
    })
}

/// The driver's resource description of a texture object.
///
/// # Safety
/// `out` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipTexObjectGetResourceDesc(
    out: *mut DrvResourceDesc,
    object: usize,
) -> hipError_t {
    guard("hipTexObjectGetResourceDesc", || {
        let o = texture::object(object)?;
        let desc = o
            .driver
            .map_or_else(|| driver_resource(&o.resource), |d| d.resource);
        // SAFETY: checked non-null by `write_out`; valid per the caller.
        unsafe { write_out(out, desc, "the resource description pointer") }
    })
}

/// The driver's texture description of a texture object.
///
/// # Safety
/// `out` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipTexObjectGetTextureDesc(
    out: *mut DrvTextureDesc,
    object: usize,
) -> hipError_t {
    guard("hipTexObjectGetTextureDesc", || {
        let o = texture::object(object)?;
        let desc = o
            .driver
            .map_or_else(|| driver_texture(&o.texture), |d| d.texture);
        // SAFETY: checked non-null by `write_out`; valid per the caller.
        unsafe { write_out(out, desc, "the texture description pointer") }
    })
}

/// The driver's resource view of a texture object (all zeros: made without one).
///
/// # Safety
/// `out` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipTexObjectGetResourceViewDesc(
    out: *mut DrvResourceViewDesc,
    object: usize,
) -> hipError_t {
    guard("hipTexObjectGetResourceViewDesc", || {
        let o = texture::object(object)?;
        let desc = match o.driver {
            Some(d) => d.view.unwrap_or_default(),
            None => o.view.as_ref().map(driver_view).unwrap_or_default(),
        };
        // SAFETY: checked non-null by `write_out`; valid per the caller.
        unsafe { write_out(out, desc, "the resource view pointer") }
    })
}

/// The resource view a texture object was created with (all zeros: none).
///
/// # Safety
/// `out` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipGetTextureObjectResourceViewDesc(
    out: *mut ResourceViewDesc,
    object: usize,
) -> hipError_t {
    guard("hipGetTextureObjectResourceViewDesc", || {
        let o = texture::object(object)?;
        let view = o.view.unwrap_or_default();
        // SAFETY: checked non-null by `write_out`; valid per the caller.
        unsafe { write_out(out, view, "the resource view pointer") }
    })
}

/// The most texels of `format` a 1-D linear texture of `device` holds: texture objects read
/// linear memory in software on both backends, so the limit is the texels the device's memory
/// holds, up to the 32-bit width a texture object records.
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetTexture1DLinearMaxWidth(
    max_width: *mut usize,
    format: *const ChannelFormatDesc,
    device: c_int,
) -> hipError_t {
    guard("hipDeviceGetTexture1DLinearMaxWidth", || {
        if max_width.is_null() {
            return Err(Failure::invalid_value("the width pointer is null"));
        }
        // SAFETY: per the caller.
        let format = Format::from_desc(&unsafe { read_in(format, "the channel format") }?)?;
        let memory = device_at(device)?.properties().totalGlobalMem;
        let texels = (memory / format.texel_bytes()).min(crate::arrays::MAX_LINEAR_TEXELS);
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(max_width, texels, "the width pointer") }
    })
}
