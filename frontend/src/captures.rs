//! What a lambda captures, read from clang's capture list of the closure class (libclang does not
//! show it; `Cursor::closure_captures` reads clang's node).

use clang_sys::*;

use crate::clang::{ClosureCapture, Cursor};

/// What a lambda captures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Captured {
    /// A local variable or parameter of an enclosing function (its canonical declaration).
    Variable(Cursor),
    /// `[y = expr]`: the variable the capture declares (its canonical declaration; the
    /// initializer is evaluated where the lambda is created).
    Init(Cursor),
    /// `this` (or `*this`): the enclosing member function's object.
    This,
}

/// One capture of a lambda.
#[derive(Debug, Clone)]
pub struct LambdaCapture {
    pub captured: Captured,
    /// Captured by reference (the closure holds an address).
    pub by_ref: bool,
}

impl LambdaCapture {
    /// The variable the capture names inside the lambda: the captured one, or the one an
    /// init-capture declares; None for `this`.
    pub fn decl(&self) -> Option<Cursor> {
        match self.captured {
            Captured::Variable(d) | Captured::Init(d) => Some(d),
            Captured::This => None,
        }
    }
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
        .map(|(capture, field)| {
            let captured = match capture {
                ClosureCapture::Variable(decl) => Captured::Variable(decl),
                ClosureCapture::InitCapture(decl) => Captured::Init(decl),
                // A structured binding names an object (see `Cursor::binding`), held as a
                // variable's is.
                ClosureCapture::Binding(decl) => Captured::Variable(decl),
                ClosureCapture::This => Captured::This,
                ClosureCapture::Other => {
                    return Err((
                        *lambda,
                        "lambda capturing a variable-length array bound".into(),
                    ))
                }
            };
            // `[this]` holds a pointer (the object by reference); `[*this]` a copy.
            let by_ref = field.ty().is_reference()
                || (captured == Captured::This && field.ty().canonical().kind() == CXType_Pointer);
            Ok(LambdaCapture { captured, by_ref })
        })
        .collect()
}

/// Whether a lambda is `mutable`: its call operator may change its by-copy captures, which are
/// then the closure object's own state across calls.
pub fn is_mutable(lambda: &Cursor) -> bool {
    call_operator(lambda).is_some_and(|op| !op.is_const_method())
}
