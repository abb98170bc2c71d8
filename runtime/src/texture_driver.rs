//! The driver API's texture descriptions (`HIP_RESOURCE_DESC`, `HIP_TEXTURE_DESC`,
//! `HIP_RESOURCE_VIEW_DESC` of `hipTexObjectCreate`) and the runtime's (`hipResourceDesc`,
//! `hipTextureDesc`, `hipResourceViewDesc`): one texture object code (`texture`) serves both.
//! Each driver description is turned into the runtime's once; a texture object keeps the
//! descriptions it was given so the queries of either API show them back.

use crate::arrays::{self, desc_of_driver_format, ChannelFormatDesc, Format, KIND_FLOAT};
use crate::error::{Failure, HipResult};
use crate::texture::{ResourceDesc, ResourceViewDesc, TextureDesc};

/// `HIPresourcetype`: the same numbers as `hipResourceType`.
const RESOURCE_ARRAY: i32 = 0;
const RESOURCE_MIPMAPPED_ARRAY: i32 = 1;
const RESOURCE_LINEAR: i32 = 2;
const RESOURCE_PITCH_2D: i32 = 3;

/// `HIP_TRSF_READ_AS_INTEGER`, `HIP_TRSF_NORMALIZED_COORDINATES`, `HIP_TRSF_SRGB`.
pub(crate) const READ_AS_INTEGER: u32 = 0x1;
pub(crate) const NORMALIZED_COORDINATES: u32 = 0x2;
pub(crate) const SRGB: u32 = 0x10;

/// `hipReadModeElementType`, `hipReadModeNormalizedFloat`.
const READ_ELEMENT: i32 = 0;
const READ_NORMALIZED_FLOAT: i32 = 1;

/// HIP's `HIP_RESOURCE_DESC`: the type, a union of the kinds (128 bytes), flags (0).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct DrvResourceDesc {
    pub res_type: i32,
    pub res: [u64; 16],
    pub flags: u32,
}

/// The union's `linear` member.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct DrvLinear {
    dev_ptr: usize,
    format: u32,
    channels: u32,
    size_in_bytes: usize,
}

/// The union's `pitch2D` member.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct DrvPitch2d {
    dev_ptr: usize,
    format: u32,
    channels: u32,
    width: usize,
    height: usize,
    pitch_in_bytes: usize,
}

/// The runtime's union members (`hipResourceDesc`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct Linear {
    dev_ptr: usize,
    desc: ChannelFormatDesc,
    size_in_bytes: usize,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct Pitch2d {
    dev_ptr: usize,
    desc: ChannelFormatDesc,
    width: usize,
    height: usize,
    pitch_in_bytes: usize,
}

/// Reads a union (of `words` 8-byte words) as member `T`.
fn member<T: Copy, const N: usize>(words: &[u64; N]) -> T {
    assert!(std::mem::size_of::<T>() <= N * 8);
    // SAFETY: `words` holds N * 8 bytes, 8-aligned; T is a plain-data member that fits.
    unsafe { words.as_ptr().cast::<T>().read() }
}

/// Writes member `T` into a union of `words` 8-byte words.
fn with_member<T: Copy, const N: usize>(value: T) -> [u64; N] {
    assert!(std::mem::size_of::<T>() <= N * 8);
    let mut words = [0u64; N];
    // SAFETY: as in `member`.
    unsafe { words.as_mut_ptr().cast::<T>().write(value) };
    words
}

/// HIP's `HIP_TEXTURE_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct DrvTextureDesc {
    pub address_mode: [i32; 3],
    pub filter_mode: i32,
    pub flags: u32,
    pub max_anisotropy: u32,
    pub mipmap_filter_mode: i32,
    pub mipmap_level_bias: f32,
    pub min_mipmap_level_clamp: f32,
    pub max_mipmap_level_clamp: f32,
    pub border_color: [f32; 4],
    pub reserved: [i32; 12],
}

/// HIP's `HIP_RESOURCE_VIEW_DESC` (its formats are `hipResourceViewFormat`'s numbers).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct DrvResourceViewDesc {
    pub format: i32,
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub first_mipmap_level: u32,
    pub last_mipmap_level: u32,
    pub first_layer: u32,
    pub last_layer: u32,
    pub reserved: [u32; 16],
}

/// What `hipTexObjectCreate` was given, shown back by the `hipTexObjectGet*` queries.
#[derive(Debug, Clone, Copy)]
pub struct DriverDescriptions {
    pub resource: DrvResourceDesc,
    pub texture: DrvTextureDesc,
    pub view: Option<DrvResourceViewDesc>,
}

/// The runtime's resource description of a driver one.
pub fn resource_of(d: &DrvResourceDesc) -> HipResult<ResourceDesc> {
    if d.flags != 0 {
        return Err(Failure::invalid_value(format!(
            "resource flags {:#x}: must be 0",
            d.flags
        )));
    }
    let res = match d.res_type {
        RESOURCE_ARRAY | RESOURCE_MIPMAPPED_ARRAY => {
            with_member::<usize, 7>(member::<usize, 16>(&d.res))
        }
        RESOURCE_LINEAR => {
            let l: DrvLinear = member(&d.res);
            with_member(Linear {
                dev_ptr: l.dev_ptr,
                desc: desc_of_driver_format(l.format, l.channels)?,
                size_in_bytes: l.size_in_bytes,
            })
        }
        RESOURCE_PITCH_2D => {
            let p: DrvPitch2d = member(&d.res);
            with_member(Pitch2d {
                dev_ptr: p.dev_ptr,
                desc: desc_of_driver_format(p.format, p.channels)?,
                width: p.width,
                height: p.height,
                pitch_in_bytes: p.pitch_in_bytes,
            })
        }
        other => {
            return Err(Failure::invalid_value(format!(
                "{other} is not a HIPresourcetype"
            )))
        }
    };
    Ok(ResourceDesc {
        res_type: d.res_type,
        res,
    })
}

/// The driver's resource description of a runtime one (for a texture object made by
/// `hipCreateTextureObject` and queried through the driver API).
pub fn driver_resource(r: &ResourceDesc) -> DrvResourceDesc {
    let driver_format = |desc: &ChannelFormatDesc| {
        Format::from_desc(desc).map_or((0, 0), |f| (f.driver_format(), f.channels))
    };
    let res = match r.res_type {
        RESOURCE_LINEAR => {
            let l: Linear = member(&r.res);
            let (format, channels) = driver_format(&l.desc);
            with_member(DrvLinear {
                dev_ptr: l.dev_ptr,
                format,
                channels,
                size_in_bytes: l.size_in_bytes,
            })
        }
        RESOURCE_PITCH_2D => {
            let p: Pitch2d = member(&r.res);
            let (format, channels) = driver_format(&p.desc);
            with_member(DrvPitch2d {
                dev_ptr: p.dev_ptr,
                format,
                channels,
                width: p.width,
                height: p.height,
                pitch_in_bytes: p.pitch_in_bytes,
            })
        }
        _ => with_member::<usize, 16>(member::<usize, 7>(&r.res)),
    };
    DrvResourceDesc {
        res_type: r.res_type,
        res,
        flags: 0,
    }
}

/// The texel format of a runtime resource description, where it names one.
fn format_of(r: &ResourceDesc) -> Option<Format> {
    match r.res_type {
        RESOURCE_ARRAY => arrays::get(member::<usize, 7>(&r.res))
            .ok()
            .map(|a| a.format),
        RESOURCE_LINEAR => Format::from_desc(&member::<Linear, 7>(&r.res).desc).ok(),
        RESOURCE_PITCH_2D => Format::from_desc(&member::<Pitch2d, 7>(&r.res).desc).ok(),
        _ => None,
    }
}

/// The runtime's texture description of a driver one over `resource`: integers are read as
/// normalized floats unless `HIP_TRSF_READ_AS_INTEGER` says otherwise (32-bit integers, which
/// have no normalized form, as integers).
pub fn texture_of(d: &DrvTextureDesc, resource: &ResourceDesc) -> HipResult<TextureDesc> {
    let known = READ_AS_INTEGER | NORMALIZED_COORDINATES | SRGB;
    if d.flags & !known != 0 {
        return Err(Failure::invalid_value(format!(
            "texture flags {:#x}: HIP_TRSF_READ_AS_INTEGER (1), NORMALIZED_COORDINATES (2) and \
             SRGB (0x10)",
            d.flags
        )));
    }
    let promotes = format_of(resource).is_some_and(|f| f.kind != KIND_FLOAT && f.channel_bytes < 4);
    let read_mode = if d.flags & READ_AS_INTEGER == 0 && promotes {
        READ_NORMALIZED_FLOAT
    } else {
        READ_ELEMENT
    };
    Ok(TextureDesc {
        address_mode: d.address_mode,
        filter_mode: d.filter_mode,
        read_mode,
        srgb: i32::from(d.flags & SRGB != 0),
        border_color: d.border_color,
        normalized_coords: i32::from(d.flags & NORMALIZED_COORDINATES != 0),
        max_anisotropy: d.max_anisotropy,
        mipmap_filter_mode: d.mipmap_filter_mode,
        mipmap_level_bias: d.mipmap_level_bias,
        min_mipmap_level_clamp: d.min_mipmap_level_clamp,
        max_mipmap_level_clamp: d.max_mipmap_level_clamp,
    })
}

/// The driver's texture description of a runtime one.
pub fn driver_texture(t: &TextureDesc) -> DrvTextureDesc {
    let flag = |on: bool, bit: u32| if on { bit } else { 0 };
    DrvTextureDesc {
        address_mode: t.address_mode,
        filter_mode: t.filter_mode,
        flags: flag(t.read_mode == READ_ELEMENT, READ_AS_INTEGER)
            | flag(t.normalized_coords != 0, NORMALIZED_COORDINATES)
            | flag(t.srgb != 0, SRGB),
        max_anisotropy: t.max_anisotropy,
        mipmap_filter_mode: t.mipmap_filter_mode,
        mipmap_level_bias: t.mipmap_level_bias,
        min_mipmap_level_clamp: t.min_mipmap_level_clamp,
        max_mipmap_level_clamp: t.max_mipmap_level_clamp,
        border_color: t.border_color,
        reserved: [0; 12],
    }
}

/// The runtime's resource view of a driver one (the formats share their numbers).
pub fn view_of(v: &DrvResourceViewDesc) -> ResourceViewDesc {
    ResourceViewDesc {
        format: v.format,
        width: v.width,
        height: v.height,
        depth: v.depth,
        first_mipmap_level: v.first_mipmap_level,
        last_mipmap_level: v.last_mipmap_level,
        first_layer: v.first_layer,
        last_layer: v.last_layer,
    }
}

/// The driver's resource view of a runtime one.
pub fn driver_view(v: &ResourceViewDesc) -> DrvResourceViewDesc {
    DrvResourceViewDesc {
        format: v.format,
        width: v.width,
        height: v.height,
        depth: v.depth,
        first_mipmap_level: v.first_mipmap_level,
        last_mipmap_level: v.last_mipmap_level,
        first_layer: v.first_layer,
        last_layer: v.last_layer,
        reserved: [0; 16],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn layouts_match_the_headers() {
        assert_eq!(size_of::<DrvResourceDesc>(), 144);
        assert_eq!(offset_of!(DrvResourceDesc, flags), 136);
        assert_eq!(offset_of!(DrvLinear, size_in_bytes), 16);
        assert_eq!(offset_of!(DrvPitch2d, pitch_in_bytes), 32);
        assert_eq!(size_of::<DrvTextureDesc>(), 104);
        assert_eq!(offset_of!(DrvTextureDesc, border_color), 40);
        assert_eq!(size_of::<DrvResourceViewDesc>(), 112);
        assert_eq!(offset_of!(DrvResourceViewDesc, last_layer), 44);
    }

    #[test]
    fn descriptions_round_trip() {
        let d = DrvResourceDesc {
            res_type: RESOURCE_PITCH_2D,
            res: with_member(DrvPitch2d {
                dev_ptr: 0x1000,
                format: 0x02,
                channels: 2,
                width: 10,
                height: 4,
                pitch_in_bytes: 64,
            }),
            flags: 0,
        };
        let r = resource_of(&d).unwrap();
        let p: Pitch2d = member(&r.res);
        assert_eq!((p.desc.x, p.desc.y, p.desc.z, p.desc.f), (16, 16, 0, 1));
        assert_eq!((p.width, p.height, p.pitch_in_bytes), (10, 4, 64));
        let back = driver_resource(&r);
        let q: DrvPitch2d = member(&back.res);
        assert_eq!((q.format, q.channels, q.dev_ptr), (0x02, 2, 0x1000));

        // 16-bit integers are promoted unless read as integers; flags come back.
        let t = DrvTextureDesc {
            flags: NORMALIZED_COORDINATES,
            ..Default::default()
        };
        let rt = texture_of(&t, &r).unwrap();
        assert_eq!(
            (rt.read_mode, rt.normalized_coords),
            (READ_NORMALIZED_FLOAT, 1)
        );
        let as_int = texture_of(
            &DrvTextureDesc {
                flags: READ_AS_INTEGER,
                ..t
            },
            &r,
        )
        .unwrap();
        assert_eq!(as_int.read_mode, READ_ELEMENT);
        assert_eq!(driver_texture(&as_int).flags, READ_AS_INTEGER);
        assert!(texture_of(&DrvTextureDesc { flags: 0x100, ..t }, &r).is_err());
        assert!(resource_of(&DrvResourceDesc { flags: 1, ..d }).is_err());
    }
}
