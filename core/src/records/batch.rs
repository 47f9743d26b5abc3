//! Magic 2 record batches.

use super::record::{self, Record, Records};
use super::{
    crc32c, frame, Attributes, Compression, Framing, TimestampType, LOG_OVERHEAD, MIN_RECORD_SIZE,
    RECORD_BATCH_OVERHEAD, V2_NAME,
};
use crate::error::{DecodeError, DecodeErrorKind as K};

/// A magic 2 record batch, validated: every header field, the CRC (unless turned off), the
/// attributes, and for an uncompressed batch all of its records.
///
/// ```text
/// baseOffset: int64            batchLength: int32 (bytes after this field)
/// partitionLeaderEpoch: int32  magic: int8 (2)     crc: uint32 (CRC-32C of attributes..end)
/// attributes: int16            lastOffsetDelta: int32
/// baseTimestamp: int64         maxTimestamp: int64
/// producerId: int64            producerEpoch: int16  baseSequence: int32
/// recordCount: int32           records...
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordBatch<'a> {
    /// Offset of the first record.
    pub base_offset: i64,
    /// Bytes after the length field (the whole batch is 12 bytes more).
    pub batch_length: i32,
    /// The partition leader epoch the batch was written in.
    pub partition_leader_epoch: i32,
    /// The magic byte: 2.
    pub magic: i8,
    /// The CRC-32C in the batch (checked unless verification was turned off).
    pub crc: u32,
    /// The attributes (codec checked to be 0–4).
    pub attributes: Attributes,
    /// Offset of the last record minus the base offset.
    pub last_offset_delta: i32,
    /// Timestamp of the first record, or the delete horizon when that attribute is set.
    pub base_timestamp: i64,
    /// Largest timestamp in the batch (the append time under `LogAppendTime`).
    pub max_timestamp: i64,
    /// Producer id, or -1.
    pub producer_id: i64,
    /// Producer epoch, or -1.
    pub producer_epoch: i16,
    /// Sequence number of the first record, or -1.
    pub base_sequence: i32,
    /// Number of records (checked against the bytes when uncompressed; never negative).
    pub record_count: i32,
    bytes: &'a [u8],
    position: usize,
    records: Option<Records<'a>>,
}

impl<'a> RecordBatch<'a> {
    /// Parses one magic 2 batch at the front of `bytes` (CRC checked) and returns it with the
    /// bytes after it. Offsets in errors are from the start of `bytes`. A batch length larger
    /// than the bytes there is [`DecodeErrorKind::LengthExceedsInput`](crate::DecodeErrorKind);
    /// use [`Batches`](super::Batches) to treat that as a truncated Fetch tail instead.
    pub fn parse(bytes: &'a [u8]) -> Result<(Self, &'a [u8]), DecodeError> {
        Self::parse_with(bytes, true)
    }

    /// As [`RecordBatch::parse`], checking the CRC only when `verify_crc` is true.
    pub fn parse_with(bytes: &'a [u8], verify_crc: bool) -> Result<(Self, &'a [u8]), DecodeError> {
        let Framing::Whole { size, total } = frame(bytes, 0, true)? else {
            // Strict framing never reports a truncation.
            return Err(DecodeError::new_at(
                K::UnexpectedEof { needed: LOG_OVERHEAD },
                0,
                V2_NAME,
                2,
                "batch_length",
            ));
        };
        let magic = bytes.get(16).copied().unwrap_or(0) as i8;
        if magic != 2 {
            return Err(DecodeError::new_at(
                K::UnsupportedVersion {
                    version: i32::from(magic),
                },
                16,
                V2_NAME,
                -1,
                "magic",
            ));
        }
        if (size as usize) < RECORD_BATCH_OVERHEAD - LOG_OVERHEAD {
            return Err(DecodeError::new_at(
                K::InvalidFrame { value: i64::from(size) },
                8,
                V2_NAME,
                2,
                "batch_length",
            ));
        }
        let (b, rest) = bytes.split_at_checked(total).unwrap_or((bytes, &[]));
        Ok((parse_v2(b, 0, verify_crc, true)?, rest))
    }

    /// The whole batch's bytes, as it was read (for forwarding it unchanged).
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }
    /// Byte offset of the batch in the input it was read from.
    pub fn position(&self) -> usize {
        self.position
    }
    /// The whole batch's size in bytes (`batch_length + 12`).
    pub fn size_in_bytes(&self) -> usize {
        self.bytes.len()
    }
    /// The records section: the records themselves, or their compressed form.
    pub fn records_bytes(&self) -> &'a [u8] {
        self.bytes.get(RECORD_BATCH_OVERHEAD..).unwrap_or(&[])
    }
    /// The records, validated, for an uncompressed batch; `None` when compressed (decompress
    /// [`RecordBatch::records_bytes`] and call [`Records::parse`] with
    /// [`RecordBatch::record_count`]).
    pub fn records(&self) -> Option<Records<'a>> {
        self.records
    }
    /// The compression codec.
    pub fn compression(&self) -> Compression {
        self.attributes.compression().unwrap_or(Compression::None)
    }
    /// The codec and the compressed record bytes, for a compressed batch.
    pub fn compressed_records(&self) -> Option<(Compression, &'a [u8])> {
        match self.compression() {
            Compression::None => None,
            c => Some((c, self.records_bytes())),
        }
    }
    /// The timestamp type.
    pub fn timestamp_type(&self) -> TimestampType {
        self.attributes.timestamp_type()
    }
    /// True for a transactional batch.
    pub fn is_transactional(&self) -> bool {
        self.attributes.is_transactional()
    }
    /// True for a control batch.
    pub fn is_control(&self) -> bool {
        self.attributes.is_control()
    }
    /// True when the base timestamp is the delete horizon.
    pub fn has_delete_horizon(&self) -> bool {
        self.attributes.has_delete_horizon()
    }
    /// The delete horizon, when the batch has one.
    pub fn delete_horizon_ms(&self) -> Option<i64> {
        self.has_delete_horizon().then_some(self.base_timestamp)
    }
    /// Offset of the last record (`base_offset + last_offset_delta`).
    pub fn last_offset(&self) -> i64 {
        self.base_offset.wrapping_add(i64::from(self.last_offset_delta))
    }
    /// The offset after the batch.
    pub fn next_offset(&self) -> i64 {
        self.last_offset().wrapping_add(1)
    }
    /// Sequence number of the last record, or -1 (wrapping at `i32::MAX` as Kafka does).
    pub fn last_sequence(&self) -> i32 {
        if self.base_sequence < 0 {
            return -1;
        }
        let last = i64::from(self.base_sequence) + i64::from(self.last_offset_delta);
        if last > i64::from(i32::MAX) {
            (last - i64::from(i32::MAX) - 1) as i32
        } else {
            last as i32
        }
    }
    /// The CRC-32C of the batch's bytes as they are (equal to [`RecordBatch::crc`] when the batch
    /// is intact).
    pub fn computed_crc(&self) -> u32 {
        crc32c(self.bytes.get(21..).unwrap_or(&[]))
    }
    /// True when the stored CRC matches the bytes.
    pub fn is_crc_valid(&self) -> bool {
        self.computed_crc() == self.crc
    }
    /// The absolute offset of a record of this batch.
    pub fn offset_of(&self, r: &Record<'_>) -> i64 {
        self.base_offset.wrapping_add(i64::from(r.offset_delta))
    }
    /// The timestamp of a record of this batch: `max_timestamp` under `LogAppendTime`, else the
    /// base timestamp plus the record's delta.
    pub fn timestamp_of(&self, r: &Record<'_>) -> i64 {
        match self.timestamp_type() {
            TimestampType::LogAppendTime => self.max_timestamp,
            TimestampType::CreateTime => self.base_timestamp.wrapping_add(r.timestamp_delta),
        }
    }
}

/// The 61-byte magic 2 batch header (base offset to record count), read at fixed offsets after
/// one bounds check; returns it and the records' bytes. Both callers have checked that the
/// frame holds a whole header; a shorter `b` is still an error, naming the first field that
/// runs out.
#[inline(always)]
fn batch_header(b: &[u8]) -> Result<(Header, &[u8]), DecodeError> {
    use crate::read::{i16_at, i32_at, i64_at, i8_at, u32_at};
    const N: usize = RECORD_BATCH_OVERHEAD;
    let Some((h, records)) = b.split_first_chunk::<N>() else {
        return Err(crate::read::short_run_table(&mut { b }, HEADER_FIELDS));
    };
    let header = (
        i64_at::<N, 0>(h),
        i32_at::<N, 8>(h),
        i32_at::<N, 12>(h),
        i8_at::<N, 16>(h),
        u32_at::<N, 17>(h),
        i16_at::<N, 21>(h),
        i32_at::<N, 23>(h),
        i64_at::<N, 27>(h),
        i64_at::<N, 35>(h),
        i64_at::<N, 43>(h),
        i16_at::<N, 51>(h),
        i32_at::<N, 53>(h),
        i32_at::<N, 57>(h),
    );
    Ok((header, records))
}

/// A magic 2 batch header's fields, in wire order.
type Header = (i64, i32, i32, i8, u32, i16, i32, i64, i64, i64, i16, i32, i32);

/// The header's fields and their widths, in wire order (61 bytes).
const HEADER_FIELDS: &[(&str, u8)] = &[
    ("base_offset", 8),
    ("batch_length", 4),
    ("partition_leader_epoch", 4),
    ("magic", 1),
    ("crc", 4),
    ("attributes", 2),
    ("last_offset_delta", 4),
    ("base_timestamp", 8),
    ("max_timestamp", 8),
    ("producer_id", 8),
    ("producer_epoch", 2),
    ("base_sequence", 4),
    ("record_count", 4),
];

/// Parses `b`, exactly one magic 2 batch whose framing was checked, found at `pos` in the input.
/// `walk`: validate the records section now (off only for bytes an earlier pass validated).
pub(crate) fn parse_v2(b: &[u8], pos: usize, verify_crc: bool, walk: bool) -> Result<RecordBatch<'_>, DecodeError> {
    let end = pos + b.len();
    let (header, records_bytes) = batch_header(b).map_err(|e| e.finish(end, V2_NAME, 2))?;
    let (
        base_offset,
        batch_length,
        partition_leader_epoch,
        magic,
        crc,
        attributes,
        last_offset_delta,
        base_timestamp,
        max_timestamp,
        producer_id,
        producer_epoch,
        base_sequence,
        record_count,
    ) = header;
    let attributes = Attributes(attributes);

    #[cfg(not(fuzzing))]
    if verify_crc {
        let computed = crc32c(b.get(21..).unwrap_or(&[]));
        if computed != crc {
            return Err(DecodeError::new_at(
                K::InvalidFrame { value: i64::from(crc) },
                pos,
                V2_NAME,
                2,
                "crc",
            ));
        }
    }
    #[cfg(fuzzing)]
    let _ = verify_crc;

    let Some(codec) = attributes.compression() else {
        return Err(DecodeError::new_at(
            K::InvalidFrame {
                value: i64::from(attributes.0 & 0x07),
            },
            pos + 21,
            V2_NAME,
            2,
            "attributes",
        ));
    };
    if record_count < 0 {
        return Err(DecodeError::new_at(
            K::InvalidFrame {
                value: i64::from(record_count),
            },
            pos + 57,
            V2_NAME,
            2,
            "record_count",
        ));
    }
    let records = if codec == Compression::None {
        if record_count as usize > records_bytes.len() / MIN_RECORD_SIZE {
            return Err(DecodeError::new_at(
                K::LengthExceedsInput {
                    length: i64::from(record_count),
                },
                pos + 57,
                V2_NAME,
                2,
                "record_count",
            ));
        }
        Some(if walk {
            record::validate(records_bytes, record_count as u32, pos + RECORD_BATCH_OVERHEAD, V2_NAME)?
        } else {
            Records::validated(records_bytes, record_count as u32, pos + RECORD_BATCH_OVERHEAD)
        })
    } else {
        None
    };
    Ok(RecordBatch {
        base_offset,
        batch_length,
        partition_leader_epoch,
        magic,
        crc,
        attributes,
        last_offset_delta,
        base_timestamp,
        max_timestamp,
        producer_id,
        producer_epoch,
        base_sequence,
        record_count,
        bytes: b,
        position: pos,
        records,
    })
}

#[cfg(test)]
mod tests {
    use super::{parse_v2, HEADER_FIELDS, RECORD_BATCH_OVERHEAD};
    use crate::error::DecodeErrorKind;

    /// The header table covers the 61 bytes, and a header cut anywhere is an error at the start
    /// of the field that runs out, with the bytes it lacks.
    #[test]
    fn a_short_header_names_the_field_that_runs_out() {
        let widths: usize = HEADER_FIELDS.iter().map(|&(_, w)| usize::from(w)).sum();
        assert_eq!(widths, RECORD_BATCH_OVERHEAD);
        let bytes = [0u8; RECORD_BATCH_OVERHEAD];
        let mut start = 0;
        for &(field, w) in HEADER_FIELDS {
            let end = start + usize::from(w);
            for cut in start..end {
                let e = parse_v2(&bytes[..cut], 100, false, true).unwrap_err();
                assert_eq!(e.kind(), DecodeErrorKind::UnexpectedEof { needed: end - cut }, "{cut}");
                assert_eq!((e.field(), e.offset()), (field, 100 + start), "{cut}");
                assert_eq!((e.message(), e.version()), ("RecordBatch", 2), "{cut}");
            }
            start = end;
        }
    }
}
