//! Warp operations: HIP's shuffles, votes and lane queries on 32-wide subgroups.
//!
//! Shuffles become `gpu.shuffle idx` over the whole subgroup with the source lane computed here
//! for HIP's `width` segments (a lane whose source falls outside its segment keeps its own
//! value, as on AMD GPUs). Votes become `gpu.subgroup_reduce` over the active lanes: a ballot
//! adds each voting lane's bit (the bits are disjoint, so the sum is the mask).

use melior::dialect::arith::{self, CmpiPredicate};
use melior::ir::Location;

use super::builder::{ReduceOperation, Value};
use super::function::{FunctionCodegen, Val};
use crate::clang::Cursor;
use crate::error::{FrontendError, Result};
use crate::types::Ty;

/// The subgroup size hipmlir compiles for (and the runtime reports as warpSize).
pub const WARP_SIZE: i64 = 32;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Shuffle {
    Index,
    Up,
    Down,
    Xor,
}

/// The warp family of hipmlir's device header, by name (each `_sync` form takes a lane mask
/// first and is otherwise its base name's builtin).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Warp {
    Shuffle(Shuffle),
    LaneId,
    Ballot,
    ActiveMask,
    /// `__any`, `__all`: the predicate reduced over the active lanes.
    Vote(ReduceOperation),
    /// `__syncwarp`: a fence over the subgroup.
    Sync,
}

const WARP: &[(&str, Warp)] = &[
    ("__shfl", Warp::Shuffle(Shuffle::Index)),
    ("__shfl_up", Warp::Shuffle(Shuffle::Up)),
    ("__shfl_down", Warp::Shuffle(Shuffle::Down)),
    ("__shfl_xor", Warp::Shuffle(Shuffle::Xor)),
    ("__lane_id", Warp::LaneId),
    ("__ballot", Warp::Ballot),
    ("__activemask", Warp::ActiveMask),
    ("__any", Warp::Vote(ReduceOperation::MaxSi)),
    ("__all", Warp::Vote(ReduceOperation::MinSi)),
    ("__syncwarp", Warp::Sync),
];

/// LLVM's sequentially consistent ordering, as `llvm.fence` stores it.
const SEQ_CST: i64 = 7;

impl<'c> FunctionCodegen<'c, '_> {
    /// Emits a warp builtin; None if `name` is not one.
    pub fn warp_call(
        &mut self,
        name: &str,
        e: &Cursor,
        args: &[Cursor],
    ) -> Result<Option<Val<'c>>> {
        let loc = self.loc(e);
        // The _sync forms take a lane mask first: all lanes of hipmlir's subgroups participate.
        let (base, args) = match name.strip_suffix("_sync") {
            Some(base) if !args.is_empty() => {
                self.rvalue(&args[0])?;
                (base, &args[1..])
            }
            _ => (name, args),
        };
        let Some((_, op)) = WARP.iter().find(|(n, _)| *n == base) else {
            return Ok(None);
        };
        let i32t = Ty::INT.value_mlir(self.ctx());
        let v = match *op {
            Warp::Shuffle(kind) => return self.shuffle(kind, e, args, loc).map(Some),
            Warp::LaneId => self.lane_id(loc)?,
            Warp::Ballot => {
                let [p] = args else { return Err(arity(e)) };
                let p = self.condition(p)?;
                self.ballot(p, loc)?
            }
            Warp::ActiveMask => {
                let t = self.b.const_bool(true, loc)?;
                self.ballot(t, loc)?
            }
            Warp::Vote(reduction) => {
                let [p] = args else { return Err(arity(e)) };
                let p = self.condition(p)?;
                let bit = self.b.insert_value(arith::extui(p, i32t, loc))?;
                self.b.subgroup_reduce(reduction, bit, loc)?
            }
            Warp::Sync => {
                for a in args {
                    self.rvalue(a)?;
                }
                self.b.fence(SEQ_CST, "wavefront", loc)?;
                return Ok(Some(Val::Void));
            }
        };
        let to = Ty::of(e)?;
        let from = match op {
            Warp::Ballot | Warp::ActiveMask => Ty::Int {
                bits: 64,
                signed: false,
            },
            _ => Ty::INT,
        };
        Ok(Some(Val::Scalar(self.convert_value(v, &from, &to, loc)?)))
    }

    fn lane_id(&mut self, loc: Location<'c>) -> Result<Value<'c>> {
        let lane = self.b.lane_id(loc)?;
        self.b.insert_value(arith::index_castui(
            lane,
            Ty::INT.value_mlir(self.ctx()),
            loc,
        ))
    }

    fn ballot(&mut self, p: Value<'c>, loc: Location<'c>) -> Result<Value<'c>> {
        let i64t = Ty::LONG.value_mlir(self.ctx());
        let lane = self.lane_id(loc)?;
        let lane = self.b.insert_value(arith::extui(lane, i64t, loc))?;
        let one = self.b.const_int(i64t, 1, loc)?;
        let bit = self.b.insert_value(arith::shli(one, lane, loc))?;
        let zero = self.b.const_int(i64t, 0, loc)?;
        let vote = self.b.insert_value(arith::select(p, bit, zero, loc))?;
        self.b.subgroup_reduce(ReduceOperation::Add, vote, loc)
    }

    fn shuffle(
        &mut self,
        kind: Shuffle,
        e: &Cursor,
        args: &[Cursor],
        loc: Location<'c>,
    ) -> Result<Val<'c>> {
        let (var, offset, width) = match args {
            [var, offset] => (var, offset, None),
            [var, offset, width] => (var, offset, Some(width)),
            _ => return Err(arity(e)),
        };
        let ty = Ty::of(e)?;
        let value = self.rvalue_as(var, &ty)?.scalar();
        let offset = self.rvalue_as(offset, &Ty::INT)?.scalar();
        let i32t = Ty::INT.value_mlir(self.ctx());
        let width = match width {
            Some(w) => self.rvalue_as(w, &Ty::INT)?.scalar(),
            None => self.b.const_int(i32t, WARP_SIZE, loc)?,
        };
        let lane = self.lane_id(loc)?;
        let op = |this: &mut Self,
                  build: fn(Value<'c>, Value<'c>, Location<'c>) -> melior::ir::Operation<'c>,
                  a: Value<'c>,
                  b: Value<'c>|
         -> Result<Value<'c>> { this.b.insert_value(build(a, b, loc)) };
        let cmp = |this: &mut Self, pred: CmpiPredicate, a: Value<'c>, b: Value<'c>| {
            this.b.cmpi(pred, a, b, loc)
        };
        let one = self.b.const_int(i32t, 1, loc)?;
        let width_mask = op(self, arith::subi, width, one)?; // width - 1
        let all_ones = self.b.const_int(i32t, -1, loc)?;
        let segment_mask = op(self, arith::xori, width_mask, all_ones)?; // ~(width - 1)
        let segment_start = op(self, arith::andi, lane, segment_mask)?;
        let lane_in_segment = op(self, arith::andi, lane, width_mask)?;
        // (source lane, whether the lane keeps its own value)
        let (source, keep) = match kind {
            Shuffle::Index => {
                let within = op(self, arith::andi, offset, width_mask)?;
                (op(self, arith::addi, segment_start, within)?, None)
            }
            Shuffle::Up => {
                let keep = cmp(self, CmpiPredicate::Slt, lane_in_segment, offset)?;
                (op(self, arith::subi, lane, offset)?, Some(keep))
            }
            Shuffle::Down => {
                let reach = op(self, arith::addi, lane_in_segment, offset)?;
                let keep = cmp(self, CmpiPredicate::Sge, reach, width)?;
                (op(self, arith::addi, lane, offset)?, Some(keep))
            }
            Shuffle::Xor => {
                let target = op(self, arith::xori, lane, offset)?;
                let target_segment = op(self, arith::andi, target, segment_mask)?;
                let keep = cmp(self, CmpiPredicate::Ne, target_segment, segment_start)?;
                (target, Some(keep))
            }
        };
        let source = match keep {
            Some(keep) => self
                .b
                .insert_value(arith::select(keep, lane, source, loc))?,
            None => source,
        };
        let full = self.b.const_int(i32t, WARP_SIZE, loc)?;
        let shuffled = self.b.shuffle_index(value, source, full, loc)?;
        Ok(Val::Scalar(shuffled))
    }
}

fn arity(e: &Cursor) -> FrontendError {
    FrontendError::unsupported(
        e.location(),
        format!("call to '{}' with these arguments", e.spelling()),
    )
}

/// Whether the warp family lowers `name` (for the device header's completeness test).
#[cfg(test)]
pub(super) fn claims(name: &str) -> bool {
    let base = name.strip_suffix("_sync").unwrap_or(name);
    WARP.iter().any(|(n, _)| *n == base)
}

#[cfg(test)]
mod tests {
    use super::super::header_check::declared_device_functions;
    use super::WARP;

    /// Every entry is a function the device header declares (the header's other direction is
    /// `builtins::tests::every_device_header_function_has_a_lowering`).
    #[test]
    fn warp_table_entries_are_declared() {
        let declared = declared_device_functions("hipmlir_device.h");
        for (name, _) in WARP {
            assert!(declared.contains(*name), "{name} is not declared");
        }
    }
}
