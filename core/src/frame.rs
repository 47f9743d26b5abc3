//! Framing: size-prefixed request and response frames, the `__cluster_metadata` record
//! framing, and coordinator key/value records.
//!
//! Only this layer reports "need more bytes" (a frame whose size prefix promises more than was
//! given); inside a frame, truncation is an error with an offset.

use crate::codec::Message;
use crate::error::{DecodeError, DecodeErrorKind as K};
use crate::generated::api::{
    ApiKey, GroupCoordinatorKey, GroupCoordinatorRecordType, GroupCoordinatorValue, MetadataRecord, MetadataRecordType,
    Request, RequestBody, ResponseBody, ShareCoordinatorKey, ShareCoordinatorRecordType, ShareCoordinatorValue,
    TransactionCoordinatorKey, TransactionCoordinatorRecordType, TransactionCoordinatorValue,
};
use crate::generated::messages::{RequestHeader, ResponseHeader};
use crate::read;
use crate::write::Sink;

/// How a frame parse treats bytes after the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// Bytes after the body are an error.
    #[default]
    Strict,
    /// Bytes after the body are returned in the frame's `trailing` field.
    Lenient,
}

/// Splits one size-prefixed frame off the front of `input` ([`crate::nom::size_prefixed`]),
/// returning `(frame payload, rest)`. A negative size is an error; a payload shorter than the
/// size says is [`DecodeErrorKind::UnexpectedEof`](crate::DecodeErrorKind) with the bytes needed.
pub fn split_frame(input: &[u8]) -> Result<(&[u8], &[u8]), DecodeError> {
    match crate::nom::size_prefixed(input) {
        Ok((rest, payload)) => Ok((payload, rest)),
        Err(::nom::Err::Incomplete(needed)) => {
            let needed = match needed {
                ::nom::Needed::Size(n) => n.get(),
                ::nom::Needed::Unknown => 1,
            };
            let field = if input.len() < 4 { "size" } else { "payload" };
            Err(DecodeError::new_at(
                K::UnexpectedEof { needed },
                input.len(),
                "frame",
                -1,
                field,
            ))
        }
        Err(::nom::Err::Error(e) | ::nom::Err::Failure(e)) => Err(e),
    }
}

/// The payload of a frame that must be exactly `input`: bytes after it are an error.
fn whole_frame(input: &[u8]) -> Result<&[u8], DecodeError> {
    let (payload, rest) = split_frame(input)?;
    if !rest.is_empty() {
        return Err(DecodeError::new_at(
            K::TrailingBytes { count: rest.len() },
            input.len() - rest.len(),
            "frame",
            -1,
            "",
        ));
    }
    Ok(payload)
}

/// A parsed request frame: its header and a view of its body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RequestFrame<'a> {
    /// The API the request is for.
    pub api_key: ApiKey,
    /// The request's API version.
    pub api_version: i16,
    /// The request header version used (0, 1 or 2).
    pub header_version: i16,
    /// The header.
    pub header: RequestHeader<'a>,
    /// The body.
    pub body: RequestBody<'a>,
    /// The header's bytes.
    pub header_bytes: &'a [u8],
    /// The body's bytes (without trailing bytes).
    pub body_bytes: &'a [u8],
    /// Bytes after the body inside the frame (lenient mode only; empty in strict mode).
    pub trailing: &'a [u8],
}

/// Parses a whole request frame: 4-byte size, header, body. The frame must be exactly `input`.
pub fn parse_request_frame(input: &[u8], mode: Mode) -> Result<RequestFrame<'_>, DecodeError> {
    let payload = whole_frame(input)?;
    parse_request(payload, mode).map_err(|e| e.shifted(4))
}

/// Parses a request (header and body) without its size prefix.
pub fn parse_request(payload: &[u8], mode: Mode) -> Result<RequestFrame<'_>, DecodeError> {
    let mut c = payload;
    let key = read::i16(&mut c, "request_api_key").map_err(|e| e.finish(payload.len(), "RequestHeader", -1))?;
    let version = read::i16(&mut c, "request_api_version").map_err(|e| e.finish(payload.len(), "RequestHeader", -1))?;
    let Some(api_key) = ApiKey::from_i16(key) else {
        return Err(DecodeError::new_at(
            K::UnknownApiKey { key: i32::from(key) },
            0,
            "RequestHeader",
            -1,
            "request_api_key",
        ));
    };
    if !api_key.request_info().is_valid(version) {
        return Err(DecodeError::new_at(
            K::UnsupportedVersion {
                version: i32::from(version),
            },
            2,
            api_key.request_info().name,
            version,
            "",
        ));
    }
    let header_version = api_key.request_header_version(version);
    let (header, body_bytes) = RequestHeader::parse_lenient(payload, header_version)?;
    let base = payload.len() - body_bytes.len();
    let (body, trailing) =
        RequestBody::parse_with(api_key, body_bytes, version, mode == Mode::Lenient).map_err(|e| e.shifted(base))?;
    let header_bytes = &payload[..base];
    let body_bytes = &body_bytes[..body_bytes.len() - trailing.len()];
    Ok(RequestFrame {
        api_key,
        api_version: version,
        header_version,
        header,
        body,
        header_bytes,
        body_bytes,
        trailing,
    })
}

/// A parsed response frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResponseFrame<'a> {
    /// The response header version used (0 or 1).
    pub header_version: i16,
    /// The header.
    pub header: ResponseHeader<'a>,
    /// The body.
    pub body: ResponseBody<'a>,
    /// The header's bytes.
    pub header_bytes: &'a [u8],
    /// The body's bytes (without trailing bytes).
    pub body_bytes: &'a [u8],
    /// Bytes after the body inside the frame (lenient mode only).
    pub trailing: &'a [u8],
}

/// Parses a whole response frame for `api_key` at `version` (responses do not name their API).
pub fn parse_response_frame(
    input: &[u8],
    api_key: ApiKey,
    version: i16,
    mode: Mode,
) -> Result<ResponseFrame<'_>, DecodeError> {
    let payload = whole_frame(input)?;
    parse_response(payload, api_key, version, mode).map_err(|e| e.shifted(4))
}

/// Parses a response (header and body) without its size prefix.
pub fn parse_response(
    payload: &[u8],
    api_key: ApiKey,
    version: i16,
    mode: Mode,
) -> Result<ResponseFrame<'_>, DecodeError> {
    if !api_key.response_info().is_valid(version) {
        return Err(DecodeError::new_at(
            K::UnsupportedVersion {
                version: i32::from(version),
            },
            0,
            api_key.response_info().name,
            version,
            "",
        ));
    }
    let f = response_parts(payload, api_key.response_header_version(version), |b| {
        ResponseBody::parse_with(api_key, b, version, mode == Mode::Lenient)
    })?;
    let TypedResponseFrame {
        header_version,
        header,
        body,
        header_bytes,
        body_bytes,
        trailing,
    } = f;
    Ok(ResponseFrame {
        header_version,
        header,
        body,
        header_bytes,
        body_bytes,
        trailing,
    })
}

/// A response frame decoded as the answer to one request type: the body is that request's
/// response type ([`Request::Response`]), so no key is typed by hand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TypedResponseFrame<'b, B> {
    /// The response header version used (0 or 1).
    pub header_version: i16,
    /// The header.
    pub header: ResponseHeader<'b>,
    /// The body.
    pub body: B,
    /// The header's bytes.
    pub header_bytes: &'b [u8],
    /// The body's bytes (without trailing bytes).
    pub body_bytes: &'b [u8],
    /// Bytes after the body inside the frame (lenient mode only).
    pub trailing: &'b [u8],
}

/// Parses a whole response frame as the answer to a request of type `R` sent at `version`:
/// the API key, the header version and the body type all come from `R`.
///
/// ```
/// use kafka_wire::frame::{parse_response_frame_to, Mode};
/// use kafka_wire::messages::{ApiVersionsRequest, ApiVersionsResponse};
/// use kafka_wire::Message;
///
/// let body = ApiVersionsResponse { throttle_time_ms: 7, ..ApiVersionsResponse::DEFAULT };
/// let mut frame = [0u8; 64];
/// let n = body.encode_to_slice(&mut frame[8..], 3).unwrap();
/// frame[..4].copy_from_slice(&(n as i32 + 4).to_be_bytes());
/// frame[4..8].copy_from_slice(&42i32.to_be_bytes()); // correlation id; header v0
/// let resp = parse_response_frame_to::<ApiVersionsRequest<'_>>(&frame[..n + 8], 3, Mode::Strict).unwrap();
/// assert_eq!(resp.header.correlation_id, 42);
/// assert_eq!(resp.body.throttle_time_ms, 7); // an ApiVersionsResponse, no key given
/// ```
pub fn parse_response_frame_to<'a, 'b, R: Request<'a>>(
    input: &'b [u8],
    version: i16,
    mode: Mode,
) -> Result<TypedResponseFrame<'b, R::Response<'b>>, DecodeError> {
    let payload = whole_frame(input)?;
    parse_response_to::<R>(payload, version, mode).map_err(|e| e.shifted(4))
}

/// [`parse_response_frame_to`] without the size prefix.
pub fn parse_response_to<'a, 'b, R: Request<'a>>(
    payload: &'b [u8],
    version: i16,
    mode: Mode,
) -> Result<TypedResponseFrame<'b, R::Response<'b>>, DecodeError> {
    let info = <R::Response<'b> as Message<'b>>::INFO;
    if !info.is_valid(version) {
        return Err(DecodeError::new_at(
            K::UnsupportedVersion {
                version: i32::from(version),
            },
            0,
            info.name,
            version,
            "",
        ));
    }
    response_parts(payload, R::response_header_version(version), |b| {
        crate::codec::parse_mode::<R::Response<'b>>(b, version, mode == Mode::Lenient)
    })
}

/// Splits a response into its header (at `header_version`) and a body read by `body`, which
/// returns the body and the bytes after it.
fn response_parts<'b, B>(
    payload: &'b [u8],
    header_version: i16,
    body: impl FnOnce(&'b [u8]) -> Result<(B, &'b [u8]), DecodeError>,
) -> Result<TypedResponseFrame<'b, B>, DecodeError> {
    let (header, body_bytes) = ResponseHeader::parse_lenient(payload, header_version)?;
    let base = payload.len() - body_bytes.len();
    let (body, trailing) = body(body_bytes).map_err(|e| e.shifted(base))?;
    let header_bytes = &payload[..base];
    let body_bytes = &body_bytes[..body_bytes.len() - trailing.len()];
    Ok(TypedResponseFrame {
        header_version,
        header,
        body,
        header_bytes,
        body_bytes,
        trailing,
    })
}

/// The only `__cluster_metadata` frame version Kafka writes and reads.
pub const METADATA_FRAME_VERSION: u32 = 1;

/// A framed KRaft metadata record: the record value of a `__cluster_metadata` batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FramedMetadataRecord<'a> {
    /// The record type.
    pub record_type: MetadataRecordType,
    /// The record's version.
    pub version: i16,
    /// The record.
    pub record: MetadataRecord<'a>,
    /// The record's bytes (after the three varints).
    pub record_bytes: &'a [u8],
}

fn short_varint(c: &mut &[u8], total: usize, f: &'static str) -> Result<i16, DecodeError> {
    let at = total - c.len();
    let v = read::uvarint(c, f).map_err(|e| e.finish(total, "MetadataRecordFrame", -1))?;
    if v > i16::MAX as u32 {
        return Err(DecodeError::new_at(
            K::InvalidFrame { value: i64::from(v) },
            at,
            "MetadataRecordFrame",
            -1,
            f,
        ));
    }
    Ok(v as i16)
}

/// Parses a framed metadata record: unsigned varint frame version (must be 1), unsigned varint
/// record type, unsigned varint version, then the record. Trailing bytes are an error.
pub fn parse_metadata_record(input: &[u8]) -> Result<FramedMetadataRecord<'_>, DecodeError> {
    let mut c = input;
    let total = input.len();
    let frame = short_varint(&mut c, total, "frame_version")?;
    if frame as u32 != METADATA_FRAME_VERSION {
        return Err(DecodeError::new_at(
            K::InvalidFrame {
                value: i64::from(frame),
            },
            0,
            "MetadataRecordFrame",
            -1,
            "frame_version",
        ));
    }
    let at = total - c.len();
    let ty = short_varint(&mut c, total, "record_type")?;
    let Some(record_type) = MetadataRecordType::from_i16(ty) else {
        return Err(DecodeError::new_at(
            K::UnknownApiKey { key: i32::from(ty) },
            at,
            "MetadataRecordFrame",
            -1,
            "record_type",
        ));
    };
    let version = short_varint(&mut c, total, "version")?;
    let base = total - c.len();
    let record = MetadataRecord::parse(record_type, c, version).map_err(|e| e.shifted(base))?;
    Ok(FramedMetadataRecord {
        record_type,
        version,
        record,
        record_bytes: c,
    })
}

/// Encodes a framed metadata record into the front of `out`; returns the bytes written.
pub fn encode_metadata_record(
    record: &MetadataRecord<'_>,
    version: i16,
    out: &mut [u8],
) -> Result<usize, crate::EncodeError> {
    encode_metadata_record_into(record, version, &mut &mut *out)
}

/// [`encode_metadata_record`] into any [`Sink`].
pub fn encode_metadata_record_into<S: Sink + ?Sized>(
    record: &MetadataRecord<'_>,
    version: i16,
    out: &mut S,
) -> Result<usize, crate::EncodeError> {
    let body = record.encoded_len(version)?;
    let mut head = [0u8; 15];
    let mut w = crate::write::Writer::new(&mut head);
    for v in [METADATA_FRAME_VERSION, record.key().id() as u32, version as u32] {
        w.uvarint(v, "frame");
    }
    let head_len = w.finish()?;
    let total = head_len + body;
    let too_short = || {
        crate::EncodeError::new(crate::EncodeErrorKind::BufferTooShort { needed: total }, "")
            .finish(record.info().name, version)
    };
    let (h, rest) = out.reserve(total).ok_or_else(too_short)?.split_at_mut(head_len);
    h.copy_from_slice(head.get(..head_len).ok_or_else(too_short)?);
    let mut rest = rest;
    record.encode(&mut rest, version)?;
    Ok(total)
}

macro_rules! coordinator {
    ($(#[$doc:meta])* $fn_name:ident, $rec:ident, $ty:ident, $key:ident, $value:ident) => {
        /// A parsed coordinator record: its type, key, and value (`None` is a tombstone).
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $rec<'a> {
            /// The record type (the int16 before the key).
            pub record_type: $ty,
            /// The key.
            pub key: $key<'a>,
            /// The value's version and the value; `None` for a tombstone (null value).
            pub value: Option<(i16, $value<'a>)>,
        }

        $(#[$doc])*
        pub fn $fn_name<'a>(key: &'a [u8], value: Option<&'a [u8]>) -> Result<$rec<'a>, DecodeError> {
            let mut c = key;
            let ty = read::i16(&mut c, "record_type").map_err(|e| e.finish(key.len(), stringify!($key), -1))?;
            let Some(record_type) = $ty::from_i16(ty) else {
                return Err(DecodeError::new_at(K::UnknownApiKey { key: i32::from(ty) }, 0, stringify!($key), -1, "record_type"));
            };
            // Keys are read at version 0, the only version their schemas have.
            let k = $key::parse(record_type, c, 0).map_err(|e| e.shifted(2))?;
            let value = match value {
                None => None,
                Some(vb) => {
                    let mut c = vb;
                    let version = read::i16(&mut c, "version").map_err(|e| e.finish(vb.len(), stringify!($value), -1))?;
                    let v = $value::parse(record_type, c, version).map_err(|e| e.shifted(2))?;
                    Some((version, v))
                }
            };
            Ok($rec { record_type, key: k, value })
        }
    };
}

coordinator!(
    /// Parses a `__consumer_offsets` record (group coordinator): the key's int16 record type and
    /// body, and the value's int16 version and body.
    parse_group_coordinator_record,
    GroupCoordinatorRecord,
    GroupCoordinatorRecordType,
    GroupCoordinatorKey,
    GroupCoordinatorValue
);
coordinator!(
    /// Parses a `__share_group_state` record (share coordinator).
    parse_share_coordinator_record,
    ShareCoordinatorRecord,
    ShareCoordinatorRecordType,
    ShareCoordinatorKey,
    ShareCoordinatorValue
);
coordinator!(
    /// Parses a `__transaction_state` record (transaction coordinator).
    parse_transaction_coordinator_record,
    TransactionCoordinatorRecord,
    TransactionCoordinatorRecordType,
    TransactionCoordinatorKey,
    TransactionCoordinatorValue
);

fn frame_into<'o, S: Sink + ?Sized>(
    out: &'o mut S,
    head_len: usize,
    body_len: usize,
    name: &'static str,
    version: i16,
) -> Result<(&'o mut [u8], &'o mut [u8]), crate::EncodeError> {
    let total = 4 + head_len + body_len;
    if total > i32::MAX as usize {
        return Err(
            crate::EncodeError::new(crate::EncodeErrorKind::TooLong { length: total }, "size").finish(name, version),
        );
    }
    let Some(buf) = out.reserve(total) else {
        return Err(
            crate::EncodeError::new(crate::EncodeErrorKind::BufferTooShort { needed: total }, "").finish(name, version),
        );
    };
    let (size, rest) = buf.split_at_mut(4);
    size.copy_from_slice(&((head_len + body_len) as i32).to_be_bytes());
    Ok(rest.split_at_mut(head_len))
}

/// Encodes a whole request frame (size, header, body) into the front of `out`; returns its
/// length. The header's API key and version are taken from `body` and `version`; its header
/// version from the API key.
pub fn encode_request_frame(
    correlation_id: i32,
    client_id: Option<&str>,
    body: &RequestBody<'_>,
    version: i16,
    out: &mut [u8],
) -> Result<usize, crate::EncodeError> {
    encode_request_frame_into(correlation_id, client_id, body, version, &mut &mut *out)
}

/// [`encode_request_frame`] into any [`Sink`] (a `heapless::Vec`, a `Vec` with `alloc`, or a
/// slice that advances past each frame).
pub fn encode_request_frame_into<S: Sink + ?Sized>(
    correlation_id: i32,
    client_id: Option<&str>,
    body: &RequestBody<'_>,
    version: i16,
    out: &mut S,
) -> Result<usize, crate::EncodeError> {
    let key = body.key();
    let header = RequestHeader {
        request_api_key: key.id(),
        request_api_version: version,
        correlation_id,
        client_id,
        ..RequestHeader::DEFAULT
    };
    let hv = key.request_header_version(version);
    let head_len = header.encoded_len(hv)?;
    let body_len = body.encoded_len(version)?;
    let (mut h, mut b) = frame_into(out, head_len, body_len, body.info().name, version)?;
    header.encode(&mut h, hv)?;
    body.encode(&mut b, version)?;
    Ok(4 + head_len + body_len)
}

/// Encodes a whole response frame (size, header, body) into the front of `out`; returns its
/// length.
pub fn encode_response_frame(
    correlation_id: i32,
    body: &ResponseBody<'_>,
    version: i16,
    out: &mut [u8],
) -> Result<usize, crate::EncodeError> {
    encode_response_frame_into(correlation_id, body, version, &mut &mut *out)
}

/// [`encode_response_frame`] into any [`Sink`].
pub fn encode_response_frame_into<S: Sink + ?Sized>(
    correlation_id: i32,
    body: &ResponseBody<'_>,
    version: i16,
    out: &mut S,
) -> Result<usize, crate::EncodeError> {
    let header = ResponseHeader {
        correlation_id,
        ..ResponseHeader::DEFAULT
    };
    let hv = body.key().response_header_version(version);
    let head_len = header.encoded_len(hv)?;
    let body_len = body.encoded_len(version)?;
    let (mut h, mut b) = frame_into(out, head_len, body_len, body.info().name, version)?;
    header.encode(&mut h, hv)?;
    body.encode(&mut b, version)?;
    Ok(4 + head_len + body_len)
}
