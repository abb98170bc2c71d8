//! `hipmlir-nvptx-parameter-attributes`: on the LLVM kernels, `hipmlir.byval = {"<index>" =
//! <struct type>}` → the parameter's `llvm.byval` attribute (NVPTX's `.param` copy),
//! `hipmlir.noalias = array<i64: index, ...>` → `llvm.noalias`. It runs after
//! `convert-gpu-to-nvvm`, which drops parameter attributes.

use hipmlir_device_image::{BYVAL_ATTRIBUTE, NOALIAS_ATTRIBUTE};
use hipmlir_ir::rewrite::{apply_patterns, Outcome, Pattern, PatternRewriter, RewritePatternSet};
use melior::ir::attribute::{ArrayAttribute, DenseI64ArrayAttribute, DictionaryAttribute};
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, OperationMutLike, OperationRef, OperationRefMut};
use melior::ir::{Attribute, Identifier, Module, RegionLike};
use melior::Context;

use crate::nvptx::err;
use crate::LowerError;

pub fn nvptx_parameter_attributes(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns.add(Pattern::new("llvm.func", parameter_attributes));
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut ())
}

fn parameter_attributes<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut (),
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    if !op.has_attribute(BYVAL_ATTRIBUTE) && !op.has_attribute(NOALIAS_ATTRIBUTE) {
        return Ok(Outcome::NoMatch);
    }
    let ctx = rw.ctx;
    // SAFETY: the live function; only its attributes change.
    let mut func = unsafe { OperationRefMut::from_raw(op.to_raw()) };
    let byval = func
        .attribute(BYVAL_ATTRIBUTE)
        .ok()
        .map(DictionaryAttribute::try_from)
        .transpose()
        .map_err(err)?;
    let noalias: Vec<i64> = match func.attribute(NOALIAS_ATTRIBUTE) {
        Ok(a) => {
            let indices = DenseI64ArrayAttribute::try_from(a).map_err(err)?;
            (0..indices.len())
                .map(|i| indices.element(i).map_err(err))
                .collect::<Result<_, _>>()?
        }
        Err(_) => Vec::new(),
    };
    let count = func
        .region(0)
        .map_err(err)?
        .first_block()
        .map(|b| b.argument_count())
        .unwrap_or(0);
    // The parameters' attributes so far.
    let existing: Vec<Option<DictionaryAttribute>> = func
        .attribute("arg_attrs")
        .ok()
        .and_then(crate::symbols::array_elements)
        .unwrap_or_default()
        .into_iter()
        .map(|a| DictionaryAttribute::try_from(a).ok())
        .collect();
    let mut attrs: Vec<Attribute> = Vec::with_capacity(count);
    for i in 0..count {
        let mut entries: Vec<(Identifier, Attribute)> = Vec::new();
        if let Some(Some(dict)) = existing.get(i) {
            for j in 0..dict.len() {
                entries.push(dict.element(j).map_err(err)?);
            }
        }
        if let Some(ty) = byval.and_then(|b| b.element_by_name(&i.to_string())) {
            entries.push((Identifier::new(ctx, "llvm.byval"), ty));
        }
        let named_noalias = entries
            .iter()
            .any(|(name, _)| name.as_string_ref().as_str() == Ok("llvm.noalias"));
        if noalias.contains(&(i as i64)) && !named_noalias {
            entries.push((Identifier::new(ctx, "llvm.noalias"), Attribute::unit(ctx)));
        }
        attrs.push(DictionaryAttribute::new(ctx, &entries).into());
    }
    func.set_attribute("arg_attrs", ArrayAttribute::new(ctx, &attrs).into());
    Ok(Outcome::Rewrote)
}
