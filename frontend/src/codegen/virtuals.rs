//! Virtual functions in device code.
//!
//! An object of a class with virtual functions holds, where each of its virtual table pointers
//! is (at offset 0, and at the offset of each base subobject with virtual functions of its own:
//! clang's layout, the Itanium C++ ABI's), the id of its dynamic class seen from that subobject:
//! each constructor stores its own class's ids once the bases are built, and each destructor
//! before its body, so a base's constructor and destructor see their own class, as C++ says. A virtual call calls the function's dispatcher: a device
//! function, made once the module's device code is all emitted, that reads the id and calls the
//! final overrider for each class derived from the static one that this module constructs, with
//! `this` adjusted from the subobject to the overrider's class (the Itanium ABI's thunks), a
//! choice of direct calls, inlined like any other: SPIR-V has no indirect calls. An object whose
//! id is none of those (one built by host code, whose virtual table pointer means nothing on the
//! device) stops the program with a message.

use std::collections::HashSet;

use clang_sys::*;
use hipmlir_device_image::{CHAIN_FALLBACK_ATTRIBUTE, CHAIN_GROUP_ATTRIBUTE};
use melior::dialect::{arith, func, llvm, scf};
use melior::ir::attribute::{FlatSymbolRefAttribute, StringAttribute};
use melior::ir::r#type::IntegerType;
use melior::ir::{Block, Location, Region, RegionLike, Type};

use super::builder::{block_arguments, internal, Builder, Value};
use super::function::{FunctionCodegen, Val};
use super::module::{FunctionSig, ModuleCodegen};
use super::virtual_bases::{
    has_virtual_bases, slot_ids, takes_construction_context, virtual_base_context_of,
    virtual_bases_at,
};
use crate::clang::{CType, Cursor};
use crate::error::{FrontendError, Result};
use crate::types::{pointer_type, AddrSpace, Ty};

/// The device function that says, from the id at a subobject, where in its object the subobject
/// is (the Itanium ABI's offset-to-top): `delete` frees the whole object.
const OFFSET_TO_TOP: &str = "__hipmlir_offset_to_top";

/// The device function every dispatcher calls for an object of no class it knows.
const BAD_VIRTUAL_CALL: &str = "__hipmlir_bad_virtual_call";
/// What it prints (then it stops the program, as a failed assert does).
const BAD_VIRTUAL_CALL_MESSAGE: &str =
    "Device-side virtual call of %s on an object that device code did not construct.\n";

/// The id stored at offset `offset` of an object of dynamic class `class`: a hash of the class's
/// name (and of the offset, but at 0), the same in every source of a program.
pub(super) fn subobject_id(class: CType, offset: u64) -> i64 {
    let mut name = class.canonical().unqualified().spelling();
    if offset != 0 {
        name.push_str(&format!("@{offset}"));
    }
    // FNV-1a, 64 bits; 0 is no class.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (h | 1) as i64
}

/// The attributes by which the device link chains a function of `group` whose unknown cases go
/// to `fallback` (see `CHAIN_GROUP_ATTRIBUTE`).
pub(super) fn chain_attributes<'c>(
    ctx: &'c melior::Context,
    group: &str,
    fallback: &str,
) -> [(&'static str, melior::ir::Attribute<'c>); 2] {
    [
        (
            CHAIN_GROUP_ATTRIBUTE,
            StringAttribute::new(ctx, group).into(),
        ),
        (
            CHAIN_FALLBACK_ATTRIBUTE,
            FlatSymbolRefAttribute::new(ctx, fallback).into(),
        ),
    ]
}

/// The virtual functions `class` and its bases declare, each once: what a virtual call through
/// a pointer to any of them may name.
fn virtual_methods_of(class: CType) -> Vec<Cursor> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut classes = vec![class.canonical()];
    while let Some(c) = classes.pop() {
        for method in c.methods() {
            if method.is_virtual_method() && seen.insert(method.canonical()) {
                out.push(method);
            }
        }
        classes.extend(c.bases().iter().map(|b| b.ty().canonical()));
    }
    out
}

/// Where a class is: in a complete object of class `complete`, `at` bytes from its start. Its
/// non-virtual bases are where its own layout puts them, its virtual bases where the complete
/// object's does (virtual_bases.rs).
#[derive(Clone, Copy)]
pub struct Frame {
    pub complete: CType,
    pub at: i64,
}

impl Frame {
    /// A complete object of class `class`.
    pub fn complete(class: CType) -> Frame {
        Frame {
            complete: class,
            at: 0,
        }
    }
}

/// A direct base of a class in a frame: its type, its offset from the class (negative for a
/// virtual base the complete object puts ahead of it), its own frame, whether it is virtual.
struct BaseAt {
    ty: CType,
    offset: i64,
    frame: Frame,
    is_virtual: bool,
}

/// The direct bases of `class` (in `frame`).
fn bases_at(class: CType, frame: Frame, at: &Cursor) -> Result<Vec<BaseAt>> {
    class
        .bases()
        .iter()
        .map(|spec| {
            let ty = spec.ty();
            let layout_error = || {
                FrontendError::unsupported(
                    at.location(),
                    format!(
                        "the layout of base class '{}' of '{}'",
                        ty.spelling(),
                        class.spelling()
                    ),
                )
            };
            if spec.is_virtual_base() {
                let v = frame
                    .complete
                    .virtual_base_offset(&ty)
                    .ok_or_else(layout_error)? as i64;
                Ok(BaseAt {
                    ty,
                    offset: v - frame.at,
                    frame: Frame {
                        complete: frame.complete,
                        at: v,
                    },
                    is_virtual: true,
                })
            } else {
                let offset = class.base_offset(&ty).ok_or_else(layout_error)? as i64;
                Ok(BaseAt {
                    ty,
                    offset,
                    frame: Frame {
                        complete: frame.complete,
                        at: frame.at + offset,
                    },
                    is_virtual: false,
                })
            }
        })
        .collect()
}

/// Where an object of class `class` (in `frame`) holds virtual table pointers, relative to
/// it: offset 0 and those of its bases' that are not shared with it (sorted, once each); the
/// virtual bases' too when `virtual_too`.
fn slots_in(class: CType, frame: Frame, virtual_too: bool, at: &Cursor) -> Result<Vec<i64>> {
    let mut slots = Vec::new();
    if class.is_dynamic_class() {
        slots.push(0);
        for base in bases_at(class, frame, at)? {
            if base.is_virtual && !virtual_too {
                continue;
            }
            let inner = slots_in(base.ty, base.frame, virtual_too, at)?;
            slots.extend(inner.into_iter().map(|s| base.offset + s));
        }
    }
    slots.sort_unstable();
    slots.dedup();
    Ok(slots)
}

/// Where a complete object of class `class` holds virtual table pointers (its virtual bases'
/// included).
pub fn vtable_slots(class: CType, at: &Cursor) -> Result<Vec<u64>> {
    Ok(slots_in(class, Frame::complete(class), true, at)?
        .into_iter()
        .map(|s| s as u64)
        .collect())
}

/// Where an object of class `class` (in `frame`) holds virtual table pointers outside its
/// virtual bases: those its constructor stores while it builds a base subobject.
pub(super) fn nonvirtual_slots(class: CType, frame: Frame, at: &Cursor) -> Result<Vec<i64>> {
    slots_in(class, frame, false, at)
}

/// The offsets of the subobjects of class `owner` in an object of class `class` (in `frame`),
/// relative to it; through virtual bases too when `virtual_too`.
fn subobject_offsets(
    class: CType,
    owner: &Cursor,
    frame: Frame,
    virtual_too: bool,
    at: &Cursor,
) -> Result<Vec<i64>> {
    if class.canonical().declaration().canonical() == *owner {
        return Ok(vec![0]);
    }
    let mut out = Vec::new();
    for base in bases_at(class, frame, at)? {
        if base.is_virtual && !virtual_too {
            continue;
        }
        let inner = subobject_offsets(base.ty, owner, base.frame, virtual_too, at)?;
        out.extend(inner.into_iter().map(|o| base.offset + o));
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// The classes with virtual functions a module constructs, and the dispatchers its virtual
/// calls use.
#[derive(Default)]
pub struct Virtuals {
    pub(super) constructed: Vec<CType>,
    seen: HashSet<Cursor>,
    /// (the virtual function, its dispatcher)
    dispatchers: Vec<(Cursor, FunctionSig)>,
    pub(super) emitted: HashSet<String>,
    /// Whether device code deletes objects through pointers to a dynamic class (which needs
    /// [`OFFSET_TO_TOP`]).
    deletes: bool,
    /// The virtual bases code converts to (each has a lookup function, virtual_bases.rs).
    pub(super) vbase_lookups: Vec<CType>,
}

impl Virtuals {
    pub fn is_empty(&self) -> bool {
        self.dispatchers.is_empty() && !self.deletes && self.vbase_lookups.is_empty()
    }
}

/// Whether `class` is `base` or derives from it.
pub(super) fn derives(class: CType, base: &Cursor) -> bool {
    let decl = class.canonical().declaration().canonical();
    if decl == *base {
        return true;
    }
    class.bases().iter().any(|spec| derives(spec.ty(), base))
}

/// Whether member function `m` is `target` or overrides it.
fn overrides(m: &Cursor, target: &Cursor) -> bool {
    if m.canonical() == *target {
        return true;
    }
    m.overridden().iter().any(|o| overrides(o, target))
}

/// The final overrider of virtual function `method` for the subobject of class `owner` at
/// offset `offset` in an object of class `class` (in `frame`), and the offset from `class` of
/// the overrider's class (where its `this` points). None for a pure virtual function without a
/// body (an abstract class's, which only its constructors and destructor see its objects as;
/// calling it there is undefined).
fn final_overrider(
    class: CType,
    method: &Cursor,
    owner: &Cursor,
    offset: i64,
    frame: Frame,
    at: &Cursor,
) -> Result<Option<(Cursor, i64)>> {
    Ok(overrider_in(class, method, owner, offset, frame, at)?
        .filter(|(o, _)| o.definition().is_some()))
}

fn overrider_in(
    class: CType,
    method: &Cursor,
    owner: &Cursor,
    offset: i64,
    frame: Frame,
    at: &Cursor,
) -> Result<Option<(Cursor, i64)>> {
    let target = method.canonical();
    let own = if method.kind() == CXCursor_Destructor {
        class.destructor().and_then(|info| info.destructor)
    } else {
        class.methods().into_iter().find(|m| overrides(m, &target))
    };
    if let Some(own) = own {
        return Ok(Some((own, 0)));
    }
    // The bases that hold the subobject (several, when it is a shared virtual base): the
    // overrider that overrides the others' (C++'s final overrider dominates them).
    let mut found: Vec<(Cursor, i64)> = Vec::new();
    for base in bases_at(class, frame, at)? {
        let inner = offset - base.offset;
        if !subobject_offsets(base.ty, owner, base.frame, true, at)?.contains(&inner) {
            continue;
        }
        if let Some((o, o_offset)) = overrider_in(base.ty, method, owner, inner, base.frame, at)? {
            found.push((o, base.offset + o_offset));
        }
    }
    let dominant = found.iter().find(|(candidate, _)| {
        found
            .iter()
            .all(|(other, _)| overrides(candidate, &other.canonical()))
    });
    Ok(dominant.or(found.first()).copied())
}

/// One case of a dispatcher: the id at the subobject, the overrider's symbol, and what to add
/// to `this` for it.
struct Case {
    id: i64,
    symbol: String,
    adjustment: i64,
    /// The context the overrider takes after its arguments (a destructor of a class with
    /// virtual bases: 0, a complete object).
    context: Option<i64>,
    /// After a complete object's destructor: its virtual bases' destructors, last built first.
    then_destroy: Vec<ThenDestroy<String>>,
}

/// A virtual base's destructor run after a complete object's (`F` names it): its offset from
/// the overrider's `this` and the context it takes, if any (virtual_bases.rs).
struct ThenDestroy<F> {
    destructor: F,
    offset: i64,
    context: Option<i64>,
}

/// What a dispatcher chooses among: the id at the subobject, the final overrider for it, the
/// adjustment of `this` from the subobject to the overrider's class, and for a destructor of
/// a complete object with virtual bases, those bases' destructors and offsets from the
/// overrider's `this`.
struct Target {
    id: i64,
    overrider: Cursor,
    adjustment: i64,
    then_destroy: Vec<ThenDestroy<Cursor>>,
}

impl<'c> FunctionCodegen<'c, '_> {
    /// In a constructor of class `class`: when it has virtual functions, stores its ids where
    /// the virtual table pointers are (the constructor's bases are built by then).
    pub fn store_class_id(&mut self, this: Value<'c>, class: CType, at: &Cursor) -> Result<()> {
        if !class.is_dynamic_class() {
            return Ok(());
        }
        let loc = self.loc(at);
        let slots = vtable_slots(class, at)?;
        self.module.constructed_class(class);
        let i64t = Ty::LONG.value_mlir(self.ctx());
        if !has_virtual_bases(class) {
            for offset in slots {
                let id = self.b.const_int(i64t, subobject_id(class, offset), loc)?;
                let slot = self.byte_offset(this, offset as i64, loc)?;
                self.b.store(id, slot, false, loc);
            }
            return Ok(());
        }
        // A class with virtual bases: the complete object's ids, or while it is built or
        // destroyed as a base subobject those of its context (virtual_bases.rs), at its own
        // table pointers and its virtual bases' (the ABI's construction virtual tables).
        let (complete, _) = self.construction_parent(class, loc)?;
        let context = self
            .construction
            .ok_or_else(|| internal(loc, "constructor without its context"))?;
        let own = nonvirtual_slots(class, Frame::complete(class), at)?;
        let store_own = |this_: &mut Self| -> Result<()> {
            for offset in &own {
                let full = this_
                    .b
                    .const_int(i64t, subobject_id(class, *offset as u64), loc)?;
                let partial = this_.construction_slot_id(context, *offset, loc)?;
                let id = this_
                    .b
                    .insert_value(arith::select(complete, full, partial, loc))?;
                let slot = this_.byte_offset(this, *offset, loc)?;
                this_.b.store(id, slot, false, loc);
            }
            Ok(())
        };
        store_own(self)?;
        let rest: Vec<u64> = slots
            .into_iter()
            .filter(|s| !own.contains(&(*s as i64)))
            .collect();
        let mut vbase_slots = Vec::new();
        for (vbase, _) in virtual_bases_at(class, at)? {
            let inner = nonvirtual_slots(vbase, Frame::complete(vbase), at)?;
            if !inner.is_empty() {
                vbase_slots.push((vbase, inner));
            }
        }
        self.emit_if(
            complete,
            &[],
            &[],
            |this_| {
                for offset in rest {
                    let id = this_.b.const_int(i64t, subobject_id(class, offset), loc)?;
                    let slot = this_.byte_offset(this, offset as i64, loc)?;
                    this_.b.store(id, slot, false, loc);
                }
                Ok(vec![])
            },
            |this_| {
                // Where the virtual bases are, found through the ids just stored, before any
                // of their table pointers changes.
                let mut places = Vec::new();
                for (vbase, inner) in &vbase_slots {
                    let place = this_
                        .through_virtual_base(this, &class, vbase, false, loc)?
                        .ok_or_else(|| internal(loc, "a virtual base not found"))?;
                    places.push((*vbase, place, inner));
                }
                for (vbase, place, inner) in places {
                    for offset in inner {
                        let id = this_.virtual_base_slot_id(context, vbase, *offset, loc)?;
                        let slot = this_.byte_offset(place, *offset, loc)?;
                        this_.b.store(id, slot, false, loc);
                    }
                }
                // A virtual base the complete object put where one of the class's own table
                // pointers is (the ABI's primary virtual base) shares it: the class's id.
                if !vbase_slots.is_empty() {
                    store_own(this_)?;
                }
                Ok(vec![])
            },
            loc,
        )?;
        Ok(())
    }

    /// In destructor `destructor`, before its body: its class's ids, as its constructor
    /// stores them (a base subobject's destructor runs with its own class's overriders).
    pub fn store_destroyed_class_id(&mut self, destructor: &Cursor) -> Result<()> {
        let loc = self.loc(destructor);
        let class = destructor
            .semantic_parent()
            .map(|c| c.ty().canonical())
            .ok_or_else(|| internal(loc, "destructor outside a class"))?;
        let this = self.env[&super::analysis::VarKey::This].val.scalar();
        self.store_class_id(this, class, destructor)
    }

    /// A call of virtual function `callee` named without a qualifier: through its dispatcher,
    /// which calls the dynamic class's overrider.
    pub fn virtual_call(
        &mut self,
        e: &Cursor,
        callee: &Cursor,
        args: &[Cursor],
    ) -> Result<Val<'c>> {
        let (object, rest) = self.method_object(e, args, callee.arguments().len())?;
        if callee.kind() == CXCursor_Destructor {
            // `p->~T()`: the dynamic class's destructor, as `delete` calls it.
            let loc = self.loc(e);
            let object = self.to_generic(object, loc)?;
            self.virtual_destroy(callee, object, loc)?;
            return Ok(Val::Void);
        }
        let sig = self.module.dispatcher(callee)?;
        let closures = self.closure_arguments(callee, rest)?;
        self.call_with_leading(callee, &sig, vec![object], rest, closures, e)
    }

    /// Destroys the object at `object` (a generic address) whose static type's destructor
    /// `destructor` is virtual: the dynamic class's destructor, through the dispatcher.
    pub fn virtual_destroy(
        &mut self,
        destructor: &Cursor,
        object: Value<'c>,
        loc: Location<'c>,
    ) -> Result<()> {
        let sig = self.module.dispatcher(destructor)?;
        let callee = FlatSymbolRefAttribute::new(self.ctx(), &sig.symbol);
        self.b
            .insert(func::call(self.ctx(), callee, &[object], &[], loc));
        Ok(())
    }

    /// The start of the whole object whose subobject of a dynamic class is at `object` (read
    /// before the object is destroyed).
    pub fn object_start(&mut self, object: Value<'c>, loc: Location<'c>) -> Result<Value<'c>> {
        self.module.virtuals.deletes = true;
        let ctx = self.ctx();
        let i64t: Type<'c> = IntegerType::new(ctx, 64).into();
        let callee = FlatSymbolRefAttribute::new(ctx, OFFSET_TO_TOP);
        let offset = self
            .b
            .insert_value(func::call(ctx, callee, &[object], &[i64t], loc))?;
        let zero = self.b.const_int(i64t, 0, loc)?;
        let back = self.b.insert_value(arith::subi(zero, offset, loc))?;
        let byte: Type<'c> = IntegerType::new(ctx, 8).into();
        self.b
            .get_element_ptr(object, &[i32::MIN], &[back], byte, loc)
    }
}

impl<'c> ModuleCodegen<'c> {
    /// Whether, with `relocatable` (`-fgpu-rdc`), this unit offers other units what it knows of
    /// the classes it constructs (their dispatchers, offset-to-top).
    fn exports(&self, relocatable: bool) -> bool {
        relocatable && !self.virtuals.constructed.is_empty()
    }

    /// Records that device code constructs objects of dynamic class `class`.
    pub(super) fn constructed_class(&mut self, class: CType) {
        let decl = class.canonical().declaration().canonical();
        if self.virtuals.seen.insert(decl) {
            self.virtuals.constructed.push(class.canonical());
        }
    }

    /// The dispatcher of virtual function `method`: its symbol and signature (the method's).
    pub(super) fn dispatcher(&mut self, method: &Cursor) -> Result<FunctionSig> {
        let key = method.canonical();
        if let Some((_, sig)) = self.virtuals.dispatchers.iter().find(|(m, _)| *m == key) {
            return Ok(sig.clone());
        }
        let mut sig = self.signature_of(method)?;
        sig.symbol = format!("__hipmlir_virtual.{}", method.mangled_name());
        if takes_construction_context(method) {
            // A virtual destructor destroys a complete object: its dispatcher takes no context.
            sig.params.pop();
        }
        self.virtuals.dispatchers.push((key, sig.clone()));
        Ok(sig)
    }

    /// Once the device code is emitted: the overriders every dispatcher may call (emitting
    /// them may construct more classes and need more dispatchers: until nothing is new), then
    /// the dispatchers.
    ///
    /// `relocatable` (`-fgpu-rdc`): the unit also makes the dispatcher of every virtual function
    /// of the classes it constructs, called or not: another unit may call it on an object built
    /// here, and the device link chains the units' dispatchers (`CHAIN_GROUP_ATTRIBUTE`).
    pub(super) fn emit_dispatchers(&mut self, root: &Cursor, relocatable: bool) -> Result<()> {
        if self.virtuals.is_empty() && !self.exports(relocatable) {
            return Ok(());
        }
        loop {
            if relocatable {
                for class in self.virtuals.constructed.clone() {
                    for method in virtual_methods_of(class) {
                        // One this unit cannot make (a signature it does not take) is left to
                        // the units that call it, which report it.
                        let _ = self.dispatcher(&method);
                    }
                    // Another unit may convert an object built here to a virtual base.
                    for vbase in class.virtual_bases() {
                        self.virtual_base_lookup(vbase);
                    }
                }
            }
            let mut queued = false;
            let dispatchers = self.virtuals.dispatchers.clone();
            let classes = self.virtuals.constructed.clone();
            for (method, _) in &dispatchers {
                for target in self.dispatch_targets(method, &classes)? {
                    queued |= self.queue_function(&target.overrider, method)?;
                    for then in &target.then_destroy {
                        queued |= self.queue_function(&then.destructor, method)?;
                    }
                }
            }
            if !queued
                && self.virtuals.dispatchers.len() == dispatchers.len()
                && self.virtuals.constructed.len() == classes.len()
            {
                break;
            }
            self.emit_queued()?;
        }
        // With `relocatable`, another unit may delete an object built here.
        let deletes = self.virtuals.deletes || self.exports(relocatable);
        if deletes && self.virtuals.emitted.insert(OFFSET_TO_TOP.to_string()) {
            self.emit_offset_to_top(self.location_of(root))?;
        }
        let bad_sig = self.emit_bad_virtual_call(self.location_of(root))?;
        self.emit_virtual_base_lookups(&bad_sig, self.location_of(root))?;
        for (method, sig) in self.virtuals.dispatchers.clone() {
            if self.virtuals.emitted.insert(sig.symbol.clone()) {
                self.emit_dispatcher(&method, &sig, &bad_sig)?;
            }
        }
        Ok(())
    }

    /// What a dispatcher of `method` chooses among, for the classes `classes`: each id an
    /// object of a class derived from `method`'s holds at a subobject of that class (its own,
    /// and those its bases with virtual bases hold while they are built) with the final
    /// overrider for it.
    fn dispatch_targets(&self, method: &Cursor, classes: &[CType]) -> Result<Vec<Target>> {
        let Some(owner) = method.semantic_parent().map(|c| c.canonical()) else {
            return Ok(Vec::new());
        };
        let is_destructor = method.kind() == CXCursor_Destructor;
        let mut out = Vec::new();
        for class in classes.iter().filter(|c| derives(**c, &owner)) {
            for s in slot_ids(*class, method)? {
                // Objects are not destroyed while they are built.
                if (is_destructor && !s.complete) || !derives(s.view, &owner) {
                    continue;
                }
                // Through virtual bases too: a base being built or destroyed sets its
                // virtual bases' table pointers, and one of them may share its own.
                let offsets = subobject_offsets(s.view, &owner, s.frame, true, method)?;
                if !offsets.contains(&s.slot) {
                    continue;
                }
                let Some((overrider, at)) =
                    final_overrider(s.view, method, &owner, s.slot, s.frame, method)?
                else {
                    continue;
                };
                let mut then_destroy = Vec::new();
                if is_destructor {
                    // The destructor is the base-object one: the complete object's virtual
                    // bases are destroyed after it.
                    for (vbase, offset) in virtual_bases_at(*class, method)?.into_iter().rev() {
                        if let Some(d) = vbase.destructor().and_then(|info| info.destructor) {
                            let context = takes_construction_context(&d)
                                .then(|| virtual_base_context_of(*class, offset as i64));
                            then_destroy.push(ThenDestroy {
                                destructor: d,
                                offset: offset as i64 - at,
                                context,
                            });
                        }
                    }
                }
                out.push(Target {
                    id: s.id,
                    overrider,
                    adjustment: at - s.slot,
                    then_destroy,
                });
            }
        }
        Ok(out)
    }

    /// `__hipmlir_offset_to_top(this) -> i64`: the offset of the subobject whose id `this`
    /// holds in the object of each class the module constructs; 0 for any other.
    fn emit_offset_to_top(&mut self, loc: Location<'c>) -> Result<()> {
        let ctx = self.ctx;
        let generic = pointer_type(ctx, AddrSpace::Generic);
        let i64t: Type<'c> = IntegerType::new(ctx, 64).into();
        let entry = Block::new(&[(generic, loc)]);
        let b = Builder::new(ctx, &entry);
        let this = block_arguments(&entry)[0];
        let id = b.load(this, i64t, false, loc)?;
        let mut offset = b.const_int(i64t, 0, loc)?;
        let i1t: Type<'c> = IntegerType::new(ctx, 1).into();
        let mut found = b.const_int(i1t, 0, loc)?;
        for class in self.virtuals.constructed.clone() {
            for slot in vtable_slots(class, &class.declaration())?
                .into_iter()
                .filter(|s| *s != 0)
            {
                let want = b.const_int(i64t, subobject_id(class, slot), loc)?;
                let is =
                    b.insert_value(arith::cmpi(ctx, arith::CmpiPredicate::Eq, id, want, loc))?;
                let at = b.const_int(i64t, slot as i64, loc)?;
                offset = b.insert_value(arith::select(is, at, offset, loc))?;
                found = b.insert_value(arith::ori(found, is, loc))?;
            }
        }
        // Another id: a complete object's (0), or, in an `-fgpu-rdc` program, a subobject of a
        // class another unit constructs: the fallback, which the device link chains to that
        // unit's function (the last one's answers 0).
        let fallback = format!("{OFFSET_TO_TOP}.unknown_class");
        let fallback_entry = Block::new(&[(generic, loc)]);
        let fb = Builder::new(ctx, &fallback_entry);
        let zero = fb.const_int(i64t, 0, loc)?;
        fb.insert(func::r#return(&[zero], loc));
        self.define_helper(&fallback, &[generic], &[i64t], fallback_entry, loc)?;
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
        let chain = chain_attributes(ctx, OFFSET_TO_TOP, &fallback);
        self.define_helper_with(OFFSET_TO_TOP, &[generic], &[i64t], entry, &chain, loc)
    }

    /// `__hipmlir_bad_virtual_call(const char* function)`: prints the message, then stops the
    /// program (traps.rs).
    fn emit_bad_virtual_call(&mut self, loc: Location<'c>) -> Result<FunctionSig> {
        let ctx = self.ctx;
        let generic = pointer_type(ctx, AddrSpace::Generic);
        let sig = FunctionSig {
            symbol: BAD_VIRTUAL_CALL.to_string(),
            params: vec![Ty::Pointer {
                pointee: Box::new(Ty::Int {
                    bits: 8,
                    signed: true,
                }),
            }],
            result: Ty::Void,
        };
        if !self.virtuals.emitted.insert(sig.symbol.clone()) {
            return Ok(sig);
        }
        let entry = Block::new(&[(generic, loc)]);
        let b = Builder::new(ctx, &entry);
        let name = block_arguments(&entry)[0];
        let format = self.string_constant(BAD_VIRTUAL_CALL_MESSAGE.as_bytes(), loc)?;
        let format = b.address_of(&format, pointer_type(ctx, AddrSpace::Constant), loc)?;
        let i32t: Type<'c> = IntegerType::new(ctx, 32).into();
        let constant = pointer_type(ctx, AddrSpace::Constant);
        let printf = self.printf_declaration(&[constant, generic], i32t, loc)?;
        let callee = FlatSymbolRefAttribute::new(ctx, &printf);
        b.insert(func::call(ctx, callee, &[format, name], &[i32t], loc));
        let stop = self.stop_function(loc)?;
        b.insert(func::call(
            ctx,
            FlatSymbolRefAttribute::new(ctx, stop),
            &[],
            &[],
            loc,
        ));
        b.insert(func::r#return(&[], loc));
        self.define_helper(&sig.symbol, &[generic], &[], entry, loc)?;
        Ok(sig)
    }

    /// `dispatcher(this, args...)`: reads the object's class id and calls that class's
    /// overrider; an unknown id calls the bad-virtual-call function.
    fn emit_dispatcher(
        &mut self,
        method: &Cursor,
        sig: &FunctionSig,
        bad: &FunctionSig,
    ) -> Result<()> {
        let ctx = self.ctx;
        let loc = self.location_of(method);
        let classes = self.virtuals.constructed.clone();
        let mut cases = Vec::new();
        for target in self.dispatch_targets(method, &classes)? {
            let callee = self.declare_device_function(&target.overrider, method)?;
            let mut then_destroy = Vec::new();
            for then in &target.then_destroy {
                let sig = self.declare_device_function(&then.destructor, method)?;
                then_destroy.push(ThenDestroy {
                    destructor: sig.symbol,
                    offset: then.offset,
                    context: then.context,
                });
            }
            cases.push(Case {
                id: target.id,
                symbol: callee.symbol,
                adjustment: target.adjustment,
                context: takes_construction_context(&target.overrider).then_some(0),
                then_destroy,
            });
        }
        let inputs: Vec<Type<'c>> = sig.params.iter().map(|t| t.value_mlir(ctx)).collect();
        let results: Vec<Type<'c>> = match sig.result {
            Ty::Void => vec![],
            ref t => vec![t.value_mlir(ctx)],
        };
        let fallback = self.emit_unknown_class(method, sig, bad, &inputs, &results, loc)?;
        let entry = Block::new(&inputs.iter().map(|t| (*t, loc)).collect::<Vec<_>>());
        let b = Builder::new(ctx, &entry);
        let args = block_arguments(&entry);
        let this = *args
            .first()
            .ok_or_else(|| internal(loc, "virtual function without this"))?;
        let i64t: Type<'c> = IntegerType::new(ctx, 64).into();
        let id = b.load(this, i64t, false, loc)?;
        let out = self.dispatch_cases(&b, id, &cases, &args, &results, &fallback, loc)?;
        b.insert(func::r#return(&out, loc));
        // This unit knows the classes it constructs; the device link chains the dispatchers of
        // an `-fgpu-rdc` program's units, through their fallbacks.
        let chain = chain_attributes(ctx, &sig.symbol, &fallback);
        self.define_helper_with(&sig.symbol, &inputs, &results, entry, &chain, loc)
    }

    /// The dispatcher's case of an id it does not know (an object no device code of this unit
    /// built): the bad-virtual-call function, naming the method, then a placeholder result.
    /// Its symbol.
    fn emit_unknown_class(
        &mut self,
        method: &Cursor,
        sig: &FunctionSig,
        bad: &FunctionSig,
        inputs: &[Type<'c>],
        results: &[Type<'c>],
        loc: Location<'c>,
    ) -> Result<String> {
        let ctx = self.ctx;
        let symbol = format!("{}.unknown_class", sig.symbol);
        let entry = Block::new(&inputs.iter().map(|t| (*t, loc)).collect::<Vec<_>>());
        let b = Builder::new(ctx, &entry);
        // Memory first (SPIR-V wants a function's variables ahead of its code).
        let default = self.placeholder_value(&b, &sig.result, loc)?;
        // The method's name, for the message of an unknown class.
        let name = format!(
            "{}::{}",
            method
                .semantic_parent()
                .map(|c| c.ty().spelling())
                .unwrap_or_default(),
            method.spelling()
        );
        let text = self.string_value(name.as_bytes(), loc)?;
        let global = b.address_of(&text, pointer_type(ctx, AddrSpace::Global), loc)?;
        let generic = b.addrspace_cast(global, pointer_type(ctx, AddrSpace::Generic), loc)?;
        let callee = FlatSymbolRefAttribute::new(ctx, &bad.symbol);
        b.insert(func::call(ctx, callee, &[generic], &[], loc));
        let out: Vec<Value<'c>> = default.iter().copied().collect();
        b.insert(func::r#return(&out, loc));
        self.define_helper(&symbol, inputs, results, entry, loc)?;
        Ok(symbol)
    }

    /// A value of type `ty` for the dispatcher to return after the bad-virtual-call function
    /// (which stops the program): zero, or for a class the contents of fresh memory. Made in the
    /// entry block, where `b` inserts.
    fn placeholder_value(
        &self,
        b: &Builder<'c>,
        ty: &Ty,
        loc: Location<'c>,
    ) -> Result<Option<Value<'c>>> {
        let ctx = self.ctx;
        let value = match ty {
            Ty::Void => return Ok(None),
            Ty::Int { .. } | Ty::Bool | Ty::FnPtr { .. } => {
                b.const_int(ty.value_mlir(ctx), 0, loc)?
            }
            Ty::Float { .. } => b.const_float(ty.value_mlir(ctx), 0.0, loc)?,
            Ty::Pointer { .. } => {
                b.insert_value(llvm::zero(pointer_type(ctx, AddrSpace::Generic), loc))?
            }
            Ty::Record(_) | Ty::Array { .. } => {
                let i64t: Type<'c> = IntegerType::new(ctx, 64).into();
                let one = b.const_int(i64t, 1, loc)?;
                let elem = melior::ir::attribute::TypeAttribute::new(ty.memory_mlir(ctx)).into();
                let memory = b.value(
                    "llvm.alloca",
                    &[one],
                    pointer_type(ctx, AddrSpace::Private),
                    &[("elem_type", elem)],
                    loc,
                )?;
                b.load(memory, ty.memory_mlir(ctx), false, loc)?
            }
        };
        Ok(Some(value))
    }

    /// The chain `id == c0 ? o0(args) : id == c1 ? o1(args) : ... : fallback(args)`.
    #[allow(clippy::too_many_arguments)]
    fn dispatch_cases(
        &mut self,
        b: &Builder<'c>,
        id: Value<'c>,
        cases: &[Case],
        args: &[Value<'c>],
        results: &[Type<'c>],
        fallback: &str,
        loc: Location<'c>,
    ) -> Result<Vec<Value<'c>>> {
        let ctx = self.ctx;
        let Some((case, rest)) = cases.split_first() else {
            let callee = FlatSymbolRefAttribute::new(ctx, fallback);
            let call = b.insert(func::call(ctx, callee, args, results, loc));
            return Ok(call);
        };
        let i64t: Type<'c> = IntegerType::new(ctx, 64).into();
        let want = b.const_int(i64t, case.id, loc)?;
        let is = b.insert_value(arith::cmpi(ctx, arith::CmpiPredicate::Eq, id, want, loc))?;
        let then_block = Block::new(&[]);
        let then_b = Builder::new(ctx, &then_block);
        let mut operands = args.to_vec();
        if case.adjustment != 0 {
            // The thunk: `this` moves from the subobject to the overrider's class.
            let delta = then_b.const_int(i64t, case.adjustment, loc)?;
            let byte: Type<'c> = IntegerType::new(ctx, 8).into();
            operands[0] = then_b.get_element_ptr(args[0], &[i32::MIN], &[delta], byte, loc)?;
        }
        let callee = FlatSymbolRefAttribute::new(ctx, &case.symbol);
        let mut call_operands = operands.clone();
        if let Some(context) = case.context {
            call_operands.push(then_b.const_int(i64t, context, loc)?);
        }
        let called = then_b.insert(func::call(ctx, callee, &call_operands, results, loc));
        for then in &case.then_destroy {
            let delta = then_b.const_int(i64t, then.offset, loc)?;
            let byte: Type<'c> = IntegerType::new(ctx, 8).into();
            let at = then_b.get_element_ptr(operands[0], &[i32::MIN], &[delta], byte, loc)?;
            let mut destroy_operands = vec![at];
            if let Some(context) = then.context {
                destroy_operands.push(then_b.const_int(i64t, context, loc)?);
            }
            let callee = FlatSymbolRefAttribute::new(ctx, &then.destructor);
            then_b.insert(func::call(ctx, callee, &destroy_operands, &[], loc));
        }
        then_b.insert(scf::r#yield(&called, loc));
        let else_block = Block::new(&[]);
        let else_b = Builder::new(ctx, &else_block);
        let rest = self.dispatch_cases(&else_b, id, rest, args, results, fallback, loc)?;
        else_b.insert(scf::r#yield(&rest, loc));
        let then_region = Region::new();
        then_region.append_block(then_block);
        let else_region = Region::new();
        else_region.append_block(else_block);
        Ok(b.insert(scf::r#if(is, results, then_region, else_region, loc)))
    }
}
