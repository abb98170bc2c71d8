//! Names the compiler's crates share in the MLIR they pass along.

/// A device function's linkage across translation units (`#llvm.linkage<...>`: internal,
/// linkonce_odr or external), under the name MLIR's own LLVM lowering reads from `func.func`.
/// The device link resolves symbols by it (globals carry their own `linkage`).
pub const LINKAGE_ATTRIBUTE: &str = "llvm.linkage";

/// The module attribute listing the address-taken device functions with their pointer ids,
/// `{symbol = id : i64, ...}`: written by the frontend, merged by the device link, read (and
/// removed) by dialect-passes' devirtualization of indirect calls.
pub const FUNCTION_POINTERS_ATTRIBUTE: &str = "hipmlir.function_pointers";

/// The HIP API level (major, minor, patch) that hipmlir's headers declare in
/// `hip/hip_version.h`: the one place the number is written.
pub fn hip_api_version() -> (u32, u32, u32) {
    const HEADER: &str = include_str!("../../headers/hip/hip_version.h");
    let number = |name: &str| {
        HEADER
            .lines()
            .filter_map(|l| l.trim().strip_prefix("#define "))
            .filter_map(|l| l.split_once(char::is_whitespace))
            .find(|(n, _)| *n == name)
            .and_then(|(_, v)| v.trim().parse::<u32>().ok())
            .expect("hip_version.h defines the version numbers")
    };
    (
        number("HIP_VERSION_MAJOR"),
        number("HIP_VERSION_MINOR"),
        number("HIP_VERSION_PATCH"),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_header_declares_a_version() {
        let (major, minor, _) = super::hip_api_version();
        assert!(major >= 6 && minor < 100);
    }
}
