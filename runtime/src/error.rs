//! `hipError_t`: HIP's numeric codes, their names and descriptions, the runtime's failure type and
//! the per-thread "last error".
//!
//! The codes are HIP's own (`hip_runtime_api.h`), so a program compiled against hipmlir's headers
//! and one compiled against ROCm's see the same numbers. `headers/hip/hip_runtime_api.h` declares the
//! same enumerators; a test compiles that header and checks the values against this table.

use std::cell::Cell;
use std::ffi::CStr;
use std::fmt;

macro_rules! hip_errors {
    ($($variant:ident = $code:literal, $name:literal, $text:literal;)*) => {
        /// A HIP error code. `#[repr(i32)]` like a C enum on every target hipmlir runs on.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(i32)]
        pub enum HipError {
            $($variant = $code,)*
        }

        impl HipError {
            /// Every code this runtime knows, in numeric order.
            pub const ALL: &'static [HipError] = &[$(HipError::$variant,)*];

            /// The code for a raw `hipError_t` value, if it is one this runtime knows.
            pub fn from_code(code: i32) -> Option<HipError> {
                match code {
                    $($code => Some(HipError::$variant),)*
                    _ => None,
                }
            }

            /// The enumerator's name, as `hipGetErrorName` returns it (`"hipErrorInvalidValue"`).
            pub fn name(self) -> &'static CStr {
                match self {
                    $(HipError::$variant => $name,)*
                }
            }

            /// HIP's description, as `hipGetErrorString` returns it (`"invalid argument"`).
            pub fn description(self) -> &'static CStr {
                match self {
                    $(HipError::$variant => $text,)*
                }
            }
        }
    };
}

hip_errors! {
    Success = 0, c"hipSuccess", c"no error";
    InvalidValue = 1, c"hipErrorInvalidValue", c"invalid argument";
    OutOfMemory = 2, c"hipErrorOutOfMemory", c"out of memory";
    NotInitialized = 3, c"hipErrorNotInitialized", c"initialization error";
    Deinitialized = 4, c"hipErrorDeinitialized", c"driver shutting down";
    ProfilerDisabled = 5, c"hipErrorProfilerDisabled", c"profiler disabled while using external profiling tool";
    ProfilerNotInitialized = 6, c"hipErrorProfilerNotInitialized", c"profiler is not initialized";
    ProfilerAlreadyStarted = 7, c"hipErrorProfilerAlreadyStarted", c"profiler already started";
    ProfilerAlreadyStopped = 8, c"hipErrorProfilerAlreadyStopped", c"profiler already stopped";
    InvalidConfiguration = 9, c"hipErrorInvalidConfiguration", c"invalid configuration argument";
    InvalidPitchValue = 12, c"hipErrorInvalidPitchValue", c"invalid pitch argument";
    InvalidSymbol = 13, c"hipErrorInvalidSymbol", c"invalid device symbol";
    InvalidDevicePointer = 17, c"hipErrorInvalidDevicePointer", c"invalid device pointer";
    InvalidMemcpyDirection = 21, c"hipErrorInvalidMemcpyDirection", c"invalid copy direction for memcpy";
    InsufficientDriver = 35, c"hipErrorInsufficientDriver", c"driver version is insufficient for runtime version";
    MissingConfiguration = 52, c"hipErrorMissingConfiguration", c"__global__ function call is not configured";
    PriorLaunchFailure = 53, c"hipErrorPriorLaunchFailure", c"unspecified launch failure in prior launch";
    InvalidDeviceFunction = 98, c"hipErrorInvalidDeviceFunction", c"invalid device function";
    NoDevice = 100, c"hipErrorNoDevice", c"no OpenCL device that accepts SPIR-V is available";
    InvalidDevice = 101, c"hipErrorInvalidDevice", c"invalid device ordinal";
    InvalidImage = 200, c"hipErrorInvalidImage", c"device kernel image is invalid";
    InvalidContext = 201, c"hipErrorInvalidContext", c"invalid device context";
    ContextAlreadyCurrent = 202, c"hipErrorContextAlreadyCurrent", c"context is already current context";
    MapFailed = 205, c"hipErrorMapFailed", c"mapping of buffer object failed";
    UnmapFailed = 206, c"hipErrorUnmapFailed", c"unmapping of buffer object failed";
    ArrayIsMapped = 207, c"hipErrorArrayIsMapped", c"array is mapped";
    AlreadyMapped = 208, c"hipErrorAlreadyMapped", c"resource already mapped";
    NoBinaryForGpu = 209, c"hipErrorNoBinaryForGpu", c"no kernel image is available for execution on the device";
    AlreadyAcquired = 210, c"hipErrorAlreadyAcquired", c"resource already acquired";
    NotMapped = 211, c"hipErrorNotMapped", c"resource not mapped";
    NotMappedAsArray = 212, c"hipErrorNotMappedAsArray", c"resource not mapped as array";
    NotMappedAsPointer = 213, c"hipErrorNotMappedAsPointer", c"resource not mapped as pointer";
    EccNotCorrectable = 214, c"hipErrorECCNotCorrectable", c"uncorrectable ECC error encountered";
    UnsupportedLimit = 215, c"hipErrorUnsupportedLimit", c"limit is not supported on this architecture";
    ContextAlreadyInUse = 216, c"hipErrorContextAlreadyInUse", c"exclusive-thread device already in use by a different thread";
    PeerAccessUnsupported = 217, c"hipErrorPeerAccessUnsupported", c"peer access is not supported between these two devices";
    InvalidKernelFile = 218, c"hipErrorInvalidKernelFile", c"invalid kernel file";
    InvalidGraphicsContext = 219, c"hipErrorInvalidGraphicsContext", c"invalid OpenGL or DirectX context";
    InvalidSource = 300, c"hipErrorInvalidSource", c"device kernel image is invalid";
    FileNotFound = 301, c"hipErrorFileNotFound", c"file not found";
    SharedObjectSymbolNotFound = 302, c"hipErrorSharedObjectSymbolNotFound", c"shared object symbol not found";
    SharedObjectInitFailed = 303, c"hipErrorSharedObjectInitFailed", c"shared object initialization failed";
    OperatingSystem = 304, c"hipErrorOperatingSystem", c"OS call failed or operation not supported on this OS";
    InvalidHandle = 400, c"hipErrorInvalidHandle", c"invalid resource handle";
    IllegalState = 401, c"hipErrorIllegalState", c"the operation cannot be performed in the present state";
    NotFound = 500, c"hipErrorNotFound", c"named symbol not found";
    NotReady = 600, c"hipErrorNotReady", c"device not ready";
    IllegalAddress = 700, c"hipErrorIllegalAddress", c"an illegal memory access was encountered";
    LaunchOutOfResources = 701, c"hipErrorLaunchOutOfResources", c"too many resources requested for launch";
    LaunchTimeOut = 702, c"hipErrorLaunchTimeOut", c"the launch timed out and was terminated";
    PeerAccessAlreadyEnabled = 704, c"hipErrorPeerAccessAlreadyEnabled", c"peer access is already enabled";
    PeerAccessNotEnabled = 705, c"hipErrorPeerAccessNotEnabled", c"peer access has not been enabled";
    SetOnActiveProcess = 708, c"hipErrorSetOnActiveProcess", c"cannot set while device is active in this process";
    ContextIsDestroyed = 709, c"hipErrorContextIsDestroyed", c"context is destroyed";
    Assert = 710, c"hipErrorAssert", c"device-side assert triggered";
    HostMemoryAlreadyRegistered = 712, c"hipErrorHostMemoryAlreadyRegistered", c"part or all of the requested memory range is already mapped";
    HostMemoryNotRegistered = 713, c"hipErrorHostMemoryNotRegistered", c"pointer does not correspond to a registered memory region";
    LaunchFailure = 719, c"hipErrorLaunchFailure", c"unspecified launch failure";
    CooperativeLaunchTooLarge = 720, c"hipErrorCooperativeLaunchTooLarge", c"too many blocks in cooperative launch";
    NotSupported = 801, c"hipErrorNotSupported", c"operation not supported";
    StreamCaptureUnsupported = 900, c"hipErrorStreamCaptureUnsupported", c"operation not permitted when stream is capturing";
    StreamCaptureInvalidated = 901, c"hipErrorStreamCaptureInvalidated", c"operation failed due to a previous error during capture";
    StreamCaptureMerge = 902, c"hipErrorStreamCaptureMerge", c"operation would result in a merge of separate capture sequences";
    StreamCaptureUnmatched = 903, c"hipErrorStreamCaptureUnmatched", c"capture was not ended in the same stream as it began";
    StreamCaptureUnjoined = 904, c"hipErrorStreamCaptureUnjoined", c"capturing stream has unjoined work";
    StreamCaptureIsolation = 905, c"hipErrorStreamCaptureIsolation", c"dependency created on uncaptured work in another stream";
    StreamCaptureImplicit = 906, c"hipErrorStreamCaptureImplicit", c"operation would make the legacy stream depend on a capturing blocking stream";
    CapturedEvent = 907, c"hipErrorCapturedEvent", c"operation not permitted on an event last recorded in a capturing stream";
    StreamCaptureWrongThread = 908, c"hipErrorStreamCaptureWrongThread", c"attempt to terminate a thread-local capture sequence from another thread";
    GraphExecUpdateFailure = 910, c"hipErrorGraphExecUpdateFailure", c"the graph update was not performed because it included changes which violated constraints specific to instantiated graph update";
    InvalidChannelDescriptor = 911, c"hipErrorInvalidChannelDescriptor", c"invalid channel descriptor";
    InvalidTexture = 912, c"hipErrorInvalidTexture", c"invalid texture";
    Unknown = 999, c"hipErrorUnknown", c"unknown error";
    RuntimeMemory = 1052, c"hipErrorRuntimeMemory", c"runtime memory call returned error";
    RuntimeOther = 1053, c"hipErrorRuntimeOther", c"runtime call other than memory returned error";
    Tbd = 1054, c"hipErrorTbd", c"unknown error";
}

impl HipError {
    /// The raw `hipError_t` value.
    pub fn code(self) -> i32 {
        self as i32
    }

    /// `hipGetErrorName` for any integer: unknown values get `"hipErrorUnknown"`, as in HIP.
    pub fn name_of(code: i32) -> &'static CStr {
        HipError::from_code(code)
            .unwrap_or(HipError::Unknown)
            .name()
    }

    /// `hipGetErrorString` for any integer: unknown values get HIP's "unknown error".
    pub fn description_of(code: i32) -> &'static CStr {
        HipError::from_code(code)
            .unwrap_or(HipError::Unknown)
            .description()
    }
}

impl fmt::Display for HipError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name().to_string_lossy())
    }
}

/// Why an API call failed: the code it returns and what to tell the user on stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub code: HipError,
    /// One line for stderr; empty when the code says it all or the problem was already reported
    /// (e.g. device discovery failing, which is printed once).
    pub message: String,
}

impl Failure {
    pub fn new(code: HipError, message: impl Into<String>) -> Self {
        Failure {
            code,
            message: message.into(),
        }
    }

    /// A failure that prints nothing (already reported, or self-explanatory).
    pub fn quiet(code: HipError) -> Self {
        Failure {
            code,
            message: String::new(),
        }
    }

    pub fn invalid_value(message: impl Into<String>) -> Self {
        Failure::new(HipError::InvalidValue, message)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            write!(f, "{}", self.code)
        } else {
            write!(f, "{} ({})", self.message, self.code)
        }
    }
}

pub type HipResult<T> = Result<T, Failure>;

thread_local! {
    static LAST_ERROR: Cell<HipError> = const { Cell::new(HipError::Success) };
}

/// Records a failure as this thread's last error (successes leave it alone, as in HIP/CUDA).
pub fn record_last_error(code: HipError) {
    if code != HipError::Success {
        // `try_with`: a call during thread teardown must not panic.
        let _ = LAST_ERROR.try_with(|e| e.set(code));
    }
}

/// `hipGetLastError`: returns this thread's last error and resets it to `hipSuccess`.
pub fn take_last_error() -> HipError {
    LAST_ERROR
        .try_with(|e| e.replace(HipError::Success))
        .unwrap_or(HipError::Success)
}

/// `hipPeekAtLastError`: returns this thread's last error and keeps it.
pub fn peek_last_error() -> HipError {
    LAST_ERROR
        .try_with(|e| e.get())
        .unwrap_or(HipError::Success)
}

/// Prints one diagnostic line, `hipmlir: <function>: <message>` (an `error` line of
/// `HIPMLIR_LOG`; "not supported" notices are `warn` lines, printed once per function).
pub fn report(function: &str, code: HipError, message: &str) {
    if message.is_empty() {
        return;
    }
    if code == HipError::NotSupported {
        if crate::log::first_time(function) {
            crate::log::log(
                crate::log::Level::Warn,
                format_args!("{function}: {message}"),
            );
        }
    } else {
        crate::log::log(
            crate::log::Level::Error,
            format_args!("{function}: {message}"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_hips() {
        let expected = [
            (HipError::Success, 0),
            (HipError::InvalidValue, 1),
            (HipError::OutOfMemory, 2),
            (HipError::NotInitialized, 3),
            (HipError::InvalidConfiguration, 9),
            (HipError::InvalidDevicePointer, 17),
            (HipError::InvalidMemcpyDirection, 21),
            (HipError::InvalidDeviceFunction, 98),
            (HipError::NoDevice, 100),
            (HipError::InvalidDevice, 101),
            (HipError::InvalidImage, 200),
            (HipError::NotFound, 500),
            (HipError::LaunchFailure, 719),
            (HipError::NotSupported, 801),
            (HipError::Unknown, 999),
        ];
        for (err, code) in expected {
            assert_eq!(err.code(), code, "{err}");
            assert_eq!(HipError::from_code(code), Some(err));
        }
    }

    #[test]
    fn table_is_sorted_and_round_trips() {
        for pair in HipError::ALL.windows(2) {
            assert!(pair[0].code() < pair[1].code(), "{:?}", pair);
        }
        for &err in HipError::ALL {
            assert_eq!(HipError::from_code(err.code()), Some(err));
            let name = err.name().to_str().unwrap();
            assert!(name.starts_with("hipSuccess") || name.starts_with("hipError"));
            assert!(!err.description().to_bytes().is_empty());
        }
    }

    #[test]
    fn names_and_strings() {
        assert_eq!(HipError::name_of(0), c"hipSuccess");
        assert_eq!(HipError::description_of(0), c"no error");
        assert_eq!(HipError::name_of(1), c"hipErrorInvalidValue");
        assert_eq!(HipError::description_of(1), c"invalid argument");
        assert_eq!(HipError::name_of(98), c"hipErrorInvalidDeviceFunction");
        // Values HIP does not define read as unknown, never as garbage.
        assert_eq!(HipError::name_of(-7), c"hipErrorUnknown");
        assert_eq!(HipError::description_of(123456), c"unknown error");
    }

    #[test]
    fn last_error_is_per_thread_and_taken_once() {
        assert_eq!(take_last_error(), HipError::Success);
        record_last_error(HipError::InvalidValue);
        record_last_error(HipError::Success); // successes do not clear it
        assert_eq!(peek_last_error(), HipError::InvalidValue);
        std::thread::spawn(|| assert_eq!(peek_last_error(), HipError::Success))
            .join()
            .unwrap();
        assert_eq!(take_last_error(), HipError::InvalidValue);
        assert_eq!(take_last_error(), HipError::Success);
    }
}
