//! The frontend's one error type: diagnostics in clang's format (`file:line:col: error: ...`).

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

/// One or more diagnostics that stopped compilation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontendError {
    pub diagnostics: Vec<Diagnostic>,
}

impl FrontendError {
    pub fn single(location: SourceLoc, message: impl Into<String>) -> FrontendError {
        FrontendError {
            diagnostics: vec![Diagnostic {
                location,
                message: message.into(),
                is_error: true,
            }],
        }
    }

    /// A construct the frontend does not cover yet: named as such, never silently miscompiled.
    pub fn unsupported(location: SourceLoc, what: impl fmt::Display) -> FrontendError {
        FrontendError::single(
            location,
            format!("unsupported construct in device code: {what}"),
        )
    }
}

impl fmt::Display for FrontendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for d in self.diagnostics.iter().filter(|d| d.is_error) {
            if !first {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
            first = false;
        }
        Ok(())
    }
}

impl std::error::Error for FrontendError {}

pub type Result<T> = std::result::Result<T, FrontendError>;
