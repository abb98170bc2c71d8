//! `--emit-spirv` writes one SPIR-V module per file, and every module we emit passes spirv-val.
mod common;

use common::*;

#[test]
fn every_program_emits_valid_spirv() {
    let dir = scratch();
    for program in programs() {
        let spv = dir
            .path()
            .join(program.file_stem().unwrap())
            .with_extension("spv");
        let out = run_hipmlir(&[
            program.to_str().unwrap(),
            "--emit-spirv",
            "-o",
            spv.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let bytes = std::fs::read(&spv).unwrap();
        assert_eq!(&bytes[..4], &[0x03, 0x02, 0x23, 0x07], "SPIR-V magic");
        spirv_val(&spv);
    }
}

#[test]
fn kernel_entry_points_use_mangled_names() {
    let dir = scratch();
    let spv = dir.path().join("k.spv");
    let example = repo().join("examples/vector_add.hip");
    let out = run_hipmlir(&[
        example.to_str().unwrap(),
        "--emit-spirv",
        "-o",
        spv.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let bytes = std::fs::read(&spv).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("_Z10vector_addPKfS0_Pfi"));
}
