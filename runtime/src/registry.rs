//! Registered device images (modules) and kernels, keyed by kernel name.
//!
//! A compiled program registers its device image(s) and its kernel stubs from static constructors,
//! before `main`; nothing here touches OpenCL (a module is built lazily, see `jit`). Lookups accept:
//! 1. the kernel's mangled symbol (the SPIR-V entry point);
//! 2. its source spelling (`scale<float>`), compared with all whitespace removed and a leading
//!    `::` dropped, so `scale< float >` and `::scale<float>` match;
//! 3. failing both, a spelling that is a `::`-suffix of exactly one kernel's source name (host code
//!    inside `namespace ns` launches `k`; the kernel is `ns::k`).
//!
//! A spelling matching several distinct kernels is an error that names them. A lookup that finds
//! nothing searches, once per process, for SPIR-V module files (plain builds, see `module_path`)
//! and tries again; "kernel not found" then names the places searched.

use std::collections::BTreeMap;
use std::ffi::CStr;
use std::os::unix::ffi::OsStrExt;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use hipmlir_device_image::{
    AddressSpace, DeviceImage, GlobalVar, KernelInfo, DEVICE_ABORT_FLAG_VARIABLE,
    DEVICE_HEAP_VARIABLE, MEMCHECK_STATE_VARIABLE,
};

use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::backend::ModuleState;
use crate::error::{Failure, HipError, HipResult};
use crate::handles::{HandleTable, Kind};
use crate::kpack::PendingRecord;
use crate::module_path::ModuleSearch;

/// One registered device image.
#[derive(Debug)]
pub struct Module {
    /// Registration order (`usize::MAX` for modules loaded with hipModuleLoad).
    #[cfg_attr(not(test), allow(dead_code))]
    pub index: usize,
    /// What to call the module in messages ("device image #2", "module 'k.spv'").
    pub label: String,
    pub image: DeviceImage,
    /// Per-kernel settings from `hipFuncSetAttribute`/`hipFuncSetCacheConfig` (kernel index →).
    pub func_settings: Mutex<FxHashMap<usize, FuncSettings>>,
    /// The module's device-heap variable (`DEVICE_HEAP_VARIABLE`), if its code allocates.
    pub heap_variable: Option<usize>,
    /// The module's abort-flag variable (`DEVICE_ABORT_FLAG_VARIABLE`), if its code can stop
    /// the program (see `device_abort`).
    pub abort_flag_variable: Option<usize>,
    /// The memory checker's state variable (`MEMCHECK_STATE_VARIABLE`), in modules built with
    /// `-fsanitize=address` (see `memcheck`).
    pub memcheck_variable: Option<usize>,
    /// The module's `__managed__` variables (see `managed_vars`), as indexes into
    /// `metadata.globals`: each backend stores their memory's address before a first launch.
    pub managed_variables: Vec<usize>,
    /// The image's PTX entries, (architecture, text), for the CUDA backend.
    pub ptx: Vec<(String, Vec<u8>)>,
    /// What the process's backend built or loaded for the module (one backend per process).
    state: OnceLock<Box<dyn ModuleState>>,
}

/// What a program set on one kernel. OpenCL has no cache or carveout controls: they are kept to
/// be reported back by `hipFuncGetAttributes`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct FuncSettings {
    /// `hipFuncAttributeMaxDynamicSharedMemorySize`, once set.
    pub max_dynamic_shared: Option<i32>,
    /// `hipFuncAttributePreferredSharedMemoryCarveout` (-1: no preference).
    pub carveout: Option<i32>,
    /// `hipFuncCache_t`.
    pub cache_config: i32,
    /// `hipSharedMemConfig`.
    pub shared_mem_config: i32,
}

impl Module {
    fn new(index: usize, label: String, image: DeviceImage) -> Self {
        let heap_variable = image
            .metadata
            .globals
            .iter()
            .position(|g| g.name == DEVICE_HEAP_VARIABLE);
        let abort_flag_variable = image
            .metadata
            .globals
            .iter()
            .position(|g| g.name == DEVICE_ABORT_FLAG_VARIABLE);
        let memcheck_variable = image
            .metadata
            .globals
            .iter()
            .position(|g| g.name == MEMCHECK_STATE_VARIABLE);
        if memcheck_variable.is_some() {
            crate::memcheck::enable();
        }
        let managed_variables = (image.metadata.globals.iter().enumerate())
            .filter(|(_, g)| g.managed_size.is_some())
            .map(|(i, _)| i)
            .collect();
        Module {
            index,
            label,
            image,
            func_settings: Mutex::new(FxHashMap::default()),
            heap_variable,
            abort_flag_variable,
            memcheck_variable,
            managed_variables,
            ptx: Vec::new(),
            state: OnceLock::new(),
        }
    }

    /// The program's own device variables, as indexes into `metadata.globals` (not the
    /// runtime's: the device heap, the abort flag, the checker's state). A module built with
    /// the memory checker has them all in the checker's table before its first launch: device
    /// code reaches them through pointers it reads from memory too (an initializer's
    /// `int* p = &table[8];`), which the checker looks up among the runtime's allocations.
    pub fn program_variables(&self) -> Vec<usize> {
        let own = [
            self.heap_variable,
            self.abort_flag_variable,
            self.memcheck_variable,
        ];
        (0..self.image.metadata.globals.len())
            .filter(|i| !own.contains(&Some(*i)))
            .collect()
    }

    /// The module with the PTX entries of the bundle it was read from.
    pub fn with_ptx_of(mut self, bundle: &[u8]) -> Self {
        self.ptx = ptx_entries(bundle);
        self
    }

    /// The backend's state for this module, made by `init` on first use. `T` is the type the
    /// process's backend keeps (a second backend never runs in the same process).
    pub fn state<T: ModuleState>(&self, init: impl FnOnce() -> T) -> &T {
        let state = self.state.get_or_init(|| Box::new(init()));
        state
            .as_any()
            .downcast_ref::<T>()
            .expect("one backend per process keeps module state")
    }

    /// Drops what the backend built or loaded on one device (`hipDeviceReset` of it).
    pub fn reset_state_of(&self, device: crate::backend::DeviceId) {
        if let Some(state) = self.state.get() {
            state.reset_device(device);
        }
    }

    /// A module that is not registered globally (`hipModuleLoad`).
    pub fn standalone(label: String, image: DeviceImage) -> Self {
        Module::new(usize::MAX, label, image)
    }

    /// The device variable whose symbol is `name`, as an index into `metadata.globals`.
    pub fn find_global(&self, name: &str) -> Option<usize> {
        self.image
            .metadata
            .globals
            .iter()
            .position(|g| g.name == name)
    }

    pub fn global(&self, index: usize) -> &GlobalVar {
        &self.image.metadata.globals[index]
    }

    /// The kernel named `spelled` (mangled, or source spelling), as an index into the metadata.
    pub fn find_kernel(&self, spelled: &str) -> Option<usize> {
        let kernels = &self.image.metadata.kernels;
        kernels.iter().position(|k| k.name == spelled).or_else(|| {
            let wanted = normalize_name(spelled);
            kernels
                .iter()
                .position(|k| normalize_name(&k.source_name) == wanted)
        })
    }

    pub fn kernel_names(&self) -> Vec<&str> {
        self.image
            .metadata
            .kernels
            .iter()
            .map(|k| k.name.as_str())
            .collect()
    }
}

/// A kernel found by a lookup.
#[derive(Debug, Clone)]
pub struct KernelRef {
    pub module: Arc<Module>,
    index: usize,
}

impl KernelRef {
    pub fn new(module: Arc<Module>, index: usize) -> Self {
        KernelRef { module, index }
    }

    pub fn info(&self) -> &KernelInfo {
        &self.module.image.metadata.kernels[self.index]
    }

    /// Whether the kernel's block runs as a 1-D work-group (`linear_block_kernels`).
    pub fn is_linear(&self) -> bool {
        let info = self.info();
        self.module
            .image
            .metadata
            .linear_block_kernels
            .contains(&info.name)
    }

    /// The parameters the kernel's device code takes: its listed arguments and the hidden ones
    /// after them (`KernelInfo::hidden_parameters`).
    pub fn parameter_count(&self) -> usize {
        let info = self.info();
        info.args.len() + info.hidden_parameters(self.is_linear())
    }

    /// The kernel's index in its module's metadata.
    pub fn index(&self) -> usize {
        self.index
    }

    pub fn settings(&self) -> FuncSettings {
        let map = self
            .module
            .func_settings
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        map.get(&self.index).copied().unwrap_or_default()
    }

    pub fn update_settings(&self, change: impl FnOnce(&mut FuncSettings)) {
        let mut map = self
            .module
            .func_settings
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        change(map.entry(self.index).or_default());
    }
}

/// Everything registered so far.
#[derive(Debug, Default)]
pub struct Registry {
    modules: Vec<Arc<Module>>,
    /// One line per image that could not be registered, for later "kernel not found" messages.
    failed_images: Vec<String>,
    /// Host stub address → kernel mangled name.
    host_functions: BTreeMap<usize, String>,
    /// Host stub address → its kernel, once a launch found it: every launch by stub looks here
    /// first. Modules are only ever added, after those registered before, so the kernel a
    /// name finds (the first module's) never changes once found.
    host_kernels: FxHashMap<usize, KernelRef>,
    /// Reference records of split binaries, resolved on the first lookup (see `kpack`).
    pending_records: Vec<PendingRecord>,
    /// The search for module files, once made (see `module_path`).
    module_search: Option<ModuleSearch>,
}

/// The whitespace-free, `::`-rooted-free form names are compared in.
pub fn normalize_name(name: &str) -> String {
    let compact: String = name.chars().filter(|c| !c.is_whitespace()).collect();
    match compact.strip_prefix("::") {
        Some(rest) => rest.to_string(),
        None => compact,
    }
}

/// Whether `spelled` (normalized) names `source` (normalized) by a trailing `::`-qualified part.
fn is_qualified_suffix(spelled: &str, source: &str) -> bool {
    source.len() > spelled.len()
        && source.ends_with(spelled)
        && source[..source.len() - spelled.len()].ends_with("::")
}

/// The device image a bundle holds: SPIR-V and metadata (validated), or, for a bundle built for
/// NVIDIA GPUs only, its metadata with no SPIR-V (its PTX entries go with the module; the OpenCL
/// backend refuses to build it, naming why).
pub fn image_of_bundle(bytes: &[u8]) -> Result<DeviceImage, String> {
    match DeviceImage::from_bundle_bytes(bytes) {
        // An NVIDIA-only image (`--offload-arch=sm_XX`): no SPIR-V to check, only the metadata.
        Ok(image) if image.spirv.is_empty() && !ptx_entries(bytes).is_empty() => {
            validate_metadata(&image)?;
            Ok(image)
        }
        // The code object of a source without device code (hipcc writes one too): nothing to
        // build, and every lookup finds nothing.
        Ok(image)
            if image.spirv.is_empty()
                && image.metadata.kernels.is_empty()
                && image.metadata.globals.is_empty() =>
        {
            Ok(image)
        }
        Ok(image) => validate_image(&image).map(|()| image),
        Err(hipmlir_device_image::ImageError::MissingEntry(id))
            if id == hipmlir_device_image::SPIRV_ENTRY_ID && !ptx_entries(bytes).is_empty() =>
        {
            let bundle = hipmlir_device_image::Bundle::decode(bytes).map_err(|e| e.to_string())?;
            let metadata = bundle
                .entry(hipmlir_device_image::METADATA_ENTRY_ID)
                .ok_or("the device image has PTX but no metadata entry")?;
            let metadata = std::str::from_utf8(metadata).map_err(|e| e.to_string())?;
            let image = DeviceImage {
                spirv: Vec::new(),
                metadata: hipmlir_device_image::ModuleMetadata::from_json(metadata)
                    .map_err(|e| e.to_string())?,
            };
            validate_metadata(&image)?;
            Ok(image)
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Checks an image's metadata for what the runtime relies on, so launches never index out of
/// bounds: each argument lies inside the argument block, pointers are 8 bytes, names are usable.
pub fn validate_image(image: &DeviceImage) -> Result<(), String> {
    let spirv = &image.spirv;
    if spirv.len() < 20 || !spirv.len().is_multiple_of(4) {
        return Err(format!(
            "the SPIR-V entry has {} bytes, not a SPIR-V module",
            spirv.len()
        ));
    }
    if !crate::spirv::looks_like_spirv(spirv) {
        return Err("the SPIR-V entry does not start with the SPIR-V magic number".into());
    }
    check_spirv_agrees(image)?;
    validate_metadata(image)
}

/// The metadata checks of [`validate_image`].
fn validate_metadata(image: &DeviceImage) -> Result<(), String> {
    for kernel in &image.metadata.kernels {
        if kernel.name.is_empty() || kernel.name.contains('\0') {
            return Err(format!(
                "kernel '{}' has an unusable symbol name",
                kernel.name.escape_debug()
            ));
        }
        for (i, arg) in kernel.args.iter().enumerate() {
            let end = arg.offset.checked_add(arg.size);
            if end.is_none_or(|end| end > kernel.args_size) {
                return Err(format!(
                    "kernel '{}' argument {i} ('{}') spans {}+{} past the {}-byte argument block",
                    kernel.name, arg.name, arg.offset, arg.size, kernel.args_size
                ));
            }
            let pointer_arg = arg.is_pointer && arg.address_space != AddressSpace::Workgroup;
            if pointer_arg && arg.size != 8 {
                return Err(format!(
                    "kernel '{}' argument {i} ('{}') is a pointer of {} bytes; spirv64 pointers have 8",
                    kernel.name, arg.name, arg.size
                ));
            }
            if !arg.is_pointer && arg.size == 0 {
                return Err(format!(
                    "kernel '{}' argument {i} ('{}') has size 0",
                    kernel.name, arg.name
                ));
            }
        }
    }
    Ok(())
}

/// Reads an image's SPIR-V (and each variant's) structurally before any driver sees it, and
/// checks that each kernel of the metadata is an entry point with as many parameters as the
/// metadata lists (plus the three block dimensions of a linear-block kernel).
fn check_spirv_agrees(image: &DeviceImage) -> Result<(), String> {
    let meta = &image.metadata;
    let mut modules = vec![("the SPIR-V".to_string(), image.spirv.clone())];
    for v in &meta.spirv_variants {
        let what = format!("the SPIR-V variant for {}", v.requires_extension);
        let bytes = v
            .spirv()
            .ok_or_else(|| format!("{what} is not valid hex"))?;
        modules.push((what, bytes));
    }
    for (what, bytes) in modules {
        let entry_points =
            crate::spirv::parse_kernels(&bytes).map_err(|e| format!("{what}: {e}"))?;
        for kernel in &meta.kernels {
            let Some(ep) = entry_points.iter().find(|e| e.name == kernel.name) else {
                return Err(format!(
                    "{what} has no entry point for kernel '{}' of the metadata",
                    kernel.name
                ));
            };
            let hidden = kernel.hidden_parameters(meta.linear_block_kernels.contains(&kernel.name));
            if ep.params.len() != kernel.args.len() + hidden {
                return Err(format!(
                    "{what} gives kernel '{}' {} parameters, the metadata {}",
                    kernel.name,
                    ep.params.len(),
                    kernel.args.len() + hidden
                ));
            }
        }
        // Entry points the metadata does not list are never launched through it: allowed (a
        // module of several kernels may be registered with some of them).
    }
    Ok(())
}

impl Registry {
    pub const fn new() -> Self {
        Registry {
            modules: Vec::new(),
            failed_images: Vec::new(),
            host_functions: BTreeMap::new(),
            host_kernels: FxHashMap::with_hasher(FxBuildHasher),
            pending_records: Vec::new(),
            module_search: None,
        }
    }

    /// Adds a parsed image; returns its module.
    #[cfg(test)]
    pub fn add_image(&mut self, image: DeviceImage) -> Arc<Module> {
        let index = self.modules.len() + self.failed_images.len();
        self.add_image_labeled(image, format!("device image #{index}"))
    }

    /// Adds a parsed image under a label for messages ("a.hip in /x/app.hipk").
    pub fn add_image_labeled(&mut self, image: DeviceImage, label: String) -> Arc<Module> {
        self.add_bundle_image(image, label, &[])
    }

    /// `add_image_labeled` keeping the PTX entries of `bundle`, the bytes `image` was read from.
    pub fn add_bundle_image(
        &mut self,
        image: DeviceImage,
        label: String,
        bundle: &[u8],
    ) -> Arc<Module> {
        let index = self.modules.len() + self.failed_images.len();
        let module = Arc::new(Module::new(index, label, image).with_ptx_of(bundle));
        self.modules.push(module.clone());
        module
    }

    /// Every registered module.
    pub fn modules(&self) -> Vec<Arc<Module>> {
        self.modules.clone()
    }

    /// The module registered last, if any (device variables are registered right after their
    /// image).
    pub fn last_module(&self) -> Option<Arc<Module>> {
        self.modules.last().cloned()
    }

    /// The first registered module that defines the device variable `name`.
    pub fn find_global(&self, name: &str) -> Option<(Arc<Module>, usize)> {
        self.modules
            .iter()
            .find_map(|m| m.find_global(name).map(|i| (m.clone(), i)))
    }

    /// The registered module that defines the device variable `name` of translation unit
    /// `unit` (see `GlobalVar::unit`).
    pub fn find_unit_global(&self, name: &str, unit: &str) -> Option<(Arc<Module>, usize)> {
        self.modules.iter().find_map(|m| {
            let globals = &m.image.metadata.globals;
            let i = globals
                .iter()
                .position(|g| g.name == name && g.unit.as_deref() == Some(unit))?;
            Some((m.clone(), i))
        })
    }

    /// The images that could not be registered, one line each.
    pub fn failed_images(&self) -> &[String] {
        &self.failed_images
    }

    /// Parses, validates and adds a bundle; an invalid one is remembered as failed.
    pub fn register_bundle(&mut self, bundle: &[u8], label: String) -> HipResult<Arc<Module>> {
        let parsed = image_of_bundle(bundle);
        match parsed {
            Ok(image) => Ok(self.add_bundle_image(image, label, bundle)),
            Err(why) => {
                let line = format!(
                    "invalid device image {label} ({} bytes): {why}",
                    bundle.len()
                );
                self.add_failed_image(line.clone());
                Err(Failure::new(HipError::InvalidImage, line))
            }
        }
    }

    pub fn add_pending_record(&mut self, record: PendingRecord) {
        self.pending_records.push(record);
    }

    pub fn take_pending_records(&mut self) -> Vec<PendingRecord> {
        std::mem::take(&mut self.pending_records)
    }

    /// Remembers an image that could not be registered.
    pub fn add_failed_image(&mut self, why: String) {
        self.failed_images.push(why);
    }

    pub fn add_host_function(&mut self, host_fn: usize, kernel_name: String) {
        self.host_functions.insert(host_fn, kernel_name);
    }

    pub fn host_function(&self, host_fn: usize) -> Option<&str> {
        self.host_functions.get(&host_fn).map(String::as_str)
    }

    /// The search for module files, if it was made.
    pub fn module_search(&self) -> Option<&ModuleSearch> {
        self.module_search.as_ref()
    }

    pub fn set_module_search(&mut self, search: ModuleSearch) {
        self.module_search = Some(search);
    }

    /// Finds a kernel by mangled name or source spelling (see the module docs).
    pub fn find(&self, spelled: &str) -> HipResult<KernelRef> {
        self.find_registered(spelled)?
            .ok_or_else(|| self.not_found(spelled))
    }

    /// `find`, searching for module files (once per process) when nothing registered matches.
    pub fn find_or_search(&mut self, spelled: &str) -> HipResult<KernelRef> {
        if let Some(found) = self.find_registered(spelled)? {
            return Ok(found);
        }
        crate::module_path::search_once(self);
        self.find(spelled)
    }

    /// The mangled names of the registered modules' kernels, each once.
    pub(crate) fn registered_kernel_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for m in &self.modules {
            for k in &m.image.metadata.kernels {
                if !names.contains(&k.name) {
                    names.push(k.name.clone());
                }
            }
        }
        names
    }

    /// The kernel `spelled` names among the registered modules; `None` if none does, an error if
    /// the name is empty or several kernels match.
    fn find_registered(&self, spelled: &str) -> HipResult<Option<KernelRef>> {
        let all = || {
            self.modules.iter().flat_map(|m| {
                m.image
                    .metadata
                    .kernels
                    .iter()
                    .enumerate()
                    .map(move |(index, k)| (m, index, k))
            })
        };
        // 1. Mangled name: the first module that has it (identical template instantiations may be
        //    in several translation units; they are the same kernel).
        if let Some((m, index, _)) = all().find(|(_, _, k)| k.name == spelled) {
            return Ok(Some(KernelRef {
                module: m.clone(),
                index,
            }));
        }
        let wanted = normalize_name(spelled);
        if wanted.is_empty() {
            return Err(Failure::new(
                HipError::InvalidDeviceFunction,
                "empty kernel name",
            ));
        }
        let exact: Vec<_> = all()
            .filter(|(_, _, k)| normalize_name(&k.source_name) == wanted)
            .collect();
        let matches = if exact.is_empty() {
            all()
                .filter(|(_, _, k)| is_qualified_suffix(&wanted, &normalize_name(&k.source_name)))
                .collect()
        } else {
            exact
        };
        // Distinct kernels, by mangled name, in registration order.
        let mut distinct: Vec<(&Arc<Module>, usize, &KernelInfo)> = Vec::new();
        for m in matches {
            if !distinct.iter().any(|(_, _, k)| k.name == m.2.name) {
                distinct.push(m);
            }
        }
        match distinct.as_slice() {
            [(m, index, _)] => Ok(Some(KernelRef {
                module: (*m).clone(),
                index: *index,
            })),
            [] => Ok(None),
            several => {
                let names: Vec<String> = several
                    .iter()
                    .map(|(_, _, k)| format!("{} ({})", k.source_name, k.name))
                    .collect();
                Err(Failure::new(
                    HipError::InvalidDeviceFunction,
                    format!(
                        "kernel name '{spelled}' is ambiguous: it matches {}",
                        names.join(", ")
                    ),
                ))
            }
        }
    }

    fn not_found(&self, spelled: &str) -> Failure {
        // What the search for module files covered, if it was made.
        let searched = self
            .module_search
            .as_ref()
            .map(|s| format!("; {}", s.describe()))
            .unwrap_or_default();
        if !self.failed_images.is_empty() {
            return Failure::new(
                HipError::InvalidImage,
                format!(
                    "kernel '{spelled}' not found; {} device image(s) failed to register: {}{searched}",
                    self.failed_images.len(),
                    self.failed_images.join("; ")
                ),
            );
        }
        let mut known: Vec<&str> = Vec::new();
        for k in self
            .modules
            .iter()
            .flat_map(|m| m.image.metadata.kernels.iter())
        {
            if !known.contains(&k.source_name.as_str()) {
                known.push(&k.source_name);
            }
        }
        let message = if known.is_empty() {
            format!("kernel '{spelled}' not found: no device image is registered{searched}")
        } else {
            const SHOWN: usize = 8;
            let mut list = known
                .iter()
                .take(SHOWN)
                .copied()
                .collect::<Vec<_>>()
                .join(", ");
            if known.len() > SHOWN {
                list.push_str(&format!(", ... ({} in all)", known.len()));
            }
            format!("kernel '{spelled}' not found (registered kernels: {list}){searched}")
        };
        Failure::new(HipError::InvalidDeviceFunction, message)
    }
}

/// The PTX entries of a clang offload bundle (none when `bytes` is not one).
pub fn ptx_entries(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    match hipmlir_device_image::Bundle::decode(bytes) {
        Ok(bundle) => bundle
            .ptx_entries()
            .map(|(arch, text)| (arch.to_string(), text.to_vec()))
            .collect(),
        Err(_) => Vec::new(),
    }
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry::new());

/// The process-wide registry.
pub fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|p| p.into_inner())
}

/// Modules loaded with `hipModuleLoad*` (`hipModule_t` handles) and their kernels
/// (`hipFunction_t` handles).
fn loaded_modules() -> &'static HandleTable<Module> {
    static T: OnceLock<HandleTable<Module>> = OnceLock::new();
    T.get_or_init(|| HandleTable::new(Kind::Module))
}

fn loaded_functions() -> &'static HandleTable<KernelRef> {
    static T: OnceLock<HandleTable<KernelRef>> = OnceLock::new();
    T.get_or_init(|| HandleTable::new(Kind::Function))
}

fn bad_module(handle: usize) -> Failure {
    Failure::new(
        HipError::InvalidHandle,
        format!("{handle:#x} is not a loaded module"),
    )
}

/// `hipModuleLoad*`: a module of its own (not searched by kernel lookups); returns its handle.
pub fn load_module(bytes: &[u8], label: String) -> HipResult<usize> {
    let image = image_from_bytes(bytes)
        .map_err(|e| Failure::new(HipError::InvalidImage, format!("{label}: {e}")))?;
    Ok(loaded_modules().insert(Arc::new(
        Module::standalone(label, image).with_ptx_of(bytes),
    )))
}

/// The module of a `hipModule_t`.
pub fn loaded_module(handle: usize) -> HipResult<Arc<Module>> {
    loaded_modules()
        .get(handle)
        .ok_or_else(|| bad_module(handle))
}

/// `hipModuleUnload`: the module and its functions' handles go.
pub fn unload_module(handle: usize) -> HipResult<()> {
    let m = loaded_modules()
        .remove(handle)
        .ok_or_else(|| bad_module(handle))?;
    for (h, k) in loaded_functions().all() {
        if Arc::ptr_eq(&k.module, &m) {
            loaded_functions().remove(h);
        }
    }
    Ok(())
}

/// `hipModuleGetFunction`: a handle for kernel `index` of `module`.
pub fn insert_function(module: Arc<Module>, index: usize) -> usize {
    loaded_functions().insert(Arc::new(KernelRef::new(module, index)))
}

/// A host stub registered for `kernel` (`__hipmlirRegisterFunction`, or found by a launch), if
/// any: what `hipGraphKernelNodeGetParams` reports as the `func` of a captured launch.
pub fn host_stub_of(kernel: &KernelRef) -> Option<usize> {
    let reg = registry();
    let name = &kernel.info().name;
    reg.host_functions
        .iter()
        .find(|(_, n)| *n == name)
        .map(|(&stub, _)| stub)
        .filter(|_| {
            reg.find(name)
                .is_ok_and(|k| Arc::ptr_eq(&k.module, &kernel.module))
        })
}

/// The kernel of a `hipFunction_t`, if `handle` is one.
pub fn function(handle: usize) -> Option<KernelRef> {
    loaded_functions().get(handle).map(|k| (*k).clone())
}

/// Every module of the process: registered images and loaded modules (`hipDeviceReset`).
pub fn all_modules() -> Vec<Arc<Module>> {
    let mut all = registry().modules();
    all.extend(loaded_modules().all().into_iter().map(|(_, m)| m));
    all
}

/// The magic a clang offload bundle starts with.
pub const BUNDLE_MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";

/// A device image from a hipmlir bundle or a raw SPIR-V module. For raw SPIR-V the kernels and
/// their parameter layouts come from the SPIR-V itself (see `spirv`).
pub fn image_from_bytes(bytes: &[u8]) -> Result<DeviceImage, String> {
    if bytes.starts_with(BUNDLE_MAGIC) {
        image_of_bundle(bytes)
    } else if crate::spirv::looks_like_spirv(bytes) {
        let kernels = crate::spirv::parse_kernels(bytes)?;
        let image = DeviceImage {
            spirv: bytes.to_vec(),
            metadata: hipmlir_device_image::ModuleMetadata::new(
                kernels.iter().map(|k| k.to_kernel_info()).collect(),
            ),
        };
        validate_image(&image)?;
        Ok(image)
    } else {
        Err("neither a SPIR-V module nor a clang offload bundle (bad magic)".into())
    }
}

/// `__hipmlirRegisterImage`: parses and validates a bundle and registers it.
pub fn register_image(bundle: &[u8]) -> HipResult<Arc<Module>> {
    let parsed = image_of_bundle(bundle);
    let mut reg = registry();
    match parsed {
        Ok(image) => {
            let index = reg.modules.len() + reg.failed_images.len();
            Ok(reg.add_bundle_image(image, format!("device image #{index}"), bundle))
        }
        Err(why) => {
            let place = match loaded_object_of(bundle.as_ptr() as usize) {
                Some((object, offset)) => format!(" in '{object}' at offset {offset:#x}"),
                None => String::new(),
            };
            let line = format!(
                "invalid device image{place} ({} bytes): {why}",
                bundle.len()
            );
            reg.add_failed_image(line.clone());
            Err(Failure::new(HipError::InvalidImage, line))
        }
    }
}

/// The process-wide registry with the archives of split binaries loaded: what every kernel
/// lookup goes through.
pub fn registry_for_lookup() -> MutexGuard<'static, Registry> {
    let mut reg = registry();
    crate::kpack::resolve_pending(&mut reg);
    reg
}

/// Finds a kernel by name in the process-wide registry, searching for module files once if no
/// registered image has it.
pub fn find_kernel(spelled: &str) -> HipResult<KernelRef> {
    registry_for_lookup().find_or_search(spelled)
}

/// Finds the kernel of a registered host stub, else by its spelling, else by the stub's symbol
/// name (`dladdr`: works for stubs in the dynamic symbol table, e.g. programs linked with
/// `-rdynamic`). If neither name is registered, module files are searched (once per process,
/// see `module_path`) and both are tried again. A stub resolved by spelling or symbol is
/// remembered, so later launches and queries by address alone (`hipLaunchKernel`,
/// `hipFuncGetAttributes`) find it.
/// `spelled` is read only when the stub is not known yet.
pub fn find_kernel_for_launch(host_fn: usize, spelled: Option<&CStr>) -> HipResult<KernelRef> {
    let mut reg = registry_for_lookup();
    if let Some(found) = reg.host_kernels.get(&host_fn) {
        return Ok(found.clone());
    }
    if host_fn != 0 {
        if let Some(name) = reg.host_function(host_fn) {
            let found = reg.find(name)?;
            reg.host_kernels.insert(host_fn, found.clone());
            return Ok(found);
        }
    }
    let spelled = spelled.map(CStr::to_string_lossy);
    let spelled = spelled.as_deref();
    let symbol = (host_fn != 0).then(|| symbol_name(host_fn)).flatten();
    let mut found = find_by_names(&reg, host_fn, spelled, symbol.as_deref());
    if found.is_err() && reg.module_search().is_none() && (spelled.is_some() || symbol.is_some()) {
        crate::module_path::search_once(&mut reg);
        found = find_by_names(&reg, host_fn, spelled, symbol.as_deref());
    }
    let found = found?;
    if host_fn != 0 {
        reg.add_host_function(host_fn, found.info().name.clone());
        reg.host_kernels.insert(host_fn, found.clone());
    }
    Ok(found)
}

/// Records the kernel that host stub `host_fn` of translation unit `unit` launches: the one
/// kernel of that unit whose name (template arguments aside) is `spelled`. Kernels of internal
/// linkage of several sources may share a name; their stubs, internal too, cannot be found by
/// symbol, and a lookup by name alone would take the first source's. A stub known already, or
/// a name several kernels of the unit share (instances of a template), is left to
/// [`find_kernel_for_launch`].
pub fn register_unit_stub(host_fn: usize, spelled: &str, unit: &str) {
    let mut reg = registry_for_lookup();
    if host_fn == 0 || reg.host_kernels.contains_key(&host_fn) {
        return;
    }
    let wanted = normalize_name(spelled);
    let base = |source: &str| {
        let name = normalize_name(source);
        name.split('<').next().unwrap_or_default().to_string()
    };
    let mut found: Vec<KernelRef> = Vec::new();
    for m in &reg.modules {
        for (index, k) in m.image.metadata.kernels.iter().enumerate() {
            let named = base(&k.source_name);
            if k.unit.as_deref() == Some(unit)
                && (named == wanted || is_qualified_suffix(&wanted, &named))
                && !found.iter().any(|f| f.info().name == k.name)
            {
                found.push(KernelRef::new(m.clone(), index));
            }
        }
    }
    if let [only] = found.as_slice() {
        let only = only.clone();
        reg.add_host_function(host_fn, only.info().name.clone());
        reg.host_kernels.insert(host_fn, only);
    }
}

/// The kernel named `spelled`, else `symbol`; the first name's error if both fail.
fn find_by_names(
    reg: &Registry,
    host_fn: usize,
    spelled: Option<&str>,
    symbol: Option<&str>,
) -> HipResult<KernelRef> {
    if let Some(found) =
        symbol.and_then(|symbol| crate::lambda_kernels::find_lambda_kernel(reg, symbol))
    {
        return found;
    }
    let by_spelling = spelled.map(|name| reg.find(name));
    match by_spelling {
        Some(Ok(k)) => Ok(k),
        other => match symbol {
            Some(symbol) => reg.find(symbol).map_err(|e| match &other {
                Some(Err(first)) => first.clone(),
                _ => e,
            }),
            None => match other {
                Some(Err(e)) => Err(e),
                _ => Err(Failure::new(
                    HipError::InvalidDeviceFunction,
                    format!(
                        "{host_fn:#x} is not a registered kernel stub (programs register their stubs with \
                         __hipmlirRegisterFunction; a stub in the dynamic symbol table, e.g. of a \
                         program linked with -rdynamic, is found by its name)"
                    ),
                )),
            },
        },
    }
}

#[repr(C)]
struct DlInfo {
    dli_fname: *const std::ffi::c_char,
    dli_fbase: *mut std::ffi::c_void,
    dli_sname: *const std::ffi::c_char,
    dli_saddr: *mut std::ffi::c_void,
}

extern "C" {
    fn dladdr(addr: *const std::ffi::c_void, info: *mut DlInfo) -> std::ffi::c_int;
}

/// The loaded object (executable or shared library) holding `address`, and the address's
/// offset from the object's load base: names an embedded image in messages.
pub(crate) fn loaded_object_of(address: usize) -> Option<(String, usize)> {
    let mut info = DlInfo {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    };
    // SAFETY: dladdr only inspects the loaded objects' tables; `info` is a valid out-pointer.
    if address == 0 || unsafe { dladdr(address as *const std::ffi::c_void, &mut info) } == 0 {
        return None;
    }
    if info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dladdr returned the NUL-terminated path of the object holding `address`.
    let name = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) }.to_string_lossy();
    let name = if name.is_empty() {
        std::env::current_exe().ok()?.display().to_string()
    } else {
        name.into_owned()
    };
    Some((name, address.wrapping_sub(info.dli_fbase as usize)))
}

/// The symbol at exactly `address`: its dynamic symbol, else its entry in the symbol table of the
/// loaded object holding it (a kernel stub with internal linkage, such as a kernel template
/// instance for a lambda's closure type, is in no dynamic symbol table).
pub(crate) fn symbol_name(address: usize) -> Option<String> {
    let mut info = DlInfo {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    };
    // SAFETY: dladdr only inspects the loaded objects' tables; `info` is a valid out-pointer.
    let found = unsafe { dladdr(address as *const std::ffi::c_void, &mut info) };
    if found == 0 {
        return None;
    }
    if info.dli_sname.is_null() || info.dli_saddr as usize != address {
        if info.dli_fname.is_null() {
            return None;
        }
        // SAFETY: dladdr returned the NUL-terminated path of the object holding `address`.
        let object = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
        let object = std::path::Path::new(std::ffi::OsStr::from_bytes(object.to_bytes()));
        return static_symbol(object, address, address - info.dli_fbase as usize);
    }
    // SAFETY: dladdr returned a NUL-terminated symbol name.
    Some(
        unsafe { std::ffi::CStr::from_ptr(info.dli_sname) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// The function symbol of an ELF object's own symbol table at `address` (a non-PIE
/// executable's symbols are absolute) or at `offset` from the object's load base.
fn static_symbol(object: &std::path::Path, address: usize, offset: usize) -> Option<String> {
    use object::{Object, ObjectSymbol, SymbolKind};
    // The main program's path is as it was started (relative to the folder it started in).
    let bytes = crate::files::read_regular(object, crate::files::MAX_DEVICE_FILE)
        .or_else(|_| {
            crate::files::read_regular(
                std::path::Path::new("/proc/self/exe"),
                crate::files::MAX_DEVICE_FILE,
            )
        })
        .ok()?;
    let file = object::File::parse(&*bytes).ok()?;
    file.symbols()
        .filter(|s| s.kind() == SymbolKind::Text)
        .find(|s| s.address() == offset as u64 || s.address() == address as u64)
        .and_then(|s| s.name().ok().map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hipmlir_device_image::{KernelArg, ModuleMetadata};

    fn kernel(name: &str, source: &str) -> KernelInfo {
        let mut args = vec![
            KernelArg {
                name: "p".into(),
                r#type: "float *".into(),
                offset: 0,
                size: 8,
                align: 8,
                is_pointer: true,
                address_space: AddressSpace::Global,
            },
            KernelArg {
                name: "n".into(),
                r#type: "int".into(),
                offset: 0,
                size: 4,
                align: 4,
                is_pointer: false,
                address_space: AddressSpace::Private,
            },
        ];
        let args_size = KernelArg::layout(&mut args);
        KernelInfo {
            name: name.into(),
            source_name: source.into(),
            args,
            args_size,
            max_threads_per_block: None,
            unit: None,
            memcheck_extents: Vec::new(),
        }
    }

    fn image(kernels: Vec<KernelInfo>) -> DeviceImage {
        let entry_points: Vec<(&str, usize)> = kernels
            .iter()
            .map(|k| (k.name.as_str(), k.args.len()))
            .collect();
        DeviceImage {
            spirv: crate::spirv::test_module(&entry_points),
            metadata: ModuleMetadata::new(kernels),
        }
    }

    fn sample() -> Registry {
        let mut r = Registry::new();
        r.add_image(image(vec![
            kernel("_Z4vaddPfi", "vadd"),
            kernel("_Z5scaleIfEvPfi", "scale<float>"),
            kernel("_Z5scaleIiEvPfi", "scale<int>"),
            kernel("_ZN2ns4tileEPfi", "ns::tile"),
            kernel("_ZN2ns3fooEPfi", "ns::foo"),
            kernel("_ZN2ms3fooEPfi", "ms::foo"),
        ]));
        // The same template instantiation in a second translation unit.
        r.add_image(image(vec![kernel("_Z5scaleIfEvPfi", "scale<float>")]));
        r
    }

    #[test]
    fn normalization_drops_whitespace_and_root() {
        assert_eq!(normalize_name("scale< float >"), "scale<float>");
        assert_eq!(normalize_name(" ::ns::k<int, 4>\n"), "ns::k<int,4>");
        assert_eq!(normalize_name("vadd"), "vadd");
        assert_eq!(normalize_name("   "), "");
    }

    #[test]
    fn finds_by_mangled_and_source_names() {
        let r = sample();
        assert_eq!(r.find("_Z4vaddPfi").unwrap().info().source_name, "vadd");
        assert_eq!(r.find("vadd").unwrap().info().name, "_Z4vaddPfi");
        assert_eq!(
            r.find(" scale< float > ").unwrap().info().name,
            "_Z5scaleIfEvPfi"
        );
        assert_eq!(
            r.find("::scale<int>").unwrap().info().name,
            "_Z5scaleIiEvPfi"
        );
        // The first module wins for a kernel present in two.
        assert_eq!(r.find("scale<float>").unwrap().module.index, 0);
    }

    #[test]
    fn unqualified_spelling_finds_namespaced_kernel() {
        let r = sample();
        assert_eq!(r.find("tile").unwrap().info().name, "_ZN2ns4tileEPfi");
        assert_eq!(r.find("ns::tile").unwrap().info().name, "_ZN2ns4tileEPfi");
        // Not a suffix at a `::` boundary.
        assert!(r.find("ile").is_err());
    }

    #[test]
    fn ambiguity_names_the_candidates() {
        let r = sample();
        let e = r.find("scale").unwrap_err();
        assert_eq!(e.code, HipError::InvalidDeviceFunction);
        let e = r.find("foo").unwrap_err();
        assert_eq!(e.code, HipError::InvalidDeviceFunction);
        assert!(e.message.contains("ambiguous"), "{}", e.message);
        assert!(e.message.contains("ns::foo") && e.message.contains("ms::foo"));
    }

    #[test]
    fn not_found_names_the_kernel_and_failed_images() {
        let mut r = sample();
        let e = r.find("nosuch").unwrap_err();
        assert_eq!(e.code, HipError::InvalidDeviceFunction);
        assert!(e.message.contains("'nosuch'") && e.message.contains("vadd"));
        r.add_failed_image("invalid device image (10 bytes): truncated".into());
        let e = r.find("nosuch").unwrap_err();
        assert_eq!(e.code, HipError::InvalidImage);
        assert!(e.message.contains("truncated"), "{}", e.message);
        assert!(Registry::new().find("").is_err());
    }

    #[test]
    fn host_functions_map_to_mangled_names() {
        let mut r = sample();
        r.add_host_function(0x1234, "_Z5scaleIiEvPfi".into());
        assert_eq!(r.host_function(0x1234), Some("_Z5scaleIiEvPfi"));
        assert_eq!(r.host_function(0x9999), None);
    }

    #[test]
    fn validation_rejects_inconsistent_metadata() {
        assert!(validate_image(&image(vec![kernel("k", "k")])).is_ok());
        let mut bad = kernel("k", "k");
        bad.args[1].offset = 14; // 14 + 4 > 16
        let e = validate_image(&image(vec![bad])).unwrap_err();
        assert!(e.contains("past the 16-byte argument block"), "{e}");
        let mut bad = kernel("k", "k");
        bad.args[0].size = 4;
        assert!(validate_image(&image(vec![bad])).is_err());
        let mut bad = kernel("k", "k");
        bad.args[0].offset = u64::MAX;
        assert!(validate_image(&image(vec![bad])).is_err());
        let mut no_spirv = image(vec![]);
        no_spirv.spirv = vec![1, 2, 3];
        assert!(validate_image(&no_spirv).is_err());
        assert!(validate_image(&image(vec![kernel("a\0b", "k")])).is_err());
    }

    #[test]
    fn validation_checks_spirv_against_metadata() {
        let good = image(vec![kernel("k", "k")]);
        // A kernel the SPIR-V lacks (entry points the metadata does not list are allowed).
        let mut extra = good.clone();
        extra.spirv = crate::spirv::test_module(&[("k", 2), ("other", 1)]);
        assert!(validate_image(&extra).is_ok());
        let mut missing = good.clone();
        missing.spirv = crate::spirv::test_module(&[("j", 2)]);
        let e = validate_image(&missing).unwrap_err();
        assert!(e.contains("no entry point for kernel 'k'"), "{e}");
        // Parameter counts must agree.
        let mut count = good.clone();
        count.spirv = crate::spirv::test_module(&[("k", 3)]);
        let e = validate_image(&count).unwrap_err();
        assert!(e.contains("3 parameters, the metadata 2"), "{e}");
        // An instruction running past the module's end, and an id past the bound.
        let mut long = good.clone();
        let n = long.spirv.len();
        long.spirv[n - 2] = 9; // OpFunctionEnd claims 9 words
        assert!(validate_image(&long).is_err());
        let mut id = good.clone();
        id.spirv[12..16].copy_from_slice(&3u32.to_le_bytes()); // bound 3
        let e = validate_image(&id).unwrap_err();
        assert!(e.contains("outside the module's bound"), "{e}");
        assert!(validate_image(&good).is_ok());
    }
}
