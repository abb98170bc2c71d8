//! `hipmlir-lower-hip-to-nvptx`: what HIP means that MLIR's GPU→NVVM conversion does not know,
//! on a module whose address spaces are NVPTX's (after `hipmlir-address-spaces-to-nvptx`):
//!
//! - dynamic shared memory stays the frontend's `extern` shared array, as CUDA declares it
//!   (`.extern .shared .align 16 .b8 x[]`), sized by the launch's shared-memory bytes;
//! - a struct passed by value is a `byval` kernel parameter (NVPTX's `.param` copy), and a
//!   `__restrict__` pointer a `noalias` one: set by `hipmlir-nvptx-parameter-attributes` after
//!   `convert-gpu-to-nvvm`, which drops parameter attributes;
//! - memory scopes take NVPTX's names (`agent` → `device`, `workgroup`/`wavefront` → `block`),
//!   and a warp fence (`__syncwarp`) also waits for the warp (`bar.warp.sync`);
//! - device library calls become libdevice's `__nv_*` functions (math ops are converted by
//!   `convert-gpu-to-nvvm` itself), and `__byte_perm` one `prmt.b32`;
//! - fmax/fmin of halves and pairs of halves are LLVM's maxnum/minnum (`max.f16x2`);
//! - `printf` becomes CUDA's `vprintf(format, argument buffer)`;
//! - the device's clocks are `%clock64` (cycles) and `%globaltimer` (nanoseconds);
//! - a trap comes after a system fence (what the work-item wrote for the host is seen);
//! - a function not to be inlined (`no_inline`, which `convert-func-to-llvm` drops) gets LLVM's
//!   `noinline`: the memory checker's slow path, inlined at each of hundreds of checks, made
//!   kernels ptxas took minutes to build;
//! - warp reductions and shuffles run under the active mask, block votes are `bar.red`, and an
//!   atomic through a generic pointer is guarded against private memory: calls of the helpers
//!   of `nvptx::helpers`.
//!
//! What has no NVPTX lowering yet is reported as unsupported at its source location, never
//! compiled into a kernel that computes something else.

use std::collections::HashSet;

use hipmlir_device_image::{DeviceClock, DYNAMIC_SHARED_SYMBOL, PRINTF_SYMBOL_PREFIX};
use hipmlir_ir::rewrite::{
    apply_patterns, enclosing, Outcome, Pattern, PatternRewriter, RewritePatternSet,
};
use melior::dialect::arith;
use melior::dialect::llvm::{self, AllocaOptions, LoadStoreOptions};
use melior::dialect::ods::llvm as ods_llvm;
use melior::ir::attribute::{
    ArrayAttribute, DenseI32ArrayAttribute, IntegerAttribute, StringAttribute, TypeAttribute,
};
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, OperationMutLike, OperationRef, OperationRefMut};
use melior::ir::r#type::IntegerType;
use melior::ir::{Attribute, Module, Region, RegionLike, Type, TypeLike, Value, ValueLike};
use melior::Context;
use mlir_sys::{mlirOperationGetResult, MlirBlock, MlirOperation, MlirValue};

use crate::address_space_map::nvptx;
use crate::builder::{type_of, value, Rewriter, NO_INLINE_ATTRIBUTE};
use crate::nvptx::err;
use crate::nvptx::helpers::{self, HelperType};
use crate::relocations;
use crate::symbols::{byte_perm_operands, symbol, text_of};
use crate::LowerError;

/// CUDA's device printf: `i32 vprintf(const char* format, void* arguments)`, provided by the
/// driver's JIT link.
const VPRINTF: &str = "vprintf";

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

/// The NVVM intrinsic reading a device clock's special register: the SM's cycle counter, and
/// the global timer (nanoseconds; the runtime's `hipDeviceAttributeWallClockRate` says 1 GHz).
fn clock_register(clock: DeviceClock) -> &'static str {
    match clock {
        DeviceClock::Cycles => "llvm.nvvm.read.ptx.sreg.clock64",
        DeviceClock::Wall => "llvm.nvvm.read.ptx.sreg.globaltimer",
    }
}

/// A `gpu.shuffle idx` whose validity flag is unused becomes a call of its helper; others are
/// left to convert-gpu-to-nvvm.
fn lower_shuffle<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut Lowering,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let ctx = rw.ctx;
    let raw = op.to_raw();
    let is_index = op
        .attribute("mode")
        .is_ok_and(|m| helpers::is_index_shuffle(ctx, m));
    // SAFETY: a structural query on the live op's second result (gpu.shuffle has two).
    let valid_used = unsafe {
        !mlir_sys::mlirValueGetFirstUse(mlirOperationGetResult(raw, 1))
            .ptr
            .is_null()
    };
    if !is_index || valid_used {
        return Ok(Outcome::NoMatch);
    }
    let shuffled = op.operand(0).map_err(err)?;
    let Some(helper_type) = HelperType::of(ctx, shuffled.r#type()) else {
        return Ok(Outcome::NoMatch);
    };
    let gpu_module = gpu_module_of(&op, "shuffle")?;
    let Some(symbol) = helpers::shuffle(ctx, gpu_module, helper_type)? else {
        return Ok(Outcome::NoMatch);
    };
    let source = op.operand(1).map_err(err)?;
    let result = Rewriter::before(ctx, &op).func_call(
        &symbol,
        &[shuffled.to_raw(), source.to_raw()],
        &[shuffled.r#type()],
    )[0];
    // The validity flag is unused: only the value is replaced.
    rw.replace_op(&op, &[value(result)]);
    Ok(Outcome::Rewrote)
}

/// The gpu.module holding `op`, a `what` (an internal error outside one).
fn gpu_module_of(op: &OperationRef, what: &str) -> Result<MlirOperation, LowerError> {
    enclosing(op, "gpu.module")
        .map(|m| m.to_raw())
        .ok_or_else(|| err(format!("{what} outside a gpu.module")))
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

fn unsupported(op: &OperationRef, what: &str) -> LowerError {
    LowerError::unsupported(op.location(), what)
}

/// The pass's state: the functions the module defines, the libdevice functions declared so
/// far, and how many atomics have been offered for guarding (each guard's helper is numbered).
#[derive(Default)]
struct Lowering {
    defined: HashSet<String>,
    libdevice_declared: HashSet<String>,
    atomics: usize,
}

pub fn lower_hip_to_nvptx(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    populate_hip_to_nvptx_patterns(&mut patterns);
    apply_patterns(
        ctx,
        &module.as_operation(),
        &patterns,
        &mut Lowering::default(),
    )
}

/// The lowering's stages, in the order their rewrites build on each other (and in which the
/// helpers they define come to the start of the gpu.module).
fn populate_hip_to_nvptx_patterns(patterns: &mut RewritePatternSet<Lowering, LowerError>) {
    patterns
        .add(Pattern::new("func.func", note_definition))
        .add(Pattern::new("func.func", keep_not_inlined))
        .next_stage()
        .add(Pattern::new("gpu.shuffle", lower_shuffle))
        .next_stage()
        .add(Pattern::new("llvm.mlir.global", align_dynamic_shared))
        .next_stage()
        .add(Pattern::new("llvm.mlir.global", relocate_global))
        .next_stage()
        .add(Pattern::new("llvm.fence", rename_scope))
        .add(Pattern::new("llvm.atomicrmw", rename_scope))
        .add(Pattern::new("llvm.cmpxchg", rename_scope))
        .next_stage()
        .add(Pattern::new("math.sqrt", lower_sqrt))
        .add(Pattern::new("arith.maxnumf", lower_half_min_max))
        .add(Pattern::new("arith.minnumf", lower_half_min_max))
        .add(Pattern::new("func.call", lower_byte_perm))
        .add(Pattern::new("func.call", lower_library_call))
        .next_stage()
        .add(Pattern::new("llvm.atomicrmw", guard_local_atomic))
        .next_stage()
        .add(Pattern::new("func.call", lower_printf))
        .next_stage()
        .add(Pattern::new("gpu.subgroup_reduce", lower_reduction))
        .add(Pattern::new("gpu.all_reduce", lower_reduction))
        .next_stage()
        .add(Pattern::new("gpu.subgroup_size", lower_subgroup_size))
        .add(Pattern::new("llvm.intr.trap", fence_before_trap));
}

/// A trap ends the kernel at once: what the work-item wrote to host memory before it (a
/// device abort's word, the memory checker's report, both pinned memory the host reads once
/// the launch failed) is made visible to the system first.
fn fence_before_trap<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut Lowering,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let ordering = IntegerAttribute::new(
        IntegerType::new(rw.ctx, 64).into(),
        hipmlir_device_image::atomic_ordering::SEQ_CST,
    );
    Rewriter::before(rw.ctx, &op).op("llvm.fence", &[], &[], &[("ordering", ordering.into())])?;
    Ok(Outcome::Rewrote)
}

/// A function the module defines: its calls stay calls.
fn note_definition<'c>(
    _: &mut PatternRewriter<'c>,
    state: &mut Lowering,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    if op.region(0).is_ok_and(|r| r.first_block().is_some()) {
        state
            .defined
            .insert(symbol(&op, "sym_name").unwrap_or_default());
    }
    // (Only noted: the function's other patterns still see it.)
    Ok(Outcome::NoMatch)
}

/// A function marked not to be inlined keeps that through the conversion to LLVM, as LLVM's
/// `noinline` (a `passthrough` attribute, which `convert-func-to-llvm` carries).
fn keep_not_inlined<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut Lowering,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    if !op.has_attribute(NO_INLINE_ATTRIBUTE) || op.has_attribute("passthrough") {
        return Ok(Outcome::NoMatch);
    }
    let ctx = rw.ctx;
    let noinline: Attribute = StringAttribute::new(ctx, "noinline").into();
    // SAFETY: the live function; only its attributes change.
    let mut function = unsafe { OperationRefMut::from_raw(op.to_raw()) };
    function.set_attribute("passthrough", ArrayAttribute::new(ctx, &[noinline]).into());
    Ok(Outcome::Rewrote)
}

/// Dynamic shared memory is aligned as CUDA's `extern __shared__` arrays are.
fn align_dynamic_shared<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut Lowering,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    if symbol(&op, "sym_name").as_deref() != Some(DYNAMIC_SHARED_SYMBOL) {
        return Ok(Outcome::NoMatch);
    }
    // SAFETY: the live global; setting an attribute keeps it alive.
    let mut global = unsafe { OperationRefMut::from_raw(op.to_raw()) };
    global.set_attribute(
        "alignment",
        IntegerAttribute::new(IntegerType::new(rw.ctx, 64).into(), 16).into(),
    );
    Ok(Outcome::Rewrote)
}

/// A global whose initial value holds addresses (see `relocations`): its words become the
/// value of an initializer region, each address `ptrtoint` of the target's generic address,
/// which LLVM's NVPTX printer writes as `generic(target)+addend` for the driver to resolve.
fn relocate_global<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut Lowering,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    if !relocations::is_relocated(&op) {
        return Ok(Outcome::NoMatch);
    }
    let ctx = rw.ctx;
    let loc = op.location();
    let value = op
        .attribute("value")
        .map_err(|_| err("a relocated global without a value"))?;
    let bytes = hipmlir_ir::dense_bytes(value).ok_or_else(|| err("a value that is not bytes"))?;
    let words = relocations::words(&op, &bytes)?;
    let ty = relocations::word_array_type(&op)?;
    let i64t: Type = IntegerType::new(ctx, 64).into();
    let block = melior::ir::Block::new(&[]);
    let b = Rewriter::at_end(ctx, &block, loc);
    let mut array = b.emit_value(llvm::zero(ty, loc))?;
    for (i, word) in words.iter().enumerate() {
        let element = match word {
            relocations::Word::Bits(0) => continue,
            relocations::Word::Bits(bits) => b.one(
                "llvm.mlir.constant",
                &[],
                i64t,
                &[("value", IntegerAttribute::new(i64t, *bits as i64).into())],
            )?,
            relocations::Word::Address { target, addend } => {
                let space = relocations::address_space_of(&op, target)?;
                let global_ptr = llvm::r#type::pointer(ctx, space);
                let base = b.one(
                    "llvm.mlir.addressof",
                    &[],
                    global_ptr,
                    &[(
                        "global_name",
                        melior::ir::attribute::FlatSymbolRefAttribute::new(ctx, target).into(),
                    )],
                )?;
                let at = b.emit_value(llvm::get_element_ptr(
                    ctx,
                    value_of(base),
                    DenseI32ArrayAttribute::new(
                        ctx,
                        &[i32::try_from(*addend).map_err(|_| err("an addend beyond 2 GiB"))?],
                    ),
                    IntegerType::new(ctx, 8).into(),
                    global_ptr,
                    loc,
                ))?;
                let generic = b.one(
                    "llvm.addrspacecast",
                    &[at],
                    llvm::r#type::pointer(ctx, nvptx::GENERIC),
                    &[],
                )?;
                b.one("llvm.ptrtoint", &[generic], i64t, &[])?
            }
        };
        array = b.emit_value(llvm::insert_value(
            ctx,
            value_of(array),
            melior::ir::attribute::DenseI64ArrayAttribute::new(ctx, &[i as i64]),
            value_of(element),
            loc,
        ))?;
    }
    b.emit(llvm::r#return(Some(value_of(array)), loc));
    // SAFETY: the live global; its attributes change and its empty region takes the block.
    let mut global = unsafe { OperationRefMut::from_raw(op.to_raw()) };
    global.set_attribute("global_type", TypeAttribute::new(ty).into());
    global.remove_attribute("value").map_err(err)?;
    global
        .remove_attribute(hipmlir_device_image::RELOCATIONS_ATTRIBUTE)
        .map_err(err)?;
    global.region(0).map_err(err)?.append_block(block);
    Ok(Outcome::Rewrote)
}

fn value_of<'c>(v: MlirValue) -> Value<'c, 'c> {
    value(v)
}

/// Memory scopes take NVPTX's names; a warp fence also waits for the warp.
fn rename_scope<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut Lowering,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let ctx = rw.ctx;
    let Ok(scope) = op.attribute("syncscope").map(text_of) else {
        return Ok(Outcome::NoMatch);
    };
    let nvptx_scope = match scope.as_str() {
        "agent" => "device",
        // NVPTX has no warp scope; the block's is the narrowest that covers a warp.
        "workgroup" | "wavefront" => "block",
        "" | "singlethread" => return Ok(Outcome::Rewrote),
        other => return Err(err(format!("unknown memory scope '{other}'"))),
    };
    // SAFETY: the live operation; setting an attribute keeps it alive.
    let mut scoped = unsafe { OperationRefMut::from_raw(op.to_raw()) };
    scoped.set_attribute("syncscope", StringAttribute::new(ctx, nvptx_scope).into());
    // A warp-scope fence is __syncwarp: on Volta and newer a warp's lanes run independently,
    // so it also waits for the warp's lanes (bar.warp.sync with the whole warp, CUDA's
    // __syncwarp()), after the fence.
    if scope == "wavefront" && op.name().as_string_ref().as_str() == Ok("llvm.fence") {
        helpers::syncwarp(ctx, gpu_module_of(&op, "a fence")?)?;
        Rewriter::after(ctx, &op).func_call(helpers::SYNCWARP, &[], &[]);
    }
    Ok(Outcome::Rewrote)
}

/// HIP's sqrtf is correctly rounded; convert-gpu-to-nvvm's `__nv_sqrtf` is the approximate one
/// unless __CUDA_PREC_SQRT is reflected on, so ask for the rounded one.
fn lower_sqrt<'c>(
    rw: &mut PatternRewriter<'c>,
    state: &mut Lowering,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    if !op
        .result(0)
        .is_ok_and(|r| r.r#type() == Type::float32(rw.ctx))
    {
        return Ok(Outcome::NoMatch);
    }
    call_library(rw, state, op, "__nv_fsqrt_rn")
}

/// fmax/fmin of halves or pairs of halves (`__hmax`, `__hmax2`, ...) as LLVM's maxnum/minnum
/// of `half`/`<2 x half>`: NVPTX makes them max.f16/max.f16x2 from sm_80 (PTX's max returns
/// the number when one operand is NaN, as fmax does) and goes through float before, exactly.
/// convert-gpu-to-nvvm would call libdevice's float function on each lane.
fn lower_half_min_max<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut Lowering,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let ctx = rw.ctx;
    let half = Type::float16(ctx);
    let Ok(result) = op.result(0) else {
        return Ok(Outcome::NoMatch);
    };
    let ty = result.r#type();
    if ty != half && ty != Type::vector(&[2], half) {
        return Ok(Outcome::NoMatch);
    }
    let intrinsic = match op.name().as_string_ref().as_str() {
        Ok("arith.maxnumf") => "llvm.intr.maxnum",
        Ok("arith.minnumf") => "llvm.intr.minnum",
        _ => return Ok(Outcome::NoMatch),
    };
    let operands: Vec<MlirValue> = op.operands().map(|v| v.to_raw()).collect();
    let r = Rewriter::before(ctx, &op).one(intrinsic, &operands, ty, &[])?;
    rw.replace_op(&op, &[value_of(r)]);
    Ok(Outcome::Rewrote)
}

/// `__byte_perm(x, y, s)` is PTX's `prmt.b32` (`llvm.nvvm.prmt`) in its default mode, where a
/// selector nibble's top bit replicates the chosen byte's sign: HIP's takes a nibble's low
/// three bits only, so the selector is masked first (folded away for a constant one).
fn lower_byte_perm<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut Lowering,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let Some([x, y, s]) = byte_perm_operands(&op)? else {
        return Ok(Outcome::NoMatch);
    };
    let i32t: Type = IntegerType::new(rw.ctx, 32).into();
    let b = Rewriter::before(rw.ctx, &op);
    let mask = b.arith_int(i32t, 0x7777)?;
    let selector = b.emit_value(arith::andi(value_of(s), value_of(mask), b.loc))?;
    let permuted = b.call_intrinsic("llvm.nvvm.prmt", &[x, y, selector], &[i32t])?;
    rw.replace_op(&op, &values(&permuted));
    Ok(Outcome::Rewrote)
}

/// Calls of device library functions (not printf's): libdevice's, a clock, or unsupported.
fn lower_library_call<'c>(
    rw: &mut PatternRewriter<'c>,
    state: &mut Lowering,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let callee = symbol(&op, "callee").unwrap_or_default();
    if callee.starts_with(PRINTF_SYMBOL_PREFIX) {
        return Ok(Outcome::NoMatch);
    }
    call_library(rw, state, op, &callee)
}

/// `op` (a call, or a math op with a libdevice function) as a call of `callee`: a function of
/// the module stays called; a clock reads its register; a library function is libdevice's,
/// called as an LLVM call of an LLVM declaration (convert-gpu-to-nvvm would wrap a func.func
/// declaration in a C-interface shim calling `_mlir_ciface_<name>`, which nothing defines).
fn call_library<'c>(
    rw: &mut PatternRewriter<'c>,
    state: &mut Lowering,
    call: OperationRef<'c, 'c>,
    callee: &str,
) -> Result<Outcome, LowerError> {
    let ctx = rw.ctx;
    if state.defined.contains(callee) {
        return Ok(Outcome::Rewrote);
    }
    if let Some(clock) = DeviceClock::of_symbol(callee) {
        let i64t: Type = IntegerType::new(ctx, 64).into();
        let ticks =
            Rewriter::before(ctx, &call).call_intrinsic(clock_register(clock), &[], &[i64t])?;
        rw.replace_op(&call, &values(&ticks));
        return Ok(Outcome::Rewrote);
    }
    let Some(nv) = libdevice_name(callee) else {
        return Err(unsupported(
            &call,
            &format!("a call of the device library function '{callee}' on NVPTX targets"),
        ));
    };
    let operands: Vec<MlirValue> = call.operands().map(|v| v.to_raw()).collect();
    let results: Vec<Type> = call.results().map(|r| r.r#type()).collect();
    if state.libdevice_declared.insert(nv.clone()) {
        let gpu_module = gpu_module_of(&call, "a call")?;
        let inputs: Vec<Type> = operands.iter().map(|v| type_of(*v)).collect();
        declare_llvm_function(ctx, gpu_module, &nv, &inputs, results.first().copied())?;
    }
    let replacement = Rewriter::before(ctx, &call).llvm_call(&nv, &operands, &results)?;
    rw.replace_op(&call, &values(&replacement));
    // The library's func.func declarations are unused now: symbol-dce removes them.
    Ok(Outcome::Rewrote)
}

/// Each `llvm.atomicrmw` through a generic pointer is guarded against private memory (see
/// [`helpers::guard_local_atomic`]), by a helper of its own.
fn guard_local_atomic<'c>(
    rw: &mut PatternRewriter<'c>,
    state: &mut Lowering,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let generic = llvm::r#type::pointer(rw.ctx, nvptx::GENERIC);
    if !op.operand(0).is_ok_and(|p| p.r#type() == generic) {
        return Ok(Outcome::NoMatch);
    }
    let index = state.atomics;
    state.atomics += 1;
    helpers::guard_local_atomic(rw.ctx, op, &format!("__hipmlir_atomic_rmw_{index}"))?;
    Ok(Outcome::Rewrote)
}

/// warpSize is 32 on every NVIDIA GPU.
fn lower_subgroup_size<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut Lowering,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let ty = op.result(0).map_err(err)?.r#type();
    let size = Rewriter::before(rw.ctx, &op).arith_int(ty, 32)?;
    rw.replace_op(&op, &[value(size)]);
    Ok(Outcome::Rewrote)
}

/// Live values of the module being rewritten.
fn values<'c>(raw: &[MlirValue]) -> Vec<hipmlir_ir::Value<'c>> {
    raw.iter().map(|v| value(*v)).collect()
}

/// A warp or block reduction becomes a call of its helper, defined once per gpu.module.
fn lower_reduction<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut Lowering,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let ctx = rw.ctx;
    let block_wide = op.name().as_string_ref().as_str() == Ok("gpu.all_reduce");
    let reduction = op
        .attribute("op")
        .ok()
        .and_then(|a| helpers::Reduction::of(ctx, a));
    let reduced = op.operand(0).map_err(err)?;
    let ty = reduced.r#type();
    let helper_type = HelperType::of(ctx, ty);
    let gpu_module = gpu_module_of(&op, "reduction")?;
    let symbol = match reduction {
        // A vote over the block: a 0/1 i32, no body of its own.
        Some(r)
            if block_wide
                && helper_type == Some(HelperType::I32)
                && op.region(0).is_ok_and(|r| r.first_block().is_none()) =>
        {
            helpers::block_vote(ctx, gpu_module, r)?
        }
        Some(r) if !block_wide => match helper_type {
            Some(t) => helpers::warp_reduce(ctx, gpu_module, r, t)?,
            None => None,
        },
        _ => None,
    };
    let Some(symbol) = symbol else {
        return Err(unsupported(
            &op,
            &format!(
                "{} '{}' of {ty} on NVPTX targets",
                if block_wide {
                    "a block-wide reduction"
                } else {
                    "a warp reduction"
                },
                match reduction {
                    Some(r) => r.name.to_string(),
                    None => op
                        .attribute("op")
                        .map(|a| a.to_string())
                        .unwrap_or_default(),
                }
            ),
        ));
    };
    let result_type = op.result(0).map_err(err)?.r#type();
    let result = Rewriter::before(ctx, &op).func_call(&symbol, &[reduced.to_raw()], &[result_type]);
    rw.replace_op(&op, &values(&result));
    Ok(Outcome::Rewrote)
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
    if crate::symbols::has_symbol(gpu_module, symbol)? {
        return Ok(());
    }
    let result = result.unwrap_or_else(|| melior::dialect::llvm::r#type::void(ctx));
    let function_type = melior::dialect::llvm::r#type::function(result, inputs, false);
    helpers::module_start(ctx, gpu_module)?.llvm_function(symbol, function_type, Region::new());
    Ok(())
}

/// Each `__hipmlir_printf_N(format, args...)` becomes `vprintf(format, buffer)`: the arguments
/// (already promoted as C's varargs are) stored in a buffer laid out as a struct of them, as
/// CUDA's printf passes them.
///
/// `vprintf` is declared (as an LLVM function, see the library calls) in each gpu.module that
/// calls it; the per-signature printf declarations are left for symbol-dce.
fn lower_printf<'c>(
    rewriter: &mut PatternRewriter<'c>,
    _: &mut Lowering,
    call: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    if !symbol(&call, "callee").is_some_and(|c| c.starts_with(PRINTF_SYMBOL_PREFIX)) {
        return Ok(Outcome::NoMatch);
    }
    let ctx = rewriter.ctx;
    let generic = llvm::r#type::pointer(ctx, nvptx::GENERIC);
    let i32t: Type = IntegerType::new(ctx, 32).into();
    let i64t: Type = IntegerType::new(ctx, 64).into();
    // SAFETY: live values of the function being rewritten.
    let value = |raw: MlirValue| unsafe { Value::from_raw(raw) };
    let loc = call.location();
    let rw = Rewriter::before(ctx, &call);
    let operands: Vec<MlirValue> = call.operands().map(|v| v.to_raw()).collect();
    let (format, args) = operands
        .split_first()
        .ok_or_else(|| err("printf without a format"))?;
    let to_generic = |v: MlirValue| -> Result<MlirValue, LowerError> {
        let ty = type_of(v);
        if ty.is_llvm_pointer_type() && ty != generic {
            rw.emit_value(ods_llvm::addrspacecast(ctx, generic, value(v), loc))
        } else {
            Ok(v)
        }
    };
    let format = to_generic(*format)?;
    let buffer = if args.is_empty() {
        rw.emit_value(llvm::zero(generic, loc))?
    } else {
        let values: Vec<MlirValue> = args
            .iter()
            .map(|a| to_generic(*a))
            .collect::<Result<_, _>>()?;
        let types: Vec<Type> = values.iter().map(|v| type_of(*v)).collect();
        let record = llvm::r#type::r#struct(ctx, &types, false);
        // The buffer lives in the kernel's entry block: an alloca inside a loop would grow
        // the stack each iteration.
        let at_entry = Rewriter::at_start(ctx, entry_block(&call)?, loc);
        let one = at_entry.emit_value(ods_llvm::mlir_constant(
            ctx,
            i64t,
            IntegerAttribute::new(i64t, 1).into(),
            loc,
        ))?;
        let buffer = at_entry.emit_value(llvm::alloca(
            ctx,
            value(one),
            generic,
            loc,
            AllocaOptions::new()
                .elem_type(Some(TypeAttribute::new(record)))
                .align(Some(IntegerAttribute::new(i64t, 8))),
        ))?;
        for (i, v) in values.iter().enumerate() {
            let field = rw.emit_value(llvm::get_element_ptr(
                ctx,
                value(buffer),
                DenseI32ArrayAttribute::new(ctx, &[0, i as i32]),
                record,
                generic,
                loc,
            ))?;
            rw.emit(llvm::store(
                ctx,
                value(*v),
                value(field),
                loc,
                LoadStoreOptions::default(),
            ));
        }
        buffer
    };
    let result = rw.llvm_call(VPRINTF, &[format, buffer], &[i32t])?[0];
    if let Ok(m) = gpu_module_of(&call, "printf") {
        declare_llvm_function(ctx, m, VPRINTF, &[generic, generic], Some(i32t))?;
    }
    // The old call's result (an i32, as vprintf's), if it has one, is replaced, then the
    // call is erased.
    rewriter.replace_op(&call, &[crate::builder::value(result)]);
    Ok(Outcome::Rewrote)
}

/// The entry block of the function containing `op`.
fn entry_block(op: &OperationRef) -> Result<MlirBlock, LowerError> {
    let func = enclosing(op, "gpu.func")
        .or_else(|| enclosing(op, "func.func"))
        .ok_or_else(|| err("printf outside a function"))?;
    func.region(0)
        .ok()
        .and_then(|r| r.first_block())
        .map(|b| b.to_raw())
        .ok_or_else(|| err("printf in a function without a body"))
}
