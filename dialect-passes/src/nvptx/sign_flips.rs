//! Half-precision negations in the serialized PTX become the sign-bit flips they stand for.
//!
//! LLVM's `fneg` flips the sign bit and nothing else, NaN payloads included, and InstCombine
//! folds a program's own bit flip (`__half_raw` bits `^ 0x8000`, HIP's `__hneg` on AMD) into
//! one. The NVPTX backend emits `fneg` of `half`/`bfloat` as `neg.f16`/`neg.bf16` (and their
//! `x2` and `.ftz` forms), whose NaN results PTX leaves unspecified: an H200 returns the
//! canonical NaN 0x7fff for 0xfc01, and the `.ftz` forms also flush subnormals. `xor.b16` with
//! the sign bit is what `fneg` means, costs the same, and is what nvcc emits for the bit flip.
//! The rewrite is done on the text, after LLVM: before it, the fold would undo it.

use crate::nvptx::ptx_text::{instruction, rewrite_lines};

/// The sign-bit flip replacing a PTX negation of `opcode`, as its `xor` opcode and mask.
fn sign_flip_of(opcode: &str) -> Option<(&'static str, &'static str)> {
    // Negations of one half (`.f16`, `.bf16`) or a pair (`.f16x2`, `.bf16x2`), with or without
    // `.ftz`: their registers are 16 and 32 bits wide.
    const NEGATIONS: &[(&str, &str, &str)] = &[
        ("neg.f16", "xor.b16", "0x8000"),
        ("neg.ftz.f16", "xor.b16", "0x8000"),
        ("neg.bf16", "xor.b16", "0x8000"),
        ("neg.f16x2", "xor.b32", "0x80008000"),
        ("neg.ftz.f16x2", "xor.b32", "0x80008000"),
        ("neg.bf16x2", "xor.b32", "0x80008000"),
    ];
    NEGATIONS
        .iter()
        .find(|(neg, _, _)| *neg == opcode)
        .map(|&(_, xor, mask)| (xor, mask))
}

/// One PTX line with a half-precision negation rewritten; `None` when it has none.
fn rewrite_line(line: &str) -> Option<String> {
    let i = instruction(line)?;
    let (xor, mask) = sign_flip_of(i.opcode)?;
    let (dst, src) = i.operands.split_once(',')?;
    let (dst, src) = (dst.trim(), src.trim());
    if dst.is_empty() || src.is_empty() || src.contains(',') {
        return None;
    }
    Some(format!(
        "{}{}{xor} \t{dst}, {src}, {mask};",
        i.indent, i.guard
    ))
}

/// `ptx` with every half-precision negation written as a sign-bit flip (see the module docs).
pub fn half_negations_as_sign_flips(ptx: &[u8]) -> Vec<u8> {
    rewrite_lines(ptx, |_, line| rewrite_line(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_negations_become_xors_of_the_sign_bit() {
        let ptx = "\tneg.f16 \t%rs14, %rs1;\n\
                   \tneg.ftz.f16x2 \t%r3, %r2;\n\
                   @%p1 neg.bf16 %rs2, %rs3;\n\
                   \tneg.bf16x2 \t%r7, %r8;\n";
        assert_eq!(
            half_negations_as_sign_flips(ptx.as_bytes()),
            "\txor.b16 \t%rs14, %rs1, 0x8000;\n\
             \txor.b32 \t%r3, %r2, 0x80008000;\n\
             @%p1 xor.b16 \t%rs2, %rs3, 0x8000;\n\
             \txor.b32 \t%r7, %r8, 0x80008000;\n"
                .as_bytes()
        );
    }

    #[test]
    fn other_lines_are_kept_byte_for_byte() {
        let ptx =
            "//\n// comment neg.f16 %rs1, %rs2;\n\tneg.f32 \t%f2, %f1;\n\tneg.s32 %r1, %r2;\n\
                   .visible .entry k(\n\tneg.f16x4 %r1, %r2;\n\tneg.f16 %rs1;\nno newline";
        assert_eq!(half_negations_as_sign_flips(ptx.as_bytes()), ptx.as_bytes());
        let latin1 = b".file 1 \"caf\xe9.hip\"\n\tneg.f16 %rs1, %rs2;\n";
        assert_eq!(
            half_negations_as_sign_flips(latin1),
            b".file 1 \"caf\xe9.hip\"\n\txor.b16 \t%rs1, %rs2, 0x8000;\n"
        );
    }
}
