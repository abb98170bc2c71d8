//! What a lambda captures, read from the AST: the captures its list names (libclang shows each
//! as a `VariableRef`), then the enclosing function's locals its body uses (the implicit captures
//! of `[=]`/`[&]`, in order of first use), checked one by one against the fields of the closure
//! type. The closure's fields are in that order in clang and in g++ alike, and a field's type
//! says whether its capture is a copy or a reference.

use clang_sys::*;

use crate::clang::{CType, Cursor};

/// A variable a lambda captures.
#[derive(Debug, Clone)]
pub struct LambdaCapture {
    /// The captured variable's canonical declaration.
    pub decl: Cursor,
    pub by_ref: bool,
}

/// Why a lambda's captures cannot be read: where, and the construct.
pub type CaptureError = (Cursor, String);

/// The lambda's call operator: a method, or for a generic lambda a method template.
pub fn call_operator(lambda: &Cursor) -> Option<Cursor> {
    lambda.ty().declaration().children().into_iter().find(|c| {
        matches!(c.kind(), CXCursor_CXXMethod | CXCursor_FunctionTemplate)
            && c.spelling() == "operator()"
    })
}

/// Whether a lambda runs on the device (`__device__`, or `__host__ __device__`), and whether on
/// the host: the attributes of its call operator.
pub fn lambda_targets(lambda: &Cursor) -> (bool, bool) {
    call_operator(lambda).map_or((false, true), |op| {
        let device = op.has_attr(CXCursor_CUDADeviceAttr);
        (device, !device || op.has_attr(CXCursor_CUDAHostAttr))
    })
}

/// The captured variables, in the order of the closure type's fields.
pub fn lambda_captures(lambda: &Cursor) -> Result<Vec<LambdaCapture>, CaptureError> {
    if call_operator(lambda).is_some_and(|op| !op.is_const_method()) {
        return Err((*lambda, "mutable lambda".into()));
    }
    let closure = lambda.ty();
    let fields = closure.fields();
    let explicit = explicit_captures(lambda)?;
    let mut used = Vec::new();
    outer_locals(lambda, lambda, &mut used);
    // A constant a lambda only reads is no capture (it is not odr-used): an integral `const`
    // with a constant initializer, as C++ says; other constants are tried next (`constexpr
    // float`), then none left out, before giving up.
    for leave_out in [Constants::Integral, Constants::None, Constants::All] {
        let mut captured = explicit.clone();
        for decl in &used {
            if !captured.contains(decl) && !leave_out.covers(decl) {
                captured.push(*decl);
            }
        }
        if captured.len() == fields.len()
            && captured
                .iter()
                .zip(&fields)
                .all(|(decl, field)| same_object_type(field.ty(), variable_type(decl)))
        {
            return Ok(captured
                .into_iter()
                .zip(fields)
                .map(|(decl, field)| LambdaCapture {
                    decl,
                    by_ref: field.ty().is_reference(),
                })
                .collect());
        }
    }
    // `this` is no variable: a field pointing to the enclosing class that nothing above names.
    let class = lambda
        .ty()
        .declaration()
        .semantic_parent()
        .filter(|f| f.kind() == CXCursor_CXXMethod && !f.is_static_method())
        .and_then(|f| f.semantic_parent());
    if let Some(class) = class {
        let this = class.ty().canonical().spelling();
        if fields.iter().any(|f| {
            f.ty().canonical().kind() == CXType_Pointer
                && f.ty().canonical().pointee().spelling() == this
        }) {
            return Err((*lambda, "lambda capturing 'this'".into()));
        }
    }
    Err((
        *lambda,
        "lambda whose captures do not match its closure type's fields".into(),
    ))
}

#[derive(Clone, Copy)]
enum Constants {
    Integral,
    None,
    All,
}

impl Constants {
    /// Whether a variable is a constant this policy takes for read only, not captured.
    fn covers(self, decl: &Cursor) -> bool {
        if matches!(self, Constants::None) || decl.kind() != CXCursor_VarDecl {
            return false;
        }
        let ty = decl.ty();
        if !ty.is_const() || ty.is_reference() {
            return false;
        }
        let integral = matches!(
            ty.canonical().kind(),
            CXType_Bool
                | CXType_Char_S
                | CXType_SChar
                | CXType_Char_U
                | CXType_UChar
                | CXType_Short
                | CXType_UShort
                | CXType_Int
                | CXType_UInt
                | CXType_Long
                | CXType_ULong
                | CXType_LongLong
                | CXType_ULongLong
                | CXType_Enum
        );
        (integral || matches!(self, Constants::All))
            && decl
                .var_initializer()
                .is_some_and(|i| i.evaluate().is_some())
    }
}

/// The variables the capture list names, in order (libclang shows `[this]` as nothing).
fn explicit_captures(lambda: &Cursor) -> Result<Vec<Cursor>, CaptureError> {
    let mut out = Vec::new();
    for child in lambda.children() {
        if child.kind() != CXCursor_VariableRef {
            continue;
        }
        let Some(decl) = child.referenced() else {
            continue;
        };
        if declared_inside(&decl, lambda) {
            return Err((*lambda, "lambda with an init-capture".into()));
        }
        out.push(decl.canonical());
    }
    Ok(out)
}

/// The type a captured variable's field holds (a copy of an array parameter is a pointer).
fn variable_type(decl: &Cursor) -> CType {
    if decl.kind() == CXCursor_ParmDecl {
        decl.parameter_type()
    } else {
        decl.ty()
    }
}

/// Whether a field of type `field` can hold (a copy of or a reference to) an object of type
/// `var`: the same type up to references and qualifiers.
fn same_object_type(field: CType, var: CType) -> bool {
    let plain = |t: CType| {
        t.non_reference()
            .canonical()
            .unqualified()
            .spelling()
            .replace("const ", "")
            .replace("volatile ", "")
    };
    plain(field) == plain(var)
}

/// Locals of an enclosing function named inside `c`, a part of `lambda`, in order of first use.
fn outer_locals(c: &Cursor, lambda: &Cursor, out: &mut Vec<Cursor>) {
    for child in c.children() {
        if child.kind() == CXCursor_DeclRefExpr {
            if let Some(decl) = child.referenced() {
                let local = matches!(decl.kind(), CXCursor_VarDecl | CXCursor_ParmDecl)
                    && !decl.has_global_storage();
                let decl = decl.canonical();
                if local && !declared_inside(&decl, lambda) && !out.contains(&decl) {
                    out.push(decl);
                }
            }
        }
        outer_locals(&child, lambda, out);
    }
}

/// Whether a local is declared inside `lambda`: within its source range, or (for a lambda
/// written by a macro, whose range is the macro's) in its call operator.
fn declared_inside(decl: &Cursor, lambda: &Cursor) -> bool {
    let (lambda_file, start, end) = lambda.expansion_offsets();
    let (file, at, _) = decl.expansion_offsets();
    if file == lambda_file && (start..end).contains(&at) && lambda_file == lambda.extent_offsets().0
    {
        return true;
    }
    let closure = lambda.ty().canonical().spelling();
    decl.semantic_parent().is_some_and(|f| {
        f.spelling() == "operator()"
            && f.semantic_parent()
                .is_some_and(|class| class.ty().canonical().spelling() == closure)
    })
}
