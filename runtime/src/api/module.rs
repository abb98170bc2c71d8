//! Registration of device images and kernel stubs, called from the compiled program's static
//! constructors (before `main`; no OpenCL work happens here).

use std::ffi::{c_char, c_void};

use super::{c_string, current_device, guard};
use crate::error::Failure;
use crate::kpack::PendingRecord;
use crate::registry::{register_image, registry};

/// Registers a device image (a clang offload bundle with SPIR-V and hipmlir metadata). An invalid
/// image is reported on stderr and remembered: launching its kernels then fails with
/// `hipErrorInvalidImage` naming the problem.
///
/// # Safety
/// `bundle` must be null or valid for reading `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn __hipmlirRegisterImage(bundle: *const u8, size: usize) {
    guard("__hipmlirRegisterImage", || {
        let bytes: &[u8] = if bundle.is_null() || size == 0 {
            &[]
        } else {
            // SAFETY: valid per the caller.
            unsafe { std::slice::from_raw_parts(bundle, size) }
        };
        register_image(bytes).map(|_| ())
    });
}

/// Maps a host stub's address to the mangled name of its kernel.
///
/// # Safety
/// `kernel_name` must be null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn __hipmlirRegisterFunction(
    host_fn: *const c_void,
    kernel_name: *const c_char,
) {
    guard("__hipmlirRegisterFunction", || {
        if host_fn.is_null() {
            return Err(Failure::invalid_value("the host function is null"));
        }
        // SAFETY: per the caller.
        let name = unsafe { c_string(kernel_name, "the kernel name") }?;
        registry().add_host_function(host_fn as usize, name.into_owned());
        Ok(())
    });
}

/// Registers the host shadow of a device variable (`__device__`/`__constant__`): `host_shadow`
/// is the host global standing for it (what `HIP_SYMBOL(x)` gives), `name` its symbol as the
/// host compiler mangles it, `size` its host size. Called after `__hipmlirRegisterImage` for the
/// image that defines it (or declares it `extern`); touches no device.
///
/// # Safety
/// `name` must be null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn __hipmlirRegisterVar(
    host_shadow: *const c_void,
    name: *const c_char,
    size: usize,
) {
    guard("__hipmlirRegisterVar", || {
        if host_shadow.is_null() {
            return Err(Failure::invalid_value("the host variable is null"));
        }
        // SAFETY: per the caller.
        let name = unsafe { c_string(name, "the variable name") }?;
        if name.is_empty() {
            return Err(Failure::invalid_value("the variable name is empty"));
        }
        crate::symbols::register_var(host_shadow as usize, name.into_owned(), size, None);
        Ok(())
    });
}

/// Registers a host shadow internal to its translation unit (a `static` one, or any of a source
/// compiled without `-fgpu-rdc`, whose device variables are its own as with hipcc), from the
/// translation unit itself: as [`__hipmlirRegisterVar`], the variable being the one of that name
/// whose image records the unit's key `unit` (`GlobalVar::unit`). Touches no device.
///
/// # Safety
/// `name` and `unit` must be null or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn __hipmlirRegisterUnitVar(
    host_shadow: *const c_void,
    name: *const c_char,
    size: usize,
    unit: *const c_char,
) {
    guard("__hipmlirRegisterUnitVar", || {
        if host_shadow.is_null() {
            return Err(Failure::invalid_value("the host variable is null"));
        }
        // SAFETY: per the caller.
        let name = unsafe { c_string(name, "the variable name") }?;
        // SAFETY: per the caller.
        let unit = unsafe { c_string(unit, "the translation unit's key") }?;
        if name.is_empty() {
            return Err(Failure::invalid_value("the variable name is empty"));
        }
        crate::symbols::register_var(
            host_shadow as usize,
            name.into_owned(),
            size,
            Some(unit.into_owned()),
        );
        Ok(())
    });
}

/// Registers a `__managed__` variable of translation unit `unit` (see `managed_vars`): allocates
/// `size` bytes of managed memory (as `hipMallocManaged` with `hipMemAttachGlobal`), copies the
/// initial value at `initial` into it and returns its address, which the host program's name
/// for the variable refers to from then on and the device's variable is given before its
/// module's first launch. Never null: where no device can allocate it, the variable lives in
/// host memory (reported; kernels cannot reach it).
///
/// # Safety
/// `initial` must be valid for reading `size` bytes; `name` and `unit` must be null or
/// NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn __hipmlirRegisterManagedVar(
    initial: *const c_void,
    size: usize,
    align: usize,
    name: *const c_char,
    unit: *const c_char,
) -> *mut c_void {
    let mut address: *mut c_void = std::ptr::null_mut();
    guard("__hipmlirRegisterManagedVar", || {
        if initial.is_null() || size == 0 {
            return Err(Failure::invalid_value("the initial value is empty"));
        }
        // SAFETY: per the caller.
        let name = unsafe { c_string(name, "the variable name") }?;
        // SAFETY: per the caller.
        let unit = unsafe { c_string(unit, "the translation unit's key") }?;
        // SAFETY: valid for `size` bytes per the caller.
        let bytes = unsafe { std::slice::from_raw_parts(initial.cast::<u8>(), size) };
        let device = super::current_device()?;
        address = crate::managed_vars::register(
            device,
            bytes,
            align,
            name.into_owned(),
            unit.into_owned(),
        )?
        .cast();
        Ok(())
    });
    if address.is_null() {
        // Host memory holding the initial value, for the host program to go on with; the
        // failure is reported above.
        let copy = if initial.is_null() || size == 0 {
            vec![0u8; size.max(1)]
        } else {
            // SAFETY: valid for `size` bytes per the caller.
            unsafe { std::slice::from_raw_parts(initial.cast::<u8>(), size) }.to_vec()
        };
        address = Box::leak(copy.into_boxed_slice()).as_mut_ptr().cast();
    }
    address
}

/// Registers a split binary's reference record; the archive is read on the first kernel lookup.
///
/// # Safety
/// `record` must be null or valid for reading `size` bytes, and stay mapped (it is the binary's
/// own data).
#[no_mangle]
pub unsafe extern "C" fn __hipmlirRegisterKpackRef(record: *const u8, size: usize) {
    guard("__hipmlirRegisterKpackRef", || {
        if record.is_null() || size == 0 {
            return Err(Failure::invalid_value("the reference record is empty"));
        }
        // SAFETY: valid per the caller.
        let bytes = unsafe { std::slice::from_raw_parts(record, size) }.to_vec();
        registry().add_pending_record(PendingRecord {
            address: record as usize,
            bytes,
        });
        Ok(())
    });
}

// ---- hipModule* --------------------------------------------------------------------------------

use std::ffi::{c_int, c_uint};

use super::launch::{launch, pack_kernel_params};
use super::{hipError_t, hipStream_t, write_out};
use crate::backend::Dim3;
use crate::error::{HipError, HipResult};
use crate::probe::ProbedMemory;
use crate::registry::KernelRef;
use crate::registry::BUNDLE_MAGIC;
use hipmlir_device_image::KernelInfo;

pub use crate::registry::image_from_bytes;

/// `hipModule_t` and `hipFunction_t`: opaque handles.
#[allow(non_camel_case_types)]
pub type hipModule_t = *mut c_void;
#[allow(non_camel_case_types)]
pub type hipFunction_t = *mut c_void;

fn load(out: *mut hipModule_t, bytes: &[u8], label: String) -> HipResult<()> {
    if out.is_null() {
        return Err(Failure::invalid_value("the module pointer is null"));
    }
    let handle = crate::registry::load_module(bytes, label)?;
    // SAFETY: checked non-null; valid per the caller.
    unsafe { write_out(out, handle as hipModule_t, "the module pointer") }
}

/// Loads a module from a file: raw SPIR-V, or a hipmlir device image (offload bundle). Built (or
/// loaded) on the first launch of one of its kernels.
///
/// # Safety
/// `out` must be null or valid for writing; `fname` null or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn hipModuleLoad(out: *mut hipModule_t, fname: *const c_char) -> hipError_t {
    guard("hipModuleLoad", || {
        // SAFETY: per the caller.
        let name = unsafe { c_string(fname, "the file name") }?;
        let path = std::path::Path::new(&*name);
        let bytes =
            crate::files::read_regular(path, crate::files::MAX_DEVICE_FILE).map_err(|e| {
                let code = match e.kind() {
                    std::io::ErrorKind::NotFound => HipError::FileNotFound,
                    // A device, FIFO or folder, or too large: not a module file.
                    std::io::ErrorKind::InvalidData => HipError::InvalidImage,
                    _ => HipError::InvalidValue,
                };
                Failure::new(code, format!("cannot read '{name}': {e}"))
            })?;
        load(out, &bytes, format!("module '{name}'"))
    })
}

/// The most bytes an in-memory image may span (`hipModuleLoadData` is told no size).
const MAX_IMAGE_BYTES: usize = 1 << 30;
/// The most entries a bundle header may claim.
const MAX_BUNDLE_ENTRIES: usize = 1024;
/// The longest entry id a bundle header may claim.
const MAX_BUNDLE_ID: usize = 4096;

/// A copy of an in-memory image whose size nobody told us: a bundle's header gives its extent; a
/// raw SPIR-V module is walked to its end (`spirv_words::module_length`). Only what that structure
/// declares is read, each part after the claims that lead to it are checked, through
/// [`ProbedMemory`]: a claim that reaches unreadable memory is an error, not a fault.
fn image_bytes(image: *const u8) -> Result<Vec<u8>, String> {
    let mut mem = ProbedMemory::new(image, MAX_IMAGE_BYTES);
    let u64_at = |mem: &mut ProbedMemory, at: usize| -> Result<usize, String> {
        let raw: [u8; 8] = mem.get(at, 8)?.try_into().map_err(|_| "short read")?;
        usize::try_from(u64::from_le_bytes(raw)).map_err(|_| "a bundle field overflows".into())
    };
    if mem.get(0, 4)? == &BUNDLE_MAGIC[..4] {
        if mem.get(0, 24)? != BUNDLE_MAGIC {
            return Err("bad bundle magic".into());
        }
        let count = u64_at(&mut mem, 24)?;
        if count > MAX_BUNDLE_ENTRIES {
            return Err(format!("bundle header claims {count} entries"));
        }
        let (mut at, mut end) = (32usize, 0usize);
        for i in 0..count {
            let (offset, size, id_len) = (
                u64_at(&mut mem, at)?,
                u64_at(&mut mem, at + 8)?,
                u64_at(&mut mem, at + 16)?,
            );
            let entry_end = offset.checked_add(size).filter(|&e| e <= MAX_IMAGE_BYTES);
            let Some(entry_end) = entry_end.filter(|_| id_len <= MAX_BUNDLE_ID) else {
                return Err(format!(
                    "bundle entry {i} claims {size} bytes at offset {offset} with a {id_len}-byte id"
                ));
            };
            at += 24 + id_len;
            end = end.max(entry_end);
        }
        mem.take(end.max(at))
    } else {
        let length = hipmlir_device_image::spirv_words::module_length(|i| {
            let raw: [u8; 4] = mem.get(i.checked_mul(4)?, 4).ok()?.try_into().ok()?;
            Some(u32::from_ne_bytes(raw))
        })
        .map_err(|e| e.to_string())?;
        mem.take(length)
    }
}

/// Loads a module from memory: raw SPIR-V or a hipmlir bundle. For raw SPIR-V the size is found
/// by walking the module, which reads one word past its end. Garbage is `hipErrorInvalidImage`:
/// nothing is read past what the image's own structure declares, nor past readable memory.
///
/// # Safety
/// `out` must be null or valid for writing; `image` null or a complete image.
#[no_mangle]
pub unsafe extern "C" fn hipModuleLoadData(
    out: *mut hipModule_t,
    image: *const c_void,
) -> hipError_t {
    guard("hipModuleLoadData", || {
        if image.is_null() {
            return Err(Failure::invalid_value("the image pointer is null"));
        }
        let bytes = image_bytes(image.cast()).map_err(|e| {
            Failure::new(HipError::InvalidImage, format!("image at {image:p}: {e}"))
        })?;
        load(out, &bytes, format!("module at {image:p}"))
    })
}

/// `hipModuleLoadData`; the JIT options are ignored.
///
/// # Safety
/// As `hipModuleLoadData`.
#[no_mangle]
pub unsafe extern "C" fn hipModuleLoadDataEx(
    out: *mut hipModule_t,
    image: *const c_void,
    num_options: c_uint,
    options: *mut c_int,
    values: *mut *mut c_void,
) -> hipError_t {
    let _ = (num_options, options, values);
    // SAFETY: per the caller.
    unsafe { hipModuleLoadData(out, image) }
}

/// Unloads a module; its functions become invalid handles.
#[no_mangle]
pub extern "C" fn hipModuleUnload(module: hipModule_t) -> hipError_t {
    guard("hipModuleUnload", || {
        crate::registry::unload_module(module as usize)
    })
}

/// Finds a kernel of a loaded module by mangled name or source spelling.
///
/// # Safety
/// `out` must be null or valid for writing; `name` null or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn hipModuleGetFunction(
    out: *mut hipFunction_t,
    module: hipModule_t,
    name: *const c_char,
) -> hipError_t {
    guard("hipModuleGetFunction", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the function pointer is null"));
        }
        // SAFETY: per the caller.
        let name = unsafe { c_string(name, "the kernel name") }?;
        let m = crate::registry::loaded_module(module as usize)?;
        let index = m.find_kernel(&name).ok_or_else(|| {
            Failure::new(
                HipError::NotFound,
                format!(
                    "{} has no kernel '{name}' (kernels: {})",
                    m.label,
                    m.kernel_names().join(", ")
                ),
            )
        })?;
        let handle = crate::registry::insert_function(m, index);
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(out, handle as hipFunction_t, "the function pointer") }
    })
}

/// The device address and size of the variable `name` (its mangled symbol) of a loaded module.
/// Either result pointer may be null. Builds the module if needed (see `symbols`).
///
/// # Safety
/// `dptr` and `bytes` must be null or valid for writing; `name` null or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn hipModuleGetGlobal(
    dptr: *mut *mut c_void,
    bytes: *mut usize,
    module: hipModule_t,
    name: *const c_char,
) -> hipError_t {
    guard("hipModuleGetGlobal", || {
        // SAFETY: per the caller.
        let name = unsafe { c_string(name, "the variable name") }?;
        // As HIP: asking for nothing, or for no name, is the caller's error.
        if dptr.is_null() && bytes.is_null() {
            return Err(Failure::invalid_value(
                "both result pointers (address and size) are null",
            ));
        }
        if name.is_empty() {
            return Err(Failure::invalid_value("the variable name is empty"));
        }
        let m = crate::registry::loaded_module(module as usize)?;
        let index = m.find_global(&name).ok_or_else(|| {
            let known: Vec<&str> = m
                .image
                .metadata
                .globals
                .iter()
                .map(|g| g.name.as_str())
                .collect();
            Failure::new(
                HipError::NotFound,
                format!(
                    "{} has no device variable '{name}' (variables: {})",
                    m.label,
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ),
            )
        })?;
        let size = usize::try_from(m.global(index).size).unwrap_or(usize::MAX);
        if !dptr.is_null() {
            let (address, _) = current_device()?.variable(&m, index)?;
            // SAFETY: non-null; valid per the caller.
            unsafe { write_out(dptr, address as *mut c_void, "the address pointer") }?;
        }
        if !bytes.is_null() {
            // SAFETY: non-null; valid per the caller.
            unsafe { write_out(bytes, size, "the size pointer") }?;
        }
        Ok(())
    })
}

/// `HIP_LAUNCH_PARAM_*` markers of `hipModuleLaunchKernel`'s `extra`.
const LAUNCH_PARAM_BUFFER_POINTER: usize = 1;
const LAUNCH_PARAM_BUFFER_SIZE: usize = 2;
const LAUNCH_PARAM_END: usize = 3;

/// The most entries an `extra` list may have before its `HIP_LAUNCH_PARAM_END`.
const MAX_EXTRA_ENTRIES: usize = 64;

/// The argument block given through `extra`: `{BUFFER_POINTER, p, BUFFER_SIZE, &size, END}` (in
/// either order). The list must end within 64 entries; each key may appear once; the buffer must
/// hold every argument (at least up to the end of the last one) and no more than the block.
///
/// # Safety
/// `extra` must be a valid `HIP_LAUNCH_PARAM_END`-terminated list.
pub(super) unsafe fn block_from_extra(
    extra: *mut *mut c_void,
    info: &KernelInfo,
) -> HipResult<Vec<u8>> {
    let args_size = usize::try_from(info.args_size).unwrap_or(usize::MAX);
    let (mut buffer, mut size): (Option<*const u8>, Option<usize>) = (None, None);
    let mut ended = false;
    for i in (0..MAX_EXTRA_ENTRIES).step_by(2) {
        // SAFETY: per the caller, entries up to END are readable.
        let key = unsafe { *extra.add(i) } as usize;
        if key == LAUNCH_PARAM_END {
            ended = true;
            break;
        }
        // SAFETY: a key other than END is followed by its value, per the caller.
        let value = unsafe { *extra.add(i + 1) };
        let twice = || Failure::invalid_value(format!("extra names key {key:#x} twice"));
        match key {
            LAUNCH_PARAM_BUFFER_POINTER if buffer.is_none() => buffer = Some(value.cast()),
            LAUNCH_PARAM_BUFFER_SIZE if size.is_none() => {
                if value.is_null() {
                    return Err(Failure::invalid_value(
                        "extra's HIP_LAUNCH_PARAM_BUFFER_SIZE points nowhere",
                    ));
                }
                // SAFETY: the value of BUFFER_SIZE points to a size_t.
                size = Some(unsafe { value.cast::<usize>().read_unaligned() })
            }
            LAUNCH_PARAM_BUFFER_POINTER | LAUNCH_PARAM_BUFFER_SIZE => return Err(twice()),
            other => {
                return Err(Failure::invalid_value(format!(
                    "extra: unknown key {other:#x} (HIP_LAUNCH_PARAM_BUFFER_POINTER, \
                     HIP_LAUNCH_PARAM_BUFFER_SIZE and HIP_LAUNCH_PARAM_END are known)"
                )))
            }
        }
    }
    if !ended {
        return Err(Failure::invalid_value(format!(
            "extra has no HIP_LAUNCH_PARAM_END within {MAX_EXTRA_ENTRIES} entries"
        )));
    }
    let size =
        size.ok_or_else(|| Failure::invalid_value("extra has no HIP_LAUNCH_PARAM_BUFFER_SIZE"))?;
    let arguments_end = info
        .args
        .iter()
        .map(|a| a.offset.saturating_add(a.size))
        .max()
        .map_or(0, |end| usize::try_from(end).unwrap_or(usize::MAX));
    if size < arguments_end || size > args_size {
        return Err(Failure::invalid_value(format!(
            "extra's buffer is {size} bytes; kernel '{}' takes {} bytes of arguments ({} with \
             padding)",
            info.source_name, arguments_end, args_size
        )));
    }
    let buffer = buffer
        .filter(|p| !p.is_null() || size == 0)
        .ok_or_else(|| {
            Failure::invalid_value("extra has no (or a null) HIP_LAUNCH_PARAM_BUFFER_POINTER")
        })?;
    let mut block = vec![0u8; args_size];
    if size > 0 {
        // SAFETY: the buffer holds `size` bytes, per the caller.
        block[..size].copy_from_slice(unsafe { std::slice::from_raw_parts(buffer, size) });
    }
    Ok(block)
}

/// The kernel of a `hipFunction_t` (`hipModuleGetFunction`); anything else is
/// `hipErrorInvalidHandle`.
pub(super) fn module_function(f: hipFunction_t) -> HipResult<KernelRef> {
    crate::registry::function(f as usize).ok_or_else(|| {
        Failure::new(
            HipError::InvalidHandle,
            format!("{f:p} is not a function from hipModuleGetFunction"),
        )
    })
}

/// A module launch's argument block: `kernelParams` (one pointer per argument) or `extra` (a
/// packed buffer), not both.
///
/// # Safety
/// `kernel_params` must hold one valid pointer per argument, or `extra` be a valid list.
pub(super) unsafe fn module_arguments(
    kernel: &KernelRef,
    kernel_params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> HipResult<Vec<u8>> {
    let info = kernel.info();
    match (kernel_params.is_null(), extra.is_null()) {
        (false, false) => Err(Failure::invalid_value(
            "give kernelParams or extra, not both",
        )),
        // SAFETY: per the caller.
        (true, false) => unsafe { block_from_extra(extra, info) },
        _ => unsafe { pack_kernel_params(info, kernel_params as *const *const c_void) },
    }
}

/// Launches a module function with `kernelParams` (one pointer per argument) or `extra` (a packed
/// buffer). Asynchronous.
///
/// # Safety
/// `kernel_params` must hold one valid pointer per argument, or `extra` be a valid list.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipModuleLaunchKernel(
    f: hipFunction_t,
    grid_x: c_uint,
    grid_y: c_uint,
    grid_z: c_uint,
    block_x: c_uint,
    block_y: c_uint,
    block_z: c_uint,
    shmem: c_uint,
    stream: hipStream_t,
    kernel_params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> hipError_t {
    guard("hipModuleLaunchKernel", || {
        let kernel = module_function(f)?;
        // SAFETY: per the caller.
        let block = unsafe { module_arguments(&kernel, kernel_params, extra) }?;
        launch(
            &kernel,
            Dim3::new(grid_x, grid_y, grid_z),
            Dim3::new(block_x, block_y, block_z),
            shmem as usize,
            stream,
            &block,
        )
    })
}
