//! Kernel metadata: what the runtime needs to launch a kernel it has never seen the source of.

use serde::{Deserialize, Serialize};

use crate::ImageError;

/// Bumped whenever a field changes meaning; the runtime refuses versions it does not know.
pub const METADATA_FORMAT_VERSION: u32 = 1;

/// Where a kernel argument (or what it points to) lives on the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AddressSpace {
    /// Passed by value in the kernel's parameter block.
    Private,
    /// Points to global (device) memory.
    Global,
    /// Points to constant memory.
    Constant,
    /// Points to workgroup (shared) memory.
    Workgroup,
}

/// One kernel parameter, laid out for the device ABI (spirv64).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelArg {
    pub name: String,
    pub r#type: String,
    /// Byte offset of the argument in the packed argument block.
    pub offset: u64,
    pub size: u64,
    pub align: u64,
    pub is_pointer: bool,
    pub address_space: AddressSpace,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelInfo {
    /// The kernel's symbol (mangled); also the SPIR-V entry point name.
    pub name: String,
    /// The kernel as written in source, template arguments included (`scale<float>`).
    pub source_name: String,
    pub args: Vec<KernelArg>,
    /// Size of the packed argument block: the end of the last argument rounded up to the
    /// largest argument alignment, as for a struct of the parameters.
    pub args_size: u64,
    /// The most threads a block may have (`__launch_bounds__`): a launch of larger blocks is
    /// refused. None: only the device's limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_threads_per_block: Option<u64>,
    /// The translation unit whose kernel this is, for a kernel of internal linkage (`static`,
    /// or in an anonymous namespace): sources of one program may each define such a kernel under
    /// the same name, and its host stub, internal to its source too, launches it with this key
    /// (see `GlobalVar::unit`). None: an external kernel, one per program.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// A kernel built with the memory checker (`-fsanitize=address`) takes, after its listed
    /// arguments, one hidden `u64` parameter per entry here: the bytes from the pointer that
    /// argument (an index into `args`) holds to the end of the allocation it points into, 0
    /// when in none. The runtime computes them from its allocations at each launch, so that the
    /// kernel's checks of accesses through its pointer arguments read no table. (The block's
    /// dimensions of a `linear_block_kernels` kernel come after them.)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memcheck_extents: Vec<u32>,
}

impl KernelInfo {
    /// The parameters the kernel's device code takes besides its listed arguments: the
    /// checker's extents, then the block's dimensions where `linear` (see
    /// `ModuleMetadata::linear_block_kernels`).
    pub fn hidden_parameters(&self, linear: bool) -> usize {
        self.memcheck_extents.len() + if linear { 3 } else { 0 }
    }
}

/// The device variable through which a module's `malloc`, `free`, `new` and `delete` reach its
/// device heap. hipmlir's device header defines it beside its allocator, so only modules whose
/// code allocates have it. The runtime stores the address of the module's arena there (a 64-bit
/// word) before the module's first launch, after writing the arena's size in bytes into the
/// arena's first 64-bit word (16 bytes are reserved before the first block).
pub const DEVICE_HEAP_VARIABLE: &str = "__hipmlir_device_heap";

/// The device variable through which device code that stops the program (a trap: a failed
/// `assert`, `abort()`, `__builtin_trap()`) says so: a pointer to a 32-bit word of host-visible
/// memory, null until the runtime sets it. The frontend defines it in the modules whose code
/// traps, and only there. The work-item writes a non-zero word there, then traps.
pub const DEVICE_ABORT_FLAG_VARIABLE: &str = "__hipmlir_device_abort_flag";

/// The device function that stops the program: raises the abort flag, then traps. The frontend
/// defines it (internal) in modules whose code traps or calls through function pointers; a call
/// through a pointer that names no device function calls it.
pub const DEVICE_STOP_FUNCTION: &str = "__hipmlir_device_trap";

/// The device variable of a module built with the memory checker (`-fsanitize=address`): a
/// pointer to the module's checker state (see [`memcheck`](crate::memcheck)), null until the
/// runtime sets it before the module's first launch. Its presence marks the module as checked.
pub const MEMCHECK_STATE_VARIABLE: &str = "__hipmlir_memcheck_state";

/// The variables through which the runtime gives a module words of its own (the abort flag's
/// word, the checker's state): what they point to is the runtime's memory, never the program's,
/// so the memory checker leaves accesses through them alone.
pub const RUNTIME_WORD_VARIABLES: [&str; 2] = [DEVICE_ABORT_FLAG_VARIABLE, MEMCHECK_STATE_VARIABLE];

/// A `__device__`, `__constant__` or `__managed__` variable: the host reaches it by name
/// (hipMemcpyToSymbol).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GlobalVar {
    /// The variable's symbol (mangled as the host compiler mangles it).
    pub name: String,
    /// The device variable's size in bytes (a managed variable's is a pointer's).
    pub size: u64,
    /// A one-thread kernel `(unsigned long long* out)` that stores the variable's device address.
    pub address_kernel: String,
    /// The translation unit whose host object owns the variable's host shadow, when that shadow
    /// is internal to it (a device variable of a build without `-fgpu-rdc` is each source's
    /// own, as with hipcc): the shadow registers itself with this key, which tells the variable
    /// apart from other sources' variables of the same name. None: the shadow is external and
    /// the image's stub registers it by symbol.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// A `__managed__` variable: the device variable holds the address of this many bytes of
    /// managed memory, which the host program allocates and initializes when it registers the
    /// variable (the host reaches the same memory), and the runtime stores that address in
    /// the variable before the module's first launch on each device.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_size: Option<u64>,
    /// A `__constant__` variable: counted in the module's kernels' `constSizeBytes`
    /// (`hipFuncGetAttributes`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub constant: bool,
}

fn is_false(b: &bool) -> bool {
    !b
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModuleMetadata {
    pub format_version: u32,
    pub kernels: Vec<KernelInfo>,
    /// Device variables; absent in images without any.
    #[serde(default)]
    pub globals: Vec<GlobalVar>,
    /// Kernels that use warp operations: their block runs as a 1-D work-group of the block's
    /// size (so lanes follow HIP's x-fastest thread order on every device) and they take the
    /// block's dimensions as three more `u32` arguments after the listed ones.
    #[serde(default)]
    pub linear_block_kernels: Vec<String>,
    /// Alternative SPIR-V modules for devices with an extension (native float atomics for
    /// `cl_ext_float_atomics`): the runtime builds the first whose extension the device has,
    /// else the image's own SPIR-V.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spirv_variants: Vec<SpirvVariant>,
    /// The memory checker's access sites (`-fsanitize=address`), numbered as the device reports
    /// them; absent in images built without it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memcheck_sites: Vec<crate::memcheck::Site>,
}

/// A SPIR-V module to use instead of the image's own on devices with `requires_extension`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpirvVariant {
    pub requires_extension: String,
    /// The module, hex-encoded (the metadata is JSON).
    pub spirv_hex: String,
}

impl SpirvVariant {
    pub fn new(requires_extension: &str, spirv: &[u8]) -> Self {
        SpirvVariant {
            requires_extension: requires_extension.to_string(),
            spirv_hex: spirv.iter().map(|b| format!("{b:02x}")).collect(),
        }
    }

    /// The module's bytes; None if the hex is damaged.
    pub fn spirv(&self) -> Option<Vec<u8>> {
        let hex = self.spirv_hex.as_bytes();
        if !hex.len().is_multiple_of(2) {
            return None;
        }
        hex.chunks(2)
            .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok())
            .collect()
    }
}

impl ModuleMetadata {
    pub fn new(kernels: Vec<KernelInfo>) -> Self {
        ModuleMetadata {
            format_version: METADATA_FORMAT_VERSION,
            kernels,
            globals: Vec::new(),
            linear_block_kernels: Vec::new(),
            spirv_variants: Vec::new(),
            memcheck_sites: Vec::new(),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("metadata is always serializable")
    }

    pub fn from_json(text: &str) -> Result<Self, ImageError> {
        #[derive(Deserialize)]
        struct VersionOnly {
            format_version: u32,
        }
        let version: VersionOnly =
            serde_json::from_str(text).map_err(|e| ImageError::BadMetadata(e.to_string()))?;
        if version.format_version != METADATA_FORMAT_VERSION {
            return Err(ImageError::VersionMismatch {
                found: version.format_version,
                expected: METADATA_FORMAT_VERSION,
            });
        }
        serde_json::from_str(text).map_err(|e| ImageError::BadMetadata(e.to_string()))
    }
}

impl KernelArg {
    /// Packs the arguments of a kernel one after another at their natural alignment (the layout of a
    /// struct of the parameters) and returns the block size.
    pub fn layout(args: &mut [KernelArg]) -> u64 {
        let mut end = 0u64;
        let mut max_align = 1u64;
        for arg in args.iter_mut() {
            let align = arg.align.max(1);
            arg.offset = end.next_multiple_of(align);
            end = arg.offset + arg.size;
            max_align = max_align.max(align);
        }
        end.next_multiple_of(max_align)
    }
}
