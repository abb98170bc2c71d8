//! Names the compiler's crates share in the MLIR they pass along: every `hipmlir.*` attribute is
//! defined here, and only here.

/// A device function's linkage across translation units (`#llvm.linkage<...>`: internal,
/// linkonce_odr or external), under the name MLIR's own LLVM lowering reads from `func.func`.
/// The device link resolves symbols by it (globals carry their own `linkage`).
pub const LINKAGE_ATTRIBUTE: &str = "llvm.linkage";

/// A device function that knows only its own translation unit's cases (a virtual function's
/// dispatcher: the classes that unit constructs) and hands every other case to its fallback,
/// a function of the same type: `CHAIN_GROUP_ATTRIBUTE` names the group (the same in every
/// unit), `CHAIN_FALLBACK_ATTRIBUTE` the fallback (`@symbol`). The device link chains a group's
/// members of several units (`-fgpu-rdc`): every call reaches the first, and each one's fallback
/// becomes the next; the last keeps its own.
pub const CHAIN_GROUP_ATTRIBUTE: &str = "hipmlir.chain_group";
pub const CHAIN_FALLBACK_ATTRIBUTE: &str = "hipmlir.chain_fallback";

/// The module attribute listing the address-taken device functions with their pointer ids,
/// `{symbol = id : i64, ...}`: written by the frontend, merged by the device link, read (and
/// removed) by dialect-passes' devirtualization of indirect calls.
pub const FUNCTION_POINTERS_ATTRIBUTE: &str = "hipmlir.function_pointers";

/// The prefix of the address kernels of device variables (the variable's symbol follows): a
/// one-thread kernel `(unsigned long long* out)` storing the variable's address.
pub const ADDRESS_KERNEL_PREFIX: &str = "__hipmlir_address_of_";

/// A kernel: unit on the frontend's `func.func`; on a launch site's `gpu.launch`, the symbol of
/// the kernel it launches. The outliner turns such functions into `gpu.func ... kernel`.
pub const KERNEL_ATTRIBUTE: &str = "hipmlir.kernel";

/// A kernel's name as written in the source, template arguments included (`fill<float, 3>`).
pub const KERNEL_NAME_ATTRIBUTE: &str = "hipmlir.kernel_name";

/// The translation unit of a kernel of internal linkage (`KernelInfo::unit`): its key, which the
/// kernel carries through the device link (where it may be renamed) into the image's metadata.
pub const KERNEL_UNIT_ATTRIBUTE: &str = "hipmlir.kernel_unit";

/// A kernel's parameters in the packed argument block: `[{name, type, offset, size, align,
/// is_pointer, addr_space}, ...]`, the runtime's `KernelArg`s.
pub const KERNEL_ARGS_ATTRIBUTE: &str = "hipmlir.kernel_args";

/// The size in bytes of a kernel's packed argument block.
pub const KERNEL_ARGS_SIZE_ATTRIBUTE: &str = "hipmlir.kernel_args_size";

/// The most threads a block of the kernel may have (its `__launch_bounds__`), when it says.
pub const MAX_THREADS_PER_BLOCK_ATTRIBUTE: &str = "hipmlir.max_threads_per_block";

/// A kernel's by-value struct parameters, `{"<index>" = <struct type>}`: passed as pointers to a
/// copy, decorated ByVal in SPIR-V.
pub const BYVAL_ATTRIBUTE: &str = "hipmlir.byval";

/// A kernel's `__restrict__` pointer parameters, `[index, ...]` (a dense i64 array): LLVM's
/// `noalias` on NVIDIA targets, `FuncParamAttr NoAlias` in SPIR-V, so that loads and stores
/// through them move out of loops as nvcc's and OpenCL C's do.
pub const NOALIAS_ATTRIBUTE: &str = "hipmlir.noalias";

/// A function standing for host code (the launch sites of a host function): it leaves the device
/// module before lowering.
pub const HOST_ATTRIBUTE: &str = "hipmlir.host";

/// A kernel whose work-groups run 1-D (it uses warp operations; see dialect-passes'
/// linear_blocks), recorded in the image's metadata for the runtime.
pub const LINEAR_BLOCK_ATTRIBUTE: &str = "hipmlir.linear_block";

/// A kernel's hidden parameters of the memory checker, `[index, ...]` (a dense i64 array): its
/// parameters after the listed arguments are, in order, the extents of the pointers those
/// arguments hold (see `KernelInfo::memcheck_extents`). Written by `hipmlir-check-memory-accesses`.
pub const MEMCHECK_EXTENTS_ATTRIBUTE: &str = "hipmlir.memcheck_extents";

/// A SPIR-V global that starts as zeros: given an `OpConstantNull` initializer after
/// serialization (MLIR's `spirv.GlobalVariable` can name no null constant).
pub const ZERO_INITIALIZER_ATTRIBUTE: &str = "hipmlir.zero_initializer";

/// The addresses in a global's initial value (`__device__ int* cursor = &table[8];`):
/// `[[offset, @target, addend], ...]` (i64, symbol, i64), each saying that the 8 bytes at
/// `offset` of the global (zero in its `value`) hold the address of global `target` plus
/// `addend` bytes, as a generic pointer. Written by the frontend, on globals whose size and
/// relocation offsets are multiples of 8; each target makes it a pointer constant that the
/// device's loader resolves (SPIR-V: `OpSpecConstantOp` in the variable's initializer; PTX:
/// `generic(target)+addend`).
pub const RELOCATIONS_ATTRIBUTE: &str = "hipmlir.relocations";

/// The placeholder global standing for a kernel's dynamic shared memory (`extern __shared__`),
/// which the frontend declares: the SPIR-V pipeline replaces it by a trailing workgroup-pointer
/// kernel argument, the NVPTX one keeps it as CUDA's extern shared array.
pub const DYNAMIC_SHARED_SYMBOL: &str = "__hipmlir_dynamic_shared";

/// The prefix of the device printf declarations (one per argument signature) the frontend
/// calls: each target lowers them to its printf (OpenCL's, CUDA's vprintf).
pub const PRINTF_SYMBOL_PREFIX: &str = "__hipmlir_printf_";

/// The module attribute naming the target whose address-space numbers the module uses
/// (`"spirv"`, `"nvptx"`), set by the pass that renumbered them; absent while they are
/// hipmlir's target-neutral ones ([`address_space`]).
pub const ADDRESS_SPACES_ATTRIBUTE: &str = "hipmlir.address_spaces";

/// hipmlir's target-neutral address spaces: the numbers of `!llvm.ptr<N>` and of globals'
/// `addr_space` from the frontend until a target's pass (`hipmlir-address-spaces-to-spirv`,
/// `...-to-nvptx`) renumbers them. They follow LLVM's numbering for HIP's own target (AMDGPU:
/// flat 0, global 1, local 3, constant 4, private 5), so a C pointer is the default address
/// space 0, as in LLVM IR everywhere.
pub mod address_space {
    /// Any of the others: what a C pointer is until proven otherwise.
    pub const GENERIC: u32 = 0;
    /// Device memory: kernel pointer arguments, `__device__` variables.
    pub const GLOBAL: u32 = 1;
    /// `__shared__` memory, one copy per block.
    pub const SHARED: u32 = 3;
    /// `__constant__` memory (and string literals).
    pub const CONSTANT: u32 = 4;
    /// A work-item's own memory (address-taken locals, by-value struct parameters).
    pub const PRIVATE: u32 = 5;
}

/// The device's clocks. The frontend reads one as a call of a function declared under its
/// symbol, `() -> i64`; each target's pipeline lowers the call (SPIR-V `OpReadClockKHR`, PTX
/// `%clock64` and `%globaltimer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceClock {
    /// A counter of the device's clock cycles (`clock64`, `clock`).
    Cycles,
    /// A clock of constant rate (`wall_clock64`).
    Wall,
}

impl DeviceClock {
    pub const ALL: [DeviceClock; 2] = [DeviceClock::Cycles, DeviceClock::Wall];

    /// The symbol of the function whose call reads the clock.
    pub fn symbol(self) -> &'static str {
        match self {
            DeviceClock::Cycles => "__hipmlir_clock_cycles",
            DeviceClock::Wall => "__hipmlir_clock_wall",
        }
    }

    /// The clock a function symbol reads, if it is one of them.
    pub fn of_symbol(symbol: &str) -> Option<DeviceClock> {
        DeviceClock::ALL.into_iter().find(|c| c.symbol() == symbol)
    }
}

/// LLVM's `AtomicBinOp` (MLIR's `LLVM::AtomicBinOp`), the `bin_op` of `llvm.atomicrmw`: the
/// frontend writes it, the target lowerings read it. The values are LLVM's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicBinOp {
    Xchg = 0,
    Add = 1,
    Sub = 2,
    And = 3,
    Or = 5,
    Xor = 6,
    Max = 7,
    Min = 8,
    UMax = 9,
    UMin = 10,
    FAdd = 11,
    FSub = 12,
    FMax = 13,
    FMin = 14,
    UIncWrap = 15,
    UDecWrap = 16,
}

impl AtomicBinOp {
    const ALL: [AtomicBinOp; 16] = [
        AtomicBinOp::Xchg,
        AtomicBinOp::Add,
        AtomicBinOp::Sub,
        AtomicBinOp::And,
        AtomicBinOp::Or,
        AtomicBinOp::Xor,
        AtomicBinOp::Max,
        AtomicBinOp::Min,
        AtomicBinOp::UMax,
        AtomicBinOp::UMin,
        AtomicBinOp::FAdd,
        AtomicBinOp::FSub,
        AtomicBinOp::FMax,
        AtomicBinOp::FMin,
        AtomicBinOp::UIncWrap,
        AtomicBinOp::UDecWrap,
    ];

    /// The operation an attribute's value names (None for a value LLVM does not define).
    pub fn from_value(value: i64) -> Option<AtomicBinOp> {
        AtomicBinOp::ALL.into_iter().find(|b| *b as i64 == value)
    }
}

/// LLVM's `AtomicOrdering` values, as the LLVM dialect stores an atomic's `ordering`.
pub mod atomic_ordering {
    pub const MONOTONIC: i64 = 2;
    pub const SEQ_CST: i64 = 7;
}

/// The HIP API level (major, minor, patch) that hipmlir's headers declare in
/// `hip/hip_version.h`: the one place the number is written.
pub fn hip_api_version() -> (u32, u32, u32) {
    const HEADER: &str = include_str!("../../headers/hip/hip_version.h");
    let number = |name: &str| {
        HEADER
            .lines()
            .filter_map(|l| l.trim().strip_prefix("#define "))
            .filter_map(|l| l.split_once(char::is_whitespace))
            .find(|(n, _)| *n == name)
            .and_then(|(_, v)| v.trim().parse::<u32>().ok())
            .expect("hip_version.h defines the version numbers")
    };
    (
        number("HIP_VERSION_MAJOR"),
        number("HIP_VERSION_MINOR"),
        number("HIP_VERSION_PATCH"),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_header_declares_a_version() {
        let (major, minor, _) = super::hip_api_version();
        assert!(major >= 6 && minor < 100);
    }
}
