//! Owned record batches (feature `alloc`): what a consumer keeps after the Fetch response is
//! gone, and what a producer builds before it has a buffer.
//!
//! [`OwnedRecordBatch::parse_all`] reads the batches of a `records` field (an [`OwnedBytes`])
//! with the same checks as [`Batches`]. With the `bytes` feature, every key, value, header and
//! compressed record section is a slice of that field's buffer, which is itself a slice of the
//! message decoded by [`OwnedMessage::parse_bytes`](crate::OwnedMessage::parse_bytes): from the
//! socket's buffer to a record's value, nothing is copied. The allocations are one `Vec` of
//! records per batch and one `Vec` of headers per record that has headers.
//!
//! Compressed batches keep their record section as it is ([`OwnedBatchRecords::Compressed`]);
//! `kafka-wire-ext` decompresses it, and [`OwnedRecord::parse_all`] reads the result.
//! Magic 0 and 1 messages are kept whole, as bytes ([`OwnedBatch::Legacy`]).

use alloc::vec::Vec;

use super::{
    Attributes, Batch, BatchBuilder, BatchRecords, Batches, Compression, NewHeader, NewRecord, Record, Records,
};
use crate::error::{DecodeError, EncodeError};
use crate::owned::OwnedBytes;
use crate::write::Sink;

/// One record header, owned.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct OwnedHeader {
    /// The key (Kafka's header keys are UTF-8 strings; the bytes are kept as they are).
    pub key: OwnedBytes,
    /// The value; `None` is null.
    pub value: Option<OwnedBytes>,
}

/// One record, owned; see [`Record`] for the fields.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct OwnedRecord {
    /// The record's attributes byte.
    pub attributes: i8,
    /// Timestamp minus the batch's base timestamp.
    pub timestamp_delta: i64,
    /// Offset minus the batch's base offset.
    pub offset_delta: i32,
    /// The key; `None` is null.
    pub key: Option<OwnedBytes>,
    /// The value; `None` is null (a tombstone).
    pub value: Option<OwnedBytes>,
    /// The headers, in order.
    pub headers: Vec<OwnedHeader>,
}

impl OwnedRecord {
    /// `r`, read from `from`: its bytes shared with `from` when they lie within it (feature
    /// `bytes`), copied otherwise.
    pub fn from_record(r: &Record<'_>, from: &OwnedBytes) -> Self {
        OwnedRecord {
            attributes: r.attributes,
            timestamp_delta: r.timestamp_delta,
            offset_delta: r.offset_delta,
            key: r.key.map(|k| from.share_slice(k)),
            value: r.value.map(|v| from.share_slice(v)),
            headers: r
                .headers
                .iter()
                .map(|h| OwnedHeader {
                    key: from.share_slice(h.key),
                    value: h.value.map(|v| from.share_slice(v)),
                })
                .collect(),
        }
    }

    /// Validates `bytes` as exactly `count` records (a decompressed record section) and reads
    /// them, sharing `bytes`.
    pub fn parse_all(bytes: &OwnedBytes, count: i32) -> Result<Vec<OwnedRecord>, DecodeError> {
        let records = Records::parse(bytes, count)?;
        Ok(Self::all(&records, bytes))
    }

    fn all(records: &Records<'_>, from: &OwnedBytes) -> Vec<OwnedRecord> {
        records.iter().map(|r| Self::from_record(&r, from)).collect()
    }

    fn as_new<'a>(&'a self, headers: &'a [NewHeader<'a>]) -> NewRecord<'a> {
        NewRecord {
            attributes: self.attributes,
            timestamp_delta: self.timestamp_delta,
            offset_delta: self.offset_delta,
            key: self.key.as_deref(),
            value: self.value.as_deref(),
            headers,
        }
    }
}

/// The records of an owned batch.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OwnedBatchRecords {
    /// The records of an uncompressed batch.
    Plain(Vec<OwnedRecord>),
    /// The record section of a compressed batch, as it is on the wire.
    Compressed {
        /// The codec.
        compression: Compression,
        /// How many records the section holds.
        record_count: i32,
        /// The compressed bytes.
        bytes: OwnedBytes,
    },
}

impl Default for OwnedBatchRecords {
    fn default() -> Self {
        OwnedBatchRecords::Plain(Vec::new())
    }
}

/// A magic 2 record batch, owned. The CRC, the batch length and the record count are not kept:
/// they are checked when read and computed when written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OwnedRecordBatch {
    /// Offset of the first record.
    pub base_offset: i64,
    /// Partition leader epoch.
    pub partition_leader_epoch: i32,
    /// The attributes, the codec bits included.
    pub attributes: Attributes,
    /// Offset of the last record minus the base offset.
    pub last_offset_delta: i32,
    /// Timestamp of the first record (or the delete horizon).
    pub base_timestamp: i64,
    /// Largest timestamp.
    pub max_timestamp: i64,
    /// Producer id, or -1.
    pub producer_id: i64,
    /// Producer epoch, or -1.
    pub producer_epoch: i16,
    /// First sequence number, or -1.
    pub base_sequence: i32,
    /// The records.
    pub records: OwnedBatchRecords,
}

impl Default for OwnedRecordBatch {
    /// What [`BatchBuilder::DEFAULT`] has: no producer, timestamps -1, no records.
    fn default() -> Self {
        OwnedRecordBatch {
            base_offset: 0,
            partition_leader_epoch: -1,
            attributes: Attributes::NONE,
            last_offset_delta: -1,
            base_timestamp: -1,
            max_timestamp: -1,
            producer_id: -1,
            producer_epoch: -1,
            base_sequence: -1,
            records: OwnedBatchRecords::default(),
        }
    }
}

/// One batch of an owned `records` field.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OwnedBatch {
    /// A magic 2 record batch.
    V2(OwnedRecordBatch),
    /// A magic 0 or 1 message, whole (read it again with [`Batches`] to get its [`LegacyMessage`](super::LegacyMessage) view).
    Legacy(OwnedBytes),
}

impl OwnedRecordBatch {
    /// Reads every batch of `records` with [`Batches`]' checks (CRCs included). A partial
    /// last batch, normal at the end of a Fetch response, is left out; `strict` makes it an
    /// error, as input that must be whole (a Produce request) wants.
    pub fn parse_all(records: &OwnedBytes, strict: bool) -> Result<Vec<OwnedBatch>, DecodeError> {
        let batches = if strict {
            Batches::strict(records)
        } else {
            Batches::new(records)
        };
        let mut out = Vec::new();
        for b in batches {
            match b? {
                Batch::V2(b) => out.push(OwnedBatch::V2(OwnedRecordBatch {
                    base_offset: b.base_offset,
                    partition_leader_epoch: b.partition_leader_epoch,
                    attributes: b.attributes,
                    last_offset_delta: b.last_offset_delta,
                    base_timestamp: b.base_timestamp,
                    max_timestamp: b.max_timestamp,
                    producer_id: b.producer_id,
                    producer_epoch: b.producer_epoch,
                    base_sequence: b.base_sequence,
                    records: match (b.records(), b.compressed_records()) {
                        (Some(r), _) => OwnedBatchRecords::Plain(OwnedRecord::all(&r, records)),
                        (None, Some((compression, bytes))) => OwnedBatchRecords::Compressed {
                            compression,
                            record_count: b.record_count,
                            bytes: records.share_slice(bytes),
                        },
                        // A batch without records hands out neither; it has none.
                        (None, None) => OwnedBatchRecords::Plain(Vec::new()),
                    },
                })),
                Batch::Legacy(m) => out.push(OwnedBatch::Legacy(records.share_slice(m.bytes()))),
                Batch::Truncated(_) => {}
            }
        }
        Ok(out)
    }

    /// Writes the batch into `sink` through [`BatchBuilder`] (exact size first, CRC computed);
    /// returns the bytes written. The codec bits of the attributes come from the records.
    pub fn encode<S: Sink + ?Sized>(&self, sink: &mut S) -> Result<usize, EncodeError> {
        let headers: Vec<NewHeader<'_>>;
        let new: Vec<NewRecord<'_>>;
        let records = match &self.records {
            OwnedBatchRecords::Plain(rs) => {
                headers = rs
                    .iter()
                    .flat_map(|r| &r.headers)
                    .map(|h| NewHeader {
                        key: &h.key,
                        value: h.value.as_deref(),
                    })
                    .collect();
                let mut at = 0;
                new = rs
                    .iter()
                    .map(|r| {
                        let end = at + r.headers.len();
                        let n = r.as_new(headers.get(at..end).unwrap_or_default());
                        at = end;
                        n
                    })
                    .collect();
                BatchRecords::Plain(&new)
            }
            OwnedBatchRecords::Compressed {
                compression,
                record_count,
                bytes,
            } => BatchRecords::Compressed {
                compression: *compression,
                record_count: *record_count,
                bytes,
            },
        };
        BatchBuilder {
            base_offset: self.base_offset,
            partition_leader_epoch: self.partition_leader_epoch,
            attributes: self.attributes,
            last_offset_delta: Some(self.last_offset_delta),
            base_timestamp: self.base_timestamp,
            max_timestamp: Some(self.max_timestamp),
            producer_id: self.producer_id,
            producer_epoch: self.producer_epoch,
            base_sequence: self.base_sequence,
            records,
        }
        .encode(sink)
    }
}
