//! Reading memory whose extent nobody stated (`hipModuleLoadData`'s image) without faulting.
//!
//! The image's own structure (a bundle header, SPIR-V instruction lengths) says how far to read;
//! garbage can claim anything. Every byte is copied with `process_vm_readv` on this process, which
//! fails with EFAULT on an unmapped or unreadable page instead of raising SIGSEGV, so a bad claim
//! becomes an error. Reads are made only as far as the structure asks, in order.
//!
//! [`is_mapped`] answers whether a range is mapped at all (`hipHostRegister`'s range), without
//! touching it.

use std::ffi::c_void;

#[repr(C)]
struct IoVec {
    base: *mut c_void,
    len: usize,
}

extern "C" {
    fn process_vm_readv(
        pid: i32,
        local: *const IoVec,
        local_count: u64,
        remote: *const IoVec,
        remote_count: u64,
        flags: u64,
    ) -> isize;
    fn getpid() -> i32;
    fn msync(addr: *mut c_void, len: usize, flags: i32) -> i32;
}

/// `MS_ASYNC`: schedules nothing for anonymous memory; the call only checks the range.
const MS_ASYNC: i32 = 1;
const PAGE: usize = 4096;

/// Whether every page of `[p, p + len)` (`len` > 0) is mapped in this process. `msync` fails
/// with ENOMEM for a range with an unmapped page, and neither reads nor writes the memory.
pub fn is_mapped(p: usize, len: usize) -> bool {
    let start = p - p % PAGE;
    let Some(end) = p.checked_add(len).filter(|_| len > 0 && p != 0) else {
        return false;
    };
    // SAFETY: msync only inspects the mappings of the page-aligned range.
    unsafe { msync(start as *mut c_void, end - start, MS_ASYNC) == 0 }
}

/// The bytes from `base` on, copied as far as they have been asked for and are readable.
pub struct ProbedMemory {
    base: usize,
    bytes: Vec<u8>,
    /// Where a read failed: nothing at or past it is readable.
    unreadable_at: Option<usize>,
    /// At most this many bytes are ever read.
    limit: usize,
}

/// Copies `dst.len()` bytes from address `src` of this process; the bytes copied before the first
/// unreadable one, or `None` when the kernel refuses the call itself (then the caller cannot
/// probe at all).
fn read_own(src: usize, dst: &mut [u8]) -> Option<usize> {
    let local = IoVec {
        base: dst.as_mut_ptr().cast(),
        len: dst.len(),
    };
    let remote = IoVec {
        base: src as *mut c_void,
        len: dst.len(),
    };
    // SAFETY: `local` is our own writable buffer of that length; the remote range is only read by
    // the kernel, which reports a fault as an error instead of delivering a signal.
    let n = unsafe { process_vm_readv(getpid(), &local, 1, &remote, 1, 0) };
    if n >= 0 {
        return Some(n as usize);
    }
    match std::io::Error::last_os_error().raw_os_error() {
        // EFAULT: the first page is unreadable; ESRCH/ENOMEM: nothing copied either.
        Some(14) | Some(3) | Some(12) => Some(0),
        _ => None,
    }
}

impl ProbedMemory {
    /// Memory from `base`, of which at most `limit` bytes will be read.
    pub fn new(base: *const u8, limit: usize) -> Self {
        ProbedMemory {
            base: base as usize,
            bytes: Vec::new(),
            unreadable_at: None,
            limit,
        }
    }

    /// `len` bytes at offset `at`: `Err` with a reason when they lie past the limit or are not
    /// all readable.
    pub fn get(&mut self, at: usize, len: usize) -> Result<&[u8], String> {
        let end = at
            .checked_add(len)
            .filter(|&e| e <= self.limit)
            .ok_or_else(|| {
                format!(
                    "the image's structure reaches past {} bytes (the most accepted)",
                    self.limit
                )
            })?;
        if end > self.bytes.len() {
            self.extend_to(end)?;
        }
        Ok(&self.bytes[at..end])
    }

    fn extend_to(&mut self, end: usize) -> Result<(), String> {
        let unreadable = |at: usize| {
            format!("the image's structure claims {end} bytes but memory stops being readable at byte {at}")
        };
        if let Some(at) = self.unreadable_at.filter(|&at| end > at) {
            return Err(unreadable(at));
        }
        let mut done = self.bytes.len();
        self.bytes.resize(end, 0);
        while done < end {
            let Some(base) = self.base.checked_add(done) else {
                self.bytes.truncate(done);
                self.unreadable_at = Some(done);
                return Err(unreadable(done));
            };
            match read_own(base, &mut self.bytes[done..end]) {
                Some(0) => {
                    self.bytes.truncate(done);
                    self.unreadable_at = Some(done);
                    return Err(unreadable(done));
                }
                Some(n) => done += n,
                None => {
                    // The kernel refuses process_vm_readv (a seccomp filter): trust the caller's
                    // promise that the image is complete, as HIP itself does.
                    // SAFETY: per hipModuleLoadData's contract, the image spans these bytes.
                    let src =
                        unsafe { std::slice::from_raw_parts((base) as *const u8, end - done) };
                    self.bytes[done..end].copy_from_slice(src);
                    done = end;
                }
            }
        }
        Ok(())
    }

    /// The first `len` bytes, read as needed.
    pub fn take(mut self, len: usize) -> Result<Vec<u8>, String> {
        self.get(0, len)?;
        self.bytes.truncate(len);
        Ok(self.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_is_there_and_stops_at_an_unmapped_page() {
        let data: Vec<u8> = (0..=255).collect();
        let mut m = ProbedMemory::new(data.as_ptr(), 1 << 20);
        assert_eq!(m.get(10, 4).unwrap(), &[10, 11, 12, 13]);
        assert_eq!(m.get(0, 256).unwrap(), &data[..]);
        // Address 0's page is never mapped.
        let mut null = ProbedMemory::new(std::ptr::null(), 1 << 20);
        assert!(null.get(0, 4).unwrap_err().contains("readable"));
        assert!(null.get(0, 4).is_err(), "remembered");
        let mut limited = ProbedMemory::new(data.as_ptr(), 16);
        assert!(limited.get(8, 16).unwrap_err().contains("most accepted"));
        assert!(limited.get(usize::MAX, 2).is_err());
        assert_eq!(
            ProbedMemory::new(data.as_ptr(), 64).take(3).unwrap(),
            [0, 1, 2]
        );
    }

    #[test]
    fn mapped_ranges_are_told_from_unmapped_ones() {
        let data = vec![0u8; 3 * PAGE];
        assert!(is_mapped(data.as_ptr() as usize + 5, 2 * PAGE));
        assert!(!is_mapped(0, 16));
        assert!(!is_mapped(data.as_ptr() as usize, 0));
        assert!(!is_mapped(data.as_ptr() as usize, usize::MAX / 2));
        assert!(!is_mapped(usize::MAX - 8, 16));
    }
}
