//! The GPU work-item builtins read as values: `threadIdx.x` → `gpu.thread_id x`, `warpSize`.

use clang_sys::*;
use melior::ir::Location;

use super::calls::is_builtin_decl;
use crate::clang::Cursor;
use crate::codegen::function::{FunctionCodegen, Val};
use crate::error::Result;
use crate::types::Ty;

/// The GPU work-item builtins (`threadIdx.x` → `gpu.thread_id x`).
pub(super) const DIM_BUILTINS: &[(&str, &str)] = &[
    ("threadIdx", "gpu.thread_id"),
    ("blockIdx", "gpu.block_id"),
    ("blockDim", "gpu.block_dim"),
    ("gridDim", "gpu.grid_dim"),
];

impl<'c> FunctionCodegen<'c, '_> {
    /// `threadIdx.x` and friends, `warpSize`; None if `e` is not a builtin.
    pub(super) fn builtin_value(
        &mut self,
        e: &Cursor,
        loc: Location<'c>,
    ) -> Result<Option<Val<'c>>> {
        let i32t = Ty::UINT.value_mlir(self.ctx());
        if e.kind() == CXCursor_DeclRefExpr && e.spelling() == "warpSize" && is_builtin_decl(e) {
            let sg = self.b.value(
                "gpu.subgroup_size",
                &[],
                melior::ir::Type::index(self.ctx()),
                &[],
                loc,
            )?;
            let v = self.b.value("arith.index_castui", &[sg], i32t, &[], loc)?;
            return Ok(Some(Val::Scalar(v)));
        }
        if e.kind() != CXCursor_MemberRefExpr {
            return Ok(None);
        }
        let Some(base) = e.children().first().copied() else {
            return Ok(None);
        };
        let base = base.without_implicit();
        if base.kind() != CXCursor_DeclRefExpr || !is_builtin_decl(&base) {
            return Ok(None);
        }
        let Some((_, op)) = DIM_BUILTINS.iter().find(|(n, _)| *n == base.spelling()) else {
            return Ok(None);
        };
        let dim = e.spelling();
        if !matches!(dim.as_str(), "x" | "y" | "z") {
            return Ok(None);
        }
        let attr = self.b.attr(&format!("#gpu<dim {dim}>"), loc)?;
        let idx = self.b.value(
            op,
            &[],
            melior::ir::Type::index(self.ctx()),
            &[("dimension", attr)],
            loc,
        )?;
        let v = self.b.value("arith.index_castui", &[idx], i32t, &[], loc)?;
        Ok(Some(Val::Scalar(v)))
    }
}
