//! What the CUDA backend's tests share: the vector-add fixtures (SPIR-V and PTX of
//! `examples/vector_add.hip`), whether the NVIDIA driver is here, and running one test of the
//! executable in a child process with its own backend (the backend is chosen once per process).

use std::ffi::{c_void, CString};
use std::process::Command;

use hipmlir_device_image::{DeviceImage, FatImage, ModuleMetadata, PtxCode};

use super::{kernel, pointer, value};

pub const SPIRV: &[u8] = include_bytes!("../fixtures/vector_add.spv");
pub const PTX: &str = include_str!("../fixtures/vector_add.ptx");
pub const KERNEL: &str = "_Z10vector_addPKfS0_Pfi";
pub const CHILD: &str = "HIPMLIR_CUDA_TEST_CHILD";

/// Runs the test `name` of this executable in a child with `backend` as `HIPMLIR_BACKEND`
/// (None: unset); returns its combined output, failing if the child failed.
pub fn run_child(name: &str, backend: Option<&str>) -> String {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = Command::new(exe);
    cmd.args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env_remove("HIPMLIR_DEVICE");
    match backend {
        Some(b) => cmd.env("HIPMLIR_BACKEND", b),
        None => cmd.env_remove("HIPMLIR_BACKEND"),
    };
    let out = cmd.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "child {name} failed:\n{text}");
    text
}

pub fn in_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

/// Whether this machine has the NVIDIA driver (the same test the runtime makes).
pub fn driver_present() -> bool {
    ["libcuda.so.1", "libcuda.so"].iter().any(|name| {
        let c = CString::new(*name).unwrap();
        // SAFETY: dlopen/dlclose of a library name; nothing from it is called.
        unsafe {
            let h = dlopen(c.as_ptr(), 1);
            if h.is_null() {
                false
            } else {
                dlclose(h);
                true
            }
        }
    })
}

extern "C" {
    fn dlopen(name: *const std::ffi::c_char, flags: i32) -> *mut c_void;
    fn dlclose(handle: *mut c_void) -> i32;
}

/// The vector-add image with the fixture's SPIR-V and this PTX.
pub fn vector_add_bundle(ptx: &[(&str, &str)]) -> Vec<u8> {
    vector_add_image(SPIRV.to_vec(), ptx)
}

/// The vector-add image with this SPIR-V (none: an NVIDIA-only image) and PTX.
pub fn vector_add_image(spirv: Vec<u8>, ptx: &[(&str, &str)]) -> Vec<u8> {
    let k = kernel(
        KERNEL,
        "vector_add",
        vec![
            pointer("a", "const float *"),
            pointer("b", "const float *"),
            pointer("c", "float *"),
            value("n", "int", 4),
        ],
    );
    // Written as the compiler writes it, so that the content hash covers the PTX too.
    FatImage {
        image: DeviceImage {
            spirv,
            metadata: ModuleMetadata::new(vec![k]),
        },
        ptx: ptx
            .iter()
            .map(|(arch, text)| {
                let mut ptx = text.as_bytes().to_vec();
                ptx.push(0);
                PtxCode {
                    arch: arch.to_string(),
                    ptx,
                }
            })
            .collect(),
    }
    .to_bundle_bytes()
}

/// A bundle built for NVIDIA GPUs only: metadata and PTX, no SPIR-V.
pub fn ptx_only_bundle() -> Vec<u8> {
    vector_add_image(Vec::new(), &[("sm_70", PTX)])
}
