//! Checks hoisted out of the work-group: a kernel's unchecked copy. Where every checked access
//! of a kernel has an address that is an affine function of the work-item's ids and of counted
//! loops' counters (with coefficients the same for the whole work-group: kernel arguments,
//! block ids and sizes, constants), its least and greatest addresses over the work-group lie at
//! the corners of that space. Those corners are checked once at the kernel's entry, and where
//! all of them pass the kernel runs a copy of its body made before the pass changed it, with no
//! check in it: a CPU device compiler that runs work-items as vector lanes then vectorizes it as
//! it does the unchecked kernel (vector_add, saxpy and half2_max ran 3.5 to 10 times the
//! unchecked kernel's time with their checks in the work-item loop on an AVX2 CPU). Elsewhere
//! (the last block of `if (i < n)`, a bad access) the checked body runs, and reports the first
//! bad access exactly.
//!
//! The corners are computed in 64 bits. A 32-bit result the body computes is the 64-bit one
//! only while that fits in 32 bits; each such result is checked to fit at every corner (an
//! affine function fits everywhere between its corners where it fits at them), and the copy
//! runs only where all fit. The condition is the same for all work-items of a work-group, so
//! that barriers in the body are reached by all of them in the same copy. In a kernel with a
//! barrier, the work-group's first work-item alone computes it (see
//! [`KernelCopy::stage_passed`]). The copy's writes to
//! memory outside the kernel wait for a clear error word as the checked ones do (nothing is
//! written after the first bad access that another work-group reported).

use std::collections::{HashMap, HashSet};

use melior::dialect::arith::CmpiPredicate;
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, WalkOrder, WalkResult};
use melior::ir::r#type::IntegerType;
use melior::ir::r#type::TypeLike;
use melior::ir::{OperationRef, RegionLike, Type, ValueLike};
use melior::Context;
use mlir_sys::{MlirOperation, MlirValue};

use super::divergence::{UNIFORM, UNIFORM_WITH_OPERANDS};
use super::loops::{counted, defining_op, name_of, no_signed_wrap};
use super::{err, target_of, Build, ObjectKind, Target, Variable};
use crate::builder::{integer_constant, type_of, value, Rewriter};
use crate::LowerError;
use hipmlir_device_image::memcheck::STATE_ERROR;
use hipmlir_ir::rewrite::move_before;
use hipmlir_ir::GpuDimension;
use melior::dialect::scf;
use melior::ir::{Block, Region};

/// The most counters (thread ids and loop counters) an address may depend on: its corners are
/// 2^counters checks at the entry.
const MAX_COUNTERS: usize = 5;

/// The most corners a kernel checks at its entry: past them the kernel keeps its checks in
/// its body only (a kernel of thousands of affine accesses would otherwise make an entry of
/// thousands of checks, for the device compiler to build and each work-group to run).
const MAX_CORNERS: usize = 256;

/// The bound (as a power of two) a 64-bit value of unknown size the corners compute with is
/// checked at the entry to lie within, so that the 64-bit arithmetic on it cannot wrap.
const ASSUMED_BITS: u32 = 40;

/// The most bits a result computed at the corners may need: within them, the 64-bit
/// arithmetic is exact.
const EXACT_BITS: u32 = 62;

/// The bits of a thread id: a work-group holds fewer than 2^31 work-items on every device the
/// runtime launches on (HIP allows 1024).
const THREAD_ID_BITS: u32 = 31;

/// Operations a kernel's entry block keeps in front of the body both copies share: its local
/// variables and the constants their sizes are.
const SHARED_PREFIX: [&str; 3] = ["llvm.alloca", "arith.constant", "llvm.mlir.constant"];

/// A dimension of the work-group's iteration space.
enum Counter {
    /// The work-item's id in a dimension of the block (0 to blockDim - 1).
    Thread(GpuDimension),
    /// A counted loop's counter (`init` to `bound` - 1, or `bound` where inclusive).
    Loop {
        value: MlirValue,
        init: MlirValue,
        bound: MlirValue,
        inclusive: bool,
        signed: bool,
        width: u32,
        step: i64,
    },
}

/// What the analysis knows of a value: the counters it depends on (a mask) and a bound on its
/// size as a 64-bit number (|v| <= 2^bits).
#[derive(Clone, Copy)]
struct Info {
    counters: u32,
    bits: u32,
}

/// A value rebuilt at the entry for one corner.
#[derive(Clone, Copy)]
enum Built {
    /// The same for every work-item: the value itself, computed at the entry.
    Flat(MlirValue),
    /// An integer that depends on the counters, as its exact 64-bit value.
    Wide(MlirValue),
    /// A pointer that depends on the counters.
    Pointer(MlirValue),
}

/// A kernel being checked and its unchecked copy (see the module's comment).
pub(super) struct KernelCopy {
    /// The entry block's operation after its allocas and constants: the entry's checks go
    /// before it.
    marker: MlirOperation,
    /// The entry block's operations before the marker.
    prefix: HashSet<usize>,
    /// The operation the versioned body starts after: the marker, or one at the start of the
    /// kernel's guard (see [`KernelCopy::prepare`]).
    body: MlirOperation,
    /// The kernel as it was, detached; destroyed once its body is moved out.
    copy: Option<MlirOperation>,
    /// The copy's operation at `body`'s place.
    copy_body: MlirOperation,
    /// The operations before the body that both copies share, each with its copy's.
    shared: Vec<(MlirOperation, MlirOperation)>,
    /// `scf.if %true -> i1 { ...; yield }` before the marker: the corners are computed in it,
    /// in front of `stage_end`, its yield's operand (see [`KernelCopy::stage_passed`]).
    stage: MlirOperation,
    stage_end: MlirOperation,
    /// Whether the kernel has a barrier.
    barrier: bool,
    /// Whether every checked access of the kernel had its corners checked.
    versionable: bool,
    /// Whether every corner checked so far passed (None: none was checked), and how many.
    passed: Option<MlirValue>,
    corners: usize,
    counters: Vec<Counter>,
    info: HashMap<usize, Option<Info>>,
    /// Values the same for the whole work-group, computed at the entry.
    flat: HashMap<usize, MlirValue>,
    /// The bounds the conditions around the access being hoisted put on counters: (counter,
    /// bound, inclusive, signed).
    bounds: Vec<(usize, MlirValue, bool, bool)>,
}

impl Drop for KernelCopy {
    fn drop(&mut self) {
        if let Some(copy) = self.copy.take() {
            // SAFETY: the detached clone this value owns, used by nothing.
            unsafe { mlir_sys::mlirOperationDestroy(copy) };
        }
    }
}

impl KernelCopy {
    /// Prepares `function` (a kernel of one block): its entry's allocas and constants go to the
    /// front, a marker after them, and the kernel is copied as it is. The copy's body is what
    /// follows the marker; where that is the kernel's guard (`if (i < n) { ... }` and what it
    /// is computed from), the guard's body: a device compiler that runs work-items as vector
    /// lanes turns such a guard into the bounds of its loop over the work-group, as it does in
    /// the unchecked kernel (a branch around the guard kept Intel's CPU compiler from it: every
    /// access then a masked one). None where the kernel has more blocks, or an alloca sized by
    /// something else.
    pub(super) fn prepare(
        ctx: &Context,
        function: &OperationRef,
    ) -> Result<Option<KernelCopy>, LowerError> {
        let Some(entry) = function.region(0).ok().and_then(|r| r.first_block()) else {
            return Ok(None);
        };
        if entry.next_in_region().is_some() {
            return Ok(None);
        }
        let Some(terminator) = entry.terminator() else {
            return Ok(None);
        };
        let ops = block_ops(&entry);
        let kept: HashSet<usize> = ops
            .iter()
            .filter(|op| SHARED_PREFIX.contains(&name_of(op).as_str()))
            .map(|op| op.to_raw().ptr as usize)
            .collect();
        for op in &ops {
            if kept.contains(&(op.to_raw().ptr as usize))
                && !op.operands().all(|o| {
                    defining_op(o.to_raw())
                        .is_some_and(|d| kept.contains(&(d.to_raw().ptr as usize)))
                })
            {
                return Ok(None);
            }
        }
        let first_other = ops
            .iter()
            .find(|op| !kept.contains(&(op.to_raw().ptr as usize)))
            .copied()
            .unwrap_or(terminator);
        for op in &ops {
            if kept.contains(&(op.to_raw().ptr as usize)) {
                move_before(op, &first_other);
            }
        }
        let i1: Type = IntegerType::new(ctx, 1).into();
        let new_marker = |r: Rewriter| -> Result<MlirOperation, LowerError> {
            Ok(defining_op(r.arith_int(i1, 1)?)
                .ok_or_else(|| err("the body's marker"))?
                .to_raw())
        };
        let marker = new_marker(Rewriter::before(ctx, &first_other))?;
        // SAFETY: the marker just built.
        let body = match kernel_guard(unsafe { OperationRef::from_raw(marker) }) {
            Some(block) => new_marker(Rewriter::at_start(ctx, block, function.location()))?,
            None => marker,
        };
        // SAFETY: a clone of the live kernel, detached: this value owns it.
        let copy = unsafe { mlir_sys::mlirOperationClone(function.to_raw()) };
        // The operations before the body, paired with the copy's (the two are alike now).
        let mut shared = Vec::new();
        let mut copy_body = None;
        let mut pair = |original: Option<OperationRef>, copied: Option<OperationRef>| {
            let (mut o, mut c) = (original, copied);
            while let (Some(op), Some(cop)) = (o, c) {
                if op.to_raw().ptr == body.ptr {
                    copy_body = Some(cop.to_raw());
                    return None;
                }
                if name_of(&op) == "scf.if" {
                    // (The guard: the body is in its first region.)
                    let first = |op: OperationRef| {
                        op.region(0)
                            .ok()
                            .and_then(|r| r.first_block())
                            .and_then(|b| b.first_operation())
                            .map(|f| f.to_raw())
                    };
                    return Some((first(op), first(cop)));
                }
                shared.push((op.to_raw(), cop.to_raw()));
                (o, c) = (op.next_in_block(), cop.next_in_block());
            }
            None
        };
        // SAFETY: the live clone; its entry block is the kernel's, copied.
        let copy_entry = unsafe { OperationRef::from_raw(copy) }
            .region(0)
            .ok()
            .and_then(|r| r.first_block())
            .and_then(|b| b.first_operation());
        if let Some((Some(o), Some(c))) = pair(entry.first_operation(), copy_entry) {
            // SAFETY: the first operations of the guard's bodies, live.
            unsafe {
                pair(
                    Some(OperationRef::from_raw(o)),
                    Some(OperationRef::from_raw(c)),
                )
            };
        }
        let Some(copy_body) = copy_body else {
            // SAFETY: the detached clone, used by nothing.
            unsafe { mlir_sys::mlirOperationDestroy(copy) };
            return Err(err("the copy's body"));
        };
        // (Made after the copy: it is the kernel's own.)
        // SAFETY: the marker just built.
        let r = Rewriter::before(ctx, unsafe { &OperationRef::from_raw(marker) });
        let always = r.arith_int(i1, 1)?;
        let ends = std::cell::Cell::new(None);
        let staged = r.scf_if_values(
            always,
            &[i1],
            |then| {
                let end = then.arith_int(i1, 1)?;
                ends.set(defining_op(end).map(|op| op.to_raw()));
                Ok(vec![end])
            },
            |otherwise| Ok(vec![otherwise.arith_int(i1, 0)?]),
        )?;
        let stage = defining_op(staged[0]).ok_or_else(|| err("the entry's stage"))?;
        let stage_end = ends.get().ok_or_else(|| err("the entry's stage"))?;
        let mut barrier = false;
        function.walk(WalkOrder::PreOrder, |op| {
            barrier |= name_of(&op) == "gpu.barrier";
            WalkResult::Advance
        });
        Ok(Some(KernelCopy {
            stage: stage.to_raw(),
            stage_end,
            barrier,
            marker,
            prefix: kept,
            body,
            copy: Some(copy),
            copy_body,
            shared,
            versionable: true,
            passed: None,
            corners: 0,
            counters: Vec::new(),
            info: HashMap::new(),
            flat: HashMap::new(),
            bounds: Vec::new(),
        }))
    }

    /// The kernel cannot run unchecked (an access whose corners are unknown).
    pub(super) fn give_up(&mut self) {
        self.versionable = false;
    }

    /// Checks `pointer`'s corners at the entry with `check` (the access's fast check of a
    /// pointer); gives up where the address is not such a function.
    pub(super) fn hoist<'c>(
        &mut self,
        ctx: &'c Context,
        access: &OperationRef,
        pointer: MlirValue,
        check: impl Fn(&Build<'_, 'c>, MlirValue) -> Result<MlirValue, LowerError>,
    ) -> Result<(), LowerError> {
        if !self.versionable {
            return Ok(());
        }
        self.bounds.clear();
        let mut current = access.block();
        while let Some(block) = current {
            let Some(parent) = block.parent_operation() else {
                break;
            };
            let in_then = parent
                .region(0)
                .ok()
                .and_then(|r| r.first_block())
                .is_some_and(|b| b.to_raw().ptr == block.to_raw().ptr);
            if name_of(&parent) == "scf.if" && in_then {
                if let Ok(condition) = parent.operand(0) {
                    self.collect_bounds(ctx, condition.to_raw());
                }
            }
            current = parent.block();
        }
        let Some(info) = self.analyze(ctx, pointer) else {
            self.versionable = false;
            return Ok(());
        };
        let ids: Vec<usize> = (0..MAX_COUNTERS)
            .filter(|i| info.counters & (1 << i) != 0)
            .collect();
        self.corners += 1 << ids.len();
        if self.corners > MAX_CORNERS {
            self.versionable = false;
            return Ok(());
        }
        // SAFETY: the stage's end is a live operation of the kernel's entry.
        let end = unsafe { OperationRef::from_raw(self.stage_end) };
        let r = Rewriter::before(ctx, &end);
        let b = Build { r: &r, ctx };
        for corner in 0..1u32 << ids.len() {
            let high = ids
                .iter()
                .enumerate()
                .filter(|(bit, _)| corner & (1 << bit) != 0)
                .fold(0, |mask, (_, id)| mask | 1 << id);
            let mut conditions = Vec::new();
            let built = self.build(&r, pointer, high, &mut HashMap::new(), &mut conditions)?;
            let (Some(Built::Pointer(p)) | Some(Built::Flat(p))) = built else {
                self.versionable = false;
                return Ok(());
            };
            let mut ok = check(&b, p)?;
            for c in conditions {
                ok = b.binary("arith.andi", ok, c)?;
            }
            self.passed = Some(match self.passed {
                Some(passed) => b.binary("arith.andi", passed, ok)?,
                None => ok,
            });
        }
        Ok(())
    }

    /// The bounds `condition` (true where the access runs) puts on counters: `counter < bound`
    /// and the like, with a bound the same for the work-group, and conjunctions of them.
    fn collect_bounds(&mut self, ctx: &Context, condition: MlirValue) {
        let Some(op) = defining_op(condition) else {
            return;
        };
        match name_of(&op).as_str() {
            "arith.andi" => {
                for o in op.operands() {
                    self.collect_bounds(ctx, o.to_raw());
                }
            }
            "arith.cmpi" => {
                let Some(predicate) = op
                    .attribute("predicate")
                    .ok()
                    .and_then(|a| melior::ir::attribute::IntegerAttribute::try_from(a).ok())
                    .map(|a| a.value())
                else {
                    return;
                };
                let (Ok(a), Ok(b)) = (op.operand(0), op.operand(1)) else {
                    return;
                };
                let (a, b) = (a.to_raw(), b.to_raw());
                // (counter, bound) by predicate: slt, sle, ult, ule; sgt, sge, ugt, uge with
                // the counter on the right.
                let (counted, bound, inclusive, signed) = match predicate {
                    2 => (a, b, false, true),
                    3 => (a, b, true, true),
                    6 => (a, b, false, false),
                    7 => (a, b, true, false),
                    4 => (b, a, false, true),
                    5 => (b, a, true, true),
                    8 => (b, a, false, false),
                    9 => (b, a, true, false),
                    _ => return,
                };
                let Some(counter) = self.counter_behind(ctx, counted) else {
                    return;
                };
                if self.analyze(ctx, bound).is_some_and(|i| i.counters == 0) {
                    self.bounds.push((counter, bound, inclusive, signed));
                }
            }
            _ => {}
        }
    }

    /// The counter `v` holds as it is: the counter, widened, or a thread id as 32 bits (which
    /// it fits).
    fn counter_behind(&mut self, ctx: &Context, v: MlirValue) -> Option<usize> {
        if let Some(Some(id)) = self.counter_of(ctx, v) {
            return Some(id);
        }
        let op = defining_op(v)?;
        let inner = op.operand(0).ok()?.to_raw();
        let widening = integer_width(type_of(v))? >= integer_width(type_of(inner))?;
        let of_thread = defining_op(inner).is_some_and(|d| name_of(&d) == "gpu.thread_id");
        match name_of(&op).as_str() {
            "arith.extsi" | "arith.extui" | "arith.index_cast" | "arith.index_castui"
                if widening =>
            {
                self.counter_behind(ctx, inner)
            }
            "arith.index_cast" | "arith.index_castui" if of_thread => {
                self.counter_behind(ctx, inner)
            }
            _ => None,
        }
    }

    /// Whether `v` is defined before the body (an argument of the kernel, or the prefix).
    fn before_body(&self, v: MlirValue) -> bool {
        match defining_op(v) {
            Some(op) => self.prefix.contains(&(op.to_raw().ptr as usize)),
            // SAFETY: queries on a live block argument and its owner.
            None => unsafe {
                let block = mlir_sys::mlirBlockArgumentGetOwner(v);
                let marker_block = mlir_sys::mlirOperationGetBlock(self.marker);
                block.ptr == marker_block.ptr
            },
        }
    }

    /// The counter `v` is (registering a loop's on first sight).
    fn counter_of(&mut self, ctx: &Context, v: MlirValue) -> Option<Option<usize>> {
        if let Some(op) = defining_op(v) {
            if name_of(&op) != "gpu.thread_id" {
                return Some(None);
            }
            let dimension = op.attribute("dimension").ok()?;
            let d = GpuDimension::ALL
                .into_iter()
                .find(|d| d.attribute(ctx) == dimension)?;
            let at = self
                .counters
                .iter()
                .position(|c| matches!(c, Counter::Thread(t) if *t == d));
            return Some(Some(match at {
                Some(at) => at,
                None => self.register(Counter::Thread(d))?,
            }));
        }
        if self.before_body(v) {
            return Some(None);
        }
        // A block argument in the body: a counted loop's counter, or unknown.
        if let Some(at) = self
            .counters
            .iter()
            .position(|c| matches!(c, Counter::Loop { value, .. } if value.ptr == v.ptr))
        {
            return Some(Some(at));
        }
        // SAFETY: queries on a live block argument and its owner.
        let parent = unsafe {
            let block = mlir_sys::mlirBlockArgumentGetOwner(v);
            OperationRef::from_raw(mlir_sys::mlirBlockGetParentOperation(block))
        };
        if name_of(&parent) != "scf.while" {
            return None;
        }
        let lp = counted(parent)?;
        if lp.counter.ptr != v.ptr {
            return None;
        }
        Some(Some(self.register(Counter::Loop {
            value: v,
            init: lp.init,
            bound: lp.bound,
            inclusive: lp.inclusive,
            signed: lp.signed,
            width: lp.width,
            step: lp.step,
        })?))
    }

    fn register(&mut self, counter: Counter) -> Option<usize> {
        (self.counters.len() < MAX_COUNTERS).then(|| {
            self.counters.push(counter);
            self.counters.len() - 1
        })
    }

    /// What `v` depends on and how large it may be (None: not an affine function of the
    /// counters the pass can rebuild at the entry).
    fn analyze(&mut self, ctx: &Context, v: MlirValue) -> Option<Info> {
        if let Some(known) = self.info.get(&(v.ptr as usize)) {
            return *known;
        }
        // (Unknown while it is being looked at: a cycle gives up.)
        self.info.insert(v.ptr as usize, None);
        let info = self.analyze_new(ctx, v);
        self.info.insert(v.ptr as usize, info);
        info
    }

    fn analyze_new(&mut self, ctx: &Context, v: MlirValue) -> Option<Info> {
        if let Some(id) = self.counter_of(ctx, v)? {
            let bits = match &self.counters[id] {
                Counter::Thread(_) => THREAD_ID_BITS,
                &Counter::Loop {
                    init, bound, width, ..
                } => {
                    let ends = [self.analyze(ctx, init)?, self.analyze(ctx, bound)?];
                    if width < 64 {
                        width - 1
                    } else {
                        ends.iter().map(|e| e.bits).max()? + 1
                    }
                }
            };
            return Some(Info {
                counters: 1 << id,
                bits,
            });
        }
        if self.before_body(v) {
            return Some(Info {
                counters: 0,
                bits: flat_bits(v).unwrap_or(ASSUMED_BITS),
            });
        }
        let op = defining_op(v)?;
        let name = name_of(&op);
        if UNIFORM.contains(&name.as_str()) {
            return Some(Info {
                counters: 0,
                bits: flat_bits(v).unwrap_or(ASSUMED_BITS),
            });
        }
        let mut operands = Vec::new();
        for o in op.operands() {
            operands.push(self.analyze(ctx, o.to_raw())?);
        }
        let counters = operands.iter().fold(0, |m, o| m | o.counters);
        if counters == 0 {
            return UNIFORM_WITH_OPERANDS
                .contains(&name.as_str())
                .then(|| Info {
                    counters: 0,
                    bits: flat_bits(v).unwrap_or(ASSUMED_BITS),
                });
        }
        let width = integer_width(type_of(v));
        let bits = match name.as_str() {
            "arith.addi" | "arith.subi" => operands[0].bits.max(operands[1].bits) + 1,
            "arith.muli" => {
                // An affine function: one factor the same for the whole work-group.
                if operands[0].counters != 0 && operands[1].counters != 0 {
                    return None;
                }
                operands[0].bits + operands[1].bits
            }
            "arith.shli" => {
                let shift = integer_constant(op.operand(1).ok()?.to_raw())?;
                if !(0..32).contains(&shift) || operands[1].counters != 0 {
                    return None;
                }
                operands[0].bits + shift as u32
            }
            "arith.extsi" | "arith.extui" | "arith.trunci" | "arith.index_cast"
            | "arith.index_castui" => {
                let from = integer_width(op.operand(0).ok()?.r#type())?;
                return Some(Info {
                    counters,
                    bits: operands[0].bits.min(width?.min(from) - 1),
                });
            }
            "llvm.getelementptr" | "llvm.addrspacecast" => {
                return Some(Info { counters, bits: 64 })
            }
            _ => return None,
        };
        let width = width?;
        if bits <= EXACT_BITS {
            // A narrow result is checked to fit its width at the corners.
            return Some(Info {
                counters,
                bits: if width < 64 { width - 1 } else { bits },
            });
        }
        // Signed arithmetic that says it does not wrap (C leaves that undefined) on 64 bits.
        (width == 64 && no_signed_wrap(&op, ctx)).then_some(Info { counters, bits: 63 })
    }

    /// `v` for the corner `high` (the counters at their greatest end; the others at their
    /// least), built at `r`; `conditions` gets what must hold there for it to be exact.
    fn build<'c>(
        &mut self,
        r: &Rewriter<'c>,
        v: MlirValue,
        high: u32,
        memo: &mut HashMap<usize, Built>,
        conditions: &mut Vec<MlirValue>,
    ) -> Result<Option<Built>, LowerError> {
        let ctx = r.ctx;
        let Some(info) = self.analyze(ctx, v) else {
            return Ok(None);
        };
        if info.counters == 0 {
            return Ok(self.flat(r, v)?.map(Built::Flat));
        }
        if let Some(&known) = memo.get(&(v.ptr as usize)) {
            return Ok(Some(known));
        }
        let b = Build { r, ctx };
        let i64t = b.i64();
        if let Some(Some(id)) = self.counter_of(ctx, v) {
            let built = self.counter_end(r, id, high, memo, conditions)?;
            if let Some(built) = built {
                memo.insert(v.ptr as usize, built);
            }
            return Ok(built);
        }
        let Some(op) = defining_op(v) else {
            return Ok(None);
        };
        let name = name_of(&op);
        let mut operands = Vec::new();
        for o in op.operands() {
            match self.build(r, o.to_raw(), high, memo, conditions)? {
                Some(built) => operands.push((o.to_raw(), built)),
                None => return Ok(None),
            }
        }
        let width = integer_width(type_of(v));
        let built = match name.as_str() {
            "arith.addi" | "arith.subi" | "arith.muli" | "arith.shli" => {
                let mut wide = Vec::new();
                for &(original, built) in &operands {
                    wide.push(self.wide(&b, original, built, conditions)?);
                }
                let result = match name.as_str() {
                    "arith.shli" => {
                        let shift = integer_constant(operands[1].0).unwrap_or(0);
                        b.binary("arith.muli", wide[0], b.int(1 << shift)?)?
                    }
                    _ => r.one(&name, &[wide[0], wide[1]], i64t, &[])?,
                };
                if let Some(w) = width.filter(|&w| w < 64) {
                    conditions.push(fits(&b, result, w)?);
                }
                Built::Wide(result)
            }
            "arith.extsi" | "arith.extui" | "arith.trunci" | "arith.index_cast"
            | "arith.index_castui" => {
                let Built::Wide(wide) = operands[0].1 else {
                    return Ok(None);
                };
                let from = integer_width(type_of(operands[0].0)).unwrap_or(64);
                let to = width.unwrap_or(64);
                if to < from {
                    conditions.push(fits(&b, wide, to)?);
                } else if to > from && matches!(name.as_str(), "arith.extui" | "arith.index_castui")
                {
                    // (Zero-extended, a value is itself only where it is not negative.)
                    conditions.push(b.cmp(CmpiPredicate::Sge, wide, b.int(0)?)?);
                }
                Built::Wide(wide)
            }
            "llvm.getelementptr" | "llvm.addrspacecast" => {
                let values: Vec<MlirValue> = operands
                    .iter()
                    .map(|(_, built)| match built {
                        Built::Flat(v) | Built::Wide(v) | Built::Pointer(v) => *v,
                    })
                    .collect();
                Built::Pointer(r.copy_with_operands(&op, &values)?)
            }
            _ => return Ok(None),
        };
        memo.insert(v.ptr as usize, built);
        Ok(Some(built))
    }

    /// A counter at its least or greatest end, as its exact 64-bit value.
    fn counter_end<'c>(
        &mut self,
        r: &Rewriter<'c>,
        id: usize,
        high: u32,
        memo: &mut HashMap<usize, Built>,
        conditions: &mut Vec<MlirValue>,
    ) -> Result<Option<Built>, LowerError> {
        let ctx = r.ctx;
        let b = Build { r, ctx };
        let greatest = high & (1 << id) != 0;
        let (init, bound, inclusive, signed, width, step) = match self.counters[id] {
            Counter::Thread(_) if !greatest => return Ok(Some(Built::Wide(b.int(0)?))),
            Counter::Thread(d) => {
                let index = melior::ir::Type::index(ctx);
                let dimension = [("dimension", d.attribute(ctx))];
                let size = r.one("gpu.block_dim", &[], index, &dimension)?;
                let size = r.one("arith.index_cast", &[size], b.i64(), &[])?;
                let last = b.binary("arith.subi", size, b.int(1)?)?;
                return Ok(Some(Built::Wide(self.refined(r, id, last, conditions)?)));
            }
            Counter::Loop {
                init,
                bound,
                inclusive,
                signed,
                width,
                step,
                ..
            } => (init, bound, inclusive, signed, width, step),
        };
        let Some(first) = self.count(r, init, signed, width, high, memo, conditions)? else {
            return Ok(None);
        };
        if !greatest {
            return Ok(Some(Built::Wide(first)));
        }
        let Some(limit) = self.count(r, bound, signed, width, high, memo, conditions)? else {
            return Ok(None);
        };
        // The last count: exact where both ends are the same for the work-group (a loop by
        // tiles: `t < n; t += 16` ends at n - 16, not n - 1); else the bound's side of it.
        let mut last = match inclusive {
            true => limit,
            false => b.binary("arith.subi", limit, b.int(1)?)?,
        };
        let flat = |s: &mut Self, v| s.analyze(ctx, v).is_some_and(|i| i.counters == 0);
        if step > 1 && flat(self, init) && flat(self, bound) {
            let span = b.binary("arith.subi", last, first)?;
            let steps = b.binary("arith.divsi", span, b.int(step)?)?;
            let span = b.binary("arith.muli", steps, b.int(step)?)?;
            last = b.binary("arith.addi", first, span)?;
        }
        // The count after the last one must not wrap around (it would run the body at counts
        // outside the ends).
        if width < 64 {
            let greatest_count = match signed {
                true => (1i64 << (width - 1)) - 1,
                false => (1i64 << width) - 1,
            };
            let next = b.binary("arith.addi", last, b.int(step)?)?;
            conditions.push(b.cmp(CmpiPredicate::Sle, next, b.int(greatest_count)?)?);
        }
        Ok(Some(Built::Wide(self.refined(r, id, last, conditions)?)))
    }

    /// A loop's end `end` as its counter's value (a signed count's by sign, an unsigned one's
    /// by zero), checked to fit the counter.
    #[allow(clippy::too_many_arguments)]
    fn count<'c>(
        &mut self,
        r: &Rewriter<'c>,
        end: MlirValue,
        signed: bool,
        width: u32,
        high: u32,
        memo: &mut HashMap<usize, Built>,
        conditions: &mut Vec<MlirValue>,
    ) -> Result<Option<MlirValue>, LowerError> {
        let ctx = r.ctx;
        let b = Build { r, ctx };
        let wide = match self.build(r, end, high, memo, conditions)? {
            Some(Built::Flat(v)) if width < 64 && !signed => {
                r.one("arith.extui", &[v], b.i64(), &[])?
            }
            Some(built @ Built::Flat(_)) => self.wide(&b, end, built, conditions)?,
            Some(Built::Wide(v)) => v,
            _ => return Ok(None),
        };
        if width < 64 {
            conditions.push(fits(&b, wide, width)?);
        }
        Ok(Some(wide))
    }

    /// A counter's greatest end `last` lowered to the bounds the conditions around the access
    /// put on it (`if (threadIdx.x < 3)`).
    fn refined<'c>(
        &mut self,
        r: &Rewriter<'c>,
        id: usize,
        mut last: MlirValue,
        conditions: &mut Vec<MlirValue>,
    ) -> Result<MlirValue, LowerError> {
        let ctx = r.ctx;
        let b = Build { r, ctx };
        for (counter, bound, inclusive, signed) in self.bounds.clone() {
            if counter != id {
                continue;
            }
            let Some(bound) = self.flat(r, bound)? else {
                continue;
            };
            let wide = match (signed, integer_width(type_of(bound))) {
                (false, Some(w)) if w < 64 => r.one("arith.extui", &[bound], b.i64(), &[])?,
                _ => self.wide(&b, bound, Built::Flat(bound), conditions)?,
            };
            let greatest = match inclusive {
                true => wide,
                false => b.binary("arith.subi", wide, b.int(1)?)?,
            };
            last = b.binary("arith.minsi", last, greatest)?;
        }
        Ok(last)
    }

    /// An integer operand of the corners' arithmetic as a 64-bit value: a narrow one the same
    /// for the work-group extended by sign (any extension is the body's value modulo its
    /// width); a 64-bit one of unknown size checked to lie within 2^[`ASSUMED_BITS`].
    fn wide<'c>(
        &self,
        b: &Build<'_, 'c>,
        original: MlirValue,
        built: Built,
        conditions: &mut Vec<MlirValue>,
    ) -> Result<MlirValue, LowerError> {
        let v = match built {
            Built::Wide(v) => return Ok(v),
            Built::Flat(v) | Built::Pointer(v) => v,
        };
        let t = type_of(v);
        match integer_width(t) {
            Some(w) if w < 64 => b.r.one("arith.extsi", &[v], b.i64(), &[]),
            _ => {
                let wide = match t.is_index() {
                    true => b.r.one("arith.index_cast", &[v], b.i64(), &[])?,
                    false => v,
                };
                if flat_bits(original).is_none() {
                    let bound = 1i64 << ASSUMED_BITS;
                    let low = b.cmp(CmpiPredicate::Sge, wide, b.int(-bound)?)?;
                    let high = b.cmp(CmpiPredicate::Sle, wide, b.int(bound)?)?;
                    conditions.push(b.binary("arith.andi", low, high)?);
                }
                Ok(wide)
            }
        }
    }

    /// `v`, the same for the whole work-group, computed at the entry (`r`).
    fn flat<'c>(
        &mut self,
        r: &Rewriter<'c>,
        v: MlirValue,
    ) -> Result<Option<MlirValue>, LowerError> {
        if self.before_body(v) {
            return Ok(Some(v));
        }
        if let Some(&known) = self.flat.get(&(v.ptr as usize)) {
            return Ok(Some(known));
        }
        let Some(op) = defining_op(v) else {
            return Ok(None);
        };
        if op.result_count() != 1 {
            return Ok(None);
        }
        let name = name_of(&op);
        let mut operands = Vec::new();
        for o in op.operands() {
            match self.flat(r, o.to_raw())? {
                Some(o) => operands.push(o),
                None => return Ok(None),
            }
        }
        // (Arithmetic that may carry a no-wrap flag is built anew without it: at the entry it
        // is computed for blocks whose body never does, where a flagged result that wrapped
        // would be poison.)
        let copy = match name.as_str() {
            "arith.addi" | "arith.subi" | "arith.muli" | "arith.shli" => {
                r.one(&name, &operands, type_of(v), &[])?
            }
            _ => r.copy_with_operands(&op, &operands)?,
        };
        self.flat.insert(v.ptr as usize, copy);
        Ok(Some(copy))
    }

    /// Puts the kernel's body in `scf.if %passed { copy } else { checked }` where every checked
    /// access had its corners checked (else the copy goes): the copy's writes outside the kernel wait for a clear error word
    /// (`readable` is the state's words).
    pub(super) fn place(
        mut self,
        ctx: &Context,
        readable: Option<MlirValue>,
        variables: &HashMap<String, Variable>,
    ) -> Result<(), LowerError> {
        let markers = [self.marker, self.body];
        let destroy_markers = || {
            for (i, m) in markers.iter().enumerate() {
                // (A marker is a constant: one the pass's rewrites took for theirs stays.)
                // SAFETY: a live marker, destroyed only where nothing uses it.
                unsafe {
                    let unused =
                        mlir_sys::mlirValueGetFirstUse(mlir_sys::mlirOperationGetResult(*m, 0))
                            .ptr
                            .is_null();
                    if (i == 0 || m.ptr != markers[0].ptr) && unused {
                        mlir_sys::mlirOperationDestroy(*m);
                    }
                }
            }
        };
        let (Some(passed), Some(readable), true) = (self.passed, readable, self.versionable) else {
            destroy_markers();
            // SAFETY: the stage, used by nothing outside it (its result is the verdict's).
            unsafe { mlir_sys::mlirOperationDestroy(self.stage) };
            return Ok(());
        };
        let passed = self.stage_passed(ctx, passed)?;
        let copy = self.copy.take().ok_or_else(|| err("the kernel's copy"))?;
        // SAFETY: the detached clone, owned here until dropped below.
        let copy = unsafe { melior::ir::Operation::from_raw(copy) };
        // SAFETY: the same clone, live until then.
        let copy_ref = unsafe { OperationRef::from_raw(copy.to_raw()) };
        // SAFETY: the body's marker and the copy's, live.
        let (body, copy_body) = unsafe {
            (
                OperationRef::from_raw(self.body),
                OperationRef::from_raw(self.copy_body),
            )
        };
        let r = Rewriter::before(ctx, &body);
        let region = || {
            let block = Block::new(&[]);
            block.append_operation(scf::r#yield(&[], r.loc));
            let region = Region::new();
            region.append_block(block);
            region
        };
        let branch = r
            .ops
            .insert(scf::r#if(value(passed), &[], region(), region(), r.loc));
        let yield_of = |region: usize| {
            branch
                .region(region)
                .ok()
                .and_then(|r| r.first_block())
                .and_then(|b| b.terminator())
                .ok_or_else(|| err("the kernel's branch"))
        };
        let (unchecked_end, checked_end) = (yield_of(0)?, yield_of(1)?);
        // Each body: what follows its marker, but its block's terminator.
        let move_body = |from: &OperationRef, to: &OperationRef| {
            while let Some(op) = from.next_in_block() {
                if op.next_in_block().is_none() {
                    break;
                }
                move_before(&op, to);
            }
        };
        move_body(&body, &checked_end);
        move_body(&copy_body, &unchecked_end);
        // The copy's arguments and shared operations are the kernel's.
        // SAFETY: the marker is a live operation of the kernel's entry block.
        let function = unsafe { OperationRef::from_raw(self.marker) }
            .block()
            .and_then(|b| b.parent_operation())
            .ok_or_else(|| err("the kernel"))?;
        let (kernel_entry, copy_entry) = (entry(&function)?, entry(&copy_ref)?);
        let mut replaced = Vec::new();
        for i in 0..copy_entry.argument_count() {
            let of = copy_entry.argument(i).map_err(err)?.to_raw();
            let with = kernel_entry.argument(i).map_err(err)?.to_raw();
            replaced.push((of, with));
        }
        for &(o, c) in &self.shared {
            // SAFETY: live operations: one of the kernel's and its copy.
            let (o, c) = unsafe { (OperationRef::from_raw(o), OperationRef::from_raw(c)) };
            for i in 0..c.result_count() {
                let of = c.result(i).map_err(err)?.to_raw();
                let with = o.result(i).map_err(err)?.to_raw();
                replaced.push((of, with));
            }
        }
        for (of, with) in replaced {
            // SAFETY: live values of the same type (the copy's are the kernel's, copied).
            unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(of, with) };
        }
        drop(copy);
        destroy_markers();
        guard_writes(ctx, &branch, readable, variables)
    }
}

/// The entry block of `function`.
fn entry<'c, 'a>(
    function: &OperationRef<'c, 'a>,
) -> Result<melior::ir::BlockRef<'c, 'a>, LowerError> {
    function
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or_else(|| err("the kernel's entry"))
}

/// The operations of `block` but its terminator.
fn block_ops<'c, 'a>(block: &melior::ir::BlockRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut ops = Vec::new();
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        if next.is_some() {
            ops.push(op);
        }
    }
    ops
}

/// The body of the kernel's guard when what follows `marker` in the entry block is arithmetic
/// and then an `scf.if` with no else that ends the block (`if (i < n) { ... }`).
fn kernel_guard(marker: OperationRef) -> Option<mlir_sys::MlirBlock> {
    let mut op = marker.next_in_block()?;
    loop {
        let next = op.next_in_block()?;
        if next.next_in_block().is_none() {
            break;
        }
        let plain = op.region_count() == 0
            && (UNIFORM.contains(&name_of(&op).as_str())
                || UNIFORM_WITH_OPERANDS.contains(&name_of(&op).as_str())
                || name_of(&op) == "gpu.thread_id");
        if !plain {
            return None;
        }
        op = next;
    }
    let empty_else = op
        .region(1)
        .ok()
        .and_then(|r| r.first_block())
        .is_none_or(|b| {
            b.first_operation()
                .and_then(|f| f.next_in_block())
                .is_none()
        });
    (name_of(&op) == "scf.if" && op.result_count() == 0 && empty_else)
        .then(|| op.region(0).ok()?.first_block().map(|b| b.to_raw()))
        .flatten()
}

impl KernelCopy {
    /// The entry's verdict `passed` (computed in the stage) where the body reads it: the
    /// stage's result; in a kernel with a barrier, computed by the work-group's first
    /// work-item only and shared through the module's [`VERDICT_VARIABLE`] behind a barrier (a
    /// CPU device compiler computes such a kernel's entry for each work-item).
    fn stage_passed(&self, ctx: &Context, passed: MlirValue) -> Result<MlirValue, LowerError> {
        // SAFETY: the stage and its end, live operations of the kernel's entry.
        let (stage, end) = unsafe {
            (
                OperationRef::from_raw(self.stage),
                OperationRef::from_raw(self.stage_end),
            )
        };
        let staged = end.result(0).map_err(err)?.to_raw();
        // SAFETY: the end's result (only the stage's yield uses it) and the verdict, both i1.
        unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(staged, passed) };
        let yielded = end
            .next_in_block()
            .ok_or_else(|| err("the stage's yield"))?;
        // SAFETY: the end, now unused.
        unsafe { mlir_sys::mlirOperationDestroy(self.stage_end) };
        if !self.barrier {
            // Every work-item computes it: the stage's body goes in front of it.
            let mut next = stage
                .region(0)
                .ok()
                .and_then(|r| r.first_block())
                .and_then(|b| b.first_operation());
            while let Some(op) = next {
                if op.to_raw().ptr == yielded.to_raw().ptr {
                    break;
                }
                next = op.next_in_block();
                move_before(&op, &stage);
            }
            // SAFETY: the stage, whose result nothing uses yet, and whose body is moved out.
            unsafe { mlir_sys::mlirOperationDestroy(stage.to_raw()) };
            return Ok(passed);
        }
        let gpu_module = hipmlir_ir::rewrite::enclosing(&stage, "gpu.module")
            .ok_or_else(|| err("the kernel's module"))?;
        if !crate::symbols::has_symbol(gpu_module.to_raw(), VERDICT_VARIABLE)? {
            let r = Rewriter::at_module_start(ctx, &gpu_module, stage.location())?;
            let i32t: Type = IntegerType::new(ctx, 32).into();
            let space = melior::ir::attribute::IntegerAttribute::new(i32t, 3);
            r.generic(
                "llvm.mlir.global",
                &[],
                &[],
                &[
                    (
                        "sym_name",
                        melior::ir::attribute::StringAttribute::new(ctx, VERDICT_VARIABLE).into(),
                    ),
                    (
                        "global_type",
                        melior::ir::attribute::TypeAttribute::new(i32t).into(),
                    ),
                    ("linkage", linkage_internal(ctx)),
                    ("addr_space", space.into()),
                ],
                vec![Region::new()],
                &[],
            )?;
        }
        // The first work-item computes the verdict and stores it.
        let before = Rewriter::before(ctx, &stage);
        let b = Build { r: &before, ctx };
        let index = melior::ir::Type::index(ctx);
        let mut first = b.bool(true)?;
        for d in GpuDimension::ALL {
            let id = before.one(
                "gpu.thread_id",
                &[],
                index,
                &[("dimension", d.attribute(ctx))],
            )?;
            let zero = before.one(
                "arith.constant",
                &[],
                index,
                &[(
                    "value",
                    melior::ir::attribute::IntegerAttribute::new(index, 0).into(),
                )],
            )?;
            let is_zero = b.cmp(CmpiPredicate::Eq, id, zero)?;
            first = b.binary("arith.andi", first, is_zero)?;
        }
        // SAFETY: the stage's condition is its first operand.
        unsafe { mlir_sys::mlirOperationSetOperand(stage.to_raw(), 0, first) };
        let i32t: Type = IntegerType::new(ctx, 32).into();
        let inside = Rewriter::before(ctx, &yielded);
        let ib = Build { r: &inside, ctx };
        let word = inside.one("arith.extui", &[passed], i32t, &[])?;
        let slot = ib.address_of(VERDICT_VARIABLE, 3)?;
        ib.store(word, slot, false);
        // Everyone reads it behind a barrier.
        let after = stage
            .next_in_block()
            .ok_or_else(|| err("the kernel's entry"))?;
        let r = Rewriter::before(ctx, &after);
        let b = Build { r: &r, ctx };
        r.op("gpu.barrier", &[], &[], &[])?;
        let slot = b.address_of(VERDICT_VARIABLE, 3)?;
        let word = b.load(slot, i32t)?;
        let zero = r.arith_int(i32t, 0)?;
        b.cmp(CmpiPredicate::Ne, word, zero)
    }
}

/// The module's work-group variable through which a kernel with a barrier shares its entry's
/// verdict (see [`KernelCopy::stage_passed`]).
const VERDICT_VARIABLE: &str = "__hipmlir_memcheck_verdict";

fn linkage_internal(ctx: &Context) -> melior::ir::Attribute<'_> {
    // SAFETY: a plain constructor on a live context.
    unsafe {
        melior::ir::Attribute::from_raw(mlir_sys::mlirLLVMLinkageAttrGet(
            ctx.to_raw(),
            mlir_sys::MlirLLVMLinkage_MlirLLVMLinkageInternal,
        ))
    }
}

/// The copy's stores and atomics to memory outside the kernel run only while the error word is
/// clear (a skipped atomic gives zero).
fn guard_writes(
    ctx: &Context,
    branch: &OperationRef,
    readable: MlirValue,
    variables: &HashMap<String, Variable>,
) -> Result<(), LowerError> {
    let Some(body) = branch.region(0).ok().and_then(|r| r.first_block()) else {
        return Ok(());
    };
    let mut writes = Vec::new();
    let mut next = body.first_operation();
    while let Some(top) = next {
        top.walk(WalkOrder::PreOrder, |op| {
            let pointer = match name_of(&op).as_str() {
                "llvm.store" => op.operand(1),
                "llvm.atomicrmw" => op.operand(0),
                _ => return WalkResult::Advance,
            };
            if let Ok(pointer) = pointer {
                let private = matches!(
                    target_of(pointer.to_raw(), variables),
                    Target::Object(o) if o.object.kind != ObjectKind::Global
                );
                if !private {
                    writes.push(op.to_raw());
                }
            }
            WalkResult::Advance
        });
        next = top.next_in_block();
    }
    for raw in writes {
        // SAFETY: a live store or atomic of the copy.
        let op = unsafe { OperationRef::from_raw(raw) };
        let r = Rewriter::before(ctx, &op);
        let b = Build { r: &r, ctx };
        let error = b.load(b.word(readable, STATE_ERROR)?, b.i64())?;
        let clear = b.cmp(CmpiPredicate::Eq, error, b.int(0)?)?;
        let types: Vec<Type> = (0..op.result_count())
            .filter_map(|i| op.result(i).ok().map(|v| v.r#type()))
            .collect();
        let results = r.scf_if_values(
            clear,
            &types,
            |then| {
                // SAFETY: a copy of the live write, owned by the block it goes into.
                let copy =
                    unsafe { melior::ir::Operation::from_raw(mlir_sys::mlirOperationClone(raw)) };
                let copy = then.ops.insert(copy);
                Ok((0..copy.result_count())
                    .filter_map(|i| copy.result(i).ok().map(|v| v.to_raw()))
                    .collect())
            },
            |otherwise| {
                let b = Build { r: otherwise, ctx };
                types.iter().map(|t| b.zero(*t)).collect()
            },
        )?;
        for (i, with) in results.into_iter().enumerate() {
            let of = op.result(i).map_err(err)?.to_raw();
            // SAFETY: the write's result and the branch's, of one type.
            unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(of, with) };
        }
        // SAFETY: the write, now unused.
        unsafe { mlir_sys::mlirOperationDestroy(raw) };
    }
    Ok(())
}

/// Whether the 64-bit `v` fits a signed integer of `width` bits.
fn fits(b: &Build<'_, '_>, v: MlirValue, width: u32) -> Result<MlirValue, LowerError> {
    let bound = 1i64 << (width - 1);
    let low = b.cmp(CmpiPredicate::Sge, v, b.int(-bound)?)?;
    let high = b.cmp(CmpiPredicate::Sle, v, b.int(bound - 1)?)?;
    b.binary("arith.andi", low, high)
}

/// An integer type's width (an index counts as 64 bits); None for other types.
fn integer_width(t: Type) -> Option<u32> {
    if t.is_index() {
        return Some(64);
    }
    IntegerType::try_from(t).ok().map(|i| i.width())
}

/// A bound on the size of `v` (the same for the whole work-group) as the corners extend it
/// (|v| <= 2^bits; None: a 64-bit value of unknown size).
fn flat_bits(v: MlirValue) -> Option<u32> {
    if let Some(c) = integer_constant(v) {
        return Some(64 - c.unsigned_abs().leading_zeros());
    }
    let width = integer_width(type_of(v))?;
    if width < 64 {
        return Some(width - 1);
    }
    let op = defining_op(v)?;
    let from = op
        .operand(0)
        .ok()
        .and_then(|o| integer_width(o.r#type()))
        .unwrap_or(64);
    match name_of(&op).as_str() {
        "arith.extsi" | "arith.index_cast" if from < 64 => Some(from - 1),
        "arith.extui" | "arith.index_castui" if from < 64 => Some(from),
        "gpu.block_id" | "gpu.block_dim" | "gpu.grid_dim" => Some(32),
        _ => None,
    }
}
