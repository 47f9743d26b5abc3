//! The default build: tuned for instructions. Every function here has a twin of the same
//! signature in `small.rs`; see the module documentation of `profile`.

use crate::codec::{self, Message};
use crate::compound::read::{element_count, skip_elems};
use crate::error::{DecodeError, DecodeErrorKind as K, EncodeError, Fail};
use crate::read::*;
use crate::structs::Struct;
use crate::types::{Array, Elem};
use crate::visit::{FieldId, Visitor};
use crate::write::{Sink, Writer};

// Messages: parse and encode.

/// [`Message::parse`]: [`Message::parse_lenient`], then no bytes may be left.
#[inline(always)]
pub fn parse<'a, M: Message<'a>>(bytes: &'a [u8], version: i16) -> Result<M, DecodeError> {
    codec::whole(&M::INFO, bytes, version, M::parse_lenient(bytes, version)?)
}

/// [`Message::parse_lenient`]: the version check, the read, its error given an offset.
#[inline(always)]
pub fn parse_lenient<'a, M: Message<'a>>(bytes: &'a [u8], version: i16) -> Result<(M, &'a [u8]), DecodeError> {
    codec::read_message(&M::INFO, bytes, version, |c| M::read(c, version))
}

/// [`Message::encoded_len`]: the message's size pass.
#[inline(always)]
pub fn encoded_len<'a, M: Message<'a>>(m: &M, version: i16) -> Result<usize, EncodeError> {
    codec::checked_len(&M::INFO, version, || m.size(version))
}

/// [`Message::encode`]: the size pass, then the writer into exactly that many bytes.
#[inline(always)]
pub fn encode<'a, M: Message<'a>, S: Sink + ?Sized>(m: &M, sink: &mut S, version: i16) -> Result<usize, EncodeError> {
    codec::encode_sized(&M::INFO, version, sink, || m.size(version), |w| m.write(w, version))
}

/// [`Message::encode_to_slice`]: the writer, with the size pass only to report a short buffer.
#[inline(always)]
pub fn encode_to_slice<'a, M: Message<'a>>(m: &M, buf: &mut [u8], version: i16) -> Result<usize, EncodeError> {
    codec::encode_one_pass(&M::INFO, version, buf, || m.size(version), |w| m.write(w, version))
}

/// A generated struct is an array element: its element functions are its struct functions.
impl<'a, T: Struct<'a>> Elem<'a> for T {
    #[inline]
    fn read_elem(c: &mut Cursor<'a>, version: i16, _: bool, _: &'static str) -> Result<Self, Fail> {
        T::read(c, version)
    }
    #[inline]
    fn check_elem(c: &mut Cursor<'a>, version: i16, _: bool, _: &'static str) -> Result<(), Fail> {
        T::check(c, version)
    }
    #[inline]
    fn skip_elem(c: &mut Cursor<'a>, version: i16, _: bool) -> Option<()> {
        T::skip(c, version)
    }
    #[inline]
    fn visit_elem<V: Visitor<'a> + ?Sized>(
        c: &mut Cursor<'a>,
        version: i16,
        _: bool,
        id: FieldId,
        vis: &mut V,
        _: &'static str,
    ) -> Result<(), Fail> {
        crate::compound::visit::struct_field::<T, V>(c, true, version, id, vis)
    }
    #[inline]
    fn size_elem(&self, version: i16, _: bool, _: &'static str) -> Result<usize, EncodeError> {
        self.size(version)
    }
    #[inline]
    fn write_elem(&self, w: &mut Writer<'_>, version: i16, _: bool, _: &'static str) {
        self.write(w, version)
    }
}

// Structs: what arrays and nested fields call.

/// A struct's size: its size pass.
#[inline(always)]
pub fn struct_size<'a, T: Struct<'a>>(s: &T, version: i16) -> Result<usize, EncodeError> {
    s.size(version)
}

/// Steps over a struct in validated bytes: its `skip`.
#[inline(always)]
pub fn struct_skip<'a, T: Struct<'a>>(c: &mut Cursor<'a>, version: i16) -> Option<()> {
    T::skip(c, version)
}

// Readers.

macro_rules! readers {
    ($($s:ident $k:ident $t:ident $at:ident $w:literal $d:literal,)*) => {$(
        #[doc = concat!("`", stringify!($s), "`.")]
        #[inline(always)]
        pub fn $t<'a, C: Src<'a>>(c: &mut C, f: &'static str) -> Result<$t, C::Err> {
            Ok(<$t>::from_be_bytes(chunk::<$w, C>(c, f)?))
        }
    )*};
}
/// The readers of the fixed-width numbers, one per row of the table.
pub mod numbers {
    use super::*;
    crate::prim::numbers!(readers);
}

/// Unsigned varint, at most five bytes, as Kafka reads it (the result is 32 bits): the one-byte
/// form inline, the others through [`uvarint_slow`].
#[inline(always)]
pub fn uvarint<'a, C: Src<'a>>(c: &mut C, f: &'static str) -> Result<u32, C::Err> {
    uvarint_inline(c, f)
}

/// The two-byte form of an unsigned varint, the next most common after one byte (128 to
/// 16,383: record lengths, 1 KiB values), ahead of [`uvarint_slow`]'s loop: its value, length
/// and canonical flag, as the loop gives them.
#[inline(always)]
pub fn uvarint_two_bytes(start: &[u8]) -> Option<(u32, usize, bool)> {
    match start.first_chunk::<2>() {
        Some(&[b0, b1]) if b0 >= 0x80 && b1.wrapping_sub(1) < 0x7f => {
            Some((u32::from(b0 & 0x7f) | u32::from(b1) << 7, 2, false))
        }
        _ => None,
    }
}

/// `bytes` as a `str`, or `None` where they are not valid UTF-8: ASCII a word at a time first.
#[inline(never)]
pub fn str_of(bytes: &[u8]) -> Option<&str> {
    crate::text::ascii_or_utf8(bytes)
}

/// An array that may be null at this version. Every element is validated now, so iterating the
/// result later cannot fail.
#[inline(always)]
#[doc(hidden)]
pub fn opt_array<'a, T: Elem<'a>>(
    c: &mut Cursor<'a>,
    compact: bool,
    nullable: bool,
    version: i16,
    f: &'static str,
) -> Result<Option<Array<'a, T>>, Fail> {
    let n = element_count!(c, compact, nullable, f, Ok(None));
    let start: &'a [u8] = c.rest();
    if let Some(w) = T::WIDTH {
        // Fixed-width elements: one bounds check for the whole array.
        let bytes = take(c, n.saturating_mul(w), f)?;
        if !T::COPY_WIRE && bytes.iter().any(|&b| b > 1) {
            // `[]bool` with bytes other than 0 and 1.
            c.odd();
        }
        #[allow(clippy::cast_possible_truncation, reason = "element_count! bounds n by MAX_ELEMENTS")]
        let count = n as u32;
        return Ok(Some(Array::wire(bytes, count, version, compact, T::COPY_WIRE)));
    }
    let outer = c.take_odd();
    if c.validated {
        // Validated bytes: find the end only; the elements are read when they are iterated.
        // Nothing here is checked again, so the array is canonical only if the bytes were.
        c.restore_odd(outer);
        if skip_elems(c, n, version, compact, &T::skip_elem).is_none() {
            return Err(short(c, f));
        }
    } else {
        let mut l = c.fork();
        for _ in 0..n {
            if T::check_elem(&mut l, version, compact, f).is_err() {
                return Err(c.failed(l));
            }
        }
        c.join(l);
    }
    let canonical = !c.is_odd();
    c.restore_odd(outer);
    // Not `&start[..used]`: the cursor only moves forward within `start`, so the split always
    // succeeds, but the optimiser cannot see that and indexing would leave a panic path behind.
    let used = start.len().wrapping_sub(c.len());
    let (bytes, _) = start.split_at_checked(used).unwrap_or((start, &[]));
    #[allow(clippy::cast_possible_truncation, reason = "element_count! bounds n by MAX_ELEMENTS")]
    let count = n as u32;
    Ok(Some(Array::wire(bytes, count, version, compact, canonical)))
}

/// Validates an array (null or not) as [`opt_array`] does, building nothing: the arrays
/// nested in an element that [`Struct::check`] validates.
#[inline(always)]
#[doc(hidden)]
pub fn check_array<'a, T: Elem<'a>>(
    c: &mut Cursor<'a>,
    compact: bool,
    nullable: bool,
    version: i16,
    f: &'static str,
) -> Result<(), Fail> {
    let n = element_count!(c, compact, nullable, f, Ok(()));
    // The same fixed-width branch as `opt_array`'s, written out: a shared helper costs the parse
    // more instructions, even `#[inline(always)]`.
    if let Some(w) = T::WIDTH {
        let bytes = take(c, n.saturating_mul(w), f)?;
        if !T::COPY_WIRE && bytes.iter().any(|&b| b > 1) {
            c.odd();
        }
        return Ok(());
    }
    let mut l = c.fork();
    for _ in 0..n {
        if T::check_elem(&mut l, version, compact, f).is_err() {
            return Err(c.failed(l));
        }
    }
    c.join(l);
    Ok(())
}

/// What [`array`](crate::compound::read::array) returns where [`opt_array`] found a null
/// array that is not nullable, which it never does: the error, folded away with the branch.
#[inline(always)]
pub fn null_array<'a, T: Elem<'a>>(c: &mut Cursor<'a>, f: &'static str) -> Result<Array<'a, T>, Fail> {
    let rem = c.rest.len();
    Err(fail(c, rem, K::NullNotAllowed, f))
}

// Writers.

/// Whether a writer of unknown tagged fields returns early, inline, when there are none.
pub const UNKNOWN_TAGS_INLINE_CHECK: bool = true;

/// Writes the `N` bytes `a` of a fixed-width field, with one bounds check.
#[inline(always)]
pub fn write_fixed<const N: usize>(w: &mut Writer<'_>, a: [u8; N], f: &'static str) {
    if let Some(dst) = w.run::<N>(f) {
        *dst = a;
    }
}
