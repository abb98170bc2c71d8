//! hiprtc's result codes, numbered as HIP numbers them (`hip/hiprtc.h`), and their names.

use std::ffi::{c_int, CStr};

/// `hiprtcResult`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HiprtcResult {
    Success = 0,
    OutOfMemory = 1,
    ProgramCreationFailure = 2,
    InvalidInput = 3,
    InvalidProgram = 4,
    InvalidOption = 5,
    Compilation = 6,
    BuiltinOperationFailure = 7,
    NoNameExpressionsAfterCompilation = 8,
    NoLoweredNamesBeforeCompilation = 9,
    NameExpressionNotValid = 10,
    InternalError = 11,
    Linking = 100,
}

/// Every code with its name, as `hiprtcGetErrorString` answers.
const NAMES: &[(HiprtcResult, &CStr)] = &[
    (HiprtcResult::Success, c"HIPRTC_SUCCESS"),
    (HiprtcResult::OutOfMemory, c"HIPRTC_ERROR_OUT_OF_MEMORY"),
    (
        HiprtcResult::ProgramCreationFailure,
        c"HIPRTC_ERROR_PROGRAM_CREATION_FAILURE",
    ),
    (HiprtcResult::InvalidInput, c"HIPRTC_ERROR_INVALID_INPUT"),
    (
        HiprtcResult::InvalidProgram,
        c"HIPRTC_ERROR_INVALID_PROGRAM",
    ),
    (HiprtcResult::InvalidOption, c"HIPRTC_ERROR_INVALID_OPTION"),
    (HiprtcResult::Compilation, c"HIPRTC_ERROR_COMPILATION"),
    (
        HiprtcResult::BuiltinOperationFailure,
        c"HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE",
    ),
    (
        HiprtcResult::NoNameExpressionsAfterCompilation,
        c"HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
    ),
    (
        HiprtcResult::NoLoweredNamesBeforeCompilation,
        c"HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
    ),
    (
        HiprtcResult::NameExpressionNotValid,
        c"HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
    ),
    (HiprtcResult::InternalError, c"HIPRTC_ERROR_INTERNAL_ERROR"),
    (HiprtcResult::Linking, c"HIPRTC_ERROR_LINKING"),
];

/// The name of a code as a C program passes it (any int: an unknown one gets a name too, never
/// a null pointer).
pub fn name_of(code: c_int) -> &'static CStr {
    NAMES
        .iter()
        .find(|(r, _)| *r as c_int == code)
        .map_or(c"HIPRTC_ERROR_UNKNOWN (not a hiprtcResult)", |(_, name)| {
            name
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_its_hip_name_and_number() {
        assert_eq!(name_of(0), c"HIPRTC_SUCCESS");
        assert_eq!(name_of(6), c"HIPRTC_ERROR_COMPILATION");
        assert_eq!(name_of(100), c"HIPRTC_ERROR_LINKING");
        assert_eq!(name_of(11), c"HIPRTC_ERROR_INTERNAL_ERROR");
        assert!(name_of(12).to_bytes().starts_with(b"HIPRTC_ERROR_UNKNOWN"));
        assert!(name_of(-1).to_bytes().starts_with(b"HIPRTC_ERROR_UNKNOWN"));
        for (code, name) in NAMES {
            assert_eq!(name_of(*code as c_int), *name);
        }
    }
}
