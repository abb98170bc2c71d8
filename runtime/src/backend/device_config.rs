//! The vocabulary of several devices and of a device's settings: peer attributes, cache and
//! shared-memory configurations, device flags, inter-process handles, and the stream memory
//! operations (`hipStreamWaitValue*`, `hipStreamWriteValue*`). `api/` converts the C values into
//! these once; the backends see only well-formed ones.

use std::ffi::c_int;
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicUsize, Ordering};

use crate::error::{Failure, HipError, HipResult};

/// `hipDeviceP2PAttr`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum P2pAttribute {
    PerformanceRank = 0,
    AccessSupported = 1,
    NativeAtomicSupported = 2,
    ArrayAccessSupported = 3,
}

impl P2pAttribute {
    pub fn parse(attribute: c_int) -> HipResult<Self> {
        Ok(match attribute {
            0 => P2pAttribute::PerformanceRank,
            1 => P2pAttribute::AccessSupported,
            2 => P2pAttribute::NativeAtomicSupported,
            3 => P2pAttribute::ArrayAccessSupported,
            other => {
                return Err(Failure::invalid_value(format!(
                    "{other} is not a hipDeviceP2PAttr (0..=3)"
                )))
            }
        })
    }
}

/// `hipFuncCache_t`: a preference between shared memory and L1 cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CacheConfig {
    #[default]
    PreferNone = 0,
    PreferShared = 1,
    PreferL1 = 2,
    PreferEqual = 3,
}

impl CacheConfig {
    pub fn parse(config: c_int) -> HipResult<Self> {
        Ok(match config {
            0 => CacheConfig::PreferNone,
            1 => CacheConfig::PreferShared,
            2 => CacheConfig::PreferL1,
            3 => CacheConfig::PreferEqual,
            other => {
                return Err(Failure::invalid_value(format!(
                    "{other} is not a hipFuncCache_t (0..=3)"
                )))
            }
        })
    }

    pub fn raw(self) -> c_int {
        self as c_int
    }
}

/// `hipSharedMemConfig`: the shared memory's bank width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SharedMemConfig {
    /// `hipSharedMemBankSizeDefault`.
    #[default]
    Default = 0,
    /// `hipSharedMemBankSizeFourByte`.
    FourByte = 1,
    /// `hipSharedMemBankSizeEightByte`.
    EightByte = 2,
}

impl SharedMemConfig {
    pub fn parse(config: c_int) -> HipResult<Self> {
        Ok(match config {
            0 => SharedMemConfig::Default,
            1 => SharedMemConfig::FourByte,
            2 => SharedMemConfig::EightByte,
            other => {
                return Err(Failure::invalid_value(format!(
                    "{other} is not a hipSharedMemConfig (0..=2)"
                )))
            }
        })
    }

    pub fn raw(self) -> c_int {
        self as c_int
    }
}

/// `hipSetDeviceFlags`' flags: one scheduling policy (`hipDeviceScheduleAuto` 0, `Spin` 1,
/// `Yield` 2, `BlockingSync` 4), `hipDeviceMapHost` (8) and `hipDeviceLmemResizeToMax` (0x10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeviceFlags(u32);

impl DeviceFlags {
    pub const SCHEDULE_MASK: u32 = 0x7;
    pub const MAP_HOST: u32 = 0x8;
    pub const LMEM_RESIZE_TO_MAX: u32 = 0x10;

    pub fn parse(flags: u32) -> HipResult<Self> {
        let known = Self::SCHEDULE_MASK | Self::MAP_HOST | Self::LMEM_RESIZE_TO_MAX;
        if flags & !known != 0 {
            return Err(Failure::invalid_value(format!(
                "device flags {flags:#x}: only hipDeviceSchedule*, hipDeviceMapHost and \
                 hipDeviceLmemResizeToMax exist"
            )));
        }
        if (flags & Self::SCHEDULE_MASK).count_ones() > 1 {
            return Err(Failure::invalid_value(format!(
                "device flags {flags:#x} name more than one scheduling policy"
            )));
        }
        Ok(DeviceFlags(flags))
    }

    pub fn raw(self) -> u32 {
        self.0
    }

    /// What `hipGetDeviceFlags` reports: the scheduling policy alone (ROCm's runtime ignores
    /// the other flags, and HIP programs compare with it).
    pub fn reported(self) -> u32 {
        self.0 & Self::SCHEDULE_MASK
    }
}

/// What a program sets on a device and reads back where the backend has no control of its
/// own: the cache and shared-memory preferences, the device flags, the stack size (each device
/// its own).
#[derive(Debug)]
pub struct DeviceSettings {
    cache_config: AtomicI32,
    shared_mem_config: AtomicI32,
    device_flags: AtomicU32,
    stack_size: AtomicUsize,
}

impl Default for DeviceSettings {
    fn default() -> Self {
        DeviceSettings {
            cache_config: AtomicI32::new(0),
            shared_mem_config: AtomicI32::new(SharedMemConfig::FourByte as i32),
            device_flags: AtomicU32::new(0),
            stack_size: AtomicUsize::new(DEFAULT_STACK_SIZE),
        }
    }
}

/// The per-thread stack size reported until a program sets one (`hipLimitStackSize`): 1 KiB,
/// HIP's default on AMD GPUs.
pub const DEFAULT_STACK_SIZE: usize = 1024;

impl DeviceSettings {
    /// `hipLimitStackSize` where the device compiler sizes each kernel's private memory itself
    /// (OpenCL): any size asked for is honoured, so the last one set is reported.
    pub fn stack_size(&self) -> usize {
        self.stack_size.load(Ordering::Relaxed)
    }

    pub fn set_stack_size(&self, bytes: usize) {
        self.stack_size.store(bytes, Ordering::Relaxed);
    }

    pub fn cache_config(&self) -> CacheConfig {
        CacheConfig::parse(self.cache_config.load(Ordering::Relaxed)).unwrap_or_default()
    }

    pub fn set_cache_config(&self, config: CacheConfig) {
        self.cache_config.store(config.raw(), Ordering::Relaxed);
    }

    pub fn shared_mem_config(&self) -> SharedMemConfig {
        SharedMemConfig::parse(self.shared_mem_config.load(Ordering::Relaxed)).unwrap_or_default()
    }

    pub fn set_shared_mem_config(&self, config: SharedMemConfig) {
        self.shared_mem_config
            .store(config.raw(), Ordering::Relaxed);
    }

    pub fn device_flags(&self) -> DeviceFlags {
        DeviceFlags(self.device_flags.load(Ordering::Relaxed))
    }

    pub fn set_device_flags(&self, flags: DeviceFlags) {
        self.device_flags.store(flags.raw(), Ordering::Relaxed);
    }

    /// Back to the defaults (`hipDeviceReset`).
    pub fn reset(&self) {
        self.cache_config.store(0, Ordering::Relaxed);
        self.shared_mem_config
            .store(SharedMemConfig::FourByte as i32, Ordering::Relaxed);
        self.device_flags.store(0, Ordering::Relaxed);
        self.stack_size.store(DEFAULT_STACK_SIZE, Ordering::Relaxed);
    }
}

/// `HIP_IPC_HANDLE_SIZE`: the bytes of `hipIpcMemHandle_t` and `hipIpcEventHandle_t`.
pub const IPC_HANDLE_SIZE: usize = 64;

/// The opaque bytes of an inter-process memory or event handle.
pub type IpcHandle = [u8; IPC_HANDLE_SIZE];

/// `hipIpcMemLazyEnablePeerAccess`, the one flag of `hipIpcOpenMemHandle`.
pub const IPC_MEM_LAZY_ENABLE_PEER_ACCESS: u32 = 1;

/// The width of a stream memory operation's word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueWidth {
    Bits32,
    Bits64,
}

impl ValueWidth {
    pub fn bytes(self) -> usize {
        match self {
            ValueWidth::Bits32 => 4,
            ValueWidth::Bits64 => 8,
        }
    }

    /// The word's bits of `value` (a 32-bit word ignores the upper half).
    pub fn truncate(self, value: u64) -> u64 {
        match self {
            ValueWidth::Bits32 => value & u64::from(u32::MAX),
            ValueWidth::Bits64 => value,
        }
    }
}

/// `hipStreamWaitValue*`'s comparison: `hipStreamWaitValueGte` (0), `Eq` (1), `And` (2), `Nor`
/// (3), applied to the stored word under the mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitCondition {
    GreaterOrEqual,
    Equal,
    And,
    Nor,
}

impl WaitCondition {
    pub fn parse(flags: u32) -> HipResult<Self> {
        Ok(match flags {
            0 => WaitCondition::GreaterOrEqual,
            1 => WaitCondition::Equal,
            2 => WaitCondition::And,
            3 => WaitCondition::Nor,
            other => {
                return Err(Failure::invalid_value(format!(
                    "{other} is not a hipStreamWaitValue comparison (hipStreamWaitValueGte, \
                     Eq, And or Nor)"
                )))
            }
        })
    }

    /// The driver's number for it (the CUDA driver's `CU_STREAM_WAIT_VALUE_*` are HIP's).
    pub fn raw(self) -> u32 {
        self as u32
    }
}

/// A stream's wait on a word of memory: it holds the stream until the condition holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValueWait {
    pub address: usize,
    pub width: ValueWidth,
    pub condition: WaitCondition,
    pub value: u64,
    pub mask: u64,
}

impl ValueWait {
    /// Whether `stored` (the word read from memory) satisfies the wait, as HIP compares:
    /// the stored word is masked first; `Gte` and `Eq` compare it with the value, `And` asks
    /// for a common bit, `Nor` for a bit set in neither.
    pub fn is_met_by(&self, stored: u64) -> bool {
        let w = self.width;
        let word = w.truncate(stored & self.mask);
        let value = w.truncate(self.value);
        match self.condition {
            WaitCondition::GreaterOrEqual => word >= value,
            WaitCondition::Equal => word == value,
            WaitCondition::And => word & value != 0,
            WaitCondition::Nor => w.truncate(!(word | value)) != 0,
        }
    }

    /// Whether the mask keeps every bit (the CUDA driver's waits have no mask).
    pub fn is_unmasked(&self) -> bool {
        self.width.truncate(!self.mask) == 0
    }

    /// Checks the word's address: not null, aligned to its width.
    pub fn check_address(address: usize, width: ValueWidth) -> HipResult<()> {
        check_word(address, width)
    }
}

/// A stream-ordered write of a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValueWrite {
    pub address: usize,
    pub width: ValueWidth,
    pub value: u64,
}

impl ValueWrite {
    /// The bytes stored, in the host's order.
    pub fn bytes(&self) -> Vec<u8> {
        match self.width {
            ValueWidth::Bits32 => (self.value as u32).to_ne_bytes().to_vec(),
            ValueWidth::Bits64 => self.value.to_ne_bytes().to_vec(),
        }
    }
}

fn check_word(address: usize, width: ValueWidth) -> HipResult<()> {
    if address == 0 {
        return Err(Failure::invalid_value("the word's pointer is null"));
    }
    if !address.is_multiple_of(width.bytes()) {
        return Err(Failure::invalid_value(format!(
            "{address:#x} is not aligned to the {}-byte word",
            width.bytes()
        )));
    }
    Ok(())
}

/// `hipLimitRange` and beyond, and negative values: not a limit (`hipErrorUnsupportedLimit`).
pub fn unsupported_limit(limit: c_int) -> Failure {
    Failure::new(
        HipError::UnsupportedLimit,
        format!("{limit} is not a hipLimit_t (hipLimitStackSize, PrintfFifoSize, MallocHeapSize)"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait(condition: WaitCondition, mask: u64, value: u64, width: ValueWidth) -> ValueWait {
        ValueWait {
            address: 8,
            width,
            condition,
            value,
            mask,
        }
    }

    #[test]
    fn wait_conditions_compare_the_masked_word() {
        use ValueWidth::*;
        use WaitCondition::*;
        let gte = wait(GreaterOrEqual, 0xF, 0x4, Bits32);
        assert!(!gte.is_met_by(0x3) && gte.is_met_by(0x6) && gte.is_met_by(0xF4));
        let eq = wait(Equal, 0x0000_FFFF, 1, Bits32);
        assert!(eq.is_met_by(0xABCD_0001) && !eq.is_met_by(2));
        let and = wait(And, 0xFF, 0xF4A, Bits32);
        assert!(!and.is_met_by(0xF35) && and.is_met_by(0x02));
        let nor = wait(Nor, u64::MAX, 0x7AAA_AAAA, Bits32);
        assert!(!nor.is_met_by(0x8555_5555) && nor.is_met_by(0x0555_5555));
        // A 32-bit word ignores the upper half of the value and of the mask.
        let nor64 = wait(Nor, u64::MAX, 0x4724_7247_4724_7247, Bits64);
        assert!(!nor64.is_met_by(!0x4724_7247_4724_7247) && nor64.is_met_by(0));
        assert!(wait(Equal, u64::from(u32::MAX), 5, Bits32).is_unmasked());
        assert!(!wait(Equal, 0xFF, 5, Bits32).is_unmasked());
    }

    #[test]
    fn settings_parse_and_refuse_unknown_values() {
        assert_eq!(CacheConfig::parse(3).unwrap(), CacheConfig::PreferEqual);
        assert_eq!(
            CacheConfig::parse(-1).unwrap_err().code,
            HipError::InvalidValue
        );
        assert_eq!(SharedMemConfig::parse(2).unwrap().raw(), 2);
        assert!(SharedMemConfig::parse(3).is_err());
        for ok in [0, 1, 2, 4, 8, 0x10, 0x1c, 0x19] {
            assert_eq!(DeviceFlags::parse(ok).unwrap().raw(), ok, "{ok:#x}");
        }
        for bad in [0b011, 0b101, 0b110, 0b111, 0b10_0000, 0xFFFF] {
            assert!(DeviceFlags::parse(bad).is_err(), "{bad:#x}");
        }
        assert!(P2pAttribute::parse(10).is_err());
        assert!(WaitCondition::parse(4).is_err());
        assert!(ValueWait::check_address(6, ValueWidth::Bits64).is_err());
        assert!(ValueWait::check_address(0, ValueWidth::Bits32).is_err());
        assert_eq!(
            ValueWrite {
                address: 8,
                width: ValueWidth::Bits32,
                value: 0x1_0000_0002
            }
            .bytes(),
            2u32.to_ne_bytes()
        );
    }
}
