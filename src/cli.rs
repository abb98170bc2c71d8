//! The command line, parsed the way hipcc and clang read theirs: flags and inputs in any order,
//! `-Ifoo` or `-I foo`, host-compiler flags passed through, `hipmlir inspect FILE` as a
//! subcommand. Every mistake is a usage error (`hipmlir: error: ...`), never a panic.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

pub const USAGE: &str = "\
hipmlir: an MLIR-based HIP compiler for OpenCL devices that take SPIR-V

USAGE:
  hipmlir [options] <inputs...>            build an executable (a.out unless -o)
  hipmlir -c [options] <sources...>        compile to objects that carry their device code
  hipmlir inspect <file...>                list the device images of an executable, object or .hipk
  hipcc [options] <inputs...>              the same (hipmlir installs itself as hipcc and hipconfig)

INPUTS:
  .hip .cu            HIP sources
  .cpp .cc .cxx .c    C++ sources: HIP when they hold device code (or after -x hip), else host-only
  .o .a .so           objects and libraries to link (objects built by hipmlir -c keep their kernels)

OPTIONS:
  -o <file>                  output file (`-` is stdout for --emit-mlir)
  -c                         compile only; `hipmlir a.o b.o -o app` links later
  -I <dir>, -D <name[=val]>, -U <name>
                             include folder, macro definition, undefinition (device and host code)
  -std=<std>                 language standard (default c++17)
  -O0 -O1 -O2 -O3 -Os        host optimization level (default -O2)
  -g                         host debug information
  -x <language>              hip (or cu, cuda), c++, or none: how to read the inputs that follow
  -L <dir>, -l <lib>         library folder and library for the link
  -v                         print the commands hipmlir runs
  --save-temps[=cwd|obj]     keep every stage beside the output (obj) or in the current folder:
                             <stem>.{frontend,outlined,lowered,spirv}.mlir, <stem>.spv,
                             <stem>.host.cpp, <stem>.metadata.json, <stem>.hipfb, <stem>.image.cpp
  -fgpu-rdc                  relocatable device code: device code of all objects is linked into
                             one image at the link (extern __device__ across sources)
  -fsanitize=address         device memory checker: every device load, store and atomic is
                             checked; a bad one fails the launch with hipErrorIllegalAddress.
                             The host compile and the link get the host compiler's
                             AddressSanitizer (-fno-gpu-sanitize: the host's alone)
  -Xcompiler <flags>         comma-separated flags for the host compiler
  --split-device-code        link a host-only binary and put the device images in <output>.hipk
                             beside it, found at run time (HIPMLIR_KPACK_PATH overrides the search)
  --emit-spirv               write each source's SPIR-V module (<stem>.spv unless -o)
  --emit-ptx                 write each source's PTX (<stem>.ptx unless -o) for the one sm_XX
                             architecture of --offload-arch (default sm_70)
  --genco                    write each source's device code object (<stem>.co unless -o): the
                             kernels of every target with their metadata, for hipModuleLoad
  --offload-arch=<arch,...>  device targets, repeatable: spirv64 (OpenCL devices) and NVIDIA
                             architectures sm_XX (PTX; the driver JITs it for newer GPUs).
                             Default: spirv64 and sm_70, where the PTX is left out (with a
                             warning) when the NVPTX lowering cannot build it; targets named
                             here must all build. AMD architectures (gfx...) are ignored.
  --emit-mlir=<stage>        write the MLIR of a stage: frontend, outlined, lowered or spirv, or
                             the MLIR after any pass of the device pipeline (--emit-mlir=cse):
                             the NVPTX pipeline's when only sm_XX targets are named or the pass
                             runs only there (--emit-mlir=hipmlir-lower-hip-to-nvptx)
  --function=<name>          restrict --emit-mlir and --save-temps MLIR to this kernel (mangled or
                             source name; repeatable)
  --mlir-print-ir-after-all  print the MLIR after every pass to stderr
  -ftime-report              print where the build spent its time (phases, passes)
  --list-passes              hipmlir's passes and the device pass pipeline
  --print-include-dir        print the folder holding hip/hip_runtime.h
  --print-runtime-dir        print the folder holding libhipmlir_rt.so
  -h, --help                 this text
  --version                  the version

hipcc's other device flags (-munsafe-fp-atomics, -fno-gpu-rdc, -mllvm <x>, ...) are
accepted and ignored (a note with -v). Other flags starting with `-` (-Wall, -fPIC, -pthread, -Wl,..., -MMD, -isystem <dir>, ...) go to the
host compiler, $CXX (default clang++-22, else g++; it may carry flags:
CXX=\"clang++-22 -stdlib=libc++\").
";

/// Where the device side of a compile stops: what `--emit-mlir` writes (the frontend's module,
/// or the IR after a pass of the device pipeline: the stages `outlined`, `lowered` and `spirv`
/// are the IR after named passes), or the finished binaries of a build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    /// The frontend's module, before any pass.
    Frontend,
    /// The IR after this pass of the device pipeline.
    AfterPass(String),
    /// The SPIR-V and PTX binaries.
    Binary,
}

impl Stage {
    /// A stage as `--emit-mlir=` names it (never the binary, which is no MLIR).
    fn parse(s: &str) -> Result<Self> {
        use hipmlir_dialect_passes::{is_device_pass, stage_pass};
        if s == "frontend" {
            return Ok(Stage::Frontend);
        }
        if let Some(pass) = stage_pass(s) {
            return Ok(Stage::AfterPass(pass.to_string()));
        }
        // A pass of either target's pipeline; which one runs follows the targets (device.rs).
        if is_device_pass(s) {
            return Ok(Stage::AfterPass(s.to_string()));
        }
        Err(error(format!(
            "invalid --emit-mlir stage '{s}' (expected frontend, outlined, lowered, spirv or a \
             pass of a device pipeline: hipmlir --list-passes names them)"
        )))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// HIP (device and host code).
    Hip,
    /// Host-only C++ (`-x c++`, and C sources, which hipcc does not compile as HIP).
    Cxx,
    /// Object, archive or shared library: goes to the link.
    Linkable,
}

#[derive(Debug, Clone)]
pub struct Input {
    pub path: PathBuf,
    pub kind: InputKind,
}

/// What goes on the link command, in command-line order.
#[derive(Debug, Clone)]
pub enum LinkItem {
    /// The object of `inputs[i]` (compiled, or given).
    Input(usize),
    /// `-lfoo`, `-Lbar`, `-Wl,...`, ...
    Flag(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaveTemps {
    Cwd,
    Obj,
}

#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    pub inputs: Vec<Input>,
    pub link_items: Vec<LinkItem>,
    pub output: Option<PathBuf>,
    pub compile_only: bool,
    pub emit_spirv: bool,
    /// `--emit-mlir`: the stage to write (the frontend's or a pass's, never the binary).
    pub emit_mlir: Option<Stage>,
    pub functions: Vec<String>,
    pub mlir_print_ir_after_all: bool,
    /// `-ftime-report`: where the build spent its time, on stderr.
    pub time_report: bool,
    pub include_dirs: Vec<PathBuf>,
    /// `-DX`, `-UX` in command-line order (device and host).
    pub macro_flags: Vec<String>,
    /// Extra device-parse flags also given to the host compile (`-isystem DIR`, `-include F`).
    pub shared_flags: Vec<String>,
    pub std: Option<String>,
    pub opt_level: Option<String>,
    pub debug: bool,
    pub verbose: bool,
    pub save_temps: Option<SaveTemps>,
    pub split_device_code: bool,
    /// `-fgpu-rdc`: relocatable device code, linked across sources at the link.
    pub gpu_rdc: bool,
    /// `-fsanitize=address` (without `-fno-gpu-sanitize`): the device memory checker (see the
    /// README). The host compile and the link get the flag as written, in `host_flags`.
    pub memcheck: bool,
    /// The host side has AddressSanitizer (`-fsanitize=address` in `host_flags`, not turned off
    /// again).
    pub address_sanitizer: bool,
    /// Flags for the host compile and the link (`-Wall`, `-fPIC`, `-pthread`).
    pub host_flags: Vec<String>,
    /// Flags for the host compile only (`-MMD`, `-MF x`).
    pub compile_flags: Vec<String>,
    /// The device targets (`--offload-arch=...`).
    pub offload: Offload,
    /// `--emit-ptx`: write each source's PTX instead of building.
    pub emit_ptx: bool,
    /// `--genco`: write each source's device code object (the offload bundle `hipModuleLoad`
    /// reads: SPIR-V and PTX for the targets named, with the kernels' metadata).
    pub genco: bool,
}

impl BuildOptions {
    /// Whether the build writes device code only (one output per source), with no host side.
    pub fn device_only(&self) -> bool {
        self.emit_spirv || self.emit_ptx || self.genco || self.emit_mlir.is_some()
    }
}

/// The device targets of a build: SPIR-V (OpenCL devices) and PTX for NVIDIA architectures.
///
/// The default is both, with PTX for `sm_70` (Volta, the oldest architecture current CUDA
/// drivers run; they JIT it for newer GPUs). A default build never fails for the PTX: a kernel
/// the NVPTX lowering does not cover yet, or a math function when libdevice is not installed,
/// leaves the image without PTX, with a warning (the program still runs on SPIR-V devices).
/// Targets named with `--offload-arch` are all required: their failure is the build's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offload {
    pub spirv: bool,
    /// `sm_70`, ...
    pub ptx: Vec<String>,
    /// Named on the command line (every target required) rather than the default.
    pub explicit: bool,
}

/// The PTX architecture of default builds.
pub const DEFAULT_PTX_ARCH: &str = "sm_70";

impl Default for Offload {
    fn default() -> Self {
        Offload {
            spirv: true,
            ptx: vec![DEFAULT_PTX_ARCH.to_string()],
            explicit: false,
        }
    }
}

/// Whether `arch` names an NVIDIA architecture the PTX backend knows (`sm_70`, `sm_90a`,
/// `sm_100f`): another (`sm_31`) would get PTX for no processor.
pub fn is_nvidia_arch(arch: &str) -> bool {
    hipmlir_device_image::NvidiaArch::parse(arch).is_some_and(|a| a.is_built_by_ptx_backend())
}

/// An AMD architecture as hipcc names it (`gfx90a`, `gfx1100`, `gfx90a:xnack+`), or `native`:
/// hipmlir builds no AMD code, so these are ignored (builds written for ROCm keep working).
pub fn is_amd_arch(arch: &str) -> bool {
    let name = arch.split(':').next().unwrap_or(arch);
    name == "native"
        || name
            .strip_prefix("gfx")
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// Adds the architectures of one `--offload-arch` value (a comma-separated list); the AMD ones
/// are returned to be ignored, and any other is an error naming those accepted.
pub fn add_offload_archs(offload: &mut Offload, value: &str) -> Result<Vec<String>> {
    if !offload.explicit {
        *offload = Offload {
            spirv: false,
            ptx: Vec::new(),
            explicit: true,
        };
    }
    let mut ignored = Vec::new();
    if value.split(',').all(|a| a.trim().is_empty()) {
        return Err(error(format!(
            "--offload-arch='{value}' names no architecture (accepted: spirv64 for OpenCL \
             devices, NVIDIA architectures sm_XX such as sm_70, and AMD gfx names, which are \
             ignored)"
        )));
    }
    for arch in value.split(',').map(str::trim).filter(|a| !a.is_empty()) {
        if matches!(arch, "spirv64" | "spirv" | "amdgcnspirv") {
            offload.spirv = true;
        } else if is_nvidia_arch(arch) {
            if !offload.ptx.iter().any(|a| a == arch) {
                offload.ptx.push(arch.to_string());
            }
        } else if is_amd_arch(arch) {
            ignored.push(arch.to_string());
        } else {
            return Err(error(format!(
                "unknown offload architecture '{arch}' (accepted: spirv64 for OpenCL devices, \
                 NVIDIA architectures sm_XX such as sm_70 or sm_90a, and AMD gfx names, which \
                 are ignored)"
            )));
        }
    }
    Ok(ignored)
}

#[derive(Debug)]
pub enum Command {
    Help,
    Version,
    PrintIncludeDir,
    PrintRuntimeDir,
    ListPasses,
    Inspect(Vec<PathBuf>),
    Build(Box<BuildOptions>),
}

fn error(message: impl std::fmt::Display) -> Error {
    Error::Usage(message.to_string())
}

/// Flags whose value is the next argument, passed to the host compiler (and, for the first
/// group, to the device parse as well).
const SHARED_WITH_VALUE: &[&str] = &["-isystem", "-include", "-idirafter", "-imacros", "-iquote"];
const COMPILE_WITH_VALUE: &[&str] = &["-MF", "-MT", "-MQ"];
const LINK_WITH_VALUE: &[&str] = &["-Xlinker", "-T"];

fn is_link_only(flag: &str) -> bool {
    flag.starts_with("-Wl,")
        || matches!(
            flag,
            "-shared" | "-static" | "-rdynamic" | "-pie" | "-no-pie" | "-s" | "-static-libstdc++"
        )
        || flag.starts_with("-nostdlib")
        || flag.starts_with("-fuse-ld=")
}

fn is_compile_only(flag: &str) -> bool {
    matches!(flag, "-M" | "-MM" | "-MD" | "-MMD" | "-MP")
}

/// hipcc's and clang's HIP flags that mean nothing for SPIR-V devices: accepted and ignored
/// (a note with -v), never handed to the host compiler, which would reject most of them.
const IGNORED_DEVICE_FLAGS: &[&str] = &[
    "-fno-gpu-rdc",
    "--hip-link",
    "-fhip-new-launch-api",
    "-munsafe-fp-atomics",
    "-mno-unsafe-fp-atomics",
    "-fgpu-flush-denormals-to-zero",
    "-fno-gpu-flush-denormals-to-zero",
    "-fcuda-flush-denormals-to-zero",
    "-fno-cuda-flush-denormals-to-zero",
    "-fgpu-allow-device-init",
    "-fhip-fp32-correctly-rounded-divide-sqrt",
    "-fno-hip-fp32-correctly-rounded-divide-sqrt",
    "-mcumode",
    "-mno-cumode",
    "-mwavefrontsize64",
    "-mno-wavefrontsize64",
    "-use_fast_math",
    "--use_fast_math",
    "--offload-compress",
    "--no-offload-compress",
];
/// The same, for flags with an attached value (`--offload-arch=gfx90a`).
const IGNORED_DEVICE_FLAG_PREFIXES: &[&str] = &[
    "--rocm-path=",
    "--hip-path=",
    "--hip-device-lib-path=",
    "--hip-version=",
    "-fgpu-default-stream=",
    "-fgpu-inline-threshold=",
    "-mcode-object-version=",
];

pub fn is_ignored_device_flag(flag: &str) -> bool {
    IGNORED_DEVICE_FLAGS.contains(&flag)
        || IGNORED_DEVICE_FLAG_PREFIXES
            .iter()
            .any(|p| flag.starts_with(p))
}

pub fn parse(args: &[String]) -> Result<Command> {
    if args.first().map(String::as_str) == Some("inspect") {
        let files: Vec<PathBuf> = args[1..].iter().map(PathBuf::from).collect();
        if files.is_empty() {
            return Err(error("inspect needs a file (hipmlir inspect FILE...)"));
        }
        if let Some(flag) = args[1..].iter().find(|a| a.starts_with('-')) {
            if flag == "-h" || flag == "--help" {
                return Ok(Command::Help);
            }
            return Err(error(format!("inspect takes no option '{flag}'")));
        }
        return Ok(Command::Inspect(files));
    }
    let mut o = BuildOptions::default();
    let mut language: Option<InputKind> = None;
    let mut ignored: Vec<String> = Vec::new();
    let mut address_sanitizer = false;
    let mut gpu_sanitize = true;
    let mut i = 0;
    // The value of a flag: `-Ifoo` (attached), `--flag=foo`, or the next argument.
    let value = |i: &mut usize, flag: &str, attached: &str| -> Result<String> {
        if !attached.is_empty() {
            return Ok(attached.to_string());
        }
        *i += 1;
        args.get(*i)
            .cloned()
            .ok_or_else(|| error(format!("argument to '{flag}' is missing")))
    };
    while i < args.len() {
        let arg = args[i].as_str();
        match arg {
            "-h" | "--help" | "-help" => return Ok(Command::Help),
            "--version" => return Ok(Command::Version),
            "--print-include-dir" => return Ok(Command::PrintIncludeDir),
            "--print-runtime-dir" => return Ok(Command::PrintRuntimeDir),
            "--list-passes" => return Ok(Command::ListPasses),
            "-c" => o.compile_only = true,
            "-v" => o.verbose = true,
            "-g" => o.debug = true,
            "--emit-spirv" => o.emit_spirv = true,
            "--mlir-print-ir-after-all" => o.mlir_print_ir_after_all = true,
            "-ftime-report" => o.time_report = true,
            "--split-device-code" => o.split_device_code = true,
            "-fgpu-rdc" => o.gpu_rdc = true,
            "-fno-gpu-rdc" => o.gpu_rdc = false,
            "-fgpu-sanitize" => gpu_sanitize = true,
            "-fno-gpu-sanitize" => gpu_sanitize = false,
            // Clang's sanitizer lists: the host compile and the link get them as written (the
            // host compiler's sanitizers, as hipcc passes them on); `address` also turns on the
            // device memory checker, unless -fno-gpu-sanitize.
            _ if arg.starts_with("-fsanitize=") || arg.starts_with("-fno-sanitize=") => {
                let on = arg.starts_with("-fsanitize=");
                let list = arg.split_once('=').map_or("", |x| x.1);
                if list.split(',').any(|s| s == "address") {
                    address_sanitizer = on;
                }
                o.host_flags.push(arg.to_string());
            }
            "--save-temps" | "-save-temps" => o.save_temps = Some(SaveTemps::Cwd),
            "-" => {
                return Err(error(
                    "reading a source from standard input is not supported",
                ))
            }
            _ if arg.starts_with("--save-temps=") || arg.starts_with("-save-temps=") => {
                o.save_temps = Some(match arg.split_once('=').map(|x| x.1) {
                    Some("cwd") => SaveTemps::Cwd,
                    Some("obj") => SaveTemps::Obj,
                    Some(other) => {
                        return Err(error(format!(
                            "invalid --save-temps value '{other}' (expected cwd or obj)"
                        )))
                    }
                    None => unreachable!("has ="),
                })
            }
            _ if arg == "--emit-mlir" || arg.starts_with("--emit-mlir=") => {
                let v = value(
                    &mut i,
                    "--emit-mlir",
                    arg.strip_prefix("--emit-mlir=").unwrap_or(""),
                )?;
                o.emit_mlir = Some(Stage::parse(&v)?);
            }
            _ if arg == "--function" || arg.starts_with("--function=") => {
                let v = value(
                    &mut i,
                    "--function",
                    arg.strip_prefix("--function=").unwrap_or(""),
                )?;
                if v.trim().is_empty() {
                    return Err(error("--function needs a kernel name"));
                }
                o.functions.push(v);
            }
            _ if arg == "--std" || arg.starts_with("--std=") || arg.starts_with("-std=") => {
                let attached = arg.split_once('=').map(|x| x.1).unwrap_or("");
                let v = value(&mut i, "-std", attached)?;
                if v.is_empty() {
                    return Err(error("-std= needs a standard (e.g. -std=c++17)"));
                }
                o.std = Some(v);
            }
            _ if arg.starts_with("-o") => {
                let v = value(&mut i, "-o", &arg[2..])?;
                if o.output.is_some() {
                    return Err(error("-o is given twice"));
                }
                o.output = Some(PathBuf::from(v));
            }
            _ if arg.starts_with("-I") => {
                let v = value(&mut i, "-I", &arg[2..])?;
                o.include_dirs.push(PathBuf::from(v));
            }
            _ if arg.starts_with("-D") || arg.starts_with("-U") => {
                let v = value(&mut i, &arg[..2], &arg[2..])?;
                if v.is_empty() || v.starts_with('=') {
                    return Err(error(format!("'{}' needs a macro name", &arg[..2])));
                }
                o.macro_flags.push(format!("{}{v}", &arg[..2]));
            }
            _ if arg.starts_with("-x") => {
                let v = value(&mut i, "-x", &arg[2..])?;
                language = match v.as_str() {
                    "hip" | "cu" | "cuda" => Some(InputKind::Hip),
                    "c++" => Some(InputKind::Cxx),
                    "none" => None,
                    other => {
                        return Err(error(format!(
                            "language '{other}' after -x is not supported (expected hip, cu, cuda, c++ or none)"
                        )))
                    }
                };
            }
            _ if arg.starts_with("-L") || arg.starts_with("-l") => {
                let v = value(&mut i, &arg[..2], &arg[2..])?;
                o.link_items
                    .push(LinkItem::Flag(format!("{}{v}", &arg[..2])));
            }
            _ if arg.len() >= 3 && arg.starts_with("-O") || arg == "-O" => {
                let level = &arg[2..];
                if !matches!(level, "" | "0" | "1" | "2" | "3" | "s" | "z" | "g" | "fast") {
                    return Err(error(format!(
                        "invalid optimization level '{arg}' (expected -O0, -O1, -O2, -O3 or -Os)"
                    )));
                }
                o.opt_level = Some(arg.to_string());
            }
            "--emit-ptx" => o.emit_ptx = true,
            _ if arg.starts_with("--offload-arch=")
                || arg == "--offload-arch"
                || arg.starts_with("--cuda-gpu-arch=") =>
            {
                // `--offload-arch=` with nothing after the `=` names nothing (an error below).
                let v = match arg.split_once('=') {
                    Some((_, attached)) => attached.to_string(),
                    None => value(&mut i, "--offload-arch", "")?,
                };
                for other in add_offload_archs(&mut o.offload, &v)? {
                    ignored.push(format!("--offload-arch={other}"));
                }
            }
            _ if is_ignored_device_flag(arg) => ignored.push(arg.to_string()),
            "-mllvm" => {
                let v = value(&mut i, arg, "")?;
                ignored.push(format!("-mllvm {v}"));
            }
            "--genco" | "-genco" => o.genco = true,
            _ if arg == "-Xcompiler" || arg.starts_with("-Xcompiler=") => {
                // nvcc's and hipcc's way to pass flags to the host compiler (comma-separated).
                let v = value(
                    &mut i,
                    "-Xcompiler",
                    arg.strip_prefix("-Xcompiler=").unwrap_or(""),
                )?;
                o.host_flags
                    .extend(v.split(',').filter(|f| !f.is_empty()).map(str::to_string));
            }
            _ if SHARED_WITH_VALUE.contains(&arg) => {
                let v = value(&mut i, arg, "")?;
                o.shared_flags.push(arg.to_string());
                o.shared_flags.push(v);
            }
            _ if COMPILE_WITH_VALUE.contains(&arg) => {
                let v = value(&mut i, arg, "")?;
                o.compile_flags.push(arg.to_string());
                o.compile_flags.push(v);
            }
            _ if LINK_WITH_VALUE.contains(&arg) => {
                let v = value(&mut i, arg, "")?;
                o.link_items.push(LinkItem::Flag(arg.to_string()));
                o.link_items.push(LinkItem::Flag(v));
            }
            _ if arg.starts_with("--") => {
                return Err(error(format!(
                    "unknown option '{arg}' (hipmlir --help lists the options)"
                )))
            }
            _ if arg.starts_with('-') => {
                if is_link_only(arg) {
                    o.link_items.push(LinkItem::Flag(arg.to_string()));
                } else if is_compile_only(arg) {
                    o.compile_flags.push(arg.to_string());
                } else {
                    o.host_flags.push(arg.to_string());
                }
            }
            _ => {
                let path = PathBuf::from(arg);
                let kind = match language {
                    Some(kind) => kind,
                    None => kind_by_extension(&path)?,
                };
                o.link_items.push(LinkItem::Input(o.inputs.len()));
                o.inputs.push(Input { path, kind });
            }
        }
        i += 1;
    }
    if o.verbose {
        for flag in &ignored {
            eprintln!(
                "hipmlir: note: '{flag}' ignored: hipmlir compiles device code to SPIR-V \
                 (spirv64) and PTX (sm_XX)"
            );
        }
    }
    o.address_sanitizer = address_sanitizer;
    o.memcheck = address_sanitizer && gpu_sanitize;
    // Only AMD architectures named: hipcc builds (Makefiles with --offload-arch=gfx90a) get
    // the default targets.
    if o.offload.explicit && !o.offload.spirv && o.offload.ptx.is_empty() {
        o.offload = Offload::default();
    }
    check(&o)?;
    Ok(Command::Build(Box::new(o)))
}

fn kind_by_extension(path: &Path) -> Result<InputKind> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(match ext.as_str() {
        // As hipcc does, every C++ source is HIP: its kernels may come from the headers it
        // includes. A source with no device code costs its device parse and nothing more.
        "hip" | "cu" | "cpp" | "cc" | "cxx" | "c++" | "cp" | "C" | "CPP" => InputKind::Hip,
        "c" => InputKind::Cxx,
        "o" | "a" | "so" | "lo" => InputKind::Linkable,
        _ if name.contains(".so.") => InputKind::Linkable,
        _ => {
            return Err(error(format!(
                "'{}': unknown kind of input (expected .hip, .cu, .cpp, .o, .a or .so; -x hip reads any file as HIP)",
                path.display()
            )))
        }
    })
}

/// Combinations that cannot work, refused before anything runs.
fn check(o: &BuildOptions) -> Result<()> {
    if o.inputs.is_empty() {
        return Err(error("no input files (hipmlir --help shows the usage)"));
    }
    if [o.emit_spirv, o.emit_mlir.is_some(), o.emit_ptx, o.genco]
        .iter()
        .filter(|e| **e)
        .count()
        > 1
    {
        return Err(error(
            "--emit-spirv, --emit-ptx, --emit-mlir and --genco cannot be used together",
        ));
    }
    if o.emit_ptx && o.offload.ptx.len() != 1 {
        return Err(error(format!(
            "--emit-ptx writes the PTX of one architecture: name one with --offload-arch=sm_XX \
             (named: {})",
            if o.offload.ptx.is_empty() {
                "none".to_string()
            } else {
                o.offload.ptx.join(", ")
            }
        )));
    }
    if o.emit_spirv && !o.offload.spirv {
        return Err(error(
            "--emit-spirv needs the spirv64 target (--offload-arch=spirv64)",
        ));
    }
    let emitting = o.device_only();
    if emitting && o.compile_only {
        return Err(error(
            "-c cannot be combined with --emit-spirv, --emit-mlir or --genco (they write device \
             code only)",
        ));
    }
    if emitting {
        if let Some(bad) = o.inputs.iter().find(|i| i.kind == InputKind::Linkable) {
            return Err(error(format!(
                "'{}': --emit-spirv, --emit-mlir and --genco take HIP sources, not objects",
                bad.path.display()
            )));
        }
    }
    if !o.functions.is_empty() && o.emit_mlir.is_none() && o.save_temps.is_none() {
        return Err(error(
            "--function restricts the MLIR of --emit-mlir and --save-temps; give one of them",
        ));
    }
    let sources = o
        .inputs
        .iter()
        .filter(|i| i.kind != InputKind::Linkable)
        .count();
    if (o.compile_only || o.emit_spirv || o.emit_ptx || o.genco)
        && sources > 1
        && o.output.is_some()
    {
        return Err(error(
            "cannot specify -o when generating multiple output files (one per source)",
        ));
    }
    if o.compile_only && sources == 0 {
        return Err(error(
            "-c needs a source to compile; objects are linked without -c",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(args: &[&str]) -> BuildOptions {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        match parse(&args).unwrap() {
            Command::Build(o) => *o,
            other => panic!("{other:?}"),
        }
    }

    fn err(args: &[&str]) -> String {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        parse(&args).unwrap_err().to_string()
    }

    #[test]
    fn hipcc_style_flags() {
        let o = build(&[
            "-c",
            "-O3",
            "-g",
            "-Iinc",
            "-I",
            "inc2",
            "-DN=4",
            "-D",
            "M",
            "-UDEBUG",
            "-std=c++20",
            "-Wall",
            "-fPIC",
            "-MMD",
            "a.hip",
            "-o",
            "a.o",
        ]);
        assert!(o.compile_only && o.debug);
        assert_eq!(o.opt_level.as_deref(), Some("-O3"));
        assert_eq!(
            o.include_dirs,
            vec![PathBuf::from("inc"), PathBuf::from("inc2")]
        );
        assert_eq!(o.macro_flags, vec!["-DN=4", "-DM", "-UDEBUG"]);
        assert_eq!(o.std.as_deref(), Some("c++20"));
        assert_eq!(o.host_flags, vec!["-Wall", "-fPIC"]);
        assert_eq!(o.compile_flags, vec!["-MMD"]);
        assert_eq!(o.output, Some(PathBuf::from("a.o")));
        assert_eq!(o.inputs[0].kind, InputKind::Hip);
    }

    #[test]
    fn sanitizer_flags_reach_the_host_and_the_device_checker() {
        let o = build(&["-fsanitize=address", "a.hip"]);
        assert!(o.memcheck && o.address_sanitizer);
        assert_eq!(o.host_flags, vec!["-fsanitize=address"]);
        // A list naming address, then turned off again: the last word wins, as with clang.
        let o = build(&[
            "-fsanitize=undefined,address",
            "-fno-sanitize=address",
            "a.hip",
        ]);
        assert!(!o.memcheck);
        assert_eq!(
            o.host_flags,
            vec!["-fsanitize=undefined,address", "-fno-sanitize=address"]
        );
        // The host's sanitizer alone.
        let o = build(&["-fsanitize=address", "-fno-gpu-sanitize", "a.hip"]);
        assert!(!o.memcheck && o.address_sanitizer);
        assert_eq!(o.host_flags, vec!["-fsanitize=address"]);
        let o = build(&["-fsanitize=undefined", "a.hip"]);
        assert!(!o.memcheck);
    }

    #[test]
    fn inputs_languages_and_link_order() {
        let o = build(&[
            "x.cpp", "-x", "hip", "y.cpp", "-x", "none", "z.cu", "a.o", "-lm", "-L/l",
        ]);
        let kinds: Vec<_> = o.inputs.iter().map(|i| i.kind).collect();
        assert_eq!(
            kinds,
            vec![
                InputKind::Hip,
                InputKind::Hip,
                InputKind::Hip,
                InputKind::Linkable
            ]
        );
        assert_eq!(o.link_items.len(), 6);
        assert!(matches!(&o.link_items[4], LinkItem::Flag(f) if f == "-lm"));
        assert!(matches!(&o.link_items[5], LinkItem::Flag(f) if f == "-L/l"));
    }

    #[test]
    fn bad_command_lines_are_errors() {
        assert!(err(&[]).contains("no input files"));
        assert!(err(&["--bogus", "a.hip"]).contains("unknown option '--bogus'"));
        assert!(err(&["a.txt"]).contains("unknown kind of input"));
        assert!(err(&["-o"]).contains("argument to '-o' is missing"));
        assert!(err(&["a.hip", "-O7"]).contains("invalid optimization level"));
        assert!(err(&["--emit-mlir=bogus", "a.hip"]).contains("invalid --emit-mlir stage"));
        assert!(err(&["-c", "a.hip", "b.hip", "-o", "x.o"]).contains("multiple output files"));
        assert!(err(&["--function=k", "a.hip"]).contains("--function"));
        assert!(err(&["-x", "fortran", "a.f"]).contains("not supported"));
        assert!(err(&["inspect"]).contains("needs a file"));
        for bogus in ["bogus", "sm_xx", "sm_7", "sm_31", "gfx"] {
            let e = err(&["a.hip", &format!("--offload-arch={bogus}")]);
            assert!(
                e.contains(&format!("unknown offload architecture '{bogus}'"))
                    && e.contains("sm_XX"),
                "{e}"
            );
        }
        for empty in ["", ",", " , "] {
            let e = err(&["a.hip", &format!("--offload-arch={empty}")]);
            assert!(e.contains("names no architecture"), "{e}");
        }
    }

    #[test]
    fn amd_architectures_are_ignored() {
        for amd in ["gfx90a", "gfx1100", "gfx90a:xnack+", "native"] {
            let o = build(&["a.hip", &format!("--offload-arch={amd}")]);
            assert!(o.offload.spirv, "{amd}: the default targets");
        }
        let o = build(&["a.hip", "--offload-arch=gfx942,sm_90"]);
        assert!(!o.offload.spirv && o.offload.ptx == vec!["sm_90".to_string()]);
    }

    #[test]
    fn subcommands_and_prints() {
        let s = |v: &[&str]| parse(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
        assert!(matches!(s(&["inspect", "app"]), Command::Inspect(f) if f.len() == 1));
        assert!(matches!(
            s(&["--print-include-dir"]),
            Command::PrintIncludeDir
        ));
        assert!(matches!(s(&["--version"]), Command::Version));
        assert!(matches!(s(&["-h"]), Command::Help));
    }
}
