//! `hipmlir-add-missing-capabilities`: what spirv-update-vce does not derive, added when the
//! module needs it: 64-bit atomics need the `Int64Atomics` capability, exported variables (see
//! `device_link::host_visible`) the `Linkage` capability, `NoSignedWrap` decorations their
//! extension, device clock reads `ShaderClockKHR`.

use hipmlir_ir::rewrite::{apply_patterns, Outcome, Pattern, PatternRewriter, RewritePatternSet};
use melior::ir::operation::{OperationLike, OperationMutLike, OperationRefMut};
use melior::ir::r#type::IntegerType;
use melior::ir::{Module, OperationRef, Type, ValueLike};
use melior::Context;

use crate::spirv::clocks::{CAPABILITY_SHADER_CLOCK, READ_CLOCK_IMPORT, SHADER_CLOCK_EXTENSION};
use crate::spirv::ir::{vce_with, CAPABILITY_INT64_ATOMICS, CAPABILITY_LINKAGE};
use crate::symbols::symbol;
use crate::LowerError;

const NO_WRAP_EXTENSION: &str = "SPV_KHR_no_integer_wrap_decoration";

/// What the module's operations need.
#[derive(Default)]
struct Needs {
    int64_atomics: bool,
    linkage: bool,
    no_wrap: bool,
    clock: bool,
}

pub fn add_missing_capabilities(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns
        .add(Pattern::any(note_needs))
        .next_stage()
        .add(Pattern::new("spirv.module", add_to_module));
    apply_patterns(
        ctx,
        &module.as_operation(),
        &patterns,
        &mut Needs::default(),
    )
}

/// Every operation says what it needs; none is changed.
fn note_needs<'c>(
    rw: &mut PatternRewriter<'c>,
    needs: &mut Needs,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    // Every operation of the module passes here: what is already known needed is not looked
    // up again (attribute lookups by name and type uniquing cost a hash each).
    let name = op.name();
    let name = name.as_string_ref().as_str().unwrap_or("");
    if name.starts_with("spirv.Atomic") {
        let i64_type: Type = IntegerType::new(rw.ctx, 64).into();
        needs.int64_atomics |= op.results().any(|r| r.r#type() == i64_type);
    } else if name == "spirv.FunctionCall"
        && symbol(&op, "callee").as_deref() == Some(READ_CLOCK_IMPORT)
    {
        needs.clock = true;
    }
    if !needs.no_wrap {
        needs.no_wrap = op.has_attribute("no_signed_wrap") || op.has_attribute("no_unsigned_wrap");
    }
    // Imports are placeholders that patches after serialization replace.
    needs.linkage |= name == "spirv.GlobalVariable" && op.has_attribute("linkage_attributes");
    Ok(Outcome::NoMatch)
}

/// A spirv.module's `vce_triple` gains what the module needs.
fn add_to_module<'c>(
    _: &mut PatternRewriter<'c>,
    needs: &mut Needs,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    // (capability, extension) pairs beyond what spirv-update-vce derived.
    let additions = [
        (needs.int64_atomics, Some(CAPABILITY_INT64_ATOMICS), None),
        (needs.linkage, Some(CAPABILITY_LINKAGE), None),
        (needs.no_wrap, None, Some(NO_WRAP_EXTENSION)),
        (
            needs.clock,
            Some(CAPABILITY_SHADER_CLOCK),
            Some(SHADER_CLOCK_EXTENSION),
        ),
    ];
    // SAFETY: the live spirv.module; setting an attribute keeps it alive.
    let mut module = unsafe { OperationRefMut::from_raw(op.to_raw()) };
    for (needed, capability, extension) in additions {
        if !needed {
            continue;
        }
        let vce = module
            .attribute("vce_triple")
            .map_err(|e| LowerError::internal(op.location(), e))?;
        let attr = vce_with(vce, capability, extension)
            .ok_or_else(|| LowerError::internal(op.location(), format!("bad vce triple {vce}")))?;
        module.set_attribute("vce_triple", attr);
    }
    Ok(Outcome::Rewrote)
}
