//! Texture objects (`hipTextureObject_t`), read in software by device code.
//!
//! A texture object is the device address of a [`Descriptor`] (`struct __hip_texture` in
//! `headers/hip/hipmlir_texture_types.h`, field for field): where the texels are, their format
//! and shape, and the sampler state of the `hipTextureDesc`. `hipCreateTextureObject` checks the
//! resource and texture descriptions, builds the descriptor and copies it to device memory;
//! device code (`hipmlir_texture.h`) reads texels through it. Nothing here depends on the
//! backend beyond its allocation and copy, so both serve textures the same way, without image
//! support.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Mutex, OnceLock};

use crate::arrays::{self, ChannelFormatDesc, Format, KIND_FLOAT};
use crate::backend::{ops, Copy3d, Device, FreeKind, MemcpyKind, MemoryKind};
use crate::error::{Failure, HipError, HipResult};
use crate::mipmaps;
use crate::texture_driver::DriverDescriptions;

/// `hipResourceType`.
const RESOURCE_ARRAY: i32 = 0;
const RESOURCE_MIPMAPPED_ARRAY: i32 = 1;
const RESOURCE_LINEAR: i32 = 2;
const RESOURCE_PITCH_2D: i32 = 3;

/// `hipTextureReadMode`, `hipTextureFilterMode`.
const READ_NORMALIZED_FLOAT: u32 = 1;
const FILTER_LINEAR: u32 = 1;

/// HIP's `hipResourceDesc`: the type, then a union of the four kinds (pointer-aligned).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ResourceDesc {
    pub res_type: i32,
    pub res: [u64; 7],
}

/// The union's `linear` member.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct LinearResource {
    dev_ptr: usize,
    desc: ChannelFormatDesc,
    size_in_bytes: usize,
}

/// The union's `pitch2D` member.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct Pitch2dResource {
    dev_ptr: usize,
    desc: ChannelFormatDesc,
    width: usize,
    height: usize,
    pitch_in_bytes: usize,
}

impl ResourceDesc {
    /// The union read as `T` (one of the members above, all within its 56 bytes).
    fn member<T: Copy>(&self) -> T {
        const { assert!(std::mem::size_of::<T>() <= 56) };
        // SAFETY: `res` holds 56 bytes, 8-aligned; T is a plain-data member of at most that size.
        unsafe { self.res.as_ptr().cast::<T>().read() }
    }

    /// A description of `res_type` whose union holds `member`.
    fn with<T: Copy>(res_type: i32, member: T) -> Self {
        const { assert!(std::mem::size_of::<T>() <= 56) };
        let mut d = ResourceDesc {
            res_type,
            res: [0; 7],
        };
        // SAFETY: as in `member`.
        unsafe { d.res.as_mut_ptr().cast::<T>().write(member) };
        d
    }

    /// `size_in_bytes` of linear memory at `dev_ptr` holding texels of `desc`.
    pub fn linear(dev_ptr: usize, desc: ChannelFormatDesc, size_in_bytes: usize) -> Self {
        Self::with(
            RESOURCE_LINEAR,
            LinearResource {
                dev_ptr,
                desc,
                size_in_bytes,
            },
        )
    }

    /// `height` rows of `width` texels of `desc`, `pitch_in_bytes` apart, at `dev_ptr`.
    pub fn pitch_2d(
        dev_ptr: usize,
        desc: ChannelFormatDesc,
        width: usize,
        height: usize,
        pitch_in_bytes: usize,
    ) -> Self {
        Self::with(
            RESOURCE_PITCH_2D,
            Pitch2dResource {
                dev_ptr,
                desc,
                width,
                height,
                pitch_in_bytes,
            },
        )
    }

    /// The array (`hipArray_t`) `handle`.
    pub fn array(handle: usize) -> Self {
        Self::with(RESOURCE_ARRAY, handle)
    }

    /// The mipmapped array (`hipMipmappedArray_t`) `handle`.
    pub fn mipmapped_array(handle: usize) -> Self {
        Self::with(RESOURCE_MIPMAPPED_ARRAY, handle)
    }

    /// The device memory a linear or pitch2D resource reads; None for arrays.
    pub fn device_pointer(&self) -> Option<usize> {
        match self.res_type {
            RESOURCE_LINEAR => Some(self.member::<LinearResource>().dev_ptr),
            RESOURCE_PITCH_2D => Some(self.member::<Pitch2dResource>().dev_ptr),
            _ => None,
        }
    }

    /// The handle of an array or mipmapped array resource of `res_type`; None for others.
    fn handle_of(&self, res_type: i32) -> Option<usize> {
        (self.res_type == res_type).then(|| self.member::<usize>())
    }

    /// The array an array resource reads.
    pub fn array_handle(&self) -> Option<usize> {
        self.handle_of(RESOURCE_ARRAY)
    }

    /// The mipmapped array a mipmapped-array resource reads.
    pub fn mipmapped_array_handle(&self) -> Option<usize> {
        self.handle_of(RESOURCE_MIPMAPPED_ARRAY)
    }
}

/// HIP's `hipTextureDesc`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct TextureDesc {
    pub address_mode: [i32; 3],
    pub filter_mode: i32,
    pub read_mode: i32,
    pub srgb: i32,
    pub border_color: [f32; 4],
    pub normalized_coords: i32,
    pub max_anisotropy: u32,
    pub mipmap_filter_mode: i32,
    pub mipmap_level_bias: f32,
    pub min_mipmap_level_clamp: f32,
    pub max_mipmap_level_clamp: f32,
}

/// HIP's `hipResourceViewDesc`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ResourceViewDesc {
    pub format: i32,
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub first_mipmap_level: u32,
    pub last_mipmap_level: u32,
    pub first_layer: u32,
    pub last_layer: u32,
}

/// `struct __hip_texture`: what device code reads (see the header for each field).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Descriptor {
    pub base: u64,
    pub row_pitch: u64,
    pub slice_pitch: u64,
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    pub channels: u32,
    pub channel_bytes: u32,
    pub kind: u32,
    pub linear: u32,
    pub address_mode: [u32; 3],
    pub filter_mode: u32,
    pub read_mode: u32,
    pub normalized_coords: u32,
    pub border_color: [f32; 4],
    pub srgb: u32,
    /// The levels of a mipmapped resource (their descriptors follow this one in memory); 0 for
    /// other resources.
    pub levels: u32,
    pub mipmap_filter_mode: u32,
    pub mipmap_level_bias: f32,
    pub min_mipmap_level_clamp: f32,
    pub max_mipmap_level_clamp: f32,
}

/// A live texture object: what it was created from (for the `hipGetTextureObject*` queries),
/// and the driver API's descriptions when `hipTexObjectCreate` made it (`texture_driver`).
#[derive(Debug, Clone, Copy)]
pub struct TextureObject {
    pub resource: ResourceDesc,
    pub texture: TextureDesc,
    pub view: Option<ResourceViewDesc>,
    pub driver: Option<DriverDescriptions>,
}

fn objects() -> std::sync::MutexGuard<'static, HashMap<usize, TextureObject>> {
    static T: OnceLock<Mutex<HashMap<usize, TextureObject>>> = OnceLock::new();
    T.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

fn dimension(value: usize, what: &str) -> HipResult<u32> {
    u32::try_from(value).map_err(|_| Failure::invalid_value(format!("{what} {value} is too large")))
}

/// The texels' part of a descriptor, from a resource description.
/// Checks that the memory of a linear or pitch2D resource starts at a multiple of the device's
/// `textureAlignment` and its rows step by one of `texturePitchAlignment`, as HIP and CUDA
/// require (hipmlir's software reads would take any address; programs written for GPUs align).
fn check_alignment(device: &dyn Device, res: &ResourceDesc) -> HipResult<()> {
    let (pointer, pitch) = match res.res_type {
        RESOURCE_LINEAR => (res.member::<LinearResource>().dev_ptr, None),
        RESOURCE_PITCH_2D => {
            let p: Pitch2dResource = res.member();
            (p.dev_ptr, Some(p.pitch_in_bytes))
        }
        _ => return Ok(()),
    };
    let props = device.properties();
    let misaligned =
        |value: usize, alignment: usize| alignment > 1 && !value.is_multiple_of(alignment);
    if misaligned(pointer, props.textureAlignment) {
        return Err(Failure::invalid_value(format!(
            "the resource's devPtr {pointer:#x} is not a multiple of the device's texture \
             alignment ({} bytes)",
            props.textureAlignment
        )));
    }
    match pitch {
        Some(pitch) if misaligned(pitch, props.texturePitchAlignment) => {
            Err(Failure::invalid_value(format!(
                "the resource's pitch {pitch} is not a multiple of the device's texture pitch \
                 alignment ({} bytes)",
                props.texturePitchAlignment
            )))
        }
        _ => Ok(()),
    }
}

/// The texels of array `handle` into `d`; returns their format.
fn array_layout(handle: usize, d: &mut Descriptor) -> HipResult<Format> {
    let a = arrays::get(handle)?;
    d.base = a.data as u64;
    d.row_pitch = a.pitch as u64;
    d.slice_pitch = a.slice_pitch() as u64;
    d.width = dimension(a.width, "the array's width")?;
    d.height = dimension(a.rows, "the array's height")?;
    d.depth = dimension(a.slices, "the array's depth")?;
    Ok(a.format)
}

/// The descriptors a texture object's memory holds: `d`, then for a mipmapped resource one per
/// level (each level's texels with `d`'s format and sampler state), which device code reads at
/// the object's address + 1 + level.
fn with_levels(res: &ResourceDesc, d: Descriptor) -> HipResult<Vec<Descriptor>> {
    let mut all = vec![d];
    if res.res_type == RESOURCE_MIPMAPPED_ARRAY {
        for level in mipmaps::levels(res.member())? {
            let mut l = Descriptor { levels: 0, ..d };
            array_layout(level, &mut l)?;
            all.push(l);
        }
    }
    Ok(all)
}

fn resource_layout(res: &ResourceDesc) -> HipResult<(Descriptor, Format)> {
    let mut d = Descriptor::default();
    let format = match res.res_type {
        RESOURCE_ARRAY => array_layout(res.member(), &mut d)?,
        RESOURCE_LINEAR => {
            let l: LinearResource = res.member();
            if l.dev_ptr == 0 {
                return Err(Failure::invalid_value(
                    "the linear resource's devPtr is null",
                ));
            }
            let format = Format::from_desc(&l.desc)?;
            d.base = l.dev_ptr as u64;
            d.width = dimension(l.size_in_bytes / format.texel_bytes(), "the texel count")?;
            d.row_pitch = l.size_in_bytes as u64;
            d.slice_pitch = l.size_in_bytes as u64;
            d.height = 1;
            d.depth = 1;
            d.linear = 1;
            format
        }
        RESOURCE_PITCH_2D => {
            let p: Pitch2dResource = res.member();
            if p.dev_ptr == 0 {
                return Err(Failure::invalid_value(
                    "the pitch2D resource's devPtr is null",
                ));
            }
            let format = Format::from_desc(&p.desc)?;
            if p.width == 0 || p.height == 0 {
                return Err(Failure::invalid_value(
                    "a pitch2D resource needs a width and a height",
                ));
            }
            let row = p.width.checked_mul(format.texel_bytes());
            if row.is_none_or(|r| r > p.pitch_in_bytes) {
                return Err(Failure::new(
                    HipError::InvalidPitchValue,
                    format!(
                        "{} texels of {} bytes do not fit the pitch {}",
                        p.width,
                        format.texel_bytes(),
                        p.pitch_in_bytes
                    ),
                ));
            }
            d.base = p.dev_ptr as u64;
            d.row_pitch = p.pitch_in_bytes as u64;
            d.slice_pitch = (p.pitch_in_bytes as u64).saturating_mul(p.height as u64);
            d.width = dimension(p.width, "the width")?;
            d.height = dimension(p.height, "the height")?;
            d.depth = 1;
            format
        }
        RESOURCE_MIPMAPPED_ARRAY => {
            let levels = mipmaps::levels(res.member())?;
            d.levels = u32::try_from(levels.len()).unwrap_or(u32::MAX);
            array_layout(levels[0], &mut d)?
        }
        other => {
            return Err(Failure::invalid_value(format!(
                "{other} is not a hipResourceType"
            )))
        }
    };
    d.channels = format.channels;
    d.channel_bytes = format.channel_bytes;
    d.kind = format.kind;
    Ok((d, format))
}

/// The full descriptor of a texture object, every field checked.
pub fn describe(
    res: &ResourceDesc,
    tex: &TextureDesc,
    view: Option<&ResourceViewDesc>,
) -> HipResult<Descriptor> {
    let (mut d, format) = resource_layout(res)?;
    if let Some(v) = view.filter(|v| v.format != 0) {
        if view_format(v.format) != Some(format) {
            return Err(Failure::new(
                HipError::NotSupported,
                format!(
                    "not supported by hipmlir: a resource view reinterpreting the texels (view \
                     format {:#x}; only the resource's own format is accepted)",
                    v.format
                ),
            ));
        }
    }
    for (axis, &mode) in tex.address_mode.iter().enumerate() {
        if !(0..=3).contains(&mode) {
            return Err(Failure::invalid_value(format!(
                "addressMode[{axis}] {mode} is not a hipTextureAddressMode"
            )));
        }
        d.address_mode[axis] = mode as u32;
    }
    if !(0..=1).contains(&tex.filter_mode) {
        return Err(Failure::invalid_value(format!(
            "filterMode {} is not a hipTextureFilterMode",
            tex.filter_mode
        )));
    }
    if !(0..=1).contains(&tex.read_mode) {
        return Err(Failure::invalid_value(format!(
            "readMode {} is not a hipTextureReadMode",
            tex.read_mode
        )));
    }
    d.filter_mode = tex.filter_mode as u32;
    d.read_mode = tex.read_mode as u32;
    // Float formats read as floats in either mode.
    let normalized = d.read_mode == READ_NORMALIZED_FLOAT && format.kind != KIND_FLOAT;
    if normalized && format.channel_bytes == 4 {
        return Err(Failure::invalid_value(
            "hipReadModeNormalizedFloat needs 8- or 16-bit integer channels",
        ));
    }
    let float_results = format.kind == KIND_FLOAT || normalized;
    if d.filter_mode == FILTER_LINEAR && !float_results && d.linear == 0 {
        return Err(Failure::invalid_value(
            "hipFilterModeLinear needs float results: a float format, or integer channels read \
             with hipReadModeNormalizedFloat",
        ));
    }
    // sRGB decoding applies to 8-bit unsigned channels read as normalized floats, as with
    // CUDA's sRGB textures (other reads have no sRGB encoding to undo).
    d.srgb = u32::from(
        tex.srgb != 0
            && normalized
            && format.channel_bytes == 1
            && format.kind == arrays::KIND_UNSIGNED,
    );
    d.normalized_coords = u32::from(tex.normalized_coords != 0);
    d.border_color = tex.border_color;
    if !(0..=1).contains(&tex.mipmap_filter_mode) {
        return Err(Failure::invalid_value(format!(
            "mipmapFilterMode {} is not a hipTextureFilterMode",
            tex.mipmap_filter_mode
        )));
    }
    d.mipmap_filter_mode = tex.mipmap_filter_mode as u32;
    d.mipmap_level_bias = tex.mipmap_level_bias;
    d.min_mipmap_level_clamp = tex.min_mipmap_level_clamp;
    d.max_mipmap_level_clamp = tex.max_mipmap_level_clamp;
    Ok(d)
}

/// The texels a `hipResourceViewFormat` names (1 to 0x18: 1, 2 or 4 channels of unsigned and
/// signed 8-, 16- and 32-bit integers, then half and float), `None` for the block-compressed
/// ones.
fn view_format(code: i32) -> Option<Format> {
    const TYPES: [(u32, u32); 8] = [
        (arrays::KIND_UNSIGNED, 1),
        (arrays::KIND_SIGNED, 1),
        (arrays::KIND_UNSIGNED, 2),
        (arrays::KIND_SIGNED, 2),
        (arrays::KIND_UNSIGNED, 4),
        (arrays::KIND_SIGNED, 4),
        (KIND_FLOAT, 2),
        (KIND_FLOAT, 4),
    ];
    let i = usize::try_from(code).ok()?.checked_sub(1)?;
    let &(kind, channel_bytes) = TYPES.get(i / 3)?;
    Some(Format {
        channels: [1, 2, 4][i % 3],
        channel_bytes,
        kind,
    })
}

/// `hipCreateTextureObject`: returns the object (the descriptor's device address).
pub fn create(
    device: &dyn Device,
    res: &ResourceDesc,
    tex: &TextureDesc,
    view: Option<&ResourceViewDesc>,
) -> HipResult<usize> {
    create_with(device, res, tex, view, None)
}

/// [`create`], keeping the driver API's descriptions it was made from (`hipTexObjectCreate`).
pub fn create_with(
    device: &dyn Device,
    res: &ResourceDesc,
    tex: &TextureDesc,
    view: Option<&ResourceViewDesc>,
    driver: Option<DriverDescriptions>,
) -> HipResult<usize> {
    let descriptor = describe(res, tex, view)?;
    check_alignment(device, res)?;
    let p = upload(device, &with_levels(res, descriptor)?)?;
    objects().insert(
        p as usize,
        TextureObject {
            resource: *res,
            texture: *tex,
            view: view.copied(),
            driver,
        },
    );
    Ok(p as usize)
}

/// Copies descriptors (an object's, then its levels') to new device memory: the object's
/// value.
pub fn upload(device: &dyn Device, descriptors: &[Descriptor]) -> HipResult<*mut c_void> {
    let size = std::mem::size_of_val(descriptors);
    let p = device.allocate(MemoryKind::Device, size)?;
    let copy = Copy3d::linear(p, descriptors.as_ptr().cast(), size);
    let null = device.null_stream();
    if let Err(e) = ops::copy(&null, &copy, MemcpyKind::HostToDevice, true) {
        let _ = device.free(p, FreeKind::Device);
        return Err(e);
    }
    Ok(p)
}

/// A surface object's descriptor (`surface`): the texels of an array, the only resource
/// surfaces read and write (another is `hipErrorInvalidValue`); no sampler state.
pub fn surface_descriptor(res: &ResourceDesc) -> HipResult<Descriptor> {
    if res.res_type != RESOURCE_ARRAY {
        return Err(Failure::invalid_value(format!(
            "resource type {}: a surface is an array's (hipResourceTypeArray, 0)",
            res.res_type
        )));
    }
    resource_layout(res).map(|(d, _)| d)
}

fn unknown(object: usize) -> Failure {
    Failure::invalid_value(format!("{object:#x} is not a live hipTextureObject_t"))
}

/// `hipDestroyTextureObject`: null is a no-op.
pub fn destroy(device: &dyn Device, object: usize) -> HipResult<()> {
    if object == 0 {
        return Ok(());
    }
    objects().remove(&object).ok_or_else(|| unknown(object))?;
    device.free(object as *mut c_void, FreeKind::Device)
}

/// What a texture object was created from.
pub fn descriptions(object: usize) -> HipResult<(ResourceDesc, TextureDesc)> {
    let o = self::object(object)?;
    Ok((o.resource, o.texture))
}

/// A live texture object, whole.
pub fn object(object: usize) -> HipResult<TextureObject> {
    objects()
        .get(&object)
        .copied()
        .ok_or_else(|| unknown(object))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn layouts_match_the_headers() {
        assert_eq!(size_of::<ResourceDesc>(), 64);
        assert_eq!(offset_of!(LinearResource, size_in_bytes), 32);
        assert_eq!(offset_of!(Pitch2dResource, pitch_in_bytes), 48);
        assert_eq!(size_of::<TextureDesc>(), 64);
        assert_eq!(offset_of!(TextureDesc, border_color), 24);
        assert_eq!(offset_of!(TextureDesc, normalized_coords), 40);
        assert_eq!(size_of::<ResourceViewDesc>(), 48);
        assert_eq!(size_of::<Descriptor>(), 120);
        assert_eq!(offset_of!(Descriptor, width), 24);
        assert_eq!(offset_of!(Descriptor, address_mode), 52);
        assert_eq!(offset_of!(Descriptor, border_color), 76);
        assert_eq!(offset_of!(Descriptor, srgb), 92);
        assert_eq!(offset_of!(Descriptor, levels), 96);
        assert_eq!(offset_of!(Descriptor, max_mipmap_level_clamp), 112);
    }

    fn pitch_2d(
        desc: ChannelFormatDesc,
        width: usize,
        height: usize,
        pitch: usize,
    ) -> ResourceDesc {
        let mut r = ResourceDesc {
            res_type: RESOURCE_PITCH_2D,
            ..Default::default()
        };
        let member = Pitch2dResource {
            dev_ptr: 0x10000,
            desc,
            width,
            height,
            pitch_in_bytes: pitch,
        };
        // SAFETY: the member fits the union (checked by `member`'s assertion).
        unsafe { r.res.as_mut_ptr().cast::<Pitch2dResource>().write(member) };
        r
    }

    #[test]
    fn descriptors_follow_the_descriptions() {
        let uchar4 = ChannelFormatDesc {
            x: 8,
            y: 8,
            z: 8,
            w: 8,
            f: 1,
        };
        let tex = TextureDesc {
            address_mode: [3, 1, 0],
            filter_mode: 1,
            read_mode: 1,
            border_color: [0.25, 0.5, 0.75, 1.0],
            normalized_coords: 1,
            ..Default::default()
        };
        let d = describe(&pitch_2d(uchar4, 10, 4, 64), &tex, None).unwrap();
        assert_eq!((d.width, d.height, d.depth, d.row_pitch), (10, 4, 1, 64));
        assert_eq!((d.channels, d.channel_bytes, d.kind), (4, 1, 1));
        assert_eq!(d.address_mode, [3, 1, 0]);
        assert_eq!((d.filter_mode, d.read_mode, d.normalized_coords), (1, 1, 1));
        assert_eq!(d.border_color, [0.25, 0.5, 0.75, 1.0]);
        // Rows wider than the pitch.
        let e = describe(&pitch_2d(uchar4, 17, 4, 64), &tex, None).unwrap_err();
        assert_eq!(e.code, HipError::InvalidPitchValue);
        // Linear filtering of integers read as integers.
        let element = TextureDesc {
            read_mode: 0,
            ..tex
        };
        let e = describe(&pitch_2d(uchar4, 10, 4, 64), &element, None).unwrap_err();
        assert_eq!(e.code, HipError::InvalidValue);
        let bad_mode = TextureDesc {
            address_mode: [4, 0, 0],
            ..tex
        };
        assert!(describe(&pitch_2d(uchar4, 10, 4, 64), &bad_mode, None).is_err());
        // sRGB decoding: only where 8-bit unsigned channels read as normalized floats.
        let srgb = TextureDesc {
            srgb: 1,
            read_mode: READ_NORMALIZED_FLOAT as i32,
            ..tex
        };
        let d = describe(&pitch_2d(uchar4, 10, 4, 64), &srgb, None).unwrap();
        assert_eq!(d.srgb, 1);
        let element_srgb = TextureDesc {
            read_mode: 0,
            filter_mode: 0,
            ..srgb
        };
        let d = describe(&pitch_2d(uchar4, 10, 4, 64), &element_srgb, None).unwrap();
        assert_eq!(d.srgb, 0);
    }
}
