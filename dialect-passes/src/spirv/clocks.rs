//! `hipmlir-lower-clocks-to-spirv`: reads of the device's clocks (the frontend's calls of
//! device-image's `DeviceClock` symbols) become calls of one imported placeholder taking the
//! clock's scope, which [`crate::spirv_patch`] turns into `OpReadClockKHR` after serialization
//! (SPV_KHR_shader_clock; MLIR's SPIR-V dialect has no op for it). `hipmlir-add-missing-
//! capabilities` declares the capability and extension where the placeholder is called.
//!
//! SPIR-V has one clock to read: both HIP clocks read the device's, at Device scope (what
//! OpenCL's cl_khr_kernel_clock calls `clock_read_device`), a 64-bit counter. On NVPTX the
//! clocks are `%clock64` and `%globaltimer` (see [`crate::nvptx`]).

use hipmlir_device_image::DeviceClock;
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, WalkOrder, WalkResult};
use melior::ir::r#type::{FunctionType, IntegerType};
use melior::ir::{Module, OperationRef, RegionLike, Type, ValueLike};
use melior::Context;
use mlir_sys::{
    mlirOperationDestroy, mlirOperationRemoveFromParent, mlirValueReplaceAllUsesOfWith,
    MlirOperation,
};

use crate::builder::Rewriter;
use crate::spirv_ir::Scope;
use crate::LowerError;

/// The imported placeholder `i64 (i32 scope)`: each call becomes `OpReadClockKHR`.
pub const READ_CLOCK_IMPORT: &str = "__hipmlir_spirv_read_clock";

/// `Capability::ShaderClockKHR`.
pub const CAPABILITY_SHADER_CLOCK: i64 = 5055;
/// The extension that brings `OpReadClockKHR`.
pub const SHADER_CLOCK_EXTENSION: &str = "SPV_KHR_shader_clock";

pub fn lower_clocks_to_spirv(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut reads: Vec<MlirOperation> = Vec::new();
    let mut declarations: Vec<MlirOperation> = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let name = op.name();
        let name = name.as_string_ref().as_str().unwrap_or("");
        let symbol = |attribute: &str| {
            op.attribute(attribute)
                .map(|a| {
                    a.to_string()
                        .trim_start_matches('@')
                        .trim_matches('"')
                        .to_string()
                })
                .ok()
        };
        if name == "func.call" && symbol("callee").is_some_and(|c| is_clock(&c)) {
            reads.push(op.to_raw());
        } else if name == "func.func" && symbol("sym_name").is_some_and(|s| is_clock(&s)) {
            declarations.push(op.to_raw());
        }
        WalkResult::Advance
    });
    // The gpu.modules (by address) whose placeholder is declared.
    let mut declared: Vec<*const std::ffi::c_void> = Vec::new();
    for raw in reads {
        // SAFETY: a live call found by the walk; replaced and destroyed here only.
        let call = unsafe { OperationRef::from_raw(raw) };
        let gpu_module = enclosing_gpu_module(&call)?;
        if !declared.contains(&gpu_module.ptr.cast_const()) {
            declare_import(ctx, &call, gpu_module)?;
            declared.push(gpu_module.ptr.cast_const());
        }
        let rw = Rewriter::before(ctx, &call);
        let i32t: Type = IntegerType::new(ctx, 32).into();
        let scope = rw.int_constant(i32t, Scope::Device as i64)?;
        let result = call.result(0).map_err(|e| rw.error(e))?;
        let ticks = rw.function_call(READ_CLOCK_IMPORT, &[scope], result.r#type())?;
        // SAFETY: both values are live; the call is destroyed right after.
        unsafe {
            mlirValueReplaceAllUsesOfWith(result.to_raw(), ticks);
            mlirOperationRemoveFromParent(raw);
            mlirOperationDestroy(raw);
        }
    }
    for raw in declarations {
        // SAFETY: every call of the declaration was replaced above.
        unsafe {
            mlirOperationRemoveFromParent(raw);
            mlirOperationDestroy(raw);
        }
    }
    Ok(())
}

fn is_clock(symbol: &str) -> bool {
    DeviceClock::of_symbol(symbol).is_some()
}

fn enclosing_gpu_module(op: &OperationRef) -> Result<MlirOperation, LowerError> {
    let mut parent = op.parent_operation();
    while let Some(p) = parent {
        if p.name().as_string_ref().as_str() == Ok("gpu.module") {
            return Ok(p.to_raw());
        }
        parent = p.parent_operation();
    }
    Err(LowerError::internal(
        op.location(),
        "a clock read outside a gpu.module",
    ))
}

/// `spirv.func @__hipmlir_spirv_read_clock(i32) -> i64`, imported by linkage and not pure (two
/// reads differ), at the top of the gpu.module.
fn declare_import(
    ctx: &Context,
    user: &OperationRef,
    gpu_module: MlirOperation,
) -> Result<(), LowerError> {
    // SAFETY: the live gpu.module enclosing `user`.
    let module = unsafe { OperationRef::from_raw(gpu_module) };
    let at = |e: &dyn std::fmt::Display| LowerError::internal(user.location(), e);
    let body = module
        .region(0)
        .map_err(|e| at(&e))?
        .first_block()
        .ok_or_else(|| at(&"empty gpu.module"))?;
    let i32t: Type = IntegerType::new(ctx, 32).into();
    let i64t: Type = IntegerType::new(ctx, 64).into();
    let function_type = FunctionType::new(ctx, &[i32t], &[i64t]);
    Rewriter::at_start(ctx, body.to_raw(), user.location()).imported_function(
        READ_CLOCK_IMPORT,
        function_type,
        false,
    )
}
