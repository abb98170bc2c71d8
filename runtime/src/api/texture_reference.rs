//! The legacy texture reference's state (`hipTexRefGet*`/`hipTexRefSet*`): the fields of the
//! program's own `textureReference`, set and read back with HIP's argument checks, as ROCm does
//! (a texture reference is host state until bound). Binding one to memory is refused
//! (`unsupported.rs`): hipmlir compiles no texture references in device code, so a bound
//! reference could never be read.

use std::ffi::{c_int, c_uint};

use super::{guard, hipError_t, write_out};
use crate::arrays::{desc_of_driver_format, ChannelFormatDesc};
use crate::error::{Failure, HipResult};

/// HIP's `textureReference` (texture_types.h).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct TextureReference {
    normalized: c_int,
    read_mode: c_int,
    filter_mode: c_int,
    address_mode: [c_int; 3],
    channel_desc: ChannelFormatDesc,
    srgb: c_int,
    max_anisotropy: c_uint,
    mipmap_filter_mode: c_int,
    mipmap_level_bias: f32,
    min_mipmap_level_clamp: f32,
    max_mipmap_level_clamp: f32,
    texture_object: usize,
    num_channels: c_int,
    format: c_int,
}

/// `HIP_TRSF_READ_AS_INTEGER`, `HIP_TRSF_NORMALIZED_COORDINATES`, `HIP_TRSF_SRGB`.
const READ_AS_INTEGER: c_uint = 0x1;
const NORMALIZED_COORDINATES: c_uint = 0x2;
const SRGB: c_uint = 0x10;
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
