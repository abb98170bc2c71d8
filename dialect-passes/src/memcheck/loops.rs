//! Checks hoisted out of counted loops. An access directly in the body of an `scf.while` that
//! counts up by one to a bound fixed before the loop, whose address rises with the counter
//! (offsets of a pointer fixed before the loop, indexed by the counter widened with its own
//! signedness, plus values fixed before the loop), lies between its addresses at the first and
//! the last count: checked at those two ends before the loop, the access needs its own check
//! only when that failed (the pass then keeps it, so that the report names the first bad access
//! exactly).

use std::collections::HashMap;

use melior::dialect::arith::CmpiPredicate;
use melior::ir::attribute::IntegerAttribute;
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{OperationRef, RegionLike, ValueLike};
use mlir_sys::{MlirOperation, MlirValue};

use hipmlir_ir::rewrite::{erase_unused, move_before, replace_all_uses_except};
use melior::dialect::scf;
use melior::ir::operation::{WalkOrder, WalkResult};
use melior::ir::{Block, Operation, Region, Type, Value};
use melior::Context;

use crate::builder::{type_of, value, Rewriter};
use crate::LowerError;

/// An `scf.while` counting `counter` (the body's block argument) from `init` while below (or
/// at, `inclusive`) `bound`.
pub(super) struct CountedLoop<'c> {
    pub(super) op: OperationRef<'c, 'c>,
    /// A condition fixed before the loop that the count's comparison is under (the frontend's
    /// flag of an earlier `return`): false, the loop does not run.
    pub(super) guard: Option<MlirValue>,
    counter: MlirValue,
    pub(super) init: MlirValue,
    pub(super) bound: MlirValue,
    pub(super) inclusive: bool,
    pub(super) signed: bool,
}

impl CountedLoop<'_> {
    /// The comparison of the loop's condition (whether `init` is a count the loop runs).
    pub(super) fn predicate(&self) -> CmpiPredicate {
        match (self.signed, self.inclusive) {
            (true, false) => CmpiPredicate::Slt,
            (true, true) => CmpiPredicate::Sle,
            (false, false) => CmpiPredicate::Ult,
            (false, true) => CmpiPredicate::Ule,
        }
    }
}

/// arith.cmpi's predicates the loop's condition may use: (number, signed, inclusive).
const COUNTING: [(i64, bool, bool); 4] = [
    (2, true, false),
    (3, true, true),
    (6, false, false),
    (7, false, true),
];

fn defining_op<'c>(v: MlirValue) -> Option<OperationRef<'c, 'c>> {
    // SAFETY: queries on a live value.
    unsafe {
        mlir_sys::mlirValueIsAOpResult(v)
            .then(|| OperationRef::from_raw(mlir_sys::mlirOpResultGetOwner(v)))
    }
}

fn name_of(op: &OperationRef) -> String {
    op.name().as_string_ref().as_str().unwrap_or("").to_string()
}

/// Whether `v` is defined outside the operation `outer`.
pub(super) fn defined_outside(v: MlirValue, outer: MlirOperation) -> bool {
    // SAFETY: walking up from a live value through its owners' parents.
    unsafe {
        let mut op = if mlir_sys::mlirValueIsAOpResult(v) {
            mlir_sys::mlirOpResultGetOwner(v)
        } else {
            mlir_sys::mlirBlockGetParentOperation(mlir_sys::mlirBlockArgumentGetOwner(v))
        };
        while !op.ptr.is_null() {
            if op.ptr == outer.ptr {
                return false;
            }
            op = mlir_sys::mlirOperationGetParentOperation(op);
        }
    }
    true
}

/// The counted loop whose body holds `access` directly, if any.
pub(super) fn counted_loop<'c>(access: &OperationRef<'c, 'c>) -> Option<CountedLoop<'c>> {
    let block = access.block()?;
    let op = block.parent_operation()?;
    if name_of(&op) != "scf.while" {
        return None;
    }
    let after = op.region(1).ok()?.first_block()?;
    if after.to_raw().ptr != block.to_raw().ptr {
        return None;
    }
    // The condition: `cmpi pred, %count, %bound` (or `scf.if %guard { cmpi } else { false }`)
    // forwarding the arguments as they are.
    let before = op.region(0).ok()?.first_block()?;
    let first = before.first_operation()?;
    let condition = first.next_in_block()?;
    if name_of(&condition) != "scf.condition" {
        return None;
    }
    let (compare, guard) = match name_of(&first).as_str() {
        "arith.cmpi" => (first, None),
        "scf.if" => guarded_compare(&first, op.to_raw())?,
        _ => return None,
    };
    let predicate = IntegerAttribute::try_from(compare.attribute("predicate").ok()?)
        .ok()?
        .value();
    let &(_, signed, inclusive) = COUNTING.iter().find(|(p, _, _)| *p == predicate)?;
    let counted = compare.operand(0).ok()?.to_raw();
    let bound = compare.operand(1).ok()?.to_raw();
    if condition.operand(0).ok()?.to_raw().ptr != first.result(0).ok()?.to_raw().ptr
        || !defined_outside(bound, op.to_raw())
    {
        return None;
    }
    let forwarded: Vec<MlirValue> = condition.operands().skip(1).map(|v| v.to_raw()).collect();
    if forwarded.len() != before.argument_count() || forwarded.len() != after.argument_count() {
        return None;
    }
    let position = (0..before.argument_count()).find(|&i| {
        before
            .argument(i)
            .is_ok_and(|a| a.to_raw().ptr == counted.ptr)
    })?;
    for (i, v) in forwarded.iter().enumerate() {
        if before.argument(i).ok()?.to_raw().ptr != v.ptr {
            return None;
        }
    }
    // The body yields `counter + 1` in the counter's place.
    let counter = after.argument(position).ok()?.to_raw();
    let terminator = after.terminator()?;
    let mut next = defining_op(terminator.operand(position).ok()?.to_raw())?;
    // (Under the guard, the count may be `scf.if %guard { counter + 1 } else { counter }`:
    // with the guard false the loop does not run.)
    if name_of(&next) == "scf.if"
        && guard.map(|g| g.ptr) == Some(next.operand(0).ok()?.to_raw().ptr)
    {
        next = next.region(0).ok()?.first_block()?.first_operation()?;
    }
    if name_of(&next) != "arith.addi" {
        return None;
    }
    let (a, b) = (
        next.operand(0).ok()?.to_raw(),
        next.operand(1).ok()?.to_raw(),
    );
    let step = if a.ptr == counter.ptr {
        b
    } else if b.ptr == counter.ptr {
        a
    } else {
        return None;
    };
    if constant_of(step) != Some(1) {
        return None;
    }
    let init = op.operand(position).ok()?.to_raw();
    Some(CountedLoop {
        op,
        guard,
        counter,
        init,
        bound,
        inclusive,
        signed,
    })
}

/// `scf.if %guard -> i1 { %c = arith.cmpi ...; yield %c } else { yield false }` with a guard
/// fixed before `outer`: the comparison and the guard.
fn guarded_compare<'c>(
    op: &OperationRef<'c, 'c>,
    outer: MlirOperation,
) -> Option<(OperationRef<'c, 'c>, Option<MlirValue>)> {
    let guard = op.operand(0).ok()?.to_raw();
    let then = op.region(0).ok()?.first_block()?;
    let otherwise = op.region(1).ok()?.first_block()?;
    let compare = then.first_operation()?;
    let yielded = compare.next_in_block()?;
    let no = otherwise.first_operation()?;
    let no = match name_of(&no).as_str() {
        "scf.yield" => no,
        _ => no.next_in_block()?,
    };
    let guarded = name_of(&compare) == "arith.cmpi"
        && name_of(&yielded) == "scf.yield"
        && yielded.operand(0).ok()?.to_raw().ptr == compare.result(0).ok()?.to_raw().ptr
        && constant_of(no.operand(0).ok()?.to_raw()) == Some(0)
        && defined_outside(guard, outer);
    guarded.then_some((compare, Some(guard)))
}

/// The value of an integer constant.
fn constant_of(v: MlirValue) -> Option<i64> {
    let op = defining_op(v)?;
    if !matches!(
        name_of(&op).as_str(),
        "arith.constant" | "llvm.mlir.constant"
    ) {
        return None;
    }
    IntegerAttribute::try_from(op.attribute("value").ok()?)
        .ok()
        .map(|i| i.value())
}

/// `pointer` computed for the counts `first` and `last` before the loop (clones of its
/// computation there), when it rises with the counter or does not change in the loop; None
/// when it may fall, or depends on more of the loop than its counter.
pub(super) fn ends<'c>(
    lp: &CountedLoop<'c>,
    pointer: MlirValue,
    r: &Rewriter<'c>,
    first: MlirValue,
    last: MlirValue,
) -> Result<Option<(MlirValue, MlirValue)>, LowerError> {
    let Some(low) = rebuild(lp, pointer, r, first, &mut HashMap::new())? else {
        return Ok(None);
    };
    let Some(high) = rebuild(lp, pointer, r, last, &mut HashMap::new())? else {
        return Ok(None);
    };
    Ok(Some((low, high)))
}

/// `v` with the loop's counter replaced by `count`, cloned before the loop where it depends on
/// it (None: not an increasing function of the counter that the pass can follow).
fn rebuild<'c>(
    lp: &CountedLoop<'c>,
    v: MlirValue,
    r: &Rewriter<'c>,
    count: MlirValue,
    done: &mut HashMap<usize, MlirValue>,
) -> Result<Option<MlirValue>, LowerError> {
    if v.ptr == lp.counter.ptr {
        return Ok(Some(count));
    }
    if defined_outside(v, lp.op.to_raw()) {
        return Ok(Some(v));
    }
    if let Some(&known) = done.get(&(v.ptr as usize)) {
        return Ok(Some(known));
    }
    let Some(op) = defining_op(v) else {
        return Ok(None);
    };
    // Operations whose result rises with each operand that depends on the counter (a sum,
    // only of signed values: C leaves their overflow undefined).
    let rises: &[&str] = match lp.signed {
        true => &[
            "llvm.getelementptr",
            "llvm.addrspacecast",
            "arith.extsi",
            "arith.addi",
        ],
        false => &["llvm.getelementptr", "llvm.addrspacecast", "arith.extui"],
    };
    if !rises.contains(&name_of(&op).as_str()) {
        return Ok(None);
    }
    let mut operands = Vec::new();
    for operand in op.operands() {
        match rebuild(lp, operand.to_raw(), r, count, done)? {
            Some(o) => operands.push(o),
            None => return Ok(None),
        }
    }
    // SAFETY: a copy of a live operation, inserted before the loop; its operands are replaced
    // by values defined there, of the same types.
    let copy = unsafe {
        let copy = melior::ir::Operation::from_raw(mlir_sys::mlirOperationClone(op.to_raw()));
        let copy = r.ops.insert(copy);
        for (i, o) in operands.iter().enumerate() {
            mlir_sys::mlirOperationSetOperand(copy.to_raw(), i as isize, *o);
        }
        copy
    };
    let result = copy
        .result(0)
        .map_err(|e| LowerError::bug(format!("hoisting a check: {e}")))?
        .to_raw();
    done.insert(v.ptr as usize, result);
    Ok(Some(result))
}

/// A counted loop's unchecked copy (its loop unswitched on the hoisted checks): where every
/// check that its accesses had hoisted before it passed, the loop runs as it was written, with
/// no check in its body, so that a CPU device compiler unrolls and vectorizes it as it does the
/// unchecked program (the tiled matmul's inner loop was 7x the unchecked kernel's time with a
/// branch on the hoisted checks in its body). Made before the pass changes the loop, and only
/// for loops whose every access lies directly in its body, where `counted_loop` finds them.
pub(super) struct LoopCopy {
    /// The loop the pass instruments.
    checked: MlirOperation,
    /// Its copy, right after it until placed (the pass's walk does not offer it).
    copy: Option<MlirOperation>,
    /// Whether every access of the loop had its checks hoisted.
    pub(super) versionable: bool,
    /// The uniform conditions under which the checked loop must run (a hoisted check failed
    /// in some lane, or a report was raised before a loop that writes).
    pub(super) failures: Vec<MlirValue>,
}

impl LoopCopy {
    /// The copy of `lp`, when each of its operations named in `accesses` lies in its body.
    pub(super) fn of<'c>(lp: &OperationRef<'c, 'c>, accesses: &[&str]) -> LoopCopy {
        let body = lp
            .region(1)
            .ok()
            .and_then(|r| r.first_block())
            .map(|b| b.to_raw().ptr);
        let mut direct = true;
        lp.walk(WalkOrder::PreOrder, |op| {
            if accesses.contains(&name_of(&op).as_str())
                && op.block().map(|b| b.to_raw().ptr) != body
            {
                direct = false;
            }
            WalkResult::Advance
        });
        let copy = match (direct, lp.block()) {
            (true, Some(block)) => {
                // SAFETY: a copy of the live loop, owned by the loop's block from here on.
                let copy =
                    unsafe { Operation::from_raw(mlir_sys::mlirOperationClone(lp.to_raw())) };
                Some(block.insert_operation_after(*lp, copy).to_raw())
            }
            _ => None,
        };
        LoopCopy {
            checked: lp.to_raw(),
            copy,
            versionable: direct,
            failures: Vec::new(),
        }
    }

    /// Puts the checked loop and its copy in `scf.if %failed { checked } else { copy }`, when
    /// every access had its checks hoisted (else the copy goes).
    pub(super) fn place(self, ctx: &Context) -> Result<(), LowerError> {
        let Some(copy) = self.copy else {
            return Ok(());
        };
        let err = |e: String| LowerError::bug(format!("unswitching a checked loop: {e}"));
        // SAFETY: the live loop the pass instrumented, and its live copy.
        let (checked, copy) = unsafe {
            (
                OperationRef::from_raw(self.checked),
                OperationRef::from_raw(copy),
            )
        };
        if !self.versionable || self.failures.is_empty() {
            return erase_unused(&copy).map_err(|e| err(e.to_string()));
        }
        let loc = checked.location();
        let before = Rewriter::before(ctx, &checked);
        let mut failed = self.failures[0];
        for f in &self.failures[1..] {
            failed = before.one("arith.ori", &[failed, *f], type_of(failed), &[])?;
        }
        let results = |op: &OperationRef<'_, '_>| -> Vec<MlirValue> {
            (0..op.result_count())
                .filter_map(|i| op.result(i).ok().map(|v| v.to_raw()))
                .collect()
        };
        let types: Vec<Type> = results(&checked).into_iter().map(type_of).collect();
        let yielding = |values: Vec<MlirValue>| {
            let block = Block::new(&[]);
            let values: Vec<Value> = values.into_iter().map(value).collect();
            let terminator = block.append_operation(scf::r#yield(&values, loc)).to_raw();
            (block, terminator)
        };
        let (then_block, then_yield) = yielding(results(&checked));
        let (else_block, else_yield) = yielding(results(&copy));
        let (then_region, else_region) = (Region::new(), Region::new());
        then_region.append_block(then_block);
        else_region.append_block(else_block);
        let branch = scf::r#if(value(failed), &types, then_region, else_region, loc);
        let block = checked
            .block()
            .ok_or_else(|| err("the loop is in no block".into()))?;
        let branch = block.insert_operation_after(copy, branch);
        // SAFETY: the scf.if's live terminators.
        let (then_yield, else_yield) = unsafe {
            (
                OperationRef::from_raw(then_yield),
                OperationRef::from_raw(else_yield),
            )
        };
        for i in 0..checked.result_count() {
            let of = checked.result(i).map_err(|e| err(e.to_string()))?;
            let with = branch.result(i).map_err(|e| err(e.to_string()))?;
            replace_all_uses_except(of, with, &then_yield);
        }
        move_before(&checked, &then_yield);
        move_before(&copy, &else_yield);
        Ok(())
    }
}
