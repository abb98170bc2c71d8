//! Kernel launches: the packed argument block is unpacked by the kernel's metadata and each
//! argument set on the OpenCL kernel; then one `clEnqueueNDRangeKernel` on the in-order queue.
//! Launches are asynchronous and go to the launch's stream (see `stream`).
//!
//! Argument block: laid out like a C struct of the kernel's parameters (see
//! `KernelArg::layout`); `args_size` must equal the kernel's. Per argument:
//! * global/constant pointers (8 bytes) may point anywhere inside an allocation, or be null.
//!   hipmlir's SPIR-V entry points take them as 64-bit integers (the compiler's
//!   `address_parameters`), set by `clSetKernelArg` of the 8 bytes: a `cl_mem` argument's cost,
//!   where the pointer setters cost several times more per launch in Intel's runtime. The driver
//!   learns which allocations such a kernel reaches from the indirect-access settings (USM: set
//!   once per kernel; SVM: the live allocations, at each launch). A kernel whose SPIR-V takes a
//!   pointer parameter (older images, other compilers' SPIR-V) gets it through the memory
//!   backend's pointer setter (`clSetKernelArgMemPointerINTEL` / `clSetKernelArgSVMPointer`);
//! * workgroup pointers are dynamic shared memory: `clSetKernelArg(i, shmem, NULL)`, their bytes in
//!   the block (if any) are ignored;
//! * a by-value argument the SPIR-V takes as a CrossWorkgroup pointer (the compiler moved it to
//!   memory because it is too large for the device's parameter limit) is *spilled*: its bytes are
//!   copied to a fresh device buffer on the launch's stream, the kernel gets the buffer's address,
//!   and the buffer is freed once the kernel has finished;
//! * everything else is `clSetKernelArg(i, size, bytes)`; the total must fit
//!   `CL_DEVICE_MAX_PARAMETER_SIZE` (else `hipErrorInvalidValue` naming the limit).

use std::ffi::c_void;

use cl3::types::{cl_command_queue, cl_event};
use hipmlir_device_image::{AddressSpace, KernelInfo};

use super::cl::OwnedEvent;
use super::device::Runtime;
use super::held::Held;
use super::jit::prepared_kernel;
use super::memory::live_allocations;
use super::stream::ClQueue;
use crate::backend::{DeviceInfo, Dim3, LaunchConfig, MAX_GRID_DIM};
use crate::error::{Failure, HipError, HipResult};
use crate::registry::KernelRef;

/// One argument, ready for OpenCL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgValue<'a> {
    Pointer(usize),
    Bytes(&'a [u8]),
    /// Dynamic shared memory of this many bytes.
    Local(usize),
}

/// Splits a packed argument block by the kernel's metadata.
pub fn unpack_args<'a>(
    kernel: &KernelInfo,
    block: &'a [u8],
    shmem: usize,
) -> HipResult<Vec<ArgValue<'a>>> {
    crate::backend::check_args_size(kernel, block)?;
    kernel
        .args
        .iter()
        .enumerate()
        .map(|(i, arg)| {
            if arg.is_pointer && arg.address_space == AddressSpace::Workgroup {
                return Ok(ArgValue::Local(shmem));
            }
            let bytes = usize::try_from(arg.offset)
                .ok()
                .zip(usize::try_from(arg.size).ok())
                .and_then(|(start, len)| block.get(start..start.checked_add(len)?))
                .ok_or_else(|| {
                    Failure::new(
                        HipError::InvalidImage,
                        format!(
                            "kernel '{}' argument {i} lies outside its argument block",
                            kernel.name
                        ),
                    )
                })?;
            if arg.is_pointer {
                let raw: [u8; 8] = bytes.try_into().map_err(|_| {
                    Failure::new(
                        HipError::InvalidImage,
                        format!(
                            "kernel '{}' pointer argument {i} is {} bytes",
                            kernel.name, arg.size
                        ),
                    )
                })?;
                let value = u64::from_ne_bytes(raw);
                let value = usize::try_from(value).map_err(|_| {
                    Failure::invalid_value(format!(
                        "kernel '{}' argument {i} ({value:#x}) is not an address",
                        kernel.name
                    ))
                })?;
                Ok(ArgValue::Pointer(value))
            } else {
                Ok(ArgValue::Bytes(bytes))
            }
        })
        .collect()
}

/// Checks a launch shape against the device and returns (global, local) work sizes.
pub fn ndrange(
    grid: Dim3,
    block: Dim3,
    shmem: usize,
    info: &DeviceInfo,
) -> HipResult<([usize; 3], [usize; 3])> {
    crate::backend::types::check_nonempty_shape(grid, block)?;
    let (g, b) = (grid.as_array(), block.as_array());
    let threads: u64 = b.iter().map(|&d| u64::from(d)).product();
    if threads > info.max_work_group_size as u64 {
        return Err(Failure::new(
            HipError::InvalidConfiguration,
            format!(
                "block ({}, {}, {}) has {threads} threads; the device allows {} per block",
                b[0], b[1], b[2], info.max_work_group_size
            ),
        ));
    }
    for d in 0..3 {
        if b[d] as usize > info.max_work_item_sizes[d] {
            return Err(Failure::new(
                HipError::InvalidConfiguration,
                format!(
                    "block dimension {} is {}; the device allows {}",
                    ["x", "y", "z"][d],
                    b[d],
                    info.max_work_item_sizes[d]
                ),
            ));
        }
    }
    for d in 0..3 {
        // hipDeviceProp_t.maxGridSize: a bigger grid is refused, not run for hours.
        if u64::from(g[d]) > MAX_GRID_DIM as u64 {
            return Err(Failure::new(
                HipError::InvalidConfiguration,
                format!(
                    "grid dimension {} is {}; the device allows {MAX_GRID_DIM} (maxGridSize)",
                    ["x", "y", "z"][d],
                    g[d]
                ),
            ));
        }
    }
    // More dynamic shared memory than the device has is hipErrorOutOfMemory, as HIP answers.
    if shmem as u64 > info.local_mem_size {
        return Err(Failure::new(
            HipError::OutOfMemory,
            format!(
                "{shmem} bytes of dynamic shared memory requested; the device has {}",
                info.local_mem_size
            ),
        ));
    }
    let global = [0, 1, 2].map(|d| g[d] as usize * b[d] as usize);
    let local = b.map(|d| d as usize);
    Ok((global, local))
}

/// A by-value argument the compiler moved behind a pointer: its bytes live in a device buffer
/// until the kernel that reads them has run.
struct Spill {
    device: usize,
    host: Box<[u8]>,
}

fn argument_failure(info: &KernelInfo, i: usize, e: String) -> Failure {
    Failure::invalid_value(format!(
        "kernel '{}' argument {i} ('{}'): {e}",
        info.source_name, info.args[i].name
    ))
}

/// Launches `kernel` on `target` (the queue of `cfg.stream`). Asynchronous.
pub fn launch(
    rt: &Runtime,
    target: &ClQueue,
    kernel: &KernelRef,
    cfg: &LaunchConfig,
) -> HipResult<()> {
    super::variables::prepare_heap(rt, &kernel.module)?;
    super::variables::prepare_managed(rt, &kernel.module)?;
    let abort_flag = super::variables::prepare_abort_flag(rt, &kernel.module)?;
    let memcheck = super::variables::prepare_memcheck(rt, &kernel.module)?;
    enqueue_launch(rt, target, kernel, cfg, abort_flag, memcheck)
}

/// [`launch`] without first pointing the module at the device heap and its abort flag: for the
/// address kernels, which need neither and through which those variables are found.
pub fn launch_without_heap(
    rt: &Runtime,
    target: &ClQueue,
    kernel: &KernelRef,
    cfg: &LaunchConfig,
) -> HipResult<()> {
    enqueue_launch(rt, target, kernel, cfg, None, None)
}

/// The launch itself; with `abort_flag`, the program ends at the kernel's completion if its
/// device code raised that word (see `device_abort`); with `memcheck` (a checked module's
/// binding), the checker's table is brought up to date first, with the spilled arguments of
/// this launch and of the launches that may still run.
fn enqueue_launch(
    rt: &Runtime,
    target: &ClQueue,
    kernel: &KernelRef,
    cfg: &LaunchConfig,
    abort_flag: Option<usize>,
    memcheck: Option<u64>,
) -> HipResult<()> {
    let (grid, block, shmem) = (cfg.grid, cfg.block, cfg.shared_mem);
    let info = kernel.info();
    let values = unpack_args(info, cfg.args, shmem)?;
    let (mut global, mut local) = ndrange(grid, block, shmem, &rt.info)?;
    // A kernel using warp operations runs its block as a 1-D work-group, so that lanes follow
    // HIP's thread order, and receives the block's dimensions as three trailing arguments.
    let linear = kernel.is_linear();
    if linear {
        let threads = local[0] * local[1] * local[2];
        global = [
            global[0] / local[0] * threads,
            global[1] / local[1],
            global[2] / local[2],
        ];
        local = [threads, 1, 1];
    }
    let module = &kernel.module;
    let mut state = super::module::of(module, rt).lock_build();
    let prepared = prepared_kernel(rt, module, &mut state, &info.name, kernel.parameter_count())?;
    let k = prepared.kernel.get();
    let spilled = |i: usize| prepared.spilled.get(i).copied().unwrap_or(false);
    let by_address = |i: usize| prepared.addresses.get(i).copied().unwrap_or(false);
    // A device address, as the kernel's parameter `index` takes it.
    let set_address = |index: u32, address: *const c_void| {
        if by_address(index as usize) {
            let value = address as u64;
            // SAFETY: 8 bytes for a 64-bit integer parameter of the valid kernel `k`.
            unsafe { cl3::kernel::set_kernel_arg(k, index, 8, (&value as *const u64).cast()) }
                .map_err(|e| format!("clSetKernelArg: {}", super::cl::error_name(e)))
        } else {
            // SAFETY: `k` is valid and exclusively ours while the module lock is held.
            unsafe { rt.memory.set_pointer_arg(k, index, address) }
        }
    };

    // The bytes OpenCL receives as arguments must fit the device's parameter limit.
    let param_bytes: usize = values
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            ArgValue::Bytes(b) if !spilled(i) => b.len(),
            ArgValue::Local(_) => 0,
            _ => 8,
        })
        .sum();
    if param_bytes > rt.info.max_parameter_size {
        return Err(Failure::invalid_value(format!(
            "kernel '{}' takes {param_bytes} bytes of arguments; the device accepts at most {} \
             (CL_DEVICE_MAX_PARAMETER_SIZE). Large by-value arguments must be passed through \
             memory (the compiler's spill of large arguments)",
            info.source_name, rt.info.max_parameter_size
        )));
    }

    super::held::release_finished(rt, false);
    let mut spills: Vec<Spill> = Vec::new();
    let free_spills = |spills: &[Spill]| {
        for s in spills {
            // SAFETY: allocated below, never used by an enqueued command.
            let _ = unsafe { rt.memory.free(rt.context.get(), s.device as *mut c_void) };
        }
    };
    for (i, value) in values.iter().enumerate() {
        let index = i as u32;
        let result = match *value {
            ArgValue::Pointer(p) => set_address(index, p as *const c_void),
            ArgValue::Bytes(bytes) if spilled(i) => rt
                .memory
                .alloc(rt.context.get(), rt.device_id(), bytes.len().max(1))
                .and_then(|buffer| {
                    spills.push(Spill {
                        device: buffer as usize,
                        host: bytes.into(),
                    });
                    set_address(index, buffer)
                }),
            // SAFETY (both): `k` is valid and exclusively ours while the module lock is held.
            ArgValue::Bytes(bytes) => {
                unsafe { cl3::kernel::set_kernel_arg(k, index, bytes.len(), bytes.as_ptr().cast()) }
                    .map_err(|e| format!("clSetKernelArg: {}", super::cl::error_name(e)))
            }
            ArgValue::Local(size) => unsafe {
                // OpenCL rejects a zero-sized local argument.
                cl3::kernel::set_kernel_arg(k, index, size.max(1), std::ptr::null())
            }
            .map_err(|e| format!("clSetKernelArg(local): {}", super::cl::error_name(e))),
        };
        if let Err(e) = result {
            free_spills(&spills);
            return Err(argument_failure(info, i, e));
        }
    }
    if linear {
        let dims = block.as_array();
        for (d, value) in dims.iter().enumerate() {
            let index = (info.args.len() + info.memcheck_extents.len() + d) as u32;
            // SAFETY: `k` is valid and exclusively ours while the module lock is held.
            let set =
                unsafe { cl3::kernel::set_kernel_arg(k, index, 4, (value as *const u32).cast()) };
            if let Err(e) = set {
                free_spills(&spills);
                return Err(Failure::new(
                    HipError::LaunchFailure,
                    format!(
                        "clSetKernelArg(block dimension): {}",
                        super::cl::error_name(e)
                    ),
                ));
            }
        }
    }
    let mut extents = Vec::new();
    if let Some(id) = memcheck {
        // This launch's spilled arguments, and those of earlier launches that may still run
        // (a kernel reads the table when it runs, not when it was enqueued).
        let spilled: Vec<(usize, usize)> = spills
            .iter()
            .map(|s| (s.device, s.host.len()))
            .chain(super::held::device_buffers(rt))
            .collect();
        match super::variables::update_memcheck_table(id, shmem, &spilled, (info, cfg.args)) {
            Ok(found) => extents = found,
            Err(e) => {
                free_spills(&spills);
                return Err(e);
            }
        }
    }
    // A checked kernel's extents follow its arguments (0, every access searched, where the
    // device runs it unchecked).
    extents.resize(info.memcheck_extents.len(), 0);
    for (position, extent) in extents.iter().enumerate() {
        let index = (info.args.len() + position) as u32;
        // SAFETY: `k` is valid and exclusively ours while the module lock is held.
        let set =
            unsafe { cl3::kernel::set_kernel_arg(k, index, 8, (extent as *const u64).cast()) };
        if let Err(e) = set {
            free_spills(&spills);
            return Err(Failure::new(
                HipError::LaunchFailure,
                format!("clSetKernelArg(extent): {}", super::cl::error_name(e)),
            ));
        }
    }
    if rt.memory.needs_pointer_list_per_launch() {
        let mut live = live_allocations(rt);
        live.extend(spills.iter().map(|s| s.device as *mut c_void));
        // SAFETY: as above.
        if let Err(e) = unsafe { rt.memory.allow_indirect_access(k, &live) } {
            free_spills(&spills);
            return Err(Failure::new(HipError::LaunchFailure, e));
        }
    }
    let enqueue = |queue: cl_command_queue, deps: &[cl_event], want_event: bool| {
        let mut wait_on: &[cl_event] = deps;
        for spill in &spills {
            // SAFETY: the device buffer is ours; the host copy lives until the kernel is done.
            let event = unsafe {
                rt.memory.copy(
                    queue,
                    spill.device as *mut c_void,
                    spill.host.as_ptr().cast(),
                    spill.host.len(),
                    wait_on,
                )
            }
            .map_err(|e| super::stream::cl_failure("copying a spilled argument", e))?;
            drop(OwnedEvent::from_raw(event));
            wait_on = &[];
        }
        // SAFETY: valid queue and kernel; the work-size arrays outlive the call.
        unsafe { super::cl::enqueue_nd_range(queue, k, &global, &local, wait_on, want_event) }
            .map_err(|e| {
                let code = match e {
                    cl3::error_codes::CL_INVALID_WORK_GROUP_SIZE
                    | cl3::error_codes::CL_INVALID_WORK_ITEM_SIZE
                    | cl3::error_codes::CL_INVALID_GLOBAL_WORK_SIZE => {
                        HipError::InvalidConfiguration
                    }
                    cl3::error_codes::CL_OUT_OF_RESOURCES => HipError::LaunchOutOfResources,
                    cl3::error_codes::CL_MEM_OBJECT_ALLOCATION_FAILURE
                    | cl3::error_codes::CL_OUT_OF_HOST_MEMORY => HipError::OutOfMemory,
                    _ => HipError::LaunchFailure,
                };
                Failure::new(
                    code,
                    format!(
                        "launching '{}' with grid {:?} block {:?}: clEnqueueNDRangeKernel: {}",
                        info.source_name,
                        grid.as_array(),
                        block.as_array(),
                        super::cl::error_name(e)
                    ),
                )
            })
    };
    // Only a launch with spilled arguments (to free them when it is done) or an abort flag (to
    // read it then) needs its own event.
    let enqueued = if spills.is_empty() && abort_flag.is_none() {
        target
            .enqueue_untracked(rt, |queue, deps| enqueue(queue, deps, false).map(drop))
            .map(|()| None)
    } else {
        target
            .enqueue(rt, &[], |queue, deps| {
                enqueue(queue, deps, true)?
                    .ok_or_else(|| Failure::new(HipError::Unknown, "the launch returned no event"))
            })
            .map(Some)
    };
    drop(state);
    match enqueued {
        Ok(event) => {
            if let (Some(event), Some(flag)) = (&event, abort_flag) {
                super::variables::watch_abort_flag(event, flag, &info.source_name);
            }
            let _ = target.queue.flush();
            if let Some(event) = event.filter(|_| !spills.is_empty()) {
                let held = spills
                    .into_iter()
                    .flat_map(|s| [Held::Device(s.device, s.host.len()), Held::Host(s.host)])
                    .collect();
                super::held::hold(rt, event, held);
            }
            Ok(())
        }
        Err(e) => {
            // Spill copies may have been enqueued before the kernel failed to: wait for them.
            let _ = target.synchronize_own();
            free_spills(&spills);
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hipmlir_device_image::KernelArg;

    fn arg(name: &str, size: u64, is_pointer: bool, space: AddressSpace) -> KernelArg {
        KernelArg {
            name: name.into(),
            r#type: String::new(),
            offset: 0,
            size,
            align: size.max(1),
            is_pointer,
            address_space: space,
        }
    }

    fn mixed() -> KernelInfo {
        // (char c, double d, short s, int* p, long l): offsets 0, 8, 16, 24, 32; size 40.
        let mut args = vec![
            arg("c", 1, false, AddressSpace::Private),
            arg("d", 8, false, AddressSpace::Private),
            arg("s", 2, false, AddressSpace::Private),
            arg("p", 8, true, AddressSpace::Global),
            arg("l", 8, false, AddressSpace::Private),
        ];
        let args_size = KernelArg::layout(&mut args);
        KernelInfo {
            name: "mixed".into(),
            source_name: "mixed".into(),
            args,
            args_size,
            max_threads_per_block: None,
            unit: None,
            memcheck_extents: Vec::new(),
        }
    }

    #[test]
    fn unpacks_mixed_alignment() {
        let k = mixed();
        assert_eq!(k.args_size, 40);
        let mut block = [0u8; 40];
        block[0] = 7;
        block[8..16].copy_from_slice(&2.5f64.to_ne_bytes());
        block[16..18].copy_from_slice(&(-3i16).to_ne_bytes());
        block[24..32].copy_from_slice(&0xdead_beefusize.to_ne_bytes());
        block[32..40].copy_from_slice(&(-9i64).to_ne_bytes());
        let v = unpack_args(&k, &block, 0).unwrap();
        assert_eq!(v[0], ArgValue::Bytes(&[7]));
        assert_eq!(v[1], ArgValue::Bytes(&2.5f64.to_ne_bytes()));
        assert_eq!(v[2], ArgValue::Bytes(&(-3i16).to_ne_bytes()));
        assert_eq!(v[3], ArgValue::Pointer(0xdead_beef));
        assert_eq!(v[4], ArgValue::Bytes(&(-9i64).to_ne_bytes()));
    }

    #[test]
    fn block_size_must_match() {
        let e = unpack_args(&mixed(), &[0u8; 36], 0).unwrap_err();
        assert_eq!(e.code, HipError::InvalidValue);
        assert!(
            e.message.contains("40-byte") && e.message.contains("36"),
            "{}",
            e.message
        );
    }

    #[test]
    fn workgroup_pointers_take_shmem() {
        let mut args = vec![
            arg("p", 8, true, AddressSpace::Global),
            arg("s", 8, true, AddressSpace::Workgroup),
        ];
        let args_size = KernelArg::layout(&mut args);
        let k = KernelInfo {
            name: "k".into(),
            source_name: "k".into(),
            args,
            args_size,
            max_threads_per_block: None,
            unit: None,
            memcheck_extents: Vec::new(),
        };
        let v = unpack_args(&k, &[0u8; 16], 256).unwrap();
        assert_eq!(v, vec![ArgValue::Pointer(0), ArgValue::Local(256)]);
    }

    #[test]
    fn zero_argument_kernels() {
        let k = KernelInfo {
            name: "k".into(),
            source_name: "k".into(),
            args: vec![],
            args_size: 0,
            max_threads_per_block: None,
            unit: None,
            memcheck_extents: Vec::new(),
        };
        assert_eq!(unpack_args(&k, &[], 0).unwrap(), vec![]);
    }

    fn device() -> DeviceInfo {
        DeviceInfo {
            max_work_group_size: 1024,
            max_work_item_sizes: [1024, 1024, 64],
            local_mem_size: 65536,
            ..DeviceInfo::default()
        }
    }

    #[test]
    fn ndrange_multiplies_grid_by_block() {
        let (g, l) = ndrange(Dim3::new(4, 2, 1), Dim3::new(256, 1, 1), 0, &device()).unwrap();
        assert_eq!(g, [1024, 2, 1]);
        assert_eq!(l, [256, 1, 1]);
        let (g, _) = ndrange(
            Dim3::new(MAX_GRID_DIM as u32, 1, 1),
            Dim3::new(1024, 1, 1),
            0,
            &device(),
        )
        .unwrap();
        assert_eq!(g[0], MAX_GRID_DIM as usize * 1024);
    }

    #[test]
    fn bad_shapes_are_invalid_configuration() {
        let d = device();
        // A dimension of 0 is an invalid value, as HIP answers it; too large is a configuration.
        for (grid, block) in [
            (Dim3::new(0, 1, 1), Dim3::new(1, 1, 1)),
            (Dim3::new(1, 1, 1), Dim3::new(1, 0, 1)),
        ] {
            let e = ndrange(grid, block, 0, &d).unwrap_err();
            assert_eq!(e.code, HipError::InvalidValue, "{grid:?} {block:?}");
        }
        for (grid, block, shmem) in [
            (Dim3::new(1, 1, 1), Dim3::new(2048, 1, 1), 0),
            (Dim3::new(1, 1, 1), Dim3::new(32, 32, 2), 0),
            (Dim3::new(1, 1, 1), Dim3::new(1, 1, 128), 0),
            // Beyond maxGridSize in each dimension (once accepted: 2^32 blocks ran for hours).
            (Dim3::new(u32::MAX, 1, 1), Dim3::new(1, 1, 1), 0),
            (
                Dim3::new(1, MAX_GRID_DIM as u32 + 1, 1),
                Dim3::new(1, 1, 1),
                0,
            ),
            (Dim3::new(1, 1, u32::MAX), Dim3::new(1, 1, 1), 0),
        ] {
            let e = ndrange(grid, block, shmem, &d).unwrap_err();
            assert_eq!(e.code, HipError::InvalidConfiguration, "{grid:?} {block:?}");
        }
        // More shared memory than the device has is out of memory, as HIP answers.
        let e = ndrange(Dim3::new(1, 1, 1), Dim3::new(1, 1, 1), 65537, &d).unwrap_err();
        assert_eq!(e.code, HipError::OutOfMemory);
    }
}
