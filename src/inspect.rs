//! `hipmlir inspect FILE...`: the device images of an executable, a shared library, an object,
//! a `.hipk` archive or a bundle; their kernels and argument layouts; each SPIR-V module checked
//! with spirv-val (when installed), as chipStar's spirv-extractor does.

use std::path::{Path, PathBuf};

use hipmlir_device_image::kpack::{KpackArchive, KpackRecord, ARCHIVE_MAGIC, RECORD_SECTION};
use hipmlir_device_image::{AddressSpace, FatImage, MAGIC};

use hipmlir_device_image::files::{read_regular, MAX_DEVICE_FILE};

use crate::elf::Elf;
use crate::error::{Error, Result};
use crate::host::fatbin_bundles;
use crate::host::BUNDLER_SECTION_PREFIX;

/// Whether every image checked out.
pub fn inspect(files: &[PathBuf]) -> Result<bool> {
    let mut ok = true;
    for file in files {
        // Only regular files, and no more than a device file may hold: `inspect /dev/zero` is
        // an error, not a read without end.
        let bytes = read_regular(file, MAX_DEVICE_FILE).map_err(|e| Error::read(file, e))?;
        ok &= inspect_bytes(file, &bytes)?;
    }
    Ok(ok)
}

fn inspect_bytes(file: &Path, bytes: &[u8]) -> Result<bool> {
    let name = file.display();
    if bytes.starts_with(ARCHIVE_MAGIC) {
        return inspect_archive(file, bytes, "");
    }
    if bytes.starts_with(MAGIC) {
        println!("{name}: device image bundle, {} bytes", bytes.len());
        return Ok(image(0, None, bytes, "  "));
    }
    if !Elf::is_elf(bytes) {
        return Err(Error::Usage(format!(
            "'{name}' is not an ELF file, a .hipk archive or a device image bundle"
        )));
    }
    let elf = Elf::parse(bytes).map_err(|e| Error::Input(format!("'{name}': {e}")))?;
    let bundles = fatbin_bundles(bytes, file)?;
    let mut ok = true;
    println!(
        "{name}: {}, {} device image(s) in .hip_fatbin",
        elf.kind_name(),
        bundles.len()
    );
    for (i, (offset, b)) in bundles.iter().enumerate() {
        ok &= image(i, Some(*offset), b, "  ");
    }
    let bundler: Vec<&str> = elf
        .sections
        .iter()
        .filter_map(|s| s.name.strip_prefix(BUNDLER_SECTION_PREFIX))
        .collect();
    if !bundler.is_empty() {
        println!("  clang-offload-bundler entries: {}", bundler.join(", "));
    }
    if let Some(section) = elf.section(RECORD_SECTION) {
        ok &= split_reference(file, section.data)?;
    } else if bundles.is_empty() {
        println!("  no device code");
    }
    Ok(ok)
}

/// A split binary: its reference record, and the archive if it can be found.
fn split_reference(file: &Path, data: &[u8]) -> Result<bool> {
    let record = match KpackRecord::decode(data) {
        Ok(r) => r,
        Err(e) => {
            println!("  split device code: invalid reference record: {e}");
            return Ok(false);
        }
    };
    println!(
        "  split device code: key {}, archive '{}', search paths (relative to the binary): {}",
        record.key,
        record.archive,
        record.search_paths.join(", ")
    );
    let dir = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut places: Vec<PathBuf> = Vec::new();
    for var in ["HIPMLIR_KPACK_PATH_PREFIX", "HIPMLIR_KPACK_PATH"] {
        if let Ok(v) = std::env::var(var) {
            places.extend(v.split(':').filter(|s| !s.is_empty()).map(PathBuf::from));
        }
    }
    if std::env::var_os("HIPMLIR_KPACK_PATH").is_none() {
        places.extend(record.search_paths.iter().map(|p| {
            let joined = dir.join(p);
            // `./.` reads badly in messages.
            joined
                .components()
                .filter(|c| *c != std::path::Component::CurDir)
                .collect::<PathBuf>()
        }));
    }
    for place in &places {
        let candidate = if place.is_dir() {
            place.join(&record.archive)
        } else {
            place.clone()
        };
        if let Ok(bytes) = read_regular(&candidate, MAX_DEVICE_FILE) {
            println!("  archive found: {}", candidate.display());
            return inspect_archive(&candidate, &bytes, &record.key);
        }
    }
    let searched: Vec<String> = places.iter().map(|p| p.display().to_string()).collect();
    println!("  archive not found (searched: {})", searched.join(", "));
    Ok(false)
}

fn inspect_archive(file: &Path, bytes: &[u8], only_key: &str) -> Result<bool> {
    let archive = match KpackArchive::decode(bytes) {
        Ok(a) => a,
        Err(e) => {
            if only_key.is_empty() {
                return Err(Error::Input(format!("'{}': {e}", file.display())));
            }
            println!("  {e}");
            return Ok(false);
        }
    };
    let indent = if only_key.is_empty() { "  " } else { "    " };
    if only_key.is_empty() {
        println!(
            "{}: hipk archive, format {}, {} entr{}",
            file.display(),
            archive.format_version,
            archive.entries.len(),
            if archive.entries.len() == 1 {
                "y"
            } else {
                "ies"
            }
        );
    }
    let mut ok = true;
    let mut matched = false;
    for entry in &archive.entries {
        if !only_key.is_empty() && entry.key != only_key {
            continue;
        }
        matched = true;
        println!(
            "{indent}entry key {} target {}: {} device image(s)",
            entry.key,
            entry.target,
            entry.images.len()
        );
        for (i, img) in entry.images.iter().enumerate() {
            println!("{indent}  from {}", img.name);
            ok &= image(i, None, &img.bundle, &format!("{indent}  "));
        }
    }
    if !matched && !only_key.is_empty() {
        println!("{indent}no entry for key {only_key} (an archive from another build?)");
        ok = false;
    }
    Ok(ok)
}

/// Prints one device image; false if it is invalid.
fn image(index: usize, offset: Option<usize>, bytes: &[u8], indent: &str) -> bool {
    let at = offset
        .map(|o| format!(" at offset {o:#x}"))
        .unwrap_or_default();
    let image = match FatImage::from_bundle_bytes(bytes) {
        Ok(i) => i,
        Err(e) => {
            println!("{indent}device image {index}{at}: INVALID: {e}");
            return false;
        }
    };
    let kernels = &image.metadata.kernels;
    println!(
        "{indent}device image {index}{at}: {} bytes, SPIR-V {} bytes{}, metadata format {}, {} kernel(s)",
        bytes.len(),
        image.spirv.len(),
        spirv_version(&image.spirv),
        image.metadata.format_version,
        kernels.len()
    );
    for k in kernels {
        println!(
            "{indent}  kernel {} [{}], {}-byte argument block",
            k.source_name, k.name, k.args_size
        );
        for (i, a) in k.args.iter().enumerate() {
            let kind = match (a.is_pointer, a.address_space) {
                (_, AddressSpace::Workgroup) => "workgroup pointer",
                (true, AddressSpace::Global) => "global pointer",
                (true, AddressSpace::Constant) => "constant pointer",
                (true, AddressSpace::Private) => "pointer",
                (false, _) => "by value",
            };
            println!(
                "{indent}    arg {i}: {} {} offset {} size {} align {} ({kind})",
                a.r#type, a.name, a.offset, a.size, a.align
            );
        }
        if !k.memcheck_extents.is_empty() {
            let names: Vec<String> = k
                .memcheck_extents
                .iter()
                .map(|&i| format!("arg {i}"))
                .collect();
            println!(
                "{indent}    memory checker: the extents of {}, as hidden parameters",
                names.join(", ")
            );
        }
    }
    let mut ok = true;
    if image.spirv.is_empty() {
        println!("{indent}  no SPIR-V (built for NVIDIA GPUs only)");
    } else {
        let valid = validate(&image.spirv);
        println!("{indent}  spirv-val: {}", valid.1);
        ok &= valid.0;
    }
    for p in &image.ptx {
        // Every kernel of the metadata must be an entry of the PTX, under the same name.
        let text = String::from_utf8_lossy(&p.ptx);
        let entries: Vec<&str> = text
            .lines()
            .filter_map(|l| l.split(".entry ").nth(1))
            .map(|rest| rest.split(['(', ' ']).next().unwrap_or(""))
            .collect();
        let missing: Vec<&str> = kernels
            .iter()
            .map(|k| k.name.as_str())
            .filter(|k| !entries.contains(k))
            .collect();
        let version = text
            .lines()
            .find_map(|l| l.trim().strip_prefix(".version "))
            .unwrap_or("?");
        println!(
            "{indent}  PTX for {}: {} bytes, PTX ISA {version}, {} entries{}",
            p.arch,
            p.ptx.len(),
            entries.len(),
            if missing.is_empty() {
                String::new()
            } else {
                ok = false;
                format!(", INVALID: no entry for {}", missing.join(", "))
            }
        );
    }
    ok
}

fn spirv_version(spirv: &[u8]) -> String {
    if spirv.len() < 8 || spirv[..4] != [0x03, 0x02, 0x23, 0x07] {
        return String::new();
    }
    let v = u32::from_le_bytes([spirv[4], spirv[5], spirv[6], spirv[7]]);
    format!(" (version {}.{})", (v >> 16) & 0xff, (v >> 8) & 0xff)
}

/// Runs spirv-val: (valid, what to print). A missing spirv-val is not a failure.
fn validate(spirv: &[u8]) -> (bool, String) {
    use hipmlir_device_image::spirv_validator::{self, Verdict};
    let Ok(dir) = crate::temp_folders::TempFolder::new("hipmlir-inspect-") else {
        return (true, "not run (no temporary folder)".into());
    };
    match spirv_validator::validate(spirv, dir.path()) {
        Verdict::Valid => (true, "valid".into()),
        Verdict::NotRun(why) => (true, why),
        Verdict::Invalid(text) => (false, format!("INVALID: {}", text.trim())),
    }
}
