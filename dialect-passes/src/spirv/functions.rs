//! `hipmlir-lower-functions-to-spirv`: the functions with a body that inlining leaves (the
//! compiler's own helpers, such as the memory checker's slow path, and the program's recursive
//! functions: every other device function is inlined) become `spirv.func`s, their calls
//! `spirv.FunctionCall`s (a recursive call keeps its `hipmlir.recursive_call` mark). MLIR's
//! GPU-to-SPIR-V conversion converts only kernels; it converts the bodies' operations with the
//! kernels'.
//!
//! The device compiler may inline them (FunctionControl None), all but the memory checker's
//! slow path for kernels with many checks (`memcheck::SLOW_PATH_NOT_INLINED`, DontInline):
//! inlined at each of the hundreds of checks a kernel may have, its table search and report
//! made a kernel Intel's CPU compiler took minutes to build, or did not finish building (its
//! time grew faster than the number of checks). (DontInline once crashed that compiler in
//! simplifycfg on tests/programs/linked_structures' build_tree: the work-item ids each call
//! passes were read in the branch that calls; they are read at the kernel's entry now.) A call
//! that is all a branch holds still keeps that branch a real one there, where the same code
//! written inline became masked code run on every iteration.

use hipmlir_ir::rewrite::{apply_patterns, Outcome, Pattern, PatternRewriter, RewritePatternSet};
use melior::ir::attribute::{FlatSymbolRefAttribute, StringAttribute};
use melior::ir::operation::OperationLike;
use melior::ir::{Attribute, Module, OperationRef, Region, RegionLike, Type, ValueLike};
use melior::Context;
use mlir_sys::{mlirRegionTakeBody, MlirValue};

use crate::builder::Rewriter;
use crate::spirv::ir as spirv_ir;
use crate::spirv::recursive_calls::RECURSIVE_CALL_ATTRIBUTE;
use crate::symbols::symbol;
use crate::LowerError;

pub fn lower_functions_to_spirv(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns
        .add(Pattern::new("func.return", lower_return))
        .add(Pattern::new("func.call", lower_call))
        .next_stage()
        .add(Pattern::new("func.func", lower_function));
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut ())
}

fn has_body(function: &OperationRef) -> bool {
    function.region(0).is_ok_and(|r| r.first_block().is_some())
}

/// The function `op` is in or calls, when it is one with a body.
fn defined<'c>(op: &OperationRef<'c, 'c>, callee: &str) -> bool {
    let Some(module) = hipmlir_ir::rewrite::enclosing(op, "gpu.module") else {
        return false;
    };
    let mut found = false;
    if let Some(body) = module.region(0).ok().and_then(|r| r.first_block()) {
        let mut next = melior::ir::block::BlockLike::first_operation(&body);
        while let Some(o) = next {
            if o.name().as_string_ref().as_str() == Ok("func.func")
                && symbol(&o, "sym_name").as_deref() == Some(callee)
            {
                found = has_body(&o);
                break;
            }
            next = o.next_in_block();
        }
    }
    found
}

fn lower_return<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut (),
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let operands: Vec<MlirValue> = op.operands().map(|v| v.to_raw()).collect();
    let name = match operands.len() {
        0 => "spirv.Return",
        1 => "spirv.ReturnValue",
        _ => return Err(LowerError::bug("a helper function with several results")),
    };
    Rewriter::before(rw.ctx, &op).op(name, &operands, &[], &[])?;
    rw.erase_op(&op);
    Ok(Outcome::Rewrote)
}

fn lower_call<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut (),
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let Some(callee) = symbol(&op, "callee") else {
        return Ok(Outcome::NoMatch);
    };
    if !defined(&op, &callee) {
        return Ok(Outcome::NoMatch);
    }
    let ctx = rw.ctx;
    let operands: Vec<MlirValue> = op.operands().map(|v| v.to_raw()).collect();
    let results: Vec<Type> = op.results().map(|r| r.r#type()).collect();
    let mut attributes = vec![("callee", FlatSymbolRefAttribute::new(ctx, &callee).into())];
    // A recursive call keeps its mark for the serialized module's patch.
    if op.has_attribute(RECURSIVE_CALL_ATTRIBUTE) {
        attributes.push((RECURSIVE_CALL_ATTRIBUTE, Attribute::unit(ctx)));
    }
    let new =
        Rewriter::before(ctx, &op).op("spirv.FunctionCall", &operands, &results, &attributes)?;
    let replacements: Vec<melior::ir::Value> = new
        .iter()
        // SAFETY: the new call's results, live.
        .map(|v| unsafe { melior::ir::Value::from_raw(*v) })
        .collect();
    // No results: replacing is erasing.
    rw.replace_op(&op, &replacements);
    Ok(Outcome::Rewrote)
}

fn lower_function<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut (),
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    if !has_body(&op) {
        return Ok(Outcome::NoMatch);
    }
    let ctx = rw.ctx;
    let at = |e: String| LowerError::internal(op.location(), e);
    let name = symbol(&op, "sym_name").ok_or_else(|| at("a function without a name".into()))?;
    let function_type = op
        .attribute("function_type")
        .map_err(|e| at(e.to_string()))?;
    let control = match op.has_attribute(crate::builder::NO_INLINE_ATTRIBUTE) {
        true => spirv_ir::FUNCTION_CONTROL_DONT_INLINE,
        false => spirv_ir::FUNCTION_CONTROL_NONE,
    };
    let region = Region::new();
    let source = op.region(0).map_err(|e| at(e.to_string()))?;
    // SAFETY: both regions are alive; the source is left empty and erased with `op`.
    unsafe { mlirRegionTakeBody(region.to_raw(), source.to_raw()) };
    Rewriter::before(ctx, &op).generic(
        "spirv.func",
        &[],
        &[],
        &[
            ("sym_name", StringAttribute::new(ctx, &name).into()),
            ("function_type", function_type),
            (
                "function_control",
                spirv_ir::function_control_attr(ctx, control),
            ),
        ],
        vec![region],
        &[],
    )?;
    rw.erase_op(&op);
    Ok(Outcome::Rewrote)
}
