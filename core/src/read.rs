//! Hand-written decoding primitives used by the generated code.
//!
//! Every function reads from a cursor (`&mut &[u8]`, the bytes that remain) and either advances
//! it or returns a [`DecodeError`] that records how many bytes remained, which the public entry
//! points turn into an offset. Lengths and counts read off the wire are checked against the
//! bytes that remain before anything else is done with them.
//!
//! The rules follow Kafka's Java implementation: a negative length means null (an error where
//! the field is not nullable); compact lengths are unsigned varints holding `length + 1`;
//! unsigned varints are at most five bytes, and bits beyond 32 in the fifth byte are dropped;
//! strings are at most 32767 bytes; any non-zero byte is `true`.

use crate::error::{DecodeError, DecodeErrorKind as K};
use crate::types::{Array, Elem, RawTaggedField, TaggedFields};

/// The cursor type: the bytes that remain.
pub(crate) type Cur<'a, 'c> = &'c mut &'a [u8];

#[cold]
#[inline(never)]
fn eof(c: &[u8], need: usize, f: &'static str) -> DecodeError {
    DecodeError::at(K::UnexpectedEof { needed: need.saturating_sub(c.len()) }, c.len(), f)
}

#[cold]
#[inline(never)]
pub(crate) fn err(c: &[u8], kind: K, f: &'static str) -> DecodeError {
    DecodeError::at(kind, c.len(), f)
}

#[inline(always)]
fn chunk<'a, const N: usize>(c: Cur<'a, '_>, f: &'static str) -> Result<[u8; N], DecodeError> {
    match c.split_first_chunk::<N>() {
        Some((h, t)) => {
            *c = t;
            Ok(*h)
        }
        None => Err(eof(c, N, f)),
    }
}

/// Reads `n` bytes.
#[inline(always)]
pub(crate) fn take<'a>(c: Cur<'a, '_>, n: usize, f: &'static str) -> Result<&'a [u8], DecodeError> {
    match c.split_at_checked(n) {
        Some((h, t)) => {
            *c = t;
            Ok(h)
        }
        None => Err(eof(c, n, f)),
    }
}

/// `bool`: one byte, non-zero is true.
#[inline(always)]
pub(crate) fn bool(c: Cur<'_, '_>, f: &'static str) -> Result<bool, DecodeError> {
    Ok(chunk::<1>(c, f)?[0] != 0)
}
/// `int8`.
#[inline(always)]
pub(crate) fn i8(c: Cur<'_, '_>, f: &'static str) -> Result<i8, DecodeError> {
    Ok(i8::from_be_bytes(chunk::<1>(c, f)?))
}
/// `int16`.
#[inline(always)]
pub(crate) fn i16(c: Cur<'_, '_>, f: &'static str) -> Result<i16, DecodeError> {
    Ok(i16::from_be_bytes(chunk::<2>(c, f)?))
}
/// `uint16`.
#[inline(always)]
pub(crate) fn u16(c: Cur<'_, '_>, f: &'static str) -> Result<u16, DecodeError> {
    Ok(u16::from_be_bytes(chunk::<2>(c, f)?))
}
/// `int32`.
#[inline(always)]
pub(crate) fn i32(c: Cur<'_, '_>, f: &'static str) -> Result<i32, DecodeError> {
    Ok(i32::from_be_bytes(chunk::<4>(c, f)?))
}
/// `uint32`.
#[inline(always)]
pub(crate) fn u32(c: Cur<'_, '_>, f: &'static str) -> Result<u32, DecodeError> {
    Ok(u32::from_be_bytes(chunk::<4>(c, f)?))
}
/// `int64`.
#[inline(always)]
pub(crate) fn i64(c: Cur<'_, '_>, f: &'static str) -> Result<i64, DecodeError> {
    Ok(i64::from_be_bytes(chunk::<8>(c, f)?))
}
/// `float64`.
#[inline(always)]
pub(crate) fn f64(c: Cur<'_, '_>, f: &'static str) -> Result<f64, DecodeError> {
    Ok(f64::from_be_bytes(chunk::<8>(c, f)?))
}
/// `uuid`: 16 bytes, most significant first.
#[inline(always)]
pub(crate) fn uuid(c: Cur<'_, '_>, f: &'static str) -> Result<uuid::Uuid, DecodeError> {
    Ok(uuid::Uuid::from_bytes(chunk::<16>(c, f)?))
}

/// A run of `N` bytes of fixed-width fields, read with one bounds check.
#[inline(always)]
pub(crate) fn run<const N: usize>(c: Cur<'_, '_>) -> Option<[u8; N]> {
    let (h, t) = c.split_first_chunk::<N>()?;
    *c = t;
    Some(*h)
}

/// The error for a run that the field-by-field cold path did not pin on one field.
#[cold]
pub(crate) fn short(c: &[u8], f: &'static str) -> DecodeError {
    eof(c, c.len().saturating_add(1), f)
}

#[inline(always)]
fn sub<const N: usize, const L: usize>(r: &[u8; N], off: usize) -> [u8; L] {
    let mut a = [0u8; L];
    if let Some(s) = r.get(off..off + L) {
        a.copy_from_slice(s);
    }
    a
}

macro_rules! at_fns {
    ($($name:ident => $t:ty, $w:expr, $conv:expr;)*) => {$(
        /// Decodes a field at a constant offset in a run.
        #[inline(always)]
        #[allow(dead_code)] // which ones are used depends on the schemas
        pub(crate) fn $name<const N: usize, const O: usize>(r: &[u8; N]) -> $t {
            let f: fn([u8; $w]) -> $t = $conv;
            f(sub::<N, $w>(r, O))
        }
    )*};
}
at_fns! {
    bool_at => bool, 1, |a| a[0] != 0;
    i8_at => i8, 1, i8::from_be_bytes;
    i16_at => i16, 2, i16::from_be_bytes;
    u16_at => u16, 2, u16::from_be_bytes;
    i32_at => i32, 4, i32::from_be_bytes;
    u32_at => u32, 4, u32::from_be_bytes;
    i64_at => i64, 8, i64::from_be_bytes;
    f64_at => f64, 8, f64::from_be_bytes;
    uuid_at => uuid::Uuid, 16, uuid::Uuid::from_bytes;
}

/// Unsigned varint, at most five bytes, as Kafka reads it (the result is 32 bits).
#[inline(always)]
pub(crate) fn uvarint(c: Cur<'_, '_>, f: &'static str) -> Result<u32, DecodeError> {
    if let Some((&b, t)) = c.split_first() {
        if b < 0x80 {
            *c = t;
            return Ok(u32::from(b));
        }
    }
    uvarint_slow(c, f)
}

#[inline(never)]
fn uvarint_slow(c: Cur<'_, '_>, f: &'static str) -> Result<u32, DecodeError> {
    let start: &[u8] = c;
    let mut value: u32 = 0;
    for i in 0..5u32 {
        let Some((&b, t)) = c.split_first() else {
            *c = start;
            return Err(eof(start, start.len().saturating_add(1), f));
        };
        *c = t;
        value |= u32::from(b & 0x7f).wrapping_shl(7 * i);
        if b < 0x80 {
            return Ok(value);
        }
    }
    *c = start;
    Err(err(start, K::InvalidVarint, f))
}

/// Signed (zig-zag) varint, at most five bytes.
#[allow(dead_code)] // used by record batches (kafka-wire issue 4)
pub(crate) fn varint(c: Cur<'_, '_>, f: &'static str) -> Result<i32, DecodeError> {
    let u = uvarint(c, f)?;
    Ok(((u >> 1) as i32) ^ -((u & 1) as i32))
}

/// Signed (zig-zag) varlong, at most ten bytes.
#[allow(dead_code)] // used by record batches (kafka-wire issue 4)
pub(crate) fn varlong(c: Cur<'_, '_>, f: &'static str) -> Result<i64, DecodeError> {
    let start: &[u8] = c;
    let mut value: u64 = 0;
    for i in 0..10u32 {
        let Some((&b, t)) = c.split_first() else {
            *c = start;
            return Err(eof(start, start.len().saturating_add(1), f));
        };
        *c = t;
        value |= u64::from(b & 0x7f).wrapping_shl(7 * i);
        if b < 0x80 {
            return Ok(((value >> 1) as i64) ^ -((value & 1) as i64));
        }
    }
    *c = start;
    Err(err(start, K::InvalidVarint, f))
}

/// A length prefix: `int16`/`int32` (classic) or unsigned varint minus one (compact).
/// Negative means null.
#[inline(always)]
fn len_prefix(c: Cur<'_, '_>, compact: bool, short: bool, f: &'static str) -> Result<i64, DecodeError> {
    if compact {
        // Java reads the varint as a signed 32-bit int and subtracts one.
        Ok(i64::from((uvarint(c, f)? as i32).wrapping_sub(1)))
    } else if short {
        Ok(i64::from(i16(c, f)?))
    } else {
        Ok(i64::from(i32(c, f)?))
    }
}

#[inline(always)]
fn utf8<'a>(c: &[u8], bytes: &'a [u8], f: &'static str) -> Result<&'a str, DecodeError> {
    // `from_utf8` has its own word-at-a-time ASCII fast path; a second pre-scan here would only
    // add work, since safe code cannot skip the validation it does.
    core::str::from_utf8(bytes).map_err(|_| err(c, K::InvalidUtf8, f))
}

/// A string that may be null at this version (`nullable`); `None` is null.
#[inline(always)]
pub(crate) fn opt_str<'a>(
    c: Cur<'a, '_>,
    compact: bool,
    nullable: bool,
    f: &'static str,
) -> Result<Option<&'a str>, DecodeError> {
    let at: &[u8] = c;
    let len = len_prefix(c, compact, true, f)?;
    if len < 0 {
        return if nullable { Ok(None) } else { Err(err(at, K::NullNotAllowed, f)) };
    }
    if len > 0x7fff {
        return Err(err(at, K::StringTooLong { length: len }, f));
    }
    let start: &[u8] = c;
    let bytes = take(c, len as usize, f)?;
    utf8(start, bytes, f).map(Some)
}

/// A string that is never null.
#[inline(always)]
pub(crate) fn str<'a>(c: Cur<'a, '_>, compact: bool, f: &'static str) -> Result<&'a str, DecodeError> {
    match opt_str(c, compact, false, f)? {
        Some(s) => Ok(s),
        None => Err(err(c, K::NullNotAllowed, f)),
    }
}

/// Bytes (or records) that may be null at this version.
#[inline(always)]
pub(crate) fn opt_bytes<'a>(
    c: Cur<'a, '_>,
    compact: bool,
    nullable: bool,
    f: &'static str,
) -> Result<Option<&'a [u8]>, DecodeError> {
    let at: &[u8] = c;
    let len = len_prefix(c, compact, false, f)?;
    if len < 0 {
        return if nullable { Ok(None) } else { Err(err(at, K::NullNotAllowed, f)) };
    }
    if len > c.len() as i64 {
        return Err(err(at, K::LengthExceedsInput { length: len }, f));
    }
    take(c, len as usize, f).map(Some)
}

/// Bytes that are never null.
#[inline(always)]
pub(crate) fn bytes<'a>(c: Cur<'a, '_>, compact: bool, f: &'static str) -> Result<&'a [u8], DecodeError> {
    match opt_bytes(c, compact, false, f)? {
        Some(b) => Ok(b),
        None => Err(err(c, K::NullNotAllowed, f)),
    }
}

/// An array that may be null at this version. Every element is validated now, so iterating the
/// result later cannot fail.
#[inline(always)]
pub(crate) fn opt_array<'a, T: Elem<'a>>(
    c: Cur<'a, '_>,
    compact: bool,
    nullable: bool,
    version: i16,
    f: &'static str,
) -> Result<Option<Array<'a, T>>, DecodeError> {
    let at: &[u8] = c;
    let len = len_prefix(c, compact, false, f)?;
    if len < 0 {
        return if nullable { Ok(None) } else { Err(err(at, K::NullNotAllowed, f)) };
    }
    // Every element takes at least one byte: a count above the bytes left is a lie.
    if len > c.len() as i64 {
        return Err(err(at, K::LengthExceedsInput { length: len }, f));
    }
    let n = len as usize;
    let start: &'a [u8] = c;
    if let Some(w) = T::WIDTH {
        // Fixed-width elements: one bounds check for the whole array.
        let bytes = take(c, n.saturating_mul(w), f)?;
        return Ok(Some(Array::wire(bytes, n as u32, version, compact)));
    }
    for _ in 0..n {
        T::read_elem(c, version, compact, f)?;
    }
    let used = start.len() - c.len();
    Ok(Some(Array::wire(&start[..used], n as u32, version, compact)))
}

/// An array that is never null.
#[inline(always)]
pub(crate) fn array<'a, T: Elem<'a>>(
    c: Cur<'a, '_>,
    compact: bool,
    version: i16,
    f: &'static str,
) -> Result<Array<'a, T>, DecodeError> {
    match opt_array(c, compact, false, version, f)? {
        Some(a) => Ok(a),
        None => Err(err(c, K::NullNotAllowed, f)),
    }
}

/// The marker byte before an untagged nullable struct: negative means null.
#[inline(always)]
pub(crate) fn struct_present(c: Cur<'_, '_>, nullable: bool, f: &'static str) -> Result<bool, DecodeError> {
    let at: &[u8] = c;
    let m = i8(c, f)?;
    if m < 0 {
        if nullable {
            Ok(false)
        } else {
            Err(err(at, K::NullNotAllowed, f))
        }
    } else {
        Ok(true)
    }
}

/// Reads the header of a tagged-field section: the number of fields. Java reads the count as a
/// signed 32-bit int, so a count of 2^31 or more reads as no fields at all.
#[inline(always)]
pub(crate) fn tag_count(c: Cur<'_, '_>, f: &'static str) -> Result<u32, DecodeError> {
    let n = uvarint(c, f)? as i32;
    Ok(if n < 0 { 0 } else { n as u32 })
}

/// Reads one tag header: `(tag, size)`. The size is checked where it is used.
#[inline(always)]
pub(crate) fn tag_header(c: Cur<'_, '_>, f: &'static str) -> Result<(u32, u32), DecodeError> {
    let tag = uvarint(c, f)?;
    let size = uvarint(c, f)?;
    Ok((tag, size))
}

/// Skips an unknown tagged field's payload of `size` bytes.
#[inline(always)]
pub(crate) fn skip_tag<'a>(c: Cur<'a, '_>, size: u32, f: &'static str) -> Result<&'a [u8], DecodeError> {
    if (size as i32) < 0 || size as usize > c.len() {
        return Err(err(c, K::LengthExceedsInput { length: i64::from(size) }, f));
    }
    take(c, size as usize, f)
}

/// Checks that a known tagged field's value took exactly the `size` its header declared.
/// `before` is the number of bytes that remained when the value started.
#[inline(always)]
pub(crate) fn check_tag_size(c: &[u8], before: usize, size: u32, tag: u32, f: &'static str) -> Result<(), DecodeError> {
    if before - c.len() == size as usize {
        Ok(())
    } else {
        Err(err(c, K::TaggedFieldSize { tag, size }, f))
    }
}

/// A nullable struct inside a tagged field: Kafka marks its presence with an unsigned varint
/// (greater than zero, read as a 32-bit int, is present; otherwise null), not the int8 marker of
/// untagged nullable structs.
#[inline(always)]
pub(crate) fn opt_struct_tagged<'a, T: crate::codec::Struct<'a>>(
    c: Cur<'a, '_>,
    nullable: bool,
    version: i16,
    f: &'static str,
) -> Result<Option<T>, DecodeError> {
    if nullable && (uvarint(c, f)? as i32) <= 0 {
        return Ok(None);
    }
    T::read(c, version).map(Some)
}

/// Reads a tagged-field section's count and returns it with the section's start.
#[inline(always)]
pub(crate) fn tag_section<'a>(c: Cur<'a, '_>, f: &'static str) -> Result<(u32, &'a [u8]), DecodeError> {
    let n = tag_count(c, f)?;
    Ok((n, *c))
}

/// Builds the view of the unknown tagged fields of one struct, once its section is read.
/// `section` is where the section's fields began and `c` where they end; `known` has a bit for
/// each tag the struct knows, which iteration skips.
#[inline(always)]
pub(crate) fn unknown_tags<'a>(section: &'a [u8], c: &[u8], n: u32, unknown: u32, known: u64) -> TaggedFields<'a> {
    if unknown == 0 {
        return TaggedFields::EMPTY;
    }
    let used = section.len() - c.len();
    TaggedFields::wire(section.get(..used).unwrap_or(&[]), n, known, unknown)
}

/// Reads a whole tagged-field section of a struct that knows no tags.
#[inline(always)]
pub(crate) fn unknown_tags_only<'a>(c: Cur<'a, '_>, f: &'static str) -> Result<TaggedFields<'a>, DecodeError> {
    let (n, section) = tag_section(c, f)?;
    if n == 0 {
        return Ok(TaggedFields::EMPTY);
    }
    for _ in 0..n {
        let (_, size) = tag_header(c, f)?;
        skip_tag(c, size, f)?;
    }
    Ok(unknown_tags(section, c, n, n, 0))
}

/// The error for a known tag sent at a version that does not have it.
#[cold]
#[inline(never)]
pub(crate) fn tag_not_in_version(c: &[u8], tag: u32, f: &'static str) -> DecodeError {
    err(c, K::TagNotInVersion { tag }, f)
}

/// A struct that may be null at this version: a marker byte (negative is null) comes first,
/// at nullable versions only.
#[inline(always)]
pub(crate) fn opt_struct<'a, T: crate::codec::Struct<'a>>(
    c: Cur<'a, '_>,
    nullable: bool,
    version: i16,
    f: &'static str,
) -> Result<Option<T>, DecodeError> {
    if nullable && !struct_present(c, true, f)? {
        return Ok(None);
    }
    T::read(c, version).map(Some)
}

/// Reads one raw tagged field from validated bytes; used by [`TaggedFields`] iteration.
pub(crate) fn raw_tag<'a>(c: Cur<'a, '_>) -> Option<RawTaggedField<'a>> {
    let (tag, size) = tag_header(c, "").ok()?;
    let data = take(c, size as usize, "").ok()?;
    Some(RawTaggedField { tag, data })
}
