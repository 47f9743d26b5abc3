//! # kafka-wire-ext
//!
//! What `kafka-wire` offers with an allocator: JSON in the shape of Kafka's generated
//! `JsonConverter`s ([`json`]), conversations as JSON lines ([`conversation`], on
//! `kafka_wire::conn`), record batch decompression ([`compression`]), a decoding Kafka proxy
//! ([`proxy`]), Kafka log segments as JSON ([`dump_log`]), and `tokio_util` codecs for a
//! client's and a server's side of a connection (`tokio_codec`, feature `tokio`). The `kwire`
//! command is a crate of its own (`kwire`), so that none of its argument parsing, progress
//! line or capture-file dependencies reach a user of this library.

#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod compression;
pub mod conversation;
pub mod dump_log;
pub mod json;
pub mod proxy;
#[cfg(feature = "tokio")]
pub mod tokio_codec;
