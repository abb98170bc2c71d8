//! One build: sources compiled (device pipeline, then host side), objects linked, device code
//! embedded or split out, dumps and --save-temps files written.

use std::path::{Path, PathBuf};

use hipmlir_device_image::device_ir::DeviceIr;
use hipmlir_device_image::kpack::{
    lookup_key, KpackArchive, KpackEntry, KpackImage, KpackRecord, ARCHIVE_EXTENSION, SPIRV_TARGET,
};
use hipmlir_device_image::{DeviceImage, FatImage};

use crate::cli::{BuildOptions, InputKind, Offload, Stage};
use crate::device::{
    compile_device, link_device, AfterFrontend, DeviceJob, DeviceMode, DeviceOutput,
};
use crate::dump::{filter_functions, select_kernels};
use crate::elf::Elf;
use crate::error::{Error, IoAction, Result};
use crate::host::{self, fatbin_bundles, FATBIN_SECTION};
use crate::outputs::{self, compile_only_object, emit_output, stem_of, HostFiles};
use crate::paths::Toolchain;
use crate::time_report;

fn frontend_options(
    opts: &BuildOptions,
    toolchain: &Toolchain,
) -> hipmlir_frontend::FrontendOptions {
    hipmlir_frontend::FrontendOptions {
        hip_headers: toolchain.include_dir.clone(),
        include_dirs: opts.include_dirs.clone(),
        macro_flags: opts
            .macro_flags
            .iter()
            .chain(&opts.shared_flags)
            .cloned()
            // The folders `$CXX` searches on its own (an MPI wrapper's): the device parse
            // reads the same headers as the host compile.
            .chain(host::HostCompiler::from_env().search_flags())
            .collect(),
        std: opts.std.clone(),
        gpu_rdc: opts.gpu_rdc,
        ..Default::default()
    }
}

/// The key of a translation unit (see `GlobalVar::unit`): the source (its path and text) and
/// the flags that shape it, so that two sources of a program, or one source compiled twice
/// with different macros, get different keys, and a rebuild the same.
fn unit_key(source: &Path, text: &[u8], options: &hipmlir_frontend::FrontendOptions) -> String {
    let path = source
        .canonicalize()
        .unwrap_or_else(|_| source.to_path_buf());
    let mut bytes = path.as_os_str().as_encoded_bytes().to_vec();
    for part in [text]
        .into_iter()
        .chain(options.macro_flags.iter().map(|f| f.as_bytes()))
    {
        bytes.push(0);
        bytes.extend_from_slice(part);
    }
    format!("{:016x}", hipmlir_device_image::kpack::fnv1a64(&bytes))
}

pub fn build(opts: &BuildOptions) -> Result<()> {
    if opts.verbose && crate::in_server_child() {
        eprintln!(
            "hipmlir: compiling in a child of the compile server (HIPMLIR_COMPILE_SERVER=0 \
             compiles in a process of its own)"
        );
    }
    for input in &opts.inputs {
        // Only regular files (symlinks followed): a device or FIFO would be read without end
        // (`/dev/zero`) or wait for a writer.
        let what = match std::fs::metadata(&input.path) {
            Err(_) => {
                return Err(Error::Usage(format!(
                    "no such file or directory: '{}'",
                    input.path.display()
                )))
            }
            Ok(m) if m.is_file() => continue,
            Ok(m) if m.is_dir() => "a directory",
            Ok(_) => "not a regular file (a device, FIFO or socket)",
        };
        return Err(Error::Usage(format!(
            "'{}' is {what}, not a source or object",
            input.path.display()
        )));
    }
    let kinds: Vec<InputKind> = opts.inputs.iter().map(|i| i.kind).collect();
    outputs::check(opts, &kinds)?;
    if opts.time_report {
        time_report::enable();
    }
    let result = build_checked(opts, &kinds);
    time_report::print();
    result
}

/// The build of inputs that exist, each of a known kind.
fn build_checked(opts: &BuildOptions, kinds: &[InputKind]) -> Result<()> {
    let toolchain = Toolchain::locate()?;
    if opts.device_only() {
        return emit(opts, &toolchain);
    }
    let work = crate::temp_folders::TempFolder::new("hipmlir-").map_err(|e| Error::Io {
        action: IoAction::Create,
        path: std::env::temp_dir(),
        what: Some("a temporary folder"),
        source: e,
    })?;
    let save_dir = outputs::save_dir(opts).unwrap_or_else(|| work.path().to_path_buf());
    // Several HIP sources linked in one command keep their device code as MLIR until the link,
    // which links it together when a source uses another's device symbols (as -fgpu-rdc does)
    // and lowers each source's on its own otherwise.
    let hip_sources = kinds.iter().filter(|k| **k == InputKind::Hip).count();
    let mode = if opts.gpu_rdc || (!opts.compile_only && hip_sources > 1) {
        DeviceMode::Relocatable
    } else {
        DeviceMode::Image
    };
    let job = DeviceJob {
        offload: opts.offload.clone(),
        stop_at: Stage::Binary,
        mode,
        print_ir_after_all: opts.mlir_print_ir_after_all,
        record_stages: opts.save_temps.is_some(),
        memcheck: opts.memcheck,
    };
    let mut objects = Vec::with_capacity(opts.inputs.len());
    for (i, (input, &kind)) in opts.inputs.iter().zip(kinds).enumerate() {
        if kind == InputKind::Linkable {
            objects.push(input.path.clone());
            continue;
        }
        let stem = stem_of(&input.path);
        let object = if opts.compile_only {
            compile_only_object(opts, &input.path)
        } else {
            work.path()
                .join(format!("{i}-{}.o", outputs::bounded_stem(&stem)))
        };
        if kind == InputKind::Hip {
            compile_hip(opts, &toolchain, &input.path, &job, &save_dir, &object)?;
        } else {
            time_report::time(&format!("host compile ({})", input.path.display()), || {
                host::compile_cxx(opts, &toolchain, &input.path, &object)
            })?;
        }
        objects.push(object);
    }
    if opts.compile_only {
        return Ok(());
    }
    let mut device_stubs = link_device_code(opts, &job, &objects, work.path(), &save_dir)?;
    let _link = time_report::Phase::start("link");
    if opts.address_sanitizer && !defines_any(&objects, host::ASAN_OPTIONS_HOOK) {
        device_stubs.push(host::compile_asan_options(work.path(), opts.verbose)?);
    }
    let output = opts
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from("a.out"));
    if opts.split_device_code {
        link_split(
            opts,
            &toolchain,
            &objects,
            &device_stubs,
            work.path(),
            &output,
        )
    } else {
        let final_output = output;
        let staged = outputs::StagedOutput::new(&final_output)?;
        let output = staged.path().to_path_buf();
        host::link(opts, &toolchain, &objects, &device_stubs, &output)?;
        let bytes = std::fs::read(&output).map_err(|e| Error::read(&output, e))?;
        let mut images = Vec::new();
        for (at, b) in fatbin_bundles(&bytes, &output)? {
            images.push(FatImage::from_bundle_bytes(b).map_err(|e| {
                Error::Input(format!(
                    "'{}': device image at {at:#x} of {FATBIN_SECTION}: {e}",
                    output.display()
                ))
            })?);
        }
        let view = match images.len() {
            0 => None,
            1 => images.pop(),
            _ => {
                let spirv: Vec<DeviceImage> = images.into_iter().map(|i| i.image).collect();
                host::merge_images(&spirv, work.path(), opts.verbose).map(FatImage::from)
            }
        };
        if let Some(image) = view {
            host::add_bundler_sections(&output, &image, work.path(), opts.verbose)?;
        }
        staged.commit()
    }
}

/// Compiles one HIP source into an object carrying its device image.
fn compile_hip(
    opts: &BuildOptions,
    toolchain: &Toolchain,
    source: &Path,
    job: &DeviceJob,
    save_dir: &Path,
    object: &Path,
) -> Result<()> {
    let stem = stem_of(source);
    let save = job.record_stages;
    let mut options = frontend_options(opts, toolchain);
    let compile = |options: &hipmlir_frontend::FrontendOptions,
                   after_frontend: Option<AfterFrontend>| {
        compile_device(source, options, job, after_frontend)
    };
    let text = std::fs::read(source).map_err(|e| Error::read(source, e))?;
    options.unit_key = Some(unit_key(source, &text, &options));
    let files = HostFiles::new(save_dir, &stem);
    let mut search_dirs: Vec<PathBuf> =
        source.parent().map(Path::to_path_buf).into_iter().collect();
    search_dirs.extend(opts.include_dirs.iter().cloned());
    // The host compile (another process) starts as soon as the frontend has said what to edit
    // in the host's copy of the source, and runs while the device code is lowered.
    let (mut device, mut stub) = std::thread::scope(|scope| {
        let mut host_compile = None;
        let device = compile(
            &options,
            Some(&mut |device: &DeviceOutput| {
                for w in &device.warnings {
                    eprintln!("{w}");
                }
                let host_text = host::host_text(
                    source,
                    &text,
                    &device.host_edits,
                    &search_dirs,
                    &files.overlay_dir,
                )?;
                let files = &files;
                let local_symbols = device.local_host_symbols.clone();
                host_compile = Some(scope.spawn(move || {
                    // Timed apart: `time_report::time` would take the passes that the device
                    // lowering runs meanwhile as its own.
                    let started = std::time::Instant::now();
                    let compiled = host::compile_host_source(
                        opts, toolchain, source, &host_text, files, object,
                    )
                    .and_then(|()| {
                        host::localize_symbols(&files.host_object, &local_symbols, opts.verbose)
                    });
                    let phase = format!("host compile ({}, beside the device)", source.display());
                    time_report::add(phase, started.elapsed());
                    compiled
                }));
                Ok(())
            }),
        );
        // The device's errors come first: the host compile started only if the frontend passed.
        let host =
            host_compile.map(|h| h.join().unwrap_or(Err(Error::Stopped("the host compile"))));
        let device = device?;
        print_notes(&device);
        // The image's stub compiles while the host compile still runs, unless the host object
        // may yet name kernel instances the device must compile (then it waits for those).
        let stub = (device.dependent_kernel_templates.is_empty() && device.device_ir.is_none())
            .then(|| {
                time_report::time("device image stub (beside the host compile)", || {
                    host::image_object(opts, &stem, &device.image, &files)
                })
            });
        host.unwrap_or(Ok(()))?;
        Ok::<_, Error>((device, stub.transpose()?))
    })?;
    if !device.dependent_kernel_templates.is_empty() {
        // Which instances a host template launches only its instantiation tells: compile those
        // the host compile emitted stubs for.
        options.kernel_instances = host::needed_kernel_instances(
            &files.host_object,
            &device.dependent_kernel_templates,
            &device.image.metadata.kernels,
        )?;
        if !options.kernel_instances.is_empty() {
            device = compile(&options, None)?;
            print_notes(&device);
            stub = None;
        }
    }
    if let Some(ir) = &device.device_ir {
        return host::embed_device_ir(opts, ir, &files, object);
    }
    if save {
        save_stages(opts, source, &stem, &device, save_dir)?;
    }
    time_report::time("device image embedding", || {
        let has_stub = match stub {
            Some(made) => made,
            None => host::image_object(opts, &stem, &device.image, &files)?,
        };
        host::embed_image(opts, has_stub, &files, object)
    })
}

/// The lowering's warnings, on stderr.
fn print_notes(device: &DeviceOutput) {
    for note in &device.notes {
        eprintln!("{note}");
    }
}

/// The device link: the relocatable device code the objects carry (one record per source)
/// becomes images — one for all sources when one uses another's device symbols or -fgpu-rdc
/// asks for it, one per source otherwise. Returns the objects that embed and register them.
fn link_device_code(
    opts: &BuildOptions,
    job: &DeviceJob,
    objects: &[PathBuf],
    work: &Path,
    save_dir: &Path,
) -> Result<Vec<PathBuf>> {
    let mut records = Vec::new();
    for object in objects {
        records.extend(device_ir_records(object)?);
    }
    if records.is_empty() {
        return Ok(Vec::new());
    }
    let together = opts.gpu_rdc || records.iter().any(|r| !r.undefined.is_empty());
    let groups: Vec<Vec<DeviceIr>> = if together {
        vec![records]
    } else {
        records.into_iter().map(|r| vec![r]).collect()
    };
    let save = job.record_stages;
    let mut stubs = Vec::new();
    for (i, group) in groups.iter().enumerate() {
        let device = link_device(group, job)?;
        print_notes(&device);
        let stem = match &group[..] {
            [one] => stem_of(Path::new(&one.source)),
            _ => "device-link".to_string(),
        };
        if save {
            save_stages(opts, Path::new(&stem), &stem, &device, save_dir)?;
        }
        // Named as the sources' objects are (`<index>-<stem>.o`), in a folder of their own.
        let dir = work.join("device-link");
        std::fs::create_dir_all(&dir).map_err(|e| Error::create(&dir, e))?;
        let files = HostFiles::new(&dir, &format!("{i}-{stem}"));
        if host::image_object(opts, &stem, &device.image, &files)? {
            let object = dir.join(format!("{i}-{stem}.o"));
            std::fs::rename(&files.stub_object, &object).map_err(|e| Error::write(&object, e))?;
            stubs.push(object);
        }
    }
    Ok(stubs)
}

/// The relocatable device code records of an object, or of every member of an archive.
fn device_ir_records(path: &Path) -> Result<Vec<DeviceIr>> {
    let bytes = std::fs::read(path).map_err(|e| Error::read(path, e))?;
    crate::device::device_ir_records(&bytes).map_err(|e| {
        Error::Input(format!(
            "'{}': relocatable device code: {e}",
            path.display()
        ))
    })
}

/// --save-temps: the MLIR of every stage (restricted by --function) and the metadata.
fn save_stages(
    opts: &BuildOptions,
    source: &Path,
    stem: &str,
    device: &DeviceOutput,
    dir: &Path,
) -> Result<()> {
    let stem = &outputs::bounded_stem(stem);
    let keep = if opts.functions.is_empty() {
        None
    } else {
        Some(select_kernels(
            &device.image.metadata.kernels,
            &opts.functions,
            &source.display().to_string(),
        )?)
    };
    for (stage, text) in &device.stage_texts {
        let path = dir.join(format!("{stem}.{stage}.mlir"));
        let text = match &keep {
            Some(k) => filter_functions(text, k),
            None => text.clone(),
        };
        std::fs::write(&path, text).map_err(|e| Error::write(&path, e))?;
    }
    let path = dir.join(format!("{stem}.metadata.json"));
    std::fs::write(&path, device.image.metadata.to_json()).map_err(|e| Error::write(&path, e))
}

/// Whether one of the objects (relocatable ELF files; archives and libraries are not looked
/// into) defines `symbol`: the program's own definition of a hook.
fn defines_any(objects: &[PathBuf], symbol: &str) -> bool {
    objects.iter().any(|object| {
        std::fs::read(object).is_ok_and(|bytes| {
            Elf::parse(&bytes).is_ok_and(|elf| elf.defined_symbols().iter().any(|s| s == symbol))
        })
    })
}

/// --split-device-code: the objects' device images go to `<output>.hipk`; the binary links the
/// objects without them and carries a reference record instead.
fn link_split(
    opts: &BuildOptions,
    toolchain: &Toolchain,
    objects: &[PathBuf],
    device_stubs: &[PathBuf],
    work: &Path,
    output: &Path,
) -> Result<()> {
    let mut images: Vec<KpackImage> = Vec::new();
    let mut linked = Vec::with_capacity(objects.len());
    // The device link's stubs hold only images and their registration: their images go to
    // the archive and nothing of them is linked.
    for (i, object) in objects.iter().chain(device_stubs).enumerate() {
        let is_device_stub = i >= objects.len();
        let bytes = std::fs::read(object).map_err(|e| Error::read(object, e))?;
        let is_object = Elf::parse(&bytes).is_ok_and(|e| e.kind == 1);
        if !is_object {
            if bytes
                .windows(FATBIN_SECTION.len())
                .any(|w| w == FATBIN_SECTION.as_bytes())
            {
                eprintln!(
                    "hipmlir: warning: '{}': device code inside archives and libraries stays embedded with --split-device-code",
                    object.display()
                );
            }
            linked.push(object.clone());
            continue;
        }
        let bundles = fatbin_bundles(&bytes, object)?;
        if bundles.is_empty() {
            linked.push(object.clone());
            continue;
        }
        let name = object
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = name
            .split_once('-')
            .map(|x| x.1)
            .unwrap_or(&name)
            .to_string();
        for (k, (_, b)) in bundles.iter().enumerate() {
            images.push(KpackImage {
                name: if bundles.len() > 1 {
                    format!("{name}#{k}")
                } else {
                    name.clone()
                },
                bundle: b.to_vec(),
            });
        }
        if is_device_stub {
            continue;
        }
        let stripped = work.join(format!("split-{i}.o"));
        host::strip_device_code(object, &stripped, opts.verbose)?;
        linked.push(stripped);
    }
    let mut kernels: Vec<String> = Vec::new();
    let mut globals = Vec::new();
    for image in &images {
        let parsed = DeviceImage::from_bundle_bytes(&image.bundle)
            .map_err(|e| Error::Input(format!("device image of {}: {e}", image.name)))?;
        for k in parsed.metadata.kernels {
            if !kernels.contains(&k.name) {
                kernels.push(k.name);
            }
        }
        globals.extend(parsed.metadata.globals);
    }
    let file_name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| Error::Usage(format!("'{}' is not a file name", output.display())))?;
    let key = lookup_key(&file_name, images.iter().map(|i| i.bundle.as_slice()));
    let archive_name = format!("{file_name}.{ARCHIVE_EXTENSION}");
    let record = KpackRecord::new(key.clone(), archive_name.clone());
    let record_path = work.join("kpack_ref.bin");
    std::fs::write(&record_path, record.encode())
        .map_err(|e| Error::write_of("the reference record", &record_path, e))?;
    let stub = host::compile_kpack_stub(&record_path, &kernels, &globals, work, opts.verbose)?;
    host::link(opts, toolchain, &linked, &[stub], output)?;
    let archive = KpackArchive::new(vec![KpackEntry {
        key,
        target: SPIRV_TARGET.into(),
        images,
    }]);
    let archive_path = output.with_file_name(&archive_name);
    std::fs::write(&archive_path, archive.encode()).map_err(|e| Error::write(&archive_path, e))
}

/// --emit-mlir, --emit-spirv, --emit-ptx and --genco: device code only, one output per source.
fn emit(opts: &BuildOptions, toolchain: &Toolchain) -> Result<()> {
    let stop_at = opts.emit_mlir.clone().unwrap_or(Stage::Binary);
    if opts.emit_mlir.is_some() && opts.output.is_some() && opts.inputs.len() > 1 {
        return Err(Error::Usage(
            "cannot specify -o when generating multiple output files (one per source)".into(),
        ));
    }
    // What is emitted is built, nothing else: the PTX of --emit-ptx, the SPIR-V of
    // --emit-spirv; --emit-mlir stops in the pipeline of the targets named (device.rs); --genco
    // builds every target named, as a full build does.
    let offload = if opts.genco {
        opts.offload.clone()
    } else {
        Offload {
            spirv: if opts.emit_mlir.is_some() {
                opts.offload.spirv
            } else {
                !opts.emit_ptx
            },
            ptx: if opts.emit_ptx || opts.emit_mlir.is_some() {
                opts.offload.ptx.clone()
            } else {
                Vec::new()
            },
            explicit: true,
        }
    };
    let job = DeviceJob {
        offload,
        // With -fgpu-rdc the frontend's module may declare what other sources define.
        mode: if opts.gpu_rdc && stop_at == Stage::Frontend {
            DeviceMode::Relocatable
        } else {
            DeviceMode::Image
        },
        stop_at,
        print_ir_after_all: opts.mlir_print_ir_after_all,
        record_stages: false,
        memcheck: opts.memcheck,
    };
    for input in &opts.inputs {
        let device = compile_device(&input.path, &frontend_options(opts, toolchain), &job, None)?;
        for w in &device.warnings {
            eprintln!("{w}");
        }
        print_notes(&device);
        if let Some(text) = &device.mlir_text {
            let text = if opts.functions.is_empty() {
                text.clone()
            } else {
                let keep = select_kernels(
                    &device.image.metadata.kernels,
                    &opts.functions,
                    &input.path.display().to_string(),
                )?;
                filter_functions(text, &keep)
            };
            write_output(&emit_output(opts, &input.path), text.as_bytes())?;
        } else {
            // A SPIR-V module without entry points is not a valid kernel module; a code object
            // without kernels is what hipcc writes for such a source (hipModuleLoad takes it, and
            // its lookups find nothing).
            if device.image.metadata.kernels.is_empty() && !opts.genco {
                return Err(Error::Usage(format!(
                    "'{}' defines no kernels (__global__ functions): there is no SPIR-V to emit",
                    input.path.display(),
                )));
            }
            if opts.genco {
                write_output(
                    &emit_output(opts, &input.path),
                    &device.image.to_bundle_bytes(),
                )?;
            } else if opts.emit_ptx {
                let ptx = device
                    .image
                    .ptx
                    .first()
                    .map(|p| &p.ptx[..])
                    .unwrap_or_default();
                // The text without the NUL that cuModuleLoadData wants.
                let ptx = ptx.strip_suffix(&[0]).unwrap_or(ptx);
                write_output(&emit_output(opts, &input.path), ptx)?;
            } else {
                write_output(&emit_output(opts, &input.path), &device.image.spirv)?;
            }
        }
    }
    Ok(())
}

fn write_output(path: &Path, bytes: &[u8]) -> Result<()> {
    if path.as_os_str() == "-" {
        use std::io::Write;
        return std::io::stdout()
            .write_all(bytes)
            .map_err(|e| Error::write_of("to stdout", path, e));
    }
    std::fs::write(path, bytes).map_err(|e| Error::write(path, e))
}
