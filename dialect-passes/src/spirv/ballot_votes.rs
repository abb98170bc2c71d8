//! `hipmlir-votes-as-ballots`: a subgroup vote (`OpGroupNonUniformAny`, the memory checker's)
//! becomes a ballot of the same condition tested for a set bit, which means the same: some
//! invocation of the subgroup that reached it holds the condition.
//!
//! Intel's OpenCL CPU compiler, which runs a subgroup's invocations as vector lanes, tests a
//! vote's lanes one at a time, each with its own branch: sixteen of them per vote on AVX-512,
//! which made a checked `vector_add` three to four times slower than an unchecked one. A
//! ballot is the lanes' mask, which it moves to a register with one instruction and tests with
//! one more.

use hipmlir_ir::rewrite::{apply_patterns, Outcome, Pattern, PatternRewriter, RewritePatternSet};
use melior::ir::operation::OperationLike;
use melior::ir::r#type::IntegerType;
use melior::ir::{Module, OperationRef, Type, ValueLike};
use melior::Context;

use crate::builder::{value, Rewriter};
use crate::spirv::builder::{Binary, Compare};
use crate::LowerError;

pub fn votes_as_ballots(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns.add(Pattern::new("spirv.GroupNonUniformAny", ballot));
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut ())
}

fn ballot<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut (),
    vote: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    // (The op's verifier allows the subgroup's scope only, the ballot's.)
    let ctx = rw.ctx;
    let b = Rewriter::before(ctx, &vote);
    let condition = vote.operand(0).map_err(|e| b.error(e))?.to_raw();
    let mask = b.subgroup_ballot(condition)?;
    let i32t: Type = IntegerType::new(ctx, 32).into();
    let mut bits = b.composite_extract(mask, 0, i32t)?;
    for word in 1..4 {
        let next = b.composite_extract(mask, word, i32t)?;
        bits = b.binary(Binary::BitwiseOr, bits, next)?;
    }
    let any = b.compare(Compare::INotEqual, bits, b.int_constant(i32t, 0)?)?;
    rw.replace_op(&vote, &[value(any)]);
    Ok(Outcome::Rewrote)
}
