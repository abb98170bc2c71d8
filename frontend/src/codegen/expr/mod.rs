//! Expressions → arith/memref/gpu operations, with C's conversion rules: the dispatch by expression
//! kind and the values that need no operation (constants, zeros).

mod bit_fields;
pub(crate) mod calls;
mod conversions;
mod lvalues;
mod memory;
mod operators;
mod work_items;

use clang_sys::*;
use melior::ir::Location;

use super::analysis::VarKey;
use super::builder::Value;
use super::function::{FunctionCodegen, Val};
use crate::clang::{ConstValue, Cursor, LifetimeNode};
use crate::error::{FrontendError, Result};
use crate::types::Ty;

pub(in crate::codegen) use calls::is_builtin_decl_cursor;
pub(super) use conversions::class_delta;
pub use conversions::promote;

/// Where an assignable expression lives.
#[derive(Debug, Clone)]
pub enum LValue<'c> {
    /// A local variable held as an SSA value.
    Var(VarKey, Ty),
    /// An object of type `ty` in memory at `ptr` (any address space); `volatile` when it is
    /// named through a volatile-qualified lvalue.
    Mem {
        ptr: Value<'c>,
        ty: Ty,
        volatile: bool,
    },
    /// A bit-field of type `ty` in the storage run at `run`.
    BitField {
        run: Value<'c>,
        field: crate::types::BitField,
        ty: Ty,
    },
}

/// One index of a `llvm.getelementptr`.
#[derive(Debug, Clone, Copy)]
pub enum GepIndex<'c> {
    Dynamic(Value<'c>),
    Field(i32),
}

impl<'c> FunctionCodegen<'c, '_> {
    /// An rvalue converted to `ty` (as for an initializer, argument or return).
    pub fn rvalue_as(&mut self, e: &Cursor, ty: &Ty) -> Result<Val<'c>> {
        let from = match (e.kind(), Ty::of(e)?) {
            // A string literal's value is a pointer to its first character.
            (CXCursor_StringLiteral, Ty::Array { element, .. }) => Ty::Pointer { pointee: element },
            (_, from) => from,
        };
        let v = self.rvalue(e)?;
        self.convert(v, &from, ty, e)
    }

    pub fn rvalue(&mut self, e: &Cursor) -> Result<Val<'c>> {
        let loc = self.loc(e);
        if let Some(v) = self.member_pointer_rvalue(e)? {
            return Ok(v);
        }
        if let Some(v) = self.closure_value(e)? {
            return Ok(v);
        }
        match e.kind() {
            CXCursor_IntegerLiteral
            | CXCursor_CharacterLiteral
            | CXCursor_FloatingLiteral
            | CXCursor_CXXBoolLiteralExpr
            | CXCursor_UnaryExpr
            // `sizeof...(Ts)`: a constant in an instance.
            | CXCursor_SizeOfPackExpr => self.constant(e),
            CXCursor_CXXNullPtrLiteralExpr => self.null_pointer(loc),
            // GCC's `__null` (glibc's NULL in C++): a zero of its integer type.
            CXCursor_GNUNullExpr => self.zero(&Ty::of(e)?, loc),
            CXCursor_CXXThisExpr => match self.env.get(&VarKey::This) {
                Some(b) => Ok(b.val),
                None => Err(FrontendError::unsupported(
                    e.location(),
                    "'this' outside a member",
                )),
            },
            CXCursor_ParenExpr => self.rvalue(&only_child(e)?),
            CXCursor_CompoundLiteralExpr => {
                let lv = self.lvalue(e)?;
                self.load(&lv, loc)
            }
            CXCursor_UnexposedExpr => {
                match e.lifetime_node() {
                    Some(LifetimeNode::FullExpression) => {
                        let inner = only_child(e)?;
                        return self.full_expression(|this| this.rvalue(&inner));
                    }
                    Some(LifetimeNode::BindTemporary | LifetimeNode::Materialize { .. }) => {
                        return self.temporary_value(e);
                    }
                    Some(LifetimeNode::ValueInit) => return self.zero(&Ty::of(e)?, loc),
                    _ => {}
                }
                if e.is_array_init_index() {
                    return self.array_init_index(e);
                }
                if let Some((name, operands)) = e.atomic_parts() {
                    return self.atomic_builtin(&name, e, &operands);
                }
                let children = e.children();
                match children.as_slice() {
                    // An implicit conversion (or a no-op wrapper): convert the child to our type.
                    [child] => {
                        let to = Ty::of(e)?;
                        if to == Ty::Bool
                            && crate::codegen::member_pointers::is_member_pointer(child)
                        {
                            return Ok(Val::Scalar(self.member_pointer_truth(child)?));
                        }
                        if matches!(Ty::of(child)?, Ty::Array { .. }) && to.is_pointer() {
                            return self.decay(child);
                        }
                        if let Some(v) = self.class_pointer_cast(child, e)? {
                            return Ok(v);
                        }
                        if matches!(to, Ty::Record(_))
                            && e.is_glvalue()
                            && is_base_conversion(&child.ty(), &e.ty())
                        {
                            // A derived object (an lvalue or an xvalue: `std::move(d)`) as its
                            // base (a trivial copy of the base's part): the base subobject,
                            // where a virtual one is found at run time.
                            let lv = self.lvalue(e)?;
                            return self.load(&lv, loc);
                        }
                        self.rvalue_as(child, &to)
                    }
                    _ => self.constant(e),
                }
            }
            _ if e.is_explicit_cast() => {
                let inner = cast_operand(e)?;
                if let Some(v) = self.class_pointer_cast(&inner, e)? {
                    return Ok(v);
                }
                let to = Ty::of(e)?;
                self.rvalue_as(&inner, &to)
            }
            // A substituted non-type template parameter shows as a reference to nothing with
            // the argument's expression as its child.
            CXCursor_DeclRefExpr if e.referenced().is_none() => match e.children().as_slice() {
                [value] => {
                    let ty = Ty::of(e)?;
                    self.rvalue_as(value, &ty)
                }
                _ => self.constant(e),
            },
            CXCursor_DeclRefExpr | CXCursor_ArraySubscriptExpr | CXCursor_MemberRefExpr => {
                if let Some(f) = self.designated_function(e) {
                    return self.function_address(&f, e);
                }
                if let Some(v) = self.builtin_value(e, loc)? {
                    return Ok(v);
                }
                if let Some(ConstValue::Int(_)) = enum_constant(e) {
                    return self.constant(e);
                }
                if self.is_named_constant(e) {
                    return self.constant(e);
                }
                let lv = self.lvalue(e)?;
                self.load(&lv, loc)
            }
            // A braced list as a value (`return {a, b};`, `f({a, b})`, `T{}`): an aggregate is
            // built in a temporary; a scalar is zero or its one item converted.
            CXCursor_InitListExpr => {
                let ty = Ty::of(e)?;
                if ty.is_aggregate() {
                    let ptr = self.alloca(&ty, loc)?;
                    self.initialize(ptr, &ty, e)?;
                    return self.load(
                        &LValue::Mem {
                            ptr,
                            ty,
                            volatile: false,
                        },
                        loc,
                    );
                }
                match e.children().as_slice() {
                    [] => self.zero(&ty, loc),
                    [item] => self.rvalue_as(item, &ty),
                    _ => Err(FrontendError::unsupported(
                        e.location(),
                        "a braced scalar initializer with several items",
                    )),
                }
            }
            CXCursor_StmtExpr => self.statement_expression(e),
            CXCursor_CXXNewExpr => self.new_expression(e),
            CXCursor_CXXDeleteExpr => self.delete_expression(e),
            CXCursor_BinaryOperator => self.binary(e),
            CXCursor_CompoundAssignOperator => self.compound_assign(e),
            CXCursor_UnaryOperator => self.unary(e),
            CXCursor_ConditionalOperator => self.conditional(e),
            // A string literal read as a value is its address (the array decays).
            CXCursor_StringLiteral => self.decay(e),
            CXCursor_CallExpr => {
                let v = self.call(e)?;
                if self.returns_reference(e) {
                    let ty = Ty::of(e)?;
                    return self.load(
                        &LValue::Mem {
                            ptr: v.scalar(),
                            ty,
                            volatile: false,
                        },
                        loc,
                    );
                }
                Ok(v)
            }
            _ => Err(FrontendError::unsupported(
                e.location(),
                format!("expression '{}'", e.kind_name()),
            )),
        }
    }

    /// A `const`/`constexpr` variable with a constant value that has no binding here: one at
    /// namespace or class scope, an instance of a variable template (`std::is_same_v<T, U>`,
    /// which libclang exposes as an unexposed declaration), or a local of an enclosing function
    /// that a lambda reads without capturing it. Its value is folded, as clang folds it.
    fn is_named_constant(&self, e: &Cursor) -> bool {
        e.kind() == CXCursor_DeclRefExpr
            && e.referenced().is_some_and(|d| {
                matches!(d.kind(), CXCursor_VarDecl | CXCursor_UnexposedDecl)
                    && !self.env.contains_key(&VarKey::Decl(d.canonical()))
                    && d.ty().is_const()
            })
            && e.evaluate().is_some()
    }

    /// A GNU statement expression `({ stmts; last; })`: a block whose value is its last
    /// statement's, when that is an expression. Its locals live to the end of the block (the
    /// value is read before they are destroyed). A `return`, `break` or `continue` leaving it is
    /// refused: the rest of the enclosing expression would have to be skipped.
    fn statement_expression(&mut self, e: &Cursor) -> Result<Val<'c>> {
        let body = only_child(e)?;
        let stmts = body.children();
        if stmts.iter().any(|s| super::analysis::jumps(s).any()) {
            return Err(FrontendError::unsupported(
                e.location(),
                "a return, break or continue leaving a statement expression",
            ));
        }
        let ty = Ty::of(e)?;
        self.block(|this| match stmts.split_last() {
            Some((last, rest)) if ty != Ty::Void && last.is_expression() => {
                this.emit_stmts(rest)?;
                this.full_expression(|this| this.rvalue_as(last, &ty))
            }
            _ => {
                this.emit_stmts(&stmts)?;
                Ok(Val::Void)
            }
        })
    }

    /// Whether a call returns a reference (its value is an address).
    fn returns_reference(&self, call: &Cursor) -> bool {
        call.referenced()
            .is_some_and(|f| f.result_type().is_reference())
    }

    /// A literal or other constant expression, as a constant of the expression's type.
    fn constant(&mut self, e: &Cursor) -> Result<Val<'c>> {
        let ty = Ty::of(e)?;
        let loc = self.loc(e);
        let value = e.evaluate().ok_or_else(|| {
            FrontendError::unsupported(e.location(), format!("expression '{}'", e.kind_name()))
        })?;
        let v = match (&ty, value) {
            (Ty::Bool, ConstValue::Int(i)) => self.b.const_bool(i != 0, loc)?,
            (Ty::Int { .. }, ConstValue::Int(i)) => {
                self.b.const_int(ty.value_mlir(self.ctx()), i as i64, loc)?
            }
            (Ty::Float { .. }, ConstValue::Float(f)) => {
                self.b.const_float(ty.value_mlir(self.ctx()), f, loc)?
            }
            (Ty::Float { .. }, ConstValue::Int(i)) => {
                self.b
                    .const_float(ty.value_mlir(self.ctx()), i as f64, loc)?
            }
            (Ty::Int { .. } | Ty::Bool, ConstValue::Float(f)) => {
                self.b.const_int(ty.value_mlir(self.ctx()), f as i64, loc)?
            }
            _ => {
                return Err(FrontendError::unsupported(
                    e.location(),
                    format!("constant of type '{}'", e.ty().spelling()),
                ))
            }
        };
        Ok(Val::Scalar(v))
    }

    /// A zero of `ty` (for uninitialized locals and the return value before a return ran).
    pub fn zero(&mut self, ty: &Ty, loc: Location<'c>) -> Result<Val<'c>> {
        let v = match ty {
            Ty::Float { .. } => self.b.const_float(ty.value_mlir(self.ctx()), 0.0, loc)?,
            Ty::Int { .. } | Ty::Bool => self.b.const_int(ty.value_mlir(self.ctx()), 0, loc)?,
            Ty::Void => return Ok(Val::Void),
            Ty::Pointer { .. } => return self.null_pointer(loc),
            Ty::FnPtr { .. } => self.b.const_int(ty.value_mlir(self.ctx()), 0, loc)?,
            // Structs, unions and arrays: a zero-filled private copy, loaded (the lowering knows
            // loads of aggregates, not aggregate constants).
            Ty::Record(_) | Ty::Array { .. } => {
                let ptr = self.alloca(ty, loc)?;
                self.zero_fill(ptr, ty, loc)?;
                return self.load(
                    &LValue::Mem {
                        ptr,
                        ty: ty.clone(),
                        volatile: false,
                    },
                    loc,
                );
            }
        };
        Ok(Val::Scalar(v))
    }
}

fn only_child(e: &Cursor) -> Result<Cursor> {
    let children = e.children();
    match children.as_slice() {
        [only] => Ok(*only),
        _ => Err(FrontendError::unsupported(
            e.location(),
            format!("expression '{}'", e.kind_name()),
        )),
    }
}

fn enum_constant(e: &Cursor) -> Option<ConstValue> {
    let decl = e.referenced()?;
    (decl.kind() == CXCursor_EnumConstantDecl)
        .then(|| e.evaluate())
        .flatten()
}

/// The operand of a cast expression written in the source.
fn cast_operand(e: &Cursor) -> Result<Cursor> {
    e.explicit_cast_operand()
        .ok_or_else(|| FrontendError::unsupported(e.location(), "empty cast"))
}

/// Whether `derived` is a class with `base` among its bases (through virtual ones too).
fn is_base_conversion(derived: &crate::clang::CType, base: &crate::clang::CType) -> bool {
    conversions::class_offset(derived, base).is_some()
        || crate::codegen::virtual_bases::is_virtual_path(derived, base)
}
