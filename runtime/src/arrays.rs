//! HIP arrays (`hipArray_t`) and the copies that reach them, with `hipMemcpy3D`.
//!
//! An array is device memory laid out as a pitched 3-D allocation (rows padded to the allocation
//! alignment, slices of `rows` rows one after the other), with the channel format and extent it
//! was created with. The handle is a number of the handle table (`handles`), never a pointer the
//! runtime follows, so a freed or foreign array is `hipErrorInvalidHandle`. Every copy is a
//! region copy of the backend (`ops::copy`), which checks device ranges against the allocation
//! table on OpenCL and lets the driver check them on CUDA.

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
    /// The format a channel description names. Channels are used from x on, all of one size
    /// (8, 16 or 32 bits; floats 16 or 32); anything else is `hipErrorInvalidChannelDescriptor`.
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
}

impl Array {
    pub fn row_bytes(&self) -> usize {
        self.width * self.format.texel_bytes()
    }

    pub fn slice_pitch(&self) -> usize {
        self.pitch * self.rows
    }
}

/// `hipArrayLayered` and the other flags hipmlir accepts (surface load/store and gather change
/// nothing for memory read in software).
pub const ARRAY_LAYERED: u32 = 0x1;
const ARRAY_SURFACE_LOAD_STORE: u32 = 0x2;
const ARRAY_CUBEMAP: u32 = 0x4;
const ARRAY_TEXTURE_GATHER: u32 = 0x8;

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
    let format = Format::from_desc(desc)?;
    if flags & !(ARRAY_LAYERED | ARRAY_SURFACE_LOAD_STORE | ARRAY_CUBEMAP | ARRAY_TEXTURE_GATHER)
        != 0
    {
        return Err(Failure::invalid_value(format!(
            "array flags {flags:#x} are not hipArray* flags"
        )));
    }
    if flags & ARRAY_CUBEMAP != 0 {
        return Err(Failure::new(
            HipError::NotSupported,
            "not supported by hipmlir: cubemap arrays",
        ));
    }
    if extent.width == 0 {
        return Err(Failure::invalid_value(
            "an array needs a width of at least 1",
        ));
    }
    if flags & ARRAY_LAYERED != 0 && extent.depth == 0 {
        return Err(Failure::invalid_value(
            "a layered array needs at least one layer (extent.depth)",
        ));
    }
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
    };
    Ok(table().insert(Arc::new(array)))
}

/// `hipFreeArray`: null is a no-op.
pub fn free(device: &dyn Device, handle: usize) -> HipResult<()> {
    if handle == 0 {
        return Ok(());
    }
    get(handle)?;
    let array = table()
        .remove(handle)
        .ok_or_else(|| Failure::new(HipError::InvalidHandle, "the array was freed meanwhile"))?;
    match array.data {
        0 => Ok(()),
        data => device.free(data as *mut c_void, FreeKind::Device),
    }
}

fn out_of_array(what: String) -> Failure {
    Failure::invalid_value(format!("{what} lies outside the array"))
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
    let array = get(handle)?;
    let fits_x = w_offset
        .checked_add(width)
        .is_some_and(|e| e <= array.row_bytes());
    let fits_y = h_offset
        .checked_add(height)
        .is_some_and(|e| e <= array.rows);
    if !fits_x || !fits_y {
        return Err(out_of_array(format!(
            "a {width}-byte x {height}-row copy at byte {w_offset}, row {h_offset} (the array \
             has rows of {} bytes, {} rows)",
            array.row_bytes(),
            array.rows
        )));
    }
    let inside = (array.data + h_offset * array.pitch + w_offset) as *mut c_void;
    let c = if to_array {
        Copy2d {
            dst: inside,
            dpitch: array.pitch,
            src: other,
            spitch: other_pitch,
            width,
            height,
        }
    } else {
        Copy2d {
            dst: other,
            dpitch: other_pitch,
            src: inside,
            spitch: array.pitch,
            width,
            height,
        }
    };
    copy(device, on, Copy3d::planar(c), kind)
}

/// `hipMemcpyToArray` / `hipMemcpyFromArray`: `count` bytes read as the array's rows one after
/// the other (across slices), starting `w_offset` bytes into row `h_offset`.
#[allow(clippy::too_many_arguments)]
pub fn copy_linear(
    device: &dyn Device,
    handle: usize,
    w_offset: usize,
    h_offset: usize,
    other: *mut c_void,
    count: usize,
    kind: MemcpyKind,
    to_array: bool,
) -> HipResult<()> {
    let array = get(handle)?;
    let row = array.row_bytes();
    let total_rows = array.rows * array.slices;
    let start = h_offset
        .checked_mul(row)
        .and_then(|v| v.checked_add(w_offset))
        .filter(|_| w_offset < row || count == 0);
    let end = start.and_then(|s| s.checked_add(count));
    if end.is_none_or(|e| e > row * total_rows) {
        return Err(out_of_array(format!(
            "a {count}-byte copy at byte {w_offset} of row {h_offset} (rows of {row} bytes, \
             {total_rows} rows)"
        )));
    }
    // The pieces: the rest of the first row, whole rows, the start of the last row.
    let (mut done, mut r, mut x) = (0usize, h_offset, w_offset);
    while done < count {
        let whole_rows = if x == 0 { (count - done) / row } else { 0 };
        let (width, height) = if whole_rows > 0 {
            (row, whole_rows)
        } else {
            ((row - x).min(count - done), 1)
        };
        let inside = (array.data + r * array.pitch + x) as *mut c_void;
        // SAFETY: only an address computation; the copy checks or vouches for the range.
        let outside = unsafe { other.cast::<u8>().add(done) }.cast::<c_void>();
        let c = if to_array {
            Copy2d {
                dst: inside,
                dpitch: array.pitch,
                src: outside,
                spitch: row,
                width,
                height,
            }
        } else {
            Copy2d {
                dst: outside,
                dpitch: row,
                src: inside,
                spitch: array.pitch,
                width,
                height,
            }
        };
        copy(device, None, Copy3d::planar(c), kind)?;
        done += width * height;
        if x + width == row || height > 1 {
            r += height;
            x = 0;
        } else {
            x += width;
        }
    }
    Ok(())
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

/// One side of a 3-D copy: the address of its first byte, its row and slice pitches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Side {
    pub start: usize,
    pub pitch: usize,
    pub slice: usize,
}

fn side(
    role: &str,
    array: Option<&Array>,
    ptr: &PitchedPtr,
    pos: Pos,
    width_bytes: usize,
    extent: Extent,
) -> HipResult<Side> {
    let overflow = || Failure::invalid_value(format!("the {role}'s position overflows"));
    match array {
        Some(a) => {
            let texel = a.format.texel_bytes();
            let fits = pos
                .x
                .checked_add(extent.width)
                .is_some_and(|e| e <= a.width)
                && pos
                    .y
                    .checked_add(extent.height)
                    .is_some_and(|e| e <= a.rows)
                && pos
                    .z
                    .checked_add(extent.depth)
                    .is_some_and(|e| e <= a.slices);
            if !fits {
                return Err(out_of_array(format!(
                    "the {role} region at ({}, {}, {}) of {} x {} x {} texels (the array is {} x \
                     {} x {})",
                    pos.x,
                    pos.y,
                    pos.z,
                    extent.width,
                    extent.height,
                    extent.depth,
                    a.width,
                    a.rows,
                    a.slices
                )));
            }
            Ok(Side {
                start: a.data + pos.z * a.slice_pitch() + pos.y * a.pitch + pos.x * texel,
                pitch: a.pitch,
                slice: a.slice_pitch(),
            })
        }
        None => {
            if ptr.ptr.is_null() {
                return Err(Failure::invalid_value(format!(
                    "the {role} has neither an array nor a pointer"
                )));
            }
            let row_end = pos.x.checked_add(width_bytes).ok_or_else(overflow)?;
            if row_end > ptr.pitch {
                return Err(Failure::new(
                    HipError::InvalidPitchValue,
                    format!(
                        "the {role}'s rows ({width_bytes} bytes from byte {}) exceed its pitch {}",
                        pos.x, ptr.pitch
                    ),
                ));
            }
            let several_slices = extent.depth > 1 || pos.z > 0;
            let rows_needed = pos.y.checked_add(extent.height).ok_or_else(overflow)?;
            if several_slices && ptr.ysize < rows_needed {
                return Err(Failure::invalid_value(format!(
                    "the {role}'s slices hold {} rows (ysize), fewer than the {rows_needed} the \
                     copy reaches",
                    ptr.ysize
                )));
            }
            let slice = ptr
                .pitch
                .checked_mul(ptr.ysize.max(rows_needed))
                .ok_or_else(overflow)?;
            let offset = pos
                .z
                .checked_mul(slice)
                .and_then(|v| v.checked_add(pos.y.checked_mul(ptr.pitch)?))
                .and_then(|v| v.checked_add(pos.x))
                .ok_or_else(overflow)?;
            Ok(Side {
                start: (ptr.ptr as usize)
                    .checked_add(offset)
                    .ok_or_else(overflow)?,
                pitch: ptr.pitch,
                slice,
            })
        }
    }
}

/// `hipMemcpy3D[Async]` (its kind converted by the caller): synchronous when `on` is `None`.
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
    let src_array = (p.src_array != 0).then(|| get(p.src_array)).transpose()?;
    let dst_array = (p.dst_array != 0).then(|| get(p.dst_array)).transpose()?;
    if src_array.is_some() && !p.src_ptr.ptr.is_null() {
        return Err(Failure::invalid_value(
            "the source names both an array and a pointer",
        ));
    }
    if dst_array.is_some() && !p.dst_ptr.ptr.is_null() {
        return Err(Failure::invalid_value(
            "the destination names both an array and a pointer",
        ));
    }
    // The extent counts texels when an array takes part, else bytes.
    let texel = match (&src_array, &dst_array) {
        (Some(s), Some(d)) if s.format.texel_bytes() != d.format.texel_bytes() => {
            return Err(Failure::invalid_value(format!(
                "the arrays' texels differ in size ({} and {} bytes)",
                s.format.texel_bytes(),
                d.format.texel_bytes()
            )))
        }
        (Some(a), _) | (_, Some(a)) => a.format.texel_bytes(),
        (None, None) => 1,
    };
    let e = p.extent;
    if e.width == 0 || e.height == 0 || e.depth == 0 {
        return Ok(None);
    }
    let width = e
        .width
        .checked_mul(texel)
        .ok_or_else(|| Failure::invalid_value("the copy's width overflows"))?;
    let src = side(
        "source",
        src_array.as_deref(),
        &p.src_ptr,
        p.src_pos,
        width,
        e,
    )?;
    let dst = side(
        "destination",
        dst_array.as_deref(),
        &p.dst_ptr,
        p.dst_pos,
        width,
        e,
    )?;
    Ok(Some(Copy3d {
        dst: dst.start as *mut c_void,
        dst_pitch: dst.pitch,
        dst_slice: dst.slice,
        src: src.start as *const c_void,
        src_pitch: src.pitch,
        src_slice: src.slice,
        width,
        height: e.height,
        depth: e.depth,
    }))
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
            d(64, 0, 0, 0, 0),
        ] {
            let e = Format::from_desc(&bad).unwrap_err();
            assert_eq!(e.code, HipError::InvalidChannelDescriptor, "{bad:?}");
        }
    }

    #[test]
    fn pointer_sides_check_pitch_and_rows() {
        let mut buf = [0u8; 16];
        let ptr = PitchedPtr {
            ptr: buf.as_mut_ptr().cast(),
            pitch: 8,
            xsize: 8,
            ysize: 2,
        };
        let extent = Extent {
            width: 8,
            height: 2,
            depth: 1,
        };
        let s = side("source", None, &ptr, Pos::default(), 8, extent).unwrap();
        assert_eq!((s.pitch, s.slice), (8, 16));
        let e = side("source", None, &ptr, Pos { x: 1, y: 0, z: 0 }, 8, extent).unwrap_err();
        assert_eq!(e.code, HipError::InvalidPitchValue);
        let deep = Extent { depth: 2, ..extent };
        let e = side("source", None, &ptr, Pos { x: 0, y: 1, z: 0 }, 8, deep).unwrap_err();
        assert_eq!(e.code, HipError::InvalidValue);
    }
}
