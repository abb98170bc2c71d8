//! Where hipmlir keeps what it caches on disk: the runtime's built programs, the compiler's
//! precompiled headers and preambles and hiprtc's compiles, all under one folder the
//! environment chooses, and what their caches share: keys, stamps of the files an entry was
//! made from, marks of first sight, entries written whole, eviction. Also hipmlir's one reading
//! of its on/off variables ([`says_off`]), which the cache folder's switch is one of.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use sha2::{Digest, Sha256};

/// `$HIPMLIR_CACHE_DIR`, else `$XDG_CACHE_HOME/hipmlir`, else `~/.cache/hipmlir`; `None` when
/// `HIPMLIR_DISABLE_CACHE` is set (to anything but `0`/`false`/`no`/`off`) or there is no home.
pub fn cache_dir_from_env(get: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let set = |name: &str| get(name).filter(|v| !v.is_empty());
    if let Some(v) = set("HIPMLIR_DISABLE_CACHE") {
        if !says_off(&v) {
            return None;
        }
    }
    if let Some(dir) = set("HIPMLIR_CACHE_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(xdg) = set("XDG_CACHE_HOME").filter(|x| Path::new(x).is_absolute()) {
        return Some(Path::new(&xdg).join("hipmlir"));
    }
    set("HOME").map(|home| Path::new(&home).join(".cache").join("hipmlir"))
}

/// Whether a switch variable's value says no (`0`, `false`, `no`, `off`): hipmlir's one reading
/// of its on/off variables.
pub fn says_off(value: &str) -> bool {
    matches!(value.trim(), "0" | "false" | "no" | "off")
}

/// A cache key: SHA-256 over length-prefixed fields, so that concatenated fields cannot alias.
#[derive(Default)]
pub struct CacheKey(Sha256);

impl CacheKey {
    pub fn field(&mut self, data: impl AsRef<[u8]>) -> &mut Self {
        let data = data.as_ref();
        self.0.update((data.len() as u64).to_le_bytes());
        self.0.update(data);
        self
    }

    /// The path and content of every file of `dir` (sorted, recursively): a key over a folder
    /// of headers. `None` when one cannot be read.
    pub fn files_of(&mut self, dir: &Path) -> Option<&mut Self> {
        let mut files = Vec::new();
        collect_files(dir, &mut files).ok()?;
        files.sort();
        for file in files {
            self.field(file.display().to_string());
            self.field(std::fs::read(&file).ok()?);
        }
        Some(self)
    }

    /// Lowercase hex.
    pub fn hex(&mut self) -> String {
        let digest = std::mem::take(&mut self.0).finalize();
        digest.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// A file's size and modification time, as a cache records the files an entry was made from
/// (clang checks the headers a PCH holds the same way).
pub fn stamp(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    let time = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some(format!("{} {}", meta.len(), time.as_nanos()))
}

/// `stamp<TAB>path` lines for `paths`, or `None` when one cannot be read.
pub fn stamps<P: AsRef<Path>>(paths: impl IntoIterator<Item = P>) -> Option<String> {
    let mut out = String::new();
    for path in paths {
        let path = path.as_ref();
        out += &format!("{}\t{}\n", stamp(path)?, path.display());
    }
    Some(out)
}

/// Whether a mark against making a cache entry (a [`stamps`] file of the headers that made it
/// unsuitable) still holds: every file it lists is as it was. One that no longer holds is
/// removed, so that the entry is tried again.
pub fn mark_against_holds(mark: &Path) -> bool {
    if !mark.is_file() {
        return false;
    }
    if stamps_unchanged(mark) {
        return true;
    }
    let _ = std::fs::remove_file(mark);
    false
}

/// Whether every file a [`stamps`] file lists is as it was.
pub fn stamps_unchanged(file: &Path) -> bool {
    std::fs::read_to_string(file).is_ok_and(|listed| stamps_hold(&listed))
}

/// Whether every file that [`stamps`] text lists is as it was.
pub fn stamps_hold(listed: &str) -> bool {
    listed.lines().all(|line| {
        line.split_once('\t')
            .is_some_and(|(recorded, path)| stamp(Path::new(path)).as_deref() == Some(recorded))
    })
}

/// The bytes before an entry's payload: its kind's magic, the payload's length (u64 LE) and the
/// payload's SHA-256.
const ENTRY_HEADER_LEN: usize = 8 + 8 + 32;

/// A cache entry as it is stored: `magic` (the kind of entry), the payload's length and
/// SHA-256, the payload. [`decode_entry`] checks all three, so a truncated or damaged file is
/// never taken for an entry.
pub fn encode_entry(magic: &[u8; 8], payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(ENTRY_HEADER_LEN + payload.len());
    out.extend_from_slice(magic);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&sha256(payload));
    out.extend_from_slice(payload);
    out
}

/// The payload of an entry written by [`encode_entry`] with `magic`; the error says what is
/// wrong with it.
pub fn decode_entry<'a>(magic: &[u8; 8], bytes: &'a [u8]) -> Result<&'a [u8], String> {
    if bytes.len() < ENTRY_HEADER_LEN {
        return Err(format!("truncated header ({} bytes)", bytes.len()));
    }
    if &bytes[..8] != magic {
        return Err("bad magic".into());
    }
    let len = u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes"));
    let payload = &bytes[ENTRY_HEADER_LEN..];
    if payload.len() as u64 != len {
        return Err(format!(
            "payload is {} bytes, header says {len}",
            payload.len()
        ));
    }
    if sha256(payload)[..] != bytes[16..48] {
        return Err("checksum mismatch".into());
    }
    if payload.is_empty() {
        return Err("empty payload".into());
    }
    Ok(payload)
}

/// Writes `bytes` to `path` as a whole or not at all: to a unique temporary file in the same
/// folder (synced), then renamed into place, so that readers see a whole entry or none and
/// concurrent writers of one entry replace each other's.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = path.with_file_name(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let written = std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_files(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

/// Whether `key` was seen in `dir` before; the first time, leaves a mark (`<key>.seen`) and says
/// no. Caches whose entries cost more to make than one use saves make them on the second sight.
/// The most recent `SEEN_MARKS_KEPT` marks are kept: keys seen once and never again (a source
/// built from a new folder each time names its headers by new paths) would pile up.
pub fn seen_before(dir: &Path, key: &str) -> bool {
    let mark = dir.join(format!("{key}.seen"));
    if mark.is_file() {
        let _ = std::fs::remove_file(&mark);
        return true;
    }
    let _ = std::fs::write(&mark, b"");
    keep_most_recent(dir, SEEN_MARKS_KEPT, |p| {
        p.extension().is_some_and(|x| x == "seen")
    });
    false
}

/// The marks of first sight a cache folder keeps.
const SEEN_MARKS_KEPT: usize = 1000;

/// Marks a cache entry (file or folder) as used now, for [`keep_most_recent`].
pub fn mark_used(entry: &Path) {
    if let Ok(file) = std::fs::File::open(entry) {
        let _ = file.set_modified(SystemTime::now());
    }
}

/// Removes the least recently used entries of `dir` that `is_entry` accepts until together they
/// take at most `max_bytes` (an entry's size: a file's, or the files' of a folder).
pub fn keep_within(dir: &Path, max_bytes: u64, is_entry: impl Fn(&Path) -> bool) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut found: Vec<(SystemTime, u64, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| is_entry(p))
        .filter_map(|p| Some((p.metadata().ok()?.modified().ok()?, size_of(&p), p)))
        .collect();
    let mut total: u64 = found.iter().map(|(_, size, _)| size).sum();
    found.sort();
    for (_, size, path) in &found {
        if total <= max_bytes {
            break;
        }
        let removed = if path.is_dir() {
            std::fs::remove_dir_all(path)
        } else {
            std::fs::remove_file(path)
        };
        if removed.is_ok() {
            total -= size;
        }
    }
}

/// The bytes a file holds, or all the files of a folder.
fn size_of(path: &Path) -> u64 {
    let mut files = Vec::new();
    if path.is_dir() {
        let _ = collect_files(path, &mut files);
    } else {
        files.push(path.to_path_buf());
    }
    files
        .iter()
        .filter_map(|f| f.metadata().ok())
        .map(|m| m.len())
        .sum()
}

/// Removes the least recently used entries of `dir` that `is_entry` accepts, beyond `keep`.
pub fn keep_most_recent(dir: &Path, keep: usize, is_entry: impl Fn(&Path) -> bool) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut found: Vec<(SystemTime, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| is_entry(p))
        .filter_map(|p| Some((p.metadata().ok()?.modified().ok()?, p)))
        .collect();
    if found.len() <= keep {
        return;
    }
    found.sort();
    for (_, path) in &found[..found.len() - keep] {
        let _ = if path.is_dir() {
            std::fs::remove_dir_all(path)
        } else {
            std::fs::remove_file(path)
        };
    }
}

/// The file of the code running: the shared library that holds it (`libhiprtc.so`, which holds
/// the compiler), else the executable.
pub fn code_file() -> Option<PathBuf> {
    shared_library()
        .or_else(|| std::env::current_exe().ok())
        .map(|p| p.canonicalize().unwrap_or(p))
}

/// The shared library this code was loaded from, if it was.
fn shared_library() -> Option<PathBuf> {
    use std::ffi::{CStr, OsStr};
    use std::os::unix::ffi::OsStrExt;
    // SAFETY: Dl_info is plain data; dladdr fills it for an address of this code.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    let found = unsafe { libc::dladdr(code_file as *const libc::c_void, &mut info) };
    if found == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: a NUL-terminated name owned by the loader, read at once.
    let name = unsafe { CStr::from_ptr(info.dli_fname) };
    let path = PathBuf::from(OsStr::from_bytes(name.to_bytes()));
    // The main program's entry names the executable as it was started, or nothing.
    let is_library = path
        .file_name()
        .is_some_and(|n| n.to_string_lossy().contains(".so"));
    is_library.then_some(path)
}

/// Which build of the compiler is running: the size and time of the file holding its code.
/// Part of every compiler cache's key, so that a rebuilt or upgraded compiler never takes what
/// another build made (a precompiled header, a preamble, or the decision that one is
/// unsuitable). An empty string where the file cannot be read.
pub fn code_stamp() -> &'static str {
    static STAMP: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    STAMP.get_or_init(|| code_file().and_then(|f| stamp(&f)).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_entries_go_first_until_the_rest_fit() {
        let dir = std::env::temp_dir().join(format!("hipmlir-keep-within-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("c")).unwrap();
        let old = SystemTime::now() - std::time::Duration::from_secs(100);
        for (name, age) in [("a", 3), ("b", 2)] {
            let path = dir.join(name);
            std::fs::write(&path, [0u8; 100]).unwrap();
            let f = std::fs::File::options().write(true).open(&path).unwrap();
            f.set_modified(old - std::time::Duration::from_secs(age))
                .unwrap();
        }
        std::fs::write(dir.join("c/x"), [0u8; 100]).unwrap();
        std::fs::write(dir.join("c/y"), [0u8; 50]).unwrap();
        keep_within(&dir, 260, |_| true);
        assert!(!dir.join("a").exists(), "the oldest entry stays");
        assert!(dir.join("b").exists() && dir.join("c").exists());
        keep_within(&dir, 150, |p| p.is_dir());
        assert!(
            dir.join("c").exists(),
            "only folders are entries here: 150 bytes fit"
        );
        keep_within(&dir, 149, |p| p.is_dir());
        assert!(!dir.join("c").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn marks_of_first_sight_are_kept_to_the_most_recent() {
        let dir = std::env::temp_dir().join(format!("hipmlir-seen-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let old = SystemTime::now() - std::time::Duration::from_secs(1000);
        for i in 0..SEEN_MARKS_KEPT {
            let path = dir.join(format!("old{i}.seen"));
            std::fs::write(&path, b"").unwrap();
            let f = std::fs::File::options().write(true).open(&path).unwrap();
            f.set_modified(old).unwrap();
        }
        std::fs::write(dir.join("entry.pch"), b"").unwrap();
        assert!(!seen_before(&dir, "new"));
        let marks = std::fs::read_dir(&dir)
            .unwrap()
            .filter(|e| e.as_ref().unwrap().path().extension().unwrap() == "seen")
            .count();
        assert_eq!(marks, SEEN_MARKS_KEPT);
        assert!(
            dir.join("entry.pch").exists(),
            "an entry was taken for a mark"
        );
        assert!(seen_before(&dir, "new"), "the newest mark was removed");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn folder_follows_the_environment() {
        assert_eq!(
            cache_dir_from_env(env(&[("HOME", "/home/u")])),
            Some(PathBuf::from("/home/u/.cache/hipmlir"))
        );
        assert_eq!(
            cache_dir_from_env(env(&[("HOME", "/home/u"), ("XDG_CACHE_HOME", "/x")])),
            Some(PathBuf::from("/x/hipmlir"))
        );
        // A relative XDG_CACHE_HOME is ignored, as the XDG spec says.
        assert_eq!(
            cache_dir_from_env(env(&[("HOME", "/h"), ("XDG_CACHE_HOME", "rel")])),
            Some(PathBuf::from("/h/.cache/hipmlir"))
        );
        assert_eq!(
            cache_dir_from_env(env(&[
                ("XDG_CACHE_HOME", "/x"),
                ("HIPMLIR_CACHE_DIR", "/c")
            ])),
            Some(PathBuf::from("/c"))
        );
        assert_eq!(
            cache_dir_from_env(env(&[
                ("HIPMLIR_CACHE_DIR", "/c"),
                ("HIPMLIR_DISABLE_CACHE", "1")
            ])),
            None
        );
        assert_eq!(
            cache_dir_from_env(env(&[
                ("HIPMLIR_CACHE_DIR", "/c"),
                ("HIPMLIR_DISABLE_CACHE", "0")
            ])),
            Some(PathBuf::from("/c"))
        );
        assert_eq!(cache_dir_from_env(env(&[])), None);
    }
}
