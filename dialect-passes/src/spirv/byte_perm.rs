//! `hipmlir-expand-byte-perm`: a call of `__byte_perm(x, y, s)` becomes the shifts and masks
//! that pick its bytes, as SPIR-V has no byte permute (NVPTX's lowering makes it one
//! `prmt.b32`). Byte i of the result is byte `(s >> 4i) & 7` of the 8 bytes `y:x`; with a
//! constant selector, the canonicalizer folds the selection to constant shifts.

use hipmlir_ir::rewrite::{apply_patterns, Outcome, Pattern, PatternRewriter, RewritePatternSet};
use melior::dialect::arith;
use melior::ir::r#type::IntegerType;
use melior::ir::{Module, OperationRef, Type, ValueLike};
use melior::Context;
use mlir_sys::MlirValue;

use crate::builder::{value, Rewriter};
use crate::symbols::byte_perm_operands;
use crate::LowerError;

pub fn expand_byte_perm(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns.add(Pattern::new("func.call", expand));
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut ())
}

fn expand<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut (),
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let Some([x, y, s]) = byte_perm_operands(&op)? else {
        return Ok(Outcome::NoMatch);
    };
    let b = Rewriter::before(rw.ctx, &op);
    let permuted = bytes_of(&b, x, y, s)?;
    rw.replace_op(&op, &[value(permuted)]);
    Ok(Outcome::Rewrote)
}

/// The four bytes of `y:x` that `s` selects, as one 32-bit word.
fn bytes_of<'c>(
    b: &Rewriter<'c>,
    x: MlirValue,
    y: MlirValue,
    s: MlirValue,
) -> Result<MlirValue, LowerError> {
    let (ctx, loc) = (b.ctx, b.loc);
    let i32t: Type = IntegerType::new(ctx, 32).into();
    let i64t: Type = IntegerType::new(ctx, 64).into();
    let int = |ty, v| b.arith_int(ty, v).map(value);
    let emit = |op| b.emit_value(op).map(value);
    // The 8 bytes y:x, x in the low half.
    let low = emit(arith::extui(value(x), i64t, loc))?;
    let high = emit(arith::extui(value(y), i64t, loc))?;
    let high = emit(arith::shli(high, int(i64t, 32)?, loc))?;
    let pool = emit(arith::ori(high, low, loc))?;
    let mut word = int(i32t, 0)?;
    for i in 0..4 {
        // The selector's nibble i, its top bit unused: the byte's number.
        let nibble = emit(arith::shrui(value(s), int(i32t, 4 * i)?, loc))?;
        let byte = emit(arith::andi(nibble, int(i32t, 7)?, loc))?;
        let bits = emit(arith::shli(byte, int(i32t, 3)?, loc))?;
        let bits = emit(arith::extui(bits, i64t, loc))?;
        let picked = emit(arith::shrui(pool, bits, loc))?;
        let picked = emit(arith::trunci(picked, i32t, loc))?;
        let picked = emit(arith::andi(picked, int(i32t, 0xff)?, loc))?;
        let placed = emit(arith::shli(picked, int(i32t, 8 * i)?, loc))?;
        word = emit(arith::ori(word, placed, loc))?;
    }
    Ok(word.to_raw())
}
