//! Lambdas in device code: called where written, held by the local they initialize, or passed to
//! functions. Each becomes a device function (later inlined like any other) whose leading
//! parameters are its captures: the value a by-copy capture had when the lambda was created, the
//! address of a by-reference one (which therefore lives in memory). A lambda passed to a function
//! is passed as its captures too: its closure type is unique, so the function's instance for it
//! knows which lambda its parameter holds. A lambda in memory (a member, an element, a local
//! whose address is taken or that a stored lambda captures by reference: lambda_objects.rs) is
//! its closure object, whose fields its calls use.

use clang_sys::*;

use super::analysis::VarKey;
use super::builder::{internal, Value};
use super::copy_construction::copies_by_constructor;
use super::expr::LValue;
use super::function::{FunctionCodegen, LambdaValue, Val};
use super::module::ModuleCodegen;
use crate::captures::{is_mutable, lambda_captures, Captured, LambdaCapture};
use crate::clang::{Binding, CType, Cursor};
use crate::error::{FrontendError, Result};
use crate::types::Ty;
use melior::ir::Location;

/// The lambda an initializer is, if it is one.
pub fn lambda_expression(init: &Cursor) -> Option<Cursor> {
    let e = init.without_implicit();
    (e.kind() == CXCursor_LambdaExpr).then_some(e)
}

impl<'c> FunctionCodegen<'c, '_> {
    /// `auto f = [...](...) {...};`: the closure object is created now (see
    /// [`Self::create_lambda`]) and held by the local.
    pub fn bind_lambda(&mut self, decl: &Cursor, lambda: &Cursor) -> Result<()> {
        let held = self.create_lambda(lambda, false)?;
        self.hold_lambda(decl, held, lambda)
    }

    /// Binds local `decl` to the lambda `held`: as its captures, or, when it must be an object
    /// (its address is needed: lambda_objects.rs), as its closure object in memory of its own, laid
    /// out as clang lays out the closure type, whose fields its calls use in place (see
    /// [`Self::lambda_in_object`]; a mutable lambda's state is the object's, which every
    /// pointer to it shares).
    pub(super) fn hold_lambda(
        &mut self,
        decl: &Cursor,
        held: LambdaValue<'c>,
        at: &Cursor,
    ) -> Result<()> {
        if !self.lambda_objects.contains(&decl.canonical()) {
            self.lambdas.insert(decl.canonical(), held);
            return Ok(());
        }
        let loc = self.loc(decl);
        let ty = Ty::of(decl)?;
        let object = self.alloca(&ty, loc)?;
        self.store_closure(&held, object, &ty, at)?;
        self.bind_memory(VarKey::Decl(decl.canonical()), ty, object);
        Ok(())
    }

    /// `auto g = f;` of a local `f` holding a lambda: `g` holds a copy of the closure object
    /// (state of its own for a mutable lambda). False when `init` is not such a copy.
    pub fn bind_lambda_copy(&mut self, decl: &Cursor, init: &Cursor) -> Result<bool> {
        let source = without_closure_copy(init);
        if closure_type_key(source.ty()).is_none() || source.kind() != CXCursor_DeclRefExpr {
            return Ok(false);
        }
        let Some(held) = self.held_lambda(&source) else {
            return Ok(false);
        };
        let copy = self.copy_lambda(&held, closure_copy_constructor(init), init)?;
        self.hold_lambda(decl, copy, init)?;
        Ok(true)
    }

    /// The closure object of `lambda`, created here: by-copy captures take their values now (a
    /// scalar as a value; an object, or any capture of a mutable lambda, as a copy in memory,
    /// the closure's own state), init-captures evaluate their initializers, and captures by
    /// reference are read at each call. A lambda called or passed `in_place` where it is
    /// written and not mutable reads objects in place (nothing changes them in between), unless
    /// copying one runs code (a written copy constructor or a destructor): that copy is made,
    /// as clang's capture initializer says, and destroyed with the closure.
    fn create_lambda(&mut self, lambda: &Cursor, in_place: bool) -> Result<LambdaValue<'c>> {
        let loc = self.loc(lambda);
        let mutable = is_mutable(lambda);
        let mut held = LambdaValue::written(*lambda);
        // The closure's fields and clang's initializers of them, one for each capture in order.
        let closure_fields = lambda.ty().canonical().fields();
        let inits = lambda.lambda_capture_inits().unwrap_or_default();
        let init_of = |index: usize| {
            inits
                .get(index)
                .copied()
                .flatten()
                .ok_or_else(|| internal(loc, "capture without its initializer"))
        };
        for (index, capture) in self.captures_of(lambda)?.into_iter().enumerate() {
            let key = capture_key(&capture);
            match capture.captured {
                Captured::This if !capture.by_ref && mutable => {
                    return Err(FrontendError::unsupported(
                        lambda.location(),
                        "mutable lambda capturing '*this'",
                    ))
                }
                Captured::This | Captured::Variable(_) if capture.by_ref => {}
                Captured::This => {
                    // `[*this]`: a copy of the object, read in place where nothing can tell.
                    let class = closure_fields
                        .get(index)
                        .map(|f| f.ty())
                        .ok_or_else(|| internal(loc, "'*this' capture without its field"))?;
                    if in_place && !self.copy_runs_code(class) {
                        continue;
                    }
                    let ty = Ty::from_clang(class, &lambda.location())?;
                    let copy = self.capture_copy(&ty, class, &init_of(index)?, lambda)?;
                    let this = Ty::Pointer {
                        pointee: Box::new(ty),
                    };
                    held.copies.insert(key, (Val::Scalar(copy), this));
                }
                Captured::Init(decl) => {
                    let init = decl
                        .var_initializer()
                        .ok_or_else(|| internal(loc, "init-capture without an initializer"))?;
                    let ty = Ty::from_clang(decl.ty().non_reference(), &decl.location())?;
                    if capture.by_ref {
                        let address = self.full_expression(|this| this.object_address(&init))?;
                        held.copied_objects.insert(key, (address, ty));
                    } else if ty.is_aggregate() || mutable {
                        let ptr = self.alloca(&ty, loc)?;
                        self.full_expression(|this| this.initialize(ptr, &ty, &init))?;
                        self.destroy_at_scope_end(ptr, decl.ty(), lambda, false, None)?;
                        held.copied_objects.insert(key, (ptr, ty));
                    } else {
                        let value = self.full_expression(|this| this.rvalue_as(&init, &ty))?;
                        held.copies.insert(key, (value, ty));
                    }
                }
                Captured::Variable(decl) => {
                    if let Some(inner) = self.captured_lambda(&capture) {
                        // A lambda captured by copy: the closure's own copy is made now, when
                        // copying runs code or the copy has state of its own; an immutable
                        // one's captures are read where they are.
                        if self.closure_copy_runs_code(&inner)? || is_mutable(&inner.lambda) {
                            let init = init_of(index)?;
                            let ctor = closure_copy_constructor(&init);
                            let copy = self.copy_lambda(&inner, ctor, &init)?;
                            held.copied_lambdas.insert(decl, copy);
                        }
                        continue;
                    }
                    let init = inits.get(index).copied().flatten();
                    self.capture_variable(&mut held, &capture, init, mutable, in_place, lambda)?;
                }
            }
        }
        Ok(held)
    }

    /// A by-copy capture of a variable (or a structured binding) as [`Self::create_lambda`]
    /// holds it (see there); `init` is clang's initializer of its field.
    fn capture_variable(
        &mut self,
        held: &mut LambdaValue<'c>,
        capture: &LambdaCapture,
        init: Option<Cursor>,
        mutable: bool,
        in_place: bool,
        lambda: &Cursor,
    ) -> Result<()> {
        let loc = self.loc(lambda);
        let key = capture_key(capture);
        // A variable not bound here is reported where the lambda is called.
        let Some(b) = self.env.get(&key).cloned() else {
            if let Some(binding) = capture.decl().and_then(|d| d.binding()) {
                self.capture_bit_field_binding(held, key, &binding, mutable)?;
            }
            return Ok(());
        };
        // An object whose copy runs code is copied as clang's initializer says.
        let constructed =
            b.in_memory && capture_type(capture).is_some_and(|t| self.copy_runs_code(t));
        if !mutable && !constructed && (!b.in_memory || in_place) {
            if !b.in_memory {
                held.copies.insert(key, (b.val, b.ty));
            }
            return Ok(());
        }
        let copy = if constructed {
            let class =
                capture_type(capture).ok_or_else(|| internal(loc, "capture without a variable"))?;
            let init = init.ok_or_else(|| internal(loc, "capture without its initializer"))?;
            self.capture_copy(&b.ty, class, &init, lambda)?
        } else {
            let copy = self.alloca(&b.ty, loc)?;
            if b.in_memory {
                self.copy_object(copy, b.val.scalar(), &b.ty, loc)?;
            } else {
                let place = LValue::Mem {
                    ptr: copy,
                    ty: b.ty.clone(),
                    volatile: false,
                };
                self.store(&place, b.val, loc)?;
            }
            copy
        };
        held.copied_objects.insert(key, (copy, b.ty.clone()));
        Ok(())
    }

    /// A structured binding to a bit-field captured by copy (C++ allows no other capture of
    /// one): it has no address to bind, so its value, read now, is the closure's copy (in
    /// memory of its own for a mutable lambda, whose calls change it).
    fn capture_bit_field_binding(
        &mut self,
        held: &mut LambdaValue<'c>,
        key: VarKey,
        binding: &Binding,
        mutable: bool,
    ) -> Result<()> {
        let loc = self.loc(&binding.expression);
        let ty = Ty::of(&binding.expression)?;
        let value = self.full_expression(|this| this.rvalue_as(&binding.expression, &ty))?;
        if !mutable {
            held.copies.insert(key, (value, ty));
            return Ok(());
        }
        let copy = self.alloca(&ty, loc)?;
        let place = LValue::Mem {
            ptr: copy,
            ty: ty.clone(),
            volatile: false,
        };
        self.store(&place, value, loc)?;
        held.copied_objects.insert(key, (copy, ty));
        Ok(())
    }

    /// Whether copying a captured object of type `ty` runs code: a written copy constructor
    /// (of its class or a part), or a destructor the copy will need.
    fn copy_runs_code(&self, ty: CType) -> bool {
        copies_by_constructor(ty) || self.needs_destruction(ty)
    }

    /// The closure's copy of a captured object of type `ty` (`cty`), built by clang's capture
    /// initializer `init` (the copy constructor clang chose, element by element for an array)
    /// and destroyed with the closure, at the end of the innermost scope. Its generic address.
    fn capture_copy(
        &mut self,
        ty: &Ty,
        cty: CType,
        init: &Cursor,
        at: &Cursor,
    ) -> Result<Value<'c>> {
        let loc = self.loc(at);
        let copy = self.alloca(ty, loc)?;
        self.full_expression(|this| this.initialize(copy, ty, init))?;
        self.destroy_at_scope_end(copy, cty, at, false, None)?;
        self.to_generic(copy, loc)
    }

    /// A copy of a closure object, made by `copy` (the closure's copy or move constructor, as
    /// clang names it where the closure is copied; None where clang copies no closure object):
    /// the same values, a mutable lambda's state copied to memory of the copy's own. A closure
    /// holding an object whose copy runs code is copied as C++ does it, by the closure's
    /// constructor, into a closure object of its own (destroyed at the end of the innermost
    /// scope), whose fields the copy's captures are.
    fn copy_lambda(
        &mut self,
        held: &LambdaValue<'c>,
        copy: Option<Cursor>,
        site: &Cursor,
    ) -> Result<LambdaValue<'c>> {
        let loc = self.loc(site);
        let captures = self.captures_of(&held.lambda)?;
        if self.closure_copy_runs_code(held)? {
            return match copy {
                Some(ctor) => self.copy_closure_object(held, &ctor, site),
                // Every copy clang writes names the closure's constructor; a lambda captured by
                // another is copied when that one is made (see `create_lambda`).
                None => Err(internal(
                    loc,
                    "a closure copy that runs code without the closure's constructor",
                )),
            };
        }
        let mut out = held.clone();
        // The lambdas it holds copies of have state of their own in its copy too.
        for inner in out.copied_lambdas.values_mut() {
            *inner = self.copy_lambda(inner, None, site)?;
        }
        if is_mutable(&held.lambda) {
            for capture in captures.iter().filter(|c| !c.by_ref) {
                if let Some((address, ty)) = out.copied_objects.get_mut(&capture_key(capture)) {
                    let fresh = self.alloca(ty, loc)?;
                    self.copy_object(fresh, *address, ty, loc)?;
                    *address = fresh;
                }
            }
        }
        Ok(out)
    }

    /// Whether copying the closure of `held` runs code: a capture by copy whose copy does.
    fn closure_copy_runs_code(&self, held: &LambdaValue<'c>) -> Result<bool> {
        let captures = self.captures_of(&held.lambda)?;
        let fields = held.lambda.ty().canonical().fields();
        Ok(captures
            .iter()
            .zip(&fields)
            .any(|(c, f)| !c.by_ref && self.copy_runs_code(f.ty())))
    }

    /// The closure object of `held` copied by the closure's constructor `ctor` (compiled from
    /// clang's definition: each capture built by the constructor clang chose, an array element
    /// by element) from an image of the closure in memory: the copy's lambda, its captures the
    /// new object's fields.
    fn copy_closure_object(
        &mut self,
        held: &LambdaValue<'c>,
        ctor: &Cursor,
        site: &Cursor,
    ) -> Result<LambdaValue<'c>> {
        let loc = self.loc(site);
        let closure = held.lambda.ty();
        let ty = Ty::from_clang(closure, &site.location())?;
        let source = self.alloca(&ty, loc)?;
        self.store_closure(held, source, &ty, site)?;
        let target = self.alloca(&ty, loc)?;
        let sig = self.module.declare_device_function(ctor, site)?;
        if sig.params.len() != 2 {
            return Err(internal(
                loc,
                "closure copy constructor taking more than its source",
            ));
        }
        let operands = [self.to_generic(target, loc)?, self.to_generic(source, loc)?];
        self.call_symbol(&sig, &operands, site)?;
        self.destroy_at_scope_end(target, closure, site, false, None)?;
        let target = self.to_generic(target, loc)?;
        self.lambda_from_fields(held.lambda, target, &ty, loc)
    }

    /// Copies the object of type `ty` at `source` to `target`, member by member.
    fn copy_object(
        &mut self,
        target: Value<'c>,
        source: Value<'c>,
        ty: &Ty,
        loc: Location<'c>,
    ) -> Result<()> {
        if !ty.is_aggregate() {
            let from = LValue::Mem {
                ptr: source,
                ty: ty.clone(),
                volatile: false,
            };
            let value = self.load(&from, loc)?;
            let to = LValue::Mem {
                ptr: target,
                ty: ty.clone(),
                volatile: false,
            };
            return self.store(&to, value, loc);
        }
        for (member_ty, path) in self.members(ty, loc)? {
            let to = self.gep(target, ty, &path, loc)?;
            let from = self.gep(source, ty, &path, loc)?;
            self.copy_object(to, from, &member_ty, loc)?;
        }
        Ok(())
    }

    /// A kernel parameter holding the closure object of a lambda written in host code: each
    /// capture is the object's field, used in place (a lambda that is not `mutable` does not
    /// change them).
    pub fn bind_closure_object(
        &mut self,
        param: &Cursor,
        lambda: &Cursor,
        loc: Location<'c>,
    ) -> Result<()> {
        let object = self.env.get(&VarKey::Decl(param.canonical())).cloned();
        let Some(object) = object.filter(|b| b.in_memory) else {
            return Err(internal(loc, "closure parameter without a home"));
        };
        let Ty::Record(record) = &object.ty else {
            return Err(internal(loc, "closure parameter that is no record"));
        };
        let captures = self.captures_of(lambda)?;
        for capture in &captures {
            let name = match capture.decl() {
                Some(d) => format!("'{}'", d.spelling()),
                None => "'this'".to_string(),
            };
            if capture.by_ref {
                // clang rejects by-reference captures of host variables in device lambdas; an
                // init-capture by reference or `[this]` holds a host address all the same.
                return Err(FrontendError::unsupported(
                    lambda.location(),
                    format!(
                        "lambda passed from host code capturing {name} by reference (a host \
                         address, which device code cannot reach; capture a copy{})",
                        if capture.decl().is_none() {
                            ": '*this'"
                        } else {
                            ""
                        }
                    ),
                ));
            }
        }
        let address = object.val.scalar();
        let held = self.lambda_from_fields(*lambda, address, &object.ty, loc)?;
        if record.fields.len() != captures.len() {
            return Err(internal(loc, "closure fields and captures differ"));
        }
        self.lambdas.insert(param.canonical(), held);
        Ok(())
    }

    /// The value of a lambda used as an object (stored in a member or an array element,
    /// returned, assigned): its closure object, laid out as clang lays out the closure type, one
    /// field per capture (an address for a capture by reference). None when `e` is no lambda
    /// that hipmlir holds apart from memory (a lambda written there, or a local holding one).
    pub fn closure_value(&mut self, e: &Cursor) -> Result<Option<Val<'c>>> {
        if closure_type_key(e.ty()).is_none() {
            return Ok(None);
        }
        let source = without_closure_copy(e);
        let held = match source.kind() {
            CXCursor_LambdaExpr => self.create_lambda(&source, false)?,
            CXCursor_DeclRefExpr => match self.held_lambda(&source) {
                Some(held) => held,
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
        let loc = self.loc(e);
        let ty = Ty::of(e)?;
        let object = self.alloca(&ty, loc)?;
        self.store_closure(&held, object, &ty, e)?;
        self.load(
            &LValue::Mem {
                ptr: object,
                ty,
                volatile: false,
            },
            loc,
        )
        .map(Some)
    }

    /// Writes the captures of `held` into the closure object of type `ty` at `object`.
    fn store_closure(
        &mut self,
        held: &LambdaValue<'c>,
        object: Value<'c>,
        ty: &Ty,
        e: &Cursor,
    ) -> Result<()> {
        let (operands, captures) = self.capture_operands(held, e)?;
        let mut operands = operands.into_iter();
        self.store_captures(&held.lambda, &captures, &mut operands, object, ty, e)
    }

    /// Writes the captures of `lambda`, passed as `captures` with their operands taken from
    /// `operands` in order, into its closure object of type `ty` at `object`; a lambda captured
    /// by copy is written into its field as a closure object of its own.
    fn store_captures(
        &mut self,
        lambda: &Cursor,
        captures: &[Capture],
        operands: &mut impl Iterator<Item = Value<'c>>,
        object: Value<'c>,
        ty: &Ty,
        e: &Cursor,
    ) -> Result<()> {
        let loc = self.loc(e);
        let Ty::Record(record) = ty else {
            return Err(internal(loc, "closure type that is no record"));
        };
        let written = self.captures_of(lambda)?;
        if written.len() != record.fields.len() || captures.len() != written.len() {
            return Err(internal(loc, "closure fields and captures differ"));
        }
        for ((capture, passed), field) in written.iter().zip(captures).zip(&record.fields) {
            let target = self.field_pointer(object, ty, field.llvm_index, loc)?;
            let by_address = match passed {
                // A lambda captured by reference is an object wherever a closure capturing it is
                // stored (lambda_objects.rs); one held as its captures here is a use that
                // reading missed: its closure object was never made.
                Capture::Lambda(decl, ..) if capture.by_ref => {
                    return Err(FrontendError::unsupported(
                        e.location(),
                        format!(
                            "a lambda capturing lambda '{}' by reference, stored where hipmlir \
                             holds '{0}' as its captures (bind a reference to '{0}' to make it \
                             an object)",
                            decl.spelling()
                        ),
                    ))
                }
                Capture::Lambda(_, inner, inner_captures) => {
                    self.store_captures(inner, inner_captures, operands, target, &field.ty, e)?;
                    continue;
                }
                Capture::Value(_, _, by_address) => *by_address,
            };
            let operand = operands
                .next()
                .ok_or_else(|| internal(loc, "capture without its operand"))?;
            // A by-copy capture passed by address (an object, a mutable lambda's state, `*this`)
            // is copied; an address (a capture by reference, `this`) or a value is stored.
            if field.ty.is_aggregate() || (by_address && !capture.by_ref) {
                self.copy_object(target, operand, &field.ty, loc)?;
            } else {
                let place = LValue::Mem {
                    ptr: target,
                    ty: field.ty.clone(),
                    volatile: false,
                };
                self.store(&place, Val::Scalar(operand), loc)?;
            }
        }
        Ok(())
    }

    /// The lambda whose closure object `object` is (a member, an element, a value returned):
    /// its captures are the object's fields, used in place (a mutable lambda's calls change
    /// them, as its state is the object's).
    fn lambda_in_object(&mut self, object: &Cursor) -> Result<LambdaValue<'c>> {
        let address = self.object_address(object)?;
        self.lambda_at(object.ty(), address, object)
    }

    /// The lambda whose closure object, of closure type `closure`, is at `address` (`object`
    /// is the expression naming it or a pointer to it).
    fn lambda_at(
        &mut self,
        closure: CType,
        address: Value<'c>,
        object: &Cursor,
    ) -> Result<LambdaValue<'c>> {
        let loc = self.loc(object);
        let lambda = self
            .module
            .lambda_of_closure(&closure_declaration(closure))
            .ok_or_else(|| not_held(object))?;
        let ty = Ty::from_clang(closure.non_reference(), &object.location())?;
        self.lambda_from_fields(lambda, address, &ty, loc)
    }

    /// The lambda `lambda` whose closure object of type `ty` is at `address`: its captures are
    /// the object's fields.
    fn lambda_from_fields(
        &mut self,
        lambda: Cursor,
        address: Value<'c>,
        ty: &Ty,
        loc: Location<'c>,
    ) -> Result<LambdaValue<'c>> {
        let Ty::Record(record) = ty else {
            return Err(internal(loc, "closure type that is no record"));
        };
        let captures = self.captures_of(&lambda)?;
        if captures.len() != record.fields.len() {
            return Err(internal(loc, "closure fields and captures differ"));
        }
        let mut held = LambdaValue::written(lambda);
        let declared = lambda.ty().canonical().fields();
        for ((capture, field), declared) in captures.iter().zip(&record.fields).zip(&declared) {
            let key = capture_key(capture);
            let place = self.field_pointer(address, ty, field.llvm_index, loc)?;
            let place = self.to_generic(place, loc)?;
            // A lambda captured by copy: its closure object is the field, whose fields its
            // captures are.
            let inner = match (&capture.captured, capture.by_ref) {
                (Captured::Variable(decl), false) if declared.ty().is_lambda_closure() => self
                    .module
                    .lambda_of_closure(&closure_declaration(declared.ty()))
                    .map(|inner| (*decl, inner)),
                _ => None,
            };
            if let Some((decl, inner)) = inner {
                let copy = self.lambda_from_fields(inner, place, &field.ty, loc)?;
                held.copied_lambdas.insert(decl, copy);
                continue;
            }
            match (&capture.captured, capture.by_ref) {
                // `this`: the pointer the closure holds; `*this`: the closure's copy.
                (Captured::This, true) => {
                    let this = self.load(
                        &LValue::Mem {
                            ptr: place,
                            ty: field.ty.clone(),
                            volatile: false,
                        },
                        loc,
                    )?;
                    held.copies.insert(key, (this, field.ty.clone()));
                }
                (Captured::This, false) => {
                    let pointer = Ty::Pointer {
                        pointee: Box::new(field.ty.clone()),
                    };
                    held.copies.insert(key, (Val::Scalar(place), pointer));
                }
                (_, true) => {
                    let pointee =
                        field.ty.pointee().cloned().ok_or_else(|| {
                            internal(loc, "capture by reference without an address")
                        })?;
                    let address = self.load(
                        &LValue::Mem {
                            ptr: place,
                            ty: field.ty.clone(),
                            volatile: false,
                        },
                        loc,
                    )?;
                    held.copied_objects.insert(key, (address.scalar(), pointee));
                }
                (_, false) => {
                    held.copied_objects.insert(key, (place, field.ty.clone()));
                }
            }
        }
        Ok(held)
    }

    fn captures_of(&self, lambda: &Cursor) -> Result<Vec<LambdaCapture>> {
        lambda_captures(lambda)
            .map_err(|(at, what)| FrontendError::unsupported(at.location(), what))
    }

    /// A call of a lambda's `operator()`: `f(args)` for a local `f` holding a lambda, or
    /// `[...](...) {...}(args)`. None when `callee` is not a lambda's.
    pub fn lambda_call(
        &mut self,
        e: &Cursor,
        callee: &Cursor,
        args: &[Cursor],
    ) -> Result<Option<Val<'c>>> {
        let is_lambda_method = callee.spelling() == "operator()"
            && callee
                .semantic_parent()
                .is_some_and(|class| class.is_lambda_class());
        if !is_lambda_method {
            return Ok(None);
        }
        let Some(first) = e.children().first().map(Cursor::without_implicit) else {
            return Ok(None);
        };
        // `f(x)` names the object first; `f.operator()(x)` and `p->operator()(x)` the member,
        // whose expression is the object or a pointer to it.
        let names_call_operator = first
            .referenced()
            .is_some_and(|m| m.kind() == CXCursor_CXXMethod);
        let (object, arrow) = match first.kind() {
            CXCursor_MemberRefExpr if names_call_operator => {
                let base = first
                    .children()
                    .into_iter()
                    .find(|c| c.is_expression())
                    .map(|c| c.without_implicit())
                    .ok_or_else(|| internal(self.loc(e), "lambda call without its object"))?;
                let arrow = Ty::of(&base)?.is_pointer();
                (base, arrow)
            }
            _ => (first, false),
        };
        let held = match object.kind() {
            _ if arrow => {
                let address = self.rvalue(&object)?.scalar();
                self.lambda_at(object.ty().pointee(), address, &object)?
            }
            CXCursor_LambdaExpr => self.create_lambda(&object, true)?,
            _ => match self.held_lambda(&object) {
                Some(held) => held,
                None => self.lambda_in_object(&object)?,
            },
        };
        let (operands, captures) = self.capture_operands(&held, e)?;
        let (operands, captures) = self.closure_convention(&held.lambda, operands, captures, e)?;
        let params = callee.arguments();
        let own_args = &args[args.len().saturating_sub(params.len())..];
        // Lambdas among the arguments first: the signature takes their captures.
        let closures = self.closure_arguments(callee, own_args)?;
        let sig = self.module.declare_lambda(callee, &held.lambda, captures)?;
        let value = self.call_with_leading(callee, &sig, operands, own_args, closures, e)?;
        Ok(Some(value))
    }

    /// Binds a captured variable inside a lambda's function (or a function given the lambda):
    /// by address, or as a value (in memory if its address is taken there).
    pub fn bind_capture(
        &mut self,
        key: VarKey,
        ty: &Ty,
        by_address: bool,
        arg: Value<'c>,
        loc: Location<'c>,
    ) -> Result<()> {
        let in_memory = matches!(&key, VarKey::Decl(d) if self.memory_locals.contains(d));
        if by_address {
            self.bind_memory(key, ty.clone(), arg);
        } else if in_memory {
            let ptr = self.alloca(ty, loc)?;
            let place = LValue::Mem {
                ptr,
                ty: ty.clone(),
                volatile: false,
            };
            self.store(&place, Val::Scalar(arg), loc)?;
            self.bind_memory(key, ty.clone(), ptr);
        } else {
            self.bind(key, ty.clone(), Val::Scalar(arg));
        }
        Ok(())
    }

    /// The lambda an expression names: a lambda written there, or a local or parameter holding
    /// one.
    fn held_lambda(&self, e: &Cursor) -> Option<LambdaValue<'c>> {
        match e.kind() {
            CXCursor_LambdaExpr => Some(LambdaValue::written(*e)),
            CXCursor_DeclRefExpr => e
                .referenced()
                .and_then(|d| self.lambdas.get(&d.canonical()))
                .cloned(),
            _ => None,
        }
    }

    /// The lambda a capture names when it captures a local holding one.
    fn captured_lambda(&self, capture: &LambdaCapture) -> Option<LambdaValue<'c>> {
        match capture.captured {
            Captured::Variable(d) if !self.env.contains_key(&VarKey::Decl(d)) => {
                self.lambdas.get(&d).cloned()
            }
            _ => None,
        }
    }

    /// Binds the parameters standing for captures (a lambda's own, or those of a lambda passed
    /// to a function) to what they name; `lambda` is the lambda whose captures they are.
    pub fn bind_captures(
        &mut self,
        captures: &[Capture],
        lambda: &Cursor,
        args: &mut impl Iterator<Item = Value<'c>>,
        loc: Location<'c>,
    ) -> Result<()> {
        let missing = || internal(loc, "lambda capture without a parameter");
        for capture in captures {
            match capture {
                Capture::Value(key, ty, by_address) => {
                    let arg = args.next().ok_or_else(missing)?;
                    self.bind_capture(key.clone(), ty, *by_address, arg, loc)?;
                    if *key == VarKey::This && self.this_class.is_none() {
                        self.this_class = class_of_this(lambda);
                    }
                }
                Capture::Lambda(decl, inner, inner_captures) => {
                    let held = self.rebuild_lambda(inner, inner_captures, args, loc)?;
                    self.lambdas.insert(*decl, held);
                }
            }
        }
        Ok(())
    }

    /// A captured lambda's closure rebuilt from its captures, read from the parameters `args`
    /// only; the lambdas it captures in turn rebuilt the same way (one it captures by copy is
    /// its own copy, one by reference the lambda its enclosing function names).
    fn rebuild_lambda(
        &mut self,
        lambda: &Cursor,
        captures: &[Capture],
        args: &mut impl Iterator<Item = Value<'c>>,
        loc: Location<'c>,
    ) -> Result<LambdaValue<'c>> {
        let missing = || internal(loc, "lambda capture without a parameter");
        let mut held = LambdaValue::written(*lambda);
        let written = self.captures_of(lambda)?;
        for c in captures {
            match c {
                Capture::Value(key, ty, true) => {
                    let arg = args.next().ok_or_else(missing)?;
                    held.copied_objects.insert(key.clone(), (arg, ty.clone()));
                }
                Capture::Value(key, ty, false) => {
                    let arg = args.next().ok_or_else(missing)?;
                    held.copies
                        .insert(key.clone(), (Val::Scalar(arg), ty.clone()));
                }
                Capture::Lambda(decl, inner, inner_captures) => {
                    let copy = self.rebuild_lambda(inner, inner_captures, args, loc)?;
                    let by_copy = written.iter().any(|w| w.decl() == Some(*decl) && !w.by_ref);
                    match by_copy {
                        true => held.copied_lambdas.insert(*decl, copy),
                        false => self.lambdas.insert(*decl, copy),
                    };
                }
            }
        }
        Ok(held)
    }

    /// The operands that stand for a lambda's captures, and the captures as parameters.
    fn capture_operands(
        &mut self,
        held: &LambdaValue<'c>,
        e: &Cursor,
    ) -> Result<(Vec<Value<'c>>, Vec<Capture>)> {
        let loc = self.loc(e);
        let mut operands: Vec<Value<'c>> = Vec::new();
        let mut captures = Vec::new();
        for capture in self.captures_of(&held.lambda)? {
            let key = capture_key(&capture);
            if let Some((copy, ty)) = held.copied_objects.get(&key) {
                // Held in memory (see `create_lambda`): by address.
                let address = self.to_generic(*copy, loc)?;
                operands.push(address);
                captures.push(Capture::Value(key, ty.clone(), true));
                continue;
            }
            if let Some((value, ty)) = held.copies.get(&key) {
                operands.push(value.scalar());
                captures.push(Capture::Value(key, ty.clone(), false));
                continue;
            }
            // A lambda captured by another: passed as its own captures. One captured by copy
            // is the copy the closure made when it was made (see `create_lambda`), or the
            // lambda itself where nothing can tell the copy from it.
            let copied = match capture.by_ref {
                false => capture
                    .decl()
                    .and_then(|d| held.copied_lambdas.get(&d))
                    .cloned(),
                true => None,
            };
            if let Some(inner) = copied.or_else(|| self.captured_lambda(&capture)) {
                let (inner_operands, inner_captures) = self.capture_operands(&inner, e)?;
                operands.extend(inner_operands);
                let decl = capture
                    .decl()
                    .ok_or_else(|| internal(loc, "captured lambda"))?;
                captures.push(Capture::Lambda(decl, inner.lambda, inner_captures));
                continue;
            }
            let Some(binding) = self.env.get(&key).cloned() else {
                return Err(FrontendError::unsupported(
                    e.location(),
                    match capture.decl() {
                        Some(d) => format!(
                            "lambda capturing '{}' (a lambda, or not a local of this function)",
                            d.spelling()
                        ),
                        None => "lambda capturing 'this' outside a member function".to_string(),
                    },
                ));
            };
            let ty = binding.ty.clone();
            let reference = capture.decl().is_some_and(|d| d.ty().is_reference());
            if binding.in_memory {
                // A by-reference capture, or a copy of an object by a lambda called where it is
                // written (nothing can change the object in between).
                let address = self.to_generic(binding.val.scalar(), loc)?;
                operands.push(address);
                captures.push(Capture::Value(key, ty, true));
            } else if capture.by_ref && reference {
                // A reference captured by reference: the object it names, by its address, as a
                // closure object's field holds it.
                let pointee = ty
                    .pointee()
                    .cloned()
                    .ok_or_else(|| internal(loc, "reference without an address"))?;
                operands.push(self.to_generic(binding.val.scalar(), loc)?);
                captures.push(Capture::Value(key, pointee, true));
            } else {
                operands.push(binding.val.scalar());
                captures.push(Capture::Value(key, ty, false));
            }
        }
        Ok((operands, captures))
    }

    /// A lambda passed to parameter `index` of `callee`: the operands that replace it (its
    /// captures), after recording them under its closure type so the callee's signature and body
    /// can use them. None for any other argument, and for a reference parameter that takes the
    /// closure object itself (see lambda_objects.rs).
    pub fn closure_argument(
        &mut self,
        callee: &Cursor,
        index: usize,
        arg: &Cursor,
    ) -> Result<Option<Vec<Value<'c>>>> {
        let e = without_closure_copy(arg);
        if closure_type_key(e.ty()).is_none()
            || self.module.lambda_objects.takes_object(callee, index)
        {
            return Ok(None);
        }
        let held = match e.kind() {
            CXCursor_LambdaExpr => self.create_lambda(&e, true)?,
            _ => {
                let held = match self.held_lambda(&e) {
                    Some(held) => held,
                    None => self.lambda_in_object(&e)?,
                };
                // Passed by value: the callee's copy of a mutable lambda has state of its own.
                match e != arg.without_implicit() {
                    true => self.copy_lambda(&held, closure_copy_constructor(arg), arg)?,
                    false => held,
                }
            }
        };
        let (operands, captures) = self.capture_operands(&held, arg)?;
        let (operands, _) = self.closure_convention(&held.lambda, operands, captures, arg)?;
        Ok(Some(operands))
    }

    /// A closure type's captures are passed one way everywhere (to its lambda's function and to
    /// the functions it is given to), the way they were first: `operands`, passed as `captures`,
    /// converted to that way, with it.
    fn closure_convention(
        &mut self,
        lambda: &Cursor,
        operands: Vec<Value<'c>>,
        captures: Vec<Capture>,
        at: &Cursor,
    ) -> Result<(Vec<Value<'c>>, Vec<Capture>)> {
        let key = closure_declaration(lambda.ty());
        let Some(known) = self.module.closures.get(&key).cloned() else {
            self.module.closures.insert(
                key,
                Closure {
                    lambda: *lambda,
                    captures: captures.clone(),
                },
            );
            return Ok((operands, captures));
        };
        if same_passing(&captures, &known.captures) {
            return Ok((operands, known.captures));
        }
        let operands = self.operands_as(operands, &captures, &known.captures, at)?;
        Ok((operands, known.captures))
    }

    /// Capture operands passed as `captures` says, converted to be passed as `known` says: a
    /// value where an address is expected is stored in memory of its own; an address where a
    /// value is expected is read.
    fn operands_as(
        &mut self,
        operands: Vec<Value<'c>>,
        captures: &[Capture],
        known: &[Capture],
        at: &Cursor,
    ) -> Result<Vec<Value<'c>>> {
        let mut out = Vec::with_capacity(operands.len());
        let mut operands = operands.into_iter();
        self.convert_operands(&mut operands, captures, known, &mut out, at)?;
        if operands.next().is_some() {
            return Err(internal(self.loc(at), "capture operands left over"));
        }
        Ok(out)
    }

    /// [`Self::operands_as`] for one list of captures, a captured lambda's captures in turn.
    fn convert_operands(
        &mut self,
        operands: &mut impl Iterator<Item = Value<'c>>,
        captures: &[Capture],
        known: &[Capture],
        out: &mut Vec<Value<'c>>,
        at: &Cursor,
    ) -> Result<()> {
        let loc = self.loc(at);
        let differ = || {
            FrontendError::unsupported(
                at.location(),
                "a lambda capturing another lambda, passed where the same lambda was passed \
                 otherwise",
            )
        };
        if captures.len() != known.len() {
            return Err(differ());
        }
        for (have, want) in captures.iter().zip(known) {
            let (ty, by_address, wanted) = match (have, want) {
                (Capture::Value(_, ty, by_address), Capture::Value(_, _, wanted)) => {
                    (ty, by_address, wanted)
                }
                (Capture::Lambda(_, _, have), Capture::Lambda(_, _, want)) => {
                    self.convert_operands(operands, have, want, out, at)?;
                    continue;
                }
                _ => return Err(differ()),
            };
            let operand = operands.next().ok_or_else(differ)?;
            out.push(match (by_address, wanted) {
                (true, false) => {
                    let place = LValue::Mem {
                        ptr: operand,
                        ty: ty.clone(),
                        volatile: false,
                    };
                    self.load(&place, loc)?.scalar()
                }
                (false, true) => {
                    let ptr = self.alloca(ty, loc)?;
                    let place = LValue::Mem {
                        ptr,
                        ty: ty.clone(),
                        volatile: false,
                    };
                    self.store(&place, Val::Scalar(operand), loc)?;
                    self.to_generic(ptr, loc)?
                }
                _ => operand,
            });
        }
        Ok(())
    }
}

impl ModuleCodegen<'_> {
    /// The lambda expression of closure type `closure` (its declaration): one written in host
    /// code, or one found in the function the closure type belongs to (clang keeps no link from
    /// the type to its expression). None for a lambda outside a function.
    pub fn lambda_of_closure(&mut self, closure: &Cursor) -> Option<Cursor> {
        if let Some(lambda) = self.host_lambdas.get(closure) {
            return Some(*lambda);
        }
        if let Some(found) = self.closure_lambdas.get(closure) {
            return *found;
        }
        let scope = closure.semantic_parent().filter(|p| {
            matches!(
                p.kind(),
                CXCursor_FunctionDecl
                    | CXCursor_CXXMethod
                    | CXCursor_Constructor
                    | CXCursor_Destructor
                    | CXCursor_ConversionFunction
                    | CXCursor_FunctionTemplate
            )
        });
        let mut stack: Vec<Cursor> = scope.into_iter().collect();
        let mut found = None;
        while let Some(c) = stack.pop() {
            if c.kind() == CXCursor_LambdaExpr && closure_declaration(c.ty()) == *closure {
                found = Some(c);
                break;
            }
            stack.extend(c.children());
        }
        self.closure_lambdas.insert(*closure, found);
        found
    }
}

/// The closure an argument copies: a closure object passed by value is copied by its (implicit)
/// copy constructor, which is no call here.
pub(super) fn without_closure_copy(arg: &Cursor) -> Cursor {
    let mut e = arg.without_implicit();
    while is_closure_copy(&e) {
        match e.children().as_slice() {
            [only] => e = only.without_implicit(),
            _ => break,
        }
    }
    e
}

/// Whether `e` is a call of a closure's (copy or move) constructor.
pub(super) fn is_closure_copy(e: &Cursor) -> bool {
    e.kind() == CXCursor_CallExpr
        && e.referenced()
            .is_some_and(|c| c.kind() == CXCursor_Constructor)
        && closure_type_key(e.ty()).is_some()
}

/// The closure's copy or move constructor that an argument or initializer copying a closure
/// object calls (the outermost, where C++14 writes elidable ones around it).
fn closure_copy_constructor(arg: &Cursor) -> Option<Cursor> {
    let e = arg.without_implicit();
    let ctor = e.referenced()?;
    (e.kind() == CXCursor_CallExpr
        && ctor.kind() == CXCursor_Constructor
        && closure_type_key(e.ty()).is_some())
    .then_some(ctor)
}

/// Whether two lists of captures are passed alike (the same parameters).
fn same_passing(a: &[Capture], b: &[Capture]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|pair| match pair {
            (Capture::Value(_, _, x), Capture::Value(_, _, y)) => x == y,
            (Capture::Lambda(_, _, x), Capture::Lambda(_, _, y)) => same_passing(x, y),
            _ => false,
        })
}

/// A capture as function parameters.
#[derive(Debug, Clone)]
pub enum Capture {
    /// A variable or `this`: what the lambda names it by, its type, passed by address.
    Value(VarKey, Ty, bool),
    /// A lambda held by a local (its declaration and expression), captured by another: passed
    /// as its own captures, from which the receiving function rebuilds the closure.
    Lambda(Cursor, Cursor, Vec<Capture>),
}

impl Capture {
    /// The parameter types it takes.
    fn param_types(&self, out: &mut Vec<Ty>) {
        match self {
            Capture::Value(_, ty, true) => out.push(Ty::Pointer {
                pointee: Box::new(ty.clone()),
            }),
            Capture::Value(_, ty, false) => out.push(ty.clone()),
            Capture::Lambda(_, _, inner) => inner.iter().for_each(|c| c.param_types(out)),
        }
    }
}

/// What a capture is named by inside the lambda: its variable, or `this`.
/// The type of what a capture holds (for `this`, a pointer's: no object is copied).
fn capture_type(capture: &LambdaCapture) -> Option<CType> {
    capture.decl().map(|d| d.ty().non_reference())
}

fn capture_key(capture: &LambdaCapture) -> VarKey {
    match capture.captured {
        Captured::Variable(d) | Captured::Init(d) => VarKey::Decl(d),
        Captured::This => VarKey::This,
    }
}

/// The class of `this` in a lambda capturing it: that of the member function the lambda is
/// written in (through enclosing lambdas).
pub fn class_of_this(lambda: &Cursor) -> Option<crate::clang::CType> {
    let mut scope = lambda.ty().declaration().semantic_parent()?;
    loop {
        let class = scope.semantic_parent()?;
        if !class.is_lambda_class() {
            return Some(class.ty());
        }
        scope = class.semantic_parent()?;
    }
}

/// A lambda passed to functions: its expression and its captures, by closure type.
#[derive(Debug, Clone)]
pub struct Closure {
    pub lambda: Cursor,
    pub captures: Vec<Capture>,
}

impl Closure {
    /// The parameter types its captures take.
    pub fn param_types(&self) -> Vec<Ty> {
        let mut out = Vec::new();
        self.captures.iter().for_each(|c| c.param_types(&mut out));
        out
    }
}

/// The key of a closure type (`(lambda at file:line:col)`), looking through references and
/// qualifiers; None for other types.
pub fn closure_type_key(ty: CType) -> Option<String> {
    ty.is_lambda_closure()
        .then(|| ty.non_reference().unqualified().canonical().spelling())
}

/// The declaration of a closure type (looking through references and qualifiers): the key of
/// the lambda it belongs to. Closure types of one lambda in different instances of a template,
/// or of lambdas written by one macro, are spelled alike but declared apart.
pub fn closure_declaration(ty: CType) -> Cursor {
    ty.non_reference().canonical().declaration().canonical()
}

fn not_held(e: &Cursor) -> FrontendError {
    FrontendError::unsupported(
        e.location(),
        "call of a lambda whose closure type hipmlir cannot trace to its expression (a lambda \
         written outside a function)",
    )
}

/// A local holding a lambda (which hipmlir keeps as the lambda's captures, not in memory: no
/// `&`, `std::addressof`, `std::move` or reference names it) used as an object in memory.
pub fn lambda_used_as_value(e: &Cursor) -> FrontendError {
    FrontendError::unsupported(
        e.location(),
        format!(
            "the address of lambda '{}', held by a local, taken where hipmlir does not see it \
             (take it with '&' or std::addressof, or bind a reference to the local)",
            e.spelling()
        ),
    )
}
