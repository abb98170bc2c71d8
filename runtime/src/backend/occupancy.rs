//! The occupancy model of devices whose driver has none (OpenCL): how many blocks of a kernel
//! one compute unit holds, from the device's work-group limit, warp size and shared memory.

use std::ffi::c_int;

use super::DeviceInfo;

/// What the occupancy model needs to know about a kernel.
#[derive(Debug, Clone, Copy)]
pub struct OccupancyKernel {
    /// CL_KERNEL_WORK_GROUP_SIZE.
    pub work_group_size: usize,
    /// Static (CL_KERNEL_LOCAL_MEM_SIZE) plus dynamic shared memory per block.
    pub shared_bytes: u64,
}

fn clamp_int(v: usize) -> c_int {
    c_int::try_from(v).unwrap_or(c_int::MAX)
}

/// Threads one compute unit holds (`maxThreadsPerMultiProcessor`): an OpenCL compute unit runs
/// up to a work-group of the device's maximum size at once.
pub fn threads_per_cu(info: &DeviceInfo) -> usize {
    info.max_work_group_size.max(1)
}

/// Blocks one compute unit holds (`hipDeviceAttributeMaxBlocksPerMultiProcessor`): its threads
/// in blocks of one warp each.
pub fn max_blocks_per_cu(info: &DeviceInfo) -> usize {
    (threads_per_cu(info) / info.warp_size().max(1) as usize).max(1)
}

/// Blocks of `block` threads resident on one compute unit: limited by its threads (a block
/// occupies whole warps), its block slots and its shared memory; 0 for a block the kernel
/// cannot run.
pub fn active_blocks_per_cu(k: &OccupancyKernel, block: usize, info: &DeviceInfo) -> usize {
    if block == 0 || block > k.work_group_size.min(info.max_work_group_size) {
        return 0;
    }
    let warp = info.warp_size().max(1) as usize;
    let by_threads = threads_per_cu(info) / block.div_ceil(warp).saturating_mul(warp);
    let by_shared = match k.shared_bytes {
        0 => usize::MAX,
        bytes => usize::try_from(info.local_mem_size / bytes).unwrap_or(usize::MAX),
    };
    by_threads.min(max_blocks_per_cu(info)).min(by_shared)
}

/// (block, grid) for `hipOccupancyMaxPotentialBlockSize`: the largest block among those that
/// keep the most threads resident per compute unit; the grid fills every compute unit with it.
pub fn potential_block_size(
    k: &OccupancyKernel,
    limit: c_int,
    info: &DeviceInfo,
) -> (c_int, c_int) {
    let warp = info.warp_size().max(1) as usize;
    let mut most = k.work_group_size.min(info.max_work_group_size).max(1);
    if limit > 0 {
        most = most.min(limit as usize);
    }
    // Candidates: multiples of the warp size, and `most` itself when below one warp.
    let mut candidates: Vec<usize> = (1..=most / warp).rev().map(|w| w * warp).collect();
    if candidates.is_empty() {
        candidates.push(most);
    }
    let (mut best_block, mut best_threads) = (candidates[0], 0);
    for block in candidates {
        let threads = active_blocks_per_cu(k, block, info) * block;
        if threads > best_threads {
            (best_block, best_threads) = (block, threads);
        }
    }
    let per_cu = active_blocks_per_cu(k, best_block, info).max(1);
    let grid = (info.max_compute_units as usize)
        .max(1)
        .saturating_mul(per_cu);
    (clamp_int(best_block), clamp_int(grid))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpu() -> DeviceInfo {
        DeviceInfo {
            max_work_group_size: 8192,
            max_compute_units: 2,
            local_mem_size: 256 * 1024,
            sub_group_sizes: vec![4, 8, 16, 32, 64],
            ..DeviceInfo::default()
        }
    }

    #[test]
    fn active_blocks_follow_threads_slots_and_shared_memory() {
        let d = cpu();
        assert_eq!(d.warp_size(), 32);
        let k = OccupancyKernel {
            work_group_size: 8192,
            shared_bytes: 0,
        };
        assert_eq!(active_blocks_per_cu(&k, 256, &d), 32);
        assert_eq!(active_blocks_per_cu(&k, 8192, &d), 1);
        // A block of 33 threads occupies two warps.
        assert_eq!(active_blocks_per_cu(&k, 33, &d), 128);
        assert_eq!(active_blocks_per_cu(&k, 1, &d), 256, "block slots");
        assert_eq!(active_blocks_per_cu(&k, 8193, &d), 0);
        let shared = OccupancyKernel {
            shared_bytes: 64 * 1024,
            ..k
        };
        assert_eq!(active_blocks_per_cu(&shared, 256, &d), 4);
        let small = OccupancyKernel {
            work_group_size: 128,
            ..k
        };
        assert_eq!(active_blocks_per_cu(&small, 256, &d), 0);
    }

    #[test]
    fn potential_block_size_fills_the_device() {
        let d = cpu();
        let k = OccupancyKernel {
            work_group_size: 8192,
            shared_bytes: 0,
        };
        let (block, grid) = potential_block_size(&k, 0, &d);
        assert_eq!(block, 8192);
        assert_eq!(grid, 2);
        // Under a limit of 100: 64 fills a unit exactly (128 x 64), 96 does not (85 x 96).
        let (block, grid) = potential_block_size(&k, 100, &d);
        assert_eq!((block, grid), (64, 2 * 128));
        let (block, _) = potential_block_size(&k, 20, &d);
        assert_eq!(block, 20);
        // Shared memory caps blocks per unit: the biggest block wins among equals.
        let shared = OccupancyKernel {
            shared_bytes: 128 * 1024,
            ..k
        };
        let (block, grid) = potential_block_size(&shared, 0, &d);
        assert_eq!((block, grid), (8192, 2));
    }
}
