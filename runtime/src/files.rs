//! Bounded reads of device-code files: one reader for the compiler and the runtime.
pub use hipmlir_device_image::files::{read_regular, MAX_DEVICE_FILE};
