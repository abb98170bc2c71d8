//! `hipmlir-lower-clocks-to-spirv`: reads of the device's clocks (the frontend's calls of
//! device-image's `DeviceClock` symbols) become calls of one imported placeholder taking the
//! clock's scope, which [`crate::spirv::patch`] turns into `OpReadClockKHR` after serialization
//! (SPV_KHR_shader_clock; MLIR's SPIR-V dialect has no op for it). `hipmlir-add-missing-
//! capabilities` declares the capability and extension where the placeholder is called.
//!
//! SPIR-V has one clock to read: both HIP clocks read the device's, at Device scope (what
//! OpenCL's cl_khr_kernel_clock calls `clock_read_device`), a 64-bit counter. On NVPTX the
//! clocks are `%clock64` and `%globaltimer` (see [`crate::nvptx::lower`]).

use hipmlir_device_image::DeviceClock;
use hipmlir_ir::rewrite::{
    apply_patterns, enclosing, Outcome, Pattern, PatternRewriter, RewritePatternSet,
};
use melior::ir::operation::OperationLike;
use melior::ir::r#type::{FunctionType, IntegerType};
use melior::ir::{Module, OperationRef, Type, ValueLike};
use melior::Context;

use crate::builder::{value, Rewriter};
use crate::spirv::ir::Scope;
use crate::symbols::symbol;
use crate::LowerError;

/// The imported placeholder `i64 (i32 scope)`: each call becomes `OpReadClockKHR`.
pub const READ_CLOCK_IMPORT: &str = "__hipmlir_spirv_read_clock";

/// `Capability::ShaderClockKHR`.
pub const CAPABILITY_SHADER_CLOCK: i64 = 5055;
/// The extension that brings `OpReadClockKHR`.
pub const SHADER_CLOCK_EXTENSION: &str = "SPV_KHR_shader_clock";

/// The gpu.modules (by address) whose placeholder is declared.
type Declared = Vec<usize>;

pub fn lower_clocks_to_spirv(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns
        .add(Pattern::new("func.call", lower_clock_read))
        .add(Pattern::new("func.func", erase_clock_declaration));
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut Declared::new())
}

fn is_clock(symbol: &str) -> bool {
    DeviceClock::of_symbol(symbol).is_some()
}

/// A call of a clock: a call of the placeholder with the Device scope.
fn lower_clock_read<'c>(
    rw: &mut PatternRewriter<'c>,
    declared: &mut Declared,
    call: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    if !symbol(&call, "callee").is_some_and(|c| is_clock(&c)) {
        return Ok(Outcome::NoMatch);
    }
    let ctx = rw.ctx;
    let gpu_module = enclosing(&call, "gpu.module").ok_or_else(|| {
        LowerError::internal(call.location(), "a clock read outside a gpu.module")
    })?;
    let key = gpu_module.to_raw().ptr as usize;
    if !declared.contains(&key) {
        declare_import(ctx, &call, &gpu_module)?;
        declared.push(key);
    }
    let at = Rewriter::before(ctx, &call);
    let i32t: Type = IntegerType::new(ctx, 32).into();
    let scope = at.int_constant(i32t, Scope::Device as i64)?;
    let result = call.result(0).map_err(|e| at.error(e))?;
    let ticks = at.function_call(READ_CLOCK_IMPORT, &[scope], result.r#type())?;
    rw.replace_op(&call, &[value(ticks)]);
    Ok(Outcome::Rewrote)
}

/// The clocks' declarations: every call of them is replaced.
fn erase_clock_declaration<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut Declared,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    if !symbol(&op, "sym_name").is_some_and(|s| is_clock(&s)) {
        return Ok(Outcome::NoMatch);
    }
    rw.erase_op(&op);
    Ok(Outcome::Rewrote)
}

/// `spirv.func @__hipmlir_spirv_read_clock(i32) -> i64`, imported by linkage and not pure (two
/// reads differ), at the top of the gpu.module.
fn declare_import<'c>(
    ctx: &'c Context,
    user: &OperationRef<'c, '_>,
    gpu_module: &OperationRef<'c, '_>,
) -> Result<(), LowerError> {
    let i32t: Type = IntegerType::new(ctx, 32).into();
    let i64t: Type = IntegerType::new(ctx, 64).into();
    let function_type = FunctionType::new(ctx, &[i32t], &[i64t]);
    Rewriter::at_module_start(ctx, gpu_module, user.location())?.imported_function(
        READ_CLOCK_IMPORT,
        function_type,
        false,
    )
}
