//! `hipmlir-fold-global-ids`: HIP's global index, `blockIdx.d * blockDim.d + threadIdx.d` in 32
//! bits (either operand order), becomes the low 32 bits of the work-item's global id.
//!
//! The value is the same: the sum of products modulo 2^32 is the low half of the 64-bit
//! `group id * group size + local id`, which is the global id where launches have no global
//! offset (hipmlir's runtime never sets one). Intel's OpenCL CPU runtime vectorizes across
//! work-items and sees a truncated global id as consecutive, not a sum of three ids: vector add
//! and saxpy ran about 10 % slower than their OpenCL C twins, and as fast with this form.
//! A kernel that uses the local id elsewhere keeps the sum (see `sole_local_id`). Only the
//! SPIR-V pipeline runs it; on NVIDIA GPUs the sum is what nvcc compiles too.

use hipmlir_ir::rewrite::{apply_patterns, Outcome, Pattern, PatternRewriter, RewritePatternSet};
use melior::ir::operation::OperationLike;
use melior::ir::r#type::IntegerType;
use melior::ir::{Attribute, Module, OperationRef, Type, ValueLike};
use melior::Context;
use mlir_sys::MlirValue;

use crate::builder::{definition, has_one_use, value, Rewriter};
use crate::LowerError;

/// The truncation the frontend writes (`index` to `i32`).
const TRUNCATION: &str = "arith.index_castui";

pub fn fold_global_ids(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns.add(Pattern::new("arith.addi", global_index));
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut ())
}

fn is(op: &OperationRef, name: &str) -> bool {
    op.name().as_string_ref().as_str() == Ok(name)
}

/// The dimension of `v` when it is `index_castui(threadIdx.d) : i32` and the kernel uses that
/// local id nowhere else. A kernel that also indexes by the local id (a stencil's shared tile)
/// keeps the sum: its loads through the global and the local id then share one base, which the
/// vectorizer needs (the stencil bench kernel ran 1.3x slower with the global id).
fn sole_local_id<'c>(v: MlirValue) -> Option<Attribute<'c>> {
    let truncation = definition(v).filter(|t| is(t, TRUNCATION))?;
    let id = truncation.operand(0).ok()?.to_raw();
    (has_one_use(v) && has_one_use(id)).then_some(())?;
    truncated_id(v, "gpu.thread_id")
}

/// The dimension attribute of `v` when it is `index_castui(id) : i32` of the id operation `id`.
fn truncated_id<'c>(v: MlirValue, id: &str) -> Option<Attribute<'c>> {
    let truncation = definition(v).filter(|t| is(t, TRUNCATION))?;
    let op = definition(truncation.operand(0).ok()?.to_raw()).filter(|o| is(o, id))?;
    op.attribute("dimension").ok()
}

/// The dimension of `v` when it is `blockIdx.d * blockDim.d` (truncated ids, either order).
fn block_offset<'c>(v: MlirValue) -> Option<Attribute<'c>> {
    let product = definition(v).filter(|p| is(p, "arith.muli"))?;
    let (a, b) = (
        product.operand(0).ok()?.to_raw(),
        product.operand(1).ok()?.to_raw(),
    );
    [(a, b), (b, a)].into_iter().find_map(|(x, y)| {
        let d = truncated_id(x, "gpu.block_id")?;
        (truncated_id(y, "gpu.block_dim")? == d).then_some(d)
    })
}

/// `blockIdx.d * blockDim.d + threadIdx.d : i32` becomes `index_castui(gpu.global_id d) : i32`.
fn global_index<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut (),
    sum: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let at = Rewriter::before(rw.ctx, &sum);
    let i32t: Type = IntegerType::new(rw.ctx, 32).into();
    let result = sum.result(0).map_err(|e| at.error(e))?;
    if result.r#type() != i32t {
        return Ok(Outcome::NoMatch);
    }
    let (a, b) = (
        sum.operand(0).map_err(|e| at.error(e))?.to_raw(),
        sum.operand(1).map_err(|e| at.error(e))?.to_raw(),
    );
    let dimension = [(a, b), (b, a)].into_iter().find_map(|(x, y)| {
        let d = block_offset(x)?;
        (sole_local_id(y)? == d).then_some(d)
    });
    let Some(dimension) = dimension else {
        return Ok(Outcome::NoMatch);
    };
    let global = at.one(
        "gpu.global_id",
        &[],
        Type::index(rw.ctx),
        &[("dimension", dimension)],
    )?;
    let low = at.one(TRUNCATION, &[global], i32t, &[])?;
    rw.replace_op(&sum, &[value(low)]);
    // The product, the ids' truncations and the ids go when nothing else uses them.
    let mut truncations = Vec::new();
    for operand in [a, b] {
        match definition(operand) {
            Some(product) if is(&product, "arith.muli") => {
                truncations.extend(product.operands().filter_map(|f| definition(f.to_raw())));
                rw.erase_if_unused(&product);
            }
            Some(truncation) => truncations.push(truncation),
            None => {}
        }
    }
    for truncation in truncations {
        if let Some(id) = truncation
            .operand(0)
            .ok()
            .and_then(|v| definition(v.to_raw()))
        {
            rw.erase_if_unused(&id);
        }
        rw.erase_if_unused(&truncation);
    }
    Ok(Outcome::Rewrote)
}
