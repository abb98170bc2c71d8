//! What the serialized SPIR-V still needs that MLIR's spirv dialect cannot say, patched in the
//! words (through device-image's `spirv_words`, which the runtime's reader uses too):
//! * calls of imported `__hipmlir_opencl_std_<N>_...` functions become `OpExtInst <OpenCL.std>
//!   N`, for the OpenCL.std functions that have no `spirv.CL` op (see [`crate::spirv::math`]), and
//!   calls of the clock placeholder `OpReadClockKHR` (see [`crate::spirv::clocks`]);
//! * packed structs (member offsets in MLIR) are decorated `CPacked` (MLIR's serializer has
//!   no `CPacked`, and `Offset` needs the Shader capability);
//! * zero-filled global variables get an `OpConstantNull` initializer (see
//!   [`crate::spirv::initializers`]);
//! * kernels' by-value struct parameters are decorated `FuncParamAttr ByVal` and `Alignment`
//!   (MLIR's serializer handles neither decoration on a function argument);
//! * recursive calls go through SPV_INTEL_function_pointers constants (see
//!   [`crate::spirv::recursive_calls`]), which MLIR's spirv dialect has no operations for.

use hipmlir_device_image::spirv_words::spirv::{
    Capability, Decoration, FunctionParameterAttribute, MemoryAccess, Op, StorageClass,
};
use hipmlir_device_image::spirv_words::{
    self, encode_string, push_instruction, Instruction, BOUND_WORD, FUNCTION_POINTERS_EXTENSION,
    HEADER_WORDS,
};
use hipmlir_device_image::{KERNEL_ARGS_ATTRIBUTE, NOALIAS_ATTRIBUTE, ZERO_INITIALIZER_ATTRIBUTE};
use melior::ir::attribute::{DenseI64ArrayAttribute, DictionaryAttribute, IntegerAttribute};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use hipmlir_ir::rewrite::{apply_patterns, Outcome, Pattern, PatternRewriter, RewritePatternSet};
use melior::ir::operation::{
    OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult,
};
use melior::ir::{Module, OperationRef};
use melior::Context;

use crate::spirv::math::OPENCL_STD_PREFIX;
use crate::spirv::recursive_calls::RECURSIVE_CALL_ATTRIBUTE;
use crate::symbols::symbol;
use crate::LowerError;

fn err(message: impl std::fmt::Display) -> LowerError {
    LowerError::bug(format!("SPIR-V patch: {message}"))
}

/// A module's words and instructions, and the words of a patched copy.
struct Patch<'a> {
    words: &'a [u32],
    instructions: Vec<Instruction<'a>>,
    bound: u32,
}

impl<'a> Patch<'a> {
    fn new(words: &'a [u32]) -> Result<Self, LowerError> {
        let instructions = spirv_words::parse(words).map_err(err)?;
        Ok(Patch {
            words,
            instructions,
            bound: words[BOUND_WORD],
        })
    }

    fn new_id(&mut self) -> u32 {
        self.bound += 1;
        self.bound - 1
    }

    /// The header with the new id bound.
    fn header(&self) -> Vec<u32> {
        let mut out = self.words[..HEADER_WORDS].to_vec();
        out[BOUND_WORD] = self.bound;
        out
    }

    /// The first instruction `op` whose operand `at` is `id`.
    /// Each `OpName`'s string and the id it names.
    fn names(&self) -> HashMap<String, u32> {
        self.instructions
            .iter()
            .filter(|i| i.is(Op::Name))
            .filter_map(|i| Some((i.string(1), i.operand(0)?)))
            .collect()
    }

    fn find(&self, op: Op, at: usize, id: u32) -> Option<&Instruction<'a>> {
        self.instructions
            .iter()
            .find(|i| i.is(op) && i.operand(at) == Some(id))
    }
}

fn words(bytes: &[u8]) -> Result<Vec<u32>, LowerError> {
    spirv_words::words(bytes).map_err(err)
}

/// What a call of an imported placeholder function becomes.
#[derive(Debug, Clone, Copy)]
enum Import {
    /// `OpExtInst <OpenCL.std> number args...`.
    OpenClStd(u32),
    /// `OpReadClockKHR scope` (the call's one argument is the scope constant).
    ReadClock,
}

impl Import {
    fn of_linkage_name(name: &str) -> Option<Import> {
        if name == crate::spirv::clocks::READ_CLOCK_IMPORT {
            return Some(Import::ReadClock);
        }
        name.strip_prefix(OPENCL_STD_PREFIX)
            .and_then(|rest| rest.split('_').next())
            .and_then(|n| n.parse::<u32>().ok())
            .map(Import::OpenClStd)
    }
}

/// Calls of hipmlir's imported placeholder functions become the instructions they stand for;
/// the placeholders' declarations go.
pub fn resolve_imports(bytes: &[u8]) -> Result<Vec<u8>, LowerError> {
    let words = words(bytes)?;
    let mut patch = Patch::new(&words)?;

    // Imports by function id.
    let mut imports: HashMap<u32, Import> = HashMap::new();
    let mut other_linkage = false;
    for i in &patch.instructions {
        if i.is(Op::Decorate) && i.operand(1) == Some(Decoration::LinkageAttributes as u32) {
            match Import::of_linkage_name(&i.string(2)) {
                Some(import) => {
                    imports.insert(i.operands()[0], import);
                }
                None => other_linkage = true,
            }
        }
    }
    if imports.is_empty() {
        return Ok(bytes.to_vec());
    }
    let uses_opencl_std = imports.values().any(|i| matches!(i, Import::OpenClStd(_)));

    // What to drop: the imports' declarations, decorations and names.
    let mut drop: HashSet<usize> = HashSet::new();
    let mut dropped_ids: HashSet<u32> = imports.keys().copied().collect();
    let mut in_import = false;
    for i in &patch.instructions {
        if i.is(Op::Function) && i.operand(1).is_some_and(|f| imports.contains_key(&f)) {
            in_import = true;
        }
        if in_import {
            if let (true, Some(param)) = (i.is(Op::FunctionParameter), i.operand(1)) {
                dropped_ids.insert(param);
            }
            drop.insert(i.offset);
            in_import = !i.is(Op::FunctionEnd);
        }
    }
    for i in &patch.instructions {
        let targets_dropped = i.operand(0).is_some_and(|id| dropped_ids.contains(&id));
        let unused_linkage = !other_linkage
            && i.is(Op::Capability)
            && i.operand(0) == Some(Capability::Linkage as u32);
        if ((i.is(Op::Decorate) || i.is(Op::Name)) && targets_dropped) || unused_linkage {
            drop.insert(i.offset);
        }
    }

    // The OpenCL.std import, created if the module has none and needs it.
    let existing = patch
        .instructions
        .iter()
        .find(|i| i.is(Op::ExtInstImport) && i.string_is(1, "OpenCL.std"))
        .and_then(|i| i.operand(0));
    let mut new_import = Vec::new();
    let std_id = match existing {
        Some(id) => id,
        None if uses_opencl_std => {
            let id = patch.new_id();
            let mut operands = vec![id];
            operands.extend(encode_string("OpenCL.std"));
            push_instruction(&mut new_import, Op::ExtInstImport, &operands).map_err(err)?;
            id
        }
        None => 0,
    };

    let mut out = patch.header();
    for i in &patch.instructions {
        if drop.contains(&i.offset) {
            continue;
        }
        let ops = i.operands();
        if i.is(Op::MemoryModel) {
            out.append(&mut new_import);
        }
        match i.operand(2).and_then(|f| imports.get(&f)) {
            Some(Import::OpenClStd(number)) if i.is(Op::FunctionCall) => {
                // [type, result, function, args...] → [type, result, set, number, args...]
                let mut operands = vec![ops[0], ops[1], std_id, *number];
                operands.extend_from_slice(&ops[3..]);
                push_instruction(&mut out, Op::ExtInst, &operands).map_err(err)?;
            }
            Some(Import::ReadClock) if i.is(Op::FunctionCall) => {
                // [type, result, function, scope] → [type, result, scope]
                let [ty, result, _, scope] = ops else {
                    return Err(err("a clock read without its scope"));
                };
                push_instruction(&mut out, Op::ReadClockKHR, &[*ty, *result, *scope])
                    .map_err(err)?;
            }
            _ => out.extend_from_slice(i.words),
        }
    }
    Ok(spirv_words::to_bytes(&out))
}

/// One decoration of a kernel parameter: (its function's name, parameter index, the
/// decoration's operands after the parameter's id).
pub type ParameterDecoration = (String, usize, Vec<u32>);

/// The decorations the frontend's parameter attributes stand for: a by-value struct is
/// `FuncParamAttr ByVal` with its alignment, as OpenCL requires for struct kernel arguments;
/// a `__restrict__` pointer is `FuncParamAttr NoAlias`, OpenCL C's `restrict`.
pub fn collect_parameter_decorations(module: &Module) -> Vec<ParameterDecoration> {
    let mut out = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() != Ok("spirv.func") {
            return WalkResult::Advance;
        }
        let Ok(name) = op.attribute("sym_name") else {
            return WalkResult::Advance;
        };
        let name = name.to_string().trim_matches('"').to_string();
        for (index, align) in byval_parameters(&op) {
            out.push((
                name.clone(),
                index,
                vec![
                    Decoration::FuncParamAttr as u32,
                    FunctionParameterAttribute::ByVal as u32,
                ],
            ));
            out.push((
                name.clone(),
                index,
                vec![Decoration::Alignment as u32, align],
            ));
        }
        if let Some(indices) = op
            .attribute(NOALIAS_ATTRIBUTE)
            .ok()
            .and_then(|a| DenseI64ArrayAttribute::try_from(a).ok())
        {
            for i in 0..indices.len() {
                if let Ok(index) = indices.element(i) {
                    out.push((
                        name.clone(),
                        index as usize,
                        vec![
                            Decoration::FuncParamAttr as u32,
                            FunctionParameterAttribute::NoAlias as u32,
                        ],
                    ));
                }
            }
        }
        WalkResult::Advance
    });
    out
}

/// A kernel's by-value struct parameters: (index, alignment).
fn byval_parameters(op: &OperationRef) -> Vec<(usize, u32)> {
    let mut out = Vec::new();
    let args = op
        .attribute(KERNEL_ARGS_ATTRIBUTE)
        .ok()
        .and_then(crate::symbols::array_elements)
        .unwrap_or_default();
    for (index, _) in crate::symbols::byval_parameters(op) {
        let align = args
            .get(index)
            .and_then(|entry| DictionaryAttribute::try_from(*entry).ok())
            .and_then(|entry| entry.element_by_name("align"))
            .and_then(|align| IntegerAttribute::try_from(align).ok())
            .map_or(8, |align| align.value() as u32);
        out.push((index, align));
    }
    out
}

/// Writes the kernel parameters' decorations into the module's annotations.
pub fn decorate_parameters(
    bytes: &[u8],
    params: &[ParameterDecoration],
) -> Result<Vec<u8>, LowerError> {
    if params.is_empty() {
        return Ok(bytes.to_vec());
    }
    let words = words(bytes)?;
    let patch = Patch::new(&words)?;
    let mut decorations = Vec::new();
    for (kernel, index, decoration) in params {
        // By the function's name: an entry point, or a kernel's body behind its entry point
        // (`address_parameters`).
        let function = patch
            .instructions
            .iter()
            .find(|i| i.is(Op::Name) && i.string(1) == *kernel)
            .and_then(|i| i.operand(0))
            .ok_or_else(|| err(format!("no function {kernel}")))?;
        let start = patch
            .instructions
            .iter()
            .position(|i| i.is(Op::Function) && i.operand(1) == Some(function))
            .ok_or_else(|| err(format!("no function for {kernel}")))?;
        let param = patch.instructions[start + 1..]
            .iter()
            .take_while(|i| i.is(Op::FunctionParameter))
            .nth(*index)
            .and_then(|i| i.operand(1))
            .ok_or_else(|| err(format!("{kernel} has no parameter {index}")))?;
        let mut operands = vec![param];
        operands.extend_from_slice(decoration);
        push_instruction(&mut decorations, Op::Decorate, &operands).map_err(err)?;
    }
    // Annotations come before the first type declaration.
    let at = patch
        .instructions
        .iter()
        .find(|i| {
            i.is(Op::Decorate)
                || (Op::TypeVoid as u32..=Op::TypePointer as u32).contains(&i.opcode())
        })
        .map(|i| i.offset)
        .ok_or_else(|| err("no annotation section"))?;
    let mut out = words[..at].to_vec();
    out.extend(decorations);
    out.extend_from_slice(&words[at..]);
    Ok(spirv_words::to_bytes(&out))
}

/// Structs with member offsets (`spirv::ir::packed_struct_type`, the only ones hipmlir gives
/// offsets) become `CPacked` structs: OpenCL's SPIR-V lays a struct out as C does, and says
/// packed with `CPacked`; `Offset` needs the Shader capability. The offsets were packed ones.
pub fn pack_structs(bytes: &[u8]) -> Result<Vec<u8>, LowerError> {
    let words = words(bytes)?;
    let patch = Patch::new(&words)?;
    let is_offset = |i: &Instruction| {
        i.is(Op::MemberDecorate) && i.operand(2) == Some(Decoration::Offset as u32)
    };
    if !patch.instructions.iter().any(is_offset) {
        return Ok(bytes.to_vec());
    }
    let mut packed = BTreeSet::new();
    let mut out = patch.header();
    for i in &patch.instructions {
        if !is_offset(i) {
            out.extend_from_slice(i.words);
            continue;
        }
        let id = i
            .operand(0)
            .ok_or_else(|| err("OpMemberDecorate without a type"))?;
        // The struct's decoration where its first offset was, among the annotations.
        if packed.insert(id) {
            push_instruction(&mut out, Op::Decorate, &[id, Decoration::CPacked as u32])
                .map_err(err)?;
        }
    }
    Ok(spirv_words::to_bytes(&out))
}

/// Takes the zero-initializer marks off the module's global variables (the serializer would
/// read the attribute as a decoration): their symbols.
pub fn collect_zero_initialized(ctx: &Context, module: &Module) -> Result<Vec<String>, LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns.add(Pattern::new("spirv.GlobalVariable", take_zero_initializer));
    let mut symbols = Vec::new();
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut symbols)?;
    Ok(symbols)
}

fn take_zero_initializer<'c>(
    _: &mut PatternRewriter<'c>,
    symbols: &mut Vec<String>,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    if !op.has_attribute(ZERO_INITIALIZER_ATTRIBUTE) {
        return Ok(Outcome::NoMatch);
    }
    let Some(symbol) = symbol(&op, "sym_name") else {
        return Ok(Outcome::NoMatch);
    };
    symbols.push(symbol);
    // SAFETY: the live variable; removing an attribute keeps it alive.
    let mut op = unsafe { OperationRefMut::from_raw(op.to_raw()) };
    op.remove_attribute(ZERO_INITIALIZER_ATTRIBUTE)
        .map_err(err)?;
    Ok(Outcome::Rewrote)
}

/// Gives each named global variable an `OpConstantNull` of its type as initializer, inserted
/// just before the variable.
pub fn write_zero_initializers(bytes: &[u8], symbols: &[String]) -> Result<Vec<u8>, LowerError> {
    if symbols.is_empty() {
        return Ok(bytes.to_vec());
    }
    let words = words(bytes)?;
    let mut patch = Patch::new(&words)?;
    let names = patch.names();
    // Per variable id: its null constant's instruction.
    let mut nulls: HashMap<u32, Vec<u32>> = HashMap::new();
    for symbol in symbols {
        let id = *names
            .get(symbol)
            .ok_or_else(|| err(format!("no variable named {symbol}")))?;
        let pointee = patch
            .find(Op::Variable, 1, id)
            .and_then(|v| v.operand(0))
            .and_then(|pointer| patch.find(Op::TypePointer, 0, pointer))
            .and_then(|p| p.operand(2))
            .ok_or_else(|| err(format!("{symbol} is not a variable")))?;
        let null = patch.new_id();
        let mut code = Vec::new();
        push_instruction(&mut code, Op::ConstantNull, &[pointee, null]).map_err(err)?;
        nulls.insert(id, code);
    }
    let mut out = patch.header();
    for i in &patch.instructions {
        match i.operand(1).and_then(|id| nulls.get(&id)) {
            Some(null) if i.is(Op::Variable) => {
                out.extend_from_slice(null);
                // [type, id, storage class] + initializer
                let mut operands = i.operands().get(..3).unwrap_or_default().to_vec();
                operands.push(null[2]);
                push_instruction(&mut out, Op::Variable, &operands).map_err(err)?;
            }
            _ => out.extend_from_slice(i.words),
        }
    }
    Ok(spirv_words::to_bytes(&out))
}

/// The placeholders of addresses in relocated globals' initializers (see
/// `initializers::relocated_initializer`) become the addresses: `OpSpecConstantOp
/// ConvertPtrToU` of the target variable, and `IAdd` of the addend. The integer of a
/// CrossWorkgroup pointer is its generic address, as on every OpenCL device (the generic
/// address space maps global memory one to one), and integer words need no new types. Each
/// placeholder follows its target (the frontend orders them so); the placeholders' names go.
pub fn resolve_addresses(bytes: &[u8]) -> Result<Vec<u8>, LowerError> {
    let words = words(bytes)?;
    let mut patch = Patch::new(&words)?;
    let names = patch.names();
    // Placeholder id → (target variable id, addend).
    let mut placeholders: HashMap<u32, (u32, i64)> = HashMap::new();
    for (name, id) in &names {
        let Some((target, addend)) = crate::spirv::initializers::placeholder_address(name) else {
            continue;
        };
        let target = *names
            .get(target)
            .ok_or_else(|| err(format!("no variable named {target}")))?;
        placeholders.insert(*id, (target, addend));
    }
    if placeholders.is_empty() {
        return Ok(bytes.to_vec());
    }
    let mut defined: HashSet<u32> = HashSet::new();
    let mut out = Vec::new();
    let instructions = std::mem::take(&mut patch.instructions);
    for i in &instructions {
        if i.is(Op::Name)
            && i.operand(0)
                .is_some_and(|id| placeholders.contains_key(&id))
        {
            continue;
        }
        let placeholder = i
            .operand(1)
            .filter(|_| i.is(Op::SpecConstant))
            .and_then(|id| Some((id, *placeholders.get(&id)?)));
        let Some((id, (target, addend))) = placeholder else {
            if i.is(Op::Variable) {
                defined.extend(i.operand(1));
            }
            out.extend_from_slice(i.words);
            continue;
        };
        if !defined.contains(&target) {
            return Err(err("an address of a variable defined after its use"));
        }
        let word = i
            .operand(0)
            .ok_or_else(|| err("a placeholder without a type"))?;
        let convert = spirv_words::spirv::Op::ConvertPtrToU as u32;
        if addend == 0 {
            push_instruction(&mut out, Op::SpecConstantOp, &[word, id, convert, target])
                .map_err(err)?;
            continue;
        }
        let (address, offset) = (patch.new_id(), patch.new_id());
        push_instruction(
            &mut out,
            Op::SpecConstantOp,
            &[word, address, convert, target],
        )
        .map_err(err)?;
        let addend = addend as u64;
        push_instruction(
            &mut out,
            Op::Constant,
            &[word, offset, addend as u32, (addend >> 32) as u32],
        )
        .map_err(err)?;
        let add = spirv_words::spirv::Op::IAdd as u32;
        push_instruction(
            &mut out,
            Op::SpecConstantOp,
            &[word, id, add, address, offset],
        )
        .map_err(err)?;
    }
    let mut module = patch.header();
    module.extend(out);
    Ok(spirv_words::to_bytes(&module))
}

/// A recursive call: (its caller's symbol, its callee's symbol).
pub type RecursiveCall = (String, String);

/// Takes the `hipmlir.recursive_call` marks off the module's calls (the serializer would read
/// the attribute as a decoration): the (caller, callee) pairs they were on. Every call from the
/// caller to the callee is recursive: both are in one cycle of the call graph.
pub fn collect_recursive_calls(
    ctx: &Context,
    module: &Module,
) -> Result<Vec<RecursiveCall>, LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns.add(Pattern::new("spirv.FunctionCall", take_recursive_mark));
    let mut calls = Vec::new();
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut calls)?;
    calls.sort();
    calls.dedup();
    Ok(calls)
}

fn take_recursive_mark<'c>(
    _: &mut PatternRewriter<'c>,
    calls: &mut Vec<RecursiveCall>,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    if !op.has_attribute(RECURSIVE_CALL_ATTRIBUTE) {
        return Ok(Outcome::NoMatch);
    }
    let caller = hipmlir_ir::rewrite::enclosing(&op, "spirv.func")
        .and_then(|f| symbol(&f, "sym_name"))
        .ok_or_else(|| err("a recursive call outside a function"))?;
    let callee = symbol(&op, "callee").ok_or_else(|| err("a recursive call without callee"))?;
    calls.push((caller, callee));
    // SAFETY: the live call; removing an attribute keeps it alive.
    let mut op = unsafe { OperationRefMut::from_raw(op.to_raw()) };
    op.remove_attribute(RECURSIVE_CALL_ATTRIBUTE).map_err(err)?;
    Ok(Outcome::Rewrote)
}

/// The recursive calls become calls through function pointers (SPV_INTEL_function_pointers),
/// which Intel's OpenCL compilers take where they refuse a recursive `OpFunctionCall`:
///
/// ```text
/// %fp_t   = OpTypePointer CodeSectionINTEL %callee_type     (after the other globals)
/// %fp     = OpConstantFunctionPointerINTEL %fp_t %callee
/// %slot_t = OpTypePointer Function %fp_t
///   in the caller's first block:   %slot = OpVariable %slot_t Function
///   for each recursive call:       OpStore %slot %fp Volatile
///                                  %p = OpLoad %fp_t %slot Volatile
///                                  %r = OpFunctionPointerCallINTEL %t %p args
/// ```
///
/// The pointer goes through a volatile slot because the device compiler otherwise sees the
/// constant callee, makes the call direct again and refuses it as before (measured on Intel's
/// CPU runtime: "Unsupported recursive call"); a volatile load is one it cannot fold. The
/// module declares the capability and the extension.
pub fn call_through_pointers(bytes: &[u8], calls: &[RecursiveCall]) -> Result<Vec<u8>, LowerError> {
    if calls.is_empty() {
        return Ok(bytes.to_vec());
    }
    let words = words(bytes)?;
    let mut patch = Patch::new(&words)?;
    // Each function's type, by the function's id, and the functions' ids by name.
    let function_types: HashMap<u32, u32> = patch
        .instructions
        .iter()
        .filter(|i| i.is(Op::Function))
        .filter_map(|i| Some((i.operand(1)?, i.operand(3)?)))
        .collect();
    let functions: HashMap<String, u32> = patch
        .names()
        .into_iter()
        .filter(|(_, id)| function_types.contains_key(id))
        .collect();
    let id_of = |name: &String| {
        functions
            .get(name)
            .copied()
            .ok_or_else(|| err(format!("no function {name}")))
    };
    // Callees by caller, in a fixed order (the module's bytes must not depend on hashing).
    let mut callees_of: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    for (caller, callee) in calls {
        callees_of
            .entry(id_of(caller)?)
            .or_default()
            .insert(id_of(callee)?);
    }
    let callees: BTreeSet<u32> = callees_of.values().flatten().copied().collect();

    // Per function type: the pointer type and the slot's type; per callee: its constant.
    let code_section = StorageClass::CodeSectionINTEL as u32;
    let mut declarations = Vec::new();
    let mut pointer_types: HashMap<u32, (u32, u32)> = HashMap::new();
    let mut pointers: HashMap<u32, u32> = HashMap::new();
    for callee in &callees {
        let function_type = function_types[callee];
        let (pointer_type, _) = match pointer_types.get(&function_type) {
            Some(types) => *types,
            None => {
                let (pointer_type, slot_type) = (patch.new_id(), patch.new_id());
                push_instruction(
                    &mut declarations,
                    Op::TypePointer,
                    &[pointer_type, code_section, function_type],
                )
                .map_err(err)?;
                push_instruction(
                    &mut declarations,
                    Op::TypePointer,
                    &[slot_type, StorageClass::Function as u32, pointer_type],
                )
                .map_err(err)?;
                pointer_types.insert(function_type, (pointer_type, slot_type));
                (pointer_type, slot_type)
            }
        };
        let pointer = patch.new_id();
        push_instruction(
            &mut declarations,
            Op::ConstantFunctionPointerINTEL,
            &[pointer_type, pointer, *callee],
        )
        .map_err(err)?;
        pointers.insert(*callee, pointer);
    }
    let types_of = |callee: &u32| pointer_types[&function_types[callee]];

    let capability = Capability::FunctionPointersINTEL as u32;
    let mut preamble = Vec::new();
    if !patch
        .instructions
        .iter()
        .any(|i| i.is(Op::Capability) && i.operand(0) == Some(capability))
    {
        push_instruction(&mut preamble, Op::Capability, &[capability]).map_err(err)?;
    }
    if !patch
        .instructions
        .iter()
        .any(|i| i.is(Op::Extension) && i.string_is(0, FUNCTION_POINTERS_EXTENSION))
    {
        push_instruction(
            &mut preamble,
            Op::Extension,
            &encode_string(FUNCTION_POINTERS_EXTENSION),
        )
        .map_err(err)?;
    }

    let volatile = MemoryAccess::VOLATILE.bits();
    let instructions = std::mem::take(&mut patch.instructions);
    let mut out = patch.header();
    // The function being copied, and its slots (callee → slot) once its first label is seen.
    let mut function = None;
    let mut slots: HashMap<u32, u32> = HashMap::new();
    let mut in_first_block = false;
    for i in &instructions {
        // The capability and extension go right after the module's capabilities; the
        // declarations before its first function.
        if !i.is(Op::Capability) {
            out.append(&mut preamble);
        }
        if i.is(Op::Function) {
            out.append(&mut declarations);
            function = i.operand(1);
            slots.clear();
            in_first_block = false;
        }
        let callees = function.and_then(|f| callees_of.get(&f));
        if i.is(Op::Label) && slots.is_empty() && !in_first_block {
            out.extend_from_slice(i.words);
            in_first_block = true;
            // Variables open a function's first block.
            for callee in callees.into_iter().flatten() {
                let slot = patch.new_id();
                push_instruction(
                    &mut out,
                    Op::Variable,
                    &[types_of(callee).1, slot, StorageClass::Function as u32],
                )
                .map_err(err)?;
                slots.insert(*callee, slot);
            }
            continue;
        }
        let recursive = i
            .operand(2)
            .filter(|callee| {
                i.is(Op::FunctionCall) && callees.is_some_and(|set| set.contains(callee))
            })
            .and_then(|callee| Some((callee, *slots.get(&callee)?)));
        let Some((callee, slot)) = recursive else {
            out.extend_from_slice(i.words);
            continue;
        };
        let loaded = patch.new_id();
        push_instruction(&mut out, Op::Store, &[slot, pointers[&callee], volatile]).map_err(err)?;
        push_instruction(
            &mut out,
            Op::Load,
            &[types_of(&callee).0, loaded, slot, volatile],
        )
        .map_err(err)?;
        // [type, result, function, args...] → [type, result, pointer, args...]
        let mut operands = i.operands().to_vec();
        operands[2] = loaded;
        push_instruction(&mut out, Op::FunctionPointerCallINTEL, &operands).map_err(err)?;
    }
    let mut module = patch.header();
    module.extend_from_slice(&out[HEADER_WORDS..]);
    Ok(spirv_words::to_bytes(&module))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binaries_without_imports_are_unchanged() {
        let header = spirv_words::to_bytes(&[spirv_words::MAGIC, 0x0001_0000, 0, 10, 0]);
        assert_eq!(resolve_imports(&header).unwrap(), header);
    }

    /// `f(int) -> int` calling itself, and a kernel calling `f`: the self-call goes through a
    /// pointer loaded from a volatile slot; the kernel's call stays direct.
    #[test]
    fn recursive_calls_go_through_function_pointers() {
        let (int, fn_type, f, kernel, param, label, call, kernel_label, kernel_call) =
            (1, 2, 3, 4, 5, 6, 7, 8, 9);
        let mut words = vec![spirv_words::MAGIC, 0x0001_0000, 0, 10, 0];
        let mut add =
            |op: Op, operands: &[u32]| push_instruction(&mut words, op, operands).unwrap();
        add(Op::Capability, &[Capability::Kernel as u32]);
        let mut name = vec![f];
        name.extend(encode_string("f"));
        add(Op::Name, &name);
        add(Op::TypeInt, &[int, 32, 0]);
        add(Op::TypeFunction, &[fn_type, int, int]);
        add(Op::Function, &[int, f, 0, fn_type]);
        add(Op::FunctionParameter, &[int, param]);
        add(Op::Label, &[label]);
        add(Op::FunctionCall, &[int, call, f, param]);
        add(Op::ReturnValue, &[call]);
        add(Op::FunctionEnd, &[]);
        add(Op::Function, &[int, kernel, 0, fn_type]);
        add(Op::FunctionParameter, &[int, 10]);
        add(Op::Label, &[kernel_label]);
        add(Op::FunctionCall, &[int, kernel_call, f, 10]);
        add(Op::ReturnValue, &[kernel_call]);
        add(Op::FunctionEnd, &[]);
        words[BOUND_WORD] = 11;
        let calls = vec![("f".to_string(), "f".to_string())];
        let out = call_through_pointers(&spirv_words::to_bytes(&words), &calls).unwrap();
        let out = spirv_words::words(&out).unwrap();
        let ops: Vec<Op> = spirv_words::parse(&out)
            .unwrap()
            .iter()
            .filter_map(|i| i.op())
            .collect();
        let at = |op: Op| ops.iter().position(|o| *o == op).unwrap();
        assert_eq!(ops[..3], [Op::Capability, Op::Capability, Op::Extension]);
        // Pointer type, slot type and constant after the globals, before the first function.
        assert!(at(Op::ConstantFunctionPointerINTEL) < at(Op::Function));
        assert_eq!(
            ops.iter().filter(|o| **o == Op::TypePointer).count(),
            2,
            "{ops:?}"
        );
        // In f: the slot opens the first block; store, load, pointer call.
        let body = &ops[at(Op::Label)..];
        assert_eq!(
            body[..6],
            [
                Op::Label,
                Op::Variable,
                Op::Store,
                Op::Load,
                Op::FunctionPointerCallINTEL,
                Op::ReturnValue
            ]
        );
        assert_eq!(ops.iter().filter(|o| **o == Op::FunctionCall).count(), 1);
        assert!(out[BOUND_WORD] > 11);
    }

    #[test]
    fn truncated_binaries_are_errors() {
        let mut words = vec![spirv_words::MAGIC, 0x0001_0000, 0, 10, 0];
        words.push((5 << 16) | Op::Name as u32); // claims 5 words, has 1
        assert!(resolve_imports(&spirv_words::to_bytes(&words)).is_err());
    }
}
