//! Response files: an argument `@file` stands for the arguments written in the file, as clang,
//! gcc and hipcc read them. Build tools write them when a command line grows long (CMake does
//! for include folders and objects). The file's text is split as a GNU shell would split it
//! (whitespace between arguments, single and double quotes, backslash escapes), and a response
//! file may name others.

use std::io::Read;

use crate::error::{Error, Result};

/// How deep response files may name each other (a file naming itself would never end).
const MOST_NESTED: usize = 16;
/// The most of a response file read: a device or a huge file is an error, not an endless read.
const MOST_BYTES: u64 = 64 << 20;

/// `args` with every `@file` replaced by the arguments the file holds.
pub fn expand(args: Vec<String>) -> Result<Vec<String>> {
    if !args.iter().any(|a| is_response_file(a)) {
        return Ok(args);
    }
    let mut out = Vec::with_capacity(args.len());
    for arg in args {
        expand_into(arg, 0, &mut out)?;
    }
    Ok(out)
}

fn is_response_file(arg: &str) -> bool {
    arg.len() > 1 && arg.starts_with('@')
}

fn expand_into(arg: String, depth: usize, out: &mut Vec<String>) -> Result<()> {
    if !is_response_file(&arg) {
        out.push(arg);
        return Ok(());
    }
    let path = &arg[1..];
    if depth == MOST_NESTED {
        return Err(Error::Usage(format!(
            "response file '{path}': response files nest more than {MOST_NESTED} deep (one names itself?)"
        )));
    }
    let text = read(path)?;
    for word in
        split(&text).map_err(|why| Error::Usage(format!("response file '{path}': {why}")))?
    {
        expand_into(word, depth + 1, out)?;
    }
    Ok(())
}

fn read(path: &str) -> Result<String> {
    let cannot = |why: String| Error::Usage(format!("cannot read response file '{path}': {why}"));
    let file = std::fs::File::open(path).map_err(|e| cannot(e.to_string()))?;
    let mut bytes = Vec::new();
    file.take(MOST_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| cannot(e.to_string()))?;
    if bytes.len() as u64 > MOST_BYTES {
        return Err(cannot(format!("larger than {} MiB", MOST_BYTES >> 20)));
    }
    String::from_utf8(bytes).map_err(|_| cannot("not UTF-8 text".into()))
}

/// The arguments of a response file's text, split as a GNU shell splits words.
fn split(text: &str) -> std::result::Result<Vec<String>, &'static str> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\\' => match chars.next() {
                // A backslash before a line's end continues the line.
                Some('\n') => {}
                Some(c) => {
                    in_word = true;
                    word.push(c);
                }
                // A backslash at the very end stands for itself.
                None => {
                    in_word = true;
                    word.push('\\');
                }
            },
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("a single quote is not closed"),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        // Inside double quotes a backslash escapes only these.
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("a double quote is not closed"),
                        },
                        Some(c) => word.push(c),
                        None => return Err("a double quote is not closed"),
                    }
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_as_a_gnu_shell_splits_them() {
        let words = split("  -I 'a b' \"c \\\"d\\\" \\x\"\n-DX=1\\ 2 e''f \\\n").unwrap();
        assert_eq!(words, ["-I", "a b", "c \"d\" \\x", "-DX=1 2", "ef"]);
        assert_eq!(split("").unwrap(), Vec::<String>::new());
        assert_eq!(split("''").unwrap(), [""]);
        assert!(split("'open").is_err());
        assert!(split("\"open").is_err());
    }

    #[test]
    fn response_files_expand_in_place_and_nest() {
        let dir = std::env::temp_dir().join(format!("hipmlir-rsp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let inner = dir.join("inner.rsp");
        let outer = dir.join("outer.rsp");
        let looping = dir.join("loop.rsp");
        std::fs::write(&inner, "-DINNER 'b c.hip'").unwrap();
        std::fs::write(&outer, format!("-O2 @{} -c", inner.display())).unwrap();
        std::fs::write(&looping, format!("@{}", looping.display())).unwrap();
        let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let got = expand(args(&[
            "a.hip",
            &format!("@{}", outer.display()),
            "-o",
            "x",
        ]))
        .unwrap();
        assert_eq!(
            got,
            args(&["a.hip", "-O2", "-DINNER", "b c.hip", "-c", "-o", "x"])
        );
        // A lone '@' is an argument like any other.
        assert_eq!(expand(args(&["@"])).unwrap(), args(&["@"]));
        let missing = expand(args(&["@/nonexistent/x.rsp"]))
            .unwrap_err()
            .to_string();
        assert!(
            missing.contains("cannot read response file '/nonexistent/x.rsp'"),
            "{missing}"
        );
        let nested = expand(args(&[&format!("@{}", looping.display())]))
            .unwrap_err()
            .to_string();
        assert!(nested.contains("nest more than"), "{nested}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
