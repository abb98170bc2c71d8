//! The memory checker's vocabulary (`-fsanitize=address`), shared by the pass that instruments
//! device code and the runtime that reads its reports: the access sites the image lists, and
//! the layout of the memory through which checked device code and the runtime talk.
//!
//! Every word is 64 bits. A checked module's state variable
//! ([`MEMCHECK_STATE_VARIABLE`](crate::MEMCHECK_STATE_VARIABLE)) points to its **state**:
//! `[STATE_TABLE]` the device's allocation table, `[STATE_ERROR]` the error word (0 until the
//! first bad access claims it), `[STATE_REPORT]` the report's address, `[STATE_DYNAMIC_SHARED]`
//! the launch's dynamic shared memory, then scratch words. The **table** starts with its
//! **index**: `[bits, start, end, start, end, ...]`, `2^bits` slots each holding an allocation
//! found by its start ([`slot`]; empty: zeros, a slot two starts share holds the lower one);
//! then come its **ranges**: `[count, base0, end0, base1, end1, ...]`, sorted by base, ranges
//! disjoint: every live allocation a kernel may reach. A kernel gets its pointer arguments'
//! extents from the runtime as parameters (`KernelInfo::memcheck_extents`); other functions
//! find an argument's allocation in the index with no loop, once per work-item (most arguments
//! point to the start of one). The ranges are binary-searched only for an access outside
//! those. (The index
//! first: a kernel's entry reads the state, then the index's bits, then a slot, with no count
//! to read in between; each is a load waiting for the one before, which a GPU pays at every
//! short kernel's start.) The
//! **report** is written once, by the work-item whose bad access claimed the error word,
//! `REPORT_RAISED` last (the site's number plus one).

use serde::{Deserialize, Serialize};

/// Words of the state.
pub const STATE_TABLE: u64 = 0;
pub const STATE_ERROR: u64 = 1;
pub const STATE_REPORT: u64 = 2;
/// The bytes of dynamic shared memory (`extern __shared__`) the module's launches have: the
/// runtime writes it before a launch (the largest of the launches that may run at once).
pub const STATE_DYNAMIC_SHARED: u64 = 3;
/// Words a skipped access reads or writes instead of its bad address.
pub const STATE_SCRATCH: u64 = 4;
pub const STATE_SCRATCH_BYTES: u64 = 256;
pub const STATE_WORDS: u64 = STATE_SCRATCH + STATE_SCRATCH_BYTES / 8;

/// Words of the report.
pub const REPORT_RAISED: u64 = 0;
/// The bad access's address.
pub const REPORT_ADDRESS: u64 = 1;
/// The start of the object a statically known access was checked against (0: the table).
pub const REPORT_BASE: u64 = 2;
/// threadIdx.x, .y, .z, then blockIdx.x, .y, .z.
pub const REPORT_THREAD: u64 = 3;
pub const REPORT_BLOCK: u64 = 6;
/// The size of the object a statically known access was checked against (dynamic shared
/// memory's is known at the launch only).
pub const REPORT_SIZE: u64 = 9;
pub const REPORT_WORDS: u64 = 10;

/// The multiplier of the index's hash (Fibonacci hashing: the top `bits` bits of the product).
pub const INDEX_MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;
/// The low bits of a start the hash ignores (allocations are at least 16-byte aligned).
pub const INDEX_SHIFT: u64 = 4;
/// The index's size: at least `4 x` the allocations' slots, within these bounds.
const INDEX_BITS_MIN: u32 = 4;
const INDEX_BITS_MAX: u32 = 20;

/// The index slot of an allocation starting at `start`, of an index of `2^bits` slots (the
/// device computes the same).
pub fn slot(start: u64, bits: u32) -> usize {
    ((start >> INDEX_SHIFT).wrapping_mul(INDEX_MULTIPLIER) >> (64 - bits)) as usize
}

/// The word of an index of `2^bits` slots where its table's ranges start (their count).
pub fn ranges_word(bits: u32) -> usize {
    1 + (2 << bits)
}

/// The table's words, index first, for sorted, disjoint `ranges` (start, end).
pub fn table_words(ranges: &[(u64, u64)]) -> Vec<u64> {
    let wanted = (4 * ranges.len())
        .max(1)
        .next_power_of_two()
        .trailing_zeros();
    let bits = wanted.clamp(INDEX_BITS_MIN, INDEX_BITS_MAX);
    let mut words = vec![0; ranges_word(bits)];
    words[0] = u64::from(bits);
    for &(start, end) in ranges {
        let at = 1 + 2 * slot(start, bits);
        if words[at + 1] == 0 {
            words[at] = start;
            words[at + 1] = end;
        }
    }
    words.push(ranges.len() as u64);
    for &(start, end) in ranges {
        words.extend([start, end]);
    }
    words
}

/// The gpu.module attribute where the instrumenting pass lists its sites (each a [`Site`] as
/// JSON), for the driver to copy into the image's metadata.
pub const SITES_ATTRIBUTE: &str = "hipmlir.memcheck_sites";

/// What an access does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    Read,
    Write,
    Atomic,
}

impl Access {
    pub fn verb(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Write => "write",
            Access::Atomic => "atomic",
        }
    }
}

/// Memory the pass knows an access's object in, so checks it against that object alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObjectKind {
    /// A `__shared__` array.
    Shared,
    /// Dynamic shared memory (`extern __shared__`), sized at the launch.
    DynamicShared,
    /// A local variable of the thread (its stack).
    Local,
    /// The thread's own copy of a by-value struct argument of the kernel.
    Argument,
    /// A `__device__` or `__constant__` variable.
    Global,
}

impl ObjectKind {
    pub fn describe(self) -> &'static str {
        match self {
            ObjectKind::Shared => "shared-memory variable",
            ObjectKind::DynamicShared => "dynamic shared memory (extern __shared__)",
            ObjectKind::Local => "local variable (the thread's stack)",
            ObjectKind::Argument => "by-value kernel argument (the thread's copy)",
            ObjectKind::Global => "device variable",
        }
    }
}

/// The object an access was checked against when the pass knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Object {
    pub kind: ObjectKind,
    /// Its name in the source where known (a symbol), else empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    pub size: u64,
}

/// One checked access of device code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Site {
    /// The kernel as written in source (`scale<float>`).
    pub kernel: String,
    /// `file:line:col` of the access.
    pub location: String,
    pub access: Access,
    /// The bytes it reads or writes.
    pub bytes: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<Object>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_finds_each_start_it_holds() {
        let ranges: Vec<(u64, u64)> = (0..100u64)
            .map(|i| {
                (
                    0x7f00_0000_0000 + i * 0x1_0000,
                    0x7f00_0000_0000 + i * 0x1_0000 + 64,
                )
            })
            .collect();
        let words = table_words(&ranges);
        let bits = words[0] as u32;
        assert!((1u64 << bits) >= 400, "{bits}");
        let index = &words[1..ranges_word(bits)];
        assert_eq!(index.len(), 2 << bits);
        let listed = &words[ranges_word(bits)..];
        assert_eq!(listed[0], 100);
        assert_eq!(listed.len(), 201);
        assert_eq!(listed[1..3], [ranges[0].0, ranges[0].1]);
        let mut held = 0;
        for &(start, end) in &ranges {
            let s = slot(start, bits);
            if index[2 * s] == start {
                assert_eq!(index[2 * s + 1], end);
                held += 1;
            } else {
                // A slot another start took: never a range holding this start.
                assert!(index[2 * s] < start || index[2 * s] == 0);
            }
        }
        assert!(held >= 80, "{held} of 100 starts indexed");
        let empty = table_words(&[]);
        assert_eq!(empty[0], u64::from(INDEX_BITS_MIN));
        assert_eq!(empty.len(), ranges_word(INDEX_BITS_MIN) + 1);
        assert!(empty[1..].iter().all(|&w| w == 0));
    }
}
