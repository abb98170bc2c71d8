//! Lazy JIT: a module's SPIR-V becomes an OpenCL program on the first launch of one of its kernels;
//! kernel objects are created once per name and kept.
//!
//! [`build_program`] is the single place a program is made from a device image, so an on-disk cache
//! (key: SPIR-V hash + device + driver version + options; value: `CL_PROGRAM_BINARIES`, reloaded with
//! `clCreateProgramWithBinary`) goes there and nowhere else.

use std::collections::HashMap;
use std::ffi::CStr;

use crate::cl::{error_name, OwnedKernel, OwnedProgram};
use crate::device::Runtime;
use crate::error::{Failure, HipError, HipResult};
use crate::registry::Module;

/// Options passed to `clBuildProgram`.
const BUILD_OPTIONS: &CStr = c"";

/// A kernel object ready to launch.
#[derive(Debug)]
pub struct PreparedKernel {
    pub kernel: OwnedKernel,
}

/// A built module: its program and the kernels created from it so far.
#[derive(Debug)]
pub struct BuiltModule {
    program: OwnedProgram,
    kernels: HashMap<String, PreparedKernel>,
}

/// The JIT state of a module, behind the module's lock.
#[derive(Debug, Default)]
pub enum ModuleState {
    #[default]
    NotBuilt,
    Built(BuiltModule),
    /// Building failed; the failure is returned again without rebuilding.
    Failed(Failure),
}

/// Creates and builds the program of a module, printing the build log on failure.
pub fn build_program(rt: &Runtime, module: &Module) -> HipResult<OwnedProgram> {
    let what = || {
        format!(
            "device image #{} (kernels: {})",
            module.index,
            module.kernel_names().join(", ")
        )
    };
    let raw = cl3::program::create_program_with_il(rt.context.get(), &module.image.spirv).map_err(
        |e| {
            Failure::new(
                HipError::InvalidImage,
                format!(
                    "clCreateProgramWithIL rejected {}: {}",
                    what(),
                    error_name(e)
                ),
            )
        },
    )?;
    // SAFETY: a new program; we take over its only reference.
    let program = unsafe { OwnedProgram::from_raw(raw) };
    let device = rt.device_id();
    if let Err(e) = cl3::program::build_program(
        program.get(),
        &[device],
        BUILD_OPTIONS,
        None,
        std::ptr::null_mut(),
    ) {
        let log = cl3::program::get_program_build_data(
            program.get(),
            device,
            cl3::program::CL_PROGRAM_BUILD_LOG,
        )
        .map(|bytes| {
            String::from_utf8_lossy(&bytes)
                .trim_end_matches('\0')
                .trim()
                .to_string()
        })
        .unwrap_or_default();
        eprintln!(
            "hipmlir: building {} failed ({}); build log:\n{}",
            what(),
            error_name(e),
            if log.is_empty() { "(empty)" } else { &log }
        );
        return Err(Failure::new(
            HipError::InvalidImage,
            format!("{} failed to build ({})", what(), error_name(e)),
        ));
    }
    Ok(program)
}

/// The kernel `name` of `module`, building the module and creating the kernel on first use.
/// The caller holds the module's lock (`state`).
pub fn prepared_kernel<'s>(
    rt: &Runtime,
    module: &Module,
    state: &'s mut ModuleState,
    name: &str,
    expected_args: usize,
) -> HipResult<&'s PreparedKernel> {
    if let ModuleState::NotBuilt = state {
        *state = match build_program(rt, module) {
            Ok(program) => ModuleState::Built(BuiltModule {
                program,
                kernels: HashMap::new(),
            }),
            Err(failure) => {
                // Keep the failure for later launches, without the stderr line (already printed).
                let remembered = Failure::new(
                    failure.code,
                    format!("{} (earlier build failure)", failure.message),
                );
                *state = ModuleState::Failed(remembered);
                return Err(failure);
            }
        };
    }
    let built = match state {
        ModuleState::Built(built) => built,
        ModuleState::Failed(failure) => return Err(failure.clone()),
        ModuleState::NotBuilt => {
            return Err(Failure::new(HipError::Unknown, "module state lost"));
        }
    };
    if !built.kernels.contains_key(name) {
        let prepared = create_kernel(rt, &built.program, module, name, expected_args)?;
        built.kernels.insert(name.to_string(), prepared);
    }
    built
        .kernels
        .get(name)
        .ok_or_else(|| Failure::new(HipError::Unknown, "kernel cache lost an entry"))
}

fn create_kernel(
    rt: &Runtime,
    program: &OwnedProgram,
    module: &Module,
    name: &str,
    expected_args: usize,
) -> HipResult<PreparedKernel> {
    let kernel = OwnedKernel::create(program, name).map_err(|e| {
        Failure::new(
            HipError::InvalidDeviceFunction,
            format!(
                "kernel '{name}' is in the metadata of device image #{} but its SPIR-V has no such entry point ({})",
                module.index,
                error_name(e)
            ),
        )
    })?;
    let num_args = kernel.num_args().map_err(|e| {
        Failure::new(
            HipError::InvalidImage,
            format!("cannot query kernel '{name}': {}", error_name(e)),
        )
    })?;
    if num_args as usize != expected_args {
        return Err(Failure::new(
            HipError::InvalidImage,
            format!(
                "kernel '{name}' takes {num_args} argument(s) in SPIR-V but its metadata lists {expected_args}"
            ),
        ));
    }
    // Best effort: kernels that only dereference their pointer arguments work without it.
    // SAFETY: a fresh kernel no other thread has seen.
    let _ = unsafe { rt.memory.allow_indirect_access(kernel.get(), &[]) };
    Ok(PreparedKernel { kernel })
}
