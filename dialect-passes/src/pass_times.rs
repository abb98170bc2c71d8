//! How long each element of a pipeline took, for `hipmlir -ftime-report`: recorded only while
//! a caller asks for it, drained by the caller once the pipeline has run.

use std::sync::Mutex;
use std::time::Duration;

/// `None` while nobody records: then a pipeline run costs one lock, no allocation.
static PASS_TIMES: Mutex<Option<Vec<(String, Duration)>>> = Mutex::new(None);

/// Starts (or stops, dropping what was recorded) recording the time of every pipeline element.
pub fn record_pass_times(on: bool) {
    if let Ok(mut times) = PASS_TIMES.lock() {
        *times = on.then(Vec::new);
    }
}

/// What was recorded since the last call, in run order; recording goes on.
pub fn take_pass_times() -> Vec<(String, Duration)> {
    PASS_TIMES
        .lock()
        .ok()
        .and_then(|mut times| times.as_mut().map(std::mem::take))
        .unwrap_or_default()
}

pub(crate) fn recording() -> bool {
    PASS_TIMES.lock().map(|t| t.is_some()).unwrap_or(false)
}

pub(crate) fn record(element: String, time: Duration) {
    if let Ok(mut times) = PASS_TIMES.lock() {
        if let Some(times) = times.as_mut() {
            times.push((element, time));
        }
    }
}
