//! `kwire consume`: records of a topic to standard output as JSON lines, through
//! kafka-wire-client's consumer on its std driver.

use std::io::Write;
use std::time::{Duration, Instant};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use clap::{Args, ValueEnum};
use kafka_wire::records::{Headers, RecordBatch};
use kafka_wire_client::consumer::{ConsumedRecord, Isolation, Item, Offset, Output as Consumed, Reset};
use kafka_wire_client::std_io::{Error, StdConsumer};
use kafka_wire_client::tokio_io::TokioConsumer;
use kafka_wire_client::{Consumer, ConsumerConfig, TopicId};
use kafka_wire_ext::compression;
use serde_json::{json, Value};

/// Partitions the command reads, at most.
const PARTITIONS: usize = 256;
/// Connections: the bootstrap broker and up to 7 leaders.
const CONNS: usize = 8;
/// The largest decompressed batch.
const DECOMPRESS_LIMIT: usize = 64 << 20;

#[derive(Clone, Copy, ValueEnum)]
pub enum OutFormat {
    /// One JSON object per record: topic, partition, offset, timestamp, key and value (base64),
    /// headers.
    Json,
    /// Each record's value, raw, one per line.
    Value,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum IsolationArg {
    ReadUncommitted,
    ReadCommitted,
}

#[derive(Args)]
pub struct ConsumeArgs {
    /// The brokers to ask first, tried in turn (host:port, comma-separated).
    #[arg(long, short = 'b')]
    bootstrap: String,
    /// The topic.
    #[arg(long, short = 't')]
    topic: String,
    /// Read only these partitions (repeat the flag; default: every partition).
    #[arg(long, short = 'p')]
    partition: Vec<i32>,
    /// Where to start: earliest, latest, an offset, or @MS for the first record at or after a
    /// timestamp (ms since the Unix epoch).
    #[arg(long, short = 'o', default_value = "earliest", allow_hyphen_values = true)]
    offset: String,
    /// Stop after this many records.
    #[arg(long, short = 'c')]
    count: Option<u64>,
    /// Stop when every partition has been read to its end.
    #[arg(long, short = 'e')]
    exit_at_end: bool,
    /// Which records to read.
    #[arg(long, value_enum, default_value = "read-uncommitted")]
    isolation: IsolationArg,
    /// What is printed for each record.
    #[arg(long, value_enum, default_value = "json")]
    format: OutFormat,
    /// How long to wait for the topic to be known, in seconds.
    #[arg(long, default_value_t = 30)]
    timeout: u64,
    /// The client id in each request header.
    #[arg(long, default_value = "kwire")]
    client_id: String,
    /// Drive the consumer from a tokio task (the client's async driver) instead of the blocking
    /// driver's reader threads.
    #[arg(long = "async")]
    run_async: bool,
    #[command(flatten)]
    sasl: crate::produce::SaslArgs,
}

type C<'c> = Consumer<'c, PARTITIONS, CONNS>;

/// The consumer on one of the client's drivers.
enum Driven<'c> {
    Std(Box<StdConsumer<'c, PARTITIONS, CONNS>>),
    Tokio(tokio::runtime::Runtime, Box<TokioConsumer<'c, PARTITIONS, CONNS>>),
}

impl<'c> Driven<'c> {
    fn new(consumer: C<'c>, run_async: bool) -> Result<Self, String> {
        if !run_async {
            return Ok(Driven::Std(Box::new(
                StdConsumer::new(consumer).with_log(|m| eprintln!("kwire consume: {m}")),
            )));
        }
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("the tokio runtime: {e}"))?;
        Ok(Driven::Tokio(rt, Box::new(TokioConsumer::new(consumer))))
    }

    fn consumer(&self) -> &C<'c> {
        match self {
            Driven::Std(c) => c.consumer(),
            Driven::Tokio(_, c) => c.consumer(),
        }
    }

    fn consumer_mut(&mut self) -> &mut C<'c> {
        match self {
            Driven::Std(c) => c.consumer_mut(),
            Driven::Tokio(_, c) => c.consumer_mut(),
        }
    }

    fn wait_ready(&mut self, topic: TopicId, max: Duration) -> Result<i32, Error> {
        match self {
            Driven::Std(c) => c.wait_ready(topic, max),
            Driven::Tokio(rt, c) => rt.block_on(c.wait_ready(topic, max)),
        }
    }

    fn poll(&mut self, max_wait: Duration, on: &mut dyn FnMut(Consumed<'_>)) -> Result<(), Error> {
        match self {
            Driven::Std(c) => c.poll(max_wait, on),
            Driven::Tokio(rt, c) => rt.block_on(c.poll(max_wait, &mut |x| on(x))),
        }
    }
}

fn parse_offset(s: &str) -> Result<Offset, String> {
    match s {
        "earliest" | "beginning" => Ok(Offset::Earliest),
        "latest" | "end" => Ok(Offset::Latest),
        _ => match s.strip_prefix('@') {
            Some(ts) => ts
                .parse()
                .map(Offset::Timestamp)
                .map_err(|_| format!("--offset {s}: expected @MILLISECONDS")),
            None => s
                .parse()
                .ok()
                .filter(|o: &i64| *o >= 0)
                .map(Offset::At)
                .ok_or_else(|| format!("--offset {s}: expected earliest, latest, an offset or @MS")),
        },
    }
}

fn b64(b: Option<&[u8]>) -> Value {
    b.map_or(Value::Null, |b| Value::from(STANDARD.encode(b)))
}

fn headers_json(h: &Headers<'_>) -> Value {
    Value::Array(
        h.iter()
            .map(|h| match h.key_str() {
                Some(k) => json!({ "key": k, "value": b64(h.value) }),
                None => json!({ "keyBase64": STANDARD.encode(h.key), "value": b64(h.value) }),
            })
            .collect(),
    )
}

struct Printer<'a> {
    topic: &'a str,
    format: OutFormat,
    out: std::io::BufWriter<std::io::StdoutLock<'static>>,
    printed: u64,
    limit: u64,
    error: Option<String>,
}

impl Printer<'_> {
    fn record(&mut self, r: &ConsumedRecord<'_>) {
        if self.printed >= self.limit || self.error.is_some() {
            return;
        }
        let written = match self.format {
            OutFormat::Json => {
                let v = json!({
                    "topic": self.topic,
                    "partition": r.partition,
                    "offset": r.offset,
                    "timestamp": r.timestamp,
                    "timestampType": r.timestamp_type.name(),
                    "key": b64(r.key),
                    "value": b64(r.value),
                    "headers": headers_json(&r.headers),
                });
                writeln!(self.out, "{v}")
            }
            OutFormat::Value => self
                .out
                .write_all(r.value.unwrap_or_default())
                .and_then(|()| self.out.write_all(b"\n")),
        };
        match written {
            Ok(()) => self.printed += 1,
            Err(e) => self.error = Some(format!("standard output: {e}")),
        }
    }

    fn compressed(&mut self, topic: TopicId, partition: i32, from: i64, batch: &RecordBatch<'_>) {
        let mut buf = Vec::new();
        match compression::batch_records(batch, &mut buf, DECOMPRESS_LIMIT) {
            Ok(records) => {
                for r in records.iter() {
                    let offset = batch.offset_of(&r);
                    if offset < from {
                        continue;
                    }
                    self.record(&ConsumedRecord {
                        topic,
                        partition,
                        offset,
                        timestamp: batch.timestamp_of(&r),
                        timestamp_type: batch.timestamp_type(),
                        key: r.key,
                        value: r.value,
                        headers: r.headers,
                    });
                }
            }
            Err(e) => {
                self.error = Some(format!(
                    "partition {partition}: the batch at offset {}: {e}",
                    batch.base_offset
                ))
            }
        }
    }
}

pub fn run(a: &ConsumeArgs) -> Result<(), String> {
    let bootstrap = crate::produce::split_addrs(&a.bootstrap)?;
    let from = parse_offset(&a.offset)?;
    let mut config = ConsumerConfig::new(&a.client_id, &bootstrap);
    config.isolation = match a.isolation {
        IsolationArg::ReadUncommitted => Isolation::ReadUncommitted,
        IsolationArg::ReadCommitted => Isolation::ReadCommitted,
    };
    config.reset = Reset::Earliest;
    config.sasl = a.sasl.sasl()?;
    let topics = [a.topic.as_str()];
    let consumer: C<'_> = Consumer::new(config, &topics).map_err(|e| e.to_string())?;
    let mut c = Driven::new(consumer, a.run_async)?;
    let topic = TopicId(0);
    let n = c
        .wait_ready(topic, Duration::from_secs(a.timeout))
        .map_err(|e| format!("topic {}: {e}", a.topic))?;
    let parts: Vec<i32> = if a.partition.is_empty() {
        (0..n).collect()
    } else {
        a.partition.clone()
    };
    for &p in &parts {
        if p < 0 || p >= n {
            return Err(format!("topic {} has no partition {p} ({n} partitions)", a.topic));
        }
        c.consumer_mut()
            .assign(topic, p, from)
            .map_err(|e| format!("partition {p}: {e}"))?;
    }
    let start = Instant::now();
    let mut printer = Printer {
        topic: &a.topic,
        format: a.format,
        // 128 KiB: a write system call per 128 KiB of output rather than per 8 KiB.
        out: std::io::BufWriter::with_capacity(128 << 10, std::io::stdout().lock()),
        printed: 0,
        limit: a.count.unwrap_or(u64::MAX),
        error: None,
    };
    let mut failed = Vec::new();
    loop {
        c.poll(Duration::from_millis(200), &mut |x| match x {
            Consumed::Item(Item::Record(r)) => printer.record(&r),
            Consumed::Item(Item::Compressed {
                topic,
                partition,
                from,
                batch,
            }) => printer.compressed(topic, partition, from, &batch),
            Consumed::Item(Item::TooManyAborted { partition, .. }) => {
                printer.error = Some(format!(
                    "partition {partition}: more aborted transactions open at once than tracked"
                ))
            }
            Consumed::Failed { partition, error, .. } => failed.push((partition, error)),
            _ => {}
        })
        .map_err(|e| e.to_string())?;
        if let Some(e) = printer.error.take() {
            return Err(e);
        }
        if let Some((p, e)) = failed.first() {
            return Err(format!("partition {p}: {e}"));
        }
        if printer.printed >= printer.limit {
            break;
        }
        if a.exit_at_end {
            let cons = c.consumer();
            let at_end = parts.iter().all(|&p| {
                let end = cons.end_offset(topic, p).unwrap_or(-1);
                end >= 0 && cons.position(topic, p).is_some_and(|pos| pos >= end)
            });
            if at_end {
                break;
            }
        }
    }
    printer.out.flush().map_err(|e| format!("standard output: {e}"))?;
    eprintln!(
        "kwire consume: {} records from {} partitions of {} in {:.2} s",
        printer.printed,
        parts.len(),
        a.topic,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
