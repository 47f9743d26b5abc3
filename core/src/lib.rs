//! # kafka-wire
//!
//! A zero-copy, zero-allocation, `no_std` codec for the Apache Kafka wire protocol, generated
//! from Kafka's own JSON message schemas, for the hosts where a Kafka codec has to be small,
//! fast or exact: firmware that produces to Kafka, proxies and gateways that read traffic
//! without copying it, services, tools that read the KRaft metadata log, and fuzzers. The bytes
//! it writes are Kafka's: every message version is checked against Kafka's Java classes and a
//! real broker.
//!
//! ## Where to start
//!
//! - [`messages`]: one module per request, response and header, each with its view type
//!   (`parse`, `encode`) and, with `alloc`, its owned twin. The [`Message`] trait is what they
//!   share; [`ApiKey`] lists every API with its versions, and [`Request`] pairs a request type
//!   with its response type.
//! - [`frame`]: size-prefixed request and response frames with their headers, decoded by API key
//!   ([`RequestBody`], [`ResponseBody`]), and the framing of the `__cluster_metadata` log.
//! - [`versions`]: ApiVersions, version negotiation and what each Kafka release's brokers
//!   advertise; [`ErrorCode`]: Kafka's error codes.
//! - [`conn`]: a Kafka connection without I/O: frames cut from a stream into a buffer you own, a
//!   client's correlation ids and bounded in-flight table with typed responses, an observer of
//!   both directions, and drivers for `std::io`, `embedded-io` and `embedded-io-async`.
//! - [`records`]: record batches, read and built without allocating.
//! - [`visit`]: one pass over a message that reads each byte once; [`nom`]: kafka-wire's parsers
//!   inside your own nom grammar; [`reflect`]: every message's schema at run time.
//! - With features: `metadata`, `coordinator`, `raft`, `storage` and `streams` hold the record
//!   schemas; `dynamic` (`alloc`) encodes a tree of values laid out by a schema.
//!
//! ## The contract: validate once, then never fail
//!
//! [`Message::parse`] walks the whole message once and checks every length, count, varint, null
//! marker, UTF-8 string and tagged field against the bytes. What it returns is a view that borrows
//! from the input: scalars decoded, strings as `&str`, bytes and records as `&[u8]`, arrays as lazy
//! [`Array`]s over already-validated bytes. After a successful parse, no accessor or iterator can
//! fail or panic. A count read off the wire is checked against the bytes that remain before it is
//! used, so hostile input costs no more time than its own length.
//!
//! The same struct types are built by hand to encode: set the fields you need on
//! `Type::DEFAULT` (the schema's defaults), with arrays from slices ([`Array::from_slice`]).
//! [`Message::encoded_len`] is exact; [`Message::encode`] writes into any [`Sink`]: a `&mut [u8]`,
//! a `heapless::Vec`, or a `Vec<u8>` with the `alloc` feature. A parsed view encodes too, at its
//! own version or at another one.
//!
//! With the `alloc` feature, every view has an owned twin of the same name in the `owned`
//! module beside it (`OwnedStr`s and `Vec`s, no lifetime). The naming rule: import views by name and
//! owned types through their module, so that both fit in one scope without aliases.
//!
//! ```
//! # #[cfg(feature = "alloc")] {
//! use kafka_wire::messages::api_versions_request::{owned, ApiVersionsRequest};
//! use kafka_wire::{Message, OwnedMessage};
//!
//! let view = ApiVersionsRequest { client_software_name: "firmware", ..ApiVersionsRequest::DEFAULT };
//! let bytes = view.to_vec(3).unwrap();
//! let mine: owned::ApiVersionsRequest = owned::ApiVersionsRequest::parse(&bytes, 3).unwrap();
//! assert_eq!(mine.client_software_name, "firmware");
//! # }
//! ```
//!
//! Errors are small `Copy` values: [`DecodeError`] carries a kind, the byte offset, the message,
//! its version and the field path; [`EncodeError`] the kind, message, version and field path.
//!
//! ```
//! use kafka_wire::messages::alter_partition_request::{AlterPartitionRequest, BrokerState, PartitionData, TopicData};
//! use kafka_wire::{Array, Message};
//!
//! let isr = [BrokerState { broker_id: 1, broker_epoch: 7, ..BrokerState::DEFAULT }];
//! let parts = [PartitionData { partition_index: 0, leader_epoch: 5, new_isr_with_epochs: Array::from_slice(&isr), ..PartitionData::DEFAULT }];
//! let topics = [TopicData { topic_id: kafka_wire::Uuid::from_u128(42), partitions: Array::from_slice(&parts), ..TopicData::DEFAULT }];
//! let req = AlterPartitionRequest { broker_id: 1, broker_epoch: 7, topics: Array::from_slice(&topics), ..AlterPartitionRequest::DEFAULT };
//!
//! let mut buf = [0u8; 128];
//! let n = req.encode_to_slice(&mut buf, 3).unwrap();
//! assert_eq!(n, req.encoded_len(3).unwrap());
//!
//! let view = AlterPartitionRequest::parse(&buf[..n], 3).unwrap();
//! let p = view.topics.iter().next().unwrap().partitions.iter().next().unwrap();
//! assert_eq!(p.new_isr_with_epochs.iter().next().unwrap().broker_epoch, 7);
//! ```
//!
//! ## Features
//!
//! By default every API and record family is compiled (`all`), with no allocator. A program
//! that uses a few turns the defaults off and names them
//! (`default-features = false, features = ["producer"]`); features are additive.
//!
//! | feature | what it adds |
//! |---|---|
//! | `alloc` | owned twins of every view (`owned` modules, `OwnedMessage`), `Vec` sinks, `to_vec`, `dynamic` |
//! | `std` | `alloc`, `conn::StdIo` (the connection driver over `std::io` streams), and batch CRCs through the `crc32c` crate (the CPU's CRC-32C instruction where it has one) |
//! | `bytes` | owned `bytes`, `records` and long string fields slice a shared `bytes::Bytes` (`OwnedMessage::parse_bytes`); `BytesMut` is a sink |
//! | `bytes-portable-atomic` | `bytes` on targets without atomic compare-and-swap (thumbv6m), through `portable-atomic` |
//! | `defmt` | `defmt::Format` for views, errors and [`ApiKey`] |
//! | `arbitrary` | random owned values valid at a version (`ArbitraryAt`), for fuzzing; needs `std` |
//! | `embedded-io` | `conn::EmbeddedIo`: the blocking connection driver over an `embedded-io` stream |
//! | `embedded-io-async` | `conn::Async`: the connection driver over an `embedded-io-async` stream |
//! | `small-code` | less code at some cost in speed, for flash-constrained firmware; same values, errors and offsets |
//! | `test-schemas` | Kafka's generator test schemas (`testing`) |
//!
//! The environment variable `KAFKA_WIRE_PIN` fixes versions at build time (see [`pin`]).
//!
//! ## Kafka releases and API features
//!
#![doc = include_str!("generated/front.md")]
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

// The runtime lives in `kafka-wire-rt` and the generated messages in `kafka-wire-msgs-a` and
// `kafka-wire-msgs-b`, so that the two message crates compile side by side; this crate puts
// them together. Its own modules (frames, versions, record batches, nom) name the runtime's
// modules as `crate::codec`, `crate::read` and so on through these imports.
#[cfg(feature = "alloc")]
use kafka_wire_rt::owned;
#[allow(unused_imports)] // a build with few features leaves some unused
use kafka_wire_rt::{codec, compound, error, read, rt, sealed, structs, types, write};

pub mod conn;
#[cfg(feature = "alloc")]
pub mod dynamic;
pub mod frame;
mod grammar;
pub mod nom;
pub mod records;
pub mod reflect;
pub mod versions;
pub mod visit;

/// The `bytes` crate, re-exported (feature `bytes`): what [`OwnedBytes`] holds.
#[cfg(feature = "bytes")]
pub use kafka_wire_rt::bytes;
/// Versions fixed at build time with `KAFKA_WIRE_PIN`.
pub use kafka_wire_rt::pin;
#[cfg(feature = "defmt")]
pub use kafka_wire_rt::FormatElem;
#[cfg(feature = "arbitrary")]
pub use kafka_wire_rt::{arbitrary_bytes, ArbitraryAt};
#[cfg(feature = "alloc")]
pub use kafka_wire_rt::{
    owned_transcode, CompactString, OwnedBytes, OwnedElem, OwnedMessage, OwnedRawTaggedField, OwnedStr, OwnedStruct,
    OwnedTaggedFields, SmallVec,
};
pub use kafka_wire_rt::{parse_mode, transcode, CodecError, Message, MessageInfo, MessageKind, Mode, Struct};
pub use kafka_wire_rt::{Array, ArrayIter, Elem, RawTaggedField, TaggedFields, TaggedIter};
pub use kafka_wire_rt::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind, UnknownKey};
pub use kafka_wire_rt::{FieldId, Sink, Visitor};

/// The `uuid` crate, re-exported: UUID fields are [`uuid::Uuid`].
pub use kafka_wire_rt::uuid;
pub use kafka_wire_rt::Uuid;

mod generated;
#[cfg(feature = "alloc")]
pub use generated::api::OwnedRequest;
pub use generated::api::{ApiKey, MetadataRecord, MetadataRecordType, Request, RequestBody, ResponseBody};
pub use generated::errors::ErrorCode;
pub use generated::*;

// The crate README's example is compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
