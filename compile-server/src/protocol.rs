//! The messages between the launcher and the server.
//!
//! The launcher sends one request: its standard streams (as `SCM_RIGHTS` file descriptors, with
//! the first bytes) and a frame of byte strings: the protocol tag, the name it was called by, its
//! working folder, its umask, its arguments and its environment. Each string is a little-endian
//! `u32` length and the bytes; the frame begins with the number of strings. Then its process
//! attributes ([`ProcessAttributes`]) and its environment.
//!
//! The server answers [`ACCEPTED`] once a child runs the compile, then the child's outcome:
//! [`EXITED`] or [`SIGNALED`] and a little-endian `i32`.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;

/// Changes whenever the frame changes; a server of another protocol refuses the request.
const TAG: &[u8] = b"hipmlir-compile-server-1";

/// The most strings and bytes a request may hold: far beyond a real command line and
/// environment, small enough that a stray client cannot make the server allocate much.
const MAX_STRINGS: usize = 1 << 16;
const MAX_BYTES: usize = 64 << 20;

pub const ACCEPTED: u8 = b'A';
pub const EXITED: u8 = b'X';
pub const SIGNALED: u8 = b'S';

/// A compile as the launcher was asked for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The file name the launcher was called by (`hipmlir`, `hipcc`, `hipconfig`).
    pub tool: OsString,
    pub cwd: PathBuf,
    pub umask: u32,
    /// The arguments, without the program name.
    pub args: Vec<OsString>,
    pub env: Vec<(OsString, OsString)>,
    /// What else a process inherits that changes how a compile runs or may fail: resource
    /// limits, niceness, the CPUs it may run on.
    pub attributes: ProcessAttributes,
}

/// Resource limits (soft, hard) in [`LIMITS`]' order, niceness and the CPU affinity mask.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProcessAttributes {
    pub limits: Vec<(u64, u64)>,
    pub nice: i32,
    pub cpus: Vec<u8>,
    /// Which of [`SIGNALS`] the launcher ignores (bit `s` for signal `s`): a background job's
    /// SIGINT, nohup's SIGHUP. The child ignores the same ones and takes the others' default
    /// action, whatever the server's were (it may have been started by a background job).
    pub ignored: u64,
}

/// The signals whose disposition (ignored or not) a child takes from its launcher: those that
/// end a compile (see the compiler's temp_folders).
pub const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// The resource limits a child takes from its launcher.
pub const LIMITS: [libc::__rlimit_resource_t; 7] = [
    libc::RLIMIT_AS,
    libc::RLIMIT_CORE,
    libc::RLIMIT_CPU,
    libc::RLIMIT_DATA,
    libc::RLIMIT_FSIZE,
    libc::RLIMIT_NOFILE,
    libc::RLIMIT_STACK,
];

impl ProcessAttributes {
    /// This process's.
    pub fn of_this_process() -> ProcessAttributes {
        // SAFETY: getrlimit, getpriority and sched_getaffinity write into the values given.
        unsafe {
            let limits = LIMITS
                .iter()
                .map(|&resource| {
                    let mut limit: libc::rlimit = std::mem::zeroed();
                    libc::getrlimit(resource, &mut limit);
                    (limit.rlim_cur, limit.rlim_max)
                })
                .collect();
            let nice = libc::getpriority(libc::PRIO_PROCESS, 0);
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            let cpus = if libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) == 0 {
                std::slice::from_raw_parts(
                    &set as *const libc::cpu_set_t as *const u8,
                    std::mem::size_of_val(&set),
                )
                .to_vec()
            } else {
                Vec::new()
            };
            let mut ignored = 0u64;
            for signal in SIGNALS {
                let mut old: libc::sigaction = std::mem::zeroed();
                libc::sigaction(signal, std::ptr::null(), &mut old);
                if old.sa_sigaction == libc::SIG_IGN {
                    ignored |= 1 << signal;
                }
            }
            ProcessAttributes {
                limits,
                nice,
                cpus,
                ignored,
            }
        }
    }

    /// Whether a child of this process can take `self`: no limit above this process's hard
    /// limit, no niceness below this one's (unprivileged processes can only lower limits and
    /// raise niceness).
    pub fn can_be_taken_from(&self, here: &ProcessAttributes) -> bool {
        self.limits.len() == here.limits.len()
            && self
                .limits
                .iter()
                .zip(&here.limits)
                .all(|(&(soft, hard), &(_, here_hard))| soft <= hard && hard <= here_hard)
            && self.nice >= here.nice
    }

    /// Takes these attributes (in a child that [`Self::can_be_taken_from`] its parent's).
    pub fn apply(&self) -> io::Result<()> {
        // SAFETY: setrlimit, setpriority and sched_setaffinity read the values given.
        unsafe {
            for (&resource, &(soft, hard)) in LIMITS.iter().zip(&self.limits) {
                let limit = libc::rlimit {
                    rlim_cur: soft,
                    rlim_max: hard,
                };
                if libc::setrlimit(resource, &limit) != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            if libc::setpriority(libc::PRIO_PROCESS, 0, self.nice) != 0 {
                return Err(io::Error::last_os_error());
            }
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            if self.cpus.len() == std::mem::size_of_val(&set) {
                std::ptr::copy_nonoverlapping(
                    self.cpus.as_ptr(),
                    &mut set as *mut libc::cpu_set_t as *mut u8,
                    self.cpus.len(),
                );
                // The server may run on fewer CPUs than the launcher: then on those.
                libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set);
            }
            for signal in SIGNALS {
                let ignored = self.ignored & (1 << signal) != 0;
                libc::signal(
                    signal,
                    if ignored {
                        libc::SIG_IGN
                    } else {
                        libc::SIG_DFL
                    },
                );
            }
        }
        Ok(())
    }

    fn encode(&self, strings: &mut Vec<Vec<u8>>) {
        strings.push(self.limits.len().to_string().into_bytes());
        for (soft, hard) in &self.limits {
            strings.push(format!("{soft} {hard}").into_bytes());
        }
        strings.push(self.nice.to_string().into_bytes());
        strings.push(self.cpus.clone());
        strings.push(self.ignored.to_string().into_bytes());
    }

    fn decode(next: &mut impl FnMut() -> io::Result<Vec<u8>>) -> io::Result<ProcessAttributes> {
        let count = number(&next()?)? as usize;
        if count > LIMITS.len() {
            return Err(invalid("too many limits"));
        }
        let limits = (0..count)
            .map(|_| {
                let pair = String::from_utf8(next()?).map_err(|_| invalid("not a limit"))?;
                let mut parts = pair.split(' ').map(|p| p.parse::<u64>());
                match (parts.next(), parts.next(), parts.next()) {
                    (Some(Ok(soft)), Some(Ok(hard)), None) => Ok((soft, hard)),
                    _ => Err(invalid("not a limit")),
                }
            })
            .collect::<io::Result<Vec<_>>>()?;
        let nice = std::str::from_utf8(&next()?)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| invalid("not a niceness"))?;
        let cpus = next()?;
        let ignored = std::str::from_utf8(&next()?)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| invalid("not a signal set"))?;
        Ok(ProcessAttributes {
            limits,
            nice,
            cpus,
            ignored,
        })
    }
}

/// How the compile ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Exited(i32),
    Signaled(i32),
}

impl Request {
    /// This process's request: its name, working folder, umask, arguments and environment.
    pub fn of_this_process() -> io::Result<Request> {
        let mut argv = std::env::args_os();
        let tool = argv
            .next()
            .map(PathBuf::from)
            .and_then(|p| p.file_name().map(|n| n.to_os_string()))
            .unwrap_or_default();
        // SAFETY: umask has no failure; it is set back at once.
        let umask = unsafe {
            let mask = libc::umask(0o022);
            libc::umask(mask);
            mask
        };
        Ok(Request {
            tool,
            cwd: std::env::current_dir()?,
            umask,
            args: argv.collect(),
            env: std::env::vars_os().collect(),
            attributes: ProcessAttributes::of_this_process(),
        })
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut strings: Vec<&[u8]> =
            vec![TAG, self.tool.as_bytes(), self.cwd.as_os_str().as_bytes()];
        let umask = self.umask.to_string();
        let arg_count = self.args.len().to_string();
        strings.push(umask.as_bytes());
        strings.push(arg_count.as_bytes());
        strings.extend(self.args.iter().map(|a| a.as_bytes()));
        let mut attributes = Vec::new();
        self.attributes.encode(&mut attributes);
        strings.extend(attributes.iter().map(|a| a.as_slice()));
        let pairs: Vec<Vec<u8>> = self
            .env
            .iter()
            .map(|(k, v)| [k.as_bytes(), b"=", v.as_bytes()].concat())
            .collect();
        strings.extend(pairs.iter().map(|p| p.as_slice()));
        let mut frame = (strings.len() as u32).to_le_bytes().to_vec();
        for s in strings {
            frame.extend((s.len() as u32).to_le_bytes());
            frame.extend(s);
        }
        frame
    }

    /// How long the frame at the start of `bytes` is: None while it is not whole yet; an error
    /// once it cannot be a frame of this protocol (too many strings, too large). The server
    /// reads requests piece by piece and decodes one once it is whole.
    pub fn frame_length(bytes: &[u8]) -> io::Result<Option<usize>> {
        let u32_at = |at: usize| {
            bytes
                .get(at..at + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        };
        let Some(count) = u32_at(0) else {
            return Ok(None);
        };
        if count > MAX_STRINGS {
            return Err(invalid("too many strings"));
        }
        let (mut at, mut total) = (4, 0);
        for _ in 0..count {
            let Some(len) = u32_at(at) else {
                return Ok(None);
            };
            total += len;
            if total > MAX_BYTES {
                return Err(invalid("request too large"));
            }
            at += 4 + len;
        }
        Ok((at <= bytes.len()).then_some(at))
    }

    /// Reads one frame; an error for anything that is not a whole frame of this protocol.
    pub fn decode(reader: &mut impl Read) -> io::Result<Request> {
        let count = read_u32(reader)? as usize;
        if count > MAX_STRINGS {
            return Err(invalid("too many strings"));
        }
        let mut total = 0;
        let mut strings = Vec::with_capacity(count.min(1024));
        for _ in 0..count {
            let len = read_u32(reader)? as usize;
            total += len;
            if total > MAX_BYTES {
                return Err(invalid("request too large"));
            }
            let mut bytes = vec![0; len];
            reader.read_exact(&mut bytes)?;
            strings.push(bytes);
        }
        let mut strings = strings.into_iter();
        let mut next = || strings.next().ok_or_else(|| invalid("request cut short"));
        if next()? != TAG {
            return Err(invalid("another protocol"));
        }
        let tool = OsString::from_vec(next()?);
        let cwd = PathBuf::from(OsString::from_vec(next()?));
        let umask = number(&next()?)?;
        let arg_count = number(&next()?)? as usize;
        let args = (0..arg_count)
            .map(|_| next().map(OsString::from_vec))
            .collect::<io::Result<Vec<_>>>()?;
        let attributes = ProcessAttributes::decode(&mut next)?;
        let env = strings
            .map(|pair| {
                let eq = pair.iter().position(|&b| b == b'=').unwrap_or(pair.len());
                let value = pair.get(eq + 1..).unwrap_or_default().to_vec();
                let mut name = pair;
                name.truncate(eq);
                (OsString::from_vec(name), OsString::from_vec(value))
            })
            .collect();
        Ok(Request {
            tool,
            cwd,
            umask,
            args,
            env,
            attributes,
        })
    }
}

impl Outcome {
    pub fn encode(self) -> [u8; 5] {
        let (kind, value) = match self {
            Outcome::Exited(code) => (EXITED, code),
            Outcome::Signaled(signal) => (SIGNALED, signal),
        };
        let v = value.to_le_bytes();
        [kind, v[0], v[1], v[2], v[3]]
    }

    pub fn decode(bytes: [u8; 5]) -> io::Result<Outcome> {
        let value = i32::from_le_bytes([bytes[1], bytes[2], bytes[3], bytes[4]]);
        match bytes[0] {
            EXITED => Ok(Outcome::Exited(value)),
            SIGNALED => Ok(Outcome::Signaled(value)),
            _ => Err(invalid("unknown outcome")),
        }
    }
}

fn read_u32(reader: &mut impl Read) -> io::Result<u32> {
    let mut b = [0; 4];
    reader.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

fn number(bytes: &[u8]) -> io::Result<u32> {
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| invalid("not a number"))
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

/// A message header of one buffer and a control buffer; it points into both.
fn message(iov: &mut libc::iovec, control: &mut [u8]) -> libc::msghdr {
    // SAFETY: msghdr is plain data, for which all zeroes is a valid value.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
    msg.msg_controllen = control.len() as _;
    msg
}

/// Sends `bytes` with `fds` attached to the first part.
pub fn send_with_fds(stream: &mut UnixStream, bytes: &[u8], fds: &[RawFd]) -> io::Result<()> {
    let fd_bytes = std::mem::size_of_val(fds);
    // SAFETY: CMSG_SPACE is pure arithmetic.
    let space = unsafe { libc::CMSG_SPACE(fd_bytes as u32) } as usize;
    let mut control = vec![0u8; space];
    let mut iov = libc::iovec {
        iov_base: bytes.as_ptr() as *mut libc::c_void,
        iov_len: bytes.len(),
    };
    // SAFETY: msghdr is plain data; every pointer set below outlives the sendmsg call, and the
    // control buffer is CMSG_SPACE bytes, room for one header and the descriptors.
    let sent = unsafe {
        let msg = message(&mut iov, &mut control);
        let header = libc::CMSG_FIRSTHDR(&msg);
        (*header).cmsg_level = libc::SOL_SOCKET;
        (*header).cmsg_type = libc::SCM_RIGHTS;
        (*header).cmsg_len = libc::CMSG_LEN(fd_bytes as u32) as _;
        std::ptr::copy_nonoverlapping(fds.as_ptr() as *const u8, libc::CMSG_DATA(header), fd_bytes);
        libc::sendmsg(stream.as_raw_fd(), &msg, libc::MSG_NOSIGNAL)
    };
    if sent < 0 {
        return Err(io::Error::last_os_error());
    }
    stream.write_all(&bytes[sent as usize..])
}

/// Receives the first part of a message and the descriptors attached to it: the bytes read
/// (at most `buffer.len()`) and the descriptors, owned.
pub fn receive_with_fds(
    stream: &UnixStream,
    buffer: &mut [u8],
    max_fds: usize,
) -> io::Result<(usize, Vec<OwnedFd>)> {
    let fd_bytes = max_fds * std::mem::size_of::<RawFd>();
    // SAFETY: CMSG_SPACE is pure arithmetic.
    let space = unsafe { libc::CMSG_SPACE(fd_bytes as u32) } as usize;
    let mut control = vec![0u8; space];
    let mut iov = libc::iovec {
        iov_base: buffer.as_mut_ptr() as *mut libc::c_void,
        iov_len: buffer.len(),
    };
    let mut fds = Vec::new();
    // SAFETY: as in send_with_fds; received descriptors are taken into OwnedFd exactly once
    // (MSG_CMSG_CLOEXEC keeps them from leaking into anything the server runs).
    let read = unsafe {
        let mut msg = message(&mut iov, &mut control);
        let read = libc::recvmsg(stream.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC);
        if read >= 0 {
            let mut header = libc::CMSG_FIRSTHDR(&msg);
            while !header.is_null() {
                if (*header).cmsg_level == libc::SOL_SOCKET
                    && (*header).cmsg_type == libc::SCM_RIGHTS
                {
                    let data = libc::CMSG_DATA(header) as *const RawFd;
                    let count = ((*header).cmsg_len as usize - libc::CMSG_LEN(0) as usize)
                        / std::mem::size_of::<RawFd>();
                    for i in 0..count {
                        fds.push(OwnedFd::from_raw_fd(data.add(i).read_unaligned()));
                    }
                }
                header = libc::CMSG_NXTHDR(&msg, header);
            }
        }
        read
    };
    if read < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((read as usize, fds))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> Request {
        Request {
            tool: "hipcc".into(),
            cwd: "/work/a b".into(),
            umask: 0o027,
            args: vec!["-DX=a=b".into(), "".into(), "k.hip".into()],
            env: vec![
                ("CXX".into(), "g++".into()),
                ("EMPTY".into(), "".into()),
                ("EQ".into(), "x=y".into()),
            ],
            attributes: ProcessAttributes::of_this_process(),
        }
    }

    #[test]
    fn a_request_reads_back_as_sent() {
        let frame = request().encode();
        assert_eq!(Request::decode(&mut frame.as_slice()).unwrap(), request());
    }

    #[test]
    fn a_frame_is_whole_only_with_its_last_byte() {
        let frame = request().encode();
        for len in [0, 3, 4, 10, frame.len() - 1] {
            assert_eq!(Request::frame_length(&frame[..len]).unwrap(), None, "{len}");
        }
        let mut more = frame.clone();
        more.extend(b"next");
        assert_eq!(Request::frame_length(&more).unwrap(), Some(frame.len()));
        let huge = (u32::MAX).to_le_bytes();
        assert!(Request::frame_length(&huge).is_err());
    }

    #[test]
    fn a_cut_or_foreign_frame_is_an_error() {
        let frame = request().encode();
        for len in [0, 3, 10, frame.len() - 1] {
            assert!(Request::decode(&mut &frame[..len]).is_err(), "{len}");
        }
        let mut foreign = frame.clone();
        foreign[8] ^= 1; // inside the tag
        assert!(Request::decode(&mut foreign.as_slice()).is_err());
        let huge = u32::MAX.to_le_bytes();
        assert!(Request::decode(&mut huge.as_slice()).is_err());
    }

    #[test]
    fn a_child_takes_lower_limits_and_more_niceness_only() {
        let here = ProcessAttributes::of_this_process();
        assert_eq!(here.limits.len(), LIMITS.len());
        assert!(here.can_be_taken_from(&here));
        let mut nicer = here.clone();
        nicer.nice += 1;
        nicer.limits[1] = (0, 0); // no core files
        assert!(nicer.can_be_taken_from(&here));
        assert!(!here.can_be_taken_from(&nicer));
        let mut higher = here.clone();
        if let Some(limit) = higher.limits.iter_mut().find(|(_, hard)| *hard < u64::MAX) {
            limit.1 += 1;
            assert!(!higher.can_be_taken_from(&here));
        }
    }

    #[test]
    fn outcomes_read_back_as_sent() {
        for o in [
            Outcome::Exited(0),
            Outcome::Exited(1),
            Outcome::Signaled(11),
        ] {
            assert_eq!(Outcome::decode(o.encode()).unwrap(), o);
        }
        assert!(Outcome::decode([b'?', 0, 0, 0, 0]).is_err());
    }

    #[test]
    fn descriptors_travel_with_the_bytes() {
        let (mut a, b) = UnixStream::pair().unwrap();
        let file = tempfile_with(b"seen through the passed descriptor");
        send_with_fds(&mut a, b"hello", &[file.as_raw_fd()]).unwrap();
        let mut buffer = [0u8; 16];
        let (n, fds) = receive_with_fds(&b, &mut buffer, 3).unwrap();
        assert_eq!(&buffer[..n], b"hello");
        assert_eq!(fds.len(), 1);
        let mut text = String::new();
        std::fs::File::from(fds.into_iter().next().unwrap())
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "seen through the passed descriptor");
    }

    fn tempfile_with(bytes: &[u8]) -> std::fs::File {
        let path = std::env::temp_dir().join(format!("hipmlir-fd-test-{}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        file
    }
}
