//! `kwire-broker-check`: the client side of the real-broker test (tests/broker, run by
//! .ci/broker.sh).
//!
//! Starts a single-node KRaft Apache Kafka broker (combined broker and controller) from the jars
//! listed in a classpath file (tests/broker/pom.xml, Kafka 4.4.0) on two free 127.0.0.1 ports,
//! with its log directory under a fresh temporary directory, storage formatted with a random
//! cluster id, and `-Xmx512m`. Then, acting as a client through kafka-wire only:
//!
//! 1. ApiVersions (v3, then the highest version both sides support, whose answer
//!    `versions::Release::fitting` must place in the broker's own release; at v5 also naming the
//!    cluster and node, right and wrong: KIP-1242), Metadata, CreateTopics;
//! 2. Produce two record batches built with `kafka_wire::records::BatchBuilder`, ListOffsets
//!    (every offset spec, earliest pending upload from v11), and Fetch until every produced
//!    record is back; the fetched records must equal those produced (offsets, keys, values,
//!    headers, timestamps);
//! 3. a consumer group of one member through the classic group APIs;
//! 4. a version sweep over every (API, version) the broker advertises and kafka-wire knows:
//!    purposeful requests for 13 APIs, and for the rest the request with every field at its
//!    default; pairs the broker refuses by closing the connection must be listed in `REFUSED`;
//! 5. the connection layer (`kafka_wire::conn`) over a real socket, one conversation per driver:
//!    `Blocking` over `std::io` and over `embedded-io` (through `embedded-io-adapters`), and
//!    `Async` over `embedded-io-async` (a tokio socket through `embedded-io-adapters`' tokio
//!    adapter), each negotiating with ApiVersions, then Metadata at the agreed version, then
//!    requests pipelined up to its in-flight capacity;
//! 6. every response frame is decoded in strict mode, and re-encoding its header and body at the
//!    same version must give the broker's bytes back;
//! 7. after a clean shutdown, every batch and record of the broker's `__cluster_metadata` log
//!    segment (and of its snapshots and the bootstrap snapshot) is decoded (CRCs checked, each
//!    metadata record re-encoded byte for byte), and at least a TopicRecord (for the topic
//!    created above), PartitionRecord, RegisterBrokerRecord and FeatureLevelRecord must be
//!    among them, and the record versions Kafka 4.4 added that a 4.4 broker writes
//!    (RegisterBrokerRecord v4, BrokerRegistrationChangeRecord v3).
//!
//! Each check prints `PASS:` or `FAILED:`; the last line is `broker: N passed, M failed`. The
//! broker is stopped on every path (a guard kills it if the check panics or returns early).
//!
//! Each `--client PROGRAM` is run with the broker's address and a topic name of its own as
//! arguments while the broker is up (the `tokio_client` and `embedded_io_client` examples): it
//! must exit 0, and its last line must say what it produced.
//!
//! ```text
//! kwire-broker-check --classpath tests/broker/target/classpath.txt [--keep] [--client PROGRAM]...
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use kafka_wire::frame::{encode_metadata_record, parse_response, Mode};
use kafka_wire::messages::RequestHeader;
use kafka_wire::records::{Batch, BatchBuilder, BatchRecords, Batches, NewHeader, NewRecord};
use kafka_wire::{ApiKey, Message, MetadataRecordType, OwnedMessage, Uuid};
use kafka_wire::{OwnedStr as Str, SmallVec};

const TOPIC: &str = "kwire-broker-test";

struct Report {
    passed: usize,
    failed: usize,
    /// Counts without printing (retried calls while waiting for the broker).
    quiet: bool,
}

impl Report {
    fn new(quiet: bool) -> Report {
        Report {
            passed: 0,
            failed: 0,
            quiet,
        }
    }
    fn pass(&mut self, what: &str) {
        if !self.quiet {
            println!("PASS: {what}");
        }
        self.passed += 1;
    }
    fn fail(&mut self, what: &str) {
        if !self.quiet {
            println!("FAILED: {what}");
        }
        self.failed += 1;
    }
    fn check(&mut self, ok: bool, what: &str) -> bool {
        if ok {
            self.pass(what)
        } else {
            self.fail(what)
        }
        ok
    }
}

/// The broker process; killed when dropped unless already stopped.
struct Broker {
    child: Option<Child>,
    dir: PathBuf,
    port: u16,
    keep: bool,
}

impl Broker {
    /// Asks the broker to shut down (SIGTERM) and waits up to 60 s, then kills it.
    fn stop(&mut self) -> Result<(), String> {
        let Some(mut child) = self.child.take() else {
            return Ok(());
        };
        let _ = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(60) {
            if let Ok(Some(status)) = child.try_wait() {
                return if status.success() || status.code() == Some(143) {
                    Ok(())
                } else {
                    Err(format!("the broker exited with {status}"))
                };
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        let _ = child.kill();
        let _ = child.wait();
        Err("the broker did not stop within 60 s of SIGTERM; killed".into())
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut classpath, mut keep) = (None, false);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--classpath" => classpath = args.next(),
            "--keep" => keep = true,
            "--client" => {
                if let Some(c) = args.next() {
                    CLIENTS.with(|v| v.borrow_mut().push(c));
                }
            }
            _ => {
                eprintln!("usage: kwire-broker-check --classpath FILE [--keep] [--client PROGRAM]...");
                std::process::exit(2);
            }
        }
    }
    let Some(classpath) = classpath else {
        eprintln!("usage: kwire-broker-check --classpath FILE [--keep]");
        std::process::exit(2);
    };
    let mut report = Report::new(false);
    let start = Instant::now();
    if let Err(e) = run(&classpath, keep, &mut report) {
        report.fail(&e);
    }
    println!("broker check took {:.0}s", start.elapsed().as_secs_f64());
    println!("broker: {} passed, {} failed", report.passed, report.failed);
    std::process::exit(if report.failed == 0 && report.passed > 0 { 0 } else { 1 });
}

fn free_ports() -> Result<(u16, u16), String> {
    let a = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let b = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let pa = a.local_addr().map_err(|e| e.to_string())?.port();
    let pb = b.local_addr().map_err(|e| e.to_string())?.port();
    Ok((pa, pb))
}

/// A random cluster id as Kafka writes one: 16 random bytes in URL-safe base64 without padding,
/// not starting with '-' (Kafka's `Uuid.randomUuid` draws again then too: the storage tool would
/// take the id for an option).
fn random_cluster_id() -> Result<String, String> {
    loop {
        let id = random_base64_id()?;
        if !id.starts_with('-') {
            return Ok(id);
        }
    }
}

fn random_base64_id() -> Result<String, String> {
    let mut b = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut b))
        .map_err(|e| format!("/dev/urandom: {e}"))?;
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut bits = 0u32;
    let mut n = 0;
    let mut s = String::new();
    for byte in b {
        bits = (bits << 8) | u32::from(byte);
        n += 8;
        while n >= 6 {
            n -= 6;
            s.push(A[((bits >> n) & 63) as usize] as char);
        }
    }
    if n > 0 {
        s.push(A[((bits << (6 - n)) & 63) as usize] as char);
    }
    Ok(s)
}

fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

fn start_broker(classpath: &str, keep: bool, report: &mut Report) -> Result<(Broker, String), String> {
    let cp = std::fs::read_to_string(classpath).map_err(|e| format!("classpath file {classpath}: {e}"))?;
    let cp = cp.trim().to_string();
    let dir = std::env::temp_dir().join(format!("kwire-broker-{}-{}", std::process::id(), random_cluster_id()?));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let (port, cport) = free_ports()?;
    let logs = dir.join("logs");
    let props = format!(
        "process.roles=broker,controller\nnode.id=1\ncontroller.quorum.voters=1@127.0.0.1:{cport}\n\
         listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{cport}\n\
         advertised.listeners=PLAINTEXT://127.0.0.1:{port}\ncontroller.listener.names=CONTROLLER\n\
         listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT\ninter.broker.listener.name=PLAINTEXT\n\
         log.dirs={}\nnum.partitions=1\noffsets.topic.replication.factor=1\ntransaction.state.log.replication.factor=1\n\
         transaction.state.log.min.isr=1\ngroup.initial.rebalance.delay.ms=0\nauto.create.topics.enable=false\n",
        logs.display()
    );
    let props_path = dir.join("server.properties");
    std::fs::write(&props_path, props).map_err(|e| e.to_string())?;
    let cluster_id = random_cluster_id()?;

    let format_log = dir.join("format.log");
    let out = std::fs::File::create(&format_log).map_err(|e| e.to_string())?;
    let status = Command::new("java")
        .args([
            "-Xmx256m",
            "-cp",
            &cp,
            "kafka.tools.StorageTool",
            "format",
            "-t",
            &cluster_id,
            "-c",
        ])
        .arg(&props_path)
        .stdout(out.try_clone().map_err(|e| e.to_string())?)
        .stderr(out)
        .status()
        .map_err(|e| format!("running java: {e} (is a JDK installed?)"))?;
    if !status.success() {
        return Err(format!(
            "formatting the storage failed ({status}):\n{}",
            tail(&format_log, 20)
        ));
    }
    report.pass(&format!(
        "storage formatted with random cluster id {cluster_id} under {}",
        dir.display()
    ));

    let log = std::fs::File::create(dir.join("broker.log")).map_err(|e| e.to_string())?;
    let child = Command::new("java")
        .args(["-Xmx512m", "-Xms128m", "-XX:+UseSerialGC", "-cp", &cp, "kafka.Kafka"])
        .arg(&props_path)
        .stdin(Stdio::null())
        .stdout(log.try_clone().map_err(|e| e.to_string())?)
        .stderr(log)
        .spawn()
        .map_err(|e| format!("starting the broker: {e}"))?;
    Ok((
        Broker {
            child: Some(child),
            dir,
            port,
            keep,
        },
        cluster_id,
    ))
}

/// One connection to the broker, speaking through kafka-wire.
struct Conn {
    stream: TcpStream,
    correlation_id: i32,
}

impl Conn {
    fn open(port: u16) -> Result<Conn, String> {
        let stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("connect: {e}"))?;
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .map_err(|e| e.to_string())?;
        stream.set_nodelay(true).ok();
        Ok(Conn {
            stream,
            correlation_id: 0,
        })
    }

    /// Sends `req` at `version`, reads the response frame, decodes it strictly, checks that
    /// re-encoding gives the same bytes, and returns it as an owned value.
    fn call<Req: OwnedMessage, Resp: OwnedMessage>(
        &mut self,
        key: ApiKey,
        version: i16,
        req: &Req,
        report: &mut Report,
    ) -> Result<Resp, String> {
        let (payload, body_at) = self.exchange(key, version, |frame| req.encode(frame, version).map(|_| ()), report)?;
        let what = format!("{key:?} v{version} response ({} bytes)", payload.len());
        Resp::parse(&payload[body_at..], version).map_err(|e| format!("{what}: owned parse: {e}"))
    }

    /// Sends a request whose body `encode_body` writes, reads the response frame, decodes it
    /// strictly (a failure is returned as an error), and reports whether re-encoding its header
    /// and body at the same version gives the broker's bytes back. Returns the response payload
    /// (header and body) and where its body starts.
    fn exchange(
        &mut self,
        key: ApiKey,
        version: i16,
        encode_body: impl FnOnce(&mut Vec<u8>) -> Result<(), kafka_wire::EncodeError>,
        report: &mut Report,
    ) -> Result<(Vec<u8>, usize), String> {
        self.correlation_id += 1;
        let header = RequestHeader {
            request_api_key: key.id(),
            request_api_version: version,
            correlation_id: self.correlation_id,
            client_id: Some("kwire-broker-check"),
            ..RequestHeader::DEFAULT
        };
        let mut frame = vec![0u8; 4];
        header
            .encode(&mut frame, key.request_header_version(version))
            .map_err(|e| e.to_string())?;
        encode_body(&mut frame).map_err(|e| format!("encoding the {key:?} v{version} request: {e}"))?;
        let size = (frame.len() - 4) as i32;
        frame[..4].copy_from_slice(&size.to_be_bytes());
        self.stream
            .write_all(&frame)
            .map_err(|e| format!("send {key:?} v{version}: {e}"))?;

        let mut size = [0u8; 4];
        self.stream
            .read_exact(&mut size)
            .map_err(|e| format!("read {key:?} v{version} response: {e}"))?;
        let n = i32::from_be_bytes(size);
        if !(0..=256 << 20).contains(&n) {
            return Err(format!("{key:?} v{version}: response size {n}"));
        }
        let mut payload = vec![0u8; n as usize];
        self.stream
            .read_exact(&mut payload)
            .map_err(|e| format!("read {key:?} v{version} response: {e}"))?;
        let what = format!("{key:?} v{version} response ({n} bytes)");
        let f = parse_response(&payload, key, version, Mode::Strict)
            .map_err(|e| format!("{what}: strict decode failed: {e}; the frame: {}", hex(&payload)))?;
        if f.header.correlation_id != self.correlation_id {
            return Err(format!(
                "{what}: correlation id {} (sent {})",
                f.header.correlation_id, self.correlation_id
            ));
        }
        let mut again = Vec::new();
        f.header
            .encode(&mut again, f.header_version)
            .map_err(|e| format!("{what}: re-encoding the header: {e}"))?;
        f.body
            .encode(&mut again, version)
            .map_err(|e| format!("{what}: re-encoding the body: {e}"))?;
        if again == payload {
            report.pass(&format!("{what} decoded (strict) and re-encoded byte for byte"));
        } else {
            let at = again
                .iter()
                .zip(&payload)
                .position(|(a, b)| a != b)
                .unwrap_or(again.len().min(payload.len()));
            report.fail(&format!(
                "{what}: re-encoding differs at byte {at} ({} bytes re-encoded): broker {}, ours {}; the broker's frame: {}",
                again.len(),
                hex(&payload[at..payload.len().min(at + 12)]),
                hex(&again[at..again.len().min(at + 12)]),
                hex(&payload)
            ));
        }
        let body_at = f.header_bytes.len();
        Ok((payload, body_at))
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Highest version both the broker and kafka-wire support (kafka-wire's unstable latest left out).
fn negotiate(broker: &BTreeMap<i16, (i16, i16)>, key: ApiKey) -> Result<i16, String> {
    let info = key.request_info();
    let ours = if info.latest_version_unstable {
        info.max_version - 1
    } else {
        info.max_version
    };
    let (bmin, bmax) = broker
        .get(&key.id())
        .copied()
        .ok_or_else(|| format!("the broker does not offer {key:?}"))?;
    let v = ours.min(bmax);
    if v < bmin.max(info.min_version) {
        return Err(format!(
            "no common version of {key:?}: broker {bmin}-{bmax}, ours {}-{ours}",
            info.min_version
        ));
    }
    Ok(v)
}

fn run(classpath: &str, keep: bool, report: &mut Report) -> Result<(), String> {
    use kafka_wire::messages::*;
    let (mut broker, cluster_id) = start_broker(classpath, keep, report)?;
    let port = broker.port;
    let broker_log = broker.dir.join("broker.log");

    // Readiness: connect and get an ApiVersions answer (v3, which every broker since 2.4 reads).
    let start = Instant::now();
    let (mut conn, versions) = loop {
        if let Some(Ok(Some(status))) = broker.child.as_mut().map(|c| c.try_wait()) {
            return Err(format!(
                "the broker exited early ({status}):\n{}",
                tail(&broker_log, 30)
            ));
        }
        if start.elapsed() > Duration::from_secs(120) {
            return Err(format!(
                "the broker was not ready within 120 s:\n{}",
                tail(&broker_log, 30)
            ));
        }
        if let Ok(mut c) = Conn::open(port) {
            let req = api_versions_request::owned::ApiVersionsRequest {
                client_software_name: "kwire-broker-check".into(),
                client_software_version: "0.1.0".into(),
                ..Default::default()
            };
            let mut quiet = Report::new(true);
            if let Ok(r) =
                c.call::<_, api_versions_response::owned::ApiVersionsResponse>(ApiKey::ApiVersions, 3, &req, &mut quiet)
            {
                if quiet.failed > 0 {
                    report.fail("ApiVersions v3: re-encoding the broker's response gave different bytes");
                }
                if r.error_code == 0 {
                    report.pass(&format!(
                        "broker ready on 127.0.0.1:{port} after {:.1}s; ApiVersions v3 answered",
                        start.elapsed().as_secs_f64()
                    ));
                    let versions: BTreeMap<i16, (i16, i16)> = r
                        .api_keys
                        .iter()
                        .map(|k| (k.api_key, (k.min_version, k.max_version)))
                        .collect();
                    break (c, versions);
                }
            }
        }
        std::thread::sleep(Duration::from_millis(500));
    };

    conn_layer(port, report);
    for program in CLIENTS.with(|v| v.borrow().clone()) {
        client_program(&program, port, report);
    }

    // ApiVersions again at the highest version both sides know.
    let v = negotiate(&versions, ApiKey::ApiVersions)?;
    let r: api_versions_response::owned::ApiVersionsResponse = conn.call(
        ApiKey::ApiVersions,
        v,
        &api_versions_request::owned::ApiVersionsRequest {
            client_software_name: "kwire-broker-check".into(),
            client_software_version: "0.1.0".into(),
            ..Default::default()
        },
        report,
    )?;
    let mut newer = Vec::new();
    for k in &r.api_keys {
        match ApiKey::from_i16(k.api_key) {
            Some(key) if k.max_version > key.request_info().max_version => {
                newer.push(format!("{key:?} v{}", k.max_version))
            }
            Some(_) => {}
            None => newer.push(format!("unknown API key {}", k.api_key)),
        }
    }
    report.check(
        r.error_code == 0 && newer.is_empty(),
        &format!(
            "ApiVersions v{v}: {} APIs, every one known to kafka-wire at its highest version{}",
            r.api_keys.len(),
            if newer.is_empty() {
                String::new()
            } else {
                format!("; beyond us: {newer:?}")
            }
        ),
    );

    // The release tables (kafka_wire::versions::Release) must recognise the live broker: its
    // answer fits the release of the kafka_2.13 jar on the class path.
    {
        use kafka_wire::messages::api_versions_response::{ApiVersion, ApiVersionsResponse};
        let release = kafka_release(Path::new(classpath));
        let keys: Vec<ApiVersion<'_>> = r
            .api_keys
            .iter()
            .map(|k| ApiVersion {
                api_key: k.api_key,
                min_version: k.min_version,
                max_version: k.max_version,
                ..ApiVersion::DEFAULT
            })
            .collect();
        let answer = ApiVersionsResponse {
            api_keys: kafka_wire::Array::from_slice(&keys),
            ..ApiVersionsResponse::DEFAULT
        };
        let fitting: Vec<&str> = kafka_wire::versions::Release::fitting(answer).map(|r| r.name).collect();
        report.check(
            release.as_deref().is_some_and(|rel| fitting.contains(&rel)),
            &format!(
                "Release::fitting on the broker's ApiVersions v{v} answer names the broker's release {} (it names {fitting:?})",
                release.as_deref().unwrap_or("(no kafka_2.13 jar on the class path)")
            ),
        );
    }

    // ApiVersions v5 (KIP-1242) names the cluster and node the client means to reach: the
    // broker answers normally when both are its own, and REBOOTSTRAP_REQUIRED (129) otherwise.
    if v >= 5 {
        let other = random_cluster_id()?;
        for (what, cid, node, want) in [
            ("its own cluster id and node id", cluster_id.as_str(), 1, 0),
            ("another cluster id", other.as_str(), 1, 129),
            ("its cluster id and another node id", cluster_id.as_str(), 2, 129),
        ] {
            let mut c = Conn::open(port)?;
            let r: api_versions_response::owned::ApiVersionsResponse = c.call(
                ApiKey::ApiVersions,
                v,
                &api_versions_request::owned::ApiVersionsRequest {
                    client_software_name: "kwire-broker-check".into(),
                    client_software_version: "0.1.0".into(),
                    cluster_id: Some(cid.into()),
                    node_id: node,
                    ..Default::default()
                },
                report,
            )?;
            report.check(
                r.error_code == want,
                &format!(
                    "ApiVersions v{v} naming {what} ({cid}, node {node}): error {} (expected {want}), {} APIs",
                    r.error_code,
                    r.api_keys.len()
                ),
            );
        }
    }

    // Metadata: the broker and the cluster id we formatted with.
    let mv = negotiate(&versions, ApiKey::Metadata)?;
    let md: metadata_response::owned::MetadataResponse = conn.call(
        ApiKey::Metadata,
        mv,
        &metadata_request::owned::MetadataRequest {
            topics: None,
            ..Default::default()
        },
        report,
    )?;
    report.check(
        md.cluster_id.as_deref() == Some(cluster_id.as_str())
            && md.brokers.iter().any(|b| b.node_id == 1 && b.port == i32::from(port)),
        &format!(
            "Metadata v{mv}: cluster id {:?}, brokers {:?}",
            md.cluster_id,
            md.brokers
                .iter()
                .map(|b| (b.node_id, b.host.clone(), b.port))
                .collect::<Vec<_>>()
        ),
    );

    // CreateTopics.
    let cv = negotiate(&versions, ApiKey::CreateTopics)?;
    let ct: create_topics_response::owned::CreateTopicsResponse = conn.call(
        ApiKey::CreateTopics,
        cv,
        &create_topics_request::owned::CreateTopicsRequest {
            topics: vec![create_topics_request::owned::CreatableTopic {
                name: TOPIC.into(),
                num_partitions: 1,
                replication_factor: 1,
                ..Default::default()
            }],
            timeout_ms: 30_000,
            ..Default::default()
        },
        report,
    )?;
    let created = ct.topics.first();
    let topic_id = created.map(|t| t.topic_id).unwrap_or_default();
    report.check(
        created.is_some_and(|t| t.error_code == 0 && t.name == TOPIC) && (cv < 7 || !topic_id.is_nil()),
        &format!(
            "CreateTopics v{cv}: {TOPIC} created, topic id {topic_id}, error {:?}",
            created.map(|t| (t.error_code, t.error_message.clone()))
        ),
    );

    // Wait for the partition to have a leader.
    let start = Instant::now();
    loop {
        let mut quiet = Report::new(true);
        let md: metadata_response::owned::MetadataResponse = conn.call(
            ApiKey::Metadata,
            mv,
            &metadata_request::owned::MetadataRequest {
                topics: Some(vec![metadata_request::owned::MetadataRequestTopic {
                    name: Some(TOPIC.into()),
                    ..Default::default()
                }]),
                ..Default::default()
            },
            &mut quiet,
        )?;
        if quiet.failed > 0 {
            report.fail(&format!(
                "Metadata v{mv} for {TOPIC}: re-encoding the broker's response gave different bytes"
            ));
        }
        let leader = md
            .topics
            .first()
            .and_then(|t| t.partitions.first())
            .map(|p| (p.error_code, p.leader_id));
        if leader == Some((0, 1)) {
            report.pass(&format!(
                "Metadata v{mv}: partition 0 of {TOPIC} led by node 1 after {:.1}s",
                start.elapsed().as_secs_f64()
            ));
            break;
        }
        if start.elapsed() > Duration::from_secs(30) {
            return Err(format!("partition 0 of {TOPIC} has no leader after 30 s: {leader:?}"));
        }
        std::thread::sleep(Duration::from_millis(200));
    }

    // The metadata cache can name the leader before the partition has become leader in the
    // broker's replica manager (NOT_LEADER_OR_FOLLOWER, under load): wait until ListOffsets
    // answers for it, as a client would retry.
    let lv = negotiate(&versions, ApiKey::ListOffsets)?;
    let list_offsets = |timestamp: i64| list_offsets_request::owned::ListOffsetsRequest {
        replica_id: -1,
        topics: vec![list_offsets_request::owned::ListOffsetsTopic {
            name: TOPIC.into(),
            partitions: vec![list_offsets_request::owned::ListOffsetsPartition {
                partition_index: 0,
                timestamp,
                ..Default::default()
            }],
            ..Default::default()
        }],
        timeout_ms: 10_000,
        ..Default::default()
    };
    let start = Instant::now();
    loop {
        let mut quiet = Report::new(true);
        let lo: list_offsets_response::owned::ListOffsetsResponse =
            conn.call(ApiKey::ListOffsets, lv, &list_offsets(-1), &mut quiet)?;
        if quiet.failed > 0 {
            report.fail(&format!(
                "ListOffsets v{lv}: re-encoding the broker's response gave different bytes"
            ));
        }
        let e = lo
            .topics
            .first()
            .and_then(|t| t.partitions.first())
            .map(|p| p.error_code);
        if e == Some(0) {
            report.pass(&format!(
                "ListOffsets v{lv}: partition 0 of {TOPIC} ready after {:.1}s",
                start.elapsed().as_secs_f64()
            ));
            break;
        }
        if start.elapsed() > Duration::from_secs(30) {
            return Err(format!(
                "partition 0 of {TOPIC} not ready after 30 s: ListOffsets error {e:?}"
            ));
        }
        std::thread::sleep(Duration::from_millis(200));
    }

    // Produce two batches we built.
    let keys: Vec<String> = (0..8).map(|i| format!("key-{i}")).collect();
    let values: Vec<String> = (0..8)
        .map(|i| format!("value {i}: produced by kafka-wire to a real Kafka 4.4.0 broker"))
        .collect();
    let hdr = [
        NewHeader::new("origin", Some(b"kafka-wire")),
        NewHeader::new("empty", None),
    ];
    let base_ts = 1_760_000_000_000i64;
    let mut sent = Vec::new(); // (offset, timestamp, key, value, with headers)
    let pv = negotiate(&versions, ApiKey::Produce)?;
    for (b, range) in [(0usize, 0..5usize), (1, 5..8)] {
        let recs: Vec<NewRecord<'_>> = range
            .clone()
            .enumerate()
            .map(|(d, i)| NewRecord {
                timestamp_delta: d as i64 * 7,
                offset_delta: d as i32,
                key: if i == 6 { None } else { Some(keys[i].as_bytes()) },
                value: Some(values[i].as_bytes()),
                headers: if i % 2 == 0 { &hdr } else { &[] },
                ..NewRecord::DEFAULT
            })
            .collect();
        let batch_ts = base_ts + b as i64 * 1000;
        for (d, i) in range.clone().enumerate() {
            sent.push((
                i as i64,
                batch_ts + d as i64 * 7,
                if i == 6 { None } else { Some(keys[i].clone()) },
                values[i].clone(),
                i % 2 == 0,
            ));
        }
        let mut batch = Vec::new();
        BatchBuilder {
            base_timestamp: batch_ts,
            records: BatchRecords::Plain(&recs),
            ..BatchBuilder::DEFAULT
        }
        .encode(&mut batch)
        .map_err(|e| e.to_string())?;
        let pr: produce_response::owned::ProduceResponse = conn.call(
            ApiKey::Produce,
            pv,
            &produce_request::owned::ProduceRequest {
                acks: -1,
                timeout_ms: 30_000,
                topic_data: vec![produce_request::owned::TopicProduceData {
                    name: if pv >= 13 { Str::default() } else { TOPIC.into() },
                    topic_id: if pv >= 13 { topic_id } else { Uuid::nil() },
                    partition_data: vec![produce_request::owned::PartitionProduceData {
                        index: 0,
                        records: Some(batch.into()),
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            },
            report,
        )?;
        let p = pr.responses.first().and_then(|t| t.partition_responses.first());
        let expect = range.start as i64;
        report.check(
            p.is_some_and(|p| p.error_code == 0 && p.base_offset == expect),
            &format!(
                "Produce v{pv}: batch {b} of {} records appended at offset {expect}: {:?}",
                range.len(),
                p.map(|p| (p.error_code, p.base_offset, p.error_message.clone()))
            ),
        );
    }

    // ListOffsets: the log end offset is the number of records produced.
    let lo: list_offsets_response::owned::ListOffsetsResponse =
        conn.call(ApiKey::ListOffsets, lv, &list_offsets(-1), report)?;
    let end = lo
        .topics
        .first()
        .and_then(|t| t.partitions.first())
        .map(|p| (p.error_code, p.offset));
    report.check(
        end == Some((0, sent.len() as i64)),
        &format!("ListOffsets v{lv}: latest offset {end:?}, expected {}", sent.len()),
    );
    // The other offset specs: earliest (-2), max timestamp (-3), earliest local (-4), latest
    // tiered (-5) and, from v11 (KIP-1023), earliest pending upload (-6). Without tiered storage
    // the last two have no offset to give.
    let specs: &[(i64, &str, Option<(i16, i64)>)] = &[
        (-2, "earliest", Some((0, 0))),
        (-3, "max timestamp", Some((0, 7))),
        (-4, "earliest local", Some((0, 0))),
        (-5, "latest tiered", None),
        (-6, "earliest pending upload", None),
    ];
    for &(ts, name, want) in specs.iter().filter(|s| s.0 != -6 || lv >= 11) {
        let lo: list_offsets_response::owned::ListOffsetsResponse =
            conn.call(ApiKey::ListOffsets, lv, &list_offsets(ts), report)?;
        let got = lo
            .topics
            .first()
            .and_then(|t| t.partitions.first())
            .map(|p| (p.error_code, p.offset, p.timestamp));
        report.check(
            got.is_some() && (want.is_none() || got.map(|g| (g.0, g.1)) == want),
            &format!(
                "ListOffsets v{lv} with timestamp {ts} ({name}): (error, offset, timestamp) {got:?}{}",
                want.map(|w| format!(", expected {w:?}")).unwrap_or_default()
            ),
        );
    }

    // Fetch until every record is back.
    let fv = negotiate(&versions, ApiKey::Fetch)?;
    let mut got = Vec::new();
    let start = Instant::now();
    while got.len() < sent.len() && start.elapsed() < Duration::from_secs(30) {
        let next = got.len() as i64;
        let fr: fetch_response::owned::FetchResponse = conn.call(
            ApiKey::Fetch,
            fv,
            &fetch_request::owned::FetchRequest {
                replica_id: -1,
                max_wait_ms: 500,
                min_bytes: 1,
                max_bytes: 1 << 20,
                session_epoch: -1,
                topics: vec![fetch_request::owned::FetchTopic {
                    topic: if fv >= 13 { Str::default() } else { TOPIC.into() },
                    topic_id: if fv >= 13 { topic_id } else { Uuid::nil() },
                    partitions: vec![fetch_request::owned::FetchPartition {
                        partition: 0,
                        fetch_offset: next,
                        partition_max_bytes: 1 << 20,
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            },
            report,
        )?;
        let Some(p) = fr.responses.first().and_then(|t| t.partitions.first()) else {
            return Err(format!("Fetch v{fv}: no partition in the response"));
        };
        if p.error_code != 0 {
            return Err(format!("Fetch v{fv}: error {}", p.error_code));
        }
        let bytes = p.records.clone().unwrap_or_default();
        for b in Batches::new(&bytes) {
            match b.map_err(|e| format!("Fetch v{fv}: records: {e}"))? {
                Batch::V2(b) => {
                    if !b.is_crc_valid() {
                        return Err(format!("Fetch v{fv}: batch at offset {} has a bad CRC", b.base_offset));
                    }
                    let Some(rs) = b.records() else {
                        return Err("Fetch: compressed batch".into());
                    };
                    for r in rs.iter() {
                        if b.offset_of(&r) < next {
                            continue;
                        }
                        let hs: Vec<(Option<&str>, Option<&[u8]>)> =
                            r.headers.iter().map(|h| (h.key_str(), h.value)).collect();
                        let with_headers = hs == [(Some("origin"), Some(&b"kafka-wire"[..])), (Some("empty"), None)];
                        if !hs.is_empty() && !with_headers {
                            return Err(format!("Fetch v{fv}: unexpected headers {hs:?}"));
                        }
                        got.push((
                            b.offset_of(&r),
                            b.timestamp_of(&r),
                            r.key.map(|k| String::from_utf8_lossy(k).into_owned()),
                            String::from_utf8_lossy(r.value.unwrap_or_default()).into_owned(),
                            with_headers,
                        ));
                    }
                }
                Batch::Truncated(_) => {}
                Batch::Legacy(_) => return Err(format!("Fetch v{fv}: a legacy message set")),
            }
        }
    }
    report.check(
        got == sent,
        &format!(
            "Fetch v{fv}: the {} records fetched equal the {} produced (offsets, timestamps, keys, values, headers)",
            got.len(),
            sent.len()
        ),
    );
    if got != sent {
        println!("  produced: {sent:?}\n  fetched:  {got:?}");
    }
    group_flow(&mut conn, &versions, topic_id, report)?;
    drop(conn);
    let mut covered = BTreeSet::new();
    sweep(port, &versions, topic_id, &mut covered, report)?;
    sweep_defaults(port, &versions, &mut covered, report)?;
    sweep_coverage(&versions, &covered, report);

    // Stop the broker, then read its metadata log.
    match broker.stop() {
        Ok(()) => report.pass("broker stopped cleanly (SIGTERM)"),
        Err(e) => report.fail(&format!("{e}\n{}", tail(&broker_log, 20))),
    }
    check_metadata_log(&broker.dir.join("logs/__cluster_metadata-0"), TOPIC, topic_id, report)
}

/// Every version both sides support: the range to sweep.
fn common_versions(broker: &BTreeMap<i16, (i16, i16)>, key: ApiKey) -> Vec<i16> {
    let info = key.request_info();
    let ours = if info.latest_version_unstable {
        info.max_version - 1
    } else {
        info.max_version
    };
    match broker.get(&key.id()) {
        Some(&(bmin, bmax)) => (bmin.max(info.min_version)..=bmax.min(ours)).collect(),
        None => Vec::new(),
    }
}

/// A consumer group with one member, through the classic group APIs at the highest common
/// versions: JoinGroup (twice: the broker first asks for a member id), SyncGroup with our own
/// assignment, Heartbeat, OffsetCommit, OffsetFetch, LeaveGroup.
fn group_flow(
    conn: &mut Conn,
    versions: &BTreeMap<i16, (i16, i16)>,
    topic_id: Uuid,
    report: &mut Report,
) -> Result<(), String> {
    use kafka_wire::messages::*;
    const GROUP: &str = "kwire-broker-group";
    let v = negotiate(versions, ApiKey::FindCoordinator)?;
    let fc: find_coordinator_response::owned::FindCoordinatorResponse = conn.call(
        ApiKey::FindCoordinator,
        v,
        &find_coordinator_request::owned::FindCoordinatorRequest {
            key: if v < 4 { GROUP.into() } else { Str::default() },
            coordinator_keys: if v >= 4 { vec![GROUP.into()] } else { Vec::new() },
            ..Default::default()
        },
        report,
    )?;
    let node = if v >= 4 {
        fc.coordinators.first().map(|c| (c.error_code, c.node_id))
    } else {
        Some((fc.error_code, fc.node_id))
    };
    if node != Some((0, 1)) {
        // The offsets topic may still be being created: ask again until it is ready.
        let start = Instant::now();
        loop {
            std::thread::sleep(Duration::from_millis(300));
            let fc: find_coordinator_response::owned::FindCoordinatorResponse = conn.call(
                ApiKey::FindCoordinator,
                v,
                &find_coordinator_request::owned::FindCoordinatorRequest {
                    key: if v < 4 { GROUP.into() } else { Str::default() },
                    coordinator_keys: if v >= 4 { vec![GROUP.into()] } else { Vec::new() },
                    ..Default::default()
                },
                &mut Report::new(true),
            )?;
            let node = if v >= 4 {
                fc.coordinators.first().map(|c| (c.error_code, c.node_id))
            } else {
                Some((fc.error_code, fc.node_id))
            };
            if node == Some((0, 1)) {
                break;
            }
            if start.elapsed() > Duration::from_secs(60) {
                return Err(format!(
                    "FindCoordinator v{v}: no coordinator for {GROUP} after 60 s: {node:?}"
                ));
            }
        }
    }
    report.pass(&format!("FindCoordinator v{v}: node 1 coordinates {GROUP}"));

    // The consumer protocol's subscription (version 0): [topics], user data null.
    let mut subscription = Vec::new();
    subscription.extend(0i16.to_be_bytes());
    subscription.extend(1i32.to_be_bytes());
    subscription.extend((TOPIC.len() as i16).to_be_bytes());
    subscription.extend(TOPIC.as_bytes());
    subscription.extend((-1i32).to_be_bytes());
    let jv = negotiate(versions, ApiKey::JoinGroup)?;
    let join = |member_id: &str| join_group_request::owned::JoinGroupRequest {
        group_id: GROUP.into(),
        session_timeout_ms: 10_000,
        rebalance_timeout_ms: 10_000,
        member_id: member_id.into(),
        protocol_type: "consumer".into(),
        protocols: vec![join_group_request::owned::JoinGroupRequestProtocol {
            name: "range".into(),
            metadata: subscription.clone().into(),
            ..Default::default()
        }],
        ..Default::default()
    };
    // The group coordinator may still be loading __consumer_offsets, just created: retry while
    // it says COORDINATOR_LOAD_IN_PROGRESS (14), COORDINATOR_NOT_AVAILABLE (15) or
    // NOT_COORDINATOR (16).
    let start = Instant::now();
    let mut jr: join_group_response::owned::JoinGroupResponse;
    loop {
        let mut quiet = Report::new(true);
        jr = conn.call(ApiKey::JoinGroup, jv, &join(""), &mut quiet)?;
        if quiet.failed > 0 {
            report.fail(&format!(
                "JoinGroup v{jv}: re-encoding the broker's response gave different bytes"
            ));
        }
        if !(14..=16).contains(&jr.error_code) || start.elapsed() > Duration::from_secs(60) {
            report.pass(&format!(
                "JoinGroup v{jv} response decoded (strict) and re-encoded byte for byte"
            ));
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    if jr.error_code == 79 {
        // MEMBER_ID_REQUIRED: join again with the id the broker gave.
        report.pass(&format!(
            "JoinGroup v{jv}: MEMBER_ID_REQUIRED with member id {}",
            jr.member_id
        ));
        let id = jr.member_id.clone();
        jr = conn.call(ApiKey::JoinGroup, jv, &join(&id), report)?;
    }
    let ok = jr.error_code == 0 && jr.leader == jr.member_id && jr.members.len() == 1;
    report.check(
        ok,
        &format!(
            "JoinGroup v{jv}: error {}, generation {}, leader {}, {} member(s)",
            jr.error_code,
            jr.generation_id,
            jr.leader,
            jr.members.len()
        ),
    );
    if !ok {
        return Ok(());
    }
    // Our assignment (consumer protocol version 0): [topic, [partition 0]], user data null.
    let mut assignment = Vec::new();
    assignment.extend(0i16.to_be_bytes());
    assignment.extend(1i32.to_be_bytes());
    assignment.extend((TOPIC.len() as i16).to_be_bytes());
    assignment.extend(TOPIC.as_bytes());
    assignment.extend(1i32.to_be_bytes());
    assignment.extend(0i32.to_be_bytes());
    assignment.extend((-1i32).to_be_bytes());
    let sv = negotiate(versions, ApiKey::SyncGroup)?;
    let sr: sync_group_response::owned::SyncGroupResponse = conn.call(
        ApiKey::SyncGroup,
        sv,
        &sync_group_request::owned::SyncGroupRequest {
            group_id: GROUP.into(),
            generation_id: jr.generation_id,
            member_id: jr.member_id.clone(),
            protocol_type: if sv >= 5 { Some("consumer".into()) } else { None },
            protocol_name: if sv >= 5 { Some("range".into()) } else { None },
            assignments: vec![sync_group_request::owned::SyncGroupRequestAssignment {
                member_id: jr.member_id.clone(),
                assignment: assignment.clone().into(),
                ..Default::default()
            }],
            ..Default::default()
        },
        report,
    )?;
    report.check(
        sr.error_code == 0 && sr.assignment == assignment,
        &format!("SyncGroup v{sv}: error {}, our assignment handed back", sr.error_code),
    );
    let hv = negotiate(versions, ApiKey::Heartbeat)?;
    let hr: heartbeat_response::owned::HeartbeatResponse = conn.call(
        ApiKey::Heartbeat,
        hv,
        &heartbeat_request::owned::HeartbeatRequest {
            group_id: GROUP.into(),
            generation_id: jr.generation_id,
            member_id: jr.member_id.clone(),
            ..Default::default()
        },
        report,
    )?;
    report.check(hr.error_code == 0, &format!("Heartbeat v{hv}: error {}", hr.error_code));
    let cv = negotiate(versions, ApiKey::OffsetCommit)?;
    let cr: offset_commit_response::owned::OffsetCommitResponse = conn.call(
        ApiKey::OffsetCommit,
        cv,
        &offset_commit_request::owned::OffsetCommitRequest {
            group_id: GROUP.into(),
            generation_id_or_member_epoch: jr.generation_id,
            member_id: jr.member_id.clone(),
            topics: vec![offset_commit_request::owned::OffsetCommitRequestTopic {
                name: if cv >= 10 { Str::default() } else { TOPIC.into() },
                topic_id: if cv >= 10 { topic_id } else { Uuid::nil() },
                partitions: vec![offset_commit_request::owned::OffsetCommitRequestPartition {
                    partition_index: 0,
                    committed_offset: 8,
                    committed_metadata: Some("kwire".into()),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        },
        report,
    )?;
    let e = cr
        .topics
        .first()
        .and_then(|t| t.partitions.first())
        .map(|p| p.error_code);
    report.check(
        e == Some(0),
        &format!("OffsetCommit v{cv}: offset 8 committed, error {e:?}"),
    );
    let fv = negotiate(versions, ApiKey::OffsetFetch)?;
    let req = if fv >= 8 {
        offset_fetch_request::owned::OffsetFetchRequest {
            groups: vec![offset_fetch_request::owned::OffsetFetchRequestGroup {
                group_id: GROUP.into(),
                topics: Some(vec![offset_fetch_request::owned::OffsetFetchRequestTopics {
                    name: if fv >= 10 { Str::default() } else { TOPIC.into() },
                    topic_id: if fv >= 10 { topic_id } else { Uuid::nil() },
                    partition_indexes: SmallVec::from_slice(&[0]),
                    ..Default::default()
                }]),
                ..Default::default()
            }],
            ..Default::default()
        }
    } else {
        offset_fetch_request::owned::OffsetFetchRequest {
            group_id: GROUP.into(),
            topics: Some(vec![offset_fetch_request::owned::OffsetFetchRequestTopic {
                name: TOPIC.into(),
                partition_indexes: SmallVec::from_slice(&[0]),
                ..Default::default()
            }]),
            ..Default::default()
        }
    };
    let fr: offset_fetch_response::owned::OffsetFetchResponse = conn.call(ApiKey::OffsetFetch, fv, &req, report)?;
    let got = if fv >= 8 {
        fr.groups
            .first()
            .and_then(|g| g.topics.first())
            .and_then(|t| t.partitions.first())
            .map(|p| (p.committed_offset, p.metadata.clone()))
    } else {
        fr.topics
            .first()
            .and_then(|t| t.partitions.first())
            .map(|p| (p.committed_offset, p.metadata.clone()))
    };
    report.check(
        got == Some((8, Some("kwire".into()))),
        &format!("OffsetFetch v{fv}: committed offset and metadata {got:?}"),
    );
    let lv = negotiate(versions, ApiKey::LeaveGroup)?;
    let lr: leave_group_response::owned::LeaveGroupResponse = conn.call(
        ApiKey::LeaveGroup,
        lv,
        &leave_group_request::owned::LeaveGroupRequest {
            group_id: GROUP.into(),
            member_id: if lv < 3 { jr.member_id.clone() } else { Str::default() },
            members: if lv >= 3 {
                vec![leave_group_request::owned::MemberIdentity {
                    member_id: jr.member_id.clone(),
                    ..Default::default()
                }]
            } else {
                Vec::new()
            },
            ..Default::default()
        },
        report,
    )?;
    report.check(
        lr.error_code == 0,
        &format!("LeaveGroup v{lv}: error {}", lr.error_code),
    );
    Ok(())
}

/// Sends one request at every version both sides support, for a set of APIs whose requests are
/// free of side effects (or nearly: Produce appends one record per version), and checks that
/// each response decodes strictly and re-encodes byte for byte. A connection the broker closes
/// is a failure, and a new one is opened.
fn sweep(
    port: u16,
    versions: &BTreeMap<i16, (i16, i16)>,
    topic_id: Uuid,
    covered: &mut BTreeSet<(i16, i16)>,
    report: &mut Report,
) -> Result<(), String> {
    use kafka_wire::messages::*;
    let mut conn = Conn::open(port)?;
    let mut swept = 0;
    macro_rules! sweep_api {
        ($key:expr, $resp:ty, |$v:ident| $build:expr) => {
            sweep_api!($key, $resp, common_versions(versions, $key), |$v| $build)
        };
        ($key:expr, $resp:ty, $range:expr, |$v:ident| $build:expr) => {
            for $v in $range {
                let req = $build;
                swept += 1;
                match conn.call::<_, $resp>($key, $v, &req, report) {
                    Ok(_) => {
                        covered.insert(($key.id(), $v));
                    }
                    Err(e) => {
                        report.fail(&format!("sweep: {e}"));
                        conn = Conn::open(port)?;
                    }
                }
            }
        };
    }
    let by_name = |v: i16, since: i16| if v >= since { Str::default() } else { TOPIC.into() };
    let by_id = |v: i16, since: i16| if v >= since { topic_id } else { Uuid::nil() };

    sweep_api!(
        ApiKey::ApiVersions,
        api_versions_response::owned::ApiVersionsResponse,
        |v| {
            api_versions_request::owned::ApiVersionsRequest {
                client_software_name: if v >= 3 {
                    "kwire-broker-check".into()
                } else {
                    Str::default()
                },
                client_software_version: if v >= 3 { "0.1.0".into() } else { Str::default() },
                ..Default::default()
            }
        }
    );
    sweep_api!(ApiKey::Metadata, metadata_response::owned::MetadataResponse, |v| {
        metadata_request::owned::MetadataRequest {
            topics: Some(vec![metadata_request::owned::MetadataRequestTopic {
                name: Some(TOPIC.into()),
                ..Default::default()
            }]),
            allow_auto_topic_creation: v < 4,
            ..Default::default()
        }
    });
    sweep_api!(
        ApiKey::ListOffsets,
        list_offsets_response::owned::ListOffsetsResponse,
        |v| {
            list_offsets_request::owned::ListOffsetsRequest {
                replica_id: -1,
                topics: vec![list_offsets_request::owned::ListOffsetsTopic {
                    name: TOPIC.into(),
                    partitions: vec![list_offsets_request::owned::ListOffsetsPartition {
                        partition_index: 0,
                        timestamp: -2,
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                timeout_ms: if v >= 10 { 10_000 } else { 0 },
                ..Default::default()
            }
        }
    );
    sweep_api!(ApiKey::Fetch, fetch_response::owned::FetchResponse, |v| {
        fetch_request::owned::FetchRequest {
            replica_id: -1,
            max_wait_ms: 10,
            min_bytes: 1,
            max_bytes: 1 << 20,
            session_epoch: -1,
            topics: vec![fetch_request::owned::FetchTopic {
                topic: by_name(v, 13),
                topic_id: by_id(v, 13),
                partitions: vec![fetch_request::owned::FetchPartition {
                    partition: 0,
                    fetch_offset: 0,
                    partition_max_bytes: 1 << 20,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        }
    });
    let value = b"one record per Produce version".to_vec();
    // Kafka 4 still advertises Produce v0-2 (so that old librdkafka clients keep connecting) but
    // closes the connection on them (KIP-896): sweep from v3.
    let produce = common_versions(versions, ApiKey::Produce);
    sweep_api!(
        ApiKey::Produce,
        produce_response::owned::ProduceResponse,
        produce.into_iter().filter(|&v| v >= 3),
        |v| {
            let rec = [NewRecord {
                key: Some(b"sweep"),
                value: Some(&value),
                ..NewRecord::DEFAULT
            }];
            let mut batch = Vec::new();
            BatchBuilder {
                base_timestamp: 1_760_000_100_000,
                records: BatchRecords::Plain(&rec),
                ..BatchBuilder::DEFAULT
            }
            .encode(&mut batch)
            .map_err(|e| e.to_string())?;
            produce_request::owned::ProduceRequest {
                acks: -1,
                timeout_ms: 30_000,
                topic_data: vec![produce_request::owned::TopicProduceData {
                    name: by_name(v, 13),
                    topic_id: by_id(v, 13),
                    partition_data: vec![produce_request::owned::PartitionProduceData {
                        index: 0,
                        records: Some(batch.into()),
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            }
        }
    );
    sweep_api!(
        ApiKey::CreateTopics,
        create_topics_response::owned::CreateTopicsResponse,
        |v| {
            create_topics_request::owned::CreateTopicsRequest {
                topics: vec![create_topics_request::owned::CreatableTopic {
                    name: format!("kwire-validate-only-v{v}").into(),
                    num_partitions: 1,
                    replication_factor: 1,
                    ..Default::default()
                }],
                timeout_ms: 10_000,
                validate_only: v >= 1,
                ..Default::default()
            }
        }
    );
    sweep_api!(
        ApiKey::DescribeConfigs,
        describe_configs_response::owned::DescribeConfigsResponse,
        |v| {
            describe_configs_request::owned::DescribeConfigsRequest {
                resources: vec![describe_configs_request::owned::DescribeConfigsResource {
                    resource_type: 2,
                    resource_name: TOPIC.into(),
                    configuration_keys: None,
                    ..Default::default()
                }],
                include_synonyms: v >= 1,
                include_documentation: v >= 3,
                ..Default::default()
            }
        }
    );
    sweep_api!(
        ApiKey::FindCoordinator,
        find_coordinator_response::owned::FindCoordinatorResponse,
        |v| {
            find_coordinator_request::owned::FindCoordinatorRequest {
                key: if v < 4 {
                    "kwire-broker-group".into()
                } else {
                    Str::default()
                },
                coordinator_keys: if v >= 4 {
                    vec!["kwire-broker-group".into()]
                } else {
                    Vec::new()
                },
                ..Default::default()
            }
        }
    );
    sweep_api!(
        ApiKey::DescribeGroups,
        describe_groups_response::owned::DescribeGroupsResponse,
        |v| {
            let _ = v;
            describe_groups_request::owned::DescribeGroupsRequest {
                groups: vec!["kwire-broker-group".into()],
                ..Default::default()
            }
        }
    );
    sweep_api!(
        ApiKey::ListGroups,
        list_groups_response::owned::ListGroupsResponse,
        |v| {
            let _ = v;
            list_groups_request::owned::ListGroupsRequest::default()
        }
    );
    sweep_api!(
        ApiKey::DescribeCluster,
        describe_cluster_response::owned::DescribeClusterResponse,
        |v| {
            let _ = v;
            describe_cluster_request::owned::DescribeClusterRequest::default()
        }
    );
    sweep_api!(
        ApiKey::InitProducerId,
        init_producer_id_response::owned::InitProducerIdResponse,
        |v| {
            let _ = v;
            init_producer_id_request::owned::InitProducerIdRequest {
                transaction_timeout_ms: 60_000,
                ..Default::default()
            }
        }
    );
    sweep_api!(
        ApiKey::DescribeTopicPartitions,
        describe_topic_partitions_response::owned::DescribeTopicPartitionsResponse,
        |v| {
            let _ = v;
            describe_topic_partitions_request::owned::DescribeTopicPartitionsRequest {
                topics: vec![describe_topic_partitions_request::owned::TopicRequest {
                    name: TOPIC.into(),
                    ..Default::default()
                }],
                response_partition_limit: 100,
                ..Default::default()
            }
        }
    );
    report.check(
        swept > 0,
        &format!("version sweep: {swept} requests sent, each at a version both the broker and kafka-wire support"),
    );
    Ok(())
}

fn check_metadata_log(dir: &Path, topic: &str, topic_id: Uuid, report: &mut Report) -> Result<(), String> {
    let mut segments: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "log" || x == "checkpoint"))
        .collect();
    segments.sort();
    if !segments.iter().any(|p| p.extension().is_some_and(|x| x == "log")) {
        return Err(format!("no log segment in {}", dir.display()));
    }
    // The bootstrap snapshot `kafka-storage format` wrote (the same batch format: a snapshot
    // header and footer as control records around the initial FeatureLevel records).
    if let Some(b) = dir
        .parent()
        .map(|p| p.join("bootstrap.checkpoint"))
        .filter(|p| p.exists())
    {
        segments.push(b);
    }
    let mut types: BTreeMap<String, usize> = BTreeMap::new();
    let (mut batches, mut control, mut records, mut reencoded) = (0, 0, 0, 0);
    let mut topic_seen = false;
    let mut problems = Vec::new();
    // Record types in the log segments alone (the required ones must be there, not only in the
    // bootstrap snapshot).
    let mut log_types: BTreeMap<String, usize> = BTreeMap::new();
    let mut log_versions: BTreeMap<String, usize> = BTreeMap::new();
    let mut notes = Vec::new();
    for seg in &segments {
        let is_log = seg.extension().is_some_and(|x| x == "log");
        let bytes = std::fs::read(seg).map_err(|e| format!("{}: {e}", seg.display()))?;
        for b in Batches::strict(&bytes) {
            let b = match b {
                Ok(Batch::V2(b)) => b,
                Ok(other) => {
                    problems.push(format!("{}: not a magic 2 batch: {other:?}", seg.display()));
                    continue;
                }
                Err(e) => {
                    problems.push(format!("{}: {e}", seg.display()));
                    break;
                }
            };
            batches += 1;
            let Some(rs) = b.records() else {
                problems.push(format!(
                    "batch at offset {}: compressed ({:?})",
                    b.base_offset,
                    b.compression()
                ));
                continue;
            };
            if b.is_control() {
                match rs.control() {
                    Ok(cs) => {
                        for (_, c) in cs {
                            control += 1;
                            *types.entry(format!("control {:?}", c.record_type)).or_default() += 1;
                        }
                    }
                    Err(e) => problems.push(format!("control batch at offset {}: {e}", b.base_offset)),
                }
                continue;
            }
            match rs.metadata() {
                Ok(ms) => {
                    for (r, m) in ms {
                        records += 1;
                        *types.entry(format!("{:?} v{}", m.record_type, m.version)).or_default() += 1;
                        if is_log {
                            *log_types.entry(format!("{:?}", m.record_type)).or_default() += 1;
                            *log_versions
                                .entry(format!("{:?} v{}", m.record_type, m.version))
                                .or_default() += 1;
                        }
                        match &m.record {
                            kafka_wire::MetadataRecord::Topic(t) => topic_seen |= is_log && t.name == topic && t.topic_id == topic_id,
                            kafka_wire::MetadataRecord::RegisterBroker(r) if is_log => notes.push(format!(
                                "RegisterBroker v{}: broker {}, epoch {}, {} endpoint(s), log dirs {:?}, cordoned log dirs {:?}",
                                m.version,
                                r.broker_id,
                                r.broker_epoch,
                                r.end_points.len(),
                                r.log_dirs.iter().collect::<Vec<_>>(),
                                r.cordoned_log_dirs.map(|d| d.iter().collect::<Vec<_>>())
                            )),
                            kafka_wire::MetadataRecord::BrokerRegistrationChange(r) if is_log && m.version >= 3 => notes.push(format!(
                                "BrokerRegistrationChange v{}: broker {}, fenced {}, in controlled shutdown {}, log dirs {:?}, cordoned log dirs {:?}",
                                m.version,
                                r.broker_id,
                                r.fenced,
                                r.in_controlled_shutdown,
                                r.log_dirs.iter().collect::<Vec<_>>(),
                                r.cordoned_log_dirs.map(|d| d.iter().collect::<Vec<_>>())
                            )),
                            kafka_wire::MetadataRecord::FeatureLevel(f) if is_log => notes.push(format!("FeatureLevel: {} = {}", f.name, f.feature_level)),
                            _ => {}
                        }
                        let value = r.value.unwrap_or_default();
                        let mut buf = vec![0u8; value.len() + 16];
                        match encode_metadata_record(&m.record, m.version, &mut buf) {
                            Ok(n) if &buf[..n] == value => reencoded += 1,
                            Ok(n) => problems.push(format!(
                                "{:?} v{} at offset {}: re-encoded {} bytes differ from the {} in the log",
                                m.record_type,
                                m.version,
                                b.offset_of(&r),
                                n,
                                value.len()
                            )),
                            Err(e) => problems.push(format!("{:?} v{}: re-encoding: {e}", m.record_type, m.version)),
                        }
                    }
                }
                Err(e) => problems.push(format!("metadata batch at offset {}: {e}", b.base_offset)),
            }
        }
    }
    report.check(
        problems.is_empty(),
        &format!(
            "__cluster_metadata ({}): {batches} batches, {records} metadata records (each re-encoded byte for byte: {reencoded}) and {control} control records decoded{}",
            segments.iter().filter_map(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned()).collect::<Vec<_>>().join(", "),
            if problems.is_empty() { String::new() } else { format!("; problems: {problems:?}") }
        ),
    );
    println!("  record types, all files: {types:?}");
    println!("  metadata record types and versions in the log segments: {log_versions:?}");
    for n in &notes {
        println!("  {n}");
    }
    for want in [
        MetadataRecordType::Topic,
        MetadataRecordType::Partition,
        MetadataRecordType::RegisterBroker,
        MetadataRecordType::FeatureLevel,
    ] {
        let n = log_types.get(&format!("{want:?}")).copied().unwrap_or(0);
        report.check(
            n > 0,
            &format!("the __cluster_metadata log segments hold {n} {want:?} record(s)"),
        );
    }
    // Record versions Kafka 4.4 added, which a 4.4 broker writes when it registers (its
    // metadata.version has cordoned log directories).
    for want in ["RegisterBroker v4", "BrokerRegistrationChange v3"] {
        let n = log_versions.get(want).copied().unwrap_or(0);
        report.check(n > 0, &format!("the __cluster_metadata log segments hold {n} {want} record(s) (new in Kafka 4.4), decoded and re-encoded byte for byte"));
    }
    report.check(
        topic_seen,
        &format!("__cluster_metadata: a TopicRecord for {topic} with the id CreateTopics returned ({topic_id})"),
    );
    Ok(())
}

/// The request body of `key` with every field at its schema default, as a view.
fn default_request(key: ApiKey) -> Option<kafka_wire::RequestBody<'static>> {
    use kafka_wire::messages;
    use kafka_wire::RequestBody as B;
    macro_rules! defaults {
        ($($name:ident => $req:ident),* $(,)?) => {
            match key {
                $(ApiKey::$name => Some(B::$name(messages::$req::DEFAULT)),)*
                _ => None,
            }
        };
    }
    defaults!(
        Produce => ProduceRequest, Fetch => FetchRequest, ListOffsets => ListOffsetsRequest, Metadata => MetadataRequest,
        LeaderAndIsr => LeaderAndIsrRequest, StopReplica => StopReplicaRequest, UpdateMetadata => UpdateMetadataRequest,
        ControlledShutdown => ControlledShutdownRequest, OffsetCommit => OffsetCommitRequest, OffsetFetch => OffsetFetchRequest,
        FindCoordinator => FindCoordinatorRequest, JoinGroup => JoinGroupRequest, Heartbeat => HeartbeatRequest,
        LeaveGroup => LeaveGroupRequest, SyncGroup => SyncGroupRequest, DescribeGroups => DescribeGroupsRequest,
        ListGroups => ListGroupsRequest, SaslHandshake => SaslHandshakeRequest, ApiVersions => ApiVersionsRequest,
        CreateTopics => CreateTopicsRequest, DeleteTopics => DeleteTopicsRequest, DeleteRecords => DeleteRecordsRequest,
        InitProducerId => InitProducerIdRequest, OffsetForLeaderEpoch => OffsetForLeaderEpochRequest,
        AddPartitionsToTxn => AddPartitionsToTxnRequest, AddOffsetsToTxn => AddOffsetsToTxnRequest, EndTxn => EndTxnRequest,
        WriteTxnMarkers => WriteTxnMarkersRequest, TxnOffsetCommit => TxnOffsetCommitRequest, DescribeAcls => DescribeAclsRequest,
        CreateAcls => CreateAclsRequest, DeleteAcls => DeleteAclsRequest, DescribeConfigs => DescribeConfigsRequest,
        AlterConfigs => AlterConfigsRequest, AlterReplicaLogDirs => AlterReplicaLogDirsRequest, DescribeLogDirs => DescribeLogDirsRequest,
        SaslAuthenticate => SaslAuthenticateRequest, CreatePartitions => CreatePartitionsRequest,
        CreateDelegationToken => CreateDelegationTokenRequest, RenewDelegationToken => RenewDelegationTokenRequest,
        ExpireDelegationToken => ExpireDelegationTokenRequest, DescribeDelegationToken => DescribeDelegationTokenRequest,
        DeleteGroups => DeleteGroupsRequest, ElectLeaders => ElectLeadersRequest, IncrementalAlterConfigs => IncrementalAlterConfigsRequest,
        AlterPartitionReassignments => AlterPartitionReassignmentsRequest, ListPartitionReassignments => ListPartitionReassignmentsRequest,
        OffsetDelete => OffsetDeleteRequest, DescribeClientQuotas => DescribeClientQuotasRequest, AlterClientQuotas => AlterClientQuotasRequest,
        DescribeUserScramCredentials => DescribeUserScramCredentialsRequest, AlterUserScramCredentials => AlterUserScramCredentialsRequest,
        Vote => VoteRequest, BeginQuorumEpoch => BeginQuorumEpochRequest, EndQuorumEpoch => EndQuorumEpochRequest,
        DescribeQuorum => DescribeQuorumRequest, AlterPartition => AlterPartitionRequest, UpdateFeatures => UpdateFeaturesRequest,
        Envelope => EnvelopeRequest, FetchSnapshot => FetchSnapshotRequest, DescribeCluster => DescribeClusterRequest,
        DescribeProducers => DescribeProducersRequest, BrokerRegistration => BrokerRegistrationRequest, BrokerHeartbeat => BrokerHeartbeatRequest,
        UnregisterBroker => UnregisterBrokerRequest, DescribeTransactions => DescribeTransactionsRequest, ListTransactions => ListTransactionsRequest,
        AllocateProducerIds => AllocateProducerIdsRequest, ConsumerGroupHeartbeat => ConsumerGroupHeartbeatRequest,
        ConsumerGroupDescribe => ConsumerGroupDescribeRequest, ControllerRegistration => ControllerRegistrationRequest,
        GetTelemetrySubscriptions => GetTelemetrySubscriptionsRequest, PushTelemetry => PushTelemetryRequest,
        AssignReplicasToDirs => AssignReplicasToDirsRequest, ListConfigResources => ListConfigResourcesRequest,
        DescribeTopicPartitions => DescribeTopicPartitionsRequest, ShareGroupHeartbeat => ShareGroupHeartbeatRequest,
        ShareGroupDescribe => ShareGroupDescribeRequest, ShareFetch => ShareFetchRequest, ShareAcknowledge => ShareAcknowledgeRequest,
        AddRaftVoter => AddRaftVoterRequest, RemoveRaftVoter => RemoveRaftVoterRequest, UpdateRaftVoter => UpdateRaftVoterRequest,
        InitializeShareGroupState => InitializeShareGroupStateRequest, ReadShareGroupState => ReadShareGroupStateRequest,
        WriteShareGroupState => WriteShareGroupStateRequest, DeleteShareGroupState => DeleteShareGroupStateRequest,
        ReadShareGroupStateSummary => ReadShareGroupStateSummaryRequest, StreamsGroupHeartbeat => StreamsGroupHeartbeatRequest,
        StreamsGroupDescribe => StreamsGroupDescribeRequest, DescribeShareGroupOffsets => DescribeShareGroupOffsetsRequest,
        AlterShareGroupOffsets => AlterShareGroupOffsetsRequest, DeleteShareGroupOffsets => DeleteShareGroupOffsetsRequest,
        StreamsGroupTopologyDescriptionUpdate => StreamsGroupTopologyDescriptionUpdateRequest,
        UnregisterController => UnregisterControllerRequest, DescribeMirrors => DescribeMirrorsRequest,
        BumpLeaderEpochs => BumpLeaderEpochsRequest, ReadMirrorStates => ReadMirrorStatesRequest,
    )
}

type EncodeFn = fn(&mut Vec<u8>, i16) -> Result<(), kafka_wire::EncodeError>;

/// The few (API, version) pairs whose all-default request the broker cannot answer, and the
/// request sent instead:
/// - AddPartitionsToTxn v4+ (the brokers' batched form): with no transaction at all the broker
///   never answers, so one transaction nobody began (verify only);
/// - DescribeAcls: a resource type, operation or permission type UNKNOWN (0) makes the broker
///   close the connection, so ANY (1).
fn non_default_request(key: ApiKey, v: i16) -> Option<EncodeFn> {
    use kafka_wire::messages::*;
    match key {
        ApiKey::AddPartitionsToTxn if v >= 4 => Some(|out, v| {
            use add_partitions_to_txn_request::owned::*;
            AddPartitionsToTxnRequest {
                transactions: vec![AddPartitionsToTxnTransaction {
                    transactional_id: "kwire-sweep-txn".into(),
                    producer_id: 4242,
                    producer_epoch: 0,
                    verify_only: true,
                    topics: vec![AddPartitionsToTxnTopic {
                        name: TOPIC.into(),
                        partitions: SmallVec::from_slice(&[0]),
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            }
            .encode(out, v)
            .map(|_| ())
        }),
        ApiKey::DescribeAcls => Some(|out, v| {
            describe_acls_request::owned::DescribeAclsRequest {
                resource_type_filter: 1,
                pattern_type_filter: 3,
                operation: 1,
                permission_type: 1,
                ..Default::default()
            }
            .encode(out, v)
            .map(|_| ())
        }),
        _ => None,
    }
}

/// (API, versions) the broker advertises but refuses by closing the connection, with the reason.
const REFUSED: &[(ApiKey, i16, i16, &str)] =
    &[(ApiKey::Produce, 0, 2, "KIP-896: Kafka 4 still advertises Produce v0-2, so that old librdkafka builds keep connecting, but closes the connection on them")];

fn refused(key: ApiKey, v: i16) -> Option<&'static str> {
    REFUSED
        .iter()
        .find(|r| r.0 == key && (r.1..=r.2).contains(&v))
        .map(|r| r.3)
}

/// The rest of the version sweep: every (API, version) the broker advertises and kafka-wire
/// knows that `sweep` did not send gets the API's request with every field at its default
/// (empty arrays, empty or null strings, zeros: requests that change nothing), and the
/// broker's answer, usually an error code, must decode strictly and re-encode byte for byte.
/// Pairs in `REFUSED` must be refused (the connection closed).
fn sweep_defaults(
    port: u16,
    versions: &BTreeMap<i16, (i16, i16)>,
    covered: &mut BTreeSet<(i16, i16)>,
    report: &mut Report,
) -> Result<(), String> {
    let mut conn = Conn::open(port)?;
    let (mut sent, mut apis) = (0, BTreeSet::new());
    for &id in versions.keys() {
        let Some(key) = ApiKey::from_i16(id) else { continue };
        let Some(body) = default_request(key) else {
            report.fail(&format!("sweep: no default request for {key:?}"));
            continue;
        };
        // Produce with acks 0 would get no answer at all.
        let body = match body {
            kafka_wire::RequestBody::Produce(p) => {
                kafka_wire::RequestBody::Produce(kafka_wire::messages::ProduceRequest { acks: -1, ..p })
            }
            b => b,
        };
        for v in common_versions(versions, key) {
            if covered.contains(&(id, v)) {
                continue;
            }
            sent += 1;
            apis.insert(id);
            let why = refused(key, v);
            let encode = |out: &mut Vec<u8>| -> Result<(), kafka_wire::EncodeError> {
                match non_default_request(key, v) {
                    Some(f) => f(out, v),
                    None => body.encode(out, v).map(|_| ()),
                }
            };
            match (conn.exchange(key, v, encode, report), why) {
                (Ok(_), None) => {
                    covered.insert((id, v));
                }
                (Ok(_), Some(why)) => {
                    covered.insert((id, v));
                    report.fail(&format!(
                        "sweep: {key:?} v{v} was answered, but is listed as refused ({why}): take it off the list"
                    ));
                }
                (Err(e), Some(why)) if e.starts_with(&format!("read {key:?} v{v} response")) => {
                    report.pass(&format!(
                        "{key:?} v{v}: the broker closed the connection without answering, as expected ({why})"
                    ));
                    conn = Conn::open(port)?;
                }
                (Err(e), _) => {
                    report.fail(&format!("sweep: {key:?} v{v} (default request): {e}"));
                    conn = Conn::open(port)?;
                }
            }
        }
    }
    report.check(
        sent > 0,
        &format!("version sweep, default requests: {sent} more requests over {} APIs, each at a version both the broker and kafka-wire support", apis.len()),
    );
    Ok(())
}

/// Every (API, version) the broker advertised was answered and checked, or is a listed refusal;
/// none is beyond kafka-wire. Prints the broker's advertised ranges.
fn sweep_coverage(versions: &BTreeMap<i16, (i16, i16)>, covered: &BTreeSet<(i16, i16)>, report: &mut Report) {
    let (mut pairs, mut refusals, mut unknown, mut missed) = (0, 0, Vec::new(), Vec::new());
    let mut line = String::new();
    for (&id, &(min, max)) in versions {
        let key = ApiKey::from_i16(id);
        line += &format!(
            " {id}:{}{}",
            key.map(|k| format!("{k:?}")).unwrap_or_else(|| "?".into()),
            if min == max {
                format!(" v{min}")
            } else {
                format!(" v{min}-{max}")
            }
        );
        for v in min..=max {
            pairs += 1;
            match key {
                None => unknown.push(format!("API key {id} v{v}")),
                Some(k) if !k.request_info().is_valid(v) || !k.response_info().is_valid(v) => {
                    unknown.push(format!("{k:?} v{v}"))
                }
                Some(_) if covered.contains(&(id, v)) => {}
                Some(k) if refused(k, v).is_some() => refusals += 1,
                Some(k) => missed.push(format!("{k:?} v{v}")),
            }
        }
    }
    println!(
        "  the broker advertises {} APIs, {pairs} (API, version) pairs:{line}",
        versions.len()
    );
    report.check(
        unknown.is_empty() && missed.is_empty(),
        &format!(
            "version sweep coverage: of the {pairs} (API, version) pairs the broker advertises, {} answered, decoded strictly and re-encoded, {refusals} refused as documented{}{}",
            covered.len(),
            if unknown.is_empty() { String::new() } else { format!("; not known to kafka-wire: {unknown:?}") },
            if missed.is_empty() { String::new() } else { format!("; not checked: {missed:?}") },
        ),
    );
}

/// The release of the `kafka_2.13-RELEASE.jar` named in the class path file `classpath`.
fn kafka_release(classpath: &Path) -> Option<String> {
    let cp = std::fs::read_to_string(classpath).ok()?;
    cp.split([':', '\n']).find_map(|p| {
        let name = Path::new(p.trim()).file_name()?.to_str()?;
        Some(name.strip_prefix("kafka_2.13-")?.strip_suffix(".jar")?.to_string())
    })
}

/// What the connection-layer conversation needs of a driver. The blocking driver's calls run to
/// completion inside the future (it never waits on anything else); the async driver's are
/// awaited. One conversation ([`converse`]) then runs over either.
trait Driver {
    type Error: std::fmt::Debug;
    async fn send<'a, R: kafka_wire::Request<'a>>(
        &mut self,
        req: &R,
        version: i16,
        scratch: &mut [u8],
    ) -> Result<kafka_wire::conn::Sent, kafka_wire::conn::ConnError<Self::Error>>;
    async fn receive<'a, R: kafka_wire::Request<'a>>(
        &mut self,
        mode: Mode,
    ) -> Result<kafka_wire::frame::TypedResponseFrame<'_, R::Response<'_>>, kafka_wire::conn::ConnError<Self::Error>>;
    fn in_flight(&self) -> usize;
    async fn call<'a, R: kafka_wire::Request<'a>>(
        &mut self,
        req: &R,
        version: i16,
        scratch: &mut [u8],
        mode: Mode,
    ) -> Result<kafka_wire::frame::TypedResponseFrame<'_, R::Response<'_>>, kafka_wire::conn::ConnError<Self::Error>>
    {
        self.send(req, version, scratch).await?;
        self.receive::<R>(mode).await
    }
}

impl<T, S, const N: usize> Driver for kafka_wire::conn::Blocking<T, S, N>
where
    T: kafka_wire::conn::Transport,
    T::Error: std::fmt::Debug,
    S: kafka_wire::conn::Storage,
{
    type Error = T::Error;
    async fn send<'a, R: kafka_wire::Request<'a>>(
        &mut self,
        req: &R,
        version: i16,
        scratch: &mut [u8],
    ) -> Result<kafka_wire::conn::Sent, kafka_wire::conn::ConnError<T::Error>> {
        kafka_wire::conn::Blocking::send(self, req, version, scratch)
    }
    async fn receive<'a, R: kafka_wire::Request<'a>>(
        &mut self,
        mode: Mode,
    ) -> Result<kafka_wire::frame::TypedResponseFrame<'_, R::Response<'_>>, kafka_wire::conn::ConnError<T::Error>> {
        kafka_wire::conn::Blocking::receive::<R>(self, mode)
    }
    fn in_flight(&self) -> usize {
        self.client().in_flight()
    }
}

impl<T, S, const N: usize> Driver for kafka_wire::conn::Async<T, S, N>
where
    T: embedded_io_async::Read + embedded_io_async::Write,
    T::Error: std::fmt::Debug,
    S: kafka_wire::conn::Storage,
{
    type Error = T::Error;
    async fn send<'a, R: kafka_wire::Request<'a>>(
        &mut self,
        req: &R,
        version: i16,
        scratch: &mut [u8],
    ) -> Result<kafka_wire::conn::Sent, kafka_wire::conn::ConnError<T::Error>> {
        kafka_wire::conn::Async::send(self, req, version, scratch).await
    }
    async fn receive<'a, R: kafka_wire::Request<'a>>(
        &mut self,
        mode: Mode,
    ) -> Result<kafka_wire::frame::TypedResponseFrame<'_, R::Response<'_>>, kafka_wire::conn::ConnError<T::Error>> {
        kafka_wire::conn::Async::receive::<R>(self, mode).await
    }
    fn in_flight(&self) -> usize {
        self.client().in_flight()
    }
}

/// One conversation with the live broker through a connection-layer driver `c` (4 requests in
/// flight at most): ApiVersions at the highest version kafka-wire knows (again at the version
/// the broker asks for if it answers in version 0's shape), negotiation, a typed Metadata
/// answer naming the broker's port, then 4 requests pipelined, a fifth refused as `Full`, and
/// the 4 answers paired in order.
async fn converse<D: Driver>(what: &str, c: &mut D, port: u16, report: &mut Report) -> Result<(), String> {
    use kafka_wire::conn::{ClientError, ConnError};
    use kafka_wire::messages::{ApiVersionsRequest, MetadataRequest};
    use kafka_wire::versions::{Negotiated, NegotiationError};

    let mut scratch = [0u8; 256];
    let req = ApiVersionsRequest {
        client_software_name: "kwire-conn",
        client_software_version: "0.1.0",
        ..ApiVersionsRequest::DEFAULT
    };
    // Ask at the highest version kafka-wire knows: a broker that does not speak it answers in
    // version 0's shape, and the driver reads that too.
    let top = ApiKey::ApiVersions.request_info().max_version;
    let first = c
        .call(&req, top, &mut scratch, Mode::Strict)
        .await
        .map_err(|e| format!("{what}: ApiVersions v{top}: {e}"))?;
    let negotiated = match Negotiated::with_kafka_wire(&first.body) {
        Ok(n) => n,
        Err(NegotiationError::RetryApiVersions { retry_version }) => {
            let again = c
                .call(&req, retry_version, &mut scratch, Mode::Strict)
                .await
                .map_err(|e| format!("{what}: ApiVersions v{retry_version}: {e}"))?;
            Negotiated::with_kafka_wire(&again.body).map_err(|e| format!("{what}: {e}"))?
        }
        Err(e) => return Err(format!("{what}: {e}")),
    };
    let mv = negotiated
        .version(ApiKey::Metadata)
        .ok_or(format!("{what}: no Metadata version"))?;
    let all = MetadataRequest {
        topics: None,
        ..MetadataRequest::DEFAULT
    };
    let md = c
        .call(&all, mv, &mut scratch, Mode::Strict)
        .await
        .map_err(|e| format!("{what}: Metadata v{mv}: {e}"))?;
    let ports: Vec<i32> = md.body.brokers.iter().map(|b| b.port).collect();
    report.check(
        ports == [i32::from(port)],
        &format!("conn {what}: ApiVersions v{top} and Metadata v{mv} (brokers on ports {ports:?})"),
    );
    // Pipelined: four requests in flight, a fifth refused, then four answers in order.
    let av = negotiated.version(ApiKey::ApiVersions).unwrap_or(3);
    let mut ids = Vec::new();
    for _ in 0..4 {
        let sent = c
            .send(&req, av, &mut scratch)
            .await
            .map_err(|e| format!("{what}: pipelined send: {e}"))?;
        ids.push(sent.correlation_id);
    }
    let full = matches!(
        c.send(&req, av, &mut scratch).await,
        Err(ConnError::Client(ClientError::Full { capacity: 4 }))
    );
    let mut answered = Vec::new();
    for _ in 0..4 {
        let r = c
            .receive::<ApiVersionsRequest<'_>>(Mode::Strict)
            .await
            .map_err(|e| format!("{what}: pipelined receive: {e}"))?;
        answered.push(r.header.correlation_id);
    }
    report.check(
        full && answered == ids && c.in_flight() == 0,
        &format!("conn {what}: 4 requests pipelined and paired in order ({answered:?}), a fifth refused as Full"),
    );
    Ok(())
}

/// The connection layer against the live broker, one conversation ([`converse`]) per driver:
/// `Blocking` over `std::io` and over `embedded-io` (a std socket through
/// `embedded-io-adapters`), and `Async` over `embedded-io-async` (a tokio socket through
/// `embedded-io-adapters`' tokio adapter, on a current-thread runtime).
fn conn_layer(port: u16, report: &mut Report) {
    use kafka_wire::conn::{Async, Blocking, EmbeddedIo, Growable, StdIo};

    const MAX_FRAME: usize = 100 << 20;
    const CLIENT_ID: Option<&str> = Some("kwire-conn");
    let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            report.fail(&format!("conn: a tokio runtime: {e}"));
            return;
        }
    };
    let open = || -> Result<TcpStream, String> {
        let s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("connect: {e}"))?;
        s.set_read_timeout(Some(Duration::from_secs(30)))
            .map_err(|e| e.to_string())?;
        Ok(s)
    };

    let std_run = open().and_then(|s| {
        let mut c: Blocking<_, Growable, 4> = Blocking::new(StdIo(s), Growable::new(4096), MAX_FRAME, CLIENT_ID);
        rt.block_on(converse("Blocking over std::io", &mut c, port, report))
    });
    if let Err(e) = std_run {
        report.fail(&e);
    }

    let eio_run = open().and_then(|s| {
        let io = EmbeddedIo(embedded_io_adapters::std::FromStd::new(s));
        let mut c: Blocking<_, Growable, 4> = Blocking::new(io, Growable::new(4096), MAX_FRAME, CLIENT_ID);
        rt.block_on(converse("Blocking over embedded-io", &mut c, port, report))
    });
    if let Err(e) = eio_run {
        report.fail(&e);
    }

    let what = "Async over embedded-io-async (tokio)";
    let async_run = rt.block_on(async {
        let s = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .map_err(|e| format!("{what}: connect: {e}"))?;
        let io = embedded_io_adapters::tokio_1::FromTokio::new(s);
        let mut c: Async<_, Growable, 4> = Async::new(io, Growable::new(4096), MAX_FRAME, CLIENT_ID);
        tokio::time::timeout(Duration::from_secs(30), converse(what, &mut c, port, report))
            .await
            .map_err(|_| format!("{what}: no answer within 30 s"))?
    });
    if let Err(e) = async_run {
        report.fail(&e);
    }
}

thread_local! {
    /// The `--client` programs to run against the broker.
    static CLIENTS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs a client program against the broker (`PROGRAM 127.0.0.1:PORT TOPIC`, 120 s at most):
/// it passes when it exits 0 with a last line saying it produced.
fn client_program(program: &str, port: u16, report: &mut Report) {
    let name = Path::new(program)
        .file_name()
        .map_or(program.to_string(), |n| n.to_string_lossy().into_owned());
    let topic = format!("kwire-{name}");
    let child = Command::new(program)
        .arg(format!("127.0.0.1:{port}"))
        .arg(&topic)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            report.fail(&format!("{name}: could not start {program}: {e}"));
            return;
        }
    };
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if start.elapsed() < Duration::from_secs(120) => std::thread::sleep(Duration::from_millis(100)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let mut out = String::new();
    let mut err = String::new();
    if let Some(mut o) = child.stdout.take() {
        let _ = o.read_to_string(&mut out);
    }
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    let last = out.lines().last().unwrap_or("").to_string();
    let ok = status.is_some_and(|s| s.success()) && last.contains(&format!("produced 3 records to {topic}"));
    report.check(
        ok,
        &format!(
            "{name} against the broker: {}{}",
            if last.is_empty() { "no output" } else { &last },
            if ok {
                String::new()
            } else {
                format!(" (status {status:?}; stderr: {})", err.trim())
            }
        ),
    );
}
