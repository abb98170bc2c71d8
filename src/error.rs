//! The driver's errors.

pub fn io_err(what: &str, e: std::io::Error) -> String {
    format!("hipmlir: error: {what}: {e}")
}
