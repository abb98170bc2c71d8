//! The device link: the frontend modules of several translation units become one module, with
//! their symbols resolved as a linker resolves them (what `-fgpu-rdc` asks for).
//!
//! A symbol's linkage comes from the frontend: `llvm.linkage` on `func.func`, `linkage` on
//! `llvm.mlir.global`. External definitions are one per program, linkonce_odr definitions
//! (inline functions, template instances) may repeat and one is kept, declarations are resolved
//! by a definition, and internal symbols (`static`, string constants, library declarations
//! without linkage) stay apart, renamed when two units use the same name.
//! Functions that know only their unit's cases (virtual functions' dispatchers, marked with
//! `CHAIN_GROUP_ATTRIBUTE`) are chained across units: see [`chain_groups`].
//! A single module goes through the same link, so every build sees the same module shape.

use std::collections::HashMap;

use hipmlir_device_image::{
    CHAIN_FALLBACK_ATTRIBUTE, CHAIN_GROUP_ATTRIBUTE, FUNCTION_POINTERS_ATTRIBUTE, LINKAGE_ATTRIBUTE,
};
use hipmlir_ir::rewrite::{append_to, erase_unused, move_before};
use melior::ir::attribute::{DictionaryAttribute, FlatSymbolRefAttribute, StringAttribute};
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationRefMut;
use melior::ir::operation::{OperationLike, OperationMutLike};
use melior::ir::operation::{WalkOrder, WalkResult};
use melior::ir::RegionLike;
use melior::ir::{Attribute, Identifier, Location, Module, OperationRef};
use melior::Context;
use mlir_sys::{MlirOperation, MlirStringRef};

use crate::symbols::symbol;
use crate::LowerError;

/// One translation unit's frontend module and the source it came from (for messages).
pub struct LinkUnit<'c> {
    pub source: String,
    pub module: Module<'c>,
}

/// The linked module and the external declarations no unit defines.
pub struct Linked<'c> {
    pub module: Module<'c>,
    pub unresolved: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Linkage {
    Internal,
    LinkOnce,
    External,
}

struct Symbol {
    op: MlirOperation,
    linkage: Linkage,
    is_declaration: bool,
}

/// A unit's top-level operation, its symbol (name and kind, if it has one) and what to do.
type Step = (MlirOperation, Option<(String, Symbol)>, Action);

/// What the link does with a unit's symbol.
enum Action {
    Move,
    Drop,
    /// The linked module's declaration gives way to this definition.
    ReplaceExisting,
    /// Two units' internal symbols share a name: this one is renamed.
    RenameThis,
    /// An internal symbol already linked shares the name of this external one: it is renamed.
    RenameExisting,
}

pub fn link_modules<'c>(
    ctx: &'c Context,
    units: Vec<LinkUnit<'c>>,
) -> Result<Linked<'c>, LowerError> {
    let linked = Module::new(Location::unknown(ctx));
    let mut table: HashMap<String, Symbol> = HashMap::new();
    let mut renamed = 0usize;
    let known = LinkageAttributes::new(ctx);
    // The units' tables of address-taken functions, merged under the symbols' final names.
    let mut pointer_table: Vec<(String, Attribute<'c>)> = Vec::new();
    for unit in units {
        let mut renamed_here: HashMap<String, String> = HashMap::new();
        // First every decision and rename, while the unit's ops are all in its module (a
        // rename must reach every use), then the moves.
        let mut plan: Vec<Step> = Vec::new();
        for raw in top_level(&unit.module) {
            // SAFETY: `raw` is a live top-level operation of `unit.module`.
            let op = unsafe { OperationRef::from_raw(raw) };
            let Some(name) = symbol(&op, "sym_name") else {
                plan.push((raw, None, Action::Move));
                continue;
            };
            let symbol = Symbol {
                op: raw,
                linkage: linkage_of(&op, &known),
                is_declaration: is_declaration(&op),
            };
            let action = match table.get(&name) {
                None => Action::Move,
                Some(existing) => resolve(&name, existing, &symbol)?,
            };
            let (name, action) = match action {
                Action::RenameThis => {
                    let new_name = unique_name(&name, &table, &mut renamed);
                    rename(
                        ctx,
                        raw,
                        &name,
                        &new_name,
                        unit.module.as_operation().to_raw(),
                    )?;
                    renamed_here.insert(name, new_name.clone());
                    (new_name, Action::Move)
                }
                Action::RenameExisting => {
                    if let Some(old) = table.remove(&name) {
                        let new_name = unique_name(&name, &table, &mut renamed);
                        rename(
                            ctx,
                            old.op,
                            &name,
                            &new_name,
                            linked.as_operation().to_raw(),
                        )?;
                        for entry in pointer_table.iter_mut().filter(|e| e.0 == name) {
                            entry.0 = new_name.clone();
                        }
                        table.insert(new_name, old);
                    }
                    (name, Action::Move)
                }
                other => (name, other),
            };
            plan.push((raw, Some((name, symbol)), action));
        }
        for (symbol, id) in function_pointers(&unit.module) {
            let symbol = renamed_here.get(&symbol).cloned().unwrap_or(symbol);
            if !pointer_table.iter().any(|e| e.0 == symbol) {
                pointer_table.push((symbol, id));
            }
        }
        for (raw, symbol, action) in plan {
            match action {
                Action::Drop => continue,
                Action::ReplaceExisting => {
                    let Some((name, symbol)) = symbol else {
                        continue;
                    };
                    if let Some(old) = table.remove(&name) {
                        // SAFETY: `old` is a declaration in `linked`, `raw` a definition of its
                        // unit; both live.
                        let (old, definition) = unsafe {
                            (OperationRef::from_raw(old.op), OperationRef::from_raw(raw))
                        };
                        // Its users name it by symbol and now reach the definition, which
                        // takes its place.
                        move_before(&definition, &old);
                        erase_unused(&old)?;
                    }
                    table.insert(name, symbol);
                }
                _ => {
                    if let Some((name, symbol)) = symbol {
                        table.insert(name, symbol);
                    }
                    move_into(&linked, raw);
                }
            }
        }
    }
    let mut unresolved: Vec<String> = table
        .iter()
        .filter(|(_, s)| s.is_declaration && s.linkage == Linkage::External)
        .map(|(name, _)| name.clone())
        .collect();
    unresolved.sort();
    chain_groups(ctx, &linked);
    internalize(ctx, &linked);
    if !pointer_table.is_empty() {
        let entries: Vec<(Identifier, Attribute)> = pointer_table
            .iter()
            .map(|(symbol, id)| (Identifier::new(ctx, symbol), *id))
            .collect();
        let mut linked = linked;
        linked.as_operation_mut().set_attribute(
            FUNCTION_POINTERS_ATTRIBUTE,
            DictionaryAttribute::new(ctx, &entries).into(),
        );
        return Ok(Linked {
            module: linked,
            unresolved,
        });
    }
    Ok(Linked {
        module: linked,
        unresolved,
    })
}

fn resolve(name: &str, existing: &Symbol, new: &Symbol) -> Result<Action, LowerError> {
    use Linkage::*;
    // SAFETY: both are live operations (one in the linked module, one in its unit).
    let (old_op, new_op) = unsafe {
        (
            OperationRef::from_raw(existing.op),
            OperationRef::from_raw(new.op),
        )
    };
    Ok(match (existing.linkage, new.linkage) {
        // Declarations without linkage (device library functions) name the same function.
        (Internal, Internal)
            if existing.is_declaration && new.is_declaration && same_type(&old_op, &new_op) =>
        {
            Action::Drop
        }
        (_, Internal) => Action::RenameThis,
        (Internal, _) => Action::RenameExisting,
        _ => {
            if !same_type(&old_op, &new_op) {
                return Err(LowerError::Link(format!(
                    "{}: error: device symbol '{name}' has another type than at {}",
                    location_of(&new_op),
                    location_of(&old_op)
                )));
            }
            match (existing.is_declaration, new.is_declaration) {
                (_, true) => Action::Drop,
                (true, false) => Action::ReplaceExisting,
                (false, false) if existing.linkage == LinkOnce || new.linkage == LinkOnce => {
                    Action::Drop
                }
                (false, false) => {
                    return Err(LowerError::Link(format!(
                        "{}: error: multiple definition of device symbol '{name}' (first defined at {})",
                        location_of(&new_op),
                        location_of(&old_op)
                    )))
                }
            }
        }
    })
}

/// After the link every definition is the program's own: globals become internal (as a
/// single translation unit's always were), except the host's (see [`host_visible`]), and come
/// before every function (SPIR-V wants a variable before the functions that use it), and
/// functions lose the linkage attribute.
fn internalize(ctx: &Context, module: &Module) {
    let internal = Some(llvm_linkage(
        ctx,
        mlir_sys::MlirLLVMLinkage_MlirLLVMLinkageInternal,
    ));
    let external = Some(llvm_linkage(
        ctx,
        mlir_sys::MlirLLVMLinkage_MlirLLVMLinkageExternal,
    ));
    let ops = top_level(module);
    // SAFETY: live top-level operations of `module`.
    let first_function = ops
        .iter()
        .copied()
        .find(|raw| !is_global(&unsafe { OperationRef::from_raw(*raw) }));
    for raw in ops {
        // SAFETY: a live top-level operation of `module`, changed in place.
        let mut op = unsafe { OperationRefMut::from_raw(raw) };
        if op.has_attribute(LINKAGE_ATTRIBUTE) {
            let _ = op.remove_attribute(LINKAGE_ATTRIBUTE);
        }
        if is_global(&op) {
            if !is_declaration(&op) {
                let linkage = if host_visible(&op) {
                    external
                } else {
                    internal
                };
                if let Some(linkage) = linkage {
                    op.set_attribute("linkage", linkage);
                }
            }
            if let Some(function) = first_function {
                // SAFETY: a live operation of `module`'s body; order among globals is kept.
                move_before(&op, &unsafe { OperationRef::from_raw(function) });
            }
        }
    }
}

/// A module's table of address-taken functions (symbol, id attribute).
fn function_pointers<'c>(module: &Module<'c>) -> Vec<(String, Attribute<'c>)> {
    let Ok(table) = module
        .as_operation()
        .attribute(FUNCTION_POINTERS_ATTRIBUTE)
        .and_then(DictionaryAttribute::try_from)
    else {
        return Vec::new();
    };
    (0..table.len())
        .filter_map(|i| table.element(i).ok())
        .filter_map(|(name, id)| {
            name.as_string_ref()
                .as_str()
                .ok()
                .map(|n| (n.to_string(), id))
        })
        .collect()
}

/// A function of a chain group: its symbol, its fallback's symbol, the function.
type ChainMember = (String, String, MlirOperation);

/// The functions of one chain group (`CHAIN_GROUP_ATTRIBUTE`: a virtual function's dispatcher
/// in each unit that calls it, knowing the classes that unit constructs), several units' in the
/// units' order: every call of a later member reaches the first, and each member's fallback (an
/// id it does not know) becomes the next member, so that a call reaches the unit that built the
/// object; the last keeps its own fallback (the bad-virtual-call stop). The attributes are the
/// link's alone and go.
fn chain_groups(ctx: &Context, module: &Module) {
    let mut groups: Vec<(String, Vec<ChainMember>)> = Vec::new();
    for raw in top_level(module) {
        // SAFETY: a live top-level operation of `module`.
        let mut op = unsafe { OperationRefMut::from_raw(raw) };
        let (Some(group), Some(name), Some(fallback)) = (
            symbol(&op, CHAIN_GROUP_ATTRIBUTE),
            symbol(&op, "sym_name"),
            symbol(&op, CHAIN_FALLBACK_ATTRIBUTE),
        ) else {
            continue;
        };
        let _ = op.remove_attribute(CHAIN_GROUP_ATTRIBUTE);
        let _ = op.remove_attribute(CHAIN_FALLBACK_ATTRIBUTE);
        match groups.iter_mut().find(|(g, _)| *g == group) {
            Some((_, members)) => members.push((name, fallback, raw)),
            None => groups.push((group, vec![(name, fallback, raw)])),
        }
    }
    let chained: Vec<&Vec<ChainMember>> = groups
        .iter()
        .map(|(_, m)| m)
        .filter(|m| m.len() > 1)
        .collect();
    // The calls of later members reach the first, every group in one walk of the module (before
    // the fallbacks' calls below, which name later members on purpose).
    let first_of: HashMap<&str, &str> = chained
        .iter()
        .flat_map(|m| {
            m[1..]
                .iter()
                .map(|later| (later.0.as_str(), m[0].0.as_str()))
        })
        .collect();
    if !first_of.is_empty() {
        retarget_calls(ctx, module.as_operation().to_raw(), |callee| {
            first_of.get(callee).copied()
        });
    }
    for members in chained {
        for pair in members.windows(2) {
            let (fallback, next) = (pair[0].1.as_str(), pair[1].0.as_str());
            retarget_calls(ctx, pair[0].2, |callee| {
                (callee == fallback).then_some(next)
            });
        }
    }
}

/// Points each `func.call` inside `within` whose callee `to` maps at the symbol it gives.
fn retarget_calls<'s>(ctx: &Context, within: MlirOperation, to: impl Fn(&str) -> Option<&'s str>) {
    // SAFETY: a live operation of the linked module.
    let root = unsafe { OperationRef::from_raw(within) };
    let mut calls = Vec::new();
    root.walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("func.call") {
            if let Some(target) = symbol(&op, "callee").as_deref().and_then(&to) {
                calls.push((op.to_raw(), target));
            }
        }
        WalkResult::Advance
    });
    for (raw, target) in calls {
        // SAFETY: a live call found above.
        let mut call = unsafe { OperationRefMut::from_raw(raw) };
        call.set_attribute("callee", FlatSymbolRefAttribute::new(ctx, target).into());
    }
}

fn top_level(module: &Module) -> Vec<MlirOperation> {
    let mut out = Vec::new();
    let body = module.body();
    let mut op = body.first_operation();
    while let Some(o) = op {
        out.push(o.to_raw());
        op = o.next_in_block();
    }
    out
}

fn move_into(linked: &Module, raw: MlirOperation) {
    // SAFETY: a live operation of its unit, owned by the linked module from now on.
    append_to(&unsafe { OperationRef::from_raw(raw) }, &linked.body());
}

fn rename(
    ctx: &Context,
    raw: MlirOperation,
    old: &str,
    new: &str,
    within: MlirOperation,
) -> Result<(), LowerError> {
    let string_ref = |s: &str| MlirStringRef {
        data: s.as_ptr() as *const _,
        length: s.len(),
    };
    // SAFETY: `within` holds every use of the symbol; the strings outlive the call.
    let result = unsafe {
        mlir_sys::mlirSymbolTableReplaceAllSymbolUses(string_ref(old), string_ref(new), within)
    };
    if result.value == 0 {
        return Err(LowerError::bug(format!(
            "device link: cannot rename the uses of '{old}'"
        )));
    }
    // SAFETY: a live symbol operation.
    let mut op = unsafe { OperationRefMut::from_raw(raw) };
    op.set_attribute("sym_name", StringAttribute::new(ctx, new).into());
    Ok(())
}

fn unique_name(name: &str, table: &HashMap<String, Symbol>, counter: &mut usize) -> String {
    loop {
        *counter += 1;
        let candidate = format!("{name}.tu{counter}");
        if !table.contains_key(&candidate) {
            return candidate;
        }
    }
}

fn is_global<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> bool {
    op.name().as_string_ref().as_str() == Ok("llvm.mlir.global")
}

/// Whether a global is a mutable variable of the global address space: what the host reaches
/// (device variables, through the symbol API and the runtime's heap, abort-flag and managed
/// variables) behind the device code's back. As clang keeps device variables
/// (`externally_initialized`), it stays externally visible (PTX `.visible`, SPIR-V `Export`):
/// a device compiler that took it for the module's own may assume it sees every store to it,
/// and fold a variable no kernel writes to its initializer.
pub(crate) fn host_visible<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> bool {
    is_global(op)
        && !op.has_attribute("constant")
        && op
            .attribute("addr_space")
            .ok()
            .and_then(|a| melior::ir::attribute::IntegerAttribute::try_from(a).ok())
            .is_some_and(|a| a.value() == i64::from(hipmlir_device_image::address_space::GLOBAL))
}

/// Whether a global is a definition the linked module exports (see [`host_visible`]).
pub(crate) fn exported_global(ctx: &Context, op: &OperationRef) -> bool {
    is_global(op)
        && !is_declaration(op)
        && linkage_of(op, &LinkageAttributes::new(ctx)) == Linkage::External
}

fn is_declaration<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> bool {
    if is_global(op) {
        return !op.has_attribute("value") && op.region(0).is_ok_and(|r| r.first_block().is_none());
    }
    op.region(0).is_ok_and(|r| r.first_block().is_none())
}

fn linkage_of(op: &OperationRef, known: &LinkageAttributes) -> Linkage {
    let attr = if is_global(op) {
        op.attribute("linkage")
    } else {
        op.attribute(LINKAGE_ATTRIBUTE)
    };
    match attr {
        Ok(a) if Some(a) == known.linkonce_odr => Linkage::LinkOnce,
        Ok(a) if Some(a) == known.external => Linkage::External,
        _ => Linkage::Internal,
    }
}

/// The linkage attributes the frontend writes, to compare with.
struct LinkageAttributes<'c> {
    linkonce_odr: Option<Attribute<'c>>,
    external: Option<Attribute<'c>>,
}

impl<'c> LinkageAttributes<'c> {
    fn new(ctx: &'c Context) -> Self {
        LinkageAttributes {
            linkonce_odr: Some(llvm_linkage(
                ctx,
                mlir_sys::MlirLLVMLinkage_MlirLLVMLinkageLinkonceODR,
            )),
            external: Some(llvm_linkage(
                ctx,
                mlir_sys::MlirLLVMLinkage_MlirLLVMLinkageExternal,
            )),
        }
    }
}

/// `#llvm.linkage<...>` (melior's own builder knows no linkonce_odr).
fn llvm_linkage(ctx: &Context, linkage: mlir_sys::MlirLLVMLinkage) -> Attribute<'_> {
    // SAFETY: the C API returns an attribute of `ctx`.
    unsafe { Attribute::from_raw(mlir_sys::mlirLLVMLinkageAttrGet(ctx.to_raw(), linkage)) }
}

fn same_type(a: &OperationRef, b: &OperationRef) -> bool {
    let key = if is_global(a) {
        "global_type"
    } else {
        "function_type"
    };
    matches!((a.attribute(key), b.attribute(key)), (Ok(x), Ok(y)) if x == y)
}

fn location_of(op: &OperationRef) -> String {
    hipmlir_ir::source_location(op.location())
        .map_or_else(|| "<unknown>".to_string(), |l| l.to_string())
}
