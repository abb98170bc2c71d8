//! Managed memory hints: `hipMemAdvise`, `hipMemPrefetchAsync` and what
//! `hipMemRangeGetAttribute` reads back.
//!
//! Managed memory is USM shared memory, which the device and the host both reach coherently, so
//! no hint changes where data lives or what a program sees. What HIP does promise is kept: advice
//! and prefetch locations are recorded per byte range and reported for any sub-range, as HIP
//! reports them (a value for the whole range, or `hipInvalidDeviceId` when it differs across the
//! range); a prefetch is a marker in stream order, so work after it on the stream, and a
//! synchronize, wait for it.

use std::ffi::c_int;
use std::sync::{Mutex, MutexGuard};

use super::memory::{self, AllocKind};
use crate::backend::{Location, MemAdvice, RangeAttribute, INVALID_DEVICE_ID};
use crate::error::{Failure, HipResult};

/// `hipMemRangeCoherencyMode`.
const COHERENCY_FINE_GRAIN: c_int = 0;
const COHERENCY_COARSE_GRAIN: c_int = 1;
const COHERENCY_INDETERMINATE: c_int = 2;

/// Values over disjoint half-open address ranges, sorted by start.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct RangeMap<V> {
    spans: Vec<(usize, usize, V)>,
}

impl<V: Clone + PartialEq> RangeMap<V> {
    pub const fn new() -> Self {
        RangeMap { spans: Vec::new() }
    }

    /// Sets `[start, end)` to `value` (`None` clears it), splitting spans it cuts.
    pub fn set(&mut self, start: usize, end: usize, value: Option<V>) {
        if start >= end {
            return;
        }
        let mut out = Vec::with_capacity(self.spans.len() + 2);
        for (s, e, v) in self.spans.drain(..) {
            if e <= start || s >= end {
                out.push((s, e, v));
                continue;
            }
            if s < start {
                out.push((s, start, v.clone()));
            }
            if e > end {
                out.push((end, e, v));
            }
        }
        if let Some(v) = value {
            out.push((start, end, v));
        }
        out.sort_by_key(|&(s, _, _)| s);
        // Merge touching spans of equal value so repeated hints do not grow the map.
        let mut merged: Vec<(usize, usize, V)> = Vec::with_capacity(out.len());
        for span in out {
            match merged.last_mut() {
                Some(last) if last.1 == span.0 && last.2 == span.2 => last.1 = span.1,
                _ => merged.push(span),
            }
        }
        self.spans = merged;
    }

    /// The value that covers all of `[start, end)`, if one does.
    pub fn uniform(&self, start: usize, end: usize) -> Option<&V> {
        let mut at = start;
        let mut found: Option<&V> = None;
        for (s, e, v) in &self.spans {
            if *e <= at {
                continue;
            }
            if *s > at || found.is_some_and(|f| f != v) {
                return None;
            }
            found = Some(v);
            at = *e;
            if at >= end {
                return found;
            }
        }
        None
    }

    pub fn clear(&mut self, start: usize, end: usize) {
        self.set(start, end, None);
    }
}

/// Everything recorded about managed ranges.
struct Hints {
    read_mostly: RangeMap<()>,
    preferred: RangeMap<c_int>,
    last_prefetch: RangeMap<c_int>,
    /// One map per device that may be named (the device, then the CPU).
    accessed_by: [RangeMap<()>; 2],
    coarse_grain: RangeMap<()>,
}

static HINTS: Mutex<Hints> = Mutex::new(Hints {
    read_mostly: RangeMap::new(),
    preferred: RangeMap::new(),
    last_prefetch: RangeMap::new(),
    accessed_by: [RangeMap::new(), RangeMap::new()],
    coarse_grain: RangeMap::new(),
});

fn hints() -> MutexGuard<'static, Hints> {
    // Each update is a whole-map replacement: a poisoned lock still holds consistent maps.
    HINTS.lock().unwrap_or_else(|p| p.into_inner())
}

/// The accessed-by map of a location: the device's, then the CPU's.
fn accessed_slot(location: Location) -> usize {
    usize::from(location == Location::Host)
}

/// `[ptr, ptr + count)` as an address range inside one managed allocation.
pub fn managed_range(ptr: usize, count: usize) -> HipResult<(usize, usize)> {
    if ptr == 0 || count == 0 {
        return Err(Failure::invalid_value(format!(
            "the range {ptr:#x}+{count} is null or empty"
        )));
    }
    match memory::find_allocation(ptr) {
        Some((base, size, AllocKind::Managed))
            if (ptr - base)
                .checked_add(count)
                .is_some_and(|end| end <= size) =>
        {
            Ok((ptr, ptr + count))
        }
        _ => Err(Failure::invalid_value(format!(
            "{ptr:#x}+{count} is not a range of hipMallocManaged memory"
        ))),
    }
}

/// `hipMemAdvise`: records the hint for the range (`location` given where the advice takes
/// one).
pub fn advise(
    ptr: usize,
    count: usize,
    advice: MemAdvice,
    location: Option<Location>,
) -> HipResult<()> {
    let (start, end) = managed_range(ptr, count)?;
    let located =
        || location.ok_or_else(|| Failure::invalid_value("the advice needs a device or the host"));
    let mut h = hints();
    match advice {
        MemAdvice::SetReadMostly => h.read_mostly.set(start, end, Some(())),
        MemAdvice::UnsetReadMostly => h.read_mostly.clear(start, end),
        MemAdvice::SetPreferredLocation => h.preferred.set(start, end, Some(located()?.raw())),
        MemAdvice::UnsetPreferredLocation => h.preferred.clear(start, end),
        MemAdvice::SetAccessedBy => {
            h.accessed_by[accessed_slot(located()?)].set(start, end, Some(()))
        }
        MemAdvice::UnsetAccessedBy => h.accessed_by[accessed_slot(located()?)].clear(start, end),
        MemAdvice::SetCoarseGrain => h.coarse_grain.set(start, end, Some(())),
        MemAdvice::UnsetCoarseGrain => h.coarse_grain.clear(start, end),
    }
    Ok(())
}

/// Checks a prefetch's range and records its destination.
pub fn note_prefetch(ptr: usize, count: usize, to: Location) -> HipResult<(usize, usize)> {
    let (start, end) = managed_range(ptr, count)?;
    hints().last_prefetch.set(start, end, Some(to.raw()));
    Ok((start, end))
}

/// `hipMemRangeGetAttribute`: the attribute's value for the range, as `data_size / 4` ints.
pub fn range_attribute(
    attribute: RangeAttribute,
    data_size: usize,
    ptr: usize,
    count: usize,
) -> HipResult<Vec<c_int>> {
    let (start, end) = managed_range(ptr, count)?;
    let one = |v: c_int| -> HipResult<Vec<c_int>> {
        if data_size != 4 {
            return Err(Failure::invalid_value(format!(
                "attribute {attribute:?} is one int: data_size must be 4, got {data_size}"
            )));
        }
        Ok(vec![v])
    };
    let h = hints();
    match attribute {
        RangeAttribute::ReadMostly => one(c_int::from(h.read_mostly.uniform(start, end).is_some())),
        RangeAttribute::PreferredLocation => one(h
            .preferred
            .uniform(start, end)
            .copied()
            .unwrap_or(INVALID_DEVICE_ID)),
        RangeAttribute::LastPrefetchLocation => one(h
            .last_prefetch
            .uniform(start, end)
            .copied()
            .unwrap_or(INVALID_DEVICE_ID)),
        RangeAttribute::CoherencyMode => one(
            match (
                h.coarse_grain.uniform(start, end).is_some(),
                h.coarse_grain
                    .spans
                    .iter()
                    .any(|&(s, e, _)| s < end && e > start),
            ) {
                (true, _) => COHERENCY_COARSE_GRAIN,
                (false, true) => COHERENCY_INDETERMINATE,
                (false, false) => COHERENCY_FINE_GRAIN,
            },
        ),
        RangeAttribute::AccessedBy => {
            if data_size == 0 || !data_size.is_multiple_of(4) {
                return Err(Failure::invalid_value(format!(
                    "accessed-by is a list of ints: data_size must be a non-zero multiple of 4, got {data_size}"
                )));
            }
            // Devices whose advice covers the whole range, then hipInvalidDeviceId padding.
            let mut out: Vec<c_int> = [Location::Device(0), Location::Host]
                .into_iter()
                .filter(|&d| {
                    h.accessed_by[accessed_slot(d)]
                        .uniform(start, end)
                        .is_some()
                })
                .map(Location::raw)
                .collect();
            out.truncate(data_size / 4);
            out.resize(data_size / 4, INVALID_DEVICE_ID);
            Ok(out)
        }
    }
}

/// Forgets every hint on `[base, base + size)` (the allocation was freed).
pub fn forget(base: usize, size: usize) {
    let end = base.saturating_add(size);
    let mut h = hints();
    h.read_mostly.clear(base, end);
    h.preferred.clear(base, end);
    h.last_prefetch.clear(base, end);
    for m in &mut h.accessed_by {
        m.clear(base, end);
    }
    h.coarse_grain.clear(base, end);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_splits_and_merges() {
        let mut m = RangeMap::new();
        m.set(0, 100, Some(1));
        m.set(40, 60, Some(2));
        assert_eq!(m.uniform(0, 40), Some(&1));
        assert_eq!(m.uniform(40, 60), Some(&2));
        assert_eq!(m.uniform(30, 50), None);
        assert_eq!(m.uniform(60, 100), Some(&1));
        m.set(40, 60, Some(1));
        assert_eq!(m.spans, vec![(0, 100, 1)]);
        m.clear(10, 20);
        assert_eq!(m.uniform(0, 100), None);
        assert_eq!(m.uniform(0, 10), Some(&1));
        assert_eq!(m.uniform(10, 20), None);
        assert_eq!(m.uniform(15, 16), None);
        assert_eq!(m.uniform(20, 100), Some(&1));
        assert_eq!(m.uniform(99, 101), None, "past the end is not covered");
    }

    #[test]
    fn gaps_are_not_covered() {
        let mut m = RangeMap::new();
        m.set(0, 10, Some(()));
        m.set(20, 30, Some(()));
        assert!(m.uniform(0, 30).is_none());
        m.set(10, 20, Some(()));
        assert!(m.uniform(0, 30).is_some());
        assert_eq!(m.spans.len(), 1);
    }
}
