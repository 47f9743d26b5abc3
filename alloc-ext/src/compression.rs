//! Decompression of record batches and legacy wrapper messages: gzip, snappy (raw or in the
//! xerial framing Kafka's Java client writes), LZ4 (the LZ4 frame format), and zstd, each with an
//! output size limit; and compression of a batch's records section with the same codecs
//! ([`compress`]).
//!
//! `kafka-wire` hands out a compressed batch's codec and bytes; this module turns them into the
//! records section, which [`Records::parse`] then validates against the batch's record count.
//!
//! Every codec reads at most `limit + 1` bytes of output before giving up, so a decompression
//! bomb costs at most the limit in memory and fails with [`DecompressError::TooLarge`]; a snappy
//! block's declared length is checked against the limit before anything is allocated.
//!
//! ```
//! use kafka_wire::records::Compression;
//! use kafka_wire_ext::compression::{decompress, DecompressError};
//!
//! // A snappy block (the raw format) that claims 1 GiB of output.
//! let bomb = [0x80, 0x80, 0x80, 0x80, 0x04, 0x00];
//! let e = decompress(Compression::Snappy, &bomb, 1 << 20).unwrap_err();
//! assert!(matches!(e, DecompressError::TooLarge { limit: 1048576, .. }));
//! ```

use std::fmt;
use std::io::Read;

use kafka_wire::records::{
    Compression, LegacyMessage, OwnedBatchRecords, OwnedRecord, OwnedRecordBatch, RecordBatch, Records,
};
use kafka_wire::DecodeError;

/// The default output limit: 64 MiB (Kafka's default `message.max.bytes` is 1 MiB, compressed).
pub const DEFAULT_LIMIT: usize = 64 << 20;

/// Why decompression failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecompressError {
    /// The output would be larger than `limit` bytes (a decompression bomb, or a limit set too
    /// low).
    TooLarge {
        /// The codec.
        codec: Compression,
        /// The limit.
        limit: usize,
    },
    /// The compressed bytes are malformed.
    Corrupt {
        /// The codec.
        codec: Compression,
        /// What the decoder said.
        message: String,
    },
    /// The decompressed bytes are not the records the batch says it holds.
    Records(DecodeError),
}

impl fmt::Display for DecompressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecompressError::TooLarge { codec, limit } => {
                write!(f, "{} output exceeds the limit of {limit} bytes", codec.name())
            }
            DecompressError::Corrupt { codec, message } => write!(f, "corrupt {} data: {message}", codec.name()),
            DecompressError::Records(e) => write!(f, "decompressed records: {e}"),
        }
    }
}

impl std::error::Error for DecompressError {}

impl From<DecodeError> for DecompressError {
    fn from(e: DecodeError) -> Self {
        DecompressError::Records(e)
    }
}

fn corrupt(codec: Compression, message: impl fmt::Display) -> DecompressError {
    DecompressError::Corrupt {
        codec,
        message: message.to_string(),
    }
}

/// Compresses a batch's records section with `codec`, appending to `out`: gzip (fastest level),
/// snappy (a raw block, which Kafka's readers take as well as the xerial framing), LZ4 (the frame
/// format, independent blocks), zstd (ruzstd's fastest level). `Compression::None` copies.
pub fn compress(codec: Compression, input: &[u8], out: &mut Vec<u8>) -> std::io::Result<()> {
    use std::io::Write;
    match codec {
        Compression::None => out.extend_from_slice(input),
        Compression::Gzip => {
            let mut e = flate2::write::GzEncoder::new(out, flate2::Compression::fast());
            e.write_all(input)?;
            e.finish()?;
        }
        Compression::Snappy => {
            let start = out.len();
            out.resize(start + snap::raw::max_compress_len(input.len()), 0);
            let n = snap::raw::Encoder::new()
                .compress(input, out.get_mut(start..).unwrap_or_default())
                .map_err(std::io::Error::other)?;
            out.truncate(start + n);
        }
        Compression::Lz4 => {
            let mut e = lz4_flex::frame::FrameEncoder::new(out);
            e.write_all(input)?;
            e.finish().map_err(std::io::Error::other)?;
        }
        Compression::Zstd => ruzstd::encoding::compress(input, out, ruzstd::encoding::CompressionLevel::Fastest),
    }
    Ok(())
}

/// Decompresses `input` compressed with `codec`, producing at most `limit` bytes.
/// `Compression::None` copies the input (still subject to the limit).
pub fn decompress(codec: Compression, input: &[u8], limit: usize) -> Result<Vec<u8>, DecompressError> {
    match codec {
        Compression::None => {
            if input.len() > limit {
                return Err(DecompressError::TooLarge { codec, limit });
            }
            Ok(input.to_vec())
        }
        Compression::Gzip => read_limited(flate2::read::MultiGzDecoder::new(input), codec, limit),
        Compression::Snappy => snappy(input, limit),
        Compression::Lz4 => lz4(input, limit),
        Compression::Zstd => {
            let mut src = input;
            let d = ruzstd::decoding::StreamingDecoder::new(&mut src).map_err(|e| corrupt(codec, e))?;
            read_limited(d, codec, limit)
        }
    }
}

/// Decompresses a magic 2 batch's records and validates them against its record count. For an
/// uncompressed batch the records are already validated and borrowed from the batch; otherwise
/// they are decompressed into `buf` (cleared first) and borrowed from there.
pub fn batch_records<'a: 'b, 'b>(
    batch: &RecordBatch<'a>,
    buf: &'b mut Vec<u8>,
    limit: usize,
) -> Result<Records<'b>, DecompressError> {
    if let Some(r) = batch.records() {
        return Ok(r);
    }
    *buf = decompress(batch.compression(), batch.records_bytes(), limit)?;
    Ok(Records::parse(buf, batch.record_count)?)
}

/// Decompresses an owned batch's records in place: a compressed section becomes the owned
/// records it holds, validated against its record count, sharing the decompressed buffer
/// (feature `bytes` of kafka-wire) rather than copied out of it. Encoding the batch afterwards
/// writes it uncompressed. An uncompressed batch is left as it is.
pub fn decompress_owned(batch: &mut OwnedRecordBatch, limit: usize) -> Result<(), DecompressError> {
    if let OwnedBatchRecords::Compressed {
        compression,
        record_count,
        bytes,
    } = &batch.records
    {
        let plain = decompress(*compression, bytes, limit)?.into();
        batch.records = OwnedBatchRecords::Plain(OwnedRecord::parse_all(&plain, *record_count)?);
    }
    Ok(())
}

/// Decompresses a legacy wrapper message's inner message set (read it with
/// [`kafka_wire::records::Batches`]). Magic 0 LZ4 wrappers carry a frame header checksum that
/// Kafka computed wrongly (over the magic number too) and ignores when reading; it is repaired
/// here before decoding. Returns `None` for a message that is not compressed.
pub fn legacy_inner(message: &LegacyMessage<'_>, limit: usize) -> Result<Option<Vec<u8>>, DecompressError> {
    let Some((codec, bytes)) = message.compressed_inner() else {
        return Ok(None);
    };
    if codec == Compression::Lz4 && message.magic == 0 {
        let mut fixed = bytes.to_vec();
        if let Some(hc_at) = lz4_header_len(&fixed).map(|n| n - 1) {
            let hc = (twox_hash::XxHash32::oneshot(0, &fixed[4..hc_at]) >> 8) as u8;
            fixed[hc_at] = hc;
        }
        return lz4(&fixed, limit).map(Some);
    }
    decompress(codec, bytes, limit).map(Some)
}

fn read_limited(r: impl Read, codec: Compression, limit: usize) -> Result<Vec<u8>, DecompressError> {
    let mut out = Vec::new();
    r.take((limit as u64).saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| corrupt(codec, e))?;
    if out.len() > limit {
        return Err(DecompressError::TooLarge { codec, limit });
    }
    Ok(out)
}

/// The xerial snappy-java stream header: magic, then `int32` version and compatible version.
const XERIAL_MAGIC: [u8; 8] = [0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0];

fn snappy(input: &[u8], limit: usize) -> Result<Vec<u8>, DecompressError> {
    let codec = Compression::Snappy;
    let mut dec = snap::raw::Decoder::new();
    let Some(mut rest) = input.strip_prefix(&XERIAL_MAGIC[..]) else {
        // No xerial header: one raw snappy block, as snappy-java's stream reader falls back to.
        let n = snap::raw::decompress_len(input).map_err(|e| corrupt(codec, e))?;
        if n > limit {
            return Err(DecompressError::TooLarge { codec, limit });
        }
        return dec.decompress_vec(input).map_err(|e| corrupt(codec, e));
    };
    // Version and minimum compatible version (both 1 in every stream Kafka writes).
    if rest.len() < 8 {
        return Err(corrupt(codec, "xerial header shorter than 16 bytes"));
    }
    rest = &rest[8..];
    let mut out = Vec::new();
    while !rest.is_empty() {
        let Some((len, tail)) = rest.split_first_chunk::<4>() else {
            return Err(corrupt(codec, "xerial chunk length cut short"));
        };
        let len = i32::from_be_bytes(*len);
        if len < 0 || len as usize > tail.len() {
            return Err(corrupt(
                codec,
                format_args!("xerial chunk length {len} exceeds the {} byte(s) left", tail.len()),
            ));
        }
        let (chunk, tail) = tail.split_at(len as usize);
        let n = snap::raw::decompress_len(chunk).map_err(|e| corrupt(codec, e))?;
        if n > limit - out.len() {
            return Err(DecompressError::TooLarge { codec, limit });
        }
        let start = out.len();
        out.resize(start + n, 0);
        let written = dec
            .decompress(chunk, &mut out[start..])
            .map_err(|e| corrupt(codec, e))?;
        out.truncate(start + written);
        rest = tail;
    }
    Ok(out)
}

/// The length of an LZ4 frame header, its checksum byte included, when `b` holds one whole.
fn lz4_header_len(b: &[u8]) -> Option<usize> {
    if b.get(..4)? != [0x04, 0x22, 0x4d, 0x18] {
        return None;
    }
    let flg = *b.get(4)?;
    let mut n = 4 + 2; // magic, FLG, BD
    if flg & 0x08 != 0 {
        n += 8; // content size
    }
    if flg & 0x01 != 0 {
        n += 4; // dictionary id
    }
    n += 1; // header checksum
    (b.len() >= n).then_some(n)
}

fn lz4(input: &[u8], limit: usize) -> Result<Vec<u8>, DecompressError> {
    let codec = Compression::Lz4;
    // Check that the header is all there first: lz4_flex panics on a frame cut inside its
    // content-size field.
    if input.starts_with(&[0x04, 0x22, 0x4d, 0x18]) && lz4_header_len(input).is_none() {
        return Err(corrupt(codec, "LZ4 frame header cut short"));
    }
    read_limited(lz4_flex::frame::FrameDecoder::new(input), codec, limit)
}
