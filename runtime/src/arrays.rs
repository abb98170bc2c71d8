//! HIP arrays (`hipArray_t`) and the copies that reach them: `hipMemcpy3D`, the 2-D copies to and
//! from arrays, the linear ones (`hipMemcpyToArray`, `hipMemcpyHtoA`, `hipMemcpyAtoA`, ...).
//!
//! An array is device memory laid out as a pitched 3-D allocation (rows padded to the allocation
//! alignment, slices of `rows` rows one after the other), with the channel format and extent it
//! was created with. The handle is a number of the handle table (`handles`), never a pointer the
//! runtime follows, so a freed or foreign array is `hipErrorInvalidHandle` (freeing it again,
//! `hipErrorContextIsDestroyed`, as HIP answers). Every copy is a region copy of the backend
//! (`ops::copy`), which checks device ranges against the allocation table on OpenCL and lets the
//! driver check them on CUDA: [`copy_region`] between two [`Place`]s at byte positions, and
//! [`copy_linear`] of bytes read as an array's rows one after the other.

use std::ffi::c_void;
use std::sync::{Arc, OnceLock};

use crate::backend::{
    ops, pitched_layout, Copy2d, Copy3d, Device, Extent, FreeKind, MemcpyKind, MemoryKind,
    PitchedPtr, Stream,
};
use crate::error::{Failure, HipError, HipResult};
use crate::handles::{HandleTable, Kind};

/// A copy on `on`, or synchronously on `device`'s null stream.
fn copy(device: &dyn Device, on: Option<&Stream>, c: Copy3d, kind: MemcpyKind) -> HipResult<()> {
    match on {
        None => ops::copy(&device.null_stream(), &c, kind, true),
        Some(s) => ops::copy(s, &c, kind, false),
    }
}

/// HIP's `hipChannelFormatDesc`: bits per channel (x, y, z, w) and their kind.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChannelFormatDesc {
    pub x: i32,
    pub y: i32,
    pub z: i32,
    pub w: i32,
    pub f: i32,
}

/// The driver API's `HIP_ARRAY_DESCRIPTOR` (`hipArrayCreate`): `Width` x `Height` (0: 1-D)
/// elements of `NumChannels` channels of `Format` (a `hipArray_Format`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[allow(non_snake_case)]
pub struct ArrayDescriptor {
    pub Width: usize,
    pub Height: usize,
    pub Format: u32,
    pub NumChannels: u32,
}

/// The driver API's `HIP_ARRAY3D_DESCRIPTOR` (`hipArray3DCreate`, `hipMipmappedArrayCreate`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[allow(non_snake_case)]
pub struct Array3DDescriptor {
    pub Width: usize,
    pub Height: usize,
    pub Depth: usize,
    pub Format: u32,
    pub NumChannels: u32,
    pub Flags: u32,
}

impl Array3DDescriptor {
    /// The channel description and extent the runtime API would name the same array with.
    pub fn to_runtime(&self) -> HipResult<(ChannelFormatDesc, Extent)> {
        let desc = desc_of_driver_format(self.Format, self.NumChannels)?;
        let extent = Extent {
            width: self.Width,
            height: self.Height,
            depth: self.Depth,
        };
        Ok((desc, extent))
    }

    /// An array's description in the driver API's terms.
    pub fn of(a: &Array) -> Array3DDescriptor {
        Array3DDescriptor {
            Width: a.width,
            Height: a.height,
            Depth: a.depth,
            Format: a.format.driver_format(),
            NumChannels: a.format.channels,
            Flags: a.flags,
        }
    }
}

/// `hipChannelFormatKind`.
pub const KIND_SIGNED: u32 = 0;
pub const KIND_UNSIGNED: u32 = 1;
pub const KIND_FLOAT: u32 = 2;

/// A texel format as device code reads it: `channels` channels of `channel_bytes` bytes each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    pub channels: u32,
    pub channel_bytes: u32,
    pub kind: u32,
}

impl Format {
    /// The format a channel description names. Channels (1, 2 or 4) are used from x on, all of
    /// one size (8, 16 or 32 bits; floats 16 or 32); anything else is
    /// `hipErrorInvalidChannelDescriptor`.
    pub fn from_desc(d: &ChannelFormatDesc) -> HipResult<Format> {
        let invalid = |why: &str| {
            Failure::new(
                HipError::InvalidChannelDescriptor,
                format!(
                    "channel format {{{}, {}, {}, {}, kind {}}}: {why}",
                    d.x, d.y, d.z, d.w, d.f
                ),
            )
        };
        let bits = [d.x, d.y, d.z, d.w];
        let channels = bits.iter().take_while(|&&b| b != 0).count();
        if channels == 0 {
            return Err(invalid("no channel has bits"));
        }
        if bits[channels..].iter().any(|&b| b != 0) {
            return Err(invalid("channels must be used from x on, without gaps"));
        }
        if bits[..channels].iter().any(|&b| b != bits[0]) {
            return Err(invalid("every channel must have the same size"));
        }
        if channels == 3 {
            // No array or texture format has three channels (AMD's and CUDA's have 1, 2 or 4).
            return Err(invalid("arrays have 1, 2 or 4 channels, not 3"));
        }
        let kind = match d.f {
            0 => KIND_SIGNED,
            1 => KIND_UNSIGNED,
            2 => KIND_FLOAT,
            _ => return Err(invalid("the kind must be signed, unsigned or float")),
        };
        let ok = match kind {
            KIND_FLOAT => matches!(bits[0], 16 | 32),
            _ => matches!(bits[0], 8 | 16 | 32),
        };
        if !ok {
            return Err(invalid(
                "channels are 8, 16 or 32-bit integers or 16 or 32-bit floats",
            ));
        }
        Ok(Format {
            channels: channels as u32,
            channel_bytes: bits[0] as u32 / 8,
            kind,
        })
    }

    /// Bytes per texel.
    pub fn texel_bytes(self) -> usize {
        (self.channels * self.channel_bytes) as usize
    }

    /// The driver API's `hipArray_Format` of one channel.
    pub fn driver_format(self) -> u32 {
        DRIVER_FORMATS
            .iter()
            .find(|f| (f.kind, f.channel_bytes) == (self.kind, self.channel_bytes))
            .map_or(0, |f| f.code)
    }
}

/// One `hipArray_Format`: its number, and the channels it names.
struct DriverFormat {
    code: u32,
    kind: u32,
    channel_bytes: u32,
}

/// `hipArray_Format`.
const DRIVER_FORMATS: [DriverFormat; 8] = [
    DriverFormat {
        code: 0x01,
        kind: KIND_UNSIGNED,
        channel_bytes: 1,
    },
    DriverFormat {
        code: 0x02,
        kind: KIND_UNSIGNED,
        channel_bytes: 2,
    },
    DriverFormat {
        code: 0x03,
        kind: KIND_UNSIGNED,
        channel_bytes: 4,
    },
    DriverFormat {
        code: 0x08,
        kind: KIND_SIGNED,
        channel_bytes: 1,
    },
    DriverFormat {
        code: 0x09,
        kind: KIND_SIGNED,
        channel_bytes: 2,
    },
    DriverFormat {
        code: 0x0a,
        kind: KIND_SIGNED,
        channel_bytes: 4,
    },
    DriverFormat {
        code: 0x10,
        kind: KIND_FLOAT,
        channel_bytes: 2,
    },
    DriverFormat {
        code: 0x20,
        kind: KIND_FLOAT,
        channel_bytes: 4,
    },
];

/// The channel description of a driver API array: `channels` (1, 2 or 4) channels of
/// `format`; anything else is `hipErrorInvalidValue`.
pub fn desc_of_driver_format(format: u32, channels: u32) -> HipResult<ChannelFormatDesc> {
    let f = DRIVER_FORMATS
        .iter()
        .find(|f| f.code == format)
        .ok_or_else(|| Failure::invalid_value(format!("{format:#x} is not a hipArray_Format")))?;
    if !matches!(channels, 1 | 2 | 4) {
        return Err(Failure::invalid_value(format!(
            "{channels} channels: driver API arrays have 1, 2 or 4"
        )));
    }
    let bits = f.channel_bytes as i32 * 8;
    let bits_of = |c: u32| if c < channels { bits } else { 0 };
    Ok(ChannelFormatDesc {
        x: bits_of(0),
        y: bits_of(1),
        z: bits_of(2),
        w: bits_of(3),
        f: f.kind as i32,
    })
}

/// One array: its memory and shape. `height` and `depth` are as created (0: the array lacks that
/// dimension); `rows` and `slices` are at least 1.
#[derive(Debug)]
pub struct Array {
    pub data: usize,
    pub desc: ChannelFormatDesc,
    pub format: Format,
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub flags: u32,
    pub pitch: usize,
    pub rows: usize,
    pub slices: usize,
    /// The mipmapped array this array is a level of (it goes with it).
    pub owner: Option<usize>,
}

impl Array {
    pub fn row_bytes(&self) -> usize {
        self.width * self.format.texel_bytes()
    }

    pub fn slice_pitch(&self) -> usize {
        self.pitch * self.rows
    }

    /// Every row of every slice, one after the other.
    pub fn total_rows(&self) -> usize {
        self.rows * self.slices
    }

    /// The extent as created (0 for a dimension it lacks).
    pub fn extent(&self) -> Extent {
        Extent {
            width: self.width,
            height: self.height,
            depth: self.depth,
        }
    }
}

/// `hipArrayLayered` and the other flags hipmlir accepts (surface load/store and gather change
/// nothing for memory read in software).
pub const ARRAY_LAYERED: u32 = 0x1;
const ARRAY_SURFACE_LOAD_STORE: u32 = 0x2;
const ARRAY_CUBEMAP: u32 = 0x4;
const ARRAY_TEXTURE_GATHER: u32 = 0x8;

/// The largest arrays of one kind (texels; layers count layer-faces for cubemaps).
#[derive(Debug, Clone, Copy)]
pub struct ArrayLimits {
    pub one_d: usize,
    pub two_d: [usize; 2],
    pub three_d: [usize; 3],
    /// Width and layers.
    pub layered_1d: [usize; 2],
    /// Width, height and layers.
    pub layered_2d: [usize; 3],
    pub cubemap: usize,
    /// Face width and layer-faces (six per cubemap).
    pub layered_cubemap: [usize; 2],
}

/// The arrays hipmlir makes: CUDA's limits (compute capability 9.0), reported as the device's
/// `maxTexture*` and `maxSurface*` and held to by hipMallocArray and hipMalloc3DArray (beyond
/// them hipErrorInvalidValue, as HIP answers). Textures and surfaces are read in software, so
/// memory is the only limit of the device itself; a program sized by these runs on NVIDIA's
/// GPUs too. Surfaces' 2-D limit is square (HIP reports one number for it).
pub const TEXTURE_LIMITS: ArrayLimits = ArrayLimits {
    one_d: 131072,
    two_d: [131072, 65536],
    three_d: [16384, 16384, 16384],
    layered_1d: [32768, 2048],
    layered_2d: [32768, 32768, 2048],
    cubemap: 32768,
    layered_cubemap: [32768, 2046],
};
pub const SURFACE_LIMITS: ArrayLimits = ArrayLimits {
    one_d: 32768,
    two_d: [65536, 65536],
    three_d: [16384, 16384, 16384],
    layered_1d: [32768, 2048],
    layered_2d: [32768, 32768, 2048],
    cubemap: 32768,
    layered_cubemap: [32768, 2046],
};

/// The texels of a linear texture resource (tex1Dfetch): as many as its descriptor can count
/// (memory permitting: hipDeviceGetTexture1DLinearMaxWidth).
pub const MAX_LINEAR_TEXELS: usize = u32::MAX as usize;

/// Checks an array's extent against the limits of its kind.
fn check_limits(extent: Extent, flags: u32) -> HipResult<()> {
    let surface = flags & ARRAY_SURFACE_LOAD_STORE != 0;
    let limits = if surface {
        &SURFACE_LIMITS
    } else {
        &TEXTURE_LIMITS
    };
    let (w, h, d) = (extent.width, extent.height, extent.depth);
    let layered = flags & ARRAY_LAYERED != 0;
    // (kind, the extent that counts, its limit)
    let (kind, given, limit): (&str, Vec<usize>, Vec<usize>) = if flags & ARRAY_CUBEMAP != 0 {
        if layered {
            (
                "layered cubemap",
                vec![w, d],
                limits.layered_cubemap.to_vec(),
            )
        } else {
            ("cubemap", vec![w], vec![limits.cubemap])
        }
    } else if layered && h == 0 {
        ("layered 1-D", vec![w, d], limits.layered_1d.to_vec())
    } else if layered {
        ("layered 2-D", vec![w, h, d], limits.layered_2d.to_vec())
    } else if h == 0 {
        ("1-D", vec![w], vec![limits.one_d])
    } else if d == 0 {
        ("2-D", vec![w, h], limits.two_d.to_vec())
    } else {
        ("3-D", vec![w, h, d], limits.three_d.to_vec())
    };
    if given.iter().zip(&limit).all(|(g, l)| g <= l) {
        return Ok(());
    }
    let text = |v: &[usize]| {
        v.iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(" x ")
    };
    Err(Failure::invalid_value(format!(
        "a {} {kind}{} array is larger than the device's limit of {}",
        text(&given),
        if surface { " surface" } else { "" },
        text(&limit)
    )))
}

fn table() -> &'static HandleTable<Array> {
    static T: OnceLock<HandleTable<Array>> = OnceLock::new();
    T.get_or_init(|| HandleTable::new(Kind::Array))
}

/// The live array of a handle; anything else is `hipErrorInvalidHandle`.
pub fn get(handle: usize) -> HipResult<Arc<Array>> {
    table().get(handle).ok_or_else(|| {
        Failure::new(
            HipError::InvalidHandle,
            format!("{handle:#x} is not a live hipArray_t"),
        )
    })
}

/// `hipMalloc3DArray` (and `hipMallocArray`, depth 0): `extent` in texels; returns the handle.
pub fn allocate(
    device: &dyn Device,
    desc: &ChannelFormatDesc,
    extent: Extent,
    flags: u32,
) -> HipResult<usize> {
    allocate_owned(device, desc, extent, flags, None)
}

/// [`allocate`] of an array that is a level of the mipmapped array `owner`.
pub fn allocate_owned(
    device: &dyn Device,
    desc: &ChannelFormatDesc,
    extent: Extent,
    flags: u32,
    owner: Option<usize>,
) -> HipResult<usize> {
    // A bad description is an invalid value when allocating (as HIP answers it); texture objects
    // report the same problems as invalid channel descriptors.
    let format = Format::from_desc(desc).map_err(|e| Failure::invalid_value(e.message))?;
    if flags & !(ARRAY_LAYERED | ARRAY_SURFACE_LOAD_STORE | ARRAY_CUBEMAP | ARRAY_TEXTURE_GATHER)
        != 0
    {
        return Err(Failure::invalid_value(format!(
            "array flags {flags:#x} are not hipArray* flags"
        )));
    }
    // A cubemap is a layered array of six square faces (six per cubemap of a layered one), as
    // CUDA lays it out: device code picks the face (texCubemap, surfCubemap*).
    if flags & ARRAY_CUBEMAP != 0 {
        let layered = flags & ARRAY_LAYERED != 0;
        let faces_ok = if layered {
            extent.depth != 0 && extent.depth.is_multiple_of(6)
        } else {
            extent.depth == 6
        };
        if extent.width != extent.height || !faces_ok {
            return Err(Failure::invalid_value(format!(
                "a cubemap array has square faces and a depth of {} (given {} x {} x {})",
                if layered { "6 per cubemap" } else { "6" },
                extent.width,
                extent.height,
                extent.depth
            )));
        }
    }
    if extent.width == 0 {
        return Err(Failure::invalid_value(
            "an array needs a width of at least 1",
        ));
    }
    // As CUDA documents: texture gather is done on 2-D arrays only.
    if flags & ARRAY_TEXTURE_GATHER != 0 && (extent.height == 0 || extent.depth != 0) {
        return Err(Failure::invalid_value(format!(
            "hipArrayTextureGather on a {} x {} x {} array: gathers read 2-D arrays only",
            extent.width, extent.height, extent.depth
        )));
    }
    if flags & ARRAY_LAYERED != 0 && extent.depth == 0 {
        return Err(Failure::invalid_value(
            "a layered array needs at least one layer (extent.depth)",
        ));
    }
    if flags & ARRAY_LAYERED == 0 && extent.height == 0 && extent.depth != 0 {
        return Err(Failure::invalid_value(format!(
            "a {} x 0 x {} array: only 1-D arrays (depth 0) and layered ones lack a height",
            extent.width, extent.depth
        )));
    }
    check_limits(extent, flags)?;
    let row_bytes = extent
        .width
        .checked_mul(format.texel_bytes())
        .ok_or_else(|| Failure::invalid_value("the array's width overflows"))?;
    let rows = extent.height.max(1);
    let slices = extent.depth.max(1);
    let (pitch, total) = pitched_layout(row_bytes, rows, slices)?;
    let data = match total {
        0 => 0,
        bytes => device.allocate(MemoryKind::Device, bytes)? as usize,
    };
    let array = Array {
        data,
        desc: *desc,
        format,
        width: extent.width,
        height: extent.height,
        depth: extent.depth,
        flags,
        pitch,
        rows,
        slices,
        owner,
    };
    Ok(table().insert(Arc::new(array)))
}

/// `hipFreeArray` / `hipArrayDestroy` (after the work queued before): null is
/// `hipErrorInvalidValue`, an array already freed (or anything else) `hipErrorContextIsDestroyed`,
/// as HIP answers them; a level of a mipmapped array goes only with it.
pub fn free(device: &dyn Device, handle: usize) -> HipResult<()> {
    if handle == 0 {
        return Err(Failure::invalid_value("the array is null"));
    }
    let array = table().get(handle).ok_or_else(|| {
        Failure::new(
            HipError::ContextIsDestroyed,
            format!("{handle:#x} is not a live array (freed already, or never allocated)"),
        )
    })?;
    if let Some(owner) = array.owner {
        return Err(Failure::invalid_value(format!(
            "{handle:#x} is a level of the mipmapped array {owner:#x}: it is freed with it"
        )));
    }
    release(device, handle)
}

/// Forgets the arrays whose memory is `device`'s (`hipDeviceReset`, whose device reset frees
/// that memory).
pub fn forget_on(device: &dyn Device) {
    let on_device = |a: &Array| matches!(device.allocation(a.data as *const c_void), Ok(Some(m)) if m.device == device.id());
    drop(table().remove_where(on_device));
}

/// Forgets an array and frees its memory (levels of a mipmapped array included).
pub fn release(device: &dyn Device, handle: usize) -> HipResult<()> {
    let array = table().remove(handle).ok_or_else(|| {
        Failure::new(
            HipError::ContextIsDestroyed,
            "the array was freed meanwhile",
        )
    })?;
    match array.data {
        0 => Ok(()),
        data => device.free(data as *mut c_void, FreeKind::Device),
    }
}

fn out_of_array(what: String) -> Failure {
    Failure::invalid_value(format!("{what} lies outside the array"))
}

/// Where one side of a region copy lies.
#[derive(Debug, Clone)]
pub enum Place {
    /// An array: positions count bytes across, rows and slices.
    Array(Arc<Array>),
    /// Host or device memory at `ptr`: rows `pitch` bytes apart, `rows` rows a slice (0: as
    /// many as the copy reaches, which one slice allows).
    Memory {
        ptr: *mut c_void,
        pitch: usize,
        rows: usize,
    },
}

impl Place {
    /// The array a handle names (`hipErrorInvalidHandle` for anything else).
    pub fn array(handle: usize) -> HipResult<Place> {
        get(handle).map(Place::Array)
    }
}

/// One side of a region copy: its place and the byte position of the region's first byte.
#[derive(Debug, Clone)]
pub struct Side {
    pub place: Place,
    pub x: usize,
    pub y: usize,
    pub z: usize,
}

impl Side {
    pub fn at(place: Place, x: usize, y: usize, z: usize) -> Side {
        Side { place, x, y, z }
    }
}

/// A side as addresses: the region's first byte, its row and slice pitches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Resolved {
    start: usize,
    pitch: usize,
    slice: usize,
}

/// Checks that a region of `width` bytes x `height` rows x `depth` slices fits `side` and gives
/// its addresses: inside an array, or within a pointer's pitch (`hipErrorInvalidPitchValue`) and
/// slices.
fn resolve(
    role: &str,
    side: &Side,
    width: usize,
    height: usize,
    depth: usize,
) -> HipResult<Resolved> {
    let overflow = || Failure::invalid_value(format!("the {role}'s position overflows"));
    let fits = |at: usize, n: usize, limit: usize| at.checked_add(n).is_some_and(|e| e <= limit);
    match &side.place {
        Place::Array(a) => {
            if !(fits(side.x, width, a.row_bytes())
                && fits(side.y, height, a.rows)
                && fits(side.z, depth, a.slices))
            {
                return Err(out_of_array(format!(
                    "the {role} region of {width} bytes x {height} rows x {depth} slices at \
                     byte {}, row {}, slice {} (the array has rows of {} bytes, {} rows, {} \
                     slices)",
                    side.x,
                    side.y,
                    side.z,
                    a.row_bytes(),
                    a.rows,
                    a.slices
                )));
            }
            Ok(Resolved {
                start: a.data + side.z * a.slice_pitch() + side.y * a.pitch + side.x,
                pitch: a.pitch,
                slice: a.slice_pitch(),
            })
        }
        &Place::Memory { ptr, pitch, rows } => {
            if ptr.is_null() {
                return Err(Failure::invalid_value(format!(
                    "the {role} has neither an array nor a pointer"
                )));
            }
            let row_end = side.x.checked_add(width).ok_or_else(overflow)?;
            if row_end > pitch {
                return Err(Failure::new(
                    HipError::InvalidPitchValue,
                    format!(
                        "the {role}'s rows ({width} bytes from byte {}) exceed its pitch {pitch}",
                        side.x
                    ),
                ));
            }
            let several_slices = depth > 1 || side.z > 0;
            let rows_needed = side.y.checked_add(height).ok_or_else(overflow)?;
            if several_slices && rows < rows_needed {
                return Err(Failure::invalid_value(format!(
                    "the {role}'s slices hold {rows} rows, fewer than the {rows_needed} the copy \
                     reaches"
                )));
            }
            let slice = pitch
                .checked_mul(rows.max(rows_needed))
                .ok_or_else(overflow)?;
            let offset = side
                .z
                .checked_mul(slice)
                .and_then(|v| v.checked_add(side.y.checked_mul(pitch)?))
                .and_then(|v| v.checked_add(side.x))
                .ok_or_else(overflow)?;
            Ok(Resolved {
                start: (ptr as usize).checked_add(offset).ok_or_else(overflow)?,
                pitch,
                slice,
            })
        }
    }
}

/// Copies a region of `width` bytes x `height` rows x `depth` slices between two sides, on `on`
/// or synchronously; an empty region is nothing to do.
#[allow(clippy::too_many_arguments)]
pub fn copy_region(
    device: &dyn Device,
    on: Option<&Stream>,
    dst: &Side,
    src: &Side,
    width: usize,
    height: usize,
    depth: usize,
    kind: MemcpyKind,
) -> HipResult<()> {
    match region(dst, src, width, height, depth)? {
        Some(region) => copy(device, on, region, kind),
        None => Ok(()),
    }
}

/// The memory a copy of `width` bytes by `height` rows by `depth` slices between two sides
/// touches, each side checked to hold it (`None` for an empty copy).
pub fn region(
    dst: &Side,
    src: &Side,
    width: usize,
    height: usize,
    depth: usize,
) -> HipResult<Option<Copy3d>> {
    if width == 0 || height == 0 || depth == 0 {
        return Ok(None);
    }
    let s = resolve("source", src, width, height, depth)?;
    let d = resolve("destination", dst, width, height, depth)?;
    Ok(Some(Copy3d {
        dst: d.start as *mut c_void,
        dst_pitch: d.pitch,
        dst_slice: d.slice,
        src: s.start as *const c_void,
        src_pitch: s.pitch,
        src_slice: s.slice,
        width,
        height,
        depth,
    }))
}

/// A 2-D copy between an array's slice 0 (`w_offset` bytes and `h_offset` rows in) and pitched
/// memory: `hipMemcpy2DToArray` when `to_array`, else `hipMemcpy2DFromArray`.
#[allow(clippy::too_many_arguments)]
pub fn copy_2d(
    device: &dyn Device,
    on: Option<&Stream>,
    handle: usize,
    w_offset: usize,
    h_offset: usize,
    other: *mut c_void,
    other_pitch: usize,
    width: usize,
    height: usize,
    kind: MemcpyKind,
    to_array: bool,
) -> HipResult<()> {
    let inside = Side::at(Place::array(handle)?, w_offset, h_offset, 0);
    let outside = Side::at(
        Place::Memory {
            ptr: other,
            pitch: other_pitch,
            rows: 0,
        },
        0,
        0,
        0,
    );
    let (dst, src) = if to_array {
        (&inside, &outside)
    } else {
        (&outside, &inside)
    };
    copy_region(device, on, dst, src, width, height, 1, kind)
}

/// One side of a linear copy: bytes read as an array's rows one after the other (across
/// slices) from `offset` on, or plain memory.
#[derive(Debug, Clone, Copy)]
pub enum Linear {
    Array { handle: usize, offset: usize },
    Memory(*mut c_void),
}

/// The byte offset of `w_offset` bytes into row `h_offset` of an array (`hipMemcpyToArray`'s
/// position): the offset must lie inside its row.
pub fn row_offset(handle: usize, w_offset: usize, h_offset: usize) -> HipResult<usize> {
    let a = get(handle)?;
    let row = a.row_bytes();
    if w_offset >= row {
        return Err(out_of_array(format!(
            "byte {w_offset} of a row (rows of {row} bytes)"
        )));
    }
    h_offset
        .checked_mul(row)
        .and_then(|v| v.checked_add(w_offset))
        .ok_or_else(|| out_of_array(format!("row {h_offset}")))
}

/// Where the next byte of a linear side is.
enum Next {
    /// Plain memory: any run of bytes follows.
    Free(usize),
    /// The start of an array row of `bytes` bytes, rows `pitch` apart.
    RowStart {
        at: usize,
        bytes: usize,
        pitch: usize,
    },
    /// Inside an array row, `room` bytes before its end.
    MidRow { at: usize, room: usize },
}

/// A linear side with its array resolved and its bounds checked for `count` bytes.
struct Run {
    array: Option<Arc<Array>>,
    base: usize,
    offset: usize,
}

impl Run {
    fn new(side: Linear, count: usize, role: &str) -> HipResult<Run> {
        match side {
            Linear::Memory(p) => {
                if p.is_null() && count > 0 {
                    return Err(Failure::invalid_value(format!("the {role} is null")));
                }
                Ok(Run {
                    array: None,
                    base: p as usize,
                    offset: 0,
                })
            }
            Linear::Array { handle, offset } => {
                let a = get(handle)?;
                let total = a.row_bytes() * a.total_rows();
                if offset.checked_add(count).is_none_or(|end| end > total) {
                    return Err(out_of_array(format!(
                        "the {role}'s {count} bytes from byte {offset} (the array holds {total})"
                    )));
                }
                Ok(Run {
                    base: a.data,
                    array: Some(a),
                    offset,
                })
            }
        }
    }

    /// Where byte `done` (counted from the side's start) is.
    fn next(&self, done: usize) -> Next {
        let Some(a) = &self.array else {
            return Next::Free(self.base + done);
        };
        let row = a.row_bytes();
        let at = self.offset + done;
        let (r, x) = (at / row, at % row);
        let address = self.base + r * a.pitch + x;
        if x == 0 {
            Next::RowStart {
                at: address,
                bytes: row,
                pitch: a.pitch,
            }
        } else {
            Next::MidRow {
                at: address,
                room: row - x,
            }
        }
    }
}

/// Copies `count` bytes between two linear sides (`hipMemcpyToArray`, `hipMemcpyHtoA`,
/// `hipMemcpyAtoA`, ...), on `on` or synchronously: whole rows as one 2-D copy where both sides
/// are at a row start (rows of the same length, or plain memory), the pieces between as 1-D
/// copies.
pub fn copy_linear(
    device: &dyn Device,
    on: Option<&Stream>,
    dst: Linear,
    src: Linear,
    count: usize,
    kind: MemcpyKind,
) -> HipResult<()> {
    let (d, s) = (
        Run::new(dst, count, "destination")?,
        Run::new(src, count, "source")?,
    );
    let mut done = 0;
    while done < count {
        let left = count - done;
        let (dn, sn) = (d.next(done), s.next(done));
        let rows = match (&dn, &sn) {
            (Next::RowStart { bytes, pitch, .. }, Next::Free(_)) => Some((*bytes, *pitch, *bytes)),
            (Next::Free(_), Next::RowStart { bytes, pitch, .. }) => Some((*bytes, *bytes, *pitch)),
            (
                Next::RowStart {
                    bytes, pitch: dp, ..
                },
                Next::RowStart {
                    bytes: sb,
                    pitch: sp,
                    ..
                },
            ) if bytes == sb => Some((*bytes, *dp, *sp)),
            _ => None,
        }
        .filter(|&(row, _, _)| left >= row);
        let (dst_at, src_at) = (at_of(&dn), at_of(&sn));
        let piece = match rows {
            Some((row, dpitch, spitch)) => Copy2d {
                dst: dst_at as *mut c_void,
                dpitch,
                src: src_at as *const c_void,
                spitch,
                width: row,
                height: left / row,
            },
            None => {
                let n = left.min(room_of(&dn, left)).min(room_of(&sn, left));
                Copy2d {
                    dst: dst_at as *mut c_void,
                    dpitch: n,
                    src: src_at as *const c_void,
                    spitch: n,
                    width: n,
                    height: 1,
                }
            }
        };
        copy(device, on, Copy3d::planar(piece), kind)?;
        done += piece.width * piece.height;
    }
    Ok(())
}

fn at_of(n: &Next) -> usize {
    match *n {
        Next::Free(at) | Next::RowStart { at, .. } | Next::MidRow { at, .. } => at,
    }
}

/// Bytes that follow contiguously from `n` (at most `left`).
fn room_of(n: &Next, left: usize) -> usize {
    match *n {
        Next::Free(_) => left,
        Next::RowStart { bytes, .. } => bytes,
        Next::MidRow { room, .. } => room,
    }
}

/// HIP's `hipPos`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pos {
    pub x: usize,
    pub y: usize,
    pub z: usize,
}

/// HIP's `hipMemcpy3DParms`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Memcpy3DParms {
    pub src_array: usize,
    pub src_pos: Pos,
    pub src_ptr: PitchedPtr,
    pub dst_array: usize,
    pub dst_pos: Pos,
    pub dst_ptr: PitchedPtr,
    pub extent: Extent,
    pub kind: i32,
}

/// One side of `hipMemcpy3D`: an array (positions in texels) or a pitched pointer (in bytes).
fn parms_side(role: &str, array: usize, ptr: &PitchedPtr, pos: Pos) -> HipResult<(Side, usize)> {
    if array == 0 {
        let place = Place::Memory {
            ptr: ptr.ptr,
            pitch: ptr.pitch,
            rows: ptr.ysize,
        };
        return Ok((Side::at(place, pos.x, pos.y, pos.z), 1));
    }
    if !ptr.ptr.is_null() {
        return Err(Failure::invalid_value(format!(
            "the {role} names both an array and a pointer"
        )));
    }
    let a = get(array)?;
    let texel = a.format.texel_bytes();
    let x = pos
        .x
        .checked_mul(texel)
        .ok_or_else(|| Failure::invalid_value(format!("the {role}'s position overflows")))?;
    Ok((Side::at(Place::Array(a), x, pos.y, pos.z), texel))
}

/// `hipMemcpy3D[Async]` (its kind converted by the caller): synchronous when `on` is `None`. The
/// extent counts texels when an array takes part, else bytes.
pub fn copy_3d(
    device: &dyn Device,
    on: Option<&Stream>,
    p: &Memcpy3DParms,
    kind: MemcpyKind,
) -> HipResult<()> {
    match region_3d(p)? {
        Some(region) => copy(device, on, region, kind),
        None => Ok(()),
    }
}

/// The region a `hipMemcpy3DParms` names, its arrays resolved and its sides checked (`None`
/// for an empty extent): what `hipMemcpy3D` copies and a graph's copy node keeps.
pub fn region_3d(p: &Memcpy3DParms) -> HipResult<Option<Copy3d>> {
    let (src, src_texel) = parms_side("source", p.src_array, &p.src_ptr, p.src_pos)?;
    let (dst, dst_texel) = parms_side("destination", p.dst_array, &p.dst_ptr, p.dst_pos)?;
    let texel = match (p.src_array != 0, p.dst_array != 0) {
        (true, true) if src_texel != dst_texel => {
            return Err(Failure::invalid_value(format!(
                "the arrays' texels differ in size ({src_texel} and {dst_texel} bytes)"
            )))
        }
        (true, _) => src_texel,
        (false, _) => dst_texel,
    };
    let e = p.extent;
    let width = e
        .width
        .checked_mul(texel)
        .ok_or_else(|| Failure::invalid_value("the copy's width overflows"))?;
    region(&dst, &src, width, e.height, e.depth)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_formats() {
        let d = |x, y, z, w, f| ChannelFormatDesc { x, y, z, w, f };
        let f = Format::from_desc(&d(8, 8, 8, 8, 1)).unwrap();
        assert_eq!((f.channels, f.channel_bytes, f.kind), (4, 1, KIND_UNSIGNED));
        assert_eq!(f.texel_bytes(), 4);
        assert_eq!(
            Format::from_desc(&d(32, 0, 0, 0, 2)).unwrap().texel_bytes(),
            4
        );
        assert_eq!(
            Format::from_desc(&d(16, 16, 0, 0, 2))
                .unwrap()
                .texel_bytes(),
            4
        );
        for bad in [
            d(0, 0, 0, 0, 2),
            d(8, 0, 8, 0, 1),
            d(8, 16, 0, 0, 1),
            d(8, 0, 0, 0, 2),
            d(8, 0, 0, 0, 3),
            d(8, 8, 8, 0, 1),
            d(32, 32, 32, 0, 2),
            d(64, 0, 0, 0, 0),
        ] {
            let e = Format::from_desc(&bad).unwrap_err();
            assert_eq!(e.code, HipError::InvalidChannelDescriptor, "{bad:?}");
        }
    }

    #[test]
    fn pointer_sides_check_pitch_and_rows() {
        let mut buf = [0u8; 16];
        let ptr = buf.as_mut_ptr().cast();
        let memory = |rows| Place::Memory {
            ptr,
            pitch: 8,
            rows,
        };
        let s = resolve("source", &Side::at(memory(2), 0, 0, 0), 8, 2, 1).unwrap();
        assert_eq!((s.pitch, s.slice), (8, 16));
        let e = resolve("source", &Side::at(memory(2), 1, 0, 0), 8, 2, 1).unwrap_err();
        assert_eq!(e.code, HipError::InvalidPitchValue);
        let e = resolve("source", &Side::at(memory(2), 0, 1, 0), 8, 2, 2).unwrap_err();
        assert_eq!(e.code, HipError::InvalidValue);
        let e = resolve("source", &Side::at(memory(0), 0, 0, 0), 8, 2, 2).unwrap_err();
        assert_eq!(
            e.code,
            HipError::InvalidValue,
            "several slices need rows per slice"
        );
        let far = Side::at(memory(2), usize::MAX - 2, 0, 0);
        assert_eq!(
            resolve("source", &far, 8, 1, 1).unwrap_err().code,
            HipError::InvalidValue
        );
    }

    #[test]
    fn driver_formats_round_trip() {
        for f in &DRIVER_FORMATS {
            for channels in [1, 2, 4] {
                let desc = desc_of_driver_format(f.code, channels).unwrap();
                let format = Format::from_desc(&desc).unwrap();
                assert_eq!(format.channels, channels);
                assert_eq!(format.driver_format(), f.code);
            }
        }
        assert!(desc_of_driver_format(0x20, 3).is_err());
        assert!(desc_of_driver_format(0x04, 1).is_err());
    }
}
