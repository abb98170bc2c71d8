//! From the frontend's MLIR to a SPIR-V binary, in-process.
//!
//! hipmlir's transformations are MLIR passes (`registry`), run with MLIR's upstream passes in
//! one pipeline per target (`pipeline::spirv_pipeline`): device functions inlined, kernels
//! outlined into a gpu.module (stage `outlined`), HIP semantics lowered (stage `lowered`), the
//! gpu.module converted to a spirv.module (stage `spirv`). `serialize_spirv` then turns the
//! spirv.module into SPIR-V words. Before the pipeline, `link_modules` puts the frontend modules
//! of several sources together (the device link).

mod address_space_map;
mod address_spaces;
mod atomics;
mod builder;
mod clocks;
mod context;
mod device_link;
mod dynamic_shared;
mod function_pointers;
mod initializers;
mod linear_blocks;
mod math;
mod metadata;
mod nvptx;
mod nvptx_helpers;
mod pass_times;
mod passes;
mod pipeline;
mod pointers;
mod registry;
mod spirv_ir;
mod spirv_patch;
mod traps;

pub use context::{
    capture_diagnostics, new_context, new_context_with_all_passes, prepare_process, PendingContext,
};
pub use device_link::{link_modules, LinkUnit, Linked};
pub use metadata::{kernel_metadata, linear_block_kernels};
pub use pass_times::{record_pass_times, take_pass_times};
pub use passes::{uses_float_atomic_add, SpirvOptions, DEFAULT_SPIRV_CAPABILITIES};
pub use pipeline::{
    describe_passes, nvptx_pipeline, spirv_pipeline, stage_pass, Element, NvptxOptions, Pipeline,
    STAGES,
};
pub use registry::{PassInfo, PASSES};

use melior::ir::{Location, Module};
use melior::Context;

#[derive(Debug, thiserror::Error)]
pub enum LowerError {
    /// A construct of the program that hipmlir cannot compile, at its source location.
    #[error("{location}: error: unsupported construct in device code: {message}")]
    Unsupported { location: String, message: String },
    /// A pass failed; `stage` says which (`running convert-gpu-to-spirv`), `message` holds
    /// MLIR's diagnostics.
    #[error("{stage}: {message}")]
    Pass { stage: String, message: String },
    /// A pass pipeline that does not parse, or names a pass nobody registered.
    #[error("{0}")]
    Pipeline(String),
    /// Symbols that do not link (a clang-style diagnostic).
    #[error("{0}")]
    Link(String),
    /// A bug of hipmlir's: `location` is the source location (`file:line:col`) of the
    /// operation being lowered, None where no operation is to blame.
    #[error("{}internal compiler error: {message}", location.as_ref().map(|l| format!("{l}: ")).unwrap_or_default())]
    Internal {
        location: Option<String>,
        message: String,
    },
}

impl LowerError {
    /// An internal error at the operation whose location is `loc`.
    pub(crate) fn internal(loc: Location, message: impl std::fmt::Display) -> Self {
        LowerError::Internal {
            location: source_location(loc),
            message: message.to_string(),
        }
    }

    /// An internal error of the module as a whole.
    pub(crate) fn bug(message: impl std::fmt::Display) -> Self {
        LowerError::Internal {
            location: None,
            message: message.to_string(),
        }
    }
}

/// `file:line:col` of the first file location in `loc` (see [`hipmlir_ir::source_location`]),
/// None for a location that holds none.
pub(crate) fn source_location(loc: Location) -> Option<String> {
    hipmlir_ir::source_location(loc).map(|l| l.to_string())
}

/// [`source_location`], or `<unknown>` for a location that holds no file location.
pub(crate) fn source_location_or_unknown(loc: Location) -> String {
    source_location(loc).unwrap_or_else(|| "<unknown>".to_string())
}

/// After the pipeline: serializes the spirv.module and returns the SPIR-V words as bytes.
pub fn serialize_spirv(ctx: &Context, module: &mut Module) -> Result<Vec<u8>, LowerError> {
    let zero_initialized = spirv_patch::collect_zero_initialized(module)?;
    let parameters = spirv_patch::collect_parameter_decorations(module);
    Pipeline::parse("gpu-module-to-binary")?.run(ctx, module, false)?;
    let binary = passes::binary_object(module)?;
    let binary = spirv_patch::resolve_imports(&binary)?;
    let binary = spirv_patch::write_zero_initializers(&binary, &zero_initialized)?;
    spirv_patch::decorate_parameters(&binary, &parameters)
}

/// After the NVPTX pipeline: translates the gpu.module through LLVM's NVPTX backend (libdevice
/// linked where the target names it) and returns the PTX text, NUL-terminated as
/// `cuModuleLoadData` takes it. A function the PTX still declares but does not define (a
/// libdevice function when libdevice was not found) is an error here, not at the JIT link.
pub fn serialize_ptx(ctx: &Context, module: &mut Module) -> Result<Vec<u8>, LowerError> {
    Pipeline::parse("gpu-module-to-binary{format=isa}")?.run(ctx, module, false)?;
    let ptx = passes::binary_object(module)?;
    let text = String::from_utf8_lossy(&ptx);
    // Functions the CUDA driver provides at the JIT link.
    const DRIVER_FUNCTIONS: &[&str] = &["vprintf"];
    let missing: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix(".extern .func"))
        .filter_map(|rest| {
            // `.extern .func (.param .b32 func_retval0) __nv_sinf(` or `.extern .func name(`.
            let rest = rest.trim_start();
            let rest = if rest.starts_with('(') {
                rest.split_once(')').map(|(_, r)| r.trim_start())?
            } else {
                rest
            };
            rest.split(|c: char| c == '(' || c.is_whitespace() || c == ';')
                .next()
        })
        .filter(|name| !name.is_empty() && !DRIVER_FUNCTIONS.contains(name))
        .collect();
    if !missing.is_empty() {
        let libdevice = missing.iter().any(|n| n.starts_with("__nv_"));
        return Err(LowerError::Link(format!(
            "hipmlir: error: the PTX kernels call {} but nothing defines {}{}",
            missing.join(", "),
            if missing.len() == 1 { "it" } else { "them" },
            if libdevice {
                " (libdevice's math functions: install libdevice with scripts/setup.sh or \
                     name it with HIPMLIR_LIBDEVICE)"
            } else {
                ""
            }
        )));
    }
    let mut bytes = ptx;
    if bytes.last() != Some(&0) {
        bytes.push(0);
    }
    Ok(bytes)
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
