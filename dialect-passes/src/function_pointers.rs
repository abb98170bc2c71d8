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
//!   printf("...no device function..."), yield zero } }
//! ```
//!
//! after which the calls are inlined like any other. An id that names no function of the module
//! (null, a host function's address, a function of another module) calls nothing: OpenCL has no
//! trap, so the work-item prints a message and the call yields zero.

use std::collections::HashMap;

use melior::ir::attribute::{FlatSymbolRefAttribute, FloatAttribute, IntegerAttribute};
use melior::ir::block::BlockLike;
use melior::ir::operation::{
    OperationBuilder, OperationLike, OperationMutLike, OperationRef, WalkOrder, WalkResult,
};
use melior::ir::r#type::{FunctionType, IntegerType};
use melior::ir::{
    Attribute, AttributeLike, Block, Location, Module, Region, RegionLike, Type, TypeLike, Value,
    ValueLike,
};
use melior::Context;
use mlir_sys::{
    mlirBlockInsertOwnedOperation, mlirDictionaryAttrGetElement, mlirDictionaryAttrGetNumElements,
    mlirIdentifierStr, mlirOpResultGetOwner, mlirOperationDestroy, mlirOperationMoveBefore,
    mlirOperationRemoveFromParent, mlirValueGetFirstUse, mlirValueIsAOpResult,
    mlirValueReplaceAllUsesOfWith, MlirOperation, MlirValue,
};

use crate::LowerError;

/// The message string is constant memory (it runs before a target renumbers address spaces).
const CONSTANT: u32 = hipmlir_device_image::address_space::CONSTANT;

/// The frontend's table of address-taken functions.
const TABLE_ATTRIBUTE: &str = hipmlir_device_image::FUNCTION_POINTERS_ATTRIBUTE;
/// The message of a call through a pointer that names no function here (OpenCL printf).
const BAD_CALL_MESSAGE: &str = "hipmlir: device code called a function pointer (0x%lx) that names \
no device function of this module; the call did nothing and yielded zero\n";
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

pub fn devirtualize_function_pointers(
    ctx: &Context,
    module: &mut Module,
) -> Result<(), LowerError> {
    let table = take_table(module)?;
    // Function types by symbol (types are uniqued: the same type is the same object).
    let mut types: HashMap<String, *const std::ffi::c_void> = HashMap::new();
    let mut calls: Vec<MlirOperation> = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        match op.name().as_string_ref().as_str() {
            Ok("func.func") => {
                if let (Ok(name), Ok(ty)) =
                    (op.attribute("sym_name"), op.attribute("function_type"))
                {
                    if let Ok(ty) = melior::ir::attribute::TypeAttribute::try_from(ty) {
                        let symbol = name.to_string().trim_matches('"').to_string();
                        types.insert(symbol, ty.value().to_raw().ptr);
                    }
                }
            }
            Ok("func.call_indirect") => calls.push(op.to_raw()),
            _ => {}
        }
        WalkResult::Advance
    });
    if calls.is_empty() {
        return Ok(());
    }
    declare_bad_call_report(ctx, module)?;
    for call in calls {
        // SAFETY: a live func.call_indirect found by the walk; replaced and destroyed only here.
        let op = unsafe { OperationRef::from_raw(call) };
        let function_type = op.operand(0).map_err(err)?.r#type().to_raw().ptr;
        let targets: Vec<&Target> = table
            .iter()
            .filter(|t| types.get(&t.symbol) == Some(&function_type))
            .collect();
        devirtualize_call(ctx, call, &targets)?;
    }
    Ok(())
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
fn declare_bad_call_report(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut bytes = BAD_CALL_MESSAGE.as_bytes().to_vec();
    bytes.push(0);
    let hex: String = bytes.iter().map(|b| format!("{b:02X}")).collect();
    let n = bytes.len();
    let text = format!(
        "llvm.mlir.global internal constant @{BAD_CALL_STRING}(dense<\"0x{hex}\"> : tensor<{n}xi8>) \
         {{addr_space = {CONSTANT} : i32}} : !llvm.array<{n} x i8>\n\
         func.func private @{BAD_CALL_PRINTF}(!llvm.ptr<{CONSTANT}>, i64) -> i32"
    );
    let parsed = Module::parse(ctx, &text).ok_or_else(|| err("bad fallback declarations"))?;
    let mut ops = Vec::new();
    let mut op = parsed.body().first_operation();
    while let Some(o) = op {
        ops.push(o.to_raw());
        op = o.next_in_block();
    }
    // At the start: SPIR-V serialization wants variables declared before their uses.
    for raw in ops.into_iter().rev() {
        // SAFETY: each op moves from the parsed module into `module`, which then owns it.
        unsafe {
            mlirOperationRemoveFromParent(raw);
            mlirBlockInsertOwnedOperation(module.body().to_raw(), 0, raw);
        }
    }
    Ok(())
}

/// Replaces one `func.call_indirect` by the choice among `targets`.
fn devirtualize_call(
    ctx: &Context,
    call: MlirOperation,
    targets: &[&Target],
) -> Result<(), LowerError> {
    // SAFETY: `call` is live until destroyed at the end.
    let op = unsafe { OperationRef::from_raw(call) };
    let loc = op.location();
    let callee = op.operand(0).map_err(err)?;
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

    let block = Block::new(&[]);
    let chosen = choose(ctx, &block, targets, id, &args, &results, loc)?;
    // SAFETY: the new operations move from the detached block to just before the call, whose
    // results are then replaced and which is destroyed (with the cast, once unused).
    unsafe {
        let mut next = block.first_operation().map(|o| o.to_raw());
        while let Some(raw) = next {
            next = OperationRef::from_raw(raw)
                .next_in_block()
                .map(|o| o.to_raw());
            mlirOperationMoveBefore(raw, call);
        }
        for (i, value) in chosen.iter().enumerate() {
            mlirValueReplaceAllUsesOfWith(
                mlir_sys::mlirOperationGetResult(call, i as isize),
                *value,
            );
        }
        let cast = cast.to_raw();
        mlirOperationRemoveFromParent(call);
        mlirOperationDestroy(call);
        let cast_result = mlir_sys::mlirOperationGetResult(cast, 0);
        if mlirValueGetFirstUse(cast_result).ptr.is_null() {
            mlirOperationRemoveFromParent(cast);
            mlirOperationDestroy(cast);
        }
    }
    Ok(())
}

/// Appends to `block` the call of the target whose id equals `id` (a chain of `scf.if`), and
/// returns the results.
fn choose<'c>(
    ctx: &'c Context,
    block: &Block<'c>,
    targets: &[&Target],
    id: MlirValue,
    args: &[MlirValue],
    results: &[Type<'c>],
    loc: Location<'c>,
) -> Result<Vec<MlirValue>, LowerError> {
    // SAFETY: `id` and `args` are live values defined before the call being replaced.
    let value = |raw: MlirValue| unsafe { Value::from_raw(raw) };
    let i64t: Type = IntegerType::new(ctx, 64).into();
    let Some((first, rest)) = targets.split_first() else {
        return bad_call(ctx, block, id, results, loc);
    };
    let constant = append(
        block,
        OperationBuilder::new("arith.constant", loc)
            .add_attributes(&[named(
                ctx,
                "value",
                IntegerAttribute::new(i64t, first.id).into(),
            )])
            .add_results(&[i64t]),
    )?;
    let predicate = IntegerAttribute::new(i64t, 0).into(); // eq
    let equal = append(
        block,
        OperationBuilder::new("arith.cmpi", loc)
            .add_operands(&[value(id), value(constant[0])])
            .add_attributes(&[named(ctx, "predicate", predicate)])
            .add_results(&[IntegerType::new(ctx, 1).into()]),
    )?;

    let then_block = Block::new(&[]);
    let operands: Vec<Value> = args.iter().map(|a| value(*a)).collect();
    let called = append(
        &then_block,
        OperationBuilder::new("func.call", loc)
            .add_operands(&operands)
            .add_attributes(&[named(
                ctx,
                "callee",
                FlatSymbolRefAttribute::new(ctx, &first.symbol).into(),
            )])
            .add_results(results),
    )?;
    yield_values(&then_block, &called, loc)?;
    let else_block = Block::new(&[]);
    let otherwise = choose(ctx, &else_block, rest, id, args, results, loc)?;
    yield_values(&else_block, &otherwise, loc)?;

    let then_region = Region::new();
    then_region.append_block(then_block);
    let else_region = Region::new();
    else_region.append_block(else_block);
    append(
        block,
        OperationBuilder::new("scf.if", loc)
            .add_operands(&[value(equal[0])])
            .add_results(results)
            .add_regions([then_region, else_region]),
    )
}

/// The fallback: report the id and yield zeros.
fn bad_call<'c>(
    ctx: &'c Context,
    block: &Block<'c>,
    id: MlirValue,
    results: &[Type<'c>],
    loc: Location<'c>,
) -> Result<Vec<MlirValue>, LowerError> {
    let constant_ptr = melior::dialect::llvm::r#type::pointer(ctx, CONSTANT);
    let format = append(
        block,
        OperationBuilder::new("llvm.mlir.addressof", loc)
            .add_attributes(&[named(
                ctx,
                "global_name",
                FlatSymbolRefAttribute::new(ctx, BAD_CALL_STRING).into(),
            )])
            .add_results(&[constant_ptr]),
    )?;
    // SAFETY: `id` is a live value defined before the call being replaced.
    let id = unsafe { Value::from_raw(id) };
    // SAFETY: `format` was just appended.
    let format = unsafe { Value::from_raw(format[0]) };
    append(
        block,
        OperationBuilder::new("func.call", loc)
            .add_operands(&[format, id])
            .add_attributes(&[named(
                ctx,
                "callee",
                FlatSymbolRefAttribute::new(ctx, BAD_CALL_PRINTF).into(),
            )])
            .add_results(&[IntegerType::new(ctx, 32).into()]),
    )?;
    let mut zeros = Vec::new();
    for ty in results {
        let op = if ty.is_llvm_pointer_type() {
            OperationBuilder::new("llvm.mlir.zero", loc)
        } else {
            let zero: Attribute = if ty.is_float() {
                FloatAttribute::new(ctx, *ty, 0.0).into()
            } else if ty.is_integer() || ty.is_index() {
                IntegerAttribute::new(*ty, 0).into()
            } else {
                return Err(err(format!("no zero of type {ty}")));
            };
            OperationBuilder::new("arith.constant", loc)
                .add_attributes(&[named(ctx, "value", zero)])
        };
        zeros.extend(append(block, op.add_results(&[*ty]))?);
    }
    Ok(zeros)
}

fn named<'c>(
    ctx: &'c Context,
    name: &str,
    a: Attribute<'c>,
) -> (melior::ir::Identifier<'c>, Attribute<'c>) {
    (melior::ir::Identifier::new(ctx, name), a)
}

/// Builds an operation at the end of `block`; returns its results.
fn append<'c>(
    block: &Block<'c>,
    builder: OperationBuilder<'c>,
) -> Result<Vec<MlirValue>, LowerError> {
    let op = block.append_operation(builder.build().map_err(err)?);
    Ok(op.results().map(|r| r.to_raw()).collect())
}

fn yield_values<'c>(
    block: &Block<'c>,
    values: &[MlirValue],
    loc: Location<'c>,
) -> Result<(), LowerError> {
    // SAFETY: the values are live results of operations of the chain being built.
    let operands: Vec<Value> = values
        .iter()
        .map(|v| unsafe { Value::from_raw(*v) })
        .collect();
    append(
        block,
        OperationBuilder::new("scf.yield", loc).add_operands(&operands),
    )?;
    Ok(())
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
    }
}
