//! `hipmlir-widen-work-item-ids`: a 64-bit extension of a 32-bit work-item id
//! (`(size_t)threadIdx.x`, `sdata[tid]` with `unsigned tid = threadIdx.x`) becomes the id's
//! own 64-bit value.
//!
//! HIP's ids are 32-bit, so the frontend truncates the 64-bit id (`arith.index_castui`) and an
//! array subscript extends it again. The value is the same: every id is below 2^32, and those
//! bounded by the work-group size (`threadIdx`, `blockDim`) below 2^31, so the signed extension
//! is exact too. The round trip hides from a vectorizer that the local id is consecutive
//! across work-items: Intel's OpenCL CPU runtime scatters `tile[threadIdx.y][threadIdx.x] = v`
//! (zext of trunc) lane by lane, and stores the 64-bit id's form in one vector store.

use hipmlir_ir::rewrite::{apply_patterns, Outcome, Pattern, PatternRewriter, RewritePatternSet};
use melior::ir::operation::OperationLike;
use melior::ir::r#type::IntegerType;
use melior::ir::{Module, OperationRef, ValueLike};
use melior::Context;

use crate::builder::{definition, value, Rewriter};
use crate::LowerError;

/// The id operations, and whether their value is below 2^31 (bounded by a work-group size,
/// which no device makes that large) as well as below 2^32 (HIP's `unsigned int` dimensions).
const IDS: &[(&str, bool)] = &[
    ("gpu.thread_id", true),
    ("gpu.block_dim", true),
    ("gpu.block_id", false),
    ("gpu.grid_dim", false),
];

/// The extensions rewritten, and whether they are signed.
const EXTENSIONS: &[(&str, bool)] = &[("arith.extui", false), ("arith.extsi", true)];

/// The truncation the frontend writes (`index` to `i32`).
const TRUNCATION: &str = "arith.index_castui";

pub fn widen_work_item_ids(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns.extend(
        EXTENSIONS
            .iter()
            .map(|(op, _)| Pattern::new(op, extension_of_id)),
    );
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut ())
}

fn name_of(op: &OperationRef) -> String {
    op.name().as_string_ref().as_str().unwrap_or("").to_string()
}

/// `ext(index_castui(id) : i32) : i64` becomes `index_castui(id) : i64`.
fn extension_of_id<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut (),
    extension: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let Some(&(_, signed)) = EXTENSIONS.iter().find(|(n, _)| *n == name_of(&extension)) else {
        return Ok(Outcome::NoMatch);
    };
    let at = Rewriter::before(rw.ctx, &extension);
    let result = extension.result(0).map_err(|e| at.error(e))?;
    let i64t = IntegerType::new(rw.ctx, 64).into();
    let i32t = IntegerType::new(rw.ctx, 32).into();
    let narrow = extension.operand(0).map_err(|e| at.error(e))?;
    if result.r#type() != i64t || narrow.r#type() != i32t {
        return Ok(Outcome::NoMatch);
    }
    let Some(truncation) = definition(narrow.to_raw()) else {
        return Ok(Outcome::NoMatch);
    };
    if name_of(&truncation) != TRUNCATION {
        return Ok(Outcome::NoMatch);
    }
    let id = truncation.operand(0).map_err(|e| at.error(e))?;
    let Some(id_op) = definition(id.to_raw()) else {
        return Ok(Outcome::NoMatch);
    };
    let exact = match IDS.iter().find(|(n, _)| *n == name_of(&id_op)) {
        Some(&(_, below_2_31)) => below_2_31 || !signed,
        None => false,
    };
    if !exact {
        return Ok(Outcome::NoMatch);
    }
    let wide = at.one(TRUNCATION, &[id.to_raw()], i64t, &[])?;
    rw.replace_op(&extension, &[value(wide)]);
    rw.erase_if_unused(&truncation);
    Ok(Outcome::Rewrote)
}
