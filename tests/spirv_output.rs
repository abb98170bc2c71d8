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

#[test]
fn native_float_atomics_variant_is_valid_spirv() {
    // Float atomicAdd gets a second module with native instructions for cl_ext_float_atomics.
    let dir = scratch();
    let program = repo().join("tests/programs/shared_and_atomics.hip");
    let out = hipmlir()
        .current_dir(dir.path())
        .args([
            program.to_str().unwrap(),
            "-c",
            "-o",
            "sa.o",
            "--save-temps",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let json =
        std::fs::read_to_string(dir.path().join("shared_and_atomics.metadata.json")).unwrap();
    let metadata: serde_json::Value = serde_json::from_str(&json).unwrap();
    let variant = &metadata["spirv_variants"][0];
    assert_eq!(
        variant["requires_extension"], "cl_ext_float_atomics",
        "{json}"
    );
    let hex = variant["spirv_hex"].as_str().unwrap();
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    let spv = dir.path().join("native.spv");
    std::fs::write(&spv, &bytes).unwrap();
    spirv_val(&spv);
    let text = String::from_utf8_lossy(&bytes);
    assert!(
        text.contains("SPV_EXT_shader_atomic_float_add"),
        "the extension is declared"
    );
}

#[test]
fn signed_arithmetic_carries_no_signed_wrap() {
    // C leaves signed overflow undefined; as clang does, hipmlir says so (`nsw`), which lets the
    // device compiler fold index arithmetic. Unsigned arithmetic wraps and carries nothing.
    let dir = scratch();
    let source = dir.path().join("nsw.hip");
    std::fs::write(
        &source,
        "#include <hip/hip_runtime.h>\n\
         __global__ void k(int* a, unsigned* b, int n) {\n\
           a[0] = a[1] * n + 3;\n\
           b[0] = b[1] * 7u + 5u;\n\
         }\n",
    )
    .unwrap();
    let spv = dir.path().join("nsw.spv");
    let out = run_hipmlir(&[
        source.to_str().unwrap(),
        "--emit-spirv",
        "-o",
        spv.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let dis = std::process::Command::new("spirv-dis")
        .arg(&spv)
        .output()
        .expect("spirv-dis runs");
    let text = String::from_utf8_lossy(&dis.stdout);
    assert!(
        text.contains("OpExtension \"SPV_KHR_no_integer_wrap_decoration\""),
        "{text}"
    );
    assert_eq!(text.matches("NoSignedWrap").count(), 2, "{text}");
    assert!(!text.contains("NoUnsignedWrap"), "{text}");
    spirv_val(&spv);
}

#[test]
fn restrict_pointers_are_no_alias_on_both_targets() {
    // `__restrict__` kernel pointers promise what OpenCL C's `restrict` and CUDA's do: SPIR-V
    // decorates them FuncParamAttr NoAlias, and on NVIDIA targets a read-only one is read
    // through the non-coherent cache (what LLVM does with noalias, as nvcc does). A pointer
    // without the qualifier gets neither.
    let dir = scratch();
    let source = dir.path().join("restrict.hip");
    std::fs::write(
        &source,
        "#include <hip/hip_runtime.h>\n\
         __global__ void k(float* __restrict__ out, const float* __restrict__ in,\n\
                           const float* other, int steps) {\n\
           int i = threadIdx.x;\n\
           for (int t = 0; t < steps; ++t) out[i] = out[i] * in[i] + other[i];\n\
         }\n",
    )
    .unwrap();
    let spv = dir.path().join("restrict.spv");
    let out = run_hipmlir(&[
        source.to_str().unwrap(),
        "--emit-spirv",
        "-o",
        spv.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    spirv_val(&spv);
    let dis = std::process::Command::new("spirv-dis")
        .arg(&spv)
        .output()
        .expect("spirv-dis runs");
    let text = String::from_utf8_lossy(&dis.stdout);
    assert_eq!(text.matches("FuncParamAttr NoAlias").count(), 2, "{text}");

    let ptx = dir.path().join("restrict.ptx");
    let out = run_hipmlir(&[
        source.to_str().unwrap(),
        "--emit-ptx",
        "-o",
        ptx.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&ptx).unwrap();
    assert_eq!(text.matches("ld.global.nc").count(), 1, "{text}");
}
