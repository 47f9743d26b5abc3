//! `kwire produce`: records from standard input to a topic, through kafka-wire-client's
//! producer on its std driver.

use std::io::BufRead;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use kafka_wire::records::{Compression, NewHeader};
use kafka_wire_client::sasl::{Mechanism, Sasl};
use kafka_wire_client::std_io::{Error, StdProducer};
use kafka_wire_client::tokio_io::TokioProducer;
use kafka_wire_client::{Acks, Compressor, Config, Delivery, Producer, Record, RecordId, TopicId};
use serde_json::Value;

/// Partitions the command writes to, at most.
const PARTITIONS: usize = 256;
/// Batch buffers and their size.
const SLOTS: usize = 16;
const BATCH: usize = 16 << 10;
/// Connections: the bootstrap broker and up to 7 leaders.
const CONNS: usize = 8;

#[derive(Clone, Copy, ValueEnum)]
pub enum AcksArg {
    #[value(name = "0")]
    Zero,
    #[value(name = "1")]
    One,
    #[value(name = "all", alias = "-1")]
    All,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    /// Each line is a record's value (with --key-separator, KEY<SEP>VALUE).
    Lines,
    /// Each line is {"key": …, "value": …, "headers": {…}, "partition": N}; every member is
    /// optional, strings or null.
    Json,
}

#[derive(Args)]
pub struct ProduceArgs {
    /// The brokers to ask first, tried in turn (host:port, comma-separated).
    #[arg(long, short = 'b')]
    bootstrap: String,
    /// The topic.
    #[arg(long, short = 't')]
    topic: String,
    /// Every record to this partition (default: by key, Kafka's murmur2 partitioner; without a
    /// key, one partition per batch in turn).
    #[arg(long, short = 'p')]
    partition: Option<i32>,
    /// What the leader waits for before it answers.
    #[arg(long, value_enum, default_value = "all")]
    acks: AcksArg,
    /// Turn idempotence off (it is on with acks=all, as in Kafka's producer).
    #[arg(long)]
    no_idempotence: bool,
    /// How long a batch waits for more records, in milliseconds.
    #[arg(long, default_value_t = 5)]
    linger_ms: u64,
    /// How standard input is read.
    #[arg(long, value_enum, default_value = "lines")]
    format: Format,
    /// With --format lines: the key and the value are split at the first SEP.
    #[arg(long, short = 'K')]
    key_separator: Option<String>,
    /// Print each delivery report as a JSON line on standard output.
    #[arg(long)]
    report: bool,
    /// The client id in each request header.
    #[arg(long, default_value = "kwire")]
    client_id: String,
    /// Drive the producer from a tokio task (the client's async driver) instead of the blocking
    /// driver's reader threads.
    #[arg(long = "async")]
    run_async: bool,
    #[command(flatten)]
    sasl: SaslArgs,
    /// Compress batches with this codec (kafka-wire-ext's encoders).
    #[arg(long, value_enum, default_value = "none")]
    compression: CodecArg,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum CodecArg {
    None,
    Gzip,
    Snappy,
    Lz4,
    Zstd,
}

/// The producer's compressor: kafka-wire-ext's codecs into one reused buffer.
struct ExtCompressor(Vec<u8>);

impl Compressor for ExtCompressor {
    fn compress(&mut self, codec: Compression, records: &[u8]) -> Option<&[u8]> {
        self.0.clear();
        kafka_wire_ext::compression::compress(codec, records, &mut self.0).ok()?;
        Some(&self.0)
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub enum MechanismArg {
    #[value(name = "PLAIN")]
    Plain,
    #[value(name = "SCRAM-SHA-256")]
    ScramSha256,
    #[value(name = "SCRAM-SHA-512")]
    ScramSha512,
}

/// SASL options, shared by produce and consume.
#[derive(Args)]
pub struct SaslArgs {
    /// Authenticate every connection with this SASL mechanism.
    #[arg(long, value_enum, requires_all = ["sasl_username", "sasl_password"])]
    sasl_mechanism: Option<MechanismArg>,
    /// The SASL user name.
    #[arg(long)]
    sasl_username: Option<String>,
    /// The SASL password.
    #[arg(long)]
    sasl_password: Option<String>,
}

impl SaslArgs {
    /// The credentials, with a nonce key from the operating system's random source.
    pub fn sasl(&self) -> Result<Option<Sasl<'_>>, String> {
        let (Some(m), Some(username), Some(password)) = (self.sasl_mechanism, &self.sasl_username, &self.sasl_password)
        else {
            return Ok(None);
        };
        let mut nonce_seed = [0u8; 32];
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut nonce_seed))
            .map_err(|e| format!("reading /dev/urandom for the SASL nonce: {e}"))?;
        Ok(Some(Sasl {
            mechanism: match m {
                MechanismArg::Plain => Mechanism::Plain,
                MechanismArg::ScramSha256 => Mechanism::ScramSha256,
                MechanismArg::ScramSha512 => Mechanism::ScramSha512,
            },
            username,
            password,
            nonce_seed,
        }))
    }
}

type P<'c> = Producer<'c, PARTITIONS, SLOTS, BATCH, CONNS>;

/// The producer on one of the client's drivers.
enum Driven<'c> {
    Std(Box<StdProducer<'c, PARTITIONS, SLOTS, BATCH, CONNS>>),
    Tokio(
        tokio::runtime::Runtime,
        Box<TokioProducer<'c, PARTITIONS, SLOTS, BATCH, CONNS>>,
    ),
}

impl<'c> Driven<'c> {
    fn new(producer: P<'c>, run_async: bool) -> Result<Self, String> {
        let max_request = BATCH * SLOTS + 4096;
        if !run_async {
            let p = StdProducer::new(producer, max_request).with_log(|m| eprintln!("kwire produce: {m}"));
            return Ok(Driven::Std(Box::new(p)));
        }
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("the tokio runtime: {e}"))?;
        Ok(Driven::Tokio(rt, Box::new(TokioProducer::new(producer, max_request))))
    }

    fn wait_ready(&mut self, topic: TopicId, max: Duration, on: &mut dyn FnMut(Delivery)) -> Result<i32, Error> {
        match self {
            Driven::Std(p) => p.wait_ready(topic, max, on),
            Driven::Tokio(rt, p) => rt.block_on(p.wait_ready(topic, max, &mut |d| on(d))),
        }
    }

    fn send(
        &mut self,
        topic: TopicId,
        partition: Option<i32>,
        record: &Record<'_>,
        max_wait: Duration,
        on: &mut dyn FnMut(Delivery),
    ) -> Result<RecordId, Error> {
        match self {
            Driven::Std(p) => p.send(topic, partition, record, max_wait, on),
            Driven::Tokio(rt, p) => rt.block_on(p.send(topic, partition, record, max_wait, &mut |d| on(d))),
        }
    }

    fn flush(&mut self, max: Duration, on: &mut dyn FnMut(Delivery)) -> Result<(), Error> {
        match self {
            Driven::Std(p) => p.flush(max, on),
            Driven::Tokio(rt, p) => rt.block_on(p.flush(max, &mut |d| on(d))),
        }
    }
}

/// The addresses of `--bootstrap`: `host:port`, comma-separated.
pub(crate) fn split_addrs(list: &str) -> Result<Vec<(&str, u16)>, String> {
    list.split(',')
        .map(|addr| {
            let (host, port) = addr
                .rsplit_once(':')
                .ok_or_else(|| format!("--bootstrap {addr}: expected HOST:PORT"))?;
            let port = port.parse().map_err(|_| format!("--bootstrap {addr}: bad port"))?;
            Ok((host, port))
        })
        .collect()
}

/// Where `needle` first occurs in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Bytes of a JSON member: a string's UTF-8, null, or any other value's JSON text.
fn bytes_of(v: Option<&Value>) -> Option<Vec<u8>> {
    match v {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone().into_bytes()),
        Some(other) => Some(other.to_string().into_bytes()),
    }
}

pub fn run(a: &ProduceArgs) -> Result<(), String> {
    let bootstrap = split_addrs(&a.bootstrap)?;
    let mut config = Config::new(&a.client_id, &bootstrap);
    config.acks = match a.acks {
        AcksArg::Zero => Acks::None,
        AcksArg::One => Acks::Leader,
        AcksArg::All => Acks::All,
    };
    config.idempotent = config.acks == Acks::All && !a.no_idempotence;
    config.linger_ms = a.linger_ms;
    config.sasl = a.sasl.sasl()?;
    config.compression = match a.compression {
        CodecArg::None => Compression::None,
        CodecArg::Gzip => Compression::Gzip,
        CodecArg::Snappy => Compression::Snappy,
        CodecArg::Lz4 => Compression::Lz4,
        CodecArg::Zstd => Compression::Zstd,
    };
    let mut compressor = ExtCompressor(Vec::with_capacity(BATCH));
    let topics = [a.topic.as_str()];
    let producer: P<'_> = Producer::new(config, &topics)
        .map_err(|e| e.to_string())?
        .with_compressor(&mut compressor);
    let mut p = Driven::new(producer, a.run_async)?;
    let topic = TopicId(0);

    let start = Instant::now();
    let (mut delivered, mut failed, mut batches) = (0u64, 0u64, 0u64);
    let mut first_error = None;
    let report = a.report;
    let mut on = |d: Delivery| {
        batches += 1;
        match d.result {
            Ok(offset) => {
                delivered += u64::from(d.count);
                if report {
                    println!(
                        "{{\"partition\":{},\"offset\":{offset},\"first\":{},\"count\":{}}}",
                        d.partition, d.first, d.count
                    );
                }
            }
            Err(e) => {
                failed += u64::from(d.count);
                first_error.get_or_insert_with(|| e.to_string());
                if report {
                    println!(
                        "{{\"partition\":{},\"error\":{},\"first\":{},\"count\":{}}}",
                        d.partition,
                        Value::String(e.to_string()),
                        d.first,
                        d.count
                    );
                }
            }
        }
    };
    let partitions = p
        .wait_ready(topic, Duration::from_secs(30), &mut on)
        .map_err(|e| format!("topic {}: {e}", a.topic))?;
    eprintln!("kwire produce: topic {} has {partitions} partitions", a.topic);

    // One line buffer for the whole input; a line's key and value are borrowed from it.
    let mut input = std::io::stdin().lock();
    let mut line = Vec::with_capacity(4096);
    let sep = a.key_separator.as_deref().map(str::as_bytes).filter(|s| !s.is_empty());
    let mut sent = 0u64;
    let mut n = 0usize;
    loop {
        line.clear();
        let got = input
            .read_until(b'\n', &mut line)
            .map_err(|e| format!("reading standard input: {e}"))?;
        if got == 0 {
            break;
        }
        n += 1;
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        let (record, partition) = match a.format {
            Format::Lines => {
                let (key, value) = match sep.and_then(|s| find(&line, s).map(|at| (at, s.len()))) {
                    Some((at, len)) => (line.get(..at), line.get(at + len..)),
                    None => (None, Some(&line[..])),
                };
                let record = Record {
                    key,
                    value,
                    ..Record::DEFAULT
                };
                (record, a.partition)
            }
            Format::Json => {
                let v: Value = serde_json::from_slice(&line).map_err(|e| format!("line {n}: {e}"))?;
                let mut headers = Vec::new();
                if let Some(h) = v.get("headers").and_then(Value::as_object) {
                    for (k, hv) in h {
                        headers.push((k.clone(), bytes_of(Some(hv))));
                    }
                }
                let partition = match v.get("partition").and_then(Value::as_i64) {
                    Some(p) => Some(i32::try_from(p).map_err(|_| format!("line {n}: partition {p}"))?),
                    None => a.partition,
                };
                let (key, value) = (bytes_of(v.get("key")), bytes_of(v.get("value")));
                let hs: Vec<NewHeader<'_>> = headers.iter().map(|(k, v)| NewHeader::new(k, v.as_deref())).collect();
                let record = Record {
                    key: key.as_deref(),
                    value: value.as_deref(),
                    headers: &hs,
                    timestamp: None,
                };
                p.send(topic, partition, &record, Duration::from_secs(120), &mut on)
                    .map_err(|e| format!("line {n}: {e}"))?;
                sent += 1;
                continue;
            }
        };
        p.send(topic, partition, &record, Duration::from_secs(120), &mut on)
            .map_err(|e| format!("line {n}: {e}"))?;
        sent += 1;
    }
    p.flush(Duration::from_secs(150), &mut on).map_err(|e| e.to_string())?;
    drop(p);
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "kwire produce: {delivered} of {sent} records delivered to {} in {batches} batches in {secs:.2} s{}",
        a.topic,
        if failed > 0 {
            format!(", {failed} failed")
        } else {
            String::new()
        }
    );
    match first_error {
        Some(e) => Err(format!("{failed} records not delivered: {e}")),
        None => Ok(()),
    }
}
