//! Globals whose initial value holds addresses (the frontend's [`RELOCATIONS_ATTRIBUTE`]), as
//! both targets lay them out: an array of 64-bit words, each either plain bits or the generic
//! address of another global plus an addend. SPIR-V makes an address word a pointer constant
//! (`spirv::initializers`, resolved in the words by `spirv::patch::resolve_addresses`), PTX an
//! initializer LLVM prints as `generic(target)+addend` (`nvptx::lower`).

use hipmlir_device_image::RELOCATIONS_ATTRIBUTE;
use melior::ir::attribute::IntegerAttribute;
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{Attribute, AttributeLike, Type};

use crate::symbols::text_of;
use crate::LowerError;

/// The bytes of a word.
pub(crate) const WORD_BYTES: usize = 8;

/// One word of a relocated global's initial value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Word {
    Bits(u64),
    /// The generic address of global `target`, `addend` bytes on.
    Address {
        target: String,
        addend: i64,
    },
}

fn err(message: impl std::fmt::Display) -> LowerError {
    LowerError::bug(format!("relocated global: {message}"))
}

/// Whether a global (an `llvm.mlir.global`) has relocations.
pub(crate) fn is_relocated<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> bool {
    op.has_attribute(RELOCATIONS_ATTRIBUTE)
}

/// The type of a relocated global (an `llvm.mlir.global` of bytes with a `value`, as the
/// frontend declares variables): `!llvm.array<n x i64>` of its n words.
pub(crate) fn word_array_type<'c: 'a, 'a>(
    global: &impl OperationLike<'c, 'a>,
) -> Result<Type<'c>, LowerError> {
    let value = global
        .attribute("value")
        .map_err(|_| err("no initial value"))?;
    // SAFETY: kind check before the elements accessor; the new types are in the attribute's
    // live context.
    unsafe {
        let raw = value.to_raw();
        if !mlir_sys::mlirAttributeIsAElements(raw) {
            return Err(err("an initial value that is not bytes"));
        }
        let size = mlir_sys::mlirElementsAttrGetNumElements(raw) as usize;
        if !size.is_multiple_of(WORD_BYTES) {
            return Err(err("a size that is not a whole number of words"));
        }
        let ctx = mlir_sys::mlirAttributeGetContext(raw);
        let word = mlir_sys::mlirIntegerTypeGet(ctx, 64);
        Ok(Type::from_raw(mlir_sys::mlirLLVMArrayTypeGet(
            word,
            (size / WORD_BYTES) as u32,
        )))
    }
}

/// The words of a relocated global whose initial bytes are `bytes`.
pub(crate) fn words<'c: 'a, 'a>(
    op: &impl OperationLike<'c, 'a>,
    bytes: &[u8],
) -> Result<Vec<Word>, LowerError> {
    if !bytes.len().is_multiple_of(WORD_BYTES) {
        return Err(err("a size that is not a whole number of words"));
    }
    let mut words: Vec<Word> = bytes
        .chunks_exact(WORD_BYTES)
        .map(|w| Word::Bits(u64::from_le_bytes(w.try_into().unwrap_or_default())))
        .collect();
    let list = op
        .attribute(RELOCATIONS_ATTRIBUTE)
        .map_err(|_| err("no relocations"))?;
    for entry in elements(list)? {
        let [offset, target, addend] = elements(entry)?[..] else {
            return Err(err("a relocation that is not [offset, @target, addend]"));
        };
        let offset = integer(offset)? as usize;
        let slot = words
            .get_mut(offset / WORD_BYTES)
            .filter(|_| offset.is_multiple_of(WORD_BYTES))
            .ok_or_else(|| err(format!("a relocation at offset {offset}")))?;
        *slot = Word::Address {
            target: text_of(target),
            addend: integer(addend)?,
        };
    }
    Ok(words)
}

/// The globals whose addresses a relocated global's initial value holds (none for another op).
pub(crate) fn targets<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> Vec<String> {
    let Ok(list) = op.attribute(RELOCATIONS_ATTRIBUTE) else {
        return Vec::new();
    };
    elements(list)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|entry| elements(entry).ok()?.get(1).map(|t| text_of(*t)))
        .collect()
}

/// The elements of an array attribute.
fn elements(a: Attribute) -> Result<Vec<Attribute>, LowerError> {
    crate::symbols::array_elements(a).ok_or_else(|| err("relocations that are not arrays"))
}

fn integer(a: Attribute) -> Result<i64, LowerError> {
    IntegerAttribute::try_from(a)
        .map(|i| i.value())
        .map_err(|_| err("a relocation's number that is not an integer"))
}

/// The address space of global `target`, a symbol of the block that holds `global`.
pub(crate) fn address_space_of<'c: 'a, 'a>(
    global: &impl OperationLike<'c, 'a>,
    target: &str,
) -> Result<u32, LowerError> {
    let block = global
        .block()
        .ok_or_else(|| err("a global outside a module"))?;
    let mut next = block.first_operation();
    while let Some(op) = next {
        if op.name().as_string_ref().as_str() == Ok("llvm.mlir.global")
            && crate::symbols::symbol(&op, "sym_name").as_deref() == Some(target)
        {
            return Ok(op
                .attribute("addr_space")
                .ok()
                .and_then(|a| IntegerAttribute::try_from(a).ok())
                .map_or(0, |a| a.value() as u32));
        }
        next = op.next_in_block();
    }
    Err(err(format!("no global named {target}")))
}
