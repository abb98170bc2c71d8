//! Mipmapped arrays (`hipMallocMipmappedArray`, `hipMipmappedArrayCreate`): levels of one
//! format, each half the previous one's extent (at least 1; a layered array keeps its layers).
//! Each level is an array of `arrays` owned by the mipmapped array, so the level handles
//! `hipGetMipmappedArrayLevel` gives serve every array copy; they go when it is freed.
//!
//! HIP declares `hipMipmappedArray_t` as a pointer to a public struct (`struct
//! hipMipmappedArray` of driver_types.h), so the handle is the address of a real one that
//! describes the array ([`Description`]); the runtime only ever looks the address up in its table,
//! never follows a pointer it did not make. Descriptions are never freed: a stale handle can never
//! name a newer mipmapped array, and freeing it again is `hipErrorContextIsDestroyed`, as HIP
//! answers.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Mutex, MutexGuard, OnceLock};

use crate::arrays::{self, ChannelFormatDesc, Format, ARRAY_LAYERED};
use crate::backend::{Device, Extent};
use crate::error::{Failure, HipError, HipResult};

/// HIP's `struct hipMipmappedArray`, field for field.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Description {
    /// Level 0's device memory.
    pub data: *mut c_void,
    pub desc: ChannelFormatDesc,
    /// `hipTextureType1D` (1), `2D` (2), `3D` (3), `1DLayered` (0xf1), `2DLayered` (0xf2).
    pub r#type: u32,
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    pub min_mipmap_level: u32,
    pub max_mipmap_level: u32,
    pub flags: u32,
    /// The driver API's `hipArray_Format`.
    pub format: u32,
    pub num_channels: u32,
}

/// A live mipmapped array: its levels' array handles.
struct Mipmap {
    levels: Vec<usize>,
}

/// Live mipmapped arrays by description address.
fn table() -> MutexGuard<'static, HashMap<usize, Mipmap>> {
    static TABLE: OnceLock<Mutex<HashMap<usize, Mipmap>>> = OnceLock::new();
    TABLE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// How many levels an extent has at most: until every dimension that halves is 1.
pub fn max_levels(extent: Extent, layered: bool) -> u32 {
    let depth = if layered { 0 } else { extent.depth };
    let largest = extent.width.max(extent.height).max(depth).max(1);
    usize::BITS - largest.leading_zeros()
}

/// Level `level`'s extent: each dimension halved `level` times (at least 1; a dimension the
/// array lacks stays 0, layers stay).
pub fn level_extent(extent: Extent, level: u32, layered: bool) -> Extent {
    let half = |v: usize| if v == 0 { 0 } else { (v >> level).max(1) };
    Extent {
        width: half(extent.width),
        height: half(extent.height),
        depth: if layered {
            extent.depth
        } else {
            half(extent.depth)
        },
    }
}

fn texture_type(extent: Extent, layered: bool) -> u32 {
    match (layered, extent.height, extent.depth) {
        (true, 0, _) => 0xf1,
        (true, _, _) => 0xf2,
        (false, 0, _) => 1,
        (false, _, 0) => 2,
        _ => 3,
    }
}

/// `hipMallocMipmappedArray`: `levels` levels (0 means 1) of `extent` texels; more levels than
/// the extent halves into is `hipErrorInvalidValue`. Returns the handle.
pub fn allocate(
    device: &dyn Device,
    desc: &ChannelFormatDesc,
    extent: Extent,
    levels: u32,
    flags: u32,
) -> HipResult<usize> {
    let format = Format::from_desc(desc).map_err(|e| Failure::invalid_value(e.message))?;
    let layered = flags & ARRAY_LAYERED != 0;
    // As CUDA documents: the level count is clamped to [1, 1 + floor(log2(largest extent))].
    let levels = levels.clamp(1, max_levels(extent, layered));
    let narrow = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
    let description: &'static mut Description = Box::leak(Box::new(Description {
        data: std::ptr::null_mut(),
        desc: *desc,
        r#type: texture_type(extent, layered),
        width: narrow(extent.width),
        height: narrow(extent.height),
        depth: narrow(extent.depth),
        min_mipmap_level: 0,
        max_mipmap_level: levels - 1,
        flags,
        format: format.driver_format(),
        num_channels: format.channels,
    }));
    let handle = description as *mut Description as usize;
    let mut made = Vec::with_capacity(levels as usize);
    for level in 0..levels {
        let e = level_extent(extent, level, layered);
        match arrays::allocate_owned(device, desc, e, flags, Some(handle)) {
            Ok(array) => made.push(array),
            Err(e) => {
                for array in made {
                    let _ = arrays::release(device, array);
                }
                return Err(e);
            }
        }
    }
    description.data = arrays::get(made[0])?.data as *mut c_void;
    table().insert(handle, Mipmap { levels: made });
    Ok(handle)
}

/// `hipFreeMipmappedArray`: frees every level (after the work queued before). Null is
/// `hipErrorInvalidValue`; anything that is not a live mipmapped array (freed already)
/// `hipErrorContextIsDestroyed`.
pub fn free(device: &dyn Device, handle: usize) -> HipResult<()> {
    if handle == 0 {
        return Err(Failure::invalid_value("the mipmapped array is null"));
    }
    let mipmap = table().remove(&handle).ok_or_else(|| {
        Failure::new(
            HipError::ContextIsDestroyed,
            format!("{handle:#x} is not a live mipmapped array (freed already, or never made)"),
        )
    })?;
    let mut result = Ok(());
    for array in mipmap.levels {
        result = result.and(arrays::release(device, array));
    }
    result
}

/// Forgets the mipmapped arrays whose levels are gone (`hipDeviceReset` forgot the arrays of
/// its device).
pub fn forget_dead() {
    table().retain(|_, m| m.levels.iter().all(|&level| arrays::get(level).is_ok()));
}

/// The arrays of every level of a live mipmapped array, level 0 first (a texture object over it
/// reads them all).
pub fn levels(handle: usize) -> HipResult<Vec<usize>> {
    table()
        .get(&handle)
        .map(|m| m.levels.clone())
        .ok_or_else(|| Failure::invalid_value(format!("{handle:#x} is not a live mipmapped array")))
}

/// The array of level `level` (`hipGetMipmappedArrayLevel`): a null or dead handle is
/// `hipErrorInvalidHandle`, a level past the last `hipErrorInvalidValue`.
pub fn level(handle: usize, level: u32) -> HipResult<usize> {
    let t = table();
    let mipmap = t.get(&handle).ok_or_else(|| {
        Failure::new(
            HipError::InvalidHandle,
            format!("{handle:#x} is not a live mipmapped array"),
        )
    })?;
    mipmap.levels.get(level as usize).copied().ok_or_else(|| {
        Failure::invalid_value(format!(
            "level {level} of a mipmapped array of {} levels",
            mipmap.levels.len()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extent(width: usize, height: usize, depth: usize) -> Extent {
        Extent {
            width,
            height,
            depth,
        }
    }

    #[test]
    fn levels_halve_every_dimension_the_array_has() {
        assert_eq!(max_levels(extent(64, 64, 0), false), 7);
        assert_eq!(max_levels(extent(6, 6, 6), false), 3);
        assert_eq!(max_levels(extent(5, 0, 0), false), 3);
        assert_eq!(
            max_levels(extent(4, 4, 1000), true),
            3,
            "layers do not halve"
        );
        assert_eq!(level_extent(extent(64, 32, 0), 3, false), extent(8, 4, 0));
        assert_eq!(level_extent(extent(64, 2, 8), 3, false), extent(8, 1, 1));
        assert_eq!(level_extent(extent(64, 0, 0), 6, false), extent(1, 0, 0));
        assert_eq!(level_extent(extent(16, 16, 5), 2, true), extent(4, 4, 5));
    }

    #[test]
    fn the_description_is_hips_struct() {
        assert_eq!(std::mem::size_of::<Description>(), 64);
        assert_eq!(std::mem::offset_of!(Description, r#type), 28);
        assert_eq!(std::mem::offset_of!(Description, num_channels), 60);
        assert_eq!(texture_type(extent(8, 0, 0), false), 1);
        assert_eq!(texture_type(extent(8, 8, 0), false), 2);
        assert_eq!(texture_type(extent(8, 8, 8), false), 3);
        assert_eq!(texture_type(extent(8, 8, 3), true), 0xf2);
    }
}
