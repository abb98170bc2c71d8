//! Checks made before the conditions that only some work-items of a subgroup take. A device
//! compiler that runs work-items as vector lanes runs the body of such an `scf.if` for all lanes
//! under a mask, branches in it included: a check there ran its cold path (the slow path's
//! calls, lane by lane loads) under that mask on every pass, at several times the access's cost
//! (the tiled matmul's reads under `row < n && t + tx < n`: 5.5x the unchecked kernel's time,
//! 2.6x with the same reads unconditional). So an access's address is computed before the
//! outermost such condition around it (its computation copied there, where it can be), and
//! checked there for the lanes that will make the access; the access itself only takes the
//! verdict.

use std::collections::HashMap;

use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, WalkOrder, WalkResult};
use melior::ir::r#type::IntegerType;
use melior::ir::{OperationRef, RegionLike, Type, ValueLike};
use mlir_sys::MlirValue;

use super::loops::{defined_outside, defining_op, name_of};
use crate::builder::{type_of, Rewriter};
use crate::LowerError;

/// Operations whose result is the same in every work-item of a subgroup when their operands are
/// (no loads: memory may differ per work-item).
pub(super) const UNIFORM_WITH_OPERANDS: [&str; 19] = [
    "arith.addi",
    "arith.subi",
    "arith.muli",
    "arith.andi",
    "arith.ori",
    "arith.xori",
    "arith.shli",
    "arith.shrui",
    "arith.shrsi",
    "arith.cmpi",
    "arith.select",
    "arith.extsi",
    "arith.extui",
    "arith.trunci",
    "arith.index_cast",
    "arith.index_castui",
    "llvm.getelementptr",
    "llvm.addrspacecast",
    "llvm.ptrtoint",
];

/// Operations whose result is the same in every work-item of a subgroup.
pub(super) const UNIFORM: [&str; 6] = [
    "arith.constant",
    "llvm.mlir.constant",
    "llvm.mlir.addressof",
    "gpu.block_id",
    "gpu.block_dim",
    "gpu.grid_dim",
];

/// Operations a copy of an address computation may be made of: no memory, no traps (no
/// division), no side effects. Arithmetic that may carry a no-wrap flag is built anew without
/// it (at work-items that never make the access, a flagged result that wrapped is poison).
const SPECULATABLE: [&str; 13] = [
    "arith.constant",
    "llvm.mlir.constant",
    "llvm.mlir.addressof",
    "llvm.getelementptr",
    "llvm.addrspacecast",
    "arith.extsi",
    "arith.extui",
    "arith.trunci",
    "arith.index_cast",
    "arith.index_castui",
    "arith.addi",
    "arith.subi",
    "arith.muli",
];

/// Operations that must not run after a check made before them fails (the report would come
/// before what they do: a call may stop the work-item, as `assert` does).
const NOT_PASSED: [&str; 5] = [
    "func.call",
    "llvm.call",
    "llvm.inline_asm",
    "llvm.intr.trap",
    "gpu.barrier",
];

/// Whether `v` is the same in every work-item of a subgroup, as far as its computation shows
/// (function arguments, block ids and sizes, constants, and pure arithmetic on them).
pub(super) fn is_uniform(v: MlirValue, known: &mut HashMap<usize, bool>) -> bool {
    if let Some(&u) = known.get(&(v.ptr as usize)) {
        return u;
    }
    // (Assumed not uniform while it is being looked at: a cycle gives the safe answer.)
    known.insert(v.ptr as usize, false);
    let uniform = match defining_op(v) {
        // A block argument: uniform only as an argument of a kernel (a device function's may
        // differ per work-item).
        None => {
            // SAFETY: queries on a live block argument and its owner.
            unsafe {
                let block = mlir_sys::mlirBlockArgumentGetOwner(v);
                let parent = mlir_sys::mlirBlockGetParentOperation(block);
                let parent = OperationRef::from_raw(parent);
                name_of(&parent) == "gpu.func"
                    && parent
                        .region(0)
                        .ok()
                        .and_then(|r| r.first_block())
                        .is_some_and(|entry| entry.to_raw().ptr == block.ptr)
            }
        }
        Some(op) => {
            let name = name_of(&op);
            UNIFORM.contains(&name.as_str())
                || (UNIFORM_WITH_OPERANDS.contains(&name.as_str())
                    && op.operands().all(|o| is_uniform(o.to_raw(), known)))
        }
    };
    known.insert(v.ptr as usize, uniform);
    uniform
}

/// The lanes' condition for making an access: each `scf.if` condition it is under, negated in
/// an else region.
pub(super) struct Condition {
    pub(super) value: MlirValue,
    pub(super) negated: bool,
}

/// Where the check of `access` goes when it lies under conditions that may differ between the
/// work-items of a subgroup: the outermost such `scf.if` around it (up to the first operation
/// that is not one), with the conditions to get there. None when it is under none, or when
/// something before it in those regions must not run after a failed check (a call, a barrier).
pub(super) fn speculation_point<'c>(
    access: &OperationRef<'c, 'c>,
) -> Option<(OperationRef<'c, 'c>, Vec<Condition>)> {
    let uniform = &mut HashMap::new();
    let mut current = *access;
    let mut point = None;
    let mut conditions: Vec<Condition> = Vec::new();
    while let Some(block) = current.block() {
        let Some(parent) = block.parent_operation() else {
            break;
        };
        if name_of(&parent) != "scf.if" || guards_the_kernel(&parent) {
            break;
        }
        let Ok(condition) = parent.operand(0).map(|c| c.to_raw()) else {
            break;
        };
        if is_uniform(condition, uniform)
            || !nothing_before_must_wait(&current)
            || !conditions
                .iter()
                .all(|c| defined_outside(c.value, parent.to_raw()))
        {
            break;
        }
        let in_else = parent
            .region(1)
            .ok()
            .and_then(|r| r.first_block())
            .is_some_and(|b| b.to_raw().ptr == block.to_raw().ptr);
        conditions.push(Condition {
            value: condition,
            negated: in_else,
        });
        point = Some(parent);
        current = parent;
    }
    point.map(|p| (p, conditions))
}

/// Whether `op` is the kernel's guard: an `scf.if` that ends its entry block (`if (i < n) {
/// ... }`, or the rest after `if (i >= n) return;`). A device compiler that runs work-items as
/// vector lanes turns such a guard on the work-item's id into the bounds of its loop over the
/// work-group, where the guarded body runs unmasked (Intel's CPU compiler does); a check made
/// before it kept that compiler from doing so (saxpy: 1.1x the unchecked kernel's time with the
/// check inside, 4-6x with it before the guard).
fn guards_the_kernel(op: &OperationRef) -> bool {
    let in_entry = op.block().is_some_and(|b| {
        b.parent_operation()
            .is_some_and(|f| name_of(&f) == "gpu.func")
            && b.parent_region()
                .and_then(|r| r.first_block())
                .is_some_and(|entry| entry.to_raw().ptr == b.to_raw().ptr)
    });
    in_entry
        && op
            .next_in_block()
            .is_some_and(|next| name_of(&next) == "gpu.return")
}

/// Whether the operations before `op` in its block (and in their regions) may all run after a
/// check of `op` made before them failed.
fn nothing_before_must_wait(op: &OperationRef) -> bool {
    let mut before = op.block().and_then(|b| b.first_operation());
    while let Some(o) = before {
        if o.to_raw().ptr == op.to_raw().ptr {
            return true;
        }
        let mut waits = false;
        o.walk(WalkOrder::PreOrder, |inner| {
            if NOT_PASSED.contains(&name_of(&inner).as_str()) {
                waits = true;
                return WalkResult::Interrupt;
            }
            WalkResult::Advance
        });
        if waits {
            return false;
        }
        before = o.next_in_block();
    }
    true
}

/// `v` computed before `point` (at `r`): itself when defined outside it, else a copy of its
/// computation when that is made of [`SPECULATABLE`] operations on values defined outside.
pub(super) fn speculate<'c>(
    v: MlirValue,
    point: &OperationRef<'c, 'c>,
    r: &Rewriter<'c>,
    done: &mut HashMap<usize, MlirValue>,
) -> Result<Option<MlirValue>, LowerError> {
    if defined_outside(v, point.to_raw()) {
        return Ok(Some(v));
    }
    if let Some(&known) = done.get(&(v.ptr as usize)) {
        return Ok(Some(known));
    }
    let Some(op) = defining_op(v) else {
        return Ok(None);
    };
    let name = name_of(&op);
    if !SPECULATABLE.contains(&name.as_str()) || op.result_count() != 1 {
        return Ok(None);
    }
    let mut operands = Vec::new();
    for operand in op.operands() {
        match speculate(operand.to_raw(), point, r, done)? {
            Some(o) => operands.push(o),
            None => return Ok(None),
        }
    }
    let result_type: Type = type_of(v);
    let copy = match name.as_str() {
        "arith.addi" | "arith.subi" | "arith.muli" => r.one(&name, &operands, result_type, &[])?,
        _ => r.copy_with_operands(&op, &operands)?,
    };
    done.insert(v.ptr as usize, copy);
    Ok(Some(copy))
}

/// The lanes that make the access: the conjunction of `conditions`, built at `r`.
pub(super) fn active_lanes<'c>(
    conditions: &[Condition],
    r: &Rewriter<'c>,
) -> Result<MlirValue, LowerError> {
    let i1: Type = IntegerType::new(r.ctx, 1).into();
    let mut active = r.arith_int(i1, 1)?;
    for c in conditions {
        let mut value = c.value;
        if c.negated {
            let one = r.arith_int(i1, 1)?;
            value = r.one("arith.xori", &[value, one], i1, &[])?;
        }
        active = r.one("arith.andi", &[active, value], i1, &[])?;
    }
    Ok(active)
}
