//! `--function=NAME`: restricts an MLIR dump to some kernels.
//!
//! MLIR's printer puts each function op on its own line (`func.func`, `gpu.func`, `spirv.func`,
//! `llvm.func`) and closes its body with `}` at the same indentation, so functions are cut out
//! of the text line by line. Everything else (modules, globals, builtins) stays; entry points
//! and execution modes of the kernels left out go with them.

use std::collections::BTreeSet;

use hipmlir_device_image::KernelInfo;

use crate::error::{Error, Result};

const FUNCTION_OPS: &[&str] = &["func.func ", "gpu.func ", "spirv.func ", "llvm.func "];

/// The mangled names of the kernels that `wanted` names (mangled, source spelling, or an
/// unqualified tail of a namespaced name); an error lists the kernels when one matches nothing.
pub fn select_kernels(
    kernels: &[KernelInfo],
    wanted: &[String],
    file: &str,
) -> Result<BTreeSet<String>> {
    let norm = |s: &str| -> String {
        let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        compact.strip_prefix("::").unwrap_or(&compact).to_string()
    };
    let mut out = BTreeSet::new();
    for w in wanted {
        let nw = norm(w);
        let hits: Vec<&KernelInfo> = kernels
            .iter()
            .filter(|k| {
                let source = norm(&k.source_name);
                k.name == *w
                    || source == nw
                    || source.ends_with(&format!("::{nw}"))
                    || source.split('<').next() == Some(nw.as_str())
            })
            .collect();
        if hits.is_empty() {
            let known: Vec<String> = kernels
                .iter()
                .map(|k| format!("{} ({})", k.source_name, k.name))
                .collect();
            return Err(Error::Usage(format!(
                "--function={w} names no kernel of {file} (kernels: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            )));
        }
        out.extend(hits.into_iter().map(|k| k.name.clone()));
    }
    Ok(out)
}

/// The symbol of a function op line (`func.func private @name(...`), if it is one.
fn function_symbol(trimmed: &str) -> Option<&str> {
    FUNCTION_OPS.iter().find(|op| trimmed.starts_with(*op))?;
    let at = trimmed.find('@')?;
    let rest = &trimmed[at + 1..];
    if let Some(quoted) = rest.strip_prefix('"') {
        return quoted.split('"').next();
    }
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || "_$.-".contains(c)))
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

/// The first `@symbol` of a line.
fn first_symbol(trimmed: &str) -> Option<&str> {
    let at = trimmed.find('@')?;
    let rest = &trimmed[at + 1..];
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || "_$.-".contains(c)))
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

/// `text` with every function op removed except the kernels in `keep`.
pub fn filter_functions(text: &str, keep: &BTreeSet<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut skipping: Option<String> = None; // the closing line of the function being dropped
    for line in text.lines() {
        if let Some(close) = &skipping {
            if line == close {
                skipping = None;
            }
            continue;
        }
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        if let Some(symbol) = function_symbol(trimmed) {
            if !keep.contains(symbol) {
                if trimmed.ends_with('{') {
                    skipping = Some(format!("{indent}}}"));
                }
                continue;
            }
        }
        if trimmed.starts_with("spirv.EntryPoint") || trimmed.starts_with("spirv.ExecutionMode") {
            if let Some(symbol) = first_symbol(trimmed) {
                if !keep.contains(symbol) {
                    continue;
                }
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "\
module {
  func.func @_Z1aPf(%arg0: f32) attributes {hipmlir.kernel} {
    %0 = arith.constant 1 : i32
    scf.if %c {
    }
    return
  }
  func.func private @_Z6helperf(%arg0: f32) -> f32 {
    return %arg0 : f32
  }
  func.func private @decl(f32)
  spirv.module @m Physical64 OpenCL {
    spirv.func @_Z1bPf() \"None\" {
      spirv.Return
    }
    spirv.EntryPoint \"Kernel\" @_Z1aPf, @__builtin__X__
    spirv.EntryPoint \"Kernel\" @_Z1bPf
  }
}
";

    fn kernel(name: &str, source: &str) -> KernelInfo {
        KernelInfo {
            name: name.into(),
            source_name: source.into(),
            args: vec![],
            args_size: 0,
            max_threads_per_block: None,
            unit: None,
            memcheck_extents: Vec::new(),
        }
    }

    #[test]
    fn keeps_only_the_chosen_kernels() {
        let keep: BTreeSet<String> = ["_Z1aPf".to_string()].into();
        let out = filter_functions(TEXT, &keep);
        assert!(out.contains("@_Z1aPf(%arg0") && out.contains("scf.if"));
        assert!(!out.contains("helper") && !out.contains("@decl") && !out.contains("_Z1bPf"));
        assert!(out.contains("spirv.EntryPoint \"Kernel\" @_Z1aPf"));
        assert!(out.trim_end().ends_with('}'));
        assert_eq!(out.matches('{').count(), out.matches('}').count());
    }

    #[test]
    fn names_by_mangled_source_or_tail() {
        let ks = vec![
            kernel("_Z1aPf", "a"),
            kernel("_ZN2ns1bEPf", "ns::b"),
            kernel("_Z1tIiEvPf", "t<int>"),
            kernel("_Z1tIfEvPf", "t<float>"),
        ];
        let s = |w: &str| select_kernels(&ks, &[w.to_string()], "f.hip");
        assert_eq!(s("_Z1aPf").unwrap().len(), 1);
        assert_eq!(s("b").unwrap().into_iter().next().unwrap(), "_ZN2ns1bEPf");
        assert_eq!(s("t< int >").unwrap().len(), 1);
        assert_eq!(s("t").unwrap().len(), 2);
        let e = s("zzz").unwrap_err().to_string();
        assert!(
            e.contains("names no kernel of f.hip") && e.contains("ns::b"),
            "{e}"
        );
    }
}
