//! kafka-wire inside a nom grammar: messages and frames as [`nom::Parser`]s.
//!
//! nom's types appear in this module only; the rest of the crate returns its own `Result`.
//! Layer: uses the message trait and the frame layer; nothing below uses it.
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

use ::nom::bytes::streaming::take;
use ::nom::number::streaming::be_i32;
use ::nom::{Err, IResult, Parser};

use crate::codec::Message;
use crate::error::{DecodeError, DecodeErrorKind as K};
use crate::frame::{self, Mode, RequestFrame, TypedResponseFrame};
use crate::generated::api::Request;

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
    let (rest, size) = be_i32(input)?;
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

/// A whole request frame (size, header, body), parsed in `mode`; streaming like
/// [`size_prefixed`].
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
