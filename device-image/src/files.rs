//! Reading files that hold device code, and bounded reads of standard input (the runtime's `.hipk` archives, `.spv` modules,
//! `hipModuleLoad` files and program cache entries; the files `hipmlir inspect` reads): only
//! regular files (a symlink is followed to
//! one), at most [`MAX_DEVICE_FILE`] bytes. A path that leads to a device, a FIFO or a folder is
//! an error at once instead of a read that never ends (`/dev/urandom`) or never starts (a FIFO
//! with no writer: it is opened non-blocking).

use std::io::{Error, ErrorKind, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The largest device-code file or cache entry read: 1 GiB.
pub const MAX_DEVICE_FILE: u64 = 1 << 30;

/// Linux's O_NONBLOCK (the same on every architecture Rust's std supports there, save Alpha,
/// SPARC, PA-RISC and MIPS, which have no OpenCL SPIR-V devices worth naming).
const O_NONBLOCK: i32 = 0o4000;

fn invalid(path: &Path, why: String) -> Error {
    Error::new(ErrorKind::InvalidData, format!("{}: {why}", path.display()))
}

fn check(path: &Path, meta: &std::fs::Metadata, max: u64) -> std::io::Result<()> {
    if !meta.is_file() {
        return Err(invalid(path, "not a regular file".into()));
    }
    if meta.len() > max {
        return Err(invalid(
            path,
            format!("{} bytes, more than the {max} accepted", meta.len()),
        ));
    }
    Ok(())
}

/// The contents of the regular file at `path` (symlinks followed), at most `max` bytes. Errors
/// of kind `InvalidData` for anything else or anything larger.
pub fn read_regular(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    check(path, &std::fs::metadata(path)?, max)?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(O_NONBLOCK)
        .open(path)?;
    // The path may have been replaced between the two looks: what was opened decides.
    let meta = file.metadata()?;
    check(path, &meta, max)?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(invalid(path, format!("grew past the {max} bytes accepted")));
    }
    Ok(bytes)
}

/// At most `max` bytes of a stream (standard input), named `name` in the error: a pipe from
/// `/dev/zero` is an error once `max` is passed, not a read until memory runs out.
pub fn read_bounded(stream: impl Read, name: &str, max: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    stream.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(invalid(
            Path::new(name),
            format!("more than the {max} bytes accepted"),
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bounded_regular_files_are_read() {
        let dir = std::env::temp_dir().join(format!("hipmlir-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.bin");
        std::fs::write(&file, b"hello").unwrap();
        assert_eq!(read_regular(&file, 100).unwrap(), b"hello");
        assert_eq!(
            read_regular(&file, 4).unwrap_err().kind(),
            ErrorKind::InvalidData
        );
        let link = dir.join("link.bin");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert_eq!(read_regular(&link, 100).unwrap(), b"hello");
        // Once: these read forever (or blocked in open).
        let random = dir.join("random.bin");
        let _ = std::fs::remove_file(&random);
        std::os::unix::fs::symlink("/dev/urandom", &random).unwrap();
        for p in [random.as_path(), Path::new("/dev/zero"), dir.as_path()] {
            assert_eq!(
                read_regular(p, MAX_DEVICE_FILE).unwrap_err().kind(),
                ErrorKind::InvalidData,
                "{}",
                p.display()
            );
        }
        assert_eq!(
            read_regular(&dir.join("missing"), 100).unwrap_err().kind(),
            ErrorKind::NotFound
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn streams_are_read_up_to_the_bound() {
        assert_eq!(read_bounded(&b"abc"[..], "<stdin>", 3).unwrap(), b"abc");
        let endless = std::io::repeat(0);
        let error = read_bounded(endless, "<stdin>", 1 << 20).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::InvalidData);
        assert!(
            error.to_string().starts_with("<stdin>: more than"),
            "{error}"
        );
    }
}
