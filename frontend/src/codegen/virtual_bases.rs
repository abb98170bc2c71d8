//! Virtual base classes in device code.
//!
//! Layout is clang's: a virtual base sits where the complete object's record layout puts it
//! (cxx/record_layout.cpp reads the offsets, libclang gives them only for direct bases). Where
//! that is depends on the most derived class, so code that holds a pointer to a class with
//! virtual bases finds them as the Itanium C++ ABI does, through what the object holds at its
//! virtual table pointer: here the class id (virtuals.rs), from which the module's lookup
//! function for that virtual base (`__hipmlir_vbase_offset.*`, a choice among the classes the
//! module constructs, like a dispatcher) gives the virtual base's offset from the subobject.
//!
//! Construction follows the ABI's two constructor variants in one function: a constructor of a
//! class with virtual bases takes a trailing construction context, 0 for a complete object
//! (which builds the virtual bases first) and otherwise an id of the base subobject being built
//! in a larger object (the ABI's VTT): the virtual bases are the complete object's to build, and
//! the ids the constructor stores name the subobject in that object, so that its virtual bases
//! are found where that object's layout puts them while its constructor runs. A context is a
//! hash of the complete object's class and the path of base offsets to the subobject, made the
//! same way at compile time (to enumerate the ids) and at run time (a constructor derives its
//! bases' contexts from its own). Built in a context, a class stores ids of that context at its
//! virtual bases' table pointers too (named by the virtual base and the pointer's offset in it,
//! the ABI's construction virtual tables), found through the lookup: a call through a virtual
//! base reaches the overriders of the class being built, `this` adjusted as the complete
//! object's layout says. Destructors take the context their constructor ran in and store the
//! same ids before their body (a base's destructor runs with its own class's overriders); a
//! destructor called in context 0 destroys a complete object, whose virtual bases are destroyed
//! after it (lifetime.rs, the dispatcher of a virtual destructor).

use melior::dialect::{arith, func, scf};
use melior::ir::attribute::FlatSymbolRefAttribute;
use melior::ir::r#type::IntegerType;
use melior::ir::{Block, Location, Region, RegionLike, Type};

use super::builder::{block_arguments, Builder, Value};
use super::function::FunctionCodegen;
use super::module::ModuleCodegen;
use super::virtuals::{derives, subobject_id, vtable_slots, Frame};
use crate::clang::{CType, Cursor};
use crate::error::{FrontendError, Result};
use crate::types::{pointer_type, AddrSpace};

/// Mixed into a context to make the context of a base built in it.
const BASE_TAG: u64 = 0x5bd1_e995_0000_0b45;
/// Mixed into a context to make the id stored at one of the subobject's table pointers.
const SLOT_TAG: u64 = 0x27d4_eb2f_1656_67c5;
/// Mixed into a context to make the id stored at a table pointer of one of the subobject's
/// virtual bases (named by the virtual base and the pointer's offset in it: where the virtual
/// base is depends on the complete object).
const VIRTUAL_SLOT_TAG: u64 = 0x85eb_ca77_c2b2_ae63;
const OFFSET_FACTOR: u64 = 0x9e37_79b9_7f4a_7c15;
const MIX_FACTOR: u64 = 0x0100_0000_01b3;

/// `((context ^ tag ^ offset * OFFSET_FACTOR) * MIX_FACTOR) | 1`: never 0 (a complete object's
/// context), the same at run time ([`FunctionCodegen::mix`]).
fn mix(context: i64, offset: i64, tag: u64) -> i64 {
    (((context as u64) ^ tag ^ (offset as u64).wrapping_mul(OFFSET_FACTOR))
        .wrapping_mul(MIX_FACTOR)
        | 1) as i64
}

/// The context of the base at `offset` in the subobject being built in context `parent`.
fn base_context(parent: i64, offset: i64) -> i64 {
    mix(parent, offset, BASE_TAG)
}

/// The id a constructor building its object in context `context` stores at `slot`.
fn slot_id(context: i64, slot: i64) -> i64 {
    mix(context, slot, SLOT_TAG)
}

/// What names table pointer `slot` of virtual base `vbase` in [`virtual_slot_id`].
fn virtual_slot_key(vbase: CType, slot: i64) -> i64 {
    subobject_id(vbase, slot as u64)
}

/// The id a constructor or destructor running in context `context` (not 0) stores at table
/// pointer `slot` of its virtual base `vbase`: its own overriders apply there.
fn virtual_slot_id(context: i64, vbase: CType, slot: i64) -> i64 {
    mix(context, virtual_slot_key(vbase, slot), VIRTUAL_SLOT_TAG)
}

/// The context a complete object of class `class` gives its bases.
fn root_context(class: CType) -> i64 {
    subobject_id(class, 0)
}

/// The context of the virtual base at `offset` of a complete object of class `class`.
pub(super) fn virtual_base_context_of(class: CType, offset: i64) -> i64 {
    base_context(root_context(class), offset)
}

/// Whether `class` has virtual bases (its constructors take a construction context).
pub fn has_virtual_bases(class: CType) -> bool {
    !class.virtual_bases().is_empty()
}

/// Whether `f` is a constructor or destructor of a class with virtual bases (which runs as the
/// Itanium ABI's base-object variant when given a context other than 0).
pub fn takes_construction_context(f: &Cursor) -> bool {
    matches!(
        f.kind(),
        clang_sys::CXCursor_Constructor | clang_sys::CXCursor_Destructor
    ) && f
        .semantic_parent()
        .is_some_and(|class| has_virtual_bases(class.ty()))
}

/// A base subobject with virtual bases built in a complete object: its class, where it is,
/// the context its constructor runs in.
struct Construction {
    class: CType,
    at: i64,
    context: i64,
}

/// Every base subobject with virtual bases that building a complete object of class `complete`
/// builds in a context.
fn constructions(complete: CType) -> Vec<Construction> {
    let mut out = Vec::new();
    let root = root_context(complete);
    for vbase in complete.virtual_bases() {
        let Some(at) = complete.virtual_base_offset(&vbase) else {
            continue;
        };
        if has_virtual_bases(vbase) {
            let context = base_context(root, at as i64);
            out.push(Construction {
                class: vbase,
                at: at as i64,
                context,
            });
            nonvirtual_constructions(vbase, at as i64, context, &mut out);
        }
    }
    nonvirtual_constructions(complete, 0, root, &mut out);
    out
}

fn nonvirtual_constructions(class: CType, at: i64, context: i64, out: &mut Vec<Construction>) {
    for spec in class.bases() {
        let base = spec.ty();
        if spec.is_virtual_base() || !has_virtual_bases(base) {
            continue;
        }
        let Some(offset) = class.base_offset(&base) else {
            continue;
        };
        let context = base_context(context, offset as i64);
        out.push(Construction {
            class: base.canonical(),
            at: at + offset as i64,
            context,
        });
        nonvirtual_constructions(base, at + offset as i64, context, out);
    }
}

/// One id a class may hold at a table pointer, with what it means: the class whose overriders
/// apply (`view`, in `frame`) and the slot's offset from it.
pub(super) struct SlotId {
    pub id: i64,
    pub view: CType,
    pub frame: Frame,
    pub slot: i64,
    /// Whether the id names a complete object (not one whose constructor is running).
    pub complete: bool,
}

/// Every id an object of (complete) class `complete` holds at some time: its own, and those its
/// bases with virtual bases store while they are built or destroyed, at their own table
/// pointers and at their virtual bases'. `at` locates errors.
pub(super) fn slot_ids(complete: CType, at: &Cursor) -> Result<Vec<SlotId>> {
    let frame = Frame::complete(complete);
    let mut out: Vec<SlotId> = vtable_slots(complete, at)?
        .into_iter()
        .map(|slot| SlotId {
            id: subobject_id(complete, slot),
            view: complete,
            frame,
            slot: slot as i64,
            complete: true,
        })
        .collect();
    for c in constructions(complete) {
        let frame = Frame { complete, at: c.at };
        for slot in super::virtuals::nonvirtual_slots(c.class, frame, at)? {
            out.push(SlotId {
                id: slot_id(c.context, slot),
                view: c.class,
                frame,
                slot,
                complete: false,
            });
        }
        for vbase in c.class.virtual_bases() {
            let Some(v) = complete.virtual_base_offset(&vbase) else {
                continue;
            };
            let v_frame = Frame {
                complete,
                at: v as i64,
            };
            for slot in super::virtuals::nonvirtual_slots(vbase, v_frame, at)? {
                out.push(SlotId {
                    id: virtual_slot_id(c.context, vbase, slot),
                    view: c.class,
                    frame,
                    slot: v as i64 + slot - c.at,
                    complete: false,
                });
            }
        }
    }
    Ok(out)
}

/// The virtual base through which `base` is reached from `derived` (itself or one holding it
/// at a fixed offset), and `base`'s offset in it; None when `base` is not a base of `derived`
/// through a virtual one.
fn virtual_path(derived: &CType, base: &CType) -> Option<(CType, u64)> {
    let wanted = base.canonical().declaration().canonical();
    derived
        .canonical()
        .virtual_bases()
        .into_iter()
        .find_map(|v| {
            if v.declaration().canonical() == wanted {
                Some((v, 0))
            } else {
                v.base_offset(base).map(|rest| (v, rest))
            }
        })
}

/// Whether `base` is a base of `derived` through a virtual one.
pub fn is_virtual_path(derived: &CType, base: &CType) -> bool {
    derived.canonical().kind() == clang_sys::CXType_Record
        && base.canonical().kind() == clang_sys::CXType_Record
        && virtual_path(derived, base).is_some()
}

/// The symbol of the lookup function of virtual base `vbase`.
fn lookup_symbol(vbase: CType) -> String {
    format!("__hipmlir_vbase_offset.{:x}", subobject_id(vbase, 0))
}

impl<'c> FunctionCodegen<'c, '_> {
    /// `((context ^ tag ^ offset * F) * G) | 1` at run time ([`mix`]).
    fn mix(
        &self,
        context: Value<'c>,
        offset: i64,
        tag: u64,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        let i64t: Type<'c> = IntegerType::new(self.ctx(), 64).into();
        let salt = tag ^ (offset as u64).wrapping_mul(OFFSET_FACTOR);
        let salt = self.b.const_int(i64t, salt as i64, loc)?;
        let x = self.b.insert_value(arith::xori(context, salt, loc))?;
        let factor = self.b.const_int(i64t, MIX_FACTOR as i64, loc)?;
        let x = self.b.insert_value(arith::muli(x, factor, loc))?;
        let one = self.b.const_int(i64t, 1, loc)?;
        self.b.insert_value(arith::ori(x, one, loc))
    }

    /// In a constructor of class `class` with virtual bases: whether it builds a complete
    /// object, and the context it gives its non-virtual bases.
    pub fn construction_parent(
        &mut self,
        class: CType,
        loc: Location<'c>,
    ) -> Result<(Value<'c>, Value<'c>)> {
        let context = self
            .construction
            .ok_or_else(|| super::builder::internal(loc, "constructor without its context"))?;
        let i64t: Type<'c> = IntegerType::new(self.ctx(), 64).into();
        let zero = self.b.const_int(i64t, 0, loc)?;
        let complete = self.b.insert_value(arith::cmpi(
            self.ctx(),
            arith::CmpiPredicate::Eq,
            context,
            zero,
            loc,
        ))?;
        let root = self.b.const_int(i64t, root_context(class), loc)?;
        let parent = self
            .b
            .insert_value(arith::select(complete, root, context, loc))?;
        Ok((complete, parent))
    }

    /// The context for the constructor of the base at `offset`, in a constructor whose own
    /// bases get `parent` ([`Self::construction_parent`]).
    pub fn base_construction_context(
        &self,
        parent: Value<'c>,
        offset: i64,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        self.mix(parent, offset, BASE_TAG, loc)
    }

    /// The context of a complete object's virtual base at `offset`: a constant.
    pub fn virtual_base_context(
        &self,
        class: CType,
        offset: i64,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        let i64t: Type<'c> = IntegerType::new(self.ctx(), 64).into();
        self.b
            .const_int(i64t, virtual_base_context_of(class, offset), loc)
    }

    /// The id a constructor running in context `context` stores at `slot`.
    pub fn construction_slot_id(
        &self,
        context: Value<'c>,
        slot: i64,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        self.mix(context, slot, SLOT_TAG, loc)
    }

    /// The id a constructor or destructor running in context `context` stores at table pointer
    /// `slot` of its virtual base `vbase` ([`virtual_slot_id`]).
    pub fn virtual_base_slot_id(
        &self,
        context: Value<'c>,
        vbase: CType,
        slot: i64,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        self.mix(
            context,
            virtual_slot_key(vbase, slot),
            VIRTUAL_SLOT_TAG,
            loc,
        )
    }

    /// The address of the `base` subobject of the object of class `derived` at `ptr` (generic)
    /// when `base` is reached through a virtual base: that virtual base's offset, which the
    /// object's class id says, then the fixed rest. A null pointer stays null when `nullable`.
    /// None when `base` is not reached through a virtual base of `derived`.
    pub fn through_virtual_base(
        &mut self,
        ptr: Value<'c>,
        derived: &CType,
        base: &CType,
        nullable: bool,
        loc: Location<'c>,
    ) -> Result<Option<Value<'c>>> {
        if derived.canonical().kind() != clang_sys::CXType_Record
            || base.canonical().kind() != clang_sys::CXType_Record
        {
            return Ok(None);
        }
        let Some((vbase, rest)) = virtual_path(derived, base) else {
            return Ok(None);
        };
        let ptr = self.to_generic(ptr, loc)?;
        let symbol = self.module.virtual_base_lookup(vbase);
        let ctx = self.ctx();
        let i64t: Type<'c> = IntegerType::new(ctx, 64).into();
        let lookup = |this: &mut Self| -> Result<Value<'c>> {
            let callee = FlatSymbolRefAttribute::new(ctx, &symbol);
            let offset = this
                .b
                .insert_value(func::call(ctx, callee, &[ptr], &[i64t], loc))?;
            let rest = this.b.const_int(i64t, rest as i64, loc)?;
            this.b.insert_value(arith::addi(offset, rest, loc))
        };
        let bytes = if nullable {
            // A null pointer has no object to read: it moves by nothing.
            let as_int = self.ptr_to_int(ptr, loc)?;
            let zero = self.b.const_int(i64t, 0, loc)?;
            let is_null = self.b.cmpi(arith::CmpiPredicate::Eq, as_int, zero, loc)?;
            let not_null = self.not(is_null, loc)?;
            let out = self.emit_if(
                not_null,
                &[],
                &[i64t],
                |this| Ok(vec![lookup(this)?]),
                |this| Ok(vec![this.b.const_int(i64t, 0, loc)?]),
                loc,
            )?;
            out[0]
        } else {
            lookup(self)?
        };
        let byte: Type<'c> = IntegerType::new(ctx, 8).into();
        Ok(Some(self.b.get_element_ptr(
            ptr,
            &[i32::MIN],
            &[bytes],
            byte,
            loc,
        )?))
    }
}

impl<'c> ModuleCodegen<'c> {
    /// The lookup function of virtual base `vbase` (made once the module's code is emitted).
    pub(super) fn virtual_base_lookup(&mut self, vbase: CType) -> String {
        let key = vbase.canonical().declaration().canonical();
        if !self
            .virtuals
            .vbase_lookups
            .iter()
            .any(|v| v.declaration().canonical() == key)
        {
            self.virtuals.vbase_lookups.push(vbase.canonical());
        }
        lookup_symbol(vbase)
    }

    /// `__hipmlir_vbase_offset.*(this) -> i64` of each virtual base code converted to (with
    /// `-fgpu-rdc`, also of each virtual base of the classes the module constructs): the offset
    /// of the virtual base from the subobject at `this`, chosen by the id there among those of
    /// every class the module constructs that has the virtual base; an unknown id goes to the
    /// fallback, which the device link chains to another unit's lookup (`CHAIN_GROUP_ATTRIBUTE`),
    /// and the last stops the program as a virtual call on it does.
    pub(super) fn emit_virtual_base_lookups(
        &mut self,
        bad: &super::module::FunctionSig,
        loc: Location<'c>,
    ) -> Result<()> {
        let ctx = self.ctx;
        let generic = pointer_type(ctx, AddrSpace::Generic);
        let i64t: Type<'c> = IntegerType::new(ctx, 64).into();
        let i1t: Type<'c> = IntegerType::new(ctx, 1).into();
        let classes = self.virtuals.constructed.clone();
        for vbase in self.virtuals.vbase_lookups.clone() {
            let symbol = lookup_symbol(vbase);
            if !self.virtuals.emitted.insert(symbol.clone()) {
                continue;
            }
            let key = vbase.declaration().canonical();
            let mut cases: Vec<(i64, i64)> = Vec::new();
            for class in &classes {
                let Some(at) = class.virtual_base_offset(&vbase) else {
                    continue;
                };
                for slot in slot_ids(*class, &vbase.declaration())? {
                    if slot.complete || derives(slot.view, &key) {
                        cases.push((slot.id, at as i64 - (slot.frame.at + slot.slot)));
                    }
                }
            }
            let entry = Block::new(&[(generic, loc)]);
            let b = Builder::new(ctx, &entry);
            let this = block_arguments(&entry)[0];
            let id = b.load(this, i64t, false, loc)?;
            let mut offset = b.const_int(i64t, 0, loc)?;
            let mut found = b.const_int(i1t, 0, loc)?;
            for (want, at) in cases {
                let want = b.const_int(i64t, want, loc)?;
                let is =
                    b.insert_value(arith::cmpi(ctx, arith::CmpiPredicate::Eq, id, want, loc))?;
                let at = b.const_int(i64t, at, loc)?;
                offset = b.insert_value(arith::select(is, at, offset, loc))?;
                found = b.insert_value(arith::ori(found, is, loc))?;
            }
            // An object of a class this unit does not construct: the fallback, which the device
            // link chains to the next unit's lookup in an `-fgpu-rdc` program (the last one's
            // stops, naming the virtual base).
            let fallback = self.emit_unknown_virtual_base(vbase, &symbol, bad, loc)?;
            let then_block = Block::new(&[]);
            Builder::new(ctx, &then_block).insert(scf::r#yield(&[offset], loc));
            let else_block = Block::new(&[]);
            let else_b = Builder::new(ctx, &else_block);
            let callee = FlatSymbolRefAttribute::new(ctx, &fallback);
            let other = else_b.insert(func::call(ctx, callee, &[this], &[i64t], loc));
            else_b.insert(scf::r#yield(&other, loc));
            let then_region = Region::new();
            then_region.append_block(then_block);
            let else_region = Region::new();
            else_region.append_block(else_block);
            let result = b.insert(scf::r#if(found, &[i64t], then_region, else_region, loc));
            b.insert(func::r#return(&result, loc));
            let chain = super::virtuals::chain_attributes(ctx, &symbol, &fallback);
            self.define_helper_with(&symbol, &[generic], &[i64t], entry, &chain, loc)?;
        }
        Ok(())
    }

    /// The lookup's case of an object no device code of this unit built: the bad-virtual-call
    /// function, naming the virtual base, then offset 0. Its symbol.
    fn emit_unknown_virtual_base(
        &mut self,
        vbase: CType,
        lookup: &str,
        bad: &super::module::FunctionSig,
        loc: Location<'c>,
    ) -> Result<String> {
        let ctx = self.ctx;
        let generic = pointer_type(ctx, AddrSpace::Generic);
        let i64t: Type<'c> = IntegerType::new(ctx, 64).into();
        let symbol = format!("{lookup}.unknown_class");
        let text = self.string_value(
            format!("conversion to virtual base {}", vbase.spelling()).as_bytes(),
            loc,
        )?;
        let entry = Block::new(&[(generic, loc)]);
        let b = Builder::new(ctx, &entry);
        let global = b.address_of(&text, pointer_type(ctx, AddrSpace::Global), loc)?;
        let name = b.addrspace_cast(global, generic, loc)?;
        let callee = FlatSymbolRefAttribute::new(ctx, &bad.symbol);
        b.insert(func::call(ctx, callee, &[name], &[], loc));
        let zero = b.const_int(i64t, 0, loc)?;
        b.insert(func::r#return(&[zero], loc));
        self.define_helper(&symbol, &[generic], &[i64t], entry, loc)?;
        Ok(symbol)
    }
}

/// The virtual bases of `class` with their offsets in a complete object.
pub fn virtual_bases_at(class: CType, at: &Cursor) -> Result<Vec<(CType, u64)>> {
    class
        .virtual_bases()
        .into_iter()
        .map(|v| {
            class
                .virtual_base_offset(&v)
                .map(|o| (v, o))
                .ok_or_else(|| {
                    FrontendError::unsupported(
                        at.location(),
                        format!("the layout of virtual base '{}'", v.spelling()),
                    )
                })
        })
        .collect()
}
