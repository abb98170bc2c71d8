//! Braced initializer lists and arrays of objects, as clang understood them.
//!
//! libclang shows a braced list as written; clang's semantic form says what initializes each
//! base, member and element: a constructor call (`T a[2] = {{1, 2}, {3, 4}}` calls `T(int, int)`
//! twice), a conversion, a nested list where braces were elided, a default member initializer,
//! a value-initialization, and the "array filler" for elements beyond the list. An array
//! initialized from another array (the implicit copy of an array member, a lambda's capture of
//! an array by copy, a structured binding of an array) is clang's array-init loop: the source
//! evaluated once, then each element initialized by an expression that names the source's
//! element at the loop's index (a copy or move constructor called for each, where the element's
//! class has one that runs code).

use clang_sys::*;
use melior::ir::Location;

use super::builder::Value;
use super::expr::{GepIndex, LValue};
use super::function::{FunctionCodegen, Val};
use crate::clang::{ArrayInitLoop, Cursor, ExprNode, LifetimeNode};
use crate::error::{FrontendError, Result};
use crate::types::{Field, Ty};

/// Lists initialize arrays element by element up to this many elements.
const MAX_LISTED_ELEMENTS: u64 = 4096;

/// An array-init loop being emitted: the array it copies from (its expression's node and its
/// address, evaluated once) and the index of the element being initialized.
#[derive(Debug, Clone, Copy)]
pub struct ArrayCopy<'c> {
    source: ExprNode,
    address: Value<'c>,
    index: Value<'c>,
}

impl<'c> FunctionCodegen<'c, '_> {
    /// Initializes the object of type `ty` at `ptr` from the braced list `list`.
    pub fn initialize_from_list(&mut self, ptr: Value<'c>, ty: &Ty, list: &Cursor) -> Result<()> {
        let loc = self.loc(list);
        let (items, filler) = list
            .init_list_items()
            .ok_or_else(|| FrontendError::unsupported(list.location(), "this initializer list"))?;
        let too_many = || FrontendError::refused(list.location(), "too many initializers");
        match ty {
            Ty::Record(r) if r.is_union => {
                // The member the list names; the rest of the storage is zero, as for a union
                // with static storage.
                self.zero_fill(ptr, ty, loc)?;
                if let Some(item) = items.first() {
                    let member = union_member(list, item, r)?;
                    let at = self.field_pointer(ptr, ty, r.fields[member].llvm_index, loc)?;
                    self.initialize_item(
                        at,
                        &r.fields[member].ty,
                        item,
                        Some(&r.field_decls[member]),
                    )?;
                }
                Ok(())
            }
            Ty::Record(r) => {
                let class = list.ty().canonical();
                let bases = class.bases();
                if items.len() > bases.len() + r.fields.len() {
                    return Err(too_many());
                }
                for (base, item) in bases.iter().zip(&items) {
                    let Some(offset) = class.base_offset(&base.ty()) else {
                        return Err(FrontendError::unsupported(
                            base.location(),
                            "initializing a virtual base class",
                        ));
                    };
                    let at = self.byte_offset(ptr, offset as i64, loc)?;
                    let base_ty = Ty::from_clang(base.ty(), &base.location())?;
                    self.initialize_item(at, &base_ty, item, None)?;
                }
                // Unnamed bit-fields take no initializer.
                let named = r
                    .fields
                    .iter()
                    .zip(&r.field_decls)
                    .filter(|(f, _)| !is_unnamed_bit_field(f));
                for (i, (field, decl)) in named.enumerate() {
                    let item = items.get(bases.len() + i);
                    self.initialize_field(ptr, ty, field, decl, item, loc)?;
                }
                Ok(())
            }
            Ty::Array { element, len } => {
                if items.len() as u64 > *len {
                    return Err(too_many());
                }
                if *len > MAX_LISTED_ELEMENTS {
                    return Err(FrontendError::unsupported(
                        list.location(),
                        format!("an initialized local array of {len} elements"),
                    ));
                }
                let i64t = Ty::LONG.value_mlir(self.ctx());
                let zero = self.b.const_int(i64t, 0, loc)?;
                for i in 0..*len {
                    let index = self.b.const_int(i64t, i as i64, loc)?;
                    let path = [GepIndex::Dynamic(zero), GepIndex::Dynamic(index)];
                    let at = self.gep(ptr, ty, &path, loc)?;
                    match items.get(i as usize).or(filler.as_ref()) {
                        Some(item) => self.initialize_item(at, element, item, None)?,
                        None => self.zero_fill(at, element, loc)?,
                    }
                }
                Ok(())
            }
            // `int x = {5};`
            _ => match items.first() {
                Some(item) => self.initialize_item(ptr, ty, item, None),
                None => self.zero_fill(ptr, ty, loc),
            },
        }
    }

    /// Initializes the array of type `ty` at `ptr` by array-init loop `lp`: its source's address
    /// taken once, then each element, first to last, from the element's initializer (its own
    /// full-expression, as clang's per-element cleanups), which reads that source and index.
    pub fn initialize_by_loop(
        &mut self,
        ptr: Value<'c>,
        ty: &Ty,
        lp: &ArrayInitLoop,
        site: &Cursor,
    ) -> Result<()> {
        let loc = self.loc(site);
        let Ty::Array { element, len } = ty else {
            return Err(super::builder::internal(
                loc,
                "an array-init loop initializing a non-array",
            ));
        };
        let source = lp
            .source
            .expr_node()
            .ok_or_else(|| super::builder::internal(loc, "an array-init loop's source"))?;
        let address = self.object_address(&lp.source)?;
        let count = self
            .b
            .const_int(Ty::LONG.value_mlir(self.ctx()), *len as i64, loc)?;
        self.for_each_index(count, loc, |this, index| {
            let at = this.gep(ptr, element, &[GepIndex::Dynamic(index)], loc)?;
            this.array_copies.push(ArrayCopy {
                source,
                address,
                index,
            });
            let done = this.full_expression(|this| this.initialize(at, element, &lp.element));
            this.array_copies.pop();
            done
        })
    }

    /// The address of the array an array-init loop being emitted copies from, when `e` is that
    /// loop's source named again by the element's initializer.
    pub(super) fn array_copy_source(&self, e: &Cursor) -> Option<Value<'c>> {
        let node = e.expr_node()?;
        self.array_copies
            .iter()
            .rev()
            .find(|c| c.source == node)
            .map(|c| c.address)
    }

    /// The index of the element the innermost array-init loop initializes.
    pub(super) fn array_init_index(&self, e: &Cursor) -> Result<Val<'c>> {
        self.array_copies
            .last()
            .map(|c| Val::Scalar(c.index))
            .ok_or_else(|| {
                FrontendError::unsupported(e.location(), "an array index outside its loop")
            })
    }

    /// Initializes `field` of the record of type `record` at `object` from `item`, or zeroes
    /// it (a member the list leaves out).
    pub(super) fn initialize_field(
        &mut self,
        object: Value<'c>,
        record: &Ty,
        field: &Field,
        decl: &Cursor,
        item: Option<&Cursor>,
        loc: Location<'c>,
    ) -> Result<()> {
        let at = self.field_pointer(object, record, field.llvm_index, loc)?;
        let Some(bits) = field.bit_field else {
            return match item {
                Some(item) => self.initialize_item(at, &field.ty, item, Some(decl)),
                None => self.zero_fill(at, &field.ty, loc),
            };
        };
        // A bit-field: its value, stored in its bits.
        let mut item = item.copied();
        if let Some(i) = item.filter(|i| i.lifetime_node() == Some(LifetimeNode::DefaultMemberInit))
        {
            item = Some(decl.default_member_initializer().ok_or_else(|| {
                FrontendError::unsupported(i.location(), "this default member initializer")
            })?);
        }
        let value = match item.filter(|i| i.lifetime_node() != Some(LifetimeNode::ValueInit)) {
            Some(item) => self.full_expression(|this| this.rvalue_as(&item, &field.ty))?,
            None => self.zero(&field.ty, loc)?,
        };
        let place = LValue::BitField {
            run: at,
            field: bits,
            ty: field.ty.clone(),
        };
        self.store(&place, value, loc)
    }

    /// `char s[N] = "text"`: the literal's bytes, byte for byte, the rest of the array zero (C
    /// lets the literal's NUL fall off when the array has no room for it).
    pub(super) fn initialize_from_string(
        &mut self,
        ptr: Value<'c>,
        ty: &Ty,
        text: &[u8],
        loc: Location<'c>,
    ) -> Result<()> {
        let Ty::Array { element, len } = ty else {
            return Err(super::builder::internal(
                loc,
                "a string initializing a non-array",
            ));
        };
        if !matches!(**element, Ty::Int { bits: 8, .. }) || text.len() as u64 > *len {
            return Err(FrontendError::unsupported(
                crate::SourceLoc::default(),
                "a string literal initializing an array that is not of char",
            ));
        }
        let byte = element.value_mlir(self.ctx());
        for (i, (member_ty, path)) in self.members(ty, loc)?.into_iter().enumerate() {
            let value = text.get(i).map_or(0, |b| i64::from(*b as i8));
            let value = self.b.const_int(byte, value, loc)?;
            let at = self.gep(ptr, ty, &path, loc)?;
            self.store(
                &LValue::Mem {
                    ptr: at,
                    ty: member_ty,
                    volatile: false,
                },
                Val::Scalar(value),
                loc,
            )?;
        }
        Ok(())
    }

    pub(super) fn initialize_item(
        &mut self,
        ptr: Value<'c>,
        ty: &Ty,
        item: &Cursor,
        field: Option<&Cursor>,
    ) -> Result<()> {
        let loc = self.loc(item);
        match item.lifetime_node() {
            Some(LifetimeNode::ValueInit) => return self.zero_fill(ptr, ty, loc),
            Some(LifetimeNode::DefaultMemberInit) => {
                let init = field
                    .and_then(|f| f.default_member_initializer())
                    .ok_or_else(|| {
                        FrontendError::unsupported(
                            item.location(),
                            "this default member initializer",
                        )
                    })?;
                return self.initialize_item(ptr, ty, &init, field);
            }
            _ => {}
        }
        if field.is_some_and(|f| f.ty().is_reference()) {
            // A reference member holds the address of what it is bound to.
            let address = self.object_address(item)?;
            return self.store(
                &LValue::Mem {
                    ptr,
                    ty: ty.clone(),
                    volatile: false,
                },
                Val::Scalar(address),
                loc,
            );
        }
        self.initialize(ptr, ty, item)
    }

    /// Runs constructor `ctor` (of `call`, with its arguments) on each element of the array of
    /// type `ty` at `ptr`, first to last (arrays of arrays too).
    pub fn construct_elements(
        &mut self,
        ctor: &Cursor,
        ptr: Value<'c>,
        ty: &Ty,
        call: &Cursor,
    ) -> Result<()> {
        let loc = self.loc(call);
        let Ty::Array { element, len } = ty else {
            return self.construct(ctor, ptr, ty, &call.arguments(), call);
        };
        let count = self
            .b
            .const_int(Ty::LONG.value_mlir(self.ctx()), *len as i64, loc)?;
        let element = (**element).clone();
        self.for_each_element(ptr, &element.clone(), count, false, call, |this, at| {
            this.construct_elements(ctor, at, &element, call)
        })
    }
}

/// An unnamed bit-field (`int : 3;`), which only lays out the bits around it.
pub(super) fn is_unnamed_bit_field(field: &Field) -> bool {
    field.bit_field.is_some() && field.name.is_empty()
}

/// Which member of a union a list initializes: the first, unless a designator names another.
pub(super) fn union_member(
    list: &Cursor,
    item: &Cursor,
    r: &crate::types::Record,
) -> Result<usize> {
    let designated = list
        .children()
        .iter()
        .flat_map(|c| c.children())
        .find(|c| c.kind() == CXCursor_MemberRef)
        .map(|m| m.spelling());
    match designated {
        None => Ok(0),
        Some(name) => r.fields.iter().position(|f| f.name == name).ok_or_else(|| {
            FrontendError::unsupported(item.location(), format!("union member '{name}'"))
        }),
    }
}
