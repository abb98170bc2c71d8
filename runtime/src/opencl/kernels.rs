//! Kernel queries on OpenCL: `hipFuncGetAttributes` from `clGetKernelWorkGroupInfo` (building
//! the kernel's module) and what `hipFuncSetAttribute` set, and the occupancy queries through the
//! shared occupancy model (`backend::occupancy`). OpenCL needs no attribute to launch: the values
//! a program sets are checked and reported back.

use std::ffi::c_int;

use super::device::Runtime;
use super::jit::prepared_kernel;
use crate::backend::occupancy::{active_blocks_per_cu, potential_block_size, OccupancyKernel};
use crate::backend::{FuncAttribute, FuncAttributes};
use crate::error::{Failure, HipResult};
use crate::registry::KernelRef;

/// Per-kernel limits after the JIT: (work-group size, local memory, private memory). The
/// work-group size is at most the kernel's `__launch_bounds__`.
fn kernel_limits(rt: &Runtime, kernel: &KernelRef) -> HipResult<(usize, u64, u64)> {
    let module = &kernel.module;
    let mut state = super::module::of(module, rt).lock_build();
    let info = kernel.info();
    let p = prepared_kernel(rt, module, &mut state, &info.name, kernel.parameter_count())?;
    let bound = info.max_threads_per_block.map_or(usize::MAX, |most| {
        usize::try_from(most).unwrap_or(usize::MAX)
    });
    Ok((
        p.work_group_size.min(bound),
        p.local_mem_size,
        p.private_mem_size,
    ))
}

pub fn attributes(rt: &Runtime, kernel: &KernelRef) -> HipResult<FuncAttributes> {
    let (wg, local, private) = kernel_limits(rt, kernel)?;
    let settings = kernel.settings();
    // The kernel is built from SPIR-V for this device when its module loads, so both the code's
    // version and the binary's are the device's own (major * 10 + minor, as HIP reports them;
    // hipDeviceProp_t's major and minor are its OpenCL version here).
    let (major, minor) = rt.info.opencl_version();
    let version = major * 10 + minor;
    Ok(FuncAttributes {
        binaryVersion: version,
        ptxVersion: version,
        maxThreadsPerBlock: c_int::try_from(wg).unwrap_or(c_int::MAX),
        sharedSizeBytes: local as usize,
        localSizeBytes: private as usize,
        maxDynamicSharedSizeBytes: settings.max_dynamic_shared.unwrap_or_else(|| {
            c_int::try_from(rt.info.local_mem_size.saturating_sub(local)).unwrap_or(c_int::MAX)
        }),
        preferredShmemCarveout: settings.carveout.unwrap_or(-1),
        ..FuncAttributes::default()
    })
}

/// `hipFuncAttributeMaxDynamicSharedMemorySize` may be up to the device's shared memory less the
/// kernel's static share; `hipFuncAttributePreferredSharedMemoryCarveout` is -1..=100.
pub fn set_attribute(
    rt: &Runtime,
    kernel: &KernelRef,
    attribute: FuncAttribute,
    value: i32,
) -> HipResult<()> {
    match attribute {
        FuncAttribute::MaxDynamicSharedMemorySize => {
            let (_, local, _) = kernel_limits(rt, kernel)?;
            let most = rt.info.local_mem_size.saturating_sub(local);
            if value < 0 || value as u64 > most {
                return Err(Failure::invalid_value(format!(
                    "{value} bytes of dynamic shared memory: the kernel can have 0..={most}"
                )));
            }
            kernel.update_settings(|s| s.max_dynamic_shared = Some(value));
        }
        FuncAttribute::PreferredSharedMemoryCarveout => {
            if !(-1..=100).contains(&value) {
                return Err(Failure::invalid_value(format!(
                    "a shared memory carveout is a percentage (or -1), got {value}"
                )));
            }
            kernel.update_settings(|s| s.carveout = Some(value));
        }
    }
    Ok(())
}

/// The kernel's limits and static shared memory, for the occupancy queries.
fn occupancy_inputs(
    rt: &Runtime,
    kernel: &KernelRef,
    dynamic_shmem: usize,
) -> HipResult<OccupancyKernel> {
    let (wg, local, _) = kernel_limits(rt, kernel)?;
    if dynamic_shmem as u64 + local > rt.info.local_mem_size {
        return Err(Failure::invalid_value(format!(
            "{dynamic_shmem} bytes of dynamic shared memory do not fit the device's {} (the \
             kernel uses {local} itself)",
            rt.info.local_mem_size
        )));
    }
    Ok(OccupancyKernel {
        work_group_size: wg,
        shared_bytes: local.saturating_add(dynamic_shmem as u64),
    })
}

/// (grid, block) of `hipOccupancyMaxPotentialBlockSize`.
pub fn max_potential_block_size(
    rt: &Runtime,
    kernel: &KernelRef,
    dynamic_shmem: usize,
    block_limit: c_int,
) -> HipResult<(c_int, c_int)> {
    let k = occupancy_inputs(rt, kernel, dynamic_shmem)?;
    let (block, grid) = potential_block_size(&k, block_limit, &rt.info);
    Ok((grid, block))
}

/// Blocks of `block_size` threads one compute unit holds.
pub fn max_active_blocks(
    rt: &Runtime,
    kernel: &KernelRef,
    block_size: c_int,
    dynamic_shmem: usize,
) -> HipResult<c_int> {
    let k = occupancy_inputs(rt, kernel, dynamic_shmem)?;
    let n = active_blocks_per_cu(&k, block_size.max(0) as usize, &rt.info);
    Ok(c_int::try_from(n).unwrap_or(c_int::MAX))
}
