//! Record batches: the `records` of Produce and Fetch, and every Kafka log segment (the
//! `__cluster_metadata` log included), read as borrowed views and written into caller buffers.
//!
//! # Reading
//!
//! [`Batches`] walks record bytes (a `records` field, or a whole `.log` segment file) and yields
//! one [`Batch`] at a time, lazily:
//!
//! - [`Batch::V2`]: a magic 2 [`RecordBatch`], with every header field, its CRC-32C checked, its
//!   attributes decoded, and (when uncompressed) its [`Records`] validated;
//! - [`Batch::Legacy`]: a magic 0 or 1 [`LegacyMessage`] (CRC-32 checked); a compressed one is a
//!   wrapper whose value is the compressed inner message set;
//! - [`Batch::Truncated`]: the partial batch a Fetch response may end with, which is normal
//!   there (brokers cut responses at a byte limit). [`Batches::strict`] reports it as an error
//!   instead, for input that must be whole (a Produce request).
//!
//! After an error the iterator ends. Errors are [`DecodeError`]s whose offset is the byte offset
//! in the input handed to [`Batches`]; their message is `"RecordBatch"` (magic 2) or
//! `"MessageSet"` (magic 0 and 1), their version the magic byte.
//!
//! ## Validate once
//!
//! Yielding a batch validates it whole: the framing, the CRC, and for an uncompressed magic 2
//! batch every record (lengths, varints, key, value, header count and headers, and that the
//! records take exactly the batch's bytes). After that, iterating its [`Records`] and their
//! [`Headers`] cannot fail. What is decoded later, on demand, can fail, and says so by
//! returning a `Result`: control records ([`Records::control`], [`Record::control`]) and
//! KRaft metadata records ([`Records::metadata`], [`Record::metadata`]); each of those validates
//! all the records of a batch once and then iterates without failing.
//!
//! Counts and lengths read off the wire are checked against the bytes that remain before they
//! are used, so a lying record count, record length or batch length fails at once, in time
//! proportional to the input, without allocating (there is no allocator here).
//!
//! ## Compression
//!
//! A compressed batch hands out its codec ([`RecordBatch::compression`]) and its compressed
//! record bytes ([`RecordBatch::records_bytes`]); this crate does not decompress.
//! `kafka-wire-ext` does, and then validates the inner records with [`Records::parse`].
//!
//! ## CRC checks and fuzzing
//!
//! Batches are CRC-checked unless [`Batches::verify_crc`] turns it off (a dump tool that wants
//! to show a damaged batch). Under `cfg(fuzzing)` (set by cargo-fuzz) the check is skipped, so
//! that fuzzers reach the code behind it. A mismatch is
//! [`DecodeErrorKind::InvalidFrame`](crate::DecodeErrorKind::InvalidFrame)`{ value: <the CRC in the batch> }` with field `"crc"`, at
//! the byte offset where the batch starts; [`RecordBatch::computed_crc`] gives the other side.
//!
//! # Owned batches
//!
//! With the `alloc` feature, `OwnedRecordBatch::parse_all` reads a `records` field into owned
//! batches, records and headers with the same checks; with the `bytes` feature their keys,
//! values and headers are slices of the field's shared buffer, not copies.
//!
//! # Writing
//!
//! [`BatchBuilder`] writes one magic 2 batch into any [`Sink`](crate::Sink): it computes the
//! exact size first ([`BatchBuilder::encoded_len`]), then writes the header, the records (from
//! borrowed keys, values and headers, [`NewRecord`]) or already-compressed record bytes, and
//! the CRC.
//!
//! ```
//! use kafka_wire::records::{Batch, BatchBuilder, BatchRecords, Batches, NewHeader, NewRecord};
//!
//! let headers = [NewHeader::new("trace", Some(b"abc"))];
//! let recs = [
//!     NewRecord { key: Some(b"k1"), value: Some(b"hello"), headers: &headers, ..NewRecord::DEFAULT },
//!     NewRecord { offset_delta: 1, timestamp_delta: 5, key: Some(b"k2"), value: None, ..NewRecord::DEFAULT },
//! ];
//! let builder = BatchBuilder { base_offset: 100, base_timestamp: 1_700_000_000_000, records: BatchRecords::Plain(&recs), ..BatchBuilder::DEFAULT };
//! let mut buf = [0u8; 256];
//! let n = builder.encode_to_slice(&mut buf).unwrap();
//! assert_eq!(n, builder.encoded_len().unwrap());
//!
//! let mut batches = Batches::new(&buf[..n]);
//! let Some(Ok(Batch::V2(batch))) = batches.next() else { panic!() };
//! assert_eq!(batch.base_offset, 100);
//! assert_eq!(batch.last_offset(), 101);
//! let records = batch.records().unwrap();
//! let second = records.iter().nth(1).unwrap();
//! assert_eq!(batch.offset_of(&second), 101);
//! assert_eq!(second.value, None);
//! let first = records.iter().next().unwrap();
//! assert_eq!(first.headers.iter().next().unwrap().key_str(), Some("trace"));
//! assert!(batches.next().is_none());
//! ```
//!
//! Record batches sit beside frames: `batch`, `record`, `legacy` and `builder` use only `error`,
//! the wire primitives and their nom parsers (`grammar`): the log overhead and a legacy
//! message's fields are nom sequences; the magic 2 batch header (61 bytes at fixed offsets, one
//! bounds check) and a record's fields and headers (per record, the hot path) have hand-tuned
//! readers; `control` (control and metadata records) uses the generated messages and `frame` on
//! top of them.

mod batch;
mod builder;
mod control;
mod legacy;
#[cfg(feature = "alloc")]
mod owned;
mod record;

pub use batch::RecordBatch;
pub use builder::{encode_records, records_encoded_len, BatchBuilder, BatchRecords, NewHeader, NewRecord};
pub use control::{
    parse_control_record, ControlRecord, ControlRecordType, ControlRecords, ControlValue, MetadataRecords,
};
pub use legacy::LegacyMessage;
#[cfg(feature = "alloc")]
pub use owned::{OwnedBatch, OwnedBatchRecords, OwnedHeader, OwnedRecord, OwnedRecordBatch};
pub use record::{Header, HeaderIter, Headers, Record, RecordIter, Records};

use crate::error::{DecodeError, DecodeErrorKind as K};
use crate::grammar;
use ::nom::bytes::complete::take;
use ::nom::number::complete as num;
use ::nom::sequence::preceded;
use ::nom::Parser;

/// Bytes before a batch's or message's own length field counts: base offset (8) and length (4).
pub const LOG_OVERHEAD: usize = 12;
/// Size of a magic 2 batch header, from the base offset to the record count.
pub const RECORD_BATCH_OVERHEAD: usize = 61;
/// Smallest legacy message size (magic 0: crc, magic, attributes, key and value lengths).
pub const LEGACY_V0_MIN_SIZE: usize = 14;
/// Smallest legacy message size at magic 1 (magic 0 plus the timestamp).
pub const LEGACY_V1_MIN_SIZE: usize = 22;
/// Smallest possible record: one byte each for length, attributes, timestamp delta, offset
/// delta, key length, value length and header count.
pub const MIN_RECORD_SIZE: usize = 7;

/// The message name magic 2 errors carry.
pub(crate) const V2_NAME: &str = "RecordBatch";
/// The message name magic 0 and 1 errors carry.
pub(crate) const LEGACY_NAME: &str = "MessageSet";

#[cfg(all(not(feature = "std"), target_pointer_width = "64"))]
type CrcTable = crc::Table<16>;
#[cfg(all(not(feature = "std"), not(target_pointer_width = "64")))]
type CrcTable = crc::Table<1>;

/// CRC-32C (Castagnoli) without `std`: 16 KiB of tables (slice-by-16) on 64-bit targets, 1 KiB on
/// smaller ones.
#[cfg(not(feature = "std"))]
static CRC32C: crc::Crc<u32, CrcTable> = crc::Crc::<u32, CrcTable>::new(&crc::CRC_32_ISCSI);
/// CRC-32 (IEEE), for legacy messages only: the small table.
static CRC32_IEEE: crc::Crc<u32, crc::Table<1>> = crc::Crc::<u32, crc::Table<1>>::new(&crc::CRC_32_ISO_HDLC);

/// CRC-32C (Castagnoli) of `bytes`, as magic 2 batches use it (over attributes..end). With `std`,
/// through the `crc32c` crate, which uses the CPU's CRC-32C instruction where it finds one at run
/// time (SSE 4.2 on x86-64; 30 times fewer instructions than the table on a 1 KiB record's batch);
/// without, a slice-by-16 table (slice-by-1 on 32-bit targets).
#[inline]
pub fn crc32c(bytes: &[u8]) -> u32 {
    #[cfg(feature = "std")]
    {
        crc32c::crc32c(bytes)
    }
    #[cfg(not(feature = "std"))]
    {
        CRC32C.checksum(bytes)
    }
}

/// CRC-32 (IEEE) of `bytes`, as legacy messages use it (over magic..end).
pub fn crc32_ieee(bytes: &[u8]) -> u32 {
    CRC32_IEEE.checksum(bytes)
}

/// A compression codec: bits 0–2 of a batch's attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Compression {
    /// Uncompressed (0).
    None,
    /// GZIP (1).
    Gzip,
    /// Snappy (2); Kafka's Java client frames it the xerial way.
    Snappy,
    /// LZ4 (3), in the LZ4 frame format.
    Lz4,
    /// Zstandard (4); magic 2 only.
    Zstd,
}

impl Compression {
    /// Every codec, by id.
    pub const ALL: [Compression; 5] = [
        Compression::None,
        Compression::Gzip,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ];

    /// The codec with this id (0–4).
    pub const fn from_id(id: u8) -> Option<Self> {
        match id {
            0 => Some(Compression::None),
            1 => Some(Compression::Gzip),
            2 => Some(Compression::Snappy),
            3 => Some(Compression::Lz4),
            4 => Some(Compression::Zstd),
            _ => None,
        }
    }

    /// The codec's id.
    pub const fn id(self) -> u8 {
        match self {
            Compression::None => 0,
            Compression::Gzip => 1,
            Compression::Snappy => 2,
            Compression::Lz4 => 3,
            Compression::Zstd => 4,
        }
    }

    /// The name Kafka's configuration uses: `none`, `gzip`, `snappy`, `lz4`, `zstd`.
    pub const fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Snappy => "snappy",
            Compression::Lz4 => "lz4",
            Compression::Zstd => "zstd",
        }
    }
}

/// What a batch's timestamps mean: bit 3 of the attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimestampType {
    /// Set by the producer.
    CreateTime,
    /// Set by the broker when it appended the batch (then `max_timestamp` is that time).
    LogAppendTime,
}

impl TimestampType {
    /// `CreateTime` or `LogAppendTime`, as Kafka prints it.
    pub const fn name(self) -> &'static str {
        match self {
            TimestampType::CreateTime => "CreateTime",
            TimestampType::LogAppendTime => "LogAppendTime",
        }
    }
}

/// A magic 2 batch's `int16` attributes.
///
/// Bits 0–2: compression codec; bit 3: timestamp type; bit 4: transactional; bit 5: control;
/// bit 6: the base timestamp is the delete horizon. Other bits are kept as they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Attributes(pub i16);

impl Attributes {
    const CODEC: i16 = 0x07;
    const TIMESTAMP_TYPE: i16 = 0x08;
    const TRANSACTIONAL: i16 = 0x10;
    const CONTROL: i16 = 0x20;
    const DELETE_HORIZON: i16 = 0x40;

    /// No bit set: uncompressed, create time, not transactional, not control.
    pub const NONE: Attributes = Attributes(0);

    /// The compression codec; `None` for the codec ids 5–7, which nothing defines.
    pub const fn compression(self) -> Option<Compression> {
        Compression::from_id((self.0 & Self::CODEC) as u8)
    }
    /// The timestamp type.
    pub const fn timestamp_type(self) -> TimestampType {
        if self.0 & Self::TIMESTAMP_TYPE != 0 {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        }
    }
    /// True for a batch written inside a transaction.
    pub const fn is_transactional(self) -> bool {
        self.0 & Self::TRANSACTIONAL != 0
    }
    /// True for a control batch (transaction markers, raft control records).
    pub const fn is_control(self) -> bool {
        self.0 & Self::CONTROL != 0
    }
    /// True when the base timestamp is the delete horizon (set by log compaction).
    pub const fn has_delete_horizon(self) -> bool {
        self.0 & Self::DELETE_HORIZON != 0
    }

    const fn with(self, bit: i16, on: bool) -> Self {
        Attributes(if on { self.0 | bit } else { self.0 & !bit })
    }
    /// With the codec bits set to `c`.
    pub const fn with_compression(self, c: Compression) -> Self {
        Attributes((self.0 & !Self::CODEC) | c.id() as i16)
    }
    /// With the timestamp type bit set to `t`.
    pub const fn with_timestamp_type(self, t: TimestampType) -> Self {
        self.with(Self::TIMESTAMP_TYPE, matches!(t, TimestampType::LogAppendTime))
    }
    /// With the transactional bit set to `on`.
    pub const fn with_transactional(self, on: bool) -> Self {
        self.with(Self::TRANSACTIONAL, on)
    }
    /// With the control bit set to `on`.
    pub const fn with_control(self, on: bool) -> Self {
        self.with(Self::CONTROL, on)
    }
    /// With the delete-horizon bit set to `on`.
    pub const fn with_delete_horizon(self, on: bool) -> Self {
        self.with(Self::DELETE_HORIZON, on)
    }
}

/// One item of record bytes, as [`Batches`] yields it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Batch<'a> {
    /// A magic 2 record batch.
    V2(RecordBatch<'a>),
    /// A magic 0 or 1 message (possibly a compressed wrapper).
    Legacy(LegacyMessage<'a>),
    /// The input ended inside this batch: always the last item. Normal at the end of a Fetch
    /// response; an error under [`Batches::strict`].
    Truncated(Truncated<'a>),
}

/// The partial batch the input ended with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Truncated<'a> {
    /// Byte offset of the partial batch in the input.
    pub position: usize,
    /// Its bytes (fewer than it needs).
    pub bytes: &'a [u8],
}

impl Truncated<'_> {
    /// The Kafka offset the partial batch starts at, when its first 8 bytes are there.
    pub fn base_offset(&self) -> Option<i64> {
        num::be_i64::<&[u8], DecodeError>(self.bytes).ok().map(|(_, v)| v)
    }
    /// The batch length it declares, when its first 12 bytes are there.
    pub fn batch_length(&self) -> Option<i32> {
        let mut at_length = preceded(take::<usize, &[u8], DecodeError>(8), num::be_i32::<&[u8], DecodeError>);
        at_length.parse(self.bytes).ok().map(|(_, v)| v)
    }
}

/// A lazy iterator over the batches (or legacy messages) in record bytes; see the
/// [module docs](self).
#[derive(Clone, Debug)]
pub struct Batches<'a> {
    input: &'a [u8],
    pos: usize,
    strict: bool,
    verify_crc: bool,
    walk: bool,
    done: bool,
}

impl<'a> Batches<'a> {
    /// Batches in `input`; a partial last batch is yielded as [`Batch::Truncated`], as in a Fetch
    /// response.
    pub const fn new(input: &'a [u8]) -> Self {
        Batches {
            input,
            pos: 0,
            strict: false,
            verify_crc: true,
            walk: true,
            done: false,
        }
    }

    /// Batches in `input`, which must end on a batch boundary (a Produce request's records): a
    /// partial last batch is an error ([`DecodeErrorKind::UnexpectedEof`](crate::DecodeErrorKind::UnexpectedEof) with fewer than 12
    /// bytes, else [`DecodeErrorKind::LengthExceedsInput`](crate::DecodeErrorKind::LengthExceedsInput) at its `batch_length`).
    pub const fn strict(input: &'a [u8]) -> Self {
        Batches {
            input,
            pos: 0,
            strict: true,
            verify_crc: true,
            walk: true,
            done: false,
        }
    }

    /// Batches in `input` read in `mode`: [`Mode::Strict`](crate::Mode::Strict) is
    /// [`Batches::strict`], [`Mode::Lenient`](crate::Mode::Lenient) is [`Batches::new`].
    pub const fn with_mode(input: &'a [u8], mode: crate::Mode) -> Self {
        match mode {
            crate::Mode::Strict => Self::strict(input),
            crate::Mode::Lenient => Self::new(input),
        }
    }

    /// Turns CRC verification on (the default) or off. It is always off under `cfg(fuzzing)`.
    pub const fn verify_crc(mut self, on: bool) -> Self {
        self.verify_crc = on;
        self
    }

    /// For bytes that an earlier `Batches` over the same input read without an error: CRCs are
    /// not computed again and the records of uncompressed batches are not walked until they are
    /// iterated. On other bytes nothing panics, but a record that does not read ends its batch's
    /// iteration early, silently.
    pub const fn revisit(mut self) -> Self {
        self.verify_crc = false;
        self.walk = false;
        self
    }

    /// Byte offset of the next batch in the input (the input's length once all is read).
    pub const fn position(&self) -> usize {
        self.pos
    }

    /// The bytes not yet read.
    pub fn remaining(&self) -> &'a [u8] {
        self.input.get(self.pos..).unwrap_or(&[])
    }

    fn step(&mut self) -> Result<Option<Batch<'a>>, DecodeError> {
        let rest = self.remaining();
        let pos = self.pos;
        if rest.is_empty() {
            return Ok(None);
        }
        let (size, total) = match frame(rest, pos, self.strict)? {
            Framing::Whole { size, total } => (size, total),
            Framing::Truncated => {
                self.pos = self.input.len();
                return Ok(Some(Batch::Truncated(Truncated {
                    position: pos,
                    bytes: rest,
                })));
            }
        };
        let bytes = rest.get(..total).unwrap_or(rest);
        let magic = bytes.get(16).copied().unwrap_or(0) as i8;
        let item = match magic {
            2 => {
                if (size as usize) < RECORD_BATCH_OVERHEAD - LOG_OVERHEAD {
                    return Err(DecodeError::new_at(
                        K::InvalidFrame { value: i64::from(size) },
                        pos + 8,
                        V2_NAME,
                        2,
                        "batch_length",
                    ));
                }
                Batch::V2(batch::parse_v2(bytes, pos, self.verify_crc, self.walk)?)
            }
            0 | 1 => Batch::Legacy(legacy::parse(bytes, pos, self.verify_crc)?),
            m => {
                return Err(DecodeError::new_at(
                    K::UnsupportedVersion { version: i32::from(m) },
                    pos + 16,
                    V2_NAME,
                    -1,
                    "magic",
                ))
            }
        };
        self.pos = pos + total;
        Ok(Some(item))
    }
}

impl<'a> Iterator for Batches<'a> {
    type Item = Result<Batch<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.step() {
            Ok(Some(b)) => {
                if matches!(b, Batch::Truncated(_)) {
                    self.done = true;
                }
                Some(Ok(b))
            }
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

impl core::iter::FusedIterator for Batches<'_> {}

pub(crate) enum Framing {
    Whole { size: i32, total: usize },
    Truncated,
}

/// Reads the 12-byte log overhead at the front of `rest` (at `pos` in the input; a nom sequence
/// of the base offset and the batch length) and decides:
/// a whole batch of `total` bytes, a truncated one, or an error.
pub(crate) fn frame(rest: &[u8], pos: usize, strict: bool) -> Result<Framing, DecodeError> {
    let mut log_overhead = preceded(grammar::be_i64("base_offset"), grammar::be_i32("batch_length"));
    let Ok((_, size)) = log_overhead.parse(rest) else {
        if strict {
            let needed = LOG_OVERHEAD - rest.len();
            return Err(DecodeError::new_at(
                K::UnexpectedEof { needed },
                pos + rest.len(),
                V2_NAME,
                -1,
                "batch_length",
            ));
        }
        return Ok(Framing::Truncated);
    };
    if size < LEGACY_V0_MIN_SIZE as i32 {
        return Err(DecodeError::new_at(
            K::InvalidFrame { value: i64::from(size) },
            pos + 8,
            V2_NAME,
            -1,
            "batch_length",
        ));
    }
    let total = LOG_OVERHEAD + size as usize;
    if total > rest.len() {
        if strict {
            return Err(DecodeError::new_at(
                K::LengthExceedsInput {
                    length: i64::from(size),
                },
                pos + 8,
                V2_NAME,
                -1,
                "batch_length",
            ));
        }
        return Ok(Framing::Truncated);
    }
    Ok(Framing::Whole { size, total })
}
