//! The hipmlir driver end to end, on the real device: multi-file builds (one step, and -c then a
//! link through a Makefile), a kernel launched from a file that only declares it, kernel pointers
//! made in one source and launched in another, -D/-I/-U in device and host code, .cu and
//! host-only .cpp inputs, clang-offload-bundler's view of objects and executables, split device
//! code (beside the binary, moved, HIPMLIR_KPACK_PATH, missing and corrupt archives),
//! --save-temps, --function, inspect, bad command lines, and plain builds (host code built by g++
//! alone, kernels' SPIR-V found by name through HIPMLIR_MODULE_PATH or beside the executable; the
//! README's CMake example).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;

fn driver_dir(name: &str) -> PathBuf {
    repo().join("tests/driver").join(name)
}

/// A copy of a test project in a fresh folder (builds write beside their sources).
fn copy_project(name: &str) -> tempfile::TempDir {
    let dir = scratch();
    copy_tree(&driver_dir(name), dir.path());
    dir
}

/// Runs hipmlir in `dir`; it must succeed.
fn hipmlir_in(dir: &Path, args: &[&str], cxx: Option<&str>) {
    let mut cmd = hipmlir();
    cmd.current_dir(dir).args(args);
    if let Some(cxx) = cxx {
        cmd.env("CXX", cxx);
    }
    let out = cmd.output().expect("hipmlir runs");
    assert!(
        out.status.success(),
        "hipmlir {args:?} failed:\n{}",
        stderr(&out)
    );
}

/// Runs a built program with a private cache and extra variables; returns its output.
fn run_with(exe: &Path, env: &[(&str, &str)]) -> Output {
    let cache = std::env::temp_dir().join(format!("hipmlir-test-cache-{}", std::process::id()));
    let mut cmd = Command::new(exe);
    cmd.env("HIPMLIR_CACHE_DIR", &cache);
    for var in [
        "HIPMLIR_KPACK_PATH",
        "HIPMLIR_KPACK_PATH_PREFIX",
        "HIPMLIR_KPACK_DEBUG",
        "HIPMLIR_KPACK_DISABLE",
        "HIPMLIR_MODULE_PATH",
    ] {
        cmd.env_remove(var);
    }
    cmd.envs(env.iter().copied());
    output_of(&mut cmd)
}

fn text(o: &Output) -> String {
    format!("{}{}", stdout(o), stderr(o))
}

const MULTI_FLAGS: &[&str] = &["-O2", "-Iinclude", "-DFACTOR=3", "-DPOISON", "-UPOISON"];
const MULTI_SOURCES: &[&str] = &["main.hip", "kernels.hip", "square.cu", "util.cpp"];

fn build_multi(dir: &Path, extra: &[&str], out: &str, cxx: Option<&str>) -> PathBuf {
    let mut args: Vec<&str> = MULTI_SOURCES.to_vec();
    args.extend_from_slice(MULTI_FLAGS);
    args.extend_from_slice(extra);
    args.extend_from_slice(&["-o", out]);
    hipmlir_in(dir, &args, cxx);
    dir.join(out)
}

fn bundler() -> Option<&'static str> {
    ["clang-offload-bundler-22", "clang-offload-bundler"]
        .into_iter()
        .find(|b| Command::new(b).arg("--version").output().is_ok())
}

#[test]
fn multi_file_build_with_hip_cu_and_cpp_sources() {
    let dir = copy_project("multi");
    let app = build_multi(dir.path(), &[], "app", None);
    let out = run_program(&app);
    assert!(out.contains("multi-file PASSED"), "{out}");
    // The same with clang++ and libc++ for the host code.
    let app = build_multi(
        dir.path(),
        &[],
        "app_libcxx",
        Some("clang++-22 -stdlib=libc++"),
    );
    run_program(&app);
}

/// Arguments in response files (`@file`, as build tools write long command lines for clang and
/// hipcc): quoted words, a response file naming another, and arguments around them.
#[test]
fn arguments_come_from_response_files() {
    let dir = copy_project("multi");
    std::fs::write(
        dir.path().join("flags.rsp"),
        "-O2 -Iinclude\n'-DFACTOR=3' -DPOISON \\\n -UPOISON\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("sources.rsp"),
        "main.hip \"kernels.hip\" @flags.rsp\n",
    )
    .unwrap();
    hipmlir_in(
        dir.path(),
        &["@sources.rsp", "square.cu", "util.cpp", "-o", "app"],
        None,
    );
    let out = run_program(&dir.path().join("app"));
    assert!(out.contains("multi-file PASSED"), "{out}");
    // A response file that cannot be read is named.
    let missing = hipmlir()
        .current_dir(dir.path())
        .args(["@missing.rsp", "-o", "app2"])
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(
        stderr(&missing).contains("cannot read response file 'missing.rsp'"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn makefile_compiles_objects_then_links() {
    let dir = copy_project("multi");
    let out = Command::new("make")
        .current_dir(dir.path())
        .arg(format!("HIPMLIR={}", env!("CARGO_BIN_EXE_hipmlir")))
        .output()
        .expect("make runs");
    assert!(out.status.success(), "make failed:\n{}", text(&out));
    run_program(&dir.path().join("app"));
    // -MMD: the dependency file names the user's source and headers, not a temporary file.
    let deps = std::fs::read_to_string(dir.path().join("main.d")).unwrap();
    assert!(
        deps.starts_with("main.o:") && deps.contains("main.hip"),
        "{deps}"
    );
    assert!(
        deps.contains("driver_config.h") && !deps.contains("host.cpp"),
        "{deps}"
    );
    // A second make has nothing to do.
    let again = Command::new("make")
        .current_dir(dir.path())
        .args(["-q", &format!("HIPMLIR={}", env!("CARGO_BIN_EXE_hipmlir"))])
        .status()
        .unwrap();
    assert!(again.success(), "make -q: the build is not up to date");
}

/// hipcc's contract: every C++ source is HIP. Kernels that come from an included header are
/// compiled for the sources that include it, whose own text names no device keyword; a source
/// with no device code at all gets no device image.
#[test]
fn cpp_sources_are_hip_with_kernels_from_their_headers() {
    let dir = copy_project("header_kernels");
    let sources = ["main.cc", "blend_doubles.cpp", "host_only.cpp"];
    let mut one_step: Vec<&str> = sources.to_vec();
    one_step.extend(["-o", "app"]);
    hipmlir_in(dir.path(), &one_step, None);
    let out = run_program(&dir.path().join("app"));
    assert!(out.contains("header kernels PASSED"), "{out}");
    // As CMake builds: each source compiled alone, then the objects linked.
    for source in sources {
        let object = format!("{source}.o");
        hipmlir_in(dir.path(), &["-c", source, "-o", &object], None);
    }
    hipmlir_in(
        dir.path(),
        &[
            "main.cc.o",
            "blend_doubles.cpp.o",
            "host_only.cpp.o",
            "-o",
            "app2",
        ],
        None,
    );
    let out = run_program(&dir.path().join("app2"));
    assert!(out.contains("header kernels PASSED"), "{out}");
    let images = |object: &str| {
        let inspect = run_hipmlir(&["inspect", dir.path().join(object).to_str().unwrap()]);
        format!("{}{}", stdout(&inspect), stderr(&inspect))
    };
    for object in ["main.cc.o", "blend_doubles.cpp.o"] {
        let report = images(object);
        assert!(report.contains("1 device image(s)"), "{object}: {report}");
    }
    let report = images("host_only.cpp.o");
    assert!(report.contains("0 device image(s)"), "{report}");
}

/// A source whose name is near the file-name limit builds in one step, with -c and with
/// --save-temps: the names hipmlir makes from it stay within 255 bytes.
#[test]
fn long_source_names_build() {
    let dir = scratch();
    let name = format!("{}.hip", "v".repeat(240));
    std::fs::copy(
        repo().join("examples/vector_add.hip"),
        dir.path().join(&name),
    )
    .unwrap();
    hipmlir_in(dir.path(), &[&name, "-o", "app"], None);
    assert!(run_program(&dir.path().join("app")).contains("PASSED"));
    hipmlir_in(
        dir.path(),
        &["-c", &name, "--save-temps", "-o", "k.o"],
        None,
    );
    hipmlir_in(dir.path(), &["k.o", "-o", "app2"], None);
    assert!(run_program(&dir.path().join("app2")).contains("PASSED"));
}

#[test]
fn cxx14_sources_build_without_warnings_from_hips_headers() {
    // The headers are written with C++17 features that C++14 modes take as extensions; a
    // whole launch configuration may come from one macro.
    let dir = scratch();
    let source = "#include <hip/hip_runtime.h>\n#include <cstdio>\n\
        template <typename T, int Factor>\n\
        __global__ void add(T* p, int n) {\n\
          int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
          if (i < n) p[i] += Factor * i;\n}\n\
        #define CONFIG(n) dim3(((n) + 63) / 64), dim3(64), 0, 0\n\
        int main() {\n\
          const int n = 300;\n  int* d = nullptr;\n\
          if (hipMalloc(&d, n * sizeof(int)) != hipSuccess) return 1;\n\
          hipMemset(d, 0, n * sizeof(int));\n\
          add<int, 2><<<(n + 63) / 64, 64>>>(d, n);\n\
          hipLaunchKernelGGL(HIP_KERNEL_NAME(add<int, 2>), CONFIG(n), d, n);\n\
          int h[n];\n  hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost);\n\
          int bad = 0;\n  for (int i = 0; i < n; ++i) bad += h[i] != 4 * i;\n\
          std::printf(bad ? \"FAILED\\n\" : \"PASSED\\n\");\n  return bad != 0;\n}\n";
    std::fs::write(dir.path().join("c14.hip"), source).unwrap();
    let out = hipmlir()
        .current_dir(dir.path())
        .env("HIPMLIR_DISABLE_CACHE", "1")
        .args(["-std=c++14", "-Wall", "c14.hip", "-o", "app14"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
    assert!(run_program(&dir.path().join("app14")).contains("PASSED"));
}

/// Include folders that `$CXX` adds on its own (an MPI wrapper's, here `-I` and `-iquote` written
/// into `$CXX`) are searched by the device parse too: device code uses a function of a header
/// found only there.
#[test]
fn include_folders_of_the_host_compiler_reach_the_device_parse() {
    let dir = scratch();
    let vendor = dir.path().join("vendor");
    let quoted = dir.path().join("quoted");
    std::fs::create_dir_all(&vendor).unwrap();
    std::fs::create_dir_all(&quoted).unwrap();
    std::fs::write(
        vendor.join("vendor_scale.h"),
        "#pragma once\n__host__ __device__ inline int scaled(int x) { return 3 * x; }\n",
    )
    .unwrap();
    std::fs::write(
        quoted.join("offset.h"),
        "#pragma once\nconstexpr int offset = 7;\n",
    )
    .unwrap();
    let source = "#include <hip/hip_runtime.h>\n#include <cstdio>\n\
        #include <vendor_scale.h>\n#include \"offset.h\"\n\
        __global__ void fill(int* p, int n) {\n\
          int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
          if (i < n) p[i] = scaled(i) + offset;\n}\n\
        int main() {\n  const int n = 200;\n  int* d = nullptr;\n\
          if (hipMalloc(&d, n * sizeof(int)) != hipSuccess) return 1;\n\
          fill<<<(n + 63) / 64, 64>>>(d, n);\n\
          int h[n];\n  hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost);\n\
          int bad = 0;\n  for (int i = 0; i < n; ++i) bad += h[i] != scaled(i) + offset;\n\
          std::printf(bad ? \"FAILED\\n\" : \"PASSED\\n\");\n  return bad != 0;\n}\n";
    std::fs::write(dir.path().join("app.hip"), source).unwrap();
    let cxx = format!("g++ -I{} -iquote {}", vendor.display(), quoted.display());
    hipmlir_in(dir.path(), &["app.hip", "-o", "app"], Some(&cxx));
    assert!(run_program(&dir.path().join("app")).contains("PASSED"));
}

#[test]
fn kernel_declared_in_one_file_and_defined_in_another() {
    let dir = copy_project("cross");
    hipmlir_in(dir.path(), &["-c", "kernel.hip", "-o", "kernel.o"], None);
    hipmlir_in(dir.path(), &["-c", "launch.hip", "-o", "launch.o"], None);
    hipmlir_in(dir.path(), &["launch.o", "kernel.o", "-o", "app"], None);
    let out = run_program(&dir.path().join("app"));
    assert!(out.contains("cross-file launch PASSED"), "{out}");
}

#[test]
fn kernel_pointers_cross_sources() {
    // Kernels declared in a header and defined in another source, launched by name, through a
    // table of pointers made in the other source, and as pointers handed back to it: in one
    // command (device code linked across the sources) and as objects linked afterwards.
    let dir = copy_project("kernel_pointers");
    let sources = ["main.hip", "transforms.hip", "-Iinclude"];
    hipmlir_in(dir.path(), &[&sources[..], &["-o", "app"]].concat(), None);
    let out = run_program(&dir.path().join("app"));
    assert!(
        out.contains("kernel pointers across sources PASSED"),
        "{out}"
    );
    for source in ["main", "transforms"] {
        let (input, object) = (format!("{source}.hip"), format!("{source}.o"));
        hipmlir_in(
            dir.path(),
            &["-c", &input, "-Iinclude", "-o", &object],
            None,
        );
    }
    hipmlir_in(dir.path(), &["main.o", "transforms.o", "-o", "app2"], None);
    let out = run_program(&dir.path().join("app2"));
    assert!(
        out.contains("kernel pointers across sources PASSED"),
        "{out}"
    );
}

#[test]
fn macros_and_include_folders_reach_device_code() {
    let dir = copy_project("multi");
    // Without -DFACTOR the device parse stops at the header's #error, in clang's format.
    let out = hipmlir()
        .current_dir(dir.path())
        .args(["-c", "kernels.hip", "-Iinclude", "-o", "k.o"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert!(!out.status.success());
    assert!(
        err.contains("driver_config.h:5:") && err.contains("FACTOR must be defined"),
        "{err}"
    );
    // -U undoes an earlier -D, in device and host code alike.
    let out = hipmlir()
        .current_dir(dir.path())
        .args([
            "-c",
            "kernels.hip",
            "-Iinclude",
            "-DFACTOR=2",
            "-DPOISON",
            "-o",
            "k.o",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success() && stderr(&out).contains("POISON must be undefined"));
    hipmlir_in(
        dir.path(),
        &[
            "-c",
            "kernels.hip",
            "-Iinclude",
            "-DFACTOR=2",
            "-DPOISON",
            "-UPOISON",
            "-o",
            "k.o",
        ],
        None,
    );
    // Without -I the header is not found.
    let out = hipmlir()
        .current_dir(dir.path())
        .args(["-c", "kernels.hip", "-DFACTOR=2", "-o", "k.o"])
        .output()
        .unwrap();
    assert!(!out.status.success() && stderr(&out).contains("driver_config.h"));
}

#[test]
fn clang_offload_bundler_reads_objects_and_executables() {
    let Some(bundler) = bundler() else {
        eprintln!("clang-offload-bundler not installed (clang-tools-22): skipped");
        return;
    };
    let dir = scratch();
    let exe = build(&repo().join("examples/vector_add.hip"), dir.path(), None);
    let obj = dir.path().join("vector_add.o");
    let out = hipmlir()
        .args(["-c"])
        .arg(repo().join("examples/vector_add.hip"))
        .arg("-o")
        .arg(&obj)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    for file in [&exe, &obj] {
        let list = Command::new(bundler)
            .args(["-list", "-type=o"])
            .arg(format!("-input={}", file.display()))
            .output()
            .unwrap();
        assert!(list.status.success(), "{}", text(&list));
        let mut ids: Vec<String> = stdout(&list).lines().map(str::to_string).collect();
        ids.sort();
        assert_eq!(
            ids,
            vec![
                "hip-nvptx64-nvidia-cuda--sm_70",
                "hip-spirv64-unknown-unknown-",
                "hipmlir-spirv64-unknown-unknown--metadata",
                "host-x86_64-unknown-linux-gnu-"
            ],
            "{}",
            file.display()
        );
        let spv = dir.path().join("unbundled.spv");
        let un = Command::new(bundler)
            .args([
                "-unbundle",
                "-type=o",
                "-targets=hip-spirv64-unknown-unknown-",
            ])
            .arg(format!("-input={}", file.display()))
            .arg(format!("-output={}", spv.display()))
            .output()
            .unwrap();
        assert!(un.status.success(), "{}", text(&un));
        let bytes = std::fs::read(&spv).unwrap();
        assert_eq!(&bytes[..4], &[0x03, 0x02, 0x23, 0x07], "not SPIR-V");
        spirv_val(&spv);
        // The default build's PTX, as the bundler hands it out.
        let ptx = dir.path().join("unbundled.ptx");
        let un = Command::new(bundler)
            .args([
                "-unbundle",
                "-type=o",
                "-targets=hip-nvptx64-nvidia-cuda--sm_70",
            ])
            .arg(format!("-input={}", file.display()))
            .arg(format!("-output={}", ptx.display()))
            .output()
            .unwrap();
        assert!(un.status.success(), "{}", text(&un));
        let ptx = String::from_utf8_lossy(&std::fs::read(&ptx).unwrap()).to_string();
        assert!(
            ptx.contains(".target sm_70") && ptx.contains(".entry _Z10vector_addPKfS0_Pfi("),
            "{ptx}"
        );
    }
    // The executable still runs after the sections were added.
    run_program(&exe);
    // Several sources: the bundler sees one linked device module.
    let project = copy_project("multi");
    let app = build_multi(project.path(), &[], "app", None);
    let list = Command::new(bundler)
        .args(["-list", "-type=o"])
        .arg(format!("-input={}", app.display()))
        .output()
        .unwrap();
    assert!(
        stdout(&list).contains("hip-spirv64-unknown-unknown-"),
        "{}",
        text(&list)
    );
}

/// The search the runtime reports must name the places it looked.
fn assert_fails_with(out: &Output, needles: &[&str]) {
    let t = text(out);
    assert!(!out.status.success(), "the program should fail:\n{t}");
    assert!(!t.contains("PASSED") && !t.contains("panicked"), "{t}");
    for n in needles {
        assert!(t.contains(n), "missing '{n}' in:\n{t}");
    }
}

#[test]
fn split_device_code_finds_its_archive() {
    let dir = copy_project("multi");
    let app = build_multi(dir.path(), &["--split-device-code"], "app", None);
    let archive = dir.path().join("app.hipk");
    assert!(archive.is_file(), "no app.hipk beside the binary");
    // The binary holds no device code, only the reference record.
    let inspect = run_hipmlir(&["inspect", app.to_str().unwrap()]);
    let report = stdout(&inspect);
    assert!(inspect.status.success(), "{report}{}", stderr(&inspect));
    assert!(
        report.contains("0 device image(s) in .hip_fatbin"),
        "{report}"
    );
    assert!(report.contains("split device code: key app-"), "{report}");
    assert!(
        report.contains("kernel saxpy") && report.contains("kernel square<float>"),
        "{report}"
    );

    // Beside the binary.
    let out = run_with(&app, &[]);
    assert!(text(&out).contains("multi-file PASSED"), "{}", text(&out));
    // Both moved to another folder.
    let moved = scratch();
    let moved_app = moved.path().join("app");
    std::fs::rename(&app, &moved_app).unwrap();
    std::fs::rename(&archive, moved.path().join("app.hipk")).unwrap();
    assert!(text(&run_with(&moved_app, &[])).contains("multi-file PASSED"));
    // The archive elsewhere: missing, then found through the variables.
    let elsewhere = scratch();
    let kept = elsewhere.path().join("app.hipk");
    std::fs::rename(moved.path().join("app.hipk"), &kept).unwrap();
    let missing = run_with(&moved_app, &[]);
    let expected = moved.path().join("app.hipk");
    assert_fails_with(
        &missing,
        &[
            "cannot find the device code archive 'app.hipk'",
            &format!("{} (not found)", expected.display()),
            "HIPMLIR_KPACK_PATH",
        ],
    );
    let dir_text = elsewhere.path().to_str().unwrap();
    let out = run_with(&moved_app, &[("HIPMLIR_KPACK_PATH", dir_text)]);
    assert!(text(&out).contains("multi-file PASSED"), "{}", text(&out));
    let out = run_with(
        &moved_app,
        &[("HIPMLIR_KPACK_PATH", kept.to_str().unwrap())],
    );
    assert!(text(&out).contains("multi-file PASSED"), "{}", text(&out));
    let out = run_with(
        &moved_app,
        &[
            ("HIPMLIR_KPACK_PATH_PREFIX", dir_text),
            ("HIPMLIR_KPACK_DEBUG", "1"),
        ],
    );
    let t = text(&out);
    assert!(
        t.contains("multi-file PASSED") && t.contains("hipmlir: kpack:"),
        "{t}"
    );
    assert!(
        t.contains(&format!("{}: using target", kept.display())),
        "{t}"
    );
    let out = run_with(
        &moved_app,
        &[
            ("HIPMLIR_KPACK_PATH", dir_text),
            ("HIPMLIR_KPACK_DISABLE", "1"),
        ],
    );
    assert_fails_with(&out, &["HIPMLIR_KPACK_DISABLE is set"]);
    // A damaged archive is named as such.
    let mut bytes = std::fs::read(&kept).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x5a;
    std::fs::write(&kept, &bytes).unwrap();
    let out = run_with(&moved_app, &[("HIPMLIR_KPACK_PATH", dir_text)]);
    assert_fails_with(
        &out,
        &["is unusable", "checksum mismatch", kept.to_str().unwrap()],
    );
    std::fs::write(&kept, b"not an archive").unwrap();
    let out = run_with(&moved_app, &[("HIPMLIR_KPACK_PATH", dir_text)]);
    assert_fails_with(&out, &["is unusable"]);
}

#[test]
fn split_device_code_from_separately_compiled_objects() {
    let dir = copy_project("multi");
    for src in MULTI_SOURCES {
        let obj = format!(
            "{}.o",
            Path::new(src).file_stem().unwrap().to_str().unwrap()
        );
        let mut args = vec!["-c", src, "-o", &obj];
        args.extend_from_slice(MULTI_FLAGS);
        hipmlir_in(dir.path(), &args, None);
    }
    hipmlir_in(
        dir.path(),
        &[
            "--split-device-code",
            "main.o",
            "kernels.o",
            "square.o",
            "util.o",
            "-o",
            "app",
        ],
        None,
    );
    let out = run_with(&dir.path().join("app"), &[]);
    assert!(text(&out).contains("multi-file PASSED"), "{}", text(&out));
    // The same objects linked without splitting embed their images.
    hipmlir_in(
        dir.path(),
        &["main.o", "kernels.o", "square.o", "util.o", "-o", "fat"],
        None,
    );
    run_program(&dir.path().join("fat"));
    let report = stdout(&run_hipmlir(&[
        "inspect",
        dir.path().join("fat").to_str().unwrap(),
    ]));
    assert!(
        report.contains("3 device image(s) in .hip_fatbin"),
        "{report}"
    );
}

#[test]
fn save_temps_keeps_every_stage() {
    let dir = scratch();
    let obj = dir.path().join("templates.o");
    let out = hipmlir()
        .arg("-c")
        .arg(repo().join("tests/programs/templates_and_launches.hip"))
        .args(["--save-temps=obj", "-o"])
        .arg(&obj)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let stem = "templates_and_launches";
    for ext in [
        "frontend.mlir",
        "outlined.mlir",
        "lowered.mlir",
        "spirv.mlir",
        "spv",
        "host.cpp",
        "metadata.json",
        "hipfb",
        "image.cpp",
    ] {
        let f = dir.path().join(format!("{stem}.{ext}"));
        assert!(f.is_file(), "--save-temps did not keep {}", f.display());
    }
    spirv_val(&dir.path().join(format!("{stem}.spv")));
    let host = std::fs::read_to_string(dir.path().join(format!("{stem}.host.cpp"))).unwrap();
    assert!(
        !host.contains("transform<int, 64><<<") && host.contains("transform<int, 64>"),
        "launches are rewritten in the host source"
    );
    let meta = std::fs::read_to_string(dir.path().join(format!("{stem}.metadata.json"))).unwrap();
    assert!(
        meta.contains("\"source_name\": \"physics::damp\""),
        "{meta}"
    );
    let outlined =
        std::fs::read_to_string(dir.path().join(format!("{stem}.outlined.mlir"))).unwrap();
    assert!(outlined.contains("gpu.func @_Z4fillPii") && outlined.contains("physics"));

    // --function restricts the kept MLIR to one kernel.
    let out = hipmlir()
        .current_dir(dir.path())
        .arg("-c")
        .arg(repo().join("tests/programs/templates_and_launches.hip"))
        .args(["--save-temps", "--function=fill", "-o", "f.o"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    for stage in ["frontend", "outlined", "lowered", "spirv"] {
        let t = std::fs::read_to_string(dir.path().join(format!("{stem}.{stage}.mlir"))).unwrap();
        assert!(t.contains("@_Z4fillPii"), "{stage}: {t}");
        assert!(
            !t.contains("@_ZN7physics4dampEPffi("),
            "{stage} keeps another kernel"
        );
    }
}

/// `--emit-mlir=<pass>` and `--mlir-print-ir-after-all` follow the NVPTX pipeline when the
/// target is PTX (or the pass runs only there).
#[test]
fn emit_mlir_after_a_pass_of_the_nvptx_pipeline() {
    let src = repo().join("tests/programs/templates_and_launches.hip");
    let src = src.to_str().unwrap();
    let out = run_hipmlir(&[
        src,
        "--offload-arch=sm_90",
        "--emit-mlir=hipmlir-lower-hip-to-nvptx",
        "--function=physics::damp",
        "--mlir-print-ir-after-all",
        "-o",
        "-",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let t = stdout(&out);
    assert!(t.contains("gpu.func @_ZN7physics4dampEPffi"), "{t}");
    assert!(!t.contains("@_Z4fillPii") && !t.contains("spirv"), "{t}");
    let printed = stderr(&out);
    assert!(
        printed.contains("IR Dump After HipmlirAddressSpacesToNvptx")
            && printed.contains("IR Dump After HipmlirLowerHipToNvptx")
            && !printed.contains("Spirv"),
        "{printed}"
    );
    // A pass of the NVPTX pipeline only, with the default targets (spirv64 and sm_70).
    let out = run_hipmlir(&[
        src,
        "--emit-mlir=hipmlir-address-spaces-to-nvptx",
        "-o",
        "-",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("gpu.module"), "{}", stdout(&out));
    // The PTX build prints the NVPTX pipeline's passes, not the SPIR-V one's.
    let out = run_hipmlir(&[
        src,
        "--offload-arch=sm_90",
        "--emit-ptx",
        "-o",
        "/dev/null",
        "--mlir-print-ir-after-all",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let printed = stderr(&out);
    assert!(
        printed.contains("IR Dump After HipmlirNvptxParameterAttributes")
            && !printed.contains("Spirv"),
        "{printed}"
    );
}

#[test]
fn emit_mlir_with_function_filter() {
    let src = repo().join("tests/programs/templates_and_launches.hip");
    let src = src.to_str().unwrap();
    let out = run_hipmlir(&[
        src,
        "--emit-mlir=outlined",
        "--function=physics::damp",
        "-o",
        "-",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let t = stdout(&out);
    assert!(t.contains("gpu.func @_ZN7physics4dampEPffi"), "{t}");
    assert!(
        !t.contains("@_Z4fillPii") && !t.contains("transform"),
        "{t}"
    );
    // By mangled name, at the SPIR-V stage: the other entry points go too.
    let out = run_hipmlir(&[src, "--emit-mlir=spirv", "--function", "_Z4fillPii"]);
    let t = stdout(&out);
    assert!(t.contains("spirv.EntryPoint \"Kernel\" @_Z4fillPii"), "{t}");
    assert!(!t.contains("@_ZN7physics4dampEPffi"), "{t}");
    let out = run_hipmlir(&[src, "--emit-mlir=frontend", "--function=nosuch"]);
    let err = stderr(&out);
    assert!(
        !out.status.success() && err.contains("--function=nosuch names no kernel"),
        "{err}"
    );
    assert!(
        err.contains("physics::damp (_ZN7physics4dampEPffi)"),
        "{err}"
    );
}

#[test]
fn inspect_lists_images_kernels_and_layouts() {
    // Only regular files are read: a device is an error at once, not a read without end.
    for device in ["/dev/zero", "/dev/urandom"] {
        let out = run_hipmlir(&["inspect", device]);
        assert!(
            !out.status.success() && stderr(&out).contains("not a regular file"),
            "{}",
            stderr(&out)
        );
    }
    let dir = scratch();
    let exe = build(&repo().join("examples/vector_add.hip"), dir.path(), None);
    let out = run_hipmlir(&["inspect", exe.to_str().unwrap()]);
    let t = stdout(&out);
    assert!(out.status.success(), "{t}{}", stderr(&out));
    assert!(t.contains("1 device image(s) in .hip_fatbin"), "{t}");
    assert!(
        t.contains("kernel vector_add [_Z10vector_addPKfS0_Pfi]"),
        "{t}"
    );
    assert!(
        t.contains("arg 0: const float * a offset 0 size 8 align 8 (global pointer)"),
        "{t}"
    );
    assert!(
        t.contains("arg 3: int n offset 24 size 4 align 4 (by value)"),
        "{t}"
    );
    assert!(t.contains("spirv-val: valid"), "{t}");
    // An object and a .hipk archive.
    let project = copy_project("multi");
    hipmlir_in(
        project.path(),
        &[
            "-c",
            "kernels.hip",
            "-Iinclude",
            "-DFACTOR=3",
            "-o",
            "kernels.o",
        ],
        None,
    );
    let t = stdout(&run_hipmlir(&[
        "inspect",
        project.path().join("kernels.o").to_str().unwrap(),
    ]));
    assert!(
        t.contains("object file, 1 device image(s)") && t.contains("kernel saxpy"),
        "{t}"
    );
    build_multi(project.path(), &["--split-device-code"], "app", None);
    let out = run_hipmlir(&["inspect", project.path().join("app.hipk").to_str().unwrap()]);
    let t = stdout(&out);
    assert!(
        out.status.success() && t.contains("hipk archive, format 1, 1 entry"),
        "{t}"
    );
    assert!(
        t.contains("3 device image(s)") && t.contains("from square.o"),
        "{t}"
    );
    // Not a file inspect knows.
    let out = run_hipmlir(&["inspect", repo().join("README.md").to_str().unwrap()]);
    let err = stderr(&out);
    assert!(
        !out.status.success() && err.starts_with("hipmlir: error:"),
        "{err}"
    );
    let out = run_hipmlir(&["inspect", "/nonexistent/app"]);
    assert!(!out.status.success() && stderr(&out).contains("cannot read '/nonexistent/app'"));
}

#[test]
fn bad_flags_and_inputs_fail_clearly() {
    let dir = scratch();
    let bad_src = dir.path().join("broken.hip");
    std::fs::write(&bad_src, "__global__ void k(int* p) { p[0] = ; }\n").unwrap();
    let txt = dir.path().join("notes.txt");
    std::fs::write(&txt, "hello").unwrap();
    let vadd = repo().join("examples/vector_add.hip");
    let vadd = vadd.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![], "no input files"),
        (vec!["--bogus", vadd], "unknown option '--bogus'"),
        (vec![vadd, "-O9"], "invalid optimization level '-O9'"),
        (vec![vadd, "-o"], "argument to '-o' is missing"),
        (vec!["-x", "fortran", vadd], "language 'fortran'"),
        (vec![txt.to_str().unwrap()], "unknown kind of input"),
        (
            vec!["/nonexistent/a.hip"],
            "no such file or directory: '/nonexistent/a.hip'",
        ),
        (
            vec![vadd, "--emit-mlir=everything"],
            "invalid --emit-mlir stage",
        ),
        (
            vec![vadd, "--emit-spirv", "--emit-mlir=frontend"],
            "cannot be used together",
        ),
        (vec!["-c", vadd, vadd, "-o", "x.o"], "multiple output files"),
        (vec![vadd, "--function=k"], "--function restricts"),
        (
            vec!["--save-temps=nowhere", vadd],
            "invalid --save-temps value",
        ),
        (vec!["inspect"], "inspect needs a file"),
        (vec!["-D", vadd], "no input files"),
        (
            vec![bad_src.to_str().unwrap(), "-c", "-o", "b.o"],
            "broken.hip:1:",
        ),
    ];
    for (args, needle) in cases {
        let out = hipmlir()
            .current_dir(dir.path())
            .args(&args)
            .output()
            .unwrap();
        let err = stderr(&out);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(err.contains("error"), "{args:?}: {err}");
        assert!(
            err.contains(needle),
            "{args:?}: expected '{needle}' in:\n{err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // A host compile error is the host compiler's, then one hipmlir line naming it.
    let host_bad = dir.path().join("host_bad.hip");
    std::fs::write(
        &host_bad,
        "#ifndef __HIP_DEVICE_COMPILE__\n#error host_side_only\n#endif\nint main() {}\n",
    )
    .unwrap();
    let out = run_hipmlir(&[
        host_bad.to_str().unwrap(),
        "-o",
        dir.path().join("x").to_str().unwrap(),
    ]);
    let err = stderr(&out);
    assert!(
        !out.status.success() && err.contains("host_bad.hip:2:"),
        "{err}"
    );
    assert!(err.contains("hipmlir: error: the host compiler"), "{err}");
    // hipcc's target flags are accepted and ignored, with a note under -v.
    let out = run_hipmlir(&[
        vadd,
        "--offload-arch=gfx90a",
        "-munsafe-fp-atomics",
        "-v",
        "--emit-spirv",
        "-o",
        "/dev/null",
    ]);
    assert!(
        out.status.success()
            && stderr(&out).contains("note: '--offload-arch=gfx90a' ignored")
            && stderr(&out).contains("note: '-munsafe-fp-atomics' ignored"),
        "{}",
        stderr(&out)
    );
    let out = run_hipmlir(&[vadd, "--genco", "-c", "-o", "/dev/null"]);
    assert!(
        !out.status.success() && stderr(&out).contains("--genco"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn print_dirs_and_help() {
    let out = run_hipmlir(&["--print-include-dir"]);
    let inc = PathBuf::from(stdout(&out).trim());
    assert!(inc.join("hip/hip_runtime.h").is_file(), "{}", inc.display());
    let out = run_hipmlir(&["--print-runtime-dir"]);
    let lib = PathBuf::from(stdout(&out).trim());
    assert!(lib.join("libhipmlir_rt.so").is_file(), "{}", lib.display());
    let help = stdout(&run_hipmlir(&["--help"]));
    for flag in [
        "--split-device-code",
        "--save-temps",
        "--function",
        "inspect",
        "-x <language>",
    ] {
        assert!(help.contains(flag), "--help lacks {flag}");
    }
}

#[test]
fn shared_library_finds_its_own_archive() {
    // The record lives in the library, so the runtime looks beside the library, not the program.
    let dir = copy_project("multi");
    let lib_dir = dir.path().join("lib");
    std::fs::create_dir(&lib_dir).unwrap();
    hipmlir_in(
        dir.path(),
        &[
            "-fPIC",
            "-shared",
            "--split-device-code",
            "kernels.hip",
            "square.cu",
            "-Iinclude",
            "-DFACTOR=3",
            "-o",
            "lib/libk.so",
        ],
        None,
    );
    assert!(lib_dir.join("libk.so.hipk").is_file());
    hipmlir_in(
        dir.path(),
        &[
            "main.hip",
            "util.cpp",
            "-Iinclude",
            "-DFACTOR=3",
            "-Llib",
            "-lk",
            "-Wl,-rpath,$ORIGIN/lib",
            "-o",
            "app",
        ],
        None,
    );
    let out = run_with(&dir.path().join("app"), &[("HIPMLIR_KPACK_DEBUG", "1")]);
    let t = text(&out);
    assert!(t.contains("multi-file PASSED"), "{t}");
    assert!(t.contains("lib/libk.so.hipk: using target"), "{t}");
}

/// The output of `hipmlir <flag>`, trimmed (a folder).
fn print_dir(flag: &str) -> String {
    let out = run_hipmlir(&[flag]);
    assert!(out.status.success(), "{flag}: {}", stderr(&out));
    stdout(&out).trim().to_string()
}

/// Builds `main.cpp` in `dir` with a plain compiler command against the runtime, as a user would.
fn build_plain(dir: &Path, cxx: &[&str], exe: &str) -> PathBuf {
    let include = print_dir("--print-include-dir");
    let runtime = print_dir("--print-runtime-dir");
    let out = Command::new(cxx[0])
        .current_dir(dir)
        .args(&cxx[1..])
        .args([
            "-std=c++17",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "main.cpp",
        ])
        .arg(format!("-I{include}"))
        .arg(format!("-L{runtime}"))
        .arg("-lhipmlir_rt")
        .arg(format!("-Wl,-rpath,{runtime}"))
        .args(["-o", exe])
        .output()
        .expect("the host compiler runs");
    assert!(out.status.success(), "{cxx:?} failed:\n{}", text(&out));
    dir.join(exe)
}

fn assert_plain_passed(out: &Output) {
    let t = text(out);
    assert!(
        out.status.success() && t.contains("plain build PASSED"),
        "{} ({}):\n{t}",
        "the plain build failed",
        out.status
    );
    // The program's own misuse checks: an ambiguous name and an unknown one.
    assert!(
        t.contains("kernel name 'twice' is ambiguous")
            && t.contains("_Z5twicePfi")
            && t.contains("_Z5twicePii"),
        "{t}"
    );
    assert!(t.contains("kernel 'no_such_kernel' not found"), "{t}");
}

#[test]
fn plain_build_finds_spirv_modules_by_name() {
    let dir = copy_project("plain");
    hipmlir_in(
        dir.path(),
        &["kernels.hip", "--emit-spirv", "-o", "kernels.spv"],
        None,
    );
    let spv = dir.path().join("kernels.spv");
    spirv_val(&spv);
    for (cxx, exe) in [
        (&["g++"][..], "app_gcc"),
        (&["clang++-22", "-stdlib=libc++"][..], "app_libcxx"),
    ] {
        let app = build_plain(dir.path(), cxx, exe);
        // The module beside the executable.
        assert_plain_passed(&run_with(&app, &[]));
        // From elsewhere, alone: the module through HIPMLIR_MODULE_PATH, as a folder (after one
        // that does not exist) and as a file.
        let other = scratch();
        let moved = other.path().join(exe);
        std::fs::copy(&app, &moved).unwrap();
        let folders = format!(
            "{}:{}",
            other.path().join("nowhere").display(),
            dir.path().display()
        );
        let out = run_with(&moved, &[("HIPMLIR_MODULE_PATH", &folders)]);
        assert_plain_passed(&out);
        assert!(
            text(&out).contains(&format!(
                "searched HIPMLIR_MODULE_PATH: {} (not found), {} (kernels.spv)",
                other.path().join("nowhere").display(),
                dir.path().display()
            )),
            "{}",
            text(&out)
        );
        let out = run_with(
            &moved,
            &[
                ("HIPMLIR_MODULE_PATH", spv.to_str().unwrap()),
                ("HIPMLIR_LOG", "info"),
            ],
        );
        assert_plain_passed(&out);
        assert!(
            text(&out).contains(&format!("loaded module {}", spv.display())),
            "{}",
            text(&out)
        );
        // Neither: a clear error naming the folder searched, a non-zero exit, no crash.
        let out = run_with(&moved, &[]);
        assert!(
            out.status.code().is_some(),
            "killed by a signal: {}",
            text(&out)
        );
        assert_fails_with(
            &out,
            &[
                "kernel 'vector_add' not found: no device image is registered",
                &format!(
                    "searched the executable's folder for SPIR-V modules: {} (no *.spv file)",
                    other.path().display()
                ),
                "HIPMLIR_MODULE_PATH",
                "invalid device function",
            ],
        );
        // A listed module that is not one: skipped, said so, and still nothing found.
        let junk = other.path().join("junk.spv");
        std::fs::write(&junk, b"not SPIR-V").unwrap();
        let out = run_with(
            &moved,
            &[("HIPMLIR_MODULE_PATH", other.path().to_str().unwrap())],
        );
        assert!(
            out.status.code().is_some(),
            "killed by a signal: {}",
            text(&out)
        );
        assert_fails_with(
            &out,
            &["junk.spv: not a module", "kernel 'vector_add' not found"],
        );
    }
}

/// The README's CMake example (its first `cmake` block) builds and runs the plain-build project.
/// The set-up installs cmake, so the example is always built.
#[test]
fn plain_build_with_the_readme_cmake_example() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let start = readme
        .find("```cmake\n")
        .expect("README.md has a CMake example")
        + "```cmake\n".len();
    let end = start + readme[start..].find("```").expect("the CMake block ends");
    let cmake_lists = &readme[start..end];
    for needle in [
        "--emit-spirv",
        "--print-include-dir",
        "--print-runtime-dir",
        "hipmlir_rt",
    ] {
        assert!(
            cmake_lists.contains(needle),
            "the CMake example lacks {needle}"
        );
    }
    let dir = copy_project("plain");
    std::fs::write(dir.path().join("CMakeLists.txt"), cmake_lists).unwrap();
    let build = dir.path().join("build");
    let configure = Command::new("cmake")
        .arg("-S")
        .arg(dir.path())
        .arg("-B")
        .arg(&build)
        .arg(format!("-DHIPMLIR={}", env!("CARGO_BIN_EXE_hipmlir")))
        .output()
        .expect("cmake runs");
    assert!(
        configure.status.success(),
        "cmake configure:\n{}",
        text(&configure)
    );
    let compile = Command::new("cmake")
        .arg("--build")
        .arg(&build)
        .output()
        .expect("cmake runs");
    assert!(
        compile.status.success(),
        "cmake --build:\n{}",
        text(&compile)
    );
    assert!(build.join("kernels.spv").is_file());
    assert_plain_passed(&run_with(&build.join("app"), &[]));
}

/// Runs hipmlir in `dir`; it must fail. Returns its stderr.
fn hipmlir_fails_in(dir: &Path, args: &[&str]) -> String {
    let out = hipmlir()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("hipmlir runs");
    assert!(!out.status.success(), "hipmlir {args:?} succeeded");
    stderr(&out)
}

const RDC_SOURCES: &[&str] = &["main.hip", "kernels.hip", "physics.hip"];

#[test]
fn device_code_links_across_sources_in_one_command() {
    // kernels.hip calls device functions and uses device variables that physics.hip defines;
    // both define a static function of the same name; no -fgpu-rdc is needed in one command.
    let dir = copy_project("rdc");
    for (cxx, out) in [
        (None, "app"),
        (Some("clang++-22 -stdlib=libc++"), "app_libcxx"),
    ] {
        let mut args = vec!["-Iinclude"];
        args.extend_from_slice(RDC_SOURCES);
        args.extend_from_slice(&["-o", out]);
        hipmlir_in(dir.path(), &args, cxx);
        let text = run_program(&dir.path().join(out));
        assert!(text.contains("separate compilation PASSED"), "{text}");
    }
}

/// Virtual functions across sources (tests/driver/rdc_virtual): shapes.hip defines and builds
/// the classes (one with two polymorphic bases), scene.hip calls their virtual functions,
/// converts objects of a class with a virtual base to that base and deletes them through base
/// pointers knowing none of them. Each unit's dispatchers and virtual base lookups know the
/// classes it constructs; the device link chains them. In one command and from objects, in
/// either order of the sources.
#[test]
fn virtual_calls_reach_classes_another_source_constructs() {
    let dir = copy_project("rdc_virtual");
    let mut args = vec![
        "-fgpu-rdc",
        "-Iinclude",
        "main.hip",
        "scene.hip",
        "shapes.hip",
    ];
    args.extend_from_slice(&["-o", "app"]);
    hipmlir_in(dir.path(), &args, None);
    let text = run_program(&dir.path().join("app"));
    assert!(
        text.contains("virtual calls across sources PASSED"),
        "{text}"
    );
    for source in ["main", "scene", "shapes"] {
        let (hip, object) = (format!("{source}.hip"), format!("{source}.o"));
        hipmlir_in(
            dir.path(),
            &["-fgpu-rdc", "-Iinclude", "-c", &hip, "-o", &object],
            None,
        );
    }
    hipmlir_in(
        dir.path(),
        &["-fgpu-rdc", "shapes.o", "main.o", "scene.o", "-o", "linked"],
        None,
    );
    let text = run_program(&dir.path().join("linked"));
    assert!(
        text.contains("virtual calls across sources PASSED"),
        "{text}"
    );
}

#[test]
fn fgpu_rdc_objects_and_a_static_library_link_into_one_device_image() {
    let dir = copy_project("rdc");
    for source in RDC_SOURCES {
        let object = source.replace(".hip", ".o");
        hipmlir_in(
            dir.path(),
            &["-fgpu-rdc", "-Iinclude", "-c", source, "-o", &object],
            None,
        );
    }
    let ar = Command::new("ar")
        .current_dir(dir.path())
        .args(["rcs", "libphysics.a", "physics.o"])
        .status()
        .expect("ar runs");
    assert!(ar.success());
    hipmlir_in(
        dir.path(),
        &[
            "-fgpu-rdc",
            "main.o",
            "kernels.o",
            "libphysics.a",
            "-o",
            "app",
        ],
        None,
    );
    let text = run_program(&dir.path().join("app"));
    assert!(text.contains("separate compilation PASSED"), "{text}");
    // The same objects with the device code split out beside the binary.
    hipmlir_in(
        dir.path(),
        &[
            "--split-device-code",
            "main.o",
            "kernels.o",
            "physics.o",
            "-o",
            "split",
        ],
        None,
    );
    assert!(dir.path().join("split.hipk").exists());
    let text = run_program(&dir.path().join("split"));
    assert!(text.contains("separate compilation PASSED"), "{text}");
}

#[test]
fn device_symbols_that_do_not_link_are_named_where_they_are_used() {
    let dir = copy_project("rdc");
    // Without the source that defines them.
    let err = hipmlir_fails_in(
        dir.path(),
        &["-Iinclude", "main.hip", "kernels.hip", "-o", "app"],
    );
    assert!(
        err.contains("kernels.hip:10:18: error: device function 'advance' is defined in no source of the program"),
        "{err}"
    );
    assert!(err.contains("'steps_taken'"), "{err}");
    // Defined twice.
    let mut args = vec!["-Iinclude"];
    args.extend_from_slice(RDC_SOURCES);
    args.extend_from_slice(&["duplicate.hip", "-o", "app"]);
    let err = hipmlir_fails_in(dir.path(), &args);
    assert!(
        err.contains("duplicate.hip:4:18: error: multiple definition of device symbol")
            && err.contains("physics.hip:14:18"),
        "{err}"
    );
    // One source compiled alone without -fgpu-rdc: the flag is named.
    let err = hipmlir_fails_in(dir.path(), &["-Iinclude", "-c", "kernels.hip", "-o", "k.o"]);
    assert!(
        err.contains("kernels.hip:9:18: error: device function 'clamp_speed' is not defined in this source: compile with -fgpu-rdc"),
        "{err}"
    );
    assert!(!dir.path().join("k.o").exists());
}

#[test]
fn device_variables_and_internal_kernels_of_one_name_are_each_sources_own_without_fgpu_rdc() {
    // first.hip and second.hip each define `devSymbol` (of other sizes and types), `scaled` and
    // `scaled_step` through a macro (no `static` can be written there), a `static`
    // `launches`, and include a header defining `header_offsets`: as with hipcc, each source
    // has its own, in one command, compiled apart and linked, and with the device code split.
    let dir = copy_project("own_variables");
    let d = dir.path();
    let sources = ["-Iinclude", "first.hip", "second.hip"];
    hipmlir_in(d, &[&sources[..], &["-o", "app"]].concat(), None);
    hipmlir_in(d, &["-Iinclude", "-c", "first.hip", "-o", "first.o"], None);
    hipmlir_in(
        d,
        &["-Iinclude", "-c", "second.hip", "-o", "second.o"],
        None,
    );
    hipmlir_in(d, &["first.o", "second.o", "-o", "linked"], Some("g++"));
    hipmlir_in(
        d,
        &["first.o", "second.o", "--split-device-code", "-o", "split"],
        None,
    );
    for app in ["app", "linked", "split"] {
        let out = run_with(&d.join(app), &[]);
        assert!(
            text(&out).contains("own variables PASSED"),
            "{app}: {}",
            text(&out)
        );
    }
    // With -fgpu-rdc a device variable is the program's: two definitions do not link.
    for source in ["first", "second"] {
        let (input, object) = (format!("{source}.hip"), format!("{source}-rdc.o"));
        hipmlir_in(
            d,
            &["-fgpu-rdc", "-Iinclude", "-c", &input, "-o", &object],
            None,
        );
    }
    let err = hipmlir_fails_in(
        d,
        &["-fgpu-rdc", "first-rdc.o", "second-rdc.o", "-o", "rdc"],
    );
    // (Which definition is named first depends on the order of the symbols.)
    assert!(
        err.contains("multiple definition of device symbol") || err.contains("has another type"),
        "{err}"
    );
}

#[test]
fn outputs_never_overwrite_inputs() {
    let dir = scratch();
    let d = dir.path();
    let source = std::fs::read(repo().join("examples/vector_add.hip")).unwrap();
    std::fs::write(d.join("x.hip"), &source).unwrap();
    std::os::unix::fs::symlink("x.hip", d.join("link.hip")).unwrap();
    std::fs::create_dir(d.join("sub")).unwrap();
    // A C++ source whose own name is one --save-temps writes for x.hip.
    std::fs::write(d.join("x.host.cpp"), "int helper() { return 1; }\n").unwrap();
    std::fs::write(d.join("main.o"), b"not really an object").unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["x.hip", "-o", "x.hip"], "'x.hip' is the same as input"),
        (vec!["x.hip", "-o", "./x.hip"], "is the same as input"),
        (vec!["x.hip", "-o", "sub/../x.hip"], "is the same as input"),
        (vec!["x.hip", "-o", "link.hip"], "is the same as input"),
        (vec!["link.hip", "-o", "x.hip"], "is the same as input"),
        (vec!["-c", "x.hip", "-o", "x.hip"], "is the same as input"),
        (
            vec!["--emit-spirv", "x.hip", "-o", "x.hip"],
            "is the same as input",
        ),
        (
            vec!["--emit-mlir=frontend", "x.hip", "-o", "./link.hip"],
            "is the same as input",
        ),
        (
            vec!["x.hip", "main.o", "-o", "main.o"],
            "is the same as input",
        ),
        (
            vec!["-c", "x.hip", "-MMD", "-MF", "x.hip"],
            "is the same as input",
        ),
        (
            vec!["x.hip", "x.host.cpp", "--save-temps", "-o", "app"],
            "'./x.host.cpp' is the same as input",
        ),
        (
            vec!["-c", "x.hip", "--save-temps", "-o", "x.spv"],
            "is the same as the --save-temps file",
        ),
        (vec!["x.hip", "--split-device-code", "-o", "x"], ""),
    ];
    for (args, needle) in cases {
        let out = hipmlir().current_dir(d).args(&args).output().unwrap();
        let err = stderr(&out);
        if needle.is_empty() {
            // The control: a build that writes beside its source without touching it.
            assert!(out.status.success(), "{args:?}: {err}");
        } else {
            assert!(!out.status.success(), "{args:?} succeeded");
            assert!(
                err.starts_with("hipmlir: error: output file '") && err.contains(needle),
                "{args:?}: expected '{needle}' in:\n{err}"
            );
        }
        // Nothing was written over the inputs, and nothing else was written first.
        assert_eq!(std::fs::read(d.join("x.hip")).unwrap(), source, "{args:?}");
        assert!(
            std::fs::symlink_metadata(d.join("link.hip"))
                .unwrap()
                .file_type()
                .is_symlink(),
            "{args:?}"
        );
        assert_eq!(
            std::fs::read(d.join("x.host.cpp")).unwrap(),
            b"int helper() { return 1; }\n",
            "{args:?}"
        );
        assert_eq!(
            std::fs::read(d.join("main.o")).unwrap(),
            b"not really an object"
        );
        if !needle.is_empty() {
            for leftover in ["x.spv", "x.o", "x.d", "app", "x.frontend.mlir"] {
                assert!(!d.join(leftover).exists(), "{args:?} wrote {leftover}");
            }
        }
    }
}

/// The `.hip_fatbin` bundle of a built executable: its offset and its decoded entries.
fn fatbin_bundle(exe: &[u8]) -> (usize, hipmlir_device_image::Bundle) {
    use hipmlir_device_image::{Bundle, MAGIC};
    // The section's bundle: the magic followed by its entry count (section names in the string
    // table also start with the magic, followed by text).
    (0..exe.len().saturating_sub(32))
        .filter(|&at| exe[at..].starts_with(MAGIC))
        .find_map(|at| {
            let count = u64::from_le_bytes(exe[at + 24..at + 32].try_into().unwrap());
            // host, SPIR-V, metadata, hash, and the default's PTX for sm_70.
            (count == 4 || count == 5)
                .then(|| (at, Bundle::decode(&exe[at..]).ok()))
                .and_then(|(a, b)| Some((a, b?)))
        })
        .expect("a device image bundle in the executable")
}

/// Where entry `id`'s data lies in the executable.
fn entry_range(
    exe: &[u8],
    at: usize,
    bundle: &hipmlir_device_image::Bundle,
    id: &str,
) -> std::ops::Range<usize> {
    let data = bundle.entry(id).expect("entry");
    let start = (at..exe.len())
        .find(|&i| exe[i..].starts_with(data))
        .expect("entry data");
    start..start + data.len()
}

#[test]
fn damaged_embedded_images_are_hip_errors_not_driver_crashes() {
    use hipmlir_device_image::{
        content_hash_with_ptx, PtxCode, HASH_ENTRY_ID, METADATA_ENTRY_ID, PTX_ENTRY_PREFIX,
        SPIRV_ENTRY_ID,
    };
    let dir = scratch();
    let exe = build(&repo().join("examples/vector_add.hip"), dir.path(), None);
    let good = std::fs::read(&exe).unwrap();
    let (at, bundle) = fatbin_bundle(&good);
    let spirv = entry_range(&good, at, &bundle, SPIRV_ENTRY_ID);
    let metadata = entry_range(&good, at, &bundle, METADATA_ENTRY_ID);
    let hash = entry_range(&good, at, &bundle, HASH_ENTRY_ID);
    let ptx_id = format!("{PTX_ENTRY_PREFIX}sm_70");
    let ptx = entry_range(&good, at, &bundle, &ptx_id);
    let ptx_entries: Vec<PtxCode> = bundle
        .ptx_entries()
        .map(|(arch, text)| PtxCode {
            arch: arch.to_string(),
            ptx: text.to_vec(),
        })
        .collect();
    let meta_text = String::from_utf8(good[metadata.clone()].to_vec()).unwrap();
    // The second argument's offset (8) edited to 0: same length, silently wrong before.
    let offset_at = metadata.start + meta_text.match_indices("\"offset\": 8").next().unwrap().0;
    let name_at = spirv.start
        + good[spirv.clone()]
            .windows(8)
            .position(|w| w == b"_Z10vect")
            .unwrap();
    let mut cases: Vec<(&str, Vec<u8>, &str)> = Vec::new();
    for (what, byte) in [
        ("a bit of the SPIR-V header", spirv.start + 4),
        (
            "a bit in the middle of the SPIR-V",
            (spirv.start + spirv.end) / 2,
        ),
        ("a bit of the last SPIR-V word", spirv.end - 3),
    ] {
        let mut bytes = good.clone();
        bytes[byte] ^= 0x04;
        cases.push((what, bytes, "content hash mismatch"));
    }
    let mut bytes = good.clone();
    bytes[(ptx.start + ptx.end) / 2] ^= 0x04;
    cases.push(("a bit of the PTX", bytes, "content hash mismatch"));
    let mut bytes = good.clone();
    bytes[offset_at + 11] = b'0';
    cases.push((
        "an argument offset in the metadata",
        bytes,
        "content hash mismatch",
    ));
    // Forged: the kernel's entry point renamed and the hash recomputed. The structural check
    // sees the SPIR-V and the metadata disagree.
    let mut bytes = good.clone();
    bytes[name_at + 7] = b'w';
    let forged = content_hash_with_ptx(
        &bytes[spirv.clone()],
        &bytes[metadata.clone()],
        &ptx_entries,
    );
    bytes[hash.clone()].copy_from_slice(&forged);
    cases.push((
        "a renamed entry point with its hash recomputed",
        bytes,
        "no entry point for kernel",
    ));
    for (i, (what, bytes, needle)) in cases.into_iter().enumerate() {
        let damaged = dir.path().join(format!("damaged{i}"));
        std::fs::write(&damaged, bytes).unwrap();
        std::fs::set_permissions(
            &damaged,
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        let out = run_with(&damaged, &[]);
        let all = text(&out);
        assert!(
            out.status.code().is_some(),
            "{what}: killed by a signal:\n{all}"
        );
        assert!(!out.status.success(), "{what}: the program passed:\n{all}");
        assert!(
            all.contains("invalid device image in '")
                && all.contains(&format!("damaged{i}"))
                && all.contains(needle),
            "{what}: expected an invalid-image message naming the binary and '{needle}':\n{all}"
        );
        assert!(
            all.contains("hipErrorInvalidImage") || all.contains("invalid device image"),
            "{all}"
        );
    }
}

/// The precompiled headers of the device parse and of the host compile (made the second time a
/// set of flags is seen, used from the third) change nothing: the same object as a build
/// without a cache, the same diagnostics, and a damaged PCH is passed over (the device one is
/// deleted, to be made again), with GCC and with clang as the host compiler.
#[test]
fn precompiled_headers_never_change_a_build() {
    for cxx in HOST_COMPILERS {
        precompiled_headers_never_change_a_build_with(cxx);
    }
}

/// The host compilers whose precompiled headers hipmlir makes, and their PCHs' extension.
const HOST_COMPILERS: [(&str, &str); 2] = [("g++", "gch"), ("clang++-22", "pch")];

fn precompiled_headers_never_change_a_build_with((cxx, pch): (&str, &str)) {
    let dir = scratch();
    let cache = dir.path().join("cache");
    // A copy that begins with a #define: no preamble, so the prefix header's PCHs serve it.
    let programs = repo().join("tests/programs");
    let source = dir.path().join("unions.hip");
    let text = std::fs::read_to_string(programs.join("unions.hip")).unwrap();
    std::fs::write(
        &source,
        format!("#define UNIONS_WITHOUT_A_PREAMBLE 1\n{text}"),
    )
    .unwrap();
    std::fs::copy(
        programs.join("test_common.h"),
        dir.path().join("test_common.h"),
    )
    .unwrap();
    let compile = |object: &str, cached: bool| {
        compile_object(dir.path(), cxx, &source, object, cached.then_some(&*cache)).0
    };
    let plain = compile("plain.o", false);
    for i in 0..3 {
        assert!(
            compile(&format!("cached{i}.o"), true) == plain,
            "build {i} differs"
        );
    }
    let device = files_ending(&cache.join("pch"), ".pch");
    let host = files_ending(&cache.join("host-pch"), &format!("hip_runtime.h.{pch}"));
    assert_eq!(device.len(), 1, "{cxx}: {device:?}");
    assert_eq!(host.len(), 1, "{cxx}: {host:?}");
    for pch in device.iter().chain(&host) {
        std::fs::write(pch, b"not a precompiled header").unwrap();
    }
    assert!(
        compile("damaged.o", true) == plain,
        "{cxx}: a damaged PCH changed the build"
    );
    assert!(!device[0].exists(), "the damaged device PCH was kept");
    // Made again as a new one is: on the second sight of its flags.
    assert!(compile("seen.o", true) == plain);
    assert!(compile("remade.o", true) == plain);
    assert!(device[0].exists(), "the device PCH was not made again");
    // An error in the source reads the same with and without the PCH.
    let broken = dir.path().join("broken.hip");
    std::fs::write(
        &broken,
        "#include <hip/hip_runtime.h>\n__global__ void k(float* a) { a[0] = undeclared; }\n",
    )
    .unwrap();
    let diagnose = |cached: bool| {
        let mut cmd = hipmlir();
        cmd.current_dir(dir.path())
            .env("CXX", cxx)
            .args(["-c", "-O2", "broken.hip"]);
        if cached {
            cmd.env("HIPMLIR_CACHE_DIR", &cache);
        } else {
            cmd.env("HIPMLIR_DISABLE_CACHE", "1");
        }
        let out = cmd.output().expect("hipmlir runs");
        assert!(!out.status.success());
        stderr(&out)
    };
    let expected = diagnose(false);
    assert!(
        expected.contains("broken.hip:2:") && expected.contains("undeclared"),
        "{expected}"
    );
    assert_eq!(diagnose(true), expected);
}

/// A source whose leading includes are system headers gets precompiled preambles (device and
/// host, made the second time it is seen, used from the third): the same object as a build
/// without a cache, a program that passes, and a damaged or stale one passed over and removed.
#[test]
fn precompiled_preambles_never_change_a_build() {
    for cxx in HOST_COMPILERS {
        precompiled_preambles_never_change_a_build_with(cxx);
    }
}

fn precompiled_preambles_never_change_a_build_with((cxx, pch): (&str, &str)) {
    let dir = scratch();
    let cache = dir.path().join("cache");
    let source = repo().join("tests/programs/system_header_preamble.hip");
    let compile = |object: &str, cached: bool| {
        compile_object(dir.path(), cxx, &source, object, cached.then_some(&*cache))
    };
    let (plain, _) = compile("plain.o", false);
    let mut last_log = String::new();
    for i in 0..4 {
        let (object, log) = compile(&format!("cached{i}.o"), true);
        assert!(object == plain, "build {i} differs");
        last_log = log;
    }
    let device = files_ending(&cache.join("preamble"), ".pch");
    let host = files_ending(&cache.join("host-preamble"), &format!("preamble.h.{pch}"));
    assert_eq!(device.len(), 1, "{cxx}: {device:?}");
    assert_eq!(host.len(), 1, "{cxx}: {host:?}");
    let host_header = host[0].with_extension("");
    assert!(
        last_log.contains(&format!("-include {}", host_header.display())),
        "the host compile did not take the preamble:\n{last_log}"
    );
    // The program built through both preambles runs and checks every element.
    build_and_run_with_cache(dir.path(), cxx, &source, &cache);
    // A damaged device preamble is passed over and deleted; a host one whose headers changed
    // (here: a recorded size that no longer matches) is removed before use.
    std::fs::write(&device[0], b"not a precompiled header").unwrap();
    let inputs = host[0].parent().unwrap().join("inputs");
    let recorded = std::fs::read_to_string(&inputs).unwrap();
    std::fs::write(&inputs, format!("1{recorded}")).unwrap();
    let (object, log) = compile("stale.o", true);
    assert!(
        object == plain,
        "a damaged or stale preamble changed the build"
    );
    assert!(!device[0].exists(), "the damaged device preamble was kept");
    assert!(!host[0].exists(), "the stale host preamble was kept");
    assert!(!log.contains(&host_header.display().to_string()), "{log}");
}

/// A source that begins with headers of the user's holding no device code the frontend walks
/// (as rocm-examples' programs begin) gets device and host preambles holding them, their quoted
/// includes naming the headers by the paths they were found at: the same object as a build
/// without a cache and a program that passes; an edited header is seen by the next build; a
/// header that draws a warning stays out of the host preamble, so that every build prints the
/// warning, and one that defines a kernel stays out of the device preamble. With GCC and with
/// clang as the host compiler.
#[test]
fn user_headers_in_preambles_never_change_a_build() {
    for cxx in HOST_COMPILERS {
        user_headers_in_preambles_never_change_a_build_with(cxx);
    }
}

fn user_headers_in_preambles_never_change_a_build_with((cxx, pch): (&str, &str)) {
    let dir = scratch();
    let cache = dir.path().join("cache");
    // A copy of the program, so that its header can be edited.
    let src = dir.path().join("src");
    copy_test_programs(
        &src,
        &[
            "user_header_preamble.hip",
            "host_utilities.h",
            "test_common.h",
            "include/stencil_math.h",
        ],
    );
    let source = src.join("user_header_preamble.hip");
    let header = src.join("host_utilities.h");
    let compile = |object: &str, cached: bool| {
        compile_object(dir.path(), cxx, &source, object, cached.then_some(&*cache))
    };
    let (plain, _) = compile("plain.o", false);
    let mut last_log = String::new();
    for i in 0..3 {
        let (object, log) = compile(&format!("cached{i}.o"), true);
        assert!(object == plain, "{cxx}: build {i} differs");
        last_log = log;
    }
    let host = files_ending(&cache.join("host-preamble"), &format!("preamble.h.{pch}"));
    assert_eq!(host.len(), 1, "{cxx}: {host:?}");
    let host_header = host[0].with_extension("");
    assert!(
        last_log.contains(&format!("-include {}", host_header.display())),
        "{cxx}: the host compile did not take the preamble:\n{last_log}"
    );
    let preamble = std::fs::read_to_string(&host_header).unwrap();
    assert!(
        preamble.contains(&format!("#include \"{}\"", header.display())),
        "{cxx}: the preamble does not hold the user's header:\n{preamble}"
    );
    let inputs = std::fs::read_to_string(host[0].parent().unwrap().join("inputs")).unwrap();
    assert!(inputs.contains(&header.display().to_string()), "{inputs}");
    let include = format!("#include \"{}\"", header.display());
    let device = files_ending(&cache.join("preamble"), ".h");
    assert!(
        device.len() == 1
            && std::fs::read_to_string(&device[0])
                .unwrap()
                .contains(&include),
        "{cxx}: no device preamble holds the user's header: {device:?}"
    );
    // The program built through the preamble runs and checks every element.
    build_and_run_with_cache(dir.path(), cxx, &source, &cache);
    // An edited header makes the preamble stale: the next build is a plain build's.
    let original = std::fs::read_to_string(&header).unwrap();
    let edited = original.replace("kScale = 3.0f", "kScale = 0.75f");
    assert_ne!(edited, original);
    std::fs::write(&header, &edited).unwrap();
    let (plain_edited, _) = compile("plain_edited.o", false);
    assert!(plain_edited != plain, "the edit changed nothing");
    let (object, log) = compile("cached_edited.o", true);
    assert!(
        object == plain_edited,
        "{cxx}: the build did not see the edited header"
    );
    assert!(!log.contains(&host_header.display().to_string()), "{log}");
    // A warning of the host compile's in the header: printed by every build, never kept in a
    // preamble.
    std::fs::write(
        &header,
        format!(
            "{edited}#ifndef __HIP_DEVICE_COMPILE__\n#warning \"host utilities are old\"\n#endif\n"
        ),
    )
    .unwrap();
    for i in 0..4 {
        let (_, log) = compile(&format!("warned{i}.o"), true);
        assert!(
            log.contains("host utilities are old"),
            "{cxx}: build {i} did not print the header's warning:\n{log}"
        );
    }
    assert!(
        files_ending(&cache.join("host-preamble"), &format!("preamble.h.{pch}")).is_empty(),
        "{cxx}: a preamble was made of a header that draws a warning"
    );
    // A kernel in the header: the device walk must see it, so no device preamble holds it.
    let with_kernel = format!(
        "{edited}__global__ void unused_kernel_of_the_header(float* p) {{ p[0] = 1.0f; }}\n"
    );
    std::fs::write(&header, with_kernel).unwrap();
    let (plain_kernel, _) = compile("plain_kernel.o", false);
    for i in 0..4 {
        let (object, _) = compile(&format!("kernel{i}.o"), true);
        assert!(
            object == plain_kernel,
            "{cxx}: build {i} with a kernel in the header differs"
        );
    }
    let held = files_ending(&cache.join("preamble"), ".h")
        .into_iter()
        .filter(|h| std::fs::read_to_string(h).unwrap().contains(&include))
        .filter(|h| h.with_extension("pch").exists())
        .count();
    assert_eq!(
        held, 0,
        "{cxx}: a device preamble holds a header with a kernel"
    );
    assert!(!files_ending(&cache.join("preamble"), ".unsuitable").is_empty());
}

/// A source built from a new folder each time (as a build in a fresh checkout or temporary
/// copy) names its headers by new paths, so a preamble holding them is never seen twice: its
/// leading system headers' preambles serve it instead, from the third build on.
#[test]
fn a_source_in_a_new_folder_each_build_keeps_its_system_preambles() {
    let dir = scratch();
    let cache = dir.path().join("cache");
    let mut last_log = String::new();
    for i in 0..3 {
        let folder = dir.path().join(format!("copy{i}"));
        copy_test_programs(&folder, &["system_header_preamble.hip", "test_common.h"]);
        let source = folder.join("system_header_preamble.hip");
        last_log = compile_object(&folder, "clang++-22", &source, "o.o", Some(&cache)).1;
    }
    let host = files_ending(&cache.join("host-preamble"), "preamble.h.pch");
    assert_eq!(host.len(), 1, "{host:?}");
    let header = host[0].with_extension("");
    assert!(
        last_log.contains(&format!("-include {}", header.display())),
        "the third build did not take the system headers' preamble:\n{last_log}"
    );
    let device = files_ending(&cache.join("preamble"), ".pch");
    assert_eq!(device.len(), 1, "{device:?}");
    for text in [header, device[0].with_extension("h")] {
        let text = std::fs::read_to_string(text).unwrap();
        assert!(
            text.contains("#include <random>") && !text.contains("test_common.h"),
            "{text}"
        );
    }
}

/// Copies `files` of tests/programs (paths under it) into `dest`, keeping their folders.
fn copy_test_programs(dest: &Path, files: &[&str]) {
    let programs = repo().join("tests/programs");
    for file in files {
        let to = dest.join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(programs.join(file), to).unwrap();
    }
}

/// `CXX=cxx hipmlir SOURCE -o <dir>/<stem>` with the cache folder `cache`, then runs the program,
/// which checks every element.
fn build_and_run_with_cache(dir: &Path, cxx: &str, source: &Path, cache: &Path) {
    let exe = dir.join(source.file_stem().unwrap());
    let out = hipmlir()
        .current_dir(dir)
        .env("HIPMLIR_CACHE_DIR", cache)
        .env("CXX", cxx)
        .arg(source)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("hipmlir runs");
    assert!(out.status.success(), "{}", stderr(&out));
    run_program(&exe);
}

/// `CXX=cxx hipmlir -c -O2 -v SOURCE -o OBJECT` in `dir`, with the cache folder `cache` or
/// with no cache; the object's bytes and the log (which names the host compile's command).
fn compile_object(
    dir: &Path,
    cxx: &str,
    source: &Path,
    object: &str,
    cache: Option<&Path>,
) -> (Vec<u8>, String) {
    let mut cmd = hipmlir();
    cmd.current_dir(dir)
        .env("CXX", cxx)
        .args(["-c", "-O2", "-v"])
        .arg(source)
        .args(["-o", object]);
    match cache {
        Some(cache) => cmd.env("HIPMLIR_CACHE_DIR", cache),
        None => cmd.env("HIPMLIR_DISABLE_CACHE", "1"),
    };
    let out = cmd.output().expect("hipmlir runs");
    assert!(out.status.success(), "{}", stderr(&out));
    (std::fs::read(dir.join(object)).unwrap(), stderr(&out))
}

/// The files under `dir` whose path ends with `suffix`.
fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    walk(dir)
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() && !path.is_symlink() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// `--offload-arch=sm_70` puts PTX in each test program's device image: an object's bundle
/// holds a `hip-nvptx64-nvidia-cuda--sm_70` entry (covered by the content hash, which inspect
/// checks) with an `.entry` for every kernel of the metadata, and no SPIR-V. The default builds
/// both; `--offload-arch=spirv64` SPIR-V alone.
#[test]
fn offload_arch_puts_ptx_for_every_kernel_in_the_bundle() {
    let dir = scratch();
    let programs = programs();
    let failures: Vec<String> = std::thread::scope(|s| {
        let halves: Vec<_> = programs
            .chunks(programs.len().div_ceil(2))
            .map(|chunk| {
                let dir = dir.path();
                s.spawn(move || {
                    let mut failures = Vec::new();
                    for source in chunk {
                        let name = source.file_stem().unwrap().to_string_lossy().to_string();
                        let object = dir.join(format!("{name}.o"));
                        let out = run_hipmlir(&[
                            "-c",
                            source.to_str().unwrap(),
                            "--offload-arch=sm_70",
                            "-o",
                            object.to_str().unwrap(),
                        ]);
                        if !out.status.success() {
                            failures.push(format!("{name}: {}", stderr(&out)));
                            continue;
                        }
                        let out = run_hipmlir(&["inspect", object.to_str().unwrap()]);
                        let t = stdout(&out);
                        let kernels = t.matches("    kernel ").count();
                        let ok = out.status.success()
                            && t.contains("no SPIR-V (built for NVIDIA GPUs only)")
                            && t.contains("PTX for sm_70: ")
                            && t.contains(&format!("{kernels} entries"))
                            && kernels > 0;
                        if !ok {
                            failures.push(format!("{name}:\n{t}{}", stderr(&out)));
                        }
                    }
                    failures
                })
            })
            .collect();
        halves.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    let vadd = repo().join("examples/vector_add.hip");
    let both = dir.path().join("both");
    hipmlir_in(
        dir.path(),
        &[vadd.to_str().unwrap(), "-o", both.to_str().unwrap()],
        None,
    );
    let t = stdout(&run_hipmlir(&["inspect", both.to_str().unwrap()]));
    assert!(
        t.contains("spirv-val: valid") && t.contains("PTX for sm_70:"),
        "{t}"
    );
    assert!(run_program(&both).contains("PASSED"));
    let spirv = dir.path().join("spirv");
    hipmlir_in(
        dir.path(),
        &[
            vadd.to_str().unwrap(),
            "--offload-arch=spirv64",
            "-o",
            spirv.to_str().unwrap(),
        ],
        None,
    );
    let t = stdout(&run_hipmlir(&["inspect", spirv.to_str().unwrap()]));
    assert!(
        t.contains("spirv-val: valid") && !t.contains("PTX for"),
        "{t}"
    );
}

/// Without libdevice a kernel calling a math function has no PTX: the default build still
/// succeeds (SPIR-V alone, with a warning naming the reason), a build that names the NVIDIA
/// architecture fails with a message saying where libdevice comes from.
#[test]
fn ptx_without_libdevice_is_a_warning_by_default_and_an_error_when_asked_for() {
    let dir = scratch();
    let source = repo().join("tests/programs/math_functions.hip");
    let exe = dir.path().join("math");
    let out = hipmlir()
        .env("HIPMLIR_LIBDEVICE", dir.path().join("missing.bc"))
        .arg(&source)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("warning: no PTX for sm_70") && err.contains("libdevice"),
        "{err}"
    );
    let t = stdout(&run_hipmlir(&["inspect", exe.to_str().unwrap()]));
    assert!(
        t.contains("spirv-val: valid") && !t.contains("PTX for"),
        "{t}"
    );
    assert!(run_program(&exe).contains("PASSED"));
    let out = hipmlir()
        .env("HIPMLIR_LIBDEVICE", dir.path().join("missing.bc"))
        .arg(&source)
        .args(["--offload-arch=sm_70", "--emit-ptx", "-o"])
        .arg(dir.path().join("math.ptx"))
        .output()
        .unwrap();
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("hipmlir: error: the PTX kernels call __nv_")
            && err.contains("install libdevice with scripts/setup.sh"),
        "{err}"
    );
}

/// Identifiers in non-ASCII letters: LLVM's NVPTX printer cannot write them (it ended the
/// compiler with "LLVM ERROR: Symbol name with unsupported characters"), so a default build
/// warns, keeps the SPIR-V and runs; an explicit `sm_70` build is a clean error naming the
/// symbol at its source position, with no temporary folder left.
#[test]
fn non_ascii_identifiers_build_for_spirv_and_are_named_for_ptx() {
    let dir = scratch();
    let source = repo().join("tests/driver/unicode_names/unicode_names.hip");
    let exe = dir.path().join("unicode");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let out = hipmlir()
        .env("TMPDIR", &tmp)
        .arg(&source)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("warning: no PTX for sm_70") && err.contains("in PTX, whose names hold only"),
        "{err}"
    );
    assert!(run_program(&exe).contains("unicode_names PASSED"));
    let out = hipmlir()
        .env("TMPDIR", &tmp)
        .arg(&source)
        .args(["--offload-arch=sm_70", "-o"])
        .arg(dir.path().join("unicode_ptx"))
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("unicode_names.hip:")
            && err.contains("error: unsupported construct in device code: the symbol '")
            && !err.contains("LLVM ERROR"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "left in TMPDIR"
    );
}

/// A source named with a newline, a tab, quotes and a backslash (names C++ sources may have)
/// builds whole, as an object and with --save-temps: the name is escaped where hipmlir writes it
/// into generated code (`#line`, the image stub); before, the newline ended the `#line`
/// ("invalid filename for #line directive"). A name that is not UTF-8 is an error naming the
/// argument: read lossily, it named another file and `-o` wrote under another name.
#[test]
fn sources_with_odd_names_build_and_non_utf8_names_are_named() {
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch();
    let example = repo().join("examples/vector_add.hip");
    for name in ["new\nline.hip", "tab\tq\"uote'.hip", "back\\slash.hip"] {
        let source = dir.path().join(name);
        std::fs::copy(&example, &source).unwrap();
        let exe = dir.path().join(format!("{name}.exe"));
        let out = hipmlir().arg(&source).arg("-o").arg(&exe).output().unwrap();
        assert!(out.status.success(), "{name:?}: {}", stderr(&out));
        assert!(run_program(&exe).contains("PASSED"), "{name:?}");
        let object = dir.path().join(format!("{name}.o"));
        let out = hipmlir()
            .current_dir(dir.path())
            .args(["-c", "--save-temps=obj"])
            .arg(&source)
            .arg("-o")
            .arg(&object)
            .output()
            .unwrap();
        assert!(out.status.success(), "{name:?} -c: {}", stderr(&out));
        let linked = dir.path().join(format!("{name}.linked"));
        let out = hipmlir()
            .arg(&object)
            .arg("-o")
            .arg(&linked)
            .output()
            .unwrap();
        assert!(out.status.success(), "{name:?} link: {}", stderr(&out));
        assert!(run_program(&linked).contains("PASSED"), "{name:?} linked");
    }
    let latin1 = dir.path().join(std::ffi::OsStr::from_bytes(b"caf\xe9.hip"));
    std::fs::copy(&example, &latin1).unwrap();
    let exe = dir.path().join(std::ffi::OsStr::from_bytes(b"caf\xe9"));
    let out = hipmlir().arg(&latin1).arg("-o").arg(&exe).output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("hipmlir: error: argument 1 (") && err.contains("is not valid UTF-8"),
        "{err}"
    );
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        !names
            .iter()
            .any(|n| n.to_str().is_some_and(|n| n.starts_with("caf\u{fffd}"))),
        "{names:?}"
    );
}

/// A linked output is made beside its place, finished there and moved into place whole:
/// `-o /dev/null` builds (the bytes go to the device; before, the file read back for its
/// bundler sections was empty: "not an ELF file"), `-o /dev/full` is a clean error (gold
/// repeated its write error without end), and four builds of one output at once all succeed
/// with a working program (one read another's half-written file), leaving nothing beside it.
#[test]
fn linked_outputs_are_moved_into_place_whole() {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let dir = scratch();
    let source = repo().join("examples/vector_add.hip");
    let out = hipmlir()
        .arg(&source)
        .args(["-o", "/dev/null"])
        .output()
        .unwrap();
    assert!(out.status.success(), "-o /dev/null: {}", stderr(&out));
    let mut child = hipmlir()
        .arg(&source)
        .args(["-o", "/dev/full"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() && start.elapsed() < Duration::from_secs(300) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let ended = child.try_wait().unwrap().is_some();
    if !ended {
        let _ = child.kill();
    }
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert!(ended, "-o /dev/full did not end");
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot write") && err.contains("/dev/full"),
        "{err}"
    );
    let exe = dir.path().join("same");
    let builds: Vec<_> = (0..4)
        .map(|_| {
            let (source, exe) = (source.clone(), exe.clone());
            std::thread::spawn(move || hipmlir().arg(&source).arg("-o").arg(&exe).output())
        })
        .collect();
    for build in builds {
        let out = build.join().unwrap().unwrap();
        assert!(out.status.success(), "concurrent build: {}", stderr(&out));
    }
    assert!(run_program(&exe).contains("PASSED"));
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("same")], "{names:?}");
}

/// Recursion is compiled for NVIDIA targets (PTX has a call stack: the functions stay functions
/// calling themselves) and for SPIR-V, where the calls closing a cycle go through
/// SPV_INTEL_function_pointers and every other call is still inlined. end_to_end runs the
/// program on the OpenCL device, scripts/gpu-check.sh on a GPU.
#[test]
fn recursion_builds_for_nvidia_targets_and_for_spirv_through_function_pointers() {
    use hipmlir_device_image::spirv_words::{self, spirv::Capability, spirv::Op};
    let dir = scratch();
    let src = repo().join("tests/programs/recursion.hip");
    let ptx = dir.path().join("recursion.ptx");
    let out = hipmlir()
        .arg(&src)
        .args(["--offload-arch=sm_70", "--emit-ptx", "-o"])
        .arg(&ptx)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&ptx).unwrap();
    // (The mutual recursion may become a loop in LLVM's hands: tail calls.)
    for f in ["_Z8tree_sumPK4Nodeii", "_Z9quicksortPiii"] {
        let calls = text.matches(&format!("call.uni (retval0), {f},")).count()
            + text.matches(&format!("call.uni {f},")).count();
        assert!(calls > 0, "{f} is called in:\n{text}");
    }
    let spv = dir.path().join("recursion.spv");
    let out = hipmlir()
        .arg(&src)
        .args(["--emit-spirv", "-o"])
        .arg(&spv)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let words = spirv_words::words(&std::fs::read(&spv).unwrap()).unwrap();
    let instructions = spirv_words::parse(&words).unwrap();
    let count = |op: Op| instructions.iter().filter(|i| i.is(op)).count();
    assert!(instructions
        .iter()
        .any(|i| i.is(Op::Capability)
            && i.operand(0) == Some(Capability::FunctionPointersINTEL as u32)));
    assert!(instructions
        .iter()
        .any(|i| i.is(Op::Extension) && i.string_is(0, "SPV_INTEL_function_pointers")));
    // quicksort calls itself twice, tree_sum twice, ...; the kernels call in plainly.
    assert!(count(Op::FunctionPointerCallINTEL) >= 4, "{instructions:?}");
    assert!(count(Op::ConstantFunctionPointerINTEL) >= 2);
    spirv_val(&spv);
}

/// What a recursive function cannot do on SPIR-V is an error naming the cycle (a warp operation:
/// subgroups are sized per kernel, from the kernel's own body); NVIDIA targets build it.
#[test]
fn a_warp_operation_in_a_recursive_function_is_named_for_spirv() {
    let dir = scratch();
    let src = dir.path().join("warp_recursion.hip");
    std::fs::write(
        &src,
        "#include <hip/hip_runtime.h>\n\
         __device__ int reduce(int v, int n) {\n\
           return n == 0 ? v : reduce(v + __shfl_xor(v, n), n / 2);\n\
         }\n\
         __global__ void k(int* out) { out[threadIdx.x] = reduce(threadIdx.x, 16); }\n",
    )
    .unwrap();
    let out = hipmlir()
        .arg(&src)
        .args(["--emit-spirv", "-o"])
        .arg(dir.path().join("w.spv"))
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("warp_recursion.hip:3:")
            && err.contains("unsupported construct in device code: a warp operation (a shuffle, vote or reduction, the lane id, warpSize) in a recursive function ('reduce(int, int)' calls itself;"),
        "{err}"
    );
    let out = hipmlir()
        .arg(&src)
        .args(["--offload-arch=sm_70", "--emit-ptx", "-o"])
        .arg(dir.path().join("w.ptx"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

/// An `--offload-arch` hipmlir does not know is an error that names the accepted ones, in every
/// spelling hipcc and clang take (`--offload-arch=`, `--offload-arch` apart, `--cuda-gpu-arch=`),
/// before anything is built.
#[test]
fn an_unknown_offload_architecture_is_an_error() {
    let dir = scratch();
    let vadd = repo().join("examples/vector_add.hip");
    let exe = dir.path().join("vector_add");
    for args in [
        vec!["--offload-arch=sm_xx"],
        vec!["--offload-arch=bogus"],
        vec!["--offload-arch", "sm_7"],
        vec!["--offload-arch=sm_70,spirv65"],
        vec!["--cuda-gpu-arch=compute_70x"],
    ] {
        let out = hipmlir()
            .args(&args)
            .arg(&vadd)
            .arg("-o")
            .arg(&exe)
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("hipmlir: error: unknown offload architecture '")
                && err.contains("accepted: spirv64 for OpenCL devices, NVIDIA architectures"),
            "{args:?}: {err}"
        );
        assert!(!exe.exists(), "{args:?} built {}", exe.display());
    }
}

/// A source with a long name (250 bytes, near the file system's limit of 255) builds and runs:
/// no temporary file's name grows with the source's.
#[test]
fn a_source_with_a_250_byte_name_builds() {
    let dir = scratch();
    let name = format!("{}.hip", "k".repeat(246));
    let source = dir.path().join(&name);
    std::fs::copy(repo().join("examples/vector_add.hip"), &source).unwrap();
    let exe = build(&source, dir.path(), None);
    assert!(run_program(&exe).contains("PASSED"));
    // Compiled alone (-c), its object named after it, then linked.
    hipmlir_in(dir.path(), &["-c", &name], None);
    let object = format!("{}.o", "k".repeat(246));
    hipmlir_in(dir.path(), &[&object, "-o", "linked"], None);
    assert!(run_program(&dir.path().join("linked")).contains("PASSED"));
}

/// A header that is a device without end (`#include "/dev/zero"`, or a quoted header that links
/// to `/dev/urandom`): libclang reads it to its end, so the compile's memory limit stops it with
/// an error naming the limit, and leaves no temporary folder behind.
#[test]
fn an_include_without_end_is_stopped_by_the_memory_limit() {
    let dir = scratch();
    std::os::unix::fs::symlink("/dev/urandom", dir.path().join("random.h")).unwrap();
    for (name, include) in [("zero.hip", "/dev/zero"), ("random.hip", "random.h")] {
        std::fs::write(
            dir.path().join(name),
            format!(
                "#include <hip/hip_runtime.h>\n#include \"{include}\"\n\
                 __global__ void k(int* a) {{ a[0] = 1; }}\nint main() {{ return 0; }}\n"
            ),
        )
        .unwrap();
        let temp = dir.path().join(format!("{name}.tmp"));
        std::fs::create_dir(&temp).unwrap();
        let out = hipmlir()
            .current_dir(dir.path())
            .env("HIPMLIR_COMPILE_MEMORY_LIMIT", "400")
            .env("TMPDIR", &temp)
            .args([name, "-o", "never"])
            .output()
            .expect("hipmlir runs");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(
            err.contains("hipmlir: error: the compile used more than 400 MiB of memory"),
            "{name}: {err}"
        );
        let left: Vec<_> = std::fs::read_dir(&temp).unwrap().flatten().collect();
        assert!(left.is_empty(), "{name}: left behind: {left:?}");
    }
}

/// Every file the driver reads is a regular file: a device or a FIFO given as a source, an
/// object, to `inspect` or to `hipmlir-opt` (named as such or through a symlink) is an error at
/// once, never a read without end or a wait for a writer.
#[test]
fn only_regular_files_are_read() {
    let dir = scratch();
    let fifo = dir.path().join("pipe.hip");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
    let zero = dir.path().join("zero.hip");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let object = dir.path().join("random.o");
    std::os::unix::fs::symlink("/dev/urandom", &object).unwrap();
    let exe = dir.path().join("never");
    let started = std::time::Instant::now();
    let (fifo, zero, object) = (
        fifo.to_str().unwrap(),
        zero.to_str().unwrap(),
        object.to_str().unwrap(),
    );
    let exe = exe.to_str().unwrap();
    for args in [
        vec![fifo, "-o", exe],
        vec![zero, "-o", exe],
        vec!["-c", zero, "-o", exe],
        vec!["-x", "hip", "/dev/zero", "-o", exe],
        vec![object, "-o", exe],
    ] {
        let out = run_hipmlir(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains(
                "is not a regular file (a device, FIFO or socket), not a source or object"
            ),
            "{args:?}: {err}"
        );
    }
    for file in [fifo, "/dev/zero"] {
        let out = run_hipmlir(&["inspect", file]);
        assert!(
            !out.status.success() && stderr(&out).contains("not a regular file"),
            "inspect {file}: {}",
            stderr(&out)
        );
        let out = Command::new(env!("CARGO_BIN_EXE_hipmlir-opt"))
            .arg(file)
            .output()
            .unwrap();
        assert!(
            !out.status.success() && stderr(&out).contains("not a regular file"),
            "hipmlir-opt {file}: {}",
            stderr(&out)
        );
    }
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
}
