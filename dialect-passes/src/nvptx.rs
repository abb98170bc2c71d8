//! `hipmlir-lower-hip-to-nvptx`: what HIP means that MLIR's GPU→NVVM conversion does not know,
//! on a module whose address spaces are NVPTX's (after `hipmlir-address-spaces-to-nvptx`):
//!
//! - dynamic shared memory stays the frontend's `extern` shared array, as CUDA declares it
//!   (`.extern .shared .align 16 .b8 x[]`), sized by the launch's shared-memory bytes;
//! - a struct passed by value is a `byval` kernel parameter (NVPTX's `.param` copy): set by
//!   `hipmlir-nvptx-byval-parameters` after `convert-gpu-to-nvvm`, which drops parameter
//!   attributes;
//! - memory scopes take NVPTX's names (`agent` → `device`, `workgroup`/`wavefront` → `block`),
//!   and a warp fence (`__syncwarp`) also waits for the warp (`bar.warp.sync`);
//! - device library calls become libdevice's `__nv_*` functions (math ops are converted by
//!   `convert-gpu-to-nvvm` itself);
//! - `printf` becomes CUDA's `vprintf(format, argument buffer)`.
//!
//! What has no NVPTX lowering yet is reported as unsupported at its source location, never
//! compiled into a kernel that computes something else.

use std::collections::HashSet;

use hipmlir_device_image::{AtomicBinOp, BYVAL_ATTRIBUTE};
use melior::ir::attribute::{
    ArrayAttribute, DenseI32ArrayAttribute, DictionaryAttribute, FlatSymbolRefAttribute,
    IntegerAttribute, StringAttribute, TypeAttribute,
};
use melior::ir::block::BlockLike;
use melior::ir::operation::{
    OperationBuilder, OperationLike, OperationMutLike, OperationRef, OperationRefMut, WalkOrder,
    WalkResult,
};
use melior::ir::r#type::IntegerType;
use melior::ir::{
    Attribute, AttributeLike, Identifier, Location, Module, RegionLike, Type, TypeLike, Value,
    ValueLike,
};
use melior::Context;
use mlir_sys::{
    mlirBlockInsertOwnedOperationBefore, mlirOperationDestroy, mlirOperationGetBlock,
    mlirOperationGetResult, mlirOperationRemoveFromParent, mlirValueReplaceAllUsesOfWith,
    MlirBlock, MlirOperation, MlirValue,
};

use crate::address_space_map::nvptx;
use crate::LowerError;

/// The frontend's dynamic shared memory (see hipmlir-frontend's DYNAMIC_SHARED_SYMBOL).
const DYNAMIC_SHARED: &str = "__hipmlir_dynamic_shared";
/// The frontend declares one printf per argument signature.
const PRINTF_PREFIX: &str = "__hipmlir_printf_";
/// CUDA's device printf: `i32 vprintf(const char* format, void* arguments)`, provided by the
/// driver's JIT link.
const VPRINTF: &str = "vprintf";

/// `__syncwarp()` as CUDA defines it: the whole warp meets.
const SYNCWARP: &str = "__hipmlir_nvptx_syncwarp";
const SYNCWARP_TEXT: &str = "func.func private @__hipmlir_nvptx_syncwarp() {
  %all = arith.constant -1 : i32
  llvm.call_intrinsic \"llvm.nvvm.bar.warp.sync\"(%all) : (i32) -> ()
  return
}";

/// Device library functions (the frontend's `func.call`s of declarations) with a libdevice
/// function of the same meaning: `fmodf` → `__nv_fmodf`, `fmod` → `__nv_fmod`.
const LIBRARY: &[&str] = &[
    "exp10",
    "fdim",
    "fmod",
    "hypot",
    "ldexp",
    "lgamma",
    "logb",
    "nextafter",
    "remainder",
    "sinpi",
    "cospi",
    "tgamma",
];

/// HIP's fast intrinsics → libdevice's fast versions.
const FAST: &[(&str, &str)] = &[
    ("__cosf", "__nv_fast_cosf"),
    ("__fdividef", "__nv_fast_fdividef"),
    ("__expf", "__nv_fast_expf"),
    ("__exp10f", "__nv_fast_exp10f"),
    ("__logf", "__nv_fast_logf"),
    ("__log2f", "__nv_fast_log2f"),
    ("__log10f", "__nv_fast_log10f"),
    ("__powf", "__nv_fast_powf"),
    ("__sinf", "__nv_fast_sinf"),
    ("__tanf", "__nv_fast_tanf"),
];

/// The scalar types the helpers below are written for, told apart by type (the helper texts
/// spell them; no type of the IR is printed into one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HelperType {
    I32,
    I64,
    F32,
    F64,
}

impl HelperType {
    fn of(ctx: &Context, ty: Type) -> Option<HelperType> {
        [
            (HelperType::I32, IntegerType::new(ctx, 32).into()),
            (HelperType::I64, IntegerType::new(ctx, 64).into()),
            (HelperType::F32, Type::float32(ctx)),
            (HelperType::F64, Type::float64(ctx)),
        ]
        .into_iter()
        .find_map(|(helper, t)| (t == ty).then_some(helper))
    }

    fn spelling(self) -> &'static str {
        match self {
            HelperType::I32 => "i32",
            HelperType::I64 => "i64",
            HelperType::F32 => "f32",
            HelperType::F64 => "f64",
        }
    }
}

/// The helper function (and its MLIR text) that computes a warp reduction over the active
/// lanes: `gpu.subgroup_reduce` is a vote over the lanes that reach it (HIP's `__ballot`,
/// `__any`, `__all` on partial warps), which the NVVM conversion does not lower. Each active
/// lane reads every active lane's value with `shfl.sync` under the active mask, in lane order.
fn warp_reduce_helper(op: &str, helper_type: HelperType) -> Option<(String, String)> {
    let ty = helper_type.spelling();
    let (combine, identity) = match op {
        "add" => ("arith.addi", "0".to_string()),
        "mul" => ("arith.muli", "1".to_string()),
        "and" => ("arith.andi", "-1".to_string()),
        "or" => ("arith.ori", "0".to_string()),
        "xor" => ("arith.xori", "0".to_string()),
        "maxui" => ("arith.maxui", "0".to_string()),
        "minui" => ("arith.minui", "-1".to_string()),
        "maxsi" => (
            "arith.maxsi",
            if helper_type == HelperType::I64 {
                i64::MIN.to_string()
            } else {
                i32::MIN.to_string()
            },
        ),
        "minsi" => (
            "arith.minsi",
            if helper_type == HelperType::I64 {
                i64::MAX.to_string()
            } else {
                i32::MAX.to_string()
            },
        ),
        _ => return None,
    };
    let shuffle = match helper_type {
        HelperType::I32 => "%x = llvm.call_intrinsic \"llvm.nvvm.shfl.sync.idx.i32\"(%mask, %v, %l, %c31) : \
                  (i32, i32, i32, i32) -> i32"
            .to_string(),
        HelperType::I64 => "%lo = arith.trunci %v : i64 to i32\n\
                  %sh = arith.shrui %v, %c32_64 : i64\n\
                  %hi = arith.trunci %sh : i64 to i32\n\
                  %xlo = llvm.call_intrinsic \"llvm.nvvm.shfl.sync.idx.i32\"(%mask, %lo, %l, %c31) : (i32, i32, i32, i32) -> i32\n\
                  %xhi = llvm.call_intrinsic \"llvm.nvvm.shfl.sync.idx.i32\"(%mask, %hi, %l, %c31) : (i32, i32, i32, i32) -> i32\n\
                  %wlo = arith.extui %xlo : i32 to i64\n\
                  %whi = arith.extui %xhi : i32 to i64\n\
                  %whs = arith.shli %whi, %c32_64 : i64\n\
                  %x = arith.ori %whs, %wlo : i64"
            .to_string(),
        _ => return None,
    };
    let name = format!("__hipmlir_nvptx_warp_reduce_{op}_{ty}");
    let text = format!(
        "func.func private @{name}(%v: {ty}) -> {ty} {{
  %mask = llvm.call_intrinsic \"llvm.nvvm.activemask\"() : () -> i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c31 = arith.constant 31 : i32
  %c32 = arith.constant 32 : i32
  %c32_64 = arith.constant 32 : i64
  %id = arith.constant {identity} : {ty}
  %r = scf.for %l = %c0 to %c32 step %c1 iter_args(%acc = %id) -> ({ty}) : i32 {{
    %s = arith.shrui %mask, %l : i32
    %b = arith.andi %s, %c1 : i32
    %on = arith.cmpi ne, %b, %c0 : i32
    %n = scf.if %on -> ({ty}) {{
      {shuffle}
      %y = {combine} %acc, %x : {ty}
      scf.yield %y : {ty}
    }} else {{
      scf.yield %acc : {ty}
    }}
    scf.yield %n : {ty}
  }}
  return %r : {ty}
}}"
    );
    Some((name, text))
}

/// The helper (and its MLIR text) for a `gpu.shuffle idx` of a 32-bit value: PTX's shfl.sync
/// under the active mask. convert-gpu-to-nvvm names the whole warp in the mask, and on Volta and
/// newer a shfl.sync waits for every lane it names: a shuffle in code that part of the warp does
/// not run (legal in HIP, where a lane reading an inactive lane gets an undefined value) would
/// never finish. The source lane is the frontend's, HIP's `width` segments already applied.
fn shuffle_helper(helper_type: HelperType) -> Option<(String, String)> {
    if !matches!(helper_type, HelperType::I32 | HelperType::F32) {
        return None;
    }
    let ty = helper_type.spelling();
    let name = format!("__hipmlir_nvptx_shuffle_idx_{ty}");
    let text = format!(
        "func.func private @{name}(%v: {ty}, %source: i32) -> {ty} {{
  %mask = llvm.call_intrinsic \"llvm.nvvm.activemask\"() : () -> i32
  %c31 = arith.constant 31 : i32
  %r = nvvm.shfl.sync idx %mask, %v, %source, %c31 : {ty} -> {ty}
  return %r : {ty}
}}"
    );
    Some((name, text))
}

/// A `gpu.shuffle idx` whose validity flag is unused becomes a call of its helper; others are
/// left to convert-gpu-to-nvvm.
fn lower_shuffle(ctx: &Context, raw: MlirOperation) -> Result<(), LowerError> {
    // SAFETY: a live shuffle found by the walk.
    let op = unsafe { OperationRef::from_raw(raw) };
    let is_index = op
        .attribute("mode")
        .is_ok_and(|m| Some(m) == Attribute::parse(ctx, "#gpu<shuffle_mode idx>"));
    // SAFETY: a structural query on the live op's second result (gpu.shuffle has two).
    let valid_used = unsafe {
        !mlir_sys::mlirValueGetFirstUse(mlirOperationGetResult(raw, 1))
            .ptr
            .is_null()
    };
    if !is_index || valid_used {
        return Ok(());
    }
    let value = op.operand(0).map_err(err)?;
    let Some((symbol, text)) = HelperType::of(ctx, value.r#type()).and_then(shuffle_helper) else {
        return Ok(());
    };
    let source = op.operand(1).map_err(err)?;
    let gpu_module =
        enclosing(raw, "gpu.module").ok_or_else(|| err("shuffle outside a gpu.module"))?;
    define_helper(ctx, gpu_module, &symbol, &text)?;
    // SAFETY: the shuffle's block.
    let block = unsafe { mlirOperationGetBlock(raw) };
    let result = insert_before(
        block,
        raw,
        OperationBuilder::new("func.call", op.location())
            .add_operands(&[value, source])
            .add_attributes(&[named(
                ctx,
                "callee",
                FlatSymbolRefAttribute::new(ctx, &symbol).into(),
            )])
            .add_results(&[value.r#type()]),
    )?[0];
    // SAFETY: the shuffle's value is replaced, then the shuffle (now unused) is erased.
    unsafe {
        mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(raw, 0), result);
        mlirOperationRemoveFromParent(raw);
        mlirOperationDestroy(raw);
    }
    Ok(())
}

/// The helper for a block-wide vote (`gpu.all_reduce` of a 0/1 `i32`: HIP's
/// `__syncthreads_count`, `_and`, `_or`): PTX's `bar.red`, a barrier that also reduces.
fn block_vote_helper(op: &str) -> Option<(String, String)> {
    let (kind, asm) = match op {
        "add" => (
            "popc",
            "{ .reg .pred %hp; setp.ne.u32 %hp, $1, 0; bar.red.popc.u32 $0, 0, %hp; }",
        ),
        "minsi" | "and" => (
            "and",
            "{ .reg .pred %hp, %hq; setp.ne.u32 %hp, $1, 0; bar.red.and.pred %hq, 0, %hp; \
             selp.u32 $0, 1, 0, %hq; }",
        ),
        "maxsi" | "or" => (
            "or",
            "{ .reg .pred %hp, %hq; setp.ne.u32 %hp, $1, 0; bar.red.or.pred %hq, 0, %hp; \
             selp.u32 $0, 1, 0, %hq; }",
        ),
        _ => return None,
    };
    let name = format!("__hipmlir_nvptx_block_{kind}");
    let text = format!(
        "func.func private @{name}(%v: i32) -> i32 {{
  %r = llvm.inline_asm has_side_effects \"{asm}\", \"=r,r\" %v : (i32) -> i32
  return %r : i32
}}"
    );
    Some((name, text))
}

/// The libdevice function for a device library call, if there is one.
fn libdevice_name(symbol: &str) -> Option<String> {
    if symbol.starts_with("__nv_") {
        return Some(symbol.to_string());
    }
    // Correctly rounded, as HIP's sqrtf is (`__nv_sqrtf` is approximate unless reflected).
    if symbol == "sqrtf" {
        return Some("__nv_fsqrt_rn".to_string());
    }
    if let Some((_, nv)) = FAST.iter().find(|(n, _)| *n == symbol) {
        return Some(nv.to_string());
    }
    let base = symbol.strip_suffix('f').unwrap_or(symbol);
    LIBRARY.contains(&base).then(|| format!("__nv_{symbol}"))
}

fn err(e: impl std::fmt::Display) -> LowerError {
    LowerError::bug(format!("lowering HIP for NVPTX: {e}"))
}

fn text_of(a: Attribute) -> String {
    a.to_string()
        .trim_start_matches('@')
        .trim_matches('"')
        .to_string()
}

fn unsupported(op: &OperationRef, what: &str) -> LowerError {
    LowerError::Unsupported {
        location: crate::source_location_or_unknown(op.location()),
        message: what.to_string(),
    }
}

pub fn lower_hip_to_nvptx(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut scoped = Vec::new();
    let mut calls = Vec::new();
    let mut printfs = Vec::new();
    let mut dynamic_shared = Vec::new();
    let mut defined: HashSet<String> = HashSet::new();
    let mut reductions = Vec::new();
    let mut subgroup_sizes = Vec::new();
    let mut shuffles = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let name = op.name();
        let name = name.as_string_ref().as_str().unwrap_or("").to_string();
        match name.as_str() {
            "gpu.subgroup_reduce" | "gpu.all_reduce" => reductions.push(op.to_raw()),
            "gpu.subgroup_size" => subgroup_sizes.push(op.to_raw()),
            "gpu.shuffle" => shuffles.push(op.to_raw()),
            "llvm.fence" | "llvm.atomicrmw" | "llvm.cmpxchg" if op.has_attribute("syncscope") => {
                scoped.push(op.to_raw())
            }
            // HIP's sqrtf is correctly rounded; convert-gpu-to-nvvm's `__nv_sqrtf` is the
            // approximate one unless __CUDA_PREC_SQRT is reflected on, so ask for the rounded one.
            "math.sqrt" if op.result(0).is_ok_and(|r| r.r#type() == Type::float32(ctx)) => {
                calls.push((op.to_raw(), "__nv_fsqrt_rn".to_string()))
            }
            "func.call" => {
                let callee = op.attribute("callee").map(text_of).unwrap_or_default();
                if callee.starts_with(PRINTF_PREFIX) {
                    printfs.push(op.to_raw());
                } else {
                    calls.push((op.to_raw(), callee));
                }
            }
            "func.func" => {
                let symbol = op.attribute("sym_name").map(text_of).unwrap_or_default();
                if op.region(0).is_ok_and(|r| r.first_block().is_some()) {
                    defined.insert(symbol);
                }
            }
            "llvm.mlir.global"
                if op.attribute("sym_name").map(text_of).as_deref() == Ok(DYNAMIC_SHARED) =>
            {
                dynamic_shared.push(op.to_raw())
            }
            _ => {}
        }
        WalkResult::Advance
    });

    for raw in shuffles {
        lower_shuffle(ctx, raw)?;
    }

    for raw in dynamic_shared {
        // SAFETY: a live global found by the walk.
        let mut global = unsafe { OperationRefMut::from_raw(raw) };
        global.set_attribute(
            "alignment",
            IntegerAttribute::new(IntegerType::new(ctx, 64).into(), 16).into(),
        );
    }

    for raw in scoped {
        // SAFETY: a live operation found by the walk.
        let mut op = unsafe { OperationRefMut::from_raw(raw) };
        let scope = op.attribute("syncscope").map(text_of).unwrap_or_default();
        let nvptx_scope = match scope.as_str() {
            "agent" => "device",
            // NVPTX has no warp scope; the block's is the narrowest that covers a warp.
            "workgroup" | "wavefront" => "block",
            "" | "singlethread" => continue,
            other => return Err(err(format!("unknown memory scope '{other}'"))),
        };
        op.set_attribute("syncscope", StringAttribute::new(ctx, nvptx_scope).into());
        // A warp-scope fence is __syncwarp: on Volta and newer a warp's lanes run independently,
        // so it also waits for the warp's lanes (bar.warp.sync with the whole warp, CUDA's
        // __syncwarp()), after the fence.
        if scope == "wavefront" && op.name().as_string_ref().as_str() == Ok("llvm.fence") {
            let gpu_module =
                enclosing(raw, "gpu.module").ok_or_else(|| err("a fence outside a gpu.module"))?;
            define_helper(ctx, gpu_module, SYNCWARP, SYNCWARP_TEXT)?;
            // SAFETY: structural queries on the live fence.
            let (block, next) = unsafe {
                (
                    mlirOperationGetBlock(raw),
                    mlir_sys::mlirOperationGetNextInBlock(raw),
                )
            };
            insert_before(
                block,
                next,
                OperationBuilder::new("func.call", op.location()).add_attributes(&[named(
                    ctx,
                    "callee",
                    FlatSymbolRefAttribute::new(ctx, SYNCWARP).into(),
                )]),
            )?;
        }
    }

    // Calls of device library functions: libdevice's, or unsupported. They become LLVM calls
    // of LLVM declarations: convert-gpu-to-nvvm would wrap a func.func declaration in a
    // C-interface shim calling `_mlir_ciface_<name>`, which nothing defines.
    let mut libdevice_declared: HashSet<String> = HashSet::new();
    for (raw, callee) in calls {
        if defined.contains(&callee) {
            continue;
        }
        // SAFETY: a live call found by the walk.
        let call = unsafe { OperationRef::from_raw(raw) };
        let Some(nv) = libdevice_name(&callee) else {
            return Err(unsupported(
                &call,
                &format!("a call of the device library function '{callee}' on NVPTX targets"),
            ));
        };
        let operands: Vec<Value> = call.operands().collect();
        let results: Vec<Type> = call.results().map(|r| r.r#type()).collect();
        if libdevice_declared.insert(nv.clone()) {
            let gpu_module =
                enclosing(raw, "gpu.module").ok_or_else(|| err("a call outside a gpu.module"))?;
            let inputs: Vec<Type> = operands.iter().map(|v| v.r#type()).collect();
            declare_llvm_function(ctx, gpu_module, &nv, &inputs, results.first().copied())?;
        }
        // SAFETY: the call's block.
        let block = unsafe { mlirOperationGetBlock(raw) };
        let replacement = insert_before(
            block,
            raw,
            llvm_call(ctx, call.location(), &nv, &operands).add_results(&results),
        )?;
        // SAFETY: the call's results are replaced one for one, then the call is erased.
        unsafe {
            for (i, r) in replacement.iter().enumerate() {
                mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(raw, i as isize), *r);
            }
            mlirOperationRemoveFromParent(raw);
            mlirOperationDestroy(raw);
        }
    }
    // The library's func.func declarations are unused now: symbol-dce removes them.

    guard_local_atomics(ctx, module)?;

    if !printfs.is_empty() {
        lower_printf(ctx, module, &printfs)?;
    }
    for raw in reductions {
        lower_reduction(ctx, raw)?;
    }
    // warpSize is 32 on every NVIDIA GPU.
    for raw in subgroup_sizes {
        // SAFETY: a live gpu.subgroup_size found by the walk.
        let op = unsafe { OperationRef::from_raw(raw) };
        let ty = op.result(0).map_err(err)?.r#type();
        let block = unsafe { mlirOperationGetBlock(raw) };
        let c = insert_before(
            block,
            raw,
            OperationBuilder::new("arith.constant", op.location())
                .add_attributes(&[named(ctx, "value", IntegerAttribute::new(ty, 32).into())])
                .add_results(&[ty]),
        )?[0];
        // SAFETY: the size's result is replaced, then the op (now unused) is erased.
        unsafe {
            mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(raw, 0), c);
            mlirOperationRemoveFromParent(raw);
            mlirOperationDestroy(raw);
        }
    }
    Ok(())
}

/// The kinds of `#gpu<all_reduce_op ...>` the helpers below implement.
const REDUCTION_KINDS: &[&str] = &[
    "add", "mul", "and", "or", "xor", "maxui", "minui", "maxsi", "minsi",
];

/// A warp or block reduction becomes a call of its helper, defined once per gpu.module.
fn lower_reduction(ctx: &Context, raw: MlirOperation) -> Result<(), LowerError> {
    // SAFETY: a live reduction found by the walk.
    let op = unsafe { OperationRef::from_raw(raw) };
    let name = op.name().as_string_ref().as_str().unwrap_or("").to_string();
    // The C API has no accessor for the enum: the attribute is compared with each kind's.
    let kind = op
        .attribute("op")
        .ok()
        .and_then(|a| {
            REDUCTION_KINDS
                .iter()
                .find(|k| Attribute::parse(ctx, &format!("#gpu<all_reduce_op {k}>")) == Some(a))
        })
        .copied()
        .unwrap_or("");
    let value = op.operand(0).map_err(err)?;
    let ty = value.r#type();
    let helper_type = HelperType::of(ctx, ty);
    let block_wide = name == "gpu.all_reduce";
    let helper = if block_wide {
        if helper_type == Some(HelperType::I32)
            && op.region(0).is_ok_and(|r| r.first_block().is_none())
        {
            block_vote_helper(kind)
        } else {
            None
        }
    } else {
        helper_type.and_then(|t| warp_reduce_helper(kind, t))
    };
    let Some((symbol, text)) = helper else {
        return Err(unsupported(
            &op,
            &format!(
                "{} '{}' of {ty} on NVPTX targets",
                if block_wide {
                    "a block-wide reduction"
                } else {
                    "a warp reduction"
                },
                if kind.is_empty() {
                    op.attribute("op")
                        .map(|a| a.to_string())
                        .unwrap_or_default()
                } else {
                    kind.to_string()
                }
            ),
        ));
    };
    let gpu_module =
        enclosing(raw, "gpu.module").ok_or_else(|| err("reduction outside a gpu.module"))?;
    define_helper(ctx, gpu_module, &symbol, &text)?;
    let loc = op.location();
    let result_type = op.result(0).map_err(err)?.r#type();
    // SAFETY: the reduction's block.
    let block = unsafe { mlirOperationGetBlock(raw) };
    let result = insert_before(
        block,
        raw,
        OperationBuilder::new("func.call", loc)
            .add_operands(&[value])
            .add_attributes(&[named(
                ctx,
                "callee",
                FlatSymbolRefAttribute::new(ctx, &symbol).into(),
            )])
            .add_results(&[result_type]),
    )?[0];
    // SAFETY: the reduction's result is replaced, then the reduction (now unused) is erased.
    unsafe {
        mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(raw, 0), result);
        mlirOperationRemoveFromParent(raw);
        mlirOperationDestroy(raw);
    }
    Ok(())
}

/// The first block of a gpu.module's body.
fn module_body<'c>(gpu_module: MlirOperation) -> Result<melior::ir::BlockRef<'c, 'c>, LowerError> {
    // SAFETY: a live gpu.module.
    let gm = unsafe { OperationRef::from_raw(gpu_module) };
    gm.region(0)
        .map_err(err)?
        .first_block()
        .ok_or_else(|| err("empty gpu.module"))
}

/// Whether the gpu.module defines or declares `symbol` already.
fn has_symbol(gpu_module: MlirOperation, symbol: &str) -> Result<bool, LowerError> {
    let mut op = module_body(gpu_module)?.first_operation();
    while let Some(o) = op {
        if o.attribute("sym_name").map(text_of).as_deref() == Ok(symbol) {
            return Ok(true);
        }
        op = o.next_in_block();
    }
    Ok(false)
}

/// Adds the function `text` (named `symbol`) to the gpu.module, unless it is there already.
/// The texts are this file's fixed helper bodies, their types spelled by typed matches
/// ([`HelperType`]), never printed from the IR.
fn define_helper(
    ctx: &Context,
    gpu_module: MlirOperation,
    symbol: &str,
    text: &str,
) -> Result<(), LowerError> {
    if has_symbol(gpu_module, symbol)? {
        return Ok(());
    }
    let parsed = Module::parse(ctx, text).ok_or_else(|| err(format!("bad helper {symbol}")))?;
    let func = parsed
        .body()
        .first_operation()
        .ok_or_else(|| err(format!("empty helper {symbol}")))?;
    let raw = func.to_raw();
    // SAFETY: the helper moves from the parsed module into the gpu.module.
    unsafe {
        mlirOperationRemoveFromParent(raw);
        module_body(gpu_module)?.insert_operation(0, melior::ir::Operation::from_raw(raw));
    }
    Ok(())
}

/// Declares the LLVM function `symbol(inputs) -> result` (`None`: void) in the gpu.module,
/// unless it is there already.
fn declare_llvm_function<'c>(
    ctx: &'c Context,
    gpu_module: MlirOperation,
    symbol: &str,
    inputs: &[Type<'c>],
    result: Option<Type<'c>>,
) -> Result<(), LowerError> {
    if has_symbol(gpu_module, symbol)? {
        return Ok(());
    }
    let result = result.unwrap_or_else(|| melior::dialect::llvm::r#type::void(ctx));
    let function_type = melior::dialect::llvm::r#type::function(result, inputs, false);
    let declaration = OperationBuilder::new("llvm.func", Location::unknown(ctx))
        .add_attributes(&[
            named(ctx, "sym_name", StringAttribute::new(ctx, symbol).into()),
            named(
                ctx,
                "function_type",
                TypeAttribute::new(function_type).into(),
            ),
        ])
        .add_regions([melior::ir::Region::new()])
        .build()
        .map_err(err)?;
    module_body(gpu_module)?.insert_operation(0, declaration);
    Ok(())
}

/// `hipmlir-nvptx-byval-parameters`: on the LLVM kernels, `hipmlir.byval = {"<index>" = <struct
/// type>}` → the parameter's `llvm.byval` attribute.
pub fn nvptx_byval_parameters(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut kernels = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("llvm.func")
            && op.has_attribute(BYVAL_ATTRIBUTE)
        {
            kernels.push(op.to_raw());
        }
        WalkResult::Advance
    });
    for raw in kernels {
        byval_parameters(ctx, raw)?;
    }
    Ok(())
}

fn byval_parameters(ctx: &Context, raw: MlirOperation) -> Result<(), LowerError> {
    // SAFETY: a live function found by the walk.
    let mut func = unsafe { OperationRefMut::from_raw(raw) };
    let byval = DictionaryAttribute::try_from(func.attribute(BYVAL_ATTRIBUTE).map_err(err)?)
        .map_err(err)?;
    let count = func
        .region(0)
        .map_err(err)?
        .first_block()
        .map(|b| b.argument_count())
        .unwrap_or(0);
    // The parameters' attributes so far (melior's ArrayAttribute conversion checks for a dense
    // array, so the C API reads the array).
    let existing: Vec<Option<DictionaryAttribute>> = match func.attribute("arg_attrs") {
        // SAFETY: element access after the kind check, within the array's length.
        Ok(a) if unsafe { mlir_sys::mlirAttributeIsAArray(a.to_raw()) } => unsafe {
            (0..mlir_sys::mlirArrayAttrGetNumElements(a.to_raw()))
                .map(|i| {
                    DictionaryAttribute::try_from(Attribute::from_raw(
                        mlir_sys::mlirArrayAttrGetElement(a.to_raw(), i),
                    ))
                    .ok()
                })
                .collect()
        },
        _ => Vec::new(),
    };
    let mut attrs: Vec<Attribute> = Vec::with_capacity(count);
    for i in 0..count {
        let mut entries: Vec<(Identifier, Attribute)> = Vec::new();
        if let Some(Some(dict)) = existing.get(i) {
            for j in 0..dict.len() {
                entries.push(dict.element(j).map_err(err)?);
            }
        }
        if let Some(ty) = byval.element_by_name(&i.to_string()) {
            entries.push((Identifier::new(ctx, "llvm.byval"), ty));
        }
        attrs.push(DictionaryAttribute::new(ctx, &entries).into());
    }
    func.set_attribute("arg_attrs", ArrayAttribute::new(ctx, &attrs).into());
    Ok(())
}

/// `llvm.call @callee(operands)`, its results still to add.
fn llvm_call<'c>(
    ctx: &'c Context,
    location: Location<'c>,
    callee: &str,
    operands: &[Value<'c, '_>],
) -> OperationBuilder<'c> {
    OperationBuilder::new("llvm.call", location)
        .add_operands(operands)
        .add_attributes(&[
            named(
                ctx,
                "callee",
                FlatSymbolRefAttribute::new(ctx, callee).into(),
            ),
            named(
                ctx,
                "operandSegmentSizes",
                DenseI32ArrayAttribute::new(ctx, &[operands.len() as i32, 0]).into(),
            ),
            named(
                ctx,
                "op_bundle_sizes",
                DenseI32ArrayAttribute::new(ctx, &[]).into(),
            ),
        ])
}

/// Inserts `builder`'s operation before `before`, returning its results.
fn insert_before(
    block: MlirBlock,
    before: MlirOperation,
    builder: OperationBuilder,
) -> Result<Vec<MlirValue>, LowerError> {
    let op = builder.build().map_err(err)?;
    let n = op.result_count();
    let raw = op.to_raw();
    std::mem::forget(op); // owned by the block from here on
                          // SAFETY: a fresh, unowned operation inserted before a live one of `block`.
    unsafe {
        mlirBlockInsertOwnedOperationBefore(block, before, raw);
        Ok((0..n)
            .map(|i| mlirOperationGetResult(raw, i as isize))
            .collect())
    }
}

/// Each `__hipmlir_printf_N(format, args...)` becomes `vprintf(format, buffer)`: the arguments
/// (already promoted as C's varargs are) stored in a buffer laid out as a struct of them, as
/// CUDA's printf passes them.
fn named<'c>(ctx: &'c Context, n: &str, a: Attribute<'c>) -> (Identifier<'c>, Attribute<'c>) {
    (Identifier::new(ctx, n), a)
}

fn lower_printf(
    ctx: &Context,
    module: &Module,
    printfs: &[MlirOperation],
) -> Result<(), LowerError> {
    let generic = melior::dialect::llvm::r#type::pointer(ctx, nvptx::GENERIC);
    let i32t: Type = IntegerType::new(ctx, 32).into();
    let i64t: Type = IntegerType::new(ctx, 64).into();
    let mut gpu_modules = Vec::new();
    for &raw in printfs {
        // SAFETY: a live call found by the walk.
        let call = unsafe { OperationRef::from_raw(raw) };
        let loc = call.location();
        let operands: Vec<Value> = call.operands().collect();
        let (format, args) = operands
            .split_first()
            .ok_or_else(|| err("printf without a format"))?;
        // SAFETY: the call's block.
        let block = unsafe { mlirOperationGetBlock(raw) };
        let to_generic = |v: Value<'_, '_>| -> Result<MlirValue, LowerError> {
            let ty = v.r#type();
            if ty.is_llvm_pointer_type() && ty != generic {
                Ok(insert_before(
                    block,
                    raw,
                    OperationBuilder::new("llvm.addrspacecast", loc)
                        .add_operands(&[v])
                        .add_results(&[generic]),
                )?[0])
            } else {
                Ok(v.to_raw())
            }
        };
        let format = to_generic(*format)?;
        let buffer = if args.is_empty() {
            insert_before(
                block,
                raw,
                OperationBuilder::new("llvm.mlir.zero", loc).add_results(&[generic]),
            )?[0]
        } else {
            let values: Vec<MlirValue> = args
                .iter()
                .map(|a| to_generic(*a))
                .collect::<Result<_, _>>()?;
            // SAFETY: live values' types.
            let types: Vec<Type> = values
                .iter()
                .map(|v| unsafe { Value::from_raw(*v) }.r#type())
                .collect();
            let record = melior::dialect::llvm::r#type::r#struct(ctx, &types, false);
            // The buffer lives in the kernel's entry block: an alloca inside a loop would grow
            // the stack each iteration.
            let (entry, first) = entry_block_start(raw)?;
            let one = insert_before(
                entry,
                first,
                OperationBuilder::new("llvm.mlir.constant", loc)
                    .add_attributes(&[named(ctx, "value", IntegerAttribute::new(i64t, 1).into())])
                    .add_results(&[i64t]),
            )?[0];
            // SAFETY: `one` was just created.
            let one = unsafe { Value::from_raw(one) };
            let buffer = insert_before(
                entry,
                first,
                OperationBuilder::new("llvm.alloca", loc)
                    .add_operands(&[one])
                    .add_attributes(&[
                        named(ctx, "elem_type", TypeAttribute::new(record).into()),
                        named(ctx, "alignment", IntegerAttribute::new(i64t, 8).into()),
                    ])
                    .add_results(&[generic]),
            )?[0];
            // SAFETY: `buffer` was just created.
            let buffer_value = unsafe { Value::from_raw(buffer) };
            for (i, v) in values.iter().enumerate() {
                let indices = DenseI32ArrayAttribute::new(ctx, &[0, i as i32]);
                let field = insert_before(
                    block,
                    raw,
                    OperationBuilder::new("llvm.getelementptr", loc)
                        .add_operands(&[buffer_value])
                        .add_attributes(&[
                            named(ctx, "rawConstantIndices", indices.into()),
                            named(ctx, "elem_type", TypeAttribute::new(record).into()),
                        ])
                        .add_results(&[generic]),
                )?[0];
                // SAFETY: live values.
                let (v, field) = unsafe { (Value::from_raw(*v), Value::from_raw(field)) };
                insert_before(
                    block,
                    raw,
                    OperationBuilder::new("llvm.store", loc).add_operands(&[v, field]),
                )?;
            }
            buffer
        };
        // SAFETY: live values.
        let (format, buffer) = unsafe { (Value::from_raw(format), Value::from_raw(buffer)) };
        let result = insert_before(
            block,
            raw,
            llvm_call(ctx, loc, VPRINTF, &[format, buffer]).add_results(&[i32t]),
        )?[0];
        // SAFETY: the old call's result (an i32, as vprintf's) is replaced, then the call is
        // erased.
        unsafe {
            if call.result_count() == 1 {
                mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(raw, 0), result);
            }
        }
        if let Some(m) = enclosing(raw, "gpu.module") {
            if !gpu_modules.iter().any(|g: &MlirOperation| g.ptr == m.ptr) {
                gpu_modules.push(m);
            }
        }
        // SAFETY: nothing uses the call any more.
        unsafe {
            mlirOperationRemoveFromParent(raw);
            mlirOperationDestroy(raw);
        }
    }
    // `vprintf` declared (as an LLVM function, see the library calls) in each gpu.module that
    // calls it; the per-signature printf declarations are left for symbol-dce.
    for m in gpu_modules {
        declare_llvm_function(ctx, m, VPRINTF, &[generic, generic], Some(i32t))?;
    }
    let _ = module;
    Ok(())
}

/// The operation of kind `name` that contains `op`.
fn enclosing(op: MlirOperation, name: &str) -> Option<MlirOperation> {
    // SAFETY: parent queries on live IR.
    unsafe {
        let mut cur = mlir_sys::mlirOperationGetParentOperation(op);
        while !cur.ptr.is_null() {
            if OperationRef::from_raw(cur).name().as_string_ref().as_str() == Ok(name) {
                return Some(cur);
            }
            cur = mlir_sys::mlirOperationGetParentOperation(cur);
        }
        None
    }
}

/// The entry block of the function containing `op`, and its first operation.
fn entry_block_start(op: MlirOperation) -> Result<(MlirBlock, MlirOperation), LowerError> {
    let func = enclosing(op, "gpu.func")
        .or_else(|| enclosing(op, "func.func"))
        .ok_or_else(|| err("printf outside a function"))?;
    // SAFETY: structural queries on a live function.
    unsafe {
        let region = mlir_sys::mlirOperationGetRegion(func, 0);
        let entry = mlir_sys::mlirRegionGetFirstBlock(region);
        let first = mlir_sys::mlirBlockGetFirstOperation(entry);
        Ok((entry, first))
    }
}

/// The plain read-modify-write of an atomic's operation on `%o` and `%v`: lines defining `%n`,
/// the value stored. `None` for an operation not covered.
fn plain_update(bin_op: AtomicBinOp, ty: &str) -> Option<String> {
    let binary = |name: &str| format!("%n = llvm.{name} %o, %v : {ty}");
    let pick = |predicate: &str| {
        format!(
            "%c = llvm.icmp \"{predicate}\" %o, %v : {ty}\n%n = llvm.select %c, %o, %v : i1, {ty}"
        )
    };
    Some(match bin_op {
        AtomicBinOp::Xchg => format!("%n = llvm.select %true, %v, %o : i1, {ty}"),
        AtomicBinOp::Add => binary("add"),
        AtomicBinOp::Sub => binary("sub"),
        AtomicBinOp::And => binary("and"),
        AtomicBinOp::Or => binary("or"),
        AtomicBinOp::Xor => binary("xor"),
        AtomicBinOp::Max => pick("sgt"),
        AtomicBinOp::Min => pick("slt"),
        AtomicBinOp::UMax => pick("ugt"),
        AtomicBinOp::UMin => pick("ult"),
        AtomicBinOp::FAdd => binary("fadd"),
        AtomicBinOp::FSub => binary("fsub"),
        AtomicBinOp::FMax => format!("%n = llvm.intr.maxnum(%o, %v) : ({ty}, {ty}) -> {ty}"),
        AtomicBinOp::FMin => format!("%n = llvm.intr.minnum(%o, %v) : ({ty}, {ty}) -> {ty}"),
        AtomicBinOp::UIncWrap | AtomicBinOp::UDecWrap => return None,
    })
}

/// An `llvm.atomicrmw` through a generic pointer may reach private memory, where PTX has no
/// atomics (and HIP on AMD does): each becomes a call of a helper of its own that tests the
/// pointer with `isspacep.local` and does a plain read-modify-write there (one thread owns
/// private memory), the atomic itself everywhere else.
fn guard_local_atomics(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let generic = melior::dialect::llvm::r#type::pointer(ctx, nvptx::GENERIC);
    let mut rmws = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("llvm.atomicrmw")
            && op.operand(0).is_ok_and(|p| p.r#type() == generic)
        {
            rmws.push(op.to_raw());
        }
        WalkResult::Advance
    });
    for (index, raw) in rmws.into_iter().enumerate() {
        // SAFETY: a live operation found by the walk.
        let op = unsafe { OperationRef::from_raw(raw) };
        let bin_op = op
            .attribute("bin_op")
            .ok()
            .and_then(|a| IntegerAttribute::try_from(a).ok())
            .and_then(|a| AtomicBinOp::from_value(a.value()))
            .ok_or_else(|| err("llvm.atomicrmw without a known bin_op"))?;
        let ty = op.result(0).map_err(err)?.r#type();
        let Some(helper_type) = HelperType::of(ctx, ty) else {
            continue;
        };
        let ty_text = helper_type.spelling();
        let Some(update) = plain_update(bin_op, ty_text) else {
            continue;
        };
        let symbol = format!("__hipmlir_atomic_rmw_{index}");
        let text = format!(
            "llvm.func @{symbol}(%p: !llvm.ptr, %v: {ty_text}) -> {ty_text} {{\n\
             %l = llvm.call_intrinsic \"llvm.nvvm.isspacep.local\"(%p) : (!llvm.ptr) -> i1\n\
             llvm.cond_br %l, ^local, ^other\n\
             ^local:\n\
             %true = llvm.mlir.constant(true) : i1\n\
             %o = llvm.load %p : !llvm.ptr -> {ty_text}\n\
             {update}\n\
             llvm.store %n, %p : {ty_text}, !llvm.ptr\n\
             llvm.return %o : {ty_text}\n\
             ^other:\n\
             llvm.return %v : {ty_text}\n\
             }}"
        );
        let gpu_module =
            enclosing(raw, "gpu.module").ok_or_else(|| err("an atomic outside a gpu.module"))?;
        define_helper(ctx, gpu_module, &symbol, &text)?;
        // The atomic itself moves into the helper's `^other` block, on the helper's arguments.
        // SAFETY: the helper was just inserted first in the gpu.module's body; the atomic is
        // live; it is moved (removed from its block, inserted before `^other`'s return).
        unsafe {
            let gm = OperationRef::from_raw(gpu_module);
            let body = gm
                .region(0)
                .map_err(err)?
                .first_block()
                .ok_or_else(|| err("empty gpu.module"))?;
            let helper = body.first_operation().ok_or_else(|| err("no helper"))?;
            let entry = helper
                .region(0)
                .map_err(err)?
                .first_block()
                .ok_or_else(|| err("no entry"))?;
            let other = entry
                .next_in_region()
                .and_then(|b| b.next_in_region())
                .ok_or_else(|| err("no ^other block"))?;
            let ret = other.terminator().ok_or_else(|| err("no return"))?;
            let block = mlirOperationGetBlock(raw);
            let call = insert_before(
                block,
                raw,
                llvm_call(
                    ctx,
                    op.location(),
                    &symbol,
                    &op.operands().collect::<Vec<_>>(),
                )
                .add_results(&[ty]),
            )?;
            mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(raw, 0), call[0]);
            mlirOperationRemoveFromParent(raw);
            mlirBlockInsertOwnedOperationBefore(other.to_raw(), ret.to_raw(), raw);
            mlir_sys::mlirOperationSetOperand(raw, 0, entry.argument(0).map_err(err)?.to_raw());
            mlir_sys::mlirOperationSetOperand(raw, 1, entry.argument(1).map_err(err)?.to_raw());
            mlir_sys::mlirOperationSetOperand(ret.to_raw(), 0, mlirOperationGetResult(raw, 0));
        }
    }
    Ok(())
}
