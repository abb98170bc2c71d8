//! Atomics: `llvm.atomicrmw` and `llvm.cmpxchg` → SPIR-V atomic instructions.
//!
//! Integer operations map one to one. Floating-point arithmetic (add, sub, min, max) and the
//! wrapping increment/decrement of `atomicInc`/`atomicDec` have no core SPIR-V instruction: they
//! become a compare-and-swap loop on the value's bits, which every OpenCL device runs.

use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationBuilder, OperationLike};
use melior::ir::r#type::IntegerType;
use melior::ir::{
    attribute::IntegerAttribute, Attribute, Block, Identifier, OperationRef, Region, RegionLike,
    Type, TypeLike, Value, ValueLike,
};
use melior::Context;
use mlir_sys::{mlirBlockInsertOwnedOperationBefore, mlirOperationGetResult, MlirValue};

use crate::pointers::{memory_semantics, scope_attr, spirv_ptr, Rewriter};
use crate::LowerError;

/// LLVM `AtomicBinOp` values with a direct SPIR-V instruction.
const DIRECT: &[(i64, &str)] = &[
    (0, "spirv.AtomicExchange"),
    (1, "spirv.AtomicIAdd"),
    (2, "spirv.AtomicISub"),
    (3, "spirv.AtomicAnd"),
    (5, "spirv.AtomicOr"),
    (6, "spirv.AtomicXor"),
    (7, "spirv.AtomicSMax"),
    (8, "spirv.AtomicSMin"),
    (9, "spirv.AtomicUMax"),
    (10, "spirv.AtomicUMin"),
];

/// LLVM `AtomicBinOp` values computed in a compare-and-swap loop.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LoopOp {
    FAdd = 11,
    FSub = 12,
    FMax = 13,
    FMin = 14,
    UIncWrap = 15,
    UDecWrap = 16,
}

const LOOPED: &[LoopOp] = &[
    LoopOp::FAdd,
    LoopOp::FSub,
    LoopOp::FMax,
    LoopOp::FMin,
    LoopOp::UIncWrap,
    LoopOp::UDecWrap,
];

fn err(e: impl std::fmt::Display) -> LowerError {
    LowerError::Internal(e.to_string())
}

pub(crate) fn lower_rmw(
    ctx: &Context,
    rw: &Rewriter,
    op: &OperationRef,
    ptr: MlirValue,
    space: u32,
    native_float_atomics: bool,
) -> Result<MlirValue, LowerError> {
    let value = op.operand(1).map_err(err)?;
    let ty = op.result(0).map_err(err)?.r#type();
    let bin_op = op
        .attribute("bin_op")
        .ok()
        .and_then(|a| IntegerAttribute::try_from(a).ok())
        .map(|a| a.value())
        .ok_or_else(|| err("llvm.atomicrmw without bin_op"))?;
    let scope = scope_attr(ctx, op)?;
    let relaxed = memory_semantics(ctx, "None")?;
    if let Some((_, name)) = DIRECT.iter().find(|(b, _)| *b == bin_op) {
        let typed = rw.bitcast(ptr, spirv_ptr(ctx, ty, space)?)?;
        return Ok(rw.op(
            name,
            &[typed, value.to_raw()],
            &[ty],
            &[("memory_scope", scope), ("semantics", relaxed)],
        )?[0]);
    }
    // Native float add (SPV_EXT_shader_atomic_float_add), 32-bit only; subtraction adds the
    // negated value.
    if native_float_atomics && ty.to_string() == "f32" && matches!(bin_op, 11 | 12) {
        let typed = rw.bitcast(ptr, spirv_ptr(ctx, ty, space)?)?;
        let v = if bin_op == 12 {
            rw.op("spirv.FNegate", &[value.to_raw()], &[ty], &[])?[0]
        } else {
            value.to_raw()
        };
        return Ok(rw.op(
            "spirv.EXT.AtomicFAdd",
            &[typed, v],
            &[ty],
            &[("memory_scope", scope), ("semantics", relaxed)],
        )?[0]);
    }
    let Some(loop_op) = LOOPED.iter().find(|l| **l as i64 == bin_op) else {
        return Err(err(format!("atomic operation {bin_op} is not lowered")));
    };
    cas_loop(ctx, rw, ptr, space, value, ty, *loop_op, scope, relaxed)
}

pub(crate) fn lower_cmpxchg(
    ctx: &Context,
    rw: &Rewriter,
    op: &OperationRef,
    ptr: MlirValue,
    space: u32,
) -> Result<MlirValue, LowerError> {
    let compare = op.operand(1).map_err(err)?;
    let new = op.operand(2).map_err(err)?;
    let ty = compare.r#type();
    let typed = rw.bitcast(ptr, spirv_ptr(ctx, ty, space)?)?;
    let scope = scope_attr(ctx, op)?;
    let relaxed = memory_semantics(ctx, "None")?;
    Ok(rw.op(
        "spirv.AtomicCompareExchange",
        &[typed, new.to_raw(), compare.to_raw()],
        &[ty],
        &[
            ("memory_scope", scope),
            ("equal_semantics", relaxed),
            ("unequal_semantics", relaxed),
        ],
    )?[0])
}

/// `old = *p; do { seen = CAS(p, old, f(old, v)); retry = seen != old; old = seen } while retry`
#[allow(clippy::too_many_arguments)]
fn cas_loop<'c>(
    ctx: &'c Context,
    rw: &Rewriter<'c>,
    ptr: MlirValue,
    space: u32,
    value: Value,
    ty: Type<'c>,
    op: LoopOp,
    scope: Attribute<'c>,
    relaxed: Attribute<'c>,
) -> Result<MlirValue, LowerError> {
    let loc = rw.loc;
    let is_float = !ty.is_integer();
    let bits = if is_float {
        ty.float_width()
    } else {
        IntegerType::try_from(ty).map_err(err)?.width()
    };
    let int: Type = IntegerType::new(ctx, bits).into();
    let int_ptr = rw.bitcast(ptr, spirv_ptr(ctx, int, space)?)?;
    let init = rw.op("spirv.Load", &[int_ptr], &[int], &[])?[0];

    // The "before" region: one attempt.
    let before = Block::new(&[(int, loc)]);
    let old = before.argument(0).map_err(err)?.to_raw();
    let emit = |block: &Block<'c>,
                name: &str,
                operands: &[MlirValue],
                results: &[Type<'c>],
                attrs: &[(&str, Attribute<'c>)]|
     -> Result<MlirValue, LowerError> {
        // SAFETY: operands are live values visible in `block`.
        let operands: Vec<Value> = operands
            .iter()
            .map(|v| unsafe { Value::from_raw(*v) })
            .collect();
        let attrs: Vec<_> = attrs
            .iter()
            .map(|(n, a)| (Identifier::new(ctx, n), *a))
            .collect();
        let o = OperationBuilder::new(name, loc)
            .add_operands(&operands)
            .add_results(results)
            .add_attributes(&attrs)
            .build()
            .map_err(err)?;
        let o = block.append_operation(o);
        Ok(if results.is_empty() {
            old
        } else {
            o.result(0).map_err(err)?.to_raw()
        })
    };
    let constant = |block: &Block<'c>, v: i64| -> Result<MlirValue, LowerError> {
        emit(
            block,
            "spirv.Constant",
            &[],
            &[int],
            &[("value", IntegerAttribute::new(int, v).into())],
        )
    };
    let old_t = if is_float {
        emit(&before, "spirv.Bitcast", &[old], &[ty], &[])?
    } else {
        old
    };
    let v = value.to_raw();
    let bool_t: Type = IntegerType::new(ctx, 1).into();
    let new_t = match op {
        LoopOp::FAdd => emit(&before, "spirv.FAdd", &[old_t, v], &[ty], &[])?,
        LoopOp::FSub => emit(&before, "spirv.FSub", &[old_t, v], &[ty], &[])?,
        LoopOp::FMax => emit(&before, "spirv.CL.fmax", &[old_t, v], &[ty], &[])?,
        LoopOp::FMin => emit(&before, "spirv.CL.fmin", &[old_t, v], &[ty], &[])?,
        LoopOp::UIncWrap => {
            // (old >= v) ? 0 : old + 1
            let one = constant(&before, 1)?;
            let zero = constant(&before, 0)?;
            let wrap = emit(
                &before,
                "spirv.UGreaterThanEqual",
                &[old_t, v],
                &[bool_t],
                &[],
            )?;
            let next = emit(&before, "spirv.IAdd", &[old_t, one], &[ty], &[])?;
            emit(&before, "spirv.Select", &[wrap, zero, next], &[ty], &[])?
        }
        LoopOp::UDecWrap => {
            // (old == 0 || old > v) ? v : old - 1
            let one = constant(&before, 1)?;
            let zero = constant(&before, 0)?;
            let is_zero = emit(&before, "spirv.IEqual", &[old_t, zero], &[bool_t], &[])?;
            let above = emit(&before, "spirv.UGreaterThan", &[old_t, v], &[bool_t], &[])?;
            let wrap = emit(
                &before,
                "spirv.LogicalOr",
                &[is_zero, above],
                &[bool_t],
                &[],
            )?;
            let prev = emit(&before, "spirv.ISub", &[old_t, one], &[ty], &[])?;
            emit(&before, "spirv.Select", &[wrap, v, prev], &[ty], &[])?
        }
    };
    let new = if is_float {
        emit(&before, "spirv.Bitcast", &[new_t], &[int], &[])?
    } else {
        new_t
    };
    let seen = emit(
        &before,
        "spirv.AtomicCompareExchange",
        &[int_ptr, new, old],
        &[int],
        &[
            ("memory_scope", scope),
            ("equal_semantics", relaxed),
            ("unequal_semantics", relaxed),
        ],
    )?;
    let retry = emit(&before, "spirv.INotEqual", &[seen, old], &[bool_t], &[])?;
    emit(&before, "scf.condition", &[retry, seen], &[], &[])?;

    let after = Block::new(&[(int, loc)]);
    let arg = after.argument(0).map_err(err)?.to_raw();
    emit(&after, "scf.yield", &[arg], &[], &[])?;

    let before_region = Region::new();
    before_region.append_block(before);
    let after_region = Region::new();
    after_region.append_block(after);
    // SAFETY: `init` is a live value.
    let init_value = unsafe { Value::from_raw(init) };
    let while_op = OperationBuilder::new("scf.while", loc)
        .add_operands(&[init_value])
        .add_results(&[int])
        .add_regions([before_region, after_region])
        .build()
        .map_err(err)?;
    let raw = while_op.to_raw();
    std::mem::forget(while_op);
    // SAFETY: a fresh operation inserted before the live op being replaced.
    let old_bits = unsafe {
        mlirBlockInsertOwnedOperationBefore(rw.block, rw.before, raw);
        mlirOperationGetResult(raw, 0)
    };
    if is_float {
        Ok(rw.op("spirv.Bitcast", &[old_bits], &[ty], &[])?[0])
    } else {
        Ok(old_bits)
    }
}
