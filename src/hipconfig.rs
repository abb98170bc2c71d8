//! `hipconfig`: what ROCm's hipconfig answers, for a SPIR-V platform (hipmlir installs it as a
//! link to itself and acts by the name it is called by).

use crate::error::{Error, Result};
use crate::paths::Toolchain;

const USAGE: &str = "usage: hipconfig [OPTIONS]
  --path,  -p        : print HIP_PATH (the install prefix)
  --rocmpath,  -R    : print ROCM_PATH (the install prefix: hipmlir needs no ROCm)
  --cpp_config, -C   : print C++ compiler options
  --compiler, -c     : print compiler (hipmlir)
  --platform, -P     : print platform (spirv)
  --runtime, -r      : print runtime (hipmlir)
  --hipclangpath, -l : print the folder of the compiler (bin/)
  --full, -f         : print full configuration
  --version, -v      : print hip version
  --check            : check configuration
  --newline, -n      : print newline
  --help, -h         : print help message
";

/// The answers, computed once.
struct Config {
    prefix: String,
    bin: String,
    include: String,
    runtime: String,
    version: String,
}

impl Config {
    fn locate() -> Result<Config> {
        let toolchain = Toolchain::locate()?;
        let bin = std::env::current_exe()
            .ok()
            .and_then(|p| p.canonicalize().ok())
            .and_then(|p| p.parent().map(|d| d.to_path_buf()))
            .unwrap_or_default();
        let prefix = toolchain
            .include_dir
            .parent()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let (major, minor, patch) = hipmlir_device_image::hip_api_version();
        Ok(Config {
            prefix,
            bin: bin.display().to_string(),
            include: toolchain.include_dir.display().to_string(),
            runtime: toolchain.runtime_dir.display().to_string(),
            // ROCm's form: build systems split it at `.` and `-`.
            version: format!("{major}.{minor}.{patch}-{}", env!("HIPMLIR_GIT_HASH")),
        })
    }

    fn cpp_config(&self) -> String {
        format!("-D__HIP_PLATFORM_SPIRV__= -I{}", self.include)
    }
}

pub fn run(args: &[String]) -> Result<()> {
    let mut newline = false;
    let mut asked: Vec<&str> = Vec::new();
    for arg in args {
        match arg.as_str() {
            "-h" | "--help" => {
                print!("{USAGE}");
                return Ok(());
            }
            "-n" | "--newline" => newline = true,
            "-p" | "--path" | "-R" | "--rocmpath" | "-C" | "--cpp_config" | "--cxx_config"
            | "-c" | "--compiler" | "-P" | "--platform" | "-r" | "--runtime" | "-l"
            | "--hipclangpath" | "-f" | "--full" | "--info" | "-v" | "--version" | "--check" => {
                asked.push(arg)
            }
            other => {
                return Err(Error::HipconfigUsage(format!(
                    "unknown option '{other}' (hipconfig --help lists them)"
                )))
            }
        }
    }
    let config = Config::locate()?;
    if asked.is_empty() {
        asked.push("--full");
    }
    let end = if newline { "\n" } else { "" };
    for option in asked {
        match option {
            "-p" | "--path" | "-R" | "--rocmpath" => print!("{}{end}", config.prefix),
            "-C" | "--cpp_config" | "--cxx_config" => print!("{}{end}", config.cpp_config()),
            "-c" | "--compiler" => print!("hipmlir{end}"),
            "-P" | "--platform" => print!("spirv{end}"),
            "-r" | "--runtime" => print!("hipmlir{end}"),
            "-l" | "--hipclangpath" => print!("{}{end}", config.bin),
            "-v" | "--version" => print!("{}{end}", config.version),
            "--check" => println!(
                "HIP_PATH={}\nheaders: {}\nruntime: {}\nconfiguration is valid",
                config.prefix, config.include, config.runtime
            ),
            _ => println!(
                "HIP version  : {}\n\n== hipconfig\nHIP_PATH     : {}\nROCM_PATH    : {}\nHIP_COMPILER : hipmlir\nHIP_PLATFORM : spirv\nHIP_RUNTIME  : hipmlir\nCPP_CONFIG   : {}\n\n== hipmlir\n{}\nheaders      : {}\nruntime      : {}",
                config.version,
                config.prefix,
                config.prefix,
                config.cpp_config(),
                crate::version_text(),
                config.include,
                config.runtime
            ),
        }
    }
    Ok(())
}
