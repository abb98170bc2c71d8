//! Post-serialization: calls to imported `__hipmlir_opencl_std_<N>_...` functions become
//! `OpExtInst <OpenCL.std> N` (see [`crate::math`]), and the imports disappear.
//!
//! The binary is a header of 5 words and a stream of instructions, each starting with a word
//! holding (word count << 16 | opcode).

use std::collections::{HashMap, HashSet};

use crate::math::OPENCL_STD_PREFIX;
use crate::LowerError;

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

pub fn resolve_opencl_std_imports(bytes: &[u8]) -> Result<Vec<u8>, LowerError> {
    if !bytes.len().is_multiple_of(4) || bytes.len() < 20 {
        return Err(err("not a SPIR-V binary"));
    }
    let mut words: Vec<u32> = bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();

    // The instruction stream: (first word, word count).
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
