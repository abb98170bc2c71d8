//! Pointers to members in device code, as the Itanium C++ ABI represents them.
//!
//! A pointer to a member function is a pair: the function, and the adjustment in bytes added to
//! the object's address to make the function's `this` (conversions between a base's and a
//! derived class's member pointers change it). The function is a function pointer id (see
//! function_pointers.rs): a non-virtual function's own, a virtual function's dispatcher's, so
//! that `(obj.*f)()` calls the dynamic class's overrider. A call through one is a call through a
//! function pointer whose first argument is `this`, devirtualized like the others. Null is
//! function 0. A pointer to a data member is the member's offset, -1 being null.

use clang_sys::*;
use melior::dialect::arith;

use super::builder::Value;
use super::expr::{GepIndex, LValue};
use super::function::{FunctionCodegen, Val};
use super::function_pointers::is_null_constant;
use crate::clang::{CType, Cursor, LifetimeNode};
use crate::error::{FrontendError, Result};
use crate::types::{is_data_member_pointer, Ty};

/// What a null pointer to data member holds.
const NULL_DATA_MEMBER: i64 = -1;

/// Whether a binary operator is `.*` or `->*`.
pub fn is_member_access(e: &Cursor) -> bool {
    e.kind() == CXCursor_BinaryOperator
        && matches!(
            e.binary_operator(),
            CXBinaryOperator_PtrMemD | CXBinaryOperator_PtrMemI
        )
}

/// Whether an expression's type is a pointer to member.
pub fn is_member_pointer(e: &Cursor) -> bool {
    e.ty().canonical().kind() == CXType_MemberPointer
}

/// The byte offset of class `base` within class `derived` (either way round: negative when
/// `derived` is the base), for a member pointer converted between them.
fn class_adjustment(from: CType, to: CType, at: &Cursor) -> Result<i64> {
    let (from, to) = (from.canonical(), to.canonical());
    if from.declaration().canonical() == to.declaration().canonical() {
        return Ok(0);
    }
    if let Some(offset) = to.base_offset(&from) {
        return Ok(offset as i64);
    }
    if let Some(offset) = from.base_offset(&to) {
        return Ok(-(offset as i64));
    }
    Err(FrontendError::unsupported(
        at.location(),
        format!(
            "conversion of a pointer to member of '{}' to one of '{}' (a virtual base)",
            from.spelling(),
            to.spelling()
        ),
    ))
}

impl<'c> FunctionCodegen<'c, '_> {
    /// The value of an expression of pointer-to-member type written as `&S::m`, `nullptr` or a
    /// conversion; None for other expressions (variables, members, calls: read as any value).
    pub(super) fn member_pointer_rvalue(&mut self, e: &Cursor) -> Result<Option<Val<'c>>> {
        if !is_member_pointer(e) || !self.is_member_pointer_constructor(e) {
            return Ok(None);
        }
        let loc = self.loc(e);
        if is_data_member_pointer(e.ty()) {
            return self.data_member_offset(e).map(|v| Some(Val::Scalar(v)));
        }
        let (function, adjustment) = self.member_function_parts(e)?;
        let ty = Ty::member_function_pointer();
        let object = self.alloca(&ty, loc)?;
        for (index, part) in [function, adjustment].into_iter().enumerate() {
            let field = self.field_pointer(object, &ty, index as i32, loc)?;
            self.b.store(part, field, false, loc);
        }
        let value = self.load(
            &LValue::Mem {
                ptr: object,
                ty,
                volatile: false,
            },
            loc,
        )?;
        Ok(Some(value))
    }

    /// Whether `e` makes a member pointer (rather than reading one held somewhere).
    fn is_member_pointer_constructor(&self, e: &Cursor) -> bool {
        match e.kind() {
            CXCursor_UnaryOperator => e.unary_operator() == CXUnaryOperator_AddrOf,
            CXCursor_CXXNullPtrLiteralExpr | CXCursor_ParenExpr => true,
            // A substituted non-type template argument: its expression is the child.
            CXCursor_DeclRefExpr => e.referenced().is_none(),
            CXCursor_UnexposedExpr => !matches!(
                e.lifetime_node(),
                Some(
                    LifetimeNode::FullExpression
                        | LifetimeNode::BindTemporary
                        | LifetimeNode::Materialize { .. }
                )
            ),
            _ => e.is_explicit_cast(),
        }
    }

    /// A pointer to member function's function id and `this` adjustment.
    fn member_function_parts(&mut self, e: &Cursor) -> Result<(Value<'c>, Value<'c>)> {
        let loc = self.loc(e);
        let i64t = Ty::LONG.value_mlir(self.ctx());
        let constant = |this: &mut Self, function: i64, adjustment: i64| -> Result<_> {
            Ok((
                this.b.const_int(i64t, function, loc)?,
                this.b.const_int(i64t, adjustment, loc)?,
            ))
        };
        if is_null_constant(e) {
            return constant(self, 0, 0);
        }
        match e.kind() {
            CXCursor_UnaryOperator if e.unary_operator() == CXUnaryOperator_AddrOf => {
                let method = self.named_member(e)?;
                let id = self.module.member_function_id(&method, e)?;
                return constant(self, id, 0);
            }
            CXCursor_ParenExpr => return self.member_function_parts(&only(e)?),
            CXCursor_DeclRefExpr if e.referenced().is_none() => {
                return self.member_function_parts(&only(e)?)
            }
            CXCursor_UnexposedExpr if self.is_member_pointer_constructor(e) => {
                let inner = only(e)?;
                return self.converted_member_function(&inner, e);
            }
            _ if e.is_explicit_cast() => {
                let inner = e
                    .explicit_cast_operand()
                    .ok_or_else(|| FrontendError::unsupported(e.location(), "empty cast"))?;
                return self.converted_member_function(&inner, e);
            }
            _ => {}
        }
        // A member pointer held in memory or computed (a variable, a call, `c ? f : g`).
        let address = self.object_address(e)?;
        let ty = Ty::member_function_pointer();
        let function = self.field_pointer(address, &ty, 0, loc)?;
        let adjustment = self.field_pointer(address, &ty, 1, loc)?;
        Ok((
            self.b.load(function, i64t, false, loc)?,
            self.b.load(adjustment, i64t, false, loc)?,
        ))
    }

    /// The parts of `inner` converted to `e`'s member pointer type: the adjustment changes by
    /// the offset between the two classes.
    fn converted_member_function(
        &mut self,
        inner: &Cursor,
        e: &Cursor,
    ) -> Result<(Value<'c>, Value<'c>)> {
        let loc = self.loc(e);
        let (function, adjustment) = self.member_function_parts(inner)?;
        if !is_member_pointer(inner) {
            return Err(FrontendError::unsupported(
                e.location(),
                format!(
                    "conversion of '{}' to a pointer to member function",
                    inner.ty().spelling()
                ),
            ));
        }
        let delta = class_adjustment(
            inner.ty().canonical().member_pointer_class(),
            e.ty().canonical().member_pointer_class(),
            e,
        )?;
        if delta == 0 {
            return Ok((function, adjustment));
        }
        let i64t = Ty::LONG.value_mlir(self.ctx());
        let delta = self.b.const_int(i64t, delta, loc)?;
        let adjusted = self.b.insert_value(arith::addi(adjustment, delta, loc))?;
        Ok((function, adjusted))
    }

    /// The member `&S::m` names.
    fn named_member(&self, e: &Cursor) -> Result<Cursor> {
        only(e)?
            .without_implicit()
            .referenced()
            .ok_or_else(|| FrontendError::unsupported(e.location(), "pointer to member"))
    }

    /// A pointer to data member's offset (-1 for null).
    fn data_member_offset(&mut self, e: &Cursor) -> Result<Value<'c>> {
        let loc = self.loc(e);
        let i64t = Ty::LONG.value_mlir(self.ctx());
        if is_null_constant(e) {
            return self.b.const_int(i64t, NULL_DATA_MEMBER, loc);
        }
        let converted = match e.kind() {
            CXCursor_UnaryOperator if e.unary_operator() == CXUnaryOperator_AddrOf => {
                let field = self.named_member(e)?;
                let refused = || {
                    FrontendError::unsupported(
                        e.location(),
                        format!("pointer to member '{}'", field.spelling()),
                    )
                };
                let offset = match field.kind() {
                    CXCursor_FieldDecl if field.bit_field_width().is_none() => {
                        field.field_offset_bits().ok_or_else(refused)? / 8
                    }
                    // A member of an anonymous struct or union (clang's indirect field): the
                    // offsets of the anonymous members holding it added.
                    CXCursor_FieldDecl => return Err(refused()),
                    _ => {
                        let class = e.ty().canonical().member_pointer_class();
                        let record = Ty::from_clang(class, &e.location())?;
                        let path = record.member_path(&field.spelling()).ok_or_else(refused)?;
                        if path.iter().any(|(_, f)| f.bit_field.is_some()) {
                            return Err(refused());
                        }
                        path.iter().map(|(_, f)| f.offset).sum()
                    }
                };
                return self.b.const_int(i64t, offset as i64, loc);
            }
            CXCursor_ParenExpr => return self.data_member_offset(&only(e)?),
            CXCursor_DeclRefExpr if e.referenced().is_none() => {
                return self.data_member_offset(&only(e)?)
            }
            CXCursor_UnexposedExpr => only(e)?,
            _ => e
                .explicit_cast_operand()
                .ok_or_else(|| FrontendError::unsupported(e.location(), "empty cast"))?,
        };
        let offset = match self.member_pointer_rvalue(&converted)? {
            Some(v) => v.scalar(),
            None => self.rvalue(&converted)?.scalar(),
        };
        if !is_member_pointer(&converted) {
            return Ok(offset);
        }
        let delta = class_adjustment(
            converted.ty().canonical().member_pointer_class(),
            e.ty().canonical().member_pointer_class(),
            e,
        )?;
        if delta == 0 {
            return Ok(offset);
        }
        // Null stays null.
        let delta = self.b.const_int(i64t, delta, loc)?;
        let null = self.b.const_int(i64t, NULL_DATA_MEMBER, loc)?;
        let moved = self.b.insert_value(arith::addi(offset, delta, loc))?;
        let is_null = self.b.cmpi(arith::CmpiPredicate::Eq, offset, null, loc)?;
        self.b
            .insert_value(arith::select(is_null, offset, moved, loc))
    }

    /// A member pointer tested as a condition: whether it is not null.
    pub(super) fn member_pointer_truth(&mut self, e: &Cursor) -> Result<Value<'c>> {
        let loc = self.loc(e);
        let i64t = Ty::LONG.value_mlir(self.ctx());
        let (value, null) = if is_data_member_pointer(e.ty()) {
            (self.data_member_value(e)?, NULL_DATA_MEMBER)
        } else {
            (self.member_function_parts(e)?.0, 0)
        };
        let null = self.b.const_int(i64t, null, loc)?;
        self.b.cmpi(arith::CmpiPredicate::Ne, value, null, loc)
    }

    fn data_member_value(&mut self, e: &Cursor) -> Result<Value<'c>> {
        match self.member_pointer_rvalue(e)? {
            Some(v) => Ok(v.scalar()),
            None => Ok(self.rvalue(e)?.scalar()),
        }
    }

    /// `f == g` or `f != g` of pointers to members: the same function and, unless both are
    /// null, the same adjustment (the Itanium C++ ABI's equality).
    pub(super) fn member_pointer_compare(
        &mut self,
        e: &Cursor,
        lhs: &Cursor,
        rhs: &Cursor,
    ) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let equal = if is_data_member_pointer(lhs.ty()) {
            let a = self.data_member_value(lhs)?;
            let b = self.data_member_value(rhs)?;
            self.b.cmpi(arith::CmpiPredicate::Eq, a, b, loc)?
        } else {
            let (fa, aa) = self.member_function_parts(lhs)?;
            let (fb, ab) = self.member_function_parts(rhs)?;
            let i64t = Ty::LONG.value_mlir(self.ctx());
            let zero = self.b.const_int(i64t, 0, loc)?;
            let same_function = self.b.cmpi(arith::CmpiPredicate::Eq, fa, fb, loc)?;
            let same_adjustment = self.b.cmpi(arith::CmpiPredicate::Eq, aa, ab, loc)?;
            let null = self.b.cmpi(arith::CmpiPredicate::Eq, fa, zero, loc)?;
            let either = self.or(null, same_adjustment, loc)?;
            self.b
                .insert_value(arith::andi(same_function, either, loc))?
        };
        let result = match e.binary_operator() {
            CXBinaryOperator_EQ => equal,
            CXBinaryOperator_NE => self.not(equal, loc)?,
            _ => {
                return Err(FrontendError::unsupported(
                    e.location(),
                    format!(
                        "operator '{}' on pointers to members",
                        e.binary_operator_spelling()
                    ),
                ))
            }
        };
        let ty = Ty::of(e)?;
        self.convert(Val::Scalar(result), &Ty::Bool, &ty, e)
    }

    /// The object a `.*` or `->*` applies to: its address.
    fn member_access_object(&mut self, e: &Cursor, object: &Cursor) -> Result<Value<'c>> {
        let loc = self.loc(e);
        let address = match e.binary_operator() {
            CXBinaryOperator_PtrMemI => self.rvalue(object)?.scalar(),
            _ => self.object_address(object)?,
        };
        self.to_generic(address, loc)
    }

    /// `obj.*m` or `p->*m` of a pointer to data member: the member.
    pub(super) fn data_member_lvalue(&mut self, e: &Cursor) -> Result<LValue<'c>> {
        let loc = self.loc(e);
        let children = e.children();
        let [object, member] = children.as_slice() else {
            return Err(FrontendError::unsupported(e.location(), "member access"));
        };
        if !is_data_member_pointer(member.ty()) {
            return Err(FrontendError::unsupported(
                e.location(),
                "a bound member function used other than to call it",
            ));
        }
        let address = self.member_access_object(e, object)?;
        let offset = self.data_member_value(member)?;
        let ptr = self.gep(
            address,
            &Ty::Int {
                bits: 8,
                signed: false,
            },
            &[GepIndex::Dynamic(offset)],
            loc,
        )?;
        Ok(LValue::Mem {
            ptr,
            ty: Ty::of(e)?,
            volatile: false,
        })
    }

    /// `(obj.*f)(args)` or `(p->*f)(args)`: the function `f` names, called with the object's
    /// address plus the adjustment as `this`. None when the callee is no such access.
    pub(super) fn member_pointer_call(&mut self, e: &Cursor) -> Result<Option<Val<'c>>> {
        let Some(callee) = e.children().first().map(without_parens) else {
            return Ok(None);
        };
        if !is_member_access(&callee) {
            return Ok(None);
        }
        let loc = self.loc(e);
        let children = callee.children();
        let [object, member] = children.as_slice() else {
            return Err(FrontendError::unsupported(e.location(), "member call"));
        };
        let address = self.member_access_object(&callee, object)?;
        let (function, adjustment) = self.member_function_parts(member)?;
        let this = self.gep(
            address,
            &Ty::Int {
                bits: 8,
                signed: false,
            },
            &[GepIndex::Dynamic(adjustment)],
            loc,
        )?;
        let function_ty = member.ty().canonical().pointee();
        let args = e.arguments();
        self.call_through(function, vec![this], function_ty, &args, e)
            .map(Some)
    }
}

fn only(e: &Cursor) -> Result<Cursor> {
    match e.children().as_slice() {
        [only] => Ok(*only),
        _ => Err(FrontendError::unsupported(
            e.location(),
            format!("expression '{}'", e.kind_name()),
        )),
    }
}

/// An expression without the parentheses around it.
fn without_parens(e: &Cursor) -> Cursor {
    let mut e = *e;
    while e.kind() == CXCursor_ParenExpr {
        match e.children().as_slice() {
            [inner] => e = *inner,
            _ => break,
        }
    }
    e
}
