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

/// A `cl_event` we hold one reference to; cloning retains, dropping releases.
#[derive(Debug)]
pub struct OwnedEvent(cl3::types::cl_event);

// SAFETY: OpenCL event objects are thread-safe (OpenCL 1.1+).
unsafe impl Send for OwnedEvent {}
unsafe impl Sync for OwnedEvent {}

impl OwnedEvent {
    /// Takes over the reference of an event returned by an enqueue call. `None` for null.
    pub fn from_raw(event: cl3::types::cl_event) -> Option<Self> {
        (!event.is_null()).then_some(OwnedEvent(event))
    }

    pub fn get(&self) -> cl3::types::cl_event {
        self.0
    }

    /// `CL_EVENT_COMMAND_EXECUTION_STATUS`: `CL_COMPLETE` (0), running/queued (> 0), or an error
    /// code (< 0) when the command failed.
    pub fn status(&self) -> Result<cl_int, cl_int> {
        let data =
            cl3::event::get_event_data(self.0, cl3::event::CL_EVENT_COMMAND_EXECUTION_STATUS)?;
        data.get(..4)
            .and_then(|b| b.try_into().ok())
            .map(cl_int::from_ne_bytes)
            .ok_or(cl3::error_codes::CL_INVALID_VALUE)
    }

    /// Runs `f` on a driver thread once the event's command has completed (or failed), with
    /// the command's final status (`CL_COMPLETE`, or a negative error code).
    pub fn on_complete(&self, f: Box<dyn FnOnce(cl_int) + Send>) -> Result<(), cl_int> {
        extern "C" fn call(_: cl3::types::cl_event, status: cl_int, data: *mut c_void) {
            // SAFETY: `data` is the closure leaked below for this one callback.
            let f = unsafe { Box::from_raw(data.cast::<Box<dyn FnOnce(cl_int) + Send>>()) };
            // A panic must not cross into the driver's thread.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(status)));
        }
        let data = Box::into_raw(Box::new(f));
        cl3::event::set_event_callback(self.0, cl3::event::CL_COMPLETE, call, data.cast())
            .inspect_err(|_| {
                // SAFETY: the callback was not registered, so the closure is still ours.
                drop(unsafe { Box::from_raw(data) });
            })
    }

    /// Waits for the event; `Err` carries the OpenCL error (a failed command included).
    pub fn wait(&self) -> Result<(), cl_int> {
        cl3::event::wait_for_events(&[self.0])?;
        match self.status()? {
            s if s < 0 => Err(s),
            _ => Ok(()),
        }
    }

    /// A profiling timestamp (ns), e.g. `CL_PROFILING_COMMAND_END`.
    pub fn profiling(&self, what: cl3::types::cl_profiling_info) -> Result<u64, cl_int> {
        let data = cl3::event::get_event_profiling_data(self.0, what)?;
        data.get(..8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_ne_bytes)
            .ok_or(cl3::error_codes::CL_INVALID_VALUE)
    }
}

impl Clone for OwnedEvent {
    fn clone(&self) -> Self {
        // SAFETY: we hold a reference, so the event is alive; the clone owns the new one.
        let _ = unsafe { cl3::event::retain_event(self.0) };
        OwnedEvent(self.0)
    }
}

impl Drop for OwnedEvent {
    fn drop(&mut self) {
        // SAFETY: we own one reference. A failing release leaks; it must not panic.
        let _ = unsafe { cl3::event::release_event(self.0) };
    }
}

/// A `cl_command_queue` released on drop.
#[derive(Debug)]
pub struct OwnedQueue(cl3::types::cl_command_queue);

// SAFETY: OpenCL command queues are thread-safe (OpenCL 1.1+); the stream serializes its own
// enqueues where order matters.
unsafe impl Send for OwnedQueue {}
unsafe impl Sync for OwnedQueue {}

impl OwnedQueue {
    /// An in-order queue on `device`, with profiling when the device can (events need it for
    /// `hipEventElapsedTime`).
    pub fn create(
        context: cl3::types::cl_context,
        device: cl3::types::cl_device_id,
    ) -> Result<Self, cl_int> {
        let with_profiling: [cl3::types::cl_queue_properties; 3] = [
            cl3::command_queue::CL_QUEUE_PROPERTIES as cl3::types::cl_queue_properties,
            cl3::command_queue::CL_QUEUE_PROFILING_ENABLE as cl3::types::cl_queue_properties,
            0,
        ];
        // SAFETY: the device belongs to the context; the property list is zero-terminated.
        unsafe {
            cl3::command_queue::create_command_queue_with_properties(
                context,
                device,
                with_profiling.as_ptr(),
            )
            .or_else(|_| {
                cl3::command_queue::create_command_queue_with_properties(
                    context,
                    device,
                    std::ptr::null(),
                )
            })
        }
        .map(OwnedQueue)
    }

    pub fn get(&self) -> cl3::types::cl_command_queue {
        self.0
    }

    pub fn flush(&self) -> Result<(), cl_int> {
        cl3::command_queue::flush(self.0)
    }

    pub fn finish(&self) -> Result<(), cl_int> {
        cl3::command_queue::finish(self.0)
    }
}

impl Clone for OwnedQueue {
    fn clone(&self) -> Self {
        // SAFETY: a live queue; the clone owns the reference it retains.
        let _ = unsafe { cl3::command_queue::retain_command_queue(self.0) };
        OwnedQueue(self.0)
    }
}

impl Drop for OwnedQueue {
    fn drop(&mut self) {
        // SAFETY: we own one reference; release flushes, queued work still completes.
        let _ = unsafe { cl3::command_queue::release_command_queue(self.0) };
    }
}

/// `clEnqueueNDRangeKernel`, with an event only when `want_event` (cl3's wrapper always asks for
/// one, and an event per launch is most of the driver's cost of a launch).
///
/// # Safety
/// `queue` and `kernel` are valid; the work-size arrays hold `work_dim` entries; the wait list
/// holds live events.
#[allow(clippy::too_many_arguments)]
pub unsafe fn enqueue_nd_range(
    queue: cl3::types::cl_command_queue,
    kernel: cl3::types::cl_kernel,
    global: &[usize; 3],
    local: &[usize; 3],
    wait_list: &[cl3::types::cl_event],
    want_event: bool,
) -> Result<Option<OwnedEvent>, cl3::types::cl_int> {
    let library = cl3::load_library()
        .as_ref()
        .map_err(|_| cl3::error_codes::DLOPEN_RUNTIME_LOAD_FAILED)?;
    let mut event: cl3::types::cl_event = std::ptr::null_mut();
    let status = library
        .clEnqueueNDRangeKernel(
            queue,
            kernel,
            3,
            std::ptr::null(),
            global.as_ptr(),
            local.as_ptr(),
            wait_list.len() as u32,
            if wait_list.is_empty() {
                std::ptr::null()
            } else {
                wait_list.as_ptr()
            },
            if want_event {
                &mut event
            } else {
                std::ptr::null_mut()
            },
        )
        .ok_or(cl3::error_codes::DLOPEN_FUNCTION_NOT_AVAILABLE)?;
    if status == cl3::error_codes::CL_SUCCESS {
        Ok(OwnedEvent::from_raw(event))
    } else {
        Err(status)
    }
}
