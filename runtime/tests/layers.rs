//! The runtime's layers import downwards only (see `src/lib.rs`): `api` (the C layer) may use
//! everything; `select` everything but `api`; each backend (`opencl`, `cuda`) the common code but
//! neither `api`, `select` nor the other backend; the common code (everything else, the backend
//! interface included) none of them. This test reads every `crate::` path in `src/` and fails on
//! one that reaches a layer above its file's, or across the backends.

use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layer {
    Api,
    Select,
    OpenCl,
    Cuda,
    Common,
}

/// The layer a file of `src/` belongs to (`lib.rs`, which declares the modules, is none).
fn layer_of_file(relative: &Path) -> Option<Layer> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    Some(match first {
        "lib.rs" => return None,
        "api" => Layer::Api,
        "select.rs" => Layer::Select,
        "opencl" => Layer::OpenCl,
        "cuda" => Layer::Cuda,
        _ => Layer::Common,
    })
}

/// The layer a top-level module name belongs to.
fn layer_of_module(name: &str) -> Layer {
    match name {
        "api" => Layer::Api,
        "select" => Layer::Select,
        "opencl" => Layer::OpenCl,
        "cuda" => Layer::Cuda,
        _ => Layer::Common,
    }
}

/// Whether code of layer `from` may use layer `to`.
fn allowed(from: Layer, to: Layer) -> bool {
    use Layer::*;
    match (from, to) {
        (a, b) if a == b => true,
        (Api, _) => true,
        (Select, Api) => false,
        (Select, _) => true,
        (OpenCl | Cuda, Common) => true,
        _ => false,
    }
}

/// The source without comments (line comments and doc comments; block comments are not used
/// for code here), so paths named in prose do not count.
fn code_of(source: &str) -> String {
    source
        .lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The top-level module names `crate::` paths in `code` reach: `crate::a::b` gives `a`;
/// `crate::{a, b::{c, d}}` gives `a` and `b`.
fn crate_paths(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let preceded_by_ident = rest[..at].chars().next_back().is_some_and(is_ident);
        rest = &rest[at + "crate::".len()..];
        if preceded_by_ident {
            continue;
        }
        let trimmed = rest.trim_start();
        if let Some(group) = trimmed.strip_prefix('{') {
            // The leading name of each top-level item of the group, up to its matching brace.
            let (mut depth, mut leading, mut item) = (1, true, String::new());
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 1 => {
                        names.push(std::mem::take(&mut item));
                        leading = true;
                        continue;
                    }
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
                if depth == 1 && leading {
                    if is_ident(c) {
                        item.push(c);
                    } else if !item.is_empty() {
                        leading = false;
                    }
                }
            }
            names.push(item);
        } else {
            names.push(trimmed.chars().take_while(|&c| is_ident(c)).collect());
        }
    }
    names.retain(|n| !n.is_empty());
    names
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn paths_are_read_from_uses_and_groups() {
    let code = code_of(
        "use crate::backend::{Device, Stream};\n\
         use crate::{opencl, cuda::device as d};\n\
         let x = crate::select::backend(); // crate::api here is prose\n\
         my_crate::api::f();",
    );
    assert_eq!(
        crate_paths(&code),
        ["backend", "opencl", "cuda", "select"].map(String::from)
    );
    assert!(!allowed(Layer::Common, Layer::OpenCl));
    assert!(!allowed(Layer::OpenCl, Layer::Cuda));
    assert!(!allowed(Layer::Cuda, Layer::Api));
    assert!(allowed(Layer::Api, Layer::Select));
    assert!(allowed(Layer::Select, Layer::Cuda));
}

#[test]
fn no_layer_imports_one_above_it_or_the_other_backend() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 20, "found only {} files in src/", files.len());
    let mut violations = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).expect("under src/");
        let Some(from) = layer_of_file(relative) else {
            continue;
        };
        let source = std::fs::read_to_string(file).expect("a source file is readable");
        for name in crate_paths(&code_of(&source)) {
            let to = layer_of_module(&name);
            if !allowed(from, to) {
                violations.push(format!(
                    "{} ({from:?}) uses crate::{name} ({to:?})",
                    relative.display()
                ));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "imports against the layering:\n{}",
        violations.join("\n")
    );
}
