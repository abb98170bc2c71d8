//! The server's side: wait for requests, fork a child for each compile, tell each launcher how
//! its compile ended.
//!
//! The server is one thread (a fork copies only the forking thread, so no other thread may
//! hold a lock the child would need). It polls its socket, each launcher whose request is still
//! arriving (read piece by piece as it comes, so that a slow or stalled launcher delays no
//! other), each running child (a pidfd) and each child's launcher: a launcher that goes away
//! (Ctrl-C, a killed build) takes its compile with it, the child's whole process group, host
//! compiler included. After `idle` with nothing
//! to do, the server removes its socket and ends; so it does, when idle, once its executable is
//! replaced (a rebuild) or its socket removed (which is how to stop a server).

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::time::{Duration, Instant};

use crate::place::ServerPlace;
use crate::protocol::{self, Outcome, ProcessAttributes, Request};

/// How long the server waits for a connected launcher's whole request before dropping it.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// The most launchers whose requests may be arriving at once; more wait in the socket's
/// backlog until one is whole or dropped.
const MAX_PENDING: usize = 64;

/// A file's device and inode, to tell it from another file later put at its path.
fn file_id(path: &std::path::Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino()))
}

/// How often an idle server checks whether its executable was replaced.
const REPLACED_CHECK: Duration = Duration::from_secs(5);

/// Whether this server's executable was deleted or replaced (a rebuild, an upgrade): launchers
/// of the new one use a server of their own, so this one has nothing more to do.
fn replaced() -> bool {
    std::fs::read_link("/proc/self/exe")
        .is_ok_and(|exe| exe.to_string_lossy().ends_with(" (deleted)"))
}

/// A compile running in a child.
struct Job {
    pid: libc::pid_t,
    /// Readable once the child has ended.
    pidfd: OwnedFd,
    /// The launcher's connection; None once the launcher has gone.
    launcher: Option<UnixStream>,
}

/// A connected launcher whose request is not whole yet.
struct Pending {
    stream: UnixStream,
    bytes: Vec<u8>,
    /// The launcher's standard streams, sent with the request's first bytes.
    streams: Vec<OwnedFd>,
    deadline: Instant,
}

/// What a launcher's readable connection gave.
enum Arrival {
    /// More may come.
    Partial,
    /// The request is whole: its frame is `bytes[..len]`.
    Whole(usize),
    /// Closed, damaged or foreign: dropped unanswered (the launcher compiles by itself).
    Dropped,
}

impl Pending {
    /// Reads what has arrived, without waiting.
    fn read(&mut self) -> Arrival {
        let mut chunk = vec![0u8; 64 << 10];
        loop {
            match protocol::receive_with_fds(&self.stream, &mut chunk, 3) {
                Ok((0, _)) => return Arrival::Dropped,
                Ok((read, streams)) => {
                    self.bytes.extend_from_slice(&chunk[..read]);
                    self.streams.extend(streams);
                    if self.streams.len() > 3 {
                        return Arrival::Dropped;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(_) => return Arrival::Dropped,
            }
        }
        match Request::frame_length(&self.bytes) {
            Ok(None) => Arrival::Partial,
            Ok(Some(len)) => Arrival::Whole(len),
            Err(_) => Arrival::Dropped,
        }
    }
}

/// Serves compiles at `place` until idle for `idle`; `compile` runs one request in a child and
/// gives its exit status. Returns at once when another server holds the place.
pub fn serve(place: &ServerPlace, idle: Duration, compile: fn(&Request) -> i32) -> io::Result<()> {
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(&place.lock)?;
    // SAFETY: flock on a descriptor this function owns.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        return Ok(());
    }
    // A long-lived process keeps no folder of the launcher that started it in use (an unmount,
    // a removal); every path it uses is absolute.
    std::env::set_current_dir("/")?;
    // Whatever socket is there belonged to a server that no longer holds the lock.
    let _ = std::fs::remove_file(&place.socket);
    let listener = UnixListener::bind(&place.socket)?;
    listener.set_nonblocking(true)?;
    let socket_id = file_id(&place.socket);
    // What this process can give a child; it never changes.
    let own = ProcessAttributes::of_this_process();
    let mut jobs: Vec<Job> = Vec::new();
    let mut pending: Vec<Pending> = Vec::new();
    let mut last_activity = Instant::now();
    loop {
        let waited = last_activity.elapsed();
        let stop = || waited >= idle || replaced() || file_id(&place.socket) != socket_id;
        if jobs.is_empty() && pending.is_empty() && stop() {
            break;
        }
        // Requests that did not arrive whole in time are dropped.
        let now = Instant::now();
        pending.retain(|p| p.deadline > now);
        // The listener is polled only while there is room for another arriving request.
        let listening = pending.len() < MAX_PENDING;
        let mut polled = vec![poll_fd(if listening { listener.as_raw_fd() } else { -1 })];
        for p in &pending {
            polled.push(poll_fd(p.stream.as_raw_fd()));
        }
        for job in &jobs {
            polled.push(poll_fd(job.pidfd.as_raw_fd()));
            // A negative descriptor is skipped by poll.
            polled.push(poll_fd(job.launcher.as_ref().map_or(-1, |l| l.as_raw_fd())));
        }
        let timeout = if let Some(first) = pending.iter().map(|p| p.deadline).min() {
            first.saturating_duration_since(now).as_millis() as i32 + 1
        } else if jobs.is_empty() {
            (idle - waited).min(REPLACED_CHECK).as_millis() as i32
        } else {
            -1
        };
        // SAFETY: `polled` is a live array of pollfd of the length given.
        let ready = unsafe { libc::poll(polled.as_mut_ptr(), polled.len() as _, timeout) };
        if ready < 0 {
            let error = io::Error::last_os_error();
            if error.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(error);
        }
        if ready == 0 {
            continue;
        }
        last_activity = Instant::now();
        let arrived: Vec<bool> = polled[1..1 + pending.len()]
            .iter()
            .map(|p| p.revents != 0)
            .collect();
        let job_polls = &polled[1 + pending.len()..];
        let mut index = 0;
        jobs.retain_mut(|job| {
            let ended = job_polls[2 * index].revents != 0;
            let launcher_gone = job_polls[2 * index + 1].revents != 0;
            index += 1;
            if ended {
                let outcome = reap(job.pid);
                if let (Some(launcher), Some(outcome)) = (&mut job.launcher, outcome) {
                    let _ = launcher.write_all(&outcome.encode());
                }
                return false;
            }
            if launcher_gone {
                // SAFETY: the child leads its own process group (see `run_child`).
                unsafe { libc::kill(-job.pid, libc::SIGTERM) };
                job.launcher = None;
            }
            true
        });
        // Requests read as they arrive; a whole one starts its compile.
        let mut still = Vec::with_capacity(pending.len());
        for (mut p, readable) in pending.drain(..).zip(arrived) {
            if !readable {
                still.push(p);
                continue;
            }
            match p.read() {
                Arrival::Partial => still.push(p),
                Arrival::Dropped => {}
                Arrival::Whole(len) => jobs.extend(start(p, len, &own, compile)),
            }
        }
        pending = still;
        if polled[0].revents != 0 {
            while pending.len() < MAX_PENDING {
                match listener.accept() {
                    Ok((stream, _)) => {
                        if same_user(&stream) && stream.set_nonblocking(true).is_ok() {
                            pending.push(Pending {
                                stream,
                                bytes: Vec::new(),
                                streams: Vec::new(),
                                deadline: Instant::now() + REQUEST_TIMEOUT,
                            });
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                }
            }
        }
    }
    // The lock file goes too: a launcher racing with this removal at worst starts a second
    // server, which finds no socket of this one and serves alone.
    if file_id(&place.socket) == socket_id {
        let _ = std::fs::remove_file(&place.socket);
    }
    let _ = std::fs::remove_file(&place.lock);
    drop(lock);
    Ok(())
}

fn poll_fd(fd: i32) -> libc::pollfd {
    libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    }
}

/// Forks the child that runs a launcher's whole request (`pending.bytes[..len]`). None when it
/// cannot be started: the launcher then sees its connection close unanswered and runs the
/// compile itself.
fn start(
    pending: Pending,
    len: usize,
    own: &ProcessAttributes,
    compile: fn(&Request) -> i32,
) -> Option<Job> {
    let Pending {
        mut stream,
        bytes,
        streams,
        ..
    } = pending;
    if streams.len() != 3 {
        return None;
    }
    let request = Request::decode(&mut &bytes[..len]).ok()?;
    // A request this process cannot give its child (a higher limit, a lower niceness) is left
    // to the launcher, which then runs the compile itself, with its own.
    if !request.attributes.can_be_taken_from(own) {
        return None;
    }
    // SAFETY: this process has one thread (see the module's comment); the child never returns.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return None;
    }
    if pid == 0 {
        run_child(&request, streams, compile);
    }
    drop(streams);
    // SAFETY: pidfd_open on our own child; the descriptor is taken into an OwnedFd once.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    // The one-byte answer goes to a socket nobody has written back to: it does not block.
    let accepted = pidfd >= 0 && stream.write_all(&[protocol::ACCEPTED]).is_ok();
    if !accepted {
        // SAFETY: our own child, not yet reaped.
        unsafe { libc::kill(-pid, libc::SIGKILL) };
        reap(pid);
        return None;
    }
    Some(Job {
        pid,
        // SAFETY: a fresh descriptor from pidfd_open.
        pidfd: unsafe { OwnedFd::from_raw_fd(pidfd as i32) },
        launcher: Some(stream),
    })
}

/// Whether the peer runs as this user (the socket's folder admits no one else; root could).
fn same_user(stream: &UnixStream) -> bool {
    // SAFETY: getsockopt into a ucred of the size given.
    unsafe {
        let mut cred: libc::ucred = std::mem::zeroed();
        let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            &mut cred as *mut libc::ucred as *mut libc::c_void,
            &mut len,
        ) == 0
            && cred.uid == libc::getuid()
    }
}

/// Waits for a child that has ended; how it ended.
fn reap(pid: libc::pid_t) -> Option<Outcome> {
    let mut status = 0;
    loop {
        // SAFETY: waits for our own child.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r == pid {
            break;
        }
        if r < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return None;
        }
    }
    if libc::WIFEXITED(status) {
        Some(Outcome::Exited(libc::WEXITSTATUS(status)))
    } else if libc::WIFSIGNALED(status) {
        Some(Outcome::Signaled(libc::WTERMSIG(status)))
    } else {
        None
    }
}

/// In the forked child: become the launcher's process (its streams, working folder, umask,
/// resource limits, niceness, CPUs and environment), run the compile, end with its status.
fn run_child(request: &Request, streams: Vec<OwnedFd>, compile: fn(&Request) -> i32) -> ! {
    // SAFETY: the child has one thread. Its descriptors 0-2 become the launcher's streams;
    // every other descriptor (the socket, other launchers' connections, pidfds, the lock) is
    // the server's and is closed. The OwnedFds are forgotten: their numbers are closed here.
    unsafe {
        libc::setpgid(0, 0);
        for (target, stream) in streams.iter().enumerate() {
            libc::dup2(stream.as_raw_fd(), target as i32);
        }
        std::mem::forget(streams);
        if libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) != 0 {
            let max = libc::sysconf(libc::_SC_OPEN_MAX).clamp(3, 1 << 16) as i32;
            for fd in 3..max {
                libc::close(fd);
            }
        }
        libc::umask(request.umask as libc::mode_t);
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
    }
    if let Err(e) = request.attributes.apply() {
        eprintln!("hipmlir: error: cannot take the caller's resource limits: {e}");
        end_child(1);
    }
    if let Err(e) = std::env::set_current_dir(&request.cwd) {
        eprintln!(
            "hipmlir: error: cannot enter the working folder '{}': {e}",
            request.cwd.display()
        );
        end_child(1);
    }
    for (name, _) in std::env::vars_os() {
        std::env::remove_var(name);
    }
    for (name, value) in &request.env {
        if !name.is_empty() {
            std::env::set_var(name, value);
        }
    }
    end_child(compile(request))
}

/// Ends a forked child with _exit: the exit handlers and static destructors it would run are
/// the server's (LLVM's, MLIR's, libclang's), which only free memory the kernel frees anyway, at
/// a cost of milliseconds. What the compile wrote is flushed first.
fn end_child(code: i32) -> ! {
    let _ = std::io::stdout().flush();
    // SAFETY: flushes every C stdio stream, then ends the process.
    unsafe {
        libc::fflush(std::ptr::null_mut());
        libc::_exit(code)
    }
}
