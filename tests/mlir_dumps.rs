//! `--emit-mlir=<stage>`: what people read to see what the compiler did.
mod common;

use common::*;
use hipmlir_device_image::{
    KERNEL_ARGS_ATTRIBUTE, KERNEL_ARGS_SIZE_ATTRIBUTE, KERNEL_ATTRIBUTE, KERNEL_NAME_ATTRIBUTE,
};

fn dump(stage: &str) -> String {
    let example = repo().join("examples/vector_add.hip");
    let out = run_hipmlir(&[
        example.to_str().unwrap(),
        &format!("--emit-mlir={stage}"),
        "-o",
        "-",
    ]);
    assert!(out.status.success(), "{stage}: {}", stderr(&out));
    stdout(&out)
}

/// The kernel's argument layout as the dumps print it, after `hipmlir.kernel_args = `.
const ARGS: &str = r#"[{addr_space = "global", align = 8 : i64, is_pointer = true, name = "a", offset = 0 : i64, size = 8 : i64, type = "const float *"}, {addr_space = "global", align = 8 : i64, is_pointer = true, name = "b", offset = 8 : i64, size = 8 : i64, type = "const float *"}, {addr_space = "global", align = 8 : i64, is_pointer = true, name = "c", offset = 16 : i64, size = 8 : i64, type = "float *"}, {addr_space = "private", align = 4 : i64, is_pointer = false, name = "n", offset = 24 : i64, size = 4 : i64, type = "int"}]"#;

fn args() -> String {
    format!("{KERNEL_ARGS_ATTRIBUTE} = {ARGS}")
}

#[test]
fn frontend_stage_has_the_kernel_and_its_argument_layout() {
    let text = dump("frontend");
    assert!(
        text.contains("func.func @_Z10vector_addPKfS0_Pfi("),
        "{text}"
    );
    assert!(
        text.contains(&format!(r#"{KERNEL_NAME_ATTRIBUTE} = "vector_add""#)),
        "{text}"
    );
    assert!(text.contains(&args()), "{text}");
    assert!(
        text.contains(&format!("{KERNEL_ARGS_SIZE_ATTRIBUTE} = 32 : i64")),
        "{text}"
    );
    // Structured: the bounds check is an scf.if, the builtins are gpu ops.
    assert!(text.contains("scf.if"), "{text}");
    assert!(text.contains("gpu.thread_id  x"), "{text}");
    // The launch in main is a gpu.launch calling the kernel, with the kernel's metadata.
    assert!(text.contains("func.func @main.launch.0("), "{text}");
    let launch = &text[text.find("gpu.launch blocks").expect("a gpu.launch")..];
    assert!(
        launch.contains("func.call @_Z10vector_addPKfS0_Pfi("),
        "{text}"
    );
    assert!(
        launch.contains(&format!("{KERNEL_ATTRIBUTE} = @_Z10vector_addPKfS0_Pfi")),
        "{text}"
    );
    assert!(launch.contains(&args()), "{text}");
}

#[test]
fn outlined_stage_has_a_gpu_func_named_by_the_kernel() {
    let text = dump("outlined");
    assert!(text.contains("gpu.module @hipmlir_kernels"), "{text}");
    assert!(
        text.contains("gpu.func @_Z10vector_addPKfS0_Pfi(") && text.contains(") kernel attributes"),
        "{text}"
    );
    assert!(text.contains(&args()), "{text}");
    // The launch site now launches the outlined kernel.
    assert!(
        text.contains("gpu.launch_func  @hipmlir_kernels::@_Z10vector_addPKfS0_Pfi blocks in"),
        "{text}"
    );
    assert!(!text.contains("gpu.launch blocks"), "{text}");
}

#[test]
fn spirv_stage_has_the_entry_point_and_keeps_the_metadata() {
    let text = dump("spirv");
    assert!(text.contains("spirv.module"), "{text}");
    assert!(
        text.contains("spirv.func @_Z10vector_addPKfS0_Pfi"),
        "{text}"
    );
    assert!(
        text.contains(r#"spirv.EntryPoint "Kernel" @_Z10vector_addPKfS0_Pfi"#),
        "{text}"
    );
    assert!(
        text.contains(&format!("{KERNEL_ARGS_SIZE_ATTRIBUTE} = 32 : i64")),
        "{text}"
    );
}

#[test]
fn dump_to_a_file() {
    let dir = scratch();
    let path = dir.path().join("out.mlir");
    let example = repo().join("examples/vector_add.hip");
    let out = run_hipmlir(&[
        example.to_str().unwrap(),
        "--emit-mlir=lowered",
        "-o",
        path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains("spirv.entry_point_abi"), "{text}");
}
