//! The CUDA-driver backend: HIP devices that are NVIDIA GPUs, running the PTX entries of the
//! same device images the OpenCL backend runs from SPIR-V.
//!
//! libcuda is loaded at run time (cudarc's dynamic loading), so building needs no CUDA and a
//! program runs unchanged where there is no NVIDIA driver (`select` then picks OpenCL). Each
//! device works in its primary context, made current on the calling thread by every call that
//! needs it. Streams and events are the driver's (`CUstream`, `CUevent`) behind the runtime's
//! handles; device pointers are `CUdeviceptr`s in the unified address space.
//!
//! Module map: `backend` (the `Device` implementation), `driver` (bindings, results), `ptx`
//! (arch choice, entry parameters), `params` (a kernel's launch parameters planned from its
//! metadata and `.entry`), `device` (devices, contexts, properties), `module` (PTX
//! loading, whole or per kernel, functions, device variables and heap), `launch`, `memcheck`
//! (the memory checker's device memory and the live allocations it checks against), `memory`,
//! `mempool` (the
//! driver's memory pools), `stream` (streams and events), `peer` (peer access and copies,
//! inter-process handles, stream memory operations), `virtual_memory` (`cuMemCreate`,
//! `cuMemMap` and the rest).

pub mod backend;
pub mod device;
pub mod driver;
pub mod host_function;
pub mod launch;
pub mod memcheck;
pub mod memory;
pub mod mempool;
pub mod module;
pub mod params;
pub mod peer;
pub mod ptx;
pub mod stream;
pub mod virtual_memory;

use std::sync::OnceLock;

use crate::backend::{Backend, BackendKind, Device, DeviceId};
use crate::error::{Failure, HipError, HipResult};

pub use device::{CudaDevice, CudaRuntime};

static CUDA: OnceLock<CudaRuntime> = OnceLock::new();

/// The CUDA backend: the devices the driver shows and `HIPMLIR_DEVICE` admits.
pub struct CudaBackend {
    rt: &'static CudaRuntime,
}

/// Installs the opened devices (by `select`, once) and returns the backend serving them.
pub fn install(rt: CudaRuntime) -> CudaBackend {
    CudaBackend {
        rt: CUDA.get_or_init(|| rt),
    }
}

/// The backend's devices (none before `install`).
fn devices() -> &'static [CudaDevice] {
    CUDA.get().map_or(&[], |rt| rt.devices.as_slice())
}

/// Device `index`, or `hipErrorInvalidDevice`.
fn device_at(index: usize) -> HipResult<&'static CudaDevice> {
    let all = devices();
    all.get(index).ok_or_else(|| {
        Failure::new(
            HipError::InvalidDevice,
            format!(
                "device {index} does not exist (the CUDA backend has {} device(s))",
                all.len()
            ),
        )
    })
}

impl Backend for CudaBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Cuda
    }

    fn device_count(&self) -> usize {
        self.rt.devices.len()
    }

    fn device(&self, id: DeviceId) -> HipResult<&dyn Device> {
        Ok(device_at(id)?)
    }
}
