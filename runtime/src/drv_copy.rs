//! The driver API's copy descriptions (`hip_Memcpy2D` of `hipMemcpyParam2D` and
//! `hipDrvMemcpy2DUnaligned`, `HIP_MEMCPY3D` of `hipDrvMemcpy3D`), turned into region copies
//! between arrays and host or device memory (`arrays::copy_region`). Each side names its memory
//! type; the copy's direction follows from the two types, as in the driver API.

use std::ffi::c_void;

use crate::arrays::{copy_region, region, Place, Side};
use crate::backend::{Copy3d, Device, MemcpyKind, MemoryType, Stream};
use crate::error::{Failure, HipError, HipResult};

/// HIP's `hip_Memcpy2D`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_snake_case)]
pub struct Memcpy2D {
    pub srcXInBytes: usize,
    pub srcY: usize,
    pub srcMemoryType: i32,
    pub srcHost: *const c_void,
    pub srcDevice: *mut c_void,
    pub srcArray: usize,
    pub srcPitch: usize,
    pub dstXInBytes: usize,
    pub dstY: usize,
    pub dstMemoryType: i32,
    pub dstHost: *mut c_void,
    pub dstDevice: *mut c_void,
    pub dstArray: usize,
    pub dstPitch: usize,
    pub WidthInBytes: usize,
    pub Height: usize,
}

/// HIP's `HIP_MEMCPY3D`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_snake_case)]
pub struct Memcpy3D {
    pub srcXInBytes: usize,
    pub srcY: usize,
    pub srcZ: usize,
    pub srcLOD: usize,
    pub srcMemoryType: i32,
    pub srcHost: *const c_void,
    pub srcDevice: *mut c_void,
    pub srcArray: usize,
    pub srcPitch: usize,
    pub srcHeight: usize,
    pub dstXInBytes: usize,
    pub dstY: usize,
    pub dstZ: usize,
    pub dstLOD: usize,
    pub dstMemoryType: i32,
    pub dstHost: *mut c_void,
    pub dstDevice: *mut c_void,
    pub dstArray: usize,
    pub dstPitch: usize,
    pub dstHeight: usize,
    pub WidthInBytes: usize,
    pub Height: usize,
    pub Depth: usize,
}

/// One side as the descriptions give it.
struct Described {
    memory: i32,
    host: *const c_void,
    device: *mut c_void,
    array: usize,
    pitch: usize,
    /// Rows per slice (3-D copies).
    rows: usize,
    x: usize,
    y: usize,
    z: usize,
    lod: usize,
}

impl Described {
    /// A pitch or a slice height of 0 on a side in memory: its rows (slices) follow each other
    /// with no gap, as AMD's runtime takes them (the suite's positive copies pass 0 so); an
    /// array's own layout is used whatever the description says.
    fn packed(mut self, width: usize, height: usize) -> Self {
        if self.pitch == 0 {
            self.pitch = self.x.saturating_add(width);
        }
        if self.rows == 0 {
            self.rows = self.y.saturating_add(height);
        }
        self
    }
}

/// The side's place and whether it is device memory (`None`: unified memory, the pointer
/// tells).
fn side(role: &str, d: &Described) -> HipResult<(Side, Option<bool>)> {
    if d.lod != 0 {
        return Err(Failure::invalid_value(format!(
            "the {role}'s mipmap level (LOD) is {}: only 0 is copied (use the level's array, \
             hipGetMipmappedArrayLevel)",
            d.lod
        )));
    }
    let memory = |ptr: *mut c_void| Place::Memory {
        ptr,
        pitch: d.pitch,
        rows: d.rows,
    };
    let (place, on_device) = match MemoryType::parse(d.memory)? {
        MemoryType::Host => (memory(d.host as *mut c_void), Some(false)),
        MemoryType::Device => (memory(d.device), Some(true)),
        MemoryType::Array => (Place::array(d.array)?, Some(true)),
        // Unified and managed memory: the pointer tells; HIP reads it from `device`.
        MemoryType::Unified | MemoryType::Managed => (memory(d.device), None),
        MemoryType::Unregistered => {
            return Err(Failure::invalid_value(format!(
                "the {role}'s memory type is hipMemoryTypeUnregistered"
            )))
        }
    };
    Ok((Side::at(place, d.x, d.y, d.z), on_device))
}

/// The copy's kind from where its two sides are.
fn kind_of(dst: Option<bool>, src: Option<bool>) -> MemcpyKind {
    match (dst, src) {
        (Some(false), Some(false)) => MemcpyKind::HostToHost,
        (Some(true), Some(false)) => MemcpyKind::HostToDevice,
        (Some(false), Some(true)) => MemcpyKind::DeviceToHost,
        (Some(true), Some(true)) => MemcpyKind::DeviceToDevice,
        _ => MemcpyKind::Default,
    }
}

#[allow(clippy::too_many_arguments)]
fn run(
    device: &dyn Device,
    on: Option<&Stream>,
    src: Described,
    dst: Described,
    width: usize,
    height: usize,
    depth: usize,
) -> HipResult<()> {
    let (src, src_device) = side("source", &src.packed(width, height))?;
    let (dst, dst_device) = side("destination", &dst.packed(width, height))?;
    let kind = kind_of(dst_device, src_device);
    // The driver API answers a pitch shorter than a row hipErrorInvalidValue (HIP's
    // hipMemcpyParam2D and hipDrvMemcpy3D), where the runtime API's copies answer
    // hipErrorInvalidPitchValue.
    copy_region(device, on, &dst, &src, width, height, depth, kind).map_err(|mut f| {
        if f.code == HipError::InvalidPitchValue {
            f.code = HipError::InvalidValue;
        }
        f
    })
}

/// `hipMemcpyParam2D[Async]` (and `hipDrvMemcpy2DUnaligned`): synchronous when `on` is `None`.
pub fn copy_2d(device: &dyn Device, on: Option<&Stream>, p: &Memcpy2D) -> HipResult<()> {
    let src = Described {
        memory: p.srcMemoryType,
        host: p.srcHost,
        device: p.srcDevice,
        array: p.srcArray,
        pitch: p.srcPitch,
        rows: 0,
        x: p.srcXInBytes,
        y: p.srcY,
        z: 0,
        lod: 0,
    };
    let dst = Described {
        memory: p.dstMemoryType,
        host: p.dstHost,
        device: p.dstDevice,
        array: p.dstArray,
        pitch: p.dstPitch,
        rows: 0,
        x: p.dstXInBytes,
        y: p.dstY,
        z: 0,
        lod: 0,
    };
    run(device, on, src, dst, p.WidthInBytes, p.Height, 1)
}

/// `hipDrvMemcpy3D[Async]`: synchronous when `on` is `None`.
pub fn copy_3d(device: &dyn Device, on: Option<&Stream>, p: &Memcpy3D) -> HipResult<()> {
    let (src, dst) = described_3d(p);
    run(device, on, src, dst, p.WidthInBytes, p.Height, p.Depth)
}

/// `HIP_MEMCPY3D` as the region copy it makes and its kind, checked but not run (a graph's
/// copy node, `hipDrvGraphAddMemcpyNode`); `None` for an empty copy.
pub fn region_3d(p: &Memcpy3D) -> HipResult<(Option<Copy3d>, MemcpyKind)> {
    let (src, dst) = described_3d(p);
    let (src, src_device) = side("source", &src.packed(p.WidthInBytes, p.Height))?;
    let (dst, dst_device) = side("destination", &dst.packed(p.WidthInBytes, p.Height))?;
    let copy = region(&dst, &src, p.WidthInBytes, p.Height, p.Depth)?;
    Ok((copy, kind_of(dst_device, src_device)))
}

/// `HIP_MEMCPY3D`'s two sides, (source, destination).
fn described_3d(p: &Memcpy3D) -> (Described, Described) {
    let src = Described {
        memory: p.srcMemoryType,
        host: p.srcHost,
        device: p.srcDevice,
        array: p.srcArray,
        pitch: p.srcPitch,
        rows: p.srcHeight,
        x: p.srcXInBytes,
        y: p.srcY,
        z: p.srcZ,
        lod: p.srcLOD,
    };
    let dst = Described {
        memory: p.dstMemoryType,
        host: p.dstHost,
        device: p.dstDevice,
        array: p.dstArray,
        pitch: p.dstPitch,
        rows: p.dstHeight,
        x: p.dstXInBytes,
        y: p.dstY,
        z: p.dstZ,
        lod: p.dstLOD,
    };
    (src, dst)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_are_hips() {
        // Every field is 8 bytes wide or padded to 8 (the memory type is an int).
        assert_eq!(std::mem::size_of::<Memcpy2D>(), 16 * 8);
        assert_eq!(std::mem::size_of::<Memcpy3D>(), 23 * 8);
        assert_eq!(std::mem::offset_of!(Memcpy2D, srcHost), 24);
        assert_eq!(std::mem::offset_of!(Memcpy2D, WidthInBytes), 112);
        assert_eq!(std::mem::offset_of!(Memcpy3D, srcHost), 40);
        assert_eq!(std::mem::offset_of!(Memcpy3D, Depth), 176);
    }

    #[test]
    fn directions_follow_the_memory_types() {
        assert_eq!(kind_of(Some(true), Some(false)), MemcpyKind::HostToDevice);
        assert_eq!(kind_of(Some(false), Some(true)), MemcpyKind::DeviceToHost);
        assert_eq!(kind_of(Some(true), Some(true)), MemcpyKind::DeviceToDevice);
        assert_eq!(kind_of(Some(false), Some(false)), MemcpyKind::HostToHost);
        assert_eq!(kind_of(None, Some(true)), MemcpyKind::Default);
    }
}
