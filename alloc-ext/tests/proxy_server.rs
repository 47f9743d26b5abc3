//! `kafka_wire_ext::proxy::Proxy` on real sockets, in front of small fake brokers: address
//! rewriting end to end, and each fault of a proxy under pressure (a connection cap, hostile
//! size prefixes, idle and silent connections, a broker that refuses, truncates or moves, a log
//! that blocks, cut frames, shutdown with requests in flight), each shown to cost at most its own
//! connection while a healthy client is still served, and each logged as a JSON fault line.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kafka_wire::frame::{parse_request, parse_response, Mode};
use kafka_wire::messages::{
    describe_cluster_response::{DescribeClusterBroker, DescribeClusterResponse},
    find_coordinator_response::{Coordinator, FindCoordinatorResponse},
    metadata_response::{MetadataResponse, MetadataResponseBroker},
    ApiVersionsRequest, ApiVersionsResponse, DescribeClusterRequest, FindCoordinatorRequest, MetadataRequest,
};
use kafka_wire::{ApiKey, Array, RequestBody, ResponseBody};
use kafka_wire_ext::proxy::{Config, Fault, Limits, Proxy};

mod frames;
use frames::{request, response};

// A proxy on real sockets.

fn read_payload(s: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut size = [0u8; 4];
    s.read_exact(&mut size)?;
    let mut p = vec![0u8; i32::from_be_bytes(size) as usize];
    s.read_exact(&mut p)?;
    Ok(p)
}

/// How a fake broker behaves.
#[derive(Clone, Copy, PartialEq)]
enum Behave {
    /// Answers every request.
    Answer,
    /// Reads requests and never answers.
    Silent,
    /// Sends the first 10 bytes of its answer, then closes.
    Truncate,
    /// Answers after a pause.
    Slow(Duration),
    /// Names itself at a new port in each Metadata answer (20000, 20001, …).
    Moving,
}

/// A fake broker with node id 7 that answers ApiVersions, Metadata, FindCoordinator and
/// DescribeCluster, naming itself at its own address.
fn fake_broker() -> SocketAddr {
    broker(Behave::Answer)
}

fn broker(behave: Behave) -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let moves = Arc::new(std::sync::atomic::AtomicI32::new(20_000));
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { continue };
            let moves = moves.clone();
            std::thread::spawn(move || {
                while let Ok(p) = read_payload(&mut s) {
                    let port = if behave == Behave::Moving {
                        moves.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                    } else {
                        i32::from(addr.port())
                    };
                    let f = parse_request(&p, Mode::Strict).unwrap();
                    let corr = f.header.correlation_id;
                    let v = f.api_version;
                    match behave {
                        Behave::Silent => continue,
                        Behave::Slow(d) => std::thread::sleep(d),
                        _ => {}
                    }
                    let brokers = [MetadataResponseBroker {
                        node_id: 7,
                        host: "127.0.0.1",
                        port,
                        ..MetadataResponseBroker::DEFAULT
                    }];
                    let dbrokers = [DescribeClusterBroker {
                        broker_id: 7,
                        host: "127.0.0.1",
                        port,
                        ..DescribeClusterBroker::DEFAULT
                    }];
                    let cs = [Coordinator {
                        key: "g",
                        node_id: 7,
                        host: "127.0.0.1",
                        port,
                        ..Coordinator::DEFAULT
                    }];
                    let body = match f.api_key {
                        ApiKey::ApiVersions => ResponseBody::ApiVersions(ApiVersionsResponse {
                            throttle_time_ms: port,
                            ..ApiVersionsResponse::DEFAULT
                        }),
                        ApiKey::Metadata => ResponseBody::Metadata(MetadataResponse {
                            brokers: Array::from_slice(&brokers),
                            ..MetadataResponse::DEFAULT
                        }),
                        ApiKey::DescribeCluster => ResponseBody::DescribeCluster(DescribeClusterResponse {
                            brokers: Array::from_slice(&dbrokers),
                            ..DescribeClusterResponse::DEFAULT
                        }),
                        ApiKey::FindCoordinator if v >= 4 => ResponseBody::FindCoordinator(FindCoordinatorResponse {
                            coordinators: Array::from_slice(&cs),
                            ..FindCoordinatorResponse::DEFAULT
                        }),
                        ApiKey::FindCoordinator => ResponseBody::FindCoordinator(FindCoordinatorResponse {
                            node_id: 7,
                            host: "127.0.0.1",
                            port,
                            ..FindCoordinatorResponse::DEFAULT
                        }),
                        k => panic!("fake broker: {k:?}"),
                    };
                    let bytes = response(corr, body, v);
                    if behave == Behave::Truncate {
                        let _ = s.write_all(&bytes[..10]);
                        break;
                    }
                    if s.write_all(&bytes).is_err() {
                        break;
                    }
                }
            });
        }
    });
    addr
}

fn call(s: &mut (impl Read + Write), corr: i32, body: RequestBody<'_>, v: i16, check: impl FnOnce(ResponseBody<'_>)) {
    s.write_all(&request(corr, body, v)).unwrap();
    let p = read_payload(s).unwrap();
    let f = parse_response(&p, body.key(), v, Mode::Strict).unwrap();
    assert_eq!(f.header.correlation_id, corr);
    check(f.body);
}

#[derive(Clone, Default)]
struct SharedBuf(Arc<Mutex<Vec<u8>>>);

impl SharedBuf {
    /// The JSON lines written so far.
    fn lines(&self) -> Vec<serde_json::Value> {
        let text = String::from_utf8(self.0.lock().unwrap().clone()).unwrap();
        text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    /// Waits up to 5 s for a fault of `kind`; returns it.
    fn fault(&self, kind: &str) -> serde_json::Value {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            if let Some(l) = self
                .lines()
                .into_iter()
                .find(|l| l["event"] == "fault" && l["kind"] == kind)
            {
                return l;
            }
            assert!(Instant::now() < deadline, "no {kind} fault in {:#?}", self.lines());
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
impl Write for SharedBuf {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| io::Error::other("poisoned"))?
            .extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn clients_are_sent_to_the_proxy_s_listener_for_each_broker() {
    let broker = fake_broker();
    let log = SharedBuf::default();
    let mut config = Config::new("127.0.0.1:0".parse().unwrap(), broker.to_string());
    config.log = Some(Box::new(log.clone()));
    let proxy = Proxy::start(config).unwrap();
    let mut s = TcpStream::connect(proxy.local_addr()).unwrap();
    let mut listener_port = 0;
    call(&mut s, 1, RequestBody::Metadata(MetadataRequest::DEFAULT), 12, |b| {
        let ResponseBody::Metadata(m) = b else { panic!() };
        let b = m.brokers.iter().next().unwrap();
        assert_eq!((b.node_id, b.host), (7, "127.0.0.1"));
        assert_ne!(
            b.port,
            i32::from(broker.port()),
            "the broker's own port reached the client"
        );
        listener_port = b.port;
    });
    assert_eq!(proxy.brokers(), [(7, broker.to_string(), listener_port)]);
    // The same listener in every other address-bearing response.
    for v in [3, 6] {
        let keys = ["g"];
        let req = if v >= 4 {
            FindCoordinatorRequest {
                coordinator_keys: Array::from_slice(&keys),
                ..FindCoordinatorRequest::DEFAULT
            }
        } else {
            FindCoordinatorRequest {
                key: "g",
                ..FindCoordinatorRequest::DEFAULT
            }
        };
        let req = RequestBody::FindCoordinator(req);
        call(&mut s, 2, req, v, |b| {
            let ResponseBody::FindCoordinator(m) = b else { panic!() };
            let port = if v >= 4 {
                m.coordinators.iter().next().unwrap().port
            } else {
                m.port
            };
            assert_eq!(port, listener_port, "FindCoordinator v{v}");
        });
    }
    call(
        &mut s,
        3,
        RequestBody::DescribeCluster(DescribeClusterRequest::DEFAULT),
        1,
        |b| {
            let ResponseBody::DescribeCluster(m) = b else { panic!() };
            assert_eq!(m.brokers.iter().next().unwrap().port, listener_port);
        },
    );
    // The listener leads to the broker.
    let mut direct = TcpStream::connect(("127.0.0.1", listener_port as u16)).unwrap();
    call(
        &mut direct,
        9,
        RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT),
        3,
        |b| {
            let ResponseBody::ApiVersions(m) = b else { panic!() };
            assert_eq!(
                m.throttle_time_ms,
                i32::from(broker.port()),
                "answered by the fake broker"
            );
        },
    );
    drop((s, direct));
    // One JSON line per frame, each decoded, the rewritten ones marked.
    let deadline = Instant::now() + Duration::from_secs(5);
    let lines = loop {
        let lines: Vec<serde_json::Value> = log.lines().into_iter().filter(|l| l.get("event").is_none()).collect();
        if lines.len() >= 10 || Instant::now() > deadline {
            break lines;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let events = log.lines();
    assert!(
        events
            .iter()
            .any(|l| l["event"] == "broker_listener" && l["nodeId"] == 7),
        "the broker's listener is logged"
    );
    assert!(!events.iter().any(|l| l["event"] == "fault"), "{events:#?}");
    assert_eq!(lines.len(), 10, "{lines:#?}");
    for l in &lines {
        assert!(l.get("error").is_none() && l.get("note").is_none(), "{l}");
        assert!(l["header"].is_object() && l["body"].is_object(), "{l}");
    }
    let rewritten: Vec<_> = lines
        .iter()
        .filter(|l| l["rewritten"] == true)
        .map(|l| l["apiName"].as_str().unwrap())
        .collect();
    assert_eq!(
        rewritten,
        ["Metadata", "FindCoordinator", "FindCoordinator", "DescribeCluster"]
    );
    let m = lines
        .iter()
        .find(|l| l["apiName"] == "Metadata" && l["direction"] == "response")
        .unwrap();
    assert_eq!(m["body"]["brokers"][0]["port"], i64::from(broker.port()));
    assert_eq!(m["forwardedBody"]["brokers"][0]["port"], i64::from(listener_port));
}

/// A proxy in front of `upstream` with `limits`, logging into the returned buffer.
fn proxy_with(upstream: SocketAddr, limits: Limits) -> (Proxy, SharedBuf) {
    let log = SharedBuf::default();
    let mut config = Config::new("127.0.0.1:0".parse().unwrap(), upstream.to_string());
    config.log = Some(Box::new(log.clone()));
    config.limits = limits;
    config.workers = Some(2);
    (Proxy::start(config).unwrap(), log)
}

fn connect(p: &Proxy) -> TcpStream {
    let s = TcpStream::connect(p.local_addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s
}

/// Waits up to 5 s for `cond`.
fn until(cond: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A healthy client: ApiVersions through the proxy, answered by the fake broker.
fn healthy(p: &Proxy, broker: SocketAddr) {
    let mut s = connect(p);
    call(
        &mut s,
        1,
        RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT),
        3,
        |b| {
            let ResponseBody::ApiVersions(m) = b else { panic!() };
            assert_eq!(m.throttle_time_ms, i32::from(broker.port()));
        },
    );
}

/// Whether the proxy closed `s` (end of stream or a reset) within 5 s of the last byte it sent.
fn closed(s: &mut TcpStream) -> bool {
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut b = [0u8; 256];
    loop {
        // Whatever comes first (a TLS alert, say) is read past.
        match s.read(&mut b) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) => return !matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut),
        }
    }
}

#[test]
fn clients_beyond_the_connection_cap_are_refused_and_logged_and_the_rest_are_served() {
    let broker = fake_broker();
    let (p, log) = proxy_with(
        broker,
        Limits {
            max_connections: 3,
            ..Limits::default()
        },
    );
    let held: Vec<_> = (0..2).map(|_| connect(&p)).collect();
    healthy(&p, broker);
    until(|| p.metrics().active.load(std::sync::atomic::Ordering::Relaxed) == 2);
    let mut third = connect(&p);
    let mut fourth = connect(&p);
    assert!(closed(&mut fourth), "the fourth connection is closed");
    let f = log.fault("connection_limit");
    assert_eq!(f["client"], fourth.local_addr().unwrap().to_string());
    call(
        &mut third,
        5,
        RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT),
        3,
        |_| {},
    );
    drop(third);
    // A place is free again.
    until(|| p.metrics().active.load(std::sync::atomic::Ordering::Relaxed) == 2);
    healthy(&p, broker);
    assert_eq!(p.metrics().fault(Fault::ConnectionLimit), 1);
    drop(held);
}

#[test]
fn a_size_prefix_of_100_mib_commits_no_memory() {
    let broker = fake_broker();
    let (p, _log) = proxy_with(broker, Limits::default());
    let rest = Limits::default().buffer_rest;
    let hostile: Vec<_> = (0..100)
        .map(|_| {
            let mut s = connect(&p);
            s.write_all(&(100i32 << 20).to_be_bytes()).unwrap();
            s.write_all(&[0; 100]).unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    healthy(&p, broker);
    let held = p.metrics().buffer_bytes.load(std::sync::atomic::Ordering::Relaxed);
    // Two resting read buffers per connection, nothing for the announced 100 MiB.
    assert!(held <= 100 * 2 * rest + 64 * 1024, "{held} bytes held");
    // The hostile connections are all still open (the healthy one may not have been counted
    // closed yet).
    assert!(p.metrics().active.load(std::sync::atomic::Ordering::Relaxed) >= 100);
    drop(hostile);
}

#[test]
fn a_frame_above_the_maximum_closes_its_connection_only() {
    let broker = fake_broker();
    let log = SharedBuf::default();
    let mut config = Config::new("127.0.0.1:0".parse().unwrap(), broker.to_string());
    config.log = Some(Box::new(log.clone()));
    config.max_frame = 1000;
    let p = Proxy::start(config).unwrap();
    let mut s = connect(&p);
    s.write_all(&2000i32.to_be_bytes()).unwrap();
    assert!(closed(&mut s));
    let f = log.fault("oversized_frame");
    assert_eq!(f["direction"], "request");
    assert_eq!(f["client"], s.local_addr().unwrap().to_string());
    healthy(&p, broker);
}

#[test]
fn an_idle_connection_is_closed() {
    let broker = fake_broker();
    let limits = Limits {
        idle_timeout: Duration::from_millis(300),
        ..Limits::default()
    };
    let (p, log) = proxy_with(broker, limits);
    let mut s = connect(&p);
    call(
        &mut s,
        1,
        RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT),
        3,
        |_| {},
    );
    let t = Instant::now();
    assert!(closed(&mut s));
    assert!(
        t.elapsed() >= Duration::from_millis(250),
        "closed after {:?}",
        t.elapsed()
    );
    log.fault("idle_timeout");
}

#[test]
fn a_silent_broker_costs_the_request_s_connection_after_the_request_timeout() {
    let silent = broker(Behave::Silent);
    let limits = Limits {
        request_timeout: Duration::from_millis(400),
        ..Limits::default()
    };
    let (p, log) = proxy_with(silent, limits);
    let mut s = connect(&p);
    s.write_all(&request(42, RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT), 3))
        .unwrap();
    let t = Instant::now();
    assert!(closed(&mut s));
    assert!(
        t.elapsed() >= Duration::from_millis(350),
        "closed after {:?}",
        t.elapsed()
    );
    let f = log.fault("request_timeout");
    assert_eq!(f["correlationId"], 42);
    assert_eq!(f["broker"], silent.to_string());
}

#[test]
fn a_refused_upstream_costs_the_client_s_connection_and_is_logged() {
    // A port with nothing listening: bound, then closed.
    let gone = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let (p, log) = proxy_with(gone, Limits::default());
    let mut s = connect(&p);
    assert!(closed(&mut s));
    let f = log.fault("upstream_refused");
    assert_eq!(f["broker"], gone.to_string());
    assert_eq!(f["client"], s.local_addr().unwrap().to_string());
}

#[test]
fn a_truncated_response_and_a_cut_request_are_logged() {
    let truncating = broker(Behave::Truncate);
    let (p, log) = proxy_with(truncating, Limits::default());
    let mut s = connect(&p);
    s.write_all(&request(3, RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT), 3))
        .unwrap();
    assert!(closed(&mut s));
    let f = log.fault("truncated_frame");
    assert_eq!(f["direction"], "response");
    let f = log.fault("unanswered");
    assert_eq!(f["correlationId"], 3);

    let broker = fake_broker();
    let (p, log) = proxy_with(broker, Limits::default());
    let mut s = connect(&p);
    let r = request(4, RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT), 3);
    s.write_all(&r[..r.len() - 2]).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    drop(s);
    let f = log.fault("client_cut_frame");
    assert_eq!(f["direction"], "request");
    healthy(&p, broker);
}

#[test]
fn an_unanswered_request_at_close_is_logged_with_its_correlation_id() {
    let silent = broker(Behave::Silent);
    let (p, log) = proxy_with(silent, Limits::default());
    let mut s = connect(&p);
    s.write_all(&request(77, RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT), 3))
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    drop(s);
    let f = log.fault("unanswered");
    assert_eq!(f["correlationId"], 77);
    assert_eq!(f["direction"], "request");
}

/// A log sink that blocks forever, as `kwire proxy | less` does once its pipe is full.
struct Stalled;
impl Write for Stalled {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        loop {
            std::thread::park();
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_stalled_log_never_holds_up_forwarding() {
    let broker = fake_broker();
    let mut config = Config::new("127.0.0.1:0".parse().unwrap(), broker.to_string());
    config.log = Some(Box::new(Stalled));
    config.limits.log_queue = 16;
    let p = Proxy::start(config).unwrap();
    let mut s = connect(&p);
    for corr in 0..500 {
        call(
            &mut s,
            corr,
            RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT),
            3,
            |_| {},
        );
    }
    healthy(&p, broker);
    // 1,002 frames, at most 16 queued and one being written.
    assert!(p.log_dropped() >= 1002 - 17, "{} dropped", p.log_dropped());
}

#[test]
fn a_broker_that_moves_keeps_its_one_listener() {
    let moving = broker(Behave::Moving);
    let (p, log) = proxy_with(moving, Limits::default());
    let mut s = connect(&p);
    let mut ports = std::collections::BTreeSet::new();
    for corr in 0..300 {
        call(&mut s, corr, RequestBody::Metadata(MetadataRequest::DEFAULT), 12, |b| {
            let ResponseBody::Metadata(m) = b else { panic!() };
            ports.insert(m.brokers.iter().next().unwrap().port);
        });
    }
    assert_eq!(ports.len(), 1, "one listener port for the broker: {ports:?}");
    let brokers = p.brokers();
    assert_eq!(brokers.len(), 1);
    assert_eq!(
        brokers[0].1, "127.0.0.1:20299",
        "the listener forwards to the newest address"
    );
    assert!(p.render_metrics().contains("kwire_proxy_broker_listeners 1\n"));
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let moved = log.lines().iter().filter(|l| l["event"] == "broker_moved").count();
        if moved == 299 {
            break;
        }
        assert!(Instant::now() < deadline, "{moved} broker_moved lines");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn shutdown_lets_requests_in_flight_finish_then_stops_accepting() {
    let slow = broker(Behave::Slow(Duration::from_millis(500)));
    let (p, log) = proxy_with(slow, Limits::default());
    let mut s = connect(&p);
    s.write_all(&request(9, RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT), 3))
        .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    p.shutdown();
    let payload = read_payload(&mut s).unwrap();
    let f = parse_response(&payload, ApiKey::ApiVersions, 3, Mode::Strict).unwrap();
    assert_eq!(f.header.correlation_id, 9, "the request in flight was answered");
    assert!(p.wait(Duration::from_secs(5)), "the proxy ended");
    assert!(closed(&mut s));
    assert!(TcpStream::connect(p.local_addr()).is_err(), "nothing listens any more");
    assert!(!log.lines().iter().any(|l| l["event"] == "fault"), "{:#?}", log.lines());
}

#[test]
fn metrics_are_served_in_prometheus_text_format() {
    let broker = fake_broker();
    let mut config = Config::new("127.0.0.1:0".parse().unwrap(), broker.to_string());
    config.metrics = Some("127.0.0.1:0".parse().unwrap());
    let p = Proxy::start(config).unwrap();
    healthy(&p, broker);
    let mut m = TcpStream::connect(p.metrics_addr().unwrap()).unwrap();
    m.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let mut text = String::new();
    m.read_to_string(&mut text).unwrap();
    assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
    for line in [
        "kwire_proxy_connections_accepted_total 1\n",
        "kwire_proxy_frames_total{api=\"ApiVersions\",direction=\"request\"} 1\n",
        "kwire_proxy_frames_total{api=\"ApiVersions\",direction=\"response\"} 1\n",
        "kwire_proxy_frames_decoded_total{outcome=\"strict\"} 2\n",
        "kwire_proxy_faults_total{kind=\"connection_limit\"} 0\n",
    ] {
        assert!(text.contains(line), "{line:?} in {text}");
    }
}

// TLS (feature `tls`): certificates made here with rcgen, blocking rustls clients and brokers.

#[cfg(feature = "tls")]
mod tls {
    use super::*;
    use kafka_wire_ext::proxy::Tls;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};

    /// A self-signed certificate for `localhost` and 127.0.0.1, written as PEM files; with its
    /// DER forms.
    struct Cert {
        cert: std::path::PathBuf,
        key: std::path::PathBuf,
        der: CertificateDer<'static>,
        key_der: Vec<u8>,
    }

    fn cert(name: &str) -> Cert {
        let c = rcgen::generate_simple_self_signed(vec!["localhost".to_string(), "127.0.0.1".to_string()]).unwrap();
        let dir = std::env::temp_dir().join(format!("kwire-tls-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
        std::fs::write(&cert, c.cert.pem()).unwrap();
        std::fs::write(&key, c.signing_key.serialize_pem()).unwrap();
        Cert {
            cert,
            key,
            der: c.cert.der().clone(),
            key_der: c.signing_key.serialize_der(),
        }
    }

    fn provider() -> Arc<rustls::crypto::CryptoProvider> {
        #[allow(deprecated)]
        Arc::new(rustls::crypto::ring::default_provider())
    }

    fn client_config(trust: &Cert) -> Arc<rustls::ClientConfig> {
        let mut roots = rustls::RootCertStore::empty();
        roots.add(trust.der.clone()).unwrap();
        Arc::new(
            rustls::ClientConfig::builder_with_provider(provider())
                .with_safe_default_protocol_versions()
                .unwrap()
                .with_root_certificates(roots)
                .with_no_client_auth(),
        )
    }

    /// A TLS client of the proxy, trusting `trust`, for the name `localhost`.
    fn tls_client(p: &Proxy, trust: &Cert) -> rustls::StreamOwned<rustls::ClientConnection, TcpStream> {
        let name = ServerName::try_from("localhost").unwrap();
        let conn = rustls::ClientConnection::new(client_config(trust), name).unwrap();
        rustls::StreamOwned::new(conn, connect(p))
    }

    /// A fake broker behind TLS (node id 7, answering as `fake_broker` does, ApiVersions only).
    fn tls_broker(c: &Cert) -> SocketAddr {
        let config = Arc::new(
            rustls::ServerConfig::builder_with_provider(provider())
                .with_safe_default_protocol_versions()
                .unwrap()
                .with_no_client_auth()
                .with_single_cert(
                    vec![c.der.clone()],
                    PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(c.key_der.clone())),
                )
                .unwrap(),
        );
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        std::thread::spawn(move || {
            for s in l.incoming() {
                let Ok(s) = s else { continue };
                let config = config.clone();
                std::thread::spawn(move || {
                    let conn = rustls::ServerConnection::new(config).unwrap();
                    let mut s = rustls::StreamOwned::new(conn, s);
                    while let Ok(p) = read_payload(&mut s) {
                        let f = parse_request(&p, Mode::Strict).unwrap();
                        let body = ResponseBody::ApiVersions(ApiVersionsResponse {
                            throttle_time_ms: i32::from(addr.port()),
                            ..ApiVersionsResponse::DEFAULT
                        });
                        if s.write_all(&response(f.header.correlation_id, body, f.api_version))
                            .is_err()
                        {
                            break;
                        }
                        let _ = s.flush();
                    }
                });
            }
        });
        addr
    }

    #[test]
    fn tls_from_clients_is_terminated_and_a_plain_client_is_refused_and_logged() {
        let broker = fake_broker();
        let c = cert("terminate");
        let log = SharedBuf::default();
        let mut config = Config::new("127.0.0.1:0".parse().unwrap(), broker.to_string());
        config.log = Some(Box::new(log.clone()));
        config.tls = Tls {
            listen: Some((c.cert.clone(), c.key.clone())),
            ..Tls::default()
        };
        let p = Proxy::start(config).unwrap();
        let mut s = tls_client(&p, &c);
        call(
            &mut s,
            1,
            RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT),
            3,
            |b| {
                let ResponseBody::ApiVersions(m) = b else { panic!() };
                assert_eq!(m.throttle_time_ms, i32::from(broker.port()), "answered by the broker");
            },
        );
        // A client speaking Kafka in the clear to the TLS listener.
        let mut plain = connect(&p);
        plain
            .write_all(&request(2, RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT), 3))
            .unwrap();
        assert!(closed(&mut plain));
        let f = log.fault("tls_handshake");
        assert_eq!(f["direction"], "request");
        assert_eq!(f["client"], plain.local_addr().unwrap().to_string());
    }

    #[test]
    fn tls_to_brokers_is_originated_and_checked_against_the_ca() {
        let c = cert("originate");
        let broker = tls_broker(&c);
        let upstream = format!("localhost:{}", broker.port());
        let mut config = Config::new("127.0.0.1:0".parse().unwrap(), upstream.clone());
        config.tls = Tls {
            upstream_ca: Some(c.cert.clone()),
            ..Tls::default()
        };
        let p = Proxy::start(config).unwrap();
        let mut s = connect(&p);
        call(
            &mut s,
            1,
            RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT),
            3,
            |b| {
                let ResponseBody::ApiVersions(m) = b else { panic!() };
                assert_eq!(m.throttle_time_ms, i32::from(broker.port()), "answered over TLS");
            },
        );
        // A CA that did not sign the broker's certificate.
        let other = cert("other-ca");
        let log = SharedBuf::default();
        let mut config = Config::new("127.0.0.1:0".parse().unwrap(), upstream);
        config.log = Some(Box::new(log.clone()));
        config.tls = Tls {
            upstream_ca: Some(other.cert.clone()),
            ..Tls::default()
        };
        let p = Proxy::start(config).unwrap();
        let mut s = connect(&p);
        assert!(closed(&mut s));
        let f = log.fault("tls_handshake");
        assert_eq!(f["direction"], "response");
        assert!(f["message"].as_str().unwrap().contains("certificate"), "{f}");
    }

    #[test]
    fn tls_on_both_sides() {
        let c = cert("both");
        let broker = tls_broker(&c);
        let mut config = Config::new("127.0.0.1:0".parse().unwrap(), format!("localhost:{}", broker.port()));
        config.tls = Tls {
            listen: Some((c.cert.clone(), c.key.clone())),
            upstream_ca: Some(c.cert.clone()),
            upstream_server_name: None,
        };
        let p = Proxy::start(config).unwrap();
        let mut s = tls_client(&p, &c);
        for corr in 0..20 {
            call(
                &mut s,
                corr,
                RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT),
                3,
                |b| {
                    let ResponseBody::ApiVersions(m) = b else { panic!() };
                    assert_eq!(m.throttle_time_ms, i32::from(broker.port()));
                },
            );
        }
    }
}
