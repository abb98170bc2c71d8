//! Kernel outlining: the frontend's kernels (`func.func` marked `hipmlir.kernel`) become
//! `gpu.func ... kernel` inside one `gpu.module`, named by their kernel symbol, with their
//! `hipmlir.*` metadata attached; the device functions they call move into the same `gpu.module`.
//!
//! Like MLIR's KernelOutlining, this pass moves bodies rather than copying them.

use hipmlir_device_image::{
    BYVAL_ATTRIBUTE, HOST_ATTRIBUTE, KERNEL_ARGS_ATTRIBUTE, KERNEL_ARGS_SIZE_ATTRIBUTE,
    KERNEL_ATTRIBUTE, KERNEL_NAME_ATTRIBUTE,
};
use hipmlir_ir::{source_location, OpBuilder, SourceLoc};
use melior::ir::attribute::{AttributeLike, StringAttribute, TypeAttribute};
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, OperationMutLike};
use melior::ir::{Attribute, Block, Location, Module, OperationRef, Region, RegionLike, Value};
use melior::Context;
use melior::StringRef;
use mlir_sys::{
    mlirOperationDestroy, mlirOperationMoveBefore, mlirOperationRemoveFromParent,
    mlirRegionTakeBody, mlirSymbolRefAttrGet,
};

/// The pass's name in a pipeline (dialect-passes registers it with MLIR).
pub const PASS_NAME: &str = "hipmlir-outline-kernels";
/// The pass's one-line summary (`hipmlir --list-passes`).
pub const PASS_SUMMARY: &str = "kernels (func.func marked hipmlir.kernel) become gpu.func in one \
gpu.module with the device code they use; launches become gpu.launch_func";

/// The name of the `gpu.module` holding a translation unit's kernels.
pub const GPU_MODULE_NAME: &str = "hipmlir_kernels";

/// Kernel attributes the frontend attaches and the outliner carries onto the gpu.func.
const CARRIED_ATTRIBUTES: &[&str] = &[
    KERNEL_NAME_ATTRIBUTE,
    KERNEL_ARGS_ATTRIBUTE,
    KERNEL_ARGS_SIZE_ATTRIBUTE,
    BYVAL_ATTRIBUTE,
];

#[derive(Debug, thiserror::Error)]
pub enum OutlineError {
    /// A bug of hipmlir's; `location` is the source position of the operation being outlined.
    #[error("{}internal compiler error in the outliner: {message}", location.as_ref().map(|l| format!("{l}: ")).unwrap_or_default())]
    Internal {
        location: Option<SourceLoc>,
        message: String,
    },
}

impl OutlineError {
    fn at(loc: Location, message: impl std::fmt::Display) -> Self {
        OutlineError::Internal {
            location: source_location(loc),
            message: message.to_string(),
        }
    }
}

/// Outlines every kernel of `module` into a `gpu.module`; returns the kernels' symbols in order.
pub fn outline_kernels(ctx: &Context, module: &mut Module) -> Result<Vec<String>, OutlineError> {
    let loc = module.as_operation().location();
    module
        .as_operation_mut()
        .set_attribute("gpu.container_module", Attribute::unit(ctx));

    // Collect first: the walk must not see the operations it moves. Everything the frontend
    // put in the module is device code: kernels, device functions, device variables.
    let body = module.body();
    let mut functions: Vec<OperationRef> = Vec::new();
    let mut op = body.first_operation();
    while let Some(o) = op {
        functions.push(o);
        op = o.next_in_block();
    }

    let gpu_module_body = Block::new(&[]);
    let gpu_module_block = gpu_module_body.to_raw();
    let region = Region::new();
    region.append_block(gpu_module_body);
    OpBuilder::at_end(ctx, &body)
        .build(
            "gpu.module",
            &[],
            &[],
            &[(
                "sym_name",
                StringAttribute::new(ctx, GPU_MODULE_NAME).into(),
            )],
            vec![region],
            loc,
        )
        .map_err(|e| OutlineError::at(loc, e))?;

    let mut kernels = Vec::new();
    for f in functions {
        if f.has_attribute(HOST_ATTRIBUTE) {
            // A host function standing for launch sites: it stays on the host side.
            continue;
        }
        if f.has_attribute(KERNEL_ATTRIBUTE) {
            kernels.push(outline_kernel(ctx, f, gpu_module_block)?);
        } else {
            // A device function or variable: move it next to the kernels that use it.
            let target = unsafe { melior::ir::BlockRef::from_raw(gpu_module_block) };
            let anchor = target.terminator().map(|t| t.to_raw());
            unsafe {
                mlirOperationRemoveFromParent(f.to_raw());
                match anchor {
                    Some(t) => mlirOperationMoveBefore(f.to_raw(), t),
                    None => {
                        target.append_operation(melior::ir::Operation::from_raw(f.to_raw()));
                    }
                }
            }
        }
    }
    replace_launches(ctx, module)?;
    Ok(kernels)
}

/// Each `gpu.launch` (whose body calls a kernel) becomes a `gpu.launch_func` of the outlined
/// kernel, with the same configuration and arguments and the launch's `hipmlir.*` metadata.
fn replace_launches(ctx: &Context, module: &Module) -> Result<(), OutlineError> {
    let mut launches = Vec::new();
    module
        .as_operation()
        .walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
            if op.name().as_string_ref().as_str() == Ok("gpu.launch") {
                launches.push(op.to_raw());
            }
            melior::ir::operation::WalkResult::Advance
        });
    for raw in launches {
        // SAFETY: a live gpu.launch found by the walk; replaced, then destroyed.
        let launch = unsafe { OperationRef::from_raw(raw) };
        let loc = launch.location();
        // The kernel's flat symbol reference (`@_Z6kernelPf`).
        let kernel = launch
            .attribute(KERNEL_ATTRIBUTE)
            .map_err(|e| OutlineError::at(loc, e))?;
        let call = launch
            .region(0)
            .ok()
            .and_then(|r| r.first_block())
            .and_then(|b| b.first_operation())
            .filter(|o| o.name().as_string_ref().as_str() == Ok("func.call"))
            .ok_or_else(|| OutlineError::at(loc, "a launch without a kernel call"))?;
        let config: Vec<Value> = launch.operands().collect();
        let arguments: Vec<Value> = call.operands().collect();
        let symbol = kernel_symbol(ctx, kernel);
        let segments = melior::ir::attribute::DenseI32ArrayAttribute::new(
            ctx,
            &[0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, arguments.len() as i32, 0],
        );
        let mut attributes = vec![("kernel", symbol), ("operandSegmentSizes", segments.into())];
        for name in CARRIED_ATTRIBUTES {
            if let Ok(a) = launch.attribute(name) {
                attributes.push((name, a));
            }
        }
        let operands: Vec<Value> = config.iter().chain(&arguments).copied().collect();
        OpBuilder::before(ctx, &launch)
            .build("gpu.launch_func", &operands, &[], &attributes, vec![], loc)
            .map_err(|e| OutlineError::at(loc, e))?;
        // SAFETY: the launch has no results and nothing refers to it any more.
        unsafe {
            mlirOperationRemoveFromParent(raw);
            mlirOperationDestroy(raw);
        }
    }
    Ok(())
}

/// Replaces the kernel `func.func` by a `gpu.func` in the gpu.module block; returns its symbol.
fn outline_kernel(
    ctx: &Context,
    func: OperationRef,
    gpu_module_block: mlir_sys::MlirBlock,
) -> Result<String, OutlineError> {
    let loc = func.location();
    let symbol = string_attribute(&func, "sym_name")?;
    let function_type = func
        .attribute("function_type")
        .map_err(|e| OutlineError::at(loc, e))?;
    let function_type =
        TypeAttribute::try_from(function_type).map_err(|e| OutlineError::at(loc, e))?;

    let mut attributes = vec![
        ("sym_name", StringAttribute::new(ctx, &symbol).into()),
        (
            "function_type",
            TypeAttribute::new(function_type.value()).into(),
        ),
        ("gpu.kernel", Attribute::unit(ctx)),
    ];
    for name in CARRIED_ATTRIBUTES {
        if let Ok(a) = func.attribute(name) {
            attributes.push((name, a));
        }
    }

    let region = Region::new();
    let source_region = func.region(0).map_err(|e| OutlineError::at(loc, e))?;
    // SAFETY: both regions are alive; the source region is left empty and erased with `func`.
    unsafe { mlirRegionTakeBody(region.to_raw(), source_region.to_raw()) };
    replace_returns(ctx, &region, loc)?;

    // SAFETY: the gpu.module block is owned by the module being transformed.
    let target = unsafe { melior::ir::BlockRef::from_raw(gpu_module_block) };
    OpBuilder::at_end(ctx, &target)
        .build("gpu.func", &[], &[], &attributes, vec![region], loc)
        .map_err(|e| OutlineError::at(loc, e))?;
    // SAFETY: `func` is detached before it is destroyed, and nothing refers to it any more.
    unsafe {
        mlirOperationRemoveFromParent(func.to_raw());
        mlirOperationDestroy(func.to_raw());
    }
    Ok(symbol)
}

/// `func.return` → `gpu.return` at the end of every block of a kernel body.
fn replace_returns(ctx: &Context, region: &Region, loc: Location) -> Result<(), OutlineError> {
    let mut block = region.first_block();
    while let Some(b) = block {
        if let Some(term) = b.terminator() {
            if term.name().as_string_ref().as_str() == Ok("func.return") {
                let operands: Vec<Value> = term.operands().collect();
                if !operands.is_empty() {
                    return Err(OutlineError::at(loc, "a kernel returns a value"));
                }
                OpBuilder::before(ctx, &term)
                    .build("gpu.return", &[], &[], &[], vec![], loc)
                    .map_err(|e| OutlineError::at(loc, e))?;
                // SAFETY: the old terminator is detached, then destroyed; it has no results.
                unsafe {
                    mlirOperationRemoveFromParent(term.to_raw());
                    mlirOperationDestroy(term.to_raw());
                }
            }
        }
        block = b.next_in_region();
    }
    Ok(())
}

fn string_attribute(op: &OperationRef, name: &str) -> Result<String, OutlineError> {
    let loc = op.location();
    let a = op
        .attribute(name)
        .map_err(|e| OutlineError::at(loc, format!("{name}: {e}")))?;
    let s = StringAttribute::try_from(a).map_err(|e| OutlineError::at(loc, e))?;
    Ok(s.value().to_string())
}

/// `@<gpu module>::@<kernel>`: the nested symbol reference a gpu.launch_func names, from the
/// kernel's flat one.
fn kernel_symbol<'c>(ctx: &'c Context, kernel: Attribute<'c>) -> Attribute<'c> {
    let leaf = kernel.to_raw();
    // SAFETY: a plain constructor call; the string and the leaf attribute outlive it.
    unsafe {
        Attribute::from_raw(mlirSymbolRefAttrGet(
            ctx.to_raw(),
            StringRef::new(GPU_MODULE_NAME).to_raw(),
            1,
            &leaf,
        ))
    }
}
