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
    /// Named by `$CXX` (else one of [`DEFAULT_HOST_COMPILERS`], which adds no folders of its
    /// own to a compile's search: see [`HostCompiler::search_flags`]).
    from_cxx: bool,
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
                from_cxx: true,
            },
            _ => HostCompiler {
                program: DEFAULT_HOST_COMPILERS
                    .into_iter()
                    .find(|c| on_path(c))
                    .unwrap_or("g++")
                    .into(),
                flags: Vec::new(),
                from_cxx: false,
            },
        }
    }

    pub fn command(&self) -> Command {
        let mut c = Command::new(&self.program);
        c.args(&self.flags);
        c
    }

    /// The include folders this compiler adds to every compile on its own, as `-I`/`-iquote`
    /// flags: a compiler wrapper's (`CXX=mpicxx` adds the MPI library's headers), or `-I`
    /// flags written into `$CXX`. The device parse of a source must find the headers the host
    /// compile finds. Read from the compiler's own report of its search list (`-v`), with its
    /// standard folders left out (`-nostdinc -nostdinc++`), as GCC and clang write it.
    pub fn search_flags(&self) -> Vec<String> {
        if !self.from_cxx {
            return Vec::new();
        }
        let mut cmd = self.command();
        cmd.args(["-x", "c++", "-E", "-v", "-nostdinc", "-nostdinc++"])
            .args(["-o", "/dev/null", "/dev/null"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null());
        match cmd.output() {
            Ok(out) => search_list_flags(&String::from_utf8_lossy(&out.stderr)),
            Err(_) => Vec::new(),
        }
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

/// The folders of a GCC or clang `-v` report's search lists (`#include "..." search starts
/// here:`, then `#include <...> ...`, each folder on a line that begins with a space, ended by
/// `End of search list.`) as `-iquote DIR` and `-I DIR` flags. Framework folders (clang on
/// macOS) are not include folders.
fn search_list_flags(report: &str) -> Vec<String> {
    let mut flags = Vec::new();
    let mut list = None;
    for line in report.lines() {
        if line.starts_with("#include \"...\" search starts here") {
            list = Some("-iquote");
        } else if line.starts_with("#include <...> search starts here") {
            list = Some("-I");
        } else if line.starts_with("End of search list") {
            list = None;
        } else if let (Some(flag), Some(dir)) = (list, line.strip_prefix(' ')) {
            if !dir.ends_with("(framework directory)") {
                flags.push(format!("{flag}{}", dir.trim()));
            }
        }
    }
    flags
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
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            // A newline (or another control character) in a file name would end the directive or
            // literal: three octal digits, which C, `#line` and the assembler's strings all read.
            c if c.is_ascii_control() => out.push_str(&format!("\\{:03o}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// The text of a copy of `original` the host compiler reads: a `#line` first, so that its
/// diagnostics and `__FILE__` name the original, then `text` without the UTF-8 byte-order mark
/// it may begin with (the compiler skips one only at the very start of a file).
pub fn copy_naming(original: &str, text: &[u8]) -> Vec<u8> {
    const BYTE_ORDER_MARK: &[u8] = b"\xef\xbb\xbf";
    let text = text.strip_prefix(BYTE_ORDER_MARK).unwrap_or(text);
    [
        format!("#line 1 \"{}\"\n", escape_c(original)).as_bytes(),
        text,
    ]
    .concat()
}

#[cfg(test)]
mod tests {
    use super::{escape_c, search_list_flags};

    #[test]
    fn control_characters_in_names_are_octal_escapes() {
        assert_eq!(escape_c("a\\b\"c"), "a\\\\b\\\"c");
        assert_eq!(escape_c("new\nline\t.hip"), "new\\012line\\011.hip");
        assert_eq!(escape_c("café.hip"), "café.hip");
    }

    #[test]
    fn search_lists_of_gcc_and_clang_reports() {
        // GCC under an MPI wrapper, its standard folders left out.
        let gcc = "ignoring nonexistent directory \"/nowhere\"\n\
                   #include \"...\" search starts here:\n#include <...> search starts here:\n\
                   \x20/usr/lib/x86_64-linux-gnu/openmpi/include\n\
                   \x20/usr/lib/x86_64-linux-gnu/openmpi/include/openmpi\nEnd of search list.\n";
        assert_eq!(
            search_list_flags(gcc),
            [
                "-I/usr/lib/x86_64-linux-gnu/openmpi/include",
                "-I/usr/lib/x86_64-linux-gnu/openmpi/include/openmpi"
            ]
        );
        // Clang with -iquote and -I folders, and a framework folder.
        let clang = "clang -cc1 version 22.0.0 based upon LLVM 22.0.0 default target x86_64\n\
                     #include \"...\" search starts here:\n /q\n\
                     #include <...> search starts here:\n /a b\n /F (framework directory)\n\
                     End of search list.\n # 1 \"/dev/null\"\n";
        assert_eq!(search_list_flags(clang), ["-iquote/q", "-I/a b"]);
        assert!(
            search_list_flags("#include <...> search starts here:\nEnd of search list.\n")
                .is_empty()
        );
    }
}
