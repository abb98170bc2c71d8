//! Kernel instances for lambdas' closure types, which the host and device compilers name apart:
//! g++ numbers a function's lambdas in one sequence, clang per signature (`UlfE0_`), and the
//! host clang names a lambda of a function that is not inline `$_0`. A host stub's symbol and
//! its kernel's name therefore agree only up to the closure types' names; launches that know
//! which lambda each closure argument is (the host records it with each device lambda, see
//! hipmlir_launch.h) find their kernel by that.

use hipmlir_device_image::KernelInfo;

use crate::error::{Failure, HipError, HipResult};
use crate::registry::{registry_for_lookup, symbol_name, KernelRef, Registry};

/// A mangled name demangled (without parameters) with each closure type's own name replaced by
/// `{closure}`: `k<float, main::{lambda(auto:1)#2}>` and `k<float, main::$_0>` both read
/// `k<float, main::{closure}>`. None for names without closure types.
fn without_closure_names(mangled: &str) -> Option<String> {
    let options = cpp_demangle::DemangleOptions::new()
        .no_params()
        .no_return_type();
    let text = cpp_demangle::Symbol::new(mangled.as_bytes())
        .ok()?
        .demangle_with_options(&options)
        .ok()?;
    let mut out = String::with_capacity(text.len());
    let mut found = false;
    let mut rest = text.as_str();
    loop {
        let lambda = rest.find("{lambda(");
        let internal = rest.find("$_");
        let at = match (lambda, internal) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => break,
        };
        out.push_str(&rest[..at]);
        let end = if Some(at) == lambda {
            // `{lambda(sig)#n}`: up to the matching `}`.
            let mut depth = 0usize;
            rest[at..]
                .char_indices()
                .find_map(|(i, c)| {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                return Some(at + i + 1);
                            }
                        }
                        _ => {}
                    }
                    None
                })
                .unwrap_or(rest.len())
        } else {
            // `$_n`: clang's name of a closure type with internal linkage.
            let digits = rest[at + 2..]
                .bytes()
                .take_while(u8::is_ascii_digit)
                .count();
            at + 2 + digits
        };
        out.push_str("{closure}");
        found = true;
        rest = &rest[end..];
    }
    out.push_str(rest);
    found.then_some(out)
}

/// The kernel a host stub's symbol names when it involves lambdas' closure types: the one kernel
/// whose name agrees up to the closure types' names. Several such kernels (two lambdas passed to
/// one kernel template) cannot be told apart by name: an error, never a guess (launches tell
/// them apart by the lambdas, see register_closure_stub).
pub(crate) fn find_lambda_kernel(reg: &Registry, symbol: &str) -> Option<HipResult<KernelRef>> {
    let shape = without_closure_names(symbol)?;
    let candidates: Vec<String> = reg
        .registered_kernel_names()
        .into_iter()
        .filter(|name| without_closure_names(name).as_deref() == Some(shape.as_str()))
        .collect();
    Some(match candidates.as_slice() {
        [only] => reg.find(only),
        [] => Err(Failure::new(
            HipError::InvalidDeviceFunction,
            format!("no kernel instance matches the host stub {symbol}"),
        )),
        several => Err(Failure::new(
            HipError::InvalidDeviceFunction,
            format!(
                "the host stub {symbol} matches several kernel instances for lambdas ({}): the \
                 host and device compilers name closure types differently, and this stub was \
                 not launched with its closure objects (the first launch of a stub tells them \
                 apart)",
                several.join(", ")
            ),
        )),
    })
}

/// Finds and remembers the kernel of host stub `host_fn`, whose parameter `i` holds the closure
/// object of the lambda `closures[i]` names (`(lambda at file:line:col)`, as the device compile
/// spells its closure type) where that is given. `spelled` is the kernel's name as the launch
/// wrote it.
pub fn register_closure_stub(
    host_fn: usize,
    spelled: Option<&str>,
    closures: &[Option<String>],
) -> HipResult<()> {
    let mut reg = registry_for_lookup();
    if host_fn == 0 || reg.host_function(host_fn).is_some() {
        return Ok(());
    }
    let symbol = symbol_name(host_fn);
    let mut found = choose(&reg, symbol.as_deref(), spelled, closures);
    if found.is_err() && reg.module_search().is_none() {
        crate::module_path::search_once(&mut reg);
        found = choose(&reg, symbol.as_deref(), spelled, closures);
    }
    let name = found.map_err(|why| Failure::new(HipError::InvalidDeviceFunction, why))?;
    reg.add_host_function(host_fn, name);
    Ok(())
}

fn choose(
    reg: &Registry,
    symbol: Option<&str>,
    spelled: Option<&str>,
    closures: &[Option<String>],
) -> Result<String, String> {
    let kernels: Vec<KernelInfo> = reg
        .registered_kernel_names()
        .iter()
        .filter_map(|name| reg.find(name).ok().map(|k| k.info().clone()))
        .collect();
    choose_closure_kernel(&kernels, symbol, spelled, closures).map(str::to_string)
}

/// The kernel among `kernels` for a stub taking the closure objects `closures`: among those whose
/// names agree with the stub's `symbol` up to the closure types' names, else (a symbol that does
/// not demangle) those of the `spelled` kernel with as many parameters, the one whose closure
/// parameters are of the named lambdas.
fn choose_closure_kernel<'k>(
    kernels: &'k [KernelInfo],
    symbol: Option<&str>,
    spelled: Option<&str>,
    closures: &[Option<String>],
) -> Result<&'k str, String> {
    if let Some(exact) = spelled.and_then(|s| kernels.iter().find(|k| k.name == s)) {
        return Ok(&exact.name);
    }
    let shape = symbol.and_then(without_closure_names);
    let mut candidates: Vec<&KernelInfo> = kernels
        .iter()
        .filter(|k| shape.is_some() && without_closure_names(&k.name) == shape)
        .collect();
    if candidates.is_empty() {
        let wanted = spelled.map(base_name);
        candidates = kernels
            .iter()
            .filter(|k| Some(base_name(&k.source_name)) == wanted && k.args.len() == closures.len())
            .collect();
    }
    let matching: Vec<&KernelInfo> = candidates
        .into_iter()
        .filter(|k| {
            closures
                .iter()
                .enumerate()
                .all(|(i, closure)| match closure {
                    Some(lambda) => k
                        .args
                        .get(i)
                        .is_some_and(|a| unqualified(&a.r#type) == lambda),
                    None => true,
                })
        })
        .collect();
    let stub = symbol.or(spelled).unwrap_or("?");
    let lambdas: Vec<&str> = closures.iter().flatten().map(String::as_str).collect();
    match matching.as_slice() {
        [only] => Ok(&only.name),
        [] => Err(format!(
            "no kernel instance matches the host stub {stub} for {}",
            lambdas.join(", ")
        )),
        several => Err(format!(
            "the host stub {stub} for {} matches several kernel instances ({})",
            lambdas.join(", "),
            several
                .iter()
                .map(|k| k.source_name.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        )),
    }
}

/// A parameter's type without its qualifiers (`const F f` is spelled `const (lambda at ...)`).
fn unqualified(mut ty: &str) -> &str {
    while let Some(rest) = ty
        .strip_prefix("const ")
        .or_else(|| ty.strip_prefix("volatile "))
    {
        ty = rest;
    }
    ty
}

/// A kernel's name without namespaces and template arguments: `ns::k<float, 4>` is `k`.
fn base_name(name: &str) -> &str {
    let name = name.split('<').next().unwrap_or(name).trim();
    name.rsplit("::").next().unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hipmlir_device_image::{AddressSpace, KernelArg};

    fn kernel(name: &str, source_name: &str, arg_types: &[&str]) -> KernelInfo {
        KernelInfo {
            name: name.into(),
            source_name: source_name.into(),
            args: arg_types
                .iter()
                .map(|t| KernelArg {
                    name: String::new(),
                    r#type: t.to_string(),
                    offset: 0,
                    size: 8,
                    align: 8,
                    is_pointer: false,
                    address_space: AddressSpace::Private,
                })
                .collect(),
            args_size: 8 * arg_types.len() as u64,
            max_threads_per_block: None,
            unit: None,
            memcheck_extents: Vec::new(),
        }
    }

    fn sample() -> Vec<KernelInfo> {
        vec![
            kernel(
                "_Z1kIfZ4mainEUlT_E_EvT0_PS0_",
                "k<float, (lambda at a.hip:5:14)>",
                &["(lambda at a.hip:5:14)", "float *"],
            ),
            kernel(
                "_Z1kIfZ4mainEUlT_E0_EvT0_PS0_",
                "k<float, (lambda at a.hip:6:14)>",
                &["(lambda at a.hip:6:14)", "float *"],
            ),
            kernel(
                "_Z1kIiZ4mainEUlT_E0_EvT0_PS0_",
                "k<int, (lambda at a.hip:6:14)>",
                &["(lambda at a.hip:6:14)", "int *"],
            ),
        ]
    }

    #[test]
    fn lambdas_of_one_shape_are_told_apart_by_their_closures() {
        let kernels = sample();
        // g++ numbers the second lambda of main 1 (E0_), as the device compile does, or any
        // other number: only the closure tells.
        let closures = [Some("(lambda at a.hip:5:14)".to_string()), None];
        let found = choose_closure_kernel(
            &kernels,
            Some("_Z1kIfZ4mainEUlT_E3_EvT0_PT_"),
            Some("k"),
            &closures,
        );
        assert_eq!(found, Ok("_Z1kIfZ4mainEUlT_E_EvT0_PS0_"));
    }

    #[test]
    fn host_clang_closure_names_match_up_to_the_closures() {
        let kernels = sample();
        let closures = [Some("(lambda at a.hip:5:14)".to_string()), None];
        let found = choose_closure_kernel(
            &kernels,
            Some("_Z1kIfZ4mainE3$_0EvT0_PT_"),
            Some("k"),
            &closures,
        );
        assert_eq!(found, Ok("_Z1kIfZ4mainEUlT_E_EvT0_PS0_"));
        // One lambda launched with two element types: the template arguments tell them apart.
        let closures = [Some("(lambda at a.hip:6:14)".to_string()), None];
        let found = choose_closure_kernel(
            &kernels,
            Some("_Z1kIiZ4mainE3$_1EvT0_PT_"),
            Some("k"),
            &closures,
        );
        assert_eq!(found, Ok("_Z1kIiZ4mainEUlT_E0_EvT0_PS0_"));
        // A symbol that does not demangle: the spelled kernel and its closures.
        let found = choose_closure_kernel(&kernels, Some("junk"), Some("k"), &closures);
        assert!(found.unwrap_err().contains("several kernel instances"));
    }

    #[test]
    fn closure_names_are_replaced() {
        assert_eq!(
            without_closure_names("_Z1kIfZ4mainEUlT_E0_EvT0_PS0_").as_deref(),
            Some("k<float, main::{closure}>")
        );
        assert_eq!(
            without_closure_names("_Z1kIfZ4mainE4$_12EvT0_PT_").as_deref(),
            Some("k<float, main::{closure}>")
        );
        assert_eq!(without_closure_names("_Z1kIfEvPT_"), None);
    }

    #[test]
    fn base_names_drop_namespaces_and_template_arguments() {
        assert_eq!(base_name("ns::k<float, (lambda at a.hip:1:2)>"), "k");
        assert_eq!(base_name("k"), "k");
    }
}
