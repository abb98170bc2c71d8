//! The host compiler: `$CXX` (else clang 22, else GCC) split into its program and flags, what
//! identifies it for cache keys, and how C++ strings are written for it.

use std::path::PathBuf;
use std::process::Command;

/// The host compiler when `$CXX` names none, the first found on `$PATH`: clang 22, the
/// compiler hipcc's host code is written for and the one that parses the device side (so both
/// sides agree on the language and on mangled names), and whose precompiled headers load in a
/// fraction of GCC's time; else GCC.
const DEFAULT_HOST_COMPILERS: [&str; 2] = ["clang++-22", "g++"];

/// `$CXX` split into the program and the flags it carries.
pub struct HostCompiler {
    pub program: String,
    pub flags: Vec<String>,
}

impl HostCompiler {
    pub fn from_env() -> Self {
        let cxx = std::env::var("CXX").unwrap_or_default();
        let mut words = cxx.split_whitespace().map(str::to_string);
        match words.next() {
            // Builds that call hipmlir as hipcc often export CXX=hipcc: hipmlir's own host
            // compiler is then the default one, not hipmlir again (which would call itself
            // for ever).
            Some(program) if !is_this_program(&program) => HostCompiler {
                program,
                flags: words.collect(),
            },
            _ => HostCompiler {
                program: DEFAULT_HOST_COMPILERS
                    .into_iter()
                    .find(|c| on_path(c))
                    .unwrap_or("g++")
                    .into(),
                flags: Vec::new(),
            },
        }
    }

    pub fn command(&self) -> Command {
        let mut c = Command::new(&self.program);
        c.args(&self.flags);
        c
    }

    /// The compiler's file as found on `$PATH` (resolved), its size and modification time:
    /// what changes when the compiler is upgraded under the same name, for cache keys.
    pub fn identity(&self) -> String {
        let Some(file) = resolve_program(&self.program) else {
            return String::new();
        };
        let stamp = hipmlir_cache::stamp(&file).unwrap_or_default();
        format!("{} {stamp}", file.display())
    }
}

/// The file `program` (a path, or a name looked up in `$PATH`) runs, links resolved.
fn resolve_program(program: &str) -> Option<PathBuf> {
    let found = if program.contains('/') {
        Some(PathBuf::from(program))
    } else {
        std::env::split_paths(&std::env::var_os("PATH")?)
            .map(|dir| dir.join(program))
            .find(|c| c.is_file())
    };
    found?.canonicalize().ok()
}

/// Whether `program` (a path, or a name looked up in PATH) is this hipmlir executable, under
/// any of its names (hipcc, hipconfig links).
fn is_this_program(program: &str) -> bool {
    let Ok(this) = std::env::current_exe().and_then(|p| p.canonicalize()) else {
        return false;
    };
    // The `hipmlir` launcher beside this compiler is this program too.
    let launcher = this.with_file_name("hipmlir");
    resolve_program(program).is_some_and(|p| p == this || p == launcher)
}

/// Whether `program` is an executable file in a folder of `$PATH`.
pub fn on_path(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            std::fs::metadata(dir.join(program))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}

/// `s` as the inside of a C string literal.
pub fn escape_c(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}
