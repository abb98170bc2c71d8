//! Symbol names read off operations (`sym_name`, `callee`, `global_name`), typed: a string or
//! a flat symbol reference attribute's text, never the attribute's printed form; and the
//! elements of array attributes.

use hipmlir_device_image::BYVAL_ATTRIBUTE;
use melior::ir::attribute::{FlatSymbolRefAttribute, StringAttribute};
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{Attribute, AttributeLike, BlockRef, OperationRef, RegionLike, Type, ValueLike};
use mlir_sys::MlirOperation;

use crate::LowerError;

/// The function the frontend calls for HIP's `__byte_perm` (declared in hipmlir_math.h),
/// which each target lowers: `prmt.b32` on NVPTX, shifts and masks on SPIR-V.
pub(crate) const BYTE_PERM: &str = "__byte_perm";

/// The operands `x`, `y` and the selector of a call of [`BYTE_PERM`]; None for another op.
pub(crate) fn byte_perm_operands(
    op: &OperationRef,
) -> Result<Option<[mlir_sys::MlirValue; 3]>, LowerError> {
    if symbol(op, "callee").as_deref() != Some(BYTE_PERM) {
        return Ok(None);
    }
    let operands: Vec<mlir_sys::MlirValue> = op.operands().map(|v| v.to_raw()).collect();
    let [x, y, s] = operands[..] else {
        return Err(LowerError::internal(
            op.location(),
            "__byte_perm takes three operands",
        ));
    };
    Ok(Some([x, y, s]))
}

/// The text of a string or flat symbol reference attribute (`""` for another kind).
pub(crate) fn text_of(a: Attribute) -> String {
    if let Ok(s) = StringAttribute::try_from(a) {
        return s.value().to_string();
    }
    FlatSymbolRefAttribute::try_from(a)
        .map(|s| s.value().to_string())
        .unwrap_or_default()
}

/// The elements of an array attribute; None for another kind. (melior's `ArrayAttribute`
/// conversion checks for a dense i64 array instead, so the C API reads it.)
pub(crate) fn array_elements(a: Attribute) -> Option<Vec<Attribute>> {
    // SAFETY: kind check before the array accessors, on a live attribute; elements within
    // its length.
    unsafe {
        let raw = a.to_raw();
        if !mlir_sys::mlirAttributeIsAArray(raw) {
            return None;
        }
        Some(
            (0..mlir_sys::mlirArrayAttrGetNumElements(raw))
                .map(|i| Attribute::from_raw(mlir_sys::mlirArrayAttrGetElement(raw, i)))
                .collect(),
        )
    }
}

/// The symbol `op`'s attribute `name` holds (`callee` of a call, `sym_name` of a function).
pub(crate) fn symbol<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, name: &str) -> Option<String> {
    op.attribute(name).ok().map(text_of)
}

/// The first block of a module operation's body (a gpu.module's, a spirv.module's).
pub(crate) fn module_body<'c>(gpu_module: MlirOperation) -> Result<BlockRef<'c, 'c>, LowerError> {
    // SAFETY: a live gpu.module.
    let gm = unsafe { OperationRef::from_raw(gpu_module) };
    gm.region(0)
        .map_err(|e| LowerError::bug(format!("a gpu.module: {e}")))?
        .first_block()
        .ok_or_else(|| LowerError::bug("empty gpu.module"))
}

/// Whether the gpu.module defines or declares `symbol` already.
pub(crate) fn has_symbol(gpu_module: MlirOperation, symbol: &str) -> Result<bool, LowerError> {
    let mut op = module_body(gpu_module)?.first_operation();
    while let Some(o) = op {
        let name = o
            .attribute("sym_name")
            .ok()
            .and_then(|a| StringAttribute::try_from(a).ok());
        if name.is_some_and(|n| n.value() == symbol) {
            return Ok(true);
        }
        op = o.next_in_block();
    }
    Ok(false)
}

/// A kernel's by-value struct parameters, from the frontend's `BYVAL_ATTRIBUTE` dictionary
/// (argument index → struct type): (index, type), in the dictionary's order.
pub(crate) fn byval_parameters<'c>(function: &OperationRef<'c, '_>) -> Vec<(usize, Type<'c>)> {
    let Ok(byval) = function.attribute(BYVAL_ATTRIBUTE) else {
        return Vec::new();
    };
    // SAFETY: the frontend writes a dictionary of index → type attribute; both are checked.
    unsafe {
        if !mlir_sys::mlirAttributeIsADictionary(byval.to_raw()) {
            return Vec::new();
        }
        (0..mlir_sys::mlirDictionaryAttrGetNumElements(byval.to_raw()))
            .filter_map(|i| {
                let named = mlir_sys::mlirDictionaryAttrGetElement(byval.to_raw(), i);
                let key = mlir_sys::mlirIdentifierStr(named.name);
                let key = std::slice::from_raw_parts(key.data as *const u8, key.length);
                let index = std::str::from_utf8(key).ok()?.parse().ok()?;
                if !mlir_sys::mlirAttributeIsAType(named.attribute) {
                    return None;
                }
                Some((
                    index,
                    Type::from_raw(mlir_sys::mlirTypeAttrGetValue(named.attribute)),
                ))
            })
            .collect()
    }
}
