//! nom parsers for the wire primitives the framing layers are built from: fixed-width
//! big-endian fields, unsigned varints, length-prefixed bytes and strings. Frames, request and
//! response headers, record batch headers, legacy messages and the `__cluster_metadata` record
//! framing compose these with nom's combinators.
//!
//! Every parser here has the shape `Fn(&[u8]) -> IResult<&[u8], T, DecodeError>` and reads
//! complete input: a field cut short is `Err::Error` with
//! [`UnexpectedEof`](crate::DecodeErrorKind::UnexpectedEof) and the bytes still needed, never
//! `Incomplete`. As in the `read` primitives (which these parsers wrap), an error records the
//! bytes remaining where it was found and the field's name; `finish` turns it into an offset
//! from the start of the input and names the message and version.

use ::nom::{Err, IResult};

use crate::error::{DecodeError, DecodeErrorKind as K};
use crate::read;

/// What the parsers here return.
pub(crate) type PResult<'a, T> = IResult<&'a [u8], T, DecodeError>;

macro_rules! fixed {
    ($($name:ident => $read:ident, $t:ty;)*) => {$(
        #[doc = concat!("A big-endian `", stringify!($t), "` for field `f`: a short input is `UnexpectedEof` with the bytes needed.")]
        #[inline(always)]
        pub(crate) fn $name<'a>(f: &'static str) -> impl Fn(&'a [u8]) -> PResult<'a, $t> {
            move |mut i: &'a [u8]| match read::$read(&mut i, f) {
                Ok(v) => Ok((i, v)),
                Err(e) => Err(Err::Error(e)),
            }
        }
    )*};
}

// The `read` primitives (one bounds check, one load) rather than nom's `be_*`, which read
// byte by byte behind an outlined call: 60% more instructions per batch header, measured.
fixed! {
    be_i8 => i8, i8;
    be_i16 => i16, i16;
    be_i32 => i32, i32;
    be_u32 => u32, u32;
    be_i64 => i64, i64;
}

/// An unsigned varint (at most five bytes, Kafka's reading).
#[inline(always)]
pub(crate) fn uvarint<'a>(f: &'static str) -> impl Fn(&'a [u8]) -> PResult<'a, u32> {
    move |mut i: &'a [u8]| match read::uvarint(&mut i, f) {
        Ok(v) => Ok((i, v)),
        Err(e) => Err(Err::Error(e)),
    }
}

/// Classic (`int32`-length) bytes, null when the length is negative.
#[inline(always)]
pub(crate) fn nullable_bytes<'a>(f: &'static str) -> impl Fn(&'a [u8]) -> PResult<'a, Option<&'a [u8]>> {
    move |mut i: &'a [u8]| match read::opt_bytes(&mut i, false, true, f) {
        Ok(v) => Ok((i, v)),
        Err(e) => Err(Err::Error(e)),
    }
}

/// A classic (`int16`-length) string, null when the length is negative.
#[inline(always)]
pub(crate) fn nullable_string<'a>(f: &'static str) -> impl Fn(&'a [u8]) -> PResult<'a, Option<&'a str>> {
    move |mut i: &'a [u8]| match read::opt_str(&mut i, false, true, f) {
        Ok(v) => Ok((i, v)),
        Err(e) => Err(Err::Error(e)),
    }
}

/// A parser's error as a finished [`DecodeError`]: its offset counted from the start of an
/// input `total` bytes long, in `message` at `version` (unless the error names its own).
#[cold]
#[inline(never)]
pub(crate) fn finish(e: Err<DecodeError>, total: usize, message: &'static str, version: i16) -> DecodeError {
    match e {
        Err::Error(e) | Err::Failure(e) => e.finish(total, message, version),
        // The parsers here read complete input and never answer `Incomplete`.
        Err::Incomplete(_) => DecodeError::new_at(K::UnexpectedEof { needed: 1 }, total, message, version, ""),
    }
}
