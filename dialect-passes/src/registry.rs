//! hipmlir's own transformations as MLIR passes: each has a name (its pipeline argument), a
//! one-line summary and its options, and runs as an external pass (melior's `create_external`)
//! in the same pass manager as MLIR's upstream passes, so pipelines mix both, IR printing shows
//! both, and `hipmlir-opt` runs either.

use std::collections::BTreeMap;
use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use melior::ir::operation::OperationLike;
use melior::ir::r#type::TypeId;
use melior::ir::{Module, OperationRef};
use melior::pass::{create_external, ExternalPass, Pass, RunExternalPass};
use melior::{Context, ContextRef};

use crate::{Diagnostic, LowerError};

/// A pass of hipmlir's: what `--list-passes` prints and how the pipeline runs it.
pub struct PassInfo {
    /// The pass's argument in a pipeline (`hipmlir-outline-kernels`).
    pub name: &'static str,
    pub summary: &'static str,
    /// The options it takes (`name`, what it means, what value it takes).
    pub options: &'static [(&'static str, &'static str, OptionValue)],
    run: fn(&Context, &mut Module, &PassOptions) -> Result<(), LowerError>,
}

/// What value a pass option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionValue {
    /// `true` or `false` (`1`, `0`); the option alone is `true`.
    Flag,
    /// A whole number.
    Count,
}

impl OptionValue {
    /// How `--list-passes` shows the values.
    pub fn spelling(self) -> &'static str {
        match self {
            OptionValue::Flag => "true|false",
            OptionValue::Count => "N",
        }
    }

    /// Whether `value` is one of these values.
    fn accepts(self, value: &str) -> bool {
        match self {
            OptionValue::Flag => matches!(value, "true" | "false" | "1" | "0"),
            OptionValue::Count => value.parse::<usize>().is_ok(),
        }
    }

    /// The values, as an error says them.
    fn expected(self) -> &'static str {
        match self {
            OptionValue::Flag => "true or false",
            OptionValue::Count => "a whole number",
        }
    }
}

/// A pass is itself: two entries are the same pass only if they are one entry.
impl PartialEq for PassInfo {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for PassInfo {}

impl std::fmt::Debug for PassInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.name)
    }
}

/// The option of `hipmlir-lower-pointers-to-spirv` that the float-atomics variant sets.
pub const NATIVE_FLOAT_ATOMICS: &str = "native-float-atomics";

/// The option of `hipmlir-check-memory-accesses` that the SPIR-V pipeline sets.
pub const MEMCHECK_VOTE: &str = "subgroup-vote";

/// The option of `hipmlir-check-memory-accesses` that the NVPTX pipeline sets.
pub const MEMCHECK_TRAP: &str = "trap-on-failure";

/// `hipmlir-hint-scalar-kernels`' option: the branches from which a kernel is hinted.
pub const SCALAR_KERNEL_BRANCHES: &str = "branches";

pub static DEVIRTUALIZE_FUNCTION_POINTERS: PassInfo = PassInfo {
    name: "hipmlir-devirtualize-function-pointers",
    summary: "calls through function pointers (func.call_indirect of an id) become a choice \
              among the module's address-taken functions of the call's type",
    options: &[],
    run: |ctx, module, _| crate::function_pointers::devirtualize_function_pointers(ctx, module),
};

pub static OUTLINE_KERNELS: PassInfo = PassInfo {
    name: hipmlir_outliner::OUTLINE_KERNELS,
    summary: hipmlir_outliner::OUTLINE_KERNELS_SUMMARY,
    options: &[],
    run: |ctx, module, _| {
        hipmlir_outliner::outline_kernels(ctx, module)?;
        Ok(())
    },
};

pub static DROP_HOST_FUNCTIONS: PassInfo = PassInfo {
    name: hipmlir_outliner::DROP_HOST_FUNCTIONS,
    summary: hipmlir_outliner::DROP_HOST_FUNCTIONS_SUMMARY,
    options: &[],
    run: |ctx, module, _| Ok(hipmlir_outliner::drop_host_functions(ctx, module)?),
};

pub static CHECK_MEMORY_ACCESSES: PassInfo = PassInfo {
    name: "hipmlir-check-memory-accesses",
    summary: "-fsanitize=address: device loads, stores and atomics are checked against their \
              object or the runtime's table of live allocations; the first bad access is \
              skipped and reported (kernel, file:line:col, thread, block, address)",
    options: &[
        (
            MEMCHECK_VOTE,
            "a failed fast check is voted on per subgroup, so the checks' slow path is one \
             uniform branch (devices that run work-items as vector lanes)",
            OptionValue::Flag,
        ),
        (
            MEMCHECK_TRAP,
            "a work-item whose check failed traps where the check is made, and the access \
             after it runs unguarded (targets whose trap ends the kernel)",
            OptionValue::Flag,
        ),
    ],
    run: |ctx, module, options| {
        let on_failure = match options.flag(MEMCHECK_TRAP) {
            true => crate::memcheck::OnFailure::Trap,
            false => crate::memcheck::OnFailure::Skip,
        };
        crate::memcheck::check_memory_accesses(ctx, module, options.flag(MEMCHECK_VOTE), on_failure)
    },
};

pub static ADDRESS_SPACES_TO_SPIRV: PassInfo = PassInfo {
    name: "hipmlir-address-spaces-to-spirv",
    summary: "hipmlir's target-neutral address spaces (generic 0, global 1, shared 3, \
              constant 4, private 5) become SPIR-V's (Generic 4, CrossWorkgroup 1, \
              Workgroup 3, UniformConstant 2, Function 0)",
    options: &[],
    run: |ctx, module, _| {
        crate::address_space_map::map_address_spaces(ctx, module, crate::address_space_map::SPIRV)
    },
};

pub static ADDRESS_SPACES_TO_NVPTX: PassInfo = PassInfo {
    name: "hipmlir-address-spaces-to-nvptx",
    summary: "hipmlir's target-neutral address spaces become NVPTX's (generic 0, global 1, \
              shared 3, constant 4; private memory stays generic for the backend's allocas)",
    options: &[],
    run: |ctx, module, _| {
        crate::address_space_map::map_address_spaces(ctx, module, crate::address_space_map::NVPTX)
    },
};

pub static LOWER_HIP_TO_NVPTX: PassInfo = PassInfo {
    name: "hipmlir-lower-hip-to-nvptx",
    summary: "HIP semantics convert-gpu-to-nvvm does not know: byval parameters, memory \
              scopes, libdevice calls, printf as vprintf, dynamic shared memory as an extern \
              shared array, shuffles and votes under the active mask; what has no NVPTX \
              lowering is reported unsupported",
    options: &[],
    run: |ctx, module, _| crate::nvptx::lower::lower_hip_to_nvptx(ctx, module),
};

pub static FUSE_SINCOS: PassInfo = PassInfo {
    name: "hipmlir-fuse-sincos",
    summary: "a sine and a cosine of the same value in one block become one math.sincos (one \
              argument reduction; libdevice's __nv_sincos on NVPTX)",
    options: &[],
    run: |ctx, module, _| crate::sincos::fuse_sincos(ctx, module),
};

pub static NVPTX_PARAMETER_ATTRIBUTES: PassInfo = PassInfo {
    name: "hipmlir-nvptx-parameter-attributes",
    summary: "after convert-gpu-to-nvvm (which drops parameter attributes): kernel \
              parameters of structs passed by value become llvm.byval, NVPTX's .param \
              copies, and __restrict__ pointers llvm.noalias",
    options: &[],
    run: |ctx, module, _| crate::nvptx::parameters::nvptx_parameter_attributes(ctx, module),
};

pub static LOWER_TRAP_TO_SPIRV: PassInfo = PassInfo {
    name: "hipmlir-lower-trap-to-spirv",
    summary: "removes traps (__builtin_trap) from device code bound for SPIR-V: OpenCL \
              cannot stop a kernel, the runtime ends the program on a raised abort flag",
    options: &[],
    run: |ctx, module, _| crate::spirv::traps::lower_trap_to_spirv(ctx, module),
};

pub static SCALARIZE_HALF_PAIRS: PassInfo = PassInfo {
    name: "hipmlir-scalarize-half-pairs",
    summary: "arithmetic, min/max and compares on pairs of halves (vector<2xf16>, __hadd2 and \
              kin) become one scalar op per lane, which the OpenCL CPU device vectorizes \
              across work-items (NVPTX keeps the pairs: f16x2 instructions)",
    options: &[],
    run: |ctx, module, _| crate::spirv::half_pairs::scalarize_half_pairs(ctx, module),
};

pub static EXPAND_BYTE_PERM: PassInfo = PassInfo {
    name: "hipmlir-expand-byte-perm",
    summary: "calls of __byte_perm become the shifts and masks selecting its bytes (SPIR-V \
              has no byte permute; NVPTX's lowering makes it one prmt.b32)",
    options: &[],
    run: |ctx, module, _| crate::spirv::byte_perm::expand_byte_perm(ctx, module),
};

pub static LOWER_CLOCKS_TO_SPIRV: PassInfo = PassInfo {
    name: "hipmlir-lower-clocks-to-spirv",
    summary: "reads of the device's clocks (clock64, wall_clock64) become calls of a \
              placeholder that serialization turns into OpReadClockKHR (Device scope)",
    options: &[],
    run: |ctx, module, _| crate::spirv::clocks::lower_clocks_to_spirv(ctx, module),
};

pub static LOWER_DYNAMIC_SHARED: PassInfo = PassInfo {
    name: "hipmlir-lower-dynamic-shared",
    summary: "dynamic shared memory (extern __shared__) becomes a trailing workgroup-pointer \
              argument of each kernel using it, sized at launch",
    options: &[],
    run: |ctx, module, _| crate::spirv::dynamic_shared::lower_dynamic_shared(ctx, module),
};

pub static LINEARIZE_WARP_BLOCKS: PassInfo = PassInfo {
    name: "hipmlir-linearize-warp-blocks",
    summary: "kernels using warp operations run 1-D work-groups and recompute threadIdx \
              from the linear local id (HIP's lane numbering)",
    options: &[],
    run: |ctx, module, _| crate::spirv::linear_blocks::linearize_warp_blocks(ctx, module),
};

pub static MARK_ENTRY_POINTS: PassInfo = PassInfo {
    name: "hipmlir-mark-entry-points",
    summary: "kernels become SPIR-V entry points (spirv.entry_point_abi), with 32-wide \
              subgroups where they use warp operations",
    options: &[],
    run: |ctx, module, _| crate::spirv::entry_points::mark_entry_points(ctx, module),
};

pub static MARK_RECURSIVE_CALLS: PassInfo = PassInfo {
    name: "hipmlir-mark-recursive-calls",
    summary: "SPIR-V: after inlining, a call between functions of one cycle of the call graph \
              is marked hipmlir.recursive_call, to become a call through an \
              SPV_INTEL_function_pointers constant after serialization; what a recursive \
              function cannot do there is reported, naming the cycle",
    options: &[],
    run: |ctx, module, _| crate::spirv::recursive_calls::mark_recursive_calls(ctx, module),
};

pub static CONTRACT_MULTIPLY_ADD: PassInfo = PassInfo {
    name: "hipmlir-contract-multiply-add",
    summary: "a contractible float multiply feeding an add or subtract (fastmath<contract>, \
              hipcc's -ffp-contract=fast-honor-pragmas) becomes one math.fma, which SPIR-V \
              cannot leave to the device's compiler",
    options: &[],
    run: |ctx, module, _| crate::contraction::contract_multiply_add(ctx, module),
};

pub static FOLD_GLOBAL_IDS: PassInfo = PassInfo {
    name: "hipmlir-fold-global-ids",
    summary: "HIP's global index blockIdx * blockDim + threadIdx (32 bits) becomes the low half \
              of the global id, which vectorizers see is consecutive across work-items \
              (launches have no global offset)",
    options: &[],
    run: |ctx, module, _| crate::global_ids::fold_global_ids(ctx, module),
};

pub static WIDEN_WORK_ITEM_IDS: PassInfo = PassInfo {
    name: "hipmlir-widen-work-item-ids",
    summary: "a 64-bit extension of a 32-bit work-item id (an array subscript of threadIdx.x) \
              becomes the id's 64-bit value, which vectorizers see is consecutive across \
              work-items",
    options: &[],
    run: |ctx, module, _| crate::work_item_ids::widen_work_item_ids(ctx, module),
};

pub static SPECIALIZE_ADDRESS_SPACES: PassInfo = PassInfo {
    name: "hipmlir-specialize-address-spaces",
    summary: "GEPs and accesses through a generic pointer cast from a specific space (a \
              kernel argument, a __shared__ variable) use that space, the cast sinking below \
              them (as LLVM's InferAddressSpaces)",
    options: &[],
    run: |ctx, module, _| crate::spirv::specific_spaces::specialize_address_spaces(ctx, module),
};

pub static LOWER_POINTERS_TO_SPIRV: PassInfo = PassInfo {
    name: "hipmlir-lower-pointers-to-spirv",
    summary: "LLVM pointers, globals, loads, stores and atomics become SPIR-V pointers in \
              their storage classes (after an address-space inference)",
    options: &[(
        NATIVE_FLOAT_ATOMICS,
        "float atomicAdd/atomicSub as SPV_EXT_shader_atomic_float_add instructions instead \
         of compare-and-swap loops",
        OptionValue::Flag,
    )],
    run: |ctx, module, options| {
        let native = options.flag(NATIVE_FLOAT_ATOMICS);
        crate::spirv::pointers::lower_pointers_to_spirv(ctx, module, native)
    },
};

pub static LOWER_MATH_TO_OPENCL: PassInfo = PassInfo {
    name: "hipmlir-lower-math-to-opencl",
    summary: "math operations and device library calls become OpenCL.std extended \
              instructions",
    options: &[],
    run: |ctx, module, _| crate::spirv::math::lower_math_to_opencl(ctx, module),
};

pub static KERNEL_ADDRESS_PARAMETERS: PassInfo = PassInfo {
    name: "hipmlir-kernel-address-parameters",
    summary: "SPIR-V entry points take global pointers as 64-bit integers: a wrapper converts \
              them and calls the kernel's function (NAME.body, inlined), which keeps its \
              pointer parameters and their no-alias facts",
    options: &[],
    run: |ctx, module, _| crate::spirv::address_parameters::kernel_address_parameters(ctx, module),
};

pub static HINT_SCALAR_KERNELS: PassInfo = PassInfo {
    name: "hipmlir-hint-scalar-kernels",
    summary: "a kernel of very many branches whose subgroup size is not pinned gets the vector \
              type hint of a scalar (VecTypeHint): Intel's CPU compiler then does not spend \
              minutes vectorizing it across work-items",
    options: &[(
        SCALAR_KERNEL_BRANCHES,
        "the branches and loops from which a kernel is hinted (default 2000)",
        OptionValue::Count,
    )],
    run: |ctx, module, options| {
        let branches = options
            .count(SCALAR_KERNEL_BRANCHES)
            .unwrap_or(crate::spirv::scalar_kernels::SCALAR_KERNEL_BRANCHES);
        crate::spirv::scalar_kernels::hint_scalar_kernels(ctx, module, branches)
    },
};

pub static COMPLETE_ENTRY_POINT_INTERFACES: PassInfo = PassInfo {
    name: "hipmlir-complete-entry-point-interfaces",
    summary: "each SPIR-V entry point lists the built-in variables of every function it reaches \
              through calls (a helper inlining left, such as the memory checker's slow path), as \
              SPIR-V requires, not only those of its own function",
    options: &[],
    run: |ctx, module, _| {
        crate::spirv::entry_point_interfaces::complete_entry_point_interfaces(ctx, module)
    },
};

pub static UNVOTE_SCALAR_KERNELS: PassInfo = PassInfo {
    name: "hipmlir-unvote-scalar-kernels",
    summary: "in what a kernel hinted to compute on scalars reaches, the memory checker's \
              subgroup votes become each work-item's own condition: Intel's CPU compiler \
              emulates the subgroups of such a kernel and gets votes under divergent \
              conditions wrong",
    options: &[],
    run: |ctx, module, _| crate::spirv::scalar_votes::unvote_scalar_kernels(ctx, module),
};

pub static VOTES_AS_BALLOTS: PassInfo = PassInfo {
    name: "hipmlir-votes-as-ballots",
    summary: "a subgroup vote (OpGroupNonUniformAny) becomes a ballot tested for a set bit: \
              Intel's CPU compiler tests a vote's vector lanes one by one, a ballot's mask at \
              once",
    options: &[],
    run: |ctx, module, _| crate::spirv::ballot_votes::votes_as_ballots(ctx, module),
};

pub static LOWER_FUNCTIONS_TO_SPIRV: PassInfo = PassInfo {
    name: "hipmlir-lower-functions-to-spirv",
    summary: "the functions inlining leaves (the compiler's helpers) become spirv.func \
              DontInline, their calls spirv.FunctionCall",
    options: &[],
    run: |ctx, module, _| crate::spirv::functions::lower_functions_to_spirv(ctx, module),
};

pub static ADD_MISSING_CAPABILITIES: PassInfo = PassInfo {
    name: "hipmlir-add-missing-capabilities",
    summary: "adds what spirv-update-vce does not derive: Int64Atomics for 64-bit atomics, \
              the no-wrap decorations' extension, ShaderClockKHR where a clock is read",
    options: &[],
    run: |ctx, module, _| crate::spirv::capabilities::add_missing_capabilities(ctx, module),
};

const PASS_COUNT: usize = 30;

/// Every pass of hipmlir's, in the order the SPIR-V pipeline runs them (then NVPTX's own).
pub static PASSES: [&PassInfo; PASS_COUNT] = [
    &DEVIRTUALIZE_FUNCTION_POINTERS,
    &OUTLINE_KERNELS,
    &DROP_HOST_FUNCTIONS,
    &CHECK_MEMORY_ACCESSES,
    &ADDRESS_SPACES_TO_SPIRV,
    &ADDRESS_SPACES_TO_NVPTX,
    &LOWER_HIP_TO_NVPTX,
    &FUSE_SINCOS,
    &NVPTX_PARAMETER_ATTRIBUTES,
    &LOWER_TRAP_TO_SPIRV,
    &SCALARIZE_HALF_PAIRS,
    &EXPAND_BYTE_PERM,
    &LOWER_CLOCKS_TO_SPIRV,
    &LOWER_DYNAMIC_SHARED,
    &LINEARIZE_WARP_BLOCKS,
    &MARK_ENTRY_POINTS,
    &MARK_RECURSIVE_CALLS,
    &CONTRACT_MULTIPLY_ADD,
    &FOLD_GLOBAL_IDS,
    &WIDEN_WORK_ITEM_IDS,
    &SPECIALIZE_ADDRESS_SPACES,
    &LOWER_POINTERS_TO_SPIRV,
    &LOWER_MATH_TO_OPENCL,
    &KERNEL_ADDRESS_PARAMETERS,
    &HINT_SCALAR_KERNELS,
    &UNVOTE_SCALAR_KERNELS,
    &VOTES_AS_BALLOTS,
    &COMPLETE_ENTRY_POINT_INTERFACES,
    &LOWER_FUNCTIONS_TO_SPIRV,
    &ADD_MISSING_CAPABILITIES,
];

/// The pass of hipmlir's with this name.
pub fn find(name: &str) -> Option<&'static PassInfo> {
    PASSES.iter().copied().find(|p| p.name == name)
}

/// MLIR's passes that hipmlir's device pipelines run, each named once here (the pipelines
/// name them through these constants; cxx/upstream_passes.cpp registers them, and
/// serialization's `gpu-module-to-binary`).
pub mod upstream {
    pub const INLINE: &str = "inline";
    pub const CANONICALIZE: &str = "canonicalize";
    pub const CSE: &str = "cse";
    pub const SYMBOL_DCE: &str = "symbol-dce";
    pub const SPIRV_ATTACH_TARGET: &str = "spirv-attach-target";
    pub const CONVERT_GPU_TO_SPIRV: &str = "convert-gpu-to-spirv";
    pub const SPIRV_LOWER_ABI_ATTRS: &str = "spirv-lower-abi-attrs";
    pub const SPIRV_UPDATE_VCE: &str = "spirv-update-vce";
    pub const NVVM_ATTACH_TARGET: &str = "nvvm-attach-target";
    pub const CONVERT_SCF_TO_CF: &str = "convert-scf-to-cf";
    pub const CONVERT_GPU_TO_NVVM: &str = "convert-gpu-to-nvvm";
    pub const CONVERT_MATH_TO_LLVM: &str = "convert-math-to-llvm";
    pub const RECONCILE_UNREALIZED_CASTS: &str = "reconcile-unrealized-casts";
    /// Serialization's pass: it runs after the pipelines, never in them.
    pub const GPU_MODULE_TO_BINARY: &str = "gpu-module-to-binary";

    /// The upstream passes of the device pipelines (not serialization's).
    pub const IN_PIPELINES: [&str; 13] = [
        INLINE,
        CANONICALIZE,
        CSE,
        SYMBOL_DCE,
        SPIRV_ATTACH_TARGET,
        CONVERT_GPU_TO_SPIRV,
        SPIRV_LOWER_ABI_ATTRS,
        SPIRV_UPDATE_VCE,
        NVVM_ATTACH_TARGET,
        CONVERT_SCF_TO_CF,
        CONVERT_GPU_TO_NVVM,
        CONVERT_MATH_TO_LLVM,
        RECONCILE_UNREALIZED_CASTS,
    ];
}

/// Whether a device pipeline (either target's) runs the pass `name`, hipmlir's or MLIR's:
/// what `--emit-mlir=<pass>` may name.
pub fn is_device_pass(name: &str) -> bool {
    find(name).is_some() || upstream::IN_PIPELINES.contains(&name)
}

/// A pass's options, from its pipeline text (`{native-float-atomics=true}`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassOptions(BTreeMap<String, String>);

impl PassOptions {
    /// Parses MLIR's option syntax (`key=value` separated by spaces), checked against the
    /// options `pass` takes.
    pub fn parse(pass: &PassInfo, text: &str) -> Result<Self, String> {
        let mut options = BTreeMap::new();
        for item in text.split_whitespace() {
            let (key, value) = item.split_once('=').unwrap_or((item, "true"));
            let Some(&(_, _, kind)) = pass.options.iter().find(|(name, _, _)| *name == key) else {
                return Err(format!(
                    "'{key}' is not an option of {} ({})",
                    pass.name,
                    if pass.options.is_empty() {
                        "it takes none".to_string()
                    } else {
                        let names: Vec<&str> = pass.options.iter().map(|(n, _, _)| *n).collect();
                        format!("it takes {}", names.join(", "))
                    }
                ));
            };
            if !kind.accepts(value) {
                return Err(format!(
                    "option '{key}' of {} takes {}, not '{value}'",
                    pass.name,
                    kind.expected()
                ));
            }
            options.insert(key.to_string(), value.to_string());
        }
        Ok(PassOptions(options))
    }

    /// The options with the boolean `name` set (a pipeline built in Rust).
    pub fn with_flag(mut self, name: &str) -> Self {
        self.0.insert(name.to_string(), "true".to_string());
        self
    }

    fn flag(&self, name: &str) -> bool {
        matches!(self.0.get(name).map(String::as_str), Some("true" | "1"))
    }

    /// The count option `name`, when given.
    fn count(&self, name: &str) -> Option<usize> {
        self.0.get(name).and_then(|v| v.parse().ok())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// MLIR's option syntax: `key=value` separated by spaces.
impl std::fmt::Display for PassOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let items: Vec<String> = self.0.iter().map(|(k, v)| format!("{k}={v}")).collect();
        write!(f, "{}", items.join(" "))
    }
}

/// Where a failing pass leaves its error: MLIR only learns that the pass failed, the driver
/// needs the error itself (an unsupported construct is the user's diagnostic, not a crash).
pub(crate) type ErrorSink = Arc<Mutex<Option<LowerError>>>;

/// A distinct, 8-byte aligned address per pass: MLIR identifies a pass by its TypeID.
#[repr(align(8))]
pub struct PassId(#[allow(dead_code)] u8);

static PASS_IDS: [PassId; PASS_COUNT] = [const { PassId(0) }; PASS_COUNT];

#[derive(Clone)]
struct Runner {
    pass: &'static PassInfo,
    options: PassOptions,
    errors: ErrorSink,
}

impl<'c> RunExternalPass<'c> for Runner {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        let result = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: the pass is anchored on builtin.module, so `operation` is a module op
            // that MLIR owns; the view is never dropped, so it never destroys it.
            let mut module = ManuallyDrop::new(unsafe {
                Module::from_raw(mlir_sys::mlirModuleFromOperation(operation.to_raw()))
            });
            let context = operation.context();
            // SAFETY: `context` lives to the end of this closure, and the context it names
            // outlives the pass run that handed out `operation`.
            let ctx = unsafe { context.to_ref() };
            (self.pass.run)(ctx, &mut module, &self.options)
        }))
        .unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(LowerError::bug(format!(
                "{} panicked: {what}",
                self.pass.name
            )))
        });
        if let Err(e) = result {
            // An internal error names the pass that failed.
            let e = match e {
                LowerError::Internal { location, message } => LowerError::Pass {
                    stage: format!("running {}", self.pass.name),
                    diagnostics: vec![Diagnostic { location, message }],
                },
                e => e,
            };
            if let Ok(mut slot) = self.errors.lock() {
                slot.get_or_insert(e);
            }
            pass.signal_failure();
        }
    }
}

/// The MLIR pass running `pass` with `options`; its error goes to `errors`.
pub(crate) fn create(pass: &'static PassInfo, options: PassOptions, errors: ErrorSink) -> Pass {
    let index = PASSES
        .iter()
        .position(|p| std::ptr::eq(*p, pass))
        .expect("a registered pass");
    // MLIR's IR printer shows "IR Dump After <Name> (<argument>)".
    let title: String = pass
        .name
        .split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect();
    create_external(
        Runner {
            pass,
            options,
            errors,
        },
        TypeId::create(&PASS_IDS[index]),
        &title,
        pass.name,
        pass.summary,
        "builtin.module",
        &[],
    )
}
