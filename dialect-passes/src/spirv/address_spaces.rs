//! Address-space inference (after LLVM's InferAddressSpaces): which generic pointers are known to
//! point into one specific space.
//!
//! The frontend makes every C pointer generic. Most come from a kernel argument (global) or a
//! `__shared__` variable (workgroup) through casts, GEPs and control flow; an access through such
//! a pointer can use the specific space, which atomics need on some drivers (Intel's CPU runtime
//! has no generic-pointer atomics) and which GPUs access faster.
//!
//! A forward dataflow over SSA values: null pointers are compatible with anything (bottom), a
//! cast from a specific space starts a fact, GEPs, selects and structured control flow merge
//! facts, and anything else (loads of pointers, integer casts) is generic (top).

use std::collections::HashMap;

use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, WalkOrder, WalkResult};
use melior::ir::{Module, RegionLike, ValueLike};
use mlir_sys::{
    mlirBlockArgumentGetArgNumber, mlirBlockArgumentGetOwner, mlirBlockGetParentOperation,
    mlirBlockGetParentRegion, mlirLLVMPointerTypeGetAddressSpace, mlirOpResultGetOwner,
    mlirOpResultGetResultNumber, mlirOperationGetName, mlirOperationGetNumOperands,
    mlirOperationGetOperand, mlirOperationGetRegion, mlirRegionEqual, mlirTypeIsALLVMPointerType,
    mlirValueGetType, mlirValueIsABlockArgument, mlirValueIsAOpResult, MlirOperation, MlirValue,
};

/// It runs on SPIR-V-numbered modules (after hipmlir-address-spaces-to-spirv).
const GENERIC: u32 = crate::address_space_map::spirv::GENERIC;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fact {
    /// No information yet (or a null pointer): compatible with any space.
    Bottom,
    Space(u32),
    /// Could point anywhere.
    Generic,
}

impl Fact {
    fn join(self, other: Fact) -> Fact {
        match (self, other) {
            (Fact::Bottom, f) | (f, Fact::Bottom) => f,
            (Fact::Space(a), Fact::Space(b)) if a == b => Fact::Space(a),
            _ => Fact::Generic,
        }
    }
}

/// Memory accesses whose generic pointer operand provably points into one space:
/// operation → space.
pub fn specific_access_spaces(module: &Module) -> HashMap<usize, u32> {
    let mut values: Vec<MlirValue> = Vec::new();
    let mut accesses: Vec<(MlirOperation, MlirValue)> = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let name = op.name();
        let name = name.as_string_ref().as_str().unwrap_or("");
        for r in op.results() {
            if is_generic(r.to_raw()) {
                values.push(r.to_raw());
            }
        }
        for region in op.regions() {
            let mut block = region.first_block();
            while let Some(b) = block {
                for i in 0..b.argument_count() {
                    if let Ok(a) = b.argument(i) {
                        if is_generic(a.to_raw()) {
                            values.push(a.to_raw());
                        }
                    }
                }
                block = b.next_in_region();
            }
        }
        let pointer_operand = match name {
            "llvm.load" | "llvm.atomicrmw" | "llvm.cmpxchg" => Some(0),
            "llvm.store" => Some(1),
            _ => None,
        };
        if let Some(i) = pointer_operand {
            if let Ok(p) = op.operand(i) {
                if is_generic(p.to_raw()) {
                    accesses.push((op.to_raw(), p.to_raw()));
                }
            }
        }
        WalkResult::Advance
    });

    let mut facts: HashMap<usize, Fact> = values.iter().map(|v| (key(*v), Fact::Bottom)).collect();
    // Monotone over a finite lattice of height 3: this terminates.
    loop {
        let mut changed = false;
        for v in &values {
            let new = transfer(*v, &facts);
            let old = facts.insert(key(*v), new);
            changed |= old != Some(new);
        }
        if !changed {
            break;
        }
    }
    accesses
        .into_iter()
        .filter_map(|(op, p)| match facts.get(&key(p)) {
            Some(Fact::Space(s)) => Some((op.ptr as usize, *s)),
            _ => None,
        })
        .collect()
}

fn key(v: MlirValue) -> usize {
    v.ptr as usize
}

fn is_generic(v: MlirValue) -> bool {
    // SAFETY: type queries on a live value.
    unsafe {
        let t = mlirValueGetType(v);
        mlirTypeIsALLVMPointerType(t) && mlirLLVMPointerTypeGetAddressSpace(t) == GENERIC
    }
}

/// The fact of a value that is not generic-typed: its own space.
fn fact_of(v: MlirValue, facts: &HashMap<usize, Fact>) -> Fact {
    if let Some(f) = facts.get(&key(v)) {
        return *f;
    }
    // SAFETY: type queries on a live value.
    unsafe {
        let t = mlirValueGetType(v);
        if mlirTypeIsALLVMPointerType(t) {
            return Fact::Space(mlirLLVMPointerTypeGetAddressSpace(t));
        }
    }
    Fact::Generic
}

fn op_name(op: MlirOperation) -> String {
    // SAFETY: a live operation's name.
    unsafe {
        let id = mlirOperationGetName(op);
        let s = mlir_sys::mlirIdentifierStr(id);
        String::from_utf8_lossy(std::slice::from_raw_parts(s.data as *const u8, s.length))
            .into_owned()
    }
}

fn operand(op: MlirOperation, i: isize) -> Option<MlirValue> {
    // SAFETY: bounds-checked operand access on a live operation.
    unsafe { (i < mlirOperationGetNumOperands(op)).then(|| mlirOperationGetOperand(op, i)) }
}

fn transfer(v: MlirValue, facts: &HashMap<usize, Fact>) -> Fact {
    // SAFETY: structural queries on live IR.
    unsafe {
        if mlirValueIsAOpResult(v) {
            let op = mlirOpResultGetOwner(v);
            let index = mlirOpResultGetResultNumber(v) as isize;
            return match op_name(op).as_str() {
                "llvm.addrspacecast" | "llvm.getelementptr" => {
                    operand(op, 0).map_or(Fact::Generic, |p| fact_of(p, facts))
                }
                "llvm.mlir.zero" => Fact::Bottom,
                "arith.select" => {
                    let a = operand(op, 1).map_or(Fact::Generic, |p| fact_of(p, facts));
                    let b = operand(op, 2).map_or(Fact::Generic, |p| fact_of(p, facts));
                    a.join(b)
                }
                // Results of scf.if / scf.while: what the regions yield at that position.
                "scf.if" => yielded(op, &[0, 1], "scf.yield", index, facts),
                "scf.while" => yielded(op, &[0], "scf.condition", index + 1, facts),
                _ => Fact::Generic,
            };
        }
        if mlirValueIsABlockArgument(v) {
            let block = mlirBlockArgumentGetOwner(v);
            let index = mlirBlockArgumentGetArgNumber(v) as isize;
            let parent = mlirBlockGetParentOperation(block);
            if op_name(parent) != "scf.while" {
                return Fact::Generic;
            }
            let region = mlirBlockGetParentRegion(block);
            let before = mlirOperationGetRegion(parent, 0);
            return if mlirRegionEqual(region, before) {
                // Entered from the initial values and from the "after" region's yield.
                let init = operand(parent, index).map_or(Fact::Generic, |p| fact_of(p, facts));
                init.join(yielded(parent, &[1], "scf.yield", index, facts))
            } else {
                yielded(parent, &[0], "scf.condition", index + 1, facts)
            };
        }
        Fact::Generic
    }
}

/// The join of operand `index` of the terminators named `terminator` in the given regions.
fn yielded(
    op: MlirOperation,
    regions: &[isize],
    terminator: &str,
    index: isize,
    facts: &HashMap<usize, Fact>,
) -> Fact {
    let mut fact = Fact::Bottom;
    for r in regions {
        // SAFETY: structural queries on live IR.
        unsafe {
            let region = mlirOperationGetRegion(op, *r);
            let mut block = mlir_sys::mlirRegionGetFirstBlock(region);
            while !block.ptr.is_null() {
                let term = mlir_sys::mlirBlockGetTerminator(block);
                if !term.ptr.is_null() && op_name(term) == terminator {
                    fact = fact
                        .join(operand(term, index).map_or(Fact::Generic, |p| fact_of(p, facts)));
                }
                block = mlir_sys::mlirBlockGetNextInRegion(block);
            }
        }
    }
    fact
}
