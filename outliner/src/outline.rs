//! `hipmlir-outline-kernels`: the frontend's kernels (`func.func` marked `hipmlir.kernel`)
//! become `gpu.func ... kernel` inside one `gpu.module`, named by their kernel symbol, with
//! their `hipmlir.*` metadata attached; the device functions and variables they use move into
//! the same `gpu.module`, and each launch becomes a `gpu.launch_func` of its kernel.
//!
//! Like MLIR's KernelOutlining, this pass moves bodies rather than copying them.

use hipmlir_device_image::{
    BYVAL_ATTRIBUTE, HOST_ATTRIBUTE, KERNEL_ARGS_ATTRIBUTE, KERNEL_ARGS_SIZE_ATTRIBUTE,
    KERNEL_ATTRIBUTE, KERNEL_NAME_ATTRIBUTE, KERNEL_UNIT_ATTRIBUTE,
    MAX_THREADS_PER_BLOCK_ATTRIBUTE, NOALIAS_ATTRIBUTE,
};
use hipmlir_ir::rewrite::{
    append_to, apply_patterns, move_before, Outcome, Pattern, PatternRewriter, RewritePatternSet,
};
use hipmlir_ir::OpBuilder;
use melior::ir::attribute::{AttributeLike, StringAttribute, TypeAttribute};
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, OperationMutLike};
use melior::ir::{
    Attribute, Block, BlockRef, Location, Module, OperationRef, Region, RegionLike, Value,
    ValueLike,
};
use melior::Context;
use melior::StringRef;
use mlir_sys::{mlirRegionTakeBody, mlirSymbolRefAttrGet, MlirBlock, MlirOperation};

use crate::OutlineError;

/// The name of the `gpu.module` holding a translation unit's kernels.
pub const GPU_MODULE_NAME: &str = "hipmlir_kernels";

/// Kernel attributes the frontend attaches and the outliner carries onto the gpu.func.
const CARRIED_ATTRIBUTES: &[&str] = &[
    KERNEL_NAME_ATTRIBUTE,
    KERNEL_UNIT_ATTRIBUTE,
    KERNEL_ARGS_ATTRIBUTE,
    KERNEL_ARGS_SIZE_ATTRIBUTE,
    MAX_THREADS_PER_BLOCK_ATTRIBUTE,
    BYVAL_ATTRIBUTE,
    NOALIAS_ATTRIBUTE,
];

/// The pass's state: the module, the gpu.module made for its kernels, and the kernels'
/// symbols in order.
struct Outlining {
    module: MlirOperation,
    gpu_module: MlirOperation,
    gpu_module_block: MlirBlock,
    kernels: Vec<String>,
}

/// Outlines every kernel of `module` into a `gpu.module`; returns the kernels' symbols in order.
pub fn outline_kernels(ctx: &Context, module: &mut Module) -> Result<Vec<String>, OutlineError> {
    let loc = module.as_operation().location();
    module
        .as_operation_mut()
        .set_attribute("gpu.container_module", Attribute::unit(ctx));

    let gpu_module_body = Block::new(&[]);
    let gpu_module_block = gpu_module_body.to_raw();
    let region = Region::new();
    region.append_block(gpu_module_body);
    let gpu_module = OpBuilder::at_end(ctx, &module.body())
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

    let mut state = Outlining {
        module: module.as_operation().to_raw(),
        gpu_module: gpu_module.to_raw(),
        gpu_module_block,
        kernels: Vec::new(),
    };
    let mut patterns = RewritePatternSet::new();
    populate_outlining_patterns(&mut patterns);
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut state)?;
    Ok(state.kernels)
}

/// Everything the frontend put in the module is device code (kernels, device functions, device
/// variables) except host functions: it moves into the gpu.module, in order. Then each launch
/// becomes a launch of the outlined kernel.
fn populate_outlining_patterns(patterns: &mut RewritePatternSet<Outlining, OutlineError>) {
    patterns
        .add(Pattern::any(outline_top_level))
        .next_stage()
        .add(Pattern::new("gpu.launch", replace_launch));
}

fn outline_top_level<'c>(
    rw: &mut PatternRewriter<'c>,
    state: &mut Outlining,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, OutlineError> {
    let top_level = op
        .parent_operation()
        .is_some_and(|p| p.to_raw().ptr == state.module.ptr);
    if !top_level || op.to_raw().ptr == state.gpu_module.ptr || op.has_attribute(HOST_ATTRIBUTE) {
        // Host functions standing for launch sites stay on the host side.
        return Ok(Outcome::NoMatch);
    }
    if op.has_attribute(KERNEL_ATTRIBUTE) {
        let symbol = outline_kernel(rw, op, state.gpu_module_block)?;
        state.kernels.push(symbol);
    } else {
        // A device function or variable: next to the kernels that use it.
        // SAFETY: the gpu.module's block, owned by the module being transformed.
        let target = unsafe { BlockRef::from_raw(state.gpu_module_block) };
        match target.terminator() {
            Some(t) => move_before(&op, &t),
            None => append_to(&op, &target),
        }
    }
    Ok(Outcome::Rewrote)
}

/// A `gpu.launch` (whose body calls a kernel) becomes a `gpu.launch_func` of the outlined
/// kernel, with the same configuration and arguments and the launch's `hipmlir.*` metadata.
fn replace_launch<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut Outlining,
    launch: OperationRef<'c, 'c>,
) -> Result<Outcome, OutlineError> {
    let ctx = rw.ctx;
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
    // SAFETY: live values of the module; the op-builder hands values out unbounded (see
    // hipmlir-ir's builder).
    let value = |v: Value| unsafe { hipmlir_ir::Value::from_raw(v.to_raw()) };
    let config: Vec<hipmlir_ir::Value> = launch.operands().map(value).collect();
    let arguments: Vec<hipmlir_ir::Value> = call.operands().map(value).collect();
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
    let operands: Vec<hipmlir_ir::Value> = config.iter().chain(&arguments).copied().collect();
    OpBuilder::before(ctx, &launch)
        .build("gpu.launch_func", &operands, &[], &attributes, vec![], loc)
        .map_err(|e| OutlineError::at(loc, e))?;
    // The launch has no results.
    rw.erase_op(&launch);
    Ok(Outcome::Rewrote)
}

/// Replaces the kernel `func.func` by a `gpu.func` in the gpu.module block; returns its symbol.
fn outline_kernel<'c>(
    rw: &mut PatternRewriter<'c>,
    func: OperationRef<'c, 'c>,
    gpu_module_block: MlirBlock,
) -> Result<String, OutlineError> {
    let ctx = rw.ctx;
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
    replace_returns(rw, &region, loc)?;

    // SAFETY: the gpu.module block is owned by the module being transformed.
    let target = unsafe { BlockRef::from_raw(gpu_module_block) };
    OpBuilder::at_end(ctx, &target)
        .build("gpu.func", &[], &[], &attributes, vec![region], loc)
        .map_err(|e| OutlineError::at(loc, e))?;
    rw.erase_op(&func);
    Ok(symbol)
}

/// `func.return` → `gpu.return` at the end of every block of a kernel body.
fn replace_returns<'c>(
    rw: &mut PatternRewriter<'c>,
    region: &Region<'c>,
    loc: Location<'c>,
) -> Result<(), OutlineError> {
    let mut block = region.first_block();
    while let Some(b) = block {
        if let Some(term) = b.terminator() {
            if term.name().as_string_ref().as_str() == Ok("func.return") {
                if term.operand_count() != 0 {
                    return Err(OutlineError::at(loc, "a kernel returns a value"));
                }
                OpBuilder::before(rw.ctx, &term)
                    .build("gpu.return", &[], &[], &[], vec![], loc)
                    .map_err(|e| OutlineError::at(loc, e))?;
                rw.erase_op(&term);
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
