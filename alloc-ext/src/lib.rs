//! # kafka-wire-ext
//!
//! What `kafka-wire` offers with an allocator: JSON in the shape of Kafka's generated
//! `JsonConverter`s ([`json`]), conversations as JSON lines ([`conversation`], on
//! `kafka_wire::conn`), record batch decompression ([`compression`]), a decoding Kafka proxy
//! ([`proxy`]), a `tokio_util` codec for client connections (`tokio_codec`, feature
//! `tokio`), and the `kwire` command.

#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod compression;
pub mod conversation;
pub mod dump_log;
pub mod json;
pub mod pcap;
pub mod proxy;
#[cfg(feature = "tokio")]
pub mod tokio_codec;
