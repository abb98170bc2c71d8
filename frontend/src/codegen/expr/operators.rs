//! Unary, binary, compound-assignment and conditional operators.

use clang_sys::*;
use melior::dialect::arith::{self, CmpfPredicate, CmpiPredicate};
use melior::ir::{Location, Operation, Type, ValueLike};

use super::conversions::{promote, usual_arithmetic};
use super::lvalues::lvalue_ty;
use super::{only_child, GepIndex, LValue};
use crate::clang::Cursor;
use crate::codegen::analysis::assigned_vars;
use crate::codegen::builder::{internal, Value};
use crate::codegen::function::{FunctionCodegen, Val};
use crate::error::{FrontendError, Result};
use crate::types::{is_function_type, Ty};

/// melior's builder of one binary arith operation.
type BinaryOp = for<'c, 'a> fn(
    melior::ir::Value<'c, 'a>,
    melior::ir::Value<'c, 'a>,
    Location<'c>,
) -> Operation<'c>;

/// The arith operations of one binary operator: on signed and unsigned integers, on floats
/// (`None` where C has no float form), whether a signed operation may say `nsw`, and whether a
/// float one may be fused with another into an FMA.
struct ArithOps {
    signed: BinaryOp,
    unsigned: BinaryOp,
    float: Option<BinaryOp>,
    signed_no_wrap: bool,
    float_contractible: bool,
}

const fn ops(signed: BinaryOp, unsigned: BinaryOp, float: Option<BinaryOp>) -> ArithOps {
    ArithOps {
        signed,
        unsigned,
        float,
        signed_no_wrap: false,
        float_contractible: false,
    }
}

/// The arith operations of a binary or compound-assignment operator.
fn arith_ops(kind: CXBinaryOperatorKind) -> Option<ArithOps> {
    // Signed overflow is undefined in C: say so, as clang does (`nsw`), so that the device
    // compiler may fold index arithmetic.
    // Sums, differences and products: what an FMA fuses.
    let no_wrap = |o: ArithOps| ArithOps {
        signed_no_wrap: true,
        float_contractible: true,
        ..o
    };
    Some(match kind {
        CXBinaryOperator_Add | CXBinaryOperator_AddAssign => {
            no_wrap(ops(arith::addi, arith::addi, Some(arith::addf)))
        }
        CXBinaryOperator_Sub | CXBinaryOperator_SubAssign => {
            no_wrap(ops(arith::subi, arith::subi, Some(arith::subf)))
        }
        CXBinaryOperator_Mul | CXBinaryOperator_MulAssign => {
            no_wrap(ops(arith::muli, arith::muli, Some(arith::mulf)))
        }
        CXBinaryOperator_Div | CXBinaryOperator_DivAssign => {
            ops(arith::divsi, arith::divui, Some(arith::divf))
        }
        CXBinaryOperator_Rem | CXBinaryOperator_RemAssign => {
            ops(arith::remsi, arith::remui, Some(arith::remf))
        }
        CXBinaryOperator_And | CXBinaryOperator_AndAssign => ops(arith::andi, arith::andi, None),
        CXBinaryOperator_Or | CXBinaryOperator_OrAssign => ops(arith::ori, arith::ori, None),
        CXBinaryOperator_Xor | CXBinaryOperator_XorAssign => ops(arith::xori, arith::xori, None),
        CXBinaryOperator_Shl | CXBinaryOperator_ShlAssign => ops(arith::shli, arith::shli, None),
        CXBinaryOperator_Shr | CXBinaryOperator_ShrAssign => ops(arith::shrsi, arith::shrui, None),
        _ => return None,
    })
}

/// The predicates of a comparison operator: on signed and unsigned integers, and on floats.
/// Float `!=` is unordered (true for NaN), the rest ordered, as in C.
#[derive(Clone, Copy)]
pub(super) struct Predicates {
    signed: CmpiPredicate,
    unsigned: CmpiPredicate,
    float: CmpfPredicate,
}

pub(super) fn compare_predicates(kind: CXBinaryOperatorKind) -> Option<Predicates> {
    use CmpfPredicate as F;
    use CmpiPredicate as I;
    let (signed, unsigned, float) = match kind {
        CXBinaryOperator_EQ => (I::Eq, I::Eq, F::Oeq),
        CXBinaryOperator_NE => (I::Ne, I::Ne, F::Une),
        CXBinaryOperator_LT => (I::Slt, I::Ult, F::Olt),
        CXBinaryOperator_LE => (I::Sle, I::Ule, F::Ole),
        CXBinaryOperator_GT => (I::Sgt, I::Ugt, F::Ogt),
        CXBinaryOperator_GE => (I::Sge, I::Uge, F::Oge),
        _ => return None,
    };
    Some(Predicates {
        signed,
        unsigned,
        float,
    })
}

impl<'c> FunctionCodegen<'c, '_> {
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
            CXBinaryOperator_PtrMemD | CXBinaryOperator_PtrMemI => {
                let lv = self.data_member_lvalue(e)?;
                self.load(&lv, loc)
            }
            _ if crate::codegen::member_pointers::is_member_pointer(lhs) => {
                self.member_pointer_compare(e, lhs, rhs)
            }
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
        predicates: Predicates,
        a: Value<'c>,
        b: Value<'c>,
        operand_ty: &Ty,
        loc: Location<'c>,
    ) -> Result<Val<'c>> {
        let v = if operand_ty.is_float() {
            self.b.cmpf(predicates.float, a, b, loc)?
        } else if operand_ty.is_signed() {
            self.b.cmpi(predicates.signed, a, b, loc)?
        } else {
            self.b.cmpi(predicates.unsigned, a, b, loc)?
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
        let ops = arith_ops(kind).ok_or_else(|| {
            FrontendError::unsupported(
                e.location(),
                format!("operator '{}'", e.binary_operator_spelling()),
            )
        })?;
        match ty {
            Ty::Float { .. } => {
                let float = ops.float.ok_or_else(|| {
                    FrontendError::unsupported(e.location(), "operator on a float")
                })?;
                if ops.float_contractible && self.contract_floats && e.allows_fp_contraction() {
                    self.b.contractible(float(a, b, loc))
                } else {
                    self.b.insert_value(float(a, b, loc))
                }
            }
            Ty::Int { signed: true, .. } if ops.signed_no_wrap => {
                self.b.no_signed_wrap((ops.signed)(a, b, loc))
            }
            Ty::Int { signed: true, .. } => self.b.insert_value((ops.signed)(a, b, loc)),
            _ => self.b.insert_value((ops.unsigned)(a, b, loc)),
        }
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
                    let bytes = self.b.insert_value(arith::subi(a, b, loc))?;
                    let size = lt.pointee().map(Ty::size).unwrap_or(1).max(1);
                    let size = self.b.const_int(a.r#type(), size as i64, loc)?;
                    let d = self.b.insert_value(arith::divsi(bytes, size, loc))?;
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
                    self.b.insert_value(arith::negf(v, loc))?
                } else {
                    let zero = self.b.const_int(v.r#type(), 0, loc)?;
                    self.b.insert_value(arith::subi(zero, v, loc))?
                };
                Ok(Val::Scalar(out))
            }
            CXUnaryOperator_Not => {
                let ty = Ty::of(e)?;
                let v = self.rvalue_as(&operand, &ty)?.scalar();
                let ones = self.b.const_int(v.r#type(), -1, loc)?;
                Ok(Val::Scalar(self.b.insert_value(arith::xori(v, ones, loc))?))
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
                LValue::BitField { .. } => Err(internal(loc, "address of a bit-field")),
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
                let op: BinaryOp = if inc { arith::addf } else { arith::subf };
                Ok(Val::Scalar(self.b.insert_value(op(x, one, loc))?))
            }
            (Val::Scalar(x), Ty::Int { .. }) => {
                let one = self.b.const_int(x.r#type(), 1, loc)?;
                let op: BinaryOp = if inc { arith::addi } else { arith::subi };
                Ok(Val::Scalar(self.b.insert_value(op(x, one, loc))?))
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
