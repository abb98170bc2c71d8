//! hipmlir's HIP runtime: the C ABI a program compiled by hipmlir links against, on OpenCL or on
//! the CUDA driver.
//!
//! Device images are registered by name from static constructors, built (OpenCL, from SPIR-V)
//! or loaded (CUDA, from PTX) lazily on the first launch of one of their kernels, and launched
//! with arguments unpacked by the metadata the compiler recorded.
//!
//! Layers, top to bottom (`tests/layers.rs` checks that no module imports from a layer above
//! it, and that neither backend imports the other):
//! * `api`: the `extern "C"` functions; checks and converts arguments once, then calls the
//!   backend interface;
//! * `select`: the backend serving the process, chosen once;
//! * `opencl`, `cuda`: the two backends, each implementing the interface;
//! * common code: `backend` (the interface: traits, their vocabulary, streams and events as
//!   handles, `ops`, the one way into a stream per kind of operation), `registry` (images,
//!   modules and kernels by name), `symbols` (device variables by host shadow), `arrays`,
//!   `mipmaps`, `drv_copy` (the driver API's copy descriptions), `texture`, `graph` (graphs,
//!   stream capture, executable graphs, graph allocations), `mempool` (stream-ordered allocation
//!   and memory pools), `heap` and `device_abort` (the device heap's size, the device's abort
//!   words),
//!   `error`, `log`, `handles`, `props`, `spirv`, `kpack`, `module_path`, `lambda_kernels`,
//!   `cache`, `files`, `probe`, `user_object` (user objects and the references graphs hold).

mod arrays;
mod backend;
pub mod cache;
mod cuda;
mod device_abort;
mod drv_copy;
mod files;
mod graph;
mod handles;
mod heap;
mod jit_policy;
pub mod kpack;
mod lambda_kernels;
pub mod log;
mod managed_vars;
mod memcheck;
mod mempool;
mod mipmaps;
mod module_path;
mod opencl;
mod probe;
mod props;
pub mod ptx_split;
mod registry;
mod select;
pub mod spirv;
pub mod spirv_split;
mod surface;
mod symbols;
mod texture;
mod texture_driver;
mod texture_reference;
mod user_object;
mod vmm;

pub mod api;
pub mod error;

pub use api::call_configuration::*;
pub use api::cu_mask::*;
pub use api::device::*;
pub use api::device_choice::*;
pub use api::device_settings::*;
pub use api::errors::*;
pub use api::event::*;
pub use api::introspection::*;
pub use api::ipc::*;
pub use api::launch::*;
pub use api::memory::*;
pub use api::module::*;
pub use api::peer::*;
pub use api::proc_address::*;
pub use api::stream::*;
pub use api::stream_value::*;
pub use api::symbol::*;
pub use api::texture::*;
pub use api::texture_reference::*;
pub use api::unsupported::*;
// Driver API and memory.
pub use api::array::*;
pub use api::context::*;
pub use api::driver::*;
pub use api::driver_memory::*;
pub use api::host_memory::*;
pub use api::memset::*;
pub use api::mipmap::*;
pub use api::pointer::*;
pub use api::user_object::*;
// Virtual memory management and the rest of the API (rt-vmm).
pub use api::api_name::*;
pub use api::func_by_symbol::*;
pub use api::graph_drv_copy::*;
pub use api::multi_device_launch::*;
pub use api::stream_attach::*;
pub use api::surface::*;
pub use api::texture_driver::*;
pub use api::virtual_memory::*;
// Other APIs' objects (hiptests).
pub use api::interop::*;
pub use api::{hipError_t, hipEvent_t, hipStream_t};
pub use arrays::{Array3DDescriptor, ArrayDescriptor, ChannelFormatDesc, Memcpy3DParms, Pos};
pub use backend::{Dim3, Extent, FuncAttributes, MemcpyKind, PitchedPtr, PointerAttributes};
pub use drv_copy::{Memcpy2D, Memcpy3D};
pub use error::HipError;
pub use mipmaps::Description as MipmappedArrayDescription;
pub use opencl::jit::build_stats;
pub use props::{HipDeviceProp, HIP_VERSION};

/// The name and memory model of device 0 if a backend is open (for tests and tools; never
/// opens one).
pub fn selected_device() -> Option<(String, &'static str)> {
    let device = select::backend_if_initialized()?.device(0).ok()?;
    Some((device.name().trim().to_string(), device.memory_model()))
}
