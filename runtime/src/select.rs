//! Which backend serves this process's HIP devices: the CUDA driver (NVIDIA GPUs) or OpenCL. The
//! one module that knows both: `api` asks it for the backend, and everything else sees only the
//! backend interface.
//!
//! Chosen and opened once, on the first API call that needs a device (never from the
//! registration calls that run before `main`):
//! * `HIPMLIR_BACKEND=opencl`: OpenCL; libcuda is never loaded.
//! * `HIPMLIR_BACKEND=cuda`: the CUDA devices; none (no driver, no GPU, none that
//!   `HIPMLIR_DEVICE` names) is `hipErrorNoDevice` with a message saying why.
//! * unset: GPUs first: the CUDA devices if the driver loads and has any (that `HIPMLIR_DEVICE`
//!   admits), else OpenCL. A driver that loads but fails is reported and OpenCL is used.
//!
//! `hipGetDeviceCount` counts the chosen backend's devices; `HIPMLIR_DEVICE` (an index or a name
//! substring) narrows either backend's list, and then HIP's visibility variables
//! (`HIP_VISIBLE_DEVICES` and its kin, see `device_info::Visibility`), which may leave none: then
//! every call is `hipErrorNoDevice`, as in HIP.

use std::sync::OnceLock;

use crate::backend::device_info::Visibility;
use crate::backend::Backend;
use crate::error::{Failure, HipError, HipResult};
use crate::hlog;
use crate::{cuda, opencl};

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
pub enum Choice {
    Cuda,
    OpenCl,
}

/// The decision, given the request and what opening CUDA gave (`Ok(true)`: it has devices;
/// `Ok(false)`: no driver or no device; `Err`: the driver failed). Pure, for tests.
pub fn decide(request: Request, cuda: &Result<bool, String>) -> Result<Choice, String> {
    match (request, cuda) {
        (Request::OpenCl, _) => Ok(Choice::OpenCl),
        (_, Ok(true)) => Ok(Choice::Cuda),
        (Request::Cuda, Ok(false)) => Err(
            "HIPMLIR_BACKEND=cuda, but there is no CUDA device: libcuda (the NVIDIA driver) is \
             not installed, finds no GPU, or none matches HIPMLIR_DEVICE"
                .into(),
        ),
        (Request::Cuda, Err(why)) => Err(format!(
            "HIPMLIR_BACKEND=cuda, but the CUDA driver failed: {why}"
        )),
        (Request::Any, Ok(false)) => Ok(Choice::OpenCl),
        (Request::Any, Err(why)) => {
            hlog!(Warn, "the CUDA driver failed ({why}); using OpenCL");
            Ok(Choice::OpenCl)
        }
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Chooses and opens the backend.
fn open() -> Result<Box<dyn Backend>, String> {
    let request = Request::parse(env("HIPMLIR_BACKEND").as_deref())?;
    // HIPMLIR_BACKEND=opencl: libcuda is never loaded.
    let opened = if request == Request::OpenCl {
        Ok(None)
    } else {
        cuda::device::open(env("HIPMLIR_DEVICE").as_deref())
    };
    let has_devices = opened.as_ref().map(|o| o.is_some()).map_err(Clone::clone);
    let choice = decide(request, &has_devices)?;
    let backend: Box<dyn Backend> = match (choice, opened) {
        (Choice::Cuda, Ok(Some(rt))) => {
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
            Box::new(cuda::install(rt))
        }
        _ => Box::new(opencl::open()?),
    };
    if backend.device_count() == 0 {
        let hidden_by = Visibility::from_env(choice == Choice::Cuda).describe();
        return Err(format!(
            "no HIP device is visible: {hidden_by} hides every device"
        ));
    }
    Ok(backend)
}

static BACKEND: OnceLock<Result<Box<dyn Backend>, String>> = OnceLock::new();

/// The backend serving this process, chosen and opened on the first call. A failure (no device)
/// is reported once and is `hipErrorNoDevice` from then on.
pub fn backend() -> HipResult<&'static dyn Backend> {
    let opened = BACKEND.get_or_init(|| {
        let result = open();
        if let Err(message) = &result {
            hlog!(Error, "{message}");
        }
        result
    });
    match opened {
        Ok(b) => Ok(&**b),
        Err(_) => Err(Failure::quiet(HipError::NoDevice)),
    }
}

/// The backend if one was opened (never opens one).
pub fn backend_if_initialized() -> Option<&'static dyn Backend> {
    match BACKEND.get() {
        Some(Ok(b)) => Some(&**b),
        _ => None,
    }
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
        assert_eq!(decide(Request::Any, &Ok(true)), Ok(Choice::Cuda));
        assert_eq!(decide(Request::Any, &Ok(false)), Ok(Choice::OpenCl));
        assert_eq!(
            decide(Request::Any, &Err("cuInit: CUDA_ERROR_UNKNOWN".into())),
            Ok(Choice::OpenCl)
        );
        assert_eq!(decide(Request::OpenCl, &Ok(true)), Ok(Choice::OpenCl));
        assert_eq!(decide(Request::Cuda, &Ok(true)), Ok(Choice::Cuda));
        assert!(decide(Request::Cuda, &Ok(false))
            .unwrap_err()
            .contains("no CUDA device"));
        assert!(decide(Request::Cuda, &Err("x".into()))
            .unwrap_err()
            .contains("failed: x"));
    }
}
