//! The CUDA-driver backend: HIP devices that are NVIDIA GPUs, running the PTX entries of the
//! same device images the OpenCL backend runs from SPIR-V.
//!
//! libcuda is loaded at run time (cudarc's dynamic loading), so building needs no CUDA and a
//! program runs unchanged where there is no NVIDIA driver (`select` then picks OpenCL). Each
//! device works in its primary context, made current on the calling thread by every API call.
//! HIP's handles are the driver's own: a `hipStream_t` is a `CUstream` (null, 1 and 2 are the
//! legacy and per-thread default streams in both APIs), a `hipEvent_t` a `CUevent`, and device
//! pointers are `CUdeviceptr`s in the unified address space.
//!
//! Module map: `api` (the HIP calls on this backend), `driver` (bindings, results), `ptx` (arch choice, entry parameters), `device`
//! (devices, contexts, properties), `module` (PTX loading, functions, device variables and heap),
//! `launch`, `memory`, `stream` (streams and events).

pub mod api;
pub mod device;
pub mod driver;
pub mod launch;
pub mod memory;
pub mod module;
pub mod ptx;
pub mod stream;

pub use device::{cuda_runtime, CudaRuntime};
