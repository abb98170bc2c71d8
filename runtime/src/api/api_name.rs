//! `hipApiName`: the name of a HIP function from its API callback ID (HIP's `hip_api_id_t`, as
//! tracing tools report calls), read from `runtime/hip-api-ids.tsv`.

use std::ffi::{c_char, CString};
use std::sync::OnceLock;

/// The IDs and names, in ID order.
fn table() -> &'static [(u32, CString)] {
    static TABLE: OnceLock<Vec<(u32, CString)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        include_str!("../../hip-api-ids.tsv")
            .lines()
            .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
            .filter_map(|line| {
                let (id, name) = line.split_once('\t')?;
                Some((id.parse().ok()?, CString::new(name.trim()).ok()?))
            })
            .collect()
    })
}

/// The name of the function with API callback ID `id`, or "unknown".
fn name_of(id: u32) -> &'static std::ffi::CStr {
    let all = table();
    match all.binary_search_by_key(&id, |(i, _)| *i) {
        Ok(at) => &all[at].1,
        Err(_) => c"unknown",
    }
}

/// The name of the HIP function with API callback ID `id` (`"unknown"` for an ID that names
/// none). The string is static.
#[no_mangle]
pub extern "C" fn hipApiName(id: u32) -> *const c_char {
    name_of(id).as_ptr()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_hips_in_order_and_name_functions() {
        let all = table();
        assert!(all.len() > 350);
        assert!(all.windows(2).all(|w| w[0].0 < w[1].0), "ids ascend");
        assert_eq!(name_of(108).to_str(), Ok("hipMalloc"));
        assert_eq!(name_of(1).to_str(), Ok("__hipPopCallConfiguration"));
        assert_eq!(name_of(322).to_str(), Ok("hipMemCreate"));
        assert_eq!(name_of(406).to_str(), Ok("hipSetValidDevices"));
        for unknown in [0, 50, 393, 100_000] {
            assert_eq!(name_of(unknown).to_str(), Ok("unknown"));
        }
        // Every name is a function of HIP 6.2, or one of the forms its list leaves out.
        let functions = include_str!("../../hip-functions.tsv");
        let listed = |name: &str| {
            functions
                .lines()
                .any(|l| l.split('\t').next() == Some(name))
        };
        for (id, name) in all {
            let name = name.to_str().unwrap();
            let other_form = name.ends_with("R0000")
                || name.contains("GL")
                || matches!(
                    name,
                    "hipExtModuleLaunchKernel"
                        | "hipHccModuleLaunchKernel"
                        | "hipExternalMemoryGetMappedMipmappedArray"
                );
            assert!(listed(name) || other_form, "{id} {name}");
        }
    }
}
