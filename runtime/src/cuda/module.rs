//! Device images on the CUDA backend: the PTX entry a device runs, loaded lazily with
//! `cuModuleLoadDataEx` (the JIT's error log in the failure), its kernels (`cuModuleGetFunction`,
//! with their PTX parameter lists), its device variables (`cuModuleGetGlobal`, else the
//! variable's address kernel) and its device heap.
//!
//! The driver JIT-compiles a whole PTX module when it loads it, so a module of many kernels
//! (`jit_policy`) is loaded *per kernel*: at a kernel's first launch, a module cut out of the PTX
//! with that kernel and what it calls (`crate::ptx_split`). Its `.global` variables (the program's
//! `__device__` and `__constant__` variables and the runtime's own: heap, abort flag, managed
//! variables' pointers) live once, in the module's *globals module*; each kernel's module reads
//! their addresses from its table, filled here from the globals module before the kernel's
//! first launch, and the symbol API reads the globals module: every kernel and the host see one
//! instance of each variable. A module the cut cannot take is loaded whole.

use rustc_hash::FxHashMap as HashMap;
use std::any::Any;
use std::ffi::{c_void, CString};
use std::sync::{Arc, Mutex, MutexGuard};

use super::device::CudaDevice;
use super::driver::{check, error_name, hip_code, sys, HOST_ALLOC_MAPPED};
use super::params::{self, Param};
use super::ptx;
use crate::backend::{DeviceId, ModuleState};
use crate::error::{Failure, HipError, HipResult};
use crate::hlog;
use crate::ptx_split::{self, PtxIndex};
use crate::registry::Module;
use hipmlir_device_image::KernelInfo;

/// A kernel of a loaded module.
#[derive(Debug, Clone)]
pub struct Function {
    /// The `CUfunction`.
    pub handle: usize,
    /// Where each PTX parameter's bytes come from at a launch (`params::plan`), or why the
    /// kernel cannot be launched: made once, shared by the launches' copies of the function.
    pub plan: Result<Arc<[Param]>, Failure>,
    /// The dynamic shared memory the function was last allowed (`cuFuncSetAttribute`).
    pub shared_allowed: usize,
}

impl Function {
    pub fn raw(&self) -> sys::CUfunction {
        self.handle as sys::CUfunction
    }
}

/// A `CUmodule` this backend loaded, unloaded when dropped.
#[derive(Debug)]
struct Loaded(usize);

impl Loaded {
    fn raw(&self) -> sys::CUmodule {
        self.0 as sys::CUmodule
    }
}

impl Drop for Loaded {
    fn drop(&mut self) {
        // SAFETY: a module this backend loaded; nothing runs its code once it is dropped.
        let _ = unsafe { sys::cuModuleUnload(self.raw()) };
    }
}

/// How a module's PTX is loaded on a device.
#[derive(Debug)]
enum Code {
    /// The whole PTX, one `CUmodule`.
    Whole { text: String, module: Loaded },
    /// A `CUmodule` per kernel, loaded at the kernel's first use.
    Split(Box<Split>),
}

/// A module loaded per kernel.
#[derive(Debug)]
struct Split {
    index: PtxIndex,
    /// The globals module and its variables' addresses in table order, once loaded.
    globals: Option<(Loaded, Vec<u64>)>,
    /// The kernels' modules loaded so far, kept while their functions live.
    kernels: Vec<Loaded>,
}

/// One module loaded on one device.
#[derive(Debug)]
pub struct DeviceModule {
    /// The PTX entry's architecture (`sm_70`).
    pub arch: String,
    code: Code,
    /// Kernel index → function.
    functions: HashMap<usize, Function>,
    /// Global index → (device address, size).
    variables: HashMap<usize, (u64, usize)>,
    /// The memory checker's binding of the module's state variable, once bound.
    memcheck: Option<u64>,
    /// Whether the module's heap, managed variables and abort flag are set up on the device
    /// (checked at every launch under the lock it already holds, so a launch takes one lock).
    prepared: bool,
}

impl DeviceModule {
    /// Drops what this side holds, not the driver's modules: they died with their context.
    fn forget_modules(self) {
        match self.code {
            Code::Whole { module, .. } => std::mem::forget(module),
            Code::Split(split) => {
                let Split {
                    globals, kernels, ..
                } = *split;
                if let Some((module, _)) = globals {
                    std::mem::forget(module);
                }
                kernels.into_iter().for_each(std::mem::forget);
            }
        }
    }

    /// The PTX text (for the kernels' parameter lists).
    fn ptx(&self) -> &str {
        match &self.code {
            Code::Whole { text, .. } => text,
            Code::Split(split) => split.index.text(),
        }
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
            m.forget_modules();
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
            m.forget_modules();
        }
        let mut word = self.abort_word.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((w, owner)) = *word {
            if owner == ordinal {
                crate::device_abort::forget(w);
                *word = None;
                for m in loaded.values_mut() {
                    m.variables.remove(&ABORT_WORD_BOUND);
                    m.prepared = false;
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

/// What a PTX load is for, in its messages: the whole module, one kernel's, or the globals.
#[derive(Debug, Clone, Copy)]
enum Part<'a> {
    Whole,
    Kernel(&'a str),
    Globals,
}

impl std::fmt::Display for Part<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Part::Whole => f.write_str("PTX"),
            Part::Kernel(name) => write!(f, "PTX of kernel '{name}'"),
            Part::Globals => f.write_str("PTX of the variables"),
        }
    }
}

/// Loads PTX `text` (a part of `module`) on `device`: the driver JIT-compiles it, or takes it
/// from its compute cache.
fn load_ptx(
    module: &Module,
    device: &CudaDevice,
    arch: &str,
    part: Part<'_>,
    text: &str,
) -> HipResult<Loaded> {
    let (major, minor) = device.capability;
    let image = CString::new(text).map_err(|_| {
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
                "cannot load the {arch} {part} of {} on '{}' (compute capability {major}.{minor}): {}{}{}",
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
        "loaded the {arch} {part} of {} on '{}'",
        module.label,
        device.name
    );
    Ok(Loaded(handle as usize))
}

/// Opens the PTX entry of `module` that `device` runs: loaded whole at once, or indexed to be
/// loaded per kernel (`jit_policy`; a module the cut cannot take is loaded whole).
fn open(module: &Module, device: &CudaDevice) -> HipResult<DeviceModule> {
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
    let code = if crate::jit_policy::per_kernel(module.image.metadata.kernels.len()) {
        match ptx_split::index(text.clone()) {
            Ok(index) => {
                hlog!(
                    Debug,
                    "{} is loaded per kernel on '{}' ({} kernels)",
                    module.label,
                    device.name,
                    index.entries()
                );
                Some(Code::Split(Box::new(Split {
                    index,
                    globals: None,
                    kernels: Vec::new(),
                })))
            }
            Err(why) => {
                hlog!(Debug, "{} is loaded whole: {why}", module.label);
                None
            }
        }
    } else {
        None
    };
    let code = match code {
        Some(code) => code,
        None => Code::Whole {
            module: load_ptx(module, device, arch, Part::Whole, &text)?,
            text,
        },
    };
    Ok(DeviceModule {
        arch: arch.clone(),
        code,
        functions: HashMap::default(),
        variables: HashMap::default(),
        memcheck: None,
        prepared: false,
    })
}

/// Runs `f` on `module` as opened on `device` (opening it first), holding the module's lock.
fn with_loaded<R>(
    module: &Module,
    device: &CudaDevice,
    f: impl FnOnce(&mut DeviceModule) -> HipResult<R>,
) -> HipResult<R> {
    let mut loaded = state(module).loaded();
    let m = match loaded.entry(device.ordinal) {
        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::hash_map::Entry::Vacant(v) => v.insert(open(module, device)?),
    };
    f(m)
}

impl DeviceModule {
    /// The `CUmodule` holding the module's variables: the whole module, or the globals module
    /// (loaded on first use; `None` when the module has no `.global` variables).
    fn variables_module(
        &mut self,
        module: &Module,
        device: &CudaDevice,
    ) -> HipResult<Option<sys::CUmodule>> {
        let arch = self.arch.clone();
        let split = match &mut self.code {
            Code::Whole { module, .. } => return Ok(Some(module.raw())),
            Code::Split(split) => split,
        };
        if split.globals.is_none() {
            let Some(text) = split.index.globals_module() else {
                return Ok(None);
            };
            let loaded = load_ptx(module, device, &arch, Part::Globals, &text)?;
            let mut addresses = Vec::new();
            for name in split.index.shared_variables() {
                let (address, _) = global_of(loaded.raw(), name)?.ok_or_else(|| {
                    Failure::new(
                        HipError::InvalidImage,
                        format!(
                            "{}: variable '{name}' is not in its globals module",
                            module.label
                        ),
                    )
                })?;
                addresses.push(address);
            }
            split.globals = Some((loaded, addresses));
        }
        Ok(split.globals.as_ref().map(|(m, _)| m.raw()))
    }

    /// The `CUmodule` holding kernel `name`: the whole module, or the kernel's own (cut out,
    /// loaded and its table filled on first use).
    fn kernel_module(
        &mut self,
        module: &Module,
        device: &CudaDevice,
        name: &str,
    ) -> HipResult<sys::CUmodule> {
        let arch = self.arch.clone();
        let cut = match &self.code {
            Code::Whole { module, .. } => return Ok(module.raw()),
            Code::Split(split) => split.index.kernel_module(name),
        };
        let Some(cut) = cut else {
            return Err(Failure::new(
                HipError::InvalidDeviceFunction,
                format!(
                    "kernel '{name}' is not in the {arch} PTX of {}",
                    module.label
                ),
            ));
        };
        let loaded = load_ptx(module, device, &arch, Part::Kernel(name), &cut.text)?;
        if cut.uses_table {
            self.variables_module(module, device)?;
            let Code::Split(split) = &self.code else {
                unreachable!("a kernel's module is cut only from a split module")
            };
            let addresses = split
                .globals
                .as_ref()
                .map_or(&[][..], |(_, a)| a.as_slice());
            let (table, size) = global_of(loaded.raw(), ptx_split::TABLE)?.ok_or_else(|| {
                Failure::new(
                    HipError::InvalidImage,
                    format!("{}: kernel '{name}' lost its variable table", module.label),
                )
            })?;
            let bytes = std::mem::size_of_val(addresses);
            if bytes != size {
                return Err(Failure::new(
                    HipError::InvalidImage,
                    format!(
                        "{}: kernel '{name}''s variable table has {size} bytes, not {bytes}",
                        module.label
                    ),
                ));
            }
            // SAFETY: plain driver call on the current context; the table has `bytes` bytes
            // and the host addresses outlive the copy.
            check("cuMemcpyHtoD (variable table)", unsafe {
                sys::cuMemcpyHtoD_v2(table, addresses.as_ptr().cast(), bytes)
            })?;
        }
        let raw = loaded.raw();
        if let Code::Split(split) = &mut self.code {
            split.kernels.push(loaded);
        }
        Ok(raw)
    }

    /// Kernel `index`'s function, from its module (loaded on first use) and kept.
    fn function(
        &mut self,
        module: &Module,
        device: &CudaDevice,
        index: usize,
    ) -> HipResult<Function> {
        if let Some(f) = self.functions.get(&index) {
            return Ok(f.clone());
        }
        let info = &module.image.metadata.kernels[index];
        let code = self.kernel_module(module, device, &info.name)?;
        let handle = function_of(code, &info.name).map_err(|r| {
            Failure::new(
                HipError::InvalidDeviceFunction,
                format!(
                    "kernel '{}' ({}) is not in the {} PTX of {}: {}",
                    info.source_name,
                    info.name,
                    self.arch,
                    module.label,
                    error_name(r)
                ),
            )
        })?;
        let f = Function {
            handle: handle as usize,
            plan: params::plan(
                info,
                ptx::entry_params(self.ptx(), &info.name).as_deref(),
                module
                    .image
                    .metadata
                    .linear_block_kernels
                    .contains(&info.name),
            ),
            shared_allowed: 48 * 1024,
        };
        self.functions.insert(index, f.clone());
        Ok(f)
    }
}

/// The address and size of variable `name` of a loaded module; `None` when it has none.
fn global_of(module: sys::CUmodule, name: &str) -> HipResult<Option<(u64, usize)>> {
    let Ok(name) = CString::new(name) else {
        return Ok(None);
    };
    let (mut address, mut size) = (0u64, 0usize);
    // SAFETY: a loaded module and a NUL-terminated name.
    let r = unsafe { sys::cuModuleGetGlobal_v2(&mut address, &mut size, module, name.as_ptr()) };
    Ok((r == sys::CUresult::CUDA_SUCCESS).then_some((address, size)))
}

/// The `CUfunction` of kernel `name` in a loaded module.
fn function_of(module: sys::CUmodule, name: &str) -> Result<sys::CUfunction, sys::CUresult> {
    let Ok(name) = CString::new(name) else {
        return Err(sys::CUresult::CUDA_ERROR_INVALID_VALUE);
    };
    let mut handle: sys::CUfunction = std::ptr::null_mut();
    // SAFETY: a loaded module and a NUL-terminated name.
    let r = unsafe { sys::cuModuleGetFunction(&mut handle, module, name.as_ptr()) };
    if r == sys::CUresult::CUDA_SUCCESS {
        Ok(handle)
    } else {
        Err(r)
    }
}

/// The kernel `index` of `module` on `device`, loading the module (or the kernel's own) and
/// giving the module its device heap on first use.
pub fn function(module: &Arc<Module>, index: usize, device: &CudaDevice) -> HipResult<Function> {
    let (f, prepared) = with_loaded(module, device, |m| {
        Ok((m.function(module, device, index)?, m.prepared))
    })?;
    if !prepared {
        prepare_heap(module, device)?;
        prepare_managed(module, device)?;
        prepare_abort_flag(module, device)?;
        with_loaded(module, device, |m| {
            m.prepared = true;
            Ok(())
        })?;
    }
    Ok(f)
}

/// Loads every registered module on `device` ahead of its first launch, from a thread of its
/// own started when the device's context is made: the driver's PTX load (its JIT, or its disk
/// cache) then overlaps the program's own start (allocations, copies) instead of landing in the
/// first launch, as nvcc's SASS loads quickly there. What the program may still change (the
/// device heap's size, managed variables) is prepared at the first launch as before; a module
/// that fails to load here is loaded again, and its error reported, at its first launch. A
/// module loaded whole has its kernels' functions fetched here too; a module loaded per kernel
/// is indexed and its globals module loaded here, each kernel at its first launch.
///
/// A program may end while a load runs: the driver's exit handler then tears the driver down
/// under the loading thread, which crashed short programs at exit. [`finish_preloads`] runs at
/// exit before the driver's handler, stops the loads between modules and waits for the one
/// under way.
pub fn preload(device: &'static CudaDevice) {
    use std::sync::atomic::Ordering;
    {
        let mut running = PRELOADS.0.lock().unwrap_or_else(|p| p.into_inner());
        if PRELOAD_EXIT.load(Ordering::Acquire) {
            return;
        }
        if !PRELOAD_EXIT_HOOK.swap(true, Ordering::AcqRel) {
            // Registered after the driver's own (the context exists), so it runs first.
            // SAFETY: registering a plain function with the C library.
            unsafe { libc::atexit(finish_preloads) };
        }
        *running += 1;
    }
    let done = || {
        let mut running = PRELOADS.0.lock().unwrap_or_else(|p| p.into_inner());
        *running -= 1;
        PRELOADS.1.notify_all();
    };
    // The caller may hold the registry's lock (a registration making the context): the thread
    // reads the registry, the caller does not.
    let spawned = std::thread::Builder::new()
        .name("hipmlir-preload".into())
        .spawn(move || {
            let modules = crate::registry::registry().modules();
            if modules.iter().any(|m| !m.ptx.is_empty()) && device.bind().is_ok() {
                for module in modules.iter().filter(|m| !m.ptx.is_empty()) {
                    if PRELOAD_EXIT.load(Ordering::Acquire) {
                        break;
                    }
                    let loaded = with_loaded(module, device, |m| {
                        m.variables_module(module, device)?;
                        Ok(matches!(m.code, Code::Whole { .. }))
                    });
                    match loaded {
                        Ok(true) => fetch_functions(module, device),
                        Ok(false) => {}
                        Err(e) => hlog!(Debug, "preloading {}: {}", module.label, e.message),
                    }
                }
            }
            done();
        });
    if let Err(e) = spawned {
        hlog!(Debug, "no preloading thread: {e}");
        done();
    }
}

/// Fetches every kernel's function of a module loaded whole, with its parameter plan, so that a
/// kernel's first launch finds them ready: the driver loads a function at its first fetch (lazy
/// loading) and the plan reads the PTX text, which cost each first launch tens of microseconds
/// more than nvcc's. The module's lock is taken per kernel, so that a launch meanwhile waits for
/// one fetch at most. A kernel whose fetch fails is fetched again, and its error reported, at its
/// launch.
fn fetch_functions(module: &Arc<Module>, device: &CudaDevice) {
    use std::sync::atomic::Ordering;
    for index in 0..module.image.metadata.kernels.len() {
        if PRELOAD_EXIT.load(Ordering::Acquire) {
            return;
        }
        if let Err(e) = with_loaded(module, device, |m| m.function(module, device, index)) {
            hlog!(Debug, "preloading {}: {}", module.label, e.message);
        }
    }
}

/// Preloading threads under way, and their end.
static PRELOADS: (Mutex<usize>, std::sync::Condvar) = (Mutex::new(0), std::sync::Condvar::new());
/// Set at exit: no module is preloaded after it.
static PRELOAD_EXIT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static PRELOAD_EXIT_HOOK: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// At exit: stops preloading and waits for the module load under way (a minute at most: a
/// driver that never returns must not hold the exit forever).
extern "C" fn finish_preloads() {
    PRELOAD_EXIT.store(true, std::sync::atomic::Ordering::Release);
    let running = PRELOADS.0.lock().unwrap_or_else(|p| p.into_inner());
    let _ = PRELOADS
        .1
        .wait_timeout_while(running, std::time::Duration::from_secs(60), |n| *n > 0);
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
        let Some(code) = m.variables_module(module, device)? else {
            return Ok(None);
        };
        let found = global_of(code, &global.name)?;
        if let Some(v) = found {
            m.variables.insert(index, v);
        }
        Ok(found)
    })?;
    if let Some((address, size)) = found {
        super::memcheck::allocated(address as usize as *const c_void, size, Some(device.index));
        return Ok((address, size));
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
    let f = with_loaded(module, device, |m| m.function(module, device, index))?.handle;
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
/// Returns the launch's extents (`memcheck::extents`).
pub fn prepare_memcheck(
    module: &Arc<Module>,
    device: &CudaDevice,
    stream: sys::CUstream,
    dynamic_shared: usize,
    launch: (&KernelInfo, &[u8]),
) -> HipResult<Vec<u64>> {
    let Some(index) = module.memcheck_variable else {
        return Ok(Vec::new());
    };
    let before_launch = |id| {
        let ranges = super::memcheck::ranges();
        crate::memcheck::before_launch(id, ranges, dynamic_shared as u64, stream as usize, launch)
    };
    let bound = with_loaded(module, device, |m| Ok(m.memcheck))?;
    if let Some(id) = bound.filter(|&id| crate::memcheck::is_bound(id)) {
        return before_launch(id);
    }
    let (variable, _) = variable(module, index, device)?;
    // Each variable's address, asked once, enters it in the allocations the table holds
    // (`variable`).
    for v in module.program_variables() {
        self::variable(module, v, device)?;
    }
    let memory = super::memcheck::DeviceMemory::new(stream)?;
    let state = crate::memcheck::CheckerMemory::state(&memory);
    let sites = module.image.metadata.memcheck_sites.clone();
    let id = crate::memcheck::bind(device.index, sites, Box::new(memory));
    let extents = before_launch(id)?;
    // SAFETY: plain driver call on the current context; the word is staged before it returns.
    check("cuMemcpyHtoDAsync (memory checker's variable)", unsafe {
        sys::cuMemcpyHtoDAsync_v2(variable, (&state as *const u64).cast(), 8, stream)
    })?;
    with_loaded(module, device, |m| {
        m.memcheck = Some(id);
        Ok(())
    })?;
    Ok(extents)
}
