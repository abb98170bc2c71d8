//! Object lifetime as C++ defines it: every object with a destructor is destroyed when the scope
//! that owns it ends, last built first destroyed.
//!
//! One mechanism serves all: a stack of scopes, each with the cleanups (objects to destroy) of
//! what was built in it. A block, a statement that declares (`for`, `if`, loop bodies, each
//! iteration), a function (with a destructor's members and bases) and a full-expression (its
//! temporaries) each push a scope and run its cleanups, in reverse order, where it ends. Jumps
//! need nothing of their own: `return`, `break` and `continue` are flags that skip the rest of
//! the statements (stmt.rs), and control always reaches the end of every scope it entered, so
//! the cleanups there run for every way out. An object built in a branch that may not have run
//! (`c ? T(1).v : 0`, a declaration after a `switch` label) is destroyed only if it was built:
//! a flag in memory, set where it is built, reset where it is destroyed.
//!
//! Temporaries are clang's: a `CXXBindTemporaryExpr` is an object destroyed at the end of its
//! full-expression, or of the scope of the reference a `MaterializeTemporaryExpr` binds it to.
//! By-value parameters of classes with a non-trivial copy, move or destructor are the caller's
//! temporaries, passed by address and destroyed by the caller (the Itanium C++ ABI), so the
//! callee's changes to its parameter are what the destructor sees. A local returned by the
//! named return value optimization is the return value: it is not destroyed (clang's flag).

use clang_sys::*;
use melior::dialect::arith::{self, CmpiPredicate};
use melior::ir::{Location, ValueLike};

use super::analysis::is_loop;
use super::builder::{internal, Value};
use super::expr::LValue;
use super::function::{FunctionCodegen, Val};
use super::virtual_bases::{has_virtual_bases, virtual_bases_at};
use crate::clang::{CType, Cursor, LifetimeNode};
use crate::error::{FrontendError, Result};
use crate::types::Ty;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeKind {
    /// A block, a statement's own scope, a function: where locals (and temporaries bound to
    /// references) live.
    Block,
    /// A full-expression: where temporaries live.
    FullExpression,
}

/// A scope being emitted and what to destroy when it ends.
pub struct Scope<'c> {
    kind: ScopeKind,
    /// How many regions enclose the scope's start: a cleanup registered deeper is conditional.
    region_depth: usize,
    /// How many loops enclose the scope's start.
    loops: usize,
    cleanups: Vec<Cleanup<'c>>,
}

/// An object to destroy.
struct Cleanup<'c> {
    /// Its address: a value of the function's entry block (an alloca, or computed from `this`
    /// before the body), so that it is valid where the scope ends.
    object: Value<'c>,
    ty: CType,
    /// Where it was built (locations and errors).
    site: Cursor,
    /// Set when the object was built, for an object built in a region that may not have run.
    built: Option<Value<'c>>,
    /// Set when the object became the function's return value (named return value).
    returned: Option<Value<'c>>,
    /// A base subobject (its virtual bases are the complete object's to destroy), with the
    /// context its destructor runs in when its class has virtual bases (virtual_bases.rs).
    subobject: Option<Option<Value<'c>>>,
}

impl<'c> FunctionCodegen<'c, '_> {
    /// Runs `f` in a new scope of `kind`; what was built in it is destroyed at its end.
    pub fn scoped<T>(
        &mut self,
        kind: ScopeKind,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        self.scopes.push(Scope {
            kind,
            region_depth: self.region_depth,
            loops: self.loop_depth(),
            cleanups: Vec::new(),
        });
        let out = f(self);
        let scope = self.scopes.pop();
        let out = out?;
        if let Some(scope) = scope {
            for cleanup in scope.cleanups.iter().rev() {
                self.run_cleanup(cleanup)?;
            }
        }
        Ok(out)
    }

    /// A block's scope (see [`Self::scoped`]).
    pub fn block<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.scoped(ScopeKind::Block, f)
    }

    /// A full-expression: its temporaries are destroyed at its end.
    pub fn full_expression<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.scoped(ScopeKind::FullExpression, f)
    }

    fn loop_depth(&self) -> usize {
        self.targets.iter().filter(|t| is_loop(t)).count()
    }

    /// Whether destroying an object of type `ty` does something: a class with a non-trivial
    /// destructor, or an array of them.
    pub fn needs_destruction(&self, ty: CType) -> bool {
        let ty = ty.canonical();
        match ty.kind() {
            CXType_ConstantArray | CXType_IncompleteArray => self.needs_destruction(ty.element()),
            CXType_Record => ty
                .destructor()
                .is_some_and(|info| info.destructor.is_some()),
            _ => false,
        }
    }

    /// Destroys the object at `object` (of type `ty`, built at `site`) when the innermost scope
    /// ends, or the innermost block's for a temporary whose lifetime a reference `extended`.
    /// `returned` is the named-return-value flag of a local that may become the return value.
    pub fn destroy_at_scope_end(
        &mut self,
        object: Value<'c>,
        ty: CType,
        site: &Cursor,
        extended: bool,
        returned: Option<Value<'c>>,
    ) -> Result<()> {
        if !self.needs_destruction(ty) {
            return Ok(());
        }
        let loc = self.loc(site);
        let index = match extended {
            true => self.scopes.iter().rposition(|s| s.kind == ScopeKind::Block),
            false => self.scopes.len().checked_sub(1),
        }
        .ok_or_else(|| internal(loc, "an object with a destructor outside any scope"))?;
        let scope = &self.scopes[index];
        if scope.loops != self.loop_depth() {
            // A scope ends once per loop iteration that enters it; one outside the loop would
            // destroy only the last of the objects built in it.
            return Err(FrontendError::unsupported(
                site.location(),
                "an object with a destructor whose lifetime ends outside the loop that builds it",
            ));
        }
        let built = match scope.region_depth == self.region_depth {
            true => None,
            false => {
                let flag = self.flag_in_memory(loc)?;
                self.set_flag_in_memory(flag, true, loc)?;
                Some(flag)
            }
        };
        self.scopes[index].cleanups.push(Cleanup {
            object,
            ty,
            site: *site,
            built,
            returned,
            subobject: None,
        });
        Ok(())
    }

    /// A flag (a byte) in private memory, false from the function's start.
    pub fn flag_in_memory(&mut self, loc: Location<'c>) -> Result<Value<'c>> {
        let flag = self.alloca(&FLAG, loc)?;
        // Stored right after the alloca, ahead of any use.
        let saved = self.b;
        self.b = self.entry.after(flag);
        let out = self
            .b
            .const_int(FLAG.value_mlir(self.ctx()), 0, loc)
            .and_then(|clear| {
                self.b = self.entry.after(clear);
                self.store(&flag_slot(flag), Val::Scalar(clear), loc)
            });
        self.b = saved;
        out.map(|()| flag)
    }

    pub fn set_flag_in_memory(
        &mut self,
        flag: Value<'c>,
        value: bool,
        loc: Location<'c>,
    ) -> Result<()> {
        let v = self
            .b
            .const_int(FLAG.value_mlir(self.ctx()), value as i64, loc)?;
        self.store(&flag_slot(flag), Val::Scalar(v), loc)
    }

    fn flag_is_set(&mut self, flag: Value<'c>, loc: Location<'c>) -> Result<Value<'c>> {
        let v = self.load(&flag_slot(flag), loc)?.scalar();
        let zero = self.b.const_int(v.r#type(), 0, loc)?;
        // arith.cmpi predicate 1 is `ne`.
        self.b.cmpi(CmpiPredicate::Ne, v, zero, loc)
    }

    fn run_cleanup(&mut self, cleanup: &Cleanup<'c>) -> Result<()> {
        let loc = self.loc(&cleanup.site);
        let mut run = None;
        if let Some(flag) = cleanup.built {
            run = Some(self.flag_is_set(flag, loc)?);
        }
        if let Some(flag) = cleanup.returned {
            let returned = self.flag_is_set(flag, loc)?;
            let kept = self.not(returned, loc)?;
            run = Some(match run {
                Some(built) => self.b.insert_value(arith::andi(built, kept, loc))?,
                None => kept,
            });
        }
        let (object, ty, site) = (cleanup.object, cleanup.ty, cleanup.site);
        let destroy = |this: &mut Self| match cleanup.subobject {
            Some(context) => this.destroy_subobject(object, ty, context, &site),
            None => this.destroy(object, ty, &site),
        };
        match run {
            None => destroy(self)?,
            Some(run) => {
                self.emit_guarded(run, &[], destroy, loc)?;
            }
        }
        if let Some(flag) = cleanup.built {
            // Clear for the next time the scope runs (a loop's next iteration).
            self.set_flag_in_memory(flag, false, loc)?;
        }
        Ok(())
    }

    /// Destroys the object of type `ty` at `object`: its destructor, or each element's, last
    /// first.
    pub fn destroy(&mut self, object: Value<'c>, ty: CType, site: &Cursor) -> Result<()> {
        let loc = self.loc(site);
        let ty = ty.canonical();
        match ty.kind() {
            CXType_ConstantArray => {
                let element = ty.element();
                let element_ty = Ty::from_clang(element, &site.location())?;
                let count =
                    self.b
                        .const_int(Ty::LONG.value_mlir(self.ctx()), ty.array_len(), loc)?;
                self.for_each_element(object, &element_ty, count, true, site, |this, at| {
                    this.destroy(at, element, site)
                })
            }
            CXType_Record => {
                self.destroy_subobject(object, ty, None, site)?;
                // A complete object: then its virtual bases, last built first.
                if ty.virtual_bases().is_empty() {
                    return Ok(());
                }
                let this = self.to_generic(object, loc)?;
                self.destroy_virtual_bases(this, ty, site)
            }
            _ => Ok(()),
        }
    }

    /// Destroys the object of class `ty` at `object` as a base subobject: its destructor,
    /// which leaves its virtual bases, in `context` (when its class has virtual bases; None is a
    /// complete object's).
    pub fn destroy_subobject(
        &mut self,
        object: Value<'c>,
        ty: CType,
        context: Option<Value<'c>>,
        site: &Cursor,
    ) -> Result<()> {
        let loc = self.loc(site);
        let Some(destructor) = self.destructor_of(ty.canonical(), site)? else {
            return Ok(());
        };
        if let Some(context) = context {
            self.base_construction = Some((ty.canonical().declaration().canonical(), context));
        }
        let this = self.to_generic(object, loc)?;
        self.call_function(&destructor, Some(this), &[], site)
            .map(|_| ())
    }

    /// After the destructor of a complete object of class `class` at `object` (generic): its
    /// virtual bases' destructors, last built first.
    pub fn destroy_virtual_bases(
        &mut self,
        object: Value<'c>,
        class: CType,
        site: &Cursor,
    ) -> Result<()> {
        let loc = self.loc(site);
        for (vbase, offset) in virtual_bases_at(class.canonical(), site)?.into_iter().rev() {
            let Some(destructor) = self.destructor_of(vbase, site)? else {
                continue;
            };
            let at = self.byte_offset(object, offset as i64, loc)?;
            if has_virtual_bases(vbase) {
                // The context its constructor ran in.
                let context = self.virtual_base_context(class.canonical(), offset as i64, loc)?;
                self.base_construction = Some((vbase.declaration().canonical(), context));
            }
            self.call_function(&destructor, Some(at), &[], site)?;
        }
        Ok(())
    }

    /// The destructor to call on an object of class type `ty` (`None`: nothing to do).
    pub fn destructor_of(&self, ty: CType, site: &Cursor) -> Result<Option<Cursor>> {
        let Some(info) = ty.canonical().destructor() else {
            return Ok(None);
        };
        // An object whose type is known (a local, a member, a base) is destroyed by its own
        // class's destructor, virtual or not.
        let _ = site;
        Ok(info.destructor)
    }

    /// In a destructor, before its body: its class's members, then its bases, are to be
    /// destroyed after the body (each in reverse order of declaration), as the function's scope
    /// ends.
    pub fn destroy_members_after_body(&mut self, destructor: &Cursor) -> Result<()> {
        let loc = self.loc(destructor);
        let class = destructor
            .semantic_parent()
            .map(|c| c.ty().canonical())
            .ok_or_else(|| internal(loc, "destructor outside a class"))?;
        if class.declaration().kind() == CXCursor_UnionDecl {
            // A union's members are not destroyed by it.
            return Ok(());
        }
        let this = self.env[&super::analysis::VarKey::This].val.scalar();
        // The context the bases' destructors run in, as their constructors did.
        let parent = match has_virtual_bases(class) {
            true => Some(self.construction_parent(class, loc)?.1),
            false => None,
        };
        for base in class.bases() {
            let base_ty = base.ty();
            // A virtual base is the complete object's to destroy (`destroy`).
            if base.is_virtual_base() || !self.needs_destruction(base_ty) {
                continue;
            }
            let Some(offset) = class.base_offset(&base_ty) else {
                return Err(FrontendError::unsupported(
                    base.location(),
                    "destroying this base class",
                ));
            };
            let at = self.byte_offset(this, offset as i64, loc)?;
            let context = match parent {
                Some(parent) if has_virtual_bases(base_ty) => {
                    Some(self.base_construction_context(parent, offset as i64, loc)?)
                }
                _ => None,
            };
            self.destroy_at_scope_end(at, base_ty, destructor, false, None)?;
            if let Some(cleanup) = self.scopes.last_mut().and_then(|s| s.cleanups.last_mut()) {
                cleanup.subobject = Some(context);
            }
        }
        let record = Ty::from_clang(class, &destructor.location())?;
        let Ty::Record(r) = &record else {
            return Err(internal(loc, "destructor of a non-record"));
        };
        for (field, decl) in r.fields.iter().zip(&r.field_decls) {
            if decl.ty().is_reference() || !self.needs_destruction(decl.ty()) {
                continue;
            }
            let at = self.field_pointer(this, &record, field.llvm_index, loc)?;
            self.destroy_at_scope_end(at, decl.ty(), destructor, false, None)?;
        }
        Ok(())
    }

    /// The address of the temporary object a prvalue is materialized in: built there (by its
    /// constructor, a call's result, a list), and destroyed where clang's AST says (at the end
    /// of the full-expression, or of the scope of the reference it is bound to). With
    /// `callers_argument`, the object is a by-value argument of a class passed by address, which
    /// the caller destroys after the call.
    pub fn materialize(&mut self, e: &Cursor, callers_argument: bool) -> Result<Value<'c>> {
        let loc = self.loc(e);
        let mut inner = *e;
        let mut extended = false;
        let mut bound = false;
        loop {
            let node = inner.lifetime_node();
            let children = inner.children();
            let [child] = children.as_slice() else {
                break;
            };
            match (inner.kind(), node) {
                (CXCursor_ParenExpr, _) => {}
                (_, Some(LifetimeNode::Materialize { extended: e })) => extended |= e,
                (_, Some(LifetimeNode::BindTemporary)) => bound = true,
                (_, Some(LifetimeNode::FullExpression)) => {}
                (_, Some(LifetimeNode::StaticTemporary)) => {
                    return Err(FrontendError::unsupported(
                        e.location(),
                        "a temporary bound to a reference of static storage duration",
                    ))
                }
                // A conversion that keeps the class (adding `const`).
                (CXCursor_UnexposedExpr, None) if same_class(&inner, child) => {}
                _ => break,
            }
            inner = *child;
        }
        let ty = Ty::of(&inner)?;
        let object = self.alloca(&ty, loc)?;
        self.initialize(object, &ty, &inner)?;
        if bound || callers_argument {
            self.destroy_at_scope_end(object, inner.ty(), e, extended, None)?;
        }
        self.to_generic(object, loc)
    }

    /// An initializer under the nodes that only say it makes a temporary: where it initializes
    /// an object destroyed by its owner (a variable, member, element, the return value), clang
    /// builds it in place and destroys no temporary.
    pub fn in_place(init: &Cursor) -> Cursor {
        let mut e = *init;
        loop {
            let children = e.children();
            let [child] = children.as_slice() else {
                return e;
            };
            match (e.kind(), e.lifetime_node()) {
                (CXCursor_ParenExpr, _)
                | (_, Some(LifetimeNode::BindTemporary | LifetimeNode::FullExpression)) => {}
                (CXCursor_UnexposedExpr, None) if same_class(&e, child) => {}
                _ => return e,
            }
            e = *child;
        }
    }

    /// Whether an expression is (under parentheses) one of clang's temporary objects.
    pub fn is_temporary(e: &Cursor) -> bool {
        let mut e = *e;
        while e.kind() == CXCursor_ParenExpr
            || e.lifetime_node() == Some(LifetimeNode::FullExpression)
        {
            match e.children().as_slice() {
                [only] => e = *only,
                _ => return false,
            }
        }
        matches!(
            e.lifetime_node(),
            Some(LifetimeNode::Materialize { .. } | LifetimeNode::BindTemporary)
        )
    }

    /// A temporary object read as a value: materialized (and destroyed as clang says), then
    /// loaded.
    pub fn temporary_value(&mut self, e: &Cursor) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let object = self.materialize(e, false)?;
        self.load(
            &LValue::Mem {
                ptr: object,
                ty: Ty::of(e)?,
                volatile: false,
            },
            loc,
        )
    }
}

impl<'c> FunctionCodegen<'c, '_> {
    /// For `return x;` of a local built in the return slot (the named return value
    /// optimization): the local's value, which is the result; the local is then not destroyed.
    pub fn named_return_value(&mut self, ret: &Cursor) -> Result<Option<Val<'c>>> {
        let Some(var) = ret.nrvo_variable() else {
            return Ok(None);
        };
        let Some(flag) = self.nrvo_flags.get(&var.canonical()).copied() else {
            return Ok(None);
        };
        let loc = self.loc(ret);
        let key = super::analysis::VarKey::Decl(var.canonical());
        let binding = self
            .env
            .get(&key)
            .cloned()
            .ok_or_else(|| internal(loc, "returned variable without a home"))?;
        let value = self.load(
            &LValue::Mem {
                ptr: binding.val.scalar(),
                ty: binding.ty,
                volatile: false,
            },
            loc,
        )?;
        self.set_flag_in_memory(flag, true, loc)?;
        Ok(Some(value))
    }
}

/// A flag in memory is a byte.
const FLAG: Ty = Ty::Int {
    bits: 8,
    signed: false,
};

/// The memory of a flag made by `flag_in_memory`.
fn flag_slot(flag: Value<'_>) -> LValue<'_> {
    LValue::Mem {
        ptr: flag,
        ty: FLAG,
        volatile: false,
    }
}

/// Whether two expressions have the same class type (qualifiers aside).
fn same_class(a: &Cursor, b: &Cursor) -> bool {
    let (a, b) = (a.ty().canonical(), b.ty().canonical());
    a.kind() == CXType_Record
        && b.kind() == CXType_Record
        && a.declaration().canonical() == b.declaration().canonical()
}
