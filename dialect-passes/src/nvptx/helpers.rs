//! The helper functions `hipmlir-lower-hip-to-nvptx` calls: warp reductions and shuffles under
//! the active mask, `__syncwarp`, block-wide votes and the guard of atomics that may reach
//! private memory. One builder per helper kind, its element type chosen by a typed match
//! ([`HelperType`]) and its combinator and identity taken from [`REDUCTIONS`]; each helper is
//! defined once, at the start of the gpu.module that uses it.

use hipmlir_device_image::AtomicBinOp;
use hipmlir_ir::rewrite::{append_to, enclosing, replace_all_uses_with};
use hipmlir_ir::{ReduceOperation, ShuffleMode};
use melior::dialect::arith::{self, CmpiPredicate};
use melior::dialect::llvm::{self, LoadStoreOptions};
use melior::dialect::ods::llvm as ods_llvm;
use melior::ir::attribute::IntegerAttribute;
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::r#type::IntegerType;
use melior::ir::{
    Attribute, Block, Location, Operation, OperationRef, Region, RegionLike, Type, Value, ValueLike,
};
use melior::Context;
use mlir_sys::{MlirOperation, MlirValue};

use crate::address_space_map::nvptx;
use crate::builder::{type_of, value, Rewriter};
use crate::nvptx::err;
use crate::LowerError;

/// `__syncwarp()` as CUDA defines it: the whole warp meets.
pub(crate) const SYNCWARP: &str = "__hipmlir_nvptx_syncwarp";

const ACTIVEMASK: &str = "llvm.nvvm.activemask";
const BAR_WARP_SYNC: &str = "llvm.nvvm.bar.warp.sync";
const ISSPACEP_LOCAL: &str = "llvm.nvvm.isspacep.local";

/// The scalar types the helpers are built for, told apart by type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HelperType {
    I32,
    I64,
    F32,
    F64,
}

impl HelperType {
    pub(crate) fn of(ctx: &Context, ty: Type) -> Option<HelperType> {
        [
            HelperType::I32,
            HelperType::I64,
            HelperType::F32,
            HelperType::F64,
        ]
        .into_iter()
        .find(|h| h.r#type(ctx) == ty)
    }

    fn r#type(self, ctx: &Context) -> Type<'_> {
        match self {
            HelperType::I32 => IntegerType::new(ctx, 32).into(),
            HelperType::I64 => IntegerType::new(ctx, 64).into(),
            HelperType::F32 => Type::float32(ctx),
            HelperType::F64 => Type::float64(ctx),
        }
    }

    /// The suffix of the helpers' symbols.
    fn suffix(self) -> &'static str {
        match self {
            HelperType::I32 => "i32",
            HelperType::I64 => "i64",
            HelperType::F32 => "f32",
            HelperType::F64 => "f64",
        }
    }
}

/// An integer operation combining two values of one type.
type Combine = for<'c, 'a, 'b> fn(Value<'c, 'a>, Value<'c, 'b>, Location<'c>) -> Operation<'c>;

/// A kind of `#gpu<all_reduce_op ...>`: how a warp reduction combines two lanes' values and
/// what it starts from, and the block-wide vote (`bar.red`) it is, if any.
pub(crate) struct Reduction {
    /// The kind's name in the attribute and in the helpers' symbols.
    pub name: &'static str,
    /// The gpu op's reduction.
    operation: ReduceOperation,
    combine: Combine,
    identity: fn(HelperType) -> i64,
    vote: Option<BlockVote>,
}

/// The warp and block reductions the helpers implement.
pub(crate) const REDUCTIONS: &[Reduction] = &[
    Reduction {
        name: "add",
        operation: ReduceOperation::Add,
        combine: arith::addi,
        identity: |_| 0,
        vote: Some(BlockVote::Count),
    },
    Reduction {
        name: "mul",
        operation: ReduceOperation::Mul,
        combine: arith::muli,
        identity: |_| 1,
        vote: None,
    },
    Reduction {
        name: "and",
        operation: ReduceOperation::And,
        combine: arith::andi,
        identity: |_| -1,
        vote: Some(BlockVote::And),
    },
    Reduction {
        name: "or",
        operation: ReduceOperation::Or,
        combine: arith::ori,
        identity: |_| 0,
        vote: Some(BlockVote::Or),
    },
    Reduction {
        name: "xor",
        operation: ReduceOperation::Xor,
        combine: arith::xori,
        identity: |_| 0,
        vote: None,
    },
    Reduction {
        name: "maxui",
        operation: ReduceOperation::MaxUi,
        combine: arith::maxui,
        identity: |_| 0,
        vote: None,
    },
    Reduction {
        name: "minui",
        operation: ReduceOperation::MinUi,
        combine: arith::minui,
        identity: |_| -1,
        vote: None,
    },
    Reduction {
        name: "maxsi",
        operation: ReduceOperation::MaxSi,
        combine: arith::maxsi,
        identity: |t| match t {
            HelperType::I64 => i64::MIN,
            _ => i32::MIN.into(),
        },
        // A vote of 0/1 values: the maximum is "any".
        vote: Some(BlockVote::Or),
    },
    Reduction {
        name: "minsi",
        operation: ReduceOperation::MinSi,
        combine: arith::minsi,
        identity: |t| match t {
            HelperType::I64 => i64::MAX,
            _ => i32::MAX.into(),
        },
        // A vote of 0/1 values: the minimum is "all".
        vote: Some(BlockVote::And),
    },
];

impl Reduction {
    /// The reduction whose attribute `attribute` is.
    pub(crate) fn of(ctx: &Context, attribute: Attribute) -> Option<&'static Reduction> {
        let operation = ReduceOperation::of(ctx, attribute)?;
        REDUCTIONS.iter().find(|r| r.operation == operation)
    }
}

/// Whether a `gpu.shuffle`'s `mode` attribute is `idx`.
pub(crate) fn is_index_shuffle(ctx: &Context, mode: Attribute) -> bool {
    ShuffleMode::Idx.attribute(ctx) == mode
}

/// A block-wide vote of 0/1 `i32` values (HIP's `__syncthreads_count`, `_and`, `_or`).
#[derive(Debug, Clone, Copy)]
enum BlockVote {
    Count,
    And,
    Or,
}

impl BlockVote {
    /// The helper's name and its PTX: `bar.red`, a barrier that also reduces.
    fn helper(self) -> (&'static str, &'static str) {
        match self {
            BlockVote::Count => (
                "__hipmlir_nvptx_block_popc",
                "{ .reg .pred %hp; setp.ne.u32 %hp, $1, 0; bar.red.popc.u32 $0, 0, %hp; }",
            ),
            BlockVote::And => (
                "__hipmlir_nvptx_block_and",
                "{ .reg .pred %hp, %hq; setp.ne.u32 %hp, $1, 0; bar.red.and.pred %hq, 0, %hp; \
                 selp.u32 $0, 1, 0, %hq; }",
            ),
            BlockVote::Or => (
                "__hipmlir_nvptx_block_or",
                "{ .reg .pred %hp, %hq; setp.ne.u32 %hp, $1, 0; bar.red.or.pred %hq, 0, %hp; \
                 selp.u32 $0, 1, 0, %hq; }",
            ),
        }
    }
}

/// Where functions are added to the gpu.module: at its start, at no source location.
pub(crate) fn module_start<'c>(
    ctx: &'c Context,
    gpu_module: MlirOperation,
) -> Result<Rewriter<'c>, LowerError> {
    // SAFETY: a live gpu.module.
    let gpu_module = unsafe { OperationRef::from_raw(gpu_module) };
    Rewriter::at_module_start(ctx, &gpu_module, Location::unknown(ctx))
}

/// Defines the helper `symbol` with `define` at the start of the gpu.module, unless it is
/// there already.
fn define_once<'c>(
    ctx: &'c Context,
    gpu_module: MlirOperation,
    symbol: &str,
    define: impl FnOnce(&Rewriter<'c>) -> Result<OperationRef<'c, 'c>, LowerError>,
) -> Result<(), LowerError> {
    if crate::symbols::has_symbol(gpu_module, symbol)? {
        return Ok(());
    }
    define(&module_start(ctx, gpu_module)?).map(|_| ())
}

/// The active lanes' mask.
fn active_mask(rw: &Rewriter) -> Result<MlirValue, LowerError> {
    let i32t = IntegerType::new(rw.ctx, 32).into();
    Ok(rw.call_intrinsic(ACTIVEMASK, &[], &[i32t])?[0])
}

/// `v` of lane `lane` under `mask` (PTX's `shfl.sync.idx` over the whole warp: clamp 31); a
/// 64-bit integer as its two 32-bit halves, split and joined by a shift of `c32`, an `i64` 32.
fn shuffle_index(
    rw: &Rewriter,
    ty: HelperType,
    [mask, v, lane, c31]: [MlirValue; 4],
    c32: Option<MlirValue>,
) -> Result<MlirValue, LowerError> {
    let ctx = rw.ctx;
    let loc = rw.loc;
    let i32t: Type = IntegerType::new(ctx, 32).into();
    let i64t: Type = IntegerType::new(ctx, 64).into();
    let shfl = |intrinsic: &str, x: MlirValue| -> Result<MlirValue, LowerError> {
        Ok(rw.call_intrinsic(intrinsic, &[mask, x, lane, c31], &[type_of(x)])?[0])
    };
    // SAFETY: live values of the helper being built.
    let value = |raw: MlirValue| unsafe { Value::from_raw(raw) };
    match ty {
        HelperType::I32 => shfl("llvm.nvvm.shfl.sync.idx.i32", v),
        HelperType::F32 => shfl("llvm.nvvm.shfl.sync.idx.f32", v),
        HelperType::I64 => {
            let c32 = c32.ok_or_else(|| err("a 64-bit shuffle without its shift"))?;
            let lo = rw.emit_value(arith::trunci(value(v), i32t, loc))?;
            let high = rw.emit_value(arith::shrui(value(v), value(c32), loc))?;
            let hi = rw.emit_value(arith::trunci(value(high), i32t, loc))?;
            let lo = shfl("llvm.nvvm.shfl.sync.idx.i32", lo)?;
            let hi = shfl("llvm.nvvm.shfl.sync.idx.i32", hi)?;
            let lo = rw.emit_value(arith::extui(value(lo), i64t, loc))?;
            let hi = rw.emit_value(arith::extui(value(hi), i64t, loc))?;
            let hi = rw.emit_value(arith::shli(value(hi), value(c32), loc))?;
            rw.emit_value(arith::ori(value(hi), value(lo), loc))
        }
        HelperType::F64 => Err(err("a 64-bit float shuffle helper")),
    }
}

/// The helper computing warp reduction `reduction` of an integer over the active lanes,
/// defined in the gpu.module; its symbol (`None` for a type it has no helper for).
/// `gpu.subgroup_reduce` is a vote over the lanes that reach it (HIP's `__ballot`, `__any`,
/// `__all` on partial warps), which the NVVM conversion does not lower. Each active lane reads
/// every active lane's value with `shfl.sync` under the active mask, in lane order.
pub(crate) fn warp_reduce(
    ctx: &Context,
    gpu_module: MlirOperation,
    reduction: &Reduction,
    ty: HelperType,
) -> Result<Option<String>, LowerError> {
    if !matches!(ty, HelperType::I32 | HelperType::I64) {
        return Ok(None);
    }
    let symbol = format!(
        "__hipmlir_nvptx_warp_reduce_{}_{}",
        reduction.name,
        ty.suffix()
    );
    let t = ty.r#type(ctx);
    let i32t: Type = IntegerType::new(ctx, 32).into();
    define_once(ctx, gpu_module, &symbol, |at| {
        at.private_function(
            &symbol,
            &[t],
            &[t],
            Some(&|rw, args| {
                let loc = rw.loc;
                // SAFETY: live values of the helper being built.
                let value = |raw: MlirValue| unsafe { Value::from_raw(raw) };
                let v = args[0];
                let mask = active_mask(rw)?;
                let c0 = rw.arith_int(i32t, 0)?;
                let c1 = rw.arith_int(i32t, 1)?;
                let c31 = rw.arith_int(i32t, 31)?;
                let c32 = rw.arith_int(i32t, 32)?;
                let c32_64 = match ty {
                    HelperType::I64 => Some(rw.arith_int(IntegerType::new(ctx, 64).into(), 32)?),
                    _ => None,
                };
                let identity = rw.arith_int(t, (reduction.identity)(ty))?;
                let result = rw.scf_for([c0, c32, c1], identity, |rw, lane, acc| {
                    let shifted = rw.emit_value(arith::shrui(value(mask), value(lane), loc))?;
                    let bit = rw.emit_value(arith::andi(value(shifted), value(c1), loc))?;
                    let active = rw.emit_value(arith::cmpi(
                        ctx,
                        CmpiPredicate::Ne,
                        value(bit),
                        value(c0),
                        loc,
                    ))?;
                    rw.scf_if(
                        active,
                        t,
                        |rw| {
                            let x = shuffle_index(rw, ty, [mask, v, lane, c31], c32_64)?;
                            rw.emit_value((reduction.combine)(value(acc), value(x), loc))
                        },
                        |_| Ok(acc),
                    )
                })?;
                Ok(vec![result])
            }),
        )
    })?;
    Ok(Some(symbol))
}

/// The helper for a `gpu.shuffle idx` of a 32-bit value, defined in the gpu.module; its symbol
/// (`None` for another type): PTX's shfl.sync under the active mask. convert-gpu-to-nvvm names
/// the whole warp in the mask, and on Volta and newer a shfl.sync waits for every lane it
/// names: a shuffle in code that part of the warp does not run (legal in HIP, where a lane
/// reading an inactive lane gets an undefined value) would never finish. The source lane is
/// the frontend's, HIP's `width` segments already applied.
pub(crate) fn shuffle(
    ctx: &Context,
    gpu_module: MlirOperation,
    ty: HelperType,
) -> Result<Option<String>, LowerError> {
    if !matches!(ty, HelperType::I32 | HelperType::F32) {
        return Ok(None);
    }
    let symbol = format!("__hipmlir_nvptx_shuffle_idx_{}", ty.suffix());
    let t = ty.r#type(ctx);
    let i32t: Type = IntegerType::new(ctx, 32).into();
    define_once(ctx, gpu_module, &symbol, |at| {
        at.private_function(
            &symbol,
            &[t, i32t],
            &[t],
            Some(&|rw, args| {
                let mask = active_mask(rw)?;
                let c31 = rw.arith_int(i32t, 31)?;
                Ok(vec![shuffle_index(
                    rw,
                    ty,
                    [mask, args[0], args[1], c31],
                    None,
                )?])
            }),
        )
    })?;
    Ok(Some(symbol))
}

/// The helper for the block-wide vote `reduction` of a 0/1 `i32`, defined in the gpu.module;
/// its symbol (`None` for a reduction that is no vote).
pub(crate) fn block_vote(
    ctx: &Context,
    gpu_module: MlirOperation,
    reduction: &Reduction,
) -> Result<Option<String>, LowerError> {
    let Some(vote) = reduction.vote else {
        return Ok(None);
    };
    let (symbol, asm) = vote.helper();
    let i32t: Type = IntegerType::new(ctx, 32).into();
    define_once(ctx, gpu_module, symbol, |at| {
        at.private_function(
            symbol,
            &[i32t],
            &[i32t],
            Some(&|rw, args| {
                Ok(vec![
                    rw.inline_asm_with_side_effects(asm, "=r,r", args, i32t)?
                ])
            }),
        )
    })?;
    Ok(Some(symbol.to_string()))
}

/// The helper for `__syncwarp()`, defined in the gpu.module: `bar.warp.sync` with the whole
/// warp, as CUDA defines it.
pub(crate) fn syncwarp(ctx: &Context, gpu_module: MlirOperation) -> Result<(), LowerError> {
    let i32t: Type = IntegerType::new(ctx, 32).into();
    define_once(ctx, gpu_module, SYNCWARP, |at| {
        at.private_function(
            SYNCWARP,
            &[],
            &[],
            Some(&|rw, _| {
                let whole_warp = rw.arith_int(i32t, -1)?;
                rw.call_intrinsic(BAR_WARP_SYNC, &[whole_warp], &[])?;
                Ok(vec![])
            }),
        )
    })
}

/// How the plain read-modify-write of an atomic computes the value it stores from the old
/// value and the operand.
#[derive(Debug, Clone, Copy)]
enum Update {
    /// The operand itself (exchange).
    Operand,
    /// An LLVM binary operation.
    Binary(
        for<'c, 'a, 'b> fn(
            &'c Context,
            Value<'c, 'a>,
            Value<'c, 'b>,
            Location<'c>,
        ) -> Operation<'c>,
    ),
    /// The old value where `old <predicate> operand` holds, else the operand.
    Pick(IcmpPredicate),
}

/// `llvm.icmp` predicates, numbered as the LLVM dialect's `ICmpPredicate`.
#[derive(Debug, Clone, Copy)]
enum IcmpPredicate {
    Slt = 2,
    Sgt = 4,
    Ult = 6,
    Ugt = 8,
}

impl Update {
    /// The update of `op`, `None` for an operation not covered.
    fn of(op: AtomicBinOp) -> Option<Update> {
        Some(match op {
            AtomicBinOp::Xchg => Update::Operand,
            AtomicBinOp::Add => Update::Binary(|c, a, b, l| ods_llvm::add(c, a, b, l).into()),
            AtomicBinOp::Sub => Update::Binary(|c, a, b, l| ods_llvm::sub(c, a, b, l).into()),
            AtomicBinOp::And => Update::Binary(|c, a, b, l| ods_llvm::and(c, a, b, l).into()),
            AtomicBinOp::Or => Update::Binary(|c, a, b, l| ods_llvm::or(c, a, b, l).into()),
            AtomicBinOp::Xor => Update::Binary(|c, a, b, l| ods_llvm::xor(c, a, b, l).into()),
            AtomicBinOp::Max => Update::Pick(IcmpPredicate::Sgt),
            AtomicBinOp::Min => Update::Pick(IcmpPredicate::Slt),
            AtomicBinOp::UMax => Update::Pick(IcmpPredicate::Ugt),
            AtomicBinOp::UMin => Update::Pick(IcmpPredicate::Ult),
            AtomicBinOp::FAdd => Update::Binary(|c, a, b, l| ods_llvm::fadd(c, a, b, l).into()),
            AtomicBinOp::FSub => Update::Binary(|c, a, b, l| ods_llvm::fsub(c, a, b, l).into()),
            AtomicBinOp::FMax => {
                Update::Binary(|c, a, b, l| ods_llvm::intr_maxnum(c, a, b, l).into())
            }
            AtomicBinOp::FMin => {
                Update::Binary(|c, a, b, l| ods_llvm::intr_minnum(c, a, b, l).into())
            }
            AtomicBinOp::UIncWrap | AtomicBinOp::UDecWrap => return None,
        })
    }

    /// The value stored.
    fn build(self, rw: &Rewriter, old: MlirValue, v: MlirValue) -> Result<MlirValue, LowerError> {
        let (ctx, loc) = (rw.ctx, rw.loc);
        // SAFETY: live values of the helper being built.
        let value = |raw: MlirValue| unsafe { Value::from_raw(raw) };
        match self {
            Update::Operand => Ok(v),
            Update::Binary(op) => rw.emit_value(op(ctx, value(old), value(v), loc)),
            Update::Pick(predicate) => {
                let i1 = IntegerType::new(ctx, 1).into();
                let i64t = IntegerType::new(ctx, 64).into();
                let predicate = IntegerAttribute::new(i64t, predicate as i64).into();
                let keep = rw.emit_value(ods_llvm::icmp(
                    ctx,
                    i1,
                    value(old),
                    value(v),
                    predicate,
                    loc,
                ))?;
                rw.emit_value(ods_llvm::select(
                    ctx,
                    type_of(v),
                    value(keep),
                    value(old),
                    value(v),
                    loc,
                ))
            }
        }
    }
}

/// An `llvm.atomicrmw` through a generic pointer may reach private memory, where PTX has no
/// atomics (and HIP on AMD does): `atomic` becomes a call of helper `symbol`, made for it, that
/// tests the pointer with `isspacep.local` and does a plain read-modify-write there (one
/// thread owns private memory), the atomic itself (moved into the helper) everywhere else.
/// `false` (nothing changed) for an atomic of an operation or type not covered.
pub(crate) fn guard_local_atomic<'c>(
    ctx: &'c Context,
    op: OperationRef<'c, 'c>,
    symbol: &str,
) -> Result<bool, LowerError> {
    let atomic = op.to_raw();
    let bin_op = op
        .attribute("bin_op")
        .ok()
        .and_then(|a| IntegerAttribute::try_from(a).ok())
        .and_then(|a| AtomicBinOp::from_value(a.value()))
        .ok_or_else(|| err("llvm.atomicrmw without a known bin_op"))?;
    let ty = op.result(0).map_err(err)?.r#type();
    let (Some(_), Some(update)) = (HelperType::of(ctx, ty), Update::of(bin_op)) else {
        return Ok(false);
    };
    let gpu_module = enclosing(&op, "gpu.module")
        .ok_or_else(|| err("an atomic outside a gpu.module"))?
        .to_raw();
    if crate::symbols::has_symbol(gpu_module, symbol)? {
        return Err(err(format!("the helper @{symbol} exists already")));
    }
    let loc = Location::unknown(ctx);
    let generic = llvm::r#type::pointer(ctx, nvptx::GENERIC);
    let i1 = IntegerType::new(ctx, 1).into();

    let entry = Block::new(&[(generic, loc), (ty, loc)]);
    let (p, v) = (
        entry.argument(0).map_err(err)?,
        entry.argument(1).map_err(err)?,
    );
    let local = Block::new(&[]);
    let other = Block::new(&[]);
    let rw = Rewriter::at_end(ctx, &entry, loc);
    let is_local = rw.call_intrinsic(ISSPACEP_LOCAL, &[p.to_raw()], &[i1])?[0];
    rw.llvm_cond_br(is_local, local.to_raw(), other.to_raw())?;

    let rw = Rewriter::at_end(ctx, &local, loc);
    // (An atomic's operand is naturally aligned; stated, so that an i64 is not read as two
    // halves, LLVM's default layout giving it 4 bytes.)
    let aligned =
        || {
            LoadStoreOptions::new().align(crate::layout::size_and_align(ty).map(|(size, _)| {
                IntegerAttribute::new(IntegerType::new(ctx, 64).into(), size as i64)
            }))
        };
    let old = rw.emit_value(llvm::load(ctx, p.into(), ty, loc, aligned()))?;
    let new = update.build(&rw, old, v.to_raw())?;
    // SAFETY: live values of the helper being built.
    let (old, new) = unsafe { (Value::from_raw(old), Value::from_raw(new)) };
    rw.emit(llvm::store(ctx, new, p.into(), loc, aligned()));
    rw.emit(llvm::r#return(Some(old), loc));

    // The atomic, replaced by the call, moves into `other` on the helper's arguments.
    let call = Rewriter::before(ctx, &op).llvm_call(
        symbol,
        &op.operands().map(|o| o.to_raw()).collect::<Vec<_>>(),
        &[ty],
    )?[0];
    // The atomic's uses move to the call; it moves to `other`, which then owns it, its
    // operands set to the helper's arguments.
    let result = op.result(0).map_err(err)?;
    replace_all_uses_with(result, value(call));
    append_to(&op, &other);
    // SAFETY: the live atomic's two operands, set to live values of its new block.
    unsafe {
        mlir_sys::mlirOperationSetOperand(atomic, 0, p.to_raw());
        mlir_sys::mlirOperationSetOperand(atomic, 1, v.to_raw());
    }
    // SAFETY: the atomic's result, now in `other`.
    let result = unsafe { Value::from_raw(mlir_sys::mlirOperationGetResult(atomic, 0)) };
    Rewriter::at_end(ctx, &other, loc).emit(llvm::r#return(Some(result), loc));

    let region = Region::new();
    for block in [entry, local, other] {
        region.append_block(block);
    }
    let function_type = llvm::r#type::function(ty, &[generic, ty], false);
    module_start(ctx, gpu_module)?.llvm_function(symbol, function_type, region);
    Ok(true)
}
