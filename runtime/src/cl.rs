//! Thin helpers over OpenCL (through cl3, opencl3's binding layer): handles that release
//! themselves without ever panicking, extension function lookup, error names.

use std::ffi::{c_void, CString};

use cl3::types::{cl_int, cl_kernel, cl_platform_id, cl_program};

/// The name of an OpenCL status code (`CL_INVALID_VALUE`), or the number if unknown.
pub fn error_name(code: cl_int) -> String {
    let text = cl3::error_codes::error_text(code);
    if text.is_empty() || text == "UNKNOWN_ERROR" {
        format!("OpenCL error {code}")
    } else {
        text.to_string()
    }
}

/// The address of an extension function of `platform`, or `None` if the platform (or the ICD
/// loader) does not provide it. Extension entry points (`clDeviceMemAllocINTEL`, ...) are not
/// exported by the ICD loader; they must be fetched per platform.
pub fn extension_function(platform: cl_platform_id, name: &str) -> Option<*mut c_void> {
    let library = cl3::load_library().as_ref().ok()?;
    let name = CString::new(name).ok()?;
    let address = library.clGetExtensionFunctionAddressForPlatform(platform, name.as_ptr())?;
    (!address.is_null()).then_some(address)
}

/// A `cl_program` released on drop.
#[derive(Debug)]
pub struct OwnedProgram(cl_program);

// SAFETY: OpenCL program objects may be used from any thread (OpenCL 1.1+ thread safety).
unsafe impl Send for OwnedProgram {}
unsafe impl Sync for OwnedProgram {}

impl OwnedProgram {
    /// # Safety
    /// `program` must be a valid program whose reference this value takes over.
    pub unsafe fn from_raw(program: cl_program) -> Self {
        OwnedProgram(program)
    }

    pub fn get(&self) -> cl_program {
        self.0
    }
}

impl Drop for OwnedProgram {
    fn drop(&mut self) {
        // SAFETY: we own one reference. A failing release leaks; it must not panic.
        let _ = unsafe { cl3::program::release_program(self.0) };
    }
}

/// A `cl_kernel` released on drop. Not `Sync`: setting arguments and enqueueing must be serialized
/// by the owner (the registry keeps kernels behind their module's lock).
#[derive(Debug)]
pub struct OwnedKernel(cl_kernel);

// SAFETY: a kernel object may move between threads; concurrent use is prevented by the owner.
unsafe impl Send for OwnedKernel {}

impl OwnedKernel {
    /// Creates the kernel `name` of a built program.
    pub fn create(program: &OwnedProgram, name: &str) -> Result<Self, cl_int> {
        let name = CString::new(name).map_err(|_| cl3::error_codes::CL_INVALID_KERNEL_NAME)?;
        cl3::kernel::create_kernel(program.get(), &name).map(OwnedKernel)
    }

    pub fn get(&self) -> cl_kernel {
        self.0
    }

    pub fn num_args(&self) -> Result<u32, cl_int> {
        let data = cl3::kernel::get_kernel_data(self.0, cl3::kernel::CL_KERNEL_NUM_ARGS)?;
        data.get(..4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_ne_bytes)
            .ok_or(cl3::error_codes::CL_INVALID_VALUE)
    }
}

impl Drop for OwnedKernel {
    fn drop(&mut self) {
        // SAFETY: we own one reference. A failing release leaks; it must not panic.
        let _ = unsafe { cl3::kernel::release_kernel(self.0) };
    }
}

/// Releases an event returned by a cl3 enqueue function (we never wait on individual events:
/// the queue is in order and synchronization is `clFinish`).
pub fn release_event(event: cl3::types::cl_event) {
    if !event.is_null() {
        // SAFETY: cl3 returned this event with a reference we own.
        let _ = unsafe { cl3::event::release_event(event) };
    }
}
