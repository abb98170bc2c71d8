//! Kernel launches on the CUDA backend: the packed argument block (laid out by the kernel's
//! metadata, as for OpenCL) becomes `cuLaunchKernel`'s array of parameter pointers, each pointing
//! at its argument's bytes in the block.
//!
//! The metadata is checked against the `.entry`'s parameter list:
//! * a workgroup-pointer argument is the dynamic shared memory; the PTX kernel either has no
//!   parameter for it (the lowering addresses `extern __shared__` directly) or a pointer one,
//!   which gets null (its storage is the launch's `sharedMemBytes` either way);
//! * a kernel listed in `linear_block_kernels` may take the block's dimensions as three more
//!   `u32` parameters, as the SPIR-V does;
//! * a by-value argument the PTX takes as a `.ptr` parameter (the compiler passes it by
//!   reference, as the SPIR-V does large ones) is copied to stream-ordered device memory freed
//!   after the kernel;
//! * any other disagreement is `hipErrorInvalidImage`, never a launch with shifted arguments.

use std::ffi::c_void;

use hipmlir_device_image::{AddressSpace, KernelInfo};

use super::device::CudaDevice;
use super::driver::{check, check_as, sys};
use super::module::{self, Function};
use super::ptx::ParamDecl;
use crate::backend::{Dim3, LaunchConfig};
use crate::error::{Failure, HipError, HipResult};
use crate::registry::KernelRef;

/// One PTX parameter's source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    /// `len` bytes of the argument block at `offset`.
    Block { offset: usize, len: usize },
    /// An argument moved to memory: its bytes at `offset` are copied to the device.
    Spill { offset: usize, len: usize },
    /// A null pointer (a dynamic-shared-memory pointer parameter).
    Null,
    /// Block dimension `d` as a `u32`.
    BlockDim(usize),
}

fn mismatch(info: &KernelInfo, why: String) -> Failure {
    Failure::new(
        HipError::InvalidImage,
        format!(
            "kernel '{}' ({}): its PTX and its metadata disagree: {why}",
            info.source_name, info.name
        ),
    )
}

/// Plans the parameters of a launch of `info` whose `.entry` takes `params` (sizes; `None`:
/// unknown, trust the metadata). Pure, for tests.
pub fn plan(
    info: &KernelInfo,
    params: Option<&[ParamDecl]>,
    linear: bool,
) -> HipResult<Vec<Param>> {
    let is_shared = |a: &hipmlir_device_image::KernelArg| {
        a.is_pointer && a.address_space == AddressSpace::Workgroup
    };
    let listed = info.args.len();
    let without_shared = info.args.iter().filter(|a| !is_shared(a)).count();
    let hidden = if linear { 3 } else { 0 };
    let (keep_shared, with_dims) = match params.map(<[ParamDecl]>::len) {
        None => (false, false),
        Some(n) if n == without_shared => (false, false),
        Some(n) if n == listed => (true, false),
        Some(n) if linear && n == without_shared + hidden => (false, true),
        Some(n) if linear && n == listed + hidden => (true, true),
        Some(n) => {
            return Err(mismatch(
                info,
                format!("the PTX entry takes {n} parameter(s); the metadata lists {listed}"),
            ))
        }
    };
    let mut plan = Vec::new();
    for (i, arg) in info.args.iter().enumerate() {
        if is_shared(arg) {
            if keep_shared {
                plan.push(Param::Null);
            }
            continue;
        }
        let offset = usize::try_from(arg.offset).unwrap_or(usize::MAX);
        let len = usize::try_from(arg.size).unwrap_or(usize::MAX);
        let declared = params.and_then(|p| p.get(plan.len()).copied());
        match declared {
            Some(d) if !arg.is_pointer && d.pointer && d.size == 8 => {
                plan.push(Param::Spill { offset, len })
            }
            Some(d) if d.size == len => plan.push(Param::Block { offset, len }),
            None => plan.push(Param::Block { offset, len }),
            Some(ParamDecl { size: d, .. }) => {
                return Err(mismatch(
                    info,
                    format!(
                        "argument {i} ('{}') is {len} bytes; the PTX parameter is {d}",
                        arg.name
                    ),
                ))
            }
        }
    }
    if with_dims {
        plan.extend((0..3).map(Param::BlockDim));
    }
    Ok(plan)
}

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
    if shmem > optin {
        return Err(config(format!(
            "{shmem} bytes of dynamic shared memory requested; '{}' allows {optin} per block",
            device.name
        )));
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
    module::prepare_memcheck(&kernel.module, device, stream, shmem)?;
    crate::device_abort::launching(&kernel.module, &info.source_name);
    let linear = kernel
        .module
        .image
        .metadata
        .linear_block_kernels
        .contains(&info.name);
    let plan = plan(info, function.params.as_deref(), linear)?;
    allow_shared(kernel, &function, device, shmem)?;

    let dims = [block.x, block.y, block.z];
    let null: u64 = 0;
    // Never reallocated: parameters point into it.
    let mut spills: Vec<u64> = Vec::with_capacity(plan.len());
    let mut params: Vec<*mut c_void> = Vec::with_capacity(plan.len());
    let result = (|| {
        for p in &plan {
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

#[cfg(test)]
mod tests {
    use super::*;
    use hipmlir_device_image::KernelArg;

    fn decls(sizes: &[usize]) -> Vec<ParamDecl> {
        sizes
            .iter()
            .map(|&size| ParamDecl {
                size,
                pointer: false,
            })
            .collect()
    }

    fn arg(name: &str, size: u64, is_pointer: bool, space: AddressSpace) -> KernelArg {
        KernelArg {
            name: name.into(),
            r#type: String::new(),
            offset: 0,
            size,
            align: size.min(8),
            is_pointer,
            address_space: space,
        }
    }

    fn kernel(mut args: Vec<KernelArg>) -> KernelInfo {
        let args_size = KernelArg::layout(&mut args);
        KernelInfo {
            name: "_Z1kv".into(),
            source_name: "k".into(),
            args,
            args_size,
            max_threads_per_block: None,
        }
    }

    #[test]
    fn parameters_follow_the_block_layout() {
        let k = kernel(vec![
            arg("a", 8, true, AddressSpace::Global),
            arg("n", 4, false, AddressSpace::Private),
            arg("x", 8, false, AddressSpace::Private),
        ]);
        let p = plan(&k, Some(&decls(&[8, 4, 8])), false).unwrap();
        assert_eq!(
            p,
            vec![
                Param::Block { offset: 0, len: 8 },
                Param::Block { offset: 8, len: 4 },
                Param::Block { offset: 16, len: 8 },
            ]
        );
        assert_eq!(plan(&k, None, false).unwrap(), p);
    }

    #[test]
    fn dynamic_shared_memory_has_no_parameter_or_a_null_one() {
        let k = kernel(vec![
            arg("out", 8, true, AddressSpace::Global),
            arg("smem", 8, true, AddressSpace::Workgroup),
        ]);
        assert_eq!(
            plan(&k, Some(&decls(&[8])), false).unwrap(),
            vec![Param::Block { offset: 0, len: 8 }]
        );
        assert_eq!(
            plan(&k, Some(&decls(&[8, 8])), false).unwrap(),
            vec![Param::Block { offset: 0, len: 8 }, Param::Null]
        );
    }

    #[test]
    fn linear_block_kernels_may_take_the_block() {
        let k = kernel(vec![arg("out", 8, true, AddressSpace::Global)]);
        assert_eq!(
            plan(&k, Some(&decls(&[8, 4, 4, 4])), true).unwrap(),
            vec![
                Param::Block { offset: 0, len: 8 },
                Param::BlockDim(0),
                Param::BlockDim(1),
                Param::BlockDim(2)
            ]
        );
        assert_eq!(plan(&k, Some(&decls(&[8])), true).unwrap().len(), 1);
    }

    #[test]
    fn by_value_arguments_behind_a_pointer_are_spilled() {
        let small = kernel(vec![arg("u", 4, false, AddressSpace::Private)]);
        let by_reference = [ParamDecl {
            size: 8,
            pointer: true,
        }];
        assert_eq!(
            plan(&small, Some(&by_reference), false).unwrap(),
            vec![Param::Spill { offset: 0, len: 4 }]
        );
        let k = kernel(vec![arg("big", 256, false, AddressSpace::Private)]);
        let by_reference = [ParamDecl {
            size: 8,
            pointer: true,
        }];
        assert_eq!(
            plan(&k, Some(&by_reference), false).unwrap(),
            vec![Param::Spill {
                offset: 0,
                len: 256
            }]
        );
        assert_eq!(
            plan(&k, Some(&decls(&[256])), false).unwrap(),
            vec![Param::Block {
                offset: 0,
                len: 256
            }]
        );
    }

    #[test]
    fn disagreements_are_invalid_images() {
        let k = kernel(vec![
            arg("a", 8, true, AddressSpace::Global),
            arg("n", 4, false, AddressSpace::Private),
        ]);
        let e = plan(&k, Some(&decls(&[8, 4, 4])), false).unwrap_err();
        assert_eq!(e.code, HipError::InvalidImage);
        assert!(e.message.contains("3 parameter"), "{}", e.message);
        let e = plan(&k, Some(&decls(&[8, 8])), false).unwrap_err();
        assert!(e.message.contains("argument 1"), "{}", e.message);
    }
}
