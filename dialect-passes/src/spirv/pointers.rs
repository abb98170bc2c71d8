//! `lower-pointers-to-spirv`: the frontend's C pointers, written with the LLVM dialect's
//! target-neutral memory ops (`!llvm.ptr<AS>`, `getelementptr`, `load`, `store`, `alloca`,
//! `addrspacecast`, `ptrtoint`/`inttoptr`, globals), become SPIR-V's typed pointers.
//!
//! It runs just before upstream GPU→SPIR-V conversion, which leaves spirv ops alone. Every pointer
//! value becomes `!spirv.ptr<i8, SC>` (a byte pointer, like `char*` in OpenCL C); each access
//! bitcasts it to the type it reads or walks, as LLVM's SPIR-V backend does for opaque pointers.
//! Address spaces follow the SPIR/OpenCL numbering clang uses for spirv64 (the module went
//! through `hipmlir-address-spaces-to-spirv`).

use std::collections::HashMap;

use hipmlir_ir::rewrite::{
    apply_patterns, enclosing, replace_all_uses_except, Outcome, Pattern, PatternRewriter,
    RewritePatternSet,
};
use melior::ir::attribute::{IntegerAttribute, StringAttribute, TypeAttribute};
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, OperationMutLike, OperationRefMut};
use melior::ir::r#type::{FunctionType, IntegerType};
use melior::ir::{
    Attribute, AttributeLike, Module, OperationRef, RegionLike, Type, TypeLike, ValueLike,
};
use melior::Context;
use mlir_sys::{
    mlirDenseArrayGetNumElements, mlirDenseI32ArrayGetElement, mlirLLVMArrayTypeGetElementType,
    mlirLLVMStructTypeGetElementType, mlirTypeIsALLVMStructType, mlirValueSetType, MlirValue,
};

use crate::address_space_map::spirv::{FUNCTION, GENERIC};
use crate::builder::{integer_constant, type_of, update_function_type, value, Rewriter};
use crate::relocations;
use crate::spirv::ir::{self as spirv_ir, MemorySemantics};
use crate::spirv::memory_op::{sync_scope, type_attribute, Lowering};
use crate::spirv::types::{
    address_space, is_llvm_ptr, is_llvm_type, loaded_value_type, spirv_ptr, spirv_type,
};
use crate::spirv::Cast;
use crate::spirv::{atomics, initializers};
use crate::LowerError;

/// What lowers one operation: the value that replaces its result, if it has one.
type LowerFn = for<'c, 'a> fn(&Lowering<'c, 'a>) -> Result<Option<MlirValue>, LowerError>;

/// The LLVM memory operations this pass replaces, one lowering each.
const LOWERINGS: &[(&str, LowerFn)] = &[
    ("llvm.getelementptr", lower_getelementptr),
    ("llvm.load", lower_load),
    ("llvm.store", lower_store),
    ("llvm.alloca", lower_alloca),
    ("llvm.addrspacecast", lower_addrspacecast),
    ("llvm.ptrtoint", lower_ptrtoint),
    ("llvm.inttoptr", lower_inttoptr),
    ("llvm.mlir.zero", lower_zero),
    ("llvm.mlir.global", lower_global),
    ("llvm.mlir.addressof", lower_addressof),
    ("llvm.atomicrmw", lower_atomicrmw),
    ("llvm.cmpxchg", lower_cmpxchg),
    ("llvm.extractvalue", lower_extractvalue),
    ("llvm.fence", lower_fence),
];

/// The pass's state: the inferred spaces of generic accesses (by operation), and whether float
/// atomics are native.
struct Pointers {
    spaces: HashMap<usize, u32>,
    native_float_atomics: bool,
}

pub fn lower_pointers_to_spirv(
    ctx: &Context,
    module: &Module,
    native_float_atomics: bool,
) -> Result<(), LowerError> {
    let mut state = Pointers {
        spaces: crate::spirv::address_spaces::specific_access_spaces(module),
        native_float_atomics,
    };
    // Each access is rewritten while pointer values still have their LLVM types (the access
    // needs them to know the address space)...
    let mut patterns = RewritePatternSet::new();
    patterns.extend(
        LOWERINGS
            .iter()
            .map(|(op, _)| Pattern::new(op, lower_memory_op)),
    );
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut state)?;
    // ...then every remaining value of an LLVM type takes its SPIR-V type, and functions follow.
    let mut retyping = RewritePatternSet::new();
    retyping
        .add(Pattern::any(retype_values))
        .next_stage()
        .add(Pattern::new("gpu.func", retype_kernel))
        .next_stage()
        .add(Pattern::new("func.func", retype_function));
    apply_patterns(ctx, &module.as_operation(), &retyping, &mut ())
}

/// One memory operation, by its lowering in [`LOWERINGS`]: replaced by the value the lowering
/// returns (if it has a result), then erased.
fn lower_memory_op<'c>(
    rw: &mut PatternRewriter<'c>,
    state: &mut Pointers,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let name = op.name();
    let name = name.as_string_ref().as_str().unwrap_or("");
    let Some((_, lower)) = LOWERINGS.iter().find(|(n, _)| *n == name) else {
        return Ok(Outcome::NoMatch);
    };
    let lowering = Lowering {
        ctx: rw.ctx,
        rw: Rewriter::before(rw.ctx, &op),
        op,
        known_space: state.spaces.get(&(op.to_raw().ptr as usize)).copied(),
        native_float_atomics: state.native_float_atomics,
    };
    match lower(&lowering)? {
        Some(new) => rw.replace_op(&op, &[value(new)]),
        None => rw.erase_op(&op),
    }
    Ok(Outcome::Rewrote)
}

fn lower_getelementptr(l: &Lowering) -> Result<Option<MlirValue>, LowerError> {
    let rw = &l.rw;
    let base = l.operand(0)?;
    let space = address_space(base.r#type());
    let element = l.type_attribute("elem_type")?;
    let raw_indices = l.attribute("rawConstantIndices")?;
    let mut dynamic = l.op.operands().skip(1);
    let mut indices = Vec::new();
    let i32t: Type = IntegerType::new(l.ctx, 32).into();
    // SAFETY: rawConstantIndices is a DenseI32ArrayAttr.
    let count = unsafe { mlirDenseArrayGetNumElements(raw_indices.to_raw()) };
    for i in 0..count {
        let c = unsafe { mlirDenseI32ArrayGetElement(raw_indices.to_raw(), i) };
        indices.push(if c == i32::MIN {
            dynamic
                .next()
                .ok_or_else(|| l.error("gep operand count"))?
                .to_raw()
        } else {
            rw.int_constant(i32t, c as i64)?
        });
    }
    if indices.is_empty() {
        return Err(l.error("gep without indices"));
    }
    // The type the last index lands on.
    let mut landed = element;
    for position in 1..indices.len() {
        landed = member_type(landed, &l.op, position).map_err(|e| l.error(e))?;
    }
    let typed = rw.bitcast(base.to_raw(), rw.ptr(element, space)?)?;
    let walked = rw.ptr_access_chain(typed, &indices, rw.ptr(landed, space)?)?;
    Ok(Some(rw.bitcast(walked, rw.byte_ptr(space)?)?))
}

fn lower_load(l: &Lowering) -> Result<Option<MlirValue>, LowerError> {
    let rw = &l.rw;
    let (ptr, space) = l.access_pointer(0)?;
    let ty = l.result_type()?;
    let typed = rw.bitcast(ptr, rw.ptr(ty, space)?)?;
    let value_type = loaded_value_type(l.ctx, ty).map_err(|e| l.error(e))?;
    Ok(Some(rw.load(typed, value_type, l.memory_access(ty))?))
}

fn lower_store(l: &Lowering) -> Result<Option<MlirValue>, LowerError> {
    let rw = &l.rw;
    let value = l.operand(0)?;
    let (ptr, space) = l.access_pointer(1)?;
    let typed = rw.bitcast(ptr, rw.ptr(value.r#type(), space)?)?;
    rw.store(typed, value.to_raw(), l.memory_access(value.r#type()))?;
    Ok(None)
}

fn lower_alloca(l: &Lowering) -> Result<Option<MlirValue>, LowerError> {
    let element = l.type_attribute("elem_type")?;
    if address_space(l.result_type()?) != FUNCTION {
        return Err(l.error("alloca outside the private space"));
    }
    // A function variable has a type, not a count: `count x T` is one variable of
    // `[count x T]` (taken as one `T`, its other elements were the stack beyond it).
    let count = integer_constant(l.operand(0)?.to_raw())
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| {
            LowerError::unsupported(
                l.rw.loc,
                "a local array whose length is known only at run time",
            )
        })?;
    let element = match count {
        1 => element,
        n => melior::dialect::llvm::r#type::array(element, n),
    };
    // SPIR-V wants function variables at the top of the entry block.
    let entry = entry_block(&l.op).map_err(|e| l.error(e))?;
    let at_entry = Rewriter::at_start(l.ctx, entry, l.rw.loc);
    let variable = at_entry.function_variable(l.rw.ptr(element, FUNCTION)?)?;
    Ok(Some(l.rw.bitcast(variable, l.rw.byte_ptr(FUNCTION)?)?))
}

fn lower_addrspacecast(l: &Lowering) -> Result<Option<MlirValue>, LowerError> {
    let from = l.operand(0)?;
    let to_space = address_space(l.result_type()?);
    let from_space = address_space(from.r#type());
    let cast = match (from_space, to_space) {
        (_, GENERIC) => Cast::PtrCastToGeneric,
        (GENERIC, _) => Cast::GenericCastToPtr,
        _ => return Err(l.error(format!("address space cast {from_space} -> {to_space}"))),
    };
    Ok(Some(l.rw.convert(
        cast,
        from.to_raw(),
        l.rw.byte_ptr(to_space)?,
    )?))
}

fn lower_ptrtoint(l: &Lowering) -> Result<Option<MlirValue>, LowerError> {
    let to = l.result_type()?;
    Ok(Some(l.rw.convert(
        Cast::ConvertPtrToU,
        l.operand(0)?.to_raw(),
        to,
    )?))
}

fn lower_inttoptr(l: &Lowering) -> Result<Option<MlirValue>, LowerError> {
    let to = l.rw.byte_ptr(address_space(l.result_type()?))?;
    Ok(Some(l.rw.convert(
        Cast::ConvertUToPtr,
        l.operand(0)?.to_raw(),
        to,
    )?))
}

fn lower_zero(l: &Lowering) -> Result<Option<MlirValue>, LowerError> {
    let ty = l.result_type()?;
    if !is_llvm_ptr(ty) {
        return Err(l.error("llvm.mlir.zero of a non-pointer"));
    }
    let zero = l.rw.int_constant(IntegerType::new(l.ctx, 64).into(), 0)?;
    let to = l.rw.byte_ptr(address_space(ty))?;
    Ok(Some(l.rw.convert(Cast::ConvertUToPtr, zero, to)?))
}

fn lower_global(l: &Lowering) -> Result<Option<MlirValue>, LowerError> {
    let symbol = l.attribute("sym_name")?;
    let ty = memory_type(&l.op)?;
    let space =
        l.op.attribute("addr_space")
            .ok()
            .and_then(|a| IntegerAttribute::try_from(a).ok())
            .map(|a| a.value() as u32)
            .unwrap_or(0);
    let mut initializer = Vec::new();
    if let Ok(value) = l.op.attribute("value") {
        let name = StringAttribute::try_from(symbol).map_err(|e| l.error(e))?;
        let ty = spirv_type(l.ctx, ty).map_err(|e| l.error(e))?;
        initializer.push(if relocations::is_relocated(&l.op) {
            let words = relocations::words(&l.op, &initializers::dense_bytes(value)?)?;
            initializers::relocated_initializer(&l.rw, name.value(), ty, &words)?
        } else {
            initializers::initializer(&l.rw, name.value(), ty, value)?
        });
    }
    if crate::device_link::exported_global(l.ctx, &l.op) {
        // A variable the host reaches (see `device_link::host_visible`).
        let name = StringAttribute::try_from(symbol).map_err(|e| l.error(e))?;
        initializer.push((
            "linkage_attributes",
            spirv_ir::linkage_attributes(l.ctx, name.value(), spirv_ir::LINKAGE_EXPORT),
        ));
    }
    l.rw.global_variable(symbol, l.rw.ptr(ty, space)?, &initializer)?;
    Ok(None)
}

/// The type of a global's memory: its `global_type`, or for one whose initial value holds
/// addresses, the words that value is made of (see `relocations`).
fn memory_type<'c>(global: &OperationRef<'c, '_>) -> Result<Type<'c>, LowerError> {
    let ty = type_attribute(global, "global_type").map_err(LowerError::bug)?;
    if !relocations::is_relocated(global) {
        return Ok(ty);
    }
    relocations::word_array_type(global)
}

fn lower_addressof(l: &Lowering) -> Result<Option<MlirValue>, LowerError> {
    let space = address_space(l.result_type()?);
    let symbol = l.attribute("global_name")?;
    let global = global_type(&l.op, symbol).map_err(|e| l.error(e))?;
    let typed = l.rw.address_of(symbol, l.rw.ptr(global, space)?)?;
    Ok(Some(l.rw.bitcast(typed, l.rw.byte_ptr(space)?)?))
}

fn lower_fence(l: &Lowering) -> Result<Option<MlirValue>, LowerError> {
    let semantics = MemorySemantics::SEQUENTIALLY_CONSISTENT
        | MemorySemantics::WORKGROUP_MEMORY
        | MemorySemantics::CROSS_WORKGROUP_MEMORY;
    l.rw.memory_barrier(sync_scope(l)?, semantics)?;
    Ok(None)
}

fn lower_atomicrmw(l: &Lowering) -> Result<Option<MlirValue>, LowerError> {
    let (ptr, space) = l.access_pointer(0)?;
    Ok(Some(if space == GENERIC {
        atomics::lower_rmw_generic(l, ptr)?
    } else {
        atomics::lower_rmw(l, &l.rw, ptr, space)?
    }))
}

fn lower_cmpxchg(l: &Lowering) -> Result<Option<MlirValue>, LowerError> {
    // Only the old value is used (extractvalue [0]); see `lower_extractvalue`.
    let (ptr, space) = l.access_pointer(0)?;
    Ok(Some(atomics::lower_cmpxchg(l, ptr, space)?))
}

fn lower_extractvalue(l: &Lowering) -> Result<Option<MlirValue>, LowerError> {
    // hipmlir only extracts the old value ([0]) of an llvm.cmpxchg, which was replaced by that
    // old value itself.
    let position = l.attribute("position")?;
    // SAFETY: kind check before the reads.
    let first_only = unsafe {
        mlir_sys::mlirAttributeIsADenseI64Array(position.to_raw())
            && mlirDenseArrayGetNumElements(position.to_raw()) == 1
            && mlir_sys::mlirDenseI64ArrayGetElement(position.to_raw(), 0) == 0
    };
    if !first_only {
        return Err(l.error(format!("llvm.extractvalue {position} is not lowered")));
    }
    Ok(Some(l.operand(0)?.to_raw()))
}

fn internal(e: impl std::fmt::Display) -> LowerError {
    LowerError::bug(e)
}

/// Functions take the SPIR-V types their callers' pointers now have, so that the module stays
/// valid between the passes: declarations (device library functions such as printf, lowered by
/// the math pass after this one) and the compiler's helpers (the memory checker's slow path),
/// whose arguments were retyped with the rest. Types map one to one, so every call of a
/// function still agrees with it.
fn retype_function<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut (),
    declaration: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let ctx = rw.ctx;
    let at = |e: String| LowerError::internal(declaration.location(), e);
    let function_type = type_attribute(&declaration, "function_type").map_err(at)?;
    let function_type = FunctionType::try_from(function_type)
        .map_err(|e| at(format!("a declaration without a function type: {e}")))?;
    let convert = |t| loaded_value_type(ctx, t).map_err(at);
    let inputs = (0..function_type.input_count())
        .map(|i| function_type.input(i).map_err(internal).and_then(convert))
        .collect::<Result<Vec<_>, _>>()?;
    let results = (0..function_type.result_count())
        .map(|i| function_type.result(i).map_err(internal).and_then(convert))
        .collect::<Result<Vec<_>, _>>()?;
    // SAFETY: the live declaration; setting an attribute keeps it alive.
    let mut op = unsafe { OperationRefMut::from_raw(declaration.to_raw()) };
    op.set_attribute(
        "function_type",
        TypeAttribute::new(FunctionType::new(ctx, &inputs, &results).into()).into(),
    );
    Ok(Outcome::Rewrote)
}

/// A kernel's by-value parameters take their struct types, and its `function_type` follows
/// its (retyped) arguments.
fn retype_kernel<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut (),
    f: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    byval_parameters(rw.ctx, &f)?;
    update_function_type(rw.ctx, &f)?;
    Ok(Outcome::Rewrote)
}

/// A by-value struct parameter is a pointer to the struct in the Function storage class, as
/// OpenCL's byval parameters are; the body keeps using it as a byte pointer.
fn byval_parameters(ctx: &Context, op: &OperationRef) -> Result<(), LowerError> {
    let at = |e: String| LowerError::internal(op.location(), e);
    let byval = crate::symbols::byval_parameters(op);
    if byval.is_empty() {
        return Ok(());
    }
    let region = op.region(0).map_err(|e| at(e.to_string()))?;
    let Some(entry) = region.first_block() else {
        return Ok(());
    };
    for (index, ty) in byval {
        let arg = entry.argument(index).map_err(|e| at(e.to_string()))?;
        let struct_ptr = spirv_ptr(ctx, ty, FUNCTION).map_err(at)?;
        // SAFETY: the argument is live.
        unsafe { mlirValueSetType(arg.to_raw(), struct_ptr.to_raw()) };
        // Every other use moves to the byte-pointer view.
        let rw = Rewriter::at_start(ctx, entry.to_raw(), op.location());
        let view = rw.convert(Cast::Bitcast, arg.to_raw(), rw.byte_ptr(FUNCTION)?)?;
        // SAFETY: the view is the result of the bitcast just built.
        let cast = unsafe { OperationRef::from_raw(mlir_sys::mlirOpResultGetOwner(view)) };
        replace_all_uses_except(arg, value(view), &cast);
    }
    Ok(())
}

/// The element type of the global `symbol` refers to, from its (not yet lowered) declaration.
fn global_type<'c>(op: &OperationRef<'c, '_>, symbol: Attribute<'c>) -> Result<Type<'c>, String> {
    let name = melior::ir::attribute::FlatSymbolRefAttribute::try_from(symbol)
        .map_err(|e| e.to_string())?
        .value()
        .to_string();
    let gpu_module = enclosing(op, "gpu.module").ok_or("an access outside a gpu.module")?;
    let region = gpu_module.region(0).map_err(|e| e.to_string())?;
    let block = region.first_block().ok_or("empty gpu.module")?;
    let mut o = block.first_operation();
    while let Some(g) = o {
        if g.name().as_string_ref().as_str() == Ok("llvm.mlir.global")
            && crate::symbols::symbol(&g, "sym_name").as_deref() == Some(name.as_str())
        {
            return memory_type(&g).map_err(|e| e.to_string());
        }
        o = g.next_in_block();
    }
    Err(format!("no global named {name}"))
}

/// The type of member `index` of an aggregate reached by the `position`-th GEP index.
fn member_type<'c>(
    aggregate: Type<'c>,
    op: &OperationRef,
    position: usize,
) -> Result<Type<'c>, String> {
    let raw = aggregate.to_raw();
    // SAFETY: kind checks precede the accessors.
    unsafe {
        if mlirTypeIsALLVMStructType(raw) {
            let indices = op
                .attribute("rawConstantIndices")
                .map_err(|e| e.to_string())?;
            let field = mlirDenseI32ArrayGetElement(indices.to_raw(), position as isize);
            if field == i32::MIN {
                return Err("dynamic struct field index".into());
            }
            return Ok(Type::from_raw(mlirLLVMStructTypeGetElementType(
                raw,
                field as isize,
            )));
        }
        if spirv_ir::llvm_array_length(aggregate).is_some() {
            return Ok(Type::from_raw(mlirLLVMArrayTypeGetElementType(raw)));
        }
    }
    Err(format!("cannot index into {aggregate}"))
}

/// The entry block of the function enclosing `op`: a kernel, or a function inlining left (a
/// recursive one's locals live in its own frame).
fn entry_block(op: &OperationRef) -> Result<mlir_sys::MlirBlock, String> {
    let function = enclosing(op, "gpu.func")
        .or_else(|| enclosing(op, "func.func"))
        .ok_or("alloca outside a function")?;
    let region = function.region(0).map_err(|e| e.to_string())?;
    let block = region.first_block().ok_or("function without a body")?;
    Ok(block.to_raw())
}

/// Gives every remaining value of an LLVM type (pointers and aggregates in block arguments,
/// results of scf ops) its SPIR-V type: `op`'s results and its regions' block arguments.
fn retype_values<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut (),
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let mut values: Vec<MlirValue> = op
        .results()
        .filter(|r| is_llvm_type(r.r#type()))
        .map(|r| r.to_raw())
        .collect();
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
    for v in values {
        // SAFETY: a live value gets a type; its users are spirv ops, or structural ops (scf
        // yields, block arguments) retyped consistently here.
        unsafe {
            let t = loaded_value_type(rw.ctx, type_of(v)).map_err(|e| {
                LowerError::internal(
                    melior::ir::Location::from_raw(mlir_sys::mlirValueGetLocation(v)),
                    e,
                )
            })?;
            mlirValueSetType(v, t.to_raw());
        }
    }
    Ok(Outcome::NoMatch)
}
