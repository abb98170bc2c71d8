//! The memory primitives that arrays, texture objects and 3-D copies need, on whichever backend
//! serves the process: their logic (layouts, descriptors, slicing) is written once over these.

use std::ffi::c_void;

use crate::error::HipResult;
use crate::memory::{self, Copy2d};

/// The backend that serves this process's memory calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryOps {
    OpenCl,
    Cuda,
}

impl MemoryOps {
    /// The process's backend, with the CUDA context made current for this thread.
    pub fn current() -> HipResult<MemoryOps> {
        match crate::select::cuda()? {
            Some(cu) => {
                cu.current()?;
                Ok(MemoryOps::Cuda)
            }
            None => Ok(MemoryOps::OpenCl),
        }
    }

    /// Device memory, as `hipMalloc` allocates it (0 bytes gives null).
    pub fn malloc(self, size: usize) -> HipResult<*mut c_void> {
        match self {
            MemoryOps::OpenCl => memory::malloc(size),
            MemoryOps::Cuda => crate::cuda::memory::malloc(size),
        }
    }

    /// Frees what [`MemoryOps::malloc`] gave (after the work queued before).
    pub fn free(self, p: *mut c_void) -> HipResult<()> {
        match self {
            MemoryOps::OpenCl => memory::free(p),
            MemoryOps::Cuda => crate::cuda::memory::free(p),
        }
    }

    /// A 2-D copy (`hipMemcpy2D`'s checks and semantics): synchronous on the null stream when
    /// `stream` is `None`, else enqueued on that stream.
    pub fn copy_2d(self, c: Copy2d, kind: i32, stream: Option<usize>) -> HipResult<()> {
        match self {
            MemoryOps::OpenCl => match stream {
                None => memory::memcpy_2d(c, kind, 0, true),
                Some(s) => memory::memcpy_2d(c, kind, s, false),
            },
            MemoryOps::Cuda => crate::cuda::memory::memcpy_2d(
                c.dst, c.dpitch, c.src, c.spitch, c.width, c.height, kind, stream,
            ),
        }
    }
}
