//! The SPIR-V forms of the LLVM dialect's memory types: storage classes for LLVM address
//! spaces (SPIR numbering, after `hipmlir-address-spaces-to-spirv`), byte pointers for every
//! pointer value, SPIR-V aggregates for LLVM ones; and the pointer casts of the rewriter.

use melior::ir::r#type::IntegerType;
use melior::ir::{Type, TypeLike};
use melior::Context;
use mlir_sys::{
    mlirLLVMArrayTypeGetElementType, mlirLLVMPointerTypeGetAddressSpace,
    mlirLLVMStructTypeGetElementType, mlirLLVMStructTypeGetNumElementTypes,
    mlirLLVMStructTypeIsPacked, mlirTypeIsALLVMPointerType, mlirTypeIsALLVMStructType, MlirValue,
};

use crate::builder::{type_of, Rewriter};
use crate::layout::struct_layout;
use crate::spirv::ir::{self as spirv_ir, StorageClass};
use crate::spirv::Cast;
use crate::LowerError;

/// The SPIR-V storage class of an LLVM address space (SPIR numbering), and back.
const STORAGE_CLASSES: [(u32, StorageClass); 5] = {
    use crate::address_space_map::spirv;
    [
        (spirv::FUNCTION, StorageClass::Function),
        (spirv::CROSS_WORKGROUP, StorageClass::CrossWorkgroup),
        (spirv::UNIFORM_CONSTANT, StorageClass::UniformConstant),
        (spirv::WORKGROUP, StorageClass::Workgroup),
        (spirv::GENERIC, StorageClass::Generic),
    ]
};

fn storage_class(address_space: u32) -> Result<StorageClass, String> {
    STORAGE_CLASSES
        .iter()
        .find(|(space, _)| *space == address_space)
        .map(|(_, class)| *class)
        .ok_or_else(|| format!("pointer in unknown address space {address_space}"))
}

pub(crate) fn is_llvm_ptr(t: Type) -> bool {
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
    spirv_ir::pointer_storage_class(t)
        .and_then(|class| STORAGE_CLASSES.iter().find(|(_, c)| *c == class))
        .map_or(u32::MAX, |(space, _)| *space)
}

/// The SPIR-V form of a memory type: scalars unchanged, pointers as byte pointers, arrays and
/// structs element by element.
pub(crate) fn spirv_type<'c>(ctx: &'c Context, t: Type<'c>) -> Result<Type<'c>, String> {
    let raw = t.to_raw();
    if is_llvm_ptr(t) {
        return byte_ptr(ctx, address_space(t));
    }
    // SAFETY: type queries on a live type; element accessors only after the kind check.
    unsafe {
        if mlirTypeIsALLVMStructType(raw) {
            let n = mlirLLVMStructTypeGetNumElementTypes(raw);
            let fields = (0..n)
                .map(|i| {
                    spirv_type(
                        ctx,
                        Type::from_raw(mlirLLVMStructTypeGetElementType(raw, i)),
                    )
                })
                .collect::<Result<Vec<_>, _>>()?;
            if !mlirLLVMStructTypeIsPacked(raw) {
                return Ok(spirv_ir::struct_type(ctx, &fields));
            }
            let (offsets, _, _) =
                struct_layout(t).ok_or_else(|| format!("no layout for a member of {t}"))?;
            let placed = fields
                .into_iter()
                .zip(offsets)
                .map(|(field, at)| {
                    Ok((
                        field,
                        u32::try_from(at).map_err(|_| format!("{t} is too large"))?,
                    ))
                })
                .collect::<Result<Vec<_>, String>>()?;
            return Ok(spirv_ir::packed_struct_type(ctx, &placed));
        }
        if let Some(length) = spirv_ir::llvm_array_length(t) {
            let element = spirv_type(ctx, Type::from_raw(mlirLLVMArrayTypeGetElementType(raw)))?;
            let length = u32::try_from(length).map_err(|_| format!("{t} is too long"))?;
            return Ok(spirv_ir::array_type(element, length));
        }
    }
    if is_llvm_type(t) {
        return Err(format!("no SPIR-V form for {t}"));
    }
    Ok(t)
}

/// `!spirv.ptr<T, SC>` for an element type and an LLVM address space.
pub(crate) fn spirv_ptr<'c>(
    ctx: &'c Context,
    element: Type<'c>,
    space: u32,
) -> Result<Type<'c>, String> {
    Ok(spirv_ir::pointer_type(
        spirv_type(ctx, element)?,
        storage_class(space)?,
    ))
}

/// The byte-pointer type every pointer value gets.
pub(crate) fn byte_ptr(ctx: &Context, space: u32) -> Result<Type<'_>, String> {
    Ok(spirv_ir::pointer_type(
        IntegerType::new(ctx, 8).into(),
        storage_class(space)?,
    ))
}

/// Pointer types and casts of the operation being rewritten (errors at its location).
impl<'c> Rewriter<'c> {
    pub fn ptr(&self, element: Type<'c>, space: u32) -> Result<Type<'c>, LowerError> {
        spirv_ptr(self.ctx, element, space).map_err(|e| self.error(e))
    }

    pub fn byte_ptr(&self, space: u32) -> Result<Type<'c>, LowerError> {
        byte_ptr(self.ctx, space).map_err(|e| self.error(e))
    }

    /// `v` as a pointer of type `to` (nothing to do when it is one).
    pub fn bitcast(&self, v: MlirValue, to: Type<'c>) -> Result<MlirValue, LowerError> {
        let from = type_of(v);
        if from == to {
            return Ok(v);
        }
        // A pointer not converted yet (a block argument or a region's result, retyped later)
        // becomes a byte pointer of its space: a cast to that would be a cast to itself.
        if is_llvm_ptr(from) && byte_ptr(self.ctx, address_space(from)).is_ok_and(|b| b == to) {
            return Ok(v);
        }
        self.convert(Cast::Bitcast, v, to)
    }
}

/// The SPIR-V type of a value: pointers become byte pointers, LLVM aggregates SPIR-V ones,
/// everything else stays.
pub(crate) fn loaded_value_type<'c>(ctx: &'c Context, t: Type<'c>) -> Result<Type<'c>, String> {
    if is_llvm_type(t) {
        spirv_type(ctx, t)
    } else {
        Ok(t)
    }
}

pub(crate) fn is_llvm_type(t: Type) -> bool {
    t.dialect()
        .namespace()
        .map(|n| n == "llvm")
        .unwrap_or(false)
}
