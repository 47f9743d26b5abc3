//! Framing: size-prefixed request and response frames, the `__cluster_metadata` record
//! framing, and coordinator key/value records.
//!
//! Only this layer reports "need more bytes" (a frame whose size prefix promises more than was
//! given); inside a frame, truncation is an error with an offset.
//!
//! The size prefix, the request and response headers, the `__cluster_metadata` record framing
//! and the coordinator records' type and version are nom parsers (nom's combinators over the
//! primitives in `grammar`).

use crate::codec::{outline, Message, MessageInfo};
use crate::compound::read::unknown_tags_only;
use crate::error::{DecodeError, DecodeErrorKind as K};
use crate::generated::api::{
    ApiKey, GroupCoordinatorKey, GroupCoordinatorRecordType, GroupCoordinatorValue, MetadataRecord, MetadataRecordType,
    Request, RequestBody, ResponseBody, ShareCoordinatorKey, ShareCoordinatorRecordType, ShareCoordinatorValue,
    TransactionCoordinatorKey, TransactionCoordinatorRecordType, TransactionCoordinatorValue,
};
use crate::generated::messages::{RequestHeader, ResponseHeader};
use crate::grammar::{self, be_i16, be_i32, nullable_string, uvarint, PResult};
use crate::read::Cursor;
use crate::types::TaggedFields;
use crate::write::Sink;
use ::nom::bytes::streaming::take;
use ::nom::combinator::peek;
use ::nom::number::streaming;
use ::nom::{Err, IResult, Parser};

pub use crate::codec::Mode;

/// The bytes of `all` before `rest`, a tail of `all` that a parser left: sliced without a
/// panic site, so that frame parsing links no panic handler.
#[inline(always)]
fn consumed<'a>(all: &'a [u8], rest: &[u8]) -> &'a [u8] {
    all.get(..all.len().saturating_sub(rest.len())).unwrap_or_default()
}

/// One size-prefixed frame as a nom parser (nom's `be_i32`, then `take`): the payload. Streaming: `Incomplete` with the bytes needed while the frame is short; a negative
/// size fails ([`Err::Failure`]: no other reading of the bytes can succeed).
pub(crate) fn size_prefixed(input: &[u8]) -> IResult<&[u8], &[u8], DecodeError> {
    let (rest, size) = streaming::be_i32(input)?;
    if size < 0 {
        return Err(Err::Failure(DecodeError::new_at(
            K::InvalidFrame { value: i64::from(size) },
            0,
            "frame",
            -1,
            "size",
        )));
    }
    take(size as usize).parse(rest)
}

/// Splits one size-prefixed frame off the front of `input` ([`crate::nom::size_prefixed`]),
/// returning `(frame payload, rest)`. A negative size is an error; a payload shorter than the
/// size says is [`DecodeErrorKind::UnexpectedEof`](crate::DecodeErrorKind) with the bytes needed.
pub fn split_frame(input: &[u8]) -> Result<(&[u8], &[u8]), DecodeError> {
    match size_prefixed(input) {
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

/// The fixed start of every request header, read off a frame (size prefix included) without
/// checking anything else: the API key, API version and correlation id as the wire has them.
/// `None` when the frame is shorter than that. For a reader that must name a request that
/// does not decode, or judge where a frame may start.
#[inline]
pub fn peek_request_head(frame: &[u8]) -> Option<(i16, i16, i32)> {
    let h = frame.get(4..12)?.first_chunk::<8>()?;
    Some((
        i16::from_be_bytes([h[0], h[1]]),
        i16::from_be_bytes([h[2], h[3]]),
        i32::from_be_bytes([h[4], h[5], h[6], h[7]]),
    ))
}

/// The correlation id of a response frame (size prefix included), which every response header
/// starts with; `None` when the frame is shorter than that.
#[inline]
pub fn peek_response_correlation_id(frame: &[u8]) -> Option<i32> {
    frame.get(4..8)?.first_chunk::<4>().map(|b| i32::from_be_bytes(*b))
}

/// The payload of a frame that must be exactly `input`: bytes after it make the size prefix
/// the fault ([`DecodeErrorKind::FrameSize`](crate::DecodeErrorKind::FrameSize)).
fn whole_frame(input: &[u8]) -> Result<&[u8], DecodeError> {
    let (payload, rest) = split_frame(input)?;
    if !rest.is_empty() {
        // The prefix is the fault: the message runs on past it.
        return Err(DecodeError::new_at(
            K::FrameSize {
                size: i32::try_from(payload.len()).unwrap_or(i32::MAX),
                given: input.len().saturating_sub(4),
            },
            0,
            "frame",
            -1,
            "size",
        ));
    }
    Ok(payload)
}

/// A request header at `header_version` (0, 1 or 2) as a nom parser: the API key, API version
/// and correlation id (`be_i16`, `be_i16`, `be_i32`), from v1 the client id (a nullable
/// string), at v2 the tagged fields. Errors count the bytes left (`grammar::finish` makes them
/// offsets).
pub(crate) fn request_header<'a>(header_version: i16) -> impl Fn(&'a [u8]) -> PResult<'a, RequestHeader<'a>> {
    move |i: &'a [u8]| {
        let (i, (request_api_key, request_api_version, correlation_id)) = (
            be_i16("request_api_key"),
            be_i16("request_api_version"),
            be_i32("correlation_id"),
        )
            .parse(i)?;
        let (i, client_id) = match header_version {
            0 => (i, Some("")),
            _ => nullable_string("client_id")(i)?,
        };
        let (i, unknown_tagged_fields) = match header_version {
            0 | 1 => (i, TaggedFields::EMPTY),
            _ => tagged_fields(i)?,
        };
        Ok((
            i,
            RequestHeader {
                request_api_key,
                request_api_version,
                correlation_id,
                client_id,
                unknown_tagged_fields,
            },
        ))
    }
}

/// A response header at `header_version` (0 or 1) as a nom parser: the correlation id
/// (`be_i32`), at v1 the tagged fields. Errors count the bytes left.
pub(crate) fn response_header<'a>(header_version: i16) -> impl Fn(&'a [u8]) -> PResult<'a, ResponseHeader<'a>> {
    move |i: &'a [u8]| {
        let (i, correlation_id) = be_i32("correlation_id")(i)?;
        let (i, unknown_tagged_fields) = match header_version {
            0 => (i, TaggedFields::EMPTY),
            _ => tagged_fields(i)?,
        };
        Ok((
            i,
            ResponseHeader {
                correlation_id,
                unknown_tagged_fields,
            },
        ))
    }
}

/// Reads a response header at `header_version` (0 or 1) off the front of `payload` (a response
/// without its size prefix): the header and the body's bytes, for a caller that decodes the
/// body itself (an owned decode from shared bytes).
pub fn split_response_header(payload: &[u8], header_version: i16) -> Result<(ResponseHeader<'_>, &[u8]), DecodeError> {
    match response_header(header_version).parse(payload) {
        Ok((body, header)) => Ok((header, body)),
        Err(e) => Err(grammar::finish(e, payload.len(), "ResponseHeader", header_version)),
    }
}

/// A header's tagged-field section (no known tags): kept as unknown tagged fields.
fn tagged_fields(i: &[u8]) -> PResult<'_, TaggedFields<'_>> {
    let mut c = Cursor::new(i);
    match unknown_tags_only(&mut c, "_tagged_fields") {
        Ok(t) => Ok((c.rest(), t)),
        Err(e) => Err(Err::Error(c.error(e))),
    }
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

impl RequestFrame<'_> {
    /// Whether Kafka answers this request: every request but a Produce with `acks = 0`.
    #[inline]
    pub fn expects_response(&self) -> bool {
        #[cfg(feature = "api-produce")]
        if let RequestBody::Produce(p) = &self.body {
            return p.acks != 0;
        }
        true
    }
}

/// Parses a whole request frame: 4-byte size, header, body. The frame must be exactly `input`.
#[inline]
pub fn parse_request_frame(input: &[u8], mode: Mode) -> Result<RequestFrame<'_>, DecodeError> {
    let payload = whole_frame(input)?;
    parse_request(payload, mode).map_err(|e| e.shifted(4))
}

/// Parses a request (header and body) without its size prefix.
#[inline]
pub fn parse_request(payload: &[u8], mode: Mode) -> Result<RequestFrame<'_>, DecodeError> {
    outline(move || {
        let fin = |e| grammar::finish(e, payload.len(), "RequestHeader", -1);
        let (_, (key, version)) = peek((be_i16("request_api_key"), be_i16("request_api_version")))
            .parse(payload)
            .map_err(fin)?;
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
        let (body_bytes, header) = request_header(header_version)
            .parse(payload)
            .map_err(|e| grammar::finish(e, payload.len(), "RequestHeader", header_version))?;
        let base = payload.len() - body_bytes.len();
        let (body, trailing) =
            RequestBody::parse_with(api_key, body_bytes, version, mode).map_err(|e| e.shifted(base))?;
        let header_bytes = consumed(payload, body_bytes);
        let body_bytes = consumed(body_bytes, trailing);
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
    })
}

/// Whether a response body of API `api_key` that does not parse at `version` is read again at
/// version 0: true for ApiVersions above version 0. A broker that does not support the
/// ApiVersions version it was sent answers in version 0's shape with `UNSUPPORTED_VERSION`
/// (its response header is version 0 at every version), and Kafka's client reads it so. When
/// the second reading fails too, the error of the first is reported. Every response parser of
/// this crate applies this rule: the frame parsers here and
/// `versions::parse_api_versions_response` (feature `api-api-versions`).
#[inline(always)]
pub const fn reads_v0_fallback(api_key: i16, version: i16) -> bool {
    api_key == ApiKey::ApiVersions.id() && version > 0
}

/// A parsed response frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResponseFrame<'a> {
    /// The version the body was read at: the version asked for, or 0 for an ApiVersions answer
    /// in version 0's shape (see [`reads_v0_fallback`]).
    pub version: i16,
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
#[inline]
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
#[inline]
pub fn parse_response(
    payload: &[u8],
    api_key: ApiKey,
    version: i16,
    mode: Mode,
) -> Result<ResponseFrame<'_>, DecodeError> {
    outline(move || {
        let header_version = api_key.response_header_version(version);
        let (header, body_bytes) = response_head(payload, &api_key.response_info(), version, header_version, 0)?;
        let base = payload.len() - body_bytes.len();
        let parsed = match ResponseBody::parse_with(api_key, body_bytes, version, mode) {
            Err(e) if reads_v0_fallback(api_key.id(), version) => {
                ResponseBody::parse_with(api_key, body_bytes, 0, mode)
                    .map(|b| (b, 0))
                    .map_err(|_| e)
            }
            r => r.map(|b| (b, version)),
        };
        match parsed {
            Ok(((body, trailing), version)) => Ok(ResponseFrame {
                version,
                header_version,
                header,
                body,
                header_bytes: consumed(payload, body_bytes),
                body_bytes: consumed(body_bytes, trailing),
                trailing,
            }),
            Err(e) => Err(e.shifted(base)),
        }
    })
}

/// A response frame decoded as the answer to one request type: the body is that request's
/// response type ([`Request::Response`]), so no key is typed by hand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TypedResponseFrame<'b, B> {
    /// The version the body was read at: the version asked for, or 0 for an ApiVersions answer
    /// in version 0's shape (see [`reads_v0_fallback`]).
    pub version: i16,
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
    response_to::<R>(payload, 4, version, mode)
}

/// [`parse_response_frame_to`] without the size prefix.
pub fn parse_response_to<'a, 'b, R: Request<'a>>(
    payload: &'b [u8],
    version: i16,
    mode: Mode,
) -> Result<TypedResponseFrame<'b, R::Response<'b>>, DecodeError> {
    response_to::<R>(payload, 0, version, mode)
}

/// The response to `R` in `payload`, which starts `shift` bytes into the input (errors are
/// reported at offsets in the input). The part that does not depend on the body's type (the
/// version check and the header) is a function of its own, shared by every response type,
/// and the body is read straight into the frame, so no result is moved twice.
#[inline(always)]
fn response_to<'a, 'b, R: Request<'a>>(
    payload: &'b [u8],
    shift: usize,
    version: i16,
    mode: Mode,
) -> Result<TypedResponseFrame<'b, R::Response<'b>>, DecodeError> {
    let header_version = R::response_header_version(version);
    let (header, body_bytes) = response_head(
        payload,
        &<R::Response<'b> as Message<'b>>::INFO,
        version,
        header_version,
        shift,
    )?;
    let base = payload.len() - body_bytes.len();
    let parsed = match crate::codec::parse_mode::<R::Response<'b>>(body_bytes, version, mode) {
        Err(e) if reads_v0_fallback(R::API_KEY.id(), version) => {
            crate::codec::parse_mode::<R::Response<'b>>(body_bytes, 0, mode)
                .map(|b| (b, 0))
                .map_err(|_| e)
        }
        r => r.map(|b| (b, version)),
    };
    match parsed {
        Ok(((body, trailing), version)) => Ok(TypedResponseFrame {
            version,
            header_version,
            header,
            body,
            header_bytes: consumed(payload, body_bytes),
            body_bytes: consumed(body_bytes, trailing),
            trailing,
        }),
        Err(e) => Err(e.shifted(base + shift)),
    }
}

/// The checks and the header of a response to the message `info` at `version`: the header
/// and the body's bytes. Errors are shifted by `shift`. Shared by the typed and the untyped
/// response parsers; with `small-code` one function for all of them, otherwise inlined into
/// each (a typed response frame then costs no call).
#[cfg_attr(feature = "small-code", inline(never))]
#[cfg_attr(not(feature = "small-code"), inline(always))]
fn response_head<'b>(
    payload: &'b [u8],
    info: &MessageInfo,
    version: i16,
    header_version: i16,
    shift: usize,
) -> Result<(ResponseHeader<'b>, &'b [u8]), DecodeError> {
    if !info.is_valid(version) {
        return Err(DecodeError::new_at(
            K::UnsupportedVersion {
                version: i32::from(version),
            },
            shift,
            info.name,
            version,
            "",
        ));
    }
    match response_header(header_version).parse(payload) {
        Ok((body_bytes, header)) => Ok((header, body_bytes)),
        Err(e) => Err(grammar::finish(e, payload.len(), "ResponseHeader", header_version).shifted(shift)),
    }
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

/// An unsigned varint that must fit an `int16` (`InvalidFrame` at the varint otherwise).
fn short_uvarint<'a>(f: &'static str) -> impl Fn(&'a [u8]) -> PResult<'a, i16> {
    move |i: &'a [u8]| {
        let (rest, v) = uvarint(f)(i)?;
        if v > i16::MAX as u32 {
            return Err(Err::Error(DecodeError::at(
                K::InvalidFrame { value: i64::from(v) },
                i.len(),
                f,
            )));
        }
        Ok((rest, v as i16))
    }
}

/// The `__cluster_metadata` record framing as a nom parser: the frame version (which must be
/// [`METADATA_FRAME_VERSION`]), the record type (a known one) and the record's version, each an
/// unsigned varint that fits an `int16`; the rest is the record. Errors count the bytes left.
pub(crate) fn metadata_record_frame(i: &[u8]) -> PResult<'_, (MetadataRecordType, i16)> {
    let (rest, frame) = short_uvarint("frame_version")(i)?;
    if frame as u32 != METADATA_FRAME_VERSION {
        return Err(Err::Error(DecodeError::at(
            K::InvalidFrame {
                value: i64::from(frame),
            },
            i.len(),
            "frame_version",
        )));
    }
    let (after, ty) = short_uvarint("record_type")(rest)?;
    let Some(record_type) = MetadataRecordType::from_i16(ty) else {
        return Err(Err::Error(DecodeError::at(
            K::UnknownApiKey { key: i32::from(ty) },
            rest.len(),
            "record_type",
        )));
    };
    let (after, version) = short_uvarint("version")(after)?;
    Ok((after, (record_type, version)))
}

/// Parses a framed metadata record: unsigned varint frame version (must be 1), unsigned varint
/// record type, unsigned varint version, then the record. Trailing bytes are an error.
#[inline]
pub fn parse_metadata_record(input: &[u8]) -> Result<FramedMetadataRecord<'_>, DecodeError> {
    outline(move || {
        let (c, (record_type, version)) =
            metadata_record_frame(input).map_err(|e| grammar::finish(e, input.len(), "MetadataRecordFrame", -1))?;
        let base = input.len() - c.len();
        let record = MetadataRecord::parse(record_type, c, version).map_err(|e| e.shifted(base))?;
        Ok(FramedMetadataRecord {
            record_type,
            version,
            record,
            record_bytes: c,
        })
    })
}

/// Encodes a framed metadata record into the front of `out`; returns the bytes written.
#[inline]
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
        #[inline]
        pub fn $fn_name<'a>(key: &'a [u8], value: Option<&'a [u8]>) -> Result<$rec<'a>, DecodeError> {
            outline(move || {
            let (c, ty) = be_i16("record_type")(key).map_err(|e| grammar::finish(e, key.len(), stringify!($key), -1))?;
            let Some(record_type) = $ty::from_i16(ty) else {
                return Err(DecodeError::new_at(K::UnknownApiKey { key: i32::from(ty) }, 0, stringify!($key), -1, "record_type"));
            };
            // Keys are read at version 0, the only version their schemas have.
            let k = $key::parse(record_type, c, 0).map_err(|e| e.shifted(2))?;
            let value = match value {
                None => None,
                Some(vb) => {
                    let (c, version) = be_i16("version")(vb).map_err(|e| grammar::finish(e, vb.len(), stringify!($value), -1))?;
                    let v = $value::parse(record_type, c, version).map_err(|e| e.shifted(2))?;
                    Some((version, v))
                }
            };
            Ok($rec { record_type, key: k, value })
            })
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

/// Encodes a frame into the front of `out`: the size prefix, then the header and the body,
/// each by its own `encode` into the bytes after the one before (which sizes it once), with no
/// size pass over the frame. When `out` is too short, the size needed is the sum of what the
/// parts wrote or, for a part that did not fit, the size its `encode` failed with; the errors
/// and their order are `encode_request_frame_into`'s.
#[inline(always)]
fn frame_to_slice(
    out: &mut [u8],
    head: impl FnOnce(&mut &mut [u8]) -> Result<usize, crate::EncodeError>,
    body: impl FnOnce(&mut &mut [u8]) -> Result<usize, crate::EncodeError>,
    name: &'static str,
    version: i16,
) -> Result<usize, crate::EncodeError> {
    let (size, mut rest) = match out.split_first_chunk_mut::<4>() {
        Some((size, rest)) => (Some(size), rest),
        None => (None, &mut [][..]),
    };
    // A part that does not fit leaves `rest` as it was: the body is then tried (and sized)
    // there, and whatever it writes is past a frame that is not returned.
    let head_len = written_or_needed(head(&mut rest))?;
    let body_len = written_or_needed(body(&mut rest))?;
    let len = head_len.len().saturating_add(body_len.len());
    let total = len.saturating_add(4);
    if total > i32::MAX as usize {
        return Err(
            crate::EncodeError::new(crate::EncodeErrorKind::TooLong { length: total }, "size").finish(name, version),
        );
    }
    match (size, head_len, body_len) {
        (Some(size), Part::Written(_), Part::Written(_)) => {
            *size = (len as i32).to_be_bytes();
            Ok(total)
        }
        _ => Err(
            crate::EncodeError::new(crate::EncodeErrorKind::BufferTooShort { needed: total }, "").finish(name, version),
        ),
    }
}

/// How encoding one part of a frame into a slice went.
#[derive(Clone, Copy)]
enum Part {
    /// It fit: this many bytes were written.
    Written(usize),
    /// It did not fit: it needs this many.
    Needed(usize),
}

impl Part {
    fn len(self) -> usize {
        match self {
            Part::Written(n) | Part::Needed(n) => n,
        }
    }
}

/// A part's `encode` result: its length, whether written or needed; other errors pass.
fn written_or_needed(r: Result<usize, crate::EncodeError>) -> Result<Part, crate::EncodeError> {
    match r {
        Ok(n) => Ok(Part::Written(n)),
        Err(e) => match e.kind() {
            crate::EncodeErrorKind::BufferTooShort { needed } => Ok(Part::Needed(needed)),
            _ => Err(e),
        },
    }
}

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
    let short =
        || crate::EncodeError::new(crate::EncodeErrorKind::BufferTooShort { needed: total }, "").finish(name, version);
    // Checked splits: a `Sink` may hand back fewer bytes than asked for, and an error is
    // cheaper in flash than a panic site.
    let Some((size, rest)) = out.reserve(total).and_then(|b| b.split_first_chunk_mut::<4>()) else {
        return Err(short());
    };
    *size = ((head_len + body_len) as i32).to_be_bytes();
    rest.split_at_mut_checked(head_len).ok_or_else(short)
}

/// The request header of a frame carrying `body` at `version`, and its header version.
#[inline(always)]
fn request_header_for<'h>(
    correlation_id: i32,
    client_id: Option<&'h str>,
    body: &RequestBody<'_>,
    version: i16,
) -> (RequestHeader<'h>, i16) {
    let key = body.key();
    let header = RequestHeader {
        request_api_key: key.id(),
        request_api_version: version,
        correlation_id,
        client_id,
        ..RequestHeader::DEFAULT
    };
    (header, key.request_header_version(version))
}

/// Encodes a whole request frame (size, header, body) into the front of `out`; returns its
/// length. The header's API key and version are taken from `body` and `version`; its header
/// version from the API key.
#[inline]
pub fn encode_request_frame(
    correlation_id: i32,
    client_id: Option<&str>,
    body: &RequestBody<'_>,
    version: i16,
    out: &mut [u8],
) -> Result<usize, crate::EncodeError> {
    let (header, hv) = request_header_for(correlation_id, client_id, body, version);
    frame_to_slice(
        out,
        |s| header.encode(s, hv),
        |s| body.encode(s, version),
        body.info().name,
        version,
    )
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
    let (header, hv) = request_header_for(correlation_id, client_id, body, version);
    let head_len = header.encoded_len(hv)?;
    let body_len = body.encoded_len(version)?;
    let (mut h, mut b) = frame_into(out, head_len, body_len, body.info().name, version)?;
    header.encode(&mut h, hv)?;
    body.encode(&mut b, version)?;
    Ok(4 + head_len + body_len)
}

/// Encodes a whole request frame for a request of type `R` (size, header, body) into the front
/// of `out`; returns its length. The API key and the header version come from `R`, so no key
/// is typed by hand.
#[inline]
pub fn encode_request_frame_to<'a, R: Request<'a>>(
    correlation_id: i32,
    client_id: Option<&str>,
    body: &R,
    version: i16,
    out: &mut [u8],
) -> Result<usize, crate::EncodeError> {
    let header = RequestHeader {
        request_api_key: R::API_KEY.id(),
        request_api_version: version,
        correlation_id,
        client_id,
        ..RequestHeader::DEFAULT
    };
    let hv = R::request_header_version(version);
    frame_to_slice(
        out,
        |s| header.encode(s, hv),
        |s| body.encode(s, version),
        <R as Message<'a>>::INFO.name,
        version,
    )
}

/// Encodes a whole response frame (size, header, body) into the front of `out`; returns its
/// length.
#[inline]
pub fn encode_response_frame(
    correlation_id: i32,
    body: &ResponseBody<'_>,
    version: i16,
    out: &mut [u8],
) -> Result<usize, crate::EncodeError> {
    let header = ResponseHeader {
        correlation_id,
        ..ResponseHeader::DEFAULT
    };
    let hv = body.key().response_header_version(version);
    frame_to_slice(
        out,
        |s| header.encode(s, hv),
        |s| body.encode(s, version),
        body.info().name,
        version,
    )
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
