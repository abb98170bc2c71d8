//! Device variables on the real device: OpenCL C with program-scope variables and the address
//! kernels hipmlir's compiler emits, registered as device images with `globals` metadata and host
//! shadows registered with `__hipmlirRegisterVar`, as a compiled program does. Every value read
//! back is compared with a host reference; misuse returns HIP error codes.

mod common;

use std::ffi::{c_void, CString};
use std::sync::OnceLock;

use common::*;
use hipmlir_device_image::{GlobalVar, KernelInfo};
use hipmlir_rt::*;

const H2D: i32 = MemcpyKind::HostToDevice as i32;
const D2H: i32 = MemcpyKind::DeviceToHost as i32;
const D2D: i32 = MemcpyKind::DeviceToDevice as i32;
const DEFAULT: i32 = MemcpyKind::Default as i32;

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Params {
    a: i32,
    b: f32,
    c: f64,
}

const INITIAL_COEFFS: [f32; 16] = [
    1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0,
];

fn main_source() -> String {
    let mut s = String::from(
        r#"
global int counter = 5;
global float coeffs[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
global int _ZN2ns5scaleE = 3;                 /* namespace ns { __device__ int scale = 3; } */
typedef struct { int a; float b; double c; } Params;
global Params params = {1, 2.5f, 4.0};
global long racer = 0;                        /* first queried by many threads at once */
global int dup = 100;                         /* a same-named variable lives in another image */

__kernel void bump(int by) { atomic_add(&counter, by); }

__kernel void read_coeffs(__global float* out) {
    size_t i = get_global_id(0);
    out[i] = coeffs[i] * _ZN2ns5scaleE + params.c + params.a + params.b;
}

/* A variable's address passed as a pointer argument. */
__kernel void add_to(__global int* p, int v) { atomic_add(p, v); }
"#,
    );
    for name in [
        "counter",
        "coeffs",
        "_ZN2ns5scaleE",
        "params",
        "racer",
        "dup",
    ] {
        s.push_str(&address_kernel_source(name));
    }
    s
}

fn main_kernels() -> Vec<KernelInfo> {
    vec![
        kernel("bump", "bump", vec![value("by", "int", 4)]),
        kernel(
            "read_coeffs",
            "read_coeffs",
            vec![pointer("out", "float *")],
        ),
        kernel(
            "add_to",
            "add_to",
            vec![pointer("p", "int *"), value("v", "int", 4)],
        ),
    ]
}

// Host shadows: what `HIP_SYMBOL(x)` is in a compiled program.
static COUNTER: i32 = 0;
static COEFFS: [f32; 16] = [0.0; 16];
static NS_SCALE: i32 = 1;
static PARAMS: [u64; 2] = [0; 2];
static RACER: i64 = 2;
static DUP_A: i32 = 3;
static DUP_B: i32 = 4;
/// `extern __device__ int counter;` in a second file: registered after that file's image.
static COUNTER_EXTERN: i32 = 5;
static UNDEFINED: i32 = 6;
static NOT_REGISTERED: [u8; 8] = [7; 8];

fn sym<T>(shadow: &T) -> *const c_void {
    (shadow as *const T).cast()
}

/// Registers the images and shadows once per process, in a compiled program's order: each image,
/// then the shadows of its file.
fn setup() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let globals = vec![
            global_var("counter", 4),
            global_var("coeffs", 64),
            global_var("_ZN2ns5scaleE", 4),
            global_var("params", 16),
            global_var("racer", 8),
            global_var("dup", 4),
        ];
        let spirv = compile_opencl_c(&main_source(), "globals-main");
        register(&bundle_with_globals(spirv, main_kernels(), globals));
        register_var(&COUNTER, "counter");
        register_var(&COEFFS, "coeffs");
        register_var(&NS_SCALE, "_ZN2ns5scaleE");
        register_var(&PARAMS, "params");
        register_var(&RACER, "racer");
        register_var(&DUP_A, "dup");

        // A second file: its own `static __device__ int dup = 200`, and `counter` declared extern.
        let second = format!(
            "global int dup = 200;\n__kernel void touch_dup(void) {{ dup += 1; }}\n{}",
            address_kernel_source("dup")
        );
        let spirv = compile_opencl_c(&second, "globals-second");
        register(&bundle_with_globals(
            spirv,
            vec![kernel("touch_dup", "touch_dup", vec![])],
            vec![global_var("dup", 4)],
        ));
        register_var(&DUP_B, "dup");
        register_var(&COUNTER_EXTERN, "counter");
        // A registered shadow whose variable no image defines.
        register_var(&UNDEFINED, "nowhere");
    });
}

fn read<T: Copy + Default>(symbol: *const c_void, count: usize) -> Vec<T> {
    let mut out = vec![T::default(); count];
    ok(unsafe {
        hipMemcpyFromSymbol(
            out.as_mut_ptr().cast(),
            symbol,
            std::mem::size_of_val(out.as_slice()),
            0,
            D2H,
        )
    });
    out
}

fn write<T: Copy>(symbol: *const c_void, data: &[T], offset: usize) {
    ok(unsafe {
        hipMemcpyToSymbol(
            symbol,
            data.as_ptr().cast(),
            std::mem::size_of_val(data),
            offset,
            H2D,
        )
    });
}

fn symbol_address(symbol: *const c_void) -> *mut c_void {
    let mut p = std::ptr::null_mut();
    ok(unsafe { hipGetSymbolAddress(&mut p, symbol) });
    assert!(!p.is_null());
    p
}

fn launch_one(name: &str, args: &[u8], threads: u32) {
    ok(launch(name, dim3(1, 1, 1), dim3(threads, 1, 1), args));
    ok(hipDeviceSynchronize());
}

/// Initial values come from the initializers; sizes from the metadata.
#[test]
fn initializers_and_sizes() {
    setup();
    let mut size = 0usize;
    for (s, want) in [
        (sym(&COUNTER), 4),
        (sym(&COEFFS), 64),
        (sym(&NS_SCALE), 4),
        (sym(&PARAMS), 16),
    ] {
        ok(unsafe { hipGetSymbolSize(&mut size, s) });
        assert_eq!(size, want);
    }
    assert_eq!(read::<i32>(sym(&NS_SCALE), 1), vec![3]);
    let p: Vec<Params> = read(sym(&PARAMS), 1);
    assert_eq!(
        p[0],
        Params {
            a: 1,
            b: 2.5,
            c: 4.0
        }
    );
}

/// `counter`: atomics from a kernel, read back by symbol, by address, and through the extern
/// declaration's shadow; written by address from a kernel argument and with hipMemset.
#[test]
fn counter_through_symbol_and_address() {
    setup();
    // Only this test touches counter.
    assert_eq!(read::<i32>(sym(&COUNTER), 1), vec![5]);
    let by = kernel("bump", "bump", vec![value("by", "int", 4)]);
    launch_one("bump", &ArgBlock::new(&by).set(0, 3i32).bytes, 256);
    assert_eq!(read::<i32>(sym(&COUNTER), 1), vec![5 + 3 * 256]);
    // The extern shadow (registered after an image that does not define it) is the same variable.
    assert_eq!(read::<i32>(sym(&COUNTER_EXTERN), 1), vec![5 + 3 * 256]);
    let p = symbol_address(sym(&COUNTER));
    assert_eq!(p, symbol_address(sym(&COUNTER_EXTERN)));

    // hipMemcpy with the device address, both ways.
    let mut got = 0i32;
    ok(unsafe { hipMemcpy((&mut got as *mut i32).cast(), p, 4, D2H) });
    assert_eq!(got, 5 + 3 * 256);
    let ten = 10i32;
    ok(unsafe { hipMemcpy(p, (&ten as *const i32).cast(), 4, H2D) });
    assert_eq!(read::<i32>(sym(&COUNTER), 1), vec![10]);

    // As a kernel argument.
    let add_to = kernel(
        "add_to",
        "add_to",
        vec![pointer("p", "int *"), value("v", "int", 4)],
    );
    let args = ArgBlock::new(&add_to).set(0, p as usize).set(1, 7i32);
    launch_one("add_to", &args.bytes, 64);
    assert_eq!(read::<i32>(sym(&COUNTER), 1), vec![10 + 7 * 64]);

    // Device-to-device between an allocation and the variable, and a fill.
    let buf = DeviceBuffer::from_slice(&[41i32, 42]);
    ok(unsafe { hipMemcpy(p, buf.ptr.cast::<i32>().add(1).cast(), 4, D2D) });
    assert_eq!(read::<i32>(sym(&COUNTER), 1), vec![42]);
    ok(unsafe { hipMemcpyFromSymbol(buf.ptr, sym(&COUNTER), 4, 0, D2D) });
    assert_eq!(buf.download::<i32>(2), vec![42, 42]);
    ok(unsafe { hipMemset(p, 0, 4) });
    assert_eq!(read::<i32>(sym(&COUNTER), 1), vec![0]);

    // What the runtime says about the pointer; it is not an allocation.
    let mut attr = std::mem::MaybeUninit::<PointerAttributes>::zeroed();
    ok(unsafe { hipPointerGetAttributes(attr.as_mut_ptr(), p) });
    let attr = unsafe { attr.assume_init() };
    assert_eq!(attr.r#type, 2, "hipMemoryTypeDevice");
    assert_eq!(attr.devicePointer, p);
    expect_code(unsafe { hipFree(p) }, HipError::InvalidValue);
    // Past its end.
    let mut two = [0i32; 2];
    expect_code(
        unsafe { hipMemcpy(two.as_mut_ptr().cast(), p, 8, D2H) },
        HipError::InvalidValue,
    );
    assert_eq!(read::<i32>(sym(&COUNTER), 1), vec![0]);
}

/// `coeffs`: the initializer read by a kernel, then overwritten whole and in part.
#[test]
fn coeffs_overwritten_and_read_by_a_kernel() {
    setup();
    let read_kernel = |want_coeffs: &[f32]| {
        let out = DeviceBuffer::new(64);
        let k = kernel(
            "read_coeffs",
            "read_coeffs",
            vec![pointer("out", "float *")],
        );
        ok(launch(
            "read_coeffs",
            dim3(1, 1, 1),
            dim3(16, 1, 1),
            &ArgBlock::new(&k).set(0, out.ptr as usize).bytes,
        ));
        let got: Vec<f32> = out.download(16);
        let want: Vec<f32> = want_coeffs
            .iter()
            .map(|c| c * 3.0 + 4.0 + 1.0 + 2.5)
            .collect();
        assert_eq!(got, want);
    };
    assert_eq!(read::<f32>(sym(&COEFFS), 16), INITIAL_COEFFS.to_vec());
    read_kernel(&INITIAL_COEFFS);

    let mut host: Vec<f32> = (0..16).map(|i| i as f32 * -0.5).collect();
    write(sym(&COEFFS), &host, 0);
    assert_eq!(read::<f32>(sym(&COEFFS), 16), host);
    read_kernel(&host);

    // Four floats at offset 8 floats; then read a window back with an offset.
    let part = [100.0f32, 101.0, 102.0, 103.0];
    write(sym(&COEFFS), &part, 8 * 4);
    host[8..12].copy_from_slice(&part);
    assert_eq!(read::<f32>(sym(&COEFFS), 16), host);
    let mut window = [0f32; 6];
    ok(unsafe {
        hipMemcpyFromSymbol(
            window.as_mut_ptr().cast(),
            sym(&COEFFS),
            24,
            10 * 4,
            DEFAULT,
        )
    });
    assert_eq!(window, host[10..16]);
    read_kernel(&host);

    // An interior pointer of the variable works with hipMemcpy up to the variable's end.
    let p = symbol_address(sym(&COEFFS));
    let mut tail = [0f32; 12];
    ok(unsafe {
        hipMemcpy(
            tail.as_mut_ptr().cast(),
            p.cast::<f32>().add(4).cast(),
            48,
            D2H,
        )
    });
    assert_eq!(tail, host[4..16]);
    let mut too_long = [0f32; 13];
    expect_code(
        unsafe {
            hipMemcpy(
                too_long.as_mut_ptr().cast(),
                p.cast::<f32>().add(4).cast(),
                52,
                D2H,
            )
        },
        HipError::InvalidValue,
    );
}

/// A struct-typed variable, copied asynchronously on a stream, with a kernel between.
#[test]
fn struct_variable_async_on_a_stream() {
    setup();
    let mut stream: hipStream_t = std::ptr::null_mut();
    ok(unsafe { hipStreamCreate(&mut stream) });
    let v = Params {
        a: -7,
        b: 0.25,
        c: 1e10,
    };
    ok(unsafe {
        hipMemcpyToSymbolAsync(
            sym(&PARAMS),
            (&v as *const Params).cast(),
            16,
            0,
            H2D,
            stream,
        )
    });
    let mut back = Params::default();
    ok(unsafe {
        hipMemcpyFromSymbolAsync(
            (&mut back as *mut Params).cast(),
            sym(&PARAMS),
            16,
            0,
            D2H,
            stream,
        )
    });
    // Just the double, from offset 8.
    let mut c = 0f64;
    ok(unsafe {
        hipMemcpyFromSymbolAsync(
            (&mut c as *mut f64).cast(),
            sym(&PARAMS),
            8,
            8,
            DEFAULT,
            stream,
        )
    });
    ok(hipStreamSynchronize(stream));
    assert_eq!(back, v);
    assert_eq!(c, 1e10);
    // Restore (another test's kernel reads params).
    let initial = Params {
        a: 1,
        b: 2.5,
        c: 4.0,
    };
    ok(unsafe {
        hipMemcpyToSymbolAsync(
            sym(&PARAMS),
            (&initial as *const Params).cast(),
            16,
            0,
            DEFAULT,
            stream,
        )
    });
    ok(hipStreamSynchronize(stream));
    ok(hipStreamDestroy(stream));
}

/// Two images define `dup`: each shadow reaches its own image's variable.
#[test]
fn same_name_in_two_images() {
    setup();
    assert_eq!(read::<i32>(sym(&DUP_A), 1), vec![100]);
    assert_eq!(read::<i32>(sym(&DUP_B), 1), vec![200]);
    launch_one("touch_dup", &[], 1);
    assert_eq!(read::<i32>(sym(&DUP_B), 1), vec![201]);
    assert_eq!(read::<i32>(sym(&DUP_A), 1), vec![100]);
    assert_ne!(symbol_address(sym(&DUP_A)), symbol_address(sym(&DUP_B)));
}

/// Eight threads ask for a variable's address at once: one query, one answer.
#[test]
fn concurrent_first_use() {
    setup();
    let addresses: Vec<usize> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                s.spawn(move || {
                    if i % 2 == 0 {
                        symbol_address(sym(&RACER)) as usize
                    } else {
                        assert_eq!(read::<i64>(sym(&RACER), 1), vec![0]);
                        symbol_address(sym(&RACER)) as usize
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(
        addresses.iter().all(|&a| a == addresses[0]),
        "{addresses:x?}"
    );
    assert_eq!(read::<i64>(sym(&RACER), 1), vec![0]);
}

/// Misuse returns codes (and sets the last error); the runtime keeps working.
#[test]
fn misuse_returns_codes() {
    setup();
    let v = [1i32, 2, 3, 4];
    let mut out = [0i32; 4];
    let src: *const c_void = v.as_ptr().cast();
    let dst: *mut c_void = out.as_mut_ptr().cast();
    let unknown = sym(&NOT_REGISTERED);
    let ns = sym(&NS_SCALE);
    unsafe {
        // Unknown, unregistered-by-any-image and null symbols.
        expect_code(
            hipMemcpyToSymbol(unknown, src, 4, 0, H2D),
            HipError::InvalidSymbol,
        );
        expect_code(
            hipMemcpyFromSymbol(dst, unknown, 4, 0, D2H),
            HipError::InvalidSymbol,
        );
        expect_code(
            hipMemcpyToSymbolAsync(unknown, src, 4, 0, H2D, std::ptr::null_mut()),
            HipError::InvalidSymbol,
        );
        expect_code(
            hipMemcpyFromSymbolAsync(dst, unknown, 4, 0, D2H, std::ptr::null_mut()),
            HipError::InvalidSymbol,
        );
        let mut p = std::ptr::null_mut();
        let mut size = 0usize;
        expect_code(
            hipGetSymbolAddress(&mut p, unknown),
            HipError::InvalidSymbol,
        );
        expect_code(
            hipGetSymbolSize(&mut size, unknown),
            HipError::InvalidSymbol,
        );
        expect_code(
            hipGetSymbolSize(&mut size, sym(&UNDEFINED)),
            HipError::InvalidSymbol,
        );
        expect_code(
            hipMemcpyToSymbol(std::ptr::null(), src, 4, 0, H2D),
            HipError::InvalidSymbol,
        );
        // Offsets and sizes beyond the variable (4 bytes), overflow included.
        expect_code(
            hipMemcpyToSymbol(ns, src, 8, 0, H2D),
            HipError::InvalidValue,
        );
        expect_code(
            hipMemcpyToSymbol(ns, src, 4, 4, H2D),
            HipError::InvalidValue,
        );
        expect_code(
            hipMemcpyFromSymbol(dst, ns, 1, 4, D2H),
            HipError::InvalidValue,
        );
        expect_code(
            hipMemcpyFromSymbol(dst, ns, 2, usize::MAX, D2H),
            HipError::InvalidValue,
        );
        expect_code(
            hipMemcpyToSymbolAsync(ns, src, 16, 0, H2D, std::ptr::null_mut()),
            HipError::InvalidValue,
        );
        // Null data and result pointers.
        expect_code(
            hipMemcpyToSymbol(ns, std::ptr::null(), 4, 0, H2D),
            HipError::InvalidValue,
        );
        expect_code(
            hipMemcpyFromSymbol(std::ptr::null_mut(), ns, 4, 0, D2H),
            HipError::InvalidValue,
        );
        expect_code(
            hipGetSymbolAddress(std::ptr::null_mut(), ns),
            HipError::InvalidValue,
        );
        expect_code(
            hipGetSymbolSize(std::ptr::null_mut(), ns),
            HipError::InvalidValue,
        );
        // Directions that contradict the copy.
        expect_code(
            hipMemcpyToSymbol(ns, src, 4, 0, D2H),
            HipError::InvalidMemcpyDirection,
        );
        expect_code(
            hipMemcpyFromSymbol(dst, ns, 4, 0, H2D),
            HipError::InvalidMemcpyDirection,
        );
        // A bad stream (a handle naming no live stream, as HIP answers it).
        expect_code(
            hipMemcpyToSymbolAsync(ns, src, 4, 0, H2D, 0x1234 as hipStream_t),
            HipError::ContextIsDestroyed,
        );
        // Zero bytes at the end is fine; the variable still works.
        ok(hipMemcpyToSymbol(ns, std::ptr::null(), 0, 4, H2D));
        ok(hipGetSymbolSize(&mut size, ns));
        assert_eq!(size, 4);
    }
    assert_eq!(read::<i32>(ns, 1), vec![3]);
}

/// hipModuleGetGlobal on a module loaded from a bundle; unloading forgets the variable's range.
#[test]
fn module_get_global() {
    setup();
    let source = format!(
        "global float table[8] = {{0, 1, 2, 3, 4, 5, 6, 7}};\n\
         __kernel void twice_table(void) {{ table[get_global_id(0)] *= 2; }}\n{}",
        address_kernel_source("table")
    );
    let image = bundle_with_globals(
        compile_opencl_c(&source, "globals-module"),
        vec![kernel("twice_table", "twice_table", vec![])],
        vec![global_var("table", 32)],
    );
    let mut module: hipModule_t = std::ptr::null_mut();
    ok(unsafe { hipModuleLoadData(&mut module, image.as_ptr().cast()) });
    let name = CString::new("table").unwrap();
    let (mut p, mut size) = (std::ptr::null_mut(), 0usize);
    ok(unsafe { hipModuleGetGlobal(&mut p, &mut size, module, name.as_ptr()) });
    assert_eq!(size, 32);
    let mut host = [0f32; 8];
    ok(unsafe { hipMemcpy(host.as_mut_ptr().cast(), p, 32, D2H) });
    assert_eq!(host, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);

    let fname = CString::new("twice_table").unwrap();
    let mut f: hipFunction_t = std::ptr::null_mut();
    ok(unsafe { hipModuleGetFunction(&mut f, module, fname.as_ptr()) });
    ok(unsafe {
        hipModuleLaunchKernel(
            f,
            1,
            1,
            1,
            8,
            1,
            1,
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    });
    ok(hipDeviceSynchronize());
    ok(unsafe { hipMemcpy(host.as_mut_ptr().cast(), p, 32, D2H) });
    assert_eq!(host, [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0]);
    // Either result may be omitted.
    let mut size_only = 0usize;
    ok(unsafe { hipModuleGetGlobal(std::ptr::null_mut(), &mut size_only, module, name.as_ptr()) });
    assert_eq!(size_only, 32);
    // But not both, and a name is needed (HIP's hipErrorInvalidValue).
    expect_code(
        unsafe {
            hipModuleGetGlobal(
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                module,
                name.as_ptr(),
            )
        },
        HipError::InvalidValue,
    );
    let empty = CString::new("").unwrap();
    expect_code(
        unsafe { hipModuleGetGlobal(&mut p, &mut size, module, empty.as_ptr()) },
        HipError::InvalidValue,
    );
    let missing = CString::new("nope").unwrap();
    expect_code(
        unsafe { hipModuleGetGlobal(&mut p, &mut size, module, missing.as_ptr()) },
        HipError::NotFound,
    );
    ok(unsafe { hipModuleGetGlobal(&mut p, &mut size, module, name.as_ptr()) });
    ok(hipModuleUnload(module));
    let mut attr = std::mem::MaybeUninit::<PointerAttributes>::zeroed();
    ok(unsafe { hipPointerGetAttributes(attr.as_mut_ptr(), p) });
    assert_eq!(
        unsafe { attr.assume_init() }.r#type,
        0,
        "unregistered after unload"
    );
}

/// A shadow registered before any image defines its variable (a split binary's archive is read
/// on the first lookup) is found once the image is there.
#[test]
fn shadow_registered_before_its_image() {
    setup();
    static LATE: [i16; 2] = [0, 0];
    register_var(&LATE, "late_pair");
    let source = format!(
        "global short late_pair[2] = {{-3, 12}};\n{}",
        address_kernel_source("late_pair")
    );
    register(&bundle_with_globals(
        compile_opencl_c(&source, "globals-late"),
        vec![],
        vec![global_var("late_pair", 4)],
    ));
    assert_eq!(read::<i16>(sym(&LATE), 2), vec![-3, 12]);
}

/// `__hipmlirRegisterUnitVar` with Rust strings.
fn register_unit_var<T>(shadow: &T, name: &str, unit: &str) {
    let (name, unit) = (CString::new(name).unwrap(), CString::new(unit).unwrap());
    unsafe {
        __hipmlirRegisterUnitVar(
            sym(shadow),
            name.as_ptr(),
            std::mem::size_of::<T>(),
            unit.as_ptr(),
        )
    };
}

/// Shadows internal to their sources (`__hipmlirRegisterUnitVar`, as sources built without
/// -fgpu-rdc register them) reach the variable of their own translation unit, registered
/// before or after the images: two images define `twin`.
#[test]
fn unit_shadows_reach_their_units_variables() {
    setup();
    static TWIN_A: [i32; 1] = [0];
    static TWIN_B: [i32; 1] = [0];
    register_unit_var(&TWIN_B, "twin", "unit-b");
    for (unit, value) in [("unit-a", 7), ("unit-b", 9)] {
        let source = format!(
            "global int twin = {value};\n{}",
            address_kernel_source("twin")
        );
        let var = GlobalVar {
            unit: Some(unit.into()),
            ..global_var("twin", 4)
        };
        register(&bundle_with_globals(
            compile_opencl_c(&source, &format!("globals-{unit}")),
            vec![],
            vec![var],
        ));
    }
    register_unit_var(&TWIN_A, "twin", "unit-a");
    assert_eq!(read::<i32>(sym(&TWIN_A), 1), vec![7]);
    assert_eq!(read::<i32>(sym(&TWIN_B), 1), vec![9]);
    write(sym(&TWIN_B), &[40i32], 0);
    assert_eq!(read::<i32>(sym(&TWIN_A), 1), vec![7]);
    assert_eq!(read::<i32>(sym(&TWIN_B), 1), vec![40]);
    assert_ne!(symbol_address(sym(&TWIN_A)), symbol_address(sym(&TWIN_B)));
}

/// A managed variable: the host registers it with its initial value and gets managed memory,
/// which the runtime stores in the module's pointer variable before its first launch; host and
/// kernels then share it. One that no host program registered starts as zeroed memory.
#[test]
fn managed_variables_are_shared_by_host_and_kernels() {
    setup();
    let source = format!(
        "global int* global mhits = 0;\n\
         global int* global orphan = 0;\n\
         __kernel void bump_managed(int by) {{ atomic_add(mhits, by); }}\n\
         __kernel void read_orphan(__global int* out) {{ out[0] = orphan ? *orphan + 1 : -1; }}\n\
         {}{}",
        address_kernel_source("mhits"),
        address_kernel_source("orphan")
    );
    let managed = |name: &str, unit: &str| GlobalVar {
        unit: Some(unit.into()),
        managed_size: Some(4),
        ..global_var(name, 8)
    };
    let initial: i32 = 11;
    let hits = unsafe {
        __hipmlirRegisterManagedVar(
            (&initial as *const i32).cast(),
            4,
            4,
            c"mhits".as_ptr(),
            c"unit-m".as_ptr(),
        )
    }
    .cast::<i32>();
    assert!(!hits.is_null());
    assert_eq!(unsafe { hits.read_volatile() }, 11);
    let mut attributes = unsafe { std::mem::zeroed::<PointerAttributes>() };
    ok(unsafe { hipPointerGetAttributes(&mut attributes, hits.cast()) });
    assert_eq!(attributes.isManaged, 1, "{attributes:?}");
    register(&bundle_with_globals(
        compile_opencl_c(&source, "globals-managed"),
        vec![
            kernel("bump_managed", "bump_managed", vec![value("by", "int", 4)]),
            kernel("read_orphan", "read_orphan", vec![pointer("out", "int *")]),
        ],
        vec![managed("mhits", "unit-m"), managed("orphan", "unit-m")],
    ));
    launch_one("bump_managed", &5i32.to_ne_bytes(), 4);
    assert_eq!(unsafe { hits.read_volatile() }, 31);
    unsafe { hits.write_volatile(100) };
    launch_one("bump_managed", &1i32.to_ne_bytes(), 2);
    assert_eq!(unsafe { hits.read_volatile() }, 102);
    let out = DeviceBuffer::new(4);
    launch_one("read_orphan", &(out.ptr as u64).to_ne_bytes(), 1);
    let mut got = 0i32;
    ok(unsafe { hipMemcpy((&mut got as *mut i32).cast(), out.ptr, 4, D2H) });
    assert_eq!(got, 1);
}
