//! Pitched copies between pageable host memory that the device does not reach (a device without
//! shared system memory access) and memory it does: the rows go through a staging buffer of USM
//! host memory, packed, with a loop of `memcpy` on the host side and the rectangle kernel
//! (`rect`) on the device side, so the copy runs at memory speed rather than one command per
//! row. The call waits for its command before it returns (and frees the staging buffer), as a
//! copy touching pageable memory does anyway: a source is read into the staging buffer before
//! the command is enqueued, a destination written from it after the command is done.

use std::ffi::c_void;
use std::sync::{Mutex, MutexGuard};

use super::device::Runtime;
use super::rect::{self, RectKernels};
use super::stream::{cl_failure, ClQueue};
use crate::backend::Copy3d;
use crate::error::{Failure, HipError, HipResult};

/// Which side of the copy is the pageable one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageableSide {
    Source,
    Destination,
}

/// The largest staging buffer a device keeps for the next copy: a fresh one costs its first
/// touch of every page (a 16 MiB copy took 25-55 ms through a new buffer, a few through a kept
/// one); larger copies take a buffer of their own, freed after.
const KEEP: usize = 64 << 20;

/// USM host memory of the runtime's own.
struct Block {
    p: *mut c_void,
    bytes: usize,
}

// SAFETY: an address of the device's context, used under its owner's lock.
unsafe impl Send for Block {}

impl Block {
    /// `None` where the memory model has no host memory the device reaches.
    fn new(rt: &Runtime, bytes: usize) -> Option<HipResult<Self>> {
        let result = rt.memory.alloc_host(rt.context.get(), bytes)?;
        Some(result.map(|p| Block { p, bytes }).map_err(|e| {
            Failure::new(HipError::OutOfMemory, format!("staging {bytes} bytes: {e}"))
        }))
    }

    fn free(self, rt: &Runtime) {
        // SAFETY: allocated by this context; every command using it was waited for.
        let _ = unsafe { rt.memory.free(rt.context.get(), self.p) };
    }
}

/// A device's kept staging buffer (`Runtime::staging`).
#[derive(Default)]
pub struct KeptStaging(Mutex<Option<Block>>);

impl std::fmt::Debug for KeptStaging {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeptStaging")
    }
}

/// The staging buffer of one copy: the device's kept one (held for the copy), or its own.
enum Lease<'r> {
    Kept(MutexGuard<'r, Option<Block>>),
    Own(&'r Runtime, Option<Block>),
}

impl<'r> Lease<'r> {
    /// At least `bytes`; `None` where the memory model has no staging memory.
    fn take(rt: &'r Runtime, bytes: usize) -> Option<HipResult<Self>> {
        let kept = if bytes <= KEEP {
            rt.staging.0.try_lock().ok()
        } else {
            None
        };
        let Some(mut kept) = kept else {
            return Some(Block::new(rt, bytes)?.map(|b| Lease::Own(rt, Some(b))));
        };
        if kept.as_ref().is_none_or(|b| b.bytes < bytes) {
            if let Some(old) = kept.take() {
                old.free(rt);
            }
            match Block::new(rt, bytes)? {
                Ok(b) => *kept = Some(b),
                Err(e) => return Some(Err(e)),
            }
        }
        Some(Ok(Lease::Kept(kept)))
    }

    fn ptr(&self) -> *mut c_void {
        match self {
            Lease::Kept(guard) => guard.as_ref().map_or(std::ptr::null_mut(), |b| b.p),
            Lease::Own(_, b) => b.as_ref().map_or(std::ptr::null_mut(), |b| b.p),
        }
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if let Lease::Own(rt, block) = self {
            if let Some(b) = block.take() {
                b.free(rt);
            }
        }
    }
}

/// Each row of the pageable side, with its place in the packed staging buffer: (row, offset).
fn rows(c: &Copy3d, side: PageableSide) -> impl Iterator<Item = (usize, usize)> + '_ {
    let (base, pitch, slice) = match side {
        PageableSide::Source => (c.src as usize, c.src_pitch, c.src_slice),
        PageableSide::Destination => (c.dst as usize, c.dst_pitch, c.dst_slice),
    };
    (0..c.depth).flat_map(move |z| {
        (0..c.height).map(move |y| (base + z * slice + y * pitch, (z * c.height + y) * c.width))
    })
}

/// Runs `c` (ranges checked, the other side reachable by the device) through a staging buffer
/// and waits for it; `None` where the memory model has no staging memory.
pub fn copy(
    rt: &Runtime,
    target: &ClQueue,
    kernels: &RectKernels,
    c: &Copy3d,
    side: PageableSide,
) -> Option<HipResult<()>> {
    let bytes = c
        .width
        .checked_mul(c.height)
        .and_then(|v| v.checked_mul(c.depth));
    let Some(bytes) = bytes else {
        return Some(Err(Failure::invalid_value("the copy's extent overflows")));
    };
    let lease = match Lease::take(rt, bytes)? {
        Ok(lease) => lease,
        Err(e) => return Some(Err(e)),
    };
    let staging = lease.ptr();
    let packed_pitch = c.width;
    let packed_slice = c.width * c.height;
    let device_copy = match side {
        PageableSide::Source => {
            for (row, at) in rows(c, side) {
                // SAFETY: the program's source rows (valid for the call, as HIP requires) and
                // the staging buffer of `bytes`, which holds every packed row.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        row as *const u8,
                        staging.cast::<u8>().add(at),
                        c.width,
                    )
                }
            }
            Copy3d {
                src: staging,
                src_pitch: packed_pitch,
                src_slice: packed_slice,
                ..*c
            }
        }
        PageableSide::Destination => Copy3d {
            dst: staging,
            dst_pitch: packed_pitch,
            dst_slice: packed_slice,
            ..*c
        },
    };
    let run = || -> HipResult<()> {
        let event = target.enqueue(rt, &[], |queue, deps| {
            rect::copy(rt, kernels, queue, &device_copy, deps)
        })?;
        event
            .wait()
            .map_err(|e| cl_failure(&format!("copying {bytes} bytes through staging"), e))?;
        if side == PageableSide::Destination {
            for (row, at) in rows(c, side) {
                // SAFETY: the staging buffer holds every packed row, written by the finished
                // command; the destination rows are the program's.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        staging.cast::<u8>().add(at),
                        row as *mut u8,
                        c.width,
                    )
                }
            }
        }
        Ok(())
    };
    Some(run())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_pack_slices_one_after_the_other() {
        let c = Copy3d {
            dst: 0x1000 as *mut c_void,
            dst_pitch: 100,
            dst_slice: 1000,
            src: 0x9000 as *const c_void,
            src_pitch: 64,
            src_slice: 512,
            width: 10,
            height: 3,
            depth: 2,
        };
        let src: Vec<_> = rows(&c, PageableSide::Source).collect();
        assert_eq!(
            src,
            [
                (0x9000, 0),
                (0x9000 + 64, 10),
                (0x9000 + 128, 20),
                (0x9000 + 512, 30),
                (0x9000 + 576, 40),
                (0x9000 + 640, 50)
            ]
        );
        let dst: Vec<_> = rows(&c, PageableSide::Destination).collect();
        assert_eq!(dst[4], (0x1000 + 1000 + 100, 40));
    }
}
