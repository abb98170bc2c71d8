//! A module's device variables on OpenCL: their addresses, found by launching each variable's
//! address kernel once on the null stream (building the module through the lazy JIT, so kernels
//! and variables share one program), read back, cached in the module and entered in the
//! allocation table (`AllocKind::Variable`) so that copies, fills, `hipPointerGetAttributes` and
//! kernels accept them; the first use of a variable therefore waits for the null stream (and
//! what it waits for), even from an `Async` call. And the variables the runtime sets itself
//! before a module's first launch: its device heap's address (see `heap`), its abort word's
//! (see `device_abort`) and its managed variables' memory's (see `managed_vars`).

use std::ffi::c_void;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use hipmlir_device_image::{AddressSpace, GlobalVar, KernelInfo};

use super::cl::OwnedEvent;
use super::device::Runtime;
use super::launch::launch_without_heap;
use super::memory::{self, AllocKind};
use super::stream::cl_failure;
use crate::backend::{Copy3d, Dim3, LaunchConfig, MemcpyKind};
use crate::error::{Failure, HipError, HipResult};
use crate::hlog;
use crate::registry::{KernelRef, Module};

/// The device address of variable `index` of `module`, from the cache or its address kernel.
pub fn address_of(rt: &Runtime, module: &Arc<Module>, index: usize) -> HipResult<usize> {
    // Held while the address kernel runs: one query per variable, however many threads ask.
    let mut known = super::module::of(module, rt).lock_variables();
    if let Some(&address) = known.get(&index) {
        return Ok(address);
    }
    let var = module.global(index);
    let address = query_address(rt, module, var)?;
    let size = usize::try_from(var.size).unwrap_or(usize::MAX);
    memory::add_variable(rt, address, size);
    known.insert(index, address);
    hlog!(
        Debug,
        "device variable '{}' of {} is at {address:#x} ({size} bytes)",
        var.name,
        module.label
    );
    Ok(address)
}

/// Launches the variable's address kernel and reads back the address it stores.
fn query_address(rt: &Runtime, module: &Arc<Module>, var: &GlobalVar) -> HipResult<usize> {
    let bad_kernel = |why: &str| {
        Failure::new(
            HipError::InvalidImage,
            format!(
                "device variable '{}' of {}: address kernel '{}' {why}",
                var.name, module.label, var.address_kernel
            ),
        )
    };
    let kernel = module
        .find_kernel(&var.address_kernel)
        .map(|i| KernelRef::new(module.clone(), i))
        .ok_or_else(|| bad_kernel("is not among the image's kernels"))?;
    let info = kernel.info();
    let takes_one_pointer = matches!(
        info.args.as_slice(),
        [arg] if arg.is_pointer && arg.size == 8 && arg.offset == 0
            && arg.address_space != AddressSpace::Workgroup
    ) && info.args_size == 8;
    if !takes_one_pointer {
        return Err(bad_kernel(
            "does not take one pointer (unsigned long long* out)",
        ));
    }
    let out = rt
        .memory
        .alloc(rt.context.get(), rt.device_id(), 8)
        .map_err(|e| Failure::new(HipError::OutOfMemory, format!("8 bytes: {e}")))?;
    let mut value = Box::new(0u64);
    let host: *mut u64 = &mut *value;
    let args = (out as u64).to_ne_bytes();
    let cfg = LaunchConfig {
        grid: Dim3::new(1, 1, 1),
        block: Dim3::new(1, 1, 1),
        shared_mem: 0,
        stream: &rt.null_stream,
        args: &args,
    };
    let result = launch_without_heap(rt, &rt.null_queue, &kernel, &cfg)
        .and_then(|()| {
            rt.null_queue.enqueue(rt, &[], |queue, deps| {
                // SAFETY: `out` is ours; `value` outlives the copy (waited for below, or the stream
                // is synchronized before it is dropped).
                let event = unsafe { rt.memory.copy(queue, host.cast(), out, 8, deps) }
                    .map_err(|e| cl_failure("reading a device variable's address", e))?;
                OwnedEvent::from_raw(event)
                    .ok_or_else(|| Failure::new(HipError::Unknown, "the copy returned no event"))
            })
        })
        .and_then(|event| {
            event
                .wait()
                .map_err(|e| cl_failure("reading a device variable's address", e))
        });
    // After a failure, commands already enqueued may still use `out` or `value` (after a success
    // the copy, the queue's last use of them, has finished).
    if result.is_err() {
        let _ = rt.null_queue.synchronize_own();
    }
    // SAFETY: allocated above with this context; no command uses it any more.
    let _ = unsafe { rt.memory.free(rt.context.get(), out) };
    result?;
    let address = usize::try_from(*value).unwrap_or(0);
    if address == 0 {
        return Err(bad_kernel("stored a null address"));
    }
    Ok(address)
}

/// A synchronous host-to-device copy on the null stream.
fn write(rt: &Runtime, to: *mut c_void, from: *const c_void, bytes: usize) -> HipResult<()> {
    let copy = Copy3d::linear(to, from, bytes);
    memory::copy(rt, &rt.null_queue, &copy, MemcpyKind::HostToDevice, true)
}

/// Gives `module` its device heap before its first launch (and again after `hipDeviceReset`
/// rebuilds its program): an arena of `hipLimitMallocHeapSize` bytes, its size in its first 16
/// bytes, its address in the module's heap variable. Modules that never allocate have no such
/// variable and get no arena.
pub fn prepare_heap(rt: &Runtime, module: &Arc<Module>) -> HipResult<()> {
    let Some(index) = module.heap_variable else {
        return Ok(());
    };
    let state = super::module::of(module, rt);
    if state.heap_bound.load(Ordering::Acquire) {
        return Ok(());
    }
    // One thread binds a module's heap; the others wait for it here.
    let mut heap = crate::heap::lock();
    if state.heap_bound.load(Ordering::Acquire) {
        return Ok(());
    }
    let variable = address_of(rt, module, index)?;
    let size = heap.arena_bytes();
    let arena = memory::alloc_heap(rt, size)?;
    heap.started = true;
    let header = [size as u64, 0];
    let address = arena as u64;
    write(
        rt,
        arena,
        header.as_ptr().cast(),
        crate::heap::ARENA_HEADER_BYTES,
    )?;
    write(
        rt,
        variable as *mut c_void,
        (&address as *const u64).cast(),
        8,
    )?;
    hlog!(
        Debug,
        "device heap of {} at {arena:p}: {size} bytes",
        module.label
    );
    state.heap_bound.store(true, Ordering::Release);
    Ok(())
}

/// Points `module`'s managed variables at their memory before its first launch (and again
/// after `hipDeviceReset` rebuilds its program). See `managed_vars`.
pub fn prepare_managed(rt: &Runtime, module: &Arc<Module>) -> HipResult<()> {
    if module.managed_variables.is_empty() {
        return Ok(());
    }
    let state = super::module::of(module, rt);
    if state.managed_bound.load(Ordering::Acquire) {
        return Ok(());
    }
    for &index in &module.managed_variables {
        let memory = crate::managed_vars::address(rt, module.global(index))? as u64;
        let variable = address_of(rt, module, index)?;
        write(
            rt,
            variable as *mut c_void,
            (&memory as *const u64).cast(),
            std::mem::size_of::<u64>(),
        )?;
    }
    // Threads that raced here wrote the same addresses.
    state.managed_bound.store(true, Ordering::Release);
    Ok(())
}

/// Gives a module built with the memory checker its state before its first launch (and again
/// after `hipDeviceReset`): the binding's id, for [`update_memcheck_table`]. A device that
/// cannot reach the host's own memory leaves the variable null: its kernels then run unchecked
/// (None, as for a module without the checker).
pub fn prepare_memcheck(rt: &Runtime, module: &Arc<Module>) -> HipResult<Option<u64>> {
    let Some(index) = module.memcheck_variable else {
        return Ok(None);
    };
    let state = super::module::of(module, rt);
    let mut bound = state
        .memcheck_binding
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let id = match *bound {
        Some(Some(id)) if crate::memcheck::is_bound(id) => id,
        // A device without system memory: unchecked.
        Some(None) => return Ok(None),
        _ if !rt.system_memory => {
            hlog!(
                Info,
                "{}: the device cannot reach host memory, so the memory checker is off",
                module.label
            );
            *bound = Some(None);
            return Ok(None);
        }
        _ => {
            warn_if_vectorizer_off(&module.label);
            let variable = address_of(rt, module, index)?;
            // Each variable's address, asked once, enters it in the allocations the table
            // holds (`address_of`).
            for v in module.program_variables() {
                address_of(rt, module, v)?;
            }
            let memory = crate::memcheck::HostMemory::new();
            let checker = crate::memcheck::CheckerMemory::state(&memory);
            let id = crate::memcheck::bind(
                rt.id,
                module.image.metadata.memcheck_sites.clone(),
                Box::new(memory),
            );
            write(
                rt,
                variable as *mut c_void,
                (&checker as *const u64).cast(),
                std::mem::size_of::<u64>(),
            )?;
            *bound = Some(Some(id));
            id
        }
    };
    Ok(Some(id))
}

/// Intel's CPU runtime with its vectorizer off (`CL_CONFIG_CPU_VECTORIZER_MODE=1`) emulates
/// every kernel's subgroups, and that emulation gets the checker's subgroup votes wrong under
/// conditions that differ between work-items: a bad access could go unreported and a good one
/// be skipped. Said at each checked module's first launch.
fn warn_if_vectorizer_off(label: &str) {
    if std::env::var("CL_CONFIG_CPU_VECTORIZER_MODE").is_ok_and(|mode| mode.trim() == "1") {
        hlog!(
            Warn,
            "{label}: CL_CONFIG_CPU_VECTORIZER_MODE=1 turns off the vectorizer of Intel's CPU \
             runtime, whose emulated subgroups give the memory checker wrong votes: bad accesses \
             may go unreported and good ones be skipped; unset it for -fsanitize=address"
        );
    }
}

/// Brings binding `id`'s table of allocations up to date before a launch: the live
/// allocations, and `launch_own` (start, size), the runtime's memory for this launch alone (a
/// by-value argument spilled behind a pointer, which the kernel reads like any allocation).
/// Returns the launch's extents (`memcheck::extents`).
pub fn update_memcheck_table(
    id: u64,
    dynamic_shared: usize,
    launch_own: &[(usize, usize)],
    launch: (&KernelInfo, &[u8]),
) -> HipResult<Vec<u64>> {
    let mut ranges: Vec<(u64, u64)> = memory::all_allocations()
        .into_iter()
        .chain(launch_own.iter().copied())
        .map(|(b, s)| (b as u64, (b + s) as u64))
        .collect();
    ranges.sort_unstable();
    // The table is host memory: written now, it is there for the launch.
    crate::memcheck::before_launch(id, ranges, dynamic_shared as u64, 0, launch)
}

/// Gives `module` its abort word before its first launch: host memory the device can write
/// (USM host memory), zeroed, its address in the module's abort-flag variable. `None` when the
/// module has no such variable, or the device cannot write host memory (a failed device assert
/// then prints its message and the program runs on).
pub fn prepare_abort_flag(rt: &Runtime, module: &Arc<Module>) -> HipResult<Option<usize>> {
    let Some(index) = module.abort_flag_variable else {
        return Ok(None);
    };
    let state = super::module::of(module, rt);
    let mut bound = state.lock_abort_word();
    if bound.is_some() {
        return Ok(*bound);
    }
    let word = memory::host_malloc(rt, std::mem::size_of::<u32>(), 0)?;
    if !matches!(
        memory::find_allocation(word as usize),
        Some((_, _, AllocKind::HostUsm))
    ) {
        let _ = memory::free(rt, word, crate::backend::FreeKind::Host);
        hlog!(
            Info,
            "{}: the device cannot write host memory, so a failed device assert cannot stop \
             the program",
            module.label
        );
        return Ok(None);
    }
    // SAFETY: a fresh host allocation of 4 bytes.
    unsafe { word.cast::<u32>().write_volatile(0) };
    let variable = address_of(rt, module, index)?;
    let address = word as u64;
    write(
        rt,
        variable as *mut c_void,
        (&address as *const u64).cast(),
        std::mem::size_of::<u64>(),
    )?;
    *bound = Some(word as usize);
    crate::device_abort::register(word as usize, module);
    Ok(*bound)
}

/// Reads `flag` when the launch behind `event` completes (on the driver's thread); a raised one
/// ends the program there.
pub fn watch_abort_flag(event: &OwnedEvent, flag: usize, kernel: &str) {
    let name = kernel.to_string();
    if let Err(e) = event.on_complete(Box::new(move |_| crate::device_abort::check(flag, &name))) {
        hlog!(
            Warn,
            "'{kernel}': clSetEventCallback: {}: a failed device assert in this launch cannot \
             stop the program",
            super::cl::error_name(e)
        );
    }
}
