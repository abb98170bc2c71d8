//! Which backend serves this process's HIP devices: the CUDA driver (NVIDIA GPUs) or OpenCL.
//!
//! Chosen once, on the first API call that needs a device (never from the registration calls
//! that run before `main`):
//! * `HIPMLIR_BACKEND=opencl`: OpenCL; libcuda is never loaded.
//! * `HIPMLIR_BACKEND=cuda`: the CUDA devices; none (no driver, no GPU, none that
//!   `HIPMLIR_DEVICE` names) is `hipErrorNoDevice` with a message saying why.
//! * unset: GPUs first: the CUDA devices if the driver loads and has any (that `HIPMLIR_DEVICE`
//!   admits), else OpenCL. A driver that loads but fails is reported and OpenCL is used.
//!
//! `hipGetDeviceCount` counts the chosen backend's devices; `HIPMLIR_DEVICE` (an index or a name
//! substring) narrows either backend's list.

use std::sync::OnceLock;

use crate::cuda::{self, CudaRuntime};
use crate::error::{Failure, HipError, HipResult};
use crate::hlog;

/// What `HIPMLIR_BACKEND` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    Any,
    Cuda,
    OpenCl,
}

impl Request {
    pub fn parse(value: Option<&str>) -> Result<Request, String> {
        match value.map(|v| v.trim().to_ascii_lowercase()) {
            None => Ok(Request::Any),
            Some(v) if v.is_empty() || v == "auto" => Ok(Request::Any),
            Some(v) if v == "cuda" || v == "nvidia" => Ok(Request::Cuda),
            Some(v) if v == "opencl" || v == "cl" => Ok(Request::OpenCl),
            Some(v) => Err(format!(
                "HIPMLIR_BACKEND={v} is not a backend: use cuda or opencl (or leave it unset: GPUs first)"
            )),
        }
    }
}

/// The outcome of the choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Cuda,
    OpenCl,
}

/// The decision, given the request and what opening CUDA gave (`Ok(true)`: it has devices;
/// `Ok(false)`: no driver or no device; `Err`: the driver failed). Pure, for tests.
pub fn decide(request: Request, cuda: &Result<bool, String>) -> Result<Backend, String> {
    match (request, cuda) {
        (Request::OpenCl, _) => Ok(Backend::OpenCl),
        (_, Ok(true)) => Ok(Backend::Cuda),
        (Request::Cuda, Ok(false)) => Err(
            "HIPMLIR_BACKEND=cuda, but there is no CUDA device: libcuda (the NVIDIA driver) is \
             not installed, finds no GPU, or none matches HIPMLIR_DEVICE"
                .into(),
        ),
        (Request::Cuda, Err(why)) => Err(format!(
            "HIPMLIR_BACKEND=cuda, but the CUDA driver failed: {why}"
        )),
        (Request::Any, Ok(false)) => Ok(Backend::OpenCl),
        (Request::Any, Err(why)) => {
            hlog!(Warn, "the CUDA driver failed ({why}); using OpenCL");
            Ok(Backend::OpenCl)
        }
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn choose() -> Result<Backend, String> {
    let request = Request::parse(env("HIPMLIR_BACKEND").as_deref())?;
    if request == Request::OpenCl {
        return Ok(Backend::OpenCl);
    }
    let filter = env("HIPMLIR_DEVICE");
    let opened = cuda::device::open(filter.as_deref());
    let has_devices = opened.as_ref().map(|o| o.is_some()).map_err(Clone::clone);
    let backend = decide(request, &has_devices)?;
    if backend == Backend::Cuda {
        if let Ok(Some(rt)) = opened {
            let rt = cuda::device::install(rt);
            for d in &rt.devices {
                hlog!(
                    Info,
                    "CUDA device '{}' (compute capability {}.{}, driver {})",
                    d.name,
                    d.capability.0,
                    d.capability.1,
                    rt.driver_version
                );
            }
        }
    }
    Ok(backend)
}

static CHOICE: OnceLock<Result<Backend, String>> = OnceLock::new();

/// The chosen backend (choosing it on the first call; a failed choice is reported once and is
/// `hipErrorNoDevice` from then on).
pub fn backend() -> HipResult<Backend> {
    let choice = CHOICE.get_or_init(|| {
        let result = choose();
        if let Err(message) = &result {
            hlog!(Error, "{message}");
        }
        result
    });
    choice
        .as_ref()
        .copied()
        .map_err(|_| Failure::quiet(HipError::NoDevice))
}

/// The CUDA backend if it serves this process; `None` for OpenCL.
pub fn cuda() -> HipResult<Option<&'static CudaRuntime>> {
    Ok(match backend()? {
        Backend::Cuda => cuda::cuda_runtime(),
        Backend::OpenCl => None,
    })
}

/// What an OpenCL-only path says when the CUDA backend serves the process.
pub fn not_on_cuda(what: &str) -> Failure {
    Failure::new(
        HipError::NotSupported,
        format!(
            "{what} is not supported by the CUDA backend yet (HIPMLIR_BACKEND=opencl uses OpenCL)"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_parse() {
        assert_eq!(Request::parse(None), Ok(Request::Any));
        assert_eq!(Request::parse(Some(" CUDA ")), Ok(Request::Cuda));
        assert_eq!(Request::parse(Some("opencl")), Ok(Request::OpenCl));
        assert_eq!(Request::parse(Some("")), Ok(Request::Any));
        assert!(Request::parse(Some("vulkan"))
            .unwrap_err()
            .contains("vulkan"));
    }

    #[test]
    fn gpus_first_then_opencl() {
        assert_eq!(decide(Request::Any, &Ok(true)), Ok(Backend::Cuda));
        assert_eq!(decide(Request::Any, &Ok(false)), Ok(Backend::OpenCl));
        assert_eq!(
            decide(Request::Any, &Err("cuInit: CUDA_ERROR_UNKNOWN".into())),
            Ok(Backend::OpenCl)
        );
        assert_eq!(decide(Request::OpenCl, &Ok(true)), Ok(Backend::OpenCl));
        assert_eq!(decide(Request::Cuda, &Ok(true)), Ok(Backend::Cuda));
        assert!(decide(Request::Cuda, &Ok(false))
            .unwrap_err()
            .contains("no CUDA device"));
        assert!(decide(Request::Cuda, &Err("x".into()))
            .unwrap_err()
            .contains("failed: x"));
    }
}
