//! Where a compile server listens.
//!
//! One server per user, compiler build and loader environment: the socket's name is a hash of
//! the compiler binary's identity (path, inode, size, modification time) and of the variables
//! that change what the dynamic loader loads. A rebuilt compiler therefore gets a server of its
//! own, and the old one ends when idle. The sockets live in a folder only the user can enter.

use std::hash::{Hash, Hasher};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

/// The socket and lock file of one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerPlace {
    pub socket: PathBuf,
    /// Held (flock) by the server for its whole life: one server per socket.
    pub lock: PathBuf,
}

/// Variables that change which libraries a process loads or how it starts: a server started
/// with other values would not be the process a plain run makes.
const LOADER_VARIABLES: &[&str] = &["LD_LIBRARY_PATH", "LD_PRELOAD", "GLIBC_TUNABLES"];

/// The longest socket path a `sockaddr_un` holds, with its terminating NUL.
const SOCKET_PATH_MAX: usize = 107;

impl ServerPlace {
    /// The place of `compiler`'s server, or None where there is no private folder for it (the
    /// compile then runs as a plain process).
    pub fn for_compiler(compiler: &Path) -> Option<ServerPlace> {
        ServerPlace::in_folder(&private_folder()?, compiler)
    }

    /// The place of `compiler`'s server in `folder`.
    pub fn in_folder(folder: &Path, compiler: &Path) -> Option<ServerPlace> {
        let key = identity(compiler)?;
        let socket = folder.join(format!("{key:016x}.sock"));
        if socket.as_os_str().len() > SOCKET_PATH_MAX {
            return None;
        }
        Some(ServerPlace {
            lock: socket.with_extension("lock"),
            socket,
        })
    }

    /// The place of the server listening on `socket` (as the server is told it).
    pub fn of_socket(socket: &Path) -> ServerPlace {
        ServerPlace {
            socket: socket.to_path_buf(),
            lock: socket.with_extension("lock"),
        }
    }
}

/// A hash of the compiler binary and the loader's variables.
fn identity(compiler: &Path) -> Option<u64> {
    let compiler = compiler.canonicalize().ok()?;
    let meta = compiler.metadata().ok()?;
    // SipHash with fixed keys: the same value in every process of this launcher build.
    let mut hasher = std::hash::DefaultHasher::new();
    compiler.hash(&mut hasher);
    (meta.dev(), meta.ino(), meta.size()).hash(&mut hasher);
    (meta.mtime(), meta.mtime_nsec()).hash(&mut hasher);
    for name in LOADER_VARIABLES {
        std::env::var_os(name).hash(&mut hasher);
    }
    Some(hasher.finish())
}

/// `$HIPMLIR_COMPILE_SERVER_DIR`, else `$XDG_RUNTIME_DIR/hipmlir`, else `/tmp/hipmlir-<uid>`;
/// made with mode 0700 if missing. None unless it is a real folder (not a link) owned by this
/// user that nobody else may enter.
fn private_folder() -> Option<PathBuf> {
    // SAFETY: getuid cannot fail.
    let uid = unsafe { libc::getuid() };
    let folder = match std::env::var_os(crate::DIR_VARIABLE) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => match std::env::var_os("XDG_RUNTIME_DIR") {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir).join("hipmlir"),
            _ => std::env::temp_dir().join(format!("hipmlir-{uid}")),
        },
    };
    if !folder.is_absolute() {
        return None;
    }
    let _ = std::fs::DirBuilder::new().mode(0o700).create(&folder);
    let meta = std::fs::symlink_metadata(&folder).ok()?;
    let private = meta.is_dir() && meta.uid() == uid && meta.mode() & 0o077 == 0;
    private.then_some(folder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rebuilt_compiler_gets_a_server_of_its_own() {
        let dir = std::env::temp_dir().join(format!("hipmlir-place-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let compiler = dir.join("compiler");
        std::fs::write(&compiler, b"one").unwrap();
        let first = ServerPlace::in_folder(&dir, &compiler).unwrap();
        assert_eq!(first, ServerPlace::in_folder(&dir, &compiler).unwrap());
        assert_eq!(first, ServerPlace::of_socket(&first.socket));
        std::fs::remove_file(&compiler).unwrap();
        std::fs::write(&compiler, b"second build").unwrap();
        let second = ServerPlace::in_folder(&dir, &compiler).unwrap();
        assert_ne!(first.socket, second.socket);
        assert!(ServerPlace::in_folder(&dir, &dir.join("missing")).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_socket_path_too_long_for_the_socket_address_is_not_used() {
        let dir = std::env::temp_dir().join("x".repeat(120));
        let exe = std::env::current_exe().unwrap();
        assert!(ServerPlace::in_folder(&dir, &exe).is_none());
    }
}
