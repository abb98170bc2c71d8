//! Initial bytes of global variables as SPIR-V constants, the way upstream's printf lowering
//! writes its format strings: one `spirv.SpecConstant` per distinct byte value (shared by the
//! module's variables; never specialized, they carry no SpecId) and a
//! `spirv.SpecConstantComposite` of them, which the `spirv.GlobalVariable` names as its
//! initializer. Zero-filled variables are only marked ([`ZERO_INITIALIZER_ATTRIBUTE`]): MLIR has
//! no null constant a variable can name, and a composite could not hold a large one (an
//! instruction has at most 65535 words), so the serializer's patch gives them `OpConstantNull`.

use hipmlir_device_image::ZERO_INITIALIZER_ATTRIBUTE;
use melior::ir::attribute::{FlatSymbolRefAttribute, IntegerAttribute, StringAttribute};
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::r#type::IntegerType;
use melior::ir::{Attribute, AttributeLike, BlockRef, Type};

use crate::builder::Rewriter;
use crate::spirv::SPEC_CONSTANT;
use crate::LowerError;

const BYTE_PREFIX: &str = "__hipmlir_byte_";

fn err(e: impl std::fmt::Display) -> LowerError {
    LowerError::bug(format!("global initializer: {e}"))
}

/// The attribute that gives `spirv.GlobalVariable` `symbol` (of SPIR-V type `ty`, a byte array)
/// the bytes of `value`, a dense i8 elements attribute; constants go in front of the variable
/// (the serializer wants them defined before use).
pub(crate) fn initializer<'c>(
    rw: &Rewriter<'c>,
    symbol: &str,
    ty: Type<'c>,
    value: Attribute<'c>,
) -> Result<(&'static str, Attribute<'c>), LowerError> {
    let ctx = rw.ctx;
    let bytes = dense_bytes(value)?;
    if bytes.iter().all(|b| *b == 0) {
        return Ok((ZERO_INITIALIZER_ATTRIBUTE, Attribute::unit(ctx)));
    }
    // SAFETY: the rewriter's block is live.
    let block = unsafe { BlockRef::from_raw(rw.block()) };
    let mut defined = [false; 256];
    // Byte constants sit at the start of the block, so the walk stops at the first other op.
    let mut next = block.first_operation();
    while let Some(op) = next {
        if op.name().as_string_ref().as_str() != Ok(SPEC_CONSTANT) {
            break;
        }
        if let Some(b) = op
            .attribute("sym_name")
            .ok()
            .and_then(|a| StringAttribute::try_from(a).ok())
            .and_then(|s| s.value().strip_prefix(BYTE_PREFIX)?.parse::<u8>().ok())
        {
            defined[b as usize] = true;
        }
        next = op.next_in_block();
    }
    let i8t: Type = IntegerType::new(ctx, 8).into();
    let name = |b: u8| format!("{BYTE_PREFIX}{b}");
    for &b in &bytes {
        if std::mem::replace(&mut defined[b as usize], true) {
            continue;
        }
        let value = IntegerAttribute::new(i8t, b as i8 as i64).into();
        Rewriter::at_start(ctx, rw.block(), rw.loc).spec_constant(&name(b), value)?;
    }
    let constituents: Vec<String> = bytes.iter().map(|b| name(*b)).collect();
    let constituents: Vec<&str> = constituents.iter().map(String::as_str).collect();
    let composite = format!("__hipmlir_init_{symbol}");
    rw.spec_constant_composite(&composite, ty, &constituents)?;
    Ok((
        "initializer",
        FlatSymbolRefAttribute::new(ctx, &composite).into(),
    ))
}

/// The bytes of a dense i8 elements attribute (a splat repeats its one element).
fn dense_bytes(value: Attribute) -> Result<Vec<u8>, LowerError> {
    let raw = value.to_raw();
    // SAFETY: type queries on a live attribute, then reads of its data as i8 elements.
    unsafe {
        if !mlir_sys::mlirAttributeIsADenseElements(raw) {
            return Err(err("not a dense array of bytes"));
        }
        let element = mlir_sys::mlirShapedTypeGetElementType(mlir_sys::mlirAttributeGetType(raw));
        if !mlir_sys::mlirTypeIsAInteger(element) || mlir_sys::mlirIntegerTypeGetWidth(element) != 8
        {
            return Err(err("not a dense array of bytes"));
        }
        let count = mlir_sys::mlirElementsAttrGetNumElements(raw) as usize;
        let data = mlir_sys::mlirDenseElementsAttrGetRawData(raw) as *const u8;
        Ok(if mlir_sys::mlirDenseElementsAttrIsSplat(raw) {
            vec![*data; count]
        } else {
            std::slice::from_raw_parts(data, count).to_vec()
        })
    }
}
