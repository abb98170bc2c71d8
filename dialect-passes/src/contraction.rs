//! `hipmlir-contract-multiply-add`: a float multiply feeding an add or a subtract, both marked
//! contractible (`fastmath<contract>`, what the frontend writes where hipcc's default
//! `-ffp-contract=fast-honor-pragmas` allows it), becomes one `math.fma`.
//!
//! LLVM's backends fuse such pairs themselves (NVPTX does); SPIR-V has no flag that carries
//! the permission, so without this pass the OpenCL device computes `a * x + y` with two
//! roundings and two instructions where clang's OpenCL C (and HIP) build has one FMA.
//!
//! - `a * b + c`, `c + a * b` → `fma(a, b, c)`;
//! - `a * b - c` → `fma(a, b, -c)`; `c - a * b` → `fma(-a, b, c)`.
//!
//! Only a multiply with no other use is fused, so that no product is computed twice.

use hipmlir_ir::rewrite::{apply_patterns, Outcome, Pattern, PatternRewriter, RewritePatternSet};
use melior::ir::operation::OperationLike;
use melior::ir::{Attribute, Module, OperationRef, ValueLike};
use melior::Context;
use mlir_sys::{mlirOpResultGetOwner, mlirValueIsAOpResult, MlirValue};

use crate::builder::{has_one_use, value, Rewriter};
use crate::LowerError;

const MULTIPLY: &str = "arith.mulf";
const FMA: &str = "math.fma";
const NEGATE: &str = "arith.negf";

/// The operations a multiply fuses into, and whether they subtract.
const COMBINERS: &[(&str, bool)] = &[("arith.addf", false), ("arith.subf", true)];

pub fn contract_multiply_add(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns.extend(
        COMBINERS
            .iter()
            .map(|(op, _)| Pattern::new(op, fuse_multiply)),
    );
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut ())
}

/// Whether `op`'s fast-math flags allow contraction (`contract`, or `fast`, which holds it).
fn contractible(op: &OperationRef) -> bool {
    op.attribute("fastmath").is_ok_and(|flags| {
        let text = flags.to_string();
        text.contains("contract") || text.contains("fast>")
    })
}

/// The contractible multiply defining `v` and used only there, if there is one.
fn fusable_multiply<'c>(rw: &PatternRewriter<'c>, v: MlirValue) -> Option<OperationRef<'c, 'c>> {
    // SAFETY: structural queries on a live value and its uses.
    unsafe {
        if !mlirValueIsAOpResult(v) {
            return None;
        }
        if !has_one_use(v) {
            return None;
        }
        let op = OperationRef::from_raw(mlirOpResultGetOwner(v));
        let is_multiply = op.name().as_string_ref().as_str() == Ok(MULTIPLY);
        (is_multiply && contractible(&op) && !rw.is_erased(op.to_raw())).then_some(op)
    }
}

/// `add(mul(a, b), c)` and its kin (see the module comment) become `math.fma`.
fn fuse_multiply<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut (),
    combine: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let name = combine.name();
    let name = name.as_string_ref().as_str().unwrap_or("");
    let Some(&(_, subtracts)) = COMBINERS.iter().find(|(n, _)| *n == name) else {
        return Ok(Outcome::NoMatch);
    };
    if !contractible(&combine) {
        return Ok(Outcome::NoMatch);
    }
    let at = Rewriter::before(rw.ctx, &combine);
    let lhs = combine.operand(0).map_err(|e| at.error(e))?.to_raw();
    let rhs = combine.operand(1).map_err(|e| at.error(e))?.to_raw();
    // The product on the left is preferred (`a * b + c * d` fuses the first).
    let (multiply, other, product_on_left) = match fusable_multiply(rw, lhs) {
        Some(m) => (m, rhs, true),
        None => match fusable_multiply(rw, rhs) {
            Some(m) => (m, lhs, false),
            None => return Ok(Outcome::NoMatch),
        },
    };
    let a = multiply.operand(0).map_err(|e| at.error(e))?.to_raw();
    let b = multiply.operand(1).map_err(|e| at.error(e))?.to_raw();
    let ty = combine.result(0).map_err(|e| at.error(e))?.r#type();
    let flags: Vec<(&str, Attribute)> = combine
        .attribute("fastmath")
        .ok()
        .map(|f| ("fastmath", f))
        .into_iter()
        .collect();
    let negate = |v: MlirValue| at.one(NEGATE, &[v], ty, &flags);
    let (a, c) = match (subtracts, product_on_left) {
        (false, _) => (a, other),
        // a * b - c
        (true, true) => (a, negate(other)?),
        // c - a * b
        (true, false) => (negate(a)?, other),
    };
    let fused = at.one(FMA, &[a, b, c], ty, &flags)?;
    rw.replace_op(&combine, &[value(fused)]);
    rw.erase_op(&multiply);
    Ok(Outcome::Rewrote)
}
