//! `hipmlir-scalarize-half-pairs`: an arithmetic, min/max or compare op on a pair of halves
//! (`vector<2xf16>`: the frontend's `__hadd2`, `__hsub2`, `__hmul2`, `__hmax2`, `__hmin2`)
//! becomes one scalar op per lane, the lanes extracted and the results gathered back.
//!
//! The frontend reads a pair from its 32 bits (`vector.bitcast` of a one-lane vector of the
//! word) and gives its bits back the same way: a lane of such a pair becomes the half of the
//! word's low or high 16 bits, and a pair gathered from lanes the word of their bits, so that
//! no vector is left (the canonicalizer removes the frontend's bitcasts once unused).
//!
//! PTX computes both lanes in one instruction (`sub.rn.f16x2`, `max.f16x2`), so the NVPTX
//! pipeline keeps the pairs. The OpenCL CPU device's compiler vectorizes across work-items,
//! and a `half2` value in each work-item stands in its way: bench's half2_max ran 1.8x slower
//! with pairs than with the scalar halves it gets here.

use hipmlir_ir::rewrite::{apply_patterns, Outcome, Pattern, PatternRewriter, RewritePatternSet};
use melior::dialect::{arith, ods::vector};
use melior::ir::operation::OperationLike;
use melior::ir::r#type::IntegerType;
use melior::ir::{Attribute, Module, OperationRef, Type, ValueLike};
use melior::Context;
use mlir_sys::MlirValue;

use crate::builder::{definition, type_of, value, Rewriter};
use crate::LowerError;

/// The ops split lane by lane: each takes pairs and gives a pair (of halves, or of booleans
/// for `arith.cmpf`), and means the same on each lane alone.
const OPS: &[&str] = &[
    "arith.addf",
    "arith.subf",
    "arith.mulf",
    "arith.divf",
    "arith.remf",
    "arith.negf",
    "arith.maxnumf",
    "arith.minnumf",
    "arith.maximumf",
    "arith.minimumf",
    "arith.cmpf",
];

/// The lanes of a pair.
const LANES: i64 = 2;

pub fn scalarize_half_pairs(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns
        .extend(OPS.iter().map(|op| Pattern::new(op, scalarize)))
        .next_stage()
        .add(Pattern::new("vector.bitcast", word_of_lanes));
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut ())
}

/// The types of a pair and of its bits as the frontend holds them (`vector<1xi32>`).
fn pair_types(ctx: &Context) -> (Type<'_>, Type<'_>) {
    let pair = Type::vector(&[LANES as u64], Type::float16(ctx));
    let word = Type::vector(&[1], IntegerType::new(ctx, 32).into());
    (pair, word)
}

/// Lane `lane` of the pair `v`: of a pair bitcast from a word, the half of the word's bits
/// 16 lane..16 lane+15 (the bitcast erased once nothing else reads it); else extracted.
fn lane_of<'c>(
    rw: &mut PatternRewriter<'c>,
    b: &Rewriter<'c>,
    v: MlirValue,
    lane: i64,
) -> Result<MlirValue, LowerError> {
    let ctx = b.ctx;
    let (_, word) = pair_types(ctx);
    let half = Type::float16(ctx);
    let bitcast = definition(v).filter(|d| {
        is_named(d, "vector.bitcast") && d.operand(0).is_ok_and(|w| w.r#type() == word)
    });
    let Some(bitcast) = bitcast else {
        return b.vector_extract(v, lane, half);
    };
    let bits = bitcast
        .operand(0)
        .map_err(|e| LowerError::internal(b.loc, e))?
        .to_raw();
    let (i16t, i32t): (Type, Type) = (
        IntegerType::new(ctx, 16).into(),
        IntegerType::new(ctx, 32).into(),
    );
    let emit = |op| b.emit_value(op).map(value);
    let bits = b.vector_extract(bits, 0, i32t)?;
    let shift = b.arith_int(i32t, 16 * lane)?;
    let lane_bits = emit(arith::shrui(value(bits), value(shift), b.loc))?;
    let lane_bits = emit(arith::trunci(lane_bits, i16t, b.loc))?;
    rw.erase_if_unused(&bitcast);
    b.emit_value(arith::bitcast(lane_bits, half, b.loc))
}

/// `vector.bitcast` of a pair gathered from its lanes to a word: the word of the lanes' bits,
/// lane 0 low.
fn word_of_lanes<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut (),
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let ctx = rw.ctx;
    let (pair, word) = pair_types(ctx);
    let (Ok(source), Ok(result)) = (op.operand(0), op.result(0)) else {
        return Ok(Outcome::NoMatch);
    };
    if source.r#type() != pair || result.r#type() != word {
        return Ok(Outcome::NoMatch);
    }
    let Some(gathered) =
        definition(source.to_raw()).filter(|d| is_named(d, "vector.from_elements"))
    else {
        return Ok(Outcome::NoMatch);
    };
    let (i16t, i32t): (Type, Type) = (
        IntegerType::new(ctx, 16).into(),
        IntegerType::new(ctx, 32).into(),
    );
    let b = Rewriter::before(ctx, &op);
    let emit = |op| b.emit_value(op).map(value);
    let mut bits = None;
    for (lane, half) in gathered.operands().enumerate() {
        let lane_bits = emit(arith::bitcast(half, i16t, b.loc))?;
        let lane_bits = emit(arith::extui(lane_bits, i32t, b.loc))?;
        let shift = b.arith_int(i32t, 16 * lane as i64)?;
        let placed = emit(arith::shli(lane_bits, value(shift), b.loc))?;
        bits = Some(match bits {
            None => placed,
            Some(low) => emit(arith::ori(low, placed, b.loc))?,
        });
    }
    let Some(bits) = bits else {
        return Ok(Outcome::NoMatch);
    };
    let wide = b.emit_value(vector::broadcast(ctx, word, bits, b.loc))?;
    rw.replace_op(&op, &[value(wide)]);
    rw.erase_if_unused(&gathered);
    Ok(Outcome::Rewrote)
}

fn is_named(op: &OperationRef, name: &str) -> bool {
    op.name().as_string_ref().as_str() == Ok(name)
}

/// `op` on pairs of halves as the same op on each lane (its attributes, such as `fastmath`
/// and `predicate`, kept); an op on other types is left alone.
fn scalarize<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut (),
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let ctx = rw.ctx;
    let half = Type::float16(ctx);
    let pair = Type::vector(&[LANES as u64], half);
    let operands: Vec<MlirValue> = op.operands().map(|v| v.to_raw()).collect();
    if operands.is_empty() || operands.iter().any(|v| type_of(*v) != pair) {
        return Ok(Outcome::NoMatch);
    }
    let Ok(result) = op.result(0) else {
        return Ok(Outcome::NoMatch);
    };
    let result_type = result.r#type();
    let bool_type: Type = IntegerType::new(ctx, 1).into();
    let lane_type = if result_type == pair {
        half
    } else if result_type == Type::vector(&[LANES as u64], bool_type) {
        bool_type
    } else {
        return Ok(Outcome::NoMatch);
    };
    let name = op.name();
    let name = name
        .as_string_ref()
        .as_str()
        .map_err(|e| LowerError::internal(op.location(), e))?;
    let attributes: Vec<(String, Attribute<'c>)> = op
        .attributes()
        .map(|(id, a)| {
            let id = id.as_string_ref().as_str().unwrap_or_default().to_string();
            (id, a)
        })
        .collect();
    let attributes: Vec<(&str, Attribute<'c>)> =
        attributes.iter().map(|(k, a)| (k.as_str(), *a)).collect();
    let b = Rewriter::before(ctx, &op);
    let mut lanes = Vec::with_capacity(LANES as usize);
    for lane in 0..LANES {
        let args = operands
            .iter()
            .map(|v| lane_of(rw, &b, *v, lane))
            .collect::<Result<Vec<_>, _>>()?;
        lanes.push(b.one(name, &args, lane_type, &attributes)?);
    }
    let gathered = b.vector_from_elements(&lanes, result_type)?;
    rw.replace_op(&op, &[value(gathered)]);
    Ok(Outcome::Rewrote)
}
