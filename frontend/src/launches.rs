//! Kernel launch sites in host code: `k<<<grid, block, shmem, stream>>>(args)` and
//! `hipLaunchKernelGGL(k, ...)`.
//!
//! They tell which kernel template instantiations to compile, and how to rewrite the host source:
//! a `<<<>>>` launch becomes a call of hipLaunchKernelGGL's implementation.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use clang_sys::*;

use crate::clang::Cursor;
use crate::host_edits::{is_user_code, text_at_same_offsets, SourceEdit};

/// The text of each file launches are found in, read once, indexed by the byte offsets clang
/// reports (the main file's as parsed).
pub struct FileTexts {
    texts: HashMap<String, Option<String>>,
}

impl FileTexts {
    pub fn new(main_file: &str, main_text: String) -> Self {
        FileTexts {
            texts: HashMap::from([(main_file.to_string(), Some(main_text))]),
        }
    }

    pub fn get(&mut self, file: &str) -> Option<&str> {
        self.texts
            .entry(file.to_string())
            .or_insert_with(|| std::fs::read(file).ok().map(|b| text_at_same_offsets(&b)))
            .as_deref()
    }
}

pub struct LaunchSite {
    /// The launched kernel (an instantiation for templates); None when it depends on a template
    /// parameter of the enclosing host code.
    pub kernel: Option<Cursor>,
    /// The rewrite of the launch: its parts before and after the kernel's arguments (their own
    /// text stays, and so do the edits inside it, of device lambdas written there).
    pub edits: Vec<SourceEdit>,
    /// The launch expression and the host function it is in.
    pub call: Cursor,
    pub host_function: Option<Cursor>,
}

/// What the walk of the user's code finds.
pub struct UserCode {
    pub launches: Vec<LaunchSite>,
    /// The kernel template instances host code names as values, not launched there
    /// (`hipLaunchCooperativeKernel(k<16>, ...)`, `(const void*)k<float>`): they are compiled too.
    pub kernel_values: Vec<Cursor>,
    /// Every lambda expression, those of the host template instances walked included: a device
    /// lambda written in host code reaches kernels as a closure object.
    pub lambdas: Vec<Cursor>,
}

/// Every launch site in the user's files of a translation unit (the main file and headers other
/// than the system's and hipmlir's own, `hip_headers`).
pub fn find_launches(root: &Cursor, hip_headers: &Path, texts: &mut FileTexts) -> UserCode {
    let mut finder = Finder {
        hip_headers,
        texts,
        instances: HashSet::new(),
        out: Vec::new(),
        kernel_values: Vec::new(),
        lambdas: Vec::new(),
    };
    for decl in root.children() {
        if is_user_code(&decl, hip_headers) {
            finder.visit(&decl, None, false);
        }
    }
    UserCode {
        launches: finder.out,
        kernel_values: finder.kernel_values,
        lambdas: finder.lambdas,
    }
}

/// Walks host code for launches. The instances of host function templates that the user's code
/// calls are walked too: a launch in a host template (`k<<<g, b>>>(fn, data)` with `fn` a device
/// lambda) names its kernel instance only there. Their launches are rewritten in the template's
/// own text, not again.
struct Finder<'t> {
    hip_headers: &'t Path,
    texts: &'t mut FileTexts,
    /// Host function template instances walked.
    instances: HashSet<Cursor>,
    out: Vec<LaunchSite>,
    kernel_values: Vec<Cursor>,
    lambdas: Vec<Cursor>,
}

impl Finder<'_> {
    fn visit(&mut self, c: &Cursor, host_function: Option<Cursor>, in_instance: bool) {
        if c.kind() == CXCursor_CallExpr {
            if let Some(mut site) = triple_chevron(c, self.texts) {
                site.host_function = host_function;
                if in_instance {
                    site.edits.clear();
                }
                self.out.push(site);
            } else if let Some(instance) =
                host_template_instance(c).filter(|i| is_user_code(i, self.hip_headers))
            {
                if self.instances.insert(instance) {
                    self.visit(&instance, Some(instance), true);
                }
            }
        }
        if c.kind() == CXCursor_LambdaExpr {
            self.lambdas.push(*c);
        }
        if c.kind() == CXCursor_DeclRefExpr {
            if let Some(kernel) = concrete_kernel(c).filter(|k| k.template_of().is_some()) {
                if !self.kernel_values.contains(&kernel) {
                    self.kernel_values.push(kernel);
                }
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
            self.visit(&child, host_function, in_instance);
        }
    }
}

/// The host function template instance a call calls, if it is one (not a kernel or a device
/// function).
fn host_template_instance(call: &Cursor) -> Option<Cursor> {
    let callee = call.referenced()?;
    if !matches!(callee.kind(), CXCursor_FunctionDecl | CXCursor_CXXMethod)
        || crate::codegen::is_kernel(&callee)
        || callee.template_of().is_none()
    {
        return None;
    }
    let device_only =
        callee.has_attr(CXCursor_CUDADeviceAttr) && !callee.has_attr(CXCursor_CUDAHostAttr);
    (!device_only).then(|| callee.definition().unwrap_or(callee))
}

/// The kernel a call or reference names, if it is a concrete (non-dependent) kernel.
fn concrete_kernel(c: &Cursor) -> Option<Cursor> {
    c.referenced()
        .filter(|k| k.kind() == CXCursor_FunctionDecl && crate::codegen::is_kernel(k))
}

/// `s` as a C string literal.
pub(crate) fn c_string(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' | '\t' => out.push(' '),
            _ => out.push(ch),
        }
    }
    out.push('"');
    out
}

/// `void (*)(float *, int)`: a host pointer to the kernel, when every parameter type can be
/// spelled in host code (not a lambda's closure type).
fn kernel_pointer_type(kernel: &Cursor) -> Option<String> {
    let params: Vec<String> = kernel
        .ty()
        .canonical()
        .function_args()
        .iter()
        .map(|t| t.canonical().spelling())
        .collect();
    let spellable =
        |t: &String| !t.contains("lambda") && !t.contains("(anonymous") && !t.contains("(unnamed");
    params
        .iter()
        .all(spellable)
        .then(|| format!("void (*)({})", params.join(", ")))
}

/// `k<<<g, b, shmem, stream>>>(args)`: clang shows it as a call with a
/// `__hipPushCallConfiguration(...)` call among its children.
fn triple_chevron(c: &Cursor, texts: &mut FileTexts) -> Option<LaunchSite> {
    let is_launch = c.children().iter().any(|child| {
        child.kind() == CXCursor_CallExpr && child.spelling() == "__hipPushCallConfiguration"
    });
    if !is_launch {
        return None;
    }
    let kernel = concrete_kernel(c);
    let (file, start, end) = c.extent_offsets();
    // A launch written inside a macro is rewritten in the macro's definition (macro_chevron_edits).
    let in_macro = c.expansion_offsets() != (file.clone(), start, end);
    let edits = if in_macro {
        // hipLaunchKernelGGL, which the device-side parse reads as `<<<>>>`: its invocation in
        // the user's file is rewritten.
        launches_by_call(kernel.as_ref(), c)
            .then(|| rewrite_ggl(c, texts))
            .flatten()
    } else {
        let by_call = launches_by_call(kernel.as_ref(), c);
        texts
            .get(&file)
            .filter(|source| end <= source.len())
            .and_then(|source| {
                rewrite_chevrons(c, &file, start, end, kernel.as_ref(), by_call, source)
            })
    };
    Some(LaunchSite {
        kernel,
        edits: edits.unwrap_or_default(),
        call: *c,
        host_function: None,
    })
}

fn rewrite_chevrons(
    c: &Cursor,
    file: &str,
    start: usize,
    end: usize,
    kernel: Option<&Cursor>,
    by_call: bool,
    source: &str,
) -> Option<Vec<SourceEdit>> {
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
    let after_start = tokens[close].1 + 3;
    let after = source.get(after_start..end)?;
    let args_start = after_start + after.find('(')? + 1;
    let args_end = after_start + after.rfind(')')?;
    let has_args = !source.get(args_start..args_end)?.trim().is_empty();
    let around = |before: String, after: &str| {
        vec![
            SourceEdit {
                file: file.into(),
                start,
                end: args_start,
                replacement: before,
            },
            SourceEdit {
                file: file.into(),
                start: args_end,
                end,
                replacement: after.to_string(),
            },
        ]
    };
    if by_call {
        let (before, after) = call_launch(callee, &config);
        return Some(around(before, after));
    }
    let name = match kernel {
        Some(k) => k.mangled_name(),
        // A name spelled over several lines reads as one.
        None => callee.split_whitespace().collect::<Vec<_>>().join(" "),
    };
    // The kernel clang chose, named exactly: an overloaded or deduced kernel name alone is no
    // value the launch can take.
    let callee = match kernel.and_then(kernel_pointer_type) {
        Some(pointer) => format!("static_cast<{pointer}>({callee})"),
        None => callee.to_string(),
    };
    let before = format!(
        "::hipmlir::detail::launch_ggl({}, {callee}, {}, {}, {}, {}{}",
        c_string(&name),
        config[0].trim(),
        config[1].trim(),
        config[2].trim(),
        config[3].trim(),
        if has_args { ", " } else { "" }
    );
    Some(around(before, ")"))
}

/// The source the frontend appends to request kernel template instances: one host function
/// naming each, which [`requested_instances`] finds again in the parsed file.
pub fn instance_requests(instances: &[String]) -> String {
    if instances.is_empty() {
        return String::new();
    }
    let mut text = String::from("static void __hipmlir_kernel_instances() {\n");
    for instance in instances {
        text.push_str(&format!(
            "  ::hipmlir::detail::{INSTANCE_REQUEST}({instance});\n"
        ));
    }
    text.push_str("}\n");
    text
}

const INSTANCE_REQUEST: &str = "request_kernel_instance";

/// The source the frontend appends for name expressions (hiprtc's): one host function naming
/// each, which [`named_entities`] finds again. Each expression is on a line of its own that a
/// `#line` directive names `<name expression N>`, so that a diagnostic about one names it.
pub fn name_expression_requests(expressions: &[String]) -> String {
    if expressions.is_empty() {
        return String::new();
    }
    let mut text = format!("static void {NAME_EXPRESSIONS_FUNCTION}() {{\n");
    for (i, expression) in expressions.iter().enumerate() {
        // A newline inside the expression would end the `#line`'s effect on it early, and one
        // ending in a `//` comment would swallow the closing parenthesis.
        let expression = expression.replace(['\n', '\r'], " ");
        text.push_str(&format!(
            "  ::hipmlir::detail::{NAME_EXPRESSION}(\n#line 1 \"<name expression {}>\"\n{expression}\n);\n",
            i + 1
        ));
    }
    text.push_str("}\n");
    text
}

const NAME_EXPRESSIONS_FUNCTION: &str = "__hipmlir_name_expressions";
const NAME_EXPRESSION: &str = "name_expression";

/// The declaration each of the `count` name expressions appended by
/// [`name_expression_requests`] names (a function, kernels and template instances among them,
/// or a variable); None where one names none.
pub fn named_entities(root: &Cursor, count: usize) -> Vec<Option<Cursor>> {
    let mut calls = Vec::new();
    for decl in root.children() {
        if decl.kind() == CXCursor_FunctionDecl
            && decl.spelling() == NAME_EXPRESSIONS_FUNCTION
            && decl.is_in_main_file()
        {
            collect_calls(&decl, NAME_EXPRESSION, &mut calls);
        }
    }
    let mut named: Vec<Option<Cursor>> = calls
        .iter()
        .map(|call| call.arguments().first().and_then(named_entity))
        .collect();
    named.resize(count, None);
    named
}

/// The calls of `name` inside `c`, in source order.
fn collect_calls(c: &Cursor, name: &str, out: &mut Vec<Cursor>) {
    for child in c.children() {
        if child.kind() == CXCursor_CallExpr && child.spelling() == name {
            out.push(child);
        } else {
            collect_calls(&child, name, out);
        }
    }
}

/// What an expression names: `f`, `&f`, `ns::f<int>`, `&ns::v`, through the implicit
/// conversions and parentheses around them.
fn named_entity(expression: &Cursor) -> Option<Cursor> {
    let mut e = expression.without_implicit();
    if e.kind() == CXCursor_UnaryOperator && e.unary_operator() == CXUnaryOperator_AddrOf {
        if let [operand] = e.children().as_slice() {
            e = operand.without_implicit();
        }
    }
    let names = matches!(e.kind(), CXCursor_DeclRefExpr | CXCursor_MemberRefExpr);
    e.referenced()
        .filter(|d| names && matches!(d.kind(), CXCursor_FunctionDecl | CXCursor_VarDecl))
}

/// The kernels named by [`instance_requests`] in a parsed file.
pub fn requested_instances(root: &Cursor) -> Vec<Cursor> {
    let mut out = Vec::new();
    for decl in root.children() {
        if decl.kind() == CXCursor_FunctionDecl
            && decl.spelling() == "__hipmlir_kernel_instances"
            && decl.is_in_main_file()
        {
            collect_requests(&decl, &mut out);
        }
    }
    out
}

fn collect_requests(c: &Cursor, out: &mut Vec<Cursor>) {
    for child in c.children() {
        if child.kind() == CXCursor_CallExpr && child.spelling() == INSTANCE_REQUEST {
            out.extend(
                child
                    .arguments()
                    .first()
                    .and_then(|k| concrete_kernel(&k.without_implicit())),
            );
        } else {
            collect_requests(&child, out);
        }
    }
}

/// The qualified name of the kernel template a dependent launch names (`ns::scale`).
pub fn launched_template(call: &Cursor) -> Option<String> {
    launched_template_cursor(call).map(|t| crate::kernel_abi::qualified_name(&t))
}

/// The kernel template a dependent launch names.
fn launched_template_cursor(call: &Cursor) -> Option<Cursor> {
    let mut found = None;
    find_template_ref(call, &mut found);
    found
}

fn find_template_ref(c: &Cursor, found: &mut Option<Cursor>) {
    for child in c.children() {
        if found.is_some() {
            return;
        }
        let candidates = match child.kind() {
            CXCursor_TemplateRef => child.referenced().into_iter().collect(),
            CXCursor_OverloadedDeclRef => child.overloaded_decls(),
            _ => Vec::new(),
        };
        if let Some(t) = candidates
            .iter()
            .find(|t| t.kind() == CXCursor_FunctionTemplate && crate::codegen::is_kernel(t))
        {
            *found = Some(*t);
            return;
        }
        find_template_ref(&child, found);
    }
}

/// Launches written inside macros of the main file: a macro's body may hold only part of a launch
/// (`#define LAUNCH(k) k<<<1, 64>>>`), so only its `<<<` and `>>>` tokens are rewritten, giving
/// `k | ::hipmlir::detail::chevron(1, 64)(args)`, which hipmlir_launch.h turns into a launch.
pub fn macro_chevron_edits(root: &Cursor, hip_headers: &Path) -> Vec<SourceEdit> {
    let mut out = Vec::new();
    for def in root.children() {
        if def.kind() != CXCursor_MacroDefinition || !is_user_code(&def, hip_headers) {
            continue;
        }
        // A `>>>` closes a launch only after a `<<<`: elsewhere it ends nested template argument
        // lists (`std::vector<std::vector<std::vector<int>>>`).
        let mut open = 0usize;
        for (token, offset) in def.tokens_with_offsets() {
            let replacement = match token.as_str() {
                "<<<" => {
                    open += 1;
                    "| ::hipmlir::detail::chevron("
                }
                ">>>" if open > 0 => {
                    open -= 1;
                    ")"
                }
                _ => continue,
            };
            out.push(SourceEdit {
                file: def.location().file.into(),
                start: offset,
                end: offset + 3,
                replacement: replacement.to_string(),
            });
        }
    }
    out
}

/// Splits a launch configuration at its top-level commas.
fn split_top_level(text: &str) -> Vec<String> {
    top_level_parts(text)
        .into_iter()
        .map(|(start, end)| text[start..end].to_string())
        .filter(|part| !part.trim().is_empty())
        .collect()
}

/// The byte ranges of a list's top-level comma-separated parts (an empty list has one, empty).
fn top_level_parts(text: &str) -> Vec<(usize, usize)> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (at, ch) in text.char_indices() {
        match ch {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push((start, at));
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push((start, text.len()));
    parts
}

/// A launch as clang compiles `<<<>>>`: the configuration set, then the kernel called
/// (kernel_stubs), so that overloads, deduction and conversions are C++'s own. The text before
/// the kernel's arguments and after them.
fn call_launch(callee: &str, config: &[String]) -> (String, &'static str) {
    (
        format!(
            "(::hipmlir::detail::configure({}, {}, {}, {}) ? hipSuccess : ({callee}(",
            config[0].trim(),
            config[1].trim(),
            config[2].trim(),
            config[3].trim()
        ),
        "), ::hipmlir::detail::stub_launch_result()))",
    )
}

/// Whether a launch of `kernel` (or, when it depends on a host template's parameters, of the
/// template `call` names) can call the kernel's host stub: the kernel is defined in this
/// translation unit with a stub that launches itself.
fn launches_by_call(kernel: Option<&Cursor>, call: &Cursor) -> bool {
    let pattern = match kernel {
        Some(k) => k.template_of().unwrap_or(*k),
        None => match launched_template_cursor(call) {
            Some(t) => t,
            None => return false,
        },
    };
    pattern
        .definition()
        .is_some_and(|d| crate::kernel_stubs::call_stub(&d).is_some())
}

/// `hipLaunchKernelGGL(k, grid, block, shmem, stream, args...)` written in the user's file (not
/// by a macro of theirs): the macro's invocation becomes a call-based launch. Its arguments are
/// the invocation's top-level comma-separated parts, as the preprocessor splits them; the
/// kernel's arguments keep their text.
fn rewrite_ggl(c: &Cursor, texts: &mut FileTexts) -> Option<Vec<SourceEdit>> {
    let (file, start, end) = c.expansion_offsets();
    let source = texts.get(&file)?;
    let text = source.get(start..end)?;
    let after_name = text.strip_prefix("hipLaunchKernelGGL")?;
    let open = text.len() - after_name.trim_start().len();
    let inner = after_name
        .trim_start()
        .strip_prefix('(')?
        .strip_suffix(')')?;
    let inner_start = start + open + 1;
    let inner_end = inner_start + inner.len();
    let parts = top_level_parts(inner);
    let part = |i: usize| parts.get(i).map(|&(a, b)| inner[a..b].to_string());
    let (kernel, config) = (part(0)?, [part(1)?, part(2)?, part(3)?, part(4)?]);
    let args_start = parts.get(5).map_or(inner_end, |&(a, _)| inner_start + a);
    let (before, after) = call_launch(kernel.trim(), &config);
    Some(vec![
        SourceEdit {
            file: file.clone().into(),
            start,
            end: args_start,
            replacement: before,
        },
        SourceEdit {
            file: file.into(),
            start: inner_end,
            end,
            replacement: after.to_string(),
        },
    ])
}
