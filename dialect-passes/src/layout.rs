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

/// An address as the value it is computed from (`root`), plus a constant and plus indices
/// times their element sizes: what `llvm.getelementptr`s and address-space casts make of it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Address {
    pub root: usize,
    pub constant: i64,
    /// (index, bytes per step), the index as its [`index_key`], sorted.
    pub scaled: Vec<((usize, u8), i64)>,
}

/// An index as the value it extends (sign or zero, told apart) or itself: two GEPs of the same
/// `i` widened twice index alike.
fn index_key(v: mlir_sys::MlirValue) -> (usize, u8) {
    use melior::ir::operation::{OperationLike, OperationRef};
    use melior::ir::ValueLike;
    // SAFETY: queries on a live value and its defining operation.
    unsafe {
        if mlir_sys::mlirValueIsAOpResult(v) {
            let op = OperationRef::from_raw(mlir_sys::mlirOpResultGetOwner(v));
            let kind = match op.name().as_string_ref().as_str() {
                Ok("arith.extsi") => 1,
                Ok("arith.extui") => 2,
                _ => 0,
            };
            if kind != 0 {
                if let Ok(o) = op.operand(0) {
                    return (o.to_raw().ptr as usize, kind);
                }
            }
        }
    }
    (v.ptr as usize, 0)
}

/// `pointer` as an [`Address`], through `llvm.getelementptr`s and address-space casts; None
/// where a type without a layout here is stepped through, or a constant overflows.
pub(crate) fn address_of(pointer: mlir_sys::MlirValue) -> Option<Address> {
    let offsets = offsets_of(pointer)?;
    let mut scaled: Vec<((usize, u8), i64)> = offsets
        .terms
        .iter()
        .map(|&(index, step)| (index_key(index), step))
        .collect();
    scaled.sort();
    Some(Address {
        root: offsets.root.ptr as usize,
        constant: offsets.constant,
        scaled,
    })
}

/// What an [`Address`] is made of, as the values themselves: `root` plus `constant` bytes plus
/// each index operand of a GEP times its bytes per step.
pub(crate) struct Offsets {
    pub root: mlir_sys::MlirValue,
    pub constant: i64,
    /// (a GEP's dynamic index operand, bytes per step), outermost GEP first.
    pub terms: Vec<(mlir_sys::MlirValue, i64)>,
}

/// `pointer` as [`Offsets`] from the value it is computed from, through `llvm.getelementptr`s
/// and address-space casts; None where a type without a layout here is stepped through, or a
/// constant overflows.
pub(crate) fn offsets_of(pointer: mlir_sys::MlirValue) -> Option<Offsets> {
    use melior::ir::attribute::{AttributeLike, TypeAttribute};
    use melior::ir::operation::{OperationLike, OperationRef};
    use melior::ir::ValueLike;
    let mut current = pointer;
    let mut constant: i64 = 0;
    let mut terms = Vec::new();
    loop {
        // SAFETY: queries on live values and their defining operations.
        let op = unsafe {
            if !mlir_sys::mlirValueIsAOpResult(current) {
                break;
            }
            OperationRef::from_raw(mlir_sys::mlirOpResultGetOwner(current))
        };
        match op.name().as_string_ref().as_str().unwrap_or("") {
            "llvm.addrspacecast" => {}
            "llvm.getelementptr" => {
                let element = TypeAttribute::try_from(op.attribute("elem_type").ok()?)
                    .ok()?
                    .value();
                let indices = op.attribute("rawConstantIndices").ok()?.to_raw();
                // SAFETY: rawConstantIndices is a DenseI32ArrayAttr.
                let count = unsafe { mlir_sys::mlirDenseArrayGetNumElements(indices) };
                // Dynamic indices are the operands after the base, in order, where the
                // constant indices hold i32::MIN.
                let mut dynamic = 1;
                let mut ty = element;
                for i in 0..count {
                    // SAFETY: `i` is below the count.
                    let index =
                        i64::from(unsafe { mlir_sys::mlirDenseI32ArrayGetElement(indices, i) });
                    let step = if i == 0 {
                        size_and_align(ty)?.0 as i64
                    } else if let Some((offsets, _, _)) = struct_layout(ty) {
                        // (A struct's member is always a constant index.)
                        let member = usize::try_from(index).ok()?;
                        constant = constant.checked_add(*offsets.get(member)? as i64)?;
                        // SAFETY: a struct type with that many members.
                        ty = unsafe {
                            Type::from_raw(mlir_sys::mlirLLVMStructTypeGetElementType(
                                ty.to_raw(),
                                member as isize,
                            ))
                        };
                        continue;
                    } else {
                        crate::spirv::ir::llvm_array_length(ty)?;
                        // SAFETY: an LLVM array type (it has a length).
                        ty = unsafe {
                            Type::from_raw(mlir_sys::mlirLLVMArrayTypeGetElementType(ty.to_raw()))
                        };
                        size_and_align(ty)?.0 as i64
                    };
                    if index == i64::from(i32::MIN) {
                        let v = op.operand(dynamic).ok()?.to_raw();
                        dynamic += 1;
                        terms.push((v, step));
                    } else {
                        constant = constant.checked_add(index.checked_mul(step)?)?;
                    }
                }
            }
            _ => break,
        }
        current = op.operand(0).ok()?.to_raw();
    }
    Some(Offsets {
        root: current,
        constant,
        terms,
    })
}

/// The byte offset of `pointer` from the value its address is computed from, through
/// `llvm.getelementptr`s whose indices are all constants and address-space casts; None where
/// an index is dynamic, the offset negative, or a type without a layout here is stepped through.
pub(crate) fn constant_offset(pointer: mlir_sys::MlirValue) -> Option<u64> {
    let address = address_of(pointer)?;
    if !address.scaled.is_empty() {
        return None;
    }
    u64::try_from(address.constant).ok()
}
