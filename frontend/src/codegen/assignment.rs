//! Implicit (and `= default`) copy and move assignment of classes whose bytes cannot simply be
//! copied: classes with virtual bases (a virtual base sits where each object's own class puts
//! it), and classes with a base or member, at any depth, whose assignment operator is written
//! by the user. As C++'s implicitly-defined operator does ([class.copy.assign]): each
//! non-virtual base and each member in turn, through the assignment operator that the copy (or
//! the move) selects in its class, a written one called, a compiler-written one done the same
//! way member by member; then each virtual base, once (the standard lets it be assigned once or
//! more). Table pointers are no members: the target keeps its dynamic class.

use clang_sys::{CXType_ConstantArray, CXType_Record};
use melior::dialect::arith;
use melior::ir::Location;

use super::builder::Value;
use super::expr::{GepIndex, LValue};
use super::function::{FunctionCodegen, Val};
use crate::clang::{CType, Cursor};
use crate::error::{FrontendError, Result};
use crate::types::{pointer_type, AddrSpace, Ty};

/// The assignment operator that assigning an object of class `class` calls: for a move, its
/// move assignment operator if it declares one, else (as overload resolution falls back) its
/// copy assignment operator; for a copy, the copy assignment operator taking `const T&` if
/// there is one, else another. Deleted ones are no candidates. None when the class declares
/// none (then its implicit one is not declared yet, and is compiler-written).
pub fn selected_assignment(class: CType, moving: bool) -> Option<Cursor> {
    let ops: Vec<Cursor> = class
        .canonical()
        .methods()
        .into_iter()
        .filter(|m| m.is_copy_or_move_assignment() && !m.is_deleted_method())
        .collect();
    let takes_const = |m: &&&Cursor| {
        m.arguments()
            .first()
            .is_some_and(|p| p.ty().non_reference().is_const())
    };
    let copy = || {
        let copies: Vec<&Cursor> = ops.iter().filter(|m| !m.is_move_assignment()).collect();
        copies
            .iter()
            .find(takes_const)
            .or(copies.first())
            .map(|m| **m)
    };
    if moving {
        if let Some(m) = ops.iter().find(|m| m.is_move_assignment()) {
            return Some(*m);
        }
    }
    copy()
}

/// The user-written assignment operator that assigning an object of `class` calls, if any.
fn written_assignment(class: CType, moving: bool) -> Option<Cursor> {
    selected_assignment(class, moving).filter(|m| m.trivial_special_member().is_none())
}

/// The class of the elements of an array type (or the type itself), when it is a class.
pub(super) fn innermost_class(ty: CType) -> Option<CType> {
    let mut ty = ty.canonical();
    while ty.kind() == CXType_ConstantArray {
        ty = ty.element().canonical();
    }
    (ty.kind() == CXType_Record).then_some(ty)
}

/// Whether the compiler-written assignment of `class` calls a user-written assignment operator
/// of one of its bases or members (at any depth): then it is no copy of the object's bytes.
pub fn calls_written_assignment(class: CType, moving: bool) -> bool {
    let class = class.canonical();
    let bases = class.bases().into_iter().map(|b| b.ty().canonical());
    let members = class
        .fields()
        .into_iter()
        .filter_map(|f| innermost_class(f.ty()));
    bases.chain(members).any(|part| {
        written_assignment(part, moving).is_some() || calls_written_assignment(part, moving)
    })
}

impl<'c> FunctionCodegen<'c, '_> {
    /// The compiler-written assignment `*target = *source` of a complete object or subobject of
    /// class `class` (`moving` for a move assignment), part by part.
    pub fn assign_implicitly(
        &mut self,
        target: Value<'c>,
        source: Value<'c>,
        class: CType,
        moving: bool,
        e: &Cursor,
    ) -> Result<()> {
        let loc = self.loc(e);
        self.assign_own_part(target, source, class, moving, e)?;
        for vbase in class.virtual_bases() {
            let missing = || super::builder::internal(loc, "a virtual base not found");
            let to = self
                .through_virtual_base(target, &class, &vbase, false, loc)?
                .ok_or_else(missing)?;
            let from = self
                .through_virtual_base(source, &class, &vbase, false, loc)?
                .ok_or_else(missing)?;
            self.assign_base(to, from, vbase, moving, e)?;
        }
        Ok(())
    }

    /// A base subobject: its class's written operator, else its own part (its virtual bases
    /// are the complete assignment's to assign).
    fn assign_base(
        &mut self,
        target: Value<'c>,
        source: Value<'c>,
        class: CType,
        moving: bool,
        e: &Cursor,
    ) -> Result<()> {
        match written_assignment(class, moving) {
            Some(op) => self.call_assignment(&op, target, source, e),
            None => self.assign_own_part(target, source, class, moving, e),
        }
    }

    /// Assigns the members of `class` and its non-virtual bases (at their offsets).
    fn assign_own_part(
        &mut self,
        target: Value<'c>,
        source: Value<'c>,
        class: CType,
        moving: bool,
        e: &Cursor,
    ) -> Result<()> {
        let loc = self.loc(e);
        let ty = Ty::from_clang(class, &e.location())?;
        let Ty::Record(record) = &ty else {
            return Err(super::builder::internal(loc, "assignment of a non-class"));
        };
        let i64t = Ty::LONG.value_mlir(self.ctx());
        let zero = self.b.const_int(i64t, 0, loc)?;
        let at = |index: i32| vec![GepIndex::Dynamic(zero), GepIndex::Field(index)];
        // A union is its bytes (a member with an assignment operator of its own would make the
        // union's deleted).
        let mut plain: Vec<(Ty, Vec<GepIndex<'c>>)> = Vec::new();
        if record.is_union {
            plain = self.members(&ty, loc)?;
        } else {
            for (field, decl) in record.fields.iter().zip(&record.field_decls) {
                if field.bit_field.is_some() {
                    continue; // in the runs of bit storage below
                }
                let special = innermost_class(decl.ty()).filter(|c| {
                    written_assignment(*c, moving).is_some()
                        || calls_written_assignment(*c, moving)
                        || super::virtual_bases::has_virtual_bases(*c)
                });
                match special {
                    Some(_) => {
                        let to = self.gep(target, &ty, &at(field.llvm_index), loc)?;
                        let from = self.gep(source, &ty, &at(field.llvm_index), loc)?;
                        self.assign_member(to, from, &field.ty, decl.ty(), moving, e)?;
                    }
                    None => plain.push((field.ty.clone(), at(field.llvm_index))),
                }
            }
            for run in &record.bit_storage {
                plain.push((run.bytes(), at(run.llvm_index)));
            }
        }
        for (member_ty, path) in plain {
            let to = self.gep(target, &ty, &path, loc)?;
            let from = self.gep(source, &ty, &path, loc)?;
            self.copy_value(to, from, &member_ty, loc)?;
        }
        for spec in class.bases() {
            let base = spec.ty().canonical();
            if spec.is_virtual_base() {
                continue;
            }
            let offset = class.base_offset(&base).ok_or_else(|| {
                FrontendError::unsupported(
                    e.location(),
                    format!("the layout of base '{}'", base.spelling()),
                )
            })? as i64;
            let to = self.byte_offset(target, offset, loc)?;
            let from = self.byte_offset(source, offset, loc)?;
            self.assign_base(to, from, base, moving, e)?;
        }
        Ok(())
    }

    /// A member (or an element of an array member) of class type: its written operator, else
    /// the compiler-written one of its complete object; an array, element by element.
    fn assign_member(
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
                |this, to, from| this.assign_member(to, from, &element, element_c, moving, e),
            );
        }
        match written_assignment(cty, moving) {
            Some(op) => self.call_assignment(&op, target, source, e),
            None => self.assign_implicitly(target, source, cty, moving, e),
        }
    }

    /// Runs `body` with the addresses of element i of the arrays `target` and `source` of `len`
    /// `element`s, for each i.
    pub(super) fn for_each_element_pair(
        &mut self,
        target: Value<'c>,
        source: Value<'c>,
        element: &Ty,
        len: u64,
        loc: Location<'c>,
        mut body: impl FnMut(&mut Self, Value<'c>, Value<'c>) -> Result<()>,
    ) -> Result<()> {
        let i64t = Ty::LONG.value_mlir(self.ctx());
        let count = self.b.const_int(i64t, len as i64, loc)?;
        self.for_each_index(count, loc, |this, i| {
            let at = [GepIndex::Dynamic(i)];
            let to = this.gep(target, element, &at, loc)?;
            let from = this.gep(source, element, &at, loc)?;
            body(this, to, from)
        })
    }

    /// Runs `body` with each index from 0 below `count` (compared signed: a negative count runs
    /// it on none).
    pub(super) fn for_each_index(
        &mut self,
        count: Value<'c>,
        loc: Location<'c>,
        mut body: impl FnMut(&mut Self, Value<'c>) -> Result<()>,
    ) -> Result<()> {
        let i64t = Ty::LONG.value_mlir(self.ctx());
        // The index lives in memory, so the loop carries no SSA values.
        let slot = LValue::Mem {
            ptr: self.alloca(&Ty::LONG, loc)?,
            ty: Ty::LONG,
            volatile: false,
        };
        let zero = self.b.const_int(i64t, 0, loc)?;
        self.store(&slot, Val::Scalar(zero), loc)?;
        let one = self.b.const_int(i64t, 1, loc)?;
        self.emit_while(
            &[],
            None,
            |this| {
                let i = this.load(&slot, loc)?.scalar();
                this.b.cmpi(arith::CmpiPredicate::Slt, i, count, loc)
            },
            |this| {
                let i = this.load(&slot, loc)?.scalar();
                body(this, i)?;
                let next = this.b.insert_value(arith::addi(i, one, loc))?;
                this.store(&slot, Val::Scalar(next), loc)
            },
            loc,
        )
    }

    /// Copies one member's value (an array as one value of its memory type: no C value is an
    /// array).
    pub(super) fn copy_value(
        &mut self,
        to: Value<'c>,
        from: Value<'c>,
        ty: &Ty,
        loc: Location<'c>,
    ) -> Result<()> {
        if let Ty::Array { .. } = ty {
            let memory = ty.memory_mlir(self.ctx());
            let align = Some(
                self.access_alignment(from, ty)
                    .min(self.access_alignment(to, ty)),
            );
            let value = self.b.load_aligned(from, memory, false, align, loc)?;
            self.b.store_aligned(value, to, false, align, loc);
            return Ok(());
        }
        let place = |ptr| LValue::Mem {
            ptr,
            ty: ty.clone(),
            volatile: false,
        };
        let value = self.load(&place(from), loc)?;
        self.store(&place(to), value, loc)
    }

    /// Calls assignment operator `op` on the object at `target` with the one at `source`.
    fn call_assignment(
        &mut self,
        op: &Cursor,
        target: Value<'c>,
        source: Value<'c>,
        e: &Cursor,
    ) -> Result<()> {
        let loc = self.loc(e);
        let sig = self.module.declare_device_function(op, e)?;
        let generic = pointer_type(self.ctx(), AddrSpace::Generic);
        let by_reference = op
            .arguments()
            .first()
            .is_some_and(|p| p.ty().is_reference());
        let pointers = sig.params.len() == 2
            && sig
                .params
                .iter()
                .all(|p| p.value_mlir(self.ctx()) == generic);
        if !by_reference || !pointers {
            // `T& operator=(T)` would need a copy of the source made first.
            return Err(FrontendError::unsupported(
                e.location(),
                format!(
                    "implicit assignment calling '{}' ({}), which takes its operand by value",
                    op.display_name(),
                    op.location()
                ),
            ));
        }
        let operands = [self.to_generic(target, loc)?, self.to_generic(source, loc)?];
        self.call_symbol(&sig, &operands, e)?;
        Ok(())
    }
}
