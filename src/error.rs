//! The driver's one error type: what stops a command, by kind. Its text is what users see, and
//! it is printed in one place, where a compile ends (`compile` in lib.rs).

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;

use hipmlir_dialect_passes::{LowerError, SourceLoc};
use hipmlir_frontend::FrontendError;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A command line that cannot work: a mistake in it, or a request refused before anything
    /// runs.
    #[error("hipmlir: error: {0}")]
    Usage(String),
    /// hipconfig's command line (hipmlir called as hipconfig).
    #[error("hipconfig: error: {0}")]
    HipconfigUsage(String),
    /// A file the command reads that is not what hipmlir reads: a damaged object or image.
    #[error("hipmlir: error: {0}")]
    Input(String),
    /// Something hipmlir needs from its install or from the system is not there.
    #[error("hipmlir: error: {0}")]
    Setup(String),
    /// Reading, writing or creating a file failed. `what` names it where its path means nothing
    /// to the user (a temporary file).
    #[error("hipmlir: error: cannot {action} {}: {source}", file_name(path, *what))]
    Io {
        action: IoAction,
        path: PathBuf,
        what: Option<&'static str>,
        source: std::io::Error,
    },
    /// A program the build runs (the host compiler, the linker, objcopy) did not start, or
    /// failed; its own messages went to stderr already.
    #[error("hipmlir: error: {}", tool_failure(*tool, program, failure))]
    Tool {
        tool: Tool,
        program: String,
        failure: ToolFailure,
    },
    /// The source's device code: clang's diagnostics, or what the frontend refuses.
    #[error(transparent)]
    Frontend(#[from] FrontendError),
    /// The lowering of `unit` (a source, or the sources of a device link) failed.
    #[error("{}", lowering(unit, error))]
    Lowering { unit: String, error: LowerError },
    /// Device symbols the program uses and no source defines: a diagnostic for each
    /// (`file:line:col: error: ...`).
    #[error("{}", .0.join("\n"))]
    Undefined(Vec<String>),
    /// A bug in hipmlir, reported at the construct (else the source) it showed at.
    #[error(
        "{location}: error: internal compiler error while {stage}: {message}\n\
         note: this is a bug in hipmlir, not in your program; please report it with the source \
         that shows it"
    )]
    Internal {
        location: String,
        stage: String,
        message: String,
    },
    /// The compile outgrew its memory limit (memory_limit.rs): most likely an included file that
    /// never ends.
    #[error(
        "hipmlir: error: the compile used more than {limit_mib} MiB of memory and was stopped \
         (an #include of a device file such as /dev/zero reads without end; {variable}=MiB sets \
         the limit, half of this machine's memory by default, 0 turns it off)"
    )]
    MemoryLimit {
        limit_mib: u64,
        variable: &'static str,
    },
    /// A part of the compile that ended without a result (a panic, reported already).
    #[error("hipmlir: error: {0} stopped")]
    Stopped(&'static str),
}

#[derive(Debug, Clone, Copy)]
pub enum IoAction {
    Read,
    Write,
    Create,
}

impl fmt::Display for IoAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IoAction::Read => "read",
            IoAction::Write => "write",
            IoAction::Create => "create",
        })
    }
}

/// The programs a build runs, by their job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// A host compile.
    HostCompiler,
    /// The compile of a generated registration stub.
    StubCompiler,
    /// The program's link (through the host compiler).
    Link,
    /// `ld -r`: objects into one.
    Linker,
    Objcopy,
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Tool::HostCompiler => "the host compiler",
            Tool::StubCompiler => "the host compiler (image stub)",
            Tool::Link => "the host compiler (link)",
            Tool::Linker => "the linker",
            Tool::Objcopy => "objcopy",
        })
    }
}

#[derive(Debug)]
pub enum ToolFailure {
    /// It could not be started.
    Start(std::io::Error),
    /// It ended with a failure status.
    Status(ExitStatus),
}

impl Error {
    pub fn read(path: &Path, source: std::io::Error) -> Error {
        Error::io(IoAction::Read, path, None, source)
    }

    pub fn write(path: &Path, source: std::io::Error) -> Error {
        Error::io(IoAction::Write, path, None, source)
    }

    pub fn create(path: &Path, source: std::io::Error) -> Error {
        Error::io(IoAction::Create, path, None, source)
    }

    /// Writing `what` (`the SPIR-V`) to `path` failed.
    pub fn write_of(what: &'static str, path: &Path, source: std::io::Error) -> Error {
        Error::io(IoAction::Write, path, Some(what), source)
    }

    fn io(
        action: IoAction,
        path: &Path,
        what: Option<&'static str>,
        source: std::io::Error,
    ) -> Error {
        Error::Io {
            action,
            path: path.to_path_buf(),
            what,
            source,
        }
    }

    /// A lowering error of `unit`.
    pub fn lowering(unit: &str, error: LowerError) -> Error {
        Error::Lowering {
            unit: unit.to_string(),
            error,
        }
    }

    /// A bug in hipmlir while `stage` ran on `unit`, placed at the construct MLIR's first
    /// diagnostic in `message` names (else at `unit`), with MLIR's `loc(...)` syntax taken out:
    /// MLIR's own text is not what a user should have to read.
    pub fn internal(unit: &str, stage: &str, message: &str) -> Error {
        let first = message.lines().next().unwrap_or("").trim();
        let (location, message) = match mlir_location(first) {
            Some(located) => located,
            None => (
                unit.to_string(),
                first.trim_start_matches("loc(unknown): ").to_string(),
            ),
        };
        Error::Internal {
            location,
            stage: stage.to_string(),
            message,
        }
    }
}

/// A file as a message names it: by what it is, else by its path.
fn file_name(path: &Path, what: Option<&str>) -> String {
    match what {
        Some(what) => what.to_string(),
        None => format!("'{}'", path.display()),
    }
}

fn tool_failure(tool: Tool, program: &str, failure: &ToolFailure) -> String {
    match failure {
        ToolFailure::Start(e) => format!("cannot run {tool} '{program}': {e}"),
        ToolFailure::Status(status) => format!("{tool} '{program}' failed ({status})"),
    }
}

/// A lowering error as the user sees it: a diagnostic of the program (an unsupported construct,
/// symbols that do not link) as it is; anything else is a compiler bug, reported as one at the
/// construct the error names (else at `unit`).
fn lowering(unit: &str, error: &LowerError) -> String {
    let bug = |location: Option<&SourceLoc>, stage: &str, message: &str| {
        Error::Internal {
            location: location.map_or_else(|| unit.to_string(), SourceLoc::to_string),
            stage: stage.to_string(),
            message: message.lines().next().unwrap_or("").trim().to_string(),
        }
        .to_string()
    };
    match error {
        LowerError::Unsupported { .. } | LowerError::Link(_) => error.to_string(),
        LowerError::Pass { stage, diagnostics } => {
            let first = diagnostics.first();
            let location = first.and_then(|d| d.location.as_ref());
            bug(location, stage, first.map_or("", |d| d.message.as_str()))
        }
        LowerError::Internal { location, message } => bug(location.as_ref(), "lowering", message),
        LowerError::Pipeline(message) => Error::internal(unit, "lowering", message).to_string(),
    }
}

/// `loc("file":line:col): text` → (`file:line:col`, `text`).
fn mlir_location(line: &str) -> Option<(String, String)> {
    let start = line.find("loc(\"")?;
    let rest = &line[start + 5..];
    let (file, rest) = rest.split_once('"')?;
    let (position, text) = rest.split_once(')')?;
    let position = position.trim_start_matches(':');
    if position.is_empty() || !position.split(':').all(|p| p.parse::<u32>().is_ok()) {
        return None;
    }
    let text = text.trim_start_matches(':').trim();
    Some((format!("{file}:{position}"), text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_errors_are_reported_at_the_construct_without_mlir_syntax() {
        let message =
            "loc(\"k.hip\":12:7): failed to legalize operation 'llvm.foo'\nloc(unknown): more";
        let text = Error::internal("k.hip", "converting to SPIR-V", message).to_string();
        assert!(
            text.starts_with(
                "k.hip:12:7: error: internal compiler error while converting to SPIR-V: failed to legalize operation 'llvm.foo'\nnote: this is a bug in hipmlir"
            ),
            "{text}"
        );
        let text = Error::internal(
            "a.hip, b.hip",
            "serializing SPIR-V",
            "loc(unknown): unknown result",
        )
        .to_string();
        assert!(
            text.starts_with("a.hip, b.hip: error: internal compiler error while serializing SPIR-V: unknown result"),
            "{text}"
        );
        assert!(!text.contains("loc("), "{text}");
    }

    #[test]
    fn lowering_bugs_are_reported_at_the_construct_the_pass_names() {
        use hipmlir_dialect_passes::Diagnostic;
        let failed = LowerError::Pass {
            stage: "converting to SPIR-V".into(),
            diagnostics: vec![
                Diagnostic {
                    location: Some(SourceLoc {
                        file: "k.hip".into(),
                        line: 12,
                        column: 7,
                    }),
                    message: "failed to legalize operation 'llvm.foo'".into(),
                },
                Diagnostic {
                    location: None,
                    message: "more".into(),
                },
            ],
        };
        let text = Error::lowering("k.hip", failed).to_string();
        assert!(
            text.starts_with(
                "k.hip:12:7: error: internal compiler error while converting to SPIR-V: failed to legalize operation 'llvm.foo'\nnote: this is a bug in hipmlir"
            ),
            "{text}"
        );
        let unplaced = LowerError::Internal {
            location: None,
            message: "unknown result".into(),
        };
        let text = Error::lowering("a.hip, b.hip", unplaced).to_string();
        assert!(
            text.starts_with(
                "a.hip, b.hip: error: internal compiler error while lowering: unknown result"
            ),
            "{text}"
        );
    }

    #[test]
    fn io_and_tool_failures_name_the_file_and_the_tool() {
        let gone = || std::io::Error::from(std::io::ErrorKind::NotFound);
        let text = Error::read(Path::new("a.o"), gone()).to_string();
        assert!(
            text.starts_with("hipmlir: error: cannot read 'a.o': "),
            "{text}"
        );
        let text = Error::write_of("the SPIR-V", Path::new("/t/a.spv"), gone()).to_string();
        assert!(
            text.starts_with("hipmlir: error: cannot write the SPIR-V: "),
            "{text}"
        );
        let text = Error::Tool {
            tool: Tool::Linker,
            program: "ld".into(),
            failure: ToolFailure::Start(gone()),
        }
        .to_string();
        assert!(
            text.starts_with("hipmlir: error: cannot run the linker 'ld': "),
            "{text}"
        );
    }
}
