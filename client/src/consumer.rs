//! The consumer, without I/O: assigned partitions and their positions, ListOffsets and Fetch
//! requests out, answers in, records out as views into the host's answer frame.

use core::fmt;

use heapless::Vec;
use kafka_wire::conn::InFlight;
use kafka_wire::frame::{self, Mode};
use kafka_wire::messages::fetch_request::{FetchPartition, FetchRequest, FetchTopic};
use kafka_wire::messages::fetch_response::AbortedTransaction;
use kafka_wire::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic};
use kafka_wire::messages::metadata_request::{MetadataRequest, MetadataRequestTopic};
use kafka_wire::records::{Batch, Batches, Headers, RecordBatch, RecordIter, TimestampType};
use kafka_wire::{ApiKey, Array, ErrorCode, Message, Uuid};

use crate::cluster::{self, encode_error, Conn, ConnEvent, Timing};
use crate::cluster::{CloseReason, ConnId, ProtocolError, Transmit, TransmitError};
use crate::producer::{TopicId, MAX_TOPICS};
use crate::session::Session;

/// The APIs the consumer speaks, with the versions it accepts (Fetch from 4: magic 2 record
/// batches and the last stable offset; ListOffsets from 1: one offset per partition).
const APIS: [(ApiKey, i16, i16); 3] = [
    (
        ApiKey::Metadata,
        MetadataRequest::INFO.min_version,
        MetadataRequest::INFO.max_version,
    ),
    (ApiKey::ListOffsets, 1, ListOffsetsRequest::INFO.max_version),
    (ApiKey::Fetch, 4, FetchRequest::INFO.max_version),
];
const METADATA: usize = 0;
const LIST_OFFSETS: usize = 1;
const FETCH: usize = 2;

/// Which records a Fetch returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// Every record written, committed or not.
    ReadUncommitted,
    /// Records of committed transactions and outside transactions, up to the last stable
    /// offset; records of aborted transactions are left out.
    ReadCommitted,
}

impl Isolation {
    const fn wire(self) -> i8 {
        match self {
            Isolation::ReadUncommitted => 0,
            Isolation::ReadCommitted => 1,
        }
    }
}

/// Where a partition's reading starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offset {
    /// The oldest record the log holds.
    Earliest,
    /// After the newest record (the last stable offset under `ReadCommitted`): new records only.
    Latest,
    /// This offset.
    At(i64),
    /// The first record whose timestamp is at or after this one (ms since the Unix epoch); the
    /// end of the log when there is none.
    Timestamp(i64),
}

/// What to do when a position is out of the log's range (`OFFSET_OUT_OF_RANGE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reset {
    /// Go to the oldest record.
    Earliest,
    /// Go to the end.
    Latest,
    /// Stop reading the partition and report it ([`Event::Failed`]).
    Fail,
}

/// How a [`Consumer`] behaves. Times are in milliseconds of the host's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConsumerConfig<'c> {
    /// The client id in every request header.
    pub client_id: &'c str,
    /// The brokers to ask first, host and port each, tried in turn until one answers (Kafka's
    /// `bootstrap.servers`). Host names are at most [`MAX_HOST`](crate::MAX_HOST) bytes.
    pub bootstrap: &'c [(&'c str, u16)],
    /// Which records a Fetch returns.
    pub isolation: Isolation,
    /// What to do when a position is out of range.
    pub reset: Reset,
    /// How long the broker may hold a Fetch for `min_bytes` to arrive.
    pub max_wait_ms: i32,
    /// The bytes a Fetch waits for.
    pub min_bytes: i32,
    /// The most bytes of records one Fetch answer may hold (keep it below the host's frame
    /// buffer; the broker may exceed it by one batch to make progress).
    pub max_bytes: i32,
    /// The most bytes of records per partition in one answer (likewise).
    pub partition_max_bytes: i32,
    /// How long a connection may leave a request unanswered (beyond `max_wait_ms` for a
    /// Fetch) before it is closed.
    pub request_timeout_ms: u64,
    /// The wait before a partition is asked again after a retriable error.
    pub retry_backoff_ms: u64,
    /// The wait before a lost connection is opened again; it doubles with each failure in a
    /// row, up to `reconnect_backoff_max_ms`.
    pub reconnect_backoff_ms: u64,
    /// The longest wait before a connection is opened again.
    pub reconnect_backoff_max_ms: u64,
    /// SASL credentials (feature `sasl`): every connection authenticates after ApiVersions.
    #[cfg(feature = "sasl")]
    pub sasl: Option<crate::sasl::Sasl<'c>>,
}

impl<'c> ConsumerConfig<'c> {
    /// Kafka's consumer defaults where they apply: read uncommitted, reset to the latest
    /// offset, Fetch waits 500 ms for 1 byte, request timeout 30 s, retry backoff 100 ms,
    /// reconnect backoff 50 ms doubling up to 1 s; answers of at most 1 MiB (Kafka's per
    /// partition default, and a buffer a small host can hold).
    pub const fn new(client_id: &'c str, bootstrap: &'c [(&'c str, u16)]) -> Self {
        ConsumerConfig {
            client_id,
            bootstrap,
            isolation: Isolation::ReadUncommitted,
            reset: Reset::Latest,
            max_wait_ms: 500,
            min_bytes: 1,
            max_bytes: 1 << 20,
            partition_max_bytes: 1 << 20,
            request_timeout_ms: 30_000,
            retry_backoff_ms: 100,
            reconnect_backoff_ms: 50,
            reconnect_backoff_max_ms: 1000,
            #[cfg(feature = "sasl")]
            sasl: None,
        }
    }

    /// Whether connections authenticate.
    fn auth(&self) -> bool {
        #[cfg(feature = "sasl")]
        return self.sasl.is_some();
        #[cfg(not(feature = "sasl"))]
        false
    }

    fn timing(&self) -> Timing {
        Timing {
            request_timeout_ms: self.request_timeout_ms.saturating_add(self.max_wait_ms.max(0) as u64),
            reconnect_backoff_ms: self.reconnect_backoff_ms,
            reconnect_backoff_max_ms: self.reconnect_backoff_max_ms,
        }
    }
}

/// A configuration or an assignment the consumer refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConsumerError {
    /// More topics than [`MAX_TOPICS`], or none.
    Topics,
    /// A host name longer than [`MAX_HOST`](crate::MAX_HOST).
    HostTooLong,
    /// An empty bootstrap list.
    NoBootstrap,
    /// Fewer than two connections (`C`): the bootstrap broker and at least one leader.
    Connections,
    /// A topic the consumer was not given.
    NoSuchTopic,
    /// More partitions assigned than the consumer has room for (`P`).
    TooManyPartitions,
}

impl fmt::Display for ConsumerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ConsumerError::Topics => "a consumer reads 1 to 16 topics",
            ConsumerError::HostTooLong => "a bootstrap host name is longer than 64 bytes",
            ConsumerError::NoBootstrap => "the bootstrap list is empty",
            ConsumerError::Connections => "a consumer needs room for at least 2 connections",
            ConsumerError::NoSuchTopic => "a topic the consumer was not given",
            ConsumerError::TooManyPartitions => "more partitions than the consumer has room for",
        })
    }
}

impl core::error::Error for ConsumerError {}

/// What the consumer asks of its host, from [`Consumer::poll_event`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event<'p> {
    /// Open a connection to `host:port`, then call [`Consumer::on_connected`] (or
    /// [`Consumer::on_closed`] when it fails).
    Connect {
        /// The connection.
        conn: ConnId,
        /// The broker's host.
        host: &'p str,
        /// Its port.
        port: u16,
    },
    /// Close the connection (a timeout or a broken answer), then call [`Consumer::on_closed`].
    Close {
        /// The connection.
        conn: ConnId,
        /// Why.
        why: CloseReason,
    },
    /// A partition stopped with an error that a retry does not mend (an authorization error,
    /// a partition the topic does not have, an offset out of range under [`Reset::Fail`]).
    /// [`Consumer::seek`] starts it again.
    Failed {
        /// The topic.
        topic: TopicId,
        /// The partition.
        partition: i32,
        /// Why.
        error: ErrorCode,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Its position is to be asked with ListOffsets.
    Resolve(Offset),
    /// ListOffsets in flight on this connection.
    Resolving(u8),
    Fetch,
    /// Fetch in flight on this connection.
    Fetching(u8),
    Failed {
        error: ErrorCode,
        reported: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Part {
    topic: u8,
    index: i32,
    leader: i32,
    leader_epoch: i32,
    state: State,
    position: i64,
    not_before: u64,
    end: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Topic {
    id: Uuid,
    partitions: i32,
    error: ErrorCode,
}

/// A Kafka consumer of assigned partitions, without I/O and without an allocator.
///
/// - `P`: partitions assigned, over all topics;
/// - `C`: connections, the bootstrap broker's and one per partition leader.
///
/// The host drives it as it drives a [`Producer`](crate::Producer): it opens and closes
/// connections when [`poll_event`](Self::poll_event) says, writes the frames
/// [`poll_transmit`](Self::poll_transmit) encodes, and hands every whole response frame to
/// [`on_frame`](Self::on_frame), which returns the records of a Fetch answer as views into that
/// frame.
///
/// On each connection it negotiates versions with ApiVersions; it asks Metadata for its topics,
/// ListOffsets for a partition whose start is not an offset, then Fetch from each leader: one
/// Fetch in flight per connection, for every partition that broker leads. Leader errors refresh
/// Metadata and fetch again after the retry backoff; an offset out of range follows
/// [`Reset`]; a lost connection is opened again after its backoff. Fetch answers are checked
/// (batch CRCs included) before any position moves: an answer that does not check closes the
/// connection, and the same records are fetched again.
#[derive(Debug)]
pub struct Consumer<'c, const P: usize, const C: usize> {
    config: ConsumerConfig<'c>,
    names: &'c [&'c str],
    topics: Vec<Topic, MAX_TOPICS>,
    parts: Vec<Part, P>,
    conns: Vec<Conn, C>,
    need_metadata: bool,
    metadata_not_before: u64,
    metadata_in_flight: bool,
}

impl<'c, const P: usize, const C: usize> Consumer<'c, P, C> {
    /// A consumer of `topics` (their names; [`TopicId`] `i` is `topics[i]`). Nothing is read
    /// until partitions are assigned; Metadata is asked at once, so that
    /// [`partitions`](Self::partitions) can tell what there is to assign.
    pub fn new(config: ConsumerConfig<'c>, topics: &'c [&'c str]) -> Result<Self, ConsumerError> {
        if topics.is_empty() || topics.len() > MAX_TOPICS {
            return Err(ConsumerError::Topics);
        }
        if C < 2 {
            return Err(ConsumerError::Connections);
        }
        let first = match cluster::bootstrap_conn(config.bootstrap) {
            Ok(Some(c)) => c,
            Ok(None) => return Err(ConsumerError::HostTooLong),
            Err(()) => return Err(ConsumerError::NoBootstrap),
        };
        let mut conns = Vec::new();
        let _ = conns.push(first);
        let mut t = Vec::new();
        for _ in topics {
            let _ = t.push(Topic {
                id: Uuid::nil(),
                partitions: -1,
                error: ErrorCode::None,
            });
        }
        Ok(Consumer {
            config,
            names: topics,
            topics: t,
            parts: Vec::new(),
            conns,
            need_metadata: true,
            metadata_not_before: 0,
            metadata_in_flight: false,
        })
    }

    /// The id of a topic given to [`new`](Self::new).
    pub fn topic(&self, name: &str) -> Option<TopicId> {
        self.names.iter().position(|n| *n == name).map(|i| TopicId(i as u8))
    }

    /// The topic's partition count, once Metadata has told it.
    pub fn partitions(&self, topic: TopicId) -> Option<i32> {
        self.topics
            .get(usize::from(topic.0))
            .map(|t| t.partitions)
            .filter(|n| *n >= 0)
    }

    /// The error Metadata last gave for the topic, if any.
    pub fn topic_error(&self, topic: TopicId) -> Option<ErrorCode> {
        self.topics
            .get(usize::from(topic.0))
            .map(|t| t.error)
            .filter(|e| !e.is_none())
    }

    /// Why SASL authentication last failed, while no connection has authenticated since.
    pub fn auth_error(&self) -> Option<ErrorCode> {
        self.conns.iter().find_map(|c| c.auth_error)
    }

    /// Reads a partition from `from` (or moves an assigned one there).
    pub fn assign(&mut self, topic: TopicId, partition: i32, from: Offset) -> Result<(), ConsumerError> {
        if usize::from(topic.0) >= self.names.len() {
            return Err(ConsumerError::NoSuchTopic);
        }
        if self.part(topic, partition).is_none() {
            self.parts
                .push(Part {
                    topic: topic.0,
                    index: partition,
                    leader: -1,
                    leader_epoch: -1,
                    state: State::Fetch,
                    position: 0,
                    not_before: 0,
                    end: -1,
                })
                .map_err(|_| ConsumerError::TooManyPartitions)?;
            self.need_metadata = true;
        }
        self.seek(topic, partition, from);
        Ok(())
    }

    /// Moves an assigned partition's position; a Fetch in flight for it is answered for
    /// nothing. `false` when the partition is not assigned.
    pub fn seek(&mut self, topic: TopicId, partition: i32, to: Offset) -> bool {
        let Some(p) = self.part(topic, partition).and_then(|i| self.parts.get_mut(i)) else {
            return false;
        };
        p.state = match to {
            Offset::At(o) => {
                p.position = o;
                State::Fetch
            }
            o => State::Resolve(o),
        };
        p.not_before = 0;
        true
    }

    /// The offset of the next record a partition yields, once known.
    pub fn position(&self, topic: TopicId, partition: i32) -> Option<i64> {
        let p = self.parts.get(self.part(topic, partition)?)?;
        matches!(p.state, State::Fetch | State::Fetching(_)).then_some(p.position)
    }

    /// Where the partition's readable records ended at the last Fetch answer (-1 before
    /// one): the high watermark, or under `ReadCommitted` the last stable offset. A partition
    /// whose position has reached it has been read to its end.
    pub fn end_offset(&self, topic: TopicId, partition: i32) -> Option<i64> {
        Some(self.parts.get(self.part(topic, partition)?)?.end)
    }

    fn part(&self, topic: TopicId, partition: i32) -> Option<usize> {
        self.parts
            .iter()
            .position(|p| p.topic == topic.0 && p.index == partition)
    }

    /// A connection opened: ApiVersions goes first.
    pub fn on_connected(&mut self, conn: ConnId, now: u64) {
        if let Some(c) = self.conns.get_mut(usize::from(conn.0)) {
            c.connected(now);
        }
    }

    /// A connection closed, or failed to open: what was asked on it is asked again, and it is
    /// opened again after the reconnect backoff.
    pub fn on_closed(&mut self, conn: ConnId, now: u64) {
        let ci = usize::from(conn.0);
        let Some(c) = self.conns.get_mut(ci) else {
            return;
        };
        if c.client.pending().any(|f| f.api_key == ApiKey::Metadata) {
            self.metadata_in_flight = false;
        }
        c.closed(now, self.config.timing());
        cluster::next_bootstrap(c, self.config.bootstrap);
        self.need_metadata = true;
        let not_before = now + self.config.retry_backoff_ms;
        for p in self.parts.iter_mut() {
            match p.state {
                State::Resolving(c) if usize::from(c) == ci => p.state = State::Resolve(asked(p.position)),
                State::Fetching(c) if usize::from(c) == ci => p.state = State::Fetch,
                _ => continue,
            }
            p.not_before = not_before;
        }
    }

    /// The moment (host clock) by which the consumer wants to be called again, if any.
    pub fn next_timeout(&self) -> Option<u64> {
        let mut t: Option<u64> = None;
        let mut at = |x: u64| t = Some(t.map_or(x, |t| t.min(x)));
        for p in &self.parts {
            if matches!(p.state, State::Resolve(_) | State::Fetch) && p.not_before > 0 {
                at(p.not_before);
            }
        }
        cluster::next_timeout(&self.conns, self.config.timing(), &mut at);
        if self.need_metadata && !self.metadata_in_flight && self.metadata_not_before > 0 {
            at(self.metadata_not_before);
        }
        t
    }

    /// The next thing the host must do: open or close a connection, or hear of a partition
    /// that failed.
    pub fn poll_event(&mut self, now: u64) -> Option<Event<'_>> {
        cluster::tick(&mut self.conns, now, self.config.timing());
        if let Some(ev) = cluster::poll_event(&mut self.conns, now) {
            return Some(match ev {
                ConnEvent::Connect { conn, host, port } => Event::Connect { conn, host, port },
                ConnEvent::Close { conn, why } => Event::Close { conn, why },
            });
        }
        next_failure(&mut self.parts).map(|(topic, partition, error)| Event::Failed {
            topic,
            partition,
            error,
        })
    }

    /// Encodes the next request frame due into `out`: ApiVersions on a new connection,
    /// Metadata, ListOffsets, or a Fetch from a leader with no Fetch in flight. `None` when
    /// nothing is due now.
    pub fn poll_transmit(&mut self, now: u64, out: &mut [u8]) -> Result<Option<Transmit>, TransmitError> {
        cluster::tick(&mut self.conns, now, self.config.timing());
        // What is due waits for a connection, not for a time (see `next_timeout`).
        for p in self.parts.iter_mut().filter(|p| now >= p.not_before) {
            p.not_before = 0;
        }
        if now >= self.metadata_not_before {
            self.metadata_not_before = 0;
        }
        if let Some(t) = cluster::send_api_versions(&mut self.conns, now, self.config.client_id, out)? {
            return Ok(Some(t));
        }
        #[cfg(feature = "sasl")]
        if let Some(sasl) = &self.config.sasl {
            if let Some(t) = cluster::send_auth(&mut self.conns, now, self.config.client_id, sasl, out)? {
                return Ok(Some(t));
            }
        }
        if self.need_metadata && !self.metadata_in_flight && now >= self.metadata_not_before {
            if let Some(ci) = self.conns.iter().position(|c| c.ready(cluster::MAX_IN_FLIGHT)) {
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
                let client_id = Some(self.config.client_id);
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
        for ci in 0..self.conns.len() {
            if let Some(t) = self.list_offsets(ci, now, out)? {
                return Ok(Some(t));
            }
        }
        for ci in 0..self.conns.len() {
            if let Some(t) = self.fetch(ci, now, out)? {
                return Ok(Some(t));
            }
        }
        Ok(None)
    }

    /// The partitions led by the broker of connection `ci` in state `want` and due at `now`,
    /// by topic then partition.
    fn due(&self, ci: usize, now: u64, want: fn(State) -> bool) -> Option<Vec<u16, P>> {
        let c = self.conns.get(ci)?;
        if !c.ready(cluster::MAX_IN_FLIGHT) || c.node < 0 {
            return None;
        }
        let mut chosen: Vec<u16, P> = Vec::new();
        for (i, p) in self.parts.iter().enumerate() {
            let known = self
                .topics
                .get(usize::from(p.topic))
                .is_some_and(|t| t.partitions > p.index);
            if p.leader == c.node && known && want(p.state) && now >= p.not_before {
                let _ = chosen.push(i as u16);
            }
        }
        let order = |i: u16| self.parts.get(usize::from(i)).map_or((0, 0), |p| (p.topic, p.index));
        for i in 1..chosen.len() {
            let mut j = i;
            while j > 0 && order(chosen.get(j - 1).copied().unwrap_or(0)) > order(chosen.get(j).copied().unwrap_or(0)) {
                chosen.swap(j - 1, j);
                j -= 1;
            }
        }
        (!chosen.is_empty()).then_some(chosen)
    }

    fn list_offsets(&mut self, ci: usize, now: u64, out: &mut [u8]) -> Result<Option<Transmit>, TransmitError> {
        let Some(chosen) = self.due(ci, now, |s| matches!(s, State::Resolve(_))) else {
            return Ok(None);
        };
        let sent = {
            let mut parts: Vec<ListOffsetsPartition<'_>, P> = Vec::new();
            let mut topics: Vec<(u8, usize, usize), MAX_TOPICS> = Vec::new();
            for &i in &chosen {
                let Some(p) = self.parts.get(usize::from(i)) else {
                    continue;
                };
                let timestamp = match p.state {
                    State::Resolve(Offset::Earliest) => -2,
                    State::Resolve(Offset::Timestamp(t)) => t,
                    _ => -1,
                };
                let _ = parts.push(ListOffsetsPartition {
                    partition_index: p.index,
                    current_leader_epoch: p.leader_epoch,
                    timestamp,
                    ..ListOffsetsPartition::DEFAULT
                });
                group(&mut topics, p.topic, parts.len());
            }
            let mut data: Vec<ListOffsetsTopic<'_>, MAX_TOPICS> = Vec::new();
            for &(t, start, end) in &topics {
                let _ = data.push(ListOffsetsTopic {
                    name: self.names.get(usize::from(t)).copied().unwrap_or(""),
                    partitions: Array::from_slice(parts.get(start..end).unwrap_or_default()),
                    ..ListOffsetsTopic::DEFAULT
                });
            }
            let req = ListOffsetsRequest {
                replica_id: -1,
                isolation_level: self.config.isolation.wire(),
                topics: Array::from_slice(&data),
                timeout_ms: i32::try_from(self.config.request_timeout_ms).unwrap_or(i32::MAX),
                ..ListOffsetsRequest::DEFAULT
            };
            let client_id = Some(self.config.client_id);
            let Some(c) = self.conns.get_mut(ci) else {
                return Ok(None);
            };
            let v = c.versions[LIST_OFFSETS];
            c.sending(now);
            c.client.send(&req, v, client_id, out).map_err(encode_error)?
        };
        for &i in &chosen {
            if let Some(p) = self.parts.get_mut(usize::from(i)) {
                // The offset asked for is kept where the answer will put the position.
                p.position = match p.state {
                    State::Resolve(Offset::Earliest) => -2,
                    State::Resolve(Offset::Timestamp(t)) => t,
                    _ => -1,
                };
                p.state = State::Resolving(ci as u8);
            }
        }
        Ok(Some(Transmit {
            conn: ConnId(ci as u8),
            len: sent.len,
        }))
    }

    fn fetch(&mut self, ci: usize, now: u64, out: &mut [u8]) -> Result<Option<Transmit>, TransmitError> {
        if self
            .conns
            .get(ci)
            .is_some_and(|c| c.client.pending().any(|f| f.api_key == ApiKey::Fetch))
        {
            return Ok(None);
        }
        let Some(chosen) = self.due(ci, now, |s| s == State::Fetch) else {
            return Ok(None);
        };
        let sent = {
            let mut parts: Vec<FetchPartition<'_>, P> = Vec::new();
            let mut topics: Vec<(u8, usize, usize), MAX_TOPICS> = Vec::new();
            for &i in &chosen {
                let Some(p) = self.parts.get(usize::from(i)) else {
                    continue;
                };
                let _ = parts.push(FetchPartition {
                    partition: p.index,
                    current_leader_epoch: p.leader_epoch,
                    fetch_offset: p.position,
                    last_fetched_epoch: -1,
                    log_start_offset: -1,
                    partition_max_bytes: self.config.partition_max_bytes,
                    ..FetchPartition::DEFAULT
                });
                group(&mut topics, p.topic, parts.len());
            }
            let Some(c) = self.conns.get(ci) else { return Ok(None) };
            // Version 13 names topics by id; a topic whose id is not known goes at version 12.
            let by_id = topics
                .iter()
                .all(|(t, _, _)| self.topics.get(usize::from(*t)).is_some_and(|t| !t.id.is_nil()));
            let v = if by_id {
                c.versions[FETCH]
            } else {
                c.versions[FETCH].min(12)
            };
            let mut data: Vec<FetchTopic<'_>, MAX_TOPICS> = Vec::new();
            for &(t, start, end) in &topics {
                let _ = data.push(FetchTopic {
                    topic: self.names.get(usize::from(t)).copied().unwrap_or(""),
                    topic_id: self.topics.get(usize::from(t)).map_or(Uuid::nil(), |t| t.id),
                    partitions: Array::from_slice(parts.get(start..end).unwrap_or_default()),
                    ..FetchTopic::DEFAULT
                });
            }
            let req = FetchRequest {
                replica_id: -1,
                max_wait_ms: self.config.max_wait_ms,
                min_bytes: self.config.min_bytes,
                max_bytes: self.config.max_bytes,
                isolation_level: self.config.isolation.wire(),
                // No fetch session: every Fetch names all its partitions.
                session_id: 0,
                session_epoch: -1,
                topics: Array::from_slice(&data),
                ..FetchRequest::DEFAULT
            };
            let client_id = Some(self.config.client_id);
            let Some(c) = self.conns.get_mut(ci) else {
                return Ok(None);
            };
            c.sending(now);
            c.client.send(&req, v, client_id, out).map_err(encode_error)?
        };
        for &i in &chosen {
            if let Some(p) = self.parts.get_mut(usize::from(i)) {
                p.state = State::Fetching(ci as u8);
            }
        }
        Ok(Some(Transmit {
            conn: ConnId(ci as u8),
            len: sent.len,
        }))
    }

    /// A whole response frame (size prefix included) read on `conn`. The records of a Fetch
    /// answer come back as views into `frame`, and each partition's position has moved past
    /// them. An answer that breaks the protocol (a batch failing its CRC included) is returned
    /// as the error; no position moves, and the connection is to be closed (an
    /// [`Event::Close`] follows).
    pub fn on_frame<'f>(&mut self, conn: ConnId, frame: &'f [u8], now: u64) -> Result<Fetched<'f, P>, ProtocolError> {
        let ci = usize::from(conn.0);
        let r = self.handle(ci, frame, now);
        if let Err(e) = r {
            if let Some(c) = self.conns.get_mut(ci) {
                c.close = Some(CloseReason::Protocol(e));
            }
        }
        r
    }

    fn handle<'f>(&mut self, ci: usize, frame: &'f [u8], now: u64) -> Result<Fetched<'f, P>, ProtocolError> {
        let auth = self.config.auth();
        #[cfg(feature = "sasl")]
        let sasl = self.config.sasl;
        let Some(c) = self.conns.get_mut(ci) else {
            return Ok(Fetched::empty());
        };
        let f = c.client.answered(frame).map_err(ProtocolError::Client)?;
        c.progress = now;
        c.failures = 0;
        match f.api_key {
            ApiKey::ApiVersions => cluster::negotiate(c, f, frame, &APIS, auth).map(|()| Fetched::empty()),
            ApiKey::Metadata => self.on_metadata(ci, f, frame, now).map(|()| Fetched::empty()),
            ApiKey::ListOffsets => self.on_list_offsets(ci, f, frame, now).map(|()| Fetched::empty()),
            ApiKey::Fetch => self.on_fetch(ci, f, frame, now),
            #[cfg(feature = "sasl")]
            ApiKey::SaslHandshake | ApiKey::SaslAuthenticate => match sasl {
                Some(s) => cluster::on_auth(c, f, frame, &s).map(|()| Fetched::empty()),
                None => Ok(Fetched::empty()),
            },
            _ => Ok(Fetched::empty()),
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
                let e = topic.error;
                if e.is_retriable() {
                    again = true;
                } else {
                    for p in self.parts.iter_mut().filter(|p| usize::from(p.topic) == ti) {
                        fail(p, e);
                    }
                }
                continue;
            }
            topic.id = t.topic_id;
            topic.partitions = t.partitions.len() as i32;
            for p in self.parts.iter_mut().filter(|p| usize::from(p.topic) == ti) {
                match t.partitions.iter().find(|x| x.partition_index == p.index) {
                    Some(x) if ErrorCode::from_code(x.error_code).is_none() => {
                        p.leader = x.leader_id;
                        p.leader_epoch = x.leader_epoch;
                    }
                    Some(_) => p.leader = -1,
                    None => fail(p, ErrorCode::UnknownTopicOrPartition),
                }
            }
        }
        cluster::adopt_bootstrap(&mut self.conns, &body.brokers);
        for pi in 0..self.parts.len() {
            let Some(p) = self.parts.get(pi) else { continue };
            if matches!(p.state, State::Failed { .. }) {
                continue;
            }
            if p.leader < 0 {
                again = true;
                continue;
            }
            again |= !cluster::want_leader(&mut self.conns, p.leader, &body.brokers);
        }
        if again {
            self.need_metadata = true;
            self.metadata_not_before = now + self.config.retry_backoff_ms;
        }
        Ok(())
    }

    /// The partition answered on connection `ci` for topic `t` (by name or id).
    fn answered_part(&self, t: (&str, Uuid), partition: i32, want: State) -> Option<usize> {
        let ti = if t.1.is_nil() {
            self.names.iter().position(|n| *n == t.0)?
        } else {
            self.topics.iter().position(|x| x.id == t.1)?
        };
        self.parts
            .iter()
            .position(|p| usize::from(p.topic) == ti && p.index == partition && p.state == want)
    }

    /// A retriable error: Metadata is asked again for a leader error, and the partition asked
    /// again after the backoff.
    fn retry(&mut self, pi: usize, e: ErrorCode, again: State, now: u64) {
        if leader_error(e) {
            self.need_metadata = true;
        }
        if let Some(p) = self.parts.get_mut(pi) {
            p.state = again;
            p.not_before = now + self.config.retry_backoff_ms;
        }
    }

    fn on_list_offsets(&mut self, ci: usize, f: InFlight, frame: &[u8], now: u64) -> Result<(), ProtocolError> {
        let answer = frame::parse_response_frame_to::<ListOffsetsRequest<'_>>(frame, f.version, Mode::Lenient)
            .map_err(ProtocolError::Decode)?;
        cluster::throttle(&mut self.conns, ci, now, answer.body.throttle_time_ms);
        for t in answer.body.topics.iter() {
            for r in t.partitions.iter() {
                let Some(pi) = self.answered_part((t.name, Uuid::nil()), r.partition_index, State::Resolving(ci as u8))
                else {
                    continue;
                };
                let again = State::Resolve(asked(self.parts.get(pi).map_or(-1, |p| p.position)));
                let e = ErrorCode::from_code(r.error_code);
                if e.is_none() {
                    let Some(p) = self.parts.get_mut(pi) else { continue };
                    if r.offset >= 0 {
                        p.position = r.offset;
                        p.state = State::Fetch;
                        p.not_before = 0;
                    } else {
                        // No record at or after the timestamp: the end of the log.
                        p.state = State::Resolve(Offset::Latest);
                    }
                } else if e.is_retriable() {
                    self.retry(pi, e, again, now);
                } else if let Some(p) = self.parts.get_mut(pi) {
                    fail(p, e);
                }
            }
        }
        self.unanswered(ci, State::Resolving(ci as u8), now);
        Ok(())
    }

    /// A partition a request asked for and its answer left out is asked again after the
    /// backoff (a Fetch in flight on another connection is left alone).
    fn unanswered(&mut self, ci: usize, state: State, now: u64) {
        let Some(c) = self.conns.get(ci) else { return };
        let key = if matches!(state, State::Fetching(_)) {
            ApiKey::Fetch
        } else {
            ApiKey::ListOffsets
        };
        // Another request of the kind in flight may be asking for them.
        if c.client.pending().any(|f| f.api_key == key) {
            return;
        }
        let not_before = now + self.config.retry_backoff_ms;
        for p in self.parts.iter_mut().filter(|p| p.state == state) {
            p.state = match state {
                State::Resolving(_) => State::Resolve(asked(p.position)),
                _ => State::Fetch,
            };
            p.not_before = not_before;
        }
    }

    fn on_fetch<'f>(
        &mut self,
        ci: usize,
        f: InFlight,
        frame: &'f [u8],
        now: u64,
    ) -> Result<Fetched<'f, P>, ProtocolError> {
        let answer = frame::parse_response_frame_to::<FetchRequest<'_>>(frame, f.version, Mode::Lenient)
            .map_err(ProtocolError::Decode)?;
        let body = answer.body;
        cluster::throttle(&mut self.conns, ci, now, body.throttle_time_ms);
        let mut fetched = Fetched::empty();
        let top = ErrorCode::from_code(body.error_code);
        if !top.is_none() {
            // The whole request failed (a fetch session error, a throttle): all again.
            self.unanswered(ci, State::Fetching(ci as u8), now);
            return Ok(fetched);
        }
        // First check every batch, so that no position moves on an answer that does not check;
        // the same pass finds where each partition's records end (in the answer's order).
        let mut ends: Vec<i64, P> = Vec::new();
        for t in body.responses.iter() {
            for p in t.partitions.iter() {
                let mut end = -1;
                for b in Batches::new(p.records.unwrap_or_default()).verify_crc(true) {
                    if let Batch::V2(b) = b.map_err(ProtocolError::Decode)? {
                        end = end.max(b.next_offset());
                    }
                }
                // Beyond `P` partitions (an answer naming more than was asked), found again below.
                let _ = ends.push(end);
            }
        }
        let mut k = 0;
        for t in body.responses.iter() {
            for r in t.partitions.iter() {
                let end = ends
                    .get(k)
                    .copied()
                    .unwrap_or_else(|| records_end(r.records.unwrap_or_default()));
                k += 1;
                let Some(pi) = self.answered_part((t.topic, t.topic_id), r.partition_index, State::Fetching(ci as u8))
                else {
                    continue;
                };
                let e = ErrorCode::from_code(r.error_code);
                match e {
                    ErrorCode::None => {}
                    ErrorCode::OffsetOutOfRange => {
                        match self.config.reset {
                            Reset::Earliest => self.retry(pi, e, State::Resolve(Offset::Earliest), 0),
                            Reset::Latest => self.retry(pi, e, State::Resolve(Offset::Latest), 0),
                            Reset::Fail => {
                                if let Some(p) = self.parts.get_mut(pi) {
                                    fail(p, e);
                                }
                            }
                        }
                        continue;
                    }
                    e if e.is_retriable() || leader_error(e) => {
                        self.retry(pi, e, State::Fetch, now);
                        continue;
                    }
                    e => {
                        if let Some(p) = self.parts.get_mut(pi) {
                            fail(p, e);
                        }
                        continue;
                    }
                }
                let Some(p) = self.parts.get_mut(pi) else { continue };
                let from = p.position;
                let records = r.records.unwrap_or_default();
                p.position = from.max(end);
                p.end = match self.config.isolation {
                    Isolation::ReadCommitted if r.last_stable_offset >= 0 => r.last_stable_offset,
                    _ => r.high_watermark,
                };
                p.state = State::Fetch;
                p.not_before = 0;
                if !records.is_empty() {
                    let _ = fetched.spans.push(Span {
                        topic: TopicId(p.topic),
                        partition: p.index,
                        from,
                        records,
                        aborted: r.aborted_transactions,
                        committed: self.config.isolation == Isolation::ReadCommitted,
                    });
                }
            }
        }
        self.unanswered(ci, State::Fetching(ci as u8), now);
        Ok(fetched)
    }
}

/// The offset after the last whole batch of checked record bytes (-1 without one): bytes that
/// `on_frame`'s first pass read, so neither CRCs nor records are checked again.
fn records_end(records: &[u8]) -> i64 {
    Batches::new(records)
        .revisit()
        .filter_map(|b| match b {
            Ok(Batch::V2(b)) => Some(b.next_offset()),
            _ => None,
        })
        .max()
        .unwrap_or(-1)
}

/// The start a resolving partition asked ListOffsets for, kept in its position meanwhile.
fn asked(position: i64) -> Offset {
    match position {
        -2 => Offset::Earliest,
        -1 => Offset::Latest,
        t => Offset::Timestamp(t),
    }
}

/// A failed partition not yet reported.
fn next_failure(parts: &mut [Part]) -> Option<(TopicId, i32, ErrorCode)> {
    let p = parts
        .iter_mut()
        .find(|p| matches!(p.state, State::Failed { reported: false, .. }))?;
    let State::Failed { error, .. } = p.state else {
        return None;
    };
    p.state = State::Failed { error, reported: true };
    Some((TopicId(p.topic), p.index, error))
}

fn fail(p: &mut Part, error: ErrorCode) {
    p.state = State::Failed { error, reported: false };
}

fn leader_error(e: ErrorCode) -> bool {
    matches!(
        e,
        ErrorCode::NotLeaderOrFollower
            | ErrorCode::LeaderNotAvailable
            | ErrorCode::UnknownTopicOrPartition
            | ErrorCode::FencedLeaderEpoch
            | ErrorCode::UnknownLeaderEpoch
            | ErrorCode::UnknownTopicId
            | ErrorCode::InconsistentTopicId
            | ErrorCode::KafkaStorageError
            | ErrorCode::OffsetNotAvailable
    )
}

/// Appends the entry just pushed (the `len`th) to its topic's run.
fn group(topics: &mut Vec<(u8, usize, usize), MAX_TOPICS>, topic: u8, len: usize) {
    match topics.last_mut() {
        Some((t, _, end)) if *t == topic => *end = len,
        _ => {
            let _ = topics.push((topic, len - 1, len));
        }
    }
}

/// What a consumer hands its host through a driver ([`Session::Output`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Output<'f> {
    /// A record, or a compressed batch (see [`Item`]).
    Item(Item<'f>),
    /// A partition stopped (see [`Event::Failed`]).
    Failed {
        /// The topic.
        topic: TopicId,
        /// The partition.
        partition: i32,
        /// Why.
        error: ErrorCode,
    },
}

impl<const P: usize, const C: usize> Session for Consumer<'_, P, C> {
    type Output<'f> = Output<'f>;

    fn poll_conn(&mut self, now: u64, on: &mut impl FnMut(Output<'_>)) -> Option<ConnEvent<'_>> {
        cluster::tick(&mut self.conns, now, self.config.timing());
        while let Some((topic, partition, error)) = next_failure(&mut self.parts) {
            on(Output::Failed {
                topic,
                partition,
                error,
            });
        }
        cluster::poll_event(&mut self.conns, now)
    }

    fn poll_transmit(&mut self, now: u64, out: &mut [u8]) -> Result<Option<Transmit>, TransmitError> {
        Consumer::poll_transmit(self, now, out)
    }

    fn on_frame(
        &mut self,
        conn: ConnId,
        frame: &[u8],
        now: u64,
        on: &mut impl FnMut(Output<'_>),
    ) -> Result<(), ProtocolError> {
        for item in Consumer::on_frame(self, conn, frame, now)?.items() {
            on(Output::Item(item));
        }
        Ok(())
    }

    fn on_connected(&mut self, conn: ConnId, now: u64) {
        Consumer::on_connected(self, conn, now)
    }

    fn on_closed(&mut self, conn: ConnId, now: u64) {
        Consumer::on_closed(self, conn, now)
    }

    fn next_timeout(&self) -> Option<u64> {
        Consumer::next_timeout(self)
    }
}

/// One partition's records in a Fetch answer.
#[derive(Clone, Copy, Debug)]
struct Span<'f> {
    topic: TopicId,
    partition: i32,
    from: i64,
    records: &'f [u8],
    aborted: Option<Array<'f, AbortedTransaction<'f>>>,
    committed: bool,
}

/// The records of one Fetch answer, borrowed from its frame; empty for any other answer.
#[derive(Clone, Debug)]
pub struct Fetched<'f, const P: usize> {
    spans: Vec<Span<'f>, P>,
}

impl<'f, const P: usize> Fetched<'f, P> {
    fn empty() -> Self {
        Fetched { spans: Vec::new() }
    }

    /// True when the answer held no records.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The records, partition by partition, in offset order: records before the position
    /// fetched from, control batches, and (under `ReadCommitted`) batches of aborted
    /// transactions are left out. A compressed batch comes whole, for a host that can
    /// decompress it.
    pub fn items(&self) -> Items<'_, 'f> {
        Items {
            spans: &self.spans,
            span: None,
            batches: Batches::new(&[]),
            batch: None,
            active: Vec::new(),
            activated: 0,
        }
    }
}

/// A record of a Fetch answer, borrowed from the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConsumedRecord<'f> {
    /// The topic.
    pub topic: TopicId,
    /// The partition.
    pub partition: i32,
    /// The record's offset.
    pub offset: i64,
    /// Its timestamp (ms since the Unix epoch).
    pub timestamp: i64,
    /// What the timestamp is.
    pub timestamp_type: TimestampType,
    /// The key; `None` is null.
    pub key: Option<&'f [u8]>,
    /// The value; `None` is null.
    pub value: Option<&'f [u8]>,
    /// The headers.
    pub headers: Headers<'f>,
}

/// What [`Fetched::items`] yields.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Item<'f> {
    /// A record.
    Record(ConsumedRecord<'f>),
    /// A compressed batch, whole: its records from offset `from` on are the partition's next.
    /// Without a decompressor, a host skips it (the position has moved past it).
    Compressed {
        /// The topic.
        topic: TopicId,
        /// The partition.
        partition: i32,
        /// The first offset to yield.
        from: i64,
        /// The batch.
        batch: RecordBatch<'f>,
    },
    /// More aborted transactions open at once in a partition than the consumer tracks (16, or
    /// 64 in one answer): the rest of that partition's records in this answer are not
    /// yielded; lower `partition_max_bytes`, or read uncommitted.
    TooManyAborted {
        /// The topic.
        topic: TopicId,
        /// The partition.
        partition: i32,
    },
}

/// The most producers with an aborted transaction open at once that [`Items`] tracks.
const MAX_ABORTED: usize = 16;

/// The iterator of [`Fetched::items`].
#[derive(Clone, Debug)]
pub struct Items<'a, 'f> {
    spans: &'a [Span<'f>],
    span: Option<Span<'f>>,
    batches: Batches<'f>,
    batch: Option<(RecordBatch<'f>, RecordIter<'f>)>,
    /// Producers whose aborted transaction is open at the current batch.
    active: Vec<i64, MAX_ABORTED>,
    /// Which of the span's aborted transactions have started.
    activated: u64,
}

impl<'f> Items<'_, 'f> {
    /// Whether the batch is left out: a control batch, or one of an aborted transaction.
    /// `Err` when there are too many aborted transactions to track.
    fn skip(&mut self, s: &Span<'f>, b: &RecordBatch<'f>) -> Result<bool, ()> {
        if !s.committed {
            return Ok(b.is_control());
        }
        if let Some(aborted) = s.aborted {
            for (i, a) in aborted.iter().enumerate() {
                if a.first_offset > b.last_offset() {
                    continue;
                }
                let bit = 1u64.checked_shl(i as u32).filter(|_| i < 64).ok_or(())?;
                if self.activated & bit == 0 {
                    self.activated |= bit;
                    if !self.active.contains(&a.producer_id) {
                        self.active.push(a.producer_id).map_err(|_| ())?;
                    }
                }
            }
        }
        let open = self.active.iter().position(|p| *p == b.producer_id);
        if b.is_control() {
            // A transaction's marker ends it.
            if let Some(i) = open {
                self.active.swap_remove(i);
            }
            return Ok(true);
        }
        Ok(b.is_transactional() && open.is_some())
    }
}

impl<'f> Iterator for Items<'_, 'f> {
    type Item = Item<'f>;

    fn next(&mut self) -> Option<Item<'f>> {
        loop {
            if let (Some(s), Some((b, recs))) = (self.span, self.batch.as_mut()) {
                for r in recs.by_ref() {
                    let offset = b.offset_of(&r);
                    if offset < s.from {
                        continue;
                    }
                    return Some(Item::Record(ConsumedRecord {
                        topic: s.topic,
                        partition: s.partition,
                        offset,
                        timestamp: b.timestamp_of(&r),
                        timestamp_type: b.timestamp_type(),
                        key: r.key,
                        value: r.value,
                        headers: r.headers,
                    }));
                }
                self.batch = None;
            }
            if let Some(s) = self.span {
                match self.batches.next() {
                    Some(Ok(Batch::V2(b))) => {
                        if b.next_offset() <= s.from {
                            continue;
                        }
                        match self.skip(&s, &b) {
                            Ok(true) => continue,
                            Ok(false) => {}
                            Err(()) => {
                                self.span = None;
                                return Some(Item::TooManyAborted {
                                    topic: s.topic,
                                    partition: s.partition,
                                });
                            }
                        }
                        match b.records() {
                            Some(r) => self.batch = Some((b, r.iter())),
                            None => {
                                return Some(Item::Compressed {
                                    topic: s.topic,
                                    partition: s.partition,
                                    from: s.from,
                                    batch: b,
                                })
                            }
                        }
                        continue;
                    }
                    // Legacy messages (magic 0 and 1) are not yielded; a partial batch ends
                    // the partition's records.
                    Some(_) => continue,
                    None => self.span = None,
                }
            }
            let (first, rest) = self.spans.split_first()?;
            self.spans = rest;
            self.span = Some(*first);
            // `on_frame` read every batch (CRCs, records) before any span was made.
            self.batches = Batches::new(first.records).revisit();
            self.active.clear();
            self.activated = 0;
        }
    }
}
