//! # kwire
//!
//! The library behind the `kwire` command: Kafka conversations from pcap and pcapng captures
//! ([`pcap`]: TCP reassembly per direction, frame boundaries found again after a lost segment,
//! each frame cut, paired and decoded once by `kafka_wire::conn` and turned into a JSON line by
//! `kafka_wire_ext::conversation`). The command's other parts (`decode`, `encode`, `proxy`,
//! `dump-log`, `demo`) are thin over `kafka-wire-ext`.

#![warn(missing_docs)]

pub mod pcap;
