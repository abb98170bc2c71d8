//! `hipmlir-unvote-scalar-kernels`: in the functions a kernel reaches whose vector type hint is
//! a scalar (`VecTypeHint` of one component, as `hipmlir-hint-scalar-kernels` gives), the
//! memory checker's subgroup votes become each work-item's own condition.
//!
//! Intel's OpenCL CPU compiler runs such a kernel's work-items one at a time and emulates its
//! subgroups, and that emulation gives wrong votes under conditions that differ between
//! work-items: lanes that did not reach the vote get a result, and ones that did get another
//! lane's (an OpenCL C kernel voting under `if (i % 3 == 0)` reads true in every lane of
//! subgroups where no lane voted true). A checked access whose vote wrongly said that no
//! lane failed was skipped unreported: virtual_base_construction.hip built with
//! `-fsanitize=address` lost its objects' stores. The vote only serves kernels run as vector
//! lanes, so a lane's own condition costs such a kernel nothing. The program's own votes are
//! not the checker's (`memcheck::VOTE_ATTRIBUTE`) and keep their meaning; the checker's votes
//! elsewhere stay, unmarked.

use std::collections::HashSet;

use hipmlir_ir::rewrite::{
    apply_patterns, enclosing, Outcome, Pattern, PatternRewriter, RewritePatternSet,
};
use melior::ir::attribute::IntegerAttribute;
use melior::ir::operation::{OperationLike, OperationMutLike, OperationRefMut};
use melior::ir::ValueLike;
use melior::ir::{Module, OperationRef};
use melior::Context;

use crate::builder::value;
use crate::memcheck::VOTE_ATTRIBUTE;
use crate::spirv::call_graph::CallGraph;
use crate::spirv::ir::execution_mode_attr;
use crate::spirv::scalar_kernels::is_scalar_hint;
use crate::symbols::{array_elements, symbol};
use crate::LowerError;

/// What the pass learns before it changes anything.
#[derive(Default)]
struct Kernels {
    calls: CallGraph,
    /// The kernels hinted to compute on scalars.
    scalar: Vec<String>,
    /// The functions those kernels reach (found at the first vote).
    reached: Option<HashSet<String>>,
}

pub fn unvote_scalar_kernels(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns
        .add(Pattern::new("spirv.func", note_function))
        .add(Pattern::new("spirv.ExecutionMode", note_execution_mode))
        .next_stage()
        .add(Pattern::new("spirv.GroupNonUniformAny", unvote));
    apply_patterns(
        ctx,
        &module.as_operation(),
        &patterns,
        &mut Kernels::default(),
    )
}

fn note_function<'c>(
    _: &mut PatternRewriter<'c>,
    kernels: &mut Kernels,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    kernels.calls.note(&op);
    Ok(Outcome::NoMatch)
}

/// Whether `op` (a spirv.ExecutionMode) hints that its function computes on scalars: a
/// `VecTypeHint` whose type has one component.
fn hints_scalar(rw: &PatternRewriter, op: &OperationRef) -> bool {
    let vec_type_hint = execution_mode_attr(rw.ctx, spirv::ExecutionMode::VecTypeHint);
    if op.attribute("execution_mode").ok() != Some(vec_type_hint) {
        return false;
    }
    let hint = op
        .attribute("values")
        .ok()
        .and_then(array_elements)
        .and_then(|values| values.first().copied())
        .and_then(|hint| IntegerAttribute::try_from(hint).ok());
    hint.is_some_and(|hint| is_scalar_hint(hint.value()))
}

fn note_execution_mode<'c>(
    rw: &mut PatternRewriter<'c>,
    kernels: &mut Kernels,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    if hints_scalar(rw, &op) {
        kernels.scalar.extend(symbol(&op, "fn"));
    }
    Ok(Outcome::NoMatch)
}

fn unvote<'c>(
    rw: &mut PatternRewriter<'c>,
    kernels: &mut Kernels,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    if !op.has_attribute(VOTE_ATTRIBUTE) {
        return Ok(Outcome::NoMatch);
    }
    let Kernels {
        calls,
        scalar,
        reached,
    } = kernels;
    let reached = reached.get_or_insert_with(|| {
        scalar
            .iter()
            .flat_map(|kernel| calls.reached(kernel))
            .collect()
    });
    let in_scalar_kernel = enclosing(&op, "spirv.func")
        .and_then(|function| symbol(&function, "sym_name"))
        .is_some_and(|function| reached.contains(&function));
    if !in_scalar_kernel {
        // Kept: without its mark, which SPIR-V's serializer would take for a decoration.
        // SAFETY: the live vote; removing an attribute keeps it alive.
        let mut op = unsafe { OperationRefMut::from_raw(op.to_raw()) };
        op.remove_attribute(VOTE_ATTRIBUTE)
            .map_err(|e| LowerError::bug(format!("unmarking a subgroup vote: {e}")))?;
        return Ok(Outcome::Rewrote);
    }
    let condition = op
        .operand(0)
        .map_err(|e| LowerError::bug(format!("a subgroup vote without its condition: {e}")))?;
    rw.replace_op(&op, &[value(condition.to_raw())]);
    Ok(Outcome::Rewrote)
}
