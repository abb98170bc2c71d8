//! Running the programs a build calls (the host compiler, the linker, objcopy): `-v` shows each
//! command; a failure names the tool.

use std::process::Command;

use crate::error::{Error, Result, Tool, ToolFailure};

/// Runs `tool`'s command; a failure names the tool. Its own messages went to stderr already.
pub fn run(mut cmd: Command, verbose: bool, tool: Tool) -> Result<()> {
    if verbose {
        eprintln!("{}", show(&cmd));
    }
    let status = cmd
        .status()
        .map_err(|e| failed(&cmd, tool, ToolFailure::Start(e)))?;
    if !status.success() {
        return Err(failed(&cmd, tool, ToolFailure::Status(status)));
    }
    Ok(())
}

/// The error of `tool`'s command, which did not start or failed.
pub fn failed(cmd: &Command, tool: Tool, failure: ToolFailure) -> Error {
    Error::Tool {
        tool,
        program: cmd.get_program().to_string_lossy().into_owned(),
        failure,
    }
}

/// A command as `-v` shows it: arguments with spaces (or none) quoted.
pub fn show(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        let a = a.to_string_lossy();
        if a.contains(' ') || a.is_empty() {
            s.push_str(&format!(" \"{a}\""));
        } else {
            s.push(' ');
            s.push_str(&a);
        }
    }
    s
}
