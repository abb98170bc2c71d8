//! Graphs, stream capture and stream-ordered allocation from real HIP programs built by
//! hipmlir (tests/runtime_programs/{graphs,capture,mempool}.hip): graphs built by hand with
//! nodes of every kind, updated and launched many times; captures of one stream and of several
//! joined by events, in every mode; memory pools with reuse and trimming; and misuse of each.
//! Every program compares device results with a host reference on every element and prints
//! PASSED. The program cache is a temporary folder, never the user's.
mod common;

use common::*;

fn build_and_run(name: &str) -> String {
    let dir = scratch();
    let source = repo().join("tests/runtime_programs").join(name);
    let exe = build(&source, dir.path(), None);
    // The programs write scratch files (a DOT file) into their working folder.
    let out = std::process::Command::new(&exe)
        .current_dir(dir.path())
        .env("HIPMLIR_CACHE_DIR", dir.path().join("cache"))
        .output()
        .expect("the program runs");
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        out.status.success() && text.contains("PASSED"),
        "{name} failed ({}):\n{text}",
        out.status
    );
    text
}

#[test]
fn graphs_built_by_hand() {
    let out = build_and_run("graphs.hip");
    assert!(out.contains("graphs PASSED"), "{out}");
}

#[test]
fn stream_capture() {
    let out = build_and_run("capture.hip");
    assert!(out.contains("capture PASSED"), "{out}");
}

#[test]
fn stream_ordered_allocation_and_pools() {
    let out = build_and_run("mempool.hip");
    assert!(out.contains("mempool PASSED"), "{out}");
}
