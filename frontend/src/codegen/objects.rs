//! C++ objects in device code: constructors (with member initializer lists and default member
//! initializers), member functions and operators (with their implicit `this`), temporaries.
//!
//! A member function is a device function whose first parameter is `this`, a pointer to the
//! object; a constructor is one that initializes the object `this` points to.

use clang_sys::*;
use melior::ir::Location;

use super::analysis::VarKey;
use super::builder::{internal, Value};
use super::expr::LValue;
use super::function::{FunctionCodegen, Val};
use crate::clang::{Cursor, SpecialMember};
use crate::error::{FrontendError, Result};
use crate::types::Ty;

/// A field's default member initializer (`float w = 2.0f;`): the last of the expressions among
/// its children, after those its type shows (array bounds, template arguments).
pub(super) fn default_member_initializer(field: &Cursor) -> Option<Cursor> {
    if !field.has_in_class_initializer() {
        return None;
    }
    field.children().into_iter().rfind(|c| c.is_expression())
}

/// Whether a function takes an implicit `this`.
pub fn has_this(f: &Cursor) -> bool {
    match f.kind() {
        CXCursor_Constructor | CXCursor_Destructor => true,
        CXCursor_CXXMethod => !f.is_static_method(),
        _ => false,
    }
}

/// The record type a member function belongs to.
pub fn this_record(f: &Cursor) -> Result<Ty> {
    let parent = f.semantic_parent().ok_or_else(|| {
        FrontendError::unsupported(f.location(), "member function outside its class")
    })?;
    Ty::from_clang(parent.ty(), &f.location())
}

impl<'c> FunctionCodegen<'c, '_> {
    /// Runs the constructor `ctor` on the object at `target` (any address space) with `args`.
    pub fn construct(
        &mut self,
        ctor: &Cursor,
        target: Value<'c>,
        record: &Ty,
        args: &[Cursor],
        e: &Cursor,
    ) -> Result<()> {
        let loc = self.loc(e);
        match (ctor.trivial_special_member(), args) {
            (Some(SpecialMember::DefaultConstructor), []) => {
                self.default_member_initializers(target, record, loc)
            }
            (Some(SpecialMember::CopyConstructor), [source]) => {
                let v = self.rvalue(source)?;
                self.store(
                    &LValue::Mem {
                        ptr: target,
                        ty: record.clone(),
                    },
                    v,
                    loc,
                )
            }
            _ => {
                let this = self.to_generic(target, loc)?;
                self.call_function(ctor, Some(this), args, e).map(|_| ())
            }
        }
    }

    /// A constructor call used as a value: a temporary is built, then read.
    pub fn construct_temporary(
        &mut self,
        ctor: &Cursor,
        e: &Cursor,
        args: &[Cursor],
    ) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let record = Ty::of(e)?;
        if let (Some(SpecialMember::CopyConstructor), [source]) =
            (ctor.trivial_special_member(), args)
        {
            return self.rvalue(source);
        }
        let temp = self.alloca(&record, loc)?;
        self.construct(ctor, temp, &record, args, e)?;
        self.load(
            &LValue::Mem {
                ptr: temp,
                ty: record,
            },
            loc,
        )
    }

    /// Stores the default member initializers (`float w = 2.0f;`) of a record's fields.
    pub fn default_member_initializers(
        &mut self,
        target: Value<'c>,
        record: &Ty,
        loc: Location<'c>,
    ) -> Result<()> {
        let Ty::Record(r) = record else {
            return Ok(());
        };
        for (field, decl) in r.fields.iter().zip(&r.field_decls) {
            if let Some(init) = default_member_initializer(decl) {
                let ptr = self.field_pointer(target, record, field.llvm_index, loc)?;
                self.initialize(ptr, &field.ty, &init)?;
            }
        }
        Ok(())
    }

    /// A constructor's member initializer list (`: x(a), y(b)`), then the default member
    /// initializers of the fields it does not mention; runs before the constructor's body.
    pub fn member_initializers(&mut self, ctor: &Cursor) -> Result<()> {
        let loc = self.loc(ctor);
        let this = self.env[&VarKey::This].val.scalar();
        let record = self.env[&VarKey::This]
            .ty
            .pointee()
            .cloned()
            .ok_or_else(|| internal(loc, "this is not a pointer"))?;
        let Ty::Record(r) = &record else {
            return Err(internal(loc, "constructor of a non-record"));
        };
        let children = ctor.children();
        let class = ctor
            .semantic_parent()
            .map(|c| c.ty())
            .ok_or_else(|| internal(loc, "constructor outside a class"))?;
        let mut listed = Vec::new();
        for (i, child) in children.iter().enumerate() {
            if !child.is_expression() {
                continue;
            }
            if i > 0 && children[i - 1].kind() == CXCursor_MemberRef {
                listed.push((children[i - 1].spelling(), *child));
                continue;
            }
            // libclang shows a base initializer as the base's type, then the constructor call
            // (`: Base<T, N>(a, b)`); the type's template arguments are expressions too, but
            // only the initializer is a constructor call.
            let Some(call) = super::stmt::constructor_call(child) else {
                continue;
            };
            let Some(callee) = call.referenced() else {
                continue;
            };
            let Some(target_class) = callee.semantic_parent().map(|c| c.ty()) else {
                continue;
            };
            if target_class.canonical().declaration().canonical()
                == class.canonical().declaration().canonical()
            {
                // A delegating constructor: the other constructor initializes everything.
                return self.construct(&callee, this, &record, &call.arguments(), &call);
            }
            let Some(offset) = class.canonical().base_offset(&target_class) else {
                return Err(FrontendError::unsupported(
                    child.location(),
                    "initializer of a virtual base class",
                ));
            };
            let base_ptr = if offset == 0 {
                this
            } else {
                self.byte_offset(this, offset as i64, loc)?
            };
            let base_ty = Ty::from_clang(target_class, &child.location())?;
            self.construct(&callee, base_ptr, &base_ty, &call.arguments(), &call)?;
        }
        for (field, decl) in r.fields.iter().zip(&r.field_decls) {
            let init = match listed.iter().find(|(name, _)| *name == field.name) {
                Some((_, e)) => Some(*e),
                None => default_member_initializer(decl),
            };
            if let Some(init) = init {
                let ptr = self.field_pointer(this, &record, field.llvm_index, loc)?;
                if decl.ty().is_reference() {
                    // A reference member holds the address of what it is bound to.
                    let address = self.object_address(&init)?;
                    self.store(
                        &LValue::Mem {
                            ptr,
                            ty: field.ty.clone(),
                        },
                        Val::Scalar(address),
                        loc,
                    )?;
                } else {
                    self.initialize(ptr, &field.ty, &init)?;
                }
            }
        }
        Ok(())
    }

    /// The object a member function is called on, and the call's remaining arguments. For
    /// `obj.f(x)` the object is the member reference's base; for an operator written as
    /// `a + b` it is the first argument.
    pub fn method_object<'a>(
        &mut self,
        e: &Cursor,
        args: &'a [Cursor],
        params: usize,
    ) -> Result<(Value<'c>, &'a [Cursor])> {
        let loc = self.loc(e);
        if args.len() == params + 1 {
            // An operator call: the object is the first argument.
            let object = self.object_address(&args[0])?;
            return Ok((object, &args[1..]));
        }
        let callee = e
            .children()
            .first()
            .map(|c| c.without_implicit())
            .filter(|c| c.kind() == CXCursor_MemberRefExpr)
            .ok_or_else(|| internal(loc, "member call without a member reference"))?;
        let object = match callee.children().first() {
            None => {
                let owner = callee.referenced().and_then(|m| m.semantic_parent());
                self.implicit_this(owner.as_ref(), &callee)?.0
            }
            Some(base) if Ty::of(base)?.is_pointer() => self.rvalue(base)?.scalar(),
            Some(base) => self.object_address(base)?,
        };
        Ok((object, args))
    }

    /// The address of an object expression, materializing a temporary for rvalues (destroyed
    /// where clang's AST says, see lifetime.rs).
    pub fn object_address(&mut self, e: &Cursor) -> Result<Value<'c>> {
        if !Self::is_temporary(e) && is_lvalue_expression(e) {
            return Ok(self.address_of(e)?.scalar());
        }
        self.materialize(e, false)
    }
}

/// Whether an expression names an object in memory (rather than computing a value).
pub fn is_lvalue_expression(e: &Cursor) -> bool {
    let e = e.without_implicit();
    match e.kind() {
        CXCursor_DeclRefExpr
        | CXCursor_MemberRefExpr
        | CXCursor_ArraySubscriptExpr
        | CXCursor_CompoundLiteralExpr => true,
        CXCursor_UnaryOperator => e.unary_operator() == CXUnaryOperator_Deref,
        CXCursor_CallExpr => e
            .referenced()
            .is_some_and(|f| f.result_type().is_reference()),
        CXCursor_ConditionalOperator => {
            let children = e.children();
            children.len() == 3
                && is_lvalue_expression(&children[1])
                && is_lvalue_expression(&children[2])
        }
        // `reinterpret_cast<T&>(x)`, `static_cast<Base&>(d)`, `(T&)x`.
        CXCursor_CStyleCastExpr
        | CXCursor_CXXStaticCastExpr
        | CXCursor_CXXConstCastExpr
        | CXCursor_CXXReinterpretCastExpr => e.is_lvalue(),
        _ => false,
    }
}
