//! An Apache Kafka producer and consumer on [kafka-wire](https://docs.rs/kafka-wire):
//! `no_std`, no allocator, no I/O of its own.
//!
//! [`Producer`] is the whole client as a state machine. Records go into batch buffers it holds
//! (capacities are const generics: partitions, batch buffers and their size, connections);
//! request frames come out into the caller's buffer; response frames go in; delivery reports
//! come out. The host opens the connections it asks for and passes its clock to every call,
//! so the same producer runs on firmware over any TCP stack or serial link (`embedded`, feature
//! `embedded-io`), on async stacks (`asynch`, feature `embedded-io-async`; `tokio_io`, feature
//! `tokio`) and on `std` (`std_io`, feature `std`).
//!
//! What it does on the wire: ApiVersions and version negotiation on every connection, Metadata
//! for its topics, InitProducerId, then Produce to each partition's leader, idempotent by
//! default (acks all, sequence numbers, retries that keep them, epoch bumps on sequence
//! errors), with acks 0 and 1 on request.
//!
//! [`Consumer`] (feature `consumer`, on by default) reads assigned partitions the same way:
//! ListOffsets for a start given as earliest, latest or a timestamp, one Fetch in flight per
//! leader, and each Fetch answer's records as views into the host's frame, with aborted
//! transactions left out under `read_committed`.
#![cfg_attr(not(feature = "std"), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "embedded-io-async")]
pub mod asynch;
mod cluster;
#[cfg(feature = "consumer")]
pub mod consumer;
#[cfg(feature = "embedded-io")]
pub mod embedded;
pub mod partitioner;
mod producer;
#[cfg(feature = "sasl")]
pub mod sasl;
pub mod session;
#[cfg(feature = "std")]
pub mod std_io;
#[cfg(feature = "tokio")]
pub mod tokio_io;

#[cfg(feature = "consumer")]
pub use consumer::{Consumer, ConsumerConfig};
pub use producer::{
    Acks, CloseReason, Compressor, Config, ConfigError, ConnEvent, ConnId, Delivery, DeliveryError, Event, Producer,
    ProtocolError, Record, RecordId, SendError, TopicId, Transmit, TransmitError, MAX_HOST, MAX_IN_FLIGHT, MAX_TOPICS,
};
