//! Running the programs a build calls (the host compiler, the linker, objcopy): `-v` shows each
//! command; a failure names the tool.

use std::process::Command;

/// Runs a command; a failure names the tool. Its own messages went to stderr already.
pub fn run(mut cmd: Command, verbose: bool, what: &str) -> Result<(), String> {
    if verbose {
        eprintln!("{}", show(&cmd));
    }
    let program = cmd.get_program().to_string_lossy().into_owned();
    let status = cmd
        .status()
        .map_err(|e| format!("hipmlir: error: cannot run {what} '{program}': {e}"))?;
    if !status.success() {
        return Err(format!(
            "hipmlir: error: {what} '{program}' failed ({status})"
        ));
    }
    Ok(())
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
