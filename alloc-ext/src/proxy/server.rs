//! The proxy's server (feature `proxy`): listeners, connections, limits, timeouts, faults,
//! metrics and shutdown, on a tokio runtime of its own.
//!
//! Each client connection is one task holding two [`Pump`]s (one per direction), the two halves
//! of the client and upstream sockets, and a watchdog for its timeouts; connections cost no
//! thread. The runtime has one worker per core and at most [`BLOCKING_THREADS`] threads for
//! name lookups, so a flood of clients costs tasks and buffers, both bounded by [`Limits`].

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::net::{IpAddr, SocketAddr};
use std::pin::pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::thread;
use std::time::{Duration, Instant};

use kafka_wire::conn::{self, CutError};
use kafka_wire::ApiKey;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use super::{now, AddressMap, Direction, Forwarded, FrameObserver, JsonLog, LogSink, Pairing, Pump, Stats};

/// How long a connection's direction goes without bytes before its grown buffers are given back.
const RELAX_AFTER: Duration = Duration::from_secs(1);

/// Threads the runtime may start for blocking work (resolving upstream host names).
pub const BLOCKING_THREADS: usize = 4;

/// What the proxy holds at most, and how long it waits. Every field is a command-line option of
/// `kwire proxy`; the defaults are [`Limits::default`]'s.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Client connections open at once; a client beyond it is accepted, closed at once and
    /// logged (`connection_limit`). Default 10,000.
    pub max_connections: usize,
    /// Bytes all connections' buffers may commit together. A connection whose buffers grow
    /// while the total is above it is closed (`memory_budget`). Default 1 GiB.
    pub memory_budget: usize,
    /// The size each direction's read buffer rests at. Default 16 KiB.
    pub buffer_rest: usize,
    /// Connecting to the broker. Default 10 s.
    pub connect_timeout: Duration,
    /// A connection with no request waiting and no byte either way for this long is closed.
    /// Default 10 min (Kafka's `connections.max.idle.ms`).
    pub idle_timeout: Duration,
    /// A connection whose broker sends nothing for this long while a request waits is closed.
    /// Default 2 min.
    pub request_timeout: Duration,
    /// TCP keepalive probes on both sockets after this much silence; `None` leaves the system's
    /// setting. Default 60 s.
    pub keepalive: Option<Duration>,
    /// At shutdown, how long requests in flight may take to be answered. Default 30 s.
    pub drain_timeout: Duration,
    /// JSON lines queued for the log before lines are dropped (and counted). Default 65,536.
    pub log_queue: usize,
    /// Brokers given a listener of their own; a broker beyond it keeps its own address in
    /// responses (`broker_limit`). Default 1,024.
    pub max_brokers: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 10_000,
            memory_budget: 1 << 30,
            buffer_rest: 16 * 1024,
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(600),
            request_timeout: Duration::from_secs(120),
            keepalive: Some(Duration::from_secs(60)),
            drain_timeout: Duration::from_secs(30),
            log_queue: 65_536,
            max_brokers: 1024,
        }
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
    /// Where the JSON lines of frames go; `None` logs no frame. Faults are logged here too, or
    /// on standard error without a log.
    pub log: Option<Box<dyn Write + Send>>,
    /// Rewrite broker addresses (on by default).
    pub rewrite: bool,
    /// Bounds and timeouts.
    pub limits: Limits,
    /// Serve the counters in Prometheus' text format on this address.
    pub metrics: Option<SocketAddr>,
    /// SIGTERM and SIGINT shut the proxy down (Unix): stop accepting, drain, flush the log.
    pub signals: bool,
    /// Runtime workers (default: the cores available).
    pub workers: Option<usize>,
    /// TLS with clients and with brokers (feature `tls`).
    #[cfg(feature = "tls")]
    pub tls: Tls,
}

/// TLS on either side of the proxy, or both (feature `tls`). SASL passes through untouched.
#[cfg(feature = "tls")]
#[derive(Clone, Debug, Default)]
pub struct Tls {
    /// Terminate TLS from clients with this certificate chain and private key (PEM files).
    pub listen: Option<(std::path::PathBuf, std::path::PathBuf)>,
    /// Originate TLS to brokers, trusting the CA certificates of this PEM bundle.
    pub upstream_ca: Option<std::path::PathBuf>,
    /// The name brokers' certificates must carry (default: the host of each broker's address).
    pub upstream_server_name: Option<String>,
}

/// The TLS ends built from [`Tls`].
#[cfg(feature = "tls")]
#[derive(Default)]
struct TlsEnds {
    acceptor: Option<tokio_rustls::TlsAcceptor>,
    connector: Option<tokio_rustls::TlsConnector>,
    server_name: Option<String>,
}

#[cfg(feature = "tls")]
impl TlsEnds {
    fn new(tls: Tls) -> io::Result<TlsEnds> {
        use tokio_rustls::rustls;
        use tokio_rustls::rustls::pki_types::pem::PemObject;
        use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let bad = |what: &std::path::Path| {
            let what = what.display().to_string();
            move |e: &dyn std::fmt::Display| io::Error::new(io::ErrorKind::InvalidInput, format!("{what}: {e}"))
        };
        let certs = |path: &std::path::Path| -> io::Result<Vec<CertificateDer<'static>>> {
            let e = bad(path);
            let certs = CertificateDer::pem_file_iter(path)
                .map_err(|x| e(&x))?
                .collect::<Result<Vec<_>, _>>()
                .map_err(|x| e(&x))?;
            if certs.is_empty() {
                return Err(e(&"no certificate"));
            }
            Ok(certs)
        };
        // ring's cryptography builds with a C compiler alone (aws-lc-rs needs CMake as well); it
        // offers no post-quantum key exchange, which is why rustls marks it deprecated.
        #[allow(deprecated)]
        let provider = || Arc::new(rustls::crypto::ring::default_provider());
        let acceptor = match &tls.listen {
            Some((cert, key)) => {
                let chain = certs(cert)?;
                let key = PrivateKeyDer::from_pem_file(key).map_err(|x| bad(key)(&x))?;
                let config = rustls::ServerConfig::builder_with_provider(provider())
                    .with_safe_default_protocol_versions()
                    .and_then(|b| b.with_no_client_auth().with_single_cert(chain, key))
                    .map_err(|x| bad(cert)(&x))?;
                Some(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
            }
            None => None,
        };
        let connector = match &tls.upstream_ca {
            Some(ca) => {
                let mut roots = rustls::RootCertStore::empty();
                for c in certs(ca)? {
                    roots.add(c).map_err(|x| bad(ca)(&x))?;
                }
                let config = rustls::ClientConfig::builder_with_provider(provider())
                    .with_safe_default_protocol_versions()
                    .map_err(|x| bad(ca)(&x))?
                    .with_root_certificates(roots)
                    .with_no_client_auth();
                Some(tokio_rustls::TlsConnector::from(Arc::new(config)))
            }
            None => None,
        };
        Ok(TlsEnds {
            acceptor,
            connector,
            server_name: tls.upstream_server_name,
        })
    }
}

/// A connection's socket, in the clear or in TLS.
#[cfg(feature = "tls")]
enum Stream {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::TlsStream<TcpStream>>),
}

#[cfg(feature = "tls")]
impl AsyncRead for Stream {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => std::pin::Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => std::pin::Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

#[cfg(feature = "tls")]
impl AsyncWrite for Stream {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => std::pin::Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s) => std::pin::Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }
    fn poll_flush(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => std::pin::Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => std::pin::Pin::new(s.as_mut()).poll_flush(cx),
        }
    }
    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => std::pin::Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => std::pin::Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

/// A TLS handshake with the client (`Direction::Request`) or the broker (`Direction::Response`),
/// within the connect timeout; a failure or a timeout is logged as a `tls_handshake` fault.
#[cfg(feature = "tls")]
async fn tls_handshake<T>(
    shared: &Shared,
    peer: &Peer,
    side: Direction,
    handshake: impl std::future::Future<Output = io::Result<T>>,
) -> Option<T> {
    let who = match side {
        Direction::Request => "the client",
        Direction::Response => "the broker",
    };
    let timeout = shared.limits.connect_timeout;
    let m = match tokio::time::timeout(timeout, handshake).await {
        Ok(Ok(s)) => return Some(s),
        Ok(Err(e)) => format!("TLS handshake with {who}: {e}"),
        Err(_) => format!("no TLS handshake from {who} within {} ms", timeout.as_millis()),
    };
    shared.fault(Fault::TlsHandshake, Some(peer), Some(side), None, &m);
    None
}

/// The host of `host:port` (an IPv6 address without its brackets).
#[cfg(feature = "tls")]
fn host_of(address: &str) -> &str {
    let host = address.rsplit_once(':').map_or(address, |(h, _)| h);
    host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host)
}

impl Config {
    /// Listen on `listen`, forward to `upstream`, log nothing, rewrite addresses, default
    /// limits, no metrics, no signal handling.
    pub fn new(listen: SocketAddr, upstream: impl Into<String>) -> Self {
        Config {
            listen,
            upstream: upstream.into(),
            advertised_host: None,
            broker_port_base: None,
            max_frame: super::DEFAULT_MAX_FRAME,
            log: None,
            rewrite: true,
            limits: Limits::default(),
            metrics: None,
            signals: false,
            workers: None,
            #[cfg(feature = "tls")]
            tls: Tls::default(),
        }
    }
}

/// What went wrong, as logged (`{"event": "fault", "kind": …}`) and counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fault {
    /// A client was refused: [`Limits::max_connections`] were open.
    ConnectionLimit,
    /// Accepting failed (out of file descriptors, say); the listener backs off and goes on.
    AcceptFailed,
    /// The broker refused the connection, or could not be reached.
    UpstreamRefused,
    /// The broker did not accept the connection within [`Limits::connect_timeout`].
    UpstreamTimeout,
    /// Reading from or writing to the broker failed (a reset).
    UpstreamReset,
    /// The broker closed the connection while requests waited.
    UpstreamClosed,
    /// Reading from or writing to the client failed (a reset).
    ClientReset,
    /// The broker closed in the middle of a response frame.
    TruncatedFrame,
    /// The client closed in the middle of a request frame.
    ClientCutFrame,
    /// A size prefix above the largest frame allowed, or below zero.
    OversizedFrame,
    /// A request got no response before the connection closed.
    Unanswered,
    /// A frame did not decode (it was forwarded all the same).
    DecodeFailed,
    /// Nothing moved for [`Limits::idle_timeout`].
    IdleTimeout,
    /// The broker sent nothing for [`Limits::request_timeout`] while a request waited.
    RequestTimeout,
    /// The buffers' total was above [`Limits::memory_budget`].
    MemoryBudget,
    /// A broker beyond [`Limits::max_brokers`] got no listener.
    BrokerLimit,
    /// A broker's listener could not be bound.
    ListenFailed,
    /// Requests were still waiting when the drain deadline of a shutdown passed.
    DrainTimeout,
    /// A TLS handshake failed or timed out: with the client (direction `request`) or with the
    /// broker (direction `response`).
    TlsHandshake,
}

impl Fault {
    /// Every fault, in the order of [`Metrics::faults`].
    pub const ALL: [Fault; 19] = [
        Fault::ConnectionLimit,
        Fault::AcceptFailed,
        Fault::UpstreamRefused,
        Fault::UpstreamTimeout,
        Fault::UpstreamReset,
        Fault::UpstreamClosed,
        Fault::ClientReset,
        Fault::TruncatedFrame,
        Fault::ClientCutFrame,
        Fault::OversizedFrame,
        Fault::Unanswered,
        Fault::DecodeFailed,
        Fault::IdleTimeout,
        Fault::RequestTimeout,
        Fault::MemoryBudget,
        Fault::BrokerLimit,
        Fault::ListenFailed,
        Fault::DrainTimeout,
        Fault::TlsHandshake,
    ];

    /// Its name in the log and the metrics.
    pub const fn name(self) -> &'static str {
        match self {
            Fault::ConnectionLimit => "connection_limit",
            Fault::AcceptFailed => "accept_failed",
            Fault::UpstreamRefused => "upstream_refused",
            Fault::UpstreamTimeout => "upstream_timeout",
            Fault::UpstreamReset => "upstream_reset",
            Fault::UpstreamClosed => "upstream_closed",
            Fault::ClientReset => "client_reset",
            Fault::TruncatedFrame => "truncated_frame",
            Fault::ClientCutFrame => "client_cut_frame",
            Fault::OversizedFrame => "oversized_frame",
            Fault::Unanswered => "unanswered",
            Fault::DecodeFailed => "decode_failed",
            Fault::IdleTimeout => "idle_timeout",
            Fault::RequestTimeout => "request_timeout",
            Fault::MemoryBudget => "memory_budget",
            Fault::BrokerLimit => "broker_limit",
            Fault::ListenFailed => "listen_failed",
            Fault::DrainTimeout => "drain_timeout",
            Fault::TlsHandshake => "tls_handshake",
        }
    }

    fn index(self) -> usize {
        Fault::ALL.iter().position(|f| *f == self).unwrap_or(0)
    }
}

/// Connection counters and gauges, beside the frame counters of [`Stats`].
#[derive(Debug, Default)]
pub struct Metrics {
    /// Client connections accepted and served.
    pub accepted: AtomicU64,
    /// Client connections open now.
    pub active: AtomicUsize,
    /// Faults by kind, in the order of [`Fault::ALL`].
    pub faults: [AtomicU64; Fault::ALL.len()],
    /// Bytes the connections' buffers commit now.
    pub buffer_bytes: AtomicUsize,
}

impl Metrics {
    /// How many faults of `kind` happened.
    pub fn fault(&self, kind: Fault) -> u64 {
        self.faults.get(kind.index()).map_or(0, |c| c.load(Ordering::Relaxed))
    }
}

/// A listener's upstream: the bootstrap's is fixed, a broker's follows its address.
#[derive(Debug)]
struct Route {
    upstream: Mutex<String>,
}

impl Route {
    fn upstream(&self) -> String {
        self.upstream.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// A broker's listener: the broker's address and the proxy port for it.
#[derive(Debug)]
struct Broker {
    host: String,
    port: i32,
    proxy_port: i32,
    route: Arc<Route>,
}

/// Who a connection is, for its log lines.
#[derive(Debug, Clone)]
struct Peer {
    id: u64,
    client: String,
    broker: String,
    listener: String,
}

/// The running proxy's state shared by its tasks; it is the [`AddressMap`].
struct Shared {
    listen_ip: IpAddr,
    advertised_host: String,
    broker_port_base: u16,
    max_frame: usize,
    rewrite: bool,
    limits: Limits,
    stats: Arc<Stats>,
    metrics: Metrics,
    log: Option<LogSink>,
    events: LogSink,
    brokers: Mutex<HashMap<i32, Broker>>,
    connections: AtomicU64,
    shutdown: watch::Receiver<bool>,
    runtime: tokio::runtime::Handle,
    me: Weak<Shared>,
    #[cfg(feature = "tls")]
    tls: TlsEnds,
}

impl Shared {
    fn fault(
        &self,
        kind: Fault,
        peer: Option<&Peer>,
        direction: Option<Direction>,
        correlation_id: Option<i32>,
        message: &str,
    ) {
        if let Some(c) = self.metrics.faults.get(kind.index()) {
            c.fetch_add(1, Ordering::Relaxed);
        }
        let mut line = serde_json::json!({
            "event": "fault",
            "kind": kind.name(),
            "time": now(),
        });
        if let Some(o) = line.as_object_mut() {
            if let Some(p) = peer {
                o.insert("connection".into(), p.id.into());
                o.insert("client".into(), p.client.clone().into());
                o.insert("broker".into(), p.broker.clone().into());
                o.insert("listener".into(), p.listener.clone().into());
            }
            if let Some(d) = direction {
                let d = match d {
                    Direction::Request => "request",
                    Direction::Response => "response",
                };
                o.insert("direction".into(), d.into());
            }
            if let Some(c) = correlation_id {
                o.insert("correlationId".into(), c.into());
            }
            o.insert("message".into(), message.into());
        }
        self.events.line(line.to_string());
    }

    fn event(&self, line: serde_json::Value) {
        self.events.line(line.to_string());
    }
}

impl AddressMap for Shared {
    fn map(&self, node_id: i32, host: &str, port: i32) -> Option<(&str, i32)> {
        let mut brokers = self.brokers.lock().unwrap_or_else(|e| e.into_inner());
        let upstream = format!("{host}:{port}");
        if let Some(b) = brokers.get_mut(&node_id) {
            if b.host != host || b.port != port {
                // The broker moved: its listener stays, and forwards to the new address.
                *b.route.upstream.lock().unwrap_or_else(|e| e.into_inner()) = upstream.clone();
                self.event(serde_json::json!({
                    "event": "broker_moved", "time": now(), "nodeId": node_id,
                    "from": format!("{}:{}", b.host, b.port), "to": upstream, "listenerPort": b.proxy_port,
                }));
                b.host = host.to_string();
                b.port = port;
            }
            return Some((&self.advertised_host, b.proxy_port));
        }
        if brokers.len() >= self.limits.max_brokers {
            drop(brokers);
            let m = format!(
                "broker {node_id} ({upstream}) gets no listener: {} brokers have one",
                self.limits.max_brokers
            );
            self.fault(Fault::BrokerLimit, None, None, None, &m);
            return None;
        }
        let wanted = i64::from(self.broker_port_base) + i64::from(node_id);
        let try_bind = |p: u16| std::net::TcpListener::bind(SocketAddr::new(self.listen_ip, p));
        let listener = match (self.broker_port_base, u16::try_from(wanted)) {
            (1.., Ok(p)) if p > 0 => try_bind(p).or_else(|_| try_bind(0)),
            _ => try_bind(0),
        };
        let listener = listener.and_then(|l| {
            l.set_nonblocking(true)?;
            let _in_runtime = self.runtime.enter();
            TcpListener::from_std(l)
        });
        let listener = match listener {
            Ok(l) => l,
            Err(e) => {
                drop(brokers);
                let m = format!("cannot listen for broker {node_id} ({upstream}): {e}");
                self.fault(Fault::ListenFailed, None, None, None, &m);
                return None;
            }
        };
        let proxy_port = listener.local_addr().map(|a| i32::from(a.port())).unwrap_or(0);
        self.event(serde_json::json!({
            "event": "broker_listener", "time": now(), "nodeId": node_id, "broker": upstream,
            "listener": format!("{}:{proxy_port}", self.advertised_host),
        }));
        let route = Arc::new(Route {
            upstream: Mutex::new(upstream),
        });
        brokers.insert(
            node_id,
            Broker {
                host: host.to_string(),
                port,
                proxy_port,
                route: route.clone(),
            },
        );
        if let Some(me) = self.me.upgrade() {
            self.runtime.spawn(accept_loop(me, listener, route));
        }
        Some((&self.advertised_host, proxy_port))
    }
}

/// A running proxy.
pub struct Proxy {
    shared: Arc<Shared>,
    local: SocketAddr,
    metrics_addr: Option<SocketAddr>,
    stop: watch::Sender<bool>,
    done: std::sync::mpsc::Receiver<()>,
}

impl Proxy {
    /// Binds the bootstrap listener (and the metrics listener), and starts serving on a runtime
    /// thread of its own. Fails when a listener cannot be bound, or the runtime or the log's
    /// thread cannot be started.
    pub fn start(config: Config) -> io::Result<Proxy> {
        let listener = std::net::TcpListener::bind(config.listen)?;
        listener.set_nonblocking(true)?;
        let local = listener.local_addr()?;
        let metrics_listener = match config.metrics {
            Some(a) => {
                let l = std::net::TcpListener::bind(a)?;
                l.set_nonblocking(true)?;
                Some(l)
            }
            None => None,
        };
        let metrics_addr = metrics_listener.as_ref().and_then(|l| l.local_addr().ok());
        let workers = config
            .workers
            .unwrap_or_else(|| thread::available_parallelism().map_or(2, |n| n.get()));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers.max(1))
            .max_blocking_threads(BLOCKING_THREADS)
            .thread_name("kwire-proxy")
            .enable_all()
            .build()?;
        let limits = config.limits;
        #[cfg(feature = "tls")]
        let tls = TlsEnds::new(config.tls)?;
        let (log, log_writer) = match config.log {
            Some(out) => {
                let (s, w) = LogSink::start(out, limits.log_queue)?;
                (Some(s), Some(w))
            }
            None => (None, None),
        };
        let (events, events_writer) = match &log {
            Some(s) => (s.clone(), None),
            None => {
                let (s, w) = LogSink::start(Box::new(io::stderr()), limits.log_queue)?;
                (s, Some(w))
            }
        };
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
        let (stop, shutdown) = watch::channel(false);
        let shared = Arc::new_cyclic(|me| Shared {
            listen_ip: local.ip(),
            advertised_host,
            broker_port_base,
            max_frame: config.max_frame,
            rewrite: config.rewrite,
            limits,
            stats: Arc::new(Stats::default()),
            metrics: Metrics::default(),
            log,
            events,
            brokers: Mutex::new(HashMap::new()),
            connections: AtomicU64::new(0),
            shutdown,
            runtime: runtime.handle().clone(),
            me: me.clone(),
            #[cfg(feature = "tls")]
            tls,
        });
        let listener = {
            let _in_runtime = runtime.enter();
            TcpListener::from_std(listener)?
        };
        let route = Arc::new(Route {
            upstream: Mutex::new(config.upstream),
        });
        runtime.spawn(accept_loop(shared.clone(), listener, route));
        if let Some(l) = metrics_listener {
            let l = {
                let _in_runtime = runtime.enter();
                TcpListener::from_std(l)?
            };
            runtime.spawn(serve_metrics(shared.clone(), l));
        }
        if config.signals {
            runtime.spawn(stop_on_signals(stop.clone()));
        }
        let (done_tx, done) = std::sync::mpsc::channel();
        let s = shared.clone();
        thread::Builder::new().name("kwire-proxy-main".into()).spawn(move || {
            runtime.block_on(run_until_stopped(&s));
            // Connections still open past the drain deadline are cut here.
            runtime.shutdown_timeout(Duration::from_secs(1));
            for w in [log_writer, events_writer].into_iter().flatten() {
                if !w.finish(Duration::from_secs(5)) {
                    eprintln!("kwire proxy: the log did not take its last lines within 5 s; they are lost");
                }
            }
            let _ = done_tx.send(());
        })?;
        Ok(Proxy {
            shared,
            local,
            metrics_addr,
            stop,
            done,
        })
    }

    /// The bootstrap listener's address.
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// The metrics listener's address.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_addr
    }

    /// The frame counters.
    pub fn stats(&self) -> &Stats {
        &self.shared.stats
    }

    /// The connection counters and gauges.
    pub fn metrics(&self) -> &Metrics {
        &self.shared.metrics
    }

    /// Log lines dropped because the log's queue was full.
    pub fn log_dropped(&self) -> u64 {
        self.shared.log.as_ref().unwrap_or(&self.shared.events).dropped()
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

    /// Every counter in Prometheus' text format (what `--metrics` serves).
    pub fn render_metrics(&self) -> String {
        render(&self.shared)
    }

    /// One line of counters: connections, frames, faults.
    pub fn summary(&self) -> String {
        let m = &self.shared.metrics;
        let mut s = format!(
            "connections {} accepted, {} open; {}",
            m.accepted.load(Ordering::Relaxed),
            m.active.load(Ordering::Relaxed),
            self.shared.stats.summary()
        );
        let faults: Vec<String> = Fault::ALL
            .iter()
            .filter(|f| m.fault(**f) > 0)
            .map(|f| format!("{} {}", m.fault(*f), f.name()))
            .collect();
        if !faults.is_empty() {
            let _ = write!(s, "; faults: {}", faults.join(", "));
        }
        let dropped = self.log_dropped();
        if dropped > 0 {
            let _ = write!(s, "; {dropped} log lines dropped");
        }
        s
    }

    /// Stops accepting, lets requests in flight be answered within the drain deadline, then
    /// closes every connection and flushes the log. Returns at once; [`wait`](Self::wait) for
    /// the end.
    pub fn shutdown(&self) {
        let _ = self.stop.send(true);
    }

    /// Waits up to `timeout` for the proxy to end (after [`shutdown`](Self::shutdown), or a
    /// signal); `true` once it has ended, its log flushed.
    pub fn wait(&self, timeout: Duration) -> bool {
        !matches!(
            self.done.recv_timeout(timeout),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout)
        )
    }
}

impl Drop for Proxy {
    /// Shuts the proxy down (without waiting for it).
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

async fn stop_on_signals(stop: watch::Sender<bool>) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) else {
            return;
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
        let _ = stop.send(true);
    }
    #[cfg(not(unix))]
    {
        if tokio::signal::ctrl_c().await.is_ok() {
            let _ = stop.send(true);
        }
    }
}

/// Waits for the shutdown, then for every connection to end (they drain on their own), at most
/// the drain deadline and a little more.
async fn run_until_stopped(shared: &Shared) {
    let mut shutdown = shared.shutdown.clone();
    stopped(&mut shutdown).await;
    let deadline = Instant::now() + shared.limits.drain_timeout + Duration::from_secs(1);
    while shared.metrics.active.load(Ordering::Relaxed) > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Returns once the proxy is shutting down.
async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|s| *s).await;
}

/// Decrements the open connections when a connection's task ends, however it ends.
struct Active<'a>(&'a Metrics);

impl Drop for Active<'_> {
    fn drop(&mut self) {
        self.0.active.fetch_sub(1, Ordering::Relaxed);
    }
}

async fn accept_loop(shared: Arc<Shared>, listener: TcpListener, route: Arc<Route>) {
    let mut shutdown = shared.shutdown.clone();
    let local = listener.local_addr().map(|a| a.to_string()).unwrap_or_default();
    let mut backoff = Duration::from_millis(10);
    loop {
        let accepted = tokio::select! {
            r = listener.accept() => r,
            _ = stopped(&mut shutdown) => return,
        };
        let (client, addr) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // Out of file descriptors, say: this client is lost, the listener goes on after
                // a pause (the error would come back at once otherwise).
                let m = format!("accepting on {local}: {e}; retrying in {} ms", backoff.as_millis());
                shared.fault(Fault::AcceptFailed, None, None, None, &m);
                tokio::select! {
                    _ = tokio::time::sleep(backoff) => {}
                    _ = stopped(&mut shutdown) => return,
                }
                backoff = (backoff * 2).min(Duration::from_secs(1));
                continue;
            }
        };
        backoff = Duration::from_millis(10);
        let open = shared.metrics.active.fetch_add(1, Ordering::Relaxed);
        if open >= shared.limits.max_connections {
            shared.metrics.active.fetch_sub(1, Ordering::Relaxed);
            drop(client);
            let m = format!("{open} connections are open (the limit)");
            let peer = Peer {
                id: 0,
                client: addr.to_string(),
                broker: route.upstream(),
                listener: local.clone(),
            };
            shared.fault(Fault::ConnectionLimit, Some(&peer), None, None, &m);
            continue;
        }
        shared.metrics.accepted.fetch_add(1, Ordering::Relaxed);
        let s = shared.clone();
        let upstream = route.upstream();
        let local = local.clone();
        tokio::spawn(async move {
            let _active = Active(&s.metrics);
            serve(&s, client, addr, upstream, local).await;
        });
    }
}

async fn connect(upstream: &str) -> io::Result<TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, format!("{upstream} resolves to no address"));
    for a in tokio::net::lookup_host(upstream).await? {
        match TcpStream::connect(a).await {
            Ok(s) => return Ok(s),
            Err(e) => last = e,
        }
    }
    Err(last)
}

fn tune(s: &TcpStream, keepalive: Option<Duration>) {
    let _ = s.set_nodelay(true);
    if let Some(k) = keepalive {
        let _ = socket2::SockRef::from(s).set_tcp_keepalive(&socket2::TcpKeepalive::new().with_time(k));
    }
}

/// How a connection ended.
enum End {
    /// One side closed at a frame boundary.
    Closed(Direction),
    /// A fault, to be logged.
    Fault(Fault, Option<Direction>, Option<i32>, String),
    /// Shut down with nothing in flight.
    Drained,
}

/// Milliseconds since the connection opened: the last byte either way, and since when the
/// broker owes an answer.
struct Clock {
    start: Instant,
    last: AtomicU64,
    owed_since: AtomicU64,
}

impl Clock {
    fn now(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

/// Faults seen per frame (a frame that does not decode), and the JSON log when there is one.
struct ConnObserver {
    shared: Arc<Shared>,
    peer: Arc<Peer>,
    log: Option<JsonLog>,
}

impl FrameObserver for ConnObserver {
    fn frame(&mut self, f: &Forwarded<'_>) {
        if let conn::Decoded::Failed(e) = &f.event.decoded {
            let m = format!("forwarded undecoded: {e}");
            self.shared.fault(
                Fault::DecodeFailed,
                Some(&self.peer),
                Some(f.event.direction),
                f.event.correlation_id,
                &m,
            );
        }
        if let Some(l) = &mut self.log {
            l.frame(f);
        }
    }
}

async fn serve(shared: &Arc<Shared>, client: TcpStream, addr: SocketAddr, upstream: String, listener: String) {
    let limits = &shared.limits;
    let mut peer = Peer {
        id: shared.connections.fetch_add(1, Ordering::Relaxed) + 1,
        client: addr.to_string(),
        broker: upstream.clone(),
        listener,
    };
    tune(&client, limits.keepalive);
    #[cfg(feature = "tls")]
    let client = match &shared.tls.acceptor {
        Some(acceptor) => {
            let handshake = acceptor.accept(client);
            match tls_handshake(shared, &peer, Direction::Request, handshake).await {
                Some(s) => Stream::Tls(Box::new(s.into())),
                None => return,
            }
        }
        None => Stream::Plain(client),
    };
    let server = match tokio::time::timeout(limits.connect_timeout, connect(&upstream)).await {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => {
            shared.fault(
                Fault::UpstreamRefused,
                Some(&peer),
                None,
                None,
                &format!("connecting to {upstream}: {e}"),
            );
            return;
        }
        Err(_) => {
            let m = format!(
                "{upstream} did not accept within {} ms",
                limits.connect_timeout.as_millis()
            );
            shared.fault(Fault::UpstreamTimeout, Some(&peer), None, None, &m);
            return;
        }
    };
    tune(&server, limits.keepalive);
    if let Ok(a) = server.peer_addr() {
        peer.broker = a.to_string();
    }
    #[cfg(feature = "tls")]
    let server = match &shared.tls.connector {
        Some(connector) => {
            let name = shared
                .tls
                .server_name
                .clone()
                .unwrap_or_else(|| host_of(&upstream).to_string());
            let handshake = async {
                use tokio_rustls::rustls::pki_types::ServerName;
                let name = ServerName::try_from(name.clone())
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, format!("server name {name:?}: {e}")))?;
                connector.connect(name, server).await
            };
            match tls_handshake(shared, &peer, Direction::Response, handshake).await {
                Some(s) => Stream::Tls(Box::new(s.into())),
                None => return,
            }
        }
        None => Stream::Plain(server),
    };
    let peer = Arc::new(peer);
    #[cfg(feature = "tls")]
    match (client, server) {
        (Stream::Plain(mut c), Stream::Plain(mut s)) => {
            let (cr, cw) = c.split();
            let (sr, sw) = s.split();
            relay(shared, &peer, cr, cw, sr, sw).await;
        }
        (c, s) => {
            let (cr, cw) = tokio::io::split(c);
            let (sr, sw) = tokio::io::split(s);
            relay(shared, &peer, cr, cw, sr, sw).await;
        }
    }
    #[cfg(not(feature = "tls"))]
    {
        let (mut client, mut server) = (client, server);
        let (cr, cw) = client.split();
        let (sr, sw) = server.split();
        relay(shared, &peer, cr, cw, sr, sw).await;
    }
}

/// Forwards both ways between a client and its broker until either ends, a fault, or the
/// shutdown's drain; logs how it ended.
async fn relay<CR, CW, SR, SW>(
    shared: &Arc<Shared>,
    peer: &Arc<Peer>,
    mut c_read: CR,
    mut c_write: CW,
    mut s_read: SR,
    mut s_write: SW,
) where
    CR: AsyncRead + Unpin,
    CW: AsyncWrite + Unpin,
    SR: AsyncRead + Unpin,
    SW: AsyncWrite + Unpin,
{
    let limits = &shared.limits;
    let pairing = Arc::new(Pairing::new());
    let log_label = format!("{} > {} via {}", peer.client, peer.broker, peer.listener);
    let pump = |direction| {
        let observer = ConnObserver {
            shared: shared.clone(),
            peer: peer.clone(),
            log: shared.log.as_ref().map(|l| JsonLog::new(log_label.clone(), l.clone())),
        };
        let mut p = Pump::new(direction, peer.id, pairing.clone(), shared.stats.clone())
            .buffer(limits.buffer_rest, shared.max_frame)
            .observe(Box::new(observer));
        if shared.rewrite && direction == Direction::Response {
            p = p.rewrite_with(shared.clone() as Arc<dyn AddressMap>);
        }
        p
    };
    let mut requests = pump(Direction::Request);
    let mut responses = pump(Direction::Response);
    let clock = Clock {
        start: Instant::now(),
        last: AtomicU64::new(0),
        owed_since: AtomicU64::new(0),
    };
    let ends = Ends {
        shared,
        pairing: &pairing,
        clock: &clock,
    };
    let mut up = pin!(ends.forward(Direction::Request, &mut requests, &mut c_read, &mut s_write));
    let mut down = pin!(ends.forward(Direction::Response, &mut responses, &mut s_read, &mut c_write));
    let mut shutdown = shared.shutdown.clone();
    let end = tokio::select! {
        e = &mut up => e,
        e = &mut down => e,
        e = ends.watchdog() => e,
        _ = stopped(&mut shutdown) => {
            // Draining: no more requests are read; those in flight get their answers, within
            // the deadline.
            tokio::select! {
                e = &mut down => e,
                _ = ends.drained() => End::Drained,
                _ = tokio::time::sleep(limits.drain_timeout) => End::Fault(
                    Fault::DrainTimeout,
                    Some(Direction::Response),
                    None,
                    format!("{} requests were unanswered at the drain deadline", pairing.waiting()),
                ),
            }
        }
    };
    if let End::Fault(kind, direction, correlation_id, message) = &end {
        shared.fault(*kind, Some(peer), *direction, *correlation_id, message);
    }
    let mut unanswered = Vec::new();
    pairing.close(|p| unanswered.push(p));
    if !unanswered.is_empty() && !matches!(end, End::Fault(Fault::DrainTimeout | Fault::RequestTimeout, ..)) {
        let ids: Vec<i32> = unanswered.iter().take(16).map(|p| p.correlation_id).collect();
        let m = format!(
            "{} requests got no response before the connection closed ({}); the first correlation ids: {ids:?}",
            unanswered.len(),
            match end {
                End::Closed(Direction::Request) => "the client closed",
                End::Closed(Direction::Response) => "the broker closed",
                _ => "after the fault above",
            }
        );
        let first = unanswered.first().map(|p| p.correlation_id);
        shared.fault(Fault::Unanswered, Some(peer), Some(Direction::Request), first, &m);
    }
}

/// What both directions and the watchdog of one connection share.
struct Ends<'a> {
    shared: &'a Arc<Shared>,
    pairing: &'a Pairing,
    clock: &'a Clock,
}

/// The memory a pump commits, in the proxy's gauge while it runs.
struct Committed<'a> {
    metrics: &'a Metrics,
    counted: usize,
}

impl Committed<'_> {
    /// Records `now` bytes; the total after it.
    fn set(&mut self, now: usize) -> usize {
        let g = &self.metrics.buffer_bytes;
        let total = if now >= self.counted {
            g.fetch_add(now - self.counted, Ordering::Relaxed) + (now - self.counted)
        } else {
            g.fetch_sub(self.counted - now, Ordering::Relaxed) - (self.counted - now)
        };
        self.counted = now;
        total
    }
}

impl Drop for Committed<'_> {
    fn drop(&mut self) {
        self.metrics.buffer_bytes.fetch_sub(self.counted, Ordering::Relaxed);
    }
}

impl Ends<'_> {
    async fn forward<R, W>(&self, direction: Direction, pump: &mut Pump, from: &mut R, to: &mut W) -> End
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin,
    {
        let limits = &self.shared.limits;
        let (reader_fault, writer_fault) = match direction {
            Direction::Request => (Fault::ClientReset, Fault::UpstreamReset),
            Direction::Response => (Fault::UpstreamReset, Fault::ClientReset),
        };
        let mut committed = Committed {
            metrics: &self.shared.metrics,
            counted: 0,
        };
        loop {
            pump.space();
            let mine = pump.memory();
            let total = committed.set(mine);
            if total > limits.memory_budget && mine > limits.buffer_rest {
                let m = format!(
                    "the buffers hold {total} bytes, above the budget of {}; this connection's {mine}",
                    limits.memory_budget
                );
                return End::Fault(Fault::MemoryBudget, Some(direction), None, m);
            }
            // A read buffer grown by a large frame is given back after a second without bytes.
            let read = loop {
                tokio::select! {
                    r = from.read(pump.space()) => break r,
                    _ = tokio::time::sleep(RELAX_AFTER), if pump.buffer_capacity() > limits.buffer_rest => {
                        pump.relax();
                        committed.set(pump.memory());
                    }
                }
            };
            let n = match read {
                Ok(0) => {
                    let cut = pump.buffered();
                    return match (cut, direction) {
                        (0, Direction::Response) if self.pairing.waiting() > 0 => End::Fault(
                            Fault::UpstreamClosed,
                            Some(direction),
                            None,
                            format!("the broker closed with {} requests waiting", self.pairing.waiting()),
                        ),
                        (0, d) => End::Closed(d),
                        (n, Direction::Request) => End::Fault(
                            Fault::ClientCutFrame,
                            Some(direction),
                            None,
                            format!("the client closed {n} bytes into a frame"),
                        ),
                        (n, Direction::Response) => End::Fault(
                            Fault::TruncatedFrame,
                            Some(direction),
                            None,
                            format!("the broker closed {n} bytes into a frame"),
                        ),
                    };
                }
                Ok(n) => n,
                Err(e) => return End::Fault(reader_fault, Some(direction), None, format!("reading: {e}")),
            };
            let now = self.clock.now();
            self.clock.last.store(now, Ordering::Relaxed);
            let owed_before = self.pairing.waiting();
            pump.filled(n);
            loop {
                match pump.next_output() {
                    Ok(Some(bytes)) => {
                        if let Err(e) = to.write_all(bytes).await {
                            return End::Fault(writer_fault, Some(direction), None, format!("writing: {e}"));
                        }
                    }
                    Ok(None) => break,
                    Err(e @ (CutError::TooLarge { .. } | CutError::NegativeSize { .. })) => {
                        return End::Fault(Fault::OversizedFrame, Some(direction), None, e.to_string());
                    }
                    Err(e) => return End::Fault(Fault::OversizedFrame, Some(direction), None, e.to_string()),
                }
            }
            // The broker owes an answer from the first request after a quiet spell, and again
            // from each of its answers.
            if direction == Direction::Response || owed_before == 0 {
                self.clock.owed_since.store(self.clock.now(), Ordering::Relaxed);
            }
        }
    }

    /// Ends the connection when it has been idle, or the broker silent while it owes an answer.
    async fn watchdog(&self) -> End {
        let limits = &self.shared.limits;
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let (idle, request) = (ms(limits.idle_timeout), ms(limits.request_timeout));
        loop {
            let now = self.clock.now();
            let waiting = self.pairing.waiting();
            let deadline = if waiting > 0 {
                self.clock.owed_since.load(Ordering::Relaxed).saturating_add(request)
            } else {
                self.clock.last.load(Ordering::Relaxed).saturating_add(idle)
            };
            if now >= deadline {
                return if waiting > 0 {
                    let m = format!("the broker sent nothing for {request} ms while {waiting} requests waited");
                    End::Fault(
                        Fault::RequestTimeout,
                        Some(Direction::Response),
                        self.pairing.oldest(),
                        m,
                    )
                } else {
                    End::Fault(Fault::IdleTimeout, None, None, format!("nothing moved for {idle} ms"))
                };
            }
            // A request sent while this sleeps is owed no sooner than `request` from now, and a
            // quiet spell that starts while it sleeps ends no sooner than `idle` from now.
            let wake = deadline.min(now.saturating_add(request.min(idle)));
            tokio::time::sleep(Duration::from_millis(wake.saturating_sub(now).max(1))).await;
        }
    }

    /// Returns once no request waits for its response.
    async fn drained(&self) {
        while self.pairing.waiting() > 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// Serves [`render`] to each HTTP request on `listener`, one connection at a time (each given
/// five seconds), whatever the path.
async fn serve_metrics(shared: Arc<Shared>, listener: TcpListener) {
    let mut shutdown = shared.shutdown.clone();
    loop {
        let accepted = tokio::select! {
            r = listener.accept() => r,
            _ = stopped(&mut shutdown) => return,
        };
        let Ok((mut s, _)) = accepted else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let answer = async {
            let mut req = [0u8; 4096];
            let mut got = 0;
            while got < req.len() && !req[..got].windows(4).any(|w| w == b"\r\n\r\n") {
                match s.read(&mut req[got..]).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => got += n,
                }
            }
            let body = render(&shared);
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = s.write_all(head.as_bytes()).await;
            let _ = s.write_all(body.as_bytes()).await;
            let _ = s.shutdown().await;
        };
        let _ = tokio::time::timeout(Duration::from_secs(5), answer).await;
    }
}

/// The counters in Prometheus' text exposition format.
fn render(shared: &Shared) -> String {
    let m = &shared.metrics;
    let s = &shared.stats;
    let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
    let mut o = String::with_capacity(4096);
    let mut metric = |name: &str, kind: &str, help: &str, rows: &[(String, u64)]| {
        let _ = writeln!(o, "# HELP kwire_proxy_{name} {help}\n# TYPE kwire_proxy_{name} {kind}");
        for (labels, v) in rows {
            let _ = writeln!(o, "kwire_proxy_{name}{labels} {v}");
        }
    };
    let one = |v: u64| [(String::new(), v)];
    metric(
        "connections_accepted_total",
        "counter",
        "Client connections accepted and served.",
        &one(g(&m.accepted)),
    );
    metric(
        "connections_open",
        "gauge",
        "Client connections open.",
        &one(m.active.load(Ordering::Relaxed) as u64),
    );
    let faults: Vec<_> = Fault::ALL
        .iter()
        .map(|f| (format!("{{kind=\"{}\"}}", f.name()), m.fault(*f)))
        .collect();
    metric(
        "faults_total",
        "counter",
        "Faults by kind (each also a JSON line in the log).",
        &faults,
    );
    let decoded = [
        ("strict", g(&s.strict)),
        ("lenient", g(&s.lenient)),
        ("failed", g(&s.failed)),
        ("unpaired", g(&s.unpaired)),
    ]
    .map(|(k, v)| (format!("{{outcome=\"{k}\"}}"), v));
    metric(
        "frames_decoded_total",
        "counter",
        "Frames forwarded, by how they decoded.",
        &decoded,
    );
    metric(
        "responses_rewritten_total",
        "counter",
        "Responses re-encoded with the proxy's broker addresses.",
        &one(g(&s.rewritten)),
    );
    let mut frames = Vec::new();
    let mut bytes = Vec::new();
    for (d, name) in [(0, "request"), (1, "response")] {
        for (key, c) in s.apis.get(d).into_iter().flatten().enumerate() {
            let f = g(&c.frames);
            if f == 0 {
                continue;
            }
            let api = i16::try_from(key)
                .ok()
                .filter(|k| usize::try_from(*k).is_ok_and(|k| k < super::API_SLOTS - 1))
                .and_then(ApiKey::from_i16)
                .map_or("unknown", |k| k.name());
            let labels = format!("{{api=\"{api}\",direction=\"{name}\"}}");
            frames.push((labels.clone(), f));
            bytes.push((labels, g(&c.bytes)));
        }
    }
    metric(
        "frames_total",
        "counter",
        "Frames forwarded, by API and direction.",
        &frames,
    );
    metric(
        "bytes_total",
        "counter",
        "Bytes forwarded (size prefixes included), by API and direction.",
        &bytes,
    );
    let sink = shared.log.as_ref().unwrap_or(&shared.events);
    metric(
        "log_lines_total",
        "counter",
        "JSON lines written to the log.",
        &one(sink.written()),
    );
    metric(
        "log_dropped_total",
        "counter",
        "JSON lines dropped because the log's queue was full.",
        &one(sink.dropped()),
    );
    metric(
        "buffer_bytes",
        "gauge",
        "Bytes the connections' buffers commit.",
        &one(m.buffer_bytes.load(Ordering::Relaxed) as u64),
    );
    let listeners = shared.brokers.lock().unwrap_or_else(|e| e.into_inner()).len() as u64;
    metric(
        "broker_listeners",
        "gauge",
        "Brokers with a listener of their own.",
        &one(listeners),
    );
    o
}
