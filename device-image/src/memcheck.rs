//! The memory checker's vocabulary (`-fsanitize=address`), shared by the pass that instruments
//! device code and the runtime that reads its reports: the access sites the image lists, and
//! the layout of the memory through which checked device code and the runtime talk.
//!
//! Every word is 64 bits. A checked module's state variable
//! ([`MEMCHECK_STATE_VARIABLE`](crate::MEMCHECK_STATE_VARIABLE)) points to its **state**:
//! `[STATE_TABLE]` the device's allocation table, `[STATE_ERROR]` the error word (0 until the
//! first bad access claims it), `[STATE_REPORT]` the report's address, `[STATE_DYNAMIC_SHARED]`
//! the launch's dynamic shared memory, then scratch words. The **table** is
//! `[count, base0, end0, base1, end1, ...]`, sorted by base, ranges disjoint: every live
//! allocation a kernel may reach. The **report** is written once, by the work-item whose bad
//! access claimed the error word, `REPORT_RAISED` last (the site's number plus one).

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

/// The table's words for sorted, disjoint `ranges` (start, end): `[count, start0, end0, ...]`
/// (the runtime's tables, and the bench's).
pub fn table_words(ranges: &[(u64, u64)]) -> Vec<u64> {
    let mut words = Vec::with_capacity(1 + 2 * ranges.len());
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
    /// A `__device__` or `__constant__` variable.
    Global,
}

impl ObjectKind {
    pub fn describe(self) -> &'static str {
        match self {
            ObjectKind::Shared => "shared-memory variable",
            ObjectKind::DynamicShared => "dynamic shared memory (extern __shared__)",
            ObjectKind::Local => "local variable (the thread's stack)",
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
