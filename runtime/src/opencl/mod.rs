//! The OpenCL backend: HIP devices that are OpenCL devices accepting SPIR-V (Intel's CPU runtime,
//! GPU drivers), running the SPIR-V of the device images, built lazily and cached on disk.
//!
//! Module map: `device` (discovery, each opened device's `Runtime`), `backend` (the `Device`
//! implementation), `cl` (OpenCL handle helpers), `memory_model` (USM or SVM), `memory`
//! (allocation table, copies, fills), `managed` (managed-memory hints and prefetches), `stream`
//! (in-order queues, null-stream semantics), `event` (markers, timing), `host_function`,
//! `launch` (argument unpacking, spills, NDRange), `jit` (program builds), `capabilities`
//! (SPIR-V capabilities against the device), `clock_rate` (the rate of the
//! clock kernels read), `module` (what is kept per module), `variables`
//! (device variables' addresses, the heap and abort-flag variables), `kernels` (function
//! attributes, occupancy), `peer` (copies and event waits between devices), `rect` (pitched copies and fills as one
//! kernel), `staged_copy` (pitched copies with pageable memory the device does not reach), `stream_value`
//! (`hipStreamWaitValue*`/`hipStreamWriteValue*`), `virtual_memory` (memfds mapped into reserved
//! ranges: `hipMemCreate`, `hipMemMap` and the rest).

pub mod backend;
pub mod capabilities;
pub mod cl;
pub mod clock_rate;
pub mod device;
pub mod event;
pub mod held;
pub mod host_function;
pub mod jit;
pub mod kernels;
pub mod launch;
pub mod managed;
pub mod memory;
pub mod memory_model;
pub mod module;
pub mod peer;
pub mod rect;
pub mod staged_copy;
pub mod stream;
pub mod stream_value;
pub mod variables;
pub mod virtual_memory;

use crate::backend::{Backend, BackendKind, Device, DeviceId};
use crate::error::HipResult;

use device::Runtime;

/// The OpenCL backend: the opened devices, a `Runtime` each (ordinal = index).
pub struct ClBackend {
    devices: &'static [Runtime],
}

/// Opens the selected OpenCL devices (`Err`: why there is none, for the "no device" message).
pub fn open() -> Result<ClBackend, String> {
    device::open().map(|devices| ClBackend { devices })
}

impl Backend for ClBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::OpenCl
    }

    fn device_count(&self) -> usize {
        self.devices.len()
    }

    fn device(&self, id: DeviceId) -> HipResult<&dyn Device> {
        Ok(device::runtime_of(id)?)
    }
}
