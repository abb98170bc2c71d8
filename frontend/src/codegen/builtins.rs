//! HIP's device builtins declared by hipmlir's headers: synchronization and atomics.
//!
//! They are emitted with target-neutral ops (gpu.barrier, the LLVM dialect's fence, atomicrmw
//! and cmpxchg); dialect-passes lowers those to SPIR-V.

use melior::ir::attribute::{IntegerAttribute, StringAttribute};
use melior::ir::r#type::IntegerType;
use melior::ir::{Attribute, Location};

use super::function::{FunctionCodegen, Val};
use crate::clang::Cursor;
use crate::error::{FrontendError, Result};
use crate::types::Ty;

/// LLVM's `AtomicBinOp` numbering, as `llvm.atomicrmw` stores it.
#[derive(Clone, Copy)]
enum RmwOp {
    Xchg = 0,
    Add = 1,
    Sub = 2,
    And = 3,
    Or = 5,
    Xor = 6,
    Max = 7,
    Min = 8,
    UMax = 9,
    UMin = 10,
    FAdd = 11,
    FSub = 12,
    FMax = 13,
    FMin = 14,
    UIncWrap = 15,
    UDecWrap = 16,
}

/// LLVM's `AtomicOrdering` values used here.
const MONOTONIC: i64 = 2;
const SEQ_CST: i64 = 7;

/// Read-modify-write atomics: HIP name → (signed int, unsigned int, float) operation.
const ATOMIC_RMW: &[(&str, RmwOp, RmwOp, Option<RmwOp>)] = &[
    ("atomicAdd", RmwOp::Add, RmwOp::Add, Some(RmwOp::FAdd)),
    ("atomicSub", RmwOp::Sub, RmwOp::Sub, Some(RmwOp::FSub)),
    ("atomicExch", RmwOp::Xchg, RmwOp::Xchg, Some(RmwOp::Xchg)),
    ("atomicMin", RmwOp::Min, RmwOp::UMin, Some(RmwOp::FMin)),
    ("atomicMax", RmwOp::Max, RmwOp::UMax, Some(RmwOp::FMax)),
    ("atomicAnd", RmwOp::And, RmwOp::And, None),
    ("atomicOr", RmwOp::Or, RmwOp::Or, None),
    ("atomicXor", RmwOp::Xor, RmwOp::Xor, None),
    ("atomicInc", RmwOp::UIncWrap, RmwOp::UIncWrap, None),
    ("atomicDec", RmwOp::UDecWrap, RmwOp::UDecWrap, None),
];

/// Memory fences: HIP name → LLVM sync scope ("" is the whole system).
const FENCES: &[(&str, &str)] = &[
    ("__threadfence", "agent"),
    ("__threadfence_block", "workgroup"),
    ("__threadfence_system", ""),
];

/// The sync scope of an atomic from its name's suffix.
fn scope_of(name: &str) -> (&str, &'static str) {
    if let Some(base) = name.strip_suffix("_block") {
        (base, "workgroup")
    } else if let Some(base) = name.strip_suffix("_system") {
        (base, "")
    } else {
        (name, "agent")
    }
}

impl<'c> FunctionCodegen<'c, '_> {
    /// Emits a call to a builtin declared in hipmlir's device header; None if `name` is not one.
    pub fn builtin_call(
        &mut self,
        name: &str,
        e: &Cursor,
        args: &[Cursor],
    ) -> Result<Option<Val<'c>>> {
        let loc = self.loc(e);
        if name == "__syncthreads" {
            self.b.op("gpu.barrier", &[], &[], &[], vec![], loc)?;
            return Ok(Some(Val::Void));
        }
        if let Some((_, scope)) = FENCES.iter().find(|(n, _)| *n == name) {
            let attrs = self.sync_attrs(SEQ_CST, scope);
            self.b.op("llvm.fence", &[], &[], &attrs, vec![], loc)?;
            return Ok(Some(Val::Void));
        }
        let (base, scope) = scope_of(name);
        if base == "atomicCAS" {
            return self.atomic_cas(e, args, scope, loc).map(Some);
        }
        let Some((_, signed, unsigned, float)) = ATOMIC_RMW.iter().find(|(n, ..)| *n == base)
        else {
            return Ok(None);
        };
        let [address, value] = args else {
            return Err(FrontendError::unsupported(
                e.location(),
                format!("{name} arguments"),
            ));
        };
        let ty = Ty::of(e)?;
        let op = match &ty {
            Ty::Float { .. } => float.ok_or_else(|| {
                FrontendError::unsupported(e.location(), format!("{name} on a floating type"))
            })?,
            Ty::Int { signed: true, .. } => *signed,
            _ => *unsigned,
        };
        let ptr = self.rvalue(address)?.scalar();
        let v = self.rvalue_as(value, &ty)?.scalar();
        let mut attrs = self.sync_attrs(MONOTONIC, scope);
        attrs.push(("bin_op", self.i64_attr(op as i64)));
        let old = self.b.value(
            "llvm.atomicrmw",
            &[ptr, v],
            ty.value_mlir(self.ctx()),
            &attrs,
            loc,
        )?;
        Ok(Some(Val::Scalar(old)))
    }

    /// `atomicCAS(p, compare, value)`: returns the old value.
    fn atomic_cas(
        &mut self,
        e: &Cursor,
        args: &[Cursor],
        scope: &str,
        loc: Location<'c>,
    ) -> Result<Val<'c>> {
        let [address, compare, value] = args else {
            return Err(FrontendError::unsupported(
                e.location(),
                "atomicCAS arguments",
            ));
        };
        let ty = Ty::of(e)?;
        let ptr = self.rvalue(address)?.scalar();
        let cmp = self.rvalue_as(compare, &ty)?.scalar();
        let new = self.rvalue_as(value, &ty)?.scalar();
        let ctx = self.ctx();
        let pair = melior::dialect::llvm::r#type::r#struct(
            ctx,
            &[ty.value_mlir(ctx), IntegerType::new(ctx, 1).into()],
            false,
        );
        let mut attrs = self.sync_attrs(MONOTONIC, scope);
        attrs.push(("failure_ordering", self.i64_attr(MONOTONIC)));
        attrs.retain(|(n, _)| *n != "ordering");
        attrs.push(("success_ordering", self.i64_attr(MONOTONIC)));
        let result = self
            .b
            .value("llvm.cmpxchg", &[ptr, cmp, new], pair, &attrs, loc)?;
        let position = melior::ir::attribute::DenseI64ArrayAttribute::new(ctx, &[0]).into();
        let old = self.b.value(
            "llvm.extractvalue",
            &[result],
            ty.value_mlir(ctx),
            &[("position", position)],
            loc,
        )?;
        Ok(Val::Scalar(old))
    }

    fn sync_attrs(&self, ordering: i64, scope: &str) -> Vec<(&'static str, Attribute<'c>)> {
        let mut attrs = vec![("ordering", self.i64_attr(ordering))];
        if !scope.is_empty() {
            attrs.push(("syncscope", StringAttribute::new(self.ctx(), scope).into()));
        }
        attrs
    }

    fn i64_attr(&self, v: i64) -> Attribute<'c> {
        IntegerAttribute::new(IntegerType::new(self.ctx(), 64).into(), v).into()
    }
}
