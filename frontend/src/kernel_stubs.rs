//! A kernel's host stub: the body the host compile gives a kernel in place of its device code.
//!
//! Launches in the user's files call the kernel like a function after setting the launch
//! configuration (as clang compiles `<<<>>>`), so C++ itself chooses among overloads, deduces
//! template arguments and converts the arguments. The stub then launches itself:
//!
//! ```c++
//! template <typename T, int N>
//! __global__ void k(const T* in, T* out) {
//!   ::hipmlir::detail::launch_from_stub(
//!       static_cast<void (*)(by_value_t<decltype(in)>, by_value_t<decltype(out)>)>(&k<T, N>),
//!       "k", in, out);
//! }
//! ```

use clang_sys::*;

use crate::clang::Cursor;

/// The host stub body of a kernel definition (a function or a function template), or `None`
/// when its parameters or template parameters cannot all be named (an unnamed one).
pub fn call_stub(kernel: &Cursor) -> Option<String> {
    let children = kernel.children();
    let mut params = Vec::new();
    for p in children.iter().filter(|c| c.kind() == CXCursor_ParmDecl) {
        let name = p.spelling();
        if name.is_empty() {
            return None;
        }
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
    let name = kernel.spelling();
    let types: Vec<String> = params
        .iter()
        // by_value_t drops what a parameter's type keeps but a function type does not (g++
        // keeps `__restrict` in decltype).
        .map(|(p, pack)| {
            format!(
                "::hipmlir::detail::by_value_t<decltype({p})>{}",
                if *pack { "..." } else { "" }
            )
        })
        .collect();
    let values: Vec<String> = params
        .iter()
        .map(|(p, pack)| format!("{p}{}", if *pack { "..." } else { "" }))
        .collect();
    let instance = if kernel.kind() == CXCursor_FunctionTemplate {
        format!("{name}<{}>", template_args.join(", "))
    } else {
        name.clone()
    };
    let mut arguments = vec![
        format!("static_cast<void (*)({})>(&{instance})", types.join(", ")),
        format!("\"{name}\""),
    ];
    arguments.extend(values);
    Some(format!(
        "{{ ::hipmlir::detail::launch_from_stub({}); }}",
        arguments.join(", ")
    ))
}
