//! `lower-math-to-opencl`: math functions become OpenCL.std extended instructions.
//!
//! MLIR's SPIR-V dialect has ops for only part of OpenCL.std, and its math lowering emulates
//! some functions with others (log1p as log(1+x)), which loses precision. hipmlir maps every
//! math op and device-library call straight to its OpenCL.std instruction: the dialect's
//! `spirv.CL.<name>` op where MLIR has one, otherwise (MLIR has no generic `OpExtInst`) a call
//! to an imported placeholder function named after the instruction's number, which
//! [`crate::spirv::patch`] turns into `OpExtInst` after serialization.

use std::collections::HashSet;

use hipmlir_ir::rewrite::{
    apply_patterns, enclosing, Outcome, Pattern, PatternRewriter, RewritePatternSet,
};
use melior::ir::operation::OperationLike;
use melior::ir::r#type::FunctionType;
use melior::ir::{Module, OperationRef, RegionLike, Type, ValueLike};
use melior::Context;
use mlir_sys::MlirValue;

use crate::builder::{value, Rewriter};
use crate::symbols::symbol;
use crate::LowerError;

/// The prefix of placeholder imports; the OpenCL.std instruction number follows.
pub const OPENCL_STD_PREFIX: &str = "__hipmlir_opencl_std_";

/// Math and arith ops → OpenCL.std (name, instruction number).
const OPS: &[(&str, &str, u32)] = &[
    ("math.acos", "acos", 0),
    ("math.acosh", "acosh", 1),
    ("math.asin", "asin", 3),
    ("math.asinh", "asinh", 4),
    ("math.atan", "atan", 6),
    ("math.atan2", "atan2", 7),
    ("math.atanh", "atanh", 8),
    ("math.cbrt", "cbrt", 11),
    ("math.ceil", "ceil", 12),
    ("math.copysign", "copysign", 13),
    ("math.cos", "cos", 14),
    ("math.cosh", "cosh", 15),
    ("math.erfc", "erfc", 17),
    ("math.erf", "erf", 18),
    ("math.exp", "exp", 19),
    ("math.exp2", "exp2", 20),
    ("math.expm1", "expm1", 22),
    ("math.absf", "fabs", 23),
    ("math.floor", "floor", 25),
    ("math.fma", "fma", 26),
    ("arith.maxnumf", "fmax", 27),
    ("arith.minnumf", "fmin", 28),
    ("math.log", "log", 37),
    ("math.log2", "log2", 38),
    ("math.log10", "log10", 39),
    ("math.log1p", "log1p", 40),
    ("math.powf", "pow", 48),
    ("math.roundeven", "rint", 53),
    ("math.round", "round", 55),
    ("math.rsqrt", "rsqrt", 56),
    ("math.sin", "sin", 57),
    ("math.sinh", "sinh", 59),
    ("math.sqrt", "sqrt", 61),
    ("math.tan", "tan", 62),
    ("math.tanh", "tanh", 63),
    ("math.trunc", "trunc", 66),
    ("math.absi", "s_abs", 141),
    ("math.ctlz", "clz", 151),
    ("math.cttz", "ctz", 152),
    ("arith.maxsi", "s_max", 156),
    ("arith.maxui", "u_max", 157),
    ("arith.minsi", "s_min", 158),
    ("arith.minui", "u_min", 159),
    ("math.ctpop", "popcount", 166),
];

/// Device library functions (the frontend's `func.call`s) → OpenCL.std (name, number). Float
/// versions carry C's `f` suffix.
const LIBRARY: &[(&str, &str, u32)] = &[
    ("exp10", "exp10", 21),
    ("fdim", "fdim", 24),
    ("fmod", "fmod", 29),
    ("hypot", "hypot", 32),
    ("ldexp", "ldexp", 34),
    ("lgamma", "lgamma", 35),
    ("logb", "logb", 41),
    ("nextafter", "nextafter", 47),
    ("remainder", "remainder", 51),
    ("sinpi", "sinpi", 60),
    ("cospi", "cospi", 16),
    ("tgamma", "tgamma", 65),
    // The fast intrinsics: OpenCL's native_* functions have implementation-defined precision,
    // and a device's may miss HIP's bounds by far (Intel's CPU runtime: __expf 1900 times its
    // bound, __fdividef 400 times; tests/programs/fast_intrinsic_bounds.hip). The full-precision
    // functions meet them on every conformant device.
    ("__cosf", "cos", 14),
    ("__expf", "exp", 19),
    ("__exp10f", "exp10", 21),
    ("__logf", "log", 37),
    ("__log2f", "log2", 38),
    ("__log10f", "log10", 39),
    ("__powf", "powr", 50),
    ("__sinf", "sin", 57),
    ("__tanf", "tan", 62),
];

/// Device library calls that are plain arithmetic ops on SPIR-V: `__fdividef` is a division
/// (OpFDiv), for the reason the fast intrinsics above use the full-precision functions.
const LIBRARY_OPS: &[(&str, &str)] = &[("__fdividef", "arith.divf")];

/// Classification ops with a core SPIR-V instruction.
const CLASSIFY: &[(&str, &str)] = &[
    ("math.isnan", "spirv.IsNan"),
    ("math.isinf", "spirv.IsInf"),
    ("math.isfinite", "spirv.IsFinite"),
];

fn library_entry(symbol: &str) -> Option<(&'static str, u32)> {
    // The frontend declares one printf per argument signature.
    if symbol.starts_with(hipmlir_device_image::PRINTF_SYMBOL_PREFIX) {
        return Some(("printf", 184));
    }
    let find = |s: &str| {
        LIBRARY
            .iter()
            .find(|(n, ..)| *n == s)
            .map(|(_, name, n)| (*name, *n))
    };
    find(symbol).or_else(|| symbol.strip_suffix('f').and_then(find))
}

/// The placeholder imports declared so far.
type Declared = HashSet<String>;

pub fn lower_math_to_opencl(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    populate_math_to_opencl_patterns(&mut patterns);
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut Declared::new())
}

/// One pattern per op of the tables, one for device library calls, and one erasing the
/// library's declarations (every call of them is replaced).
fn populate_math_to_opencl_patterns(patterns: &mut RewritePatternSet<Declared, LowerError>) {
    patterns
        .extend(OPS.iter().map(|(op, ..)| Pattern::new(op, lower_op)))
        .extend(CLASSIFY.iter().map(|(op, _)| Pattern::new(op, lower_op)))
        .add(Pattern::new("func.call", lower_library_call))
        .add(Pattern::new("func.func", erase_library_declaration));
}

fn lower_library_call<'c>(
    rw: &mut PatternRewriter<'c>,
    declared: &mut Declared,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let Some(callee) = symbol(&op, "callee") else {
        return Ok(Outcome::NoMatch);
    };
    if let Some((_, arith)) = LIBRARY_OPS.iter().find(|(name, _)| *name == callee) {
        let operands: Vec<MlirValue> = op.operands().map(|v| v.to_raw()).collect();
        let rewriter = Rewriter::before(rw.ctx, &op);
        let result_type = op.result(0).map_err(|e| rewriter.error(e))?.r#type();
        let new = rewriter.instruction(arith, &operands, result_type)?;
        rw.replace_op(&op, &[value(new)]);
        return Ok(Outcome::Rewrote);
    }
    if library_entry(&callee).is_none() {
        return Ok(Outcome::NoMatch);
    }
    lower_op(rw, declared, op)
}

fn erase_library_declaration<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut Declared,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let is_declaration = op.region(0).is_ok_and(|r| r.first_block().is_none());
    let is_library =
        |s: String| library_entry(&s).is_some() || LIBRARY_OPS.iter().any(|(name, _)| *name == s);
    if !is_declaration || !symbol(&op, "sym_name").is_some_and(is_library) {
        return Ok(Outcome::NoMatch);
    }
    rw.erase_op(&op);
    Ok(Outcome::Rewrote)
}

/// The op (or call) becomes its OpenCL.std instruction: the dialect's op, or a call of a
/// placeholder import.
fn lower_op<'c>(
    rewriter: &mut PatternRewriter<'c>,
    declared: &mut Declared,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let ctx = rewriter.ctx;
    let name = op.name();
    let name = name.as_string_ref().as_str().unwrap_or("").to_string();
    let rw = Rewriter::before(ctx, &op);
    let operands: Vec<MlirValue> = op.operands().map(|v| v.to_raw()).collect();
    let result = op.result(0).map_err(|e| rw.error(e))?;
    let result_type = result.r#type();
    let new = if let Some((_, spirv)) = CLASSIFY.iter().find(|(n, _)| *n == name) {
        rw.instruction(spirv, &operands, result_type)?
    } else {
        let (cl_name, number) = match OPS.iter().find(|(n, ..)| *n == name) {
            Some((_, cl, n)) => (*cl, *n),
            None => symbol(&op, "callee")
                .and_then(|c| library_entry(&c))
                .ok_or_else(|| rw.error(format!("no OpenCL.std form for {name}")))?,
        };
        // MLIR names its OpenCL.std ops after the instructions.
        let mlir_op = format!("spirv.CL.{cl_name}");
        if ctx.is_registered_operation(&mlir_op) {
            rw.instruction(&mlir_op, &operands, result_type)?
        } else {
            let inputs: Vec<Type> = op.operands().map(|v| v.r#type()).collect();
            let signature: Vec<String> = inputs
                .iter()
                .chain(std::iter::once(&result_type))
                .map(|t| t.to_string())
                .collect();
            let import = format!(
                "{OPENCL_STD_PREFIX}{number}_{cl_name}_{}",
                signature.join("_")
            );
            if declared.insert(import.clone()) {
                declare_import(ctx, &op, &import, &inputs, result_type)?;
            }
            rw.function_call(&import, &operands, result_type)?
        }
    };
    rewriter.replace_op(&op, &[value(new)]);
    Ok(Outcome::Rewrote)
}

/// `spirv.func @name(...) "Pure"` imported by linkage, at the top of the enclosing gpu.module.
fn declare_import<'c>(
    ctx: &'c Context,
    user: &OperationRef<'c, '_>,
    name: &str,
    inputs: &[Type<'c>],
    result: Type<'c>,
) -> Result<(), LowerError> {
    let module = enclosing(user, "gpu.module")
        .ok_or_else(|| LowerError::internal(user.location(), "math outside a gpu.module"))?;
    let function_type = FunctionType::new(ctx, inputs, &[result]);
    Rewriter::at_module_start(ctx, &module, user.location())?.imported_function(
        name,
        function_type,
        true,
    )
}
