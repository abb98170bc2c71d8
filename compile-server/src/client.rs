//! The launcher's side: hand a compile to the server, or start one for the next compile.

use std::io::Read;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::place::ServerPlace;
use crate::protocol::{self, Outcome, Request};

/// How long the launcher waits for the server to start its compile.
const ACCEPT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// What became of a compile handed to the server.
pub enum Served {
    /// A child of the server ran it to this end.
    Finished(Outcome),
    /// No server listens: nothing has run, so the caller runs it itself (and may start one).
    NoServer,
    /// The server did not start it (a request it cannot give a child, or no answer in time):
    /// nothing has run, so the caller runs it itself.
    NotTaken,
    /// The server took it, then ended before telling how it ended.
    Lost,
}

/// Sends `request` with this process's standard streams to the server at `place` and waits
/// for the outcome.
pub fn compile_through(place: &ServerPlace, request: &Request) -> Served {
    let Ok(mut stream) = UnixStream::connect(&place.socket) else {
        return Served::NoServer;
    };
    if protocol::send_with_fds(&mut stream, &request.encode(), &[0, 1, 2]).is_err() {
        return Served::NotTaken;
    }
    // A server that does not start the compile soon (stopped, swamped) is passed over.
    let mut accepted = [0u8];
    let answered = stream.set_read_timeout(Some(ACCEPT_TIMEOUT)).is_ok()
        && stream.read_exact(&mut accepted).is_ok()
        && accepted[0] == protocol::ACCEPTED
        && stream.set_read_timeout(None).is_ok();
    if !answered {
        return Served::NotTaken;
    }
    let mut outcome = [0u8; 5];
    match stream
        .read_exact(&mut outcome)
        .map(|()| Outcome::decode(outcome))
    {
        Ok(Ok(outcome)) => Served::Finished(outcome),
        _ => Served::Lost,
    }
}

/// Starts `compiler` as the server at `place`, detached: its own session, no terminal, its
/// standard streams on /dev/null (so that nobody waiting for this process's output waits for
/// the server). Not waited for; a second server started meanwhile finds the lock taken and ends.
pub fn start_server(compiler: &Path, place: &ServerPlace) {
    let mut command = Command::new(compiler);
    command
        .arg(crate::SERVE_OPTION)
        .arg(&place.socket)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: setsid is async-signal-safe; it only fails for a group leader, which a fresh
    // child is not.
    unsafe {
        command.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let _ = command.spawn();
}

/// Ends this process as the compile ended: its exit status, or the same signal.
pub fn finish(outcome: Outcome) -> ! {
    match outcome {
        Outcome::Exited(code) => std::process::exit(code),
        Outcome::Signaled(signal) => {
            // SAFETY: the default action of the signal the compile died of, then that signal.
            unsafe {
                libc::signal(signal, libc::SIG_DFL);
                libc::raise(signal);
            }
            std::process::exit(128 + signal)
        }
    }
}
