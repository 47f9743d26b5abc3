//! Records inside an uncompressed (or decompressed) magic 2 batch, and their headers.
//!
//! Below `control`, which adds the decoding of control and metadata records to these types.

use super::MIN_RECORD_SIZE;
use crate::error::{DecodeError, DecodeErrorKind as K};
use crate::read;

/// The validated records of one batch: iterate them with [`Records::iter`], which cannot fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Records<'a> {
    bytes: &'a [u8],
    count: u32,
    base: usize,
}

impl<'a> Records<'a> {
    /// Records that an earlier pass validated (`validate` returned them for the same bytes).
    pub(crate) const fn validated(bytes: &'a [u8], count: u32, base: usize) -> Self {
        Records { bytes, count, base }
    }
    /// Validates `bytes` as exactly `count` records (the records section of an uncompressed
    /// batch, or a compressed one's records once decompressed). Offsets in errors, and
    /// [`Record::position`], are from the start of `bytes`.
    ///
    /// A negative count is [`DecodeErrorKind::InvalidFrame`](crate::DecodeErrorKind); a count
    /// larger than the bytes could hold is
    /// [`DecodeErrorKind::LengthExceedsInput`](crate::DecodeErrorKind) at once; bytes left after
    /// the last record are [`DecodeErrorKind::TrailingBytes`](crate::DecodeErrorKind).
    pub fn parse(bytes: &'a [u8], count: i32) -> Result<Self, DecodeError> {
        if count < 0 {
            return Err(DecodeError::new_at(
                K::InvalidFrame {
                    value: i64::from(count),
                },
                0,
                "Records",
                -1,
                "record_count",
            ));
        }
        if count as usize > bytes.len() / MIN_RECORD_SIZE {
            return Err(DecodeError::new_at(
                K::LengthExceedsInput {
                    length: i64::from(count),
                },
                0,
                "Records",
                -1,
                "record_count",
            ));
        }
        validate(bytes, count as u32, 0, "Records")
    }

    /// The number of records.
    pub fn len(&self) -> usize {
        self.count as usize
    }
    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    /// The records' bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }
    /// The records, in order.
    pub fn iter(&self) -> RecordIter<'a> {
        RecordIter {
            rest: self.bytes,
            left: self.count,
            pos: self.base,
        }
    }
}

impl<'a> IntoIterator for Records<'a> {
    type Item = Record<'a>;
    type IntoIter = RecordIter<'a>;
    fn into_iter(self) -> RecordIter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &Records<'a> {
    type Item = Record<'a>;
    type IntoIter = RecordIter<'a>;
    fn into_iter(self) -> RecordIter<'a> {
        self.iter()
    }
}

/// One record, borrowed from the batch.
///
/// ```text
/// length: varint (bytes after it)   attributes: int8
/// timestampDelta: varlong           offsetDelta: varint
/// keyLength: varint (-1 = null)     key: bytes
/// valueLength: varint (-1 = null)   value: bytes
/// headerCount: varint               headers: [keyLength: varint, key: bytes,
///                                             valueLength: varint (-1 = null), value: bytes]
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record<'a> {
    /// The record's size after its length varint.
    pub length: i32,
    /// The record's attributes (unused by Kafka so far).
    pub attributes: i8,
    /// Timestamp minus the batch's base timestamp.
    pub timestamp_delta: i64,
    /// Offset minus the batch's base offset.
    pub offset_delta: i32,
    /// The key; `None` is null.
    pub key: Option<&'a [u8]>,
    /// The value; `None` is null (a tombstone).
    pub value: Option<&'a [u8]>,
    /// The headers.
    pub headers: Headers<'a>,
    /// Byte offset of the record (its length varint) in the input it was read from.
    pub position: usize,
    pub(super) key_at: usize,
    pub(super) value_at: usize,
    bytes: &'a [u8],
}

impl<'a> Record<'a> {
    /// The record's bytes, from its length varint to its end.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }
}

/// An iterator over validated records; it cannot fail.
#[derive(Clone, Debug)]
pub struct RecordIter<'a> {
    rest: &'a [u8],
    left: u32,
    pos: usize,
}

impl<'a> Iterator for RecordIter<'a> {
    type Item = Record<'a>;

    fn next(&mut self) -> Option<Record<'a>> {
        if self.left == 0 {
            return None;
        }
        let before = self.rest.len();
        // Validated when the batch was read: this cannot fail.
        let r = read_record(&mut self.rest, self.pos, "").ok()?;
        self.pos += before - self.rest.len();
        self.left -= 1;
        Some(r)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

impl ExactSizeIterator for RecordIter<'_> {}
impl core::iter::FusedIterator for RecordIter<'_> {}

/// A record's headers, validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Headers<'a> {
    bytes: &'a [u8],
    count: u32,
}

impl<'a> Headers<'a> {
    /// No headers.
    pub const EMPTY: Headers<'static> = Headers { bytes: &[], count: 0 };

    /// The number of headers.
    pub fn len(&self) -> usize {
        self.count as usize
    }
    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    /// The headers' bytes (after the count).
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }
    /// The headers, in order.
    pub fn iter(&self) -> HeaderIter<'a> {
        HeaderIter {
            rest: self.bytes,
            left: self.count,
        }
    }
}

impl<'a> IntoIterator for Headers<'a> {
    type Item = Header<'a>;
    type IntoIter = HeaderIter<'a>;
    fn into_iter(self) -> HeaderIter<'a> {
        self.iter()
    }
}

/// One record header. Kafka's header keys are strings; the key is handed out as bytes because
/// Kafka's Java reader accepts any bytes there (it replaces invalid UTF-8), and
/// [`Header::key_str`] gives it as a `&str` when it is valid UTF-8.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header<'a> {
    /// The key's bytes.
    pub key: &'a [u8],
    /// The value; `None` is null.
    pub value: Option<&'a [u8]>,
}

impl<'a> Header<'a> {
    /// The key as a string, when it is valid UTF-8.
    pub fn key_str(&self) -> Option<&'a str> {
        core::str::from_utf8(self.key).ok()
    }
}

/// An iterator over validated headers; it cannot fail.
#[derive(Clone, Debug)]
pub struct HeaderIter<'a> {
    rest: &'a [u8],
    left: u32,
}

impl<'a> Iterator for HeaderIter<'a> {
    type Item = Header<'a>;

    fn next(&mut self) -> Option<Header<'a>> {
        if self.left == 0 {
            return None;
        }
        let h = read_header(&mut self.rest, 0, "").ok()?;
        self.left -= 1;
        Some(h)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

impl ExactSizeIterator for HeaderIter<'_> {}
impl core::iter::FusedIterator for HeaderIter<'_> {}

/// Validates `bytes` (found at `base` in the input) as exactly `count` records.
pub(crate) fn validate<'a>(
    bytes: &'a [u8],
    count: u32,
    base: usize,
    name: &'static str,
) -> Result<Records<'a>, DecodeError> {
    let mut c = bytes;
    let end = base + bytes.len();
    for _ in 0..count {
        let at = end - c.len();
        read_record(&mut c, at, name)?;
    }
    if !c.is_empty() {
        return Err(DecodeError::new_at(
            K::TrailingBytes { count: c.len() },
            end - c.len(),
            name,
            2,
            "records",
        ));
    }
    Ok(Records { bytes, count, base })
}

/// Reads one record from the front of `c`; `at` is the record's offset in the input, and errors
/// carry absolute offsets (message `name`; empty while iterating validated bytes).
// Hand-tuned, not nom: per record, and a nom sequence here measured 1.5% more instructions.
fn read_record<'a>(c: &mut &'a [u8], at: usize, name: &'static str) -> Result<Record<'a>, DecodeError> {
    let start: &'a [u8] = c;
    let outer_end = at + c.len();
    let length = read::varint(c, "records[].length").map_err(|e| e.finish(outer_end, name, 2))?;
    let len_at = at;
    if length < 0 {
        return Err(DecodeError::new_at(
            K::InvalidFrame {
                value: i64::from(length),
            },
            len_at,
            name,
            2,
            "records[].length",
        ));
    }
    if length as usize > c.len() {
        return Err(DecodeError::new_at(
            K::LengthExceedsInput {
                length: i64::from(length),
            },
            len_at,
            name,
            2,
            "records[].length",
        ));
    }
    let head_len = start.len() - c.len();
    let (body, rest) = c.split_at(length as usize);
    *c = rest;
    let bytes = start.get(..head_len + body.len()).unwrap_or(start);
    let body_at = at + head_len;
    let body_end = body_at + body.len();
    let fin = |e: DecodeError| e.finish(body_end, name, 2);

    let mut b = body;
    let b = &mut b;
    let attributes = read::i8(b, "records[].attributes").map_err(fin)?;
    let timestamp_delta = read::varlong(b, "records[].timestamp_delta").map_err(fin)?;
    let offset_delta = read::varint(b, "records[].offset_delta").map_err(fin)?;
    let (key, key_at) = nullable(b, body_end, name, "records[].key")?;
    let (value, value_at) = nullable(b, body_end, name, "records[].value")?;
    let count_at = body_end - b.len();
    let count = read::varint(b, "records[].headers").map_err(fin)?;
    if count < 0 {
        return Err(DecodeError::new_at(
            K::InvalidFrame {
                value: i64::from(count),
            },
            count_at,
            name,
            2,
            "records[].headers",
        ));
    }
    // A header takes at least two bytes (two one-byte varints).
    if count as usize > b.len() / 2 {
        return Err(DecodeError::new_at(
            K::LengthExceedsInput {
                length: i64::from(count),
            },
            count_at,
            name,
            2,
            "records[].headers",
        ));
    }
    let headers_start: &'a [u8] = b;
    for _ in 0..count {
        read_header(b, body_end, name)?;
    }
    let headers = Headers {
        bytes: headers_start.get(..headers_start.len() - b.len()).unwrap_or(&[]),
        count: count as u32,
    };
    if !b.is_empty() {
        // The record's length said more than its fields took.
        return Err(DecodeError::new_at(
            K::TrailingBytes { count: b.len() },
            body_end - b.len(),
            name,
            2,
            "records[].length",
        ));
    }
    Ok(Record {
        length,
        attributes,
        timestamp_delta,
        offset_delta,
        key,
        value,
        headers,
        position: at,
        key_at,
        value_at,
        bytes,
    })
}

/// A varint length (-1 or less is null) and that many bytes. Returns the bytes and the
/// absolute offset where they start.
fn nullable<'a>(
    b: &mut &'a [u8],
    end: usize,
    name: &'static str,
    f: &'static str,
) -> Result<(Option<&'a [u8]>, usize), DecodeError> {
    let at = end.wrapping_sub(b.len());
    let len = read::varint(b, f).map_err(|e| e.finish(end, name, 2))?;
    let data_at = end.wrapping_sub(b.len());
    if len < 0 {
        return Ok((None, data_at));
    }
    if len as usize > b.len() {
        return Err(DecodeError::new_at(
            K::LengthExceedsInput { length: i64::from(len) },
            at,
            name,
            2,
            f,
        ));
    }
    let (d, rest) = b.split_at(len as usize);
    *b = rest;
    Ok((Some(d), data_at))
}

/// Reads one header; `end` is the absolute offset where the cursor's bytes end (0 while
/// iterating validated bytes, where offsets do not matter).
fn read_header<'a>(b: &mut &'a [u8], end: usize, name: &'static str) -> Result<Header<'a>, DecodeError> {
    let at = end.wrapping_sub(b.len());
    let key_len = read::varint(b, "records[].headers[].key").map_err(|e| e.finish(end, name, 2))?;
    if key_len < 0 {
        return Err(DecodeError::new_at(
            K::NullNotAllowed,
            at,
            name,
            2,
            "records[].headers[].key",
        ));
    }
    if key_len as usize > b.len() {
        return Err(DecodeError::new_at(
            K::LengthExceedsInput {
                length: i64::from(key_len),
            },
            at,
            name,
            2,
            "records[].headers[].key",
        ));
    }
    let (key, rest) = b.split_at(key_len as usize);
    *b = rest;
    let (value, _) = nullable(b, end, name, "records[].headers[].value")?;
    Ok(Header { key, value })
}
