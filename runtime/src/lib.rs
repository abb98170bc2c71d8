//! hipmlir's HIP runtime on OpenCL: the C ABI a program compiled by hipmlir links against.
//!
//! Device images are registered by name from static constructors, built lazily from SPIR-V on the
//! first launch of one of their kernels, and launched with arguments unpacked by the metadata
//! the compiler recorded. No MLIR, no libclang: only an OpenCL ICD loader at run time.
//!
//! Module map: `error` (codes, last error), `log` (HIPMLIR_LOG), `device` (device/context
//! selection), `stream` (in-order queues, null-stream semantics), `event` (markers, timing),
//! `handles` (opaque handle tables), `backend` (USM or SVM memory), `memory` (allocation table,
//! copies, fills), `managed` (managed-memory hints and prefetches), `memory_ops` (the
//! memory primitives of either backend), `arrays` (`hipArray_t`, array and 3-D copies), `texture`
//! (texture objects), `registry` (images and kernels by name), `symbols` (device variables: host
//! shadows, addresses, copies), `kpack` (archives of split binaries), `module_path`
//! (SPIR-V files found by kernel name, for plain builds), `spirv` (kernel signatures
//! from SPIR-V), `jit` (program builds), `cache` (on-disk program cache), `launch`
//! (argument unpacking, spills, NDRange), `props` (`hipDeviceProp_t`), `api` (the `extern "C"`
//! functions), `cl` (OpenCL handle helpers).

mod arrays;
mod backend;
pub mod cache;
mod capabilities;
mod cl;
mod cuda;
mod device;
mod device_abort;
mod event;
mod files;
mod handles;
mod heap;
mod host_function;
mod jit;
pub mod kpack;
mod lambda_kernels;
mod launch;
pub mod log;
mod managed;
mod memory;
mod memory_ops;
mod module_path;
mod probe;
mod props;
mod registry;
mod select;
pub mod spirv;
mod stream;
mod symbols;
mod texture;

pub mod api;
pub mod error;

pub use api::device::*;
pub use api::errors::*;
pub use api::event::*;
pub use api::launch::*;
pub use api::memory::*;
pub use api::module::*;
pub use api::stream::*;
pub use api::symbol::*;
pub use api::texture::*;
pub use api::unsupported::*;
pub use api::{hipError_t, hipEvent_t, hipStream_t};
pub use device::selected_device;
pub use error::HipError;
pub use jit::build_stats;
pub use launch::Dim3;
pub use memory::{MemcpyKind, PointerAttributes};
pub use props::{HipDeviceProp, HIP_VERSION};
