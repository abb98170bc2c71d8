//! `hipmlir-check-memory-accesses` (`-fsanitize=address`): every load, store and atomic of
//! device code is checked before it runs, on both targets (the pass runs on the outlined
//! kernels, before the address spaces are renumbered for a target).
//!
//! Where the pass sees the object an access goes into (the pointer is an offset of a local
//! variable, a `__shared__` array or a `__device__` variable), the check is one comparison
//! against that object's size. An offset of a kernel's pointer argument is compared with the
//! pointer's extent, the bytes left of its allocation, which the runtime passes as a hidden
//! parameter ([`extent_parameter`]; elsewhere found in the table's index of allocation starts). When
//! that fails (or for other pointers: read from memory), the module's slow path
//! ([`SLOW_PATH_FUNCTION`]) looks the address up in the runtime's table of live allocations,
//! which the module's checker state points to (a binary search); one found in none is then
//! compared with the kernel's own objects whose address it could hold (those converted to
//! generic pointers), so that a pointer into shared memory or the stack is never reported.
//! Dynamic shared memory (`extern __shared__`) is compared with the size the runtime writes
//! into the state before each launch. On SPIR-V the slow path is called behind a subgroup vote;
//! in counted loops the check is made once before the loop ([`loops`]), each access's own only
//! where that failed; a load or store under conditions that differ between work-items is
//! checked before them ([`divergence`]).
//!
//! A bad access is skipped (a load reads harmless memory instead: the state's scratch words, or
//! the start of its object), and the first one claims the state's error word and writes the
//! report: its site, address, thread and block (see `hipmlir_device_image::memcheck`). Stores
//! and atomics also wait for a clear error word, so nothing is written after the first bad
//! access; then the work-item traps (PTX ends the kernel; SPIR-V removes the trap later). On PTX
//! ([`OnFailure::Trap`]) every work-item whose check failed traps there, before its access, which
//! then runs unguarded. The
//! sites, numbered in walk order, go to the gpu.module's `SITES_ATTRIBUTE` with the kernel's
//! name and the access's `file:line:col` for the image's metadata.

mod divergence;
mod loops;
mod workgroup;

use std::collections::HashMap;

use hipmlir_device_image::memcheck::{
    Access, Object, ObjectKind, Site, INDEX_MULTIPLIER, INDEX_SHIFT, REPORT_ADDRESS, REPORT_BASE,
    REPORT_BLOCK, REPORT_RAISED, REPORT_SIZE, REPORT_THREAD, SITES_ATTRIBUTE, STATE_DYNAMIC_SHARED,
    STATE_ERROR, STATE_REPORT, STATE_SCRATCH, STATE_SCRATCH_BYTES, STATE_TABLE,
};
use hipmlir_device_image::{
    address_space, atomic_ordering, AtomicBinOp, ADDRESS_KERNEL_PREFIX, DYNAMIC_SHARED_SYMBOL,
    KERNEL_ARGS_ATTRIBUTE, KERNEL_NAME_ATTRIBUTE, MEMCHECK_EXTENTS_ATTRIBUTE,
    MEMCHECK_STATE_VARIABLE, RUNTIME_WORD_VARIABLES,
};
use hipmlir_ir::rewrite::RewritePatternSet;
use hipmlir_ir::rewrite::{apply_patterns, enclosing, Outcome, Pattern, PatternRewriter};
use hipmlir_ir::GpuDimension;
use hipmlir_ir::Value as IrValue;
use melior::dialect::arith::{self, CmpiPredicate};
use melior::dialect::{llvm, scf};
use melior::ir::attribute::AttributeLike;
use melior::ir::attribute::{
    ArrayAttribute, DenseI32ArrayAttribute, DenseI64ArrayAttribute, FlatSymbolRefAttribute,
    IntegerAttribute, StringAttribute, TypeAttribute,
};
use melior::ir::block::BlockLike;
use melior::ir::operation::WalkResult;
use melior::ir::operation::{OperationLike, OperationMutLike, OperationRefMut, WalkOrder};
use melior::ir::r#type::IntegerType;
use melior::ir::r#type::TypeLike;
use melior::ir::{Attribute, Block, Module, OperationRef, Region, RegionLike, Type, ValueLike};
use melior::Context;
use mlir_sys::MlirValue;

use crate::builder::{type_of, value, Rewriter};
use crate::layout::{address_of, constant_offset, offsets_of, size_and_align, Address};
use crate::LowerError;

/// Marks the checker's subgroup votes (a unit attribute), which a kernel that runs its
/// work-items one at a time replaces by each one's own condition
/// (`hipmlir-unvote-scalar-kernels`): a program's own votes keep their meaning.
pub(crate) const VOTE_ATTRIBUTE: &str = "hipmlir.memcheck_vote";

fn err(e: impl std::fmt::Display) -> LowerError {
    LowerError::bug(format!("checking memory accesses: {e}"))
}

/// The accesses checked: the op, the operand holding the pointer, and what it does.
const ACCESSES: [(&str, usize, Access); 4] = [
    ("llvm.load", 0, Access::Read),
    ("llvm.store", 1, Access::Write),
    ("llvm.atomicrmw", 0, Access::Atomic),
    ("llvm.cmpxchg", 0, Access::Atomic),
];

/// The uses of a compare-and-swap's pair of results: each an `llvm.extractvalue` of the old
/// value (0) or the success flag (1), with that position. None when another op uses the pair
/// or the value is not an integer: the compare-and-swap is then left unchecked (its pair has no
/// stand-in the targets lower; a skipped one gives the old value zero).
fn compare_and_swap_uses<'c>(
    op: &OperationRef<'c, 'c>,
) -> Option<Vec<(OperationRef<'c, 'c>, i64)>> {
    let compared = op.operand(1).ok()?.r#type();
    // SAFETY: type query on a live type.
    if !unsafe { mlir_sys::mlirTypeIsAInteger(compared.to_raw()) } {
        return None;
    }
    let pair = op.result(0).ok()?.to_raw();
    let mut uses = Vec::new();
    // SAFETY: walking the use list of a live value; owners are live operations.
    unsafe {
        let mut u = mlir_sys::mlirValueGetFirstUse(pair);
        while !u.ptr.is_null() {
            let user = OperationRef::from_raw(mlir_sys::mlirOpOperandGetOwner(u));
            if user.name().as_string_ref().as_str() != Ok("llvm.extractvalue") {
                return None;
            }
            let position = user.attribute("position").ok()?.to_raw();
            if !mlir_sys::mlirAttributeIsADenseI64Array(position)
                || mlir_sys::mlirDenseArrayGetNumElements(position) != 1
            {
                return None;
            }
            let at = mlir_sys::mlirDenseI64ArrayGetElement(position, 0);
            if at > 1 {
                return None;
            }
            uses.push((user, at));
            u = mlir_sys::mlirOpOperandGetNextUse(u);
        }
    }
    Some(uses)
}

/// Whether a skipped access of type `t` can give a constant (integers, floats, pointers).
fn is_scalar(t: Type) -> bool {
    // SAFETY: type queries on a live type.
    unsafe {
        let raw = t.to_raw();
        mlir_sys::mlirTypeIsAInteger(raw)
            || mlir_sys::mlirTypeIsAFloat(raw)
            || mlir_sys::mlirTypeIsALLVMPointerType(raw)
    }
}

/// A variable of a gpu.module: its size (None: unknown) and address space.
#[derive(Clone, Copy)]
struct Variable {
    size: Option<u64>,
    space: u32,
}

/// An object's size in bytes: known to the compiler, or an i64 value (dynamic shared memory's).
#[derive(Clone, Copy)]
enum Size {
    Fixed(u64),
    Runtime(MlirValue),
}

/// What an access's offset is measured from: an object of the kernel, or a kernel argument
/// (with its generic address as an integer, computed at the entry).
enum Root<'a> {
    Object(&'a Base),
    Argument {
        argument: MlirValue,
        address: MlirValue,
    },
}

impl Root<'_> {
    /// Whether `value` is this root's own pointer (an address is computed from it).
    fn is(&self, value: MlirValue) -> bool {
        match self {
            Root::Argument { argument, .. } => argument.ptr == value.ptr,
            Root::Object(Base::Alloca(alloca)) => alloca.ptr == value.ptr,
            Root::Object(Base::Global(symbol, _)) => {
                // SAFETY: queries on a live value and its defining operation.
                unsafe {
                    mlir_sys::mlirValueIsAOpResult(value) && {
                        let op = OperationRef::from_raw(mlir_sys::mlirOpResultGetOwner(value));
                        op.name().as_string_ref().as_str() == Ok("llvm.mlir.addressof")
                            && addressed_symbol(&op) == *symbol
                    }
                }
            }
        }
    }
}

/// The width of an integer value (None: not an integer).
fn integer_width(v: MlirValue) -> Option<u32> {
    // SAFETY: type queries on a live value's type.
    unsafe {
        let t = mlir_sys::mlirValueGetType(v);
        mlir_sys::mlirTypeIsAInteger(t).then(|| mlir_sys::mlirIntegerTypeGetWidth(t))
    }
}

/// The 32-bit value an i64 `index` extends, and whether the extension is signed.
fn extended_from_32_bits(index: MlirValue) -> Option<(MlirValue, bool)> {
    // SAFETY: queries on a live value and its defining operation.
    let op = unsafe {
        if !mlir_sys::mlirValueIsAOpResult(index) {
            return None;
        }
        OperationRef::from_raw(mlir_sys::mlirOpResultGetOwner(index))
    };
    let signed = match op.name().as_string_ref().as_str() {
        Ok("arith.extsi") => true,
        Ok("arith.extui") => false,
        _ => return None,
    };
    let narrow = op.operand(0).ok()?.to_raw();
    (integer_width(narrow) == Some(32) && integer_width(index) == Some(64))
        .then_some((narrow, signed))
}

/// An object of a kernel a pointer may hold the address of.
#[derive(Clone)]
enum Base {
    /// A local variable (an `llvm.alloca` of the kernel's entry block).
    Alloca(MlirValue),
    /// A variable of the gpu.module, by symbol, with its address space.
    Global(String, u32),
}

#[derive(Clone)]
struct KernelObject {
    base: Base,
    object: Object,
}

impl KernelObject {
    /// Dynamic shared memory, whose size the launch gives.
    fn is_dynamic(&self) -> bool {
        self.object.kind == ObjectKind::DynamicShared
    }
}

/// The pass's state: per gpu.module its variables and sites, per function the objects its
/// generic pointers may point into (found on first use).
#[derive(Default)]
struct State {
    variables: HashMap<usize, HashMap<String, Variable>>,
    sites: HashMap<usize, Vec<Site>>,
    escaping: HashMap<usize, Vec<KernelObject>>,
    /// Per function: its escaping objects listed at its entry for the slow path to search
    /// (None: too few to list).
    lists: HashMap<usize, Option<ObjectList>>,
    checkers: HashMap<usize, Checker>,
    /// Per (function, kernel argument): the argument's generic address and its allocation's
    /// size, found at the entry.
    argument_ranges: HashMap<(usize, usize), (MlirValue, MlirValue)>,
    /// Whether failed fast checks are voted on per subgroup.
    vote: bool,
    on_failure: OnFailure,
    /// The gpu.modules whose slow path is defined.
    slow_paths: std::collections::HashSet<usize>,
    /// Per counted loop (by its operation): its unchecked copy, run where every check the
    /// loop's accesses had hoisted passed (see `loops::LoopCopy`).
    loop_copies: HashMap<usize, loops::LoopCopy>,
    /// Per (block, address, bytes) a load checked: its verdict and vote (see `check_access`);
    /// the address as the pointer where it has no [`Address`].
    verdicts: HashMap<AccessKey, (MlirValue, MlirValue)>,
    /// Per kernel (by its operation): its unchecked copy, run where the checks hoisted out of
    /// the work-group pass (see `workgroup`), and its gpu.module.
    kernel_copies: HashMap<usize, (workgroup::KernelCopy, usize)>,
}

/// An access as (its block, its address, or its pointer where it has no [`Address`], its bytes).
type AccessKey = (usize, Result<Address, usize>, u64);

/// What every check of a function reads, loaded once at its entry: the checker's state (null:
/// the runtime gave none, nothing is checked) and the table's index. (Loaded per access, these
/// loads sat in every loop for the device compiler to hoist: one hoisting crashed Intel's OpenCL
/// CPU compiler, and they cost time besides. A launch reads the table it started with: the
/// runtime keeps a replaced table until the device is idle.)
#[derive(Clone, Copy)]
struct Checker {
    state: MlirValue,
    /// The table's index of allocation starts (its first word: the index's bits).
    index: MlirValue,
    /// The state, or the module's stand-in when there is none: words read with no branch.
    readable: MlirValue,
    /// The entry block's first operation of the function's own: what is computed once at the
    /// entry goes in front of it, after the checker's loads.
    anchor: mlir_sys::MlirOperation,
    /// HIP's threadIdx packed in one word ([`Build::packed_thread`]) where the device's local
    /// ids are not HIP's, that is in a kernel using warp operations, which SPIR-V runs as a
    /// linear work-group (`linear_blocks` recomputes threadIdx in the kernel only); elsewhere
    /// [`THREAD_NOT_PASSED`], and the slow path reads the work-item's own ids when it reports.
    /// (Passed by every check, all six ids were extracted lane by lane in the checks' hot path
    /// by Intel's CPU compiler; read by the report, only threadIdx.x still is, and checked
    /// kernels ran 6 to 25 % faster.) Read at the entry, where every check sees it: read beside each
    /// call, in the branch that calls, Intel's CPU compiler crashed in simplifycfg (SIGILL in
    /// `Instruction::clone`) on a call of [`SLOW_PATH_NOT_INLINED`] in a kernel that returns
    /// early unless `blockIdx.x == 0 && threadIdx.x == 0`.
    thread: MlirValue,
}

/// The slow path's `thread` word where the kernel does not pass HIP's threadIdx (see
/// [`Checker::thread`]).
const THREAD_NOT_PASSED: i64 = -1;

/// The bits of each of threadIdx.x, .y and .z in a packed thread word (HIP's blocks have at
/// most 1024 threads).
const THREAD_ID_BITS: u32 = 21;

/// A kernel's escaping objects in a local array of words (their count, then each one's address
/// and size), written once in its entry block, which the slow path searches. (Compared inline
/// at each check, the objects of a kernel with many, such as inlined constructors' locals, made
/// much of its checks' code: virtual_base_construction.hip's PTX went from 443k lines to 352k
/// with the list.)
#[derive(Clone)]
struct ObjectList {
    /// The array, as a generic pointer (defined after the last store: a check it dominates
    /// finds the list filled).
    pointer: MlirValue,
    listed: Vec<Base>,
}

/// A kernel lists its escaping objects when it has at least this many (with fewer, the
/// comparisons inline are cheaper than the list and keep the hot path free of its stores).
const LISTED_FROM: usize = 5;

impl Base {
    fn same(&self, other: &Base) -> bool {
        match (self, other) {
            (Base::Alloca(a), Base::Alloca(b)) => a.ptr == b.ptr,
            (Base::Global(a, _), Base::Global(b, _)) => a == b,
            _ => false,
        }
    }

    /// Whether the object exists from the function's entry block on: a variable, an argument,
    /// an alloca of the entry block (the block's operation defining it, if one does).
    fn in_entry_block(
        &self,
        entry: mlir_sys::MlirBlock,
    ) -> Option<Option<mlir_sys::MlirOperation>> {
        let Base::Alloca(value) = self else {
            return Some(None);
        };
        // SAFETY: queries on a live value and its defining operation.
        unsafe {
            if !mlir_sys::mlirValueIsAOpResult(*value) {
                return Some(None);
            }
            let alloca = mlir_sys::mlirOpResultGetOwner(*value);
            (mlir_sys::mlirOperationGetBlock(alloca).ptr == entry.ptr).then_some(Some(alloca))
        }
    }
}

/// Lists `function`'s `escaping` objects of fixed size that exist from its entry block on, just
/// after the last of them is defined (None: fewer than [`LISTED_FROM`]).
fn list_objects<'c>(
    ctx: &'c Context,
    function: &OperationRef<'c, 'c>,
    checker: &Checker,
    escaping: &[KernelObject],
) -> Result<Option<ObjectList>, LowerError> {
    let entry = function
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or_else(|| err("a function without a body"))?
        .to_raw();
    let mut listed = Vec::new();
    let mut allocas = Vec::new();
    for o in escaping.iter().filter(|o| !o.is_dynamic()) {
        let Some(defined) = o.base.in_entry_block(entry) else {
            continue;
        };
        allocas.extend(defined);
        listed.push(o.clone());
    }
    if listed.len() < LISTED_FROM {
        return Ok(None);
    }
    // The entry block's operation the list goes after (None: before the anchor).
    let last = crate::builder::latest_in_block(allocas);
    // SAFETY: the anchor and `last` are live operations of the entry block, which ends in a
    // terminator: an operation follows each alloca.
    let at = unsafe {
        match last {
            Some(l) => OperationRef::from_raw(mlir_sys::mlirOperationGetNextInBlock(l)),
            None => OperationRef::from_raw(checker.anchor),
        }
    };
    let r = Rewriter::before(ctx, &at);
    let b = Build { r: &r, ctx };
    let array = b.local_words(1 + 2 * listed.len())?;
    b.store(b.int(listed.len() as i64)?, b.word(array, 0)?, false);
    for (i, o) in listed.iter().enumerate() {
        let address = b.object_address(&o.base)?;
        b.store(address, b.word(array, 1 + 2 * i as u64)?, false);
        let size = b.int(o.object.size as i64)?;
        b.store(size, b.word(array, 2 + 2 * i as u64)?, false);
    }
    Ok(Some(ObjectList {
        pointer: b.to_generic(array)?,
        listed: listed.into_iter().map(|o| o.base).collect(),
    }))
}

/// The kernel argument (an argument of `function`'s entry block) `pointer` is an offset of.
fn argument_of(pointer: MlirValue, function: &OperationRef) -> Option<MlirValue> {
    let entry = function.region(0).ok()?.first_block()?.to_raw();
    let mut current = pointer;
    // SAFETY: queries on live values and their defining operations.
    unsafe {
        loop {
            if mlir_sys::mlirValueIsABlockArgument(current) {
                let owner = mlir_sys::mlirBlockArgumentGetOwner(current);
                return (owner.ptr == entry.ptr).then_some(current);
            }
            if !mlir_sys::mlirValueIsAOpResult(current) {
                return None;
            }
            let defining = OperationRef::from_raw(mlir_sys::mlirOpResultGetOwner(current));
            match defining.name().as_string_ref().as_str() {
                Ok("llvm.getelementptr" | "llvm.addrspacecast") => {
                    current = defining.operand(0).ok()?.to_raw();
                }
                _ => return None,
            }
        }
    }
}

/// The extent of the pointer kernel argument `argument` holds, as (the argument's generic
/// address, the bytes from there to the end of its allocation; 0 when in none: every access
/// through the argument then takes the table's search), computed at the function's entry with
/// no loop (a loop there stops the device compiler from keeping the check's branch uniform).
/// A kernel takes it from the runtime as a hidden parameter ([`extent_parameter`]); elsewhere
/// it is found in the table's index, which holds allocations by their start.
fn argument_range(
    ctx: &Context,
    checker: &Checker,
    function: &OperationRef,
    argument: MlirValue,
) -> Result<(MlirValue, MlirValue), LowerError> {
    // SAFETY: the anchor is a live operation of the entry block.
    let anchor = unsafe { OperationRef::from_raw(checker.anchor) };
    let r = Rewriter::before(ctx, &anchor);
    let b = Build { r: &r, ctx };
    let address = b.ptr_to_int(b.to_generic(argument)?)?;
    if let Some(extent) = extent_parameter(ctx, function, argument)? {
        return Ok((address, extent));
    }
    let i64t = b.i64();
    // (An index of 0 bits, the stand-in's, has one slot: shift and mask keep slot 0.)
    let bits = b.load(checker.index, i64t)?;
    let key = b.binary("arith.shrui", address, b.int(INDEX_SHIFT as i64)?)?;
    let hash = b.binary("arith.muli", key, b.int(INDEX_MULTIPLIER as i64)?)?;
    let shift = b.binary("arith.subi", b.int(64)?, bits)?;
    let shift = b.binary("arith.andi", shift, b.int(63)?)?;
    let mask = b.binary("arith.shli", b.int(1)?, bits)?;
    let mask = b.binary("arith.subi", mask, b.int(1)?)?;
    let slot = b.binary("arith.shrui", hash, shift)?;
    let slot = b.binary("arith.andi", slot, mask)?;
    let at = b.binary("arith.shli", slot, b.int(1)?)?;
    let at = b.binary("arith.addi", at, b.int(1)?)?;
    let start = b.load(b.word_at(checker.index, at)?, i64t)?;
    let end_at = b.binary("arith.addi", at, b.int(1)?)?;
    let end = b.load(b.word_at(checker.index, end_at)?, i64t)?;
    let hit = b.cmp(CmpiPredicate::Eq, start, address)?;
    let size = b.binary("arith.subi", end, start)?;
    Ok((address, b.select(hit, size, b.int(0)?)?))
}

/// The hidden `i64` parameter of kernel `function` through which the runtime gives the extent
/// of the pointer in its argument `argument` (see `KernelInfo::memcheck_extents`). On first use
/// the kernel gets one after its listed arguments for each of them that is a pointer to global
/// memory, in order, named in [`MEMCHECK_EXTENTS_ATTRIBUTE`]. (Read from the table's index at
/// the entry, the extents were computed again for every few work-items by Intel's CPU
/// compiler, whose work-group loop wraps the kernel's entry and which cannot tell that the
/// kernel's stores leave the table alone: twice the checks' cost there.) None where `function`
/// is no kernel, `argument` no such pointer, or the kernel's parameters are not its listed
/// arguments.
fn extent_parameter(
    ctx: &Context,
    function: &OperationRef,
    argument: MlirValue,
) -> Result<Option<MlirValue>, LowerError> {
    if !function.has_attribute("gpu.kernel") {
        return Ok(None);
    }
    let Some(listed) = function
        .attribute(KERNEL_ARGS_ATTRIBUTE)
        .ok()
        .and_then(crate::symbols::array_elements)
    else {
        return Ok(None);
    };
    let entry = function
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or_else(|| err("a kernel without a body"))?;
    let extents: Vec<i64> = match function
        .attribute(MEMCHECK_EXTENTS_ATTRIBUTE)
        .ok()
        .and_then(|a| DenseI64ArrayAttribute::try_from(a).ok())
    {
        Some(a) => (0..a.len()).filter_map(|i| a.element(i).ok()).collect(),
        None => {
            if entry.argument_count() != listed.len() {
                return Ok(None);
            }
            let extents: Vec<i64> = (0..listed.len() as i64)
                .filter(|&i| is_global_pointer(listed[i as usize]))
                .collect();
            let i64t: Type = IntegerType::new(ctx, 64).into();
            for _ in &extents {
                entry.add_argument(i64t, function.location());
            }
            crate::builder::update_function_type(ctx, function)?;
            // SAFETY: the live kernel; setting an attribute keeps it alive.
            unsafe { OperationRefMut::from_raw(function.to_raw()) }.set_attribute(
                MEMCHECK_EXTENTS_ATTRIBUTE,
                DenseI64ArrayAttribute::new(ctx, &extents).into(),
            );
            extents
        }
    };
    // SAFETY: a block argument of the kernel's entry block (`argument_of`).
    let position = unsafe { mlir_sys::mlirBlockArgumentGetArgNumber(argument) } as i64;
    match extents.iter().position(|&e| e == position) {
        Some(at) => Ok(Some(
            entry.argument(listed.len() + at).map_err(err)?.to_raw(),
        )),
        None => Ok(None),
    }
}

/// Whether an entry of a kernel's `hipmlir.kernel_args` is a pointer to global memory (not the
/// dynamic shared memory's, nor a by-value argument).
fn is_global_pointer(entry: Attribute) -> bool {
    let Ok(entry) = melior::ir::attribute::DictionaryAttribute::try_from(entry) else {
        return false;
    };
    // (Through MLIR's C API: melior's `BoolAttribute::try_from` takes strings, not bools.)
    let pointer = entry.element_by_name("is_pointer").is_some_and(|a| {
        // SAFETY: a live attribute, its kind checked before its value is read.
        unsafe {
            mlir_sys::mlirAttributeIsABool(a.to_raw()) && mlir_sys::mlirBoolAttrGetValue(a.to_raw())
        }
    });
    let space = entry
        .element_by_name("addr_space")
        .and_then(|a| StringAttribute::try_from(a).ok())
        .map(|s| s.value().to_string());
    pointer && space.as_deref() != Some("workgroup")
}

/// The module's stand-in for a missing state (zeros: an empty table, an index of one empty
/// slot), so that a function's entry reads its checker with no branch (a branch there keeps a
/// device compiler that runs work-items as vector lanes from keeping the checks' branch
/// uniform).
const NO_STATE_VARIABLE: &str = "__hipmlir_memcheck_none";
const NO_STATE_BYTES: usize = 32;

/// Loads `function`'s [`Checker`] at the start of its entry block: with no state, the table
/// and index are the module's zeros ([`NO_STATE_VARIABLE`]).
fn load_checker<'c>(
    ctx: &'c Context,
    gpu_module: &OperationRef<'c, 'c>,
    function: &OperationRef<'c, 'c>,
) -> Result<Checker, LowerError> {
    let entry = function
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or_else(|| err("a function without a body"))?;
    let anchor = entry
        .first_operation()
        .ok_or_else(|| err("an empty entry block"))?
        .to_raw();
    if !crate::symbols::has_symbol(gpu_module.to_raw(), NO_STATE_VARIABLE)? {
        Rewriter::at_module_start(ctx, gpu_module, function.location())?.llvm_bytes_global(
            NO_STATE_VARIABLE,
            &[0; NO_STATE_BYTES],
            address_space::GLOBAL,
            false,
        )?;
    }
    let r = Rewriter::at_start(ctx, entry.to_raw(), function.location());
    let b = Build { r: &r, ctx };
    let slot = b.address_of(MEMCHECK_STATE_VARIABLE, address_space::GLOBAL)?;
    let state = b.load(slot, b.ptr(address_space::GENERIC))?;
    let on = b.cmp(CmpiPredicate::Ne, b.ptr_to_int(state)?, b.int(0)?)?;
    let none = b.to_generic(b.address_of(NO_STATE_VARIABLE, address_space::GLOBAL)?)?;
    let readable = b.select(on, state, none)?;
    let table_type = b.ptr(0);
    let table = b.load(b.word(readable, STATE_TABLE)?, table_type)?;
    // (The table starts with its index.)
    let index = b.select(on, table, none)?;
    let thread = match crate::spirv::uses_warp_operations(function) {
        true => b.packed_thread()?,
        false => b.int(THREAD_NOT_PASSED)?,
    };
    Ok(Checker {
        state,
        index,
        readable,
        anchor,
        thread,
    })
}

/// The function a failed fast check calls (one per gpu.module): with the checker on, it
/// searches the table where the pass did not know the access's object (`search`), reports an
/// access in nothing known (`inside` false, nor found), and tells whether the access may run
/// (a write, only while no bad access was reported). Out of the kernels' bodies, so that a
/// device compiler that runs work-items as vector lanes keeps the checks' hot path small (the
/// device compiler may inline it; see [`SLOW_PATH_NOT_INLINED`] for kernels with many calls).
pub(crate) const SLOW_PATH_FUNCTION: &str = "__hipmlir_memcheck_slow_path";

/// The same function, defined where a kernel calls the slow path more than
/// [`INLINED_CALLS_AT_MOST`] times: one not to be inlined (`no_inline`: SPIR-V's DontInline,
/// LLVM's noinline on NVPTX), which that kernel's calls call instead. Inlined at each of
/// hundreds of calls, the slow path (its table search, its report) made kernels Intel's CPU
/// compiler took minutes to build, or never finished building: its time grew faster than the
/// number of calls (ptxas likewise: over 150 s for a kernel of 1280 checks, 14 s without). A
/// kernel with few calls keeps the inlined one, on which that compiler's vectorizer makes the
/// checks' hot path faster (a kernel calling the one it does not inline ran 1.5 to 3 times
/// slower: saxpy, stencil, half2_max).
pub(crate) const SLOW_PATH_NOT_INLINED: &str = "__hipmlir_memcheck_slow_path_not_inlined";

/// The most calls of the slow path a function makes to the one the device compiler may inline.
const INLINED_CALLS_AT_MOST: usize = 48;

/// The slow path's parameters after the state (null: the checker is off), each a 64-bit word:
/// the address, the bytes, the site, the object's start and size (zeros: the table), the
/// [`Checker::thread`] word, then the flags `inside`, `search` and `write` (0 or 1). Last comes
/// the kernel's [`ObjectList`] (null: none).
const SLOW_PATH_WORDS: usize = 9;

/// Defines the slow path ([`SLOW_PATH_FUNCTION`]) in `gpu_module`. Where a failure traps, it
/// only searches, and the access reports ([`REPORT_FUNCTION`]): a function that only reads
/// memory, which the device compiler knows, so that a check whose search passed changes nothing
/// the kernel keeps in memory (its objects' contents are then forwarded past it, as without the
/// checker).
fn define_slow_path<'c>(
    ctx: &'c Context,
    gpu_module: &OperationRef<'c, 'c>,
    on_failure: OnFailure,
) -> Result<(), LowerError> {
    let name = SLOW_PATH_FUNCTION;
    let loc = melior::ir::Location::unknown(ctx);
    let r = Rewriter::at_module_start(ctx, gpu_module, loc)?;
    let b = Build { r: &r, ctx };
    let (i64t, i1): (Type, Type) = (b.i64(), IntegerType::new(ctx, 1).into());
    let mut inputs = vec![b.ptr(address_space::GENERIC)];
    inputs.extend([i64t; SLOW_PATH_WORDS]);
    inputs.push(b.ptr(address_space::GENERIC));
    let body = |r: &Rewriter<'c>, args: &[MlirValue]| -> Result<Vec<MlirValue>, LowerError> {
        let [state, address, bytes, site, base, size, thread, inside, search, write, list] = args
        else {
            return Err(err("the slow path's parameters"));
        };
        let (state, address, bytes) = (*state, *address, *bytes);
        let b = Build { r, ctx };
        let flag = |v: &MlirValue| b.cmp(CmpiPredicate::Ne, *v, b.int(0)?);
        let (inside, search, write) = (&flag(inside)?, &flag(search)?, &flag(write)?);
        let on = b.cmp(CmpiPredicate::Ne, b.ptr_to_int(state)?, b.int(0)?)?;
        // Whether the access lies in its object, or (searching) in the table or the list.
        let known = |checked: &Rewriter<'c>| -> Result<MlirValue, LowerError> {
            let b = Build { r: checked, ctx };
            let outside = b.binary("arith.xori", *inside, b.bool(true)?)?;
            let unknown = b.binary("arith.andi", outside, *search)?;
            let found = checked.scf_if(
                unknown,
                i1,
                |then| Build { r: then, ctx }.search(state, address, bytes, *list),
                |otherwise| Build { r: otherwise, ctx }.bool(false),
            )?;
            b.binary("arith.ori", *inside, found)
        };
        if on_failure == OnFailure::Trap {
            // (No loop around it: that is for devices running work-items as vector lanes, and
            // its volatile load is a side effect.)
            let ok = r.scf_if(on, i1, known, |off| Build { r: off, ctx }.bool(true))?;
            return Ok(vec![ok]);
        }
        let ok = r.scf_if(
            on,
            i1,
            |checked| {
                // All of it in a loop that runs once (the error word never holds u64::MAX):
                // should a device compiler inline this function into code it runs as masked
                // vector lanes, a loop no lane enters is one branch, while the report's atomic
                // would otherwise be tried lane by lane on every call.
                Build { r: checked, ctx }.once(state, |checked| {
                    let b = Build { r: checked, ctx };
                    let inside = known(checked)?;
                    let outside = b.binary("arith.xori", inside, b.bool(true)?)?;
                    checked.scf_if_values(
                        outside,
                        &[],
                        |then| {
                            Build { r: then, ctx }.report(
                                state,
                                *site,
                                address,
                                *base,
                                *size,
                                Some(*thread),
                            )?;
                            Ok(vec![])
                        },
                        |_| Ok(vec![]),
                    )?;
                    // A write waits for a clear error word: nothing is written after the first
                    // bad access.
                    let error = b.load(b.word(state, STATE_ERROR)?, b.i64())?;
                    let raised = b.cmp(CmpiPredicate::Ne, error, b.int(0)?)?;
                    let blocked = b.binary("arith.andi", *write, raised)?;
                    let runs = b.binary("arith.xori", blocked, b.bool(true)?)?;
                    b.binary("arith.andi", inside, runs)
                })
            },
            |off| Build { r: off, ctx }.bool(true),
        )?;
        Ok(vec![ok])
    };
    r.private_function(name, &inputs, &[i1], Some(&body))?;
    Ok(())
}

/// Where a failure traps: the function an access whose check failed calls before its trap
/// (one per gpu.module, not inlined: it runs once). Its parameters: the state, the site, the
/// address, the object's start and size (zeros: the table); it reads the work-item's ids itself.
pub(crate) const REPORT_FUNCTION: &str = "__hipmlir_memcheck_report";

/// Defines [`REPORT_FUNCTION`] in `gpu_module`.
fn define_report<'c>(
    ctx: &'c Context,
    gpu_module: &OperationRef<'c, 'c>,
) -> Result<(), LowerError> {
    let loc = melior::ir::Location::unknown(ctx);
    let r = Rewriter::at_module_start(ctx, gpu_module, loc)?;
    let b = Build { r: &r, ctx };
    let i64t = b.i64();
    let inputs = [b.ptr(address_space::GENERIC), i64t, i64t, i64t, i64t];
    let body = |r: &Rewriter<'c>, args: &[MlirValue]| -> Result<Vec<MlirValue>, LowerError> {
        let [state, site, address, base, size] = args else {
            return Err(err("the report's parameters"));
        };
        let b = Build { r, ctx };
        b.report(*state, *site, *address, *base, *size, None)?;
        Ok(vec![])
    };
    let function = r.private_function(REPORT_FUNCTION, &inputs, &[], Some(&body))?;
    // SAFETY: the function just built; setting an attribute keeps it alive.
    let mut function = unsafe { OperationRefMut::from_raw(function.to_raw()) };
    function.set_attribute(crate::builder::NO_INLINE_ATTRIBUTE, Attribute::unit(ctx));
    Ok(())
}

/// The parameters of [`SLOW_PATH_NOT_INLINED`]: the state, the [`Checker::thread`] word, the
/// address, the constants of the call packed in one word ([`pack_constants`]), the object's
/// start and size, `inside`, and the [`ObjectList`]. (With the slow path's words one by one,
/// each of a kernel's thousands of calls passed words that are constants: in PTX, a line or
/// more each a call.)
const NOT_INLINED_PARAMETERS: usize = 8;

/// Where the packed word holds the access's bytes, and the flags `search` and `write`; the
/// site is its low 32 bits.
const PACKED_BYTES_SHIFT: u32 = 32;
const PACKED_BYTES_BITS: u32 = 24;
const PACKED_SEARCH_BIT: u32 = 56;
const PACKED_WRITE_BIT: u32 = 57;

/// The site, bytes and flags of a call of the slow path as one word (None: one is not a
/// constant, or does not fit).
fn pack_constants(
    site: MlirValue,
    bytes: MlirValue,
    search: MlirValue,
    write: MlirValue,
) -> Option<i64> {
    let [site, bytes, search, write] =
        [site, bytes, search, write].map(crate::builder::integer_constant);
    let (site, bytes, search, write) = (site?, bytes?, search?, write?);
    let fits = u32::try_from(site).is_ok()
        && (0..1 << PACKED_BYTES_BITS).contains(&bytes)
        && (0..=1).contains(&search)
        && (0..=1).contains(&write);
    fits.then_some(
        site | bytes << PACKED_BYTES_SHIFT
            | search << PACKED_SEARCH_BIT
            | write << PACKED_WRITE_BIT,
    )
}

/// Defines [`SLOW_PATH_NOT_INLINED`] in `gpu_module`: it unpacks its parameters and calls
/// [`SLOW_PATH_FUNCTION`], which the device compiler inlines there.
fn define_slow_path_not_inlined<'c>(
    ctx: &'c Context,
    gpu_module: &OperationRef<'c, 'c>,
) -> Result<(), LowerError> {
    let loc = melior::ir::Location::unknown(ctx);
    let r = Rewriter::at_module_start(ctx, gpu_module, loc)?;
    let b = Build { r: &r, ctx };
    let (i64t, i1): (Type, Type) = (b.i64(), IntegerType::new(ctx, 1).into());
    let generic = b.ptr(address_space::GENERIC);
    let inputs: [Type; NOT_INLINED_PARAMETERS] =
        [generic, i64t, i64t, i64t, i64t, i64t, i64t, generic];
    let body = |r: &Rewriter<'c>, args: &[MlirValue]| -> Result<Vec<MlirValue>, LowerError> {
        let [state, thread, address, packed, base, size, inside, list] = args else {
            return Err(err("the not-inlined slow path's parameters"));
        };
        let b = Build { r, ctx };
        let field = |shift: u32, bits: u32| -> Result<MlirValue, LowerError> {
            let shifted = b.binary("arith.shrui", *packed, b.int(shift.into())?)?;
            b.binary("arith.andi", shifted, b.int((1i64 << bits) - 1)?)
        };
        let mut operands = vec![*state, *address];
        operands.push(field(PACKED_BYTES_SHIFT, PACKED_BYTES_BITS)?);
        operands.push(field(0, 32)?);
        operands.extend([*base, *size, *thread, *inside]);
        operands.push(field(PACKED_SEARCH_BIT, 1)?);
        operands.push(field(PACKED_WRITE_BIT, 1)?);
        operands.push(*list);
        let callee = FlatSymbolRefAttribute::new(ctx, SLOW_PATH_FUNCTION).into();
        Ok(vec![r.one(
            "func.call",
            &operands,
            i1,
            &[("callee", callee)],
        )?])
    };
    let function = r.private_function(SLOW_PATH_NOT_INLINED, &inputs, &[i1], Some(&body))?;
    // SAFETY: the function just built; setting an attribute keeps it alive.
    let mut function = unsafe { OperationRefMut::from_raw(function.to_raw()) };
    function.set_attribute(crate::builder::NO_INLINE_ATTRIBUTE, Attribute::unit(ctx));
    Ok(())
}

/// What a work-item does with an access whose check failed.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub enum OnFailure {
    /// It skips the access and goes on (SPIR-V, where a trap cannot end the kernel).
    #[default]
    Skip,
    /// It traps where the check is made, and the access after that runs unguarded: the device
    /// compiler then optimizes the kernel's accesses as it does unchecked ones (PTX, where a
    /// trap ends the kernel; a guarded store cannot be forwarded to a later load, which left
    /// 31k of `tests/programs/virtual_base_construction.hip`'s virtual-call comparisons that
    /// the unchecked build folds).
    Trap,
}

/// Instruments `module`'s accesses; with `vote`, a failed fast check is voted on per subgroup
/// (the SPIR-V target, whose CPU devices run work-items as vector lanes).
pub fn check_memory_accesses(
    ctx: &Context,
    module: &Module,
    vote: bool,
    on_failure: OnFailure,
) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    for (name, _, _) in ACCESSES {
        patterns.add(Pattern::new(name, check_access));
    }
    let mut state = State {
        vote,
        on_failure,
        ..State::default()
    };
    // (Where work-items run as vector lanes: elsewhere, a check's cost in the kernel's body
    // is not worth a second copy of it.)
    if vote {
        prepare_kernel_copies(ctx, module, &mut state)?;
    }
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut state)?;
    for (_, copy) in state.loop_copies.drain() {
        copy.place(ctx)?;
    }
    for (function, (copy, module_key)) in state.kernel_copies.drain() {
        let readable = state.checkers.get(&function).map(|c| c.readable);
        let variables = state
            .variables
            .get(&module_key)
            .cloned()
            .unwrap_or_default();
        copy.place(ctx, readable, &variables)?;
    }
    call_not_inlined_where_many(ctx, module)?;
    // The sites, on each gpu.module, for the image's metadata.
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let key = op.to_raw().ptr as usize;
        if let Some(sites) = state.sites.get(&key) {
            let texts: Vec<Attribute> = sites
                .iter()
                .map(|s| {
                    let json = serde_json::to_string(s).unwrap_or_default();
                    StringAttribute::new(ctx, &json).into()
                })
                .collect();
            // SAFETY: the live gpu.module; setting an attribute keeps it alive.
            let mut gpu_module = unsafe { OperationRefMut::from_raw(op.to_raw()) };
            gpu_module.set_attribute(SITES_ATTRIBUTE, ArrayAttribute::new(ctx, &texts).into());
        }
        WalkResult::Advance
    });
    Ok(())
}

/// Copies each kernel of the gpu.modules that have a checker state before the pass changes it
/// (see `workgroup`).
fn prepare_kernel_copies(
    ctx: &Context,
    module: &Module,
    state: &mut State,
) -> Result<(), LowerError> {
    let mut kernels = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("gpu.func") && op.has_attribute("gpu.kernel") {
            kernels.push(op.to_raw());
        }
        WalkResult::Advance
    });
    for raw in kernels {
        // SAFETY: a live kernel the walk found.
        let function = unsafe { OperationRef::from_raw(raw) };
        let symbol = string_attribute(&function, "sym_name").unwrap_or_default();
        let Some(gpu_module) = enclosing(&function, "gpu.module") else {
            continue;
        };
        let module_key = gpu_module.to_raw().ptr as usize;
        let has_state = state
            .variables
            .entry(module_key)
            .or_insert_with(|| module_variables(&gpu_module))
            .contains_key(MEMCHECK_STATE_VARIABLE);
        if !has_state || symbol.starts_with(ADDRESS_KERNEL_PREFIX) {
            continue;
        }
        if let Some(copy) = workgroup::KernelCopy::prepare(ctx, &function)? {
            state
                .kernel_copies
                .insert(raw.ptr as usize, (copy, module_key));
        }
    }
    Ok(())
}

/// The sites the pass listed on `module`'s gpu.modules, in their numbering.
/// The calls of the slow path of each function that makes more than [`INLINED_CALLS_AT_MOST`]
/// call [`SLOW_PATH_NOT_INLINED`] instead, defined in their gpu.module.
fn call_not_inlined_where_many(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    // Per function: its gpu.module and its calls of the slow path, in walk order.
    let mut calls: Vec<(usize, mlir_sys::MlirOperation, Vec<mlir_sys::MlirOperation>)> = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("func.call")
            && op
                .attribute("callee")
                .ok()
                .and_then(|a| FlatSymbolRefAttribute::try_from(a).ok())
                .is_some_and(|callee| callee.value() == SLOW_PATH_FUNCTION)
        {
            let function = enclosing(&op, "gpu.func").or_else(|| enclosing(&op, "func.func"));
            let gpu_module = enclosing(&op, "gpu.module");
            if let (Some(function), Some(gpu_module)) = (function, gpu_module) {
                let key = function.to_raw().ptr as usize;
                match calls.iter_mut().find(|(k, _, _)| *k == key) {
                    Some((_, _, list)) => list.push(op.to_raw()),
                    None => calls.push((key, gpu_module.to_raw(), vec![op.to_raw()])),
                }
            }
        }
        WalkResult::Advance
    });
    let mut defined = std::collections::HashSet::new();
    for (_, gpu_module, list) in calls {
        if list.len() <= INLINED_CALLS_AT_MOST {
            continue;
        }
        // SAFETY: the live gpu.module the walk found.
        let gpu_module = unsafe { OperationRef::from_raw(gpu_module) };
        if defined.insert(gpu_module.to_raw().ptr as usize) {
            define_slow_path_not_inlined(ctx, &gpu_module)?;
        }
        // SAFETY: live calls the walk found.
        let calls: Vec<OperationRef> = list
            .into_iter()
            .map(|call| unsafe { OperationRef::from_raw(call) })
            .collect();
        for call in calls {
            call_not_inlined(ctx, &call)?;
        }
    }
    Ok(())
}

/// Replaces the slow path's call `call` by one of [`SLOW_PATH_NOT_INLINED`] (one whose
/// constants do not pack stays as it is).
fn call_not_inlined<'c>(ctx: &'c Context, call: &OperationRef<'c, 'c>) -> Result<(), LowerError> {
    let operand = |i: usize| call.operand(i).map(|v| v.to_raw()).map_err(err);
    let Some(packed) = pack_constants(operand(3)?, operand(2)?, operand(8)?, operand(9)?) else {
        return Ok(());
    };
    let r = Rewriter::before(ctx, call);
    let b = Build { r: &r, ctx };
    let packed = b.int(packed)?;
    let operands: [MlirValue; NOT_INLINED_PARAMETERS] = [
        operand(0)?,
        operand(6)?,
        operand(1)?,
        packed,
        operand(4)?,
        operand(5)?,
        operand(7)?,
        operand(10)?,
    ];
    let callee = FlatSymbolRefAttribute::new(ctx, SLOW_PATH_NOT_INLINED).into();
    let i1: Type = IntegerType::new(ctx, 1).into();
    let result = r.one("func.call", &operands, i1, &[("callee", callee)])?;
    // SAFETY: the call's one result, replaced by the new call's, then the call erased.
    unsafe {
        mlir_sys::mlirValueReplaceAllUsesOfWith(call.result(0).map_err(err)?.to_raw(), result);
        mlir_sys::mlirOperationDestroy(call.to_raw());
    }
    Ok(())
}

pub fn memcheck_sites(module: &Module) -> Result<Vec<Site>, LowerError> {
    let mut sites = Vec::new();
    let mut failure = None;
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let list = op.attribute(SITES_ATTRIBUTE).ok();
        for item in list
            .and_then(crate::symbols::array_elements)
            .unwrap_or_default()
        {
            match StringAttribute::try_from(item)
                .ok()
                .and_then(|text| serde_json::from_str(text.value()).ok())
            {
                Some(site) => sites.push(site),
                None => failure = Some(err("a damaged site")),
            }
        }
        WalkResult::Advance
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(sites),
    }
}

/// Where a pointer goes, as far as the pass can tell.
enum Target {
    /// Into this object.
    Object(KernelObject),
    /// Somewhere the table and the kernel's escaping objects tell.
    Table,
    /// Memory the pass does not check (by-value parameters, private memory it cannot place).
    Unchecked,
}

fn check_access<'c>(
    rw: &mut PatternRewriter<'c>,
    state: &mut State,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let ctx = rw.ctx;
    let name = op.name();
    let name = name.as_string_ref().as_str().unwrap_or("");
    let Some(&(_, pointer_index, access)) = ACCESSES.iter().find(|(n, _, _)| *n == name) else {
        return Ok(Outcome::NoMatch);
    };
    let compare_and_swap = match name {
        "llvm.cmpxchg" => match compare_and_swap_uses(&op) {
            Some(uses) => Some(uses),
            None => return Ok(Outcome::NoMatch),
        },
        _ => None,
    };
    let Some(function) = enclosing(&op, "gpu.func").or_else(|| enclosing(&op, "func.func")) else {
        return Ok(Outcome::NoMatch);
    };
    let Some(gpu_module) = enclosing(&op, "gpu.module") else {
        return Ok(Outcome::NoMatch);
    };
    let symbol = string_attribute(&function, "sym_name").unwrap_or_default();
    if symbol.starts_with(ADDRESS_KERNEL_PREFIX)
        || symbol == SLOW_PATH_FUNCTION
        || symbol == SLOW_PATH_NOT_INLINED
    {
        return Ok(Outcome::NoMatch);
    }
    let module_key = gpu_module.to_raw().ptr as usize;
    let function_key = function.to_raw().ptr as usize;
    let variables = state
        .variables
        .entry(module_key)
        .or_insert_with(|| module_variables(&gpu_module))
        .clone();
    if !variables.contains_key(MEMCHECK_STATE_VARIABLE) {
        return Ok(Outcome::NoMatch);
    }
    let accessed = match access {
        Access::Read => op.result(0).map(|r| r.r#type()),
        _ if name == "llvm.store" => op.operand(0).map(|v| v.r#type()),
        _ => op.operand(1).map(|v| v.r#type()),
    }
    .map_err(err)?;
    let Some((bytes, _)) = size_and_align(accessed) else {
        return Ok(Outcome::NoMatch);
    };
    let pointer = op.operand(pointer_index).map_err(err)?.to_raw();
    let target = target_of(pointer, &variables);
    // A function that inlining left (a recursive one) cannot see its callers' objects: a
    // pointer it was given may point into a caller's stack or shared memory, which no table
    // holds, so only the objects it sees itself are checked there.
    let in_kernel = function.name().as_string_ref().as_str() == Ok("gpu.func");
    let target = match target {
        Target::Unchecked => return Ok(Outcome::NoMatch),
        Target::Table if !in_kernel => return Ok(Outcome::NoMatch),
        // An object smaller than the access is left as it is.
        Target::Object(o) if o.object.size < bytes && !o.is_dynamic() => {
            return Ok(Outcome::NoMatch)
        }
        // An access at a constant offset inside one of the kernel's own objects of fixed size
        // (a local, shared memory, a device variable) is valid for the whole run: it is left
        // unchecked, as AddressSanitizer leaves such accesses (inlined constructors and member
        // accesses of local objects made thousands of checks in one kernel, which the device
        // compiler took minutes to build).
        Target::Object(o)
            if !o.is_dynamic()
                && constant_offset(pointer)
                    .and_then(|at| at.checked_add(bytes))
                    .is_some_and(|end| end <= o.object.size) =>
        {
            return Ok(Outcome::NoMatch)
        }
        Target::Object(o) => Target::Object(o),
        Target::Table => Target::Table,
    };
    // A counted loop's unchecked copy is made before the pass changes anything in the loop.
    let counted = loops::counted_loop(&op);
    if let Some(lp) = &counted {
        state
            .loop_copies
            .entry(lp.op.to_raw().ptr as usize)
            .or_insert_with(|| loops::LoopCopy::of(&lp.op, &ACCESSES.map(|(name, _, _)| name)));
    }
    // A load or store at an address a load of the same block already checked (the same
    // address, as many bytes: `y[i] = a * x[i] + y[i]`, `s[t] += s[t + k]`, or one element
    // read through two types' pointers) takes that load's verdict, with no check (and no site)
    // of its own.
    let same_address = (
        op.block().map_or(0, |b| b.to_raw().ptr as usize),
        address_of(pointer).ok_or(pointer.ptr as usize),
        bytes,
    );
    let reused = match name {
        "llvm.load" | "llvm.store" => state.verdicts.get(&same_address).copied(),
        _ => None,
    };
    let kernel = string_attribute(&function, KERNEL_NAME_ATTRIBUTE).unwrap_or(symbol);
    let sites = state.sites.entry(module_key).or_default();
    let site = sites.len() as i64;
    if reused.is_none() {
        sites.push(Site {
            kernel,
            location: hipmlir_ir::source_location(op.location())
                .map(|l| l.to_string())
                .unwrap_or_else(|| "an unknown location".into()),
            access,
            bytes,
            object: match &target {
                Target::Object(o) => Some(o.object.clone()),
                _ => None,
            },
        });
    }

    let r = Rewriter::before(ctx, &op);
    let b = Build { r: &r, ctx };
    let i64t = b.i64();
    let loaded = match state.checkers.get(&function_key) {
        Some(&c) => c,
        None => {
            let c = load_checker(ctx, &gpu_module, &function)?;
            state.checkers.insert(function_key, c);
            c
        }
    };
    let (checker, vote) = (loaded.state, state.vote);
    if state.slow_paths.insert(module_key) {
        define_slow_path(ctx, &gpu_module, state.on_failure)?;
        if state.on_failure == OnFailure::Trap {
            define_report(ctx, &gpu_module)?;
        }
    }
    let argument_range = match (&target, argument_of(pointer, &function)) {
        (Target::Table, Some(argument)) => {
            let key = (function_key, argument.ptr as usize);
            match state.argument_ranges.get(&key) {
                Some(&range) => Some(range),
                None => {
                    let range = argument_range(ctx, &loaded, &function, argument)?;
                    state.argument_ranges.insert(key, range);
                    Some(range)
                }
            }
            .map(|(address, length)| (argument, address, length))
        }
        _ => None,
    };
    // Under conditions that may differ between the work-items of a subgroup, a load's or
    // store's check is made before them, for the lanes that make the access (see `divergence`).
    let mut speculation = None;
    if reused.is_none() && (name == "llvm.store" || (name == "llvm.load" && is_scalar(accessed))) {
        if let Some((point, conditions)) = divergence::speculation_point(&op) {
            let at = Rewriter::before(ctx, &point);
            if let Some(p) = divergence::speculate(pointer, &point, &at, &mut HashMap::new())? {
                let active = divergence::active_lanes(&conditions, &at)?;
                let ab = Build { r: &at, ctx };
                let inactive = ab.binary("arith.xori", active, ab.bool(true)?)?;
                speculation = Some((point, p, inactive));
            }
        }
    }
    // Where the check is built (before the access, or before those conditions).
    let check_site = speculation.as_ref().map_or(op, |(point, _, _)| *point);
    let rc = Rewriter::before(ctx, &check_site);
    let checked_pointer = speculation.as_ref().map_or(pointer, |(_, p, _)| *p);
    let inactive = speculation.as_ref().map(|(_, _, i)| *i);
    // (The access's address as an integer is only computed where a fast check failed: the
    // fast checks compute offsets from indices.)
    let address_of_access = |b: &Build<'_, 'c>| b.ptr_to_int(b.to_generic(checked_pointer)?);
    // Only the objects that exist where the check is made: an alloca inlined into the middle of
    // the entry block does not dominate the accesses before it (naming it there made the
    // module invalid: "operand #0 does not dominate this use"), nor does one inside the
    // conditions a check is made before (whose address the speculated address, computed
    // before it, cannot hold).
    let escaping: Vec<KernelObject> = state
        .escaping
        .entry(function_key)
        .or_insert_with(|| escaping_objects(&function, &variables))
        .iter()
        .filter(|o| defined_before(&o.base, &check_site))
        .cloned()
        .collect();
    // Where the kernel's list of them is filled before a check that searches, the slow path
    // searches it, and only the objects it does not hold are compared here (the list is made
    // for the first such check).
    let list = match (state.lists.get(&function_key), &target) {
        (_, Target::Object(_)) => None,
        (Some(list), _) => list.clone(),
        (None, _) => {
            let all = state
                .escaping
                .get(&function_key)
                .cloned()
                .unwrap_or_default();
            let list = list_objects(ctx, &function, &loaded, &all)?;
            state.lists.insert(function_key, list.clone());
            list
        }
    }
    .filter(|list| defined_before(&Base::Alloca(list.pointer), &check_site));
    let escaping: Vec<KernelObject> = match &list {
        Some(list) => escaping
            .into_iter()
            .filter(|o| !list.listed.iter().any(|l| l.same(&o.base)))
            .collect(),
        None => escaping,
    };
    let i1: Type = IntegerType::new(ctx, 1).into();
    // (No branch on whether the checker is on before the fast check: its words are read from
    // the state or the module's stand-in, whose zeros fail every check but an object's; the
    // slow path then passes the access when the checker is off.)
    let readable = loaded.readable;
    // The fast check of a pointer: the object's bounds, or the kernel argument's allocation
    // found at the entry (none: the slow path, always).
    let fast_check = |b: &Build<'_, 'c>, pointer: MlirValue| match (&target, argument_range) {
        (Target::Object(o), _) => {
            let size = b.object_size(readable, o)?;
            b.lies_in(pointer, &Root::Object(&o.base), bytes, size)
        }
        (_, Some((argument, address, length))) => {
            let root = Root::Argument { argument, address };
            b.lies_in(pointer, &root, bytes, Size::Runtime(length))
        }
        _ => b.bool(false),
    };
    // The object's start and size the slow path and the report are given (zeros: none).
    let extent = |b: &Build<'_, 'c>| match &target {
        Target::Object(o) => {
            let size = b.object_size(readable, o)?;
            Ok::<_, LowerError>((b.object_address(&o.base)?, b.size_value(size)?))
        }
        _ => Ok((b.int(0)?, b.int(0)?)),
    };
    // Writes also wait for a clear error word: nothing is written after the first bad access,
    // to memory anything outside the kernel sees (shared memory, the thread's stack and its
    // copy of an argument end with the kernel: their writes do not wait, which kept the
    // error word's load out of the tile loops of transpose and stencil).
    let kernel_private =
        matches!(&target, Target::Object(o) if o.object.kind != ObjectKind::Global);
    let error_clear = |b: &Build<'_, 'c>| -> Result<MlirValue, LowerError> {
        match access {
            Access::Read => b.bool(true),
            _ if kernel_private => b.bool(true),
            _ => {
                let error = b.load(b.word(readable, STATE_ERROR)?, i64t)?;
                b.cmp(CmpiPredicate::Eq, error, b.int(0)?)
            }
        }
    };
    // (Where a failure traps, a write reads the error word where it is made, below, and the
    // checks leave it out.)
    let on_failure = state.on_failure;
    let clear = |b: &Build<'_, 'c>| match on_failure {
        OnFailure::Skip => error_clear(b),
        OnFailure::Trap => b.bool(true),
    };
    // The call of the slow path for an access whose fast check gave `fast` (every lane calls:
    // a branch on its own check there would be one the device compiler turns into a mask, and
    // it would then call on every iteration; the slow path passes a lane whose fast check
    // passed at once).
    let call_slow_path = |r: &Rewriter<'c>, fast: MlirValue| {
        let b = Build { r, ctx };
        let address = address_of_access(&b)?;
        let (base, size) = extent(&b)?;
        let (mut inside, search) = match target {
            Target::Object(_) => (fast, false),
            _ => {
                let objects = b.in_objects(readable, address, bytes, &escaping)?;
                (b.binary("arith.ori", fast, objects)?, true)
            }
        };
        // (A lane that does not make the access passes.)
        if let Some(inactive) = inactive {
            inside = b.binary("arith.ori", inside, inactive)?;
        }
        let mut operands = vec![checker, address, b.int(bytes as i64)?];
        operands.extend([b.int(site)?, base, size]);
        operands.push(loaded.thread);
        let inside = r.one("arith.extui", &[inside], b.i64(), &[])?;
        let write = access != Access::Read;
        operands.extend([inside, b.int(search.into())?, b.int(write.into())?]);
        match &list {
            Some(list) => operands.push(list.pointer),
            None => operands.push(b.zero(b.ptr(address_space::GENERIC))?),
        }
        r.one(
            "func.call",
            &operands,
            i1,
            &[(
                "callee",
                FlatSymbolRefAttribute::new(ctx, SLOW_PATH_FUNCTION).into(),
            )],
        )
    };
    // The access's verdict (`ok`, per lane) and whether any lane of the subgroup may have
    // failed (`any`, the same for every lane where the device votes).
    let per_access = |r: &Rewriter<'c>| -> Result<(MlirValue, MlirValue), LowerError> {
        let b = Build { r, ctx };
        let fast = fast_check(&b, checked_pointer)?;
        let mut fast_ok = b.binary("arith.andi", fast, clear(&b)?)?;
        if let Some(inactive) = inactive {
            fast_ok = b.binary("arith.ori", fast_ok, inactive)?;
        }
        // The rest runs when a lane failed the fast check: one branch for all lanes where the
        // device votes (a device compiler that runs work-items as vector lanes then keeps the
        // hot path a compare and one uniform branch), and a call of the module's slow path
        // (the table's search and the report), out of the kernel's body.
        let failed = b.binary("arith.xori", fast_ok, b.bool(true)?)?;
        let any = b.any(failed, vote)?;
        let ok = r.scf_if(
            any,
            i1,
            |voted| call_slow_path(voted, fast),
            // (No lane failed: `fast_ok` holds for every lane, and stays the answer should a
            // device's vote be wrong.)
            |_| Ok(fast_ok),
        )?;
        Ok((ok, any))
    };
    // In a counted loop, the access's addresses at the first and last count are checked once
    // before the loop; the access's own check runs only where a lane failed that.
    let hoisted = match &counted {
        _ if reused.is_some() => None,
        Some(lp) => {
            let before = Rewriter::before(ctx, &lp.op);
            let hb = Build { r: &before, ctx };
            match loops::ends(lp, pointer, &before)? {
                Some(loops::Ends {
                    runs,
                    low,
                    high,
                    no_wrap,
                }) => {
                    let mut ok = hb.binary("arith.xori", runs, hb.bool(true)?)?;
                    let low_ok = fast_check(&hb, low)?;
                    let high_ok = fast_check(&hb, high)?;
                    let mut both = hb.binary("arith.andi", low_ok, high_ok)?;
                    if let Some(no_wrap) = no_wrap {
                        both = hb.binary("arith.andi", both, no_wrap)?;
                    }
                    ok = hb.binary("arith.ori", ok, both)?;
                    let failed = hb.binary("arith.xori", ok, hb.bool(true)?)?;
                    let any = hb.any(failed, vote)?;
                    let mut failures = vec![any];
                    if access != Access::Read {
                        // (The loop's unchecked copy writes only while no report is raised.)
                        let clear = error_clear(&hb)?;
                        failures.push(hb.binary("arith.xori", clear, hb.bool(true)?)?);
                    }
                    if let Some(copy) = state.loop_copies.get_mut(&(lp.op.to_raw().ptr as usize)) {
                        copy.failures.extend(failures);
                    }
                    Some(any)
                }
                None => {
                    if let Some(copy) = state.loop_copies.get_mut(&(lp.op.to_raw().ptr as usize)) {
                        copy.versionable = false;
                    }
                    None
                }
            }
        }
        None => None,
    };
    // Out of the work-group: the access's address at the corners of the kernel's work-items
    // and counted loops, checked at the kernel's entry (see `workgroup`).
    if let Some((copy, _)) = state.kernel_copies.get_mut(&function_key) {
        match (&target, argument_range) {
            _ if name == "llvm.cmpxchg" && !kernel_private => copy.give_up(),
            _ if reused.is_some() => {}
            (Target::Object(_), _) | (_, Some(_)) => copy.hoist(ctx, &op, pointer, fast_check)?,
            _ => copy.give_up(),
        }
    }
    let (ok, any) = match (reused, hoisted) {
        (Some((ok, any)), _) => match access {
            Access::Read => (ok, any),
            _ => (b.binary("arith.andi", ok, clear(&b)?)?, any),
        },
        (None, None) => per_access(&rc)?,
        (None, Some(any)) => {
            let pair = rc.scf_if_values(
                any,
                &[i1, i1],
                |failed| per_access(failed).map(|(ok, any)| vec![ok, any]),
                |passed| {
                    let b = Build { r: passed, ctx };
                    Ok(vec![clear(&b)?, b.bool(false)?])
                },
            )?;
            (pair[0], pair[1])
        }
    };
    if name == "llvm.load" && reused.is_none() {
        state.verdicts.insert(same_address, (ok, any));
    }
    // A store checked before its conditions waits for a clear error word where it is.
    let ok = match (&speculation, access) {
        (Some(_), Access::Write) => b.binary("arith.andi", ok, clear(&b)?)?,
        _ => ok,
    };

    // Loads, stores and read-modify-write atomics run only when the check passed (a skipped
    // load or atomic gives zero); the access keeps its own pointer, so that the target's
    // address-space inference still places it.
    let results: Vec<Type> = (0..op.result_count())
        .filter_map(|i| op.result(i).ok().map(|v| v.r#type()))
        .collect();
    let raw_op = op.to_raw();
    // A copy of the access in `r`'s block, volatile if asked, through `pointer` if given; its
    // results.
    let copy = |r: &Rewriter<'c>,
                volatile: bool,
                pointer: Option<MlirValue>|
     -> Result<Vec<MlirValue>, LowerError> {
        // SAFETY: a copy of the live access, owned by the block it is appended to; a pointer
        // operand it is given has the type of the one it replaces.
        let mut copy =
            unsafe { melior::ir::Operation::from_raw(mlir_sys::mlirOperationClone(raw_op)) };
        if volatile {
            copy.set_attribute("volatile_", Attribute::unit(ctx));
        }
        if let Some(pointer) = pointer {
            // SAFETY: as above: the copy is live, the pointer of the operand's type.
            unsafe {
                mlir_sys::mlirOperationSetOperand(copy.to_raw(), pointer_index as isize, pointer)
            };
        }
        let copy = r.ops.insert(copy);
        Ok((0..copy.result_count())
            .filter_map(|i| copy.result(i).ok().map(|v| v.to_raw()))
            .collect())
    };
    if on_failure == OnFailure::Trap {
        // A work-item whose check failed reports and traps before the access, which then runs
        // as it is; a write also traps where the error is raised. (An access that took a load's
        // verdict is past that load's trap.)
        let bad = match reused {
            Some(_) => None,
            None => Some(b.binary("arith.xori", ok, b.bool(true)?)?),
        };
        let raised = b.binary("arith.xori", error_clear(&b)?, b.bool(true)?)?;
        let stop = match bad {
            Some(bad) => b.binary("arith.ori", bad, raised)?,
            None => raised,
        };
        let report = |r: &Rewriter<'c>| -> Result<Vec<MlirValue>, LowerError> {
            let b = Build { r, ctx };
            let address = address_of_access(&b)?;
            let (base, size) = extent(&b)?;
            let callee = FlatSymbolRefAttribute::new(ctx, REPORT_FUNCTION).into();
            let operands = [checker, b.int(site)?, address, base, size];
            r.op("func.call", &operands, &[], &[("callee", callee)])?;
            Ok(vec![])
        };
        r.scf_if_values(
            stop,
            &[],
            |then| {
                if let Some(bad) = bad {
                    then.scf_if_values(bad, &[], report, |_| Ok(vec![]))?;
                }
                then.op(crate::spirv::traps::TRAP_OP, &[], &[], &[])?;
                Ok(vec![])
            },
            |_| Ok(vec![]),
        )?;
        return Ok(Outcome::Rewrote);
    }
    if let Some(uses) = compare_and_swap {
        return guard_compare_and_swap(rw, &b, op, ok, &uses);
    }
    let guarded_access = |r: &Rewriter<'c>, volatile: bool| {
        r.scf_if_values(
            ok,
            &results,
            |then| copy(then, volatile, None),
            |otherwise| {
                let b = Build { r: otherwise, ctx };
                results.iter().map(|t| b.zero(*t)).collect()
            },
        )
    };
    let guarded = match access {
        Access::Read if !is_scalar(accessed) => {
            // A load of an aggregate (which no constant stands in for) reads a harmless
            // address when it is bad.
            let pointer_type = type_of(pointer);
            let harmless = match &target {
                Target::Object(o) => b.object_pointer(&o.base)?,
                _ if bytes <= STATE_SCRATCH_BYTES => b.word(checker, STATE_SCRATCH)?,
                _ => return Ok(Outcome::Rewrote),
            };
            let harmless = b.cast_to(harmless, pointer_type)?;
            let Some(harmless) = harmless else {
                return Ok(Outcome::Rewrote);
            };
            let chosen = r.one("arith.select", &[ok, pointer, harmless], pointer_type, &[])?;
            if let Target::Object(_) = target {
                // SAFETY: the live access; its pointer operand is replaced by one of the same
                // type.
                unsafe {
                    mlir_sys::mlirOperationSetOperand(op.to_raw(), pointer_index as isize, chosen)
                };
                return Ok(Outcome::Rewrote);
            }
            // Through a kernel argument, as a scalar load: the chosen address only where a
            // lane failed (a per-lane choice of address is a gather on a CPU device).
            r.scf_if_values(
                any,
                &results,
                |failed| copy(failed, false, Some(chosen)),
                |passed| copy(passed, false, None),
            )?
        }
        // A load runs unguarded when no lane of the subgroup failed, and guarded only where
        // one did: a CPU device compiler running work-items as vector lanes makes a guarded
        // load a masked vector load, several times slower than a plain one (saxpy: 3.8x the
        // unchecked kernel's time with guarded loads, 1.4x without). (The guarded copy was
        // volatile once, so that the device compiler could not merge the two loads into one
        // masked load. Intel's compiler merged them all the same, under a bounds check's mask,
        // and loaded the merged volatile load lane by lane: 3.3x an unchecked saxpy on
        // AVX-512, where the plain copy gives 2x.)
        // Under conditions that differ between lanes, the load is masked anyway: it takes
        // the verdict in its mask (a branch on the vote there would run under the mask too).
        Access::Read if speculation.is_some() => guarded_access(&r, false)?,
        Access::Read if !matches!(target, Target::Object(_)) => r.scf_if_values(
            any,
            &results,
            |failed| guarded_access(failed, false),
            |passed| copy(passed, false, None),
        )?,
        // (Masked stores cost next to nothing there; atomics run lane by lane anyway.)
        _ => guarded_access(&r, false)?,
    };
    let replacements: Vec<IrValue> = guarded
        .iter()
        // SAFETY: the scf.if's results, live.
        .map(|v| unsafe { IrValue::from_raw(*v) })
        .collect();
    // No results: replacing is erasing.
    rw.replace_op(&op, &replacements);
    Ok(Outcome::Rewrote)
}

/// A compare-and-swap that runs only when its check passed: the old value is the result of an
/// scf.if (zero when skipped), the success flag its comparison with the expected value, each
/// in place of the `llvm.extractvalue` that took it from the pair.
fn guard_compare_and_swap<'c>(
    rw: &mut PatternRewriter<'c>,
    b: &Build<'_, 'c>,
    op: OperationRef<'c, 'c>,
    ok: MlirValue,
    uses: &[(OperationRef<'c, 'c>, i64)],
) -> Result<Outcome, LowerError> {
    let ctx = b.ctx;
    let expected = op.operand(1).map_err(err)?;
    let old_type = expected.r#type();
    let raw_op = op.to_raw();
    let old = b.r.scf_if_values(
        ok,
        &[old_type],
        |then| {
            // SAFETY: a copy of the live compare-and-swap, owned by the block it goes into.
            let copy =
                unsafe { melior::ir::Operation::from_raw(mlir_sys::mlirOperationClone(raw_op)) };
            let copy = then.ops.insert(copy);
            let pair = copy.result(0).map_err(err)?.to_raw();
            let position = DenseI64ArrayAttribute::new(ctx, &[0]).into();
            Ok(vec![then.one(
                "llvm.extractvalue",
                &[pair],
                old_type,
                &[("position", position)],
            )?])
        },
        |otherwise| Ok(vec![Build { r: otherwise, ctx }.zero(old_type)?]),
    )?[0];
    let swapped = b.cmp(CmpiPredicate::Eq, old, expected.to_raw())?;
    for (user, position) in uses {
        let value = if *position == 0 { old } else { swapped };
        // SAFETY: a live value of the type the extractvalue gave.
        rw.replace_op(user, &[unsafe { IrValue::from_raw(value) }]);
    }
    rw.erase_op(&op);
    Ok(Outcome::Rewrote)
}

/// A string attribute of `op`.
fn string_attribute(op: &OperationRef, name: &str) -> Option<String> {
    let attribute = op.attribute(name).ok()?;
    StringAttribute::try_from(attribute)
        .ok()
        .map(|s| s.value().to_string())
}

/// The `llvm.mlir.global`s of a gpu.module.
fn module_variables(gpu_module: &OperationRef) -> HashMap<String, Variable> {
    let mut variables = HashMap::new();
    gpu_module.walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("llvm.mlir.global") {
            if let Some(symbol) = string_attribute(&op, "sym_name") {
                let size = op
                    .attribute("global_type")
                    .ok()
                    .and_then(|a| TypeAttribute::try_from(a).ok())
                    .and_then(|t| size_and_align(t.value()))
                    .map(|(size, _)| size);
                let space = op
                    .attribute("addr_space")
                    .ok()
                    .and_then(|a| IntegerAttribute::try_from(a).ok())
                    .map_or(0, |i| i.value() as u32);
                variables.insert(symbol, Variable { size, space });
            }
        }
        WalkResult::Advance
    });
    variables
}

/// Follows a pointer through offsets and casts to the object it points into. A local variable
/// may be one of a nested block (a loop's body, or a condition's, after inlining), made anew
/// each time: an access through it comes after it, and a check moved before a loop or a
/// condition is made there only for a pointer computed there; a pointer read from memory is
/// compared only with the objects that exist where its check is ([`defined_before`]).
fn target_of(pointer: MlirValue, variables: &HashMap<String, Variable>) -> Target {
    let space = pointer_space(type_of(pointer));
    let mut current = pointer;
    loop {
        // SAFETY: queries on live values and their defining operations.
        let defining = unsafe {
            if !mlir_sys::mlirValueIsAOpResult(current) {
                break;
            }
            OperationRef::from_raw(mlir_sys::mlirOpResultGetOwner(current))
        };
        let name = defining.name();
        match name.as_string_ref().as_str().unwrap_or("") {
            "llvm.getelementptr" | "llvm.addrspacecast" => match defining.operand(0) {
                Ok(v) => current = v.to_raw(),
                Err(_) => break,
            },
            "llvm.alloca" => {
                let size = alloca_size(&defining);
                return match size {
                    Some(size) => Target::Object(KernelObject {
                        base: Base::Alloca(current),
                        object: Object {
                            kind: ObjectKind::Local,
                            name: String::new(),
                            size,
                        },
                    }),
                    None => Target::Unchecked,
                };
            }
            // A word the runtime gave the module (the abort flag's, which every inlined trap
            // raises): not the program's memory (checking each made a third of one kernel's
            // checks, and a call each).
            "llvm.load" if runtime_word_pointer(&defining) => return Target::Unchecked,
            "llvm.mlir.addressof" => {
                let symbol = addressed_symbol(&defining);
                return match global_object(&symbol, variables) {
                    Some(o) => Target::Object(o),
                    None => Target::Unchecked,
                };
            }
            _ => break,
        }
    }
    // A private pointer argument of the kernel: the thread's copy of a by-value struct, whose
    // size is known (not an allocation of the table: before, every access to one was reported
    // as a wild pointer), or a pointer the pass cannot place.
    // SAFETY: a query on a live value.
    if unsafe { mlir_sys::mlirValueIsABlockArgument(current) }
        && pointer_space(type_of(current)) == address_space::PRIVATE
    {
        return byval_object(current).map_or(Target::Unchecked, Target::Object);
    }
    // Shared and private memory the pass cannot place, and constant memory (which no generic
    // stand-in can replace), are left alone.
    match space {
        address_space::GENERIC | address_space::GLOBAL => Target::Table,
        _ => Target::Unchecked,
    }
}

/// The symbol an `llvm.mlir.addressof` names.
fn addressed_symbol(addressof: &OperationRef) -> String {
    addressof
        .attribute("global_name")
        .ok()
        .and_then(|a| FlatSymbolRefAttribute::try_from(a).ok())
        .map(|s| s.value().to_string())
        .unwrap_or_default()
}

/// Whether `load` reads one of the variables through which the runtime gives the module words of
/// its own ([`RUNTIME_WORD_VARIABLES`]).
fn runtime_word_pointer(load: &OperationRef) -> bool {
    let Some(defining) = load
        .operand(0)
        .ok()
        .and_then(|pointer| crate::builder::definition(pointer.to_raw()))
    else {
        return false;
    };
    defining.name().as_string_ref().as_str() == Ok("llvm.mlir.addressof")
        && RUNTIME_WORD_VARIABLES.contains(&addressed_symbol(&defining).as_str())
}

/// The by-value struct argument `argument` (an argument of a function's entry block) points
/// to, as an object of the struct's size; None for another argument.
fn byval_object(argument: MlirValue) -> Option<KernelObject> {
    // SAFETY: queries on a live block argument, its block and the block's parent operation.
    let (block, function, number) = unsafe {
        let block = mlir_sys::mlirBlockArgumentGetOwner(argument);
        let parent = mlir_sys::mlirBlockGetParentOperation(block);
        if parent.ptr.is_null() {
            return None;
        }
        let number = mlir_sys::mlirBlockArgumentGetArgNumber(argument) as usize;
        (block, OperationRef::from_raw(parent), number)
    };
    let entry = function.region(0).ok()?.first_block()?;
    if entry.to_raw().ptr != block.ptr {
        return None;
    }
    let (_, ty) = crate::symbols::byval_parameters(&function)
        .into_iter()
        .find(|(index, _)| *index == number)?;
    let (size, _) = size_and_align(ty)?;
    Some(KernelObject {
        base: Base::Alloca(argument),
        object: Object {
            kind: ObjectKind::Argument,
            name: String::new(),
            size,
        },
    })
}

/// A variable of the gpu.module as an object to check against (None: its size is unknown, or
/// the checker's own state).
fn global_object(symbol: &str, variables: &HashMap<String, Variable>) -> Option<KernelObject> {
    if symbol == MEMCHECK_STATE_VARIABLE || symbol == NO_STATE_VARIABLE {
        return None;
    }
    let variable = variables.get(symbol)?;
    if symbol == DYNAMIC_SHARED_SYMBOL {
        return Some(KernelObject {
            base: Base::Global(symbol.to_string(), variable.space),
            object: Object {
                kind: ObjectKind::DynamicShared,
                name: String::new(),
                size: 0,
            },
        });
    }
    let kind = match variable.space {
        address_space::SHARED => ObjectKind::Shared,
        address_space::GLOBAL | address_space::CONSTANT => ObjectKind::Global,
        _ => return None,
    };
    Some(KernelObject {
        base: Base::Global(symbol.to_string(), variable.space),
        object: Object {
            kind,
            name: symbol.to_string(),
            size: variable.size.filter(|s| *s > 0)?,
        },
    })
}

/// The objects of `function` whose address escapes as a generic pointer: what a generic
/// pointer that is in no allocation of the runtime may legitimately point into.
fn escaping_objects(
    function: &OperationRef,
    variables: &HashMap<String, Variable>,
) -> Vec<KernelObject> {
    let mut objects: Vec<KernelObject> = Vec::new();
    function.walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() != Ok("llvm.addrspacecast") {
            return WalkResult::Advance;
        }
        let Ok(source) = op.operand(0) else {
            return WalkResult::Advance;
        };
        let source = source.to_raw();
        let Ok(cast) = op.result(0) else {
            return WalkResult::Advance;
        };
        if !reaches_beyond_its_accesses(cast.to_raw()) {
            return WalkResult::Advance;
        }
        if let Target::Object(o) = target_of(source, variables) {
            let known = objects.iter().any(|k| k.base.same(&o.base));
            if !known {
                objects.push(o);
            }
        }
        WalkResult::Advance
    });
    // Variables whose address another variable's initial value holds (`int* p = &table[8];`):
    // a pointer read from memory may point into them with no cast in any function.
    let gpu_module = function.parent_operation();
    let body = gpu_module
        .and_then(|m| m.region(0).ok())
        .and_then(|r| r.first_block());
    let mut op = body.and_then(|b| b.first_operation());
    while let Some(o) = op {
        for target in crate::relocations::targets(&o) {
            if let Some(g) = global_object(&target, variables) {
                let known = objects
                    .iter()
                    .any(|k| matches!(&k.base, Base::Global(name, _) if *name == target));
                if !known {
                    objects.push(g);
                }
            }
        }
        op = o.next_in_block();
    }
    objects
}

/// Whether the generic pointer `cast` (an object's address) may reach an access the pass cannot
/// trace back to the object: it, or a GEP or cast of it, is used other than as the address of a
/// load, store or atomic (stored, passed to a call, selected, yielded, compared, made an
/// integer). Where it is not, every access inside the object is checked against the object,
/// and no other access's check needs to compare its address with the object's: an inlined
/// helper's `this` (the `__half2` operators') kept its struct on the stack, as the comparison
/// in the cold path took its address as an integer, which LLVM's SROA does not look past.
fn reaches_beyond_its_accesses(cast: MlirValue) -> bool {
    let mut pending = vec![cast];
    while let Some(pointer) = pending.pop() {
        // SAFETY: walking the use lists of live values; owners are live operations.
        unsafe {
            let mut u = mlir_sys::mlirValueGetFirstUse(pointer);
            while !u.ptr.is_null() {
                let user = OperationRef::from_raw(mlir_sys::mlirOpOperandGetOwner(u));
                let at = mlir_sys::mlirOpOperandGetOperandNumber(u) as usize;
                let name = user.name();
                let name = name.as_string_ref().as_str().unwrap_or("");
                let derived =
                    matches!(name, "llvm.getelementptr" | "llvm.addrspacecast") && at == 0;
                if derived {
                    match user.result(0) {
                        Ok(r) => pending.push(r.to_raw()),
                        Err(_) => return true,
                    }
                } else if !ACCESSES.iter().any(|(n, p, _)| *n == name && *p == at) {
                    return true;
                }
                u = mlir_sys::mlirOpOperandGetNextUse(u);
            }
        }
    }
    false
}

/// Whether the object at `base` exists when `op` runs: a variable or an argument always; an
/// alloca when it comes before the operation of its block that holds `op` (an alloca of a loop's
/// body exists only in that body, one inlined mid-block only after its place).
fn defined_before(base: &Base, op: &OperationRef) -> bool {
    let Base::Alloca(value) = base else {
        return true;
    };
    // SAFETY: queries on live values, operations and blocks; null results are checked.
    unsafe {
        if !mlir_sys::mlirValueIsAOpResult(*value) {
            return true;
        }
        let alloca = mlir_sys::mlirOpResultGetOwner(*value);
        let block = mlir_sys::mlirOperationGetBlock(alloca);
        let mut current = op.to_raw();
        loop {
            let holder = mlir_sys::mlirOperationGetBlock(current);
            if holder.ptr.is_null() {
                return false;
            }
            if holder.ptr == block.ptr {
                return mlir_sys::mlirOperationIsBeforeInBlock(alloca, current);
            }
            current = mlir_sys::mlirBlockGetParentOperation(holder);
            if current.ptr.is_null() {
                return false;
            }
        }
    }
}

/// The bytes an `llvm.alloca` of a constant count reserves.
fn alloca_size(alloca: &OperationRef) -> Option<u64> {
    let element = alloca
        .attribute("elem_type")
        .ok()
        .and_then(|a| TypeAttribute::try_from(a).ok())?
        .value();
    let (size, _) = size_and_align(element)?;
    let n = crate::builder::integer_constant(alloca.operand(0).ok()?.to_raw())?;
    size.checked_mul(u64::try_from(n).ok()?)
}

/// The address space of an `!llvm.ptr<N>` (0 for other types).
fn pointer_space(t: Type) -> u32 {
    // SAFETY: type queries on a live type.
    unsafe {
        if mlir_sys::mlirTypeIsALLVMPointerType(t.to_raw()) {
            mlir_sys::mlirLLVMPointerTypeGetAddressSpace(t.to_raw())
        } else {
            0
        }
    }
}

/// The operations a check is made of, at one insertion point.
struct Build<'a, 'c> {
    r: &'a Rewriter<'c>,
    ctx: &'c Context,
}

impl<'c> Build<'_, 'c> {
    fn i64(&self) -> Type<'c> {
        IntegerType::new(self.ctx, 64).into()
    }

    fn ptr(&self, space: u32) -> Type<'c> {
        llvm::r#type::pointer(self.ctx, space)
    }

    fn int(&self, v: i64) -> Result<MlirValue, LowerError> {
        self.r.arith_int(self.i64(), v)
    }

    fn bool(&self, v: bool) -> Result<MlirValue, LowerError> {
        self.r
            .arith_int(IntegerType::new(self.ctx, 1).into(), i64::from(v))
    }

    /// A zero of an atomic's result type (what a skipped atomic gives).
    fn zero(&self, t: Type<'c>) -> Result<MlirValue, LowerError> {
        let raw = t.to_raw();
        // SAFETY: type queries on a live type.
        let (is_float, is_pointer) = unsafe {
            (
                mlir_sys::mlirTypeIsAFloat(raw),
                mlir_sys::mlirTypeIsALLVMPointerType(raw),
            )
        };
        if is_pointer {
            return self.r.one("llvm.mlir.zero", &[], t, &[]);
        }
        let attribute: Attribute = if is_float {
            melior::ir::attribute::FloatAttribute::new(self.ctx, t, 0.0).into()
        } else {
            IntegerAttribute::new(t, 0).into()
        };
        self.r
            .emit_value(arith::constant(self.ctx, attribute, self.r.loc))
    }

    fn binary(&self, name: &str, a: MlirValue, b: MlirValue) -> Result<MlirValue, LowerError> {
        self.r.one(name, &[a, b], type_of(a), &[])
    }

    fn cmp(
        &self,
        predicate: CmpiPredicate,
        a: MlirValue,
        b: MlirValue,
    ) -> Result<MlirValue, LowerError> {
        self.r.emit_value(arith::cmpi(
            self.ctx,
            predicate,
            value(a),
            value(b),
            self.r.loc,
        ))
    }

    fn select(&self, c: MlirValue, a: MlirValue, b: MlirValue) -> Result<MlirValue, LowerError> {
        self.r.one("arith.select", &[c, a, b], type_of(a), &[])
    }

    fn address_of(&self, symbol: &str, space: u32) -> Result<MlirValue, LowerError> {
        let name = FlatSymbolRefAttribute::new(self.ctx, symbol).into();
        self.r.one(
            "llvm.mlir.addressof",
            &[],
            self.ptr(space),
            &[("global_name", name)],
        )
    }

    /// The alignment of the checker's words and pointers, stated: without it, a target's
    /// translation takes LLVM's default layout, where an i64 is 4-byte aligned (NVPTX then read
    /// each word of the table as two 32-bit loads).
    fn alignment(&self, t: Type<'c>) -> Option<IntegerAttribute<'c>> {
        size_and_align(t).map(|(_, align)| IntegerAttribute::new(self.i64(), align as i64))
    }

    fn load(&self, p: MlirValue, t: Type<'c>) -> Result<MlirValue, LowerError> {
        self.r.emit_value(llvm::load(
            self.ctx,
            value(p),
            t,
            self.r.loc,
            llvm::LoadStoreOptions::new().align(self.alignment(t)),
        ))
    }

    fn store(&self, v: MlirValue, p: MlirValue, volatile: bool) {
        let options = llvm::LoadStoreOptions::new()
            .volatile(volatile)
            .align(self.alignment(type_of(v)));
        self.r.emit(llvm::store(
            self.ctx,
            value(v),
            value(p),
            self.r.loc,
            options,
        ));
    }

    fn ptr_to_int(&self, p: MlirValue) -> Result<MlirValue, LowerError> {
        self.r.one("llvm.ptrtoint", &[p], self.i64(), &[])
    }

    fn to_generic(&self, p: MlirValue) -> Result<MlirValue, LowerError> {
        if pointer_space(type_of(p)) == address_space::GENERIC {
            return Ok(p);
        }
        self.r.one(
            "llvm.addrspacecast",
            &[p],
            self.ptr(address_space::GENERIC),
            &[],
        )
    }

    /// `p` as a pointer of type `t`: itself, or cast between generic and a specific space
    /// (None where no cast can make it one).
    fn cast_to(&self, p: MlirValue, t: Type<'c>) -> Result<Option<MlirValue>, LowerError> {
        let (from, to) = (pointer_space(type_of(p)), pointer_space(t));
        if from == to {
            return Ok(Some(p));
        }
        if from == address_space::GENERIC && to == address_space::GLOBAL
            || to == address_space::GENERIC
        {
            return Ok(Some(self.r.one("llvm.addrspacecast", &[p], t, &[])?));
        }
        Ok(None)
    }

    /// The address of word `index` of the 64-bit words at `p`.
    fn word(&self, p: MlirValue, index: u64) -> Result<MlirValue, LowerError> {
        self.gep(p, &[index as i32], &[])
    }

    fn word_at(&self, p: MlirValue, index: MlirValue) -> Result<MlirValue, LowerError> {
        self.gep(p, &[i32::MIN], &[index])
    }

    fn gep(
        &self,
        p: MlirValue,
        raw: &[i32],
        dynamic: &[MlirValue],
    ) -> Result<MlirValue, LowerError> {
        let operands: Vec<MlirValue> = std::iter::once(p).chain(dynamic.iter().copied()).collect();
        self.r.one(
            "llvm.getelementptr",
            &operands,
            type_of(p),
            &[
                (
                    "rawConstantIndices",
                    DenseI32ArrayAttribute::new(self.ctx, raw).into(),
                ),
                ("elem_type", TypeAttribute::new(self.i64()).into()),
            ],
        )
    }

    /// A pointer to an object, in its own address space.
    fn object_pointer(&self, base: &Base) -> Result<MlirValue, LowerError> {
        match base {
            Base::Alloca(v) => Ok(*v),
            Base::Global(symbol, space) => self.address_of(symbol, *space),
        }
    }

    /// The generic address of an object, as an integer.
    fn object_address(&self, base: &Base) -> Result<MlirValue, LowerError> {
        let p = self.object_pointer(base)?;
        let generic = self.to_generic(p)?;
        self.ptr_to_int(generic)
    }

    /// An object's size: dynamic shared memory's is the state's, which the runtime writes
    /// before the launch.
    fn object_size(&self, readable: MlirValue, o: &KernelObject) -> Result<Size, LowerError> {
        if !o.is_dynamic() {
            return Ok(Size::Fixed(o.object.size));
        }
        let size = self.load(self.word(readable, STATE_DYNAMIC_SHARED)?, self.i64())?;
        Ok(Size::Runtime(size))
    }

    /// A size as an i64 value.
    fn size_value(&self, size: Size) -> Result<MlirValue, LowerError> {
        match size {
            Size::Fixed(bytes) => self.int(bytes as i64),
            Size::Runtime(v) => Ok(v),
        }
    }

    /// Whether an access of `bytes` at byte `offset` (an i64) of an object of `size` lies in
    /// it.
    fn in_bounds(
        &self,
        offset: MlirValue,
        bytes: u64,
        size: Size,
    ) -> Result<MlirValue, LowerError> {
        match size {
            Size::Fixed(size) if size < bytes => self.bool(false),
            Size::Fixed(size) => {
                self.cmp(CmpiPredicate::Ule, offset, self.int((size - bytes) as i64)?)
            }
            Size::Runtime(size) => {
                let bytes = self.int(bytes as i64)?;
                let fits = self.cmp(CmpiPredicate::Uge, size, bytes)?;
                let last = self.binary("arith.subi", size, bytes)?;
                let inside = self.cmp(CmpiPredicate::Ule, offset, last)?;
                self.binary("arith.andi", fits, inside)
            }
        }
    }

    /// Whether `[address, address + bytes)` lies in the object of `size` at `base`.
    fn inside(
        &self,
        address: MlirValue,
        bytes: u64,
        base: MlirValue,
        size: Size,
    ) -> Result<MlirValue, LowerError> {
        let offset = self.binary("arith.subi", address, base)?;
        self.in_bounds(offset, bytes, size)
    }

    /// Whether the `bytes` at `pointer` lie in the object of `size` that `root` starts. Where
    /// the pointer is a kernel argument plus indices times steps (GEPs), the offset is computed
    /// from the indices rather than as a difference of addresses, which a device compiler
    /// running work-items as vector lanes keeps as a 64-bit address per lane (two AVX2
    /// registers per 8 lanes); one index of 32 bits, into an argument or an object, is checked
    /// against the range of its values that stay inside, in 32 bits.
    fn lies_in(
        &self,
        pointer: MlirValue,
        root: &Root,
        bytes: u64,
        size: Size,
    ) -> Result<MlirValue, LowerError> {
        if let Some(offsets) = offsets_of(pointer).filter(|o| root.is(o.root)) {
            if let [(index, step)] = offsets.terms[..] {
                if let Some(inside) =
                    self.index_in_bounds(index, step, offsets.constant, bytes, size)?
                {
                    return Ok(inside);
                }
            }
            // (Several indices into a kernel's own object, such as a shared tile's two
            // subscripts, keep the difference of addresses below: as integer arithmetic, NVPTX
            // hoisted each check of an unrolled tile loop out of the loop around it and kept
            // every result live across it, 98 registers for the bench's matmul against 52.)
            let all_64_bits = offsets
                .terms
                .iter()
                .all(|&(index, _)| integer_width(index) == Some(64));
            if matches!(root, Root::Argument { .. }) && all_64_bits {
                let mut offset = self.int(offsets.constant)?;
                for &(index, step) in &offsets.terms {
                    let scaled = self.binary("arith.muli", index, self.int(step)?)?;
                    offset = self.binary("arith.addi", offset, scaled)?;
                }
                return self.in_bounds(offset, bytes, size);
            }
        }
        let address = self.ptr_to_int(self.to_generic(pointer)?)?;
        self.inside(address, bytes, self.root_address(root)?, size)
    }

    /// Whether `constant + index * step` (an i64 index extended from 32 bits) is an offset at
    /// which `bytes` lie in an object of `size`, as a test of the 32-bit index against the
    /// range of indices that pass (None: the index is not such an extension, or the numbers
    /// are too large for the range's arithmetic to be exact).
    ///
    /// With `constant = q * step + r` (0 <= r < step), `0 <= constant + index * step <= last`
    /// holds exactly when `-q <= index <= -q + (last - r) / step`, and never when `last < r`.
    fn index_in_bounds(
        &self,
        index: MlirValue,
        step: i64,
        constant: i64,
        bytes: u64,
        size: Size,
    ) -> Result<Option<MlirValue>, LowerError> {
        const MAX_CONSTANT: i64 = 1 << 40;
        const MAX_STEP: i64 = 1 << 24;
        let Some((narrow, signed)) = extended_from_32_bits(index) else {
            return Ok(None);
        };
        if !(1..=MAX_STEP).contains(&step) || constant.abs() > MAX_CONSTANT {
            return Ok(None);
        }
        let (lowest, highest) = match signed {
            true => (i64::from(i32::MIN), i64::from(i32::MAX)),
            false => (0, i64::from(u32::MAX)),
        };
        let (q, r) = (constant.div_euclid(step), constant.rem_euclid(step));
        let low = (-q).max(lowest);
        if -q > highest {
            return Ok(None);
        }
        let i32t: Type = IntegerType::new(self.ctx, 32).into();
        let (size, fits) = match size {
            Size::Fixed(size) if size < bytes => return Ok(Some(self.bool(false)?)),
            Size::Fixed(size) => (self.int(size as i64)?, self.bool(true)?),
            Size::Runtime(size) => {
                let fits = self.cmp(CmpiPredicate::Uge, size, self.int(bytes as i64)?)?;
                (size, fits)
            }
        };
        // What follows is uniform where the size is: the range of indices that pass, as its
        // lowest and its width, and whether it is empty.
        let last = self.binary("arith.subi", size, self.int(bytes as i64)?)?;
        let reaches = self.cmp(CmpiPredicate::Sge, last, self.int(r)?)?;
        let beyond = self.binary("arith.subi", last, self.int(r)?)?;
        let span = self.binary("arith.divui", beyond, self.int(step)?)?;
        // (Wider than every 32-bit index's range is as good as any wider span, and keeps the
        // sum below from overflowing.)
        let cap = self.int(1 << 33)?;
        let capped = self.cmp(CmpiPredicate::Ugt, span, cap)?;
        let span = self.select(capped, cap, span)?;
        let high = self.binary("arith.addi", self.int(-q)?, span)?;
        let too_high = self.cmp(CmpiPredicate::Sgt, high, self.int(highest)?)?;
        let high = self.select(too_high, self.int(highest)?, high)?;
        let nonempty = self.cmp(CmpiPredicate::Sge, high, self.int(low)?)?;
        let width = self.binary("arith.subi", high, self.int(low)?)?;
        let width = self.r.one("arith.trunci", &[width], i32t, &[])?;
        let uniform = self.binary("arith.andi", fits, reaches)?;
        let uniform = self.binary("arith.andi", uniform, nonempty)?;
        // Per work-item: the index's distance from the lowest, in 32 bits.
        let low32 = self.r.arith_int(i32t, low as i32 as i64)?;
        let distance = self.binary("arith.subi", narrow, low32)?;
        let inside = self.cmp(CmpiPredicate::Ule, distance, width)?;
        Ok(Some(self.binary("arith.andi", uniform, inside)?))
    }

    /// The generic address of what an offset is measured from, as an integer.
    fn root_address(&self, root: &Root) -> Result<MlirValue, LowerError> {
        match root {
            Root::Object(base) => self.object_address(base),
            Root::Argument { address, .. } => Ok(*address),
        }
    }

    /// Whether `condition` holds for any lane of the subgroup (`vote`), else for this one.
    fn any(&self, condition: MlirValue, vote: bool) -> Result<MlirValue, LowerError> {
        if !vote {
            return Ok(condition);
        }
        // SPIR-V's own vote (OpGroupNonUniformAny), which the target's lowering keeps: a
        // reduction (gpu.subgroup_reduce) in a loop crashed Intel's CPU compiler.
        let scope = Attribute::parse(self.ctx, "#spirv.scope<Subgroup>")
            .ok_or_else(|| err("the subgroup scope"))?;
        self.r.one(
            "spirv.GroupNonUniformAny",
            &[condition],
            IntegerType::new(self.ctx, 1).into(),
            &[
                ("execution_scope", scope),
                (VOTE_ATTRIBUTE, Attribute::unit(self.ctx)),
            ],
        )
    }

    /// The i1 `body` computes, in a loop that runs it once: it goes round again only while the
    /// error word of `state` holds u64::MAX, which it never does (a volatile load, so that no
    /// compiler unrolls the loop away).
    fn once(
        &self,
        state: MlirValue,
        body: impl FnOnce(&Rewriter<'c>) -> Result<MlirValue, LowerError>,
    ) -> Result<MlirValue, LowerError> {
        let (ctx, loc) = (self.ctx, self.r.loc);
        let i1: Type = IntegerType::new(ctx, 1).into();
        let before = Block::new(&[(i1, loc), (i1, loc)]);
        let (go, forwarded) = (
            before.argument(0).map_err(err)?.to_raw(),
            before.argument(1).map_err(err)?.to_raw(),
        );
        before.append_operation(scf::condition(
            value(go),
            &[value(go), value(forwarded)],
            loc,
        ));
        let after = Block::new(&[(i1, loc), (i1, loc)]);
        let inner = Rewriter::at_end(ctx, &after, loc);
        let result = body(&inner)?;
        let b = Build { r: &inner, ctx };
        let error = b.r.emit_value(llvm::load(
            ctx,
            value(b.word(state, STATE_ERROR)?),
            b.i64(),
            loc,
            llvm::LoadStoreOptions::new().volatile(true),
        ))?;
        let again = b.cmp(CmpiPredicate::Eq, error, b.int(-1)?)?;
        after.append_operation(scf::r#yield(&[value(again), value(result)], loc));
        let before_region = Region::new();
        before_region.append_block(before);
        let after_region = Region::new();
        after_region.append_block(after);
        let start = self.bool(true)?;
        let results = self.r.emit(scf::r#while(
            &[value(start), value(start)],
            &[i1, i1],
            before_region,
            after_region,
            loc,
        ));
        results
            .get(1)
            .copied()
            .ok_or_else(|| err("scf.while without results"))
    }

    /// Whether `[address, address + bytes)` lies in `[low, high)` (and does not wrap).
    fn in_range(
        &self,
        address: MlirValue,
        bytes: MlirValue,
        low: MlirValue,
        high: MlirValue,
    ) -> Result<MlirValue, LowerError> {
        let end = self.binary("arith.addi", address, bytes)?;
        let above = self.cmp(CmpiPredicate::Uge, address, low)?;
        let fits = self.cmp(CmpiPredicate::Ule, end, high)?;
        let no_wrap = self.cmp(CmpiPredicate::Uge, end, address)?;
        let both = self.binary("arith.andi", above, fits)?;
        self.binary("arith.andi", both, no_wrap)
    }

    /// Whether `[address, address + bytes)` lies in one of the kernel's own objects whose
    /// address became a generic pointer (`readable`: the state or its stand-in, for the size
    /// of dynamic shared memory).
    fn in_objects(
        &self,
        readable: MlirValue,
        address: MlirValue,
        bytes: u64,
        escaping: &[KernelObject],
    ) -> Result<MlirValue, LowerError> {
        let mut any = self.bool(false)?;
        for o in escaping {
            let base = self.object_address(&o.base)?;
            let inside = self.inside(address, bytes, base, self.object_size(readable, o)?)?;
            any = self.binary("arith.ori", any, inside)?;
        }
        Ok(any)
    }

    /// `words` 64-bit words of the work-item's own memory, in the function's entry block.
    fn local_words(&self, words: usize) -> Result<MlirValue, LowerError> {
        let array = llvm::r#type::array(self.i64(), words as u32);
        self.r.one(
            "llvm.alloca",
            &[self.int(1)?],
            self.ptr(address_space::PRIVATE),
            &[("elem_type", TypeAttribute::new(array).into())],
        )
    }

    /// Whether `[address, address + bytes)` lies in an allocation of the table of `state` or in
    /// one of the objects of the [`ObjectList`] at `list`.
    fn search(
        &self,
        state: MlirValue,
        address: MlirValue,
        bytes: MlirValue,
        list: MlirValue,
    ) -> Result<MlirValue, LowerError> {
        let table = self.load(self.word(state, STATE_TABLE)?, self.ptr(0))?;
        // The ranges after the index of 2^bits slots (see `memcheck::ranges_word`).
        let bits = self.load(table, self.i64())?;
        let slot_words = self.binary("arith.shli", self.int(2)?, bits)?;
        let at = self.binary("arith.addi", slot_words, self.int(1)?)?;
        let ranges = self.word_at(table, at)?;
        let count = self.load(ranges, self.i64())?;
        let (low, high) = self.table_range(ranges, count, address)?;
        let allocated = self.in_range(address, bytes, low, high)?;
        let listed = self.in_list(list, address, bytes)?;
        self.binary("arith.ori", allocated, listed)
    }

    /// Whether `[address, address + bytes)` lies in one of the objects of the [`ObjectList`]
    /// at `list` (null: none).
    fn in_list(
        &self,
        list: MlirValue,
        address: MlirValue,
        bytes: MlirValue,
    ) -> Result<MlirValue, LowerError> {
        let (ctx, i64t) = (self.ctx, self.i64());
        let any = self.cmp(CmpiPredicate::Ne, self.ptr_to_int(list)?, self.int(0)?)?;
        let i1: Type = IntegerType::new(ctx, 1).into();
        self.r.scf_if(
            any,
            i1,
            |then| {
                let b = Build { r: then, ctx };
                let count = b.load(b.word(list, 0)?, i64t)?;
                let bounds = [b.int(0)?, count, b.int(1)?];
                then.scf_for(bounds, b.bool(false)?, |body, i, found| {
                    let b = Build { r: body, ctx };
                    let at = b.binary("arith.shli", i, b.int(1)?)?;
                    let at = b.binary("arith.addi", at, b.int(1)?)?;
                    let start = b.load(b.word_at(list, at)?, i64t)?;
                    let at = b.binary("arith.addi", at, b.int(1)?)?;
                    let size = b.load(b.word_at(list, at)?, i64t)?;
                    let end = b.binary("arith.addi", start, size)?;
                    let inside = b.in_range(address, bytes, start, end)?;
                    b.binary("arith.ori", found, inside)
                })
            },
            |otherwise| Build { r: otherwise, ctx }.bool(false),
        )
    }

    /// HIP's threadIdx.x, .y, .z and blockIdx.x, .y, .z, as the report holds them: threadIdx
    /// unpacked from `thread` where the kernel passed it ([`Checker::thread`]), else the
    /// work-item's own (`thread` None: always).
    fn work_item_ids(&self, thread: Option<MlirValue>) -> Result<Vec<MlirValue>, LowerError> {
        let mut ids = self.ids("gpu.thread_id")?;
        if let Some(thread) = thread {
            let passed = self.cmp(CmpiPredicate::Ne, thread, self.int(THREAD_NOT_PASSED)?)?;
            for (i, own) in ids.iter_mut().enumerate() {
                let shift = self.int(i as i64 * i64::from(THREAD_ID_BITS))?;
                let field = self.binary("arith.shrui", thread, shift)?;
                let field =
                    self.binary("arith.andi", field, self.int((1 << THREAD_ID_BITS) - 1)?)?;
                *own = self.select(passed, field, *own)?;
            }
        }
        ids.extend(self.ids("gpu.block_id")?);
        Ok(ids)
    }

    /// HIP's threadIdx packed in one word, x in the low [`THREAD_ID_BITS`] bits, then y, then z.
    fn packed_thread(&self) -> Result<MlirValue, LowerError> {
        let mut word = self.int(0)?;
        for (i, id) in self.ids("gpu.thread_id")?.into_iter().enumerate() {
            let shift = self.int(i as i64 * i64::from(THREAD_ID_BITS))?;
            let shifted = self.binary("arith.shli", id, shift)?;
            word = self.binary("arith.ori", word, shifted)?;
        }
        Ok(word)
    }

    /// The x, y and z of `op` (`gpu.thread_id` or `gpu.block_id`), as 64-bit words.
    fn ids(&self, op: &str) -> Result<Vec<MlirValue>, LowerError> {
        let ctx = self.ctx;
        GpuDimension::ALL
            .iter()
            .map(|d| {
                let id = self.r.one(
                    op,
                    &[],
                    Type::index(ctx),
                    &[("dimension", d.attribute(ctx))],
                )?;
                self.r.one("arith.index_castui", &[id], self.i64(), &[])
            })
            .collect()
    }

    /// The allocation of the table's `ranges` (their count, `count`, first) that may hold
    /// `address`, as (start, end): a binary search for the last one starting at or below it
    /// ((0, 0) when there is none).
    fn table_range(
        &self,
        ranges: MlirValue,
        count: MlirValue,
        address: MlirValue,
    ) -> Result<(MlirValue, MlirValue), LowerError> {
        let (ctx, loc, i64t) = (self.ctx, self.r.loc, self.i64());
        let zero = self.int(0)?;
        let before = Block::new(&[(i64t, loc), (i64t, loc)]);
        let (lo, n) = (
            before.argument(0).map_err(err)?.to_raw(),
            before.argument(1).map_err(err)?.to_raw(),
        );
        let b = Build {
            r: &Rewriter::at_end(ctx, &before, loc),
            ctx,
        };
        let more = b.cmp(CmpiPredicate::Ugt, n, b.int(0)?)?;
        before.append_operation(scf::condition(value(more), &[value(lo), value(n)], loc));
        let after = Block::new(&[(i64t, loc), (i64t, loc)]);
        let (lo, n) = (
            after.argument(0).map_err(err)?.to_raw(),
            after.argument(1).map_err(err)?.to_raw(),
        );
        let inner = Rewriter::at_end(ctx, &after, loc);
        let b = Build { r: &inner, ctx };
        let one = b.int(1)?;
        let half = b.binary("arith.shrui", n, one)?;
        let mid = b.binary("arith.addi", lo, half)?;
        let twice = b.binary("arith.shli", mid, one)?;
        let at = b.binary("arith.addi", twice, one)?;
        let start = b.load(b.word_at(ranges, at)?, i64t)?;
        let below = b.cmp(CmpiPredicate::Ule, start, address)?;
        let next = b.binary("arith.addi", mid, one)?;
        let next_lo = b.select(below, next, lo)?;
        let rest = b.binary("arith.subi", n, half)?;
        let rest = b.binary("arith.subi", rest, one)?;
        let next_n = b.select(below, rest, half)?;
        after.append_operation(scf::r#yield(&[value(next_lo), value(next_n)], loc));
        let before_region = Region::new();
        before_region.append_block(before);
        let after_region = Region::new();
        after_region.append_block(after);
        let found = self.r.emit(scf::r#while(
            &[value(zero), value(count)],
            &[i64t, i64t],
            before_region,
            after_region,
            loc,
        ));
        let lo = *found
            .first()
            .ok_or_else(|| err("scf.while without results"))?;
        let any = self.cmp(CmpiPredicate::Ne, lo, zero)?;
        let range = self.r.scf_if_values(
            any,
            &[i64t, i64t],
            |then| {
                let b = Build { r: then, ctx };
                // Entry lo - 1 starts at word 2 * lo - 1 and ends at word 2 * lo.
                let at = b.binary("arith.shli", lo, b.int(1)?)?;
                let start = b.binary("arith.subi", at, b.int(1)?)?;
                Ok(vec![
                    b.load(b.word_at(ranges, start)?, i64t)?,
                    b.load(b.word_at(ranges, at)?, i64t)?,
                ])
            },
            |otherwise| {
                let b = Build { r: otherwise, ctx };
                Ok(vec![b.int(0)?, b.int(0)?])
            },
        )?;
        Ok((range[0], range[1]))
    }

    /// Claims the error word; the work-item that claims it writes the report (with its ids:
    /// [`Build::work_item_ids`] of `thread`), then traps.
    fn report(
        &self,
        checker: MlirValue,
        site: MlirValue,
        address: MlirValue,
        base: MlirValue,
        size: MlirValue,
        thread: Option<MlirValue>,
    ) -> Result<(), LowerError> {
        let (ctx, i64t) = (self.ctx, self.i64());
        let i64_attribute = |v: i64| -> Attribute { IntegerAttribute::new(i64t, v).into() };
        // (The ids are read before the claim: read in the branch of the work-item that claims
        // it, Intel's CPU compiler crashed in LICM's sinkRegion on a kernel of 2-D blocks.)
        let ids = self.work_item_ids(thread)?;
        let error = self.word(checker, STATE_ERROR)?;
        let one = self.int(1)?;
        let before = self.r.one(
            "llvm.atomicrmw",
            &[error, one],
            i64t,
            &[
                ("bin_op", i64_attribute(AtomicBinOp::Add as i64)),
                ("ordering", i64_attribute(atomic_ordering::MONOTONIC)),
                ("syncscope", StringAttribute::new(ctx, "agent").into()),
            ],
        )?;
        let first = self.cmp(CmpiPredicate::Eq, before, self.int(0)?)?;
        self.r.scf_if_values(
            first,
            &[],
            |then| {
                let b = Build { r: then, ctx };
                let report = b.load(b.word(checker, STATE_REPORT)?, b.ptr(0))?;
                b.store(address, b.word(report, REPORT_ADDRESS)?, true);
                b.store(base, b.word(report, REPORT_BASE)?, true);
                b.store(size, b.word(report, REPORT_SIZE)?, true);
                let words = (0..3).map(|i| REPORT_THREAD + i);
                for (id, word) in ids
                    .iter()
                    .zip(words.chain((0..3).map(|i| REPORT_BLOCK + i)))
                {
                    b.store(*id, b.word(report, word)?, true);
                }
                let raised = b.binary("arith.addi", site, b.int(1)?)?;
                b.store(raised, b.word(report, REPORT_RAISED)?, true);
                // (On PTX a system fence comes before every trap: the report reaches the
                // host's pinned memory before the trap ends the kernel.)
                then.op(crate::spirv::traps::TRAP_OP, &[], &[], &[])?;
                Ok(vec![])
            },
            |_| Ok(vec![]),
        )?;
        Ok(())
    }
}
