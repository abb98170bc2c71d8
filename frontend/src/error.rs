//! The frontend's one error type: diagnostics in clang's format (`file:line:col: error: ...`).

use std::fmt;
use std::path::Path;

/// A position in a source file; line and column are 1-based, 0 when unknown.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SourceLoc {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

impl SourceLoc {
    pub fn file_only(path: &Path) -> SourceLoc {
        SourceLoc {
            file: path.display().to_string(),
            line: 0,
            column: 0,
        }
    }
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (0, _) => write!(f, "{}", self.file),
            (l, 0) => write!(f, "{}:{l}", self.file),
            (l, c) => write!(f, "{}:{l}:{c}", self.file),
        }
    }
}

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
