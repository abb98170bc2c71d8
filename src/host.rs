//! The host side of a build: host compiles with `$CXX`, the image stub that embeds a device image
//! in `.hip_fatbin` and registers it at start-up, `ld -r` into one object, the link, and the
//! objcopy steps (clang-offload-bundler sections, split device code).

use std::path::{Path, PathBuf};
use std::process::Command;

use hipmlir_device_image::device_ir::{DeviceIr, DEVICE_IR_SECTION};
use hipmlir_device_image::{Bundle, DeviceImage, FatImage, GlobalVar, KernelInfo, HOST_ENTRY_ID};

use crate::cli::{BuildOptions, LinkItem};
use crate::elf::Elf;
use crate::host_pch::PchKind;
use crate::paths::Toolchain;
use hipmlir_frontend::preamble::{Preamble, QuotedIncludes};

/// Prefix of the sections clang-offload-bundler reads in an object file (`-type=o`).
pub const BUNDLER_SECTION_PREFIX: &str = "__CLANG_OFFLOAD_BUNDLE__";
/// Sections of an image stub, removed from an object when its device code is split out.
const STUB_TEXT: &str = ".text.hipmlir_register";
const STUB_RODATA: &str = ".rodata.hipmlir_register";
/// The stub's constructor goes in its own init_array section (priority 65500) so that it can be
/// removed with the stub; the linker sorts `.init_array.*` into `.init_array`.
const STUB_INIT: &str = ".init_array.65500";
pub const FATBIN_SECTION: &str = ".hip_fatbin";

pub fn io_err(what: &str, e: std::io::Error) -> String {
    format!("hipmlir: error: {what}: {e}")
}

/// The host compiler when `$CXX` names none, the first found on `$PATH`: clang 22, the
/// compiler hipcc's host code is written for and the one that parses the device side (so both
/// sides agree on the language and on mangled names), and whose precompiled headers load in a
/// fraction of GCC's time; else GCC.
const DEFAULT_HOST_COMPILERS: [&str; 2] = ["clang++-22", "g++"];

/// `$CXX` split into the program and the flags it carries.
pub struct HostCompiler {
    pub program: String,
    pub flags: Vec<String>,
    /// Named by `$CXX` (else one of [`DEFAULT_HOST_COMPILERS`], which adds no folders of its
    /// own to a compile's search: see [`HostCompiler::search_flags`]).
    from_cxx: bool,
}

impl HostCompiler {
    pub fn from_env() -> Self {
        let cxx = std::env::var("CXX").unwrap_or_default();
        let mut words = cxx.split_whitespace().map(str::to_string);
        match words.next() {
            // Builds that call hipmlir as hipcc often export CXX=hipcc: hipmlir's own host
            // compiler is then the default one, not hipmlir again (which would call itself
            // for ever).
            Some(program) if !is_this_program(&program) => HostCompiler {
                program,
                flags: words.collect(),
                from_cxx: true,
            },
            _ => HostCompiler {
                program: DEFAULT_HOST_COMPILERS
                    .into_iter()
                    .find(|c| on_path(c))
                    .unwrap_or("g++")
                    .into(),
                flags: Vec::new(),
                from_cxx: false,
            },
        }
    }

    pub fn command(&self) -> Command {
        let mut c = Command::new(&self.program);
        c.args(&self.flags);
        c
    }

    /// The include folders this compiler adds to every compile on its own, as `-I`/`-iquote`
    /// flags: a compiler wrapper's (`CXX=mpicxx` adds the MPI library's headers), or `-I`
    /// flags written into `$CXX`. The device parse of a source must find the headers the host
    /// compile finds. Read from the compiler's own report of its search list (`-v`), with its
    /// standard folders left out (`-nostdinc -nostdinc++`), as GCC and clang write it.
    pub fn search_flags(&self) -> Vec<String> {
        if !self.from_cxx {
            return Vec::new();
        }
        let mut cmd = self.command();
        cmd.args(["-x", "c++", "-E", "-v", "-nostdinc", "-nostdinc++"])
            .args(["-o", "/dev/null", "/dev/null"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null());
        match cmd.output() {
            Ok(out) => search_list_flags(&String::from_utf8_lossy(&out.stderr)),
            Err(_) => Vec::new(),
        }
    }

    /// The compiler's file as found on `$PATH` (resolved), its size and modification time:
    /// what changes when the compiler is upgraded under the same name, for cache keys.
    pub fn identity(&self) -> String {
        let Some(file) = resolve_program(&self.program) else {
            return String::new();
        };
        let stamp = hipmlir_device_image::stamp(&file).unwrap_or_default();
        format!("{} {stamp}", file.display())
    }
}

/// The folders of a GCC or clang `-v` report's search lists (`#include "..." search starts
/// here:`, then `#include <...> ...`, each folder on a line that begins with a space, ended by
/// `End of search list.`) as `-iquote DIR` and `-I DIR` flags. Framework folders (clang on
/// macOS) are not include folders.
fn search_list_flags(report: &str) -> Vec<String> {
    let mut flags = Vec::new();
    let mut list = None;
    for line in report.lines() {
        if line.starts_with("#include \"...\" search starts here") {
            list = Some("-iquote");
        } else if line.starts_with("#include <...> search starts here") {
            list = Some("-I");
        } else if line.starts_with("End of search list") {
            list = None;
        } else if let (Some(flag), Some(dir)) = (list, line.strip_prefix(' ')) {
            if !dir.ends_with("(framework directory)") {
                flags.push(format!("{flag}{}", dir.trim()));
            }
        }
    }
    flags
}

/// The file `program` (a path, or a name looked up in `$PATH`) runs, links resolved.
fn resolve_program(program: &str) -> Option<PathBuf> {
    let found = if program.contains('/') {
        Some(PathBuf::from(program))
    } else {
        std::env::split_paths(&std::env::var_os("PATH")?)
            .map(|dir| dir.join(program))
            .find(|c| c.is_file())
    };
    found?.canonicalize().ok()
}

/// Whether `program` (a path, or a name looked up in PATH) is this hipmlir executable, under
/// any of its names (hipcc, hipconfig links).
fn is_this_program(program: &str) -> bool {
    let Ok(this) = std::env::current_exe().and_then(|p| p.canonicalize()) else {
        return false;
    };
    // The `hipmlir` launcher beside this compiler is this program too.
    let launcher = this.with_file_name("hipmlir");
    resolve_program(program).is_some_and(|p| p == this || p == launcher)
}

/// Runs a command; a failure names the tool. Its own messages went to stderr already.
pub fn run(mut cmd: Command, verbose: bool, what: &str) -> Result<(), String> {
    if verbose {
        eprintln!("{}", show(&cmd));
    }
    let program = cmd.get_program().to_string_lossy().into_owned();
    let status = cmd
        .status()
        .map_err(|e| format!("hipmlir: error: cannot run {what} '{program}': {e}"))?;
    if !status.success() {
        return Err(format!(
            "hipmlir: error: {what} '{program}' failed ({status})"
        ));
    }
    Ok(())
}

/// Runs a host compile that pre-includes `header`, whose PCH lies beside it. Clang refuses a
/// PCH it cannot use (damaged, or made by another build of the compiler), naming it in its
/// errors: then the PCH's cache folder `entry` is removed and `Ok(true)` says to compile again
/// without it. GCC ignores such a PCH itself, so its compile runs as any other.
fn run_with_pch(
    mut cmd: Command,
    header: &Path,
    entry: &Path,
    verbose: bool,
) -> Result<bool, String> {
    use std::io::{IsTerminal, Write};
    let Some((PchKind::Clang, pch)) = PchKind::beside(header) else {
        run(cmd, verbose, "the host compiler")?;
        return Ok(false);
    };
    if verbose {
        eprintln!("{}", show(&cmd));
    }
    // Its messages are held back until it is known whether they are about the PCH; in colour
    // still where they would have been.
    if std::io::stderr().is_terminal() {
        cmd.arg("-fcolor-diagnostics");
    }
    let program = cmd.get_program().to_string_lossy().into_owned();
    let out = cmd
        .stderr(std::process::Stdio::piped())
        .output()
        .map_err(|e| format!("hipmlir: error: cannot run the host compiler '{program}': {e}"))?;
    let messages = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && messages.contains(&*pch.to_string_lossy()) {
        if verbose {
            eprintln!(
                "hipmlir: note: the host compiler refused {}; compiling without it:\n{messages}",
                pch.display()
            );
        }
        let _ = std::fs::remove_dir_all(entry);
        return Ok(true);
    }
    let _ = std::io::stderr().write_all(&out.stderr);
    if !out.status.success() {
        return Err(format!(
            "hipmlir: error: the host compiler '{program}' failed ({})",
            out.status
        ));
    }
    Ok(false)
}

fn show(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        let a = a.to_string_lossy();
        if a.contains(' ') || a.is_empty() {
            s.push_str(&format!(" \"{a}\""));
        } else {
            s.push(' ');
            s.push_str(&a);
        }
    }
    s
}

/// The flags of every host compile: standard, optimization, headers, macros, user flags.
fn compile_flags(
    opts: &BuildOptions,
    toolchain: &Toolchain,
    source_dir: Option<&Path>,
) -> Vec<String> {
    let mut f = vec![
        format!("-std={}", opts.std.as_deref().unwrap_or("c++17")),
        opts.opt_level.clone().unwrap_or_else(|| "-O2".into()),
    ];
    if opts.debug {
        f.push("-g".into());
    }
    f.push(format!("-I{}", toolchain.include_dir.display()));
    if let Some(dir) = source_dir {
        f.push("-iquote".into());
        f.push(dir.display().to_string());
    }
    f.extend(
        opts.include_dirs
            .iter()
            .map(|d| format!("-I{}", d.display())),
    );
    f.extend(opts.macro_flags.iter().cloned());
    f.extend(opts.shared_flags.iter().cloned());
    f.extend(opts.host_flags.iter().cloned());
    f
}

/// The flags of a HIP source's host compile: every kernel there has a host stub that launches
/// itself, which hipLaunchKernelGGL then calls (hipmlir_launch.h).
fn hip_compile_flags(
    opts: &BuildOptions,
    toolchain: &Toolchain,
    source_dir: Option<&Path>,
) -> Vec<String> {
    let mut f = compile_flags(opts, toolchain, source_dir);
    f.push("-D__HIPMLIR_KERNEL_STUBS__".into());
    f
}

/// Dependency-file flags (`-MMD`, `-MD`) are given the final object's name, so the `.d` file
/// lands beside it (not in hipmlir's temporary folder).
/// The dependency file `-MMD`/`-MD` write for `object` (`-MF` names it, else `<object>.d`).
pub fn dependency_file(opts: &BuildOptions, object: &Path) -> Option<PathBuf> {
    let f = &opts.compile_flags;
    if !f.iter().any(|x| x == "-MMD" || x == "-MD") {
        return None;
    }
    Some(match f.iter().position(|x| x == "-MF") {
        Some(i) => PathBuf::from(f.get(i + 1)?),
        None => object.with_extension("d"),
    })
}

fn dependency_flags(opts: &BuildOptions, object: &Path) -> (Vec<String>, Option<PathBuf>) {
    let mut f = opts.compile_flags.clone();
    let Some(dep) = dependency_file(opts, object) else {
        return (f, None);
    };
    if !f.iter().any(|x| x == "-MF") {
        f.push("-MF".into());
        f.push(dep.display().to_string());
    }
    if !f.iter().any(|x| x == "-MT" || x == "-MQ") {
        f.push("-MT".into());
        f.push(object.display().to_string());
    }
    (f, Some(dep))
}

/// Compiles a host-only C++ source to an object.
pub fn compile_cxx(
    opts: &BuildOptions,
    toolchain: &Toolchain,
    source: &Path,
    object: &Path,
) -> Result<(), String> {
    let cxx = HostCompiler::from_env();
    let mut cmd = cxx.command();
    cmd.args(compile_flags(opts, toolchain, None));
    cmd.args(dependency_flags(opts, object).0);
    cmd.arg("-c").arg(source).arg("-o").arg(object);
    run(cmd, opts.verbose, "the host compiler")
}

/// The files a HIP source's host side is made of (kept by --save-temps).
pub struct HostFiles {
    pub host_source: PathBuf,
    /// Edited copies of user headers with device code (see host_overlay).
    pub overlay_dir: PathBuf,
    pub host_object: PathBuf,
    pub bundle: PathBuf,
    pub spirv: PathBuf,
    pub metadata: PathBuf,
    pub stub_source: PathBuf,
    pub stub_object: PathBuf,
    pub device_ir: PathBuf,
}

impl HostFiles {
    pub fn new(dir: &Path, stem: &str) -> Self {
        let stem = crate::outputs::bounded_stem(stem);
        let f = |ext: &str| dir.join(format!("{stem}.{ext}"));
        HostFiles {
            host_source: f("host.cpp"),
            overlay_dir: f("host-headers"),
            host_object: f("host.o"),
            bundle: f("hipfb"),
            spirv: f("spv"),
            metadata: f("metadata.json"),
            stub_source: f("image.cpp"),
            stub_object: f("image.o"),
            device_ir: f("device-ir"),
        }
    }

    /// The PTX text for one architecture (`<stem>.sm_70.ptx`), beside the SPIR-V.
    pub fn ptx(&self, arch: &str) -> PathBuf {
        self.spirv.with_extension(format!("{arch}.ptx"))
    }
}

/// Compiles a HIP source's host side (device bodies dropped, launches rewritten) into
/// `files.host_object`.
pub fn compile_host_source(
    opts: &BuildOptions,
    toolchain: &Toolchain,
    source: &Path,
    host_text: &[u8],
    files: &HostFiles,
    object: &Path,
) -> Result<(), String> {
    let source_abs = source.canonicalize().unwrap_or(source.to_path_buf());
    let cxx = HostCompiler::from_env();
    let (dep_flags, dep_file) = dependency_flags(opts, object);
    let pch_flags = hip_compile_flags(opts, toolchain, None);
    // The folders a quoted include is looked for in after the source's (its -I folders, in
    // order; compile_flags puts hipmlir's first). A -iquote of the user's would come before
    // them: then the preamble does not resolve quoted includes.
    let search_dirs: Vec<PathBuf> = std::iter::once(toolchain.include_dir.clone())
        .chain(opts.include_dirs.iter().cloned())
        .collect();
    let user_quote_dirs = opts
        .shared_flags
        .iter()
        .chain(&opts.host_flags)
        .any(|f| f.starts_with("-iquote") || f == "-I-");
    let quoted_includes = match source_abs.parent() {
        Some(source_dir) if !user_quote_dirs => QuotedIncludes::Resolve {
            source_dir,
            search_dirs: &search_dirs,
            except_under: Some(&files.overlay_dir),
        },
        _ => QuotedIncludes::End,
    };
    // Not where the user asked for a dependency file: it would name the preamble's copy.
    let preamble = dep_file.is_none().then(|| {
        crate::host_preamble::find_or_make(
            &cxx,
            &pch_flags,
            host_text,
            &opts.include_dirs,
            &toolchain.include_dir,
            quoted_includes,
            opts.verbose,
        )
    });
    let preamble = preamble.flatten();
    // The host source keeps the user's line numbers and file name in diagnostics; with a
    // preamble, its lines are blanked (the PCH holds them).
    let write_source = |preamble: Option<&Preamble>| {
        let blanked = preamble.map(|p| p.blanked(host_text));
        let text = [
            format!("#line 1 \"{}\"\n", escape_c(&source_abs.to_string_lossy())).as_bytes(),
            blanked.as_deref().unwrap_or(host_text),
        ]
        .concat();
        std::fs::write(&files.host_source, text)
            .map_err(|e| io_err("cannot write the host source", e))
    };
    write_source(preamble.as_ref().map(|p| &p.preamble))?;
    // The header the compile pre-includes, with a PCH beside it: the preamble, else the prefix
    // header's folder of links.
    let precompiled = match &preamble {
        Some(p) => Some(p.header.clone()),
        None => {
            crate::host_pch::prefix_header(&cxx, &pch_flags, &toolchain.include_dir, opts.verbose)
        }
    };
    let pch_dir = precompiled
        .as_deref()
        .filter(|_| preamble.is_none())
        .and_then(crate::host_pch::include_dir_of)
        .map(Path::to_path_buf);
    let command = |precompiled: Option<&Path>| {
        let mut cmd = cxx.command();
        if let (Some(dir), Some(_)) = (&pch_dir, precompiled) {
            cmd.arg(format!("-I{}", dir.display()));
        }
        cmd.args(hip_compile_flags(opts, toolchain, source_abs.parent()));
        // As clang does for HIP, the runtime header comes first (a .cu file may not include
        // it); a precompiled preamble begins with it.
        cmd.arg("-include")
            .arg(precompiled.unwrap_or("hip/hip_runtime.h".as_ref()));
        cmd.args(&dep_flags);
        cmd.arg("-c")
            .arg(&files.host_source)
            .arg("-o")
            .arg(&files.host_object);
        cmd
    };
    match precompiled.as_deref() {
        Some(header) => {
            // The preamble's folder, or the prefix header's.
            let entry = pch_dir.as_deref().or(header.parent()).unwrap_or(header);
            let refused = run_with_pch(command(Some(header)), header, entry, opts.verbose)?;
            if refused {
                if preamble.is_some() {
                    write_source(None)?;
                }
                run(command(None), opts.verbose, "the host compiler")?;
            }
        }
        None => run(command(None), opts.verbose, "the host compiler")?,
    }
    if let Some(dep) = dep_file {
        // The dependency file names the temporary host source; name the user's file instead.
        // (A refused PCH's folder is gone, so its links are not named.)
        if let Ok(text) = std::fs::read_to_string(&dep) {
            // Copies of headers are named by their originals' absolute paths under the overlay.
            let mut fixed = text
                .replace(
                    &files.host_source.display().to_string(),
                    &source.display().to_string(),
                )
                .replace(&files.overlay_dir.display().to_string(), "");
            // The precompiled header's links stand for hipmlir's headers.
            if let Some(dir) = &pch_dir {
                fixed = fixed.replace(
                    &dir.display().to_string(),
                    &toolchain.include_dir.display().to_string(),
                );
            }
            let _ = std::fs::write(&dep, fixed);
        }
    }
    Ok(())
}

/// The kernel template instances the host object needs beyond those `compiled`: host stubs the
/// host compile emitted for instances of `templates` (qualified names), as C++ template-ids
/// (`scale<float, 100>`) for the frontend to compile.
pub fn needed_kernel_instances(
    host_object: &Path,
    templates: &[String],
    compiled: &[KernelInfo],
) -> Result<Vec<String>, String> {
    let bytes = std::fs::read(host_object)
        .map_err(|e| io_err(&format!("cannot read '{}'", host_object.display()), e))?;
    let elf = Elf::parse(&bytes).map_err(|e| format!("hipmlir: error: the host object: {e}"))?;
    let options = cpp_demangle::DemangleOptions::new()
        .no_params()
        .no_return_type();
    let mut out = Vec::new();
    for symbol in elf.defined_symbols() {
        if compiled.iter().any(|k| k.name == symbol) {
            continue;
        }
        let Ok(parsed) = cpp_demangle::Symbol::new(symbol.as_bytes()) else {
            continue;
        };
        let Ok(template_id) = parsed.demangle_with_options(&options) else {
            continue;
        };
        // `ns::scale<float, 100>`: the template is what precedes the final argument list.
        let Some(template) = template_id
            .strip_suffix('>')
            .and_then(|_| template_id.find('<'))
            .map(|at| &template_id[..at])
        else {
            continue;
        };
        // An instance for a lambda's closure type cannot be named in source; the frontend finds
        // those in the host templates' instances it walks.
        let unnamable = ["{lambda", "'lambda'", "{unnamed", "(anonymous", "$_"]
            .iter()
            .any(|m| template_id.contains(m));
        if templates.iter().any(|t| t == template) && !out.contains(&template_id) && !unnamable {
            out.push(template_id);
        }
    }
    Ok(out)
}

/// Combines the host object with the stub that embeds and registers the device image (made by
/// [`image_object`]; `has_stub` is what it answered) into `object` (`ld -r`).
pub fn embed_image(
    opts: &BuildOptions,
    has_stub: bool,
    files: &HostFiles,
    object: &Path,
) -> Result<(), String> {
    if !has_stub {
        // No kernels: nothing to register; the object is the host object.
        std::fs::copy(&files.host_object, object)
            .map_err(|e| io_err(&format!("cannot write '{}'", object.display()), e))?;
        return Ok(());
    }
    combine(opts, &files.host_object, &files.stub_object, object)
}

/// Writes the stub that embeds and registers a device image and compiles it into
/// `files.stub_object`; false (and nothing written) when the image has no kernels.
pub fn image_object(
    opts: &BuildOptions,
    stem: &str,
    image: &FatImage,
    files: &HostFiles,
) -> Result<bool, String> {
    if image.metadata.kernels.is_empty() {
        return Ok(false);
    }
    let bundle = image.to_bundle_bytes();
    std::fs::write(&files.bundle, &bundle)
        .map_err(|e| io_err("cannot write the device image", e))?;
    std::fs::write(&files.spirv, &image.spirv).map_err(|e| io_err("cannot write the SPIR-V", e))?;
    std::fs::write(&files.metadata, image.metadata.to_json())
        .map_err(|e| io_err("cannot write the metadata", e))?;
    // Each architecture's PTX text (`<stem>.<arch>.ptx`, kept by --save-temps), without the NUL
    // its bundle entry ends with (the stub adds it back).
    let mut ptx_files = Vec::new();
    for p in &image.ptx {
        let path = files.ptx(&p.arch);
        std::fs::write(&path, p.ptx.strip_suffix(&[0]).unwrap_or(&p.ptx))
            .map_err(|e| io_err("cannot write the PTX", e))?;
        ptx_files.push((p.entry_id(), path));
    }
    let id = format!(
        "{}_{:08x}",
        sanitize(stem),
        hipmlir_device_image::kpack::fnv1a64(&bundle) as u32
    );
    std::fs::write(
        &files.stub_source,
        image_stub(
            &id,
            stem,
            files,
            &ptx_files,
            &image.metadata.kernels,
            &image.metadata.globals,
        ),
    )
    .map_err(|e| io_err("cannot write the image stub", e))?;
    compile_stub(&files.stub_source, &files.stub_object, opts.verbose)?;
    Ok(true)
}

/// `-fgpu-rdc`: the host object with the translation unit's device code as MLIR in
/// `DEVICE_IR_SECTION`, for the link to put together with the other sources' (`ld -r`).
pub fn embed_device_ir(
    opts: &BuildOptions,
    ir: &DeviceIr,
    files: &HostFiles,
    object: &Path,
) -> Result<(), String> {
    std::fs::write(&files.device_ir, ir.encode())
        .map_err(|e| io_err("cannot write the device code", e))?;
    let inc = |p: &Path| escape_c(&escape_c(&p.to_string_lossy()));
    let stub = format!(
        r#"// Generated by hipmlir: the device code of {source}, linked at the program's link.
__asm__(".pushsection {DEVICE_IR_SECTION},\"e\",@progbits\n"
        ".p2align 3\n"
        ".incbin \"{path}\"\n"
        ".popsection\n");
"#,
        source = ir.source.replace(['\n', '\r'], " "),
        path = inc(&files.device_ir),
    );
    std::fs::write(&files.stub_source, stub)
        .map_err(|e| io_err("cannot write the device code stub", e))?;
    compile_stub(&files.stub_source, &files.stub_object, opts.verbose)?;
    combine(opts, &files.host_object, &files.stub_object, object)
}

/// `ld -r host stub -o object`.
fn combine(opts: &BuildOptions, host: &Path, stub: &Path, object: &Path) -> Result<(), String> {
    let mut ld = Command::new("ld");
    ld.arg("-r").arg(host).arg(stub).arg("-o").arg(object);
    run(ld, opts.verbose, "the linker")
}

/// Compiles a generated stub: position-independent, no debug information and no unwind tables,
/// so that everything it adds lives in the sections named above.
fn compile_stub(source: &Path, object: &Path, verbose: bool) -> Result<(), String> {
    let cxx = HostCompiler::from_env();
    let mut cmd = cxx.command();
    cmd.args([
        "-x",
        "c++",
        "-std=c++17",
        "-O1",
        "-g0",
        "-fPIC",
        "-fno-exceptions",
        "-fno-asynchronous-unwind-tables",
        "-fno-unwind-tables",
        "-c",
    ]);
    cmd.arg(source).arg("-o").arg(object);
    run(cmd, verbose, "the host compiler (image stub)")
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

fn weak_stubs(id: &str, kernels: &[String]) -> (String, String) {
    let mut decls = String::new();
    let mut calls = String::new();
    for (i, name) in kernels.iter().enumerate() {
        decls.push_str(&format!(
            "extern \"C\" void __hipmlir_stub_{id}_{i}() __asm__(\"{name}\") __attribute__((weak));\n\
             static const char __hipmlir_name_{id}_{i}[] __attribute__((section(\"{STUB_RODATA}\"))) = \"{name}\";\n"
        ));
        calls.push_str(&format!(
            "  if (&__hipmlir_stub_{id}_{i}) __hipmlirRegisterFunction(reinterpret_cast<const void*>(&__hipmlir_stub_{id}_{i}), __hipmlir_name_{id}_{i});\n"
        ));
    }
    (decls, calls)
}

/// Registers the host shadow of every device variable with an external one (`__device__ int
/// counter;` with -fgpu-rdc is also a host global under the same symbol), found by a weak
/// reference as kernels' stubs are, with the runtime's symbol API. Shadows internal to their
/// source (`GlobalVar::unit`) are registered by the source itself.
fn variable_registrations(id: &str, globals: &[GlobalVar]) -> (String, String) {
    let mut decls = String::new();
    let mut calls = String::new();
    let globals: Vec<&GlobalVar> = globals.iter().filter(|g| g.unit.is_none()).collect();
    if !globals.is_empty() {
        decls.push_str(
            "extern \"C\" void __hipmlirRegisterVar(const void* host_shadow, const char* name, size_t size) __attribute__((weak));\n",
        );
    }
    for (i, g) in globals.iter().enumerate() {
        decls.push_str(&format!(
            "extern \"C\" char __hipmlir_var_{id}_{i} __asm__(\"{name}\") __attribute__((weak));\n",
            name = g.name
        ));
        calls.push_str(&format!(
            "  if (&__hipmlir_var_{id}_{i} && __hipmlirRegisterVar) __hipmlirRegisterVar(&__hipmlir_var_{id}_{i}, \"{name}\", {size});\n",
            name = g.name,
            size = g.size
        ));
    }
    (decls, calls)
}

/// A C++ translation unit that embeds a device image in `.hip_fatbin`, adds the entries
/// clang-offload-bundler reads from objects (excluded from links, as clang's), and registers the
/// image and the host stub of every kernel at start-up: the host compile gives each kernel a
/// stub under the kernel's mangled name, which a weak reference finds without spelling the kernel
/// in C++ (templates included); stubs the program never instantiated stay null.
fn image_stub(
    id: &str,
    stem: &str,
    files: &HostFiles,
    ptx_files: &[(String, PathBuf)],
    kernels: &[KernelInfo],
    globals: &[GlobalVar],
) -> String {
    let names: Vec<String> = kernels.iter().map(|k| k.name.clone()).collect();
    let (mut decls, mut calls) = weak_stubs(id, &names);
    let (var_decls, var_calls) = variable_registrations(id, globals);
    decls.push_str(&var_decls);
    calls.push_str(&var_calls);
    let inc = |p: &Path| escape_c(&escape_c(&p.to_string_lossy()));
    // One C string literal per line of assembly, as the format below writes them.
    let asm_line = |line: &str| format!("        \"{}\\n\"\n", escape_c(line));
    let ptx_sections: String = ptx_files
        .iter()
        .map(|(entry_id, path)| {
            [
                asm_line(&format!(
                    ".pushsection \"{BUNDLER_SECTION_PREFIX}{entry_id}\",\"e\",@progbits"
                )),
                asm_line(&format!(
                    ".incbin \"{}\"",
                    escape_c(&path.to_string_lossy())
                )),
                asm_line(".byte 0"),
                asm_line(".popsection"),
            ]
            .concat()
        })
        .collect();
    format!(
        r#"// Generated by hipmlir: the device image of {stem}, registered with the runtime at start-up.
#include <stddef.h>
extern "C" void __hipmlirRegisterImage(const unsigned char* bundle, size_t size);
extern "C" void __hipmlirRegisterFunction(const void* host_function, const char* kernel_name);
{decls}__asm__(".pushsection {FATBIN_SECTION},\"a\",@progbits\n"
        ".p2align 4\n"
        "__hipmlir_image_{id}_begin:\n"
        ".incbin \"{bundle}\"\n"
        "__hipmlir_image_{id}_end:\n"
        ".popsection\n"
        ".pushsection \"{BUNDLER_SECTION_PREFIX}{host}\",\"e\",@progbits\n"
        ".byte 0\n"
        ".popsection\n"
        ".pushsection \"{BUNDLER_SECTION_PREFIX}{spirv_id}\",\"e\",@progbits\n"
        ".incbin \"{spirv}\"\n"
        ".popsection\n"
        ".pushsection \"{BUNDLER_SECTION_PREFIX}{meta_id}\",\"e\",@progbits\n"
        ".incbin \"{meta}\"\n"
        ".popsection\n"
{ptx_sections}        ".pushsection {STUB_INIT},\"aw\",@init_array\n"
        ".p2align 3\n"
        ".quad __hipmlir_register_{id}\n"
        ".popsection\n");
extern "C" const unsigned char __hipmlir_image_{id}_begin[];
extern "C" const unsigned char __hipmlir_image_{id}_end[];
extern "C" __attribute__((used, visibility("hidden"), section("{STUB_TEXT}"))) void __hipmlir_register_{id}() {{
  __hipmlirRegisterImage(__hipmlir_image_{id}_begin,
                         static_cast<size_t>(__hipmlir_image_{id}_end - __hipmlir_image_{id}_begin));
{calls}}}
"#,
        bundle = inc(&files.bundle),
        spirv = inc(&files.spirv),
        meta = inc(&files.metadata),
        host = HOST_ENTRY_ID,
        spirv_id = hipmlir_device_image::SPIRV_ENTRY_ID,
        meta_id = hipmlir_device_image::METADATA_ENTRY_ID,
    )
}

/// The stub a split binary links instead of its images: the reference record in
/// `.hipmlir_kpack` and the host stubs of every kernel of the archive.
pub fn kpack_stub(record: &Path, kernels: &[String], globals: &[GlobalVar]) -> String {
    let (mut decls, mut calls) = weak_stubs("kpack", kernels);
    // Device variables register after the archive reference; the runtime finds their image
    // when the archive is loaded.
    let (var_decls, var_calls) = variable_registrations("kpack", globals);
    decls.push_str(&var_decls);
    calls.push_str(&var_calls);
    format!(
        r#"// Generated by hipmlir: where this binary's device code is (split out with --split-device-code).
#include <stddef.h>
extern "C" void __hipmlirRegisterKpackRef(const unsigned char* record, size_t size);
extern "C" void __hipmlirRegisterFunction(const void* host_function, const char* kernel_name);
{decls}__asm__(".pushsection {section},\"a\",@progbits\n"
        ".p2align 3\n"
        "__hipmlir_kpack_begin:\n"
        ".incbin \"{path}\"\n"
        "__hipmlir_kpack_end:\n"
        ".popsection\n");
extern "C" const unsigned char __hipmlir_kpack_begin[];
extern "C" const unsigned char __hipmlir_kpack_end[];
__attribute__((constructor)) static void __hipmlir_register_kpack() {{
  __hipmlirRegisterKpackRef(__hipmlir_kpack_begin,
                            static_cast<size_t>(__hipmlir_kpack_end - __hipmlir_kpack_begin));
{calls}}}
"#,
        section = hipmlir_device_image::kpack::RECORD_SECTION,
        path = escape_c(&escape_c(&record.to_string_lossy())),
    )
}

pub fn compile_kpack_stub(
    record: &Path,
    kernels: &[String],
    globals: &[GlobalVar],
    dir: &Path,
    verbose: bool,
) -> Result<PathBuf, String> {
    let source = dir.join("kpack_ref.cpp");
    let object = dir.join("kpack_ref.o");
    std::fs::write(&source, kpack_stub(record, kernels, globals))
        .map_err(|e| io_err("cannot write the reference stub", e))?;
    compile_stub(&source, &object, verbose)?;
    Ok(object)
}

/// A copy of a hipmlir object without its device code (image, registration, bundler entries).
pub fn strip_device_code(object: &Path, out: &Path, verbose: bool) -> Result<(), String> {
    let mut cmd = Command::new("objcopy");
    for s in [FATBIN_SECTION, STUB_TEXT, STUB_RODATA, STUB_INIT] {
        cmd.arg(format!("--remove-section={s}"));
    }
    cmd.arg(format!("--remove-section={BUNDLER_SECTION_PREFIX}*"));
    cmd.arg(object).arg(out);
    run(cmd, verbose, "objcopy")
}

/// hiprtc's library, beside the runtime's.
const HIPRTC_LIBRARY: &str = "libhiprtc.so";

/// Links objects and libraries into `output` with the runtime.
pub fn link(
    opts: &BuildOptions,
    toolchain: &Toolchain,
    objects: &[PathBuf],
    extra: &[PathBuf],
    output: &Path,
) -> Result<(), String> {
    let cxx = HostCompiler::from_env();
    let mut cmd = cxx.command();
    cmd.args(&opts.host_flags);
    if opts.debug {
        cmd.arg("-g");
    }
    for item in &opts.link_items {
        match item {
            LinkItem::Input(i) => {
                cmd.arg(&objects[*i]);
            }
            LinkItem::Flag(f) => {
                cmd.arg(f);
            }
        }
    }
    cmd.args(extra);
    cmd.arg(format!("-L{}", toolchain.runtime_dir.display()));
    cmd.arg("-lhipmlir_rt");
    // hiprtc comes with the HIP runtime on SPIR-V platforms (chipStar's runtime holds it, and
    // HIP's CMake links nothing more there): linked where the program calls it, else dropped.
    if toolchain.runtime_dir.join(HIPRTC_LIBRARY).is_file() {
        cmd.args(["-Wl,--as-needed", "-lhiprtc", "-Wl,--no-as-needed"]);
    }
    cmd.arg(format!("-Wl,-rpath,{}", toolchain.runtime_dir.display()));
    if let Some(linker) = default_linker(opts, &cxx) {
        cmd.arg(linker);
    }
    cmd.arg("-o").arg(output);
    run(cmd, opts.verbose, "the host compiler (link)")
}

/// The linker a link uses unless the user chose one (`-fuse-ld=`): gold, where binutils has it
/// (it links a HIP program in a third of the time GNU ld takes: GNU ld reads the C++ runtime's
/// symbols page by page), else the compiler's own default.
fn default_linker(opts: &BuildOptions, cxx: &HostCompiler) -> Option<&'static str> {
    let chosen = opts
        .host_flags
        .iter()
        .chain(&cxx.flags)
        .any(|f| f.starts_with("-fuse-ld="))
        || opts
            .link_items
            .iter()
            .any(|i| matches!(i, LinkItem::Flag(f) if f.starts_with("-fuse-ld=")));
    (!chosen && on_path("ld.gold")).then_some("-fuse-ld=gold")
}

/// Whether `program` is an executable file in a folder of `$PATH`.
fn on_path(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            std::fs::metadata(dir.join(program))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}

/// Adds a device image's entries as `__CLANG_OFFLOAD_BUNDLE__<id>` sections, which
/// `clang-offload-bundler -type=o` lists and unbundles (a link drops the objects' own copies,
/// which are marked excluded as clang marks them).
pub fn add_bundler_sections(
    binary: &Path,
    image: &FatImage,
    dir: &Path,
    verbose: bool,
) -> Result<(), String> {
    let bundle =
        Bundle::decode(&image.to_bundle_bytes()).map_err(|e| format!("hipmlir: error: {e}"))?;
    let mut cmd = Command::new("objcopy");
    // The content hash guards the runtime's copy in .hip_fatbin; the bundler's view, like an
    // object's, holds the code and its metadata.
    let entries = bundle
        .entries
        .iter()
        .filter(|e| e.id != hipmlir_device_image::HASH_ENTRY_ID);
    for (j, entry) in entries.enumerate() {
        let file = dir.join(format!("bundler-entry-{j}.bin"));
        // As clang writes fat objects: the host entry is one zero byte (the object itself).
        let data: &[u8] = if entry.id == HOST_ENTRY_ID {
            &[0]
        } else {
            &entry.data
        };
        std::fs::write(&file, data).map_err(|e| io_err("cannot write a temporary file", e))?;
        let name = format!("{BUNDLER_SECTION_PREFIX}{}", entry.id);
        cmd.arg("--add-section")
            .arg(format!("{name}={}", file.display()));
        cmd.arg("--set-section-flags")
            .arg(format!("{name}=readonly"));
    }
    cmd.arg(binary);
    run(cmd, verbose, "objcopy")
}

/// Several device images as one, for the bundler's view of an executable: the SPIR-V modules
/// linked with spirv-link (as a device link would), the kernels' metadata merged. None when
/// spirv-link is missing or refuses (e.g. the same template kernel in two sources).
pub fn merge_images(images: &[DeviceImage], dir: &Path, verbose: bool) -> Option<DeviceImage> {
    let mut cmd = Command::new("spirv-link");
    for (i, image) in images.iter().enumerate() {
        let path = dir.join(format!("merge-{i}.spv"));
        std::fs::write(&path, &image.spirv).ok()?;
        cmd.arg(path);
    }
    let out = dir.join("merged.spv");
    cmd.arg("-o").arg(&out);
    if verbose {
        eprintln!("{}", show(&cmd));
    }
    let result = cmd.output().ok()?;
    if !result.status.success() {
        if verbose {
            eprintln!(
                "hipmlir: note: no clang-offload-bundler sections: spirv-link cannot merge the device images: {}",
                String::from_utf8_lossy(&result.stderr).trim()
            );
        }
        return None;
    }
    let mut kernels: Vec<KernelInfo> = Vec::new();
    for image in images {
        for k in &image.metadata.kernels {
            if !kernels.iter().any(|x| x.name == k.name) {
                kernels.push(k.clone());
            }
        }
    }
    Some(DeviceImage {
        spirv: std::fs::read(&out).ok()?,
        metadata: hipmlir_device_image::ModuleMetadata::new(kernels),
    })
}

fn escape_c(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::search_list_flags;

    #[test]
    fn search_lists_of_gcc_and_clang_reports() {
        // GCC under an MPI wrapper, its standard folders left out.
        let gcc = "ignoring nonexistent directory \"/nowhere\"\n\
                   #include \"...\" search starts here:\n#include <...> search starts here:\n\
                   \x20/usr/lib/x86_64-linux-gnu/openmpi/include\n\
                   \x20/usr/lib/x86_64-linux-gnu/openmpi/include/openmpi\nEnd of search list.\n";
        assert_eq!(
            search_list_flags(gcc),
            [
                "-I/usr/lib/x86_64-linux-gnu/openmpi/include",
                "-I/usr/lib/x86_64-linux-gnu/openmpi/include/openmpi"
            ]
        );
        // Clang with -iquote and -I folders, and a framework folder.
        let clang = "clang -cc1 version 22.0.0 based upon LLVM 22.0.0 default target x86_64\n\
                     #include \"...\" search starts here:\n /q\n\
                     #include <...> search starts here:\n /a b\n /F (framework directory)\n\
                     End of search list.\n # 1 \"/dev/null\"\n";
        assert_eq!(search_list_flags(clang), ["-iquote/q", "-I/a b"]);
        assert!(
            search_list_flags("#include <...> search starts here:\nEnd of search list.\n")
                .is_empty()
        );
    }
}
