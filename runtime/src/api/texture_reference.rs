//! The legacy texture reference API: its state (`hipTexRefGet*`/`hipTexRefSet*`, the fields of
//! the program's own `textureReference` set and read back with HIP's argument checks, as ROCm
//! does) and its binding (`hipBindTexture*`, `hipTexRefSetAddress*`/`Array`, `hipUnbindTexture`),
//! which `texture_reference` does.

use std::ffi::{c_int, c_uint, c_void};

use super::{current_device, guard, hipError_t, write_out};
use crate::arrays::{desc_of_driver_format, ArrayDescriptor, ChannelFormatDesc};
use crate::backend::Device;
use crate::error::{Failure, HipError, HipResult};
use crate::texture::ResourceDesc;
use crate::texture_driver::{NORMALIZED_COORDINATES, READ_AS_INTEGER, SRGB};
use crate::texture_reference::{self as refs};
// The layout of HIP's `textureReference`, for the runtime's users (its tests among them).
pub use crate::texture_reference::TextureReference;

/// `hipReadModeElementType`, `hipReadModeNormalizedFloat`.
const READ_ELEMENT: c_int = 0;
const READ_NORMALIZED_FLOAT: c_int = 1;
/// `hipTextureFilterMode`: point, linear.
const FILTER_MODES: [c_int; 2] = [0, 1];
/// `hipTextureAddressMode`: wrap, clamp, mirror, border.
const ADDRESS_MODES: [c_int; 4] = [0, 1, 2, 3];

/// The reference behind `p`, checked for null.
///
/// # Safety
/// `p` is null or points to a `textureReference` the caller owns.
unsafe fn reference<'a>(p: *const TextureReference) -> HipResult<&'a TextureReference> {
    // SAFETY: per the caller.
    unsafe { p.as_ref() }.ok_or_else(|| Failure::invalid_value("the texture reference is null"))
}

/// # Safety
/// As [`reference`], and no one else uses it during the call.
unsafe fn reference_mut<'a>(p: *mut TextureReference) -> HipResult<&'a mut TextureReference> {
    // SAFETY: per the caller.
    unsafe { p.as_mut() }.ok_or_else(|| Failure::invalid_value("the texture reference is null"))
}

fn filter_mode(mode: c_int) -> HipResult<c_int> {
    if FILTER_MODES.contains(&mode) {
        Ok(mode)
    } else {
        Err(Failure::invalid_value(format!(
            "{mode} is not a hipTextureFilterMode"
        )))
    }
}

fn dimension(dim: c_int) -> HipResult<usize> {
    usize::try_from(dim)
        .ok()
        .filter(|&d| d < 3)
        .ok_or_else(|| Failure::invalid_value(format!("dimension {dim}: a texture has 0, 1 or 2")))
}

/// Reads one field of a texture reference into `out`.
macro_rules! getter {
    ($($name:ident($out:ident: $ty:ty) => |$t:ident| $value:expr;)*) => {$(
        /// # Safety
        /// `out` and `tex` are null or valid.
        #[no_mangle]
        pub unsafe extern "C" fn $name($out: *mut $ty, tex: *const TextureReference) -> hipError_t {
            guard(stringify!($name), || {
                // SAFETY: per the caller.
                let $t = unsafe { reference(tex) }?;
                // SAFETY: per the caller.
                unsafe { write_out($out, $value, stringify!($out)) }
            })
        }
    )*};
}

getter! {
    hipTexRefGetFilterMode(mode: c_int) => |t| t.filter_mode;
    hipTexRefGetMipmapFilterMode(mode: c_int) => |t| t.mipmap_filter_mode;
    hipTexRefGetMaxAnisotropy(anisotropy: c_int) => |t| t.max_anisotropy as c_int;
    hipTexRefGetMipmapLevelBias(bias: f32) => |t| t.mipmap_level_bias;
    hipTexRefGetFlags(flags: c_uint) => |t| {
        let mut flags = 0;
        if t.read_mode == READ_ELEMENT {
            flags |= READ_AS_INTEGER;
        }
        if t.normalized != 0 {
            flags |= NORMALIZED_COORDINATES;
        }
        if t.srgb != 0 {
            flags |= SRGB;
        }
        flags
    };
}

/// # Safety
/// `mode` and `tex` are null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipTexRefGetAddressMode(
    mode: *mut c_int,
    tex: *const TextureReference,
    dim: c_int,
) -> hipError_t {
    guard("hipTexRefGetAddressMode", || {
        // SAFETY: per the caller.
        let t = unsafe { reference(tex) }?;
        let value = t.address_mode[dimension(dim)?];
        // SAFETY: per the caller.
        unsafe { write_out(mode, value, "mode") }
    })
}

/// # Safety
/// Every pointer is null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipTexRefGetFormat(
    format: *mut c_int,
    channels: *mut c_int,
    tex: *const TextureReference,
) -> hipError_t {
    guard("hipTexRefGetFormat", || {
        // SAFETY: per the caller.
        let t = unsafe { reference(tex) }?;
        if channels.is_null() {
            return Err(Failure::invalid_value("the channel count pointer is null"));
        }
        // SAFETY: per the caller.
        unsafe { write_out(format, t.format, "format") }?;
        // SAFETY: checked above; per the caller.
        unsafe { write_out(channels, t.num_channels, "channels") }
    })
}

/// # Safety
/// Every pointer is null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipTexRefGetMipmapLevelClamp(
    min: *mut f32,
    max: *mut f32,
    tex: *const TextureReference,
) -> hipError_t {
    guard("hipTexRefGetMipmapLevelClamp", || {
        // SAFETY: per the caller.
        let t = unsafe { reference(tex) }?;
        if max.is_null() {
            return Err(Failure::invalid_value("the maximum clamp pointer is null"));
        }
        // SAFETY: per the caller.
        unsafe { write_out(min, t.min_mipmap_level_clamp, "min") }?;
        // SAFETY: checked above; per the caller.
        unsafe { write_out(max, t.max_mipmap_level_clamp, "max") }
    })
}

/// Sets fields of a texture reference from checked arguments.
macro_rules! setter {
    ($($name:ident($($arg:ident: $ty:ty),*) => |$t:ident| $body:block)*) => {$(
        /// # Safety
        /// `tex` is null or a texture reference the caller owns.
        #[no_mangle]
        pub unsafe extern "C" fn $name(tex: *mut TextureReference, $($arg: $ty),*) -> hipError_t {
            guard(stringify!($name), || {
                // SAFETY: per the caller.
                let $t = unsafe { reference_mut(tex) }?;
                $body
                Ok(())
            })
        }
    )*};
}

setter! {
    hipTexRefSetFilterMode(mode: c_int) => |t| {
        t.filter_mode = filter_mode(mode)?;
    }
    hipTexRefSetMipmapFilterMode(mode: c_int) => |t| {
        t.mipmap_filter_mode = filter_mode(mode)?;
    }
    hipTexRefSetMaxAnisotropy(anisotropy: c_uint) => |t| {
        t.max_anisotropy = anisotropy;
    }
    hipTexRefSetMipmapLevelBias(bias: f32) => |t| {
        t.mipmap_level_bias = bias;
    }
    hipTexRefSetMipmapLevelClamp(min: f32, max: f32) => |t| {
        t.min_mipmap_level_clamp = min;
        t.max_mipmap_level_clamp = max;
    }
    hipTexRefSetAddressMode(dim: c_int, mode: c_int) => |t| {
        if !ADDRESS_MODES.contains(&mode) {
            return Err(Failure::invalid_value(format!(
                "{mode} is not a hipTextureAddressMode"
            )));
        }
        t.address_mode[dimension(dim)?] = mode;
    }
    hipTexRefSetFlags(flags: c_uint) => |t| {
        let known = READ_AS_INTEGER | NORMALIZED_COORDINATES | SRGB;
        if flags & !known != 0 {
            return Err(Failure::invalid_value(format!(
                "texture flags {flags:#x}: HIP_TRSF_READ_AS_INTEGER (1), \
                 NORMALIZED_COORDINATES (2) and SRGB (0x10) are the flags"
            )));
        }
        t.read_mode = if flags & READ_AS_INTEGER != 0 {
            READ_ELEMENT
        } else {
            READ_NORMALIZED_FLOAT
        };
        t.normalized = c_int::from(flags & NORMALIZED_COORDINATES != 0);
        t.srgb = c_int::from(flags & SRGB != 0);
    }
    hipTexRefSetFormat(format: c_int, channels: c_int) => |t| {
        let desc = desc_of_driver_format(format as u32, channels as u32)?;
        t.format = format;
        t.num_channels = channels;
        t.channel_desc = desc;
    }
}

// ---- binding ----

/// The reference a bind names, checked for null (binding writes its `textureObject`, whatever
/// the C signature's `const`: the program's reference is its own, as in ROCm).
fn bindable(tex: *const TextureReference) -> HipResult<*mut TextureReference> {
    if tex.is_null() {
        return Err(Failure::invalid_value("the texture reference is null"));
    }
    Ok(tex.cast_mut())
}

/// The format a bind reads texels as, checked for null.
///
/// # Safety
/// `desc` is null or valid.
unsafe fn format<'a>(desc: *const ChannelFormatDesc) -> HipResult<&'a ChannelFormatDesc> {
    // SAFETY: per the caller.
    unsafe { desc.as_ref() }.ok_or_else(|| Failure::invalid_value("the channel format is null"))
}

/// Where a bind of the device memory at `pointer` starts: the texture-aligned address at or below
/// it and the byte offset reads must add, as CUDA binds; with `size`, the bytes of the
/// allocation from there on that the texture may read (hipBindTexture's default size is
/// UINT_MAX: the rest of the allocation). An offset with nowhere to go (`offset` null) is
/// `hipErrorInvalidValue`, as in CUDA.
///
/// # Safety
/// `offset` is null or valid.
unsafe fn bind_start(
    device: &dyn Device,
    pointer: *const c_void,
    size: usize,
    offset: *mut usize,
) -> HipResult<(usize, usize, usize)> {
    if pointer.is_null() {
        return Err(Failure::invalid_value("the device pointer is null"));
    }
    let a = super::pointer::allocation_of(pointer, HipError::InvalidValue, "a texture's memory")?;
    let alignment = device.properties().textureAlignment.max(1);
    let address = pointer as usize;
    let base = (address - address % alignment).max(a.base);
    let shift = address - base;
    if shift != 0 && offset.is_null() {
        return Err(Failure::invalid_value(format!(
            "{pointer:p} is not texture-aligned ({alignment} bytes): the bind returns the offset \
             to add to fetches, and the offset pointer is null"
        )));
    }
    if !offset.is_null() {
        // SAFETY: non-null; valid per the caller.
        unsafe { write_out(offset, shift, "the offset") }?;
    }
    let size = size.min(a.base + a.size - address) + shift;
    Ok((base, shift, size))
}

/// # Safety
/// Every pointer is null or valid; `tex` is the program's reference.
#[no_mangle]
pub unsafe extern "C" fn hipBindTexture(
    offset: *mut usize,
    tex: *const TextureReference,
    pointer: *const c_void,
    desc: *const ChannelFormatDesc,
    size: usize,
) -> hipError_t {
    guard("hipBindTexture", || {
        let r = bindable(tex)?;
        // SAFETY: per the caller.
        let desc = unsafe { format(desc) }?;
        let device = current_device()?;
        // SAFETY: per the caller.
        let (base, shift, size) = unsafe { bind_start(device, pointer, size, offset) }?;
        let resource = ResourceDesc::linear(base, *desc, size);
        // SAFETY: per the caller.
        unsafe { refs::bind(device, r, &resource, shift) }
    })
}

/// # Safety
/// Every pointer is null or valid; `tex` is the program's reference.
#[no_mangle]
pub unsafe extern "C" fn hipBindTexture2D(
    offset: *mut usize,
    tex: *const TextureReference,
    pointer: *const c_void,
    desc: *const ChannelFormatDesc,
    width: usize,
    height: usize,
    pitch: usize,
) -> hipError_t {
    guard("hipBindTexture2D", || {
        let r = bindable(tex)?;
        // SAFETY: per the caller.
        let desc = unsafe { format(desc) }?;
        let device = current_device()?;
        // SAFETY: per the caller.
        let (base, shift, _) = unsafe { bind_start(device, pointer, 0, offset) }?;
        let resource = ResourceDesc::pitch_2d(base, *desc, width, height, pitch);
        // SAFETY: per the caller.
        unsafe { refs::bind(device, r, &resource, shift) }
    })
}

/// Binds an array, read in its own format: a `desc` naming another (a reinterpreting view) is
/// not supported, as for texture objects.
///
/// # Safety
/// Every pointer is null or valid; `tex` is the program's reference.
#[no_mangle]
pub unsafe extern "C" fn hipBindTextureToArray(
    tex: *const TextureReference,
    array: *const c_void,
    desc: *const ChannelFormatDesc,
) -> hipError_t {
    guard("hipBindTextureToArray", || {
        let r = bindable(tex)?;
        // SAFETY: per the caller.
        let desc = unsafe { format(desc) }?;
        let own = crate::arrays::get(array as usize)?.format;
        if crate::arrays::Format::from_desc(desc)? != own {
            return Err(Failure::new(
                HipError::NotSupported,
                "not supported by hipmlir: binding an array to a texture reference of another \
                 texel format (reinterpreting its texels)",
            ));
        }
        // SAFETY: per the caller.
        unsafe {
            refs::bind(
                current_device()?,
                r,
                &ResourceDesc::array(array as usize),
                0,
            )
        }
    })
}

/// # Safety
/// Every pointer is null or valid; `tex` is the program's reference.
#[no_mangle]
pub unsafe extern "C" fn hipBindTextureToMipmappedArray(
    tex: *const TextureReference,
    array: *const c_void,
    desc: *const ChannelFormatDesc,
) -> hipError_t {
    guard("hipBindTextureToMipmappedArray", || {
        let r = bindable(tex)?;
        // SAFETY: per the caller.
        unsafe { format(desc) }?;
        let resource = ResourceDesc::mipmapped_array(array as usize);
        // SAFETY: per the caller.
        unsafe { refs::bind(current_device()?, r, &resource, 0) }
    })
}

/// # Safety
/// `tex` is null or the program's reference.
#[no_mangle]
pub unsafe extern "C" fn hipUnbindTexture(tex: *const TextureReference) -> hipError_t {
    guard("hipUnbindTexture", || {
        let r = bindable(tex)?;
        // SAFETY: per the caller.
        unsafe { refs::unbind(current_device()?, r) }
    })
}

/// The byte offset the reference's last bind returned (see `bind_start`).
///
/// # Safety
/// Every pointer is null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipGetTextureAlignmentOffset(
    offset: *mut usize,
    tex: *const TextureReference,
) -> hipError_t {
    guard("hipGetTextureAlignmentOffset", || {
        let r = bindable(tex)?;
        // SAFETY: per the caller.
        unsafe { write_out(offset, refs::alignment_offset(r), "the offset") }
    })
}

/// The reference of a texture variable: its shadow, as in ROCm.
///
/// # Safety
/// `out` is null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipGetTextureReference(
    out: *mut *const TextureReference,
    symbol: *const c_void,
) -> hipError_t {
    guard("hipGetTextureReference", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the reference pointer is null"));
        }
        crate::symbols::find(symbol)?;
        // SAFETY: non-null; valid per the caller.
        unsafe { write_out(out, symbol.cast(), "the reference pointer") }
    })
}

/// Binds linear memory, read in the format `hipTexRefSetFormat` set.
///
/// # Safety
/// Every pointer is null or valid; `tex` is a reference of the program's or the runtime's.
#[no_mangle]
pub unsafe extern "C" fn hipTexRefSetAddress(
    offset: *mut usize,
    tex: *mut TextureReference,
    pointer: *mut c_void,
    bytes: usize,
) -> hipError_t {
    guard("hipTexRefSetAddress", || {
        // SAFETY: per the caller.
        let desc = unsafe { reference(tex) }?.channel_desc;
        let device = current_device()?;
        // SAFETY: per the caller.
        let (base, shift, size) = unsafe { bind_start(device, pointer, bytes, offset) }?;
        let resource = ResourceDesc::linear(base, desc, size);
        // SAFETY: per the caller.
        unsafe { refs::bind(device, tex, &resource, shift) }
    })
}

/// # Safety
/// Every pointer is null or valid; `tex` is a reference of the program's or the runtime's.
#[no_mangle]
pub unsafe extern "C" fn hipTexRefSetAddress2D(
    tex: *mut TextureReference,
    desc: *const ArrayDescriptor,
    pointer: *mut c_void,
    pitch: usize,
) -> hipError_t {
    guard("hipTexRefSetAddress2D", || {
        bindable(tex)?;
        // SAFETY: per the caller.
        let d = unsafe { desc.as_ref() }
            .ok_or_else(|| Failure::invalid_value("the array descriptor is null"))?;
        let format = desc_of_driver_format(d.Format, d.NumChannels)?;
        let device = current_device()?;
        // The driver API returns no offset here: the memory must be aligned.
        // SAFETY: a null offset pointer.
        unsafe { bind_start(device, pointer, 0, std::ptr::null_mut()) }?;
        let resource = ResourceDesc::pitch_2d(pointer as usize, format, d.Width, d.Height, pitch);
        // SAFETY: per the caller.
        unsafe { refs::bind(device, tex, &resource, 0) }
    })
}

/// `HIP_TRSA_OVERRIDE_FORMAT`: the only flag of hipTexRefSetArray.
const OVERRIDE_FORMAT: c_uint = 0x1;

/// Binds an array, read in its own format.
///
/// # Safety
/// `tex` is null or a reference of the program's or the runtime's.
#[no_mangle]
pub unsafe extern "C" fn hipTexRefSetArray(
    tex: *mut TextureReference,
    array: *const c_void,
    flags: c_uint,
) -> hipError_t {
    guard("hipTexRefSetArray", || {
        bindable(tex)?;
        if flags & !OVERRIDE_FORMAT != 0 {
            return Err(Failure::invalid_value(format!(
                "flags {flags:#x}: HIP_TRSA_OVERRIDE_FORMAT (1) is the only flag"
            )));
        }
        // SAFETY: per the caller.
        unsafe {
            refs::bind(
                current_device()?,
                tex,
                &ResourceDesc::array(array as usize),
                0,
            )
        }
    })
}

/// # Safety
/// `tex` is null or a reference of the program's or the runtime's.
#[no_mangle]
pub unsafe extern "C" fn hipTexRefSetMipmappedArray(
    tex: *mut TextureReference,
    array: *mut c_void,
    flags: c_uint,
) -> hipError_t {
    guard("hipTexRefSetMipmappedArray", || {
        bindable(tex)?;
        if flags & !OVERRIDE_FORMAT != 0 {
            return Err(Failure::invalid_value(format!(
                "flags {flags:#x}: HIP_TRSA_OVERRIDE_FORMAT (1) is the only flag"
            )));
        }
        let resource = ResourceDesc::mipmapped_array(array as usize);
        // SAFETY: per the caller.
        unsafe { refs::bind(current_device()?, tex, &resource, 0) }
    })
}

/// Reads what a bound reference reads from.
macro_rules! bound_getter {
    ($($name:ident($out:ident: $ty:ty) => |$res:ident| $value:expr, $what:literal;)*) => {$(
        /// # Safety
        /// `out` and `tex` are null or valid.
        #[no_mangle]
        pub unsafe extern "C" fn $name($out: *mut $ty, tex: *const TextureReference) -> hipError_t {
            guard(stringify!($name), || {
                // SAFETY: per the caller.
                let $res = unsafe { refs::bound_resource(tex) }?;
                let value = $value.ok_or_else(|| {
                    Failure::invalid_value(concat!("the texture reference is not bound to ", $what))
                })?;
                // SAFETY: per the caller.
                unsafe { write_out($out, value as $ty, stringify!($out)) }
            })
        }
    )*};
}

bound_getter! {
    hipTexRefGetAddress(pointer: *mut c_void) => |r| r.device_pointer(), "memory";
    hipTexRefGetArray(array: *mut c_void) => |r| r.array_handle(), "an array";
    hipTexRefGetMipMappedArray(array: *mut c_void) => |r| r.mipmapped_array_handle(),
        "a mipmapped array";
}
