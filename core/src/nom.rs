//! kafka-wire inside a nom grammar: messages and frames as [`nom::Parser`]s.
//!
//! nom's types appear in this module only; the rest of the crate returns its own `Result`.
//!
//! - [`message`] parses one message at a version off the front of complete input and hands
//!   back the rest, so messages compose with nom's combinators (`length_value`, `many0`, …).
//! - [`size_prefixed`] takes one size-prefixed frame's payload in streaming style: while the
//!   frame is not all there it answers `Incomplete` with the bytes still needed.
//! - [`request_frame`] and [`response_frame`] parse a whole frame on top of it.
//!
//! Errors are [`DecodeError`]s. Offsets count from the start of the input the parser was given.
//!
//! ```
//! use kafka_wire::messages::{ApiVersionsResponse, MetadataRequest};
//! use kafka_wire::Message;
//! use nom::Parser;
//!
//! // Two messages back to back: a MetadataRequest v12 and an ApiVersionsResponse v3.
//! let mut buf = [0u8; 64];
//! let a = MetadataRequest::DEFAULT.encode_to_slice(&mut buf, 12).unwrap();
//! let b = ApiVersionsResponse::DEFAULT.encode_to_slice(&mut buf[a..], 3).unwrap();
//! let mut both = (
//!     kafka_wire::nom::message::<MetadataRequest<'_>>(12),
//!     kafka_wire::nom::message::<ApiVersionsResponse<'_>>(3),
//! );
//! let (rest, (req, resp)) = both.parse(&buf[..a + b]).unwrap();
//! assert!(rest.is_empty());
//! assert_eq!(req, MetadataRequest::DEFAULT);
//! assert_eq!(resp.error_code, 0);
//! ```

use ::nom::{Err, IResult, Parser};

use crate::codec::Message;
use crate::error::{DecodeError, DecodeErrorKind};
use crate::frame::{self, FramedMetadataRecord, Mode, RequestFrame, TypedResponseFrame};
use crate::generated::api::Request;
use crate::generated::messages::{RequestHeader, ResponseHeader};
use crate::grammar;
use crate::records::RecordBatch;

/// A parser for message `M` at `version`: the message off the front of the input, then the
/// rest. The input is complete: a message cut short is an error, not `Incomplete`.
pub fn message<'a, M: Message<'a>>(version: i16) -> impl Parser<&'a [u8], Output = M, Error = DecodeError> {
    move |input: &'a [u8]| match M::parse_lenient(input, version) {
        Ok((m, rest)) => Ok((rest, m)),
        Err(e) => Err(Err::Error(e)),
    }
}

/// One size-prefixed frame: a big-endian `i32` size, then that many bytes, returned as the
/// payload. Streaming: `Incomplete` with the bytes needed while the frame is short; a negative
/// size fails ([`Err::Failure`]: no other reading of the bytes can succeed).
pub fn size_prefixed(input: &[u8]) -> IResult<&[u8], &[u8], DecodeError> {
    frame::size_prefixed(input)
}

/// A whole request frame (size, header, body), parsed in `mode`; streaming like
/// [`size_prefixed`].
#[inline]
pub fn request_frame<'a>(mode: Mode) -> impl Parser<&'a [u8], Output = RequestFrame<'a>, Error = DecodeError> {
    move |input: &'a [u8]| {
        let (rest, payload) = size_prefixed(input)?;
        match frame::parse_request(payload, mode) {
            Ok(f) => Ok((rest, f)),
            Err(e) => Err(Err::Error(e.shifted(4))),
        }
    }
}

/// A whole response frame answering a request of type `R` sent at `version`, parsed in
/// `mode`; streaming like [`size_prefixed`].
pub fn response_frame<'a, 'b, R: Request<'a>>(
    version: i16,
    mode: Mode,
) -> impl Parser<&'b [u8], Output = TypedResponseFrame<'b, R::Response<'b>>, Error = DecodeError> {
    move |input: &'b [u8]| {
        let (rest, payload) = size_prefixed(input)?;
        match frame::parse_response_to::<R>(payload, version, mode) {
            Ok(f) => Ok((rest, f)),
            Err(e) => Err(Err::Error(e.shifted(4))),
        }
    }
}

/// The error for a header version the header's schema does not have.
fn header_version_error(name: &'static str, version: i16) -> Err<DecodeError> {
    Err::Error(DecodeError::new_at(
        DecodeErrorKind::UnsupportedVersion {
            version: i32::from(version),
        },
        0,
        name,
        version,
        "",
    ))
}

/// A request header at `header_version` (0, 1 or 2;
/// [`ApiKey::request_header_version`](crate::ApiKey::request_header_version) gives it for a
/// request): API key, API version, correlation id, from v1 the client id, at v2 the tagged
/// fields. The header parser [`request_frame`] uses; errors are those of [`RequestHeader`]'s
/// own parse.
///
/// ```
/// use kafka_wire::frame::encode_request_frame;
/// use kafka_wire::messages::MetadataRequest;
/// use kafka_wire::{Message, RequestBody};
/// use nom::Parser;
///
/// let mut buf = [0u8; 64];
/// let body = RequestBody::Metadata(MetadataRequest::DEFAULT);
/// let n = encode_request_frame(7, Some("me"), &body, 12, &mut buf).unwrap();
/// // The size prefix, then the header (v2 for Metadata v12), then the body.
/// let (body_bytes, header) = kafka_wire::nom::request_header(2).parse(&buf[4..n]).unwrap();
/// assert_eq!((header.correlation_id, header.client_id), (7, Some("me")));
/// assert_eq!(body_bytes.len(), MetadataRequest::DEFAULT.encoded_len(12).unwrap());
/// ```
pub fn request_header<'a>(
    header_version: i16,
) -> impl Parser<&'a [u8], Output = RequestHeader<'a>, Error = DecodeError> {
    move |input: &'a [u8]| {
        if !<RequestHeader<'a> as Message<'a>>::INFO.is_valid(header_version) {
            return Err(header_version_error("RequestHeader", header_version));
        }
        frame::request_header(header_version)(input)
            .map_err(|e| Err::Error(grammar::finish(e, input.len(), "RequestHeader", header_version)))
    }
}

/// A response header at `header_version` (0 or 1): the correlation id, at v1 the tagged
/// fields. The header parser [`response_frame`] uses.
pub fn response_header<'a>(
    header_version: i16,
) -> impl Parser<&'a [u8], Output = ResponseHeader<'a>, Error = DecodeError> {
    move |input: &'a [u8]| {
        if !<ResponseHeader<'a> as Message<'a>>::INFO.is_valid(header_version) {
            return Err(header_version_error("ResponseHeader", header_version));
        }
        frame::response_header(header_version)(input)
            .map_err(|e| Err::Error(grammar::finish(e, input.len(), "ResponseHeader", header_version)))
    }
}

/// One magic 2 record batch off the front of the input, validated as
/// [`RecordBatch::parse`] does (CRC checked, an uncompressed batch's records validated).
pub fn record_batch(input: &[u8]) -> IResult<&[u8], RecordBatch<'_>, DecodeError> {
    match RecordBatch::parse(input) {
        Ok((b, rest)) => Ok((rest, b)),
        Err(e) => Err(Err::Error(e)),
    }
}

/// One framed `__cluster_metadata` record (a record value in that log): the three varints,
/// then the record, which takes the rest of the input, as [`frame::parse_metadata_record`]
/// reads it.
#[inline]
pub fn metadata_record(input: &[u8]) -> IResult<&[u8], FramedMetadataRecord<'_>, DecodeError> {
    match frame::parse_metadata_record(input) {
        Ok(r) => Ok((&[], r)),
        Err(e) => Err(Err::Error(e)),
    }
}
