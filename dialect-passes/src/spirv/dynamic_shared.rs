//! `lower-dynamic-shared`: dynamic shared memory (`extern __shared__`) becomes a
//! workgroup-pointer argument of each kernel that uses it, after its listed ones, sized at launch
//! (`clSetKernelArg(index, bytes, NULL)`), as chipStar's HipDynMem does. The argument is added to
//! the kernel's `hipmlir.kernel_args` with the workgroup address space and no bytes in the
//! packed argument block.

use std::collections::HashMap;

use hipmlir_device_image::{KERNEL_ARGS_ATTRIBUTE, KERNEL_ARGS_SIZE_ATTRIBUTE};
use hipmlir_ir::rewrite::{
    apply_patterns, enclosing, Outcome, Pattern, PatternRewriter, RewritePatternSet,
};
use melior::ir::attribute::{
    ArrayAttribute, BoolAttribute, DictionaryAttribute, IntegerAttribute, StringAttribute,
};
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, OperationMutLike, OperationRefMut};
use melior::ir::r#type::IntegerType;
use melior::ir::{
    Attribute, Identifier, Location, Module, OperationRef, RegionLike, Type, ValueLike,
};
use melior::Context;
use mlir_sys::MlirValue;

use crate::builder::{update_function_type, value};
use crate::symbols::symbol;
use crate::LowerError;

/// The frontend's placeholder global.
const PLACEHOLDER: &str = hipmlir_device_image::DYNAMIC_SHARED_SYMBOL;
/// It runs after the address spaces are renumbered for SPIR-V.
const WORKGROUP: u32 = crate::address_space_map::spirv::WORKGROUP;

fn err(e: impl std::fmt::Display) -> LowerError {
    LowerError::bug(format!("dynamic shared memory: {e}"))
}

/// Each kernel's new argument (by the kernel's address), once it has one; whether a use
/// outside every kernel keeps the placeholder.
#[derive(Default)]
struct Arguments {
    by_kernel: HashMap<usize, MlirValue>,
    kept: bool,
}

pub fn lower_dynamic_shared(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns
        .add(Pattern::new("llvm.mlir.addressof", replace_placeholder_use))
        .next_stage()
        .add(Pattern::new("llvm.mlir.global", erase_placeholder));
    apply_patterns(
        ctx,
        &module.as_operation(),
        &patterns,
        &mut Arguments::default(),
    )
}

/// The placeholder's address in a kernel is the kernel's trailing argument, added on its
/// first use. A use in a function inlining left (a recursive one) stays: the SPIR-V pipeline
/// reports it naming the cycle (`recursive_calls`), after the stage whose metadata a build for
/// NVIDIA targets alone reads.
fn replace_placeholder_use<'c>(
    rw: &mut PatternRewriter<'c>,
    arguments: &mut Arguments,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    if symbol(&op, "global_name").as_deref() != Some(PLACEHOLDER) {
        return Ok(Outcome::NoMatch);
    }
    let Some(kernel) = enclosing(&op, "gpu.func").filter(|f| f.has_attribute("gpu.kernel")) else {
        arguments.kept = true;
        return Ok(Outcome::NoMatch);
    };
    let key = kernel.to_raw().ptr as usize;
    let argument = match arguments.by_kernel.get(&key) {
        Some(argument) => *argument,
        None => {
            let argument = add_argument(rw.ctx, &kernel)?;
            arguments.by_kernel.insert(key, argument);
            argument
        }
    };
    rw.replace_op(&op, &[value(argument)]);
    Ok(Outcome::Rewrote)
}

/// The placeholder itself, once every use is replaced.
fn erase_placeholder<'c>(
    rw: &mut PatternRewriter<'c>,
    arguments: &mut Arguments,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    if arguments.kept || symbol(&op, "sym_name").as_deref() != Some(PLACEHOLDER) {
        return Ok(Outcome::NoMatch);
    }
    rw.erase_op(&op);
    Ok(Outcome::Rewrote)
}

/// Adds the workgroup-pointer argument to `kernel` and to its metadata; returns it.
fn add_argument(ctx: &Context, kernel: &OperationRef) -> Result<MlirValue, LowerError> {
    // SAFETY: the live kernel; only its attributes and entry block change.
    let mut op = unsafe { OperationRefMut::from_raw(kernel.to_raw()) };
    let loc: Location = op.location();
    let ptr_type: Type = melior::dialect::llvm::r#type::pointer(ctx, WORKGROUP);
    let entry = op
        .region(0)
        .map_err(err)?
        .first_block()
        .ok_or_else(|| err("empty kernel"))?;
    // After the listed arguments, before the hidden ones that follow them (the memory
    // checker's extents): the argument joins the list.
    let args = op.attribute(KERNEL_ARGS_ATTRIBUTE).map_err(err)?;
    let mut elements = crate::symbols::array_elements(args).unwrap_or_default();
    let arg = entry
        .insert_argument(elements.len(), ptr_type, loc)
        .to_raw();
    update_function_type(ctx, kernel)?;

    // The metadata gains the argument, after the packed block (it has no bytes there).
    let size = IntegerAttribute::try_from(op.attribute(KERNEL_ARGS_SIZE_ATTRIBUTE).map_err(err)?)
        .map_err(err)?
        .value();
    let i64t: Type = IntegerType::new(ctx, 64).into();
    let int = |v: i64| -> Attribute { IntegerAttribute::new(i64t, v).into() };
    let entry_attr: Attribute = DictionaryAttribute::new(
        ctx,
        &[
            (
                Identifier::new(ctx, "name"),
                StringAttribute::new(ctx, PLACEHOLDER).into(),
            ),
            (
                Identifier::new(ctx, "type"),
                StringAttribute::new(ctx, "char[]").into(),
            ),
            (Identifier::new(ctx, "offset"), int(size)),
            (Identifier::new(ctx, "size"), int(0)),
            (Identifier::new(ctx, "align"), int(16)),
            (
                Identifier::new(ctx, "is_pointer"),
                BoolAttribute::new(ctx, true).into(),
            ),
            (
                Identifier::new(ctx, "addr_space"),
                StringAttribute::new(ctx, "workgroup").into(),
            ),
        ],
    )
    .into();
    // (hipmlir.kernel_args is an array attribute: the frontend writes it.)
    elements.push(entry_attr);
    op.set_attribute(
        KERNEL_ARGS_ATTRIBUTE,
        ArrayAttribute::new(ctx, &elements).into(),
    );
    Ok(arg)
}
