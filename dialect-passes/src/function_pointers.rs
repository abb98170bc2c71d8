//! `devirtualize-function-pointers`: calls through function pointers become direct calls.
//!
//! SPIR-V without extensions has no function pointers (and MLIR's SPIR-V dialect has no operations
//! for SPV_INTEL_function_pointers), so the frontend makes a function pointer an integer id of an
//! address-taken function, listed on the module in `hipmlir.function_pointers` (`{symbol = id}`),
//! and a call through one `func.call_indirect` of `builtin.unrealized_conversion_cast %id`. Here
//! each such call becomes a choice among the listed functions of the call's type:
//!
//! ```text
//! scf.if %id == id(f) { func.call @f } else { scf.if %id == id(g) { func.call @g } else {
//!   printf("...no device function..."), call @__hipmlir_device_trap, yield zero } }
//! ```
//!
//! after which the calls are inlined like any other. An id that names no function of the module
//! (null, a host function's address, a function of another module) stops the program as a trap
//! does: the work-item prints the id and calls the module's stop function (which the frontend
//! defines beside every call through a pointer), whose raised abort flag ends the program when
//! the kernel completes (OpenCL cannot stop a kernel; the call yields zero until then).

use std::collections::HashMap;

use hipmlir_ir::rewrite::{apply_patterns, Outcome, Pattern, PatternRewriter, RewritePatternSet};
use melior::dialect::arith::{self, CmpiPredicate};
use melior::dialect::llvm;
use melior::dialect::ods::llvm as ods_llvm;
use melior::ir::attribute::{
    FlatSymbolRefAttribute, FloatAttribute, IntegerAttribute, StringAttribute, TypeAttribute,
};
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, OperationMutLike, OperationRef};
use melior::ir::r#type::{FunctionType, IntegerType};
use melior::ir::{
    Attribute, AttributeLike, Location, Module, RegionLike, Type, TypeLike, Value, ValueLike,
};
use melior::Context;
use mlir_sys::{
    mlirDictionaryAttrGetElement, mlirDictionaryAttrGetNumElements, mlirIdentifierStr,
    mlirOpResultGetOwner, mlirValueIsAOpResult, MlirValue,
};

use crate::builder::{value, Rewriter};
use crate::LowerError;

/// The message string is constant memory (it runs before a target renumbers address spaces).
const CONSTANT: u32 = hipmlir_device_image::address_space::CONSTANT;

/// The frontend's table of address-taken functions.
const TABLE_ATTRIBUTE: &str = hipmlir_device_image::FUNCTION_POINTERS_ATTRIBUTE;
/// The message of a call through a pointer that names no function here (OpenCL printf).
const BAD_CALL_MESSAGE: &str = "hipmlir: device code called a function pointer (0x%lx) that names \
no device function of this module; the program stops\n";
/// What the fallback calls after the report: the module's stop function.
const STOP_FUNCTION: &str = hipmlir_device_image::DEVICE_STOP_FUNCTION;
const BAD_CALL_STRING: &str = "__hipmlir_str_bad_function_pointer";
/// dialect-passes lowers every `__hipmlir_printf_*` declaration to OpenCL's printf.
const BAD_CALL_PRINTF: &str = "__hipmlir_printf_bad_function_pointer";

fn err(e: impl std::fmt::Display) -> LowerError {
    LowerError::bug(format!("function pointers: {e}"))
}

/// A function pointer's possible target: its symbol and id.
struct Target {
    symbol: String,
    id: i64,
}

/// The pass's state: the module's address-taken functions, the function types by symbol
/// (types are uniqued: the same type is the same object), and the module, where the fallback's
/// report is declared before the first call needs it.
struct Devirtualizing {
    table: Vec<Target>,
    types: HashMap<String, *const std::ffi::c_void>,
    module: mlir_sys::MlirOperation,
    reported: bool,
}

pub fn devirtualize_function_pointers(
    ctx: &Context,
    module: &mut Module,
) -> Result<(), LowerError> {
    let mut state = Devirtualizing {
        table: take_table(module)?,
        types: HashMap::new(),
        module: module.as_operation().to_raw(),
        reported: false,
    };
    let mut patterns = RewritePatternSet::new();
    patterns
        .add(Pattern::new("func.func", note_function_type))
        .next_stage()
        .add(Pattern::new("func.call_indirect", devirtualize_call));
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut state)
}

fn note_function_type<'c>(
    _: &mut PatternRewriter<'c>,
    state: &mut Devirtualizing,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let name = op
        .attribute("sym_name")
        .ok()
        .and_then(|a| StringAttribute::try_from(a).ok());
    let ty = op
        .attribute("function_type")
        .ok()
        .and_then(|a| TypeAttribute::try_from(a).ok());
    if let (Some(name), Some(ty)) = (name, ty) {
        state
            .types
            .insert(name.value().to_string(), ty.value().to_raw().ptr);
    }
    Ok(Outcome::Rewrote)
}

/// The table the frontend left on the module, removed from it (ordered by symbol).
fn take_table(module: &mut Module) -> Result<Vec<Target>, LowerError> {
    let mut op = module.as_operation_mut();
    let Ok(table) = op.attribute(TABLE_ATTRIBUTE) else {
        return Ok(Vec::new());
    };
    let mut targets = Vec::new();
    // SAFETY: the frontend writes the table as a dictionary of i64 integer attributes.
    unsafe {
        if !mlir_sys::mlirAttributeIsADictionary(table.to_raw()) {
            return Err(err("the table is not a dictionary"));
        }
        for i in 0..mlirDictionaryAttrGetNumElements(table.to_raw()) {
            let entry = mlirDictionaryAttrGetElement(table.to_raw(), i);
            let name = melior::StringRef::from_raw(mlirIdentifierStr(entry.name));
            let id = IntegerAttribute::try_from(Attribute::from_raw(entry.attribute))
                .map_err(err)?
                .value();
            targets.push(Target {
                symbol: name.as_str().map_err(err)?.to_string(),
                id,
            });
        }
    }
    op.remove_attribute(TABLE_ATTRIBUTE).map_err(err)?;
    Ok(targets)
}

/// The message string and the printf declaration of the fallback branch.
fn declare_bad_call_report(ctx: &Context, module: &OperationRef) -> Result<(), LowerError> {
    let mut bytes = BAD_CALL_MESSAGE.as_bytes().to_vec();
    bytes.push(0);
    let body = module
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or_else(|| err("a module without a body"))?;
    // At the start: SPIR-V serialization wants variables declared before their uses.
    let rw = Rewriter::at_start(ctx, body.to_raw(), Location::unknown(ctx));
    rw.llvm_constant_bytes(BAD_CALL_STRING, &bytes, CONSTANT)?;
    let inputs = [
        llvm::r#type::pointer(ctx, CONSTANT),
        IntegerType::new(ctx, 64).into(),
    ];
    rw.private_function(
        BAD_CALL_PRINTF,
        &inputs,
        &[IntegerType::new(ctx, 32).into()],
        None,
    )?;
    Ok(())
}

/// Replaces one `func.call_indirect` by the choice among the targets of its type.
fn devirtualize_call<'c>(
    rw: &mut PatternRewriter<'c>,
    state: &mut Devirtualizing,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let ctx = rw.ctx;
    if !state.reported {
        // SAFETY: the live module being transformed.
        let module = unsafe { OperationRef::from_raw(state.module) };
        declare_bad_call_report(ctx, &module)?;
        state.reported = true;
    }
    let callee = op.operand(0).map_err(err)?;
    let function_type_id = callee.r#type().to_raw().ptr;
    let targets: Vec<&Target> = state
        .table
        .iter()
        .filter(|t| state.types.get(&t.symbol) == Some(&function_type_id))
        .collect();
    // SAFETY: checked to be an operation result before its owner is taken.
    let cast = unsafe {
        if !mlirValueIsAOpResult(callee.to_raw()) {
            return Err(err(
                "call through a function value the frontend did not make",
            ));
        }
        OperationRef::from_raw(mlirOpResultGetOwner(callee.to_raw()))
    };
    if cast.name().as_string_ref().as_str() != Ok("builtin.unrealized_conversion_cast") {
        return Err(err(
            "call through a function value the frontend did not make",
        ));
    }
    let id = cast.operand(0).map_err(err)?.to_raw();
    let function_type = FunctionType::try_from(callee.r#type()).map_err(err)?;
    let results: Vec<Type> = (0..function_type.result_count())
        .map(|i| function_type.result(i))
        .collect::<Result<_, _>>()
        .map_err(err)?;
    let args: Vec<MlirValue> = op.operands().skip(1).map(|v| v.to_raw()).collect();

    let stop_type = state.types.get(STOP_FUNCTION).ok_or_else(|| {
        err(format!(
            "a call through a function pointer in a module without {STOP_FUNCTION}, which \
             hipmlir's frontend defines beside every such call"
        ))
    })?;
    // SAFETY: a type of this context, noted from the stop function's declaration.
    let stop_type = unsafe { Type::from_raw(mlir_sys::MlirType { ptr: *stop_type }) };
    let chosen = choose(
        &Rewriter::before(ctx, &op),
        &targets,
        id,
        &args,
        &results,
        stop_type,
    )?;
    let chosen: Vec<_> = chosen.into_iter().map(value).collect();
    rw.replace_op(&op, &chosen);
    // The cast goes too, once nothing else uses it.
    rw.erase_if_unused(&cast);
    Ok(Outcome::Rewrote)
}

/// Builds the call of the target whose id equals `id` (a chain of `scf.if`); returns the
/// results.
fn choose<'c>(
    rw: &Rewriter<'c>,
    targets: &[&Target],
    id: MlirValue,
    args: &[MlirValue],
    results: &[Type<'c>],
    stop_type: Type<'c>,
) -> Result<Vec<MlirValue>, LowerError> {
    let Some((first, rest)) = targets.split_first() else {
        return bad_call(rw, id, results, stop_type);
    };
    let (ctx, loc) = (rw.ctx, rw.loc);
    let constant = rw.arith_int(IntegerType::new(ctx, 64).into(), first.id)?;
    // SAFETY: `id` is live (defined before the call being replaced), `constant` just built.
    let (id_value, constant) = unsafe { (Value::from_raw(id), Value::from_raw(constant)) };
    let equal = rw.emit_value(arith::cmpi(ctx, CmpiPredicate::Eq, id_value, constant, loc))?;
    rw.scf_if_values(
        equal,
        results,
        |then| Ok(then.func_call(&first.symbol, args, results)),
        |otherwise| choose(otherwise, rest, id, args, results, stop_type),
    )
}

/// The fallback: report the id, stop the program, and yield zeros (the work-item runs on where
/// the target cannot stop it).
fn bad_call<'c>(
    rw: &Rewriter<'c>,
    id: MlirValue,
    results: &[Type<'c>],
    stop_type: Type<'c>,
) -> Result<Vec<MlirValue>, LowerError> {
    let (ctx, loc) = (rw.ctx, rw.loc);
    let format = rw.emit_value(ods_llvm::mlir_addressof(
        ctx,
        llvm::r#type::pointer(ctx, CONSTANT),
        FlatSymbolRefAttribute::new(ctx, BAD_CALL_STRING),
        loc,
    ))?;
    rw.func_call(
        BAD_CALL_PRINTF,
        &[format, id],
        &[IntegerType::new(ctx, 32).into()],
    );
    let stop = FunctionType::try_from(stop_type).map_err(err)?;
    if stop.input_count() != 0 || stop.result_count() != 0 {
        return Err(err(format!("{STOP_FUNCTION} has type {stop_type}")));
    }
    rw.func_call(STOP_FUNCTION, &[], &[]);
    results
        .iter()
        .map(|ty| {
            if ty.is_llvm_pointer_type() {
                rw.emit_value(llvm::zero(*ty, loc))
            } else if ty.is_float() {
                let zero = FloatAttribute::new(ctx, *ty, 0.0).into();
                rw.emit_value(arith::constant(ctx, zero, loc))
            } else if ty.is_integer() || ty.is_index() {
                rw.arith_int(*ty, 0)
            } else {
                Err(err(format!("no zero of type {ty}")))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = r#"
module attributes {hipmlir.function_pointers = {add = 11 : i64, neg = 33 : i64, sub = 22 : i64}} {
  func.func private @add(%a: i32, %b: i32) -> i32 {
    %r = arith.addi %a, %b : i32
    return %r : i32
  }
  func.func private @sub(%a: i32, %b: i32) -> i32 {
    %r = arith.subi %a, %b : i32
    return %r : i32
  }
  func.func private @neg(%a: i32) -> i32 {
    return %a : i32
  }
  func.func private @__hipmlir_device_trap() {
    return
  }
  func.func @k(%id: i64, %x: i32) -> i32 {
    %f = builtin.unrealized_conversion_cast %id : i64 to (i32, i32) -> i32
    %r = func.call_indirect %f(%x, %x) : (i32, i32) -> i32
    return %r : i32
  }
}
"#;

    #[test]
    fn a_call_becomes_a_choice_among_functions_of_its_type() {
        let ctx = crate::new_context();
        let mut module = Module::parse(&ctx, MODULE).expect("test module parses");
        devirtualize_function_pointers(&ctx, &mut module).expect("devirtualizes");
        assert!(module.as_operation().verify());
        let text = module.as_operation().to_string();
        assert!(!text.contains("call_indirect"), "{text}");
        assert!(!text.contains("unrealized_conversion_cast"), "{text}");
        assert!(!text.contains(TABLE_ATTRIBUTE), "{text}");
        assert!(
            text.contains("call @add(") && text.contains("call @sub("),
            "{text}"
        );
        // @neg has another type: it is no candidate.
        assert!(!text.contains("call @neg("), "{text}");
        assert!(text.contains(BAD_CALL_PRINTF), "{text}");
        assert!(text.contains("call @__hipmlir_device_trap()"), "{text}");
    }

    #[test]
    fn a_call_in_a_module_without_the_stop_function_is_an_error() {
        let ctx = crate::new_context();
        let without = MODULE.replace("@__hipmlir_device_trap", "@unrelated");
        let mut module = Module::parse(&ctx, &without).expect("test module parses");
        let error = devirtualize_function_pointers(&ctx, &mut module).unwrap_err();
        assert!(error.to_string().contains(STOP_FUNCTION), "{error}");
    }
}
