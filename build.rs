//! Records the commit hipmlir is built from: `hipconfig --version` answers in ROCm's
//! `MAJOR.MINOR.PATCH-GITHASH` form, which build systems (hip-tests' CMake among them) split.
use std::process::Command;

fn main() {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    // A source tree without git (a tarball) still gets a hash-shaped answer.
    let hash = git(&["rev-parse", "--short=9", "HEAD"])
        .filter(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()))
        .unwrap_or_else(|| "0".to_string());
    println!("cargo:rustc-env=HIPMLIR_GIT_HASH={hash}");
    // Rebuilt when HEAD moves (a commit or a checkout), not on every build.
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        if let Some(head_ref) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{head_ref}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
