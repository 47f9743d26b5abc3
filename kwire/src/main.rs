//! `kwire`: Kafka frames and records to JSON and back, and a demo on built-in samples.

use std::io::{Read, Write};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use kafka_wire::frame::{self, Mode};
use kafka_wire::messages::{RequestHeader, ResponseHeader};
use kafka_wire::{catalog, ApiKey, Message, MetadataRecordType};
use kafka_wire_ext::dump_log::record_type_name;
use kafka_wire_ext::json::{entry_of, json_to_wire, wire_to_json};
use serde_json::{json, Value};

mod consume;
mod demo;
mod produce;

#[derive(Parser)]
#[command(
    name = "kwire",
    version,
    about = "Decode and encode Apache Kafka wire frames and records as JSON"
)]
#[command(
    after_help = "Examples:\n  kwire                          run the demo on built-in samples\n  kwire decode --hex frame.hex   a request frame (size, header, body) as JSON\n  kwire decode --response --api-key 18 --api-version 3 resp.bin\n  kwire encode --hex req.json    JSON back to a frame, printed as hex"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
}

#[derive(Subcommand)]
enum Cmd {
    /// The main job on built-in samples, offline: a producer's requests encoded, a Kafka 4.4.0
    /// broker's recorded answers parsed, versions negotiated; views and owned values as JSON; the
    /// seed KIPs' records in a __cluster_metadata batch and their messages as frames.
    #[command(
        after_help = "The last line is a one-line summary. The seed KIPs' mapping to the shipped schemas is in
docs/SEEDS.md.

Examples:
  kwire demo
  kwire demo | tail -n 1"
    )]
    Demo,
    /// Decode a frame (4-byte size, header, body) into JSON {"header": …, "body": …}.
    #[command(
        after_help = "Examples:\n  kwire decode request.bin\n  kwire decode --hex --lenient - < request.hex\n  kwire decode --response --api-key 3 --api-version 12 response.bin\n  kwire decode --metadata-record --hex record.hex"
    )]
    Decode(Opts),
    /// Encode JSON (as `decode` prints it) into a frame.
    #[command(
        after_help = "Examples:\n  kwire encode request.json > request.bin\n  kwire encode --hex --response --api-key 3 --api-version 12 response.json\n  kwire encode --metadata-record --hex record.json"
    )]
    Encode(Opts),
    /// Print every batch and record of a log segment (or any record bytes) as JSON lines.
    #[command(
        after_help = "Examples:\n  kwire dump-log 00000000000000000000.log\n  kwire dump-log --metadata __cluster_metadata-0/00000000000000000000.log"
    )]
    DumpLog(DumpLogArgs),
    /// Decode the Kafka conversations in a capture file (pcap or pcapng): one JSON line per
    /// frame, each response paired with its request, then a summary line.
    #[command(
        after_help = "Each frame is one JSON line on standard output: time, connection (client > broker), direction,\n\
apiKey, apiName, apiVersion, correlationId, header and body (as `decode` prints them), errorCodes for\n\
responses with non-zero error codes, and with --hex the frame's bytes; or an \"error\" object for a\n\
frame that does not decode. The last line is {\"summary\": …}: frames per API and version, error\n\
codes, frames that did not decode, TCP counts. A progress line goes to standard error when it is a\n\
terminal.\n\n\
Examples:\n  kwire pcap tests/pcap/clients.pcapng\n  kwire pcap --port 9092 --port 9094 capture.pcap\n  \
kwire pcap --api Metadata,FindCoordinator --errors-only capture.pcapng\n  \
kwire pcap --hex --api Produce capture.pcapng\n  \
tcpdump -i lo -w - port 9092 | kwire pcap -"
    )]
    Pcap(PcapArgs),
    /// A TCP proxy in front of a Kafka broker or cluster: forwards bytes both ways, logs every
    /// frame as a JSON line, and rewrites broker addresses so clients stay on the proxy.
    #[command(
        after_help = "Examples:\n  kwire proxy --listen 127.0.0.1:19092 --upstream 127.0.0.1:9092\n  kwire proxy --listen 0.0.0.0:19092 --upstream kafka:9092 --advertised-host proxy.local --log frames.jsonl\n\nBroker N (its node id) is reached through port BROKER_PORT_BASE + N (default: the listening\nport + 1 + N), or an ephemeral port when that one is out of range or taken. A broker that moves\n\
keeps its listener. Connections are tasks on a runtime with one worker per core.\n\n\
Faults are JSON lines {\"event\": \"fault\", \"kind\": …} in the log (on standard error with --quiet),\n\
naming the client, the broker, the direction and the correlation id where known: connection_limit,\n\
accept_failed, upstream_refused, upstream_timeout, upstream_reset, upstream_closed, client_reset,\n\
truncated_frame, client_cut_frame, oversized_frame, unanswered, decode_failed, idle_timeout,\n\
request_timeout, memory_budget, broker_limit, listen_failed, drain_timeout, tls_handshake. The log never holds\n\
up forwarding: lines beyond --log-queue are dropped, counted, and the count logged.\n\n\
TLS (rustls): --tls-cert and --tls-key terminate TLS from clients; --upstream-tls-ca originates\n\
TLS to brokers, checking each broker's certificate against the bundle and the broker's host\n\
(or --upstream-tls-server-name). Either side may be TLS alone. SASL passes through untouched.\n\n\
SIGTERM or SIGINT: stop accepting, let requests in flight be answered (--drain-timeout), flush\n\
the log, print the counters, exit 0. Exits 1 when a listener cannot be bound at start."
    )]
    Proxy(ProxyArgs),
    /// Produce records from standard input to a topic (one per line), idempotent with acks=all by
    /// default, through kafka-wire-client's no_std producer on its std driver.
    #[command(
        after_help = "The records are read back in order by any consumer; one summary line goes to standard error,\n\
and with --report one JSON line per delivery report (partition, offset of the first record, first\n\
record number, count) to standard output. Exits 1 when any record is not delivered.\n\n\
Examples:\n  seq 1 1000 | kwire produce -b 127.0.0.1:9092 -t numbers\n  \
kwire produce -b kafka:9092 -t events --format json < events.jsonl\n  \
printf 'k1:v1\\nk2:v2\\n' | kwire produce -b 127.0.0.1:9092 -t keyed -K : --acks 1"
    )]
    Produce(produce::ProduceArgs),
    /// Print a topic's records as JSON lines (or raw values), from the earliest offset by
    /// default, through kafka-wire-client's no_std consumer on its std driver.
    #[command(
        after_help = "Every partition is read unless -p names some; compressed batches are decompressed. One summary\n\
line goes to standard error. Exits 1 when a partition fails (an offset out of range resets to the\n\
earliest).\n\n\
Examples:\n  kwire consume -b 127.0.0.1:9092 -t numbers -e\n  \
kwire consume -b kafka:9092 -t events -p 0 -o latest --format value\n  \
kwire consume -b 127.0.0.1:9092 -t orders -o @1765000000000 -c 10 --isolation read-committed"
    )]
    Consume(consume::ConsumeArgs),
}

#[derive(Args)]
struct ProxyArgs {
    /// The bootstrap address clients connect to.
    #[arg(long)]
    listen: std::net::SocketAddr,
    /// The broker the bootstrap address forwards to (host:port).
    #[arg(long)]
    upstream: String,
    /// The host put in rewritten broker addresses (default: the listening IP, or localhost).
    #[arg(long)]
    advertised_host: Option<String>,
    /// Broker N listens on BROKER_PORT_BASE + N (0: ephemeral ports).
    #[arg(long)]
    broker_port_base: Option<u16>,
    /// Write the JSON lines to FILE instead of standard output.
    #[arg(long, conflicts_with = "quiet")]
    log: Option<String>,
    /// Log no frames (forwarding then allocates nothing per frame).
    #[arg(long)]
    quiet: bool,
    /// Forward broker addresses unchanged.
    #[arg(long)]
    no_rewrite: bool,
    /// Largest frame forwarded, in bytes; a larger one closes the connection.
    #[arg(long, default_value_t = kafka_wire_ext::proxy::DEFAULT_MAX_FRAME)]
    max_frame_bytes: usize,
    /// Write the bootstrap listener's port to FILE once listening (useful with port 0).
    #[arg(long)]
    port_file: Option<String>,
    /// Client connections open at once; one more is accepted, closed and logged.
    #[arg(long, default_value_t = 10_000)]
    max_connections: usize,
    /// Bytes all connections' buffers may hold together; a connection whose buffers grow
    /// beyond it is closed and logged.
    #[arg(long, default_value_t = 1 << 30)]
    memory_budget: usize,
    /// Seconds to connect to a broker.
    #[arg(long, default_value_t = 10.0)]
    connect_timeout: f64,
    /// Seconds a connection may sit with no byte either way and no request waiting.
    #[arg(long, default_value_t = 600.0)]
    idle_timeout: f64,
    /// Seconds a broker may stay silent while a request waits for its response.
    #[arg(long, default_value_t = 120.0)]
    request_timeout: f64,
    /// Seconds of silence before TCP keepalive probes, on both sockets (0: the system's setting).
    #[arg(long, default_value_t = 60.0)]
    keepalive: f64,
    /// Seconds requests in flight get to be answered after SIGTERM or SIGINT.
    #[arg(long, default_value_t = 30.0)]
    drain_timeout: f64,
    /// JSON lines queued for the log; beyond it lines are dropped and counted, never waited for.
    #[arg(long, default_value_t = 65_536)]
    log_queue: usize,
    /// Serve the counters in Prometheus' text format at http://ADDR/ (any path).
    #[arg(long)]
    metrics: Option<std::net::SocketAddr>,
    /// Terminate TLS from clients with this certificate chain (PEM); needs --tls-key.
    #[arg(long, requires = "tls_key")]
    tls_cert: Option<std::path::PathBuf>,
    /// The private key of --tls-cert (PEM).
    #[arg(long, requires = "tls_cert")]
    tls_key: Option<std::path::PathBuf>,
    /// Originate TLS to brokers, trusting the CA certificates of this PEM bundle.
    #[arg(long)]
    upstream_tls_ca: Option<std::path::PathBuf>,
    /// The name brokers' certificates must carry (default: the host of each broker's address).
    #[arg(long, requires = "upstream_tls_ca")]
    upstream_tls_server_name: Option<String>,
}

fn seconds(name: &str, s: f64) -> Result<std::time::Duration, String> {
    std::time::Duration::try_from_secs_f64(s).map_err(|e| format!("--{name} {s}: {e}"))
}

fn proxy(a: ProxyArgs) -> Result<(), String> {
    use kafka_wire_ext::proxy::{Config, Limits, Proxy};
    let log: Option<Box<dyn Write + Send>> = match (&a.log, a.quiet) {
        (_, true) => None,
        (Some(f), _) => Some(Box::new(
            std::fs::File::create(f).map_err(|e| format!("creating {f}: {e}"))?,
        )),
        (None, _) => Some(Box::new(std::io::stdout())),
    };
    let mut config = Config::new(a.listen, a.upstream.clone());
    config.advertised_host = a.advertised_host;
    config.broker_port_base = a.broker_port_base;
    config.max_frame = a.max_frame_bytes;
    config.rewrite = !a.no_rewrite;
    config.log = log;
    config.metrics = a.metrics;
    config.signals = true;
    config.tls = kafka_wire_ext::proxy::Tls {
        listen: a.tls_cert.zip(a.tls_key),
        upstream_ca: a.upstream_tls_ca,
        upstream_server_name: a.upstream_tls_server_name,
    };
    let keepalive = seconds("keepalive", a.keepalive)?;
    config.limits = Limits {
        max_connections: a.max_connections,
        memory_budget: a.memory_budget,
        connect_timeout: seconds("connect-timeout", a.connect_timeout)?,
        idle_timeout: seconds("idle-timeout", a.idle_timeout)?,
        request_timeout: seconds("request-timeout", a.request_timeout)?,
        keepalive: (!keepalive.is_zero()).then_some(keepalive),
        drain_timeout: seconds("drain-timeout", a.drain_timeout)?,
        log_queue: a.log_queue,
        ..Limits::default()
    };
    let p = Proxy::start(config).map_err(|e| format!("starting on {}: {e}", a.listen))?;
    eprintln!(
        "kwire proxy: listening on {}, forwarding to {}{}",
        p.local_addr(),
        a.upstream,
        p.metrics_addr()
            .map(|m| format!(", metrics on http://{m}/"))
            .unwrap_or_default()
    );
    if let Some(f) = &a.port_file {
        std::fs::write(f, p.local_addr().port().to_string()).map_err(|e| format!("writing {f}: {e}"))?;
    }
    // Runs until SIGTERM or SIGINT; the counters go to stderr every minute when they changed,
    // and once more at the end.
    let mut last = String::new();
    while !p.wait(std::time::Duration::from_secs(60)) {
        let s = p.summary();
        if s != last {
            eprintln!("kwire proxy: {s}");
            last = s;
        }
    }
    eprintln!("kwire proxy: stopped; {}", p.summary());
    Ok(())
}

#[derive(Args)]
struct PcapArgs {
    /// A broker port (repeatable): TCP segments to or from it are Kafka traffic.
    #[arg(long = "port", default_values_t = [9092u16])]
    ports: Vec<u16>,
    /// Print only these APIs, by name or key (repeatable, or comma-separated): Metadata, 3.
    #[arg(long, value_delimiter = ',')]
    api: Vec<String>,
    /// Print only responses with a non-zero error code anywhere in the body.
    #[arg(long)]
    errors_only: bool,
    /// Largest frame accepted, in bytes; a larger size prefix is reported as an error.
    #[arg(long, default_value_t = kwire::pcap::DEFAULT_MAX_FRAME)]
    max_frame_bytes: usize,
    /// Most bytes kept waiting behind a hole in one direction of one TCP stream.
    #[arg(long, default_value_t = kwire::pcap::DEFAULT_MAX_OUT_OF_ORDER)]
    max_out_of_order_bytes: usize,
    /// Leave out the summary line.
    #[arg(long)]
    no_summary: bool,
    /// Add "hex" to each frame's line: the frame's bytes (size prefix, header, body) as hex,
    /// as `kwire decode --hex` reads them.
    #[arg(long)]
    hex: bool,
    /// The capture file, or - for standard input.
    file: String,
}

#[derive(Args)]
struct DumpLogArgs {
    /// Decode each record value as a framed KRaft metadata record (a `__cluster_metadata` segment).
    #[arg(long)]
    metadata: bool,
    /// Largest decompressed size of one compressed batch, in bytes.
    #[arg(long, default_value_t = kafka_wire_ext::compression::DEFAULT_LIMIT)]
    max_decompressed_bytes: usize,
    /// Print batches whose CRC does not match (with "crcValid": false) instead of stopping.
    #[arg(long)]
    skip_crc_check: bool,
    /// The segment file, or - for standard input.
    file: String,
}

#[derive(Args)]
struct Opts {
    /// Read (decode) or write (encode) hex text instead of raw bytes.
    #[arg(long)]
    hex: bool,
    /// Decode: accept bytes after the body (reported on stderr) instead of failing.
    #[arg(long)]
    lenient: bool,
    /// The frame is a response; give --api-key and --api-version (responses do not carry them).
    #[arg(long, requires_all = ["api_key", "api_version"])]
    response: bool,
    /// API key of the response, e.g. 18 for ApiVersions.
    #[arg(long)]
    api_key: Option<i16>,
    /// API version of the response.
    #[arg(long)]
    api_version: Option<i16>,
    /// The input is one framed KRaft metadata record (a `__cluster_metadata` record value).
    #[arg(long, conflicts_with = "response")]
    metadata_record: bool,
    /// Input file, or - for standard input.
    #[arg(default_value = "-")]
    file: String,
}

fn read_input(file: &str) -> Result<Vec<u8>, String> {
    let mut buf = Vec::new();
    if file == "-" {
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| format!("reading standard input: {e}"))?;
    } else {
        buf = std::fs::read(file).map_err(|e| format!("reading {file}: {e}"))?;
    }
    Ok(buf)
}

fn unhex(text: &[u8]) -> Result<Vec<u8>, String> {
    let clean: Vec<u8> = text.iter().copied().filter(|b| !b.is_ascii_whitespace()).collect();
    hex::decode(&clean).map_err(|e| format!("invalid hex input: {e}"))
}

fn message_entry(name: &str) -> &'static catalog::Entry {
    catalog::ALL
        .iter()
        .find(|e| e.group == "messages" && e.info.name == name)
        .expect("every API message is in the catalog")
}

fn response_key(o: &Opts) -> Result<(ApiKey, i16), String> {
    let k = o.api_key.ok_or("--response needs --api-key")?;
    let v = o.api_version.ok_or("--response needs --api-version")?;
    let key = ApiKey::from_i16(k).ok_or_else(|| format!("unknown API key {k}"))?;
    Ok((key, v))
}

fn decode(o: &Opts) -> Result<Value, String> {
    let raw = read_input(&o.file)?;
    let bytes = if o.hex { unhex(&raw)? } else { raw };
    let mode = if o.lenient { Mode::Lenient } else { Mode::Strict };
    let js = |e: kafka_wire_ext::json::JsonError| e.to_string();
    if o.metadata_record {
        let r = frame::parse_metadata_record(&bytes).map_err(|e| e.to_string())?;
        let data = wire_to_json(entry_of(r.record.schema()).map_err(js)?, r.record_bytes, r.version).map_err(js)?;
        return Ok(json!({ "type": record_type_name(r.record_type), "version": r.version, "data": data }));
    }
    if o.response {
        let (key, v) = response_key(o)?;
        let f = frame::parse_response_frame(&bytes, key, v, mode).map_err(|e| e.to_string())?;
        if !f.trailing.is_empty() {
            eprintln!(
                "kwire: warning: {} byte(s) after the body (lenient mode)",
                f.trailing.len()
            );
        }
        let header = wire_to_json(
            entry_of(<ResponseHeader as Message>::SCHEMA).map_err(js)?,
            f.header_bytes,
            f.header_version,
        )
        .map_err(js)?;
        let body = wire_to_json(entry_of(f.body.schema()).map_err(js)?, f.body_bytes, v).map_err(js)?;
        return Ok(json!({ "header": header, "body": body }));
    }
    let f = frame::parse_request_frame(&bytes, mode).map_err(|e| match response_hint(&bytes, &e, o) {
        Some(hint) => format!("{e}\n{hint}"),
        None => e.to_string(),
    })?;
    if !f.trailing.is_empty() {
        eprintln!(
            "kwire: warning: {} byte(s) after the body (lenient mode)",
            f.trailing.len()
        );
    }
    let header = wire_to_json(
        entry_of(<RequestHeader as Message>::SCHEMA).map_err(js)?,
        f.header_bytes,
        f.header_version,
    )
    .map_err(js)?;
    let body = wire_to_json(entry_of(f.body.schema()).map_err(js)?, f.body_bytes, f.api_version).map_err(js)?;
    Ok(json!({ "header": header, "body": body }))
}

/// For a frame that does not decode as a request (`error`): a line saying how to decode it as a
/// response, when it plausibly is one. That is when it decodes strictly as a response (of the
/// API key and version given with --api-key and --api-version, or else of any) and its reading
/// as a request is doubtful: the request header does not parse, its API key is unknown or its
/// version unsupported, or its API key is 0, which is how a response whose correlation id is
/// below 65536 reads. A request that fails in its body is left alone otherwise.
fn response_hint(bytes: &[u8], error: &kafka_wire::DecodeError, o: &Opts) -> Option<String> {
    use kafka_wire::DecodeErrorKind as K;
    let header_fails = error.message() == "RequestHeader"
        || matches!(error.kind(), K::UnknownApiKey { .. } | K::UnsupportedVersion { .. });
    let reads_as_key_0 = bytes.get(4..6) == Some(&[0, 0][..]);
    if !header_fails && !reads_as_key_0 {
        return None;
    }
    let keys: Vec<ApiKey> = match o.api_key {
        Some(k) => ApiKey::from_i16(k).into_iter().collect(),
        None => ApiKey::ALL.to_vec(),
    };
    let mut fits = Vec::new();
    for key in keys {
        let info = key.response_info();
        for v in (info.min_version..=info.max_version).rev() {
            if o.api_version.is_some_and(|want| want != v) {
                continue;
            }
            if frame::parse_response_frame(bytes, key, v, Mode::Strict).is_ok() {
                fits.push((key, v));
            }
        }
    }
    let (key, v) = *fits.first()?;
    let mut hint = format!(
        "hint: this looks like a response (it decodes as {} v{v}",
        key.response_info().name
    );
    if fits.len() > 1 {
        let others: Vec<String> = fits[1..]
            .iter()
            .take(3)
            .map(|(k, v)| format!("{} v{v}", k.response_info().name))
            .collect();
        let more = if fits.len() > 4 { ", …" } else { "" };
        hint += &format!("; also as {}{more}", others.join(", "));
    }
    hint += &format!("); try --response --api-key {} --api-version {v}", key.id());
    Some(hint)
}

fn framed(head: Vec<u8>, body: Vec<u8>) -> Vec<u8> {
    let mut out = ((head.len() + body.len()) as i32).to_be_bytes().to_vec();
    out.extend(head);
    out.extend(body);
    out
}

fn encode(o: &Opts) -> Result<Vec<u8>, String> {
    let raw = read_input(&o.file)?;
    let v: Value = serde_json::from_slice(&raw).map_err(|e| format!("invalid JSON: {e}"))?;
    let js = |e: kafka_wire_ext::json::JsonError| e.to_string();
    if o.metadata_record {
        let ty = v["type"].as_str().ok_or("missing \"type\"")?;
        let version = v["version"].as_i64().ok_or("missing \"version\"")? as i16;
        let rt = MetadataRecordType::ALL
            .iter()
            .copied()
            .find(|t| record_type_name(*t) == ty)
            .ok_or_else(|| format!("unknown metadata record type {ty}"))?;
        let entry = catalog::ALL
            .iter()
            .find(|e| e.group == "metadata" && e.info.api_key == Some(rt.id()))
            .ok_or("no schema")?;
        let body = json_to_wire(entry, &v["data"], version).map_err(js)?;
        let mut out = Vec::new();
        for x in [1u32, rt.id() as u32, version as u32] {
            let mut x = x;
            while x >= 0x80 {
                out.push((x as u8) | 0x80);
                x >>= 7;
            }
            out.push(x as u8);
        }
        out.extend(body);
        frame::parse_metadata_record(&out).map_err(|e| e.to_string())?;
        return Ok(out);
    }
    if o.response {
        let (key, version) = response_key(o)?;
        let hv = key.response_header_version(version);
        let head = json_to_wire(
            entry_of(<ResponseHeader as Message>::SCHEMA).map_err(js)?,
            &v["header"],
            hv,
        )
        .map_err(js)?;
        let body = json_to_wire(message_entry(key.response_info().name), &v["body"], version).map_err(js)?;
        let out = framed(head, body);
        frame::parse_response_frame(&out, key, version, Mode::Strict).map_err(|e| e.to_string())?;
        return Ok(out);
    }
    let k = v["header"]["requestApiKey"]
        .as_i64()
        .ok_or("missing header.requestApiKey")? as i16;
    let version = v["header"]["requestApiVersion"]
        .as_i64()
        .ok_or("missing header.requestApiVersion")? as i16;
    let key = ApiKey::from_i16(k).ok_or_else(|| format!("unknown API key {k}"))?;
    let hv = key.request_header_version(version);
    let head = json_to_wire(
        entry_of(<RequestHeader as Message>::SCHEMA).map_err(js)?,
        &v["header"],
        hv,
    )
    .map_err(js)?;
    let body = json_to_wire(message_entry(key.request_info().name), &v["body"], version).map_err(js)?;
    let out = framed(head, body);
    frame::parse_request_frame(&out, Mode::Strict).map_err(|e| e.to_string())?;
    Ok(out)
}

fn pcap(a: &PcapArgs) -> Result<(), String> {
    use kwire::pcap::{decode_capture, Decoder, Options};
    use std::io::IsTerminal;
    let mut apis = Vec::new();
    for name in &a.api {
        let key = match name.trim().parse::<i16>() {
            Ok(k) => ApiKey::from_i16(k),
            Err(_) => ApiKey::ALL
                .iter()
                .copied()
                .find(|k| k.name().eq_ignore_ascii_case(name.trim())),
        };
        apis.push(key.ok_or_else(|| format!("unknown API {name:?}"))?);
    }
    let (input, total): (Box<dyn Read>, u64) = if a.file == "-" {
        (Box::new(std::io::stdin().lock()), 0)
    } else {
        let f = std::fs::File::open(&a.file).map_err(|e| format!("opening {}: {e}", a.file))?;
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        (Box::new(std::io::BufReader::with_capacity(1 << 16, f)), len)
    };
    let bar = if std::io::stderr().is_terminal() && total > 0 {
        let b = indicatif::ProgressBar::new(total);
        if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {bytes}/{total_bytes} {wide_bar} {msg}") {
            b.set_style(style);
        }
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let opts = Options {
        ports: a.ports.clone(),
        max_frame: a.max_frame_bytes,
        max_out_of_order: a.max_out_of_order_bytes,
        hex: a.hex,
    };
    let mut decoder = Decoder::new(opts);
    let mut out = stdout();
    let mut failed: Option<std::io::Error> = None;
    let printed = std::cell::Cell::new(0u64);
    let mut emit = |ev: kafka_wire_ext::conversation::FrameEvent| {
        if !apis.is_empty() && !ev.api.is_some_and(|(k, _)| apis.contains(&k)) {
            return;
        }
        if a.errors_only && !ev.has_error_code() {
            return;
        }
        if failed.is_none() {
            printed.set(printed.get() + 1);
            if let Err(e) = writeln!(out, "{}", ev.json) {
                failed = Some(e);
            }
        }
    };
    let mut progress = |n: u64| {
        bar.set_position(n);
        bar.set_message(format!("{} frames", printed.get()));
    };
    let r = decode_capture(input, &mut decoder, &mut progress, &mut emit);
    bar.finish_and_clear();
    r?;
    if let Some(e) = failed {
        return Err(format!("writing standard output: {e}"));
    }
    if !a.no_summary {
        let mut s = decoder.summary_json();
        s["summary"]["printed"] = printed.get().into();
        writeln!(out, "{s}").map_err(|e| format!("writing standard output: {e}"))?;
    }
    out.flush().map_err(|e| format!("writing standard output: {e}"))
}

/// Standard output, buffered. When its reader goes away (`kwire pcap … | head`), kwire ends
/// quietly and successfully, as Unix filters do, rather than report a broken pipe.
struct Stdout(std::io::BufWriter<std::io::StdoutLock<'static>>);

fn stdout() -> Stdout {
    Stdout(std::io::BufWriter::new(std::io::stdout().lock()))
}

fn closed(e: std::io::Error) -> std::io::Error {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    e
}

impl Write for Stdout {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.write(b).map_err(closed)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush().map_err(closed)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.cmd.unwrap_or(Cmd::Demo) {
        Cmd::Demo => {
            let mut out = stdout();
            demo::run(&mut out).and_then(|()| out.flush().map_err(|e| format!("writing standard output: {e}")))
        }
        Cmd::Decode(o) => decode(&o).and_then(|v| {
            let mut out = stdout();
            writeln!(out, "{}", serde_json::to_string_pretty(&v).unwrap_or_default())
                .and_then(|()| out.flush())
                .map_err(|e| format!("writing standard output: {e}"))
        }),
        Cmd::Encode(o) => encode(&o).and_then(|b| {
            let mut out = stdout();
            let r = if o.hex {
                writeln!(out, "{}", hex::encode(&b))
            } else {
                out.write_all(&b)
            };
            r.and_then(|()| out.flush()).map_err(|e| e.to_string())
        }),
        Cmd::Proxy(a) => proxy(a),
        Cmd::Produce(a) => produce::run(&a),
        Cmd::Consume(a) => consume::run(&a),
        Cmd::Pcap(a) => pcap(&a),
        Cmd::DumpLog(a) => kafka_wire_ext::dump_log::run(
            &a.file,
            &kafka_wire_ext::dump_log::DumpOptions {
                metadata: a.metadata,
                limit: a.max_decompressed_bytes,
                verify_crc: !a.skip_crc_check,
            },
            &mut stdout(),
        ),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kwire: error: {e}");
            ExitCode::FAILURE
        }
    }
}
