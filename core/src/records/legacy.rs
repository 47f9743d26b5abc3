//! Legacy message sets: magic 0 and 1.

use super::{crc32_ieee, Attributes, Compression, TimestampType, LEGACY_NAME, LEGACY_V0_MIN_SIZE, LEGACY_V1_MIN_SIZE};
use crate::error::{DecodeError, DecodeErrorKind as K};
use crate::grammar::{self, be_i32, be_i64, be_i8, be_u32, nullable_bytes};
use ::nom::Parser;

/// A magic 0 or 1 message (an entry of a legacy message set), validated: its size, CRC-32
/// (IEEE, over magic..end, unless verification was turned off), codec, key and value.
///
/// ```text
/// offset: int64        messageSize: int32 (bytes after this field)
/// crc: uint32          magic: int8 (0 or 1)   attributes: int8 (bits 0-2 codec; bit 3 timestamp type, magic 1)
/// timestamp: int64 (magic 1 only)
/// key: int32 length (-1 = null) + bytes      value: int32 length (-1 = null) + bytes
/// ```
///
/// A compressed message is a wrapper: its value is a whole message set, compressed
/// ([`LegacyMessage::compressed_inner`]). Once decompressed, read it with
/// [`Batches`](super::Batches). At magic 1 the inner offsets are relative (0, 1, …) and the
/// wrapper's offset is the last inner message's absolute offset
/// ([`LegacyMessage::inner_offset`]); at magic 0 they are absolute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LegacyMessage<'a> {
    /// The message's offset (for a magic 1 wrapper: its last inner message's).
    pub offset: i64,
    /// Bytes after the size field.
    pub message_size: i32,
    /// The CRC-32 in the message.
    pub crc: u32,
    /// 0 or 1.
    pub magic: i8,
    /// The attributes byte.
    pub attributes: i8,
    /// The timestamp (magic 1 only).
    pub timestamp: Option<i64>,
    /// The key; `None` is null.
    pub key: Option<&'a [u8]>,
    /// The value; `None` is null. For a wrapper, the compressed inner message set.
    pub value: Option<&'a [u8]>,
    bytes: &'a [u8],
    position: usize,
}

impl<'a> LegacyMessage<'a> {
    /// The whole message's bytes, as read.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }
    /// Byte offset of the message in the input it was read from.
    pub fn position(&self) -> usize {
        self.position
    }
    /// The compression codec (gzip, snappy or lz4 for a wrapper).
    pub fn compression(&self) -> Compression {
        Attributes(i16::from(self.attributes))
            .compression()
            .unwrap_or(Compression::None)
    }
    /// The timestamp type (magic 1 only).
    pub fn timestamp_type(&self) -> Option<TimestampType> {
        (self.magic >= 1).then(|| Attributes(i16::from(self.attributes)).timestamp_type())
    }
    /// The codec and the compressed inner message set, for a wrapper message.
    pub fn compressed_inner(&self) -> Option<(Compression, &'a [u8])> {
        match self.compression() {
            Compression::None => None,
            c => Some((c, self.value.unwrap_or(&[]))),
        }
    }
    /// The absolute offset of an inner message of this wrapper, given the inner message's own
    /// offset and the offset of the last inner message. At magic 1 inner offsets are relative
    /// and the wrapper carries the last one's absolute offset; at magic 0 they are absolute.
    pub fn inner_offset(&self, inner: i64, last_inner: i64) -> i64 {
        if self.magic >= 1 {
            self.offset.wrapping_sub(last_inner).wrapping_add(inner)
        } else {
            inner
        }
    }
    /// The CRC-32 of the message's bytes as they are.
    pub fn computed_crc(&self) -> u32 {
        crc32_ieee(self.bytes.get(16..).unwrap_or(&[]))
    }
}

/// Parses `b`, exactly one legacy message whose framing was checked, at `pos` in the input.
pub(crate) fn parse(b: &[u8], pos: usize, verify_crc: bool) -> Result<LegacyMessage<'_>, DecodeError> {
    let end = pos + b.len();
    let magic_byte = b.get(16).copied().unwrap_or(0) as i8;
    let fin = |e| grammar::finish(e, end, LEGACY_NAME, i16::from(magic_byte));
    let (c, (offset, message_size)) = (be_i64("offset"), be_i32("message_size")).parse(b).map_err(fin)?;
    let min = if magic_byte >= 1 {
        LEGACY_V1_MIN_SIZE
    } else {
        LEGACY_V0_MIN_SIZE
    };
    if (message_size as usize) < min {
        return Err(DecodeError::new_at(
            K::InvalidFrame {
                value: i64::from(message_size),
            },
            pos + 8,
            LEGACY_NAME,
            i16::from(magic_byte),
            "message_size",
        ));
    }
    let (c, (crc, magic, attributes)) = (be_u32("crc"), be_i8("magic"), be_i8("attributes"))
        .parse(c)
        .map_err(fin)?;
    let (c, timestamp) = if magic >= 1 {
        be_i64("timestamp")(c).map(|(c, t)| (c, Some(t))).map_err(fin)?
    } else {
        (c, None)
    };

    #[cfg(not(fuzzing))]
    if verify_crc {
        let computed = crc32_ieee(b.get(16..).unwrap_or(&[]));
        if computed != crc {
            return Err(DecodeError::new_at(
                K::InvalidFrame { value: i64::from(crc) },
                pos,
                LEGACY_NAME,
                i16::from(magic),
                "crc",
            ));
        }
    }
    #[cfg(fuzzing)]
    let _ = verify_crc;

    let codec = attributes & 0x07;
    if codec > 3 {
        // Zstandard (4) needs magic 2; 5-7 are undefined.
        return Err(DecodeError::new_at(
            K::InvalidFrame {
                value: i64::from(codec),
            },
            pos + 17,
            LEGACY_NAME,
            i16::from(magic),
            "attributes",
        ));
    }
    let (c, key) = nullable_bytes("key")(c).map_err(fin)?;
    let value_at = end - c.len();
    let (c, value) = nullable_bytes("value")(c).map_err(fin)?;
    if codec != 0 && value.is_none() {
        return Err(DecodeError::new_at(
            K::NullNotAllowed,
            value_at,
            LEGACY_NAME,
            i16::from(magic),
            "value",
        ));
    }
    if !c.is_empty() {
        return Err(DecodeError::new_at(
            K::TrailingBytes { count: c.len() },
            end - c.len(),
            LEGACY_NAME,
            i16::from(magic),
            "",
        ));
    }
    Ok(LegacyMessage {
        offset,
        message_size,
        crc,
        magic,
        attributes,
        timestamp,
        key,
        value,
        bytes: b,
        position: pos,
    })
}
