//! A decoding TCP proxy for Kafka: the library behind `kwire proxy`.
//!
//! Clients connect to the proxy instead of the broker. Every connection gets one connection to
//! the upstream broker, and two threads: one forwards requests (client to broker), the other
//! responses (broker to client). Each thread reads into the connection layer's frame cutter
//! (`kafka_wire::conn::FrameCutter`), forwards every complete frame unchanged, and decodes it
//! once on the way ([`Pump`]), leniently: a frame with bytes after its body is counted as
//! lenient, not strict. Responses do not name their API; the two threads share one
//! `kafka_wire::conn::Observer` ([`Pairing`]), which remembers each request's API key and
//! version until its response comes back, and reads the response as its answer.
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
//! * Bytes are read straight into the connection's frame buffer. Frames that arrive together
//!   are gathered into one write of up to [`WRITE_BATCH`] bytes (one copy); a frame larger than
//!   that is written straight from the read buffer. A partial frame may be moved to the front
//!   of the read buffer to make room for its rest.
//! * Buffers are reused: forwarding allocates nothing per frame (`alloc-ext/tests/proxy_allocs.rs`
//!   counts allocations); the read buffer grows as a large frame's bytes arrive and shrinks
//!   back after it. Decoding uses the borrowing views of `kafka-wire`, which never allocate.
//! * Only responses whose addresses change are re-encoded: the new broker list is built
//!   (one small allocation), the body encoded from the view with the other fields' bytes
//!   copied as they are, into a reused output buffer.
//! * Logging a frame as JSON allocates; without an observer (`--quiet`) nothing is formatted.
//!
//! ## Threads rather than an async runtime
//!
//! A debugging proxy has a handful of connections, each with at most a few requests in flight.
//! Two blocking threads per connection keep the forwarding loop a plain read-decode-write loop
//! that an example can show in a few lines ([`Pump::step`] works on any `Read` and `Write`),
//! need no runtime crate, and do not allocate per frame (an async runtime's task wake-ups and
//! buffers are harder to account for). The latency this adds is measured in
//! `benches/proxy_latency.sh` (results in `benches/RESULTS.md`).

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

use kafka_wire::conn::{self, Cut, FrameCutter, Growable, Observer};
use kafka_wire::frame;
use kafka_wire::messages::{
    describe_cluster_response, fetch_response, find_coordinator_response, metadata_response, produce_response,
    share_acknowledge_response, share_fetch_response,
};
use kafka_wire::{Array, EncodeError, Message, ResponseBody};

use crate::conversation;

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

    fn see<'a>(&self, direction: Direction, frame: &'a [u8]) -> conn::Event<'a> {
        let mut o = self.observer.lock().unwrap_or_else(|e| e.into_inner());
        match direction {
            Direction::Request => o.request(frame),
            Direction::Response => o.response(frame),
        }
    }
}

/// Counters over all connections.
#[derive(Debug, Default)]
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

/// One direction of one connection: reads frames, decodes them, forwards them.
pub struct Pump {
    direction: Direction,
    connection: u64,
    cutter: FrameCutter<Growable>,
    /// Frames gathered for one write.
    batch: Vec<u8>,
    /// A rewritten response frame.
    out: Vec<u8>,
    pairing: Arc<Pairing>,
    stats: Arc<Stats>,
    map: Option<Arc<dyn AddressMap>>,
    observer: Option<Box<dyn FrameObserver>>,
}

impl Pump {
    /// A pump for `direction` of connection number `connection`. Both directions of a
    /// connection share `pairing`.
    pub fn new(direction: Direction, connection: u64, pairing: Arc<Pairing>, stats: Arc<Stats>) -> Self {
        Pump {
            direction,
            connection,
            cutter: FrameCutter::new(Growable::new(READ_REST), DEFAULT_MAX_FRAME),
            batch: Vec::with_capacity(WRITE_BATCH),
            out: Vec::with_capacity(4096),
            pairing,
            stats,
            map: None,
            observer: None,
        }
    }

    /// Rejects frames above `max` bytes (the connection is closed).
    pub fn max_frame(mut self, max: usize) -> Self {
        self.cutter = FrameCutter::new(Growable::new(READ_REST), max);
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
        self.cutter.storage().capacity()
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
            let space = self.cutter.space();
            match from.read(space) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                r => break r?,
            }
        };
        if n == 0 {
            return Ok(false);
        }
        self.cutter.filled(n);
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
            } = self;
            let frame = match cutter.next_frame() {
                Ok(Cut::Frame(f)) => f,
                Ok(Cut::NeedMore(_)) => break,
                Err(e) => {
                    to.write_all(batch)?;
                    batch.clear();
                    return Err(io::Error::new(io::ErrorKind::InvalidData, e));
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
            let forward: &[u8] = if rewritten { out } else { frame };
            if batch.len() + forward.len() > WRITE_BATCH {
                to.write_all(batch)?;
                batch.clear();
            }
            if forward.len() > WRITE_BATCH {
                to.write_all(forward)?;
            } else {
                batch.extend_from_slice(forward);
            }
        }
        to.write_all(&self.batch)?;
        self.batch.clear();
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

/// Logs every frame as one JSON line, in the shape of [`crate::conversation`] (read off the
/// pump's one parse, [`conversation::to_json`]), plus `"rewritten": true` and `"forwardedBody"`
/// (the body the client received) for responses whose broker addresses were rewritten.
#[derive(Clone)]
pub struct JsonLog {
    label: Arc<str>,
    out: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl JsonLog {
    /// The observer of one connection named `label` (both directions), writing to `out` (which
    /// every connection shares).
    pub fn new(label: impl Into<String>, out: Arc<Mutex<Box<dyn Write + Send>>>) -> JsonLog {
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
        let time = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0);
        let mut ev = conversation::to_json(&self.label, time, &f.event);
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
        let line = ev.json.to_string();
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }
}

/// How to run a [`Proxy`].
pub struct Config {
    /// The bootstrap listener's address.
    pub listen: SocketAddr,
    /// The broker the bootstrap listener forwards to.
    pub upstream: String,
    /// The host advertised to clients in rewritten responses (default: the listening IP, or
    /// `localhost` when it listens on every interface).
    pub advertised_host: Option<String>,
    /// Broker `N` listens on `broker_port_base + N` (default: listening port + 1; 0 for
    /// ephemeral ports).
    pub broker_port_base: Option<u16>,
    /// Largest frame forwarded.
    pub max_frame: usize,
    /// Where the JSON lines go; `None` logs nothing.
    pub log: Option<Arc<Mutex<Box<dyn Write + Send>>>>,
    /// Rewrite broker addresses (on by default).
    pub rewrite: bool,
}

impl Config {
    /// Listen on `listen`, forward to `upstream`, log nothing, rewrite addresses.
    pub fn new(listen: SocketAddr, upstream: impl Into<String>) -> Self {
        Config {
            listen,
            upstream: upstream.into(),
            advertised_host: None,
            broker_port_base: None,
            max_frame: DEFAULT_MAX_FRAME,
            log: None,
            rewrite: true,
        }
    }
}

/// A broker's listener: its upstream address and the proxy port for it.
#[derive(Debug, Clone)]
struct BrokerListener {
    host: String,
    port: i32,
    proxy_port: i32,
}

/// The running proxy's state shared by its threads; it is the [`AddressMap`].
struct Shared {
    listen_ip: std::net::IpAddr,
    advertised_host: String,
    broker_port_base: u16,
    max_frame: usize,
    log: Option<Arc<Mutex<Box<dyn Write + Send>>>>,
    rewrite: bool,
    stats: Arc<Stats>,
    brokers: Mutex<HashMap<i32, BrokerListener>>,
    connections: AtomicU64,
    me: Mutex<std::sync::Weak<Shared>>,
}

impl AddressMap for Shared {
    fn map(&self, node_id: i32, host: &str, port: i32) -> Option<(&str, i32)> {
        let mut brokers = self.brokers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = brokers.get(&node_id) {
            if b.host == host && b.port == port {
                return Some((&self.advertised_host, b.proxy_port));
            }
        }
        // A new broker, or one that moved: a listener for it.
        let upstream = format!("{host}:{port}");
        let wanted = i64::from(self.broker_port_base) + i64::from(node_id);
        let try_bind = |p: u16| TcpListener::bind(SocketAddr::new(self.listen_ip, p));
        let listener = match (self.broker_port_base, u16::try_from(wanted)) {
            (1.., Ok(p)) if p > 0 => try_bind(p).or_else(|_| try_bind(0)),
            _ => try_bind(0),
        };
        let listener = match listener {
            Ok(l) => l,
            Err(e) => {
                eprintln!("kwire proxy: cannot listen for broker {node_id} ({upstream}): {e}");
                return None;
            }
        };
        let proxy_port = listener.local_addr().map(|a| i32::from(a.port())).unwrap_or(0);
        eprintln!(
            "kwire proxy: broker {node_id} ({upstream}) is reached through {}:{proxy_port}",
            self.advertised_host
        );
        brokers.insert(
            node_id,
            BrokerListener {
                host: host.to_string(),
                port,
                proxy_port,
            },
        );
        let me = self.me.lock().unwrap_or_else(|e| e.into_inner()).upgrade();
        if let Some(me) = me {
            thread::spawn(move || accept_loop(me, listener, upstream));
        }
        Some((&self.advertised_host, proxy_port))
    }
}

/// A running proxy.
pub struct Proxy {
    shared: Arc<Shared>,
    local: SocketAddr,
}

impl Proxy {
    /// Binds the bootstrap listener and starts accepting in a background thread.
    pub fn start(config: Config) -> io::Result<Proxy> {
        let listener = TcpListener::bind(config.listen)?;
        let local = listener.local_addr()?;
        let advertised_host = config.advertised_host.unwrap_or_else(|| {
            if local.ip().is_unspecified() {
                "localhost".to_string()
            } else {
                local.ip().to_string()
            }
        });
        let broker_port_base = config.broker_port_base.unwrap_or(if config.listen.port() == 0 {
            0
        } else {
            local.port().saturating_add(1)
        });
        let shared = Arc::new(Shared {
            listen_ip: local.ip(),
            advertised_host,
            broker_port_base,
            max_frame: config.max_frame,
            log: config.log,
            rewrite: config.rewrite,
            stats: Arc::new(Stats::default()),
            brokers: Mutex::new(HashMap::new()),
            connections: AtomicU64::new(0),
            me: Mutex::new(std::sync::Weak::new()),
        });
        *shared.me.lock().unwrap_or_else(|e| e.into_inner()) = Arc::downgrade(&shared);
        let s = shared.clone();
        let upstream = config.upstream;
        thread::spawn(move || accept_loop(s, listener, upstream));
        Ok(Proxy { shared, local })
    }

    /// The bootstrap listener's address.
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// The counters.
    pub fn stats(&self) -> &Stats {
        &self.shared.stats
    }

    /// The brokers discovered so far: node id, upstream `host:port`, proxy port.
    pub fn brokers(&self) -> Vec<(i32, String, i32)> {
        let b = self.shared.brokers.lock().unwrap_or_else(|e| e.into_inner());
        let mut v: Vec<_> = b
            .iter()
            .map(|(id, l)| (*id, format!("{}:{}", l.host, l.port), l.proxy_port))
            .collect();
        v.sort();
        v
    }
}

fn accept_loop(shared: Arc<Shared>, listener: TcpListener, upstream: String) {
    for client in listener.incoming() {
        let Ok(client) = client else { continue };
        let shared = shared.clone();
        let upstream = upstream.clone();
        thread::spawn(move || {
            if let Err(e) = serve(&shared, client, &upstream) {
                eprintln!("kwire proxy: connection to {upstream}: {e}");
            }
        });
    }
}

fn connect(upstream: &str) -> io::Result<TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, format!("{upstream} resolves to no address"));
    for a in upstream.to_socket_addrs()? {
        match TcpStream::connect(a) {
            Ok(s) => return Ok(s),
            Err(e) => last = e,
        }
    }
    Err(last)
}

fn serve(shared: &Arc<Shared>, client: TcpStream, upstream: &str) -> io::Result<()> {
    let server = connect(upstream)?;
    client.set_nodelay(true)?;
    server.set_nodelay(true)?;
    let connection = shared.connections.fetch_add(1, Ordering::Relaxed) + 1;
    let pairing = Arc::new(Pairing::new());
    // "client > broker via proxy listener", e.g. "127.0.0.1:50310 > 127.0.0.1:9092 via 127.0.0.1:19094".
    let label = format!(
        "{} > {} via {}",
        client.peer_addr()?,
        server.peer_addr()?,
        client.local_addr()?
    );
    let (log_requests, log_responses) = match &shared.log {
        Some(out) => {
            let log = JsonLog::new(label, out.clone());
            (Some(log.clone()), Some(log))
        }
        None => (None, None),
    };
    let pump = |direction, log: Option<JsonLog>| {
        let mut p = Pump::new(direction, connection, pairing.clone(), shared.stats.clone()).max_frame(shared.max_frame);
        if let Some(log) = log {
            p = p.observe(Box::new(log));
        }
        if shared.rewrite && direction == Direction::Response {
            p = p.rewrite_with(shared.clone() as Arc<dyn AddressMap>);
        }
        p
    };
    let mut requests = pump(Direction::Request, log_requests);
    let mut responses = pump(Direction::Response, log_responses);
    let (mut c_read, mut c_write) = (client.try_clone()?, client);
    let (mut s_read, mut s_write) = (server.try_clone()?, server);
    let back = thread::spawn(move || {
        let r = responses.run(&mut s_read, &mut c_write);
        let _ = c_write.shutdown(Shutdown::Both);
        let _ = s_read.shutdown(Shutdown::Both);
        r
    });
    let r = requests.run(&mut c_read, &mut s_write);
    let _ = s_write.shutdown(Shutdown::Both);
    let _ = c_read.shutdown(Shutdown::Both);
    let back = back.join().unwrap_or(Ok(()));
    let quiet = |r: io::Result<()>| match r {
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::ConnectionReset | io::ErrorKind::BrokenPipe | io::ErrorKind::NotConnected
            ) =>
        {
            Ok(())
        }
        r => r,
    };
    quiet(r).and(quiet(back))
}
