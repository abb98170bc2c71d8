//! Post-serialization: calls to imported `__hipmlir_opencl_std_<N>_...` functions become
//! `OpExtInst <OpenCL.std> N` (see [`crate::math`]), and the imports disappear.
//!
//! The binary is a header of 5 words and a stream of instructions, each starting with a word
//! holding (word count << 16 | opcode).

use hipmlir_device_image::{BYVAL_ATTRIBUTE, INITIALIZER_ATTRIBUTE, KERNEL_ARGS_ATTRIBUTE};
use std::collections::{HashMap, HashSet};

use melior::ir::operation::{OperationLike, OperationMutLike, WalkOrder, WalkResult};
use melior::ir::{AttributeLike, Module};

use crate::math::OPENCL_STD_PREFIX;
use crate::LowerError;

const OP_ENTRY_POINT: u32 = 15;
const OP_TYPE_VOID: u32 = 19;
const OP_TYPE_INT: u32 = 21;
const DECORATION_FUNC_PARAM_ATTR: u32 = 38;
const DECORATION_ALIGNMENT: u32 = 44;
const FUNC_PARAM_ATTR_BYVAL: u32 = 2;
const OP_TYPE_ARRAY: u32 = 28;
const OP_TYPE_POINTER: u32 = 32;
const OP_CONSTANT: u32 = 43;
const OP_CONSTANT_COMPOSITE: u32 = 44;
const OP_CONSTANT_NULL: u32 = 46;
const OP_VARIABLE: u32 = 59;

const OP_NAME: u32 = 5;
const OP_EXT_INST_IMPORT: u32 = 11;
const OP_EXT_INST: u32 = 12;
const OP_MEMORY_MODEL: u32 = 14;
const OP_CAPABILITY: u32 = 17;
const OP_FUNCTION: u32 = 54;
const OP_FUNCTION_PARAMETER: u32 = 55;
const OP_FUNCTION_END: u32 = 56;
const OP_FUNCTION_CALL: u32 = 57;
const OP_DECORATE: u32 = 71;
const DECORATION_LINKAGE_ATTRIBUTES: u32 = 41;
const CAPABILITY_LINKAGE: u32 = 5;

fn err(message: impl Into<String>) -> LowerError {
    LowerError::Internal(format!("SPIR-V patch: {}", message.into()))
}

/// A SPIR-V literal string starting at `words[0]`.
fn literal_string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|b| *b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

fn encode_string(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    while !bytes.len().is_multiple_of(4) {
        bytes.push(0);
    }
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The instruction stream after the header: (first word, word count) of each instruction.
type Instructions = Vec<(usize, usize)>;

/// A binary's words and its instruction stream.
fn parse_words(bytes: &[u8]) -> Result<(Vec<u32>, Instructions), LowerError> {
    if !bytes.len().is_multiple_of(4) || bytes.len() < 20 {
        return Err(err("not a SPIR-V binary"));
    }
    let words: Vec<u32> = bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut instructions = Vec::new();
    let mut pos = 5;
    while pos < words.len() {
        let count = (words[pos] >> 16) as usize;
        if count == 0 || pos + count > words.len() {
            return Err(err(format!("bad instruction at word {pos}")));
        }
        instructions.push((pos, count));
        pos += count;
    }
    Ok((words, instructions))
}

pub fn resolve_opencl_std_imports(bytes: &[u8]) -> Result<Vec<u8>, LowerError> {
    let (mut words, instructions) = parse_words(bytes)?;
    let opcode = |i: &(usize, usize)| words[i.0] & 0xffff;
    let operands = |i: &(usize, usize)| &words[i.0 + 1..i.0 + i.1];

    // Imports by function id → OpenCL.std instruction number.
    let mut imports: HashMap<u32, u32> = HashMap::new();
    let mut other_linkage = false;
    for i in &instructions {
        let ops = operands(i);
        if opcode(i) == OP_DECORATE && ops.len() >= 3 && ops[1] == DECORATION_LINKAGE_ATTRIBUTES {
            let name = literal_string(&ops[2..]);
            match name
                .strip_prefix(OPENCL_STD_PREFIX)
                .and_then(|rest| rest.split('_').next())
                .and_then(|n| n.parse::<u32>().ok())
            {
                Some(number) => {
                    imports.insert(ops[0], number);
                }
                None => other_linkage = true,
            }
        }
    }
    if imports.is_empty() {
        return Ok(bytes.to_vec());
    }

    // What to drop: the imports' declarations, decorations and names.
    let mut drop: HashSet<usize> = HashSet::new();
    let mut dropped_ids: HashSet<u32> = imports.keys().copied().collect();
    let mut in_import = false;
    for (index, i) in instructions.iter().enumerate() {
        let ops = operands(i);
        match opcode(i) {
            OP_FUNCTION if ops.len() >= 2 && imports.contains_key(&ops[1]) => in_import = true,
            OP_FUNCTION_PARAMETER if in_import && ops.len() >= 2 => {
                dropped_ids.insert(ops[1]);
            }
            _ => {}
        }
        if in_import {
            drop.insert(index);
            if opcode(i) == OP_FUNCTION_END {
                in_import = false;
            }
        }
    }
    for (index, i) in instructions.iter().enumerate() {
        let ops = operands(i);
        let targets_dropped = !ops.is_empty() && dropped_ids.contains(&ops[0]);
        match opcode(i) {
            OP_DECORATE | OP_NAME if targets_dropped => {
                drop.insert(index);
            }
            OP_CAPABILITY if !other_linkage && ops.first() == Some(&CAPABILITY_LINKAGE) => {
                drop.insert(index);
            }
            _ => {}
        }
    }

    // The OpenCL.std import, created if the module has none.
    let mut bound = words[3];
    let mut new_import: Option<Vec<u32>> = None;
    let std_id = match instructions.iter().find(|i| {
        opcode(i) == OP_EXT_INST_IMPORT && literal_string(&operands(i)[1..]) == "OpenCL.std"
    }) {
        Some(i) => operands(i)[0],
        None => {
            let id = bound;
            bound += 1;
            let name = encode_string("OpenCL.std");
            let mut inst = vec![(((2 + name.len()) as u32) << 16) | OP_EXT_INST_IMPORT, id];
            inst.extend(name);
            new_import = Some(inst);
            id
        }
    };

    let mut out: Vec<u32> = words[..5].to_vec();
    out[3] = bound;
    for (index, i) in instructions.iter().enumerate() {
        if drop.contains(&index) {
            continue;
        }
        let ops = operands(i).to_vec();
        match opcode(i) {
            OP_MEMORY_MODEL => {
                if let Some(import) = new_import.take() {
                    out.extend(import);
                }
                out.extend_from_slice(&words[i.0..i.0 + i.1]);
            }
            OP_FUNCTION_CALL if ops.len() >= 3 && imports.contains_key(&ops[2]) => {
                // [type, result, function, args...] → [type, result, set, number, args...]
                let count = (i.1 + 1) as u32;
                out.push((count << 16) | OP_EXT_INST);
                out.extend_from_slice(&[ops[0], ops[1], std_id, imports[&ops[2]]]);
                out.extend_from_slice(&ops[3..]);
            }
            _ => out.extend_from_slice(&words[i.0..i.0 + i.1]),
        }
    }
    words = out;
    Ok(words.iter().flat_map(|w| w.to_le_bytes()).collect())
}

/// Kernels' by-value struct parameters: (kernel name, parameter index, alignment).
pub fn collect_byval(module: &Module) -> Vec<(String, usize, u32)> {
    let mut out = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("spirv.func") {
            if let (Ok(byval), Ok(name)) = (op.attribute(BYVAL_ATTRIBUTE), op.attribute("sym_name"))
            {
                let args = op.attribute(KERNEL_ARGS_ATTRIBUTE).ok();
                // SAFETY: attribute queries on the frontend's dictionary and array attributes.
                unsafe {
                    for i in 0..mlir_sys::mlirDictionaryAttrGetNumElements(byval.to_raw()) {
                        let named = mlir_sys::mlirDictionaryAttrGetElement(byval.to_raw(), i);
                        let key = mlir_sys::mlirIdentifierStr(named.name);
                        let key = std::str::from_utf8(std::slice::from_raw_parts(
                            key.data as *const u8,
                            key.length,
                        ))
                        .unwrap_or("");
                        let Ok(index) = key.parse::<usize>() else {
                            continue;
                        };
                        let align = args
                            .and_then(|a| {
                                let entry =
                                    mlir_sys::mlirArrayAttrGetElement(a.to_raw(), index as isize);
                                let field = mlir_sys::MlirStringRef {
                                    data: "align".as_ptr() as *const _,
                                    length: 5,
                                };
                                let v = mlir_sys::mlirDictionaryAttrGetElementByName(entry, field);
                                (!v.ptr.is_null())
                                    .then(|| mlir_sys::mlirIntegerAttrGetValueInt(v) as u32)
                            })
                            .unwrap_or(8);
                        out.push((name.to_string().trim_matches('"').to_string(), index, align));
                    }
                }
            }
        }
        WalkResult::Advance
    });
    out
}

/// Decorates by-value struct parameters `FuncParamAttr ByVal` with their alignment, as OpenCL
/// requires for struct kernel arguments (MLIR's serializer cannot express it).
pub fn decorate_byval(
    bytes: &[u8],
    params: &[(String, usize, u32)],
) -> Result<Vec<u8>, LowerError> {
    if params.is_empty() {
        return Ok(bytes.to_vec());
    }
    let (words, instructions) = parse_words(bytes)?;
    let ops = |i: &(usize, usize)| &words[i.0 + 1..i.0 + i.1];
    let opcode = |i: &(usize, usize)| words[i.0] & 0xffff;
    let mut decorations = Vec::new();
    for (kernel, index, align) in params {
        let function = instructions
            .iter()
            .find(|i| opcode(i) == OP_ENTRY_POINT && literal_string(&ops(i)[2..]) == *kernel)
            .map(|i| ops(i)[1])
            .ok_or_else(|| err(format!("no entry point {kernel}")))?;
        let start = instructions
            .iter()
            .position(|i| opcode(i) == OP_FUNCTION && ops(i).get(1) == Some(&function))
            .ok_or_else(|| err(format!("no function for {kernel}")))?;
        let param = instructions[start + 1..]
            .iter()
            .take_while(|i| opcode(i) == OP_FUNCTION_PARAMETER)
            .nth(*index)
            .map(|i| ops(i)[1])
            .ok_or_else(|| err(format!("{kernel} has no parameter {index}")))?;
        decorations.extend_from_slice(&[
            (4 << 16) | OP_DECORATE,
            param,
            DECORATION_FUNC_PARAM_ATTR,
            FUNC_PARAM_ATTR_BYVAL,
        ]);
        decorations.extend_from_slice(&[
            (4 << 16) | OP_DECORATE,
            param,
            DECORATION_ALIGNMENT,
            *align,
        ]);
    }
    // Annotations come before the first type declaration.
    let at = instructions
        .iter()
        .find(|i| opcode(i) == OP_DECORATE || (OP_TYPE_VOID..=OP_TYPE_POINTER).contains(&opcode(i)))
        .map(|i| i.0)
        .ok_or_else(|| err("no annotation section"))?;
    let mut out = words[..at].to_vec();
    out.extend(decorations);
    out.extend_from_slice(&words[at..]);
    Ok(out.iter().flat_map(|w| w.to_le_bytes()).collect())
}

/// Takes the initializers off the module's global variables (the serializer would read the
/// attribute as a decoration): (symbol, bytes).
pub fn collect_initializers(module: &Module) -> Result<Vec<(String, Vec<u8>)>, LowerError> {
    let mut out = Vec::new();
    let mut carriers = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("spirv.GlobalVariable") {
            if let (Ok(symbol), Ok(value)) = (
                op.attribute("sym_name"),
                op.attribute(INITIALIZER_ATTRIBUTE),
            ) {
                out.push((
                    symbol.to_string().trim_matches('"').to_string(),
                    dense_bytes(value),
                ));
                carriers.push(op.to_raw());
            }
        }
        WalkResult::Advance
    });
    for raw in carriers {
        // SAFETY: a live operation found by the walk.
        let mut op = unsafe { melior::ir::operation::OperationRefMut::from_raw(raw) };
        op.remove_attribute(INITIALIZER_ATTRIBUTE)
            .map_err(|e| err(e.to_string()))?;
    }
    Ok(out)
}

/// The bytes of a dense i8 elements attribute (a splat repeats its one element).
fn dense_bytes(value: melior::ir::Attribute) -> Vec<u8> {
    // SAFETY: the frontend writes these attributes as dense tensors of i8.
    unsafe {
        let raw = value.to_raw();
        let count = mlir_sys::mlirElementsAttrGetNumElements(raw) as usize;
        let data = mlir_sys::mlirDenseElementsAttrGetRawData(raw) as *const u8;
        if mlir_sys::mlirDenseElementsAttrIsSplat(raw) {
            vec![*data; count]
        } else {
            std::slice::from_raw_parts(data, count).to_vec()
        }
    }
}

/// Gives each named global variable its initializer: a constant byte array (or a null constant
/// when all bytes are zero), inserted just before the variable.
pub fn write_initializers(
    bytes: &[u8],
    initializers: &[(String, Vec<u8>)],
) -> Result<Vec<u8>, LowerError> {
    if initializers.is_empty() {
        return Ok(bytes.to_vec());
    }
    let (words, instructions) = parse_words(bytes)?;
    let ops = |i: &(usize, usize)| &words[i.0 + 1..i.0 + i.1];
    let opcode = |i: &(usize, usize)| words[i.0] & 0xffff;
    let find = |op: u32, id: u32| {
        instructions
            .iter()
            .find(|i| opcode(i) == op && ops(i).first() == Some(&id))
    };

    let mut names: HashMap<String, u32> = HashMap::new();
    for i in &instructions {
        if opcode(i) == OP_NAME && ops(i).len() >= 2 {
            names.insert(literal_string(&ops(i)[1..]), ops(i)[0]);
        }
    }
    let mut bound = words[3];
    // Per variable id: the instructions to insert before it and the initializer id.
    let mut inserts: HashMap<u32, (Vec<u32>, u32)> = HashMap::new();
    for (symbol, data) in initializers {
        let id = *names
            .get(symbol)
            .ok_or_else(|| err(format!("no variable named {symbol}")))?;
        let variable = instructions
            .iter()
            .find(|i| opcode(i) == OP_VARIABLE && ops(i).get(1) == Some(&id))
            .ok_or_else(|| err(format!("{symbol} is not a variable")))?;
        let pointer =
            find(OP_TYPE_POINTER, ops(variable)[0]).ok_or_else(|| err("variable type"))?;
        let array_id = ops(pointer)[2];
        let array = find(OP_TYPE_ARRAY, array_id)
            .ok_or_else(|| err(format!("{symbol} is not a byte array")))?;
        let element = ops(array)[1];
        let int = find(OP_TYPE_INT, element).ok_or_else(|| err("array element type"))?;
        if ops(int)[1] != 8 {
            return Err(err(format!("{symbol} is not a byte array")));
        }
        let mut code = Vec::new();
        let init_id;
        if data.iter().all(|b| *b == 0) {
            init_id = bound;
            bound += 1;
            code.extend_from_slice(&[(3 << 16) | OP_CONSTANT_NULL, array_id, init_id]);
        } else {
            let mut byte_ids: HashMap<u8, u32> = HashMap::new();
            for b in data {
                if let std::collections::hash_map::Entry::Vacant(slot) = byte_ids.entry(*b) {
                    slot.insert(bound);
                    code.extend_from_slice(&[(4 << 16) | OP_CONSTANT, element, bound, *b as u32]);
                    bound += 1;
                }
            }
            init_id = bound;
            bound += 1;
            code.push(((3 + data.len() as u32) << 16) | OP_CONSTANT_COMPOSITE);
            code.extend_from_slice(&[array_id, init_id]);
            code.extend(data.iter().map(|b| byte_ids[b]));
        }
        inserts.insert(id, (code, init_id));
    }
    let mut out: Vec<u32> = words[..5].to_vec();
    out[3] = bound;
    for i in &instructions {
        let inst = &words[i.0..i.0 + i.1];
        if opcode(i) == OP_VARIABLE {
            if let Some((code, init)) = inserts.get(&ops(i)[1]) {
                out.extend_from_slice(code);
                // [type, id, storage class] + initializer
                out.push((((i.1 + 1) as u32) << 16) | OP_VARIABLE);
                out.extend_from_slice(&inst[1..4]);
                out.push(*init);
                continue;
            }
        }
        out.extend_from_slice(inst);
    }
    Ok(out.iter().flat_map(|w| w.to_le_bytes()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_round_trip() {
        for s in ["", "abc", "abcd", "OpenCL.std"] {
            assert_eq!(literal_string(&encode_string(s)), s);
        }
    }

    #[test]
    fn binaries_without_imports_are_unchanged() {
        let header: Vec<u8> = [0x0723_0203u32, 0x0001_0000, 0, 10, 0]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        assert_eq!(resolve_opencl_std_imports(&header).unwrap(), header);
    }

    #[test]
    fn truncated_binaries_are_errors() {
        let mut words = vec![0x0723_0203u32, 0x0001_0000, 0, 10, 0];
        words.push((5 << 16) | OP_NAME); // claims 5 words, has 1
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert!(resolve_opencl_std_imports(&bytes).is_err());
    }
}
