//! The frontend's one error type: what stopped a source's device compile, by kind, each shown as
//! clang shows its diagnostics (`file:line:col: error: ...`).

use std::fmt;

pub use hipmlir_ir::SourceLoc;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub location: SourceLoc,
    pub message: String,
    pub is_error: bool,
}

impl Diagnostic {
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    fn error(location: &SourceLoc, message: impl fmt::Display) -> Diagnostic {
        Diagnostic {
            location: location.clone(),
            message: message.to_string(),
            is_error: true,
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let severity = if self.is_error { "error" } else { "warning" };
        // One about no place in a file (an unknown argument) reads as clang's do.
        if self.location.file.is_empty() {
            return write!(f, "{severity}: {}", self.message);
        }
        write!(f, "{}: {severity}: {}", self.location, self.message)
    }
}

/// What stopped a source's device compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrontendError {
    /// The source cannot be read, or libclang cannot parse it at all.
    #[error("{}", Diagnostic::error(location, message))]
    Unreadable {
        location: SourceLoc,
        message: String,
    },
    /// clang's diagnostics: the source is not valid HIP. Its errors are shown.
    #[error("{}", errors(.0))]
    Clang(Vec<Diagnostic>),
    /// A construct the frontend does not cover yet: named as such, never silently miscompiled.
    #[error("{}", Diagnostic::error(location, format_args!("unsupported construct in device code: {what}")))]
    Unsupported { location: SourceLoc, what: String },
    /// Code that clang accepts and HIP or hipmlir refuses: a kernel that returns a value, an
    /// initialized `__shared__` variable, nesting beyond hipmlir's limit.
    #[error("{}", Diagnostic::error(location, message))]
    Refused {
        location: SourceLoc,
        message: String,
    },
    /// A bug in hipmlir, at the source location being compiled.
    #[error("{}", Diagnostic::error(location, format_args!("internal compiler error: {message}")))]
    Internal {
        location: SourceLoc,
        message: String,
    },
}

impl FrontendError {
    pub fn unreadable(location: SourceLoc, message: impl Into<String>) -> FrontendError {
        FrontendError::Unreadable {
            location,
            message: message.into(),
        }
    }

    pub fn unsupported(location: SourceLoc, what: impl fmt::Display) -> FrontendError {
        FrontendError::Unsupported {
            location,
            what: what.to_string(),
        }
    }

    pub fn refused(location: SourceLoc, message: impl Into<String>) -> FrontendError {
        FrontendError::Refused {
            location,
            message: message.into(),
        }
    }

    pub fn internal(location: SourceLoc, message: impl fmt::Display) -> FrontendError {
        FrontendError::Internal {
            location,
            message: message.to_string(),
        }
    }

    /// Places an error made where no location was known (a type's, before the cursor that has
    /// it) at `location`.
    pub(crate) fn placed_at(mut self, location: impl Fn() -> SourceLoc) -> FrontendError {
        let unplaced = |l: &mut SourceLoc| {
            if *l == SourceLoc::default() {
                *l = location();
            }
        };
        match &mut self {
            FrontendError::Clang(diagnostics) => diagnostics
                .iter_mut()
                .for_each(|d| unplaced(&mut d.location)),
            FrontendError::Unreadable { location, .. }
            | FrontendError::Unsupported { location, .. }
            | FrontendError::Refused { location, .. }
            | FrontendError::Internal { location, .. } => unplaced(location),
        }
        self
    }
}

/// clang's errors, a line each (its warnings are shown apart, as the compile goes on).
fn errors(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .filter(|d| d.is_error)
        .map(Diagnostic::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

pub type Result<T> = std::result::Result<T, FrontendError>;
