//! Device variables with the coarse-grained SVM memory backend (HIPMLIR_MEMORY=svm): copies by
//! symbol and by address, and the address as a kernel argument, where the variable is not an SVM
//! allocation. One test in this file: the variable must be set before the runtime opens the
//! device.

mod common;

use common::*;
use hipmlir_rt::*;

#[test]
fn svm_backend_device_variables() {
    std::env::set_var("HIPMLIR_MEMORY", "svm");
    let source = format!(
        "global int table[64];\n\
         __kernel void fill(int base) {{ table[get_global_id(0)] = base + (int)get_global_id(0); }}\n\
         __kernel void add_through(__global int* p, __global const int* from, int n) {{\n\
             size_t i = get_global_id(0); if (i < n) p[i] += from[i];\n\
         }}\n{}",
        address_kernel_source("table")
    );
    let fill = kernel("fill", "fill", vec![value("base", "int", 4)]);
    let add_through = kernel(
        "add_through",
        "add_through",
        vec![
            pointer("p", "int *"),
            pointer("from", "const int *"),
            value("n", "int", 4),
        ],
    );
    register(&bundle_with_globals(
        compile_opencl_c(&source, "globals-svm"),
        vec![fill.clone(), add_through.clone()],
        vec![global_var("table", 256)],
    ));
    static TABLE: [i32; 64] = [0; 64];
    register_var(&TABLE, "table");
    let symbol = TABLE.as_ptr().cast();

    ok(launch(
        "fill",
        dim3(1, 1, 1),
        dim3(64, 1, 1),
        &ArgBlock::new(&fill).set(0, 1000i32).bytes,
    ));
    let mut got = vec![0i32; 64];
    ok(unsafe { hipMemcpyFromSymbol(got.as_mut_ptr().cast(), symbol, 256, 0, 2) });
    assert_eq!(got, (1000..1064).collect::<Vec<i32>>());
    let (_, model) = selected_device().expect("the device is open");
    assert!(model.contains("SVM"), "{model}");

    let twos = vec![2i32; 64];
    ok(unsafe { hipMemcpyToSymbol(symbol, twos.as_ptr().cast(), 128, 128, 1) });
    let mut p = std::ptr::null_mut();
    ok(unsafe { hipGetSymbolAddress(&mut p, symbol) });
    let from = DeviceBuffer::from_slice(&(0..64).collect::<Vec<i32>>());
    let args = ArgBlock::new(&add_through)
        .set(0, p as usize)
        .set(1, from.ptr as usize)
        .set(2, 64i32);
    ok(launch(
        "add_through",
        dim3(1, 1, 1),
        dim3(64, 1, 1),
        &args.bytes,
    ));
    ok(unsafe { hipMemcpy(got.as_mut_ptr().cast(), p, 256, 2) });
    let want: Vec<i32> = (0..64)
        .map(|i| if i < 32 { 1000 + 2 * i } else { 2 + i })
        .collect();
    assert_eq!(got, want);
}
