//! The host headers from C++: tests/cxx/launch_test.cpp is built with g++ (libstdc++) and with
//! clang++-22 -stdlib=libc++ against the libhipmlir_rt.so this `cargo test` built, linked with a
//! generated stub that embeds the device image of tests/cxx/kernels.cl and registers it (as a
//! compiled program does), and run on the device. The stub also pins hipDeviceProp_t's layout and
//! the error codes to the runtime's with static_asserts.

mod common;

use std::fmt::Write as _;
use std::mem::offset_of;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use hipmlir_device_image::{GlobalVar, KernelInfo};
use hipmlir_rt::{HipDeviceProp, HipError};

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn headers() -> PathBuf {
    manifest_dir().join("../headers/hip")
}

fn kernels() -> Vec<KernelInfo> {
    vec![
        kernel(
            "_Z5saxpyfPKfPfmcds",
            "saxpy",
            vec![
                value("a", "float", 4),
                pointer("x", "const float *"),
                pointer("y", "float *"),
                value("n", "size_t", 8),
                value("tag", "char", 1),
                value("bias", "double", 8),
                value("s", "short", 2),
            ],
        ),
        kernel(
            "_Z5scaleIiLi4EEvPT_i",
            "scale<int, 4>",
            vec![pointer("p", "int *"), value("n", "int", 4)],
        ),
        kernel(
            "_Z5twicePfi",
            "twice",
            vec![pointer("p", "float *"), value("n", "int", 4)],
        ),
        kernel(
            "_Z5twicePii",
            "twice",
            vec![pointer("p", "int *"), value("n", "int", 4)],
        ),
        kernel(
            "_Z5mixedcdsPil",
            "mixed",
            vec![
                value("c", "char", 1),
                value("d", "double", 8),
                value("s", "short", 2),
                pointer("out", "int *"),
                value("l", "long", 8),
            ],
        ),
        kernel("_Z4pingv", "ping", vec![]),
        kernel("_Z5applyPf", "apply", vec![pointer("out", "float *")]),
    ]
}

/// The device variables of kernels.cl; launch_test.cpp defines their host shadows.
fn globals() -> Vec<GlobalVar> {
    vec![
        global_var("coeffs", 16),
        global_var("counter", 4),
        global_var("_ZN2ns5scaleE", 8),
    ]
}

/// static_asserts tying the header's hipDeviceProp_t and hipError_t to the runtime's.
fn layout_asserts() -> String {
    let mut s = String::new();
    macro_rules! field {
        ($($f:ident),*) => {$(
            writeln!(
                s,
                "static_assert(offsetof(hipDeviceProp_t, {}) == {}, \"hipDeviceProp_t::{} offset\");",
                stringify!($f), offset_of!(HipDeviceProp, $f), stringify!($f)
            ).unwrap();
        )*};
    }
    field!(
        name,
        uuid,
        luid,
        luidDeviceNodeMask,
        totalGlobalMem,
        sharedMemPerBlock,
        regsPerBlock,
        warpSize,
        memPitch,
        maxThreadsPerBlock,
        maxThreadsDim,
        maxGridSize,
        clockRate,
        totalConstMem,
        major,
        minor,
        textureAlignment,
        texturePitchAlignment,
        deviceOverlap,
        multiProcessorCount,
        kernelExecTimeoutEnabled,
        integrated,
        canMapHostMemory,
        computeMode,
        maxTexture1D,
        maxTexture1DMipmap,
        maxTexture1DLinear,
        maxTexture2D,
        maxTexture2DMipmap,
        maxTexture2DLinear,
        maxTexture2DGather,
        maxTexture3D,
        maxTexture3DAlt,
        maxTextureCubemap,
        maxTexture1DLayered,
        maxTexture2DLayered,
        maxTextureCubemapLayered,
        maxSurface1D,
        maxSurface2D,
        maxSurface3D,
        maxSurface1DLayered,
        maxSurface2DLayered,
        maxSurfaceCubemap,
        maxSurfaceCubemapLayered,
        surfaceAlignment,
        concurrentKernels,
        ECCEnabled,
        pciBusID,
        pciDeviceID,
        pciDomainID,
        tccDriver,
        asyncEngineCount,
        unifiedAddressing,
        memoryClockRate,
        memoryBusWidth,
        l2CacheSize,
        persistingL2CacheMaxSize,
        maxThreadsPerMultiProcessor,
        streamPrioritiesSupported,
        globalL1CacheSupported,
        localL1CacheSupported,
        sharedMemPerMultiprocessor,
        regsPerMultiprocessor,
        managedMemory,
        isMultiGpuBoard,
        multiGpuBoardGroupID,
        hostNativeAtomicSupported,
        singleToDoublePrecisionPerfRatio,
        pageableMemoryAccess,
        concurrentManagedAccess,
        computePreemptionSupported,
        canUseHostPointerForRegisteredMem,
        cooperativeLaunch,
        cooperativeMultiDeviceLaunch,
        sharedMemPerBlockOptin,
        pageableMemoryAccessUsesHostPageTables,
        directManagedMemAccessFromHost,
        maxBlocksPerMultiProcessor,
        accessPolicyMaxWindowSize,
        reservedSharedMemPerBlock,
        hostRegisterSupported,
        sparseHipArraySupported,
        hostRegisterReadOnlySupported,
        timelineSemaphoreInteropSupported,
        memoryPoolsSupported,
        gpuDirectRDMASupported,
        gpuDirectRDMAFlushWritesOptions,
        gpuDirectRDMAWritesOrdering,
        memoryPoolSupportedHandleTypes,
        deferredMappingHipArraySupported,
        ipcEventSupported,
        clusterLaunch,
        unifiedFunctionPointers,
        reserved,
        hipReserved,
        gcnArchName,
        maxSharedMemoryPerMultiProcessor,
        clockInstructionRate,
        arch,
        hdpMemFlushCntl,
        hdpRegFlushCntl,
        cooperativeMultiDeviceUnmatchedFunc,
        cooperativeMultiDeviceUnmatchedGridDim,
        cooperativeMultiDeviceUnmatchedBlockDim,
        cooperativeMultiDeviceUnmatchedSharedMem,
        isLargeBar,
        asicRevision
    );
    writeln!(
        s,
        "static_assert(sizeof(hipDeviceProp_t) == {}, \"hipDeviceProp_t size\");",
        std::mem::size_of::<HipDeviceProp>()
    )
    .unwrap();
    for err in HipError::ALL {
        let name = err.name().to_str().unwrap();
        writeln!(s, "static_assert({name} == {}, \"{name}\");", err.code()).unwrap();
    }
    s
}

/// The C++ a compiled program carries: the device image bytes and their registration.
fn stub_source(bundle: &[u8]) -> String {
    let mut s = String::from(
        "// Generated by runtime/tests/cxx.rs.\n#include <cstddef>\n#include \"hip_runtime_api.h\"\n\n",
    );
    s.push_str(&layout_asserts());
    s.push_str(
        "\nvoid saxpy(float, const float*, float*, size_t, char, double, short);\n\
         void twice(float*, int);\nvoid twice(int*, int);\nvoid mixed(char, double, short, int*, long);\n\
         void ping();\nvoid apply(float*);\n\n\
         extern float coeffs[4];\nextern int counter;\nnamespace ns {\nextern double scale;\n}\n\n",
    );
    s.push_str("static const unsigned char hipmlir_device_image[] = {");
    for (i, b) in bundle.iter().enumerate() {
        if i % 24 == 0 {
            s.push_str("\n ");
        }
        write!(s, " {b},").unwrap();
    }
    s.push_str("\n};\n\n");
    s.push_str(
        r#"namespace {
struct HipmlirRegistration {
  HipmlirRegistration() {
    __hipmlirRegisterImage(hipmlir_device_image, sizeof hipmlir_device_image);
    __hipmlirRegisterFunction(reinterpret_cast<const void*>(&saxpy), "_Z5saxpyfPKfPfmcds");
    __hipmlirRegisterFunction(
        reinterpret_cast<const void*>(static_cast<void (*)(float*, int)>(&twice)), "_Z5twicePfi");
    __hipmlirRegisterFunction(
        reinterpret_cast<const void*>(static_cast<void (*)(int*, int)>(&twice)), "_Z5twicePii");
    __hipmlirRegisterFunction(reinterpret_cast<const void*>(&mixed), "_Z5mixedcdsPil");
    __hipmlirRegisterFunction(reinterpret_cast<const void*>(&ping), "_Z4pingv");
    __hipmlirRegisterFunction(reinterpret_cast<const void*>(&apply), "_Z5applyPf");
    __hipmlirRegisterVar(&coeffs, "coeffs", sizeof coeffs);
    __hipmlirRegisterVar(&counter, "counter", sizeof counter);
    __hipmlirRegisterVar(&ns::scale, "_ZN2ns5scaleE", sizeof ns::scale);
  }
} hipmlir_registration;
}  // namespace
"#,
    );
    s
}

fn run(cmd: &mut Command, what: &str) -> std::process::Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}):\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn build_and_run(dir: &Path, stub: &Path, compiler: &str, extra: &[&str]) {
    let lib = runtime_lib_dir();
    let exe = dir.join(format!("launch_test-{}", compiler.replace('+', "p")));
    run(
        Command::new(compiler)
            .args([
                "-std=c++17",
                "-O1",
                "-Wall",
                "-Werror",
                "-Wno-unused-parameter",
            ])
            .args(extra)
            .arg("-I")
            .arg(headers())
            .arg(manifest_dir().join("tests/cxx/launch_test.cpp"))
            .arg(stub)
            .arg("-o")
            .arg(&exe)
            .arg(format!("-L{}", lib.display()))
            .arg("-lhipmlir_rt")
            .arg(format!("-Wl,-rpath,{}", lib.display())),
        &format!("{compiler} build"),
    );
    let out = run(
        &mut Command::new(&exe),
        &format!("{compiler}-built launch_test"),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("ALL OK"), "{compiler}: {stdout}");
}

#[test]
fn cxx_launches_with_gcc_and_libcxx() {
    let dir = scratch_dir("cxx");
    let source = std::fs::read_to_string(manifest_dir().join("tests/cxx/kernels.cl")).unwrap();
    let image = bundle_with_globals(
        compile_opencl_c(&source, "cxx-kernels"),
        kernels(),
        globals(),
    );
    let stub = dir.join("device_image_stub.cpp");
    std::fs::write(&stub, stub_source(&image)).unwrap();
    build_and_run(&dir, &stub, "g++", &[]);
    build_and_run(&dir, &stub, "clang++-22", &["-stdlib=libc++"]);
    if std::env::var_os("HIPMLIR_KEEP_TEST_DIR").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A wrong number of arguments is a compile error with a readable message, by both compilers.
#[test]
fn argument_count_mismatch_does_not_compile() {
    let dir = scratch_dir("cxx-count");
    let src = dir.join("bad.cpp");
    std::fs::write(
        &src,
        "#include \"hip_runtime_api.h\"\n#include \"hipmlir_launch.h\"\n\
         void k(int, float) {}\nvoid f() { hipLaunchKernelGGL(k, 1, 1, 0, 0, 1); }\n",
    )
    .unwrap();
    for (compiler, extra) in [("g++", &[][..]), ("clang++-22", &["-stdlib=libc++"][..])] {
        let out = Command::new(compiler)
            .args(["-std=c++17", "-fsyntax-only"])
            .args(extra)
            .arg("-I")
            .arg(headers())
            .arg(&src)
            .output()
            .expect("run compiler");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success(),
            "{compiler} accepted a wrong argument count"
        );
        assert!(
            stderr.contains("the number of kernel arguments differs"),
            "{compiler}: {stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// libclang reads the headers in HIP device mode (hipmlir's frontend): they must parse there too.
#[test]
fn headers_parse_in_hip_device_mode() {
    let out = Command::new(clang())
        .args([
            "-x",
            "hip",
            "--offload=spirv64",
            "--cuda-device-only",
            "-nogpuinc",
            "-nogpulib",
            "-std=c++17",
            "-fsyntax-only",
        ])
        .arg("-I")
        .arg(headers())
        .arg(manifest_dir().join("tests/cxx/launch_test.cpp"))
        .output()
        .expect("run clang");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
