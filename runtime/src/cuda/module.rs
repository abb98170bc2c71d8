//! Device images on the CUDA backend: the PTX entry a device runs, loaded lazily with
//! `cuModuleLoadDataEx` (the JIT's error log in the failure), its kernels (`cuModuleGetFunction`,
//! with their PTX parameter lists), its device variables (`cuModuleGetGlobal`, else the
//! variable's address kernel) and its device heap.

use std::any::Any;
use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::sync::{Arc, Mutex, MutexGuard};

use super::device::CudaDevice;
use super::driver::{check, error_name, hip_code, sys, HOST_ALLOC_MAPPED};
use super::ptx;
use crate::backend::{DeviceId, ModuleState};
use crate::error::{Failure, HipError, HipResult};
use crate::hlog;
use crate::registry::Module;

/// A kernel of a loaded module.
#[derive(Debug, Clone)]
pub struct Function {
    /// The `CUfunction`.
    pub handle: usize,
    /// The `.entry`'s parameters (`None` if the PTX text could not be read).
    pub params: Option<Vec<ptx::ParamDecl>>,
    /// The dynamic shared memory the function was last allowed (`cuFuncSetAttribute`).
    pub shared_allowed: usize,
}

impl Function {
    pub fn raw(&self) -> sys::CUfunction {
        self.handle as sys::CUfunction
    }
}

/// One module loaded on one device.
#[derive(Debug)]
pub struct DeviceModule {
    /// The `CUmodule`.
    pub handle: usize,
    /// The PTX entry's architecture (`sm_70`).
    pub arch: String,
    /// The PTX text (for the kernels' parameter lists).
    ptx: String,
    /// Kernel index → function.
    functions: HashMap<usize, Function>,
    /// Global index → (device address, size).
    variables: HashMap<usize, (u64, usize)>,
    /// The memory checker's binding of the module's state variable, once bound.
    memcheck: Option<u64>,
}

impl Drop for DeviceModule {
    fn drop(&mut self) {
        // SAFETY: a module this backend loaded; nothing runs its code once it is dropped.
        let _ = unsafe { sys::cuModuleUnload(self.handle as sys::CUmodule) };
    }
}

/// A registry module's state on the CUDA backend: what is loaded on which device (by driver
/// ordinal), and the module's abort word (pinned host memory, shared by every device) with the
/// driver ordinal of the device whose context allocated it.
#[derive(Debug, Default)]
pub struct CudaModule {
    per_device: Mutex<HashMap<i32, DeviceModule>>,
    abort_word: Mutex<Option<(usize, i32)>>,
}

impl CudaModule {
    fn loaded(&self) -> MutexGuard<'_, HashMap<i32, DeviceModule>> {
        self.per_device.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl ModuleState for CudaModule {
    /// Forgets every device's module and the abort word (`hipDeviceReset`: the context went
    /// with them).
    fn reset(&self) {
        // The modules died with the context: unloading them again would fail.
        for (_, m) in self.loaded().drain() {
            std::mem::forget(m);
        }
        if let Some((word, _)) = self
            .abort_word
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            crate::device_abort::forget(word);
        }
    }

    /// One device's context was reset: its loaded module went with it. The abort word goes too
    /// when that context allocated it; the other devices' modules then bind a new one.
    fn reset_device(&self, device: DeviceId) {
        let Ok(ordinal) = super::device_at(device).map(|d| d.ordinal) else {
            return;
        };
        let mut loaded = self.loaded();
        if let Some(m) = loaded.remove(&ordinal) {
            std::mem::forget(m);
        }
        let mut word = self.abort_word.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((w, owner)) = *word {
            if owner == ordinal {
                crate::device_abort::forget(w);
                *word = None;
                for m in loaded.values_mut() {
                    m.variables.remove(&ABORT_WORD_BOUND);
                }
            }
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The CUDA state of `module`.
fn state(module: &Module) -> &CudaModule {
    module.state(CudaModule::default)
}

const LOG_BYTES: usize = 16 * 1024;

/// Loads the PTX entry of `module` that `device` runs.
fn load(module: &Module, device: &CudaDevice) -> HipResult<DeviceModule> {
    let (major, minor) = device.capability;
    let chosen = ptx::choose_entry(module.ptx.iter().map(|(a, _)| a.as_str()), major, minor)
        .map_err(|why| {
            Failure::new(
                HipError::NoBinaryForGpu,
                format!("{} on '{}': {why}", module.label, device.name),
            )
        })?;
    let (arch, bytes) = &module.ptx[chosen];
    let text_end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let text = String::from_utf8_lossy(&bytes[..text_end]).into_owned();
    let image = CString::new(text.clone()).map_err(|_| {
        Failure::new(
            HipError::InvalidImage,
            format!("{}: its PTX has a NUL", module.label),
        )
    })?;
    let mut error_log = vec![0u8; LOG_BYTES];
    let mut options = [
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    // The driver reads each value as its option's type: a buffer pointer, then a size
    // passed in the pointer's bits.
    let mut values = [
        error_log.as_mut_ptr().cast::<c_void>(),
        LOG_BYTES as *mut c_void,
    ];
    let mut handle: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: the image is NUL-terminated PTX; the option arrays have 2 entries each and the log
    // buffer outlives the call.
    let r = unsafe {
        sys::cuModuleLoadDataEx(
            &mut handle,
            image.as_ptr().cast(),
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    if r != sys::CUresult::CUDA_SUCCESS {
        let end = error_log.iter().position(|&b| b == 0).unwrap_or(0);
        let log = String::from_utf8_lossy(&error_log[..end]);
        let log = log.trim();
        return Err(Failure::new(
            match hip_code(r) {
                HipError::Unknown => HipError::InvalidImage,
                code => code,
            },
            format!(
                "cannot load the {arch} PTX of {} on '{}' (compute capability {major}.{minor}): {}{}{}",
                module.label,
                device.name,
                error_name(r),
                if log.is_empty() { "" } else { "; the JIT says:\n" },
                log
            ),
        ));
    }
    hlog!(
        Debug,
        "loaded the {arch} PTX of {} on '{}'",
        module.label,
        device.name
    );
    Ok(DeviceModule {
        handle: handle as usize,
        arch: arch.clone(),
        ptx: text,
        functions: HashMap::new(),
        variables: HashMap::new(),
        memcheck: None,
    })
}

/// Runs `f` on `module` as loaded on `device` (loading it first), holding the module's lock.
fn with_loaded<R>(
    module: &Module,
    device: &CudaDevice,
    f: impl FnOnce(&mut DeviceModule) -> HipResult<R>,
) -> HipResult<R> {
    let mut loaded = state(module).loaded();
    let m = match loaded.entry(device.ordinal) {
        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::hash_map::Entry::Vacant(v) => v.insert(load(module, device)?),
    };
    f(m)
}

/// The kernel `index` of `module` on `device`, loading the module (and giving it its device
/// heap) on first use.
pub fn function(module: &Arc<Module>, index: usize, device: &CudaDevice) -> HipResult<Function> {
    let f = with_loaded(module, device, |m| {
        if let Some(f) = m.functions.get(&index) {
            return Ok(f.clone());
        }
        let info = &module.image.metadata.kernels[index];
        let name = CString::new(info.name.as_str())
            .map_err(|_| Failure::invalid_value("a kernel name holds a NUL"))?;
        let mut handle: sys::CUfunction = std::ptr::null_mut();
        // SAFETY: a loaded module and a NUL-terminated name.
        let r = unsafe {
            sys::cuModuleGetFunction(&mut handle, m.handle as sys::CUmodule, name.as_ptr())
        };
        if r != sys::CUresult::CUDA_SUCCESS {
            return Err(Failure::new(
                HipError::InvalidDeviceFunction,
                format!(
                    "kernel '{}' ({}) is not in the {} PTX of {}: {}",
                    info.source_name,
                    info.name,
                    m.arch,
                    module.label,
                    error_name(r)
                ),
            ));
        }
        let f = Function {
            handle: handle as usize,
            params: ptx::entry_params(&m.ptx, &info.name),
            shared_allowed: 48 * 1024,
        };
        m.functions.insert(index, f.clone());
        Ok(f)
    })?;
    prepare_heap(module, device)?;
    prepare_managed(module, device)?;
    prepare_abort_flag(module, device)?;
    Ok(f)
}

/// Loads every registered module on `device` ahead of its first launch, from a thread of its
/// own started when the device's context is made: the driver's PTX load (its JIT, or its disk
/// cache) then overlaps the program's own start (allocations, copies) instead of landing in the
/// first launch, as nvcc's SASS loads quickly there. What the program may still change (the
/// device heap's size, managed variables) is prepared at the first launch as before; a module
/// that fails to load here is loaded again, and its error reported, at its first launch.
pub fn preload(device: &'static CudaDevice) {
    // The caller may hold the registry's lock (a registration making the context): the thread
    // reads the registry, the caller does not.
    let spawned = std::thread::Builder::new()
        .name("hipmlir-preload".into())
        .spawn(move || {
            let modules = crate::registry::registry().modules();
            if modules.iter().all(|m| m.ptx.is_empty()) || device.bind().is_err() {
                return;
            }
            for module in modules.iter().filter(|m| !m.ptx.is_empty()) {
                let loaded = with_loaded(module, device, |_| Ok(()));
                if let Err(e) = loaded {
                    hlog!(Debug, "preloading {}: {}", module.label, e.message);
                }
            }
        });
    if let Err(e) = spawned {
        hlog!(Debug, "no preloading thread: {e}");
    }
}

/// Records that the kernel may now use `bytes` of dynamic shared memory.
pub fn note_shared_allowed(module: &Module, index: usize, device: &CudaDevice, bytes: usize) {
    let mut loaded = state(module).loaded();
    if let Some(f) = loaded
        .get_mut(&device.ordinal)
        .and_then(|m| m.functions.get_mut(&index))
    {
        f.shared_allowed = bytes;
    }
}

/// The device address and size of variable `index` of `module` on `device`.
pub fn variable(
    module: &Arc<Module>,
    index: usize,
    device: &CudaDevice,
) -> HipResult<(u64, usize)> {
    let global = module.global(index).clone();
    let found = with_loaded(module, device, |m| {
        if let Some(&v) = m.variables.get(&index) {
            return Ok(Some(v));
        }
        let Ok(name) = CString::new(global.name.as_str()) else {
            return Ok(None);
        };
        let (mut address, mut size) = (0u64, 0usize);
        // SAFETY: a loaded module and a NUL-terminated name.
        let r = unsafe {
            sys::cuModuleGetGlobal_v2(
                &mut address,
                &mut size,
                m.handle as sys::CUmodule,
                name.as_ptr(),
            )
        };
        if r == sys::CUresult::CUDA_SUCCESS {
            m.variables.insert(index, (address, size));
            super::memcheck::allocated(address as usize as *const c_void, size, Some(device.index));
            return Ok(Some((address, size)));
        }
        Ok(None)
    })?;
    if let Some(v) = found {
        return Ok(v);
    }
    // The PTX names the variable otherwise: ask its address kernel, as the OpenCL backend does.
    let address = address_from_kernel(module, &global.address_kernel, device)?;
    let size = usize::try_from(global.size).unwrap_or(usize::MAX);
    with_loaded(module, device, |m| {
        m.variables.insert(index, (address, size));
        Ok(())
    })?;
    super::memcheck::allocated(address as usize as *const c_void, size, Some(device.index));
    Ok((address, size))
}

fn address_from_kernel(module: &Arc<Module>, kernel: &str, device: &CudaDevice) -> HipResult<u64> {
    let index = module
        .image
        .metadata
        .kernels
        .iter()
        .position(|k| k.name == kernel)
        .ok_or_else(|| {
            Failure::new(
                HipError::InvalidSymbol,
                format!(
                    "{}: the device variable's address kernel '{kernel}' is missing",
                    module.label
                ),
            )
        })?;
    let f = with_loaded(module, device, |m| {
        if let Some(f) = m.functions.get(&index) {
            return Ok(f.handle);
        }
        let name = CString::new(kernel).map_err(|_| Failure::invalid_value("NUL in a name"))?;
        let mut handle: sys::CUfunction = std::ptr::null_mut();
        // SAFETY: a loaded module and a NUL-terminated name.
        check("cuModuleGetFunction", unsafe {
            sys::cuModuleGetFunction(&mut handle, m.handle as sys::CUmodule, name.as_ptr())
        })?;
        Ok(handle as usize)
    })?;
    let mut out: sys::CUdeviceptr = 0;
    // SAFETY: plain driver calls on the current context; `out` is freed below.
    unsafe {
        check("cuMemAlloc", sys::cuMemAlloc_v2(&mut out, 8))?;
        let mut arg = out;
        let mut params = [(&mut arg as *mut u64).cast::<c_void>()];
        let r = sys::cuLaunchKernel(
            f as sys::CUfunction,
            1,
            1,
            1,
            1,
            1,
            1,
            0,
            std::ptr::null_mut(),
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        );
        let mut address = 0u64;
        let copied = check("cuLaunchKernel", r).and_then(|()| {
            check(
                "cuMemcpyDtoH",
                sys::cuMemcpyDtoH_v2((&mut address as *mut u64).cast(), out, 8),
            )
        });
        let _ = sys::cuMemFree_v2(out);
        copied.map(|()| address)
    }
}

/// A loaded module's marker that its abort-flag variable holds the word (the heap's is
/// `usize::MAX`).
const ABORT_WORD_BOUND: usize = usize::MAX - 1;

/// Points the module's abort-flag variable on `device` at its abort word (pinned host memory,
/// one per module, shared by every device), once per loaded module. See `device_abort`.
fn prepare_abort_flag(module: &Arc<Module>, device: &CudaDevice) -> HipResult<()> {
    const BOUND: usize = ABORT_WORD_BOUND;
    let Some(index) = module.abort_flag_variable else {
        return Ok(());
    };
    if with_loaded(module, device, |m| Ok(m.variables.contains_key(&BOUND)))? {
        return Ok(());
    }
    let (variable, _) = variable(module, index, device)?;
    let mut bound = state(module)
        .abort_word
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let word = match *bound {
        Some((word, _)) => word,
        None => {
            let mut p: *mut c_void = std::ptr::null_mut();
            // SAFETY: a plain driver call; 4 bytes of portable, device-mapped pinned memory,
            // zeroed before the device can see it.
            unsafe {
                check(
                    "cuMemHostAlloc (abort flag)",
                    sys::cuMemHostAlloc(&mut p, 4, HOST_ALLOC_MAPPED),
                )?;
                p.cast::<u32>().write_volatile(0);
            }
            *bound = Some((p as usize, device.ordinal));
            crate::device_abort::register(p as usize, module);
            p as usize
        }
    };
    // With unified addressing the device reaches pinned memory at its host address.
    let address = word as u64;
    // SAFETY: plain driver call on the current context; the host word outlives the copy.
    check("cuMemcpyHtoD", unsafe {
        sys::cuMemcpyHtoD_v2(variable, (&address as *const u64).cast(), 8)
    })?;
    with_loaded(module, device, |m| {
        m.variables.insert(BOUND, (0, 0));
        Ok(())
    })
}

/// Marks, among a loaded module's variables, that its managed variables hold their memory's
/// addresses (no variable has this index).
const MANAGED_BOUND: usize = usize::MAX - 2;

/// Points `module`'s managed variables on `device` at their memory (managed memory, one
/// allocation shared by every device), once per loaded module. See `managed_vars`.
fn prepare_managed(module: &Arc<Module>, device: &CudaDevice) -> HipResult<()> {
    if module.managed_variables.is_empty()
        || with_loaded(module, device, |m| {
            Ok(m.variables.contains_key(&MANAGED_BOUND))
        })?
    {
        return Ok(());
    }
    for &index in &module.managed_variables {
        let memory = crate::managed_vars::address(device, module.global(index))? as u64;
        let (variable, _) = variable(module, index, device)?;
        // SAFETY: plain driver call on the current context; the host word outlives the copy.
        check("cuMemcpyHtoD", unsafe {
            sys::cuMemcpyHtoD_v2(variable, (&memory as *const u64).cast(), 8)
        })?;
    }
    with_loaded(module, device, |m| {
        m.variables.insert(MANAGED_BOUND, (0, 0));
        Ok(())
    })
}

/// Gives `module` its device heap on `device` (the arena's size in its first word, its address
/// in the module's heap variable), once per loaded module. See `heap` for the layout.
fn prepare_heap(module: &Arc<Module>, device: &CudaDevice) -> HipResult<()> {
    let Some(index) = module.heap_variable else {
        return Ok(());
    };
    let already = with_loaded(module, device, |m| {
        Ok(m.variables.contains_key(&usize::MAX))
    })?;
    if already {
        return Ok(());
    }
    let (variable, _) = variable(module, index, device)?;
    let size = crate::heap::limit().max(16);
    let mut arena: sys::CUdeviceptr = 0;
    // SAFETY: plain driver calls on the current context; the host words outlive the copies.
    unsafe {
        check(
            "cuMemAlloc (device heap)",
            sys::cuMemAlloc_v2(&mut arena, size),
        )?;
        // A fresh arena is zero, as the allocator's first use expects on every backend.
        check("cuMemsetD8", sys::cuMemsetD8_v2(arena, 0, size))?;
        let header = [size as u64, 0u64];
        check(
            "cuMemcpyHtoD",
            sys::cuMemcpyHtoD_v2(arena, header.as_ptr().cast(), 16),
        )?;
        check(
            "cuMemcpyHtoD",
            sys::cuMemcpyHtoD_v2(variable, (&arena as *const u64).cast(), 8),
        )?;
    }
    crate::heap::note_started();
    super::memcheck::allocated(arena as usize as *const c_void, size, Some(device.index));
    hlog!(
        Debug,
        "device heap of {} at {arena:#x}: {size} bytes",
        module.label
    );
    with_loaded(module, device, |m| {
        m.variables.insert(usize::MAX, (arena, size));
        Ok(())
    })
}

/// Gives a module built with the memory checker its state on `device` before its first launch
/// there (and again after a reset), and brings its table of allocations up to date before each
/// launch, in order on the launch's `stream`. The variable is written last: a kernel of the
/// module that another stream runs meanwhile sees either null (unchecked) or a complete state.
pub fn prepare_memcheck(
    module: &Arc<Module>,
    device: &CudaDevice,
    stream: sys::CUstream,
    dynamic_shared: usize,
) -> HipResult<()> {
    let Some(index) = module.memcheck_variable else {
        return Ok(());
    };
    let before_launch = |id| {
        let ranges = super::memcheck::ranges();
        crate::memcheck::before_launch(id, ranges, dynamic_shared as u64, stream as usize)
    };
    let bound = with_loaded(module, device, |m| Ok(m.memcheck))?;
    if let Some(id) = bound.filter(|&id| crate::memcheck::is_bound(id)) {
        return before_launch(id);
    }
    let (variable, _) = variable(module, index, device)?;
    let memory = super::memcheck::DeviceMemory::new(stream)?;
    let state = crate::memcheck::CheckerMemory::state(&memory);
    let sites = module.image.metadata.memcheck_sites.clone();
    let id = crate::memcheck::bind(device.index, sites, Box::new(memory));
    before_launch(id)?;
    // SAFETY: plain driver call on the current context; the word is staged before it returns.
    check("cuMemcpyHtoDAsync (memory checker's variable)", unsafe {
        sys::cuMemcpyHtoDAsync_v2(variable, (&state as *const u64).cast(), 8, stream)
    })?;
    with_loaded(module, device, |m| {
        m.memcheck = Some(id);
        Ok(())
    })
}
