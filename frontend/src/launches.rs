//! Kernel launch sites in host code: `k<<<grid, block, shmem, stream>>>(args)` and
//! `hipLaunchKernelGGL(k, ...)`.
//!
//! They tell which kernel template instantiations to compile, and how to rewrite the host source:
//! a `<<<>>>` launch becomes a call of hipLaunchKernelGGL's implementation.

use clang_sys::*;

use crate::clang::Cursor;
use crate::host_edits::SourceEdit;

pub struct LaunchSite {
    /// The launched kernel (an instantiation for templates); None when it depends on a template
    /// parameter of the enclosing host code.
    pub kernel: Option<Cursor>,
    pub edit: Option<SourceEdit>,
    /// The launch expression and the host function it is in.
    pub call: Cursor,
    pub host_function: Option<Cursor>,
}

/// Every launch site in the main file of a translation unit; `source` is the main file's text.
pub fn find_launches(root: &Cursor, main_file: &str, source: &str) -> Vec<LaunchSite> {
    let mut out = Vec::new();
    for decl in root.children() {
        if decl.is_in_main_file() {
            visit(&decl, None, main_file, source, &mut out);
        }
    }
    out
}

fn visit(
    c: &Cursor,
    host_function: Option<Cursor>,
    main_file: &str,
    source: &str,
    out: &mut Vec<LaunchSite>,
) {
    if c.kind() == CXCursor_CallExpr {
        if let Some(mut site) = triple_chevron(c, main_file, source).or_else(|| ggl(c)) {
            site.host_function = host_function;
            out.push(site);
        }
    }
    let is_function = matches!(
        c.kind(),
        CXCursor_FunctionDecl
            | CXCursor_CXXMethod
            | CXCursor_FunctionTemplate
            | CXCursor_Constructor
    );
    let host_function = if is_function { Some(*c) } else { host_function };
    for child in c.children() {
        visit(&child, host_function, main_file, source, out);
    }
}

fn strip(e: &Cursor) -> Cursor {
    let mut cur = *e;
    while matches!(cur.kind(), CXCursor_UnexposedExpr | CXCursor_ParenExpr) {
        match cur.children().as_slice() {
            [only] => cur = *only,
            _ => break,
        }
    }
    cur
}

/// The kernel a call or reference names, if it is a concrete (non-dependent) kernel.
fn concrete_kernel(c: &Cursor) -> Option<Cursor> {
    c.referenced()
        .filter(|k| k.kind() == CXCursor_FunctionDecl && crate::codegen::is_kernel(k))
}

fn c_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// `k<<<g, b, shmem, stream>>>(args)`: clang shows it as a call with a
/// `__hipPushCallConfiguration(...)` call among its children.
fn triple_chevron(c: &Cursor, main_file: &str, source: &str) -> Option<LaunchSite> {
    let is_launch = c.children().iter().any(|child| {
        child.kind() == CXCursor_CallExpr && child.spelling() == "__hipPushCallConfiguration"
    });
    if !is_launch {
        return None;
    }
    let kernel = concrete_kernel(c);
    let (file, start, end) = c.extent_offsets();
    // Launches written inside a macro are left as they are (the host compile reports them).
    let edit = (file == main_file && end <= source.len())
        .then(|| rewrite_chevrons(c, start, end, kernel.as_ref(), source))
        .flatten();
    Some(LaunchSite {
        kernel,
        edit,
        call: *c,
        host_function: None,
    })
}

fn rewrite_chevrons(
    c: &Cursor,
    start: usize,
    end: usize,
    kernel: Option<&Cursor>,
    source: &str,
) -> Option<SourceEdit> {
    let tokens = c.tokens_with_offsets();
    let open = tokens.iter().position(|(t, _)| t == "<<<")?;
    let close = tokens.iter().position(|(t, _)| t == ">>>")?;
    let callee = source.get(start..tokens[open].1)?.trim();
    let config_text = source.get(tokens[open].1 + 3..tokens[close].1)?;
    let mut config = split_top_level(config_text);
    if config.len() < 2 || config.len() > 4 {
        return None;
    }
    config.resize(4, "0".to_string());
    // The call's own argument list: everything inside the parentheses after `>>>`.
    let after = source.get(tokens[close].1 + 3..end)?;
    let open_paren = after.find('(')?;
    let close_paren = after.rfind(')')?;
    let args = after.get(open_paren + 1..close_paren)?.trim();
    let name = match kernel {
        Some(k) => k.mangled_name(),
        None => callee.to_string(),
    };
    let mut call = format!(
        "::hipmlir::detail::launch_ggl({}, {callee}, {}, {}, {}, {}",
        c_string(&name),
        config[0].trim(),
        config[1].trim(),
        config[2].trim(),
        config[3].trim()
    );
    if !args.is_empty() {
        call.push_str(", ");
        call.push_str(args);
    }
    call.push(')');
    Some(SourceEdit {
        start,
        end,
        replacement: call,
    })
}

/// Splits a launch configuration at its top-level commas.
fn split_top_level(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut current = String::new();
    for ch in text.chars() {
        match ch {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(ch);
    }
    if !current.trim().is_empty() {
        parts.push(current);
    }
    parts
}

/// `hipLaunchKernelGGL(k, ...)`: the macro expands to a call of `hipmlir::detail::launch_ggl`
/// whose second argument names the kernel. It needs no rewriting: the runtime finds the kernel
/// by its host stub, which every image registers at start-up.
fn ggl(c: &Cursor) -> Option<LaunchSite> {
    let callee = c.referenced()?;
    if callee.spelling() != "launch_ggl" {
        return None;
    }
    let kernel = c
        .arguments()
        .get(1)
        .and_then(|k| concrete_kernel(&strip(k)));
    Some(LaunchSite {
        kernel,
        edit: None,
        call: *c,
        host_function: None,
    })
}
