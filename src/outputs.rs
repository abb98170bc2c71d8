//! Every file a build will write, named before anything runs, so that an output landing on an
//! input (`hipmlir x.hip -o x.hip`, through a symlink or `./x.hip` too) or on one of
//! `--save-temps`' files is an error before a byte is written, as gcc's driver refuses it.

use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::cli::{BuildOptions, InputKind, SaveTemps};
use crate::error::{Error, Result};

/// Where `--save-temps` keeps its files (`None` without it: they go to a temporary folder).
pub fn save_dir(opts: &BuildOptions) -> Option<PathBuf> {
    Some(match opts.save_temps? {
        SaveTemps::Cwd => PathBuf::from("."),
        SaveTemps::Obj => opts
            .output
            .as_ref()
            .and_then(|o| o.parent())
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from(".")),
    })
}

/// The stem a source's outputs are named by.
pub fn stem_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "input".into())
}

/// A stem for the names of files hipmlir makes from a source's name: the stem itself, or for a
/// long one its start and a hash of the whole, so that `<stem>.host-headers` and the like stay
/// within a file name's 255 bytes however long the source's name is.
pub fn bounded_stem(stem: &str) -> String {
    const KEEP: usize = 96;
    if stem.len() <= KEEP {
        return stem.to_string();
    }
    let mut end = KEEP;
    while !stem.is_char_boundary(end) {
        end -= 1;
    }
    let hash = hipmlir_device_image::kpack::fnv1a64(stem.as_bytes()) as u32;
    format!("{}-{hash:08x}", &stem[..end])
}

/// The object `hipmlir -c` writes for a source.
pub fn compile_only_object(opts: &BuildOptions, source: &Path) -> PathBuf {
    opts.output
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{}.o", stem_of(source))))
}

/// The file `--emit-spirv`/`--emit-mlir` writes for a source (`-` is stdout).
pub fn emit_output(opts: &BuildOptions, source: &Path) -> PathBuf {
    match (&opts.output, &opts.emit_mlir) {
        (Some(o), _) => o.clone(),
        (None, Some(_)) => PathBuf::from("-"),
        (None, None) if opts.emit_ptx => source.with_extension("ptx"),
        // ROCm's name for a device code object.
        (None, None) if opts.genco => source.with_extension("co"),
        (None, None) => source.with_extension("spv"),
    }
}

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

/// The files a HIP source's host side is made of (kept by --save-temps).
pub struct HostFiles {
    pub host_source: PathBuf,
    /// Edited copies of user headers with device code (see `host::overlay`).
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
        let stem = bounded_stem(stem);
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

/// What a file is, for telling whether two names are one file: its device and inode when it
/// exists (symlinks and hard links included), else its absolute path with `.`/`..` and
/// symlinked folders resolved.
#[derive(PartialEq, Eq)]
enum Identity {
    Inode(u64, u64),
    Path(PathBuf),
}

fn identity(path: &Path) -> Option<Identity> {
    if let Ok(m) = std::fs::metadata(path) {
        return Some(Identity::Inode(m.dev(), m.ino()));
    }
    let name = path.file_name()?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let parent = parent.canonicalize().ok()?;
    Some(Identity::Path(parent.join(name)))
}

/// Refuses a build whose outputs would overwrite one of its inputs, or whose final output is
/// also one of the `--save-temps` files. `kinds` are the inputs' kinds as they will be compiled.
pub fn check(opts: &BuildOptions, kinds: &[InputKind]) -> Result<()> {
    let emitting = opts.device_only();
    let mut finals: Vec<PathBuf> = Vec::new();
    let mut temps: Vec<PathBuf> = Vec::new();
    let save = save_dir(opts);
    for (input, kind) in opts.inputs.iter().zip(kinds) {
        if *kind == InputKind::Linkable {
            continue;
        }
        if emitting {
            finals.push(emit_output(opts, &input.path));
            continue;
        }
        if opts.compile_only {
            let object = compile_only_object(opts, &input.path);
            finals.extend(dependency_file(opts, &object));
            finals.push(object);
        } else if let Some(dep) = opts.compile_flags.iter().position(|f| f == "-MF") {
            finals.extend(opts.compile_flags.get(dep + 1).map(PathBuf::from));
        }
        if let (Some(dir), InputKind::Hip) = (&save, kind) {
            let stem = stem_of(&input.path);
            let f = HostFiles::new(dir, &stem);
            temps.extend([
                f.host_source,
                f.host_object,
                f.bundle,
                f.spirv,
                f.metadata,
                f.stub_source,
                f.stub_object,
            ]);
            for stage in ["frontend", "outlined", "lowered", "spirv"] {
                temps.push(dir.join(format!("{stem}.{stage}.mlir")));
            }
        }
    }
    if !emitting && !opts.compile_only {
        let output = opts
            .output
            .clone()
            .unwrap_or_else(|| PathBuf::from("a.out"));
        if opts.split_device_code {
            if let Some(name) = output.file_name() {
                let mut archive = name.to_os_string();
                archive.push(format!(
                    ".{}",
                    hipmlir_device_image::kpack::ARCHIVE_EXTENSION
                ));
                finals.push(output.with_file_name(archive));
            }
        }
        finals.push(output);
    }
    let written = |p: &Path| p.as_os_str() != "-";
    let inputs: Vec<(&Path, Option<Identity>)> = opts
        .inputs
        .iter()
        .map(|i| (i.path.as_path(), identity(&i.path)))
        .collect();
    for out in finals.iter().chain(&temps).filter(|p| written(p)) {
        let Some(id) = identity(out) else { continue };
        if let Some((input, _)) = inputs.iter().find(|(_, i)| i.as_ref() == Some(&id)) {
            return Err(Error::Usage(format!(
                "output file '{}' is the same as input file '{}'",
                out.display(),
                input.display()
            )));
        }
    }
    for out in finals.iter().filter(|p| written(p)) {
        let Some(id) = identity(out) else { continue };
        if let Some(temp) = temps.iter().find(|t| identity(t).as_ref() == Some(&id)) {
            return Err(Error::Usage(format!(
                "output file '{}' is the same as the --save-temps file '{}'",
                out.display(),
                temp.display()
            )));
        }
    }
    Ok(())
}

/// A linked output made under a temporary name beside it, finished there (its bundler sections)
/// and then moved into place: another build of the same output, or one stopped half-way, never
/// sees a partial file, and the linker never writes to a device (`-o /dev/full`: gold repeats
/// its write error without end; `-o /dev/null`: the file read back for its sections was empty).
pub struct StagedOutput {
    _folder: crate::temp_folders::TempFolder,
    staged: PathBuf,
    output: PathBuf,
}

impl StagedOutput {
    pub fn new(output: &Path) -> Result<StagedOutput> {
        let folder = match output.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        // A device's bytes are copied, not renamed: staged with the other temporaries (its
        // folder, `/dev`, is no place to write).
        let temp = if is_special(output) {
            crate::temp_folders::TempFolder::new("hipmlir-link-")
        } else {
            crate::temp_folders::TempFolder::new_in(folder, ".hipmlir-link-")
        }
        .map_err(|e| Error::write(output, e))?;
        let name = output
            .file_name()
            .map_or_else(|| "a.out".into(), |n| n.to_os_string());
        Ok(StagedOutput {
            staged: temp.path().join(name),
            _folder: temp,
            output: output.to_path_buf(),
        })
    }

    /// Where the linker writes.
    pub fn path(&self) -> &Path {
        &self.staged
    }

    /// Moves the finished file into place; a device or FIFO named as the output gets its bytes.
    pub fn commit(self) -> Result<()> {
        let moved = if is_special(&self.output) {
            std::fs::read(&self.staged).and_then(|bytes| {
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&self.output)?
                    .write_all(&bytes)
            })
        } else {
            std::fs::rename(&self.staged, &self.output)
        };
        moved.map_err(|e| Error::write(&self.output, e))
    }
}

/// An existing output that is neither a file nor a folder: a device or FIFO.
fn is_special(output: &Path) -> bool {
    std::fs::metadata(output).is_ok_and(|m| !m.is_file() && !m.is_dir())
}
