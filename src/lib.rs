//! The compiler's device path as a library: a HIP source's device code through the frontend,
//! the device link and the target pipelines to an image (SPIR-V and PTX with their metadata).
//! The driver (`hipmlir-compiler`, src/main.rs) and hiprtc (`libhiprtc.so`, hiprtc/) both
//! compile with it, so a kernel compiled at run time is the kernel a build makes.
pub mod cli;
pub mod device;
pub mod elf;
pub mod paths;
pub mod time_report;
