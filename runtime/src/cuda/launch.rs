//! Kernel launches on the CUDA backend: the packed argument block (laid out by the kernel's
//! metadata, as for OpenCL) becomes `cuLaunchKernel`'s array of parameter pointers, each pointing
//! at its argument's bytes in the block, as the kernel's parameter plan (`params`) says.

use std::ffi::c_void;

use smallvec::SmallVec;

use super::device::CudaDevice;
use super::driver::{check, check_as, sys};
use super::module::{self, Function};
use super::params::{mismatch, Param};
use crate::backend::{Dim3, LaunchConfig};
use crate::error::{Failure, HipError, HipResult};
use crate::registry::KernelRef;

/// Parameters a launch keeps on the stack (kernels rarely take more; more go to the heap).
const PARAMS_INLINE: usize = 16;

fn check_shape(grid: Dim3, block: Dim3, shmem: usize, device: &CudaDevice) -> HipResult<()> {
    crate::backend::types::check_nonempty_shape(grid, block)?;
    let (g, b) = (grid.as_array(), block.as_array());
    let config = |m: String| Failure::new(HipError::InvalidConfiguration, m);
    let p = &device.props;
    let threads: u64 = b.iter().map(|&d| u64::from(d)).product();
    if threads > p.maxThreadsPerBlock.max(1) as u64 {
        return Err(config(format!(
            "block ({}, {}, {}) has {threads} threads; '{}' allows {} per block",
            b[0], b[1], b[2], device.name, p.maxThreadsPerBlock
        )));
    }
    for d in 0..3 {
        if b[d] as i64 > p.maxThreadsDim[d] as i64 || g[d] as i64 > p.maxGridSize[d] as i64 {
            return Err(config(format!(
                "grid ({}, {}, {}) of blocks ({}, {}, {}) exceeds '{}' (maxGridSize {:?}, maxThreadsDim {:?})",
                g[0], g[1], g[2], b[0], b[1], b[2], device.name, p.maxGridSize, p.maxThreadsDim
            )));
        }
    }
    let optin = device.shared_optin.max(p.sharedMemPerBlock);
    // More dynamic shared memory than the device has is hipErrorOutOfMemory, as HIP answers.
    if shmem > optin {
        return Err(Failure::new(
            HipError::OutOfMemory,
            format!(
                "{shmem} bytes of dynamic shared memory requested; '{}' allows {optin} per block",
                device.name
            ),
        ));
    }
    Ok(())
}

/// How a launch runs its blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Plain,
    /// Every block resident at once (`cuLaunchCooperativeKernel`).
    Cooperative,
}

/// Launches `kernel` on `stream` of `device` (whose context is current). Asynchronous.
pub fn launch(
    device: &CudaDevice,
    stream: sys::CUstream,
    kernel: &KernelRef,
    cfg: &LaunchConfig,
    mode: Mode,
) -> HipResult<()> {
    let (grid, block, shmem, args) = (cfg.grid, cfg.block, cfg.shared_mem, cfg.args);
    let info = kernel.info();
    check_shape(grid, block, shmem, device)?;
    let index = kernel.index();
    let function = module::function(&kernel.module, index, device)?;
    let extents = module::prepare_memcheck(&kernel.module, device, stream, shmem, (info, args))?;
    crate::device_abort::launching(&kernel.module, &info.source_name);
    let plan = function.plan.clone()?;
    allow_shared(kernel, &function, device, shmem)?;

    let dims = [block.x, block.y, block.z];
    let null: u64 = 0;
    // Never reallocated: parameters point into it.
    let mut spills: Vec<u64> = Vec::new();
    let mut params: SmallVec<[*mut c_void; PARAMS_INLINE]> = SmallVec::new();
    let result = (|| {
        for p in plan.iter() {
            params.push(match *p {
                Param::Block { offset, len } => {
                    let bytes = args
                        .get(offset..offset.saturating_add(len))
                        .ok_or_else(|| {
                            mismatch(info, "an argument lies outside the argument block".into())
                        })?;
                    bytes.as_ptr() as *mut c_void
                }
                Param::Spill { offset, len } => {
                    let bytes = args
                        .get(offset..offset.saturating_add(len))
                        .ok_or_else(|| {
                            mismatch(info, "an argument lies outside the argument block".into())
                        })?;
                    let mut at: sys::CUdeviceptr = 0;
                    // SAFETY: stream-ordered allocation and copy on the launch's stream; the
                    // host bytes are staged before cuMemcpyHtoDAsync returns (pageable memory).
                    unsafe {
                        check(
                            "cuMemAllocAsync",
                            sys::cuMemAllocAsync(&mut at, len, stream),
                        )?;
                        spills.push(at);
                        check(
                            "cuMemcpyHtoDAsync",
                            sys::cuMemcpyHtoDAsync_v2(at, bytes.as_ptr().cast(), len, stream),
                        )?;
                    }
                    let slot = spills.len() - 1;
                    (&spills[slot] as *const u64) as *mut c_void
                }
                Param::Null => (&null as *const u64) as *mut c_void,
                // (0, every access searched, where the module's checker is off.)
                Param::Extent(k) => extents
                    .get(k)
                    .map_or((&null as *const u64) as *mut c_void, |e| {
                        (e as *const u64) as *mut c_void
                    }),
                Param::BlockDim(d) => (&dims[d] as *const u32) as *mut c_void,
            });
        }
        // SAFETY: one pointer per PTX parameter, each to bytes of that parameter's size that
        // live until the call returns (the driver copies them).
        let shmem = u32::try_from(shmem).unwrap_or(u32::MAX);
        let (f, p) = (function.raw(), params.as_mut_ptr());
        let r = unsafe {
            match mode {
                Mode::Plain => sys::cuLaunchKernel(
                    f,
                    grid.x,
                    grid.y,
                    grid.z,
                    block.x,
                    block.y,
                    block.z,
                    shmem,
                    stream,
                    p,
                    std::ptr::null_mut(),
                ),
                Mode::Cooperative => sys::cuLaunchCooperativeKernel(
                    f, grid.x, grid.y, grid.z, block.x, block.y, block.z, shmem, stream, p,
                ),
            }
        };
        let code = if r == sys::CUresult::CUDA_ERROR_INVALID_VALUE {
            HipError::InvalidConfiguration
        } else {
            super::driver::hip_code(r)
        };
        if r == sys::CUresult::CUDA_SUCCESS {
            return Ok(());
        }
        check_as(
            &format!("cuLaunchKernel of '{}'", info.source_name),
            r,
            code,
        )
    })();
    for at in spills {
        // SAFETY: freed in stream order, after the kernel that reads it.
        let _ = unsafe { sys::cuMemFreeAsync(at, stream) };
    }
    result
}

/// Lets the kernel use `shmem` bytes of dynamic shared memory when that is more than the
/// default 48 KiB (CUDA asks for an opt-in; HIP programs written for AMD GPUs never give one).
fn allow_shared(
    kernel: &KernelRef,
    function: &Function,
    device: &CudaDevice,
    shmem: usize,
) -> HipResult<()> {
    let wanted = shmem.max(kernel.settings().max_dynamic_shared.unwrap_or(0).max(0) as usize);
    if wanted <= function.shared_allowed {
        return Ok(());
    }
    // SAFETY: a function of a loaded module.
    check(
        "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
        unsafe {
            sys::cuFuncSetAttribute(
                function.raw(),
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                i32::try_from(wanted).unwrap_or(i32::MAX),
            )
        },
    )?;
    module::note_shared_allowed(&kernel.module, kernel.index(), device, wanted);
    Ok(())
}
