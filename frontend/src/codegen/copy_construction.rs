//! Implicit (and `= default`) copy and move constructors of classes whose bytes cannot simply be
//! copied: those with a base or member, at any depth, whose copy (or move) constructor is
//! written by the user. As C++'s implicitly-defined constructor does ([class.copy.ctor]): each
//! base, then each member, in declaration order, constructed from the source's through the
//! constructor the copy (or the move) selects in its class, a written one called, a
//! compiler-written one done the same way part by part, arrays element by element. The rest
//! (and every class without such a part) is a copy of the bytes, as a trivial constructor's is.
//!
//! Classes with virtual functions or virtual bases are no concern here: their constructors are
//! functions compiled from clang's own definition (objects.rs), which builds the virtual bases
//! once, in the most derived class; a part of such a class is built through this walk again.

use super::assignment::innermost_class;
use super::builder::Value;
use super::expr::GepIndex;
use super::function::FunctionCodegen;
use super::virtual_bases::takes_construction_context;
use crate::clang::{CType, Cursor};
use crate::error::{FrontendError, Result};
use crate::types::{pointer_type, AddrSpace, Ty};

/// The constructor that constructing an object of class `class` from another one calls: for a
/// move, its move constructor if it declares one, else (as overload resolution falls back) its
/// copy constructor; for a copy, the copy constructor taking `const T&` if there is one, else
/// another. Deleted ones are no candidates. None when the class declares none (its implicit
/// one is not declared yet, and is compiler-written).
fn selected_constructor(class: CType, moving: bool) -> Option<Cursor> {
    let ctors: Vec<Cursor> = class
        .canonical()
        .methods()
        .into_iter()
        .filter(|m| m.is_copy_or_move_constructor() && !m.is_deleted_method())
        .collect();
    if moving {
        if let Some(m) = ctors.iter().find(|m| m.is_move_constructor()) {
            return Some(*m);
        }
    }
    let copies: Vec<&Cursor> = ctors.iter().filter(|m| !m.is_move_constructor()).collect();
    let takes_const = |m: &&&Cursor| {
        m.arguments()
            .first()
            .is_some_and(|p| p.ty().non_reference().is_const())
    };
    copies
        .iter()
        .find(takes_const)
        .or(copies.first())
        .map(|m| **m)
}

/// Whether copying (or moving) a part of class `class` runs code of its own: a written
/// constructor, or a compiler-written one that itself builds such a part.
fn part_is_special(class: CType, moving: bool) -> bool {
    selected_constructor(class, moving).is_some_and(|c| c.is_user_provided())
        || copy_constructs_parts(class, moving)
}

/// Whether the compiler-written copy (or move) constructor of `class` calls a user-written
/// constructor of one of its bases or members (at any depth): then it is no copy of the
/// object's bytes.
pub fn copy_constructs_parts(class: CType, moving: bool) -> bool {
    let class = class.canonical();
    let bases = class.bases().into_iter().map(|b| b.ty().canonical());
    let members = class
        .fields()
        .into_iter()
        .filter_map(|f| innermost_class(f.ty()));
    bases
        .chain(members)
        .any(|part| part_is_special(part, moving))
}

/// Whether copying an object of type `ty` (a class, or an array of them) runs constructors:
/// a written one of its class, or of a part at any depth.
pub fn copies_by_constructor(ty: CType) -> bool {
    innermost_class(ty).is_some_and(|class| part_is_special(class, false))
}

impl<'c> FunctionCodegen<'c, '_> {
    /// Copy-constructs the object of type `cty` (laid out as `ty`; an array element by
    /// element) at `target` from the one at `source`, as C++ does.
    pub fn copy_construct_object(
        &mut self,
        target: Value<'c>,
        source: Value<'c>,
        ty: &Ty,
        cty: CType,
        e: &Cursor,
    ) -> Result<()> {
        self.copy_construct_part(target, source, ty, cty, false, e)
    }

    /// The compiler-written copy (`moving`: move) construction of the object at `target` of
    /// class `class` from the one at `source`, part by part. `class` has no virtual bases.
    pub fn copy_construct_implicitly(
        &mut self,
        target: Value<'c>,
        source: Value<'c>,
        class: CType,
        moving: bool,
        e: &Cursor,
    ) -> Result<()> {
        let loc = self.loc(e);
        let class = class.canonical();
        let ty = Ty::from_clang(class, &e.location())?;
        let Ty::Record(record) = &ty else {
            return Err(super::builder::internal(loc, "construction of a non-class"));
        };
        if record.is_union {
            // A union whose member had a constructor of its own would have a deleted one.
            return self.copy_value(target, source, &ty, loc);
        }
        for spec in class.bases() {
            let base = spec.ty().canonical();
            let offset = class
                .base_offset(&base)
                .filter(|_| !spec.is_virtual_base())
                .ok_or_else(|| {
                    FrontendError::unsupported(
                        e.location(),
                        format!(
                            "implicit copy of '{}' through base '{}'",
                            class.spelling(),
                            base.spelling()
                        ),
                    )
                })? as i64;
            let to = self.byte_offset(target, offset, loc)?;
            let from = self.byte_offset(source, offset, loc)?;
            let base_ty = Ty::from_clang(base, &e.location())?;
            self.copy_construct_part(to, from, &base_ty, base, moving, e)?;
        }
        let i64t = Ty::LONG.value_mlir(self.ctx());
        let zero = self.b.const_int(i64t, 0, loc)?;
        let at = |index: i32| vec![GepIndex::Dynamic(zero), GepIndex::Field(index)];
        for (field, decl) in record.fields.iter().zip(&record.field_decls) {
            if field.bit_field.is_some() {
                continue; // in the runs of bit storage below
            }
            let to = self.gep(target, &ty, &at(field.llvm_index), loc)?;
            let from = self.gep(source, &ty, &at(field.llvm_index), loc)?;
            match innermost_class(decl.ty()).filter(|c| part_is_special(*c, moving)) {
                Some(_) => self.copy_construct_part(to, from, &field.ty, decl.ty(), moving, e)?,
                None => self.copy_value(to, from, &field.ty, loc)?,
            }
        }
        for run in &record.bit_storage {
            let to = self.gep(target, &ty, &at(run.llvm_index), loc)?;
            let from = self.gep(source, &ty, &at(run.llvm_index), loc)?;
            self.copy_value(to, from, &run.bytes(), loc)?;
        }
        Ok(())
    }

    /// A base or member (or an array of them) of type `cty` laid out as `ty`: its class's
    /// written constructor, else its compiler-written one, part by part or as bytes.
    fn copy_construct_part(
        &mut self,
        target: Value<'c>,
        source: Value<'c>,
        ty: &Ty,
        cty: CType,
        moving: bool,
        e: &Cursor,
    ) -> Result<()> {
        let loc = self.loc(e);
        let cty = cty.canonical();
        if let Ty::Array { element, len } = ty {
            let element_c = cty.element();
            let element = (**element).clone();
            return self.for_each_element_pair(
                target,
                source,
                &element,
                *len,
                loc,
                |this, to, from| this.copy_construct_part(to, from, &element, element_c, moving, e),
            );
        }
        let nested = copy_constructs_parts(cty, moving);
        match selected_constructor(cty, moving) {
            // A written constructor, or a compiler-written one compiled as a function (that of
            // a class with virtual functions or bases) that builds parts of its own.
            Some(ctor)
                if ctor.is_user_provided()
                    || (ctor.trivial_special_member().is_none() && nested) =>
            {
                self.call_copy_constructor(&ctor, target, source, e)
            }
            Some(ctor) if ctor.trivial_special_member().is_none() => {
                // Compiled as a function only to store the class's ids, which a copy of a
                // complete object's bytes holds too.
                self.copy_value(target, source, ty, loc)
            }
            _ if nested => {
                if super::virtual_bases::has_virtual_bases(cty) || cty.is_dynamic_class() {
                    // Its constructor was never declared: nothing to call that stores its ids.
                    return Err(FrontendError::unsupported(
                        e.location(),
                        format!("implicit copy of '{}'", cty.spelling()),
                    ));
                }
                self.copy_construct_implicitly(target, source, cty, moving, e)
            }
            _ => self.copy_value(target, source, ty, loc),
        }
    }

    /// Calls copy (or move) constructor `ctor` on the object at `target` with the one at
    /// `source` (a complete object: a constructor of a class with virtual bases gets the
    /// complete object's context).
    fn call_copy_constructor(
        &mut self,
        ctor: &Cursor,
        target: Value<'c>,
        source: Value<'c>,
        e: &Cursor,
    ) -> Result<()> {
        let loc = self.loc(e);
        let sig = self.module.declare_device_function(ctor, e)?;
        let generic = pointer_type(self.ctx(), AddrSpace::Generic);
        let context = takes_construction_context(ctor);
        let mut operands = vec![self.to_generic(target, loc)?, self.to_generic(source, loc)?];
        if context {
            let i64t = Ty::LONG.value_mlir(self.ctx());
            operands.push(self.b.const_int(i64t, 0, loc)?);
        }
        let pointers = sig.params.len() == operands.len()
            && sig.params[..2]
                .iter()
                .all(|p| p.value_mlir(self.ctx()) == generic);
        if !pointers || ctor.arguments().len() != 1 {
            // `T(const T&, int = 0)` would need its default arguments evaluated here.
            return Err(FrontendError::unsupported(
                e.location(),
                format!(
                    "implicit copy calling '{}' ({}), which takes more than the source",
                    ctor.display_name(),
                    ctor.location()
                ),
            ));
        }
        self.call_symbol(&sig, &operands, e)?;
        Ok(())
    }
}
