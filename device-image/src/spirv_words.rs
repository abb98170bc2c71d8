//! SPIR-V at the level of words, for the compiler's post-serialization patches and the runtime's
//! reader alike: the header, the instruction stream, literal strings and the encoding of new
//! instructions. Opcodes and operand enums are the `spirv` crate's (re-exported, so both users
//! name the same version). The runtime reads modules it did not write: nothing here indexes
//! past a slice or panics, whatever the bytes.

pub use spirv;
use spirv::Op;

use crate::ImageError;

pub const MAGIC: u32 = spirv::MAGIC_NUMBER;

/// Magic, version, generator, id bound, schema.
pub const HEADER_WORDS: usize = 5;

/// The index of the id bound in the header.
pub const BOUND_WORD: usize = 3;

/// The extension of `OpConstantFunctionPointerINTEL` and `OpFunctionPointerCallINTEL`, through
/// which hipmlir's recursive calls go.
pub const FUNCTION_POINTERS_EXTENSION: &str = "SPV_INTEL_function_pointers";

fn bad(message: impl Into<String>) -> ImageError {
    ImageError::BadSpirv(message.into())
}

/// Whether `bytes` starts like a SPIR-V module (either byte order).
pub fn looks_like_spirv(bytes: &[u8]) -> bool {
    match bytes.first_chunk::<4>() {
        Some(first) => {
            let w = u32::from_le_bytes(*first);
            w == MAGIC || w.swap_bytes() == MAGIC
        }
        None => false,
    }
}

/// The words of a module in host order (a byte-swapped module is swapped).
pub fn words(bytes: &[u8]) -> Result<Vec<u32>, ImageError> {
    if bytes.len() < HEADER_WORDS * 4 || !bytes.len().is_multiple_of(4) {
        return Err(bad(format!(
            "{} bytes is not a SPIR-V module (needs a 20-byte header and whole words)",
            bytes.len()
        )));
    }
    let le: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if le[0] == MAGIC {
        Ok(le)
    } else if le[0].swap_bytes() == MAGIC {
        Ok(le.into_iter().map(u32::swap_bytes).collect())
    } else {
        Err(bad("no SPIR-V magic number"))
    }
}

/// Words as little-endian bytes.
pub fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Checks the header's version (SPIR-V 1.0 to 1.6, `0x00MMmm00`) and schema (0).
pub fn check_header(version: u32, schema: u32) -> Result<(), ImageError> {
    if version & 0xff00_00ff != 0 || (version >> 16) & 0xff != 1 || (version >> 8) & 0xff > 6 {
        return Err(bad(format!(
            "SPIR-V version word {version:#010x} is not 1.0 to 1.6"
        )));
    }
    if schema != 0 {
        return Err(bad("SPIR-V header schema word is not 0"));
    }
    Ok(())
}

/// An instruction's first word: (word count, opcode).
pub fn split_first_word(word: u32) -> (usize, u32) {
    ((word >> 16) as usize, word & 0xffff)
}

/// One instruction of a module: its words, first word included, and where it starts.
#[derive(Debug, Clone, Copy)]
pub struct Instruction<'a> {
    /// The index of its first word in the module.
    pub offset: usize,
    pub words: &'a [u32],
}

impl<'a> Instruction<'a> {
    /// The raw opcode (also for opcodes the `spirv` crate does not know).
    pub fn opcode(&self) -> u32 {
        self.words.first().map_or(0, |w| w & 0xffff)
    }

    pub fn op(&self) -> Option<Op> {
        Op::from_u32(self.opcode())
    }

    pub fn is(&self, op: Op) -> bool {
        self.opcode() == op as u32
    }

    pub fn operands(&self) -> &'a [u32] {
        self.words.get(1..).unwrap_or_default()
    }

    pub fn operand(&self, i: usize) -> Option<u32> {
        self.operands().get(i).copied()
    }

    /// The literal string starting at operand `i` (empty past the end).
    pub fn string(&self, i: usize) -> String {
        decode_string(self.operands().get(i..).unwrap_or_default())
    }

    /// Whether the literal string at operand `i` is `s` (NUL-terminated; what pads its last
    /// word does not count).
    pub fn string_is(&self, i: usize, s: &str) -> bool {
        let mut have = self
            .operands()
            .get(i..)
            .unwrap_or_default()
            .iter()
            .flat_map(|w| w.to_le_bytes());
        s.bytes().all(|b| have.next() == Some(b)) && have.next() == Some(0)
    }
}

/// The instructions after the header. An instruction whose word count is 0 or runs past the
/// end yields an error and ends the walk.
pub struct Instructions<'a> {
    words: &'a [u32],
    pos: usize,
}

impl<'a> Iterator for Instructions<'a> {
    type Item = Result<Instruction<'a>, ImageError>;

    fn next(&mut self) -> Option<Self::Item> {
        let first = *self.words.get(self.pos)?;
        let (count, _) = split_first_word(first);
        let remaining = self.words.len() - self.pos;
        if count == 0 || count > remaining {
            let pos = self.pos;
            self.pos = self.words.len();
            return Some(Err(bad(format!(
                "malformed SPIR-V: the instruction at word {pos} claims {count} words, \
                 {remaining} remain"
            ))));
        }
        let inst = Instruction {
            offset: self.pos,
            words: &self.words[self.pos..self.pos + count],
        };
        self.pos += count;
        Some(Ok(inst))
    }
}

/// Walks the instructions of a module (`words` starts with the header).
pub fn instructions(words: &[u32]) -> Instructions<'_> {
    Instructions {
        words,
        pos: HEADER_WORDS.min(words.len()),
    }
}

/// Every instruction of a module, or the first malformed one as an error.
pub fn parse(words: &[u32]) -> Result<Vec<Instruction<'_>>, ImageError> {
    if words.len() < HEADER_WORDS || words[0] != MAGIC {
        return Err(bad("not a SPIR-V module"));
    }
    instructions(words).collect()
}

/// Appends instruction `op` with `operands` to `out`; the word count must fit its 16 bits.
pub fn push_instruction(out: &mut Vec<u32>, op: Op, operands: &[u32]) -> Result<(), ImageError> {
    let count = u16::try_from(operands.len() + 1)
        .map_err(|_| bad(format!("{op:?} with {} operands", operands.len())))?;
    out.push((u32::from(count) << 16) | op as u32);
    out.extend_from_slice(operands);
    Ok(())
}

/// A literal string: UTF-8, NUL-terminated, padded with NULs to whole words.
pub fn encode_string(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    bytes.resize(bytes.len().next_multiple_of(4), 0);
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The literal string at the start of `words` (up to its NUL or the end of `words`).
pub fn decode_string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|b| *b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The length in bytes of a module whose size nobody told us (`hipModuleLoadData`), by walking
/// its instructions. Functions come last in a module, so the module ends after the
/// `OpFunctionEnd` that is not followed by another `OpFunction` (or `OpLine`/`OpNoLine`): the
/// walk reads one word past the module's end to see that. `word(i)` returns word `i` as stored
/// (either byte order), or `None` past a known limit.
pub fn module_length(mut word: impl FnMut(usize) -> Option<u32>) -> Result<usize, ImageError> {
    const MAX_WORDS: usize = 1 << 28;
    const FUNCTION: u32 = Op::Function as u32;
    const FUNCTION_END: u32 = Op::FunctionEnd as u32;
    const LINE: u32 = Op::Line as u32;
    const NO_LINE: u32 = Op::NoLine as u32;
    let first = word(0).ok_or_else(|| bad("empty image"))?;
    let swap = if first == MAGIC {
        false
    } else if first.swap_bytes() == MAGIC {
        true
    } else {
        return Err(bad("no SPIR-V magic number"));
    };
    let mut get = |i: usize| word(i).map(|w| if swap { w.swap_bytes() } else { w });
    // Garbage that merely starts with the magic number stops here, before any walk.
    let truncated = || bad("truncated header");
    check_header(get(1).ok_or_else(truncated)?, get(4).ok_or_else(truncated)?)?;
    let mut pos = HEADER_WORDS;
    let mut seen_function = false;
    loop {
        if pos > MAX_WORDS {
            return Err(bad("no end found within 1 GiB"));
        }
        let Some(w) = get(pos) else {
            return if seen_function {
                Ok(pos * 4)
            } else {
                Err(bad(format!("truncated at word {pos}")))
            };
        };
        let (count, opcode) = split_first_word(w);
        if seen_function && !matches!(opcode, FUNCTION | LINE | NO_LINE) {
            return Ok(pos * 4);
        }
        if count == 0 {
            return Err(bad(format!("instruction with word count 0 at word {pos}")));
        }
        if opcode == FUNCTION {
            // Walk the function to its end.
            loop {
                let Some(w) = get(pos) else {
                    return Err(bad(format!("truncated inside a function at word {pos}")));
                };
                let (count, opcode) = split_first_word(w);
                if count == 0 {
                    return Err(bad(format!("instruction with word count 0 at word {pos}")));
                }
                pos += count;
                if pos > MAX_WORDS {
                    return Err(bad("no end found within 1 GiB"));
                }
                if opcode == FUNCTION_END {
                    break;
                }
            }
            seen_function = true;
        } else {
            pos += count;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(insts: &[(Op, Vec<u32>)]) -> Vec<u32> {
        let mut w = vec![MAGIC, 0x0001_0000, 0, 100, 0];
        for (op, ops) in insts {
            push_instruction(&mut w, *op, ops).unwrap();
        }
        w
    }

    #[test]
    fn strings_round_trip() {
        for s in ["", "abc", "abcd", "OpenCL.std"] {
            assert_eq!(decode_string(&encode_string(s)), s);
        }
        let at = |words: &[u32]| Instruction { offset: 0, words }.string_is(0, "OpenCL.std");
        let mut inst = vec![0];
        inst.extend(encode_string("OpenCL.std"));
        assert!(at(&inst));
        inst[3] |= 0xff00_0000; // padding after the NUL
        assert!(at(&inst));
        assert!(!at(&inst[..3])); // no NUL
        assert!(!at(&[0, encode_string("OpenCL.st")[0]]));
    }

    #[test]
    fn walks_instructions() {
        let mut import = vec![1];
        import.extend(encode_string("OpenCL.std"));
        let w = module(&[
            (Op::Capability, vec![6]),
            (Op::ExtInstImport, import),
            (Op::Nop, vec![]),
        ]);
        let insts = parse(&w).unwrap();
        assert_eq!(insts.len(), 3);
        assert_eq!(insts[0].op(), Some(Op::Capability));
        assert_eq!(insts[0].operand(0), Some(6));
        assert!(insts[1].is(Op::ExtInstImport) && insts[1].string_is(1, "OpenCL.std"));
        assert_eq!(insts[1].string(1), "OpenCL.std");
        assert_eq!(insts[2].operands(), &[] as &[u32]);
        assert_eq!(insts[2].offset, 5 + 2 + 5);
    }

    #[test]
    fn malformed_streams_are_errors() {
        let mut w = module(&[(Op::Capability, vec![6])]);
        w.push((5 << 16) | Op::Name as u32); // claims 5 words, has 1
        assert!(parse(&w).is_err());
        assert_eq!(instructions(&w).filter(Result::is_err).count(), 1);
        w.pop();
        w.push(Op::Nop as u32); // word count 0
        assert!(parse(&w).is_err());
        assert!(parse(&[MAGIC, 0]).is_err());
        assert!(instructions(&[]).next().is_none());
        assert!(push_instruction(&mut Vec::new(), Op::Nop, &vec![0; 70_000]).is_err());
    }

    #[test]
    fn any_words_walk_without_panicking() {
        // A cheap deterministic sweep; the runtime's fuzz targets go further.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..2000 {
            let len = (seed % 40) as usize;
            let mut w = Vec::with_capacity(len);
            for _ in 0..len {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                w.push(if seed.is_multiple_of(3) {
                    (seed as u32) & 0x0003_ffff
                } else {
                    seed as u32
                });
            }
            if let Some(first) = w.first_mut() {
                *first = MAGIC;
            }
            for inst in instructions(&w).flatten() {
                let _ = (inst.op(), inst.string(0), inst.string(7), inst.operand(3));
            }
            let _ = module_length(|i| w.get(i).copied());
            let bytes = to_bytes(&w);
            let _ = words(&bytes);
        }
    }

    #[test]
    fn module_length_finds_the_end() {
        let w = module(&[
            (Op::Capability, vec![6]),
            (Op::Function, vec![1, 2, 0, 3]),
            (Op::FunctionEnd, vec![]),
        ]);
        let mut padded = w.clone();
        padded.extend([0xdead_beef, 7, 9]);
        assert_eq!(
            module_length(|i| padded.get(i).copied()).unwrap(),
            w.len() * 4
        );
        assert_eq!(module_length(|i| w.get(i).copied()).unwrap(), w.len() * 4);
        let swapped: Vec<u32> = w.iter().map(|x| x.swap_bytes()).collect();
        assert_eq!(
            module_length(|i| swapped.get(i).copied()).unwrap(),
            w.len() * 4
        );
        assert!(module_length(|i| w[..w.len() - 2].get(i).copied()).is_err());
        assert!(module_length(|i| [1u32, 2, 3].get(i).copied()).is_err());
    }

    #[test]
    fn byte_swapped_words_are_swapped_back() {
        let w = module(&[(Op::Capability, vec![6])]);
        let be: Vec<u8> = w.iter().flat_map(|x| x.to_be_bytes()).collect();
        assert!(looks_like_spirv(&be));
        assert_eq!(words(&be).unwrap(), w);
        assert_eq!(words(&to_bytes(&w)).unwrap(), w);
        assert!(words(&[0u8; 20]).is_err());
        assert!(!looks_like_spirv(&[3, 2]));
    }
}
