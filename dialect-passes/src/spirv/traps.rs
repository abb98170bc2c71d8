//! `hipmlir-lower-trap-to-spirv`: `llvm.intr.trap` is removed from device code bound for SPIR-V.
//!
//! OpenCL has no instruction that stops a kernel, so a work-item that traps runs on. The program
//! still stops: the frontend raises the module's abort flag before every trap (its stop
//! function, `__builtin_trap()`), and the runtime ends the program when it sees the flag raised
//! at the kernel's completion, before the host sees the kernel's results. On NVPTX the trap is
//! kept (PTX `trap`).

use hipmlir_ir::rewrite::{apply_patterns, Outcome, Pattern, PatternRewriter, RewritePatternSet};
use melior::ir::{Module, OperationRef};
use melior::Context;

use crate::LowerError;

/// The op the frontend emits for `__builtin_trap()`.
pub const TRAP_OP: &str = "llvm.intr.trap";

pub fn lower_trap_to_spirv(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns.add(Pattern::new(TRAP_OP, erase_trap));
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut ())
}

fn erase_trap<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut (),
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    rw.erase_op(&op);
    Ok(Outcome::Rewrote)
}
