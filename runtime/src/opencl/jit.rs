//! Lazy JIT: a module's SPIR-V becomes OpenCL programs on the first launch of its kernels;
//! kernel objects are created once per name and kept.
//!
//! A module of many kernels is built *per kernel* (`spirv_split`): the first launch of a kernel
//! builds that kernel and what it calls, not the whole module (a source of thousands of kernels
//! would otherwise take minutes before its first kernel runs). Its shared variables live in the
//! module's globals program, built once, and each kernel's program reaches them through its
//! table, filled by its bind kernel before the kernel's first launch; so every kernel, the host's
//! symbol copies and `hipGetSymbolAddress` see one instance of each variable.
//! `HIPMLIR_JIT=module` or `kernel` forces either way; by default a module of more than
//! [`SPLIT_MIN_KERNELS`](crate::jit_policy::SPLIT_MIN_KERNELS) kernels is split
//! (`jit_policy`).
//!
//! [`build_il`] is the single place a program is made from SPIR-V: it consults the on-disk cache
//! (`cache`, keyed by the SPIR-V built, so a kernel's program has its own entry) first
//! (`clCreateProgramWithBinary`), else builds the SPIR-V (`clCreateProgramWithIL`) and stores
//! the result. `HIPMLIR_DUMP_SPIRV=dir` writes every module's SPIR-V there before it is built.

use std::collections::HashMap;
use std::ffi::{c_void, CStr};
use std::sync::OnceLock;

use super::cl::{error_name, OwnedKernel, OwnedProgram};
use super::device::Runtime;
use crate::cache::{self, BuildContext};
use crate::error::{Failure, HipError, HipResult};
use crate::hlog;
use crate::registry::Module;
use crate::spirv::{self, Param};
use crate::spirv_split::{SplitIndex, BIND_KERNEL, GLOBALS_KERNEL};
use hipmlir_device_image::spirv_words::{self, spirv::Capability, spirv::StorageClass};
use hipmlir_device_image::{AddressSpace, KernelArg};

/// Program builds so far: (loaded from the cache, built from SPIR-V, stored in the cache).
static STATS: [std::sync::atomic::AtomicUsize; 3] = [
    std::sync::atomic::AtomicUsize::new(0),
    std::sync::atomic::AtomicUsize::new(0),
    std::sync::atomic::AtomicUsize::new(0),
];

fn count(which: usize) {
    STATS[which].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// (programs loaded from the on-disk cache, programs built from SPIR-V, entries stored), for
/// tests and `HIPMLIR_LOG=debug`.
pub fn build_stats() -> (usize, usize, usize) {
    let get = |i: usize| STATS[i].load(std::sync::atomic::Ordering::Relaxed);
    (get(0), get(1), get(2))
}

/// Options passed to `clBuildProgram`.
const BUILD_OPTIONS: &CStr = c"";

/// A kernel object ready to launch.
#[derive(Debug)]
pub struct PreparedKernel {
    pub kernel: OwnedKernel,
    /// Per argument: the metadata says "by value" but the SPIR-V takes its address (a
    /// CrossWorkgroup pointer, or a 64-bit integer where the metadata's argument is larger): the
    /// compiler moved the argument to memory and the launcher must spill it.
    pub spilled: Vec<bool>,
    /// Per argument: a device address (a pointer, or a spilled argument's buffer) that the
    /// SPIR-V entry point takes as a 64-bit integer (the compiler's `address_parameters`): set by
    /// `clSetKernelArg` of its 8 bytes. Otherwise (images from before, other compilers' SPIR-V)
    /// the pointer parameter is set through the memory backend's pointer setter.
    pub addresses: Vec<bool>,
    /// CL_KERNEL_WORK_GROUP_SIZE, CL_KERNEL_LOCAL_MEM_SIZE, CL_KERNEL_PRIVATE_MEM_SIZE.
    pub work_group_size: usize,
    pub local_mem_size: u64,
    pub private_mem_size: u64,
}

/// A built module: its program(s) and the kernels created from them so far.
#[derive(Debug)]
pub struct BuiltModule {
    code: Code,
    kernels: HashMap<String, PreparedKernel>,
    /// Kernel parameters as the SPIR-V declares them (empty if it could not be read).
    spirv_params: HashMap<String, Vec<Param>>,
}

/// How a module's kernels are built.
#[derive(Debug)]
enum Code {
    /// One program of the whole module.
    Whole(OwnedProgram),
    /// A program per kernel, built at its first launch.
    Split(Box<Split>),
}

/// A module built per kernel.
#[derive(Debug)]
struct Split {
    index: SplitIndex,
    /// The SPIR-V split (the variant chosen for the device).
    label: String,
    /// The globals program and its variables' addresses, once a kernel needs them.
    globals: Option<Globals>,
    /// The kernels' programs built so far, kept while their kernels live.
    programs: Vec<OwnedProgram>,
}

/// The module's shared variables: their program, and a device buffer holding their addresses
/// (the globals kernel's output, the bind kernels' input).
#[derive(Debug)]
struct Globals {
    _program: OwnedProgram,
    addresses: DeviceBuffer,
}

/// Device memory of the runtime's own, freed with its owner.
#[derive(Debug)]
struct DeviceBuffer {
    device: crate::backend::DeviceId,
    pointer: *mut c_void,
}

// SAFETY: a device address; only the owner's lock reaches it.
unsafe impl Send for DeviceBuffer {}

impl DeviceBuffer {
    fn new(rt: &Runtime, bytes: usize) -> HipResult<Self> {
        let pointer = rt
            .memory
            .alloc(rt.context.get(), rt.device_id(), bytes.max(8))
            .map_err(|e| Failure::new(HipError::OutOfMemory, format!("{bytes} bytes: {e}")))?;
        Ok(DeviceBuffer {
            device: rt.id,
            pointer,
        })
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        if let Ok(rt) = super::device::runtime_of(self.device) {
            // SAFETY: allocated by this context; the kernels that used it were waited for.
            let _ = unsafe { rt.memory.free(rt.context.get(), self.pointer) };
        }
    }
}

/// The JIT state of a module, behind the module's lock.
#[derive(Debug, Default)]
pub enum Build {
    #[default]
    NotBuilt,
    Built(BuiltModule),
    /// Building failed; the failure is returned again without rebuilding.
    Failed(Failure),
}

fn build_log(program: &OwnedProgram, device: cl3::types::cl_device_id) -> String {
    cl3::program::get_program_build_data(program.get(), device, cl3::program::CL_PROGRAM_BUILD_LOG)
        .map(|bytes| {
            String::from_utf8_lossy(&bytes)
                .trim_end_matches('\0')
                .trim()
                .to_string()
        })
        .unwrap_or_default()
}

fn build(
    program: &OwnedProgram,
    device: cl3::types::cl_device_id,
    options: &CStr,
) -> Result<(), cl3::types::cl_int> {
    cl3::program::build_program(
        program.get(),
        &[device],
        options,
        None,
        std::ptr::null_mut(),
    )
}

/// What identifies this device and driver for the cache.
fn build_context(rt: &Runtime, options: &CStr) -> BuildContext {
    BuildContext {
        device_name: rt.info.name.clone(),
        device_vendor: rt.info.vendor.clone(),
        device_version: rt.info.version.clone(),
        driver_version: rt.info.driver_version.clone(),
        platform_version: rt.platform_version.clone(),
        options: options.to_string_lossy().into_owned(),
    }
}

/// `HIPMLIR_DUMP_SPIRV`: the folder to write modules' SPIR-V to, if set.
fn dump_dir() -> Option<&'static std::path::Path> {
    static DIR: OnceLock<Option<std::path::PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        std::env::var_os("HIPMLIR_DUMP_SPIRV")
            .filter(|v| !v.is_empty())
            .map(std::path::PathBuf::from)
    })
    .as_deref()
}

fn dump_spirv(module: &Module, spirv: &[u8], key: &str) {
    let Some(dir) = dump_dir() else { return };
    let name: String = module
        .label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let path = dir.join(format!("hipmlir-{name}-{}.spv", &key[..16]));
    match std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, spirv)) {
        Ok(()) => hlog!(
            Info,
            "wrote the SPIR-V of {} to {}",
            module.label,
            path.display()
        ),
        Err(e) => hlog!(
            Warn,
            "HIPMLIR_DUMP_SPIRV: cannot write {}: {e}",
            path.display()
        ),
    }
}

/// The kernel names a built program holds (`CL_PROGRAM_KERNEL_NAMES`, `;`-separated).
fn program_kernel_names(program: &OwnedProgram) -> Option<Vec<String>> {
    let info = cl3::program::get_program_info(program.get(), cl3::program::CL_PROGRAM_KERNEL_NAMES)
        .ok()?;
    let text = String::from(info);
    Some(
        text.trim_end_matches('\0')
            .split(';')
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .collect(),
    )
}

/// A program from a cached binary, if the cache has a usable one: it must load, build and hold
/// every kernel in `expected` (the SPIR-V's entry points). An entry failing any of these is
/// evicted with a log line, and the caller rebuilds from SPIR-V (once: the rebuilt program
/// replaces the entry).
fn from_cache(
    rt: &Runtime,
    store: &cache::ProgramCache,
    key: &str,
    options: &CStr,
    expected: &[String],
) -> Option<OwnedProgram> {
    let binary = store.load(key)?;
    let device = rt.device_id();
    // SAFETY: the device belongs to the context; the binary slice outlives the call.
    let raw = unsafe {
        cl3::program::create_program_with_binary(rt.context.get(), &[device], &[&binary])
    };
    let program = match raw {
        // SAFETY: a new program; we take over its only reference.
        Ok(raw) => unsafe { OwnedProgram::from_raw(raw) },
        Err(e) => {
            hlog!(
                Warn,
                "the driver refused cached program {key} ({}); rebuilding",
                error_name(e)
            );
            store.remove(key);
            return None;
        }
    };
    match build(&program, device, options) {
        Ok(()) => {
            if let Some(held) = program_kernel_names(&program) {
                if let Some(missing) = expected.iter().find(|k| !held.contains(k)) {
                    hlog!(
                        Warn,
                        "cached program {key} lacks kernel '{missing}'; evicting it and rebuilding"
                    );
                    store.remove(key);
                    return None;
                }
            }
            hlog!(Debug, "program cache hit: {key}");
            count(0);
            Some(program)
        }
        Err(e) => {
            hlog!(
                Warn,
                "cached program {key} does not build ({}); rebuilding",
                error_name(e)
            );
            store.remove(key);
            None
        }
    }
}

/// Stores a built program's binary.
fn to_cache(program: &OwnedProgram, store: &cache::ProgramCache, key: &str) {
    let binaries = cl3::program::get_program_info(program.get(), cl3::program::CL_PROGRAM_BINARIES);
    let binary = match binaries {
        Ok(cl3::info_type::InfoType::VecVecUchar(mut all)) if !all.is_empty() => all.swap_remove(0),
        _ => {
            hlog!(Debug, "the driver gives no program binary; not cached");
            return;
        }
    };
    if binary.is_empty() {
        return;
    }
    match store.store(key, &binary) {
        Ok(()) => {
            count(2);
            hlog!(Debug, "program cached: {key} ({} bytes)", binary.len())
        }
        Err(e) => {
            if crate::log::first_time("program cache store") {
                hlog!(Warn, "program cache: {e}; continuing without caching");
            }
        }
    }
}

/// The SPIR-V to build for this device: the first variant whose extension the device has (native
/// float atomics, say), else the image's own module.
fn select_spirv<'m>(rt: &Runtime, module: &'m Module) -> std::borrow::Cow<'m, [u8]> {
    module
        .image
        .metadata
        .spirv_variants
        .iter()
        .filter(|v| rt.info.has_extension(&v.requires_extension))
        .find_map(|v| v.spirv())
        .map(std::borrow::Cow::Owned)
        .unwrap_or(std::borrow::Cow::Borrowed(&module.image.spirv))
}

/// What to call `module` in messages: its label and kernels.
fn describe(module: &Module) -> String {
    format!(
        "{} (kernels: {})",
        module.label,
        module.kernel_names().join(", ")
    )
}

/// The SPIR-V to build `module` from on this device, refused when it has none or needs what the
/// device lacks (the feature named).
fn checked_spirv<'m>(rt: &Runtime, module: &'m Module) -> HipResult<std::borrow::Cow<'m, [u8]>> {
    if module.image.spirv.is_empty() {
        let arches: Vec<&str> = module.ptx.iter().map(|(a, _)| a.as_str()).collect();
        return Err(Failure::new(
            HipError::NoBinaryForGpu,
            format!(
                "{} carries PTX only ({}): it runs on NVIDIA GPUs (the CUDA backend); rebuild \
                 with --offload-arch=spirv64 too for OpenCL devices",
                describe(module),
                arches.join(", ")
            ),
        ));
    }
    let chosen = select_spirv(rt, module);
    if let Ok(words) = spirv_words::words(&chosen) {
        let missing = super::capabilities::missing(&words, &rt.info);
        if !missing.is_empty() {
            return Err(Failure::new(
                HipError::NoBinaryForGpu,
                format!(
                    "{} needs {}, which device '{}' does not support",
                    describe(module),
                    missing.join(", "),
                    rt.info.name
                ),
            ));
        }
    }
    Ok(chosen)
}

/// Creates and builds the program of a whole module (from the cache when possible).
pub fn build_program(rt: &Runtime, module: &Module) -> HipResult<OwnedProgram> {
    let spirv = checked_spirv(rt, module)?;
    build_il(rt, module, &spirv, &describe(module))
}

/// Creates and builds a program from `spirv` (`module`'s, or a part of it: `what`), from the
/// cache when possible, printing the build log on failure.
fn build_il(rt: &Runtime, module: &Module, spirv: &[u8], what: &str) -> HipResult<OwnedProgram> {
    let ctx = build_context(rt, BUILD_OPTIONS);
    let key = cache::key(spirv, &ctx);
    dump_spirv(module, spirv, &key);
    let store = cache::global();
    if let Some(store) = store {
        let entry_points: Vec<String> = crate::spirv::parse_kernels(spirv)
            .map(|ks| ks.into_iter().map(|k| k.name).collect())
            .unwrap_or_default();
        if let Some(program) = from_cache(rt, store, &key, BUILD_OPTIONS, &entry_points) {
            return Ok(program);
        }
    }
    let raw = cl3::program::create_program_with_il(rt.context.get(), spirv).map_err(|e| {
        Failure::new(
            HipError::InvalidImage,
            format!("clCreateProgramWithIL rejected {what}: {}", error_name(e)),
        )
    })?;
    // SAFETY: a new program; we take over its only reference.
    let program = unsafe { OwnedProgram::from_raw(raw) };
    let device = rt.device_id();
    let started = std::time::Instant::now();
    if let Err(e) = build(&program, device, BUILD_OPTIONS) {
        let log = build_log(&program, device);
        hlog!(
            Error,
            "building {what} failed ({}); build log:\n{}",
            error_name(e),
            if log.is_empty() { "(empty)" } else { &log }
        );
        return Err(Failure::new(
            HipError::InvalidImage,
            format!(
                "{what} failed to build ({}){}",
                error_name(e),
                build_failure_note(spirv)
            ),
        ));
    }
    hlog!(Debug, "built {what} in {:?}", started.elapsed());
    // (The device compiler's own log: Intel's says which kernels it vectorized, and how wide.)
    if crate::log::enabled(crate::log::Level::Debug) {
        let log = build_log(&program, device);
        if !log.trim().is_empty() {
            hlog!(Debug, "build log of {what}:\n{}", log.trim_end());
        }
    }
    count(1);
    if let Some(store) = store {
        to_cache(&program, store, &key);
    }
    Ok(program)
}

/// What a failed build of `spirv` may be due to, beyond the driver's log: recursion, whose calls
/// go through SPV_INTEL_function_pointers, which only some OpenCL devices take (and none
/// reports: Intel's CPU runtime runs it without listing the extension).
fn build_failure_note(spirv: &[u8]) -> &'static str {
    let declares_function_pointers = spirv_words::words(spirv).is_ok_and(|words| {
        super::capabilities::declared(&words).contains(&Capability::FunctionPointersINTEL)
    });
    if declares_function_pointers {
        "; its recursive device functions call themselves through SPV_INTEL_function_pointers, \
         which this device's OpenCL compiler may not take (Intel's do; NVIDIA targets, \
         --offload-arch=sm_XX, run recursion on GPUs)"
    } else {
        ""
    }
}

/// A program of the runtime's own, from OpenCL C `source` built with `options` (from the cache
/// when possible), holding `kernels`.
pub fn build_source(
    rt: &Runtime,
    source: &str,
    options: &CStr,
    kernels: &[&str],
) -> Result<OwnedProgram, String> {
    let key = cache::key(source.as_bytes(), &build_context(rt, options));
    let store = cache::global();
    let expected: Vec<String> = kernels.iter().map(|k| k.to_string()).collect();
    if let Some(program) = store.and_then(|c| from_cache(rt, c, &key, options, &expected)) {
        return Ok(program);
    }
    let raw = cl3::program::create_program_with_source(rt.context.get(), &[source])
        .map_err(|e| format!("clCreateProgramWithSource: {}", error_name(e)))?;
    // SAFETY: a new program; we take over its only reference.
    let program = unsafe { OwnedProgram::from_raw(raw) };
    let device = rt.device_id();
    build(&program, device, options).map_err(|e| {
        format!(
            "building '{}' failed ({}): {}",
            kernels.join("', '"),
            error_name(e),
            build_log(&program, device)
        )
    })?;
    count(1);
    if let Some(store) = store {
        to_cache(&program, store, &key);
    }
    Ok(program)
}

/// The module's split index, when it is to be built per kernel.
fn split_index(rt: &Runtime, module: &Module) -> HipResult<Option<SplitIndex>> {
    if !crate::jit_policy::per_kernel(module.image.metadata.kernels.len()) {
        return Ok(None);
    }
    let spirv = checked_spirv(rt, module)?;
    match SplitIndex::new(&spirv) {
        Ok(index) => Ok(index),
        Err(e) => {
            hlog!(Debug, "{} is built whole: {e}", module.label);
            Ok(None)
        }
    }
}

/// Kernel parameters as `spirv` declares them (empty, with a log line, if it cannot be read).
fn read_params(spirv: &[u8], label: &str) -> HashMap<String, Vec<Param>> {
    match spirv::parse_kernels(spirv) {
        Ok(kernels) => kernels.into_iter().map(|k| (k.name, k.params)).collect(),
        Err(e) => {
            hlog!(Debug, "cannot read the kernel parameters of {label}: {e}");
            HashMap::new()
        }
    }
}

/// Builds `module` if it is not built yet (the caller holds its lock, `state`): the whole
/// program, or, for a module built per kernel, nothing yet.
pub fn ensure_built<'s>(
    rt: &Runtime,
    module: &Module,
    state: &'s mut Build,
) -> HipResult<&'s mut BuiltModule> {
    if let Build::NotBuilt = state {
        let built = split_index(rt, module).and_then(|index| match index {
            Some(index) => {
                hlog!(Debug, "{} is built per kernel", module.label);
                Ok(BuiltModule {
                    code: Code::Split(Box::new(Split {
                        index,
                        label: module.label.clone(),
                        globals: None,
                        programs: Vec::new(),
                    })),
                    kernels: HashMap::new(),
                    spirv_params: HashMap::new(),
                })
            }
            None => build_program(rt, module).map(|program| BuiltModule {
                code: Code::Whole(program),
                kernels: HashMap::new(),
                spirv_params: read_params(&module.image.spirv, &module.label),
            }),
        });
        *state = match built {
            Ok(built) => Build::Built(built),
            Err(failure) => {
                // Keep the failure for later launches, without the stderr line (already printed).
                let remembered = Failure::new(
                    failure.code,
                    format!("{} (earlier build failure)", failure.message),
                );
                *state = Build::Failed(remembered);
                return Err(failure);
            }
        };
    }
    match state {
        Build::Built(built) => Ok(built),
        Build::Failed(failure) => Err(failure.clone()),
        Build::NotBuilt => Err(Failure::new(HipError::Unknown, "module state lost")),
    }
}

/// The kernel `name` of `module`, building the module (or the kernel's own program) and
/// creating the kernel on first use. The caller holds the module's lock (`state`).
pub fn prepared_kernel<'s>(
    rt: &Runtime,
    module: &Module,
    state: &'s mut Build,
    name: &str,
    expected_args: usize,
) -> HipResult<&'s PreparedKernel> {
    let built = ensure_built(rt, module, state)?;
    if !built.kernels.contains_key(name) {
        let prepared = match &mut built.code {
            Code::Whole(program) => {
                let params = built.spirv_params.get(name).cloned();
                create_kernel(rt, program, module, name, expected_args, params)?
            }
            Code::Split(split) => {
                let (program, params) = split.kernel_program(rt, module, name)?;
                let prepared = create_kernel(rt, &program, module, name, expected_args, params);
                split.programs.push(program);
                prepared?
            }
        };
        built.kernels.insert(name.to_string(), prepared);
    }
    built
        .kernels
        .get(name)
        .ok_or_else(|| Failure::new(HipError::Unknown, "kernel cache lost an entry"))
}

impl Split {
    /// Builds kernel `name`'s own program and fills its table; with its parameters as its
    /// SPIR-V declares them.
    fn kernel_program(
        &mut self,
        rt: &Runtime,
        module: &Module,
        name: &str,
    ) -> HipResult<(OwnedProgram, Option<Vec<Param>>)> {
        if !self.index.has_kernel(name) {
            return Err(Failure::new(
                HipError::InvalidDeviceFunction,
                format!(
                    "kernel '{name}' is in the metadata of {} but its SPIR-V has no such entry \
                     point",
                    self.label
                ),
            ));
        }
        let what = format!("kernel '{name}' of {}", self.label);
        let part = self.index.kernel_module(name).map_err(|e| {
            Failure::new(
                HipError::InvalidImage,
                format!("cannot cut {what} out of its module: {e}"),
            )
        })?;
        let program = build_il(rt, module, &part.spirv, &what)?;
        if part.binds {
            let addresses = self.globals(rt, module)?.addresses.pointer;
            run_setup_kernel(rt, &program, BIND_KERNEL, addresses)?;
        }
        let params = read_params(&part.spirv, &what).remove(name);
        Ok((program, params))
    }

    /// The globals program, built and its kernel run on first use.
    fn globals(&mut self, rt: &Runtime, module: &Module) -> HipResult<&Globals> {
        if self.globals.is_none() {
            let what = format!("the variables of {}", self.label);
            let spirv = self.index.globals_module().map_err(|e| {
                Failure::new(HipError::InvalidImage, format!("cannot make {what}: {e}"))
            })?;
            let program = build_il(rt, module, &spirv, &what)?;
            let addresses = DeviceBuffer::new(rt, 8 * self.index.variable_count())?;
            run_setup_kernel(rt, &program, GLOBALS_KERNEL, addresses.pointer)?;
            self.globals = Some(Globals {
                _program: program,
                addresses,
            });
        }
        self.globals
            .as_ref()
            .ok_or_else(|| Failure::new(HipError::Unknown, "globals program lost"))
    }
}

/// Runs one work-item of `program`'s kernel `name (pointer)` on the device's transfer queue
/// (the runtime's own: no stream waits for it or it for them) and waits for it.
fn run_setup_kernel(
    rt: &Runtime,
    program: &OwnedProgram,
    name: &str,
    pointer: *mut c_void,
) -> HipResult<()> {
    let failed =
        |what: String| Failure::new(HipError::LaunchFailure, format!("running '{name}': {what}"));
    let kernel = OwnedKernel::create(program, name).map_err(|e| failed(error_name(e)))?;
    // SAFETY: a fresh kernel no other thread has seen; the pointer is device memory of ours.
    unsafe { rt.memory.set_pointer_arg(kernel.get(), 0, pointer) }.map_err(failed)?;
    // SAFETY: as above.
    let _ = unsafe { rt.memory.allow_indirect_access(kernel.get(), &[]) };
    let queue = super::peer::transfer_queue(rt)?;
    let event = queue.enqueue(rt, &[], |queue, deps| {
        // SAFETY: valid queue and kernel; the work sizes and wait list outlive the call.
        unsafe { super::cl::enqueue_nd_range(queue, kernel.get(), &[1; 3], &[1; 3], deps, true) }
            .map_err(|e| failed(error_name(e)))?
            .ok_or_else(|| failed("no event".into()))
    })?;
    event.wait().map_err(|e| failed(error_name(e)))
}

/// `CL_KERNEL_WORK_GROUP_SIZE`: the largest work-group `kernel` runs in on `device`.
pub fn kernel_work_group_size(kernel: &OwnedKernel, device: cl3::types::cl_device_id) -> usize {
    work_group_info(kernel, device, cl3::kernel::CL_KERNEL_WORK_GROUP_SIZE) as usize
}

fn work_group_info(kernel: &OwnedKernel, device: cl3::types::cl_device_id, what: u32) -> u64 {
    cl3::kernel::get_kernel_work_group_data(kernel.get(), device, what)
        .ok()
        .and_then(|b| match b.len() {
            8 => b.try_into().ok().map(u64::from_ne_bytes),
            4 => b.try_into().ok().map(u32::from_ne_bytes).map(u64::from),
            _ => None,
        })
        .unwrap_or(0)
}

fn create_kernel(
    rt: &Runtime,
    program: &OwnedProgram,
    module: &Module,
    name: &str,
    expected_args: usize,
    spirv_params: Option<Vec<Param>>,
) -> HipResult<PreparedKernel> {
    let kernel = OwnedKernel::create(program, name).map_err(|e| {
        Failure::new(
            HipError::InvalidDeviceFunction,
            format!(
                "kernel '{name}' is in the metadata of {} but its SPIR-V has no such entry point ({})",
                module.label,
                error_name(e)
            ),
        )
    })?;
    let num_args = kernel.num_args().map_err(|e| {
        Failure::new(
            HipError::InvalidImage,
            format!("cannot query kernel '{name}': {}", error_name(e)),
        )
    })?;
    if num_args as usize != expected_args {
        return Err(Failure::new(
            HipError::InvalidImage,
            format!(
                "kernel '{name}' takes {num_args} argument(s) in SPIR-V but its metadata lists {expected_args}"
            ),
        ));
    }
    let info = module
        .find_kernel(name)
        .map(|i| &module.image.metadata.kernels[i]);
    let (spilled, addresses): (Vec<bool>, Vec<bool>) = match (info, spirv_params) {
        (Some(info), Some(params)) if params.len() >= info.args.len() => info
            .args
            .iter()
            .zip(&params)
            .map(|(arg, p)| argument_passing(arg, p))
            .chain(std::iter::repeat((false, false)))
            .take(expected_args)
            .unzip(),
        _ => (vec![false; expected_args], vec![false; expected_args]),
    };
    // A kernel given addresses by value reaches its memory "indirectly": the driver must be told
    // (USM) once here, (SVM) at each launch. Kernels that only dereference pointer arguments work
    // without it, so for them it is best effort.
    // SAFETY: a fresh kernel no other thread has seen.
    let indirect = unsafe { rt.memory.allow_indirect_access(kernel.get(), &[]) };
    if let (Err(e), true) = (indirect, addresses.contains(&true)) {
        return Err(Failure::new(
            HipError::LaunchFailure,
            format!("kernel '{name}' takes device addresses by value, but {e}"),
        ));
    }
    let device = rt.device_id();
    Ok(PreparedKernel {
        work_group_size: kernel_work_group_size(&kernel, device),
        local_mem_size: work_group_info(&kernel, device, cl3::kernel::CL_KERNEL_LOCAL_MEM_SIZE),
        private_mem_size: work_group_info(&kernel, device, cl3::kernel::CL_KERNEL_PRIVATE_MEM_SIZE),
        kernel,
        spilled,
        addresses,
    })
}

/// (spilled, by address) for an argument with this metadata and this SPIR-V parameter.
fn argument_passing(arg: &KernelArg, param: &Param) -> (bool, bool) {
    let address = match *param {
        Param::Pointer(StorageClass::CrossWorkgroup) => Some(false),
        Param::Value { size: 8, .. } => Some(true),
        _ => None,
    };
    let global_pointer = arg.is_pointer && arg.address_space != AddressSpace::Workgroup;
    let spilled = !arg.is_pointer
        && match address {
            Some(false) => true,
            // A 64-bit integer where the argument is larger: the address of its copy.
            Some(true) => arg.size != 8,
            None => false,
        };
    let by_address = address == Some(true) && (global_pointer || spilled);
    (spilled, by_address)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hipmlir_device_image::spirv_words::spirv::Op;

    fn module(caps: &[Capability]) -> Vec<u8> {
        let mut words = vec![spirv_words::MAGIC, 0x0001_0000, 0, 10, 0];
        for c in caps {
            spirv_words::push_instruction(&mut words, Op::Capability, &[*c as u32]).unwrap();
        }
        spirv_words::to_bytes(&words)
    }

    #[test]
    fn a_failed_build_of_recursion_names_the_extension() {
        let recursive = module(&[Capability::Kernel, Capability::FunctionPointersINTEL]);
        assert!(build_failure_note(&recursive).contains("SPV_INTEL_function_pointers"));
        assert_eq!(build_failure_note(&module(&[Capability::Kernel])), "");
        assert_eq!(build_failure_note(b"not spir-v"), "");
    }
}
