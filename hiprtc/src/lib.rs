//! `libhiprtc.so`: HIP's runtime compilation API (`hip/hiprtc.h`), compiling kernel source
//! while a program runs through the compiler's own device path (src/lib.rs), so a kernel
//! compiled here is the kernel `hipcc --genco` makes of the same source: an offload bundle of
//! SPIR-V and PTX with the kernels' metadata, which `hipModuleLoadData` loads on either
//! backend.
//!
//! The compiler stays loaded between compiles (MLIR's registrations, libclang, the prefix
//! header's PCH on disk), compiles are cached on disk (cache.rs), and every call answers bad
//! input with an error code (and the program's log), never a crash: handles are looked up in
//! tables of live objects, pointers are checked before use, and a panic is an internal error.
#![allow(non_snake_case)] // HIP's function names.

mod cache;
mod compile;
mod compile_thread;
mod handles;
mod link;
mod options;
mod program;
mod result;

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::LazyLock;

use handles::{lock, Handles};
use link::Link;
use program::Program;
use result::HiprtcResult;

/// `hiprtcProgram` and `hiprtcLinkState`: handles, numbers looked up in [`PROGRAMS`] and
/// [`LINKS`] (never pointers followed).
pub type Handle = *mut c_void;

static PROGRAMS: LazyLock<Handles<Program>> = LazyLock::new(Handles::new);
static LINKS: LazyLock<Handles<Link>> = LazyLock::new(Handles::new);

/// Runs a call's body: a panic (a bug) is an internal error, never unwound into C.
fn api(body: impl FnOnce() -> Result<(), HiprtcResult>) -> HiprtcResult {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => HiprtcResult::Success,
        Ok(Err(code)) => code,
        Err(_) => HiprtcResult::InternalError,
    }
}

/// A C string argument; InvalidInput for a null pointer.
///
/// # Safety
/// `p` is null or a NUL-terminated string that outlives the call.
unsafe fn text<'a>(p: *const c_char) -> Result<&'a CStr, HiprtcResult> {
    if p.is_null() {
        return Err(HiprtcResult::InvalidInput);
    }
    // SAFETY: per the caller.
    Ok(unsafe { CStr::from_ptr(p) })
}

/// `count` C strings of an array argument; InvalidInput for a null array or element.
///
/// # Safety
/// `array` is null or holds `count` pointers, each null or a NUL-terminated string.
unsafe fn texts<'a>(
    array: *const *const c_char,
    count: usize,
) -> Result<Vec<&'a CStr>, HiprtcResult> {
    if count == 0 {
        return Ok(Vec::new());
    }
    if array.is_null() {
        return Err(HiprtcResult::InvalidInput);
    }
    // SAFETY: per the caller.
    (0..count).map(|i| unsafe { text(*array.add(i)) }).collect()
}

/// An output pointer; InvalidInput when null.
fn out<T>(p: *mut T) -> Result<*mut T, HiprtcResult> {
    if p.is_null() {
        Err(HiprtcResult::InvalidInput)
    } else {
        Ok(p)
    }
}

/// A count the program passes as an int: InvalidInput when negative.
fn count(n: c_int) -> Result<usize, HiprtcResult> {
    usize::try_from(n).map_err(|_| HiprtcResult::InvalidInput)
}

/// The live program of a handle.
fn program(handle: Handle) -> Result<std::sync::Arc<std::sync::Mutex<Program>>, HiprtcResult> {
    PROGRAMS
        .get(handle as usize)
        .ok_or(HiprtcResult::InvalidProgram)
}

/// The live link of a handle (an unknown one is HIP's InvalidInput).
fn live_link(handle: Handle) -> Result<std::sync::Arc<std::sync::Mutex<Link>>, HiprtcResult> {
    LINKS.get(handle as usize).ok_or(HiprtcResult::InvalidInput)
}

/// Copies `bytes` to the program's buffer `dst`.
///
/// # Safety
/// `dst` holds at least `bytes.len()` bytes (the size the matching `...Size` call answered).
unsafe fn copy_out(bytes: &[u8], dst: *mut u8) {
    // SAFETY: per the caller.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len()) };
}

/// The name of a result code (any int: an unknown one is named so, never a null pointer).
#[no_mangle]
pub extern "C" fn hiprtcGetErrorString(result: c_int) -> *const c_char {
    result::name_of(result).as_ptr()
}

/// hiprtc's version: the HIP API level of hipmlir's headers.
///
/// # Safety
/// Non-null arguments point to writable ints.
#[no_mangle]
pub unsafe extern "C" fn hiprtcVersion(major: *mut c_int, minor: *mut c_int) -> HiprtcResult {
    api(|| {
        let (major, minor) = (out(major)?, out(minor)?);
        let (hip_major, hip_minor, _) = hipmlir_device_image::hip_api_version();
        // SAFETY: checked non-null; writable per the caller.
        unsafe {
            *major = hip_major as c_int;
            *minor = hip_minor as c_int;
        }
        Ok(())
    })
}

/// A program of `src` (named `name`, which diagnostics use), with `num_headers` headers given
/// by their text and the name `#include` finds them by.
///
/// # Safety
/// Pointers are null or valid as hiprtc.h describes them.
#[no_mangle]
pub unsafe extern "C" fn hiprtcCreateProgram(
    prog: *mut Handle,
    src: *const c_char,
    name: *const c_char,
    num_headers: c_int,
    headers: *const *const c_char,
    include_names: *const *const c_char,
) -> HiprtcResult {
    api(|| {
        if prog.is_null() {
            return Err(HiprtcResult::InvalidProgram);
        }
        // SAFETY (all three): per the caller.
        let source = unsafe { text(src) }?;
        let n = count(num_headers)?;
        let (texts_of, names) = unsafe { (texts(headers, n)?, texts(include_names, n)?) };
        let name = if name.is_null() {
            None
        } else {
            Some(
                unsafe { CStr::from_ptr(name) }
                    .to_string_lossy()
                    .into_owned(),
            )
        };
        let headers = names
            .iter()
            .zip(&texts_of)
            .map(|(n, t)| (n.to_string_lossy().into_owned(), t.to_bytes().to_vec()))
            .collect();
        let program = Program::new(source.to_bytes(), name.as_deref(), headers)?;
        // SAFETY: checked non-null; writable per the caller.
        unsafe { *prog = PROGRAMS.insert(program) as Handle };
        Ok(())
    })
}

/// Destroys `*prog` and sets it to null; a handle destroyed before is an error.
///
/// # Safety
/// `prog` is null or points to a handle.
#[no_mangle]
pub unsafe extern "C" fn hiprtcDestroyProgram(prog: *mut Handle) -> HiprtcResult {
    api(|| {
        let prog = out(prog)?;
        // SAFETY: checked non-null; readable and writable per the caller.
        let handle = unsafe { *prog };
        PROGRAMS
            .remove(handle as usize)
            .ok_or(HiprtcResult::InvalidProgram)?;
        unsafe { *prog = std::ptr::null_mut() };
        Ok(())
    })
}

/// Adds a name expression (`kernel<float>`, `&ns::variable`): compiled, and its symbol
/// answered by `hiprtcGetLoweredName`. Before the compile only.
///
/// # Safety
/// `name_expression` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn hiprtcAddNameExpression(
    prog: Handle,
    name_expression: *const c_char,
) -> HiprtcResult {
    api(|| {
        // SAFETY: per the caller.
        let expression = unsafe { text(name_expression) }?.to_string_lossy();
        let program = program(prog)?;
        let added = lock(&program).add_name_expression(&expression);
        added
    })
}

/// Compiles the program with `num_options` options (hipcc's device options and NVRTC's
/// spellings of them); the log says what went wrong.
///
/// # Safety
/// `options` is null or holds `num_options` NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn hiprtcCompileProgram(
    prog: Handle,
    num_options: c_int,
    options: *const *const c_char,
) -> HiprtcResult {
    api(|| {
        // SAFETY: per the caller.
        let options = unsafe { texts(options, count(num_options)?) }?;
        let options: Vec<String> = options
            .iter()
            .map(|o| o.to_string_lossy().into_owned())
            .collect();
        let program = program(prog)?;
        let compiled = lock(&program).compile(&options);
        match compiled {
            HiprtcResult::Success => Ok(()),
            failed => Err(failed),
        }
    })
}

/// The symbol (mangled name) of a name expression added before the compile, valid until the
/// program is destroyed.
///
/// # Safety
/// `name_expression` is null or a NUL-terminated string; `lowered_name` null or writable.
#[no_mangle]
pub unsafe extern "C" fn hiprtcGetLoweredName(
    prog: Handle,
    name_expression: *const c_char,
    lowered_name: *mut *const c_char,
) -> HiprtcResult {
    api(|| {
        // SAFETY: per the caller.
        let expression = unsafe { text(name_expression) }?.to_string_lossy();
        let lowered_name = out(lowered_name)?;
        let program = program(prog)?;
        let program = lock(&program);
        let symbol = program.lowered_name(&expression)?;
        // SAFETY: checked non-null; the name lives in the program until it is destroyed.
        unsafe { *lowered_name = symbol.as_ptr() };
        Ok(())
    })
}

/// The size of the program's log, its terminating NUL included.
///
/// # Safety
/// `log_size` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn hiprtcGetProgramLogSize(
    prog: Handle,
    log_size: *mut usize,
) -> HiprtcResult {
    api(|| {
        let log_size = out(log_size)?;
        let program = program(prog)?;
        let size = lock(&program).log().to_bytes_with_nul().len();
        // SAFETY: checked non-null; writable per the caller.
        unsafe { *log_size = size };
        Ok(())
    })
}

/// The program's log (clang-style diagnostics of its last compile), NUL-terminated.
///
/// # Safety
/// `log` is null or holds the size `hiprtcGetProgramLogSize` answered.
#[no_mangle]
pub unsafe extern "C" fn hiprtcGetProgramLog(prog: Handle, log: *mut c_char) -> HiprtcResult {
    api(|| {
        let log = out(log)?;
        let program = program(prog)?;
        // SAFETY: per the caller.
        unsafe { copy_out(lock(&program).log().to_bytes_with_nul(), log.cast()) };
        Ok(())
    })
}

/// The size of the code object of a successful compile (none with `-fgpu-rdc`).
///
/// # Safety
/// `code_size` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn hiprtcGetCodeSize(prog: Handle, code_size: *mut usize) -> HiprtcResult {
    api(|| {
        let code_size = out(code_size)?;
        let program = program(prog)?;
        let size = lock(&program).code()?.len();
        // SAFETY: checked non-null; writable per the caller.
        unsafe { *code_size = size };
        Ok(())
    })
}

/// The code object: the offload bundle (SPIR-V, PTX, the kernels' metadata) that
/// `hipModuleLoadData` loads, as `hipcc --genco` writes it.
///
/// # Safety
/// `code` is null or holds the size `hiprtcGetCodeSize` answered.
#[no_mangle]
pub unsafe extern "C" fn hiprtcGetCode(prog: Handle, code: *mut c_char) -> HiprtcResult {
    api(|| {
        let code = out(code)?;
        let program = program(prog)?;
        let program = lock(&program);
        // SAFETY: per the caller.
        unsafe { copy_out(program.code()?, code.cast()) };
        Ok(())
    })
}

/// The size of a `-fgpu-rdc` compile's relocatable device code.
///
/// # Safety
/// `bitcode_size` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn hiprtcGetBitcodeSize(
    prog: Handle,
    bitcode_size: *mut usize,
) -> HiprtcResult {
    api(|| {
        let bitcode_size = out(bitcode_size)?;
        let program = program(prog)?;
        let size = lock(&program).bitcode()?.len();
        // SAFETY: checked non-null; writable per the caller.
        unsafe { *bitcode_size = size };
        Ok(())
    })
}

/// A `-fgpu-rdc` compile's relocatable device code: hipmlir's, MLIR with the kernels' and
/// variables' records (what an object built with `hipcc -fgpu-rdc -c` carries), not LLVM
/// bitcode; `hiprtcLinkAddData` takes it as `HIPRTC_JIT_INPUT_LLVM_BITCODE`. A compile without
/// `-fgpu-rdc` has none: HIPRTC_ERROR_INVALID_PROGRAM.
///
/// # Safety
/// `bitcode` is null or holds the size `hiprtcGetBitcodeSize` answered.
#[no_mangle]
pub unsafe extern "C" fn hiprtcGetBitcode(prog: Handle, bitcode: *mut c_char) -> HiprtcResult {
    api(|| {
        let bitcode = out(bitcode)?;
        let program = program(prog)?;
        let program = lock(&program);
        // SAFETY: per the caller.
        unsafe { copy_out(program.bitcode()?, bitcode.cast()) };
        Ok(())
    })
}

/// The options of a link call: `num` pairs of `hiprtcJIT_option` and value.
///
/// # Safety
/// With `num` > 0, `options` and `values` hold `num` elements.
unsafe fn jit_options(
    num: c_uint,
    options: *const c_int,
    values: *const *mut c_void,
) -> Result<Vec<(u32, *mut c_void)>, HiprtcResult> {
    let n = num as usize;
    if n == 0 {
        return Ok(Vec::new());
    }
    if options.is_null() || values.is_null() {
        return Err(HiprtcResult::InvalidInput);
    }
    // SAFETY: per the caller.
    Ok((0..n)
        .map(|i| unsafe { (*options.add(i) as u32, *values.add(i)) })
        .collect())
}

/// A link of `-fgpu-rdc` programs; its options may name log buffers and an NVIDIA target.
///
/// # Safety
/// Pointers are null or valid as hiprtc.h describes them.
#[no_mangle]
pub unsafe extern "C" fn hiprtcLinkCreate(
    num_options: c_uint,
    options: *const c_int,
    option_values: *const *mut c_void,
    link_state: *mut Handle,
) -> HiprtcResult {
    api(|| {
        let link_state = out(link_state)?;
        // SAFETY: per the caller.
        let options = unsafe { jit_options(num_options, options, option_values) }?;
        let handle = LINKS.insert(Link::new(&options));
        // SAFETY: checked non-null; writable per the caller.
        unsafe { *link_state = handle as Handle };
        Ok(())
    })
}

fn add_to_link(
    state: Handle,
    input_type: c_int,
    bytes: &[u8],
    name: &str,
) -> Result<(), HiprtcResult> {
    let link = live_link(state)?;
    let added = lock(&link).add(input_type as u32, bytes, name);
    match added {
        HiprtcResult::Success => Ok(()),
        failed => Err(failed),
    }
}

/// Adds the relocatable device code in a file (a program's `hiprtcGetBitcode` saved, or an
/// object or archive built with `hipcc -fgpu-rdc -c`).
///
/// # Safety
/// `file_path` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn hiprtcLinkAddFile(
    link_state: Handle,
    input_type: c_int,
    file_path: *const c_char,
    _num_options: c_uint,
    _options: *const c_int,
    _option_values: *const *mut c_void,
) -> HiprtcResult {
    api(|| {
        // SAFETY: per the caller.
        let path = unsafe { text(file_path) }?.to_string_lossy().into_owned();
        let link = live_link(link_state)?;
        let accepted = lock(&link).accepts(input_type as u32);
        accepted?;
        let bytes = hipmlir_device_image::files::read_regular(
            std::path::Path::new(&path),
            hipmlir_device_image::files::MAX_DEVICE_FILE,
        )
        .map_err(|_| HiprtcResult::ProgramCreationFailure)?;
        add_to_link(link_state, input_type, &bytes, &path)
    })
}

/// Adds relocatable device code from memory (`hiprtcGetBitcode`'s, or an object's or
/// archive's bytes).
///
/// # Safety
/// `image` is null or holds `image_size` bytes; `name` null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn hiprtcLinkAddData(
    link_state: Handle,
    input_type: c_int,
    image: *mut c_void,
    image_size: usize,
    name: *const c_char,
    _num_options: c_uint,
    _options: *const c_int,
    _option_values: *const *mut c_void,
) -> HiprtcResult {
    api(|| {
        if image.is_null() || image_size == 0 {
            return Err(HiprtcResult::InvalidInput);
        }
        // SAFETY: per the caller.
        let bytes = unsafe { std::slice::from_raw_parts(image as *const u8, image_size) };
        let name = if name.is_null() {
            "the input".to_string()
        } else {
            unsafe { CStr::from_ptr(name) }
                .to_string_lossy()
                .into_owned()
        };
        add_to_link(link_state, input_type, bytes, &name)
    })
}

/// Links what was added into a code object for `hipModuleLoadData`, alive until the link is
/// destroyed.
///
/// # Safety
/// Non-null arguments are writable.
#[no_mangle]
pub unsafe extern "C" fn hiprtcLinkComplete(
    link_state: Handle,
    bin_out: *mut *mut c_void,
    size_out: *mut usize,
) -> HiprtcResult {
    api(|| {
        let (bin_out, size_out) = (out(bin_out)?, out(size_out)?);
        let link = live_link(link_state)?;
        let mut link = lock(&link);
        let image = link.complete()?;
        // SAFETY: checked non-null; writable per the caller. The image lives in the link.
        unsafe {
            *bin_out = image.as_ptr() as *mut c_void;
            *size_out = image.len();
        }
        Ok(())
    })
}

/// The compiler's entry point (`hipmlir_compiler::main`): the installed `hipmlir-compiler` is a
/// small program that loads this library and calls it (src/bin/hipmlir-compiler-shared.rs), so
/// that an install holds one copy of the compiler. Its exit status.
#[no_mangle]
pub extern "C" fn hipmlir_compiler_main() -> c_int {
    let status = hipmlir_compiler::main();
    // What the compiler printed is in this library's own standard streams, which the program
    // that called it does not flush when it ends.
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    c_int::from(status)
}

/// Destroys a link (and the code objects it completed).
#[no_mangle]
pub extern "C" fn hiprtcLinkDestroy(link_state: Handle) -> HiprtcResult {
    api(|| {
        LINKS
            .remove(link_state as usize)
            .ok_or(HiprtcResult::InvalidInput)?;
        Ok(())
    })
}
