//! Checks hoisted out of counted loops. An access directly in the body of an `scf.while` that
//! counts up by one to a bound fixed before the loop, whose address rises with the counter
//! (offsets of a pointer fixed before the loop, indexed by the counter widened with its own
//! signedness, plus values fixed before the loop), lies between its addresses at the first and
//! the last count: checked at those two ends before the loop, the access needs its own check
//! only when that failed (the pass then keeps it, so that the report names the first bad access
//! exactly).

use std::collections::HashMap;

use melior::dialect::arith::{self, CmpiPredicate};
use melior::ir::attribute::IntegerAttribute;
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::r#type::IntegerType;
use melior::ir::{OperationRef, RegionLike, ValueLike};

use crate::builder::integer_constant;
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
    pub(super) counter: MlirValue,
    /// The counter's width in bits.
    pub(super) width: u32,
    /// What the body adds to the counter (positive).
    pub(super) step: i64,
    pub(super) init: MlirValue,
    pub(super) bound: MlirValue,
    pub(super) inclusive: bool,
    pub(super) signed: bool,
}

impl CountedLoop<'_> {
    /// The comparison of the loop's condition (whether `init` is a count the loop runs).
    fn predicate(&self) -> CmpiPredicate {
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

pub(super) fn defining_op<'c>(v: MlirValue) -> Option<OperationRef<'c, 'c>> {
    // SAFETY: queries on a live value.
    unsafe {
        mlir_sys::mlirValueIsAOpResult(v)
            .then(|| OperationRef::from_raw(mlir_sys::mlirOpResultGetOwner(v)))
    }
}

pub(super) fn name_of(op: &OperationRef) -> String {
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

/// The `scf.while` whose body holds `access`, directly or under `scf.if`s (an access under a
/// condition lies between the same ends as one that runs at every count).
pub(super) fn enclosing_loop<'c>(access: &OperationRef<'c, 'c>) -> Option<OperationRef<'c, 'c>> {
    let mut block = access.block()?;
    loop {
        let parent = block.parent_operation()?;
        match name_of(&parent).as_str() {
            "scf.if" => block = parent.block()?,
            "scf.while" => {
                let body = parent.region(1).ok()?.first_block()?;
                return (body.to_raw().ptr == block.to_raw().ptr).then_some(parent);
            }
            _ => return None,
        }
    }
}

/// The counted loop whose body holds `access` (see [`enclosing_loop`]), if any.
pub(super) fn counted_loop<'c>(access: &OperationRef<'c, 'c>) -> Option<CountedLoop<'c>> {
    counted(enclosing_loop(access)?)
}

/// `op` (an `scf.while`) as a counted loop, if it is one.
pub(super) fn counted<'c>(op: OperationRef<'c, 'c>) -> Option<CountedLoop<'c>> {
    let after = op.region(1).ok()?.first_block()?;
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
    // The body yields `counter + step` in the counter's place, the step a positive constant.
    let counter = after.argument(position).ok()?.to_raw();
    let width = IntegerType::try_from(type_of(counter)).ok()?.width();
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
    let step = integer_constant(step).filter(|&s| s > 0 && (width >= 64 || s < 1 << width))?;
    let init = op.operand(position).ok()?.to_raw();
    Some(CountedLoop {
        op,
        guard,
        counter,
        width,
        step,
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
        && integer_constant(no.operand(0).ok()?.to_raw()) == Some(0)
        && defined_outside(guard, outer);
    guarded.then_some((compare, Some(guard)))
}

/// An access's addresses at the loop's first and last counts, computed before the loop, with
/// what else a check made there needs.
pub(super) struct Ends {
    /// Whether the loop runs at all (when not, the access never runs).
    pub(super) runs: MlirValue,
    pub(super) low: MlirValue,
    pub(super) high: MlirValue,
    /// Whether the count stays within its type's range up to the last count (a count that
    /// wraps around would run the body at counts outside the ends); None where it cannot wrap.
    pub(super) no_wrap: Option<MlirValue>,
}

/// How a value computed in the loop changes as the counter rises.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Slope {
    /// Not at all.
    Flat,
    Rises,
    Falls,
    /// One way throughout, which way told only by a value fixed before the loop (a product
    /// with one): its least and greatest values still lie at the ends.
    Monotone,
}

impl Slope {
    /// The slope of a sum.
    fn plus(self, other: Slope) -> Option<Slope> {
        match (self, other) {
            (Slope::Flat, s) | (s, Slope::Flat) => Some(s),
            (Slope::Rises, Slope::Rises) => Some(Slope::Rises),
            (Slope::Falls, Slope::Falls) => Some(Slope::Falls),
            _ => None,
        }
    }

    fn negated(self) -> Slope {
        match self {
            Slope::Rises => Slope::Falls,
            Slope::Falls => Slope::Rises,
            s => s,
        }
    }

    /// The slope of a product with a value fixed before the loop (`by`, when a constant).
    fn times(self, by: Option<i64>) -> Slope {
        match by {
            Some(0) => Slope::Flat,
            Some(c) if c > 0 => self,
            Some(_) => self.negated(),
            None if self == Slope::Flat => Slope::Flat,
            None => Slope::Monotone,
        }
    }
}

/// A value of the loop's body computed before the loop for one count.
#[derive(Clone, Copy)]
struct Rebuilt {
    value: MlirValue,
    slope: Slope,
    /// Set when `value` is the 64-bit extension (sign or zero) of the narrower integer the
    /// body computes: the ends are computed in 64 bits, so that a product or sum that the body
    /// never computes (the ends of an access under a condition) cannot wrap around.
    widened: Option<Extension>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Extension {
    Signed,
    Unsigned,
}

/// `pointer`'s values at the loop's first and last counts, computed before the loop (at `r`),
/// when it changes one way only with the count (then every count's address lies between
/// them); None when it may not, or depends on more of the loop than its counter.
pub(super) fn ends<'c>(
    lp: &CountedLoop<'c>,
    pointer: MlirValue,
    r: &Rewriter<'c>,
) -> Result<Option<Ends>, LowerError> {
    let i64t: Type = IntegerType::new(r.ctx, 64).into();
    let constant = |v: i64| r.arith_int(i64t, v);
    let widened = (lp.width < 64).then_some(match lp.signed {
        true => Extension::Signed,
        false => Extension::Unsigned,
    });
    let widen = |v: MlirValue| match widened {
        Some(Extension::Signed) => r.one("arith.extsi", &[v], i64t, &[]),
        Some(Extension::Unsigned) => r.one("arith.extui", &[v], i64t, &[]),
        None => Ok(v),
    };
    let (init, bound) = (widen(lp.init)?, widen(lp.bound)?);
    // The last count: init + ((bound - init - 1) / step) * step (bound - init where the bound
    // is a count the loop runs); meaningless when the loop does not run, where it is not used.
    let mut span = r.one("arith.subi", &[bound, init], i64t, &[])?;
    if !lp.inclusive {
        span = r.one("arith.subi", &[span, constant(1)?], i64t, &[])?;
    }
    if lp.step > 1 {
        let step = constant(lp.step)?;
        let steps = r.one("arith.divui", &[span, step], i64t, &[])?;
        span = r.one("arith.muli", &[steps, step], i64t, &[])?;
    }
    let last = r.one("arith.addi", &[init, span], i64t, &[])?;
    let count = |value| Rebuilt {
        value,
        slope: Slope::Rises,
        widened,
    };
    let Some(low) = rebuild(lp, pointer, r, count(init), &mut HashMap::new())? else {
        return Ok(None);
    };
    let Some(high) = rebuild(lp, pointer, r, count(last), &mut HashMap::new())? else {
        return Ok(None);
    };
    let mut runs = r.emit_value(arith::cmpi(
        r.ctx,
        lp.predicate(),
        value(lp.init),
        value(lp.bound),
        r.loc,
    ))?;
    if let Some(guard) = lp.guard {
        runs = r.one("arith.andi", &[runs, guard], type_of(runs), &[])?;
    }
    // Counting below a bound by one never passes the counter's greatest value; otherwise the
    // last count plus the step must not.
    let no_wrap = match (lp.inclusive, lp.step) {
        (false, 1) => None,
        _ => {
            let bits = lp.width.min(64);
            let greatest = match (lp.signed, bits) {
                (true, b) => (1i128 << (b - 1)) - 1,
                (false, b) => (1i128 << b) - 1,
            };
            // (The greatest count whose next count is still in range, as 64-bit bits.)
            let limit = (greatest - i128::from(lp.step)) as i64;
            let predicate = match lp.signed {
                true => CmpiPredicate::Sle,
                false => CmpiPredicate::Ule,
            };
            Some(r.emit_value(arith::cmpi(
                r.ctx,
                predicate,
                value(last),
                value(constant(limit)?),
                r.loc,
            ))?)
        }
    };
    Ok(Some(Ends {
        runs,
        low: low.value,
        high: high.value,
        no_wrap,
    }))
}

/// Whether an arith op says its signed result does not wrap (the frontend's `nsw`, on signed
/// arithmetic, whose overflow C leaves undefined).
pub(super) fn no_signed_wrap(op: &OperationRef, ctx: &Context) -> bool {
    op.attribute("overflowFlags")
        .is_ok_and(|flags| flags == hipmlir_ir::arith_no_signed_wrap(ctx))
}

/// `v` for the count `count`, cloned before the loop where it depends on the loop (None: not a
/// function of the counter that changes one way only, as the pass can follow).
fn rebuild<'c>(
    lp: &CountedLoop<'c>,
    v: MlirValue,
    r: &Rewriter<'c>,
    count: Rebuilt,
    done: &mut HashMap<usize, Rebuilt>,
) -> Result<Option<Rebuilt>, LowerError> {
    if v.ptr == lp.counter.ptr {
        return Ok(Some(count));
    }
    if defined_outside(v, lp.op.to_raw()) {
        return Ok(Some(Rebuilt {
            value: v,
            slope: Slope::Flat,
            widened: None,
        }));
    }
    if let Some(&known) = done.get(&(v.ptr as usize)) {
        return Ok(Some(known));
    }
    let Some(op) = defining_op(v) else {
        return Ok(None);
    };
    let name = name_of(&op);
    if !matches!(
        name.as_str(),
        "arith.constant"
            | "llvm.mlir.constant"
            | "llvm.addrspacecast"
            | "llvm.getelementptr"
            | "arith.extsi"
            | "arith.extui"
            | "arith.addi"
            | "arith.subi"
            | "arith.muli"
    ) {
        return Ok(None);
    }
    let mut operands = Vec::new();
    for operand in op.operands() {
        match rebuild(lp, operand.to_raw(), r, count, done)? {
            Some(o) => operands.push(o),
            None => return Ok(None),
        }
    }
    let i64t: Type = IntegerType::new(r.ctx, 64).into();
    let result_type = type_of(v);
    let rebuilt = match name.as_str() {
        "arith.extsi" | "arith.extui" => {
            let o = operands[0];
            let extension = match name.as_str() {
                "arith.extsi" => Extension::Signed,
                _ => Extension::Unsigned,
            };
            match o.widened {
                // The operand is already the extension this op makes.
                Some(e) if e == extension && result_type == i64t => Rebuilt { widened: None, ..o },
                Some(_) => return Ok(None),
                None => clone_with(&op, r, &operands, o.slope)?,
            }
        }
        "arith.addi" | "arith.subi" | "arith.muli" => {
            let (a, b) = (operands[0], operands[1]);
            let slope = match name.as_str() {
                "arith.addi" => a.slope.plus(b.slope),
                "arith.subi" => a.slope.plus(b.slope.negated()),
                _ => match (a.slope, b.slope) {
                    (Slope::Flat, s) => Some(s.times(integer_constant(a.value))),
                    (s, Slope::Flat) => Some(s.times(integer_constant(b.value))),
                    _ => None,
                },
            };
            let Some(slope) = slope else {
                return Ok(None);
            };
            // Arithmetic on the count must not wrap for its result to follow the count (only
            // signed arithmetic says so); it is redone in 64 bits on extended operands.
            if slope != Slope::Flat && !no_signed_wrap(&op, r.ctx) {
                return Ok(None);
            }
            if a.widened.or(b.widened) == Some(Extension::Unsigned) {
                return Ok(None);
            }
            let wide = a.widened.or(b.widened).is_some() && result_type != i64t;
            if wide {
                let extend = |o: Rebuilt| match o.widened {
                    Some(_) => Ok(o.value),
                    None => r.one("arith.extsi", &[o.value], i64t, &[]),
                };
                let value = r.one(&name, &[extend(a)?, extend(b)?], i64t, &[])?;
                Rebuilt {
                    value,
                    slope,
                    widened: Some(Extension::Signed),
                }
            } else {
                // (Built anew, without the no-wrap flag: at counts the body never reaches a
                // flagged result that wrapped would be poison.)
                let value = r.one(&name, &[a.value, b.value], result_type, &[])?;
                Rebuilt {
                    value,
                    slope,
                    widened: None,
                }
            }
        }
        "llvm.getelementptr" => {
            // The address rises with each index (element sizes are positive); an index the
            // op would sign-extend may stand in widened by sign.
            if operands
                .iter()
                .any(|o| o.widened == Some(Extension::Unsigned))
            {
                return Ok(None);
            }
            let mut slope = Slope::Flat;
            for o in &operands {
                slope = match slope.plus(o.slope) {
                    Some(s) => s,
                    None => return Ok(None),
                };
            }
            clone_with(&op, r, &operands, slope)?
        }
        // Constants, and address-space casts, which keep the order of addresses.
        _ => clone_with(
            &op,
            r,
            &operands,
            operands.first().map_or(Slope::Flat, |o| o.slope),
        )?,
    };
    done.insert(v.ptr as usize, rebuilt);
    Ok(Some(rebuilt))
}

/// A copy of `op` at `r` with `operands` in place of its own (a GEP's index may be a wider
/// integer), as a rebuilt value of `slope`.
fn clone_with<'c>(
    op: &OperationRef<'c, 'c>,
    r: &Rewriter<'c>,
    operands: &[Rebuilt],
    slope: Slope,
) -> Result<Rebuilt, LowerError> {
    let operands: Vec<MlirValue> = operands.iter().map(|o| o.value).collect();
    Ok(Rebuilt {
        value: r.copy_with_operands(op, &operands)?,
        slope,
        widened: None,
    })
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
    /// The copy of `lp`, when each of its operations named in `accesses` lies in its body
    /// (directly or under `scf.if`s: not in an inner loop, whose accesses' checks are hoisted
    /// before that loop, not this one).
    pub(super) fn of<'c>(lp: &OperationRef<'c, 'c>, accesses: &[&str]) -> LoopCopy {
        let mut direct = true;
        lp.walk(WalkOrder::PreOrder, |op| {
            if accesses.contains(&name_of(&op).as_str())
                && enclosing_loop(&op).map(|l| l.to_raw().ptr) != Some(lp.to_raw().ptr)
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
