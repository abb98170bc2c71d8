//! What can go wrong between the frontend's module and the device binary, with typed source
//! locations ([`SourceLoc`]) that the driver renders; MLIR's own diagnostics arrive as
//! [`Diagnostic`]s, their locations read through MLIR's C API.

use std::fmt;

use hipmlir_ir::rewrite::RewriteError;
use hipmlir_ir::{source_location, SourceLoc};
use hipmlir_outliner::OutlineError;
use melior::ir::Location;

/// One diagnostic: where (when a source position is known) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub location: Option<SourceLoc>,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Some(location) => write!(f, "{location}: {}", self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LowerError {
    /// A construct of the program that hipmlir cannot compile, at its source location.
    #[error(
        "{}: error: unsupported construct in device code: {message}",
        or_unknown(location)
    )]
    Unsupported {
        location: Option<SourceLoc>,
        message: String,
    },
    /// A pass failed; `stage` says which (`running convert-gpu-to-spirv`), `diagnostics` what
    /// MLIR (or the pass) said.
    #[error("{stage}: {}", lines(diagnostics))]
    Pass {
        stage: String,
        diagnostics: Vec<Diagnostic>,
    },
    /// A pass pipeline that does not parse, or names a pass nobody registered.
    #[error("{0}")]
    Pipeline(String),
    /// Symbols that do not link (a clang-style diagnostic).
    #[error("{0}")]
    Link(String),
    /// A bug of hipmlir's: `location` is the source location of the operation being lowered,
    /// None where no operation is to blame.
    #[error("{}internal compiler error: {message}", location.as_ref().map(|l| format!("{l}: ")).unwrap_or_default())]
    Internal {
        location: Option<SourceLoc>,
        message: String,
    },
}

fn or_unknown(location: &Option<SourceLoc>) -> String {
    location
        .as_ref()
        .map_or_else(|| "<unknown>".to_string(), SourceLoc::to_string)
}

fn lines(diagnostics: &[Diagnostic]) -> String {
    let lines: Vec<String> = diagnostics.iter().map(Diagnostic::to_string).collect();
    lines.join("\n")
}

impl LowerError {
    /// An internal error at the operation whose location is `loc`.
    pub(crate) fn internal(loc: Location, message: impl fmt::Display) -> Self {
        LowerError::Internal {
            location: source_location(loc),
            message: message.to_string(),
        }
    }

    /// An internal error of the module as a whole.
    pub(crate) fn bug(message: impl fmt::Display) -> Self {
        LowerError::Internal {
            location: None,
            message: message.to_string(),
        }
    }

    /// A failure of a whole pass (not of one operation), `stage` naming what it was doing.
    pub(crate) fn pass_failed(stage: impl Into<String>, message: impl fmt::Display) -> Self {
        LowerError::Pass {
            stage: stage.into(),
            diagnostics: vec![Diagnostic {
                location: None,
                message: message.to_string(),
            }],
        }
    }

    /// A construct the target cannot compile, at the operation whose location is `loc`.
    pub(crate) fn unsupported(loc: Location, message: impl fmt::Display) -> Self {
        LowerError::Unsupported {
            location: source_location(loc),
            message: message.to_string(),
        }
    }
}

/// The rewrite driver refused an erasure: a bug of the pass.
impl From<RewriteError> for LowerError {
    fn from(e: RewriteError) -> Self {
        LowerError::Internal {
            message: format!("cannot erase '{}': {}", e.operation, e.reason),
            location: e.location,
        }
    }
}

impl From<OutlineError> for LowerError {
    fn from(e: OutlineError) -> Self {
        match e {
            OutlineError::Internal { location, message } => LowerError::Internal {
                location,
                message: format!("internal compiler error in the outliner: {message}"),
            },
            e @ OutlineError::Metadata(_) => LowerError::bug(e),
        }
    }
}
