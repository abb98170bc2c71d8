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

#[test]
fn kernel_pointers_are_integers_at_the_entry_point() {
    // The OpenCL runtime sets a device address with a plain clSetKernelArg, so the entry point
    // takes each global pointer (and a by-value struct too large for the parameter space, which
    // the runtime copies to memory) as a 64-bit integer and calls the kernel's body, which keeps
    // its pointers and their NoAlias. By-value structs, scalars and dynamic shared memory stay.
    let dir = scratch();
    let source = dir.path().join("abi.hip");
    std::fs::write(
        &source,
        "#include <hip/hip_runtime.h>\n\
         struct Small { float a; int b; };\n\
         struct Big { int v[400]; };\n\
         __global__ void k(float* __restrict__ out, Small s, int n, Big big) {\n\
           extern __shared__ float tile[];\n\
           int i = threadIdx.x;\n\
           tile[i] = s.a * i + big.v[i % 400];\n\
           __syncthreads();\n\
           if (i < n) out[i] = tile[n - 1 - i] + s.b;\n\
         }\n",
    )
    .unwrap();
    let spv = dir.path().join("abi.spv");
    let out = run_hipmlir(&[
        source.to_str().unwrap(),
        "--emit-spirv",
        "-o",
        spv.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    spirv_val(&spv);
    let dis = std::process::Command::new("spirv-dis")
        .args(["--raw-id"])
        .arg(&spv)
        .output()
        .expect("spirv-dis runs");
    let text = String::from_utf8_lossy(&dis.stdout);
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    // The id a line defines, its opcode and operands.
    let parse = |l: &str| -> (String, Vec<String>) {
        let (result, rest) = match l.split_once(" = ") {
            Some((r, rest)) => (r.to_string(), rest),
            None => (String::new(), l),
        };
        let mut words = vec![result];
        words.extend(rest.split_whitespace().map(String::from));
        (words[1].clone(), words)
    };
    let entry = lines
        .iter()
        .find(|l| l.starts_with("OpEntryPoint Kernel"))
        .and_then(|l| l.split_whitespace().nth(2))
        .expect("an entry point")
        .to_string();
    // Each type id's definition.
    let types: std::collections::HashMap<String, String> = lines
        .iter()
        .filter(|l| l.contains("= OpType"))
        .map(|l| {
            let (_, w) = parse(l);
            (w[0].clone(), w[1..].join(" "))
        })
        .collect();
    let params = |function: &str| -> Vec<String> {
        let start = lines
            .iter()
            .position(|l| l.starts_with(&format!("{function} = OpFunction ")))
            .expect("the function");
        lines[start + 1..]
            .iter()
            .take_while(|l| l.contains("OpFunctionParameter"))
            .map(|l| types[&parse(l).1[2]].clone())
            .collect()
    };
    let wrapper = params(&entry);
    assert_eq!(wrapper.len(), 5, "{wrapper:?}\n{text}");
    assert_eq!(wrapper[0], "OpTypeInt 64 0", "{text}");
    assert!(wrapper[1].starts_with("OpTypePointer Function"), "{text}");
    assert_eq!(wrapper[2], "OpTypeInt 32 0", "{text}");
    assert_eq!(wrapper[3], "OpTypeInt 64 0", "the spilled struct: {text}");
    assert!(wrapper[4].starts_with("OpTypePointer Workgroup"), "{text}");
    // The body: called once, inlined, its pointers kept.
    let call = lines
        .iter()
        .find(|l| l.contains("OpFunctionCall"))
        .expect("the wrapper calls the body");
    let body = parse(call).1[3].clone();
    let body_params = params(&body);
    assert!(
        body_params[0].starts_with("OpTypePointer CrossWorkgroup"),
        "{text}"
    );
    assert!(
        body_params[3].starts_with("OpTypePointer CrossWorkgroup"),
        "{text}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(&format!("{body} = OpFunction")) && l.contains(" Inline ")),
        "{text}"
    );
    let no_alias: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains("FuncParamAttr NoAlias"))
        .collect();
    assert_eq!(no_alias.len(), 1, "{text}");
    let restrict_param = lines
        .iter()
        .position(|l| l.starts_with(&format!("{body} = OpFunction ")))
        .map(|i| parse(lines[i + 1]).1[0].clone())
        .unwrap();
    assert!(
        no_alias[0].contains(&format!("{restrict_param} ")),
        "{text}"
    );
    assert!(text.contains("FuncParamAttr ByVal"), "{text}");
}
