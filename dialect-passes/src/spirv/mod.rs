//! The SPIR-V target: its device pipeline ([`spirv_pipeline`]) and the passes only it runs,
//! from the outlined gpu.module to a spirv.module that `serialize` turns into words (`patch`
//! finishing what MLIR's serializer cannot write).

pub(crate) mod address_parameters;
pub(crate) mod address_spaces;
pub(crate) mod atomics;
pub(crate) mod ballot_votes;
mod builder;
pub(crate) mod byte_perm;
pub(crate) mod call_graph;
pub(crate) mod capabilities;
pub(crate) mod clocks;
pub(crate) mod dynamic_shared;
pub(crate) mod entry_point_interfaces;
pub(crate) mod entry_points;
pub(crate) mod functions;
pub(crate) mod half_pairs;
mod initializers;
pub(crate) mod ir;
pub(crate) mod linear_blocks;
pub(crate) mod math;
mod memory_op;
pub(crate) mod patch;
pub(crate) mod pointers;
pub(crate) mod recursive_calls;
pub(crate) mod scalar_kernels;
pub(crate) mod scalar_votes;
pub(crate) mod specific_spaces;
pub(crate) mod traps;
mod types;

pub(crate) use builder::{Atomic, Binary, Cast, Compare, SPEC_CONSTANT};

use melior::ir::operation::{OperationLike, WalkOrder, WalkResult};
use melior::ir::OperationRef;

use crate::registry::{self, upstream, PassOptions};
use crate::{Element, Pipeline};

/// The SPIR-V capabilities hipmlir asks for by default (Int8/Int16 for char and short, Float64
/// for double, GenericPointer for C pointers whose address space is not known statically,
/// Linkage for the math placeholders that the post-serialization patch removes again).
pub const DEFAULT_SPIRV_CAPABILITIES: &str = "Addresses,Int64,Int8,Int16,Float16,Float64,Kernel,\
GenericPointer,Int64Atomics,Linkage,GroupNonUniform,GroupNonUniformShuffle,\
GroupNonUniformArithmetic,GroupNonUniformBallot,SubgroupDispatch,Groups";

/// Options of the SPIR-V conversion.
#[derive(Debug, Clone)]
pub struct SpirvOptions {
    /// SPIR-V version (`v1.0` .. `v1.4`).
    pub version: String,
    pub capabilities: String,
    /// `atomicAdd`/`atomicSub` on float become SPV_EXT_shader_atomic_float_add instructions
    /// instead of compare-and-swap loops (for devices with cl_ext_float_atomics).
    pub native_float_atomics: bool,
    /// The memory checker (`-fsanitize=address`): `hipmlir-check-memory-accesses` runs.
    pub memcheck: bool,
}

impl Default for SpirvOptions {
    fn default() -> Self {
        SpirvOptions {
            // The highest version hipmlir may use; spirv-update-vce lowers each module's version
            // to what it really needs (1.0 unless it uses subgroup operations).
            version: "v1.3".into(),
            capabilities: DEFAULT_SPIRV_CAPABILITIES.into(),
            native_float_atomics: false,
            memcheck: false,
        }
    }
}

/// The device pipeline for the SPIR-V target: from the (linked) frontend module to a
/// `spirv.module` in the gpu.module, ready to serialize. Stages (`--emit-mlir`) are the IR after
/// some of its passes (`STAGES`).
pub fn spirv_pipeline(options: &SpirvOptions) -> Pipeline {
    // SPV_KHR_no_integer_wrap_decoration carries C's `nsw` on signed arithmetic; every
    // OpenCL consumer accepts it (it only allows optimizations).
    let (caps, exts, pointer_options) = if options.native_float_atomics {
        (
            format!("{},AtomicFloat32AddEXT", options.capabilities),
            "SPV_KHR_no_integer_wrap_decoration,SPV_EXT_shader_atomic_float_add",
            PassOptions::default().with_flag(registry::NATIVE_FLOAT_ATOMICS),
        )
    } else {
        (
            options.capabilities.clone(),
            "SPV_KHR_no_integer_wrap_decoration",
            PassOptions::default(),
        )
    };
    let memcheck = options
        .memcheck
        .then(|| PassOptions::default().with_flag(registry::MEMCHECK_VOTE));
    // The checker's votes (OpGroupNonUniformAny, ballots once `hipmlir-votes-as-ballots` has
    // run): allowed only where it runs, so that a build without it keeps its target
    // environment.
    let caps = match options.memcheck {
        true => format!("{caps},GroupNonUniformVote"),
        false => caps,
    };
    let mut elements = crate::pipeline::outlining(memcheck);
    elements.extend([
        // From here on the pipeline is SPIR-V's: the frontend's address spaces are
        // target-neutral until this pass.
        Element::pass(&registry::ADDRESS_SPACES_TO_SPIRV),
        Element::pass(&registry::LOWER_TRAP_TO_SPIRV),
        // What NVPTX does in one instruction and SPIR-V in several, before the canonicalizer
        // folds what constants make of them.
        Element::pass(&registry::SCALARIZE_HALF_PAIRS),
        Element::pass(&registry::EXPAND_BYTE_PERM),
        Element::pass(&registry::LOWER_CLOCKS_TO_SPIRV),
        Element::pass(&registry::LOWER_DYNAMIC_SHARED),
        Element::pass(&registry::LINEARIZE_WARP_BLOCKS),
        crate::pipeline::clean_up_gpu_module(),
        // Stage `lowered`: what the kernel metadata is read from.
        Element::pass(&registry::MARK_ENTRY_POINTS),
        // A call inlining left is recursion: marked, to go through a function pointer (see
        // `recursive_calls`). After the stage a build for NVIDIA targets alone reads its
        // metadata from, which must not fail on what only SPIR-V cannot do.
        Element::pass(&registry::MARK_RECURSIVE_CALLS),
        // What SPIR-V cannot leave to the device's compiler: contraction into FMAs; and what
        // the CPU device's vectorizer needs to see: the global index as the global id,
        // work-item ids in 64 bits where subscripts extend them, and accesses in their specific
        // address spaces.
        Element::pass(&registry::CONTRACT_MULTIPLY_ADD),
        Element::pass(&registry::FOLD_GLOBAL_IDS),
        Element::pass(&registry::WIDEN_WORK_ITEM_IDS),
        Element::pass(&registry::SPECIALIZE_ADDRESS_SPACES),
        // The gpu.module becomes a spirv.module.
        Element::pass_with(&registry::LOWER_POINTERS_TO_SPIRV, pointer_options),
        Element::pass(&registry::LOWER_MATH_TO_OPENCL),
        Element::pass(&registry::LOWER_FUNCTIONS_TO_SPIRV),
        Element::upstream_with(
            upstream::SPIRV_ATTACH_TARGET,
            format!("ver={} caps={caps} exts={exts}", options.version),
        ),
        Element::upstream_with(upstream::CONVERT_GPU_TO_SPIRV, "use-64bit-index=true"),
        Element::nest(
            "gpu.module",
            vec![Element::nest(
                "spirv.module",
                vec![
                    Element::upstream(upstream::SPIRV_LOWER_ABI_ATTRS),
                    Element::upstream(upstream::SPIRV_UPDATE_VCE),
                    Element::upstream(upstream::CANONICALIZE),
                ],
            )],
        ),
        // Entry points take global pointers as integers (the cheap way to set them).
        Element::pass(&registry::KERNEL_ADDRESS_PARAMETERS),
        // After the wrappers: a kernel's branches are counted through its calls.
        Element::pass(&registry::HINT_SCALAR_KERNELS),
        Element::pass(&registry::UNVOTE_SCALAR_KERNELS),
        Element::pass(&registry::VOTES_AS_BALLOTS),
        // Last of what may add calls or reads of built-in variables.
        Element::pass(&registry::COMPLETE_ENTRY_POINT_INTERFACES),
        // The capabilities again, from the ballots rather than the votes.
        Element::nest(
            "gpu.module",
            vec![Element::nest(
                "spirv.module",
                vec![Element::upstream(upstream::SPIRV_UPDATE_VCE)],
            )],
        ),
        // Stage `spirv`.
        Element::pass(&registry::ADD_MISSING_CAPABILITIES),
    ]);
    Pipeline::from_elements(elements)
}

/// Operations whose results depend on the subgroup size.
const SUBGROUP_OPS: &[&str] = &[
    "gpu.shuffle",
    "gpu.subgroup_reduce",
    "gpu.lane_id",
    "gpu.subgroup_size",
];

/// Whether `kernel` uses warp operations: it needs 32-wide subgroups, the warpSize hipmlir
/// reports, and HIP's lane numbering (`linear_blocks`).
pub(crate) fn uses_warp_operations(kernel: &OperationRef) -> bool {
    let mut uses = false;
    kernel.walk(WalkOrder::PreOrder, |op| {
        let name = op.name();
        if SUBGROUP_OPS.contains(&name.as_string_ref().as_str().unwrap_or("")) {
            uses = true;
            return WalkResult::Interrupt;
        }
        WalkResult::Advance
    });
    uses
}
