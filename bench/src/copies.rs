//! Pitched copies: `hip/pitched_copy.hip`, built by hipmlir, times a 4096 x 4096-byte
//! `hipMemcpy2D` between pitched device memory (rows 4352 bytes apart) and host rows, and between
//! two pitched allocations, against one `hipMemcpy` of the same 16 MiB, each direction, after
//! checking every row of each direction's result. A pitched copy should move its bytes about as
//! fast as a contiguous one.

use std::process::Command;

use crate::launch::{parse, value};
use crate::tools::{self, Tools};

/// The program's figure names (`NAME_pitched`, `NAME_contiguous`) and what each direction is.
pub const DIRECTIONS: [(&str, &str); 5] = [
    ("h2d_pinned", "pinned host → device"),
    ("d2h_pinned", "device → pinned host"),
    ("d2d", "device → device"),
    ("h2d_pageable", "pageable host → device"),
    ("d2h_pageable", "device → pageable host"),
];

/// One direction: GB/s (bytes copied per second, median round) of each form.
#[derive(Debug, Clone)]
pub struct CopyRow {
    pub direction: &'static str,
    pub pitched: f64,
    pub contiguous: f64,
}

impl CopyRow {
    /// Pitched over contiguous bandwidth: 1.0 is a pitched copy at memory speed.
    pub fn ratio(&self) -> f64 {
        self.pitched / self.contiguous
    }
}

/// Builds and runs the program with `rounds` timed rounds per figure.
pub fn run(tools: &Tools, rounds: usize) -> Result<Vec<CopyRow>, String> {
    let dir = tools.work.join("copies");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let exe = dir.join("pitched_copy");
    tools
        .hipmlir_program(&tools.root.join("bench/hip/pitched_copy.hip"), &exe)
        .map_err(|e| format!("hipmlir cannot build pitched_copy.hip: {e}"))?;
    let f = tools::run(Command::new(&exe).arg(rounds.to_string()))?;
    let figures = parse(&f, "pitched_copy")?;
    DIRECTIONS
        .iter()
        .map(|&(key, direction)| {
            Ok(CopyRow {
                direction,
                pitched: value(&figures, &format!("{key}_pitched"), "pitched_copy")?,
                contiguous: value(&figures, &format!("{key}_contiguous"), "pitched_copy")?,
            })
        })
        .collect()
}
