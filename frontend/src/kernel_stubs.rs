//! A kernel's host stub: the body the host compile gives a kernel in place of its device code.
//!
//! Launches call the kernel like a function after setting the launch configuration (as clang
//! compiles `<<<>>>`), so C++ itself chooses among overloads, deduces template arguments and
//! converts the arguments, and a kernel held in a pointer launches the same way. The stub then
//! launches itself:
//!
//! ```c++
//! template <typename T, int N>
//! __global__ void k(const T* __hipmlir_arg0, T* __hipmlir_arg1) {
//!   ::hipmlir::detail::launch_from_stub(
//!       static_cast<void (*)(by_value_t<decltype(__hipmlir_arg0)>,
//!                            by_value_t<decltype(__hipmlir_arg1)>)>(&::ns::k<T, N>),
//!       "k", __hipmlir_arg0, __hipmlir_arg1);
//! }
//! ```
//!
//! The stub names nothing the user's code can hide: its parameters are renamed (a parameter may
//! bear the kernel's own name, `__global__ void scale(float* scale, int n)`; the body that used
//! the old names is gone, and no default argument may name a parameter), unnamed ones are given
//! names, and a kernel at namespace scope is named from the global namespace. Nor does it name
//! what differs between the uses of a macro that writes it: a kernel whose name is the macro's
//! argument (`#define UNARY(name, op) __global__ void name(float* v) {...}`) is named by the
//! token the definition writes, and the name the runtime may look the kernel up by is
//! `__func__`.

use clang_sys::*;

use crate::clang::{Cursor, Linkage};
use crate::host_edits::{c_string, FileTexts, SourceEdit, UserMacros};
use crate::launches::matching_open;

/// A kernel definition's host stub: its body and the edits of its parameter list.
pub struct Stub {
    pub body: String,
    pub parameter_edits: Vec<SourceEdit>,
}

/// The host stub of a kernel definition (a function or a function template), or `None` when its
/// parameters cannot be named: unnamed or template parameters written by a macro, whose text the
/// rewrite cannot reach. A kernel of internal linkage launches with its translation unit's key
/// (`unit_key`), which tells it apart from other sources' kernels of its name.
pub fn kernel_stub(
    kernel: &Cursor,
    texts: &mut FileTexts,
    macros: &UserMacros,
    unit_key: Option<&str>,
) -> Option<Stub> {
    let children = kernel.children();
    let mut params = Vec::new();
    let mut parameter_edits = Vec::new();
    for (i, p) in children
        .iter()
        .filter(|c| c.kind() == CXCursor_ParmDecl)
        .enumerate()
    {
        let (name, edit) = match parameter_name(p, i, texts) {
            Some((name, edit)) => (name, Some(edit)),
            // Written by a macro: the name as written, when there is one.
            None if !p.spelling().is_empty() => (p.spelling(), None),
            None => return None,
        };
        parameter_edits.extend(edit);
        params.push((name, p.is_pack()));
    }
    let mut template_args = Vec::new();
    for t in children.iter().filter(|c| {
        matches!(
            c.kind(),
            CXCursor_TemplateTypeParameter
                | CXCursor_NonTypeTemplateParameter
                | CXCursor_TemplateTemplateParameter
        )
    }) {
        let name = t.spelling();
        if name.is_empty() {
            return None;
        }
        template_args.push(if t.is_pack() {
            format!("{name}...")
        } else {
            name
        });
    }
    let pack = |pack: bool| if pack { "..." } else { "" };
    let types: Vec<String> = params
        .iter()
        // by_value_t drops what a parameter's type keeps but a function type does not (g++
        // keeps `__restrict` in decltype).
        .map(|(p, is_pack)| {
            format!(
                "::hipmlir::detail::by_value_t<decltype({p})>{}",
                pack(*is_pack)
            )
        })
        .collect();
    let name = match macro_argument_name(kernel, macros) {
        Some(name) => name?,
        None => stub_name(kernel),
    };
    let instance = if kernel.kind() == CXCursor_FunctionTemplate {
        format!("{name}<{}>", template_args.join(", "))
    } else {
        name
    };
    let mut arguments = vec![
        format!("static_cast<void (*)({})>(&{instance})", types.join(", ")),
        "__func__".to_string(),
    ];
    let unit = unit_key.filter(|_| kernel.linkage() == Linkage::Internal);
    if let Some(unit) = unit {
        arguments.push(c_string(unit));
    }
    arguments.extend(
        params
            .iter()
            .map(|(p, is_pack)| format!("{p}{}", pack(*is_pack))),
    );
    Some(Stub {
        body: format!(
            "{{ ::hipmlir::detail::launch_from_{}stub({}); }}",
            if unit.is_some() { "unit_" } else { "" },
            arguments.join(", ")
        ),
        parameter_edits,
    })
}

/// The kernel as its stub names it: from the global namespace when it is declared in namespaces
/// (`::ns::k`), else (a static member) by its name, which the class's scope finds.
fn stub_name(kernel: &Cursor) -> String {
    let mut path = vec![kernel.spelling()];
    let mut scope = kernel.semantic_parent();
    while let Some(s) = scope {
        match s.kind() {
            CXCursor_TranslationUnit => return format!("::{}", path.join("::")),
            // An anonymous namespace's members are found through it.
            CXCursor_Namespace if s.spelling().is_empty() => {}
            CXCursor_Namespace => path.insert(0, s.spelling()),
            CXCursor_LinkageSpec => {}
            _ => return kernel.spelling(),
        }
        scope = s.semantic_parent();
    }
    kernel.spelling()
}

/// A kernel whose body a macro's definition writes while its name is the macro's argument or
/// pasted from tokens (`#define DEF(T) __global__ void T##_fill(T* p) {...}`): the tokens naming
/// it in the definition (the name before the parameter list before the body, `T ## _fill` as
/// written), which each use of the macro expands to its own kernel's name; `Some(None)` when the
/// definition writes it some other way. `None` for every other kernel.
fn macro_argument_name(kernel: &Cursor, macros: &UserMacros) -> Option<Option<String>> {
    let (body, _) = kernel.function_body()?.extent_positions();
    if !body.in_macro_body() {
        return None;
    }
    let name_in_macro = kernel.position().in_macro_body();
    let (file, at) = &body.spelled;
    let Some(def) = macros.containing(file, *at) else {
        return (!name_in_macro).then_some(None);
    };
    let tokens = def.tokens_spelled();
    let Some(last) = tokens
        .iter()
        .position(|t| t.offset == *at && t.text == "{")
        .filter(|&brace| brace > 0 && tokens[brace - 1].text == ")")
        .and_then(|brace| matching_open(&tokens, 0, brace - 1, "(", ")"))
        .filter(|&open| open > 0 && tokens[open - 1].kind == CXToken_Identifier)
        .map(|open| open - 1)
    else {
        return (!name_in_macro).then_some(None);
    };
    // The pasted pieces before it: `a ## b ## c`.
    let mut first = last;
    while first >= 2 && tokens[first - 1].text == "##" {
        first -= 2;
    }
    if first < last {
        let pieces: Vec<&str> = tokens[first..=last]
            .iter()
            .map(|t| t.text.as_str())
            .collect();
        return Some(Some(pieces.join(" ")));
    }
    // A name the definition writes itself names one kernel wherever the macro is used.
    (!name_in_macro).then(|| Some(tokens[last].text.clone()))
}

/// The host stub's name for parameter `i`, and the edit that gives the parameter that name in
/// the definition (its name replaced, or a name inserted where an unnamed parameter's would be);
/// `None` when the parameter is written by a macro.
fn parameter_name(p: &Cursor, i: usize, texts: &mut FileTexts) -> Option<(String, SourceEdit)> {
    let at = p.position();
    if !at.written_plainly() {
        return None;
    }
    let (file, offset) = at.spelled;
    let new_name = format!("__hipmlir_arg{i}");
    let old_name = p.spelling();
    if old_name.is_empty() {
        // clang places an unnamed parameter where its name would be written: at the `,` or `)`
        // that ends it, an abstract declarator's `)` or `[`, or its default argument's `=`.
        let next = p.tokens_in(&file, offset, offset + 1);
        if !matches!(next.first()?.text.as_str(), "," | ")" | "[" | "=") {
            return None;
        }
        return Some((
            new_name.clone(),
            SourceEdit::insert(&file, offset, &format!(" {new_name}")),
        ));
    }
    if texts.get(&file)?.get(offset..offset + old_name.len())? != old_name {
        return None;
    }
    Some((
        new_name.clone(),
        SourceEdit::span(&file, offset, offset + old_name.len(), &new_name),
    ))
}
