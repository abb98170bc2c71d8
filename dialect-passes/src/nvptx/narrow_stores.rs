//! Narrow stores of registers a floating-point instruction wrote go through a `mov` in the
//! serialized PTX.
//!
//! LLVM's NVPTX backend stores a float's bytes (a float member of a packed record, a union's
//! or `memcpy`'s bytes of a float) as `st.global.b8 [p], %r3` of the very register that
//! `mul.rn.f32 %r3, ...` wrote, as PTX allows: a register wider than the store is truncated.
//! ptxas instead converts a register a float instruction wrote to the narrow type (18.7 is
//! stored as 0x12, 1000.0 as 0xff; measured on an H200, for `st.b8` and `st.b16` of `f32` and
//! `f64` results). A register that `mov.b32` wrote is truncated, as in nvcc's code, so such a
//! store becomes `{ .reg .b32 %hipmlir_bits0; mov.b32 %hipmlir_bits0, %r3; st.global.b8 [p],
//! %hipmlir_bits0; }`. Done on the text, after LLVM: before it, the `mov` would be folded away.

use std::collections::{HashMap, HashSet};

use crate::nvptx::ptx_text::{instruction, rewrite_lines, Instruction};

/// The type suffixes of PTX's floating-point instructions.
const FLOAT_TYPES: &[&str] = &["f16", "f16x2", "bf16", "bf16x2", "f32", "f64"];
/// The types of stores narrower than a register.
const NARROW_TYPES: &[&str] = &["b8", "b16", "u8", "u16", "s8", "s16"];
/// The name of the registers the rewrite declares.
const BITS_REGISTER: &str = "%hipmlir_bits";

/// One function body's registers: the width of each register prefix (`.reg .b32 %r<9>;`) and
/// the registers a floating-point instruction writes.
#[derive(Default)]
struct Body {
    widths: HashMap<String, u32>,
    float_written: HashSet<String>,
}

/// `ptx` with each narrow store of a float-written register made through a `mov` (see the
/// module docs).
pub fn narrow_float_stores_through_moves(ptx: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(ptx);
    // The body each line belongs to (None outside), by braces (an instruction's `{%r1, %r2}`
    // opens and closes on its line).
    let mut bodies: Vec<Body> = Vec::new();
    let mut body_of_line: Vec<Option<usize>> = Vec::new();
    let mut depth = 0i32;
    for line in text.split('\n') {
        let opens = line.matches('{').count() as i32;
        let closes = line.matches('}').count() as i32;
        if depth == 0 && opens > closes {
            bodies.push(Body::default());
        }
        let inside = depth > 0 || opens > closes;
        depth += opens - closes;
        body_of_line.push(inside.then(|| bodies.len() - 1));
        let Some(body) = bodies.last_mut().filter(|_| inside) else {
            continue;
        };
        if let Some((prefix, width)) = register_declaration(line) {
            body.widths.insert(prefix, width);
        } else if let Some(i) = instruction(line) {
            body.float_written.extend(float_written(&i));
        }
    }
    if bodies.iter().all(|b| b.float_written.is_empty()) {
        return ptx.to_vec();
    }
    rewrite_lines(ptx, |number, line| {
        let body = &bodies[body_of_line.get(number).copied().flatten()?];
        rewrite_store(&instruction(line)?, body)
    })
}

/// A register declaration's prefix and width: `.reg .b32 %r<45>;` is (`%r`, 32).
fn register_declaration(line: &str) -> Option<(String, u32)> {
    let rest = line.trim().strip_prefix(".reg")?.trim_start();
    let (ty, rest) = rest.split_once(char::is_whitespace)?;
    let width = ty
        .trim_start_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .ok()?;
    let prefix = rest.trim().split('<').next()?.trim();
    Some((prefix.to_string(), width))
}

/// The registers a floating-point instruction writes (its first operand): an instruction with
/// a floating-point type, or a `mov` of a floating-point literal (`0f3F800000`).
fn float_written(i: &Instruction) -> Vec<String> {
    let mut tokens = i.opcode.split('.');
    let operation = tokens.next().unwrap_or_default();
    if matches!(operation, "st" | "setp" | "red" | "prefetch") {
        return Vec::new();
    }
    let float_type = tokens.any(|t| FLOAT_TYPES.contains(&t));
    let (destination, sources) = split_first_operand(i.operands);
    let float_literal = sources
        .split(',')
        .any(|s| s.trim().starts_with("0f") || s.trim().starts_with("0d"));
    if !(float_type || operation == "mov" && float_literal) {
        return Vec::new();
    }
    registers(destination)
}

/// A store of a narrow type whose source registers a floating-point instruction wrote, through
/// a `mov` of each; `None` for any other line.
fn rewrite_store(i: &Instruction, body: &Body) -> Option<String> {
    let mut tokens = i.opcode.split('.');
    if tokens.next() != Some("st") || !NARROW_TYPES.contains(&i.opcode.rsplit('.').next()?) {
        return None;
    }
    let (address, sources) = i.operands.split_once("],")?;
    let mut moves = String::new();
    let mut rewritten = sources.to_string();
    for (n, register) in registers(sources)
        .into_iter()
        .filter(|r| body.float_written.contains(r))
        .enumerate()
    {
        let prefix = register.trim_end_matches(|c: char| c.is_ascii_digit());
        let width = *body.widths.get(prefix)?;
        let bits = format!("{BITS_REGISTER}{n}");
        moves.push_str(&format!(
            ".reg .b{width} {bits}; mov.b{width} {bits}, {register}; "
        ));
        rewritten = replace_register(&rewritten, &register, &bits);
    }
    if moves.is_empty() {
        return None;
    }
    Some(format!(
        "{}{{ {moves}{}{} {address}],{rewritten}; }}",
        i.indent, i.guard, i.opcode
    ))
}

/// The first operand (a register or `{a, b}`) and the rest.
fn split_first_operand(operands: &str) -> (&str, &str) {
    let operands = operands.trim_start();
    let end = if operands.starts_with('{') {
        operands.find('}').map_or(operands.len(), |e| e + 1)
    } else {
        operands.find(',').unwrap_or(operands.len())
    };
    (&operands[..end], &operands[end..])
}

/// The registers named in an operand list (`%r3`, `{%r1, %r2}`).
fn registers(operands: &str) -> Vec<String> {
    operands
        .split(|c: char| c == ',' || c == '{' || c == '}' || c.is_whitespace())
        .filter(|t| t.starts_with('%'))
        .map(str::to_string)
        .collect()
}

/// `operands` with the register `from` (a whole token, not `%r3` in `%r31`) renamed `to`.
fn replace_register(operands: &str, from: &str, to: &str) -> String {
    let mut out = String::new();
    let mut rest = operands;
    while let Some(at) = rest.find(from) {
        let after = &rest[at + from.len()..];
        let whole = !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        out.push_str(&rest[..at]);
        out.push_str(if whole { to } else { from });
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(ptx: &str) -> String {
        String::from_utf8(narrow_float_stores_through_moves(ptx.as_bytes())).unwrap()
    }

    #[test]
    fn byte_stores_of_float_results_go_through_moves() {
        let ptx = ".visible .entry k(\n)\n{\n\t.reg .pred \t%p<2>;\n\t.reg .b32 \t%r<9>;\n\
                   \t.reg .b64 \t%rd<9>;\n\
                   \tmul.rn.f32 \t%r3, %r2, 0f3F000000;\n\
                   \tst.global.b8 \t[%rd1+1], %r3;\n\
                   \tshr.u32 \t%r4, %r3, 8;\n\
                   \tst.global.b8 \t[%rd1+2], %r4;\n\
                   @%p1 st.shared.b16 \t[%rd2], %r3;\n\
                   \tmul.f64 \t%rd5, %rd6, 0d3FE0000000000000;\n\
                   \tst.global.v2.b8 \t[%rd3], {%r31, %rd5};\n\
                   \tmov.b32 \t%r7, 0f41959999;\n\
                   \tst.local.u8 \t[%rd4], %r7;\n\
                   \tst.global.b32 \t[%rd1], %r3;\n}\n";
        assert_eq!(
            rewritten(ptx),
            ".visible .entry k(\n)\n{\n\t.reg .pred \t%p<2>;\n\t.reg .b32 \t%r<9>;\n\
             \t.reg .b64 \t%rd<9>;\n\
             \tmul.rn.f32 \t%r3, %r2, 0f3F000000;\n\
             \t{ .reg .b32 %hipmlir_bits0; mov.b32 %hipmlir_bits0, %r3; st.global.b8 [%rd1+1], %hipmlir_bits0; }\n\
             \tshr.u32 \t%r4, %r3, 8;\n\
             \tst.global.b8 \t[%rd1+2], %r4;\n\
             { .reg .b32 %hipmlir_bits0; mov.b32 %hipmlir_bits0, %r3; @%p1 st.shared.b16 [%rd2], %hipmlir_bits0; }\n\
             \tmul.f64 \t%rd5, %rd6, 0d3FE0000000000000;\n\
             \t{ .reg .b64 %hipmlir_bits0; mov.b64 %hipmlir_bits0, %rd5; st.global.v2.b8 [%rd3], {%r31, %hipmlir_bits0}; }\n\
             \tmov.b32 \t%r7, 0f41959999;\n\
             \t{ .reg .b32 %hipmlir_bits0; mov.b32 %hipmlir_bits0, %r7; st.local.u8 [%rd4], %hipmlir_bits0; }\n\
             \tst.global.b32 \t[%rd1], %r3;\n}\n"
        );
    }

    #[test]
    fn registers_are_the_function_s_own() {
        // %r3 is a float result in the first function only.
        let ptx = ".func a()\n{\n\t.reg .b32 \t%r<4>;\n\tadd.f32 \t%r3, %r1, %r2;\n}\n\
                   .func b()\n{\n\t.reg .b32 \t%r<4>;\n\tadd.s32 \t%r3, %r1, %r2;\n\
                   \tst.global.b8 \t[%rd1], %r3;\n}\n";
        assert_eq!(rewritten(ptx), ptx);
    }

    #[test]
    fn ptx_without_float_results_is_kept_byte_for_byte() {
        let latin1 = b".file 1 \"caf\xe9.hip\"\n{\n\tst.global.b8 [%rd1], %r1;\n}\n";
        assert_eq!(narrow_float_stores_through_moves(latin1), latin1);
    }
}
