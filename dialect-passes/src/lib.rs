//! From outlined MLIR to a SPIR-V binary, in-process.
//!
//! Stages (each one a dump for `--emit-mlir`):
//! 1. `lowered`: HIP semantics lowered (device functions inlined, kernels marked as SPIR-V entry
//!    points, cleanup), still in func/arith/scf/memref/gpu.
//! 2. `spirv`: upstream GPU→SPIR-V conversion; the gpu.module holds a `spirv.module`.
//! 3. the binary: `gpu-module-to-binary` serializes the SPIR-V, which is taken out of the
//!    resulting `gpu.binary`.

mod address_spaces;
mod atomics;
mod context;
mod device_link;
mod dynamic_shared;
mod function_pointers;
mod linear_blocks;
mod math;
mod metadata;
mod passes;
mod pointers;
mod spirv_patch;

pub use context::new_context;
pub use device_link::{link_modules, LinkUnit, Linked};
pub use metadata::{kernel_metadata, linear_block_kernels};
pub use passes::{uses_float_atomic_add, SpirvOptions, DEFAULT_SPIRV_CAPABILITIES};

use melior::ir::operation::OperationLike;
use melior::ir::Module;
use melior::pass::PassManager;
use melior::utility::parse_pass_pipeline;
use melior::Context;

#[derive(Debug, thiserror::Error)]
pub enum LowerError {
    /// A construct of the program that hipmlir cannot compile, at its source location.
    #[error("{location}: error: unsupported construct in device code: {message}")]
    Unsupported { location: String, message: String },
    #[error("{stage}: {message}")]
    Pass {
        stage: &'static str,
        message: String,
    },
    /// Symbols that do not link (a clang-style diagnostic).
    #[error("{0}")]
    Link(String),
    #[error("internal compiler error: {0}")]
    Internal(String),
}

/// Runs a textual pass pipeline on `module`; MLIR's diagnostics become the error message.
fn run_pipeline(
    ctx: &Context,
    module: &mut Module,
    stage: &'static str,
    pipeline: &str,
    print_ir_after_all: bool,
) -> Result<(), LowerError> {
    let pm = PassManager::new(ctx);
    parse_pass_pipeline(pm.as_operation_pass_manager(), pipeline)
        .map_err(|e| LowerError::Internal(format!("bad pipeline '{pipeline}': {e}")))?;
    if print_ir_after_all {
        // MLIR refuses to print IR between passes of a multi-threaded context (LLVM ERROR).
        ctx.enable_multi_threading(false);
        pm.enable_ir_printing(&melior::pass::PassIrPrintingOptions {
            before_all: false,
            after_all: true,
            module_scope: true,
            on_change: false,
            on_failure: true,
            flags: melior::ir::operation::OperationPrintingFlags::new(),
            tree_printing_path: std::path::PathBuf::new(),
        });
    }
    let diagnostics = context::capture_diagnostics(ctx, || pm.run(module));
    match diagnostics {
        (Ok(()), _) if module.as_operation().verify() => Ok(()),
        (_, messages) => Err(LowerError::Pass {
            stage,
            message: if messages.is_empty() {
                "the pass pipeline failed".to_string()
            } else {
                messages.join("\n")
            },
        }),
    }
}

/// Before outlining: device functions are inlined into the kernels while these are still
/// `func.func` (MLIR cannot inline into a `gpu.func`, whose dialect has no inliner interface),
/// and the module is cleaned up. GPU code has no call stack worth keeping.
pub fn inline_device_functions(
    ctx: &Context,
    module: &mut Module,
    print_ir_after_all: bool,
) -> Result<(), LowerError> {
    // Calls through function pointers become direct calls first, to be inlined with the rest.
    function_pointers::devirtualize_function_pointers(ctx, module)?;
    run_pipeline(
        ctx,
        module,
        "inlining device functions",
        passes::INLINE_PIPELINE,
        print_ir_after_all,
    )?;
    passes::reject_recursion(module)
}

/// Stage 1: HIP semantics and cleanup on the outlined module.
pub fn lower_hip_semantics(
    ctx: &Context,
    module: &mut Module,
    print_ir_after_all: bool,
) -> Result<(), LowerError> {
    // Launch sites stood for host code: from here on only the device side is lowered.
    passes::drop_host_functions(module);
    dynamic_shared::lower_dynamic_shared(ctx, module)?;
    linear_blocks::linearize_warp_blocks(ctx, module)?;
    passes::mark_entry_points(ctx, module);
    run_pipeline(
        ctx,
        module,
        "lowering HIP semantics",
        passes::HIP_SEMANTICS_PIPELINE,
        print_ir_after_all,
    )
}

/// Stage 2: the gpu.module becomes a spirv.module.
pub fn convert_to_spirv(
    ctx: &Context,
    module: &mut Module,
    options: &SpirvOptions,
    print_ir_after_all: bool,
) -> Result<(), LowerError> {
    pointers::lower_pointers_to_spirv(ctx, module, options.native_float_atomics)?;
    math::lower_math_to_opencl(ctx, module)?;
    run_pipeline(
        ctx,
        module,
        "converting to SPIR-V",
        &options.conversion_pipeline(),
        print_ir_after_all,
    )?;
    passes::add_missing_capabilities(ctx, module)
}

/// Stage 3: serializes the spirv.module and returns the SPIR-V words as bytes.
pub fn serialize_spirv(ctx: &Context, module: &mut Module) -> Result<Vec<u8>, LowerError> {
    let initializers = spirv_patch::collect_initializers(module)?;
    let byval = spirv_patch::collect_byval(module);
    run_pipeline(
        ctx,
        module,
        "serializing SPIR-V",
        "builtin.module(gpu-module-to-binary)",
        false,
    )?;
    let binary = passes::binary_object(module)?;
    let binary = spirv_patch::resolve_opencl_std_imports(&binary)?;
    let binary = spirv_patch::write_initializers(&binary, &initializers)?;
    spirv_patch::decorate_byval(&binary, &byval)
}

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
