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

use melior::ir::attribute::IntegerAttribute;
use melior::ir::operation::{OperationLike, WalkOrder, WalkResult};
use melior::ir::r#type::IntegerType;
use melior::ir::{Module, OperationRef, Type, TypeLike, ValueLike};
use mlir_sys::MlirValue;

use crate::address_space_map::spirv::{CROSS_WORKGROUP, GENERIC, WORKGROUP};
use crate::builder::{type_of, Rewriter};
use crate::spirv::builder::Access;
use crate::spirv::ir::{MemorySemantics, Scope};
use crate::spirv::memory_op::{sync_scope, Lowering};
use crate::spirv::{Atomic, Binary, Cast, Compare};
use crate::LowerError;

/// The `bin_op` of `llvm.atomicrmw`, from the vocabulary the frontend writes it with.
pub(crate) use hipmlir_device_image::AtomicBinOp as BinOp;

/// The `bin_op` of an `llvm.atomicrmw` (None: none, or one hipmlir does not lower).
pub(crate) fn bin_op_of(op: &OperationRef) -> Option<BinOp> {
    let value = op
        .attribute("bin_op")
        .ok()
        .and_then(|a| IntegerAttribute::try_from(a).ok())?
        .value();
    BinOp::from_value(value)
}

/// The SPIR-V instruction doing the whole operation `op` atomically, where there is one.
fn direct(op: BinOp) -> Option<Atomic> {
    Some(match op {
        BinOp::Xchg => Atomic::Exchange,
        BinOp::Add => Atomic::IAdd,
        BinOp::Sub => Atomic::ISub,
        BinOp::And => Atomic::And,
        BinOp::Or => Atomic::Or,
        BinOp::Xor => Atomic::Xor,
        BinOp::Max => Atomic::SMax,
        BinOp::Min => Atomic::SMin,
        BinOp::UMax => Atomic::UMax,
        BinOp::UMin => Atomic::UMin,
        _ => return None,
    })
}

fn bin_op(l: &Lowering) -> Result<BinOp, LowerError> {
    bin_op_of(&l.op).ok_or_else(|| l.error("llvm.atomicrmw without a bin_op hipmlir lowers"))
}

/// `llvm.atomicrmw` on a Generic pointer: the atomic on the pointer's actual space, chosen at
/// run time (see the module comment).
pub(crate) fn lower_rmw_generic<'c>(
    l: &Lowering<'c, '_>,
    generic: MlirValue,
) -> Result<MlirValue, LowerError> {
    let value = l.operand(1)?.to_raw();
    let ty = l.result_type()?;
    let op = bin_op(l)?;
    let private = |inner: &Rewriter| -> Result<MlirValue, LowerError> {
        let typed = inner.bitcast(generic, inner.ptr(ty, GENERIC)?)?;
        let old = inner.load(typed, ty, Access::PLAIN)?;
        let new = combine(inner, op, old, value)?;
        inner.store(typed, new, Access::PLAIN)?;
        Ok(old)
    };
    let local = |inner: &Rewriter<'c>| -> Result<MlirValue, LowerError> {
        let workgroup = |r: &Rewriter<'c>, p: MlirValue| lower_rmw(l, r, p, WORKGROUP);
        specialize(inner, generic, WORKGROUP, ty, workgroup, private)
    };
    let global = |r: &Rewriter<'c>, p: MlirValue| lower_rmw(l, r, p, CROSS_WORKGROUP);
    specialize(&l.rw, generic, CROSS_WORKGROUP, ty, global, local)
}

/// `scf.if (p = generic-to-space(generic)) != null { then(p) } else { otherwise }`, one result.
fn specialize<'c>(
    rw: &Rewriter<'c>,
    generic: MlirValue,
    space: u32,
    ty: Type<'c>,
    then: impl FnOnce(&Rewriter<'c>, MlirValue) -> Result<MlirValue, LowerError>,
    otherwise: impl FnOnce(&Rewriter<'c>) -> Result<MlirValue, LowerError>,
) -> Result<MlirValue, LowerError> {
    let i8t: Type = IntegerType::new(rw.ctx, 8).into();
    let i64t: Type = IntegerType::new(rw.ctx, 64).into();
    let specific = rw.convert(Cast::GenericCastToPtrExplicit, generic, rw.ptr(i8t, space)?)?;
    let address = rw.convert(Cast::ConvertPtrToU, specific, i64t)?;
    let zero = rw.int_constant(i64t, 0)?;
    let is_space = rw.compare(Compare::INotEqual, address, zero)?;
    rw.scf_if(is_space, ty, |r| then(r, specific), otherwise)
}

/// The value an atomic operation stores, given the old one: the non-atomic half of the
/// operation, for private memory and for compare-and-swap loops.
fn combine(
    rw: &Rewriter,
    op: BinOp,
    old: MlirValue,
    v: MlirValue,
) -> Result<MlirValue, LowerError> {
    let ty = type_of(old);
    let binary = |b: Binary| rw.binary(b, old, v);
    Ok(match op {
        BinOp::Xchg => v,
        BinOp::Add => binary(Binary::IAdd)?,
        BinOp::Sub => binary(Binary::ISub)?,
        BinOp::And => binary(Binary::BitwiseAnd)?,
        BinOp::Or => binary(Binary::BitwiseOr)?,
        BinOp::Xor => binary(Binary::BitwiseXor)?,
        BinOp::Max => binary(Binary::SMax)?,
        BinOp::Min => binary(Binary::SMin)?,
        BinOp::UMax => binary(Binary::UMax)?,
        BinOp::UMin => binary(Binary::UMin)?,
        BinOp::FAdd => binary(Binary::FAdd)?,
        BinOp::FSub => binary(Binary::FSub)?,
        BinOp::FMax => binary(Binary::FMax)?,
        BinOp::FMin => binary(Binary::FMin)?,
        BinOp::UIncWrap => {
            // (old >= v) ? 0 : old + 1
            let one = rw.int_constant(ty, 1)?;
            let zero = rw.int_constant(ty, 0)?;
            let wrap = rw.compare(Compare::UGreaterThanEqual, old, v)?;
            let next = rw.binary(Binary::IAdd, old, one)?;
            rw.select(wrap, zero, next)?
        }
        BinOp::UDecWrap => {
            // (old == 0 || old > v) ? v : old - 1
            let one = rw.int_constant(ty, 1)?;
            let zero = rw.int_constant(ty, 0)?;
            let is_zero = rw.compare(Compare::IEqual, old, zero)?;
            let above = rw.compare(Compare::UGreaterThan, old, v)?;
            let wrap = rw.compare(Compare::LogicalOr, is_zero, above)?;
            let prev = rw.binary(Binary::ISub, old, one)?;
            rw.select(wrap, v, prev)?
        }
    })
}

/// `llvm.atomicrmw` on a pointer of a known space, built by `rw` (which may sit in a branch of
/// the run-time specialization).
pub(crate) fn lower_rmw<'c>(
    l: &Lowering<'c, '_>,
    rw: &Rewriter<'c>,
    ptr: MlirValue,
    space: u32,
) -> Result<MlirValue, LowerError> {
    let value = l.operand(1)?.to_raw();
    let ty = l.result_type()?;
    let op = bin_op(l)?;
    let scope = scope_in(sync_scope(l)?, space);
    let relaxed = MemorySemantics::NONE;
    // A float exchange moves bits: it is the integer exchange of the same width (Intel's CPU
    // runtime has no `atomic_xchg` on doubles).
    if op == BinOp::Xchg && !ty.is_integer() {
        let int: Type = IntegerType::new(l.ctx, ty.float_width()).into();
        let typed = rw.bitcast(ptr, rw.ptr(int, space)?)?;
        let bits = rw.convert(Cast::Bitcast, value, int)?;
        let old = rw.atomic(Atomic::Exchange, typed, bits, scope, relaxed)?;
        return rw.convert(Cast::Bitcast, old, ty);
    }
    if let Some(atomic) = direct(op) {
        let typed = rw.bitcast(ptr, rw.ptr(ty, space)?)?;
        return rw.atomic(atomic, typed, value, scope, relaxed);
    }
    // Native float add (SPV_EXT_shader_atomic_float_add), 32-bit only; subtraction adds the
    // negated value.
    let is_f32 = ty.is_f32();
    if l.native_float_atomics && is_f32 && matches!(op, BinOp::FAdd | BinOp::FSub) {
        let typed = rw.bitcast(ptr, rw.ptr(ty, space)?)?;
        let v = if op == BinOp::FSub {
            rw.fnegate(value)?
        } else {
            value
        };
        return rw.atomic(Atomic::FAddExt, typed, v, scope, relaxed);
    }
    cas_loop(rw, ptr, space, value, ty, op, scope)
}

pub(crate) fn lower_cmpxchg(
    l: &Lowering,
    ptr: MlirValue,
    space: u32,
) -> Result<MlirValue, LowerError> {
    let rw = &l.rw;
    let compare = l.operand(1)?.to_raw();
    let new = l.operand(2)?.to_raw();
    let typed = rw.bitcast(ptr, rw.ptr(type_of(compare), space)?)?;
    let scope = scope_in(sync_scope(l)?, space);
    rw.atomic_compare_exchange(typed, new, compare, scope, MemorySemantics::NONE)
}

/// The scope of an atomic on memory of `space`: only the work-group reaches its workgroup
/// memory, so a wider scope there is the work-group's. A device may need less for it: Intel's
/// CPU runtime runs a work-group on one thread and drops the `lock` of a workgroup-scope
/// atomic (a shared-memory histogram's increments).
fn scope_in(scope: Scope, space: u32) -> Scope {
    match (scope, space) {
        (Scope::CrossDevice | Scope::Device, WORKGROUP) => Scope::Workgroup,
        _ => scope,
    }
}

/// `old = *p; do { seen = CAS(p, old, f(old, v)); retry = seen != old; old = seen } while retry`
fn cas_loop<'c>(
    rw: &Rewriter<'c>,
    ptr: MlirValue,
    space: u32,
    value: MlirValue,
    ty: Type<'c>,
    op: BinOp,
    scope: Scope,
) -> Result<MlirValue, LowerError> {
    let is_float = !ty.is_integer();
    let bits = if is_float {
        ty.float_width()
    } else {
        IntegerType::try_from(ty).map_err(|e| rw.error(e))?.width()
    };
    let int: Type = IntegerType::new(rw.ctx, bits).into();
    let int_ptr = rw.bitcast(ptr, rw.ptr(int, space)?)?;
    let init = rw.load(int_ptr, int, Access::PLAIN)?;
    // The "before" region makes one attempt.
    let old_bits = rw.scf_do_while(init, int, |attempt, old| {
        let old_t = if is_float {
            attempt.convert(Cast::Bitcast, old, ty)?
        } else {
            old
        };
        let new_t = combine(attempt, op, old_t, value)?;
        let new = if is_float {
            attempt.convert(Cast::Bitcast, new_t, int)?
        } else {
            new_t
        };
        let seen =
            attempt.atomic_compare_exchange(int_ptr, new, old, scope, MemorySemantics::NONE)?;
        let retry = attempt.compare(Compare::INotEqual, seen, old)?;
        Ok((retry, seen))
    })?;
    if is_float {
        rw.convert(Cast::Bitcast, old_bits, ty)
    } else {
        Ok(old_bits)
    }
}

/// Whether the module adds or subtracts floats atomically (so that a native variant pays off).
pub fn uses_float_atomic_add(module: &Module) -> bool {
    let mut found = false;
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("llvm.atomicrmw") {
            let bin_op = bin_op_of(&op);
            let f32_result = op
                .result(0)
                .is_ok_and(|r| melior::ir::TypeLike::is_f32(&r.r#type()));
            if matches!(bin_op, Some(BinOp::FAdd | BinOp::FSub)) && f32_result {
                found = true;
            }
        }
        WalkResult::Advance
    });
    found
}
