//! `hipmlir-specialize-address-spaces`: address arithmetic and accesses through a generic
//! pointer that is a cast from one specific space (a kernel argument: global; a `__shared__`
//! variable: workgroup) move to that space, the cast sinking below them, as LLVM's
//! InferAddressSpaces does on GPUs.
//!
//! The frontend makes every C pointer generic. An access left generic costs on the CPU device:
//! Intel's OpenCL runtime vectorizes a generic GEP chain into full 64-bit addresses, so a store
//! of consecutive work-items into a `__shared__` array becomes a scatter of two halves where
//! the workgroup pointer gives one contiguous store. `address_spaces` infers the space of the
//! accesses it cannot reach this way (pointers through loops and branches); the lowering casts
//! those at the access.
//!
//! - `llvm.getelementptr` of `addrspacecast(p : specific)`: the GEP walks `p` in its space, and
//!   its other users get `addrspacecast(GEP)`, which the GEPs and accesses after it take apart
//!   the same way (the walk visits definitions before their uses);
//! - `llvm.load`, `llvm.store`, `llvm.atomicrmw`, `llvm.cmpxchg` through such a cast use `p`.
//!
//! Casts nothing uses any more are erased.

use hipmlir_ir::rewrite::{
    apply_patterns, replace_all_uses_except, Outcome, Pattern, PatternRewriter, RewritePatternSet,
};
use melior::ir::operation::OperationLike;
use melior::ir::{Module, OperationRef, ValueLike};
use melior::Context;
use mlir_sys::{
    mlirLLVMPointerTypeGetAddressSpace, mlirOpResultGetOwner, mlirOperationSetOperand,
    mlirTypeIsALLVMPointerType, mlirValueGetType, mlirValueIsAOpResult, mlirValueSetType,
    MlirValue,
};

use crate::address_space_map::spirv::GENERIC;
use crate::builder::{value, Rewriter};
use crate::LowerError;

/// The cast this pass sinks.
const CAST: &str = "llvm.addrspacecast";

/// The memory accesses that take a specific pointer as they take a generic one, each with the
/// position of its pointer operand.
const ACCESSES: &[(&str, usize)] = &[
    ("llvm.load", 0),
    ("llvm.store", 1),
    ("llvm.atomicrmw", 0),
    ("llvm.cmpxchg", 0),
];

pub fn specialize_address_spaces(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns.add(Pattern::new("llvm.getelementptr", walk_in_specific_space));
    patterns.extend(
        ACCESSES
            .iter()
            .map(|(op, _)| Pattern::new(op, access_in_specific_space)),
    );
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut ())
}

/// The cast and its source when `pointer` is a cast from a specific space to the generic one.
fn specific_source<'c>(pointer: MlirValue) -> Option<(OperationRef<'c, 'c>, MlirValue)> {
    // SAFETY: structural and type queries on live IR.
    unsafe {
        if !mlirValueIsAOpResult(pointer) || space(pointer) != Some(GENERIC) {
            return None;
        }
        let cast = OperationRef::from_raw(mlirOpResultGetOwner(pointer));
        if cast.name().as_string_ref().as_str() != Ok(CAST) {
            return None;
        }
        let source = cast.operand(0).ok()?.to_raw();
        match space(source) {
            Some(s) if s != GENERIC => Some((cast, source)),
            _ => None,
        }
    }
}

/// The address space of a pointer value (None: not an LLVM pointer).
fn space(v: MlirValue) -> Option<u32> {
    // SAFETY: type queries on a live value.
    unsafe {
        let t = mlirValueGetType(v);
        mlirTypeIsALLVMPointerType(t).then(|| mlirLLVMPointerTypeGetAddressSpace(t))
    }
}

/// `gep(addrspacecast p)` becomes `addrspacecast(gep p)`.
fn walk_in_specific_space<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut (),
    gep: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let at = Rewriter::after(rw.ctx, &gep);
    let base = gep.operand(0).map_err(|e| at.error(e))?;
    let Some((cast, source)) = specific_source(base.to_raw()) else {
        return Ok(Outcome::NoMatch);
    };
    let result = gep.result(0).map_err(|e| at.error(e))?;
    let generic = result.r#type();
    // SAFETY: the GEP and its operand are live; its result takes the source's pointer type,
    // which every use but the new cast stops seeing below.
    unsafe {
        mlirOperationSetOperand(gep.to_raw(), 0, source);
        mlirValueSetType(result.to_raw(), mlirValueGetType(source));
    }
    let sunk = at.one(CAST, &[result.to_raw()], generic, &[])?;
    // SAFETY: the result of the cast just built.
    let sunk_op = unsafe { OperationRef::from_raw(mlirOpResultGetOwner(sunk)) };
    replace_all_uses_except(result, value(sunk), &sunk_op);
    rw.erase_if_unused(&sunk_op);
    rw.erase_if_unused(&cast);
    Ok(Outcome::Rewrote)
}

/// An access through `addrspacecast p` accesses `p`.
fn access_in_specific_space<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut (),
    access: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let name = access.name();
    let name = name.as_string_ref().as_str().unwrap_or("");
    let Some(&(_, position)) = ACCESSES.iter().find(|(n, _)| *n == name) else {
        return Ok(Outcome::NoMatch);
    };
    let Ok(pointer) = access.operand(position) else {
        return Ok(Outcome::NoMatch);
    };
    let Some((cast, source)) = specific_source(pointer.to_raw()) else {
        return Ok(Outcome::NoMatch);
    };
    // SAFETY: a live access and a live value of a pointer type it accepts.
    unsafe { mlirOperationSetOperand(access.to_raw(), position as isize, source) };
    rw.erase_if_unused(&cast);
    Ok(Outcome::Rewrote)
}
