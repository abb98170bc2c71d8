//! One compile of a program: its files written to a folder of their own, the device path of a
//! hipcc build run on them (`hipmlir_compiler::device`), and what comes out read into a code
//! object, relocatable device code, lowered names and a log.

use std::path::{Path, PathBuf};

use hipmlir_cache::stamps;
use hipmlir_compiler::device::{compile_device, DeviceJob, DeviceMode, DeviceOutput};
use hipmlir_frontend::{FrontendOptions, UnitFiles};

use crate::cache::Entry;
use crate::options::{CompileOptions, NO_ERROR_LIMIT, RTC_MACRO};
use crate::result::HiprtcResult;

/// What a compile is given.
pub struct Job<'a> {
    /// hipmlir's headers.
    pub include_dir: &'a Path,
    /// The source's file name (diagnostics name the source by it).
    pub name: &'a str,
    pub source: &'a [u8],
    pub headers: &'a [(String, Vec<u8>)],
    pub name_expressions: &'a [String],
    pub options: &'a CompileOptions,
}

/// A failed compile: its code and log.
pub type Failure = (HiprtcResult, String);

/// Compiles `job` (on the calling thread: see `compile_thread`): what it gave, and whether that
/// may be cached (every file it included could be stamped).
pub fn compile(job: &Job) -> Result<(Entry, bool), Failure> {
    let internal = |e: String| (HiprtcResult::InternalError, format!("hiprtc: error: {e}\n"));
    let dir = tempfile::Builder::new()
        .prefix("hiprtc-")
        .tempdir()
        .map_err(|e| internal(format!("cannot create a temporary folder: {e}")))?;
    // The source last: a header given the program's own name does not replace it.
    for (name, text) in job.headers {
        write_file(&dir.path().join(name), text).map_err(internal)?;
    }
    let source = dir.path().join(job.name);
    write_file(&source, job.source).map_err(internal)?;
    let options = job.options;
    let frontend = FrontendOptions {
        hip_headers: job.include_dir.to_path_buf(),
        include_dirs: options.include_dirs.clone(),
        macro_flags: [RTC_MACRO, NO_ERROR_LIMIT]
            .into_iter()
            .map(String::from)
            .chain(options.parse_flags.iter().cloned())
            .collect(),
        std: options.std.clone(),
        name_expressions: job.name_expressions.to_vec(),
        unit_files: UnitFiles::UserFiles,
        pch_at_first_sight: true,
        program_dir: Some(dir.path().to_path_buf()),
        ..Default::default()
    };
    let mode = if options.relocatable {
        DeviceMode::Relocatable
    } else {
        DeviceMode::Image
    };
    let device_job = DeviceJob {
        mode,
        memcheck: options.memcheck,
        ..DeviceJob::image(options.offload.clone())
    };
    let compiled = compile_device(&source, &frontend, &device_job, None);
    // Diagnostics name the program's files by the names the program gave them.
    let place = format!("{}/", dir.path().display());
    let named = |text: &str| text.replace(&place, "");
    let mut log: String = options
        .notes
        .iter()
        .map(|n| format!("hiprtc: note: {n}\n"))
        .collect();
    let device = match compiled {
        Ok(device) => device,
        Err(e) => {
            log += &named(&e.to_string());
            log.push('\n');
            return Err((HiprtcResult::Compilation, log));
        }
    };
    for w in &device.warnings {
        log += &named(&w.to_string());
        log.push('\n');
    }
    for note in &device.notes {
        log += note;
        log.push('\n');
    }
    let lowered = lowered_names(job.name_expressions, &device, &mut log)?;
    let bitcode = device.device_ir.as_ref().map(|ir| {
        let mut ir = ir.clone();
        ir.source = named(&ir.source);
        ir.mlir = named(&ir.mlir);
        for u in &mut ir.undefined {
            u.diagnostic = named(&u.diagnostic);
        }
        ir.encode()
    });
    let code = (mode == DeviceMode::Image).then(|| device.image.to_bundle_bytes());
    // The files it read from elsewhere, to tell a stale cache entry: not the program's own
    // (part of the key), not hipmlir's headers (the key covers them).
    let elsewhere = device
        .included_files
        .iter()
        .filter(|f| !f.starts_with(dir.path()) && !f.starts_with(job.include_dir));
    let inputs = stamps(elsewhere);
    let cacheable = inputs.is_some();
    let entry = Entry {
        code,
        bitcode,
        lowered,
        log,
        inputs: inputs.unwrap_or_default(),
    };
    Ok((entry, cacheable))
}

/// The symbol of each name expression, or a compile error naming the ones that name nothing a
/// program can look up.
fn lowered_names(
    expressions: &[String],
    device: &DeviceOutput,
    log: &mut String,
) -> Result<Vec<String>, Failure> {
    let mut lowered = Vec::with_capacity(expressions.len());
    let mut failed = false;
    for (i, expression) in expressions.iter().enumerate() {
        match device.lowered_names.get(i).cloned().flatten() {
            Some(symbol) => lowered.push(symbol),
            None => {
                failed = true;
                *log += &format!(
                    "<name expression {}>: error: '{expression}' names no __global__ function, \
                     __device__ function or __device__ variable\n",
                    i + 1
                );
            }
        }
    }
    if failed {
        return Err((HiprtcResult::Compilation, std::mem::take(log)));
    }
    Ok(lowered)
}

/// Writes one of the program's files (a header's name may hold folders).
fn write_file(path: &PathBuf, text: &[u8]) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create '{}': {e}", parent.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write '{}': {e}", path.display()))
}
