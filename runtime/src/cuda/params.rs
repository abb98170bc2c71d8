//! A kernel's launch parameters: its metadata checked against its PTX `.entry`'s parameter
//! list once, when its function is first fetched, into the plan every launch follows:
//! * a workgroup-pointer argument is the dynamic shared memory; the PTX kernel either has no
//!   parameter for it (the lowering addresses `extern __shared__` directly) or a pointer one,
//!   which gets null (its storage is the launch's `sharedMemBytes` either way);
//! * a kernel built with the memory checker takes its arguments' extents as `u64` parameters
//!   after them (`KernelInfo::memcheck_extents`), computed at each launch;
//! * a kernel listed in `linear_block_kernels` may take the block's dimensions as three more
//!   `u32` parameters, as the SPIR-V does;
//! * a by-value argument the PTX takes as a `.ptr` parameter (the compiler passes it by
//!   reference, as the SPIR-V does large ones) is copied to stream-ordered device memory freed
//!   after the kernel;
//! * any other disagreement is `hipErrorInvalidImage`, never a launch with shifted arguments.

use std::sync::Arc;

use hipmlir_device_image::{AddressSpace, KernelInfo};

use super::ptx::ParamDecl;
use crate::error::{Failure, HipError, HipResult};

/// One PTX parameter's source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    /// `len` bytes of the argument block at `offset`.
    Block { offset: usize, len: usize },
    /// An argument moved to memory: its bytes at `offset` are copied to the device.
    Spill { offset: usize, len: usize },
    /// A null pointer (a dynamic-shared-memory pointer parameter).
    Null,
    /// The memory checker's extent `k` (`KernelInfo::memcheck_extents`) as a `u64`.
    Extent(usize),
    /// Block dimension `d` as a `u32`.
    BlockDim(usize),
}

/// A disagreement between a kernel's metadata and its PTX, as the launch's error.
pub fn mismatch(info: &KernelInfo, why: String) -> Failure {
    Failure::new(
        HipError::InvalidImage,
        format!(
            "kernel '{}' ({}): its PTX and its metadata disagree: {why}",
            info.source_name, info.name
        ),
    )
}

/// Plans the parameters of a launch of `info` whose `.entry` takes `params` (sizes; `None`:
/// unknown, trust the metadata); `linear`: the kernel may take its block's dimensions. Pure,
/// for tests.
pub fn plan(
    info: &KernelInfo,
    params: Option<&[ParamDecl]>,
    linear: bool,
) -> HipResult<Arc<[Param]>> {
    let is_shared = |a: &hipmlir_device_image::KernelArg| {
        a.is_pointer && a.address_space == AddressSpace::Workgroup
    };
    // The checker's extents follow the arguments in every form.
    let extents = info.memcheck_extents.len();
    let listed = info.args.len() + extents;
    let without_shared = info.args.iter().filter(|a| !is_shared(a)).count() + extents;
    let hidden = if linear { 3 } else { 0 };
    let (keep_shared, with_dims) = match params.map(<[ParamDecl]>::len) {
        None => (false, false),
        Some(n) if n == without_shared => (false, false),
        Some(n) if n == listed => (true, false),
        Some(n) if linear && n == without_shared + hidden => (false, true),
        Some(n) if linear && n == listed + hidden => (true, true),
        Some(n) => {
            return Err(mismatch(
                info,
                format!(
                    "the PTX entry takes {n} parameter(s); the metadata lists {}",
                    info.args.len() + info.hidden_parameters(linear)
                ),
            ))
        }
    };
    let mut plan = Vec::new();
    for (i, arg) in info.args.iter().enumerate() {
        if is_shared(arg) {
            if keep_shared {
                plan.push(Param::Null);
            }
            continue;
        }
        let offset = usize::try_from(arg.offset).unwrap_or(usize::MAX);
        let len = usize::try_from(arg.size).unwrap_or(usize::MAX);
        let declared = params.and_then(|p| p.get(plan.len()).copied());
        match declared {
            Some(d) if !arg.is_pointer && d.pointer && d.size == 8 => {
                plan.push(Param::Spill { offset, len })
            }
            Some(d) if d.size == len => plan.push(Param::Block { offset, len }),
            None => plan.push(Param::Block { offset, len }),
            Some(ParamDecl { size: d, .. }) => {
                return Err(mismatch(
                    info,
                    format!(
                        "argument {i} ('{}') is {len} bytes; the PTX parameter is {d}",
                        arg.name
                    ),
                ))
            }
        }
    }
    plan.extend((0..extents).map(Param::Extent));
    if with_dims {
        plan.extend((0..3).map(Param::BlockDim));
    }
    Ok(plan.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hipmlir_device_image::KernelArg;

    fn plan_vec(
        info: &KernelInfo,
        params: Option<&[ParamDecl]>,
        linear: bool,
    ) -> HipResult<Vec<Param>> {
        plan(info, params, linear).map(|p| p.to_vec())
    }

    fn decls(sizes: &[usize]) -> Vec<ParamDecl> {
        sizes
            .iter()
            .map(|&size| ParamDecl {
                size,
                pointer: false,
            })
            .collect()
    }

    fn arg(name: &str, size: u64, is_pointer: bool, space: AddressSpace) -> KernelArg {
        KernelArg {
            name: name.into(),
            r#type: String::new(),
            offset: 0,
            size,
            align: size.min(8),
            is_pointer,
            address_space: space,
        }
    }

    fn kernel(mut args: Vec<KernelArg>) -> KernelInfo {
        let args_size = KernelArg::layout(&mut args);
        KernelInfo {
            name: "_Z1kv".into(),
            source_name: "k".into(),
            args,
            args_size,
            max_threads_per_block: None,
            unit: None,
            memcheck_extents: Vec::new(),
        }
    }

    #[test]
    fn parameters_follow_the_block_layout() {
        let k = kernel(vec![
            arg("a", 8, true, AddressSpace::Global),
            arg("n", 4, false, AddressSpace::Private),
            arg("x", 8, false, AddressSpace::Private),
        ]);
        let p = plan_vec(&k, Some(&decls(&[8, 4, 8])), false).unwrap();
        assert_eq!(
            p,
            vec![
                Param::Block { offset: 0, len: 8 },
                Param::Block { offset: 8, len: 4 },
                Param::Block { offset: 16, len: 8 },
            ]
        );
        assert_eq!(plan_vec(&k, None, false).unwrap(), p);
    }

    #[test]
    fn dynamic_shared_memory_has_no_parameter_or_a_null_one() {
        let k = kernel(vec![
            arg("out", 8, true, AddressSpace::Global),
            arg("smem", 8, true, AddressSpace::Workgroup),
        ]);
        assert_eq!(
            plan_vec(&k, Some(&decls(&[8])), false).unwrap(),
            vec![Param::Block { offset: 0, len: 8 }]
        );
        assert_eq!(
            plan_vec(&k, Some(&decls(&[8, 8])), false).unwrap(),
            vec![Param::Block { offset: 0, len: 8 }, Param::Null]
        );
    }

    #[test]
    fn linear_block_kernels_may_take_the_block() {
        let k = kernel(vec![arg("out", 8, true, AddressSpace::Global)]);
        assert_eq!(
            plan_vec(&k, Some(&decls(&[8, 4, 4, 4])), true).unwrap(),
            vec![
                Param::Block { offset: 0, len: 8 },
                Param::BlockDim(0),
                Param::BlockDim(1),
                Param::BlockDim(2)
            ]
        );
        assert_eq!(plan_vec(&k, Some(&decls(&[8])), true).unwrap().len(), 1);
    }

    #[test]
    fn the_checkers_extents_follow_the_arguments_before_the_block() {
        let mut k = kernel(vec![
            arg("out", 8, true, AddressSpace::Global),
            arg("smem", 8, true, AddressSpace::Workgroup),
        ]);
        k.memcheck_extents = vec![0];
        let out = Param::Block { offset: 0, len: 8 };
        assert_eq!(
            plan_vec(&k, Some(&decls(&[8, 8])), false).unwrap(),
            vec![out, Param::Extent(0)]
        );
        assert_eq!(
            plan_vec(&k, Some(&decls(&[8, 8, 8])), false).unwrap(),
            vec![out, Param::Null, Param::Extent(0)]
        );
        assert_eq!(
            plan_vec(&k, Some(&decls(&[8, 8, 4, 4, 4])), true).unwrap(),
            vec![
                out,
                Param::Extent(0),
                Param::BlockDim(0),
                Param::BlockDim(1),
                Param::BlockDim(2)
            ]
        );
        assert_eq!(
            plan_vec(&k, None, false).unwrap(),
            vec![out, Param::Extent(0)]
        );
        // PTX without the extent (built without the checker) is refused, not launched short.
        let e = plan_vec(&k, Some(&decls(&[8])), false).unwrap_err();
        assert_eq!(e.code, HipError::InvalidImage);
    }

    #[test]
    fn by_value_arguments_behind_a_pointer_are_spilled() {
        let small = kernel(vec![arg("u", 4, false, AddressSpace::Private)]);
        let by_reference = [ParamDecl {
            size: 8,
            pointer: true,
        }];
        assert_eq!(
            plan_vec(&small, Some(&by_reference), false).unwrap(),
            vec![Param::Spill { offset: 0, len: 4 }]
        );
        let k = kernel(vec![arg("big", 256, false, AddressSpace::Private)]);
        let by_reference = [ParamDecl {
            size: 8,
            pointer: true,
        }];
        assert_eq!(
            plan_vec(&k, Some(&by_reference), false).unwrap(),
            vec![Param::Spill {
                offset: 0,
                len: 256
            }]
        );
        assert_eq!(
            plan_vec(&k, Some(&decls(&[256])), false).unwrap(),
            vec![Param::Block {
                offset: 0,
                len: 256
            }]
        );
    }

    #[test]
    fn disagreements_are_invalid_images() {
        let k = kernel(vec![
            arg("a", 8, true, AddressSpace::Global),
            arg("n", 4, false, AddressSpace::Private),
        ]);
        let e = plan_vec(&k, Some(&decls(&[8, 4, 4])), false).unwrap_err();
        assert_eq!(e.code, HipError::InvalidImage);
        assert!(e.message.contains("3 parameter"), "{}", e.message);
        let e = plan_vec(&k, Some(&decls(&[8, 8])), false).unwrap_err();
        assert!(e.message.contains("argument 1"), "{}", e.message);
    }
}
