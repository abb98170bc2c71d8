//! The installed toolchain (`make install`'s script) into a temporary prefix, moved elsewhere and
//! used from there: hipcc builds and runs a program, hipconfig answers, a CMake project with
//! `find_package(hip)` (and `hip::hiprtc`, `find_package(hiprtc)`), a program linked with
//! `-lhiprtc` by a plain C++ compiler, a hipcc-style Makefile and an MPI project with
//! `find_package(MPI)` (tests/mpi, run on 2 ranks) build and run; the uninstall removes exactly
//! what the install wrote.
mod common;

use std::path::Path;
use std::process::Command;

use common::*;

fn install_script(args: &[&Path]) {
    let out = Command::new(repo().join("scripts/install.sh"))
        .args(args)
        .output()
        .expect("install.sh runs");
    assert!(
        out.status.success(),
        "install.sh {args:?}: {}{}",
        stdout(&out),
        stderr(&out)
    );
}

fn run_ok(cmd: &mut Command, what: &str) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(out.status.success(), "{what} failed:\n{text}");
    text
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

#[test]
fn an_install_moves_and_builds_with_hipcc_cmake_and_make() {
    let dir = scratch();
    let first = dir.path().join("first");
    install_script(&[&first]);
    for file in [
        "bin/hipmlir",
        "bin/hipmlir-compiler",
        "bin/hipcc",
        "bin/hipconfig",
        "include/hip/hip_runtime.h",
        "include/hip/hip_version.h",
        "lib/libhipmlir_rt.so",
        "lib/libhipmlir_rt.so.0",
        "lib/libhiprtc.so",
        "lib/libhiprtc.so.0",
        "include/hip/hiprtc.h",
        "lib/cmake/hip/hip-config.cmake",
        "lib/cmake/hip/hip-config-version.cmake",
        "lib/cmake/hiprtc/hiprtc-config.cmake",
        "lib/cmake/hiprtc/hiprtc-config-version.cmake",
        "share/doc/hipmlir/README.md",
    ] {
        assert!(first.join(file).exists(), "the install lacks {file}");
    }
    let dynamic = run_ok(
        Command::new("readelf")
            .arg("-d")
            .arg(first.join("lib/libhipmlir_rt.so")),
        "readelf",
    );
    assert!(dynamic.contains("[libhipmlir_rt.so.0]"), "{dynamic}");
    let dynamic = run_ok(
        Command::new("readelf")
            .arg("-d")
            .arg(first.join("lib/libhiprtc.so")),
        "readelf",
    );
    assert!(dynamic.contains("[libhiprtc.so.0]"), "{dynamic}");
    // The compiler is installed once, in libhiprtc.so: bin/hipmlir-compiler loads it.
    let compiler = std::fs::metadata(first.join("bin/hipmlir-compiler")).unwrap();
    assert!(
        compiler.len() < 16 << 20,
        "bin/hipmlir-compiler is {} bytes",
        compiler.len()
    );

    // Nothing points back into the first place: the whole prefix moves.
    let prefix = dir.path().join("moved/prefix");
    std::fs::create_dir_all(prefix.parent().unwrap()).unwrap();
    std::fs::rename(&first, &prefix).unwrap();
    let prefix = prefix.canonicalize().unwrap();
    let bin = prefix.join("bin");

    let hipconfig = |flag: &str| run_ok(Command::new(bin.join("hipconfig")).arg(flag), "hipconfig");
    assert_eq!(hipconfig("--platform"), "spirv");
    assert_eq!(hipconfig("--path"), prefix.display().to_string());
    let (major, minor, patch) = hipmlir_device_image::hip_api_version();
    // ROCm's MAJOR.MINOR.PATCH-GITHASH, split as build systems split it.
    let version = hipconfig("--version");
    let (numbers, hash) = version.split_once('-').expect("a -GITHASH part");
    assert_eq!(numbers, format!("{major}.{minor}.{patch}"));
    assert!(
        !hash.is_empty() && hash.chars().all(|c| c.is_ascii_hexdigit()),
        "{version}"
    );
    assert!(hipconfig("--cpp_config").contains(&format!("-I{}", prefix.join("include").display())));
    assert!(hipconfig("--full").contains("HIP_PLATFORM : spirv"));
    let version = run_ok(
        Command::new(bin.join("hipcc")).arg("--version"),
        "hipcc --version",
    );
    assert!(
        version.contains(&format!("HIP {major}.{minor}.{patch}")) && version.contains("LLVM"),
        "{version}"
    );

    // hipcc builds a program whose runtime is the moved install's.
    let exe = dir.path().join("vector_add");
    run_ok(
        Command::new(bin.join("hipcc"))
            .arg(repo().join("examples/vector_add.hip"))
            .arg("-o")
            .arg(&exe),
        "hipcc",
    );
    let out = run_program(&exe);
    assert!(out.contains("PASSED"), "{out}");
    let dynamic = run_ok(Command::new("readelf").arg("-d").arg(&exe), "readelf");
    assert!(
        dynamic.contains("[libhipmlir_rt.so.0]")
            && dynamic.contains(&prefix.join("lib").display().to_string()),
        "{dynamic}"
    );

    // CMake: find_package(hip) with CMAKE_CXX_COMPILER set to the installed hipcc.
    let project = dir.path().join("cmake_project");
    copy_dir(&repo().join("tests/install/cmake_project"), &project);
    let build = project.join("build");
    run_ok(
        Command::new("cmake")
            .arg("-S")
            .arg(&project)
            .arg("-B")
            .arg(&build)
            .arg(format!(
                "-DCMAKE_CXX_COMPILER={}",
                bin.join("hipcc").display()
            ))
            .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix.display())),
        "cmake configure",
    );
    run_ok(
        Command::new("cmake").arg("--build").arg(&build),
        "cmake --build",
    );
    let out = run_program(&build.join("saxpy_app"));
    assert!(out.contains("cmake saxpy PASSED"), "{out}");
    let out = run_program(&build.join("rtc_app"));
    assert!(out.contains("hiprtc PASSED"), "{out}");

    // An MPI project: find_package(MPI) beside find_package(hip), hipcc the compiler.
    if have_mpi() {
        let project = dir.path().join("mpi_project");
        copy_dir(&repo().join("tests/mpi"), &project);
        let build = project.join("build");
        let configured = run_ok(
            Command::new("cmake")
                .arg("-S")
                .arg(&project)
                .arg("-B")
                .arg(&build)
                .arg(format!(
                    "-DCMAKE_CXX_COMPILER={}",
                    bin.join("hipcc").display()
                ))
                .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix.display())),
            "cmake configure (MPI)",
        );
        assert!(configured.contains("on spirv, MPI "), "{configured}");
        run_ok(
            Command::new("cmake").arg("--build").arg(&build),
            "cmake --build (MPI)",
        );
        let mut job = mpirun(2);
        job.arg(build.join("jacobi_mpi"))
            .args(["--nx", "60", "--ny", "45"]);
        let out = run_job(job, "jacobi_mpi PASSED");
        assert!(out.contains("on 2 ranks match one process"), "{out}");
        let mut devices = Command::new(build.join("jacobi_devices"));
        devices.env("HIPMLIR_DEVICE", "0,0");
        let out = run_job(devices, "jacobi_devices PASSED");
        assert!(out.contains("in 2 parts on 2 devices"), "{out}");
    } else {
        eprintln!("no MPI project: Open MPI is not installed (`make setup` installs it)");
    }

    // Host code compiled at run time with any C++ compiler: -lhiprtc and the runtime.
    let exe = dir.path().join("rtc_plain");
    let lib = prefix.join("lib");
    run_ok(
        Command::new("c++")
            .arg(repo().join("tests/install/cmake_project/rtc_main.cpp"))
            .arg(format!("-I{}", prefix.join("include").display()))
            .arg(format!("-L{}", lib.display()))
            .args(["-lhiprtc", "-lhipmlir_rt"])
            .arg(format!("-Wl,-rpath,{}", lib.display()))
            .arg("-o")
            .arg(&exe),
        "c++ with -lhiprtc",
    );
    let out = run_program(&exe);
    assert!(out.contains("hiprtc PASSED"), "{out}");

    // A HeCBench-style Makefile, unmodified, with hipcc from the PATH.
    let project = dir.path().join("makefile_project");
    copy_dir(&repo().join("tests/install/makefile_project"), &project);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = run_ok(
        Command::new("make")
            .current_dir(&project)
            .arg("run")
            .env("PATH", path)
            // Builds that call hipcc often export CXX=hipcc too: hipmlir must not take itself
            // for its host compiler.
            .env("CXX", "hipcc"),
        "make run",
    );
    assert!(out.contains("PASS") && !out.contains("FAIL"), "{out}");

    // The uninstall takes away exactly what the install wrote (and the folders it made).
    std::fs::write(prefix.join("bin/users-own-tool"), "keep").unwrap();
    install_script(&[Path::new("--uninstall"), &prefix]);
    let left: Vec<_> = walk(&prefix);
    assert_eq!(left, vec![prefix.join("bin/users-own-tool")]);
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(walk(&path));
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}
