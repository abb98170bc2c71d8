//! From the frontend's MLIR to a SPIR-V binary or PTX, in-process.
//!
//! hipmlir's transformations are MLIR passes (`registry`), each a table of rewrite patterns
//! applied by hipmlir-ir's rewrite driver, run with MLIR's upstream passes in one typed
//! pipeline per target (`pipeline`): device functions inlined, kernels outlined into a
//! gpu.module (the outliner's stage, `outlined`), HIP semantics lowered (stage `lowered`), the
//! gpu.module converted to the target's dialect (stage `spirv`). `serialize` then turns it into
//! SPIR-V words or PTX text. Before the pipeline, `link_modules` puts the frontend modules of
//! several sources together (the device link).
//!
//! The layout follows the targets: the passes both pipelines run at the top (address-space
//! numbering, function pointers, the device link), `spirv/` and `nvptx/` for each target's
//! pipeline and passes, `error` and `serialize` for what every target shares.
//!
//! Adding a pass: write its rewrites (`fn(&mut PatternRewriter, &mut State, OperationRef) ->
//! Result<Outcome, LowerError>`, one per op name), gather them in a `RewritePatternSet` and
//! hand it to `hipmlir_ir::rewrite::apply_patterns` (see `spirv::traps` for the smallest, and
//! `nvptx::lower` for stages); give it a `PassInfo` in `registry` (listed in `PASSES`), an
//! `Element::pass` in its target's pipeline, and a lit test in tests/lit/passes.

mod address_space_map;
mod builder;
mod context;
mod contraction;
mod device_link;
mod error;
mod function_pointers;
mod global_ids;
mod layout;
mod memcheck;
mod nvptx;
mod pass_times;
mod pipeline;
mod registry;
mod relocations;
mod serialize;
mod sincos;
mod spirv;
mod symbols;
mod work_item_ids;

pub use context::{
    capture_diagnostics, new_context, new_context_with_all_passes, prepare_process, PendingContext,
};
pub use device_link::{link_modules, LinkUnit, Linked};
pub use error::{Diagnostic, LowerError};
pub use hipmlir_ir::SourceLoc;
pub use memcheck::memcheck_sites;
pub use nvptx::{nvptx_pipeline, NvptxOptions};
pub use pass_times::{record_pass_times, take_pass_times};
pub use pipeline::{describe_passes, stage_pass, Element, Pass, Pipeline, STAGES};
pub use registry::{is_device_pass, PassInfo, PassOptions, PASSES};
pub use serialize::{serialize_ptx, serialize_spirv};
pub use spirv::atomics::uses_float_atomic_add;
pub use spirv::{spirv_pipeline, SpirvOptions, DEFAULT_SPIRV_CAPABILITIES};

use hipmlir_device_image::KernelInfo;
use melior::ir::Module;

/// The metadata of every kernel in `module`, in IR order (see the outliner's
/// [`hipmlir_outliner::kernel_metadata`]).
pub fn kernel_metadata(module: &Module) -> Result<Vec<KernelInfo>, LowerError> {
    Ok(hipmlir_outliner::kernel_metadata(module)?)
}

pub use hipmlir_outliner::linear_block_kernels;

/// A deep copy of a module (to lower one stage two ways).
pub fn clone_module<'c>(module: &Module<'c>) -> Module<'c> {
    // SAFETY: mlirOperationClone returns a new, unowned copy, which the new module owns.
    let copy = unsafe {
        melior::ir::Operation::from_raw(mlir_sys::mlirOperationClone(
            module.as_operation().to_raw(),
        ))
    };
    Module::from_operation(copy).expect("a copy of a module is a module")
}
