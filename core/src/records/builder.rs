//! Writing magic 2 batches into caller buffers.

use super::{crc32c, Attributes, Compression, RECORD_BATCH_OVERHEAD, V2_NAME};
use crate::error::{EncodeError, EncodeErrorKind as K};
use crate::write::{varint_size, varlong_size, Sink, Writer};

/// A header to write: borrowed key and value (`None` is null).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewHeader<'a> {
    /// The key (Kafka's header keys are UTF-8 strings; any bytes are written as they are).
    pub key: &'a [u8],
    /// The value; `None` is null.
    pub value: Option<&'a [u8]>,
}

impl<'a> NewHeader<'a> {
    /// A header with a string key.
    pub const fn new(key: &'a str, value: Option<&'a [u8]>) -> Self {
        NewHeader {
            key: key.as_bytes(),
            value,
        }
    }
}

/// A record to write, from borrowed data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewRecord<'a> {
    /// The record's attributes byte (0; Kafka defines no bits).
    pub attributes: i8,
    /// Timestamp minus the batch's base timestamp.
    pub timestamp_delta: i64,
    /// Offset minus the batch's base offset (Kafka producers write 0, 1, 2, …).
    pub offset_delta: i32,
    /// The key; `None` is null.
    pub key: Option<&'a [u8]>,
    /// The value; `None` is null.
    pub value: Option<&'a [u8]>,
    /// The headers.
    pub headers: &'a [NewHeader<'a>],
}

impl<'a> NewRecord<'a> {
    /// Deltas 0, key and value null, no headers.
    pub const DEFAULT: NewRecord<'static> = NewRecord {
        attributes: 0,
        timestamp_delta: 0,
        offset_delta: 0,
        key: None,
        value: None,
        headers: &[],
    };

    /// Size after the length varint.
    fn body_size(&self) -> Result<usize, EncodeError> {
        let mut n = 1 + varlong_size(self.timestamp_delta) + varint_size(self.offset_delta);
        n = add(n, nullable_size(self.key, "records[].key")?)?;
        n = add(n, nullable_size(self.value, "records[].value")?)?;
        n = add(n, varint_size(len_i32(self.headers.len(), "records[].headers")?))?;
        for h in self.headers {
            n = add(n, nullable_size(Some(h.key), "records[].headers[].key")?)?;
            n = add(n, nullable_size(h.value, "records[].headers[].value")?)?;
        }
        len_i32(n, "records[].length")?;
        Ok(n)
    }

    /// The record's encoded size, its length varint included.
    pub fn encoded_len(&self) -> Result<usize, EncodeError> {
        let body = self.body_size()?;
        add(varint_size(body as i32), body)
    }

    fn write(&self, w: &mut Writer<'_>, body: usize) {
        w.varint(body as i32, "records[].length");
        w.i8(self.attributes, "records[].attributes");
        w.varlong(self.timestamp_delta, "records[].timestamp_delta");
        w.varint(self.offset_delta, "records[].offset_delta");
        write_nullable(w, self.key, "records[].key");
        write_nullable(w, self.value, "records[].value");
        w.varint(self.headers.len() as i32, "records[].headers");
        for h in self.headers {
            write_nullable(w, Some(h.key), "records[].headers[].key");
            write_nullable(w, h.value, "records[].headers[].value");
        }
    }
}

fn add(a: usize, b: usize) -> Result<usize, EncodeError> {
    a.checked_add(b)
        .ok_or_else(|| EncodeError::new(K::TooLong { length: usize::MAX }, "records"))
}

fn len_i32(n: usize, f: &'static str) -> Result<i32, EncodeError> {
    i32::try_from(n).map_err(|_| EncodeError::new(K::TooLong { length: n }, f))
}

fn nullable_size(b: Option<&[u8]>, f: &'static str) -> Result<usize, EncodeError> {
    match b {
        None => Ok(1),
        Some(b) => add(varint_size(len_i32(b.len(), f)?), b.len()),
    }
}

fn write_nullable(w: &mut Writer<'_>, b: Option<&[u8]>, f: &'static str) {
    match b {
        None => w.varint(-1, f),
        Some(b) => {
            w.varint(b.len() as i32, f);
            w.put(b, f)
        }
    }
}

/// The exact size of `records` encoded one after another (an uncompressed records section).
pub fn records_encoded_len(records: &[NewRecord<'_>]) -> Result<usize, EncodeError> {
    let mut n = 0usize;
    for r in records {
        n = add(n, r.encoded_len()?)?;
    }
    Ok(n)
}

fn write_records(w: &mut Writer<'_>, records: &[NewRecord<'_>]) {
    for r in records {
        let body = w.ok(r.body_size());
        r.write(w, body);
    }
}

/// Encodes `records` one after another into `sink` (to compress them, or to use them as a
/// batch's records section); returns the bytes written.
pub fn encode_records<S: Sink + ?Sized>(records: &[NewRecord<'_>], sink: &mut S) -> Result<usize, EncodeError> {
    let fin = |e: EncodeError| e.finish("Records", 2);
    let n = records_encoded_len(records).map_err(fin)?;
    let Some(buf) = sink.reserve(n) else {
        return Err(fin(EncodeError::new(K::BufferTooShort { needed: n }, "")));
    };
    let mut w = Writer::new(buf);
    write_records(&mut w, records);
    w.finish().map_err(fin)
}

/// Where a batch's records come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchRecords<'r> {
    /// Records to encode; the batch is uncompressed.
    Plain(&'r [NewRecord<'r>]),
    /// A records section already encoded (and compressed with `compression`, which goes into
    /// the attributes) holding `record_count` records, written as it is.
    Compressed {
        /// The codec the bytes are compressed with (`None`: they are plain encoded records).
        compression: Compression,
        /// How many records the bytes hold.
        record_count: i32,
        /// The bytes.
        bytes: &'r [u8],
    },
}

/// Writes one magic 2 record batch: header fields, records, and the CRC-32C, into any
/// [`Sink`], after computing the exact size.
///
/// The codec bits of [`BatchBuilder::attributes`] are ignored: they come from
/// [`BatchBuilder::records`]. `None` for `last_offset_delta` and `max_timestamp` means
/// "computed": the last record's offset delta (`record_count - 1` for compressed records) and
/// the base timestamp plus the largest timestamp delta (the base timestamp for compressed
/// records).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchBuilder<'r> {
    /// Offset of the first record.
    pub base_offset: i64,
    /// Partition leader epoch (-1 from producers).
    pub partition_leader_epoch: i32,
    /// Timestamp type, transactional, control and delete-horizon bits (codec bits ignored).
    pub attributes: Attributes,
    /// Offset of the last record minus the base offset; `None` to compute it.
    pub last_offset_delta: Option<i32>,
    /// Timestamp of the first record (or the delete horizon).
    pub base_timestamp: i64,
    /// Largest timestamp; `None` to compute it.
    pub max_timestamp: Option<i64>,
    /// Producer id, or -1.
    pub producer_id: i64,
    /// Producer epoch, or -1.
    pub producer_epoch: i16,
    /// First sequence number, or -1.
    pub base_sequence: i32,
    /// The records.
    pub records: BatchRecords<'r>,
}

impl<'r> BatchBuilder<'r> {
    /// Base offset 0, no partition leader epoch, no attributes, timestamps -1 and computed, no
    /// producer, no records.
    pub const DEFAULT: BatchBuilder<'static> = BatchBuilder {
        base_offset: 0,
        partition_leader_epoch: -1,
        attributes: Attributes::NONE,
        last_offset_delta: None,
        base_timestamp: -1,
        max_timestamp: None,
        producer_id: -1,
        producer_epoch: -1,
        base_sequence: -1,
        records: BatchRecords::Plain(&[]),
    };

    fn records_size(&self) -> Result<usize, EncodeError> {
        match self.records {
            BatchRecords::Plain(r) => records_encoded_len(r),
            BatchRecords::Compressed { bytes, .. } => Ok(bytes.len()),
        }
    }

    /// The exact size of the batch, after checking that it can be written.
    pub fn encoded_len(&self) -> Result<usize, EncodeError> {
        self.size().map_err(|e| e.finish(V2_NAME, 2))
    }

    fn size(&self) -> Result<usize, EncodeError> {
        let n = add(RECORD_BATCH_OVERHEAD, self.records_size()?)?;
        len_i32(n - 12, "batch_length")?;
        match self.records {
            BatchRecords::Plain(r) => {
                len_i32(r.len(), "record_count")?;
            }
            BatchRecords::Compressed { record_count, .. } => {
                if record_count < 0 {
                    return Err(EncodeError::new(K::NullNotAllowed, "record_count"));
                }
            }
        }
        Ok(n)
    }

    /// The attributes written: the given bits with the codec of the records.
    pub fn written_attributes(&self) -> Attributes {
        let c = match self.records {
            BatchRecords::Plain(_) => Compression::None,
            BatchRecords::Compressed { compression, .. } => compression,
        };
        self.attributes.with_compression(c)
    }

    /// The last offset delta written.
    pub fn written_last_offset_delta(&self) -> i32 {
        if let Some(d) = self.last_offset_delta {
            return d;
        }
        match self.records {
            BatchRecords::Plain(r) => r.last().map_or(0, |r| r.offset_delta),
            BatchRecords::Compressed { record_count, .. } => record_count.saturating_sub(1).max(0),
        }
    }

    /// The max timestamp written.
    pub fn written_max_timestamp(&self) -> i64 {
        if let Some(t) = self.max_timestamp {
            return t;
        }
        match self.records {
            BatchRecords::Plain(r) => match r.iter().map(|r| r.timestamp_delta).max() {
                Some(d) => self.base_timestamp.wrapping_add(d),
                None => self.base_timestamp,
            },
            BatchRecords::Compressed { .. } => self.base_timestamp,
        }
    }

    /// Encodes the batch into `sink`; returns the bytes written.
    pub fn encode<S: Sink + ?Sized>(&self, sink: &mut S) -> Result<usize, EncodeError> {
        let n = self.encoded_len()?;
        let Some(buf) = sink.reserve(n) else {
            return Err(EncodeError::new(K::BufferTooShort { needed: n }, "").finish(V2_NAME, 2));
        };
        self.write(buf).map_err(|e| e.finish(V2_NAME, 2))?;
        Ok(n)
    }

    /// Encodes the batch into the front of `buf`; returns the bytes written.
    pub fn encode_to_slice(&self, buf: &mut [u8]) -> Result<usize, EncodeError> {
        let mut s: &mut [u8] = buf;
        self.encode(&mut s)
    }

    fn write(&self, buf: &mut [u8]) -> Result<(), EncodeError> {
        let n = buf.len();
        let count = match self.records {
            BatchRecords::Plain(r) => r.len() as i32,
            BatchRecords::Compressed { record_count, .. } => record_count,
        };
        let mut w = Writer::new(&mut *buf);
        // The 61-byte header, base offset to record count, with one bounds check (the CRC is
        // filled in last).
        if let Some(h) = w.run::<RECORD_BATCH_OVERHEAD>("base_offset") {
            self.header(h, n, count);
        }
        match self.records {
            BatchRecords::Plain(r) => write_records(&mut w, r),
            BatchRecords::Compressed { bytes, .. } => w.put(bytes, "records"),
        }
        w.finish()?;
        fill_crc(buf);
        Ok(())
    }

    /// The header of a batch of `n` bytes holding `count` records, CRC left as it is.
    fn header(&self, h: &mut [u8; RECORD_BATCH_OVERHEAD], n: usize, count: i32) {
        put(h, 0, self.base_offset.to_be_bytes());
        put(h, 8, ((n - 12) as i32).to_be_bytes());
        put(h, 12, self.partition_leader_epoch.to_be_bytes());
        put(h, 16, [2]); // magic
        put(h, 21, self.written_attributes().0.to_be_bytes());
        put(h, 23, self.written_last_offset_delta().to_be_bytes());
        put(h, 27, self.base_timestamp.to_be_bytes());
        put(h, 35, self.written_max_timestamp().to_be_bytes());
        put(h, 43, self.producer_id.to_be_bytes());
        put(h, 51, self.producer_epoch.to_be_bytes());
        put(h, 53, self.base_sequence.to_be_bytes());
        put(h, 57, count.to_be_bytes());
    }

    /// Writes the header and the CRC of a batch whose records are already in place: `batch` is
    /// the whole batch, its first [`RECORD_BATCH_OVERHEAD`] bytes room for the header and the
    /// rest `record_count` records, encoded one after another ([`encode_records`]) and
    /// compressed with `compression` (or not, with [`Compression::None`]).
    ///
    /// `self.records` is not read: the records are those in `batch`. `None` for
    /// `last_offset_delta` means `record_count - 1`, and for `max_timestamp` the base
    /// timestamp. For a producer that appends records to a batch buffer as they come and
    /// stamps the producer id, epoch and sequence when it sends the batch (again, on a retry),
    /// without copying the records.
    pub fn seal_in_place(
        &self,
        batch: &mut [u8],
        compression: Compression,
        record_count: i32,
    ) -> Result<(), EncodeError> {
        let fin = |e: EncodeError| e.finish(V2_NAME, 2);
        let n = batch.len();
        if n < RECORD_BATCH_OVERHEAD {
            return Err(fin(EncodeError::new(
                K::BufferTooShort {
                    needed: RECORD_BATCH_OVERHEAD,
                },
                "",
            )));
        }
        len_i32(n - 12, "batch_length").map_err(fin)?;
        if record_count < 0 {
            return Err(fin(EncodeError::new(K::NullNotAllowed, "record_count")));
        }
        let this = BatchBuilder {
            records: BatchRecords::Compressed {
                compression,
                record_count,
                bytes: &[],
            },
            ..*self
        };
        if let Some(h) = batch.first_chunk_mut::<RECORD_BATCH_OVERHEAD>() {
            this.header(h, n, record_count);
        }
        fill_crc(batch);
        Ok(())
    }
}

/// Computes a whole batch's CRC-32C (attributes to the end) into its CRC field.
fn fill_crc(batch: &mut [u8]) {
    let crc = crc32c(batch.get(21..).unwrap_or(&[]));
    if let Some(dst) = batch.get_mut(17..21) {
        dst.copy_from_slice(&crc.to_be_bytes());
    }
}

/// Copies `b` into the batch header `h` at the constant offset `at`.
#[inline(always)]
fn put<const W: usize>(h: &mut [u8; RECORD_BATCH_OVERHEAD], at: usize, b: [u8; W]) {
    if let Some(d) = h.get_mut(at..at + W) {
        d.copy_from_slice(&b);
    }
}
