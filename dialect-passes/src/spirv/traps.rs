//! `hipmlir-lower-trap-to-spirv`: `llvm.intr.trap` (the frontend's `__builtin_trap()`) is
//! removed from device code bound for SPIR-V.
//!
//! OpenCL has no instruction that stops a kernel, so a work-item that traps runs on. What HIP
//! programs mean by a trap (a failed `assert`, `abort()`) still stops the program: hipmlir's
//! headers raise the module's abort flag before trapping, and the runtime ends the program when it
//! sees the flag raised at the kernel's completion. On NVPTX the trap is kept (PTX `trap`).

use melior::ir::operation::{OperationLike, WalkOrder, WalkResult};
use melior::ir::Module;
use mlir_sys::{mlirOperationDestroy, mlirOperationRemoveFromParent, MlirOperation};

use crate::LowerError;

/// The op the frontend emits for `__builtin_trap()`.
pub const TRAP_OP: &str = "llvm.intr.trap";

pub fn lower_trap_to_spirv(module: &Module) -> Result<(), LowerError> {
    let mut traps: Vec<MlirOperation> = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok(TRAP_OP) {
            traps.push(op.to_raw());
        }
        WalkResult::Advance
    });
    for raw in traps {
        // SAFETY: a live operation found by the walk, without results or regions; removed and
        // destroyed here only.
        unsafe {
            mlirOperationRemoveFromParent(raw);
            mlirOperationDestroy(raw);
        }
    }
    Ok(())
}
