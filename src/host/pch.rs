//! Precompiled headers for the host compile, GCC's (`.gch`) and clang's (`.pch`), and the
//! prefix header's (`hip/hip_runtime.h`, which brings in `<cmath>`, `<algorithm>`, `<complex>`,
//! ...) cached on disk: loading one takes a fraction of the time parsing the headers does.
//!
//! Both compilers take `-include DIR/X.h` as `X.h.gch` (GCC) or `X.h.pch` (clang) when that
//! file lies beside it. GCC ignores one it cannot use and reads the header, so a PCH never
//! changes a result; clang refuses one, naming it, and the host compile then removes it and
//! compiles again without (`host::compile_host_source`).
//!
//! * Folder: `<cache>/host-pch/<key>/hip/` (the cache folder of the runtime's program cache):
//!   links to each of hipmlir's headers and the prefix header's PCH; the compile takes
//!   `-include` of the linked prefix header, and the folder first among its include folders.
//! * Key: SHA-256 over hipmlir's version, the host compiler (its file's path, size and time) and
//!   its command, the compile flags and the path and content of every hipmlir header.
//! * When: the second time a key is seen (the first leaves a mark), since making one costs
//!   about three compiles; for GCC and clang.
//! * Concurrency: made in place (clang's PCHs name the paths they were made from, so one cannot
//!   be made elsewhere and moved): the build that creates the folder makes it, and a marker
//!   written last says it is complete (`Entry`).
//!
//! Clang's are made with `-fpch-instantiate-templates`: the templates the headers' own inline
//! code needs are instantiated once in the PCH, not again by every compile that loads it (with
//! `<complex>`'s `<sstream>`, that was 0.1 s of each compile).

use std::path::{Path, PathBuf};
use std::process::Stdio;

use hipmlir_cache::{cache_dir_from_env, keep_most_recent, mark_used, seen_before, CacheKey};

use super::cxx::HostCompiler;

/// At most this many PCH folders are kept (about 40 MB each): one per set of flags.
const KEPT: usize = 8;

const PREFIX_HEADER: &str = "hip/hip_runtime.h";

/// The host compilers hipmlir precompiles headers for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PchKind {
    Gcc,
    Clang,
}

impl PchKind {
    const ALL: [PchKind; 2] = [PchKind::Gcc, PchKind::Clang];

    /// The compiler `$CXX --version` names, if it is one of these.
    pub fn of(cxx: &HostCompiler) -> Option<PchKind> {
        let mut cmd = cxx.command();
        cmd.arg("--version").stderr(Stdio::null());
        let out = cmd.output().ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        if text.contains("clang version") {
            Some(PchKind::Clang)
        } else if text.contains("Free Software Foundation") {
            Some(PchKind::Gcc)
        } else {
            None
        }
    }

    /// The PCH that `-include header` loads.
    pub fn file(self, header: &Path) -> PathBuf {
        let extension = match self {
            PchKind::Gcc => "gch",
            PchKind::Clang => "pch",
        };
        let mut name = header.as_os_str().to_owned();
        name.push(format!(".{extension}"));
        PathBuf::from(name)
    }

    /// The PCH lying beside `header`, and whose it is.
    pub fn beside(header: &Path) -> Option<(PchKind, PathBuf)> {
        PchKind::ALL
            .into_iter()
            .map(|kind| (kind, kind.file(header)))
            .find(|(_, file)| file.is_file())
    }
}

/// Precompiles `header` with `flags` beside it; `dependencies` names a file to list the headers
/// it read in (`-MD`). With `instantiate_templates`, clang's PCH holds the template instances
/// the header needs, so that no compile that loads it makes them again. Returns what the
/// compiler printed (its warnings).
pub fn precompile(
    cxx: &HostCompiler,
    kind: PchKind,
    flags: &[String],
    header: &Path,
    dependencies: Option<&Path>,
    instantiate_templates: bool,
    verbose: bool,
) -> Option<String> {
    let mut cmd = cxx.command();
    cmd.args(flags);
    if kind == PchKind::Clang && instantiate_templates {
        cmd.arg("-fpch-instantiate-templates");
    }
    cmd.arg("-x")
        .arg("c++-header")
        .arg(header)
        .arg("-o")
        .arg(kind.file(header))
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(file) = dependencies {
        cmd.arg("-MD").arg("-MF").arg(file);
    }
    if verbose {
        eprintln!("hipmlir: precompiling a host header: {cmd:?}");
    }
    let output = cmd.output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stderr).into_owned())
}

/// The cache key of a host PCH: the build of hipmlir, the compiler and its command, the flags and
/// hipmlir's headers.
pub fn key(cxx: &HostCompiler, flags: &[String], hip_include_dir: &Path) -> Option<CacheKey> {
    let mut key = CacheKey::default();
    key.field(hipmlir_cache::code_stamp())
        .field(cxx.identity())
        .field(&cxx.program);
    for flag in cxx.flags.iter().chain([&"--".to_string()]).chain(flags) {
        key.field(flag);
    }
    key.files_of(&hip_include_dir.join("hip"))?;
    Some(key)
}

/// The prefix header to `-include` in a host compile with `flags` (which do not depend on the
/// source), with its PCH beside it, or `None` when there is no usable PCH for them (yet).
pub fn prefix_header(
    cxx: &HostCompiler,
    flags: &[String],
    hip_include_dir: &Path,
    verbose: bool,
) -> Option<PathBuf> {
    let root = cache_dir_from_env(|name| std::env::var(name).ok())?.join("host-pch");
    let key = key(cxx, flags, hip_include_dir)?.hex();
    let entry = Entry::new(root.join(&key), MADE);
    let header = entry.dir.join(PREFIX_HEADER);
    if entry.is_made() {
        mark_used(&entry.dir);
        return Some(header);
    }
    if !entry.may_make(&root, &key) {
        return None;
    }
    let kind = PchKind::of(cxx)?;
    let made = entry.make(|dir| {
        make(cxx, kind, flags, hip_include_dir, dir, verbose)?;
        Some(String::new())
    });
    keep_most_recent(&root, KEPT, |p| p.is_dir());
    made.then_some(header)
}

/// The marker of a complete prefix header folder.
const MADE: &str = "made";

/// A cache folder made in place: complete once its marker file exists (written last).
pub struct Entry {
    pub dir: PathBuf,
    marker: &'static str,
}

/// A folder without its marker for this long was left by a build that stopped.
const ABANDONED: std::time::Duration = std::time::Duration::from_secs(600);

impl Entry {
    pub fn new(dir: PathBuf, marker: &'static str) -> Entry {
        Entry { dir, marker }
    }

    pub fn marker(&self) -> PathBuf {
        self.dir.join(self.marker)
    }

    pub fn is_made(&self) -> bool {
        self.marker().is_file()
    }

    /// Whether this build should make the entry: it is not there (an abandoned one is removed)
    /// and its key (in `root`) was seen before.
    pub fn may_make(&self, root: &Path, key: &str) -> bool {
        if self.dir.is_dir() {
            let abandoned = std::fs::metadata(&self.dir)
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > ABANDONED));
            if abandoned {
                let _ = std::fs::remove_dir_all(&self.dir);
            }
            return false;
        }
        std::fs::create_dir_all(root).is_ok() && seen_before(root, key)
    }

    /// Creates the folder (only one build succeeds), fills it with `fill`, and writes the marker
    /// with the text `fill` returns; on any failure the folder is removed.
    pub fn make(&self, fill: impl FnOnce(&Path) -> Option<String>) -> bool {
        if std::fs::create_dir(&self.dir).is_err() {
            return false;
        }
        let temporary = self.dir.join(format!(".{}.tmp", self.marker));
        let made = fill(&self.dir)
            .and_then(|text| std::fs::write(&temporary, text).ok())
            .and_then(|()| std::fs::rename(&temporary, self.marker()).ok());
        if made.is_none() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
        made.is_some()
    }
}

/// The include folder a prefix header from `prefix_header` lies in (`<folder>/hip/...`).
pub fn include_dir_of(prefix_header: &Path) -> Option<&Path> {
    prefix_header.parent()?.parent()
}

/// Makes `<dir>/hip/`: links to each of hipmlir's HIP headers and the PCH of the prefix header.
fn make(
    cxx: &HostCompiler,
    kind: PchKind,
    flags: &[String],
    hip_include_dir: &Path,
    dir: &Path,
    verbose: bool,
) -> Option<()> {
    let hip = dir.join("hip");
    std::fs::create_dir_all(&hip).ok()?;
    for entry in std::fs::read_dir(hip_include_dir.join("hip")).ok()? {
        let entry = entry.ok()?;
        std::os::unix::fs::symlink(entry.path(), hip.join(entry.file_name())).ok()?;
    }
    precompile(
        cxx,
        kind,
        flags,
        &dir.join(PREFIX_HEADER),
        None,
        true,
        verbose,
    )
    .map(|_| ())
}
