//! Initial bytes of global variables as SPIR-V constants, the way upstream's printf lowering
//! writes its format strings: one `spirv.SpecConstant` per distinct byte value (shared by the
//! module's variables; never specialized, they carry no SpecId) and a
//! `spirv.SpecConstantComposite` of them, which the `spirv.GlobalVariable` names as its
//! initializer. Zero-filled variables are only marked ([`ZERO_INITIALIZER_ATTRIBUTE`]): MLIR has
//! no null constant a variable can name, and a composite could not hold a large one (an
//! instruction has at most 65535 words), so the serializer's patch gives them `OpConstantNull`.

use hipmlir_device_image::ZERO_INITIALIZER_ATTRIBUTE;
use melior::ir::attribute::{FlatSymbolRefAttribute, IntegerAttribute};
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::r#type::IntegerType;
use melior::ir::{Attribute, BlockRef, Type};

use std::collections::HashSet;

use crate::builder::Rewriter;
use crate::relocations::Word;
use crate::spirv::SPEC_CONSTANT;
use crate::symbols::symbol;
use crate::LowerError;

const BYTE_PREFIX: &str = "__hipmlir_byte_";
const WORD_PREFIX: &str = "__hipmlir_word_";
const ADDRESS_PREFIX: &str = "__hipmlir_address_";
const ADDRESS_TARGET: &str = "_of_";

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
    let i8t: Type = IntegerType::new(ctx, 8).into();
    let values: Vec<i64> = bytes.iter().map(|b| *b as i8 as i64).collect();
    let constituents = shared_constants(rw, BYTE_PREFIX, i8t, &values)?;
    composite(rw, symbol, ty, &constituents)
}

/// The initializer of a relocated global (see `relocations`): an array of 64-bit words, each
/// a shared constant, or an address's placeholder: a constant named
/// `__hipmlir_address_<addend>_of_<target>`, which `patch::resolve_addresses` makes the
/// address after serialization (MLIR's spirv dialect has no constant pointer operations).
/// Placeholders go in front of the variable, so after the variables they name.
pub(crate) fn relocated_initializer<'c>(
    rw: &Rewriter<'c>,
    symbol: &str,
    ty: Type<'c>,
    words: &[Word],
) -> Result<(&'static str, Attribute<'c>), LowerError> {
    let ctx = rw.ctx;
    let i64t: Type = IntegerType::new(ctx, 64).into();
    let bits: Vec<i64> = words
        .iter()
        .filter_map(|w| match w {
            Word::Bits(b) => Some(*b as i64),
            Word::Address { .. } => None,
        })
        .collect();
    let mut bits = shared_constants(rw, WORD_PREFIX, i64t, &bits)?.into_iter();
    let mut constituents = Vec::with_capacity(words.len());
    for word in words {
        constituents.push(match word {
            Word::Bits(_) => bits
                .next()
                .ok_or_else(|| err("a word without its constant"))?,
            Word::Address { target, addend } => {
                let name = address_placeholder(target, *addend);
                if !defined_before(rw, &name) {
                    rw.spec_constant(&name, IntegerAttribute::new(i64t, *addend).into())?;
                }
                name
            }
        });
    }
    composite(rw, symbol, ty, &constituents)
}

/// The name of the placeholder of address `target` + `addend`.
fn address_placeholder(target: &str, addend: i64) -> String {
    format!("{ADDRESS_PREFIX}{addend}{ADDRESS_TARGET}{target}")
}

/// The address a placeholder's name stands for: (target, addend).
pub(crate) fn placeholder_address(name: &str) -> Option<(&str, i64)> {
    let (addend, target) = name
        .strip_prefix(ADDRESS_PREFIX)?
        .split_once(ADDRESS_TARGET)?;
    Some((target, addend.parse().ok()?))
}

/// `spirv.SpecConstantComposite @__hipmlir_init_<symbol>` of the constants named
/// `constituents`, in front of the variable; the attribute naming it as initializer.
fn composite<'c>(
    rw: &Rewriter<'c>,
    symbol: &str,
    ty: Type<'c>,
    constituents: &[String],
) -> Result<(&'static str, Attribute<'c>), LowerError> {
    let constituents: Vec<&str> = constituents.iter().map(String::as_str).collect();
    let composite = format!("__hipmlir_init_{symbol}");
    rw.spec_constant_composite(&composite, ty, &constituents)?;
    Ok((
        "initializer",
        FlatSymbolRefAttribute::new(rw.ctx, &composite).into(),
    ))
}

/// The names of constants of type `ty` holding `values`, one per distinct value, shared by
/// the module's variables: `<prefix><value>` at the start of the block, defined once.
fn shared_constants<'c>(
    rw: &Rewriter<'c>,
    prefix: &str,
    ty: Type<'c>,
    values: &[i64],
) -> Result<Vec<String>, LowerError> {
    // SAFETY: the rewriter's block is live.
    let block = unsafe { BlockRef::from_raw(rw.block()) };
    // Named by the unsigned value of their width.
    let width = IntegerType::try_from(ty).map(|t| t.width()).unwrap_or(64);
    let unsigned = |v: i64| (v as u64) & (u64::MAX >> (64 - width));
    let mut defined: HashSet<u64> = HashSet::new();
    // Shared constants sit at the start of the block, so the walk stops at the first other op.
    let mut next = block.first_operation();
    while let Some(op) = next {
        if op.name().as_string_ref().as_str() != Ok(SPEC_CONSTANT) {
            break;
        }
        if let Some(v) =
            symbol(&op, "sym_name").and_then(|s| s.strip_prefix(prefix)?.parse::<u64>().ok())
        {
            defined.insert(v);
        }
        next = op.next_in_block();
    }
    let name = |v: i64| format!("{prefix}{}", unsigned(v));
    for &v in values {
        if defined.insert(unsigned(v)) {
            let value = IntegerAttribute::new(ty, v).into();
            Rewriter::at_start(rw.ctx, rw.block(), rw.loc).spec_constant(&name(v), value)?;
        }
    }
    Ok(values.iter().map(|v| name(*v)).collect())
}

/// Whether a constant named `name` is in the rewriter's block ahead of its insertion point.
fn defined_before(rw: &Rewriter, name: &str) -> bool {
    // SAFETY: the rewriter's block is live.
    let block = unsafe { BlockRef::from_raw(rw.block()) };
    let mut next = block.first_operation();
    while let Some(op) = next {
        if op.name().as_string_ref().as_str() == Ok(SPEC_CONSTANT)
            && symbol(&op, "sym_name").as_deref() == Some(name)
        {
            return true;
        }
        next = op.next_in_block();
    }
    false
}

/// The bytes of a dense i8 elements attribute.
pub(crate) fn dense_bytes(value: Attribute) -> Result<Vec<u8>, LowerError> {
    hipmlir_ir::dense_bytes(value).ok_or_else(|| err("not a dense array of bytes"))
}
