//! The lines of the PTX text LLVM's NVPTX printer writes, for the rewrites made on the text
//! after LLVM (`sign_flips`, `narrow_stores`): an instruction is one line,
//! `[indent][@predicate ]opcode operands;`.

/// One instruction line, split.
pub(crate) struct Instruction<'a> {
    pub indent: &'a str,
    /// `@%p1 ` (with its space) or empty.
    pub guard: &'a str,
    pub opcode: &'a str,
    /// The operands without the final `;`.
    pub operands: &'a str,
}

/// The instruction on `line`, if it holds one.
pub(crate) fn instruction(line: &str) -> Option<Instruction<'_>> {
    let body = line.trim_start();
    let indent = &line[..line.len() - body.len()];
    let (guard, rest) = match body.strip_prefix('@') {
        Some(rest) => {
            let (predicate, _) = rest.split_once(char::is_whitespace)?;
            let guard_len = 1 + predicate.len();
            let after = body[guard_len..].trim_start();
            (&body[..body.len() - after.len()], after)
        }
        None => ("", body),
    };
    let (opcode, operands) = rest.split_once(char::is_whitespace)?;
    let operands = operands.trim().strip_suffix(';')?.trim_end();
    Some(Instruction {
        indent,
        guard,
        opcode,
        operands,
    })
}

/// `ptx` with each line `rewrite` returns a replacement for (given the line's number and its
/// text without the newline) replaced. Lines that are not UTF-8 (a `.file` name) are kept as
/// they are, byte for byte.
pub(crate) fn rewrite_lines(
    ptx: &[u8],
    mut rewrite: impl FnMut(usize, &str) -> Option<String>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(ptx.len());
    for (number, line) in ptx.split_inclusive(|&b| b == b'\n').enumerate() {
        let (text, end) = match line.strip_suffix(b"\n") {
            Some(text) => (text, &b"\n"[..]),
            None => (line, &b""[..]),
        };
        match std::str::from_utf8(text)
            .ok()
            .and_then(|t| rewrite(number, t))
        {
            Some(rewritten) => out.extend_from_slice(rewritten.as_bytes()),
            None => out.extend_from_slice(text),
        }
        out.extend_from_slice(end);
    }
    out
}
