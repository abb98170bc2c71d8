//! HIP functions hipmlir does not implement yet. Each returns `hipErrorNotSupported` and says so
//! once per process (a `warn` line of `HIPMLIR_LOG`); none aborts. Their arguments are ignored.

use std::ffi::c_void;

use super::{guard, hipError_t};
use crate::error::{Failure, HipError};

fn not_supported(function: &str, why: &str) -> hipError_t {
    guard(function, || {
        Err(Failure::new(
            HipError::NotSupported,
            format!("not supported by hipmlir: {why}"),
        ))
    })
}

macro_rules! unsupported {
    ($($name:ident($($arg:ident: $ty:ty),*) => $why:literal;)*) => {$(
        /// Not supported: returns `hipErrorNotSupported` (see the module docs).
        #[no_mangle]
        pub extern "C" fn $name($($arg: $ty),*) -> hipError_t {
            $(let _ = $arg;)*
            not_supported(stringify!($name), $why)
        }
    )*};
}

unsupported! {
    hipTexRefSetBorderColor(tex: *mut c_void, color: *mut f32)
        => "HIP's textureReference has no border colour to hold it";
    hipTexRefGetBorderColor(color: *mut f32, tex: *const c_void)
        => "as hipTexRefSetBorderColor";
    hipGraphicsMapResources(count: i32, resources: *mut *mut c_void, stream: *mut c_void)
        => "graphics interop: no OpenGL, Vulkan or Direct3D resource is ever registered with these devices (no graphics API shares their memory), so there is none to map";
    hipGraphicsUnmapResources(count: i32, resources: *mut *mut c_void, stream: *mut c_void)
        => "as hipGraphicsMapResources";
    hipGraphicsResourceGetMappedPointer(pointer: *mut *mut c_void, size: *mut usize, resource: *mut c_void)
        => "as hipGraphicsMapResources";
    hipGraphicsSubResourceGetMappedArray(array: *mut *mut c_void, resource: *mut c_void, index: u32, level: u32)
        => "as hipGraphicsMapResources";
    hipGraphicsUnregisterResource(resource: *mut c_void)
        => "as hipGraphicsMapResources";
    hipExtGetLinkTypeAndHopCount(device: i32, peer: i32, link_type: *mut u32, hop_count: *mut u32)
        => "the link type and hop count between two devices are AMD GPUs' (HSA) facts: neither OpenCL nor the CUDA driver tells them";
}
