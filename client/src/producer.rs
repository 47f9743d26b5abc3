//! The producer, without I/O: records in, request frames out, response frames in, delivery
//! reports out, the host's clock passed to every call.

use core::fmt;

use heapless::Vec;
use kafka_wire::conn::InFlight;
use kafka_wire::frame::{self, Mode};
use kafka_wire::messages::init_producer_id_request::InitProducerIdRequest;
use kafka_wire::messages::metadata_request::{MetadataRequest, MetadataRequestTopic};
use kafka_wire::messages::produce_request::{PartitionProduceData, ProduceRequest, TopicProduceData};
use kafka_wire::records::{encode_records, BatchBuilder, Compression, NewHeader, NewRecord, RECORD_BATCH_OVERHEAD};
use kafka_wire::EncodeError;
use kafka_wire::{ApiKey, Array, ErrorCode, Message, Uuid};

use crate::cluster::{self, encode_error, Conn, Timing};
pub use crate::cluster::{
    CloseReason, ConnEvent, ConnId, ProtocolError, Transmit, TransmitError, MAX_HOST, MAX_IN_FLIGHT,
};
use crate::partitioner::partition_for_key;
use crate::session::Session;

/// The APIs the producer speaks, with the versions it accepts (Produce from 3: magic 2 record
/// batches); `Conn::versions` holds the negotiated ones in this order.
const APIS: [(ApiKey, i16, i16); 3] = [
    (ApiKey::Produce, 3, ProduceRequest::INFO.max_version),
    (
        ApiKey::Metadata,
        MetadataRequest::INFO.min_version,
        MetadataRequest::INFO.max_version,
    ),
    (
        ApiKey::InitProducerId,
        InitProducerIdRequest::INFO.min_version,
        InitProducerIdRequest::INFO.max_version,
    ),
];
const PRODUCE: usize = 0;
const METADATA: usize = 1;
const INIT_PRODUCER_ID: usize = 2;

/// The most topics one producer writes to.
pub const MAX_TOPICS: usize = 16;

/// What the leader waits for before it answers a Produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acks {
    /// No answer: a record is reported delivered (offset -1) once its request is written.
    None,
    /// The leader's own log.
    Leader,
    /// Every in-sync replica.
    All,
}

impl Acks {
    const fn wire(self) -> i16 {
        match self {
            Acks::None => 0,
            Acks::Leader => 1,
            Acks::All => -1,
        }
    }
}

/// How a [`Producer`] behaves. Times are in milliseconds of the host's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config<'c> {
    /// The client id in every request header.
    pub client_id: &'c str,
    /// The brokers to ask first, host and port each, tried in turn until one answers (Kafka's
    /// `bootstrap.servers`). Host names are at most [`MAX_HOST`] bytes.
    pub bootstrap: &'c [(&'c str, u16)],
    /// What a Produce waits for.
    pub acks: Acks,
    /// Idempotent delivery (needs `Acks::All`): a producer id from the cluster, a sequence
    /// number on every batch, so that a retried batch is written once.
    pub idempotent: bool,
    /// How long a batch waits for more records after its first.
    pub linger_ms: u64,
    /// How long a connection may leave a request unanswered before it is closed.
    pub request_timeout_ms: u64,
    /// How long a record may wait, unsent or between retries, before it is reported failed.
    pub delivery_timeout_ms: u64,
    /// The wait before a batch is sent again after a retriable error, and between Metadata
    /// requests while a topic has no leader.
    pub retry_backoff_ms: u64,
    /// The wait before a lost connection is opened again; it doubles with each failure in a
    /// row, up to `reconnect_backoff_max_ms`.
    pub reconnect_backoff_ms: u64,
    /// The longest wait before a connection is opened again.
    pub reconnect_backoff_max_ms: u64,
    /// Requests in flight on one connection (1 to [`MAX_IN_FLIGHT`]).
    pub max_in_flight: usize,
    /// SASL credentials (feature `sasl`): every connection authenticates after ApiVersions.
    #[cfg(feature = "sasl")]
    pub sasl: Option<crate::sasl::Sasl<'c>>,
    /// The codec batches are compressed with, through the compressor given to
    /// [`Producer::with_compressor`]; a batch that does not shrink goes uncompressed.
    pub compression: Compression,
}

impl<'c> Config<'c> {
    /// Kafka's producer defaults where they apply: acks all, idempotent, linger 5 ms, request
    /// timeout 30 s, delivery timeout 120 s, retry backoff 100 ms, reconnect backoff 50 ms
    /// doubling up to 1 s, 5 requests in flight.
    pub const fn new(client_id: &'c str, bootstrap: &'c [(&'c str, u16)]) -> Self {
        Config {
            client_id,
            bootstrap,
            acks: Acks::All,
            idempotent: true,
            linger_ms: 5,
            request_timeout_ms: 30_000,
            delivery_timeout_ms: 120_000,
            retry_backoff_ms: 100,
            reconnect_backoff_ms: 50,
            reconnect_backoff_max_ms: 1000,
            max_in_flight: MAX_IN_FLIGHT,
            compression: Compression::None,
            #[cfg(feature = "sasl")]
            sasl: None,
        }
    }
}

impl Config<'_> {
    /// Whether connections authenticate.
    fn auth(&self) -> bool {
        #[cfg(feature = "sasl")]
        return self.sasl.is_some();
        #[cfg(not(feature = "sasl"))]
        false
    }

    fn timing(&self) -> Timing {
        Timing {
            request_timeout_ms: self.request_timeout_ms,
            reconnect_backoff_ms: self.reconnect_backoff_ms,
            reconnect_backoff_max_ms: self.reconnect_backoff_max_ms,
        }
    }
}

/// Compresses a batch's records section for the producer: the host's codecs (an allocator's,
/// on `std` kafka-wire-ext's; on a device, whatever fits its flash).
pub trait Compressor {
    /// `records` compressed with `codec`, in a buffer the compressor owns; `None` when it
    /// cannot (the batch goes uncompressed).
    fn compress(&mut self, codec: Compression, records: &[u8]) -> Option<&[u8]>;
}

/// A configuration the producer refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    /// Idempotence needs `Acks::All`, as in Kafka's producer.
    IdempotenceNeedsAcksAll,
    /// More topics than [`MAX_TOPICS`], or none.
    Topics,
    /// A host name longer than [`MAX_HOST`].
    HostTooLong,
    /// An empty bootstrap list.
    NoBootstrap,
    /// `max_in_flight` outside 1 to [`MAX_IN_FLIGHT`].
    MaxInFlight,
    /// Fewer than two connections (`C`): the bootstrap broker and at least one leader.
    Connections,
    /// A batch buffer (`B`) too small to hold a batch header and a record.
    BatchSize,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ConfigError::IdempotenceNeedsAcksAll => "idempotence needs acks=all",
            ConfigError::Topics => "a producer writes to 1 to 16 topics",
            ConfigError::HostTooLong => "a bootstrap host name is longer than 64 bytes",
            ConfigError::NoBootstrap => "the bootstrap list is empty",
            ConfigError::MaxInFlight => "max_in_flight must be 1 to 5",
            ConfigError::Connections => "a producer needs room for at least 2 connections",
            ConfigError::BatchSize => "the batch buffer is smaller than 128 bytes",
        })
    }
}

impl core::error::Error for ConfigError {}

/// A topic, by its place in the list given to [`Producer::new`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TopicId(pub u8);

/// A record handed to [`Producer::send`]: borrowed, encoded into a batch buffer at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record<'r> {
    /// The key; `None` is null.
    pub key: Option<&'r [u8]>,
    /// The value; `None` is null.
    pub value: Option<&'r [u8]>,
    /// The headers.
    pub headers: &'r [NewHeader<'r>],
    /// The timestamp (ms since the Unix epoch); `None` takes the `now` given to `send`.
    pub timestamp: Option<i64>,
}

impl Record<'static> {
    /// No key, no value, no headers, the time of sending.
    pub const DEFAULT: Record<'static> = Record {
        key: None,
        value: None,
        headers: &[],
        timestamp: None,
    };
}

/// Where an accepted record went: its topic, its partition and its number in that partition,
/// counted from 0 in the order of sending. Delivery reports name records by these numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordId {
    /// The topic.
    pub topic: TopicId,
    /// The partition.
    pub partition: i32,
    /// The record's number in the partition.
    pub number: u64,
}

/// Why a record was not accepted. Nothing was kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SendError {
    /// The topic's partitions are not known yet: drive the connections and send again.
    NotReady,
    /// Every batch buffer is in use: drive the connections (delivery frees buffers) and send
    /// again.
    Full,
    /// The broker reports this error for the topic (`UNKNOWN_TOPIC_OR_PARTITION`, an
    /// authorization error, ...).
    Topic(ErrorCode),
    /// A partition the topic does not have.
    NoSuchPartition {
        /// The partition asked for.
        partition: i32,
        /// The topic's partition count.
        partitions: i32,
    },
    /// More partitions are in use than the producer has room for (`P`).
    TooManyPartitions,
    /// A record that does not fit an empty batch buffer.
    TooLarge {
        /// Its encoded size.
        size: usize,
    },
    /// The record cannot be encoded (a field longer than Kafka allows).
    Encode(EncodeError),
    /// The producer failed for good: its producer id was refused.
    Fatal(ErrorCode),
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendError::NotReady => f.write_str("the topic's partitions are not known yet"),
            SendError::Full => f.write_str("every batch buffer is in use"),
            SendError::Topic(e) => write!(f, "the topic: {e}"),
            SendError::NoSuchPartition { partition, partitions } => {
                write!(f, "partition {partition} of a topic of {partitions} partitions")
            }
            SendError::TooManyPartitions => f.write_str("more partitions than the producer has room for"),
            SendError::TooLarge { size } => write!(f, "a record of {size} bytes does not fit a batch buffer"),
            SendError::Encode(e) => write!(f, "{e}"),
            SendError::Fatal(e) => write!(f, "the producer failed: {e}"),
        }
    }
}

impl core::error::Error for SendError {}

/// Why records were not delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DeliveryError {
    /// The leader refused the batch with an error that a retry does not mend.
    Broker(ErrorCode),
    /// The delivery timeout passed before the batch was acknowledged.
    Timeout,
    /// The producer id was refused: nothing more can be sent.
    Fatal(ErrorCode),
}

impl fmt::Display for DeliveryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeliveryError::Broker(e) => write!(f, "the leader refused the batch: {e}"),
            DeliveryError::Timeout => f.write_str("the delivery timeout passed"),
            DeliveryError::Fatal(e) => write!(f, "the producer failed: {e}"),
        }
    }
}

/// The outcome of `count` records of one partition, numbered `first` onward: every record
/// accepted by [`Producer::send`] is in exactly one report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// The topic.
    pub topic: TopicId,
    /// The partition.
    pub partition: i32,
    /// The number of the first record.
    pub first: u64,
    /// How many records.
    pub count: u32,
    /// The offset of the first record (record `first + i` is at that offset plus `i`; -1 when
    /// the broker does not say: acks 0, or a duplicate of a batch it already has), or why the
    /// records were not delivered.
    pub result: Result<i64, DeliveryError>,
}

/// What the producer asks of its host, from [`Producer::poll_event`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event<'p> {
    /// Open a connection to `host:port`, then call [`Producer::on_connected`] (or
    /// [`Producer::on_closed`] when it fails).
    Connect {
        /// The connection.
        conn: ConnId,
        /// The broker's host.
        host: &'p str,
        /// Its port.
        port: u16,
    },
    /// Close the connection (a timeout or a broken answer), then call [`Producer::on_closed`].
    Close {
        /// The connection.
        conn: ConnId,
        /// Why.
        why: CloseReason,
    },
    /// Records delivered or failed.
    Delivery(Delivery),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Topic {
    id: Uuid,
    partitions: i32,
    error: ErrorCode,
    sticky: i32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Part {
    topic: u8,
    index: i32,
    leader: i32,
    next_seq: i32,
    next_record: u64,
    open: Option<u16>,
    in_flight: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SlotState {
    Free,
    Open,
    Ready { not_before: u64 },
    InFlight { conn: u8, correlation_id: i32 },
    Done(Result<i64, DeliveryError>),
}

#[derive(Clone, Copy, Debug)]
struct Slot<const B: usize> {
    buf: [u8; B],
    len: usize,
    state: SlotState,
    part: u16,
    count: i32,
    first: u64,
    base_ts: i64,
    max_ts: i64,
    opened: u64,
    seq: i32,
    /// How the records section is compressed, once decided (at the first send).
    codec: Option<Compression>,
}

impl<const B: usize> Slot<B> {
    const EMPTY: Self = Slot {
        buf: [0; B],
        len: 0,
        state: SlotState::Free,
        part: 0,
        count: 0,
        first: 0,
        base_ts: 0,
        max_ts: 0,
        opened: 0,
        seq: -1,
        codec: None,
    };
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pid {
    Needed { not_before: u64 },
    InFlight,
    Have,
    Bump,
    Failed(ErrorCode),
}

/// An idempotent Kafka producer without I/O and without an allocator.
///
/// - `P`: partitions written to, over all topics;
/// - `S`: batch buffers of `B` bytes each (a batch is one partition's records, sent in one
///   request; a buffer is free again once its records are reported);
/// - `C`: connections, the bootstrap broker's and one per partition leader.
///
/// The host drives it: it opens and closes connections when [`poll_event`](Self::poll_event)
/// says, writes the frames [`poll_transmit`](Self::poll_transmit) encodes, hands every whole
/// response frame to [`on_frame`](Self::on_frame), and calls again when
/// [`next_timeout`](Self::next_timeout) comes. Every call takes the host's clock in
/// milliseconds; when it is the Unix epoch's, records default to it as their timestamp.
///
/// On each connection it negotiates versions with ApiVersions; it asks Metadata for its topics,
/// an InitProducerId for a producer id, then sends each partition's batches to its leader, one
/// batch in flight per partition (so a retry keeps the order), several partitions per request.
/// Retriable errors send the batch again with its sequence number after the backoff (leader
/// errors refresh Metadata first); sequence errors bump the producer epoch and number the
/// waiting batches again from 0; a lost connection is opened again after its backoff and its
/// batches sent again.
#[derive(Debug)]
pub struct Producer<'c, const P: usize, const S: usize, const B: usize, const C: usize> {
    config: Config<'c>,
    names: &'c [&'c str],
    topics: Vec<Topic, MAX_TOPICS>,
    parts: Vec<Part, P>,
    slots: [Slot<B>; S],
    conns: Vec<Conn, C>,
    need_metadata: bool,
    metadata_not_before: u64,
    metadata_in_flight: bool,
    pid: Pid,
    producer_id: i64,
    epoch: i16,
    /// Records accepted and not yet reported.
    pending: u64,
    /// Compresses batches when `Config::compression` asks for it.
    compressor: Option<Hook<'c>>,
}

/// The compressor the host gave.
struct Hook<'c>(&'c mut dyn Compressor);

impl fmt::Debug for Hook<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Compressor")
    }
}

impl<'c, const P: usize, const S: usize, const B: usize, const C: usize> Producer<'c, P, S, B, C> {
    /// A producer writing to `topics` (their names; [`TopicId`] `i` is `topics[i]`).
    pub fn new(config: Config<'c>, topics: &'c [&'c str]) -> Result<Self, ConfigError> {
        if config.idempotent && config.acks != Acks::All {
            return Err(ConfigError::IdempotenceNeedsAcksAll);
        }
        if topics.is_empty() || topics.len() > MAX_TOPICS {
            return Err(ConfigError::Topics);
        }
        if config.max_in_flight == 0 || config.max_in_flight > MAX_IN_FLIGHT {
            return Err(ConfigError::MaxInFlight);
        }
        if C < 2 {
            return Err(ConfigError::Connections);
        }
        if B < 128 {
            return Err(ConfigError::BatchSize);
        }
        let first = match cluster::bootstrap_conn(config.bootstrap) {
            Ok(Some(c)) => c,
            Ok(None) => return Err(ConfigError::HostTooLong),
            Err(()) => return Err(ConfigError::NoBootstrap),
        };
        let mut conns = Vec::new();
        let _ = conns.push(first);
        let mut t = Vec::new();
        for _ in topics {
            let _ = t.push(Topic {
                id: Uuid::nil(),
                partitions: -1,
                error: ErrorCode::None,
                sticky: 0,
            });
        }
        Ok(Producer {
            config,
            names: topics,
            topics: t,
            parts: Vec::new(),
            slots: [Slot::EMPTY; S],
            conns,
            need_metadata: true,
            metadata_not_before: 0,
            metadata_in_flight: false,
            compressor: None,
            pid: if config.idempotent {
                Pid::Needed { not_before: 0 }
            } else {
                Pid::Have
            },
            producer_id: -1,
            epoch: -1,
            pending: 0,
        })
    }

    /// The topic named `name`.
    pub fn topic(&self, name: &str) -> Option<TopicId> {
        self.names.iter().position(|n| *n == name).map(|i| TopicId(i as u8))
    }

    /// The topic's partition count, once Metadata has given it.
    pub fn partitions(&self, topic: TopicId) -> Option<i32> {
        self.topics
            .get(usize::from(topic.0))
            .map(|t| t.partitions)
            .filter(|&n| n > 0)
    }

    /// The error Metadata gave for the topic (`UNKNOWN_TOPIC_OR_PARTITION` for a topic that does
    /// not exist), if any.
    pub fn topic_error(&self, topic: TopicId) -> Option<ErrorCode> {
        self.topics
            .get(usize::from(topic.0))
            .map(|t| t.error)
            .filter(|e| !e.is_none())
    }

    /// Records accepted and not yet reported.
    pub fn pending(&self) -> u64 {
        self.pending
    }

    /// Compresses batches with `compressor` when [`Config::compression`] names a codec
    /// (without one, batches go uncompressed).
    pub fn with_compressor(mut self, compressor: &'c mut dyn Compressor) -> Self {
        self.compressor = Some(Hook(compressor));
        self
    }

    /// Why SASL authentication last failed, while no connection has authenticated since.
    pub fn auth_error(&self) -> Option<ErrorCode> {
        self.conns.iter().find_map(|c| c.auth_error)
    }

    /// The producer id and epoch in use (-1 before one is granted, and without idempotence).
    pub fn producer_id(&self) -> (i64, i16) {
        (self.producer_id, self.epoch)
    }

    /// Appends a record to its partition's open batch: `partition`, or for `None` the one
    /// Kafka's default partitioner picks (by the key's murmur2 hash; without a key, one
    /// partition per batch, in turn).
    pub fn send(
        &mut self,
        topic: TopicId,
        partition: Option<i32>,
        record: &Record<'_>,
        now: u64,
    ) -> Result<RecordId, SendError> {
        if let Pid::Failed(e) = self.pid {
            return Err(SendError::Fatal(e));
        }
        let ti = usize::from(topic.0);
        let Some(t) = self.topics.get(ti).copied() else {
            return Err(SendError::NotReady);
        };
        if t.partitions <= 0 {
            return Err(if t.error.is_none() || t.error.is_retriable() {
                SendError::NotReady
            } else {
                SendError::Topic(t.error)
            });
        }
        let p = match (partition, record.key) {
            (Some(p), _) => p,
            (None, Some(key)) => partition_for_key(key, t.partitions),
            (None, None) => t.sticky,
        };
        if p < 0 || p >= t.partitions {
            return Err(SendError::NoSuchPartition {
                partition: p,
                partitions: t.partitions,
            });
        }
        let pi = self.part_index(topic.0, p)?;
        let ts = record.timestamp.unwrap_or(now as i64);
        let mut rec = NewRecord {
            key: record.key,
            value: record.value,
            headers: record.headers,
            ..NewRecord::DEFAULT
        };
        // The record's size with deltas as large as they can be written is an upper bound; the
        // exact size comes from the open batch.
        let open = self.parts.get(pi).and_then(|p| p.open);
        let (base_ts, count, used) = match open.and_then(|s| self.slots.get(usize::from(s))) {
            Some(s) => (s.base_ts, s.count, s.len),
            None => (ts, 0, RECORD_BATCH_OVERHEAD),
        };
        rec.offset_delta = count;
        rec.timestamp_delta = ts.wrapping_sub(base_ts);
        let size = rec.encoded_len().map_err(SendError::Encode)?;
        let (slot, base_ts, count) = if open.is_some() && used + size <= B {
            (open.map_or(0, usize::from), base_ts, count)
        } else {
            rec.offset_delta = 0;
            rec.timestamp_delta = 0;
            let size = rec.encoded_len().map_err(SendError::Encode)?;
            if RECORD_BATCH_OVERHEAD + size > B {
                return Err(SendError::TooLarge { size });
            }
            let Some(free) = self.slots.iter().position(|s| s.state == SlotState::Free) else {
                return Err(SendError::Full);
            };
            if let Some(o) = open {
                self.seal(usize::from(o));
            }
            let next = self.parts.get(pi).map_or(0, |p| p.next_record);
            if let Some(s) = self.slots.get_mut(free) {
                s.state = SlotState::Open;
                s.len = RECORD_BATCH_OVERHEAD;
                s.part = pi as u16;
                s.count = 0;
                s.first = next;
                s.base_ts = ts;
                s.max_ts = ts;
                s.opened = now;
                s.seq = -1;
                s.codec = None;
            }
            if let Some(p) = self.parts.get_mut(pi) {
                p.open = Some(free as u16);
            }
            (free, ts, 0)
        };
        rec.offset_delta = count;
        rec.timestamp_delta = ts.wrapping_sub(base_ts);
        let Some(s) = self.slots.get_mut(slot) else {
            return Err(SendError::Full);
        };
        let mut out: &mut [u8] = s.buf.get_mut(s.len..).unwrap_or_default();
        let n = encode_records(core::slice::from_ref(&rec), &mut out).map_err(SendError::Encode)?;
        s.len += n;
        s.count += 1;
        s.max_ts = s.max_ts.max(ts);
        let number = s.first + count as u64;
        let full = B - s.len < 64;
        if let Some(p) = self.parts.get_mut(pi) {
            p.next_record += 1;
        }
        self.pending += 1;
        if full {
            self.seal(slot);
        }
        Ok(RecordId {
            topic,
            partition: p,
            number,
        })
    }

    /// Ends the linger of every open batch: they are sent as soon as their leaders allow.
    pub fn flush(&mut self) {
        for i in 0..S {
            if self.slots.get(i).is_some_and(|s| s.state == SlotState::Open) {
                self.seal(i);
            }
        }
    }

    /// The partition's place in the table (Metadata puts every partition of the topics there
    /// while `P` has room).
    fn part_index(&mut self, topic: u8, index: i32) -> Result<usize, SendError> {
        self.parts
            .iter()
            .position(|p| p.topic == topic && p.index == index)
            .ok_or(SendError::TooManyPartitions)
    }

    /// Closes an open batch to new records: it waits for its leader.
    fn seal(&mut self, slot: usize) {
        let Some(s) = self.slots.get_mut(slot) else { return };
        if s.state != SlotState::Open {
            return;
        }
        s.state = SlotState::Ready { not_before: 0 };
        let pi = usize::from(s.part);
        let Some(p) = self.parts.get_mut(pi) else { return };
        p.open = None;
        let (topic, index) = (usize::from(p.topic), p.index);
        if let Some(t) = self.topics.get_mut(topic) {
            if t.sticky == index && t.partitions > 0 {
                t.sticky = (index + 1) % t.partitions;
            }
        }
    }

    /// A connection opened: ApiVersions goes first.
    pub fn on_connected(&mut self, conn: ConnId, now: u64) {
        if let Some(c) = self.conns.get_mut(usize::from(conn.0)) {
            c.connected(now);
        }
    }

    /// A connection closed, or failed to open: its requests are answered by nothing, so its
    /// batches are sent again (keeping their sequence numbers), and it is opened again after the
    /// reconnect backoff.
    pub fn on_closed(&mut self, conn: ConnId, now: u64) {
        let ci = conn.0;
        let Some(c) = self.conns.get_mut(usize::from(ci)) else {
            return;
        };
        let lost = c.client.pending().fold((false, false), |(m, i), f| {
            (
                m || f.api_key == ApiKey::Metadata,
                i || f.api_key == ApiKey::InitProducerId,
            )
        });
        c.closed(now, self.config.timing());
        cluster::next_bootstrap(c, self.config.bootstrap);
        if lost.0 {
            self.metadata_in_flight = false;
        }
        if lost.1 && self.pid == Pid::InFlight {
            self.pid = Pid::Needed { not_before: now };
        }
        // The leader may have moved.
        self.need_metadata = true;
        let not_before = now + self.config.retry_backoff_ms;
        for s in self.slots.iter_mut() {
            if let SlotState::InFlight { conn, .. } = s.state {
                if conn == ci {
                    s.state = SlotState::Ready { not_before };
                    if let Some(p) = self.parts.get_mut(usize::from(s.part)) {
                        p.in_flight = false;
                    }
                }
            }
        }
    }

    /// The moment (host clock) by which the producer wants to be called again, if any.
    pub fn next_timeout(&self) -> Option<u64> {
        let mut t: Option<u64> = None;
        let mut at = |x: u64| t = Some(t.map_or(x, |t| t.min(x)));
        for s in &self.slots {
            match s.state {
                SlotState::Open => at(s.opened + self.config.linger_ms),
                SlotState::Ready { not_before } => {
                    // 0: due. It goes now if its leader's connection has room; otherwise it
                    // waits for an answer or a connection event, which wake the host, not for
                    // a time.
                    if not_before > 0 {
                        at(not_before);
                    } else if self.sendable(s.part) {
                        at(0);
                    }
                    at(s.opened + self.config.delivery_timeout_ms);
                }
                _ => {}
            }
        }
        cluster::next_timeout(&self.conns, self.config.timing(), &mut at);
        if self.need_metadata && !self.metadata_in_flight && self.metadata_not_before > 0 {
            at(self.metadata_not_before);
        }
        if let Pid::Needed { not_before } = self.pid {
            if not_before > 0 {
                at(not_before);
            }
        }
        t
    }

    /// Whether a due batch of partition `part` can go out now: a producer id in hand, nothing
    /// of the partition in flight, and its leader's connection with room.
    fn sendable(&self, part: u16) -> bool {
        let Some(p) = self.parts.get(usize::from(part)) else {
            return false;
        };
        self.pid == Pid::Have
            && !p.in_flight
            && p.leader >= 0
            && self
                .conns
                .iter()
                .any(|c| c.node == p.leader && c.ready(self.config.max_in_flight))
    }

    /// What falls due at `now`: lingers, timeouts, backoffs.
    fn tick(&mut self, now: u64) {
        let cfg = self.config;
        for i in 0..S {
            let Some(s) = self.slots.get(i) else { continue };
            match s.state {
                SlotState::Open if now >= s.opened + cfg.linger_ms => self.seal(i),
                SlotState::Ready { .. } if now >= s.opened + cfg.delivery_timeout_ms => {
                    let sent = s.seq >= 0;
                    self.finish(i, Err(DeliveryError::Timeout));
                    if sent && cfg.idempotent && self.pid == Pid::Have {
                        // Its sequence numbers may or may not be in the log: start afresh.
                        self.pid = Pid::Bump;
                    }
                }
                SlotState::Ready { not_before } if not_before > 0 && now >= not_before => {
                    if let Some(s) = self.slots.get_mut(i) {
                        s.state = SlotState::Ready { not_before: 0 };
                    }
                }
                _ => {}
            }
        }
        // What is due waits for a connection, not for a time (see `next_timeout`).
        if now >= self.metadata_not_before {
            self.metadata_not_before = 0;
        }
        if matches!(self.pid, Pid::Needed { not_before } if now >= not_before) {
            self.pid = Pid::Needed { not_before: 0 };
        }
        cluster::tick(&mut self.conns, now, cfg.timing());
    }

    /// Reports a batch and frees its buffer (with its report pending in `Done`).
    fn finish(&mut self, slot: usize, result: Result<i64, DeliveryError>) {
        if let Some(s) = self.slots.get_mut(slot) {
            if let Some(p) = self.parts.get_mut(usize::from(s.part)) {
                if matches!(s.state, SlotState::InFlight { .. }) {
                    p.in_flight = false;
                }
                if p.open == Some(slot as u16) {
                    p.open = None;
                }
            }
            s.state = SlotState::Done(result);
        }
    }

    /// The next thing the host must do: open or close a connection, or take a delivery report.
    pub fn poll_event(&mut self, now: u64) -> Option<Event<'_>> {
        self.tick(now);
        if let Some(ev) = cluster::poll_event(&mut self.conns, now) {
            return Some(match ev {
                ConnEvent::Connect { conn, host, port } => Event::Connect { conn, host, port },
                ConnEvent::Close { conn, why } => Event::Close { conn, why },
            });
        }
        next_delivery(&mut self.slots, &self.parts, &mut self.pending).map(Event::Delivery)
    }

    /// A ready connection, the bootstrap broker's first, with room for a request.
    fn ready_conn(&self) -> Option<usize> {
        self.conns.iter().position(|c| c.ready(self.config.max_in_flight))
    }

    /// Encodes the next request frame due into `out`: ApiVersions on a new connection, Metadata,
    /// InitProducerId, or a Produce of the batches whose leader is ready. `None` when nothing is
    /// due now.
    pub fn poll_transmit(&mut self, now: u64, out: &mut [u8]) -> Result<Option<Transmit>, TransmitError> {
        self.tick(now);
        if let Some(t) = cluster::send_api_versions(&mut self.conns, now, self.config.client_id, out)? {
            return Ok(Some(t));
        }
        #[cfg(feature = "sasl")]
        if let Some(sasl) = &self.config.sasl {
            if let Some(t) = cluster::send_auth(&mut self.conns, now, self.config.client_id, sasl, out)? {
                return Ok(Some(t));
            }
        }
        let client_id = Some(self.config.client_id);
        if self.need_metadata && !self.metadata_in_flight && now >= self.metadata_not_before {
            if let Some(ci) = self.ready_conn() {
                let mut wanted: Vec<MetadataRequestTopic<'_>, MAX_TOPICS> = Vec::new();
                for n in self.names {
                    let _ = wanted.push(MetadataRequestTopic {
                        name: Some(n),
                        ..MetadataRequestTopic::DEFAULT
                    });
                }
                let req = MetadataRequest {
                    topics: Some(Array::from_slice(&wanted)),
                    allow_auto_topic_creation: false,
                    ..MetadataRequest::DEFAULT
                };
                let Some(c) = self.conns.get_mut(ci) else {
                    return Ok(None);
                };
                let v = c.versions[METADATA];
                c.sending(now);
                let sent = c.client.send(&req, v, client_id, out).map_err(encode_error)?;
                self.metadata_in_flight = true;
                self.need_metadata = false;
                return Ok(Some(Transmit {
                    conn: ConnId(ci as u8),
                    len: sent.len,
                }));
            }
        }
        let bump_ready = self.pid == Pid::Bump
            && !self
                .conns
                .iter()
                .any(|c| c.client.pending().any(|f| f.api_key == ApiKey::Produce));
        let needed = matches!(self.pid, Pid::Needed { not_before } if now >= not_before);
        if needed || bump_ready {
            if let Some(ci) = self.ready_conn() {
                let Some(c) = self.conns.get_mut(ci) else {
                    return Ok(None);
                };
                let v = c.versions[INIT_PRODUCER_ID];
                // Version 3 onward bumps the epoch of the id it is given; before, a new id.
                let (producer_id, producer_epoch) = if bump_ready && v >= 3 {
                    (self.producer_id, self.epoch)
                } else {
                    (-1, -1)
                };
                let req = InitProducerIdRequest {
                    transactional_id: None,
                    transaction_timeout_ms: i32::MAX,
                    producer_id,
                    producer_epoch,
                    ..InitProducerIdRequest::DEFAULT
                };
                c.sending(now);
                let sent = c.client.send(&req, v, client_id, out).map_err(encode_error)?;
                self.pid = Pid::InFlight;
                return Ok(Some(Transmit {
                    conn: ConnId(ci as u8),
                    len: sent.len,
                }));
            }
        }
        if self.pid != Pid::Have {
            return Ok(None);
        }
        for ci in 0..self.conns.len() {
            if let Some(t) = self.produce(ci, now, out)? {
                return Ok(Some(t));
            }
        }
        Ok(None)
    }

    /// A Produce on connection `ci` of the oldest ready batch of each partition it leads, as many
    /// as fit `out`.
    fn produce(&mut self, ci: usize, now: u64, out: &mut [u8]) -> Result<Option<Transmit>, TransmitError> {
        let Some(c) = self.conns.get(ci) else { return Ok(None) };
        if !c.ready(self.config.max_in_flight) {
            return Ok(None);
        }
        let node = c.node;
        let v = c.versions[PRODUCE];
        // The oldest ready batch of each partition led by this broker with nothing in flight.
        let mut chosen: Vec<u16, S> = Vec::new();
        let mut room = out.len().saturating_sub(128);
        for (pi, p) in self.parts.iter().enumerate() {
            if p.leader != node || node < 0 || p.in_flight {
                continue;
            }
            let oldest = self
                .slots
                .iter()
                .enumerate()
                .filter(|(_, s)| s.part as usize == pi && matches!(s.state, SlotState::Ready { .. }))
                .min_by_key(|(_, s)| s.first);
            if let Some((si, s)) = oldest {
                let due = matches!(s.state, SlotState::Ready { not_before } if now >= not_before);
                let need = s.len + 64;
                if due && need <= room {
                    room -= need;
                    let _ = chosen.push(si as u16);
                }
            }
        }
        if chosen.is_empty() {
            return Ok(None);
        }
        // Sequence numbers and the batch headers.
        let (pid, epoch, idempotent) = (self.producer_id, self.epoch, self.config.idempotent);
        for &si in &chosen {
            let Some(s) = self.slots.get_mut(usize::from(si)) else {
                continue;
            };
            let Some(p) = self.parts.get_mut(usize::from(s.part)) else {
                continue;
            };
            if idempotent && s.seq < 0 {
                s.seq = p.next_seq;
                p.next_seq = next_sequence(p.next_seq, s.count);
            }
            let header = BatchBuilder {
                base_timestamp: s.base_ts,
                max_timestamp: Some(s.max_ts),
                producer_id: if idempotent { pid } else { -1 },
                producer_epoch: if idempotent { epoch } else { -1 },
                base_sequence: if idempotent { s.seq } else { -1 },
                ..BatchBuilder::DEFAULT
            };
            if s.codec.is_none() {
                s.codec = Some(Compression::None);
                let codec = self.config.compression;
                if let (false, Some(c)) = (codec == Compression::None, self.compressor.as_mut()) {
                    let records = s.buf.get(RECORD_BATCH_OVERHEAD..s.len).unwrap_or_default();
                    // Kept only when smaller; otherwise the batch goes uncompressed.
                    if let Some(z) = c.0.compress(codec, records).filter(|z| z.len() < records.len()) {
                        let end = RECORD_BATCH_OVERHEAD + z.len();
                        if let Some(dst) = s.buf.get_mut(RECORD_BATCH_OVERHEAD..end) {
                            dst.copy_from_slice(z);
                            s.len = end;
                            s.codec = Some(codec);
                        }
                    }
                }
            }
            let len = s.len;
            if let Some(b) = s.buf.get_mut(..len) {
                header
                    .seal_in_place(b, s.codec.unwrap_or(Compression::None), s.count)
                    .map_err(TransmitError::Encode)?;
            }
        }
        // By topic, then partition (an insertion sort: a few batches, little code).
        let order = |si: u16| {
            self.slots
                .get(usize::from(si))
                .and_then(|s| self.parts.get(usize::from(s.part)))
                .map_or((0, 0), |p| (p.topic, p.index))
        };
        for i in 1..chosen.len() {
            let mut j = i;
            while j > 0 && order(chosen[j - 1]) > order(chosen[j]) {
                chosen.swap(j - 1, j);
                j -= 1;
            }
        }
        let acks = self.config.acks;
        let sent = {
            let mut parts: Vec<PartitionProduceData<'_>, S> = Vec::new();
            let mut topics: Vec<(u8, usize, usize), MAX_TOPICS> = Vec::new();
            for &si in &chosen {
                let Some(s) = self.slots.get(usize::from(si)) else {
                    continue;
                };
                let Some(p) = self.parts.get(usize::from(s.part)) else {
                    continue;
                };
                let _ = parts.push(PartitionProduceData {
                    index: p.index,
                    records: s.buf.get(..s.len),
                    ..PartitionProduceData::DEFAULT
                });
                match topics.last_mut() {
                    Some((t, _, end)) if *t == p.topic => *end += 1,
                    _ => {
                        let _ = topics.push((p.topic, parts.len() - 1, parts.len()));
                    }
                }
            }
            // Version 13 names topics by id; a topic whose id is not known goes at version 12.
            let by_id = topics
                .iter()
                .all(|(t, _, _)| self.topics.get(usize::from(*t)).is_some_and(|t| !t.id.is_nil()));
            let v = if by_id { v } else { v.min(12) };
            let mut data: Vec<TopicProduceData<'_>, MAX_TOPICS> = Vec::new();
            for &(t, start, end) in &topics {
                let _ = data.push(TopicProduceData {
                    name: self.names.get(usize::from(t)).copied().unwrap_or(""),
                    topic_id: self.topics.get(usize::from(t)).map_or(Uuid::nil(), |t| t.id),
                    partition_data: Array::from_slice(parts.get(start..end).unwrap_or_default()),
                    ..TopicProduceData::DEFAULT
                });
            }
            let req = ProduceRequest {
                transactional_id: None,
                acks: acks.wire(),
                timeout_ms: i32::try_from(self.config.request_timeout_ms).unwrap_or(i32::MAX),
                topic_data: Array::from_slice(&data),
                ..ProduceRequest::DEFAULT
            };
            let client_id = Some(self.config.client_id);
            let Some(c) = self.conns.get_mut(ci) else {
                return Ok(None);
            };
            c.sending(now);
            if acks == Acks::None {
                c.client.send_unanswered(&req, v, client_id, out)
            } else {
                c.client.send(&req, v, client_id, out)
            }
            .map_err(encode_error)?
        };
        for &si in &chosen {
            let si = usize::from(si);
            if acks == Acks::None {
                self.finish(si, Ok(-1));
                continue;
            }
            if let Some(s) = self.slots.get_mut(si) {
                s.state = SlotState::InFlight {
                    conn: ci as u8,
                    correlation_id: sent.correlation_id,
                };
                if let Some(p) = self.parts.get_mut(usize::from(s.part)) {
                    p.in_flight = true;
                }
            }
        }
        Ok(Some(Transmit {
            conn: ConnId(ci as u8),
            len: sent.len,
        }))
    }

    /// A whole response frame (size prefix included) read on `conn`. An answer that breaks the
    /// protocol is returned as the error, and the connection is to be closed (an
    /// [`Event::Close`] follows).
    pub fn on_frame(&mut self, conn: ConnId, frame: &[u8], now: u64) -> Result<(), ProtocolError> {
        let r = self.handle(usize::from(conn.0), frame, now);
        if let Err(e) = r {
            if let Some(c) = self.conns.get_mut(usize::from(conn.0)) {
                c.close = Some(CloseReason::Protocol(e));
            }
        }
        r
    }

    fn handle(&mut self, ci: usize, frame: &[u8], now: u64) -> Result<(), ProtocolError> {
        #[cfg(feature = "sasl")]
        let sasl = self.config.sasl;
        let Some(c) = self.conns.get_mut(ci) else {
            return Ok(());
        };
        let f = c.client.answered(frame).map_err(ProtocolError::Client)?;
        c.progress = now;
        c.failures = 0;
        match f.api_key {
            ApiKey::ApiVersions => self.on_api_versions(ci, f, frame),
            ApiKey::Metadata => self.on_metadata(ci, f, frame, now),
            ApiKey::InitProducerId => self.on_init_producer_id(ci, f, frame, now),
            ApiKey::Produce => self.on_produce(ci, f, frame, now),
            #[cfg(feature = "sasl")]
            ApiKey::SaslHandshake | ApiKey::SaslAuthenticate => match sasl {
                Some(s) => cluster::on_auth(c, f, frame, &s),
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }

    fn on_api_versions(&mut self, ci: usize, f: InFlight, frame: &[u8]) -> Result<(), ProtocolError> {
        let auth = self.config.auth();
        match self.conns.get_mut(ci) {
            Some(c) => cluster::negotiate(c, f, frame, &APIS, auth),
            None => Ok(()),
        }
    }

    fn on_metadata(&mut self, ci: usize, f: InFlight, frame: &[u8], now: u64) -> Result<(), ProtocolError> {
        self.metadata_in_flight = false;
        let answer = frame::parse_response_frame_to::<MetadataRequest<'_>>(frame, f.version, Mode::Lenient)
            .map_err(ProtocolError::Decode)?;
        let body = &answer.body;
        cluster::throttle(&mut self.conns, ci, now, body.throttle_time_ms);
        let mut again = false;
        for t in body.topics.iter() {
            let Some(ti) = t.name.and_then(|n| self.names.iter().position(|m| *m == n)) else {
                continue;
            };
            let Some(topic) = self.topics.get_mut(ti) else { continue };
            topic.error = ErrorCode::from_code(t.error_code);
            if !topic.error.is_none() {
                again |= topic.error.is_retriable();
                continue;
            }
            topic.id = t.topic_id;
            topic.partitions = t.partitions.len() as i32;
            if topic.sticky >= topic.partitions {
                topic.sticky = 0;
            }
            for p in t.partitions.iter() {
                let leader = if ErrorCode::from_code(p.error_code).is_none() {
                    p.leader_id
                } else {
                    -1
                };
                match self
                    .parts
                    .iter_mut()
                    .find(|part| usize::from(part.topic) == ti && part.index == p.partition_index)
                {
                    Some(part) => part.leader = leader,
                    // Every partition of the topic, while there is room: a record for any of
                    // them goes out without asking Metadata again.
                    None => {
                        let _ = self.parts.push(Part {
                            topic: ti as u8,
                            index: p.partition_index,
                            leader,
                            next_seq: 0,
                            next_record: 0,
                            open: None,
                            in_flight: false,
                        });
                    }
                }
            }
        }
        cluster::adopt_bootstrap(&mut self.conns, &body.brokers);
        // A connection to each leader of a partition in use.
        for pi in 0..self.parts.len() {
            let Some(leader) = self.parts.get(pi).map(|p| p.leader) else {
                continue;
            };
            if leader < 0 {
                again = true;
                continue;
            }
            // Without room for another connection the partition waits, and Metadata is asked
            // again, until a connection is free.
            again |= !cluster::want_leader(&mut self.conns, leader, &body.brokers);
        }
        if again {
            self.need_metadata = true;
            self.metadata_not_before = now + self.config.retry_backoff_ms;
        }
        Ok(())
    }

    fn on_init_producer_id(&mut self, ci: usize, f: InFlight, frame: &[u8], now: u64) -> Result<(), ProtocolError> {
        let answer = frame::parse_response_frame_to::<InitProducerIdRequest<'_>>(frame, f.version, Mode::Lenient)
            .map_err(ProtocolError::Decode)?;
        cluster::throttle(&mut self.conns, ci, now, answer.body.throttle_time_ms);
        let e = ErrorCode::from_code(answer.body.error_code);
        if e.is_none() {
            self.producer_id = answer.body.producer_id;
            self.epoch = answer.body.producer_epoch;
            self.pid = Pid::Have;
            // A new id or epoch numbers every partition from 0 again; batches not yet
            // acknowledged take new numbers when they are sent.
            for p in self.parts.iter_mut() {
                p.next_seq = 0;
            }
            for s in self.slots.iter_mut() {
                if matches!(s.state, SlotState::Ready { .. }) {
                    s.seq = -1;
                }
            }
        } else if e.is_retriable() || e == ErrorCode::CoordinatorLoadInProgress {
            self.pid = Pid::Needed {
                not_before: now + self.config.retry_backoff_ms,
            };
        } else {
            self.pid = Pid::Failed(e);
            for i in 0..S {
                if self
                    .slots
                    .get(i)
                    .is_some_and(|s| matches!(s.state, SlotState::Open | SlotState::Ready { .. }))
                {
                    self.finish(i, Err(DeliveryError::Fatal(e)));
                }
            }
        }
        Ok(())
    }

    fn on_produce(&mut self, ci: usize, f: InFlight, frame: &[u8], now: u64) -> Result<(), ProtocolError> {
        let answer = frame::parse_response_frame_to::<ProduceRequest<'_>>(frame, f.version, Mode::Lenient)
            .map_err(ProtocolError::Decode)?;
        cluster::throttle(&mut self.conns, ci, now, answer.body.throttle_time_ms);
        let id = f.correlation_id;
        let retry_at = now + self.config.retry_backoff_ms;
        for t in answer.body.responses.iter() {
            let ti = if t.topic_id.is_nil() {
                self.names.iter().position(|n| *n == t.name)
            } else {
                self.topics.iter().position(|x| x.id == t.topic_id)
            };
            let Some(ti) = ti else { continue };
            for p in t.partition_responses.iter() {
                let slot = self.slots.iter().position(|s| {
                    s.state
                        == SlotState::InFlight {
                            conn: ci as u8,
                            correlation_id: id,
                        }
                        && self
                            .parts
                            .get(usize::from(s.part))
                            .is_some_and(|x| usize::from(x.topic) == ti && x.index == p.index)
                });
                let Some(si) = slot else { continue };
                let e = ErrorCode::from_code(p.error_code);
                self.on_partition_result(si, e, p.base_offset, retry_at);
            }
        }
        // A batch the answer does not mention is sent again.
        for si in 0..S {
            if self.slots.get(si).is_some_and(|s| {
                s.state
                    == SlotState::InFlight {
                        conn: ci as u8,
                        correlation_id: id,
                    }
            }) {
                self.on_partition_result(si, ErrorCode::NetworkException, -1, retry_at);
            }
        }
        Ok(())
    }

    fn on_partition_result(&mut self, si: usize, e: ErrorCode, base_offset: i64, retry_at: u64) {
        match e {
            ErrorCode::None | ErrorCode::DuplicateSequenceNumber => {
                let offset = if e.is_none() { base_offset } else { -1 };
                self.finish(si, Ok(offset));
            }
            ErrorCode::OutOfOrderSequenceNumber | ErrorCode::UnknownProducerId | ErrorCode::InvalidProducerEpoch
                if self.config.idempotent =>
            {
                // Kafka's producer bumps the epoch and numbers the batches again.
                if self.pid == Pid::Have {
                    self.pid = Pid::Bump;
                }
                self.retry(si, retry_at);
            }
            e if e.is_retriable() => {
                if matches!(
                    e,
                    ErrorCode::NotLeaderOrFollower | ErrorCode::LeaderNotAvailable | ErrorCode::UnknownTopicOrPartition
                ) {
                    self.need_metadata = true;
                }
                self.retry(si, retry_at);
            }
            e => {
                let sent = self.slots.get(si).is_some_and(|s| s.seq >= 0);
                self.finish(si, Err(DeliveryError::Broker(e)));
                if sent && self.config.idempotent && self.pid == Pid::Have {
                    self.pid = Pid::Bump;
                }
            }
        }
    }

    fn retry(&mut self, si: usize, not_before: u64) {
        if let Some(s) = self.slots.get_mut(si) {
            s.state = SlotState::Ready { not_before };
            if let Some(p) = self.parts.get_mut(usize::from(s.part)) {
                p.in_flight = false;
            }
        }
    }
}

/// A delivery report waiting to be taken; its batch buffer is free again.
fn next_delivery<const B: usize, const P: usize>(
    slots: &mut [Slot<B>],
    parts: &Vec<Part, P>,
    pending: &mut u64,
) -> Option<Delivery> {
    let s = slots.iter_mut().find(|s| matches!(s.state, SlotState::Done(_)))?;
    let SlotState::Done(result) = s.state else { return None };
    s.state = SlotState::Free;
    s.len = 0;
    let p = parts.get(usize::from(s.part))?;
    *pending = pending.saturating_sub(s.count as u64);
    Some(Delivery {
        topic: TopicId(p.topic),
        partition: p.index,
        first: s.first,
        count: s.count as u32,
        result,
    })
}

/// The sequence number after `count` records from `seq`: Kafka's sequence numbers wrap from
/// `i32::MAX` to 0.
fn next_sequence(seq: i32, count: i32) -> i32 {
    let n = i64::from(seq) + i64::from(count);
    if n > i64::from(i32::MAX) {
        (n - i64::from(i32::MAX) - 1) as i32
    } else {
        n as i32
    }
}

impl<const P: usize, const S: usize, const B: usize, const C: usize> Session for Producer<'_, P, S, B, C> {
    type Output<'f> = Delivery;

    fn poll_conn(&mut self, now: u64, on: &mut impl FnMut(Delivery)) -> Option<ConnEvent<'_>> {
        self.tick(now);
        while let Some(d) = next_delivery(&mut self.slots, &self.parts, &mut self.pending) {
            on(d);
        }
        cluster::poll_event(&mut self.conns, now)
    }

    fn poll_transmit(&mut self, now: u64, out: &mut [u8]) -> Result<Option<Transmit>, TransmitError> {
        Producer::poll_transmit(self, now, out)
    }

    fn on_frame(
        &mut self,
        conn: ConnId,
        frame: &[u8],
        now: u64,
        _: &mut impl FnMut(Delivery),
    ) -> Result<(), ProtocolError> {
        Producer::on_frame(self, conn, frame, now)
    }

    fn on_connected(&mut self, conn: ConnId, now: u64) {
        Producer::on_connected(self, conn, now)
    }

    fn on_closed(&mut self, conn: ConnId, now: u64) {
        Producer::on_closed(self, conn, now)
    }

    fn next_timeout(&self) -> Option<u64> {
        Producer::next_timeout(self)
    }
}
