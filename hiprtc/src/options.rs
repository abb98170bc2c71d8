//! `hiprtcCompileProgram`'s options: hipcc's device options (`-D`, `-I`, `-std=`, `-O`,
//! `--offload-arch`, `-ffast-math`, `-fgpu-rdc`, `-fsanitize=address`, ...) and the NVRTC spellings that portable
//! programs pass to both (`--gpu-architecture=compute_90`, `--fmad=false`, `-use_fast_math`,
//! `-rdc=true`, ...), read into what the device compile takes. An option neither knows is an
//! error, written to the program's log.

use std::path::PathBuf;

use hipmlir_compiler::cli::{
    add_offload_archs, is_amd_arch, is_ignored_device_flag, is_nvidia_arch, Offload,
};

/// The macro every compile at run time defines (as ROCm's hiprtc does).
pub const RTC_MACRO: &str = "-D__HIPCC_RTC__";

/// Every error goes to the program's log, as NVRTC reports them (clang stops after 20); the
/// program's own `-ferror-limit=N`, which comes later, wins.
pub const NO_ERROR_LIMIT: &str = "-ferror-limit=0";

/// What one compile's options ask for.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CompileOptions {
    /// `-I` folders, in order.
    pub include_dirs: Vec<PathBuf>,
    /// Flags of the device parse, in order: `-D`/`-U`, `-include FILE`, and clang's language,
    /// floating-point and warning flags (`-ffast-math`, `-ffp-contract=off`, `-Wall`, `-w`).
    /// clang judges the `-f` and `-W` ones: one it does not know fails the compile.
    pub parse_flags: Vec<String>,
    pub std: Option<String>,
    /// The device targets.
    pub offload: Offload,
    /// `-fgpu-rdc`: relocatable device code, for `hiprtcLink*`.
    pub relocatable: bool,
    /// `-fsanitize=address`: the device memory checker (see the README).
    pub memcheck: bool,
    /// Options accepted that change nothing here, each with why: notes for the log.
    pub notes: Vec<String>,
}

/// Options that change nothing for hipmlir's device code, each with why.
const IGNORED: &[(&str, &str)] = &[
    (
        "-O",
        "device code is optimized by hipmlir's pipeline at one level",
    ),
    ("-g", "hipmlir emits no device debug information"),
    ("-G", "hipmlir emits no device debug information"),
    (
        "--device-debug",
        "hipmlir emits no device debug information",
    ),
    ("-lineinfo", "hipmlir emits no device line information"),
    (
        "--generate-line-info",
        "hipmlir emits no device line information",
    ),
    (
        "-hip-pch",
        "HIP's precompiled-header option is deprecated; hipmlir keeps its own",
    ),
    ("--save-temps", "hiprtc keeps no intermediate files"),
    ("-save-temps", "hiprtc keeps no intermediate files"),
    (
        "-nogpuinc",
        "hiprtc always compiles with hipmlir's own headers",
    ),
    ("-nogpulib", "hipmlir links no device library"),
];

/// Options with a value (`-Rpass=inline`, `--ftz=true`) that change nothing here, and why.
const IGNORED_PREFIXES: &[(&str, &str)] = &[
    ("-Rpass", "hipmlir writes no optimization remarks"),
    (
        "--gpu-max-threads-per-block=",
        "hipmlir reserves no registers by block size",
    ),
    (
        "--maxrregcount=",
        "hipmlir reserves no registers by block size",
    ),
    ("--ftz=", "hipmlir's device math keeps denormals"),
    ("-ftz=", "hipmlir's device math keeps denormals"),
    ("--prec-div=", "hipmlir's device division is IEEE-rounded"),
    ("-prec-div=", "hipmlir's device division is IEEE-rounded"),
    (
        "--prec-sqrt=",
        "hipmlir's device square root is IEEE-rounded",
    ),
    (
        "-prec-sqrt=",
        "hipmlir's device square root is IEEE-rounded",
    ),
    ("-m", "an option of AMD GPU targets"),
];

/// NVRTC's spellings of hipcc's options, with a value after `=`: the hipcc option it becomes.
const NVRTC_VALUED: &[(&str, &str)] = &[
    ("--define-macro=", "-D"),
    ("--undefine-macro=", "-U"),
    ("--include-path=", "-I"),
    ("--pre-include=", "-include"),
];

/// Reads `options`; the error is the log's line.
pub fn parse(options: &[String]) -> Result<CompileOptions, String> {
    let mut o = CompileOptions::default();
    let mut i = 0;
    // The value of an option: attached, or the next element of the array.
    let value = |i: &mut usize, option: &str, attached: &str| -> Result<String, String> {
        if !attached.is_empty() {
            return Ok(attached.to_string());
        }
        *i += 1;
        options
            .get(*i)
            .cloned()
            .ok_or_else(|| format!("error: the option '{option}' needs a value"))
    };
    while i < options.len() {
        let raw = options[i].trim();
        // NVRTC's `--define-macro=X` is hipcc's `-DX`, and so on.
        let translated = NVRTC_VALUED
            .iter()
            .find_map(|(nvrtc, hipcc)| Some(format!("{hipcc}{}", raw.strip_prefix(nvrtc)?)));
        let option = translated.as_deref().unwrap_or(raw);
        match option {
            "" => {}
            "-fgpu-rdc" | "-dc" | "--device-c" | "-rdc=true" | "--relocatable-device-code=true" => {
                o.relocatable = true
            }
            "-fno-gpu-rdc" | "-rdc=false" | "--relocatable-device-code=false" => {
                o.relocatable = false
            }
            "-fsanitize=address" => o.memcheck = true,
            "-fno-sanitize=address" => o.memcheck = false,
            "--fmad=true" | "-fmad=true" => o.parse_flags.push("-ffp-contract=fast".into()),
            "--fmad=false" | "-fmad=false" => o.parse_flags.push("-ffp-contract=off".into()),
            "-use_fast_math" | "--use_fast_math" => o.parse_flags.push("-ffast-math".into()),
            "-w" | "-pedantic" => o.parse_flags.push(option.into()),
            _ if option.starts_with("-std=") || option.starts_with("--std") => {
                let std = match option.split_once('=') {
                    Some((_, std)) => std.to_string(),
                    None => value(&mut i, "--std", "")?,
                };
                if std.is_empty() {
                    return Err("error: -std= needs a standard (-std=c++17)".into());
                }
                o.std = Some(std);
            }
            _ if option.starts_with("-I") => {
                let dir = value(&mut i, "-I", &option[2..])?;
                o.include_dirs.push(PathBuf::from(dir));
            }
            _ if option.starts_with("-D") || option.starts_with("-U") => {
                let name = value(&mut i, &option[..2], &option[2..])?;
                if name.is_empty() || name.starts_with('=') {
                    return Err(format!("error: '{}' needs a macro name", &option[..2]));
                }
                o.parse_flags.push(format!("{}{name}", &option[..2]));
            }
            // `-include FILE` and clang's joined `-includeFILE`.
            _ if option.starts_with("-include") && !option.starts_with("-include-pch") => {
                let file = value(&mut i, "-include", &option["-include".len()..])?;
                o.parse_flags.push("-include".into());
                o.parse_flags.push(file);
            }
            _ if option.starts_with("--offload-arch") || option.starts_with("--cuda-gpu-arch=") => {
                let attached = option.split_once('=').map_or("", |(_, v)| v);
                let archs = value(&mut i, "--offload-arch", attached)?;
                add_hipcc_archs(&mut o, &archs)?;
            }
            _ if option.starts_with("--gpu-architecture") || option.starts_with("-arch") => {
                let attached = option.split_once('=').map_or("", |(_, v)| v);
                let arch = value(&mut i, "--gpu-architecture", attached)?;
                add_nvrtc_arch(&mut o, &arch)?;
            }
            _ if is_ignored_device_flag(option) => o.notes.push(format!(
                "'{option}' ignored: it means nothing for SPIR-V and PTX devices"
            )),
            "-mllvm" => {
                let v = value(&mut i, "-mllvm", "")?;
                o.notes.push(format!(
                    "'-mllvm {v}' ignored: hipmlir takes no LLVM options"
                ));
            }
            _ if ignored(option).is_some() => {
                let why = ignored(option).unwrap_or_default();
                o.notes.push(format!("'{option}' ignored: {why}"));
            }
            _ if option.starts_with("-f") || option.starts_with("-W") => {
                o.parse_flags.push(option.to_string())
            }
            _ => return Err(format!("error: unknown option '{option}'")),
        }
        i += 1;
    }
    if o.offload.explicit && !o.offload.spirv && o.offload.ptx.is_empty() {
        // Only AMD architectures named: the default targets, as hipcc builds them.
        o.offload = Offload::default();
    }
    Ok(o)
}

/// Why an option is ignored, if it is.
fn ignored(option: &str) -> Option<&'static str> {
    let level = option
        .strip_prefix("-O")
        .is_some_and(|l| matches!(l, "" | "0" | "1" | "2" | "3" | "s" | "z" | "fast"));
    if level {
        return Some(IGNORED[0].1);
    }
    IGNORED
        .iter()
        .find(|(o, _)| *o == option)
        .or_else(|| IGNORED_PREFIXES.iter().find(|(p, _)| option.starts_with(p)))
        .map(|(_, why)| *why)
}

/// hipcc's `--offload-arch=A[,B]`: the targets named, each required, as hipcc builds them.
fn add_hipcc_archs(o: &mut CompileOptions, archs: &str) -> Result<(), String> {
    let ignored = add_offload_archs(&mut o.offload, archs)
        .map_err(|e| e.to_string().trim_start_matches("hipmlir: ").to_string())?;
    for arch in ignored {
        o.notes.push(format!(
            "'--offload-arch={arch}' ignored: hipmlir builds SPIR-V and PTX, not AMD code"
        ));
    }
    Ok(())
}

/// NVRTC's `--gpu-architecture` (`compute_90`, `sm_90`), which programs derive from the
/// device's compute capability: the PTX architecture, built beside the SPIR-V (an OpenCL
/// device reports its OpenCL version there, so the image must load on it too) and, like a
/// default build's PTX, left out with a warning where it cannot be built. Other values are
/// hipcc's architectures (ROCm's hiprtc reads `--gpu-architecture=gfx90a` as `--offload-arch`).
fn add_nvrtc_arch(o: &mut CompileOptions, arch: &str) -> Result<(), String> {
    let sm = arch
        .strip_prefix("compute_")
        .map_or_else(|| arch.to_string(), |n| format!("sm_{n}"));
    if !is_nvidia_arch(&sm) {
        if is_amd_arch(arch) {
            o.notes.push(format!(
                "'--gpu-architecture={arch}' ignored: hipmlir builds SPIR-V and PTX, not AMD code"
            ));
            return Ok(());
        }
        if arch.starts_with("compute_") {
            // What an OpenCL device reports as its compute capability (its OpenCL version).
            o.notes.push(format!(
                "'--gpu-architecture={arch}' names no NVIDIA GPU: the code is SPIR-V alone"
            ));
            o.offload = Offload {
                spirv: true,
                ptx: Vec::new(),
                explicit: false,
            };
            return Ok(());
        }
        return add_hipcc_archs(o, arch);
    }
    if o.offload.explicit {
        // hipcc's targets were named: this one joins them.
        if !o.offload.ptx.contains(&sm) {
            o.offload.ptx.push(sm);
        }
        return Ok(());
    }
    o.offload = Offload {
        spirv: true,
        ptx: vec![sm],
        explicit: false,
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(options: &[&str]) -> CompileOptions {
        let options: Vec<String> = options.iter().map(|s| s.to_string()).collect();
        parse(&options).unwrap()
    }

    fn error(options: &[&str]) -> String {
        let options: Vec<String> = options.iter().map(|s| s.to_string()).collect();
        parse(&options).unwrap_err()
    }

    #[test]
    fn hipcc_device_options() {
        let o = parsed(&[
            "-DN=4",
            "-D",
            "M",
            "-UDEBUG",
            "-I",
            "inc",
            "-Iinc2",
            "-std=c++20",
            "-O3",
            "-ffast-math",
            "-Wall",
            "-includefact.h",
            "-fgpu-rdc",
            "-fsanitize=address",
        ]);
        assert!(o.memcheck);
        assert_eq!(
            o.parse_flags,
            vec![
                "-DN=4",
                "-DM",
                "-UDEBUG",
                "-ffast-math",
                "-Wall",
                "-include",
                "fact.h"
            ]
        );
        assert_eq!(
            o.include_dirs,
            vec![PathBuf::from("inc"), PathBuf::from("inc2")]
        );
        assert_eq!(o.std.as_deref(), Some("c++20"));
        assert!(o.relocatable);
        assert_eq!(o.offload, Offload::default());
        assert_eq!(o.notes.len(), 1, "{:?}", o.notes);
    }

    #[test]
    fn nvrtc_spellings() {
        let o = parsed(&[
            "--fmad=false",
            "-use_fast_math",
            "--define-macro=X=1",
            "--include-path=/inc",
            "--std=c++17",
            "-rdc=true",
            "--gpu-architecture=compute_90",
        ]);
        assert_eq!(
            o.parse_flags,
            vec!["-ffp-contract=off", "-ffast-math", "-DX=1"]
        );
        assert_eq!(o.include_dirs, vec![PathBuf::from("/inc")]);
        assert_eq!(o.std.as_deref(), Some("c++17"));
        assert!(o.relocatable);
        // The device's compute capability: its PTX, with the SPIR-V that OpenCL devices load.
        assert!(o.offload.spirv && !o.offload.explicit);
        assert_eq!(o.offload.ptx, vec!["sm_90".to_string()]);
        // An OpenCL device reports its OpenCL version as its compute capability.
        let o = parsed(&["-arch", "compute_30"]);
        assert!(o.offload.spirv && o.offload.ptx == vec!["sm_30".to_string()]);
        let o = parsed(&["--gpu-architecture=compute_31"]);
        assert!(o.offload.spirv && o.offload.ptx.is_empty() && o.notes.len() == 1);
    }

    #[test]
    fn hipcc_architectures_are_the_targets() {
        let o = parsed(&["--offload-arch=spirv64"]);
        assert!(o.offload.spirv && o.offload.ptx.is_empty() && o.offload.explicit);
        let o = parsed(&["--offload-arch=sm_80", "--gpu-architecture=sm_90"]);
        assert!(!o.offload.spirv && o.offload.ptx == vec!["sm_80", "sm_90"]);
        // ROCm's programs name their GPU's gfx architecture: the default targets, noted.
        let o = parsed(&["--gpu-architecture=gfx90a"]);
        assert_eq!(o.offload, Offload::default());
        assert_eq!(o.notes.len(), 1);
        let o = parsed(&["--gpu-architecture=spirv64"]);
        assert!(o.offload.spirv && o.offload.ptx.is_empty());
    }

    #[test]
    fn unknown_options_and_missing_values_are_errors() {
        assert_eq!(error(&["--bogus"]), "error: unknown option '--bogus'");
        assert_eq!(error(&["-x", "c"]), "error: unknown option '-x'");
        assert_eq!(error(&["-o", "a.out"]), "error: unknown option '-o'");
        assert!(error(&["-I"]).contains("needs a value"));
        assert!(error(&["-D="]).contains("needs a macro name"));
        assert!(error(&["-std="]).contains("needs a standard"));
        assert!(error(&["--offload-arch=bogus"]).contains("unknown offload architecture"));
        assert!(error(&["-include-pch", "x.pch"]).contains("unknown option"));
    }

    #[test]
    fn ignored_options_are_noted() {
        let o = parsed(&[
            "-munsafe-fp-atomics",
            "-mllvm",
            "-inline-threshold=1",
            "-Rpass=inline",
            "--gpu-max-threads-per-block=256",
            "-G",
            "-O0",
        ]);
        assert_eq!(o.notes.len(), 6, "{:?}", o.notes);
        assert!(o.parse_flags.is_empty());
    }
}
