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
use super::virtual_bases::{has_virtual_bases, virtual_bases_at};
use crate::clang::{CType, CtorInit, Cursor, SpecialMember};
use crate::error::{FrontendError, Result};
use crate::types::Ty;

/// Whether a function takes an implicit `this`.
pub fn has_this(f: &Cursor) -> bool {
    match f.kind() {
        CXCursor_Constructor | CXCursor_Destructor => true,
        CXCursor_CXXMethod => !f.is_static_method(),
        CXCursor_ConversionFunction => true,
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
        // `T()` of a class without a user-provided default constructor: zeroes first, then
        // the constructor (which may set some members).
        if e.construct_zeroes() {
            self.zero_fill(target, record, loc)?;
        }
        match (ctor.trivial_special_member(), args) {
            (Some(SpecialMember::DefaultConstructor), []) => match ctor.semantic_parent() {
                Some(class) => self.default_construct_implicitly(target, class.ty(), e),
                None => self.default_member_initializers(target, record, loc),
            },
            // A compiler-written copy or move constructor that copies bytes. One that builds
            // parts through constructors of their own is compiled from clang's definition
            // (below), whose initializers name the constructors clang chose.
            (Some(SpecialMember::CopyConstructor), [source]) if !builds_parts(ctor) => {
                let v = self.rvalue(source)?;
                self.store(
                    &LValue::Mem {
                        ptr: target,
                        ty: record.clone(),
                        volatile: false,
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
            if !builds_parts(ctor) {
                return self.rvalue(source);
            }
        }
        let temp = self.alloca(&record, loc)?;
        self.construct(ctor, temp, &record, args, e)?;
        self.load(
            &LValue::Mem {
                ptr: temp,
                ty: record,
                volatile: false,
            },
            loc,
        )
    }

    /// What the compiler-written default constructor of `class` does to the object at
    /// `target`: each non-virtual base and each member without an initializer of its own
    /// default-constructed (a class's constructor called when it is written, else the same
    /// done for it), then the default member initializers (`float w = 2.0f;`).
    pub fn default_construct_implicitly(
        &mut self,
        target: Value<'c>,
        class: CType,
        e: &Cursor,
    ) -> Result<()> {
        let loc = self.loc(e);
        let class = class.canonical();
        let record = Ty::from_clang(class, &e.location())?;
        for spec in class.bases() {
            let base = spec.ty().canonical();
            let Some(offset) = class.base_offset(&base) else {
                continue; // a virtual base: such classes' constructors are functions
            };
            let at = self.byte_offset(target, offset as i64, loc)?;
            self.default_construct_part(at, base, &Ty::from_clang(base, &e.location())?, e)?;
        }
        if let Ty::Record(r) = &record {
            if !r.is_union {
                for (field, decl) in r.fields.iter().zip(&r.field_decls) {
                    if field.anonymous || decl.default_member_initializer().is_some() {
                        continue; // below
                    }
                    let ty = decl.ty().canonical();
                    if class_of_elements(ty).is_none() {
                        continue;
                    }
                    let ptr = self.field_pointer(target, &record, field.llvm_index, loc)?;
                    self.default_construct_part(ptr, ty, &field.ty, e)?;
                }
            }
        }
        self.default_member_initializers(target, &record, loc)
    }

    /// Default-constructs a base or member of class type `ty` (or an array of them) at
    /// `target`.
    fn default_construct_part(
        &mut self,
        target: Value<'c>,
        ty: CType,
        layout: &Ty,
        e: &Cursor,
    ) -> Result<()> {
        let loc = self.loc(e);
        if let Ty::Array { element, len } = layout {
            let element_c = ty.element().canonical();
            let i64t = Ty::LONG.value_mlir(self.ctx());
            let count = self.b.const_int(i64t, *len as i64, loc)?;
            let element = (**element).clone();
            return self.for_each_element(target, &element.clone(), count, false, e, |this, at| {
                this.default_construct_part(at, element_c, &element, e)
            });
        }
        if ty.kind() != CXType_Record {
            return Ok(());
        }
        let ctor = ty
            .methods()
            .into_iter()
            .find(|m| m.is_default_constructor() && !m.is_deleted_method());
        match ctor {
            Some(ctor) if ctor.trivial_special_member().is_none() => {
                let this = self.to_generic(target, loc)?;
                self.call_function(&ctor, Some(this), &[], e).map(|_| ())
            }
            _ => self.default_construct_implicitly(target, ty, e),
        }
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
            if let (Some(init), Some(_)) = (decl.default_member_initializer(), field.bit_field) {
                self.initialize_field(target, record, field, decl, Some(&init), loc)?;
            } else if let Some(init) = decl.default_member_initializer() {
                let ptr = self.field_pointer(target, record, field.llvm_index, loc)?;
                self.initialize(ptr, &field.ty, &init)?;
            } else if field.anonymous {
                // The members of an anonymous struct or union are the class's own.
                let ptr = self.field_pointer(target, record, field.llvm_index, loc)?;
                self.default_member_initializers(ptr, &field.ty, loc)?;
            }
        }
        Ok(())
    }

    /// What a constructor runs before its body, in C++'s order whatever order the list is
    /// written in: its bases, then its members in declaration order, each from its initializer
    /// in the list, its default member initializer, or its default constructor (clang's list,
    /// implicit initializations included). Each initializer is a full-expression.
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
        let class = ctor
            .semantic_parent()
            .map(|c| c.ty().canonical())
            .ok_or_else(|| internal(loc, "constructor outside a class"))?;
        let inits = ctor.constructor_initializers().ok_or_else(|| {
            FrontendError::unsupported(ctor.location(), "this constructor's initializers")
        })?;
        // The virtual bases: a complete object's constructor builds them first (virtual_bases.rs).
        let vbases = virtual_bases_at(class, ctor)?;
        let is_virtual_base = |e: &Cursor| {
            let key = e.ty().canonical().declaration().canonical();
            vbases
                .iter()
                .any(|(v, _)| v.declaration().canonical() == key)
        };
        let parent = match vbases.is_empty() {
            true => None,
            false => {
                let (complete, parent) = self.construction_parent(class, loc)?;
                let built: Vec<(CType, u64, Cursor)> = vbases
                    .iter()
                    .filter_map(|(v, offset)| {
                        let key = v.declaration().canonical();
                        inits.iter().find_map(|init| match init {
                            CtorInit::Base(e)
                                if e.ty().canonical().declaration().canonical() == key =>
                            {
                                Some((*v, *offset, *e))
                            }
                            _ => None,
                        })
                    })
                    .collect();
                self.emit_guarded(
                    complete,
                    &[],
                    |this_| {
                        for (vbase, offset, e) in built {
                            let at = this_.byte_offset(this, offset as i64, loc)?;
                            if has_virtual_bases(vbase) {
                                let context =
                                    this_.virtual_base_context(class, offset as i64, loc)?;
                                this_.base_construction =
                                    Some((vbase.declaration().canonical(), context));
                            }
                            let base_ty = Ty::from_clang(vbase, &e.location())?;
                            this_.full_expression(|t| t.initialize(at, &base_ty, &e))?;
                        }
                        Ok(())
                    },
                    loc,
                )?;
                Some(parent)
            }
        };
        // The class's id (when it has virtual functions) goes in once its bases are built.
        let mut id_stored = false;
        for init in inits {
            if !id_stored && !matches!(init, CtorInit::Base(_) | CtorInit::Delegating(_)) {
                self.store_class_id(this, class, ctor)?;
                id_stored = true;
            }
            match init {
                CtorInit::Delegating(e) => {
                    // Another constructor initializes everything, in the same context.
                    if let Some(context) = self.construction {
                        self.base_construction = Some((class.declaration().canonical(), context));
                    }
                    return self.full_expression(|this_| this_.initialize(this, &record, &e));
                }
                CtorInit::Base(e) if is_virtual_base(&e) => {}
                CtorInit::Base(e) => {
                    let base = e.ty();
                    let Some(offset) = class.base_offset(&base) else {
                        return Err(FrontendError::unsupported(
                            e.location(),
                            "initializer of this base class",
                        ));
                    };
                    let at = match offset {
                        0 => this,
                        _ => self.byte_offset(this, offset as i64, loc)?,
                    };
                    if let (Some(parent), true) = (parent, has_virtual_bases(base)) {
                        let context = self.base_construction_context(parent, offset as i64, loc)?;
                        self.base_construction =
                            Some((base.canonical().declaration().canonical(), context));
                    }
                    let base_ty = Ty::from_clang(base, &e.location())?;
                    self.full_expression(|this_| this_.initialize(at, &base_ty, &e))?;
                }
                CtorInit::Member(field_decl, e) => {
                    let (field, decl) = r
                        .fields
                        .iter()
                        .zip(&r.field_decls)
                        .find(|(_, d)| **d == field_decl)
                        .ok_or_else(|| {
                            FrontendError::unsupported(
                                field_decl.location(),
                                format!("initializing member '{}'", field_decl.spelling()),
                            )
                        })?;
                    self.full_expression(|this_| {
                        this_.initialize_field(this, &record, field, decl, Some(&e), loc)
                    })?;
                }
                CtorInit::Indirect(field_decl, e) => {
                    let name = field_decl.spelling();
                    let path = record.member_path(&name).ok_or_else(|| {
                        FrontendError::unsupported(
                            field_decl.location(),
                            format!("initializing member '{name}'"),
                        )
                    })?;
                    let Some(((owner, field), outer)) = path.split_last() else {
                        return Err(internal(loc, "member"));
                    };
                    let mut at = this;
                    for (outer, f) in outer {
                        at = self.field_pointer(at, outer, f.llvm_index, loc)?;
                    }
                    self.full_expression(|this_| {
                        this_.initialize_field(at, owner, field, &field_decl, Some(&e), loc)
                    })?;
                }
            }
        }
        if !id_stored {
            self.store_class_id(this, class, ctor)?;
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
        // The object expression, if any: a qualifier (`Base::f()`) is no expression.
        let base = callee.children().into_iter().find(|c| c.is_expression());
        let object = match base.as_ref() {
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

/// Whether an expression names an object in memory (rather than computing a value): an lvalue,
/// or an xvalue (`std::move(t)`, `static_cast<T&&>(t)`), which is an object as well.
pub fn is_lvalue_expression(e: &Cursor) -> bool {
    let e = e.without_implicit();
    match e.kind() {
        CXCursor_DeclRefExpr
        | CXCursor_MemberRefExpr
        | CXCursor_ArraySubscriptExpr
        | CXCursor_CompoundLiteralExpr => true,
        CXCursor_UnaryOperator => e.unary_operator() == CXUnaryOperator_Deref,
        // `obj.*m` of a glvalue `obj` (`std::move(obj).*m` too), `p->*m`.
        CXCursor_BinaryOperator => {
            crate::codegen::member_pointers::is_member_access(&e) && e.is_glvalue()
        }
        CXCursor_CallExpr => e
            .referenced()
            .is_some_and(|f| f.result_type().is_reference()),
        CXCursor_ConditionalOperator => {
            let children = e.children();
            children.len() == 3
                && is_lvalue_expression(&children[1])
                && is_lvalue_expression(&children[2])
        }
        // `reinterpret_cast<T&>(x)`, `static_cast<Base&>(d)`, `(T&)x`, and the xvalues
        // `static_cast<T&&>(x)`, `static_cast<Base&&>(d)`: each names an object.
        CXCursor_CStyleCastExpr
        | CXCursor_CXXStaticCastExpr
        | CXCursor_CXXConstCastExpr
        | CXCursor_CXXReinterpretCastExpr => e.is_glvalue(),
        _ => false,
    }
}

/// Whether compiler-written copy or move constructor `ctor` builds its class's parts through
/// constructors of their own, rather than copying the object's bytes.
fn builds_parts(ctor: &Cursor) -> bool {
    ctor.semantic_parent()
        .is_some_and(|class| super::copy_construction::copy_constructs_parts(class.ty()))
}

/// The class of `ty`, or of the elements of an array type `ty` (at any depth).
fn class_of_elements(ty: CType) -> Option<CType> {
    let mut ty = ty.canonical();
    while ty.kind() == CXType_ConstantArray {
        ty = ty.element().canonical();
    }
    (ty.kind() == CXType_Record).then_some(ty)
}
