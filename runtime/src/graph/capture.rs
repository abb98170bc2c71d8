//! Stream capture: between `hipStreamBeginCapture` and `hipStreamEndCapture`, work issued to a
//! capturing stream is recorded into a graph instead of run (every `ops` function asks
//! [`intercept`] first).
//!
//! * A capture [`Sequence`] has one graph, its origin stream, a mode and the thread that began
//!   it. Each stream taking part keeps a [`Joined`] on its [`Stream`]: the sequence and the
//!   nodes its next operation depends on (its *frontier*).
//! * An event recorded on a capturing stream remembers the frontier (no node: CUDA's internal
//!   record); a stream waiting for such an event joins the sequence with that frontier (a fork),
//!   or, already in it, adds it to its own (a join). A capturing stream waiting for an event
//!   recorded outside the capture is `hipErrorStreamCaptureIsolation`.
//! * `hipStreamEndCapture` on the origin ends the sequence for every stream in it. A stream
//!   whose frontier is not an ancestor of the origin's (work forked and never joined back) makes
//!   it `hipErrorStreamCaptureUnjoined`.
//! * The legacy null stream synchronizes with blocking streams, so work on it while a blocking
//!   stream of its device captures is `hipErrorStreamCaptureImplicit` and invalidates that
//!   capture. Calls that may synchronize implicitly (allocation, synchronous copies, device and
//!   stream synchronization) are refused with `hipErrorStreamCaptureUnsupported` by the
//!   calling thread's mode (`hipThreadExchangeStreamCaptureMode`): in `Global` mode while this
//!   thread has a capture not begun `Relaxed` or another thread has a `Global` one; in
//!   `ThreadLocal` mode only for this thread's own; never in `Relaxed` mode.
//!
//! While no capture is active anywhere, [`intercept`] costs one atomic load.

use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::thread::ThreadId;

use super::{Graph, NodeId, Op};
use crate::backend::{DeviceId, Event, Stream};
use crate::error::{Failure, HipError, HipResult};

/// `hipStreamCaptureMode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptureMode {
    Global = 0,
    ThreadLocal = 1,
    Relaxed = 2,
}

impl CaptureMode {
    pub fn parse(mode: i32) -> HipResult<Self> {
        Ok(match mode {
            0 => CaptureMode::Global,
            1 => CaptureMode::ThreadLocal,
            2 => CaptureMode::Relaxed,
            other => {
                return Err(Failure::invalid_value(format!(
                    "{other} is not a hipStreamCaptureMode (0..=2)"
                )))
            }
        })
    }
}

/// `hipStreamCaptureStatus`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptureStatus {
    None = 0,
    Active = 1,
    Invalidated = 2,
}

/// One capture: its graph, where and how it began.
pub struct Sequence {
    pub id: u64,
    pub graph: Arc<Graph>,
    pub mode: CaptureMode,
    pub device: DeviceId,
    origin: Weak<Stream>,
    thread: ThreadId,
    invalidated: AtomicBool,
    /// Every stream taking part (the origin first).
    members: Mutex<Vec<Weak<Stream>>>,
}

impl Sequence {
    fn invalidate(&self) {
        self.invalidated.store(true, Ordering::Release);
    }

    pub fn is_invalidated(&self) -> bool {
        self.invalidated.load(Ordering::Acquire)
    }

    fn members(&self) -> Vec<Arc<Stream>> {
        lock(&self.members)
            .iter()
            .filter_map(Weak::upgrade)
            .collect()
    }
}

/// A stream's part in a capture: the sequence and the nodes its next operation depends on.
pub struct Joined {
    pub seq: Arc<Sequence>,
    pub deps: Vec<NodeId>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Captures in progress, and how many (read without the lock on every stream operation).
static ACTIVE: Mutex<Vec<Arc<Sequence>>> = Mutex::new(Vec::new());
static ACTIVE_COUNT: AtomicUsize = AtomicUsize::new(0);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Events last recorded on a capturing stream (by the event object's address): the sequence
/// and the frontier at the record.
type CapturedEvents = HashMap<usize, (Weak<Sequence>, Vec<NodeId>)>;
static CAPTURED_EVENTS: Mutex<Option<CapturedEvents>> = Mutex::new(None);

thread_local! {
    /// This thread's mode for potentially unsafe calls (`hipThreadExchangeStreamCaptureMode`).
    static THREAD_MODE: Cell<CaptureMode> = const { Cell::new(CaptureMode::Global) };
}

fn active() -> Vec<Arc<Sequence>> {
    lock(&ACTIVE).clone()
}

/// Whether any capture is in progress in the process.
pub fn any_active() -> bool {
    ACTIVE_COUNT.load(Ordering::Acquire) != 0
}

fn event_key(event: &Arc<dyn Event>) -> usize {
    Arc::as_ptr(event) as *const () as usize
}

/// The live sequence and frontier of an event last recorded on a capturing stream.
fn captured_event(event: &Arc<dyn Event>) -> Option<(Arc<Sequence>, Vec<NodeId>)> {
    let events = lock(&CAPTURED_EVENTS);
    let (seq, deps) = events.as_ref()?.get(&event_key(event))?;
    let seq = seq.upgrade()?;
    is_active(&seq).then(|| (seq, deps.clone()))
}

fn is_active(seq: &Arc<Sequence>) -> bool {
    lock(&ACTIVE).iter().any(|s| Arc::ptr_eq(s, seq))
}

/// Forgets what a destroyed event recorded.
pub fn forget_event(event: &Arc<dyn Event>) {
    if let Some(events) = lock(&CAPTURED_EVENTS).as_mut() {
        events.remove(&event_key(event));
    }
}

/// Whether `stream` is a blocking stream (it synchronizes with the legacy null stream).
fn is_blocking(stream: &Stream) -> bool {
    !stream.is_null() && stream.queue().flags().is_ok_and(|f| f & 1 == 0)
}

/// The captures that a legacy-stream operation on `device` would make depend on the null
/// stream: those with a blocking stream of that device.
fn implicit_conflicts(device: DeviceId) -> Vec<Arc<Sequence>> {
    active()
        .into_iter()
        .filter(|seq| seq.device == device && seq.members().iter().any(|s| is_blocking(s)))
        .collect()
}

fn implicit_error(what: &str) -> Failure {
    Failure::new(
        HipError::StreamCaptureImplicit,
        format!(
            "{what} on the null stream while a blocking stream of its device is capturing: the \
             legacy stream would synchronize with it (use a stream created with \
             hipStreamNonBlocking, or end the capture first)"
        ),
    )
}

/// What every `ops` function asks first. `make` builds the operation's node. Returns `Ok(true)`
/// when the operation was recorded into a capture (and must not run), `Ok(false)` when it runs.
/// `wait`: the caller waits for the operation (a synchronous call), which no capture allows.
pub fn intercept(stream: &Stream, wait: bool, make: impl FnOnce() -> Op) -> HipResult<bool> {
    if !any_active() {
        return Ok(false);
    }
    intercept_slow(stream, wait, make)
}

#[cold]
fn intercept_slow(stream: &Stream, wait: bool, make: impl FnOnce() -> Op) -> HipResult<bool> {
    {
        let mut joined = stream.capture();
        if let Some(j) = joined.as_mut() {
            if j.seq.is_invalidated() {
                return Err(invalidated());
            }
            if wait {
                j.seq.invalidate();
                return Err(Failure::new(
                    HipError::StreamCaptureUnsupported,
                    "a synchronous operation on a capturing stream (it would wait for work that \
                     is only being recorded)",
                ));
            }
            let id = j.seq.graph.add(&j.deps, make())?;
            j.deps = vec![id];
            return Ok(true);
        }
    }
    check_implicit(stream, "an operation")?;
    if wait {
        check_unsafe_call("a synchronous copy or fill")?;
    }
    Ok(false)
}

/// An operation on the legacy null stream while a blocking stream of its device captures:
/// `hipErrorStreamCaptureImplicit`, and those captures are invalidated.
fn check_implicit(stream: &Stream, what: &str) -> HipResult<()> {
    if stream.is_null() {
        let conflicts = implicit_conflicts(stream.device());
        if !conflicts.is_empty() {
            conflicts.iter().for_each(|s| s.invalidate());
            return Err(implicit_error(what));
        }
    }
    Ok(())
}

fn invalidated() -> Failure {
    Failure::new(
        HipError::StreamCaptureInvalidated,
        "the stream's capture was invalidated by an earlier error; end it and capture again",
    )
}

/// Refuses a potentially unsafe call (one that may synchronize implicitly) by this thread's
/// capture mode (see the module's documentation).
pub fn check_unsafe_call(what: &str) -> HipResult<()> {
    if !any_active() {
        return Ok(());
    }
    let mode = THREAD_MODE
        .try_with(Cell::get)
        .unwrap_or(CaptureMode::Global);
    if mode == CaptureMode::Relaxed {
        return Ok(());
    }
    let me = std::thread::current().id();
    let refused = active().into_iter().find(|seq| {
        (seq.thread == me && seq.mode != CaptureMode::Relaxed)
            || (mode == CaptureMode::Global && seq.thread != me && seq.mode == CaptureMode::Global)
    });
    match refused {
        None => Ok(()),
        Some(seq) => Err(Failure::new(
            HipError::StreamCaptureUnsupported,
            format!(
                "{what} is not allowed while stream capture {} ({:?} mode) is in progress; \
                 hipThreadExchangeStreamCaptureMode(hipStreamCaptureModeRelaxed) allows it",
                seq.id, seq.mode
            ),
        )),
    }
}

/// `hipDeviceSynchronize` while any stream of `device` captures: refused in every mode.
pub fn check_device_synchronize(device: DeviceId) -> HipResult<()> {
    if !any_active() {
        return Ok(());
    }
    if active().iter().any(|s| s.device == device) {
        return Err(Failure::new(
            HipError::StreamCaptureUnsupported,
            "hipDeviceSynchronize while a stream of the device is capturing",
        ));
    }
    check_unsafe_call("hipDeviceSynchronize")
}

/// `hipStreamSynchronize`/`hipStreamQuery`: a capturing stream has nothing to wait for (its
/// work is only recorded), so both are refused and the capture invalidated; the null stream is
/// refused while a blocking stream captures; synchronizing another stream is a potentially
/// unsafe call.
pub fn check_stream_wait(stream: &Stream, synchronize: bool) -> HipResult<()> {
    if !any_active() {
        return Ok(());
    }
    if let Some(j) = stream.capture().as_ref() {
        j.seq.invalidate();
        return Err(Failure::new(
            HipError::StreamCaptureUnsupported,
            "synchronizing or querying a capturing stream",
        ));
    }
    check_implicit(stream, "a synchronization")?;
    if synchronize {
        check_unsafe_call("hipStreamSynchronize")?;
    }
    Ok(())
}

/// `hipEventSynchronize`/`hipEventQuery`/`hipEventElapsedTime` on an event last recorded on a
/// capturing stream: `hipErrorCapturedEvent`.
pub fn check_event_usable(event: &Arc<dyn Event>) -> HipResult<()> {
    if any_active() && captured_event(event).is_some() {
        return Err(Failure::new(
            HipError::CapturedEvent,
            "the event was last recorded on a capturing stream: it stands for a point of the \
             graph being captured, not for work that runs",
        ));
    }
    Ok(())
}

/// `hipEventRecord`: on a capturing stream the event remembers the stream's frontier and
/// nothing is recorded on the device; `Ok(true)` then.
pub fn record_event(event: &Arc<dyn Event>, stream: &Stream) -> HipResult<bool> {
    if !any_active() {
        return Ok(false);
    }
    let frontier = {
        let joined = stream.capture();
        match joined.as_ref() {
            Some(j) if j.seq.is_invalidated() => return Err(invalidated()),
            Some(j) => Some((Arc::downgrade(&j.seq), j.deps.clone())),
            None => None,
        }
    };
    {
        let mut events = lock(&CAPTURED_EVENTS);
        let events = events.get_or_insert_with(HashMap::new);
        match frontier {
            Some(entry) => {
                events.insert(event_key(event), entry);
                return Ok(true);
            }
            None => events.remove(&event_key(event)),
        };
    }
    check_implicit(stream, "an event record").map(|()| false)
}

/// `hipStreamWaitEvent`: joins capture sequences through events (see the module's
/// documentation). `Ok(true)` when handled here (nothing to enqueue).
pub fn wait_event(stream: &Arc<Stream>, event: &Arc<dyn Event>) -> HipResult<bool> {
    if !any_active() {
        return Ok(false);
    }
    let captured = captured_event(event);
    let mut joined = stream.capture();
    match (joined.as_mut(), captured) {
        (Some(j), Some((seq, deps))) => {
            if !Arc::ptr_eq(&j.seq, &seq) {
                return Err(Failure::new(
                    HipError::StreamCaptureMerge,
                    "the event was recorded in another capture sequence: waiting for it would \
                     merge two captures",
                ));
            }
            if j.seq.is_invalidated() {
                return Err(invalidated());
            }
            j.deps = join(&j.seq.graph, &j.deps, &deps);
            Ok(true)
        }
        (Some(j), None) => {
            j.seq.invalidate();
            Err(Failure::new(
                HipError::StreamCaptureIsolation,
                "a capturing stream waits for an event recorded outside the capture (add an \
                 event-wait node with hipGraphAddEventWaitNode instead)",
            ))
        }
        (None, Some((seq, deps))) => {
            if seq.is_invalidated() {
                return Err(invalidated());
            }
            lock(&seq.members).push(Arc::downgrade(stream));
            *joined = Some(Joined { seq, deps });
            Ok(true)
        }
        (None, None) => {
            drop(joined);
            check_implicit(stream, "an event wait").map(|()| false)
        }
    }
}

/// `hipStreamBeginCapture[ToGraph]` on `stream` (not the null stream: checked by the caller),
/// into `graph` (a new one if `None`) with `deps` as the first frontier.
pub fn begin(
    stream: &Arc<Stream>,
    mode: CaptureMode,
    graph: Option<Arc<Graph>>,
    deps: Vec<NodeId>,
) -> HipResult<()> {
    let mut joined = stream.capture();
    if joined.is_some() {
        return Err(Failure::new(
            HipError::IllegalState,
            "the stream is already capturing (or takes part in another stream's capture)",
        ));
    }
    let graph = graph.unwrap_or_else(super::create);
    let seq = Arc::new(Sequence {
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        graph,
        mode,
        device: stream.device(),
        origin: Arc::downgrade(stream),
        thread: std::thread::current().id(),
        invalidated: AtomicBool::new(false),
        members: Mutex::new(vec![Arc::downgrade(stream)]),
    });
    *joined = Some(Joined {
        seq: seq.clone(),
        deps,
    });
    let mut all = lock(&ACTIVE);
    all.push(seq);
    ACTIVE_COUNT.store(all.len(), Ordering::Release);
    Ok(())
}

/// Ends `seq` for every stream taking part.
fn finish(seq: &Arc<Sequence>) {
    {
        let mut all = lock(&ACTIVE);
        all.retain(|s| !Arc::ptr_eq(s, seq));
        ACTIVE_COUNT.store(all.len(), Ordering::Release);
    }
    for member in seq.members() {
        let mut joined = member.capture();
        if joined.as_ref().is_some_and(|j| Arc::ptr_eq(&j.seq, seq)) {
            *joined = None;
        }
    }
}

/// Every node `frontier` reaches through dependencies, itself included.
fn ancestors(graph: &Graph, frontier: &[NodeId]) -> HashSet<NodeId> {
    let nodes: HashMap<NodeId, Vec<NodeId>> = graph
        .snapshot()
        .into_iter()
        .map(|(id, n)| (id, n.deps))
        .collect();
    let mut seen = HashSet::new();
    let mut stack = frontier.to_vec();
    while let Some(n) = stack.pop() {
        if seen.insert(n) {
            stack.extend(nodes.get(&n).into_iter().flatten().copied());
        }
    }
    seen
}

/// The union of two frontiers without the nodes another of them already depends on (a join
/// needs no edge the graph implies).
fn join(graph: &Graph, a: &[NodeId], b: &[NodeId]) -> Vec<NodeId> {
    let mut all: Vec<NodeId> = a.to_vec();
    all.extend(b.iter().filter(|d| !a.contains(d)));
    let implied: HashSet<NodeId> = all
        .iter()
        .flat_map(|&n| {
            let mut above = ancestors(graph, &[n]);
            above.remove(&n);
            above
        })
        .collect();
    all.retain(|n| !implied.contains(n));
    all
}

/// `hipStreamEndCapture`: the captured graph.
pub fn end(stream: &Arc<Stream>) -> HipResult<Arc<Graph>> {
    let (seq, origin_deps) = match stream.capture().as_ref() {
        None => {
            return Err(Failure::new(
                HipError::IllegalState,
                "the stream is not capturing",
            ))
        }
        Some(j) => (j.seq.clone(), j.deps.clone()),
    };
    let is_origin = seq
        .origin
        .upgrade()
        .is_some_and(|o| Arc::ptr_eq(&o, stream));
    if !is_origin {
        seq.invalidate();
        return Err(Failure::new(
            HipError::StreamCaptureUnmatched,
            "the capture must be ended on the stream that began it",
        ));
    }
    if seq.mode != CaptureMode::Relaxed && seq.thread != std::thread::current().id() {
        return Err(Failure::new(
            HipError::StreamCaptureWrongThread,
            format!(
                "a capture begun in {:?} mode must be ended by the thread that began it",
                seq.mode
            ),
        ));
    }
    let unjoined = {
        let reached = ancestors(&seq.graph, &origin_deps);
        seq.members().iter().any(|m| {
            m.capture()
                .as_ref()
                .is_some_and(|j| j.deps.iter().any(|d| !reached.contains(d)))
        })
    };
    finish(&seq);
    if seq.is_invalidated() || unjoined {
        let _ = super::destroy(seq.graph.handle());
        return Err(if unjoined && !seq.is_invalidated() {
            Failure::new(
                HipError::StreamCaptureUnjoined,
                "work forked into another stream was not joined back into the origin stream \
                 (record an event on that stream and make the origin wait for it)",
            )
        } else {
            invalidated()
        });
    }
    Ok(seq.graph.clone())
}

/// A stream going away (`hipStreamDestroy`): a capture it began ends (its graph dropped); one
/// it joined is invalidated.
pub fn stream_destroyed(stream: &Arc<Stream>) {
    let seq = match stream.capture().take() {
        None => return,
        Some(j) => j.seq,
    };
    let is_origin = seq.origin.upgrade().is_none_or(|o| Arc::ptr_eq(&o, stream));
    seq.invalidate();
    if is_origin {
        finish(&seq);
        let _ = super::destroy(seq.graph.handle());
    }
}

/// What `hipStreamGetCaptureInfo[_v2]` reports of a stream: status, sequence id, graph and
/// frontier (a pointer into the stream's own list, valid until its next capture operation).
pub struct CaptureInfo {
    pub status: CaptureStatus,
    pub id: u64,
    pub graph: usize,
    pub deps: (*const NodeId, usize),
}

pub fn info(stream: &Stream) -> HipResult<CaptureInfo> {
    let none = CaptureInfo {
        status: CaptureStatus::None,
        id: 0,
        graph: 0,
        deps: (std::ptr::null(), 0),
    };
    if !any_active() {
        return Ok(none);
    }
    if stream.is_null() {
        if !implicit_conflicts(stream.device()).is_empty() {
            return Err(implicit_error("a capture query"));
        }
        return Ok(none);
    }
    let joined = stream.capture();
    Ok(match joined.as_ref() {
        None => none,
        Some(j) => CaptureInfo {
            status: if j.seq.is_invalidated() {
                CaptureStatus::Invalidated
            } else {
                CaptureStatus::Active
            },
            id: j.seq.id,
            graph: j.seq.graph.handle(),
            deps: if j.deps.is_empty() {
                (std::ptr::null(), 0)
            } else {
                (j.deps.as_ptr(), j.deps.len())
            },
        },
    })
}

/// `hipStreamUpdateCaptureDependencies`: `set` replaces the stream's frontier, else adds to it;
/// every node must belong to the capture's graph.
pub fn update_dependencies(stream: &Stream, nodes: &[NodeId], set: bool) -> HipResult<()> {
    let mut joined = stream.capture();
    let j = joined
        .as_mut()
        .ok_or_else(|| Failure::new(HipError::IllegalState, "the stream is not capturing"))?;
    if j.seq.is_invalidated() {
        return Err(invalidated());
    }
    if let Some(n) = nodes.iter().find(|&&n| !j.seq.graph.contains(n)) {
        return Err(Failure::invalid_value(format!(
            "node {n:#x} is not a node of the graph being captured"
        )));
    }
    if set {
        j.deps.clear();
    }
    for &n in nodes {
        if !j.deps.contains(&n) {
            j.deps.push(n);
        }
    }
    Ok(())
}

/// Records `op` into `stream`'s capture, if it has one: `Some(node)`. For operations that have
/// no `ops` function (graph launches, stream-ordered allocation).
pub fn record(stream: &Stream, op: impl FnOnce() -> HipResult<Op>) -> HipResult<Option<NodeId>> {
    if !any_active() {
        return Ok(None);
    }
    let mut joined = stream.capture();
    let Some(j) = joined.as_mut() else {
        drop(joined);
        check_implicit(stream, "an operation")?;
        return Ok(None);
    };
    if j.seq.is_invalidated() {
        return Err(invalidated());
    }
    let id = j.seq.graph.add(&j.deps, op()?)?;
    j.deps = vec![id];
    Ok(Some(id))
}

/// `hipThreadExchangeStreamCaptureMode`: sets this thread's mode, returns the previous one.
pub fn exchange_thread_mode(mode: CaptureMode) -> CaptureMode {
    THREAD_MODE
        .try_with(|m| m.replace(mode))
        .unwrap_or(CaptureMode::Global)
}

/// An operation no graph node can hold: refused on a capturing stream (the capture is
/// invalidated), checked like any other operation elsewhere.
pub fn refuse(stream: &Stream, what: &str) -> HipResult<()> {
    if !any_active() {
        return Ok(());
    }
    if let Some(j) = stream.capture().as_ref() {
        j.seq.invalidate();
        return Err(Failure::new(
            HipError::StreamCaptureUnsupported,
            format!("{what} cannot be captured: a graph has no node for it"),
        ));
    }
    check_implicit(stream, what)
}

/// Records several nodes into `stream`'s capture, if it has one: `add(graph, frontier)` adds
/// them and returns the stream's new frontier. `Ok(false)` when the stream is not capturing.
pub fn record_many(
    stream: &Stream,
    add: impl FnOnce(&Arc<Graph>, &[NodeId]) -> HipResult<Vec<NodeId>>,
) -> HipResult<bool> {
    if !any_active() {
        return Ok(false);
    }
    let mut joined = stream.capture();
    let Some(j) = joined.as_mut() else {
        drop(joined);
        check_implicit(stream, "a graph launch")?;
        return Ok(false);
    };
    if j.seq.is_invalidated() {
        return Err(invalidated());
    }
    j.deps = add(&j.seq.graph, &j.deps)?;
    Ok(true)
}
