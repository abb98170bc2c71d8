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
//! - `printf` becomes CUDA's `vprintf(format, argument buffer)`;
//! - the device's clocks are `%clock64` (cycles) and `%globaltimer` (nanoseconds);
//! - warp reductions and shuffles run under the active mask, block votes are `bar.red`, and an
//!   atomic through a generic pointer is guarded against private memory: calls of the helpers
//!   of `nvptx_helpers`.
//!
//! What has no NVPTX lowering yet is reported as unsupported at its source location, never
//! compiled into a kernel that computes something else.

use std::collections::HashSet;

use hipmlir_device_image::{DeviceClock, BYVAL_ATTRIBUTE};
use melior::dialect::llvm::{self, AllocaOptions, LoadStoreOptions};
use melior::dialect::ods::llvm as ods_llvm;
use melior::ir::attribute::{
    ArrayAttribute, DenseI32ArrayAttribute, DictionaryAttribute, FlatSymbolRefAttribute,
    IntegerAttribute, StringAttribute, TypeAttribute,
};
use melior::ir::block::BlockLike;
use melior::ir::operation::{
    OperationLike, OperationMutLike, OperationRef, OperationRefMut, WalkOrder, WalkResult,
};
use melior::ir::r#type::IntegerType;
use melior::ir::{
    Attribute, AttributeLike, Identifier, Module, Region, RegionLike, Type, TypeLike, Value,
    ValueLike,
};
use melior::Context;
use mlir_sys::{
    mlirOperationDestroy, mlirOperationGetResult, mlirOperationRemoveFromParent,
    mlirValueReplaceAllUsesOfWith, MlirBlock, MlirOperation, MlirValue,
};

use crate::address_space_map::nvptx;
use crate::builder::{type_of, Rewriter};
use crate::nvptx_helpers::{self as helpers, HelperType};
use crate::LowerError;

/// The frontend's dynamic shared memory (see hipmlir-frontend's DYNAMIC_SHARED_SYMBOL).
const DYNAMIC_SHARED: &str = "__hipmlir_dynamic_shared";
/// The frontend declares one printf per argument signature.
const PRINTF_PREFIX: &str = "__hipmlir_printf_";
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
fn lower_shuffle(ctx: &Context, raw: MlirOperation) -> Result<(), LowerError> {
    // SAFETY: a live shuffle found by the walk.
    let op = unsafe { OperationRef::from_raw(raw) };
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
        return Ok(());
    }
    let value = op.operand(0).map_err(err)?;
    let Some(helper_type) = HelperType::of(ctx, value.r#type()) else {
        return Ok(());
    };
    let gpu_module =
        enclosing(raw, "gpu.module").ok_or_else(|| err("shuffle outside a gpu.module"))?;
    let Some(symbol) = helpers::shuffle(ctx, gpu_module, helper_type)? else {
        return Ok(());
    };
    let source = op.operand(1).map_err(err)?;
    let result = Rewriter::before(ctx, &op).func_call(
        &symbol,
        &[value.to_raw(), source.to_raw()],
        &[value.r#type()],
    )[0];
    // The validity flag is unused: only the value is replaced.
    replace(raw, &[result]);
    Ok(())
}

/// Replaces the first results of `op` by `values` and erases it (unused from then on).
fn replace(op: MlirOperation, values: &[MlirValue]) {
    // SAFETY: `op` is live; its results are replaced one for one, then it is erased.
    unsafe {
        for (i, v) in values.iter().enumerate() {
            mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, i as isize), *v);
        }
        mlirOperationRemoveFromParent(op);
        mlirOperationDestroy(op);
    }
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

pub(crate) fn err(e: impl std::fmt::Display) -> LowerError {
    LowerError::bug(format!("lowering HIP for NVPTX: {e}"))
}

/// The text of a string or symbol attribute (`""` for another kind).
fn text_of(a: Attribute) -> String {
    if let Ok(s) = StringAttribute::try_from(a) {
        return s.value().to_string();
    }
    FlatSymbolRefAttribute::try_from(a)
        .map(|s| s.value().to_string())
        .unwrap_or_default()
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
            helpers::syncwarp(ctx, gpu_module)?;
            // SAFETY: the live fence.
            let fence = unsafe { OperationRef::from_raw(raw) };
            Rewriter::after(ctx, &fence).func_call(helpers::SYNCWARP, &[], &[]);
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
        if let Some(clock) = DeviceClock::of_symbol(&callee) {
            let i64t: Type = IntegerType::new(ctx, 64).into();
            let ticks =
                Rewriter::before(ctx, &call).call_intrinsic(clock_register(clock), &[], &[i64t])?;
            replace(raw, &ticks);
            continue;
        }
        let Some(nv) = libdevice_name(&callee) else {
            return Err(unsupported(
                &call,
                &format!("a call of the device library function '{callee}' on NVPTX targets"),
            ));
        };
        let operands: Vec<MlirValue> = call.operands().map(|v| v.to_raw()).collect();
        let results: Vec<Type> = call.results().map(|r| r.r#type()).collect();
        if libdevice_declared.insert(nv.clone()) {
            let gpu_module =
                enclosing(raw, "gpu.module").ok_or_else(|| err("a call outside a gpu.module"))?;
            let inputs: Vec<Type> = operands.iter().map(|v| type_of(*v)).collect();
            declare_llvm_function(ctx, gpu_module, &nv, &inputs, results.first().copied())?;
        }
        let replacement = Rewriter::before(ctx, &call).llvm_call(&nv, &operands, &results)?;
        replace(raw, &replacement);
    }
    // The library's func.func declarations are unused now: symbol-dce removes them.

    guard_local_atomics(ctx, module)?;

    if !printfs.is_empty() {
        lower_printf(ctx, &printfs)?;
    }
    for raw in reductions {
        lower_reduction(ctx, raw)?;
    }
    // warpSize is 32 on every NVIDIA GPU.
    for raw in subgroup_sizes {
        // SAFETY: a live gpu.subgroup_size found by the walk.
        let op = unsafe { OperationRef::from_raw(raw) };
        let ty = op.result(0).map_err(err)?.r#type();
        let size = Rewriter::before(ctx, &op).arith_int(ty, 32)?;
        replace(raw, &[size]);
    }
    Ok(())
}

/// A warp or block reduction becomes a call of its helper, defined once per gpu.module.
fn lower_reduction(ctx: &Context, raw: MlirOperation) -> Result<(), LowerError> {
    // SAFETY: a live reduction found by the walk.
    let op = unsafe { OperationRef::from_raw(raw) };
    let block_wide = op.name().as_string_ref().as_str() == Ok("gpu.all_reduce");
    let reduction = op
        .attribute("op")
        .ok()
        .and_then(|a| helpers::Reduction::of(ctx, a));
    let value = op.operand(0).map_err(err)?;
    let ty = value.r#type();
    let helper_type = HelperType::of(ctx, ty);
    let gpu_module =
        enclosing(raw, "gpu.module").ok_or_else(|| err("reduction outside a gpu.module"))?;
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
    let result = Rewriter::before(ctx, &op).func_call(&symbol, &[value.to_raw()], &[result_type]);
    replace(raw, &result);
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
    if helpers::has_symbol(gpu_module, symbol)? {
        return Ok(());
    }
    let result = result.unwrap_or_else(|| melior::dialect::llvm::r#type::void(ctx));
    let function_type = melior::dialect::llvm::r#type::function(result, inputs, false);
    helpers::module_start(ctx, gpu_module)?.llvm_function(symbol, function_type, Region::new());
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

/// Each `__hipmlir_printf_N(format, args...)` becomes `vprintf(format, buffer)`: the arguments
/// (already promoted as C's varargs are) stored in a buffer laid out as a struct of them, as
/// CUDA's printf passes them.
fn lower_printf(ctx: &Context, printfs: &[MlirOperation]) -> Result<(), LowerError> {
    let generic = llvm::r#type::pointer(ctx, nvptx::GENERIC);
    let i32t: Type = IntegerType::new(ctx, 32).into();
    let i64t: Type = IntegerType::new(ctx, 64).into();
    // SAFETY: live values of the function being rewritten.
    let value = |raw: MlirValue| unsafe { Value::from_raw(raw) };
    let mut gpu_modules = Vec::new();
    for &raw in printfs {
        // SAFETY: a live call found by the walk.
        let call = unsafe { OperationRef::from_raw(raw) };
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
            let at_entry = Rewriter::at_start(ctx, entry_block(raw)?, loc);
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
        if let Some(m) = enclosing(raw, "gpu.module") {
            if !gpu_modules.iter().any(|g: &MlirOperation| g.ptr == m.ptr) {
                gpu_modules.push(m);
            }
        }
        // The old call's result (an i32, as vprintf's) is replaced, then the call is erased.
        if call.result_count() == 1 {
            replace(raw, &[result]);
        } else {
            replace(raw, &[]);
        }
    }
    // `vprintf` declared (as an LLVM function, see the library calls) in each gpu.module that
    // calls it; the per-signature printf declarations are left for symbol-dce.
    for m in gpu_modules {
        declare_llvm_function(ctx, m, VPRINTF, &[generic, generic], Some(i32t))?;
    }
    Ok(())
}

/// The operation of kind `name` that contains `op`.
pub(crate) fn enclosing(op: MlirOperation, name: &str) -> Option<MlirOperation> {
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

/// The entry block of the function containing `op`.
fn entry_block(op: MlirOperation) -> Result<MlirBlock, LowerError> {
    let func = enclosing(op, "gpu.func")
        .or_else(|| enclosing(op, "func.func"))
        .ok_or_else(|| err("printf outside a function"))?;
    // SAFETY: structural queries on a live function.
    unsafe {
        let region = mlir_sys::mlirOperationGetRegion(func, 0);
        Ok(mlir_sys::mlirRegionGetFirstBlock(region))
    }
}

/// Each `llvm.atomicrmw` through a generic pointer is guarded against private memory (see
/// [`helpers::guard_local_atomic`]), by a helper of its own.
fn guard_local_atomics(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let generic = llvm::r#type::pointer(ctx, nvptx::GENERIC);
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
        helpers::guard_local_atomic(ctx, raw, &format!("__hipmlir_atomic_rmw_{index}"))?;
    }
    Ok(())
}
