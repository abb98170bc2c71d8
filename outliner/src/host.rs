//! `hipmlir-drop-host-functions`: the functions standing for host code (the launch sites the
//! frontend marks `hipmlir.host`) are removed once the kernels are outlined: only the
//! gpu.module becomes device code.

use hipmlir_device_image::HOST_ATTRIBUTE;
use hipmlir_ir::rewrite::{apply_patterns, Outcome, Pattern, PatternRewriter, RewritePatternSet};
use melior::ir::operation::OperationLike;
use melior::ir::{Module, OperationRef};
use melior::Context;

use crate::OutlineError;

pub fn drop_host_functions(ctx: &Context, module: &Module) -> Result<(), OutlineError> {
    let mut patterns = RewritePatternSet::new();
    patterns.add(Pattern::new("func.func", drop_host_function));
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut ())
}

fn drop_host_function<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut (),
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, OutlineError> {
    if !op.has_attribute(HOST_ATTRIBUTE) {
        return Ok(Outcome::NoMatch);
    }
    rw.erase_op(&op);
    Ok(Outcome::Rewrote)
}
