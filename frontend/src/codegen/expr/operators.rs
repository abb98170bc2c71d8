//! Unary, binary, compound-assignment and conditional operators.

use clang_sys::*;
use melior::ir::{Attribute, Location, Type, ValueLike};

use super::conversions::{promote, usual_arithmetic};
use super::lvalues::lvalue_ty;
use super::{only_child, GepIndex, LValue};
use crate::clang::Cursor;
use crate::codegen::analysis::assigned_vars;
use crate::codegen::builder::{internal, Value};
use crate::codegen::function::{FunctionCodegen, Val};
use crate::error::{FrontendError, Result};
use crate::types::{is_function_type, Ty};

/// Integer and float ops of the binary operators, by kind: (integer signed, integer unsigned, float).
pub(super) fn arith_op(
    kind: CXBinaryOperatorKind,
) -> Option<(&'static str, &'static str, &'static str)> {
    Some(match kind {
        CXBinaryOperator_Add | CXBinaryOperator_AddAssign => {
            ("arith.addi", "arith.addi", "arith.addf")
        }
        CXBinaryOperator_Sub | CXBinaryOperator_SubAssign => {
            ("arith.subi", "arith.subi", "arith.subf")
        }
        CXBinaryOperator_Mul | CXBinaryOperator_MulAssign => {
            ("arith.muli", "arith.muli", "arith.mulf")
        }
        CXBinaryOperator_Div | CXBinaryOperator_DivAssign => {
            ("arith.divsi", "arith.divui", "arith.divf")
        }
        CXBinaryOperator_Rem | CXBinaryOperator_RemAssign => {
            ("arith.remsi", "arith.remui", "arith.remf")
        }
        CXBinaryOperator_And | CXBinaryOperator_AndAssign => ("arith.andi", "arith.andi", ""),
        CXBinaryOperator_Or | CXBinaryOperator_OrAssign => ("arith.ori", "arith.ori", ""),
        CXBinaryOperator_Xor | CXBinaryOperator_XorAssign => ("arith.xori", "arith.xori", ""),
        CXBinaryOperator_Shl | CXBinaryOperator_ShlAssign => ("arith.shli", "arith.shli", ""),
        CXBinaryOperator_Shr | CXBinaryOperator_ShrAssign => ("arith.shrsi", "arith.shrui", ""),
        _ => return None,
    })
}

/// Comparison predicates: (arith.cmpi signed, arith.cmpi unsigned, arith.cmpf), as the
/// predicates' enum values. Float `!=` is unordered (true for NaN), the rest ordered, as in C.
pub(super) fn compare_predicates(kind: CXBinaryOperatorKind) -> Option<(i64, i64, i64)> {
    Some(match kind {
        CXBinaryOperator_EQ => (0, 0, 1),  // eq, eq, oeq
        CXBinaryOperator_NE => (1, 1, 13), // ne, ne, une
        CXBinaryOperator_LT => (2, 6, 4),  // slt, ult, olt
        CXBinaryOperator_LE => (3, 7, 5),  // sle, ule, ole
        CXBinaryOperator_GT => (4, 8, 2),  // sgt, ugt, ogt
        CXBinaryOperator_GE => (5, 9, 3),  // sge, uge, oge
        _ => return None,
    })
}

impl<'c> FunctionCodegen<'c, '_> {
    pub(in crate::codegen) fn cmpi(
        &self,
        pred: i64,
        a: Value<'c>,
        b: Value<'c>,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        let i1 = Ty::Bool.value_mlir(self.ctx());
        let attr = self.pred_attr(pred);
        self.b
            .value("arith.cmpi", &[a, b], i1, &[("predicate", attr)], loc)
    }

    pub(super) fn pred_attr(&self, pred: i64) -> melior::ir::Attribute<'c> {
        melior::ir::attribute::IntegerAttribute::new(
            melior::ir::r#type::IntegerType::new(self.ctx(), 64).into(),
            pred,
        )
        .into()
    }

    pub(super) fn binary(&mut self, e: &Cursor) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let children = e.children();
        let [lhs, rhs] = children.as_slice() else {
            return Err(FrontendError::unsupported(e.location(), "binary operator"));
        };
        let kind = e.binary_operator();
        match kind {
            CXBinaryOperator_Assign => {
                let lv = self.lvalue(lhs)?;
                let ty = lvalue_ty(&lv);
                let v = self.rvalue_as(rhs, &ty)?;
                self.store(&lv, v, loc)?;
                Ok(v)
            }
            CXBinaryOperator_Comma => {
                self.rvalue(lhs)?;
                self.rvalue(rhs)
            }
            CXBinaryOperator_LAnd | CXBinaryOperator_LOr => self.logical(e, lhs, rhs, kind),
            _ => {
                let (lt, rt) = (Ty::of(lhs)?, Ty::of(rhs)?);
                // Pointer arithmetic and comparison.
                if lt.is_pointer() || rt.is_pointer() {
                    return self.pointer_binary(e, lhs, rhs, kind);
                }
                let a = self.rvalue(lhs)?;
                let b = self.rvalue(rhs)?;
                if let Some(preds) = compare_predicates(kind) {
                    return self.compare(preds, a.scalar(), b.scalar(), &lt, loc);
                }
                let result_ty = Ty::of(e)?;
                // Shifts keep the left operand's type; the count may have another.
                let b = if matches!(kind, CXBinaryOperator_Shl | CXBinaryOperator_Shr) {
                    self.convert(b, &rt, &lt, rhs)?
                } else {
                    b
                };
                let v = self.arith(kind, a.scalar(), b.scalar(), &lt, e)?;
                self.convert(Val::Scalar(v), &lt, &result_ty, e)
            }
        }
    }

    pub(super) fn compare(
        &mut self,
        (signed, unsigned, float): (i64, i64, i64),
        a: Value<'c>,
        b: Value<'c>,
        operand_ty: &Ty,
        loc: Location<'c>,
    ) -> Result<Val<'c>> {
        let v = if operand_ty.is_float() {
            let i1 = Ty::Bool.value_mlir(self.ctx());
            let attr = self.pred_attr(float);
            self.b
                .value("arith.cmpf", &[a, b], i1, &[("predicate", attr)], loc)?
        } else {
            self.cmpi(
                if operand_ty.is_signed() {
                    signed
                } else {
                    unsigned
                },
                a,
                b,
                loc,
            )?
        };
        Ok(Val::Scalar(v))
    }

    pub(super) fn arith(
        &mut self,
        kind: CXBinaryOperatorKind,
        a: Value<'c>,
        b: Value<'c>,
        ty: &Ty,
        e: &Cursor,
    ) -> Result<Value<'c>> {
        let loc = self.loc(e);
        let (s, u, f) = arith_op(kind).ok_or_else(|| {
            FrontendError::unsupported(
                e.location(),
                format!("operator '{}'", e.binary_operator_spelling()),
            )
        })?;
        let op = match ty {
            Ty::Float { .. } => f,
            Ty::Int { signed: true, .. } => s,
            _ => u,
        };
        if op.is_empty() {
            return Err(FrontendError::unsupported(
                e.location(),
                "operator on a float",
            ));
        }
        // Signed overflow is undefined in C: say so, as clang does (`nsw`), so that the device
        // compiler may fold index arithmetic.
        if matches!(ty, Ty::Int { signed: true, .. })
            && matches!(op, "arith.addi" | "arith.subi" | "arith.muli")
        {
            if let Some(nsw) = Attribute::parse(self.ctx(), "#arith.overflow<nsw>") {
                return self
                    .b
                    .value(op, &[a, b], a.r#type(), &[("overflowFlags", nsw)], loc);
            }
        }
        self.b.value(op, &[a, b], a.r#type(), &[], loc)
    }

    pub(super) fn pointer_binary(
        &mut self,
        e: &Cursor,
        lhs: &Cursor,
        rhs: &Cursor,
        kind: CXBinaryOperatorKind,
    ) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let (lt, rt) = (Ty::of(lhs)?, Ty::of(rhs)?);
        match kind {
            CXBinaryOperator_Add | CXBinaryOperator_Sub if !rt.is_pointer() => {
                let p = self.rvalue(lhs)?.scalar();
                let negate = kind == CXBinaryOperator_Sub;
                Ok(Val::Scalar(self.offset_pointer(p, &lt, rhs, negate)?))
            }
            CXBinaryOperator_Add => {
                let p = self.rvalue(rhs)?.scalar();
                Ok(Val::Scalar(self.offset_pointer(p, &rt, lhs, false)?))
            }
            _ if lt.is_pointer() && rt.is_pointer() => {
                // Compare or subtract addresses.
                let a = self.rvalue(lhs)?.scalar();
                let b = self.rvalue(rhs)?.scalar();
                let (a, b) = (self.ptr_to_int(a, loc)?, self.ptr_to_int(b, loc)?);
                if let Some(preds) = compare_predicates(kind) {
                    let unsigned = Ty::Int {
                        bits: 64,
                        signed: false,
                    };
                    return self.compare(preds, a, b, &unsigned, loc);
                }
                if kind == CXBinaryOperator_Sub {
                    let bytes = self.b.value("arith.subi", &[a, b], a.r#type(), &[], loc)?;
                    let size = lt.pointee().map(Ty::size).unwrap_or(1).max(1);
                    let size = self.b.const_int(a.r#type(), size as i64, loc)?;
                    let d = self
                        .b
                        .value("arith.divsi", &[bytes, size], a.r#type(), &[], loc)?;
                    return self.convert(Val::Scalar(d), &Ty::LONG, &Ty::of(e)?, e);
                }
                Err(FrontendError::unsupported(e.location(), "pointer operator"))
            }
            _ => Err(FrontendError::unsupported(
                e.location(),
                format!("operator '{}' on a pointer", e.binary_operator_spelling()),
            )),
        }
    }

    /// `a && b`, `a || b` with C's short circuit: `b` runs inside an scf.if.
    pub(super) fn logical(
        &mut self,
        e: &Cursor,
        lhs: &Cursor,
        rhs: &Cursor,
        kind: CXBinaryOperatorKind,
    ) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let a = self.condition(lhs)?;
        let i1 = Ty::Bool.value_mlir(self.ctx());
        let carried = assigned_vars(rhs, self.targets());
        let is_and = kind == CXBinaryOperator_LAnd;
        let rhs_branch = |this: &mut Self| Ok(vec![this.condition(rhs)?]);
        let short = move |this: &mut Self| Ok(vec![this.b.const_bool(!is_and, loc)?]);
        let out = if is_and {
            self.emit_if(a, &carried, &[i1], rhs_branch, short, loc)?
        } else {
            self.emit_if(a, &carried, &[i1], short, rhs_branch, loc)?
        };
        let result = Ty::of(e)?;
        self.convert(Val::Scalar(out[0]), &Ty::Bool, &result, e)
    }

    pub(super) fn compound_assign(&mut self, e: &Cursor) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let children = e.children();
        let [lhs, rhs] = children.as_slice() else {
            return Err(FrontendError::unsupported(
                e.location(),
                "compound assignment",
            ));
        };
        let kind = e.binary_operator();
        let lv = self.lvalue(lhs)?;
        let lt = lvalue_ty(&lv);
        let old = self.load(&lv, loc)?;
        let new = if lt.is_pointer() {
            let negate = kind == CXBinaryOperator_SubAssign;
            if !matches!(
                kind,
                CXBinaryOperator_AddAssign | CXBinaryOperator_SubAssign
            ) {
                return Err(FrontendError::unsupported(
                    e.location(),
                    "pointer compound assignment",
                ));
            }
            Val::Scalar(self.offset_pointer(old.scalar(), &lt, rhs, negate)?)
        } else {
            // C computes in the common type of both operands, then converts back.
            let rt = Ty::of(rhs)?;
            let shift = matches!(
                kind,
                CXBinaryOperator_ShlAssign | CXBinaryOperator_ShrAssign
            );
            let common = if shift {
                promote(&lt)
            } else {
                usual_arithmetic(&promote(&lt), &promote(&rt))
            };
            let a = self.convert(old, &lt, &common, lhs)?;
            let b = self.rvalue_as(rhs, &common)?;
            let r = self.arith(kind, a.scalar(), b.scalar(), &common, e)?;
            self.convert(Val::Scalar(r), &common, &lt, e)?
        };
        self.store(&lv, new, loc)?;
        Ok(new)
    }

    pub(super) fn unary(&mut self, e: &Cursor) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let operand = only_child(e)?;
        let kind = e.unary_operator();
        match kind {
            CXUnaryOperator_PostInc
            | CXUnaryOperator_PostDec
            | CXUnaryOperator_PreInc
            | CXUnaryOperator_PreDec => {
                let lv = self.lvalue(&operand)?;
                let ty = lvalue_ty(&lv);
                let old = self.load(&lv, loc)?;
                let inc = matches!(kind, CXUnaryOperator_PostInc | CXUnaryOperator_PreInc);
                let new = self.step(old, &ty, inc, &operand)?;
                self.store(&lv, new, loc)?;
                let post = matches!(kind, CXUnaryOperator_PostInc | CXUnaryOperator_PostDec);
                Ok(if post { old } else { new })
            }
            CXUnaryOperator_Plus => self.rvalue(&operand),
            CXUnaryOperator_Minus => {
                let ty = Ty::of(e)?;
                let v = self.rvalue_as(&operand, &ty)?.scalar();
                let out = if ty.is_float() {
                    self.b.value("arith.negf", &[v], v.r#type(), &[], loc)?
                } else {
                    let zero = self.b.const_int(v.r#type(), 0, loc)?;
                    self.b
                        .value("arith.subi", &[zero, v], v.r#type(), &[], loc)?
                };
                Ok(Val::Scalar(out))
            }
            CXUnaryOperator_Not => {
                let ty = Ty::of(e)?;
                let v = self.rvalue_as(&operand, &ty)?.scalar();
                let ones = self.b.const_int(v.r#type(), -1, loc)?;
                Ok(Val::Scalar(self.b.value(
                    "arith.xori",
                    &[v, ones],
                    v.r#type(),
                    &[],
                    loc,
                )?))
            }
            CXUnaryOperator_LNot => {
                let c = self.condition(&operand)?;
                let n = self.not(c, loc)?;
                let ty = Ty::of(e)?;
                self.convert(Val::Scalar(n), &Ty::Bool, &ty, e)
            }
            // `*fp` and `&f` are the same function pointer value.
            CXUnaryOperator_Deref | CXUnaryOperator_AddrOf
                if is_function_type(e.ty()) || is_function_type(operand.ty()) =>
            {
                let ty = Ty::of(e)?;
                self.rvalue_as(&operand, &ty)
            }
            CXUnaryOperator_Deref => {
                let lv = self.lvalue(e)?;
                self.load(&lv, loc)
            }
            CXUnaryOperator_AddrOf => match self.lvalue(&operand)? {
                LValue::Mem { ptr, .. } => Ok(Val::Scalar(self.to_generic(ptr, loc)?)),
                LValue::Var(..) => Err(internal(loc, "address of a variable held in a register")),
            },
            _ => Err(FrontendError::unsupported(
                e.location(),
                format!("operator '{}'", e.unary_operator_spelling()),
            )),
        }
    }

    /// `x + 1` or `x - 1` for `++`/`--` on integers, floats and pointers.
    pub(super) fn step(&mut self, v: Val<'c>, ty: &Ty, inc: bool, e: &Cursor) -> Result<Val<'c>> {
        let loc = self.loc(e);
        match (v, ty) {
            (Val::Scalar(p), Ty::Pointer { pointee }) => {
                let one = self.b.const_int(
                    Ty::LONG.value_mlir(self.ctx()),
                    if inc { 1 } else { -1 },
                    loc,
                )?;
                let pointee = (**pointee).clone();
                Ok(Val::Scalar(self.gep(
                    p,
                    &pointee,
                    &[GepIndex::Dynamic(one)],
                    loc,
                )?))
            }
            (Val::Scalar(x), Ty::Float { .. }) => {
                let one = self.b.const_float(x.r#type(), 1.0, loc)?;
                let op = if inc { "arith.addf" } else { "arith.subf" };
                Ok(Val::Scalar(self.b.value(
                    op,
                    &[x, one],
                    x.r#type(),
                    &[],
                    loc,
                )?))
            }
            (Val::Scalar(x), Ty::Int { .. }) => {
                let one = self.b.const_int(x.r#type(), 1, loc)?;
                let op = if inc { "arith.addi" } else { "arith.subi" };
                Ok(Val::Scalar(self.b.value(
                    op,
                    &[x, one],
                    x.r#type(),
                    &[],
                    loc,
                )?))
            }
            _ => Err(FrontendError::unsupported(
                e.location(),
                "++/-- on this type",
            )),
        }
    }

    /// `c ? a : b`: both arms run inside an scf.if, so only the chosen one has effects.
    pub(super) fn conditional(&mut self, e: &Cursor) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let children = e.children();
        let [cond, a, b] = children.as_slice() else {
            return Err(FrontendError::unsupported(
                e.location(),
                "conditional operator",
            ));
        };
        let ty = Ty::of(e)?;
        let c = self.condition(cond)?;
        let types: Vec<Type<'c>> = match ty {
            Ty::Void => vec![],
            _ => vec![ty.value_mlir(self.ctx())],
        };
        let mut carried = assigned_vars(a, self.targets());
        carried.extend(assigned_vars(b, self.targets()));
        // A void conditional (`ok ? void(0) : fail()`, as assert writes) yields nothing: its
        // branches run for their effects only.
        let branch = |this: &mut Self, x: &Cursor| -> Result<Vec<Value<'c>>> {
            if ty == Ty::Void {
                this.rvalue(x)?;
                return Ok(vec![]);
            }
            Ok(this.rvalue_as(x, &ty)?.flatten())
        };
        let out = self.emit_if(
            c,
            &carried,
            &types,
            |this| branch(this, a),
            |this| branch(this, b),
            loc,
        )?;
        Ok(out.first().map_or(Val::Void, |v| Val::Scalar(*v)))
    }
}
