//! Adds a PTX entry to a device image bundle: `bundle_add_ptx <in.hipfb> <arch> <kernel.ptx>
//! <out.hipfb>`. For checking the CUDA backend on a GPU with PTX made outside the compiler
//! (e.g. by mlir-opt from `--emit-mlir=outlined`); the entry is what the compiler's NVPTX
//! lowering writes: id `PTX_ENTRY_PREFIX` + arch, NUL-terminated PTX text.

use hipmlir_device_image::{Bundle, BundleEntry, DeviceImage};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 {
        eprintln!("usage: bundle_add_ptx <in.hipfb> <arch, e.g. sm_70> <kernel.ptx> <out.hipfb>");
        std::process::exit(2);
    }
    let fail = |what: String| -> ! {
        eprintln!("bundle_add_ptx: {what}");
        std::process::exit(1)
    };
    let bytes = std::fs::read(&args[1]).unwrap_or_else(|e| fail(format!("{}: {e}", args[1])));
    // The image must be one the runtime accepts before and after.
    DeviceImage::from_bundle_bytes(&bytes).unwrap_or_else(|e| fail(format!("{}: {e}", args[1])));
    let mut bundle = Bundle::decode(&bytes).unwrap_or_else(|e| fail(format!("{}: {e}", args[1])));
    let mut ptx = std::fs::read(&args[3]).unwrap_or_else(|e| fail(format!("{}: {e}", args[3])));
    if ptx.last() != Some(&0) {
        ptx.push(0);
    }
    let id = format!("hip-nvptx64-nvidia-cuda--{}", args[2]);
    bundle.entries.retain(|e| e.id != id);
    bundle.entries.push(BundleEntry { id, data: ptx });
    let out = bundle.encode();
    DeviceImage::from_bundle_bytes(&out).unwrap_or_else(|e| fail(format!("the result: {e}")));
    std::fs::write(&args[4], out).unwrap_or_else(|e| fail(format!("{}: {e}", args[4])));
}
