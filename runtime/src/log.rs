//! Diagnostics on stderr, filtered by `HIPMLIR_LOG` (`off`, `error`, `warn` (default), `info`,
//! `debug`, `trace`). `HIPMLIR_VERBOSE=1`, the older switch, means `info`.
//!
//! Every line starts with `hipmlir: `. API failures are `error` lines; "not supported" notices are
//! printed once per function ([`not_supported_once`]).

use std::collections::HashSet;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock};

/// How much to print; higher prints more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Level {
    Off = 0,
    Error = 1,
    Warn = 2,
    Info = 3,
    Debug = 4,
    Trace = 5,
}

impl Level {
    /// Parses a `HIPMLIR_LOG` value (case-insensitive; numbers 0..=5 also work).
    pub fn parse(text: &str) -> Option<Level> {
        Some(match text.trim().to_ascii_lowercase().as_str() {
            "off" | "none" | "quiet" | "0" => Level::Off,
            "error" | "1" => Level::Error,
            "warn" | "warning" | "2" => Level::Warn,
            "info" | "3" => Level::Info,
            "debug" | "4" => Level::Debug,
            "trace" | "5" => Level::Trace,
            _ => return None,
        })
    }
}

const UNSET: u8 = u8::MAX;
static LEVEL: AtomicU8 = AtomicU8::new(UNSET);

/// The level in force (read from the environment on first use).
pub fn level() -> Level {
    let raw = LEVEL.load(Ordering::Relaxed);
    if raw != UNSET {
        return from_raw(raw);
    }
    let level = match std::env::var("HIPMLIR_LOG") {
        Ok(v) => Level::parse(&v).unwrap_or_else(|| {
            eprintln!(
                "hipmlir: HIPMLIR_LOG={v} is not one of off, error, warn, info, debug, trace; using warn"
            );
            Level::Warn
        }),
        Err(_) if std::env::var_os("HIPMLIR_VERBOSE").is_some() => Level::Info,
        Err(_) => Level::Warn,
    };
    LEVEL.store(level as u8, Ordering::Relaxed);
    level
}

fn from_raw(raw: u8) -> Level {
    match raw {
        0 => Level::Off,
        1 => Level::Error,
        2 => Level::Warn,
        3 => Level::Info,
        4 => Level::Debug,
        _ => Level::Trace,
    }
}

/// Overrides the level (tests).
pub fn set_level(level: Level) {
    LEVEL.store(level as u8, Ordering::Relaxed);
}

pub fn enabled(at: Level) -> bool {
    at != Level::Off && at <= level()
}

/// Prints `hipmlir: <message>` if `at` is enabled.
pub fn log(at: Level, message: std::fmt::Arguments<'_>) {
    if enabled(at) {
        eprintln!("hipmlir: {message}");
    }
}

#[macro_export]
#[doc(hidden)]
macro_rules! hlog {
    ($level:ident, $($arg:tt)*) => {
        $crate::log::log($crate::log::Level::$level, format_args!($($arg)*))
    };
}

/// Whether `function`'s "not supported" notice is still to be printed (true once per name).
pub fn first_time(function: &str) -> bool {
    static SEEN: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    let seen = SEEN.get_or_init(Default::default);
    let mut seen = seen.lock().unwrap_or_else(|p| p.into_inner());
    seen.insert(function.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_and_order() {
        assert_eq!(Level::parse("TRACE"), Some(Level::Trace));
        assert_eq!(Level::parse(" warn "), Some(Level::Warn));
        assert_eq!(Level::parse("off"), Some(Level::Off));
        assert_eq!(Level::parse("3"), Some(Level::Info));
        assert_eq!(Level::parse("loud"), None);
        assert!(Level::Error < Level::Warn && Level::Debug < Level::Trace);
        for l in [
            Level::Off,
            Level::Error,
            Level::Warn,
            Level::Info,
            Level::Debug,
            Level::Trace,
        ] {
            assert_eq!(from_raw(l as u8), l);
        }
    }

    #[test]
    fn first_time_is_once_per_name() {
        assert!(first_time("hipTestOnlyFunctionA"));
        assert!(!first_time("hipTestOnlyFunctionA"));
        assert!(first_time("hipTestOnlyFunctionB"));
    }
}
