//! Object surgery: the sections hipmlir's objects carry (`.hip_fatbin`, the
//! clang-offload-bundler entries, the stub's own), read from a linked file, added to it
//! (objcopy) or removed from an object whose device code is split out.

use std::path::Path;
use std::process::Command;

use hipmlir_device_image::{
    split_bundles, Bundle, DeviceImage, FatImage, KernelInfo, HOST_ENTRY_ID,
};

use super::command::{run, show};
use crate::elf::Elf;
use crate::error::{Error, Result, Tool};

/// Prefix of the sections clang-offload-bundler reads in an object file (`-type=o`).
pub const BUNDLER_SECTION_PREFIX: &str = "__CLANG_OFFLOAD_BUNDLE__";
/// Sections of an image stub, removed from an object when its device code is split out.
pub const STUB_TEXT: &str = ".text.hipmlir_register";
pub const STUB_RODATA: &str = ".rodata.hipmlir_register";
/// The stub's constructor goes in its own init_array section (priority 65500) so that it can be
/// removed with the stub; the linker sorts `.init_array.*` into `.init_array`.
pub const STUB_INIT: &str = ".init_array.65500";
pub const FATBIN_SECTION: &str = ".hip_fatbin";

/// A copy of a hipmlir object without its device code (image, registration, bundler entries).
pub fn strip_device_code(object: &Path, out: &Path, verbose: bool) -> Result<()> {
    let mut cmd = Command::new("objcopy");
    for s in [FATBIN_SECTION, STUB_TEXT, STUB_RODATA, STUB_INIT] {
        cmd.arg(format!("--remove-section={s}"));
    }
    cmd.arg(format!("--remove-section={BUNDLER_SECTION_PREFIX}*"));
    cmd.arg(object).arg(out);
    run(cmd, verbose, Tool::Objcopy)
}

/// Gives `symbols` of a host object local binding: the internal linkage of device variables'
/// shadows that the source's text could not declare `static` (see the frontend's `host_shadows`).
pub fn localize_symbols(object: &Path, symbols: &[String], verbose: bool) -> Result<()> {
    if symbols.is_empty() {
        return Ok(());
    }
    let mut cmd = Command::new("objcopy");
    cmd.args(symbols.iter().map(|s| format!("--localize-symbol={s}")));
    cmd.arg(object);
    run(cmd, verbose, Tool::Objcopy)
}

/// Adds a device image's entries as `__CLANG_OFFLOAD_BUNDLE__<id>` sections, which
/// `clang-offload-bundler -type=o` lists and unbundles (a link drops the objects' own copies,
/// which are marked excluded as clang marks them).
pub fn add_bundler_sections(
    binary: &Path,
    image: &FatImage,
    dir: &Path,
    verbose: bool,
) -> Result<()> {
    let bundle =
        Bundle::decode(&image.to_bundle_bytes()).map_err(|e| Error::Input(e.to_string()))?;
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
        std::fs::write(&file, data).map_err(|e| Error::write_of("a temporary file", &file, e))?;
        let name = format!("{BUNDLER_SECTION_PREFIX}{}", entry.id);
        cmd.arg("--add-section")
            .arg(format!("{name}={}", file.display()));
        cmd.arg("--set-section-flags")
            .arg(format!("{name}=readonly"));
    }
    cmd.arg(binary);
    run(cmd, verbose, Tool::Objcopy)
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

/// The device image bundles in an ELF file's `.hip_fatbin`, with their offsets.
pub fn fatbin_bundles<'a>(bytes: &'a [u8], file: &Path) -> Result<Vec<(usize, &'a [u8])>> {
    let elf = Elf::parse(bytes).map_err(|e| Error::Input(format!("'{}': {e}", file.display())))?;
    let Some(section) = elf.section(FATBIN_SECTION) else {
        return Ok(Vec::new());
    };
    split_bundles(section.data)
        .into_iter()
        .map(|r| {
            r.map_err(|(at, e)| {
                Error::Input(format!(
                    "'{}': {FATBIN_SECTION} at byte {at}: {e}",
                    file.display()
                ))
            })
        })
        .collect()
}
