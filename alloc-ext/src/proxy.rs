//! A decoding TCP proxy for Kafka: the library behind `kwire proxy`.
//!
//! Clients connect to the proxy instead of the broker. Every connection gets one connection to
//! the upstream broker and two [`Pump`]s, one per direction. A pump reads into the connection
//! layer's frame cutter (`kafka_wire::conn::FrameCutter`), forwards every complete frame, and
//! decodes it once on the way, leniently: a frame with bytes after its body is counted as
//! lenient, not strict. Responses do not name their API; the two pumps share one
//! `kafka_wire::conn::Observer` ([`Pairing`]), which remembers each request's API key and
//! version until its response comes back, and reads the response as its answer.
//!
//! [`Proxy`] (feature `proxy`) serves connections as tasks on a tokio runtime of its own, with
//! everything bounded and timed ([`Limits`]): connections, buffer memory, connecting, idle
//! clients, silent brokers, the drain at shutdown. Each fault costs at most its connection and
//! is logged as a JSON line ([`Fault`]); the log sits behind a bounded queue ([`LogSink`]) and
//! never holds up forwarding; the counters are served in Prometheus' text format.
//!
//! ## Addresses
//!
//! Brokers tell clients where the other brokers are: Metadata, DescribeCluster and
//! FindCoordinator responses (the single coordinator of versions 0-3 and the `coordinators`
//! array of version 4 and later), and the `node_endpoints` of Produce, Fetch, ShareFetch and
//! ShareAcknowledge responses. The proxy rewrites each broker address in them to a listener of
//! its own ([`AddressMap`]), so that clients keep talking through it. [`Proxy`] binds one
//! listener per upstream broker as brokers are discovered: the broker with node id `N` gets
//! port `broker_port_base + N` (by default the listening port + 1 + `N`) on the listening
//! address, or an ephemeral port when that port is out of range or taken (and when the base
//! is 0). The bootstrap listener (`--listen`) forwards to `--upstream`.
//!
//! ## Cost on the forwarding path
//!
//! * Bytes are read straight into the connection's frame buffer. Small frames that arrive
//!   together are gathered into one write of up to [`WRITE_BATCH`] bytes (one copy); a frame of
//!   [`DIRECT`] bytes or more is written straight from the read buffer. A partial frame may be
//!   moved to the front of the read buffer to make room for its rest.
//! * Buffers are reused: forwarding allocates nothing per frame (`alloc-ext/tests/proxy_allocs.rs`
//!   counts allocations). The read buffer doubles as a large frame's bytes arrive, never beyond
//!   twice what arrived, and keeps its size while frames keep coming; [`Pump::relax`] gives it
//!   back (the proxy's server does after a second without bytes). The gathering and rewrite
//!   buffers are given back after each burst that grew them. Decoding uses the
//!   borrowing views of `kafka-wire`, which never allocate.
//! * Only responses whose addresses change are re-encoded: the new broker list is built
//!   (one small allocation), the body encoded from the view with the other fields' bytes
//!   copied as they are, into a reused output buffer.
//! * Logging a frame as JSON allocates; without a log (`--quiet`) nothing is formatted.
//!
//! The latency the proxy adds is measured in `benches/proxy_latency.sh` (results in
//! `benches/RESULTS.md`); its behaviour under faults in `tests/proxy/faults.py` and
//! `alloc-ext/tests/proxy_server.rs`.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

use kafka_wire::conn::{self, Cut, FrameCutter, Observer, Storage};
use kafka_wire::frame;
use kafka_wire::messages::{
    describe_cluster_response, fetch_response, find_coordinator_response, metadata_response, produce_response,
    share_acknowledge_response, share_fetch_response,
};
use kafka_wire::{Array, EncodeError, Message, ResponseBody};

use crate::conversation;

#[cfg(feature = "proxy")]
mod server;
#[cfg(feature = "tls")]
#[cfg_attr(docsrs, doc(cfg(feature = "tls")))]
pub use server::Tls;
#[cfg(feature = "proxy")]
#[cfg_attr(docsrs, doc(cfg(feature = "proxy")))]
pub use server::{Config, Fault, Limits, Metrics, Proxy, BLOCKING_THREADS};

/// Largest frame forwarded by default: 100 MiB, Kafka's default `socket.request.max.bytes`.
pub const DEFAULT_MAX_FRAME: usize = 100 * 1024 * 1024;

pub use crate::conversation::Direction;

/// Requests of one connection remembered while they wait for their response; a request past
/// it is forwarded but not remembered, and its response is forwarded undecoded (unpaired).
pub const MAX_IN_FLIGHT: usize = 1024;

/// Bytes gathered into one write when several frames arrive together.
pub const WRITE_BATCH: usize = 64 * 1024;

/// The read buffer's resting size; it grows while a larger frame arrives, and shrinks back.
const READ_REST: usize = 64 * 1024;

/// What the two directions of one connection share: the connection layer's observer, which
/// remembers each request (API key, version, correlation id) until its response, in a table of
/// [`MAX_IN_FLIGHT`] entries with O(1) insertion and pairing.
#[derive(Debug)]
pub struct Pairing {
    observer: Mutex<Box<Observer<MAX_IN_FLIGHT>>>,
}

impl Default for Pairing {
    fn default() -> Self {
        Self::new()
    }
}

impl Pairing {
    /// Nothing in flight.
    pub fn new() -> Self {
        Pairing {
            observer: Mutex::new(Box::new(Observer::new())),
        }
    }

    /// Requests waiting for their response.
    pub fn waiting(&self) -> usize {
        self.observer.lock().unwrap_or_else(|e| e.into_inner()).waiting()
    }

    /// The correlation id of the oldest request waiting.
    pub fn oldest(&self) -> Option<i32> {
        let o = self.observer.lock().unwrap_or_else(|e| e.into_inner());
        o.oldest().map(|p| p.correlation_id)
    }

    /// Forgets every waiting request (the connection closed); returns them, oldest first,
    /// through `each`.
    pub fn close(&self, each: impl FnMut(conn::Pending)) {
        self.observer.lock().unwrap_or_else(|e| e.into_inner()).close(each);
    }

    fn see<'a>(&self, direction: Direction, frame: &'a [u8]) -> conn::Event<'a> {
        let mut o = self.observer.lock().unwrap_or_else(|e| e.into_inner());
        match direction {
            Direction::Request => o.request(frame),
            Direction::Response => o.response(frame),
        }
    }
}

/// API key slots counted one by one; larger keys share the last slot.
pub const API_SLOTS: usize = 128;

/// Frames and bytes of one API in one direction.
#[derive(Debug, Default)]
pub struct ApiCount {
    /// Frames.
    pub frames: AtomicU64,
    /// Bytes (size prefixes included).
    pub bytes: AtomicU64,
}

/// Counters over all connections.
#[derive(Debug)]
pub struct Stats {
    /// Frames forwarded.
    pub frames: AtomicU64,
    /// Frames that decoded strictly.
    pub strict: AtomicU64,
    /// Frames that decoded only leniently.
    pub lenient: AtomicU64,
    /// Frames that did not decode (forwarded all the same).
    pub failed: AtomicU64,
    /// Responses re-encoded with rewritten addresses.
    pub rewritten: AtomicU64,
    /// Responses whose correlation id matched no request.
    pub unpaired: AtomicU64,
    /// Frames and bytes per API key (requests, then responses); frames whose API is not
    /// known (an unpaired response, a request too short for its key) are in the last slot.
    pub apis: [[ApiCount; API_SLOTS]; 2],
}

impl Default for Stats {
    fn default() -> Self {
        Stats {
            frames: AtomicU64::new(0),
            strict: AtomicU64::new(0),
            lenient: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            rewritten: AtomicU64::new(0),
            unpaired: AtomicU64::new(0),
            apis: core::array::from_fn(|_| core::array::from_fn(|_| ApiCount::default())),
        }
    }
}

impl Stats {
    /// `frames F: S strict, L lenient, X not decoded, R rewritten, U unpaired`.
    pub fn summary(&self) -> String {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        format!(
            "frames {}: {} strict, {} lenient, {} not decoded, {} rewritten, {} unpaired",
            g(&self.frames),
            g(&self.strict),
            g(&self.lenient),
            g(&self.failed),
            g(&self.rewritten),
            g(&self.unpaired)
        )
    }

    fn count(&self, direction: Direction, key: Option<i16>, bytes: usize) {
        let slot = key
            .and_then(|k| usize::try_from(k).ok())
            .map_or(API_SLOTS - 1, |k| k.min(API_SLOTS - 1));
        let d = usize::from(direction == Direction::Response);
        if let Some(c) = self.apis.get(d).and_then(|a| a.get(slot)) {
            c.frames.fetch_add(1, Ordering::Relaxed);
            c.bytes.fetch_add(bytes as u64, Ordering::Relaxed);
        }
    }
}

/// One forwarded frame, as an observer sees it.
#[derive(Debug, Clone, Copy)]
pub struct Forwarded<'a> {
    /// The connection's number (counted from 1 in accept order).
    pub connection: u64,
    /// The frame as received, decoded once (a response paired with its request).
    pub event: conn::Event<'a>,
    /// The whole frame as forwarded (size prefix included) when it was rewritten.
    pub rewritten: Option<&'a [u8]>,
}

/// Receives every forwarded frame (the JSON log is one).
pub trait FrameObserver: Send {
    /// Called once per frame, before it is written on.
    fn frame(&mut self, frame: &Forwarded<'_>);
}

/// Where clients should reach a broker: the proxy's listener for it.
pub trait AddressMap: Send + Sync {
    /// The host and port clients should use for broker `node_id`, advertised upstream as
    /// `host:port`; `None` leaves the address as it is.
    fn map(&self, node_id: i32, host: &str, port: i32) -> Option<(&str, i32)>;
}

fn changed(map: &dyn AddressMap, node_id: i32, host: &str, port: i32) -> bool {
    matches!(map.map(node_id, host, port), Some((h, p)) if h != host || p != port)
}

/// Rewrites the broker addresses of a response body: `Ok(false)` when nothing changes (no
/// allocation then), else `Ok(true)` with the new body appended to `out`.
fn rewrite_body(
    body: &ResponseBody<'_>,
    version: i16,
    map: &dyn AddressMap,
    out: &mut Vec<u8>,
) -> Result<bool, EncodeError> {
    macro_rules! with_list {
        ($arr:expr, $id:ident, |$new:ident| $build:expr) => {{
            if !$arr.iter().any(|b| changed(map, b.$id, b.host, b.port)) {
                return Ok(false);
            }
            let items: Vec<_> = $arr
                .iter()
                .map(|mut b| {
                    if let Some((h, p)) = map.map(b.$id, b.host, b.port) {
                        b.host = h;
                        b.port = p;
                    }
                    b
                })
                .collect();
            let $new = Array::from_slice(&items);
            $build.encode(out, version)?;
            Ok(true)
        }};
    }
    match body {
        ResponseBody::Metadata(m) => {
            with_list!(m.brokers, node_id, |new| metadata_response::MetadataResponse {
                brokers: new,
                ..*m
            })
        }
        ResponseBody::DescribeCluster(m) => with_list!(m.brokers, broker_id, |new| {
            describe_cluster_response::DescribeClusterResponse { brokers: new, ..*m }
        }),
        ResponseBody::FindCoordinator(m) if version >= 4 => {
            let live = |c: &find_coordinator_response::Coordinator<'_>| c.error_code == 0 && c.node_id >= 0;
            if !m
                .coordinators
                .iter()
                .any(|c| live(&c) && changed(map, c.node_id, c.host, c.port))
            {
                return Ok(false);
            }
            let items: Vec<_> = m
                .coordinators
                .iter()
                .map(|mut c| {
                    if live(&c) {
                        if let Some((h, p)) = map.map(c.node_id, c.host, c.port) {
                            c.host = h;
                            c.port = p;
                        }
                    }
                    c
                })
                .collect();
            find_coordinator_response::FindCoordinatorResponse {
                coordinators: Array::from_slice(&items),
                ..*m
            }
            .encode(out, version)?;
            Ok(true)
        }
        ResponseBody::FindCoordinator(m) => {
            if m.error_code != 0 || m.node_id < 0 || !changed(map, m.node_id, m.host, m.port) {
                return Ok(false);
            }
            let (h, p) = map.map(m.node_id, m.host, m.port).unwrap_or((m.host, m.port));
            find_coordinator_response::FindCoordinatorResponse { host: h, port: p, ..*m }.encode(out, version)?;
            Ok(true)
        }
        ResponseBody::Produce(m) => {
            with_list!(m.node_endpoints, node_id, |new| produce_response::ProduceResponse {
                node_endpoints: new,
                ..*m
            })
        }
        ResponseBody::Fetch(m) => {
            with_list!(m.node_endpoints, node_id, |new| fetch_response::FetchResponse {
                node_endpoints: new,
                ..*m
            })
        }
        ResponseBody::ShareFetch(m) => with_list!(m.node_endpoints, node_id, |new| {
            share_fetch_response::ShareFetchResponse {
                node_endpoints: new,
                ..*m
            }
        }),
        ResponseBody::ShareAcknowledge(m) => with_list!(m.node_endpoints, node_id, |new| {
            share_acknowledge_response::ShareAcknowledgeResponse {
                node_endpoints: new,
                ..*m
            }
        }),
        _ => Ok(false),
    }
}

/// Rewrites the broker addresses in a parsed response at `version`. Returns `true` with the
/// whole new frame (size prefix included) in `out`, or `false` (and `out` empty) when no
/// address changes; the header and any bytes after the body are kept as they were.
pub fn rewrite_response(
    parsed: &frame::ResponseFrame<'_>,
    version: i16,
    map: &dyn AddressMap,
    out: &mut Vec<u8>,
) -> Result<bool, EncodeError> {
    out.clear();
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(parsed.header_bytes);
    if !rewrite_body(&parsed.body, version, map, out)? {
        out.clear();
        return Ok(false);
    }
    out.extend_from_slice(parsed.trailing);
    let size = (out.len() - 4) as i32;
    out[..4].copy_from_slice(&size.to_be_bytes());
    Ok(true)
}

/// A pump's read buffer: it grows only while every byte it holds is a received one (so a size
/// prefix alone commits nothing), doubling each time, so that a large frame costs a few
/// re-allocations rather than one per read; and it keeps its size while frames keep coming, until
/// [`Pump::relax`] gives the memory back.
#[derive(Debug)]
struct Held {
    buf: Vec<u8>,
}

impl Held {
    fn new(rest: usize) -> Held {
        Held { buf: vec![0; rest] }
    }
}

impl Storage for Held {
    const GROWS: bool = true;
    fn bytes(&self) -> &[u8] {
        &self.buf
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.buf
    }
    fn grow_to(&mut self, want: usize) -> usize {
        // At most twice what arrived: the cutter asks only when the buffer is full of it.
        let len = self.buf.len();
        if want > len {
            self.buf
                .resize(want.max(len.saturating_mul(2)).min(want.saturating_add(len)), 0);
        }
        self.buf.len()
    }
}

/// One direction of one connection: reads frames, decodes them, forwards them.
///
/// The pump is sans-I/O: bytes are read into [`space`](Self::space) and committed with
/// [`filled`](Self::filled); [`next_output`](Self::next_output) then decodes every whole frame
/// and hands out what to write on, until `None`. Small frames that arrive together come out
/// gathered into one write (one copy); a frame of [`DIRECT`] bytes or more comes out on its
/// own, straight from the read buffer (no copy). [`step`](Self::step) is that loop over
/// blocking `Read` and `Write`; `kwire proxy` runs it over tokio's sockets.
pub struct Pump {
    direction: Direction,
    connection: u64,
    cutter: FrameCutter<Held>,
    rest: usize,
    /// Frames gathered for one write.
    batch: Vec<u8>,
    /// A rewritten response frame.
    out: Vec<u8>,
    /// What the last [`next_output`](Self::next_output) handed out.
    last: Last,
    /// A frame handled but not handed out yet (the gathered batch went first): `true` when it
    /// was rewritten into `out`, `false` when it is the cutter's handed frame.
    held: Option<bool>,
    /// A refused size prefix, reported after the frames gathered before it.
    error: Option<conn::CutError>,
    pairing: Arc<Pairing>,
    stats: Arc<Stats>,
    map: Option<Arc<dyn AddressMap>>,
    observer: Option<Box<dyn FrameObserver>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Last {
    Nothing,
    Batch,
    Held,
}

/// Frames of this many bytes or more are written straight from the read buffer.
pub const DIRECT: usize = 16 * 1024;

/// Gathering and rewrite buffers above this capacity are given back once written.
const KEEP: usize = 16 * 1024;

impl Pump {
    /// A pump for `direction` of connection number `connection`. Both directions of a
    /// connection share `pairing`. Its read buffer rests at 64 KiB.
    pub fn new(direction: Direction, connection: u64, pairing: Arc<Pairing>, stats: Arc<Stats>) -> Self {
        Pump {
            direction,
            connection,
            cutter: FrameCutter::new(Held::new(READ_REST), DEFAULT_MAX_FRAME),
            rest: READ_REST,
            batch: Vec::new(),
            out: Vec::new(),
            last: Last::Nothing,
            held: None,
            error: None,
            pairing,
            stats,
            map: None,
            observer: None,
        }
    }

    /// Rejects frames above `max` bytes (the connection is closed).
    pub fn max_frame(mut self, max: usize) -> Self {
        self.cutter = FrameCutter::new(Held::new(self.rest), max);
        self
    }

    /// A read buffer that rests at `rest` bytes (it grows while a larger frame arrives, and
    /// shrinks back at [`relax`](Self::relax)), refusing frames above `max` bytes.
    pub fn buffer(mut self, rest: usize, max: usize) -> Self {
        self.rest = rest;
        self.cutter = FrameCutter::new(Held::new(rest), max);
        self
    }

    /// Rewrites broker addresses in responses through `map`.
    pub fn rewrite_with(mut self, map: Arc<dyn AddressMap>) -> Self {
        self.map = Some(map);
        self
    }

    /// Shows every frame to `observer`.
    pub fn observe(mut self, observer: Box<dyn FrameObserver>) -> Self {
        self.observer = Some(observer);
        self
    }

    /// The read buffer's current size.
    pub fn buffer_capacity(&self) -> usize {
        self.cutter.storage().buf.len()
    }

    /// Gives memory back: a read buffer grown by a large frame returns to its resting size when
    /// no partial frame is held in it, and the gathering and rewrite buffers are freed. Call it
    /// when the connection goes quiet (`kwire proxy` does after a second without bytes); the
    /// buffers otherwise keep their size while frames keep coming. `true` when memory was given
    /// back.
    pub fn relax(&mut self) -> bool {
        let mut freed = false;
        if self.cutter.buffered() == 0 && self.cutter.storage().buf.len() > self.rest {
            let max = self.cutter.max_frame();
            self.cutter = FrameCutter::new(Held::new(self.rest), max);
            freed = true;
        }
        if self.last == Last::Nothing && self.held.is_none() {
            freed |= self.batch.capacity() > 0 || self.out.capacity() > 0;
            self.batch = Vec::new();
            self.out = Vec::new();
        }
        freed
    }

    /// The memory the pump's buffers commit now: the read buffer, the gathering buffer and the
    /// rewrite buffer.
    pub fn memory(&self) -> usize {
        self.cutter.storage().buf.capacity() + self.batch.capacity() + self.out.capacity()
    }

    /// Bytes received that are not a whole frame yet (at the end of a stream: a cut frame).
    pub fn buffered(&self) -> usize {
        self.cutter.buffered()
    }

    /// Where the next bytes read go; commit them with [`filled`](Self::filled).
    pub fn space(&mut self) -> &mut [u8] {
        self.cutter.space()
    }

    /// Commits `n` bytes read into [`space`](Self::space).
    pub fn filled(&mut self, n: usize) {
        self.cutter.filled(n);
    }

    /// The next bytes to write on, after decoding (and maybe rewriting) the frames they hold;
    /// `None` once every whole frame received has been handed out. Each call takes the
    /// previous output as written. A size prefix that is negative or above the maximum is an
    /// error, after the frames before it, and the stream cannot go on.
    pub fn next_output(&mut self) -> Result<Option<&[u8]>, conn::CutError> {
        if self.last == Last::Batch {
            self.batch.clear();
        }
        self.last = Last::Nothing;
        if let Some(rewritten) = self.held.take() {
            self.last = Last::Held;
            return Ok(Some(if rewritten { &self.out } else { self.cutter.handed() }));
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        loop {
            let Pump {
                direction,
                connection,
                cutter,
                batch,
                out,
                pairing,
                stats,
                map,
                observer,
                ..
            } = self;
            let frame = match cutter.next_frame() {
                Ok(Cut::Frame(f)) => f,
                Ok(Cut::NeedMore(_)) => break,
                Err(e) if batch.is_empty() => return Err(e),
                Err(e) => {
                    self.error = Some(e);
                    break;
                }
            };
            let rewritten = handle(
                *direction,
                *connection,
                frame,
                out,
                pairing,
                stats,
                map.as_deref(),
                observer,
            );
            let len = if rewritten { out.len() } else { frame.len() };
            if len >= DIRECT || batch.len() + len > WRITE_BATCH {
                if batch.is_empty() {
                    self.last = Last::Held;
                    return Ok(Some(if rewritten { &self.out } else { self.cutter.handed() }));
                }
                self.held = Some(rewritten);
                break;
            }
            batch.extend_from_slice(if rewritten { out } else { frame });
        }
        if self.batch.is_empty() {
            if self.batch.capacity() > KEEP {
                self.batch = Vec::new();
            }
            if self.out.capacity() > KEEP {
                self.out = Vec::new();
            }
            return Ok(None);
        }
        self.last = Last::Batch;
        Ok(Some(&self.batch))
    }

    /// Forwards until `from` ends. Frames still incomplete at the end are dropped.
    pub fn run<R: Read + ?Sized, W: Write + ?Sized>(&mut self, from: &mut R, to: &mut W) -> io::Result<()> {
        while self.step(from, to)? {}
        Ok(())
    }

    /// Reads once, then decodes and forwards every complete frame. `Ok(false)` at the end of
    /// the stream.
    pub fn step<R: Read + ?Sized, W: Write + ?Sized>(&mut self, from: &mut R, to: &mut W) -> io::Result<bool> {
        let n = loop {
            match from.read(self.space()) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                r => break r?,
            }
        };
        if n == 0 {
            return Ok(false);
        }
        self.filled(n);
        loop {
            match self.next_output() {
                Ok(Some(bytes)) => to.write_all(bytes)?,
                Ok(None) => break,
                Err(e) => return Err(io::Error::new(io::ErrorKind::InvalidData, e)),
            }
        }
        to.flush()?;
        Ok(true)
    }
}

/// Decodes one frame (size prefix included) through the connection's observer, counts it, tells
/// the observer; `true` when it was rewritten into `out`.
#[allow(clippy::too_many_arguments)]
fn handle(
    direction: Direction,
    connection: u64,
    frame: &[u8],
    out: &mut Vec<u8>,
    pairing: &Pairing,
    stats: &Stats,
    map: Option<&dyn AddressMap>,
    observer: &mut Option<Box<dyn FrameObserver>>,
) -> bool {
    let event = pairing.see(direction, frame);
    stats.frames.fetch_add(1, Ordering::Relaxed);
    stats.count(direction, event.api.map(|(k, _)| k.id()), frame.len());
    let counter = match &event.decoded {
        conn::Decoded::Request(r) if r.trailing.is_empty() => &stats.strict,
        conn::Decoded::Response(r) if r.trailing.is_empty() => &stats.strict,
        conn::Decoded::Request(_) | conn::Decoded::Response(_) => &stats.lenient,
        conn::Decoded::Failed(_) => &stats.failed,
        conn::Decoded::Unpaired => &stats.unpaired,
    };
    counter.fetch_add(1, Ordering::Relaxed);
    let mut rewritten = false;
    if let (conn::Decoded::Response(r), Some(m)) = (&event.decoded, map) {
        // An encoding failure leaves the response as it was.
        rewritten = rewrite_response(r, r.version, m, out).unwrap_or(false);
        if rewritten {
            stats.rewritten.fetch_add(1, Ordering::Relaxed);
        }
    }
    if let Some(o) = observer {
        o.frame(&Forwarded {
            connection,
            event,
            rewritten: rewritten.then_some(&out[..]),
        });
    }
    rewritten
}

/// Where the proxy's JSON lines go: a bounded queue in front of a writer thread, so that a slow
/// or stalled sink (a full disk, `| less`) never holds up forwarding. When the queue is full,
/// lines are dropped and counted; the writer logs the count (`{"event": "log_dropped"}`) when
/// it catches up. Lines are written through a buffer, flushed whenever the queue runs empty.
#[derive(Clone)]
pub struct LogSink {
    tx: std::sync::mpsc::SyncSender<Option<String>>,
    counts: Arc<LogCounts>,
}

#[derive(Debug, Default)]
struct LogCounts {
    dropped: AtomicU64,
    written: AtomicU64,
}

/// The writer thread of a [`LogSink`]; [`finish`](Self::finish) flushes what is queued.
pub struct LogWriter {
    tx: std::sync::mpsc::SyncSender<Option<String>>,
    ended: std::sync::mpsc::Receiver<()>,
}

impl LogSink {
    /// A sink of `capacity` queued lines writing to `out` from a thread of its own (named
    /// `kwire-log`). Fails only when the thread cannot be started.
    pub fn start(out: Box<dyn Write + Send>, capacity: usize) -> io::Result<(LogSink, LogWriter)> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Option<String>>(capacity.max(1));
        let counts = Arc::new(LogCounts::default());
        let c = counts.clone();
        let (end_tx, ended) = std::sync::mpsc::channel();
        thread::Builder::new().name("kwire-log".into()).spawn(move || {
            write_lines(rx, out, &c);
            let _ = end_tx.send(());
        })?;
        Ok((LogSink { tx: tx.clone(), counts }, LogWriter { tx, ended }))
    }

    /// Queues one line (without its newline); drops it, counted, when the queue is full.
    pub fn line(&self, line: String) {
        if self.tx.try_send(Some(line)).is_err() {
            self.counts.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Lines dropped because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.counts.dropped.load(Ordering::Relaxed)
    }

    /// Lines written.
    pub fn written(&self) -> u64 {
        self.counts.written.load(Ordering::Relaxed)
    }
}

impl LogWriter {
    /// Writes and flushes every line queued so far, and ends the writer thread (lines queued
    /// after this are dropped). Gives up after `timeout` when the sink does not take them (a
    /// stalled pipe): `false` then, and the thread is left blocked.
    pub fn finish(self, timeout: std::time::Duration) -> bool {
        let deadline = std::time::Instant::now() + timeout;
        let mut end = Some(None);
        while let Some(e) = end.take() {
            match self.tx.try_send(e) {
                Ok(()) => {}
                Err(std::sync::mpsc::TrySendError::Full(e)) => {
                    if std::time::Instant::now() >= deadline {
                        return false;
                    }
                    end = Some(e);
                    thread::sleep(std::time::Duration::from_millis(5));
                }
                Err(std::sync::mpsc::TrySendError::Disconnected(_)) => return true,
            }
        }
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        self.ended.recv_timeout(left).is_ok()
    }
}

fn write_lines(rx: std::sync::mpsc::Receiver<Option<String>>, out: Box<dyn Write + Send>, counts: &LogCounts) {
    let mut out = io::BufWriter::with_capacity(64 * 1024, out);
    let mut reported = 0;
    let mut next = rx.recv().unwrap_or(None);
    loop {
        let Some(line) = next.take() else {
            report_dropped(&mut out, counts, &mut reported);
            let _ = out.flush();
            return;
        };
        let _ = out.write_all(line.as_bytes());
        let _ = out.write_all(b"\n");
        counts.written.fetch_add(1, Ordering::Relaxed);
        next = match rx.try_recv() {
            Ok(l) => l,
            Err(_) => {
                // Caught up: say what was dropped meanwhile, and flush.
                report_dropped(&mut out, counts, &mut reported);
                let _ = out.flush();
                rx.recv().unwrap_or(None)
            }
        };
    }
}

fn report_dropped(out: &mut impl Write, counts: &LogCounts, reported: &mut u64) {
    let dropped = counts.dropped.load(Ordering::Relaxed);
    if dropped > *reported {
        let _ = writeln!(
            out,
            "{}",
            serde_json::json!({"event": "log_dropped", "time": now(), "dropped": dropped - *reported})
        );
        *reported = dropped;
    }
}

/// Seconds since the Unix epoch.
fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// Logs every frame as one JSON line, in the shape of [`crate::conversation`] (read off the
/// pump's one parse, [`conversation::to_json`]), plus `"rewritten": true` and `"forwardedBody"`
/// (the body the client received) for responses whose broker addresses were rewritten.
#[derive(Clone)]
pub struct JsonLog {
    label: Arc<str>,
    out: LogSink,
}

impl JsonLog {
    /// The observer of one connection named `label` (both directions), writing to `out` (which
    /// every connection shares).
    pub fn new(label: impl Into<String>, out: LogSink) -> JsonLog {
        JsonLog {
            label: Arc::from(label.into()),
            out,
        }
    }
}

/// The body of a rewritten response frame (`rewritten`, size prefix included) as JSON: its
/// bytes sit between the header and the trailing bytes the original frame had.
fn forwarded_body(parsed: &frame::ResponseFrame<'_>, rewritten: &[u8]) -> Result<serde_json::Value, String> {
    let start = 4 + parsed.header_bytes.len();
    let end = rewritten.len().saturating_sub(parsed.trailing.len());
    let body = rewritten
        .get(start..end)
        .ok_or("the rewritten frame is shorter than its header")?;
    crate::json::entry_of(parsed.body.schema())
        .and_then(|e| crate::json::wire_to_json(e, body, parsed.version))
        .map_err(|e| e.to_string())
}

impl FrameObserver for JsonLog {
    fn frame(&mut self, f: &Forwarded<'_>) {
        let mut ev = conversation::to_json(&self.label, now(), &f.event);
        if let (Some(r), conn::Decoded::Response(parsed), Some(obj)) =
            (f.rewritten, &f.event.decoded, ev.json.as_object_mut())
        {
            obj.insert("rewritten".into(), true.into());
            match forwarded_body(parsed, r) {
                Ok(b) => obj.insert("forwardedBody".into(), b),
                Err(e) => obj.insert(
                    "error".into(),
                    serde_json::json!({ "message": format!("the rewritten frame does not decode: {e}") }),
                ),
            };
        }
        self.out.line(ev.json.to_string());
    }
}
