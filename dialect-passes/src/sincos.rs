//! `hipmlir-fuse-sincos`: a sine and a cosine of the same value in one block become one
//! `math.sincos`, which computes both with one argument reduction (NVPTX: libdevice's
//! `__nv_sincos`, as nvcc's compiler pairs `sin` and `cos`). Complex arithmetic (`exp(i phi)`,
//! FFT twiddles, rotations) computes both for each angle; apart, they cost twice the reduction,
//! which is most of a double-precision sine.

use hipmlir_ir::rewrite::{apply_patterns, Outcome, Pattern, PatternRewriter, RewritePatternSet};
use melior::ir::operation::OperationLike;
use melior::ir::{Attribute, Module, OperationRef, ValueLike};
use melior::Context;
use mlir_sys::{
    mlirOpOperandGetNextUse, mlirOpOperandGetOwner, mlirOpOperandIsNull, mlirOperationGetBlock,
    mlirOperationIsBeforeInBlock, mlirValueGetFirstUse, MlirOperation,
};

use crate::builder::{value, Rewriter};
use crate::LowerError;

pub fn fuse_sincos(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    populate_fuse_sincos_patterns(&mut patterns);
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut ())
}

fn populate_fuse_sincos_patterns(patterns: &mut RewritePatternSet<(), LowerError>) {
    patterns.add(Pattern::new("math.sin", fuse_with_cosine));
}

/// `math.sin %x` and a `math.cos %x` of the same block (and the same fast-math flags) become
/// `%s, %c = math.sincos %x`, placed where the first of the two was.
fn fuse_with_cosine<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut (),
    sine: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let rewriter = Rewriter::before(rw.ctx, &sine);
    let angle = sine.operand(0).map_err(|e| rewriter.error(e))?;
    let flags = sine.attribute("fastmath").ok();
    let Some(cosine) = cosine_of(rw, &sine, angle.to_raw(), flags) else {
        return Ok(Outcome::NoMatch);
    };
    // SAFETY: two live operations of one block.
    let sine_first = unsafe { mlirOperationIsBeforeInBlock(sine.to_raw(), cosine.to_raw()) };
    let first = if sine_first { sine } else { cosine };
    let result_type = sine.result(0).map_err(|e| rewriter.error(e))?.r#type();
    let attributes: Vec<(&str, Attribute)> = flags.map(|f| ("fastmath", f)).into_iter().collect();
    let both = Rewriter::before(rw.ctx, &first).op(
        "math.sincos",
        &[angle.to_raw()],
        &[result_type, result_type],
        &attributes,
    )?;
    rw.replace_op(&sine, &[value(both[0])]);
    rw.replace_op(&cosine, &[value(both[1])]);
    Ok(Outcome::Rewrote)
}

/// A `math.cos` of `angle` in the sine's block, not yet rewritten, with the sine's flags.
fn cosine_of<'c>(
    rw: &PatternRewriter<'c>,
    sine: &OperationRef<'c, 'c>,
    angle: mlir_sys::MlirValue,
    flags: Option<Attribute<'c>>,
) -> Option<OperationRef<'c, 'c>> {
    // SAFETY: walking the use list of a live value; each owner is a live operation.
    unsafe {
        let block = mlirOperationGetBlock(sine.to_raw());
        let mut operand = mlirValueGetFirstUse(angle);
        while !mlirOpOperandIsNull(operand) {
            let user: MlirOperation = mlirOpOperandGetOwner(operand);
            operand = mlirOpOperandGetNextUse(operand);
            let op = OperationRef::from_raw(user);
            let is_cosine = op.name().as_string_ref().as_str() == Ok("math.cos");
            if is_cosine
                && mlirOperationGetBlock(user).ptr == block.ptr
                && !rw.is_erased(user)
                && op.attribute("fastmath").ok() == flags
            {
                return Some(op);
            }
        }
    }
    None
}
