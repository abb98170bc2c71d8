//! The GPU work-item builtins read as values: `threadIdx.x` → `gpu.thread_id x`, `warpSize`.

use clang_sys::*;
use melior::dialect::arith;
use melior::ir::Location;

use super::calls::is_builtin_decl;
use crate::clang::Cursor;
use crate::codegen::builder::{GpuDimension, GpuIndex};
use crate::codegen::function::{FunctionCodegen, Val};
use crate::error::Result;
use crate::types::Ty;

/// The GPU work-item builtins (`threadIdx.x` → `gpu.thread_id x`): the variables hipmlir's
/// header declares, by name.
pub(super) const DIM_BUILTINS: &[(&str, GpuIndex)] = &[
    ("threadIdx", GpuIndex::ThreadId),
    ("blockIdx", GpuIndex::BlockId),
    ("blockDim", GpuIndex::BlockDim),
    ("gridDim", GpuIndex::GridDim),
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
            let sg = self.b.subgroup_size(loc)?;
            let v = self.b.insert_value(arith::index_castui(sg, i32t, loc))?;
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
        let dim = match e.spelling().as_str() {
            "x" => GpuDimension::X,
            "y" => GpuDimension::Y,
            "z" => GpuDimension::Z,
            _ => return Ok(None),
        };
        let idx = self.b.gpu_index(*op, dim, loc)?;
        let v = self.b.insert_value(arith::index_castui(idx, i32t, loc))?;
        Ok(Some(Val::Scalar(v)))
    }
}
