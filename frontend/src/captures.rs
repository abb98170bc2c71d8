//! What a lambda captures, read from clang's capture list of the closure class (libclang does not
//! show it; `Cursor::closure_captures` reads clang's node).

use clang_sys::*;

use crate::clang::{ClosureCapture, Cursor};

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

/// The captured variables, in the order of the closure type's fields: clang's capture list of
/// the closure class (explicit captures and the implicit ones of `[=]`/`[&]`, constants that are
/// not odr-used left out, as C++ says), and a field's type says whether its capture is a copy or
/// a reference. g++ lays out the host's closure object in the same order.
pub fn lambda_captures(lambda: &Cursor) -> Result<Vec<LambdaCapture>, CaptureError> {
    if call_operator(lambda).is_some_and(|op| !op.is_const_method()) {
        return Err((*lambda, "mutable lambda".into()));
    }
    let closure = lambda.ty();
    let captures = closure.declaration().closure_captures().ok_or_else(|| {
        (
            *lambda,
            "lambda whose closure class clang does not describe".into(),
        )
    })?;
    let fields = closure.fields();
    if captures.len() != fields.len() {
        return Err((
            *lambda,
            "lambda whose captures do not match its closure type's fields".into(),
        ));
    }
    captures
        .into_iter()
        .zip(fields)
        .map(|(capture, field)| match capture {
            ClosureCapture::Variable(decl) => Ok(LambdaCapture {
                decl,
                by_ref: field.ty().is_reference(),
            }),
            ClosureCapture::This => Err((*lambda, "lambda capturing 'this'".into())),
            ClosureCapture::InitCapture => Err((*lambda, "lambda with an init-capture".into())),
            ClosureCapture::Other => Err((
                *lambda,
                "lambda capturing a variable-length array bound or a structured binding".into(),
            )),
        })
        .collect()
}
