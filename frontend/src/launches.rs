//! Kernel launch sites in host code: `k<<<grid, block, shmem, stream>>>(args)` and
//! `hipLaunchKernelGGL(k, ...)`.
//!
//! They tell which kernel template instances to compile, and how to rewrite the host source. A
//! `<<<>>>` launch becomes what clang makes of it: the configuration is set, then the kernel is
//! called like a function (its host stub launches itself), so overloads, deduced template
//! arguments and argument conversions are C++'s own, and a kernel held in a pointer, a parameter,
//! a template parameter or a member launches the same way:
//!
//! ```c++
//! k<<<grid, block>>>(a, b)   =>   (::hipmlir::detail::configure(grid, block), k(a, b))
//! ```
//!
//! Every piece is found from clang's parse: the callee's extent, the configuration call's
//! (`<<<` to `>>>`) and the `)` closing the arguments, each where it is spelled (in the file, or
//! in the definition of a macro that writes it). Only the callee, the `<<<` and `>>>` tokens and
//! that `)` are replaced, so comments and preprocessor conditionals inside the configuration and
//! the arguments stay as written. The callee moves after the configuration (as its tokens), so
//! that the configuration is evaluated first, as in HIP. Inside a macro's definition, where clang
//! records no position for a macro argument's tokens, the callee is the expression the
//! definition writes before its `<<<`. `hipLaunchKernelGGL` is left to its macro, which expands to
//! the same launch in the host compile (hipmlir_launch.h).

use std::collections::HashSet;
use std::path::Path;

use clang_sys::*;

use crate::clang::{Cursor, KernelCallParts, Position, Token};
use crate::host_edits::{is_user_code, SourceEdit, UserMacros};

pub struct LaunchSite {
    /// The launched kernel (an instantiation for templates); None when it depends on a template
    /// parameter of the enclosing host code or is a value (a pointer, a parameter).
    pub kernel: Option<Cursor>,
    /// The rewrite of the launch (see the module's comment).
    pub edits: Vec<SourceEdit>,
    /// The launch expression and the host function it is in.
    pub call: Cursor,
    pub host_function: Option<Cursor>,
}

/// What the walk of the user's code finds.
pub struct UserCode {
    pub launches: Vec<LaunchSite>,
    /// The kernels host code names as values, not launched there (`hipLaunchCooperativeKernel(k<16>,
    /// ...)`, `(const void*)k<float>`, `void (*f)(float*) = k;`, `launch(k, ...)`, a header's
    /// kernels among them): they are compiled too.
    pub kernel_values: Vec<Cursor>,
    /// Every lambda expression, those of the host template instances walked included: a device
    /// lambda written in host code reaches kernels as a closure object.
    pub lambdas: Vec<Cursor>,
}

/// Every launch site in the user's files of a translation unit (the main file and headers other
/// than the system's and hipmlir's own, `hip_headers`).
pub fn find_launches(root: &Cursor, hip_headers: &Path) -> UserCode {
    let mut finder = Finder {
        hip_headers,
        macros: UserMacros::of(root, hip_headers),
        instances: HashSet::new(),
        out: Vec::new(),
        kernel_values: Vec::new(),
        lambdas: Vec::new(),
    };
    for decl in root.children() {
        if decl.kind() != CXCursor_MacroDefinition && is_user_code(&decl, hip_headers) {
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
    /// The user's macro definitions, where a launch written by a macro is rewritten.
    macros: UserMacros,
    /// Host function template instances walked.
    instances: HashSet<Cursor>,
    out: Vec<LaunchSite>,
    kernel_values: Vec<Cursor>,
    lambdas: Vec<Cursor>,
}

impl Finder<'_> {
    fn visit(&mut self, c: &Cursor, host_function: Option<Cursor>, in_instance: bool) {
        if let Some(parts) = c.kernel_call_parts() {
            let edits = if in_instance {
                Vec::new()
            } else {
                self.launch_edits(c, &parts)
            };
            self.out.push(LaunchSite {
                kernel: concrete_kernel(c).or_else(|| kernel_through_parens(&parts.callee)),
                edits,
                call: *c,
                host_function,
            });
        } else if c.kind() == CXCursor_CallExpr {
            if let Some(instance) =
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
            self.kernel_value(c);
        }
        let is_function = matches!(
            c.kind(),
            CXCursor_FunctionDecl
                | CXCursor_CXXMethod
                | CXCursor_FunctionTemplate
                | CXCursor_Constructor
        );
        let host_function = if is_function { Some(*c) } else { host_function };
        let children = c.children();
        if c.kind() == CXCursor_InitListExpr && children.iter().any(names_overload_set) {
            // libclang shows a braced list as written, where a kernel template instance given
            // to a function pointer member (`Filler<float>{fill<float>}`) is still an overload
            // set; clang's semantic form names the instance.
            for item in c
                .init_list_items()
                .map(|(items, _)| items)
                .unwrap_or_default()
            {
                self.kernel_values_in(&item);
            }
        }
        for child in children {
            self.visit(&child, host_function, in_instance);
        }
    }

    fn kernel_value(&mut self, reference: &Cursor) {
        if let Some(kernel) = concrete_kernel(reference) {
            if !self.kernel_values.contains(&kernel) {
                self.kernel_values.push(kernel);
            }
        }
    }

    fn kernel_values_in(&mut self, c: &Cursor) {
        if c.kind() == CXCursor_DeclRefExpr {
            self.kernel_value(c);
        }
        for child in c.children() {
            self.kernel_values_in(&child);
        }
    }

    /// The edits that turn a `<<<>>>` launch into a call-based one (see the module's comment).
    /// None are needed for the launches hipLaunchKernelGGL writes (its `<<<` is spelled in
    /// hipmlir's headers), and none are made for a launch whose pieces are scattered in a way
    /// these rules do not cover (the host compiler then reports the `<<<`).
    fn launch_edits(&self, call: &Cursor, parts: &KernelCallParts) -> Vec<SourceEdit> {
        let (open, close) = parts.config.extent_positions();
        if Path::new(&open.spelled.0).starts_with(self.hip_headers) {
            return Vec::new();
        }
        let pieces = if open.in_macro_body() {
            self.macro_launch(call, parts, &open)
        } else {
            file_launch(call, parts, &open, &close)
        };
        let end = self.closing_edit(call, &parts.rparen);
        match (pieces, end) {
            (Some(mut edits), Some(end)) => {
                edits.push(end);
                edits
            }
            _ => Vec::new(),
        }
    }

    /// The `)` closing the kernel's arguments closes the rewritten launch too, where it is
    /// spelled: in the file, or in the definition of the macro that writes it.
    fn closing_edit(&self, call: &Cursor, rparen: &Position) -> Option<SourceEdit> {
        let (file, at) = &rparen.spelled;
        if Path::new(file).starts_with(self.hip_headers) {
            return None;
        }
        let token = call.tokens_in(file, *at, at + 1);
        (token.first()?.text == ")").then(|| SourceEdit::span(file, *at, at + 1, "))"))
    }

    /// A launch whose `<<<` is written by one of the user's macros: the macro's definition is
    /// rewritten, and the parts of the launch written where the macro is used (the callee before
    /// `#define CONFIG <<<1, 64>>>`, the arguments after `#define KCALL k<<<1, 64>>>`) in place.
    fn macro_launch(
        &self,
        call: &Cursor,
        parts: &KernelCallParts,
        open: &Position,
    ) -> Option<Vec<SourceEdit>> {
        let (file, at) = &open.spelled;
        let def = self.macros.containing(file, *at)?;
        let tokens = def.tokens_spelled();
        let body = body_start(def, &tokens)?;
        let lt = tokens
            .iter()
            .position(|t| t.offset == *at && t.text == "<<<")?;
        let gt = matching_close(&tokens, lt, "<<<", ">>>")?;
        let edit = |token: &Token, replacement: &str| {
            SourceEdit::span(
                file,
                token.offset,
                token.offset + token.text.len(),
                replacement,
            )
        };
        let (callee_start, callee_end) = parts.callee.extent_positions();
        // The callee: spelled in the definition, else (a macro parameter) the expression the
        // definition writes before `<<<`, else (`<<<` begins the definition) where the macro is
        // used.
        let spelled_here = callee_start.in_macro_body()
            && callee_start.spelled.0 == *file
            && callee_start.spelled.1 < *at;
        let in_body = if spelled_here {
            tokens[body..lt]
                .iter()
                .position(|t| t.offset == callee_start.spelled.1)
                .map(|i| body + i)
        } else {
            postfix_expression_start(&tokens, body, lt)
        };
        match in_body {
            Some(start) => Some(vec![
                SourceEdit::span(file, tokens[start].offset, tokens[lt].offset, "("),
                edit(&tokens[lt], CONFIGURE),
                edit(&tokens[gt], &format!("), {}", joined(&tokens[start..lt]))),
            ]),
            // `k CONFIG(args)`: only the configuration is the macro's.
            None if lt == body && gt + 1 == tokens.len() => {
                let (callee_file, start) = callee_start.in_file.clone();
                let (use_file, use_start) = open.in_file.clone();
                let (_, used_end) = parts.config.extent_positions().1.in_file;
                if callee_start.in_macro_body()
                    || callee_end.in_macro_body()
                    || callee_file != use_file
                    || start >= use_start
                {
                    return None;
                }
                let text = joined(&call.tokens_in(&callee_file, start, use_start));
                Some(vec![
                    SourceEdit::span(&callee_file, start, use_start, "("),
                    SourceEdit::insert(&use_file, used_end, &format!(" {text}")),
                    edit(&tokens[lt], CONFIGURE),
                    edit(&tokens[gt], "),"),
                ])
            }
            // The callee cannot be moved: launched as a value, `k | chevron(config)(args)`, with
            // the closing `)` doubled like any other's.
            None => Some(vec![
                edit(&tokens[lt], "| (::hipmlir::detail::chevron("),
                edit(&tokens[gt], ")"),
            ]),
        }
    }
}

/// Whether one of the user's macros writes a `<<<` or device code (rewritten where it is
/// defined when a launch or a kernel, device function or variable uses it: the host edits reach
/// a macro's definition only where it is parsed with the source, not from a precompiled header).
pub fn defines_device_code_macro(root: &Cursor, hip_headers: &Path) -> bool {
    const WRITES_DEVICE_CODE: [&str; 5] = [
        "<<<",
        "__global__",
        "__device__",
        "__shared__",
        "__constant__",
    ];
    UserMacros::of(root, hip_headers).iter().any(|d| {
        d.tokens_spelled()
            .iter()
            .any(|t| WRITES_DEVICE_CODE.contains(&t.text.as_str()))
    })
}

/// `::hipmlir::detail::configure(`, which the `<<<` of a launch becomes.
const CONFIGURE: &str = "::hipmlir::detail::configure(";

/// A launch written in the file (its `<<<` and `>>>` not by a macro; the callee, the
/// configuration and the arguments may be macro invocations or a macro's arguments):
/// `callee <<< config >>> (args)` becomes `( configure( config ), callee (args))` but for the
/// closing `)` ([`Finder::closing_edit`]).
fn file_launch(
    call: &Cursor,
    parts: &KernelCallParts,
    open: &Position,
    close: &Position,
) -> Option<Vec<SourceEdit>> {
    let (file, lt) = open.in_file.clone();
    let (start, _) = parts.callee.extent_positions();
    let (callee_file, callee_start) = start.in_file;
    let (close_file, close_end) = close.in_file.clone();
    if close.in_macro_body()
        || callee_file != file
        || close_file != file
        || callee_start >= lt
        || close_end < lt + 6
    {
        return None;
    }
    let config = call.tokens_in(&file, lt, close_end);
    let gt = config.last().filter(|t| t.text == ">>>")?.offset;
    let callee_text = joined(&call.tokens_in(&file, callee_start, lt));
    Some(vec![
        SourceEdit::span(&file, callee_start, lt, "("),
        SourceEdit::span(&file, lt, lt + 3, CONFIGURE),
        SourceEdit::span(&file, gt, gt + 3, &format!("), {callee_text}")),
    ])
}

/// Tokens as one line of text (a callee moved after the configuration).
fn joined(tokens: &[Token]) -> String {
    tokens
        .iter()
        .map(|t| t.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The index of the first token of a macro definition's body (after its name, and its
/// parameter list for a function-like macro).
fn body_start(def: &Cursor, tokens: &[Token]) -> Option<usize> {
    if !def.is_function_like_macro() {
        return Some(1);
    }
    let close = matching_close(tokens, 1, "(", ")")?;
    Some(close + 1)
}

/// The index of the token that closes the bracket opened at `open` (`(`, `[`, `<<<`).
fn matching_close(tokens: &[Token], open: usize, opening: &str, closing: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, t) in tokens.iter().enumerate().skip(open) {
        if t.text == opening {
            depth += 1;
        } else if t.text == closing {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// The index of the token opening the bracket closed at `close`, looking back no further than
/// `floor`.
pub(crate) fn matching_open(
    tokens: &[Token],
    floor: usize,
    close: usize,
    opening: &str,
    closing: &str,
) -> Option<usize> {
    let mut depth = 0usize;
    for i in (floor..=close).rev() {
        if tokens[i].text == closing {
            depth += 1;
        } else if tokens[i].text == opening {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// Where the postfix expression that ends just before token `end` of a macro's body begins
/// (a macro's body is tokens, which clang parses only where the macro is used): names joined by
/// `::`, `.` and `->`, with template arguments, subscripts and calls, or a parenthesized
/// expression (`k`, `ns::k<T>`, `table[i]`, `obj.member`, `(k)`). None when the tokens before
/// `end` are no such expression.
fn postfix_expression_start(tokens: &[Token], floor: usize, end: usize) -> Option<usize> {
    let mut i = end;
    let mut need_operand = true;
    let mut start = None;
    while i > floor {
        let t = &tokens[i - 1];
        if need_operand {
            match t.text.as_str() {
                ")" => {
                    let open = matching_open(tokens, floor, i - 1, "(", ")")?;
                    // `f(x)` (a call: the function comes next) or `(e)` (a whole operand).
                    let called = open > floor && is_operand_end(&tokens[open - 1]);
                    i = open;
                    need_operand = called;
                }
                "]" => i = matching_open(tokens, floor, i - 1, "[", "]")?,
                ">" => {
                    let open = matching_open(tokens, floor, i - 1, "<", ">")?;
                    // Template arguments follow a name.
                    if open == floor || !is_name(&tokens[open - 1]) {
                        return None;
                    }
                    i = open;
                }
                _ if is_name(t) => {
                    i -= 1;
                    need_operand = false;
                }
                _ => return start,
            }
            if !need_operand {
                start = Some(i);
            }
        } else {
            match t.text.as_str() {
                "::" | "." | "->" => {
                    i -= 1;
                    need_operand = true;
                    // `::k`: a global qualifier begins the expression.
                    if t.text == "::" && (i == floor || !is_name(&tokens[i - 1])) {
                        return Some(i);
                    }
                }
                "template" => i -= 1,
                _ => return start,
            }
        }
    }
    if need_operand {
        None
    } else {
        start
    }
}

/// Whether an element of a braced list names an overload set (`k<float>`, `&k<float>`,
/// `(k<float>)`) as written.
fn names_overload_set(element: &Cursor) -> bool {
    match element.kind() {
        CXCursor_OverloadedDeclRef => true,
        // An unresolved name shows as a reference holding the overload set.
        CXCursor_DeclRefExpr
        | CXCursor_UnaryOperator
        | CXCursor_ParenExpr
        | CXCursor_UnexposedExpr => element.children().iter().any(names_overload_set),
        _ => false,
    }
}

/// Whether a token is a name (an identifier, or `this`).
fn is_name(t: &Token) -> bool {
    t.kind == CXToken_Identifier || (t.kind == CXToken_Keyword && t.text == "this")
}

/// Whether a token can end an operand (before a call's parentheses).
fn is_operand_end(t: &Token) -> bool {
    is_name(t) || matches!(t.text.as_str(), ")" | "]" | ">")
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

/// The kernel a call or reference names, if it is a concrete (non-dependent) kernel: a function
/// or a static member function.
fn concrete_kernel(c: &Cursor) -> Option<Cursor> {
    c.referenced().filter(|k| {
        matches!(k.kind(), CXCursor_FunctionDecl | CXCursor_CXXMethod)
            && crate::codegen::is_kernel(k)
    })
}

/// The kernel a launch's callee names through parentheses (`(k)<<<...>>>`, as
/// hipLaunchKernelGGL writes it, so that `HIP_KERNEL_NAME(k<A, B>)` stays one argument).
fn kernel_through_parens(callee: &Cursor) -> Option<Cursor> {
    concrete_kernel(callee).or_else(|| {
        let children = callee.children();
        match (callee.kind(), children.as_slice()) {
            (CXCursor_ParenExpr | CXCursor_UnexposedExpr, [inner]) => kernel_through_parens(inner),
            _ => None,
        }
    })
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
    let mut found = None;
    find_template_ref(call, &mut found);
    found.map(|t| crate::kernel_abi::qualified_name(&t))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<Token> {
        let mut offset = 0;
        text.split_whitespace()
            .map(|t| {
                let kind = if t
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
                {
                    if matches!(t, "return" | "this" | "template" | "void") {
                        CXToken_Keyword
                    } else {
                        CXToken_Identifier
                    }
                } else {
                    CXToken_Punctuation
                };
                offset += 1;
                Token {
                    text: t.to_string(),
                    kind,
                    offset,
                }
            })
            .collect()
    }

    /// The callee found before the `<<<` of a macro body written as spaced tokens.
    fn callee(body: &str) -> Option<String> {
        let t = tokens(body);
        let lt = t.iter().position(|t| t.text == "<<<")?;
        postfix_expression_start(&t, 0, lt).map(|s| joined(&t[s..lt]))
    }

    #[test]
    fn callees_before_a_macro_bodys_launch() {
        assert_eq!(callee("k <<< n >>> ( )").as_deref(), Some("k"));
        assert_eq!(
            callee("ns :: k < T , 4 > <<< n >>>").as_deref(),
            Some("ns :: k < T , 4 >")
        );
        assert_eq!(callee(":: k <<< n >>>").as_deref(), Some(":: k"));
        assert_eq!(callee("( void ) k <<< n >>>").as_deref(), Some("k"));
        assert_eq!(callee("return ( k ) <<< n >>>").as_deref(), Some("( k )"));
        assert_eq!(
            callee("x = table [ i ] <<< n >>>").as_deref(),
            Some("table [ i ]")
        );
        assert_eq!(
            callee("s . kernels [ 0 ] <<< n >>>").as_deref(),
            Some("s . kernels [ 0 ]")
        );
        assert_eq!(callee("p -> k <<< n >>>").as_deref(), Some("p -> k"));
        assert_eq!(
            callee("pick ( i ) <<< n >>>").as_deref(),
            Some("pick ( i )")
        );
        assert_eq!(callee("<<< n >>>"), None);
        assert_eq!(callee("a + <<< n >>>"), None);
    }
}
