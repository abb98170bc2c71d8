//! `hipmlir-mark-entry-points`: kernels become SPIR-V entry points (`spirv.entry_point_abi`),
//! which upstream lowering requires. A kernel that uses warp operations also requires 32-wide
//! subgroups, the warpSize hipmlir reports (it needs SubgroupDispatch, so only such kernels ask
//! for it).

use hipmlir_ir::rewrite::{apply_patterns, Outcome, Pattern, PatternRewriter, RewritePatternSet};
use melior::ir::operation::{OperationLike, OperationMutLike, OperationRefMut};
use melior::ir::{Module, OperationRef};
use melior::Context;

use crate::spirv::ir::entry_point_abi;
use crate::spirv::uses_warp_operations;
use crate::LowerError;

pub fn mark_entry_points(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns.add(Pattern::new("gpu.func", mark_kernel));
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut ())
}

fn mark_kernel<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut (),
    func: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    if !func.has_attribute("gpu.kernel") {
        return Ok(Outcome::NoMatch);
    }
    let subgroup_size = uses_warp_operations(&func).then_some(32);
    // SAFETY: the live kernel; setting an attribute keeps it alive.
    let mut kernel = unsafe { OperationRefMut::from_raw(func.to_raw()) };
    kernel.set_attribute(
        "spirv.entry_point_abi",
        entry_point_abi(rw.ctx, subgroup_size),
    );
    Ok(Outcome::Rewrote)
}
