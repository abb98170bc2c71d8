//! Atomics: `llvm.atomicrmw` and `llvm.cmpxchg` → SPIR-V atomic instructions.
//!
//! Integer operations map one to one. Floating-point arithmetic (add, sub, min, max) and the
//! wrapping increment/decrement of `atomicInc`/`atomicDec` have no core SPIR-V instruction: they
//! become a compare-and-swap loop on the value's bits, which every OpenCL device runs.
//!
//! A read-modify-write on a Generic pointer whose space no analysis could infer is specialized
//! by address space at run time, as compilers do for targets without generic atomics: Intel's
//! OpenCL CPU runtime has no `atomic_add` (nor and/or/xchg/...) on generic pointers and fails
//! at JIT time with an unresolved `_Z10atomic_addPU3AS4Vii`, even for clang's own SPIR-V.
//! `OpGenericCastToPtrExplicit` to CrossWorkgroup (null unless the pointer is global) takes the
//! global atomic, else to Workgroup the local one, else the pointer is private (one work-item
//! sees it) and a plain load, operation and store do.

use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationBuilder, OperationLike};
use melior::ir::r#type::IntegerType;
use melior::ir::{
    attribute::IntegerAttribute, Attribute, Block, Identifier, OperationRef, Region, RegionLike,
    Type, TypeLike, Value, ValueLike,
};
use melior::Context;
use mlir_sys::{
    mlirBlockInsertOwnedOperationBefore, mlirOperationGetResult, MlirOperation, MlirValue,
};

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

fn bin_op_of(op: &OperationRef) -> Result<i64, LowerError> {
    op.attribute("bin_op")
        .ok()
        .and_then(|a| IntegerAttribute::try_from(a).ok())
        .map(|a| a.value())
        .ok_or_else(|| err("llvm.atomicrmw without bin_op"))
}

/// `llvm.atomicrmw` on a Generic pointer: the atomic on the pointer's actual space, chosen at
/// run time (see the module comment).
pub(crate) fn lower_rmw_generic(
    ctx: &Context,
    rw: &Rewriter,
    op: &OperationRef,
    generic: MlirValue,
    native_float_atomics: bool,
) -> Result<MlirValue, LowerError> {
    let value = op.operand(1).map_err(err)?.to_raw();
    let ty = op.result(0).map_err(err)?.r#type();
    let bin_op = bin_op_of(op)?;
    let private = |inner: &Rewriter| -> Result<MlirValue, LowerError> {
        let typed = inner.bitcast(generic, spirv_ptr(ctx, ty, 4)?)?;
        let old = inner.op("spirv.Load", &[typed], &[ty], &[])?[0];
        let new = combine(ctx, inner, bin_op, old, value, ty)?;
        inner.op("spirv.Store", &[typed, new], &[], &[])?;
        Ok(old)
    };
    let local = |inner: &Rewriter| -> Result<MlirValue, LowerError> {
        specialize(
            ctx,
            inner,
            generic,
            3,
            ty,
            |r, p| lower_rmw(ctx, r, op, p, 3, native_float_atomics),
            private,
        )
    };
    specialize(
        ctx,
        rw,
        generic,
        1,
        ty,
        |r, p| lower_rmw(ctx, r, op, p, 1, native_float_atomics),
        local,
    )
}

/// `scf.if (p = generic-to-space(generic)) != null { then(p) } else { otherwise }`, one result.
fn specialize<'c>(
    ctx: &'c Context,
    rw: &Rewriter<'c>,
    generic: MlirValue,
    space: u32,
    ty: Type<'c>,
    then: impl FnOnce(&Rewriter<'c>, MlirValue) -> Result<MlirValue, LowerError>,
    otherwise: impl FnOnce(&Rewriter<'c>) -> Result<MlirValue, LowerError>,
) -> Result<MlirValue, LowerError> {
    let loc = rw.loc;
    let i8t: Type = IntegerType::new(ctx, 8).into();
    let i64t: Type = IntegerType::new(ctx, 64).into();
    let bool_t: Type = IntegerType::new(ctx, 1).into();
    let specific = rw.op(
        "spirv.GenericCastToPtrExplicit",
        &[generic],
        &[spirv_ptr(ctx, i8t, space)?],
        &[],
    )?[0];
    let address = rw.op("spirv.ConvertPtrToU", &[specific], &[i64t], &[])?[0];
    let zero = rw.op(
        "spirv.Constant",
        &[],
        &[i64t],
        &[("value", IntegerAttribute::new(i64t, 0).into())],
    )?[0];
    let is_space = rw.op("spirv.INotEqual", &[address, zero], &[bool_t], &[])?[0];

    let branch = |body: &dyn Fn(&Rewriter<'c>) -> Result<MlirValue, LowerError>| {
        let block = Block::new(&[]);
        let inner = Rewriter {
            ctx,
            block: block.to_raw(),
            // A null reference appends.
            before: MlirOperation {
                ptr: std::ptr::null_mut(),
            },
            loc,
        };
        let result = body(&inner)?;
        // SAFETY: `result` is a live value visible at the block's end.
        let yielded = unsafe { Value::from_raw(result) };
        block.append_operation(
            OperationBuilder::new("scf.yield", loc)
                .add_operands(&[yielded])
                .build()
                .map_err(err)?,
        );
        let region = Region::new();
        region.append_block(block);
        Ok::<_, LowerError>(region)
    };
    let then = std::cell::Cell::new(Some(then));
    let then_region = branch(&|r| match then.take() {
        Some(f) => f(r, specific),
        None => Err(err("specialize: branch built twice")),
    })?;
    let otherwise = std::cell::Cell::new(Some(otherwise));
    let else_region = branch(&|r| match otherwise.take() {
        Some(f) => f(r),
        None => Err(err("specialize: branch built twice")),
    })?;
    // SAFETY: `is_space` is a live value.
    let condition = unsafe { Value::from_raw(is_space) };
    let if_op = OperationBuilder::new("scf.if", loc)
        .add_operands(&[condition])
        .add_results(&[ty])
        .add_regions([then_region, else_region])
        .build()
        .map_err(err)?;
    let raw = if_op.to_raw();
    std::mem::forget(if_op);
    // SAFETY: a fresh operation inserted before the live op being replaced.
    Ok(unsafe {
        mlirBlockInsertOwnedOperationBefore(rw.block, rw.before, raw);
        mlirOperationGetResult(raw, 0)
    })
}

/// The value an `AtomicBinOp` stores, given the old one: the non-atomic half of the operation,
/// for private memory and for compare-and-swap loops.
fn combine<'c>(
    ctx: &'c Context,
    rw: &Rewriter<'c>,
    bin_op: i64,
    old: MlirValue,
    v: MlirValue,
    ty: Type<'c>,
) -> Result<MlirValue, LowerError> {
    let bool_t: Type = IntegerType::new(ctx, 1).into();
    let binary = |name: &str| -> Result<MlirValue, LowerError> {
        Ok(rw.op(name, &[old, v], &[ty], &[])?[0])
    };
    let constant = |c: i64| -> Result<MlirValue, LowerError> {
        Ok(rw.op(
            "spirv.Constant",
            &[],
            &[ty],
            &[("value", IntegerAttribute::new(ty, c).into())],
        )?[0])
    };
    Ok(match bin_op {
        0 => v,
        1 => binary("spirv.IAdd")?,
        2 => binary("spirv.ISub")?,
        3 => binary("spirv.BitwiseAnd")?,
        5 => binary("spirv.BitwiseOr")?,
        6 => binary("spirv.BitwiseXor")?,
        7 => binary("spirv.CL.s_max")?,
        8 => binary("spirv.CL.s_min")?,
        9 => binary("spirv.CL.u_max")?,
        10 => binary("spirv.CL.u_min")?,
        11 => binary("spirv.FAdd")?,
        12 => binary("spirv.FSub")?,
        13 => binary("spirv.CL.fmax")?,
        14 => binary("spirv.CL.fmin")?,
        15 => {
            // (old >= v) ? 0 : old + 1
            let one = constant(1)?;
            let zero = constant(0)?;
            let wrap = rw.op("spirv.UGreaterThanEqual", &[old, v], &[bool_t], &[])?[0];
            let next = rw.op("spirv.IAdd", &[old, one], &[ty], &[])?[0];
            rw.op("spirv.Select", &[wrap, zero, next], &[ty], &[])?[0]
        }
        16 => {
            // (old == 0 || old > v) ? v : old - 1
            let one = constant(1)?;
            let zero = constant(0)?;
            let is_zero = rw.op("spirv.IEqual", &[old, zero], &[bool_t], &[])?[0];
            let above = rw.op("spirv.UGreaterThan", &[old, v], &[bool_t], &[])?[0];
            let wrap = rw.op("spirv.LogicalOr", &[is_zero, above], &[bool_t], &[])?[0];
            let prev = rw.op("spirv.ISub", &[old, one], &[ty], &[])?[0];
            rw.op("spirv.Select", &[wrap, v, prev], &[ty], &[])?[0]
        }
        other => return Err(err(format!("atomic operation {other} is not lowered"))),
    })
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
    let bin_op = bin_op_of(op)?;
    let scope = scope_attr(ctx, op)?;
    let relaxed = memory_semantics(ctx, "None")?;
    // A float exchange moves bits: it is the integer exchange of the same width (Intel's CPU
    // runtime has no `atomic_xchg` on doubles).
    if bin_op == 0 && !ty.is_integer() {
        let int: Type = IntegerType::new(ctx, ty.float_width()).into();
        let typed = rw.bitcast(ptr, spirv_ptr(ctx, int, space)?)?;
        let bits = rw.op("spirv.Bitcast", &[value.to_raw()], &[int], &[])?[0];
        let old = rw.op(
            "spirv.AtomicExchange",
            &[typed, bits],
            &[int],
            &[("memory_scope", scope), ("semantics", relaxed)],
        )?[0];
        return Ok(rw.op("spirv.Bitcast", &[old], &[ty], &[])?[0]);
    }
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
    let old_t = if is_float {
        emit(&before, "spirv.Bitcast", &[old], &[ty], &[])?
    } else {
        old
    };
    let v = value.to_raw();
    let bool_t: Type = IntegerType::new(ctx, 1).into();
    let inner = Rewriter {
        ctx,
        block: before.to_raw(),
        // A null reference appends.
        before: MlirOperation {
            ptr: std::ptr::null_mut(),
        },
        loc,
    };
    let new_t = combine(ctx, &inner, op as i64, old_t, v, ty)?;
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
