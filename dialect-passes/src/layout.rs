//! The layout of memory types as the device compilers lay them out: what the memory checker
//! checks an access's bytes by, and where SPIR-V's packed structs put their members.

use melior::ir::{Type, TypeLike};

/// The size and alignment of a memory type (C's layout, as LLVM's data layouts for SPIR-V and
/// NVPTX give it), None for a type that has no layout here.
pub(crate) fn size_and_align(t: Type) -> Option<(u64, u64)> {
    let raw = t.to_raw();
    // SAFETY: type queries on a live type; accessors only after the kind checks.
    unsafe {
        use mlir_sys::*;
        if mlirTypeIsAInteger(raw) {
            let bytes = u64::from(mlirIntegerTypeGetWidth(raw)).div_ceil(8).max(1);
            return Some((bytes, bytes.next_power_of_two()));
        }
        if mlirTypeIsAIndex(raw) || mlirTypeIsALLVMPointerType(raw) {
            return Some((8, 8));
        }
        if mlirTypeIsAFloat(raw) {
            let bytes = u64::from(mlirFloatTypeGetWidth(raw)).div_ceil(8);
            return Some((bytes, bytes.next_power_of_two()));
        }
        if mlirTypeIsAVector(raw) {
            let (element, _) = size_and_align(Type::from_raw(mlirShapedTypeGetElementType(raw)))?;
            let mut count = 1u64;
            for d in 0..mlirShapedTypeGetRank(raw) {
                count *= u64::try_from(mlirShapedTypeGetDimSize(raw, d as isize)).ok()?;
            }
            let size = element * count;
            return Some((size, size.next_power_of_two()));
        }
        if mlirTypeIsALLVMStructType(raw) {
            let (_, size, align) = struct_layout(t)?;
            return Some((size, align));
        }
        if let Some(length) = crate::spirv::ir::llvm_array_length(t) {
            let (size, align) =
                size_and_align(Type::from_raw(mlirLLVMArrayTypeGetElementType(raw)))?;
            return Some((size.checked_mul(length)?, align));
        }
    }
    None
}

/// An `!llvm.struct`'s layout: each member's byte offset, the size and the alignment (a packed
/// struct's members follow each other, its alignment is 1). None for another type.
pub(crate) fn struct_layout(t: Type) -> Option<(Vec<u64>, u64, u64)> {
    let raw = t.to_raw();
    // SAFETY: type queries on a live type; accessors only after the kind check.
    unsafe {
        use mlir_sys::*;
        if !mlirTypeIsALLVMStructType(raw) {
            return None;
        }
        let packed = mlirLLVMStructTypeIsPacked(raw);
        let (mut offsets, mut end, mut align) = (Vec::new(), 0u64, 1u64);
        for i in 0..mlirLLVMStructTypeGetNumElementTypes(raw) {
            let (size, a) =
                size_and_align(Type::from_raw(mlirLLVMStructTypeGetElementType(raw, i)))?;
            let a = if packed { 1 } else { a };
            end = end.next_multiple_of(a);
            offsets.push(end);
            end += size;
            align = align.max(a);
        }
        Some((offsets, end.next_multiple_of(align), align))
    }
}
