//! Graph allocations: the memory of `hipGraphAddMemAllocNode` nodes (and of `hipMallocAsync`
//! captured into a graph).
//!
//! HIP gives the allocation's address when the node is made, and it stays the node's for the
//! graph's life. Neither backend here remaps physical memory under a fixed address, so the
//! memory itself is taken when the node is made (a *block*, device memory of the device the
//! node names) and kept while any graph or executable graph holds the node; an allocation is
//! *in use* from the launch that runs its alloc node until a free node, `hipFree` or
//! `hipFreeAsync` frees it. Blocks no graph holds and not in use go back to the device at
//! `hipDeviceGraphMemTrim`.
//!
//! `hipDeviceGetGraphMemAttribute` reports, per device: `UsedMemCurrent` the bytes in use,
//! `ReservedMemCurrent` the bytes of blocks held, and the highest each has been (which
//! `hipDeviceSetGraphMemAttribute` resets).
//!
//! Since the address belongs to the node, HIP forbids what would give two users one address:
//! a second executable graph of a graph with allocation nodes, cloning it, using it as a child
//! graph, or removing edges from its allocation and free nodes (`hipErrorNotSupported`).

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::backend::{Device, DeviceId, FreeKind, MemoryKind};
use crate::error::{Failure, HipError, HipResult};

/// One graph allocation's memory.
#[derive(Debug)]
pub struct Block {
    pub address: usize,
    pub size: usize,
    pub device: DeviceId,
    /// Allocated by a launch and not yet freed.
    in_use: AtomicBool,
    /// Held by a live executable graph (at most one).
    instantiated: AtomicBool,
}

impl Block {
    pub fn in_use(&self) -> bool {
        self.in_use.load(Ordering::Acquire)
    }
}

#[derive(Default)]
struct Usage {
    used: u64,
    used_high: u64,
    reserved: u64,
    reserved_high: u64,
}

#[derive(Default)]
struct Table {
    blocks: BTreeMap<usize, Arc<Block>>,
    usage: BTreeMap<DeviceId, Usage>,
}

static TABLE: Mutex<Option<Table>> = Mutex::new(None);

fn with_table<R>(f: impl FnOnce(&mut Table) -> R) -> R {
    let mut guard: MutexGuard<'_, Option<Table>> = TABLE.lock().unwrap_or_else(|p| p.into_inner());
    f(guard.get_or_insert_with(Table::default))
}

fn usage(t: &mut Table, device: DeviceId) -> &mut Usage {
    t.usage.entry(device).or_default()
}

fn count(u: &mut Usage, used: i64, reserved: i64) {
    u.used = u.used.saturating_add_signed(used);
    u.reserved = u.reserved.saturating_add_signed(reserved);
    u.used_high = u.used_high.max(u.used);
    u.reserved_high = u.reserved_high.max(u.reserved);
}

/// Takes a block of `size` bytes of `device`'s memory for a new allocation node.
pub fn reserve(device: &dyn Device, size: usize) -> HipResult<Arc<Block>> {
    if size == 0 {
        return Err(Failure::invalid_value("a graph allocation of 0 bytes"));
    }
    let p = device.allocate(MemoryKind::Device, size)?;
    let block = Arc::new(Block {
        address: p as usize,
        size,
        device: device.id(),
        in_use: AtomicBool::new(false),
        instantiated: AtomicBool::new(false),
    });
    with_table(|t| {
        t.blocks.insert(block.address, block.clone());
        count(usage(t, device.id()), 0, size as i64);
    });
    Ok(block)
}

/// The block starting at `address`, if it is a graph allocation.
pub fn block_at(address: usize) -> Option<Arc<Block>> {
    with_table(|t| t.blocks.get(&address).cloned())
}

/// An allocation node runs: its block is in use. One still in use from an earlier launch is
/// freed first when `auto_free` (`hipGraphInstantiateFlagAutoFreeOnLaunch`), else refused.
pub fn check_allocate(block: &Block, auto_free: bool) -> HipResult<()> {
    if block.in_use() && !auto_free {
        return Err(Failure::invalid_value(format!(
            "the graph's allocation at {:#x} from its last launch has not been freed (free it, \
             or instantiate with hipGraphInstantiateFlagAutoFreeOnLaunch)",
            block.address
        )));
    }
    Ok(())
}

pub fn allocate(block: &Block) {
    if !block.in_use.swap(true, Ordering::AcqRel) {
        with_table(|t| count(usage(t, block.device), block.size as i64, 0));
    }
}

/// A free node runs, or the program frees the allocation.
pub fn free(block: &Block) {
    if block.in_use.swap(false, Ordering::AcqRel) {
        with_table(|t| count(usage(t, block.device), -(block.size as i64), 0));
    }
}

/// `hipFree`/`hipFreeAsync` of `p`: `Ok(true)` when it is a graph allocation (now freed; its
/// block stays the node's), `Ok(false)` when it is not one.
pub fn free_outside_graph(p: *mut c_void) -> HipResult<bool> {
    let Some(block) = block_at(p as usize) else {
        return Ok(false);
    };
    if !block.in_use() {
        return Err(Failure::invalid_value(format!(
            "{p:p} is a graph allocation that is not allocated now (its graph has not run, or \
             it was freed already)"
        )));
    }
    free(&block);
    Ok(true)
}

/// An executable graph takes its allocation nodes' blocks: a block another one holds is
/// `hipErrorNotSupported` (and nothing is taken).
pub fn instantiate(blocks: &[Arc<Block>]) -> HipResult<()> {
    for (i, b) in blocks.iter().enumerate() {
        if b.instantiated.swap(true, Ordering::AcqRel) {
            for taken in &blocks[..i] {
                taken.instantiated.store(false, Ordering::Release);
            }
            return Err(Failure::new(
                HipError::NotSupported,
                "a graph with memory allocation nodes can have one executable graph at a time \
                 (its allocations' addresses are fixed)",
            ));
        }
    }
    Ok(())
}

/// An executable graph goes: its blocks can be instantiated again.
pub fn release(blocks: &[Arc<Block>]) {
    for b in blocks {
        b.instantiated.store(false, Ordering::Release);
    }
}

/// `hipDeviceGraphMemTrim`: blocks of `device` that no graph holds and that are not in use go
/// back to the device.
pub fn trim(device: &dyn Device) -> HipResult<()> {
    let idle: Vec<Arc<Block>> = with_table(|t| {
        let idle: Vec<usize> = t
            .blocks
            .iter()
            .filter(|(_, b)| b.device == device.id() && Arc::strong_count(b) == 1 && !b.in_use())
            .map(|(&a, _)| a)
            .collect();
        idle.iter().filter_map(|a| t.blocks.remove(a)).collect()
    });
    let mut first_error = None;
    for b in idle {
        with_table(|t| count(usage(t, b.device), 0, -(b.size as i64)));
        if let Err(e) = device.free(b.address as *mut c_void, FreeKind::Device) {
            first_error.get_or_insert(e);
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// `hipDeviceReset`: the device freed every allocation, graph blocks included; they are
/// forgotten (graphs holding them hold dead addresses, as every pointer of the device is).
pub fn reset(device: DeviceId) {
    with_table(|t| {
        t.blocks.retain(|_, b| b.device != device);
        t.usage.remove(&device);
    });
}

/// `hipGraphMemAttributeType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemAttribute {
    UsedMemCurrent = 0,
    UsedMemHigh = 1,
    ReservedMemCurrent = 2,
    ReservedMemHigh = 3,
}

impl MemAttribute {
    pub fn parse(attribute: i32) -> HipResult<Self> {
        Ok(match attribute {
            0 => MemAttribute::UsedMemCurrent,
            1 => MemAttribute::UsedMemHigh,
            2 => MemAttribute::ReservedMemCurrent,
            3 => MemAttribute::ReservedMemHigh,
            other => {
                return Err(Failure::invalid_value(format!(
                    "{other} is not a hipGraphMemAttributeType"
                )))
            }
        })
    }
}

/// `hipDeviceGetGraphMemAttribute`.
pub fn attribute(device: DeviceId, attribute: MemAttribute) -> u64 {
    with_table(|t| {
        let u = usage(t, device);
        match attribute {
            MemAttribute::UsedMemCurrent => u.used,
            MemAttribute::UsedMemHigh => u.used_high,
            MemAttribute::ReservedMemCurrent => u.reserved,
            MemAttribute::ReservedMemHigh => u.reserved_high,
        }
    })
}

/// `hipDeviceSetGraphMemAttribute`: only the high marks can be set, and only to 0, which
/// resets them to the current values.
pub fn reset_high(device: DeviceId, attribute: MemAttribute, value: u64) -> HipResult<()> {
    if value != 0 {
        return Err(Failure::invalid_value(format!(
            "a high mark can only be reset (set to 0), not set to {value}"
        )));
    }
    with_table(|t| {
        let u = usage(t, device);
        match attribute {
            MemAttribute::UsedMemHigh => {
                u.used_high = u.used;
                Ok(())
            }
            MemAttribute::ReservedMemHigh => {
                u.reserved_high = u.reserved;
                Ok(())
            }
            other => Err(Failure::invalid_value(format!(
                "{other:?} cannot be set; only UsedMemHigh and ReservedMemHigh can be reset"
            ))),
        }
    })
}
