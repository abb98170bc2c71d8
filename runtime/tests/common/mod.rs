//! Shared helpers for the runtime's integration tests: OpenCL C → SPIR-V with clang-22, device
//! images with hand-written metadata, argument blocks, checked calls into the C API.
#![allow(dead_code)]

use std::ffi::{c_void, CStr};
use std::path::PathBuf;
use std::process::Command;

use hipmlir_device_image::{
    AddressSpace, DeviceImage, GlobalVar, KernelArg, KernelInfo, ModuleMetadata,
};
use hipmlir_rt::*;

pub mod cuda;

/// The clang that builds OpenCL C into SPIR-V the device runs.
pub fn clang() -> String {
    std::env::var("HIPMLIR_TEST_CLANG").unwrap_or_else(|_| "clang-22".into())
}

/// The directory holding the libhipmlir_rt.so built for this test run (beside the test binary).
pub fn runtime_lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("deps dir").to_path_buf();
    for dir in [deps.clone(), deps.parent().unwrap().to_path_buf()] {
        if dir.join("libhipmlir_rt.so").exists() {
            return dir;
        }
    }
    panic!("libhipmlir_rt.so not found near {}", exe.display());
}

/// The functions the libhipmlir_rt.so of this build exports (its dynamic symbols named hip* and
/// __hip*).
pub fn exported_functions() -> std::collections::BTreeSet<String> {
    use object::{Object, ObjectSymbol};
    let path = runtime_lib_dir().join("libhipmlir_rt.so");
    let data = std::fs::read(&path).expect("read libhipmlir_rt.so");
    let file = object::File::parse(&*data).expect("an ELF library");
    file.dynamic_symbols()
        .filter(|s| s.is_definition() && s.is_global() && s.kind() == object::SymbolKind::Text)
        .filter_map(|s| s.name().ok().map(str::to_string))
        .filter(|n| n.starts_with("hip") || n.starts_with("__hip"))
        .collect()
}

/// A fresh scratch directory for this test process.
pub fn scratch_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hipmlir-rt-test-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// `clang-22 -cl-std=CL2.0 --target=spirv64 -O2 -c` on `source`.
pub fn compile_opencl_c(source: &str, tag: &str) -> Vec<u8> {
    let dir = scratch_dir(tag);
    let cl = dir.join("k.cl");
    let spv = dir.join("k.spv");
    std::fs::write(&cl, source).unwrap();
    let out = Command::new(clang())
        .args(["-cl-std=CL2.0", "--target=spirv64", "-O2", "-c"])
        .arg(&cl)
        .arg("-o")
        .arg(&spv)
        .output()
        .expect("run clang-22");
    assert!(
        out.status.success(),
        "clang failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&spv).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    bytes
}

pub fn value(name: &str, ty: &str, size: u64) -> KernelArg {
    KernelArg {
        name: name.into(),
        r#type: ty.into(),
        offset: 0,
        size,
        align: size,
        is_pointer: false,
        address_space: AddressSpace::Private,
    }
}

pub fn aggregate(name: &str, ty: &str, size: u64, align: u64) -> KernelArg {
    KernelArg {
        align,
        ..value(name, ty, size)
    }
}

pub fn pointer(name: &str, ty: &str) -> KernelArg {
    KernelArg {
        name: name.into(),
        r#type: ty.into(),
        offset: 0,
        size: 8,
        align: 8,
        is_pointer: true,
        address_space: AddressSpace::Global,
    }
}

/// Kernel metadata with offsets computed by `KernelArg::layout`.
pub fn kernel(name: &str, source_name: &str, mut args: Vec<KernelArg>) -> KernelInfo {
    let args_size = KernelArg::layout(&mut args);
    KernelInfo {
        name: name.into(),
        source_name: source_name.into(),
        args,
        args_size,
        max_threads_per_block: None,
        unit: None,
        memcheck_extents: Vec::new(),
    }
}

pub fn bundle(spirv: Vec<u8>, kernels: Vec<KernelInfo>) -> Vec<u8> {
    DeviceImage {
        spirv,
        metadata: ModuleMetadata::new(kernels),
    }
    .to_bundle_bytes()
}

/// A device variable `name` of `size` bytes whose address kernel is `__hipmlir_address_of_<name>`,
/// as hipmlir's compiler names them.
pub fn global_var(name: &str, size: u64) -> GlobalVar {
    GlobalVar {
        name: name.into(),
        size,
        address_kernel: format!("__hipmlir_address_of_{name}"),
        ..Default::default()
    }
}

/// The metadata of a variable's address kernel, `(unsigned long long* out)`.
pub fn address_kernel(var: &GlobalVar) -> KernelInfo {
    kernel(
        &var.address_kernel,
        &var.address_kernel,
        vec![pointer("out", "unsigned long long *")],
    )
}

/// A bundle with device variables: their address kernels are added to `kernels`.
pub fn bundle_with_globals(
    spirv: Vec<u8>,
    mut kernels: Vec<KernelInfo>,
    globals: Vec<GlobalVar>,
) -> Vec<u8> {
    kernels.extend(globals.iter().map(address_kernel));
    let mut metadata = ModuleMetadata::new(kernels);
    metadata.globals = globals;
    DeviceImage { spirv, metadata }.to_bundle_bytes()
}

/// OpenCL C for a program-scope variable's address kernel, as hipmlir's compiler emits it.
pub fn address_kernel_source(name: &str) -> String {
    format!(
        "__kernel void __hipmlir_address_of_{name}(__global ulong* out) {{ out[0] = (ulong)&{name}; }}\n"
    )
}

/// `__hipmlirRegisterVar` with a Rust string.
pub fn register_var<T>(shadow: &T, name: &str) {
    let c = std::ffi::CString::new(name).unwrap();
    unsafe {
        __hipmlirRegisterVar(
            (shadow as *const T).cast(),
            c.as_ptr(),
            std::mem::size_of::<T>(),
        )
    };
}

pub fn register(bundle: &[u8]) {
    test_env();
    unsafe { __hipmlirRegisterImage(bundle.as_ptr(), bundle.len()) };
}

/// Points the program cache at a fresh folder of this test process (never the user's cache),
/// before the runtime reads the environment. Called by `register`.
pub fn test_env() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| match std::env::var_os("HIPMLIR_CACHE_DIR") {
        Some(d) => PathBuf::from(d),
        None => {
            let d = scratch_dir("program-cache");
            std::env::set_var("HIPMLIR_CACHE_DIR", &d);
            d
        }
    })
    .clone()
}

/// A packed argument block for one kernel, filled argument by argument.
pub struct ArgBlock<'k> {
    kernel: &'k KernelInfo,
    pub bytes: Vec<u8>,
}

impl<'k> ArgBlock<'k> {
    pub fn new(kernel: &'k KernelInfo) -> Self {
        ArgBlock {
            kernel,
            bytes: vec![0xAA; kernel.args_size as usize],
        }
    }

    pub fn set<T: Copy>(mut self, index: usize, v: T) -> Self {
        let arg = &self.kernel.args[index];
        assert_eq!(arg.size as usize, std::mem::size_of::<T>(), "arg {index}");
        let raw = unsafe {
            std::slice::from_raw_parts((&v as *const T).cast::<u8>(), std::mem::size_of::<T>())
        };
        let at = arg.offset as usize;
        self.bytes[at..at + raw.len()].copy_from_slice(raw);
        self
    }
}

pub fn name_of(code: hipError_t) -> String {
    unsafe { CStr::from_ptr(hipGetErrorName(code)) }
        .to_string_lossy()
        .into_owned()
}

/// Asserts a call returned `expected`, and that it is (and then no longer is) the last error.
#[track_caller]
pub fn expect_code(got: hipError_t, expected: HipError) {
    assert_eq!(
        name_of(got),
        name_of(expected.code()),
        "expected {expected}, got {}",
        name_of(got)
    );
    if expected != HipError::Success {
        assert_eq!(hipPeekAtLastError(), expected.code());
        assert_eq!(hipGetLastError(), expected.code());
        assert_eq!(hipGetLastError(), 0);
    }
}

#[track_caller]
pub fn ok(code: hipError_t) {
    expect_code(code, HipError::Success);
}

/// Device memory freed on drop.
pub struct DeviceBuffer {
    pub ptr: *mut c_void,
    pub bytes: usize,
}

impl DeviceBuffer {
    pub fn new(bytes: usize) -> Self {
        let mut ptr = std::ptr::null_mut();
        ok(unsafe { hipMalloc(&mut ptr, bytes) });
        assert!(!ptr.is_null());
        DeviceBuffer { ptr, bytes }
    }

    pub fn from_slice<T: Copy>(data: &[T]) -> Self {
        let b = DeviceBuffer::new(std::mem::size_of_val(data));
        b.upload(data);
        b
    }

    pub fn upload<T: Copy>(&self, data: &[T]) {
        ok(unsafe {
            hipMemcpy(
                self.ptr,
                data.as_ptr().cast(),
                std::mem::size_of_val(data),
                MemcpyKind::HostToDevice as i32,
            )
        });
    }

    pub fn download<T: Copy + Default>(&self, count: usize) -> Vec<T> {
        let mut out = vec![T::default(); count];
        ok(unsafe {
            hipMemcpy(
                out.as_mut_ptr().cast(),
                self.ptr,
                std::mem::size_of_val(out.as_slice()),
                MemcpyKind::DeviceToHost as i32,
            )
        });
        out
    }

    /// The device address `offset` bytes in.
    pub fn at(&self, offset: usize) -> usize {
        self.ptr as usize + offset
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        let code = unsafe { hipFree(self.ptr) };
        if !std::thread::panicking() {
            assert_eq!(code, 0, "hipFree");
        }
    }
}

pub fn dim3(x: u32, y: u32, z: u32) -> Dim3 {
    Dim3 { x, y, z }
}

/// `hipLaunchKernelByName` with a Rust string and an argument block.
pub fn launch(name: &str, grid: Dim3, block: Dim3, args: &[u8]) -> hipError_t {
    let name = std::ffi::CString::new(name).unwrap();
    unsafe {
        hipLaunchKernelByName(
            name.as_ptr(),
            grid,
            block,
            0,
            std::ptr::null_mut(),
            if args.is_empty() {
                std::ptr::null()
            } else {
                args.as_ptr().cast()
            },
            args.len(),
        )
    }
}
