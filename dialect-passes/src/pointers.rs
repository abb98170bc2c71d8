//! `lower-pointers-to-spirv`: the frontend's C pointers, written with the LLVM dialect's
//! target-neutral memory ops (`!llvm.ptr<AS>`, `getelementptr`, `load`, `store`, `alloca`,
//! `addrspacecast`, `ptrtoint`/`inttoptr`, globals), become SPIR-V's typed pointers.
//!
//! It runs just before upstream GPU→SPIR-V conversion, which leaves spirv ops alone. Every pointer
//! value becomes `!spirv.ptr<i8, SC>` (a byte pointer, like `char*` in OpenCL C); each access
//! bitcasts it to the type it reads or walks, as LLVM's SPIR-V backend does for opaque pointers.
//! Address spaces follow the SPIR/OpenCL numbering clang uses for spirv64 (the module went
//! through `hipmlir-address-spaces-to-spirv`).

use hipmlir_device_image::BYVAL_ATTRIBUTE;
use melior::ir::attribute::{IntegerAttribute, StringAttribute, TypeAttribute};
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationBuilder, OperationLike, OperationMutLike, OperationRefMut};
use melior::ir::operation::{WalkOrder, WalkResult};
use melior::ir::r#type::{FunctionType, IntegerType};
use melior::ir::{
    Attribute, AttributeLike, Identifier, Location, Module, OperationRef, RegionLike, Type,
    TypeLike, Value, ValueLike,
};
use melior::Context;
use mlir_sys::{
    mlirBlockInsertOwnedOperation, mlirBlockInsertOwnedOperationBefore,
    mlirDenseArrayGetNumElements, mlirDenseI32ArrayGetElement, mlirLLVMArrayTypeGetElementType,
    mlirLLVMPointerTypeGetAddressSpace, mlirLLVMStructTypeGetElementType,
    mlirLLVMStructTypeGetNumElementTypes, mlirOperationDestroy, mlirOperationGetBlock,
    mlirOperationGetResult, mlirOperationRemoveFromParent, mlirTypeIsALLVMPointerType,
    mlirTypeIsALLVMStructType, mlirValueReplaceAllUsesOfWith, mlirValueSetType, MlirBlock,
    MlirOperation, MlirValue,
};

use crate::atomics;
use crate::LowerError;

/// The SPIR-V storage class of an LLVM address space (SPIR numbering).
fn storage_class(address_space: u32) -> Result<&'static str, LowerError> {
    use crate::address_space_map::spirv;
    Ok(match address_space {
        spirv::FUNCTION => "Function",
        spirv::CROSS_WORKGROUP => "CrossWorkgroup",
        spirv::UNIFORM_CONSTANT => "UniformConstant",
        spirv::WORKGROUP => "Workgroup",
        spirv::GENERIC => "Generic",
        other => {
            return Err(LowerError::Internal(format!(
                "pointer in unknown address space {other}"
            )))
        }
    })
}

fn is_llvm_ptr(t: Type) -> bool {
    // SAFETY: type queries on a live type.
    unsafe { mlirTypeIsALLVMPointerType(t.to_raw()) }
}

/// The address space of a pointer type: an LLVM pointer, or a SPIR-V pointer this pass made
/// already (operands of later ops may have been replaced by then).
pub(crate) fn address_space(t: Type) -> u32 {
    if is_llvm_ptr(t) {
        // SAFETY: `t` is an LLVM pointer type.
        return unsafe { mlirLLVMPointerTypeGetAddressSpace(t.to_raw()) };
    }
    let text = t.to_string();
    let class = text
        .strip_prefix("!spirv.ptr<")
        .and_then(|rest| rest.rsplit(", ").next())
        .map(|c| c.trim_end_matches('>'))
        .unwrap_or("");
    (0..=4)
        .find(|space| storage_class(*space).ok() == Some(class))
        .unwrap_or(u32::MAX)
}

/// The SPIR-V spelling of a memory type: scalars unchanged, pointers as byte pointers, arrays and
/// structs element by element.
fn spirv_type_text(t: Type) -> Result<String, LowerError> {
    let raw = t.to_raw();
    if is_llvm_ptr(t) {
        return Ok(format!(
            "!spirv.ptr<i8, {}>",
            storage_class(address_space(t))?
        ));
    }
    // SAFETY: type queries on a live type; element accessors only after the kind check.
    unsafe {
        if mlirTypeIsALLVMStructType(raw) {
            let n = mlirLLVMStructTypeGetNumElementTypes(raw);
            let fields = (0..n)
                .map(|i| spirv_type_text(Type::from_raw(mlirLLVMStructTypeGetElementType(raw, i))))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(format!("!spirv.struct<({})>", fields.join(", ")));
        }
    }
    let text = t.to_string();
    if let Some(rest) = text.strip_prefix("!llvm.array<") {
        // The C API has no array length accessor; the printed form is `!llvm.array<N x T>`.
        let len = rest
            .split(" x ")
            .next()
            .ok_or_else(|| LowerError::Internal(format!("bad array type {text}")))?;
        // SAFETY: `t` is an LLVM array type.
        let element = unsafe { Type::from_raw(mlirLLVMArrayTypeGetElementType(raw)) };
        return Ok(format!(
            "!spirv.array<{len} x {}>",
            spirv_type_text(element)?
        ));
    }
    if text.starts_with("!llvm.") {
        return Err(LowerError::Internal(format!("no SPIR-V form for {text}")));
    }
    Ok(text)
}

fn parse_type<'c>(ctx: &'c Context, text: &str) -> Result<Type<'c>, LowerError> {
    Type::parse(ctx, text).ok_or_else(|| LowerError::Internal(format!("bad type {text}")))
}

/// `!spirv.ptr<T, SC>` for an element type and an LLVM address space.
pub(crate) fn spirv_ptr<'c>(
    ctx: &'c Context,
    element: Type,
    space: u32,
) -> Result<Type<'c>, LowerError> {
    parse_type(
        ctx,
        &format!(
            "!spirv.ptr<{}, {}>",
            spirv_type_text(element)?,
            storage_class(space)?
        ),
    )
}

/// Builds replacement operations in front of one operation.
pub(crate) struct Rewriter<'c> {
    pub ctx: &'c Context,
    pub block: MlirBlock,
    pub before: MlirOperation,
    pub loc: Location<'c>,
}

impl<'c> Rewriter<'c> {
    pub fn op(
        &self,
        name: &str,
        operands: &[MlirValue],
        results: &[Type<'c>],
        attributes: &[(&str, Attribute<'c>)],
    ) -> Result<Vec<MlirValue>, LowerError> {
        // SAFETY: operands are live values of the module being rewritten.
        let operands: Vec<Value> = operands
            .iter()
            .map(|v| unsafe { Value::from_raw(*v) })
            .collect();
        let attributes: Vec<_> = attributes
            .iter()
            .map(|(n, a)| (Identifier::new(self.ctx, n), *a))
            .collect();
        let op = OperationBuilder::new(name, self.loc)
            .add_operands(&operands)
            .add_results(results)
            .add_attributes(&attributes)
            .build()
            .map_err(|e| LowerError::Internal(format!("{name}: {e}")))?;
        let raw = op.to_raw();
        std::mem::forget(op); // ownership passes to the block
                              // SAFETY: `raw` is a fresh, unowned operation inserted before a live one.
        unsafe {
            mlirBlockInsertOwnedOperationBefore(self.block, self.before, raw);
            Ok((0..results.len())
                .map(|i| mlirOperationGetResult(raw, i as isize))
                .collect())
        }
    }

    pub fn bitcast(&self, v: MlirValue, to: Type<'c>) -> Result<MlirValue, LowerError> {
        // SAFETY: `v` is a live value.
        let from = unsafe { Type::from_raw(mlir_sys::mlirValueGetType(v)) };
        if from == to {
            return Ok(v);
        }
        // A pointer not converted yet (a block argument or a region's result, retyped later)
        // becomes a byte pointer of its space: a cast to that would be a cast to itself.
        if is_llvm_ptr(from) && byte_ptr(self.ctx, address_space(from)).is_ok_and(|b| b == to) {
            return Ok(v);
        }
        Ok(self.op("spirv.Bitcast", &[v], &[to], &[])?[0])
    }

    fn i32_constant(&self, value: i32) -> Result<MlirValue, LowerError> {
        let i32t: Type = IntegerType::new(self.ctx, 32).into();
        let attr = IntegerAttribute::new(i32t, value as i64).into();
        Ok(self.op("spirv.Constant", &[], &[i32t], &[("value", attr)])?[0])
    }
}

/// The LLVM memory operations this pass replaces.
const POINTER_OPS: &[&str] = &[
    "llvm.getelementptr",
    "llvm.load",
    "llvm.store",
    "llvm.alloca",
    "llvm.addrspacecast",
    "llvm.ptrtoint",
    "llvm.inttoptr",
    "llvm.mlir.zero",
    "llvm.mlir.global",
    "llvm.mlir.addressof",
    "llvm.atomicrmw",
    "llvm.cmpxchg",
    "llvm.extractvalue",
    "llvm.fence",
];

pub fn lower_pointers_to_spirv(
    ctx: &Context,
    module: &Module,
    native_float_atomics: bool,
) -> Result<(), LowerError> {
    let spaces = crate::address_spaces::specific_access_spaces(module);
    let mut ops: Vec<MlirOperation> = Vec::new();
    let mut functions: Vec<MlirOperation> = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let name = op.name();
        let name = name.as_string_ref().as_str().unwrap_or("");
        if POINTER_OPS.contains(&name) {
            ops.push(op.to_raw());
        } else if name == "gpu.func" {
            functions.push(op.to_raw());
        }
        WalkResult::Advance
    });

    // Rewrite each access while pointer values still have their LLVM types (the access needs
    // them to know the address space), then retype every remaining pointer value.
    for raw in &ops {
        // SAFETY: the walk found this live operation; it is erased only below.
        let op = unsafe { OperationRef::from_raw(*raw) };
        lower_op(
            ctx,
            op,
            spaces.get(&(raw.ptr as usize)).copied(),
            native_float_atomics,
        )?;
    }
    for raw in ops.into_iter().rev() {
        // SAFETY: every use was replaced in `lower_op`; the op is detached, then destroyed.
        unsafe {
            mlirOperationRemoveFromParent(raw);
            mlirOperationDestroy(raw);
        }
    }
    retype_pointers(ctx, module)?;
    for f in functions {
        byval_parameters(ctx, f)?;
        update_function_type(ctx, f)?;
    }
    retype_declarations(ctx, module)
}

fn internal(e: impl std::fmt::Display) -> LowerError {
    LowerError::Internal(e.to_string())
}

/// Declarations (device library functions such as printf, lowered by the math pass after this
/// one) take the SPIR-V types their callers' pointers now have, so that the module stays valid
/// between the passes. Types map one to one, so every call of a declaration still agrees with it.
fn retype_declarations(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut declarations: Vec<MlirOperation> = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("func.func")
            && op.region(0).is_ok_and(|r| r.first_block().is_none())
        {
            declarations.push(op.to_raw());
        }
        WalkResult::Advance
    });
    for raw in declarations {
        // SAFETY: a live func.func found by the walk.
        let function_type =
            type_attribute(&unsafe { OperationRef::from_raw(raw) }, "function_type")?;
        let mut op = unsafe { OperationRefMut::from_raw(raw) };
        let function_type = FunctionType::try_from(function_type).map_err(|e| {
            LowerError::Internal(format!("a declaration without a function type: {e}"))
        })?;
        let convert = |t| {
            if is_llvm_type(t) {
                loaded_value_type(ctx, t)
            } else {
                Ok(t)
            }
        };
        let inputs = (0..function_type.input_count())
            .map(|i| function_type.input(i).map_err(internal).and_then(convert))
            .collect::<Result<Vec<_>, _>>()?;
        let results = (0..function_type.result_count())
            .map(|i| function_type.result(i).map_err(internal).and_then(convert))
            .collect::<Result<Vec<_>, _>>()?;
        op.set_attribute(
            "function_type",
            TypeAttribute::new(FunctionType::new(ctx, &inputs, &results).into()).into(),
        );
    }
    Ok(())
}

/// A by-value struct parameter is a pointer to the struct in the Function storage class, as
/// OpenCL's byval parameters are; the body keeps using it as a byte pointer.
fn byval_parameters(ctx: &Context, f: MlirOperation) -> Result<(), LowerError> {
    // SAFETY: `f` is a live gpu.func.
    let op = unsafe { OperationRef::from_raw(f) };
    let Ok(byval) = op.attribute(BYVAL_ATTRIBUTE) else {
        return Ok(());
    };
    let region = op
        .region(0)
        .map_err(|e| LowerError::Internal(e.to_string()))?;
    let Some(entry) = region.first_block() else {
        return Ok(());
    };
    // SAFETY: the frontend writes a dictionary of index → type.
    let count = unsafe { mlir_sys::mlirDictionaryAttrGetNumElements(byval.to_raw()) };
    for i in 0..count {
        let (index, ty) = unsafe {
            let named = mlir_sys::mlirDictionaryAttrGetElement(byval.to_raw(), i);
            let name = mlir_sys::mlirIdentifierStr(named.name);
            let name = std::str::from_utf8(std::slice::from_raw_parts(
                name.data as *const u8,
                name.length,
            ))
            .unwrap_or("")
            .to_string();
            let ty = mlir_sys::mlirTypeAttrGetValue(named.attribute);
            (name, Type::from_raw(ty))
        };
        let index: usize = index
            .parse()
            .map_err(|_| LowerError::Internal(format!("bad byval index {index}")))?;
        let arg = entry
            .argument(index)
            .map_err(|e| LowerError::Internal(e.to_string()))?;
        let struct_ptr = spirv_ptr(ctx, ty, 0)?;
        // SAFETY: the argument is live; every other use moves to the byte-pointer view.
        unsafe {
            mlirValueSetType(arg.to_raw(), struct_ptr.to_raw());
            let cast = OperationBuilder::new("spirv.Bitcast", op.location())
                .add_operands(&[Value::from_raw(arg.to_raw())])
                .add_results(&[byte_ptr(ctx, 0)?])
                .build()
                .map_err(|e| LowerError::Internal(e.to_string()))?;
            let cast = entry.insert_operation(0, cast);
            let view = cast
                .result(0)
                .map_err(|e| LowerError::Internal(e.to_string()))?;
            let mut except = cast.to_raw();
            mlir_sys::mlirValueReplaceAllUsesExcept(arg.to_raw(), view.to_raw(), 1, &mut except);
        }
    }
    Ok(())
}

/// The byte-pointer type every pointer value gets.
fn byte_ptr<'c>(ctx: &'c Context, space: u32) -> Result<Type<'c>, LowerError> {
    parse_type(ctx, &format!("!spirv.ptr<i8, {}>", storage_class(space)?))
}

/// Lowers one operation; `known_space` is the inferred space of an access's generic pointer.
fn lower_op(
    ctx: &Context,
    op: OperationRef,
    known_space: Option<u32>,
    native_float_atomics: bool,
) -> Result<(), LowerError> {
    let name = op.name();
    let name = name.as_string_ref().as_str().unwrap_or("").to_string();
    let rw = Rewriter {
        ctx,
        // SAFETY: the op sits in a block.
        block: unsafe { mlirOperationGetBlock(op.to_raw()) },
        before: op.to_raw(),
        loc: op.location(),
    };
    let operand = |i: usize| -> Result<Value, LowerError> {
        op.operand(i)
            .map_err(|e| LowerError::Internal(e.to_string()))
    };
    // The pointer an access uses: cast from generic to its inferred space when there is one.
    let access_pointer = |i: usize| -> Result<(MlirValue, u32), LowerError> {
        let p = operand(i)?;
        let space = address_space(p.r#type());
        match known_space {
            Some(s) if space == 4 && s != 4 => {
                let specific = rw.op(
                    "spirv.GenericCastToPtr",
                    &[p.to_raw()],
                    &[byte_ptr(ctx, s)?],
                    &[],
                )?[0];
                Ok((specific, s))
            }
            _ => Ok((p.to_raw(), space)),
        }
    };
    let result_type = || -> Result<Type, LowerError> {
        Ok(op
            .result(0)
            .map_err(|e| LowerError::Internal(e.to_string()))?
            .r#type())
    };
    let replacement: Option<MlirValue> = match name.as_str() {
        "llvm.getelementptr" => {
            let base = operand(0)?;
            let space = address_space(base.r#type());
            let element = type_attribute(&op, "elem_type")?;
            let raw_indices = op
                .attribute("rawConstantIndices")
                .map_err(|e| LowerError::Internal(e.to_string()))?;
            let mut dynamic = op.operands().skip(1);
            let mut indices = Vec::new();
            // SAFETY: rawConstantIndices is a DenseI32ArrayAttr.
            let count = unsafe { mlirDenseArrayGetNumElements(raw_indices.to_raw()) };
            for i in 0..count {
                let c = unsafe { mlirDenseI32ArrayGetElement(raw_indices.to_raw(), i) };
                indices.push(if c == i32::MIN {
                    dynamic
                        .next()
                        .ok_or_else(|| LowerError::Internal("gep operand count".into()))?
                        .to_raw()
                } else {
                    rw.i32_constant(c)?
                });
            }
            let Some((first, rest)) = indices.split_first() else {
                return Err(LowerError::Internal("gep without indices".into()));
            };
            // The type the last index lands on.
            let mut landed = element;
            for (position, _) in rest.iter().enumerate() {
                landed = member_type(landed, &op, position + 1)?;
            }
            let typed = rw.bitcast(base.to_raw(), spirv_ptr(ctx, element, space)?)?;
            let mut operands = vec![typed, *first];
            operands.extend_from_slice(rest);
            let walked = rw.op(
                "spirv.PtrAccessChain",
                &operands,
                &[spirv_ptr(ctx, landed, space)?],
                &[],
            )?[0];
            Some(rw.bitcast(walked, byte_ptr(ctx, space)?)?)
        }
        "llvm.load" => {
            let ptr = operand(0)?;
            let ty = result_type()?;
            let typed = rw.bitcast(
                ptr.to_raw(),
                spirv_ptr(ctx, ty, address_space(ptr.r#type()))?,
            )?;
            let value_type = loaded_value_type(ctx, ty)?;
            let access = volatile_access(ctx, &op)?;
            Some(rw.op("spirv.Load", &[typed], &[value_type], &access)?[0])
        }
        "llvm.store" => {
            let value = operand(0)?;
            let (ptr, space) = access_pointer(1)?;
            let typed = rw.bitcast(ptr, spirv_ptr(ctx, value.r#type(), space)?)?;
            let access = volatile_access(ctx, &op)?;
            rw.op("spirv.Store", &[typed, value.to_raw()], &[], &access)?;
            None
        }
        "llvm.alloca" => {
            let element = type_attribute(&op, "elem_type")?;
            let space = address_space(result_type()?);
            let var_type = spirv_ptr(ctx, element, 0)?;
            let storage = Attribute::parse(ctx, "#spirv.storage_class<Function>")
                .ok_or_else(|| LowerError::Internal("storage class".into()))?;
            // SPIR-V wants function variables at the top of the entry block.
            let entry = entry_block(op)?;
            let variable = OperationBuilder::new("spirv.Variable", rw.loc)
                .add_results(&[var_type])
                .add_attributes(&[(Identifier::new(ctx, "storage_class"), storage)])
                .build()
                .map_err(|e| LowerError::Internal(e.to_string()))?;
            let var_raw = variable.to_raw();
            std::mem::forget(variable);
            // SAFETY: a fresh operation inserted at the front of a live block.
            let var_value = unsafe {
                mlirBlockInsertOwnedOperation(entry, 0, var_raw);
                mlirOperationGetResult(var_raw, 0)
            };
            if space != 0 {
                return Err(LowerError::Internal(
                    "alloca outside the private space".into(),
                ));
            }
            Some(rw.bitcast(var_value, byte_ptr(ctx, 0)?)?)
        }
        "llvm.addrspacecast" => {
            let from = operand(0)?;
            let to_space = address_space(result_type()?);
            let from_space = address_space(from.r#type());
            let to = byte_ptr(ctx, to_space)?;
            let op_name = match (from_space, to_space) {
                (_, 4) => "spirv.PtrCastToGeneric",
                (4, _) => "spirv.GenericCastToPtr",
                _ => {
                    return Err(LowerError::Internal(format!(
                        "address space cast {from_space} -> {to_space}"
                    )))
                }
            };
            Some(rw.op(op_name, &[from.to_raw()], &[to], &[])?[0])
        }
        "llvm.ptrtoint" => {
            let ty = result_type()?;
            Some(rw.op("spirv.ConvertPtrToU", &[operand(0)?.to_raw()], &[ty], &[])?[0])
        }
        "llvm.inttoptr" => {
            let to = byte_ptr(ctx, address_space(result_type()?))?;
            Some(rw.op("spirv.ConvertUToPtr", &[operand(0)?.to_raw()], &[to], &[])?[0])
        }
        "llvm.mlir.zero" => {
            let ty = result_type()?;
            if !is_llvm_ptr(ty) {
                return Err(LowerError::Internal(
                    "llvm.mlir.zero of a non-pointer".into(),
                ));
            }
            let i64t: Type = IntegerType::new(ctx, 64).into();
            let zero = rw.op(
                "spirv.Constant",
                &[],
                &[i64t],
                &[("value", IntegerAttribute::new(i64t, 0).into())],
            )?[0];
            let to = byte_ptr(ctx, address_space(ty))?;
            Some(rw.op("spirv.ConvertUToPtr", &[zero], &[to], &[])?[0])
        }
        "llvm.mlir.global" => {
            let symbol = op
                .attribute("sym_name")
                .map_err(|e| LowerError::Internal(e.to_string()))?;
            let ty = type_attribute(&op, "global_type")?;
            let space = op
                .attribute("addr_space")
                .ok()
                .and_then(|a| IntegerAttribute::try_from(a).ok())
                .map(|a| a.value() as u32)
                .unwrap_or(0);
            let var_type = TypeAttribute::new(spirv_ptr(ctx, ty, space)?).into();
            let mut attributes = vec![("sym_name", symbol), ("type", var_type)];
            if let Ok(value) = op.attribute("value") {
                let name = StringAttribute::try_from(symbol)
                    .map_err(|e| LowerError::Internal(e.to_string()))?;
                let ty = parse_type(ctx, &spirv_type_text(ty)?)?;
                attributes.push(crate::initializers::initializer(
                    &rw,
                    name.value(),
                    ty,
                    value,
                )?);
            }
            rw.op("spirv.GlobalVariable", &[], &[], &attributes)?;
            None
        }
        "llvm.mlir.addressof" => {
            let ty = result_type()?;
            let symbol = op
                .attribute("global_name")
                .map_err(|e| LowerError::Internal(e.to_string()))?;
            let global = global_type(&op, symbol)?;
            let space = address_space(ty);
            let typed = rw.op(
                "spirv.mlir.addressof",
                &[],
                &[spirv_ptr(ctx, global, space)?],
                &[("variable", symbol)],
            )?[0];
            Some(rw.bitcast(typed, byte_ptr(ctx, space)?)?)
        }
        "llvm.fence" => {
            let scope = scope_attr(ctx, &op)?;
            let semantics = memory_semantics(
                ctx,
                "SequentiallyConsistent|WorkgroupMemory|CrossWorkgroupMemory",
            )?;
            rw.op(
                "spirv.MemoryBarrier",
                &[],
                &[],
                &[("memory_scope", scope), ("memory_semantics", semantics)],
            )?;
            None
        }
        "llvm.atomicrmw" => {
            let (ptr, space) = access_pointer(0)?;
            if space == 4 {
                return replace(
                    &op,
                    atomics::lower_rmw_generic(ctx, &rw, &op, ptr, native_float_atomics)?,
                );
            }
            Some(atomics::lower_rmw(
                ctx,
                &rw,
                &op,
                ptr,
                space,
                native_float_atomics,
            )?)
        }
        "llvm.cmpxchg" => {
            // Only the old value is used (extractvalue [0]); see `llvm.extractvalue` below.
            let (ptr, space) = access_pointer(0)?;
            Some(atomics::lower_cmpxchg(ctx, &rw, &op, ptr, space)?)
        }
        "llvm.extractvalue" => {
            // hipmlir only extracts the old value ([0]) of an llvm.cmpxchg, which was replaced
            // by that old value itself.
            let position = op
                .attribute("position")
                .map_err(|e| LowerError::Internal(e.to_string()))?;
            if position.to_string() != "array<i64: 0>" {
                return Err(LowerError::Internal(format!(
                    "llvm.extractvalue {position} is not lowered"
                )));
            }
            Some(operand(0)?.to_raw())
        }
        other => return Err(LowerError::Internal(format!("unexpected {other}"))),
    };
    match replacement {
        Some(new) => replace(&op, new),
        None => Ok(()),
    }
}

/// Replaces the uses of `op`'s result by `new`.
fn replace(op: &OperationRef, new: MlirValue) -> Result<(), LowerError> {
    let old = op
        .result(0)
        .map_err(|e| LowerError::Internal(e.to_string()))?;
    // SAFETY: both values are live; `old`'s op is erased afterwards.
    unsafe { mlirValueReplaceAllUsesOfWith(old.to_raw(), new) };
    Ok(())
}

/// The element type of the global `symbol` refers to, from its (not yet lowered) declaration.
fn global_type<'c>(
    op: &OperationRef<'c, '_>,
    symbol: Attribute<'c>,
) -> Result<Type<'c>, LowerError> {
    let name = symbol.to_string();
    let name = name.trim_start_matches('@').trim_matches('"').to_string();
    let mut current = op.parent_operation();
    while let Some(p) = current {
        if p.name().as_string_ref().as_str() == Ok("gpu.module") {
            let region = p
                .region(0)
                .map_err(|e| LowerError::Internal(e.to_string()))?;
            let block = region
                .first_block()
                .ok_or_else(|| LowerError::Internal("empty gpu.module".into()))?;
            let mut o = block.first_operation();
            while let Some(g) = o {
                if g.name().as_string_ref().as_str() == Ok("llvm.mlir.global") {
                    if let Ok(sym) = g.attribute("sym_name") {
                        if sym.to_string().trim_matches('"') == name {
                            return type_attribute(&g, "global_type");
                        }
                    }
                }
                o = g.next_in_block();
            }
        }
        current = p.parent_operation();
    }
    Err(LowerError::Internal(format!("no global named {name}")))
}

/// A volatile `llvm.load`/`llvm.store` (`volatile_`) is a `Volatile` SPIR-V memory access.
fn volatile_access<'c>(
    ctx: &'c Context,
    op: &OperationRef,
) -> Result<Vec<(&'static str, Attribute<'c>)>, LowerError> {
    if op.attribute("volatile_").is_err() {
        return Ok(Vec::new());
    }
    let access = Attribute::parse(ctx, "#spirv.memory_access<Volatile>")
        .ok_or_else(|| LowerError::Internal("memory access attribute".into()))?;
    Ok(vec![("memory_access", access)])
}

/// The SPIR-V memory scope of an LLVM sync scope ("" is the whole system).
pub(crate) fn scope_attr<'c>(
    ctx: &'c Context,
    op: &OperationRef,
) -> Result<Attribute<'c>, LowerError> {
    let scope = op
        .attribute("syncscope")
        .ok()
        .map(|a| a.to_string().trim_matches('"').to_string())
        .unwrap_or_default();
    let spirv = match scope.as_str() {
        "wavefront" => "Subgroup",
        "workgroup" => "Workgroup",
        "agent" => "Device",
        "" => "CrossDevice",
        other => return Err(LowerError::Internal(format!("unknown sync scope {other}"))),
    };
    Attribute::parse(ctx, &format!("#spirv.scope<{spirv}>"))
        .ok_or_else(|| LowerError::Internal("scope attribute".into()))
}

pub(crate) fn memory_semantics<'c>(
    ctx: &'c Context,
    bits: &str,
) -> Result<Attribute<'c>, LowerError> {
    Attribute::parse(ctx, &format!("#spirv.memory_semantics<{bits}>"))
        .ok_or_else(|| LowerError::Internal("memory semantics attribute".into()))
}

/// The SPIR-V type of a value: pointers become byte pointers, LLVM aggregates SPIR-V ones,
/// everything else stays.
fn loaded_value_type<'c>(ctx: &'c Context, t: Type<'c>) -> Result<Type<'c>, LowerError> {
    if is_llvm_type(t) {
        parse_type(ctx, &spirv_type_text(t)?)
    } else {
        Ok(t)
    }
}

fn is_llvm_type(t: Type) -> bool {
    t.dialect()
        .namespace()
        .map(|n| n == "llvm")
        .unwrap_or(false)
}

/// The type of member `index` of an aggregate reached by the `position`-th GEP index.
fn member_type<'c>(
    aggregate: Type<'c>,
    op: &OperationRef,
    position: usize,
) -> Result<Type<'c>, LowerError> {
    let raw = aggregate.to_raw();
    // SAFETY: kind checks precede the accessors.
    unsafe {
        if mlirTypeIsALLVMStructType(raw) {
            let indices = op
                .attribute("rawConstantIndices")
                .map_err(|e| LowerError::Internal(e.to_string()))?;
            let field = mlirDenseI32ArrayGetElement(indices.to_raw(), position as isize);
            if field == i32::MIN {
                return Err(LowerError::Internal("dynamic struct field index".into()));
            }
            return Ok(Type::from_raw(mlirLLVMStructTypeGetElementType(
                raw,
                field as isize,
            )));
        }
        if aggregate.to_string().starts_with("!llvm.array<") {
            return Ok(Type::from_raw(mlirLLVMArrayTypeGetElementType(raw)));
        }
    }
    Err(LowerError::Internal(format!(
        "cannot index into {aggregate}"
    )))
}

fn type_attribute<'c>(op: &OperationRef<'c, '_>, name: &str) -> Result<Type<'c>, LowerError> {
    let a = op
        .attribute(name)
        .map_err(|e| LowerError::Internal(format!("{name}: {e}")))?;
    Ok(TypeAttribute::try_from(a)
        .map_err(|e| LowerError::Internal(e.to_string()))?
        .value())
}

/// The entry block of the function enclosing `op`.
fn entry_block(op: OperationRef) -> Result<MlirBlock, LowerError> {
    let mut current = op.parent_operation();
    while let Some(p) = current {
        if p.name().as_string_ref().as_str() == Ok("gpu.func") {
            let region = p
                .region(0)
                .map_err(|e| LowerError::Internal(e.to_string()))?;
            let block = region
                .first_block()
                .ok_or_else(|| LowerError::Internal("function without a body".into()))?;
            return Ok(block.to_raw());
        }
        current = p.parent_operation();
    }
    Err(LowerError::Internal("alloca outside a kernel".into()))
}

/// Gives every remaining value of an LLVM type (pointers and aggregates in block arguments,
/// results of scf ops) its SPIR-V type.
fn retype_pointers(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut values: Vec<MlirValue> = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        for r in op.results() {
            if is_llvm_type(r.r#type()) {
                values.push(r.to_raw());
            }
        }
        for region in op.regions() {
            let mut block = region.first_block();
            while let Some(b) = block {
                for i in 0..b.argument_count() {
                    if let Ok(arg) = b.argument(i) {
                        if is_llvm_type(arg.r#type()) {
                            values.push(arg.to_raw());
                        }
                    }
                }
                block = b.next_in_region();
            }
        }
        WalkResult::Advance
    });
    for v in values {
        // SAFETY: a live value gets a type; its users are spirv ops, or structural ops (scf
        // yields, block arguments) retyped consistently here.
        unsafe {
            let t = loaded_value_type(ctx, Type::from_raw(mlir_sys::mlirValueGetType(v)))?;
            mlirValueSetType(v, t.to_raw());
        }
    }
    Ok(())
}

/// A gpu.func's `function_type` follows its entry block's (retyped) arguments.
fn update_function_type(ctx: &Context, f: MlirOperation) -> Result<(), LowerError> {
    // SAFETY: `f` is a live gpu.func.
    let mut op = unsafe { OperationRefMut::from_raw(f) };
    let region = op
        .region(0)
        .map_err(|e| LowerError::Internal(e.to_string()))?;
    let Some(entry) = region.first_block() else {
        return Ok(());
    };
    let inputs: Vec<Type> = (0..entry.argument_count())
        .filter_map(|i| entry.argument(i).ok().map(|a| a.r#type()))
        .collect();
    let function_type = FunctionType::new(ctx, &inputs, &[]);
    op.set_attribute(
        "function_type",
        TypeAttribute::new(function_type.into()).into(),
    );
    Ok(())
}
