//! Host compiles: a host-only C++ source, and a HIP source's host side (device bodies dropped,
//! launches rewritten) with hipmlir's headers precompiled (`pch`, `preamble`) and the user's
//! headers with device code replaced by edited copies (`overlay`); then what the host object
//! asks of the device compile (kernel template instances).

use std::path::{Path, PathBuf};
use std::process::Command;

use hipmlir_device_image::KernelInfo;
use hipmlir_frontend::preamble::{Preamble, QuotedIncludes};

use super::command::{failed, run, show};
use super::cxx::{copy_naming, HostCompiler};
use super::pch::PchKind;
use crate::cli::BuildOptions;
use crate::elf::Elf;
use crate::error::{Error, Result, Tool, ToolFailure};
use crate::outputs::{dependency_file, HostFiles};
use crate::paths::Toolchain;

/// Runs a host compile that pre-includes `header`, whose PCH lies beside it. Clang refuses a
/// PCH it cannot use (damaged, or made by another build of the compiler), naming it in its
/// errors: then the PCH's cache folder `entry` is removed and `Ok(true)` says to compile again
/// without it. GCC ignores such a PCH itself, so its compile runs as any other.
fn run_with_pch(mut cmd: Command, header: &Path, entry: &Path, verbose: bool) -> Result<bool> {
    use std::io::{IsTerminal, Write};
    let Some((PchKind::Clang, pch)) = PchKind::beside(header) else {
        run(cmd, verbose, Tool::HostCompiler)?;
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
    let out = cmd
        .stderr(std::process::Stdio::piped())
        .output()
        .map_err(|e| failed(&cmd, Tool::HostCompiler, ToolFailure::Start(e)))?;
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
        return Err(failed(
            &cmd,
            Tool::HostCompiler,
            ToolFailure::Status(out.status),
        ));
    }
    Ok(false)
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

/// The dependency-file flags of a compile that writes `object`: `-MMD`/`-MD` get the final
/// object's name, so that the `.d` file lands beside it (not in hipmlir's temporary folder).
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
) -> Result<()> {
    let cxx = HostCompiler::from_env();
    let mut cmd = cxx.command();
    cmd.args(compile_flags(opts, toolchain, None));
    cmd.args(dependency_flags(opts, object).0);
    cmd.arg("-c").arg(source).arg("-o").arg(object);
    run(cmd, opts.verbose, Tool::HostCompiler)
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
) -> Result<()> {
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
        super::preamble::find_or_make(
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
        let text = copy_naming(
            &source_abs.to_string_lossy(),
            blanked.as_deref().unwrap_or(host_text),
        );
        std::fs::write(&files.host_source, text)
            .map_err(|e| Error::write_of("the host source", &files.host_source, e))
    };
    write_source(preamble.as_ref().map(|p| &p.preamble))?;
    // The header the compile pre-includes, with a PCH beside it: the preamble, else the prefix
    // header's folder of links.
    let precompiled = match &preamble {
        Some(p) => Some(p.header.clone()),
        None => super::pch::prefix_header(&cxx, &pch_flags, &toolchain.include_dir, opts.verbose),
    };
    let pch_dir = precompiled
        .as_deref()
        .filter(|_| preamble.is_none())
        .and_then(super::pch::include_dir_of)
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
                run(command(None), opts.verbose, Tool::HostCompiler)?;
            }
        }
        None => run(command(None), opts.verbose, Tool::HostCompiler)?,
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
) -> Result<Vec<String>> {
    let bytes = std::fs::read(host_object).map_err(|e| Error::read(host_object, e))?;
    let elf = Elf::parse(&bytes).map_err(|e| Error::Input(format!("the host object: {e}")))?;
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
