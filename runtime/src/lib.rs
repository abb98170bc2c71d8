//! hipmlir's HIP runtime on OpenCL: the C ABI a program compiled by hipmlir links against.
//!
//! Device images are registered by name from static constructors, built lazily from SPIR-V on the
//! first launch of one of their kernels, and launched with arguments unpacked by the metadata
//! the compiler recorded. No MLIR, no libclang: only an OpenCL ICD loader at run time.
//!
//! Module map: `error` (codes, last error), `device` (device/context/queue selection), `backend`
//! (USM or SVM memory), `memory` (allocation table, copies), `registry` (images and kernels by
//! name), `jit` (program builds), `launch` (argument unpacking, NDRange), `props`
//! (`hipDeviceProp_t`), `api` (the `extern "C"` functions), `cl` (OpenCL handle helpers).

mod backend;
mod cl;
mod device;
mod jit;
mod launch;
mod memory;
mod props;
mod registry;

pub mod api;
pub mod error;

pub use api::device::{
    hipDeviceSynchronize, hipDriverGetVersion, hipGetDevice, hipGetDeviceCount,
    hipGetDeviceProperties, hipRuntimeGetVersion, hipSetDevice,
};
pub use api::errors::{hipGetErrorName, hipGetErrorString, hipGetLastError, hipPeekAtLastError};
pub use api::launch::{__hipmlirLaunchKernelGGL, hipLaunchKernelByName};
pub use api::memory::{hipFree, hipMalloc, hipMemcpy, hipMemset};
pub use api::module::{__hipmlirRegisterFunction, __hipmlirRegisterImage};
pub use api::{hipError_t, hipStream_t};
pub use device::selected_device;
pub use error::HipError;
pub use launch::Dim3;
pub use memory::MemcpyKind;
pub use props::{HipDeviceProp, HIP_VERSION};
