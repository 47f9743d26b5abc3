//! Hand-written encoding primitives: the [`Sink`] trait, the [`Writer`] the generated code
//! writes through, and the size functions that let `encoded_len` be exact.
//!
//! The writer keeps the first error instead of returning one from every write: a write past
//! the end of the buffer, or a value the target version cannot carry, records the error and
//! turns every later write into a no-op, and [`Writer::finish`] reports it. Generated `write`
//! functions therefore return nothing and branch only on the data, and they make the same checks
//! as the size pass, so an encode into a caller's slice needs no size pass first
//! (`encode_to_slice`). Encoding into a [`Sink`] still sizes first and asks for exactly that
//! many bytes, so a short sink is an error before any byte is written.
//!
//! The writers of strings, bytes, length prefixes and unsigned varints are marked
//! `shared!` (`crate::profile`), and fixed-width fields are written as the build writes them
//! (`crate::profile`). A [`Writer`] can also count instead of write (`Writer::counter`).

use crate::error::{EncodeError, EncodeErrorKind as K};

/// Where encoded bytes go: anything that can hand out `len` writable bytes at its end.
///
/// Implemented for `&mut [u8]` (the slice shrinks as it is filled), `heapless::Vec<u8, N>`, and
/// `Vec<u8>` under the `alloc` feature.
pub trait Sink {
    /// Appends `len` bytes and returns them to be filled, or `None` when there is no room.
    fn reserve(&mut self, len: usize) -> Option<&mut [u8]>;
}

impl Sink for &mut [u8] {
    fn reserve(&mut self, len: usize) -> Option<&mut [u8]> {
        if len > self.len() {
            return None;
        }
        // Checked although the test above holds (see `Writer::take`).
        let taken = core::mem::take(self);
        let (head, tail) = taken.split_at_mut_checked(len)?;
        *self = tail;
        Some(head)
    }
}

impl<const N: usize> Sink for heapless::Vec<u8, N> {
    fn reserve(&mut self, len: usize) -> Option<&mut [u8]> {
        let start = self.len();
        let end = start.checked_add(len)?;
        self.resize(end, 0).ok()?;
        self.get_mut(start..)
    }
}

#[cfg(feature = "alloc")]
impl Sink for alloc::vec::Vec<u8> {
    fn reserve(&mut self, len: usize) -> Option<&mut [u8]> {
        let start = self.len();
        let end = start.checked_add(len)?;
        self.resize(end, 0);
        self.get_mut(start..)
    }
}

#[cfg(feature = "bytes")]
impl Sink for bytes::BytesMut {
    fn reserve(&mut self, len: usize) -> Option<&mut [u8]> {
        let start = self.len();
        let end = start.checked_add(len)?;
        self.resize(end, 0);
        self.get_mut(start..)
    }
}

/// A cursor over a caller's buffer that generated code writes through; it keeps the first
/// error (see the module documentation).
pub struct Writer<'b> {
    /// The bytes not written yet; empty after an error.
    rest: &'b mut [u8],
    /// The length of the whole buffer; for a counter, the bytes counted.
    len: usize,
    err: Option<EncodeError>,
    /// A counter ([`Writer::counter`]) has no buffer: a write that does not fit is counted,
    /// not failed.
    counting: bool,
}

macro_rules! number_writers {
    ($($s:ident $k:ident $t:ident $at:ident $w:literal $d:literal,)*) => {$(
        #[doc = concat!("`", stringify!($s), "`.")]
        #[inline(always)]
        #[doc(hidden)]
        pub fn $t(&mut self, v: $t, f: &'static str) {
            self.arr(v.to_be_bytes(), f)
        }
    )*};
}

impl<'b> Writer<'b> {
    /// A writer over `buf`.
    pub fn new(buf: &'b mut [u8]) -> Self {
        Writer {
            len: buf.len(),
            rest: buf,
            err: None,
            counting: false,
        }
    }

    /// A writer without a buffer that counts the bytes written and keeps the first error other
    /// than a short buffer: `finish` gives the encoded size. Where the build sizes structs by
    /// writing them (`crate::profile`), this is the writer. Writes still take the
    /// fast path's one length check, which fails, and are counted on the cold path.
    #[doc(hidden)]
    pub fn counter() -> Self {
        Writer {
            rest: &mut [],
            len: 0,
            err: None,
            counting: true,
        }
    }

    /// Bytes written so far.
    pub fn position(&self) -> usize {
        self.len - self.rest.len()
    }

    /// The bytes written, or the first error.
    pub fn finish(self) -> Result<usize, EncodeError> {
        match self.err {
            None => Ok(self.position()),
            Some(e) => Err(e),
        }
    }

    /// True once a write has failed.
    pub fn failed(&self) -> bool {
        self.err.is_some()
    }

    /// Runs `write`, renaming the field path of an error it records by `paths` (see
    /// `DecodeError::renamed`): how a struct shared by several fields is written at the others.
    #[inline(always)]
    #[doc(hidden)]
    pub fn renamed(&mut self, paths: &[(&'static str, &'static str)], write: impl FnOnce(&mut Self)) {
        let before = self.err.is_some();
        write(self);
        if !before {
            if let Some(e) = self.err {
                self.err = Some(e.renamed(paths));
            }
        }
    }

    /// Records `e` unless an error is already recorded; every later write does nothing.
    #[cold]
    #[inline(never)]
    #[doc(hidden)]
    pub fn fail(&mut self, e: EncodeError) {
        if self.err.is_none() {
            self.err = Some(e);
        }
        self.len -= self.rest.len();
        self.rest = &mut [];
    }

    /// Records the error of a field the version lacks holding a value other than its default.
    #[cold]
    #[inline(never)]
    #[doc(hidden)]
    pub fn not_in_version(&mut self, f: &'static str) {
        self.fail(not_in_version(f))
    }

    /// The value of a size computed while writing (a tagged field's length), or 0 after
    /// recording its error.
    #[inline(always)]
    #[doc(hidden)]
    pub fn ok(&mut self, r: Result<usize, EncodeError>) -> usize {
        match r {
            Ok(n) => n,
            Err(e) => {
                self.fail(e);
                0
            }
        }
    }

    /// `n`, a size or count that Kafka reads as an `int32` or an unsigned varint of one, as a
    /// `u32`; above `i32::MAX`, `None`, after recording a `TooLong` error (out of line).
    #[inline(always)]
    #[doc(hidden)]
    pub fn at_most_i32(&mut self, n: usize, f: &'static str) -> Option<u32> {
        match u32::try_from(n) {
            Ok(n) if n <= 0x7fff_ffff => Some(n),
            _ => {
                self.too_long(n, f);
                None
            }
        }
    }

    /// Records a length too long for its prefix.
    #[cold]
    #[inline(never)]
    fn too_long(&mut self, length: usize, f: &'static str) {
        self.fail(too_long(length, f))
    }

    /// Records a write of `more` bytes that did not fit.
    #[cold]
    #[inline(never)]
    fn short(&mut self, more: usize, f: &'static str) {
        if self.counting {
            if self.err.is_none() {
                self.len = self.len.saturating_add(more);
            }
            return;
        }
        let e = EncodeError::new(
            K::BufferTooShort {
                needed: self.position().saturating_add(more),
            },
            f,
        );
        self.fail(e);
    }

    /// The next `n` bytes, to be filled in place; `None` after recording the error.
    #[inline(always)]
    #[doc(hidden)]
    pub fn take(&mut self, n: usize, f: &'static str) -> Option<&'b mut [u8]> {
        if self.rest.len() < n {
            self.short(n, f);
            return None;
        }
        // Checked although the test above already holds: `split_at_mut` keeps a panic path
        // where the optimiser does not carry the test across `mem::take`.
        let (head, tail) = core::mem::take(&mut self.rest).split_at_mut_checked(n)?;
        self.rest = tail;
        Some(head)
    }

    /// The next `N` bytes, to be filled in place: a run of fixed-width fields written with one
    /// bounds check. `None` after recording the error.
    #[inline(always)]
    #[doc(hidden)]
    pub fn run<const N: usize>(&mut self, f: &'static str) -> Option<&'b mut [u8; N]> {
        if self.rest.len() < N {
            self.short(N, f);
            return None;
        }
        let (head, tail) = core::mem::take(&mut self.rest).split_first_chunk_mut::<N>()?;
        self.rest = tail;
        Some(head)
    }

    /// Writes `bytes`.
    #[inline(always)]
    #[doc(hidden)]
    pub fn put(&mut self, bytes: &[u8], f: &'static str) {
        if let Some(dst) = self.take(bytes.len(), f) {
            dst.copy_from_slice(bytes);
        }
    }

    /// Writes the `N` bytes `a` (a fixed-width field), as the build writes them
    /// (`crate::profile::write_fixed`).
    #[inline(always)]
    #[doc(hidden)]
    pub fn arr<const N: usize>(&mut self, a: [u8; N], f: &'static str) {
        crate::profile::write_fixed(self, a, f)
    }

    /// The length prefix and the `body` bytes of an array of `n` fixed-width elements, with one
    /// bounds check where the prefix is one byte (owned arrays); the body is returned to fill.
    #[cfg(feature = "alloc")]
    #[inline(always)]
    #[doc(hidden)]
    pub fn fixed_array(&mut self, n: usize, body: usize, compact: bool, f: &'static str) -> Option<&'b mut [u8]> {
        if compact && n < 0x7f && body < self.rest.len() {
            // Checked although the test above holds (see `take`).
            let rest = core::mem::take(&mut self.rest);
            let (head, tail) = rest.split_at_mut_checked(body + 1)?;
            self.rest = tail;
            let (first, elems) = head.split_first_mut()?;
            #[allow(clippy::cast_possible_truncation, reason = "n < 0x7f is checked above")]
            let prefix = n as u8 + 1;
            *first = prefix;
            return Some(elems);
        }
        self.len_prefix(n, compact, f);
        self.take(body, f)
    }

    /// `bool`.
    #[inline(always)]
    #[doc(hidden)]
    pub fn bool(&mut self, v: bool, f: &'static str) {
        self.arr([u8::from(v)], f)
    }
    crate::prim::numbers!(number_writers);
    /// `uuid`.
    #[inline(always)]
    #[doc(hidden)]
    pub fn uuid(&mut self, v: uuid::Uuid, f: &'static str) {
        self.arr(*v.as_bytes(), f)
    }

    crate::profile::shared! {
        /// Unsigned varint.
        #[doc(hidden)]
        pub fn uvarint(&mut self, v: u32, f: &'static str) {
            if v < 0x80 {
                #[allow(clippy::cast_possible_truncation, reason = "v < 0x80 is checked above")]
                let b = v as u8;
                return self.arr([b], f);
            }
            let mut tmp = [0u8; 5];
            let n = varint_bytes(&mut tmp, u64::from(v));
            self.put(tmp.get(..n).unwrap_or(&tmp), f)
        }
    }

    /// Signed zig-zag varint.
    #[doc(hidden)]
    pub fn varint(&mut self, v: i32, f: &'static str) {
        self.uvarint(((v << 1) ^ (v >> 31)).cast_unsigned(), f)
    }

    /// Signed zig-zag varlong.
    #[doc(hidden)]
    pub fn varlong(&mut self, v: i64, f: &'static str) {
        let mut tmp = [0u8; 10];
        let n = varint_bytes(&mut tmp, ((v << 1) ^ (v >> 63)).cast_unsigned());
        self.put(tmp.get(..n).unwrap_or(&tmp), f)
    }

    crate::profile::shared! {
        /// A length prefix for arrays and bytes: `int32`, or unsigned varint of `len + 1`, after
        /// checking that the length fits.
        #[doc(hidden)]
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_possible_wrap,
            reason = "len < i32::MAX is checked first"
        )]
        pub fn len_prefix(&mut self, len: usize, compact: bool, f: &'static str) {
            if len > i32::MAX as usize - 1 {
                return self.too_long(len, f);
            }
            if compact {
                self.uvarint((len as u32).wrapping_add(1), f)
            } else {
                self.i32(len as i32, f)
            }
        }
    }

    /// The null marker for arrays and bytes; an error where the version is not nullable.
    #[inline(always)]
    #[doc(hidden)]
    pub fn null_len(&mut self, compact: bool, nullable: bool, f: &'static str) {
        if !nullable {
            return self.fail(null_not_allowed(f));
        }
        if compact {
            self.uvarint(0, f)
        } else {
            self.i32(-1, f)
        }
    }

    crate::profile::shared! {
        /// A string, after checking Kafka's 32767-byte limit.
        #[doc(hidden)]
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_possible_wrap,
            reason = "s.len() <= 0x7fff is checked first"
        )]
        pub fn str(&mut self, s: &str, compact: bool, f: &'static str) {
            if s.len() > 0x7fff {
                return self.too_long(s.len(), f);
            }
            if compact {
                self.uvarint((s.len() as u32).wrapping_add(1), f);
            } else {
                self.i16(s.len() as i16, f);
            }
            self.put(s.as_bytes(), f)
        }
    }

    crate::profile::shared! {
        /// A nullable string; `nullable` says whether null is allowed at this version.
        #[doc(hidden)]
        pub fn opt_str(&mut self, s: Option<&str>, compact: bool, nullable: bool, f: &'static str) {
            match s {
                Some(s) => self.str(s, compact, f),
                None if !nullable => self.fail(null_not_allowed(f)),
                None if compact => self.uvarint(0, f),
                None => self.i16(-1, f),
            }
        }
    }

    crate::profile::shared! {
        /// Bytes.
        #[doc(hidden)]
        pub fn bytes(&mut self, b: &[u8], compact: bool, f: &'static str) {
            self.len_prefix(b.len(), compact, f);
            self.put(b, f)
        }
    }

    crate::profile::shared! {
        /// Nullable bytes.
        #[doc(hidden)]
        pub fn opt_bytes(&mut self, b: Option<&[u8]>, compact: bool, nullable: bool, f: &'static str) {
            match b {
                Some(b) => self.bytes(b, compact, f),
                None => self.null_len(compact, nullable, f),
            }
        }
    }
}

/// Size of an unsigned varint.
#[inline(always)]
pub const fn uvarint_size(v: u32) -> usize {
    match v {
        0..=0x7f => 1,
        0x80..=0x3fff => 2,
        0x4000..=0x1f_ffff => 3,
        0x20_0000..=0x0fff_ffff => 4,
        _ => 5,
    }
}

/// Size of a tagged field with a payload of `size` bytes: its tag, its size and the payload.
#[inline(always)]
#[doc(hidden)]
#[allow(
    clippy::cast_possible_truncation,
    reason = "a size above i32::MAX is never written: `Writer::tag_header` fails on it"
)]
pub const fn tagged_size(tag: u32, size: usize) -> usize {
    uvarint_size(tag) + uvarint_size(size as u32) + size
}

/// Size of an unknown tagged field with a payload of `len` bytes, or the error for a payload
/// too long for its size prefix.
#[inline]
#[doc(hidden)]
pub fn raw_tag_size(tag: u32, len: usize) -> Result<usize, EncodeError> {
    if len > 0x7fff_ffff {
        return Err(too_long(len, "_tagged_fields"));
    }
    Ok(tagged_size(tag, len))
}

/// Size of a signed zig-zag varint.
pub const fn varint_size(v: i32) -> usize {
    uvarint_size(((v << 1) ^ (v >> 31)).cast_unsigned())
}

/// Size of a signed zig-zag varlong.
pub const fn varlong_size(v: i64) -> usize {
    let mut u = ((v << 1) ^ (v >> 63)).cast_unsigned();
    let mut n = 1;
    while u >= 0x80 {
        u >>= 7;
        n += 1;
    }
    n
}

/// Writes `u` as an unsigned varint into `out` and returns how many bytes it took: all of
/// `out` at most, so a `u32` needs 5 bytes and a `u64` 10. Indexing by iteration keeps the
/// encoder free of bounds-check panics.
#[inline]
#[allow(
    clippy::cast_possible_truncation,
    reason = "each byte takes the low seven bits of `u`: the truncation is the encoding"
)]
fn varint_bytes(out: &mut [u8], mut u: u64) -> usize {
    let mut n = 0;
    for b in out.iter_mut() {
        n += 1;
        if u < 0x80 {
            *b = u as u8;
            break;
        }
        *b = (u as u8) | 0x80;
        u >>= 7;
    }
    n
}

/// Size of an array/bytes length prefix.
#[inline(always)]
#[allow(
    clippy::cast_possible_truncation,
    reason = "a length above i32::MAX - 1 is never written: `Writer::len_prefix` fails on it"
)]
pub fn len_size(len: usize, compact: bool) -> usize {
    if compact {
        uvarint_size((len as u32).wrapping_add(1))
    } else {
        4
    }
}

/// Size of a string, checking Kafka's 32767-byte limit.
#[inline(always)]
pub fn str_size(s: &str, compact: bool, f: &'static str) -> Result<usize, EncodeError> {
    if s.len() > 0x7fff {
        return Err(too_long(s.len(), f));
    }
    #[allow(clippy::cast_possible_truncation, reason = "s.len() <= 0x7fff is checked above")]
    let len = s.len() as u32;
    Ok(if compact { uvarint_size(len + 1) } else { 2 } + s.len())
}

/// Size of a nullable string; `nullable` says whether null is allowed at this version.
#[inline(always)]
pub fn opt_str_size(s: Option<&str>, compact: bool, nullable: bool, f: &'static str) -> Result<usize, EncodeError> {
    match s {
        Some(s) => str_size(s, compact, f),
        None if !nullable => Err(EncodeError::new(K::NullNotAllowed, f)),
        None => Ok(if compact { 1 } else { 2 }),
    }
}

/// Size of bytes.
#[inline(always)]
pub fn bytes_size(b: &[u8], compact: bool, f: &'static str) -> Result<usize, EncodeError> {
    if b.len() > i32::MAX as usize - 1 {
        return Err(too_long(b.len(), f));
    }
    Ok(len_size(b.len(), compact) + b.len())
}

/// Size of nullable bytes.
#[inline(always)]
pub fn opt_bytes_size(b: Option<&[u8]>, compact: bool, nullable: bool, f: &'static str) -> Result<usize, EncodeError> {
    match b {
        Some(b) => bytes_size(b, compact, f),
        None if !nullable => Err(EncodeError::new(K::NullNotAllowed, f)),
        None => Ok(if compact { 1 } else { 4 }),
    }
}

/// The error for a non-default value in a field the target version lacks.
#[cold]
#[inline(never)]
pub fn not_in_version(f: &'static str) -> EncodeError {
    EncodeError::new(K::FieldNotInVersion, f)
}

/// The error for a null where the version does not allow it.
#[cold]
#[inline(never)]
pub fn null_not_allowed(f: &'static str) -> EncodeError {
    EncodeError::new(K::NullNotAllowed, f)
}

/// The error for a string, bytes, array or tagged field of `length` too long for its length
/// prefix (32767 bytes for a string, `i32::MAX` otherwise).
#[cold]
#[inline(never)]
pub fn too_long(length: usize, f: &'static str) -> EncodeError {
    EncodeError::new(K::TooLong { length }, f)
}

/// The error for unknown tagged fields at a version without tagged fields.
#[cold]
#[inline(never)]
pub fn tags_not_in_version(f: &'static str) -> EncodeError {
    EncodeError::new(K::TaggedFieldsNotInVersion, f)
}

#[cfg(test)]
mod tests {
    //! The writers and size functions against the vectors of Kafka's own classes
    //! (`crate::vectors`): for each value Kafka read, the bytes Kafka writes for it.

    use super::*;
    use crate::vectors::{blob, number_bytes, text, writes};

    /// A decimal value of a vector.
    fn num<T: core::str::FromStr>(v: &str) -> T {
        v.parse().unwrap_or_else(|_| panic!("not a number: {v}"))
    }

    #[test]
    fn fixed_width() {
        macro_rules! numbers {
            ($($s:ident $k:ident $t:ident $at:ident $w:literal $d:literal,)*) => {$(
                writes(stringify!($s), |v, w| {
                    let b = number_bytes(stringify!($s), v);
                    w.$t(<$t>::from_be_bytes(b.try_into().expect("width")), "v");
                    $w
                });
            )*};
        }
        crate::prim::numbers!(numbers);
        writes("bool", |v, w| {
            w.bool(num(v), "v");
            1
        });
        writes("uuid", |v, w| {
            let u = u128::from_str_radix(v, 16).expect("uuid digits");
            w.uuid(uuid::Uuid::from_u128(u), "v");
            16
        });
    }

    #[test]
    fn varints() {
        writes("uvarint", |v, w| {
            let x = num(v);
            w.uvarint(x, "v");
            uvarint_size(x)
        });
        writes("varint", |v, w| {
            let x = num(v);
            w.varint(x, "v");
            varint_size(x)
        });
        writes("varlong", |v, w| {
            let x = num(v);
            w.varlong(x, "v");
            varlong_size(x)
        });
    }

    #[test]
    fn strings() {
        for (kind, compact, nullable) in [
            ("string", false, false),
            ("compact_string", true, false),
            ("nullable_string", false, true),
            ("compact_nullable_string", true, true),
        ] {
            writes(kind, |v, w| {
                let s = text(v);
                w.opt_str(s.as_deref(), compact, nullable, "v");
                opt_str_size(s.as_deref(), compact, nullable, "v").expect("size")
            });
            if !nullable {
                writes(kind, |v, w| {
                    let s = text(v).expect("not null");
                    w.str(&s, compact, "v");
                    str_size(&s, compact, "v").expect("size")
                });
            }
        }
    }

    #[test]
    fn bytes() {
        for (kind, compact, nullable) in [
            ("bytes", false, false),
            ("compact_bytes", true, false),
            ("nullable_bytes", false, true),
            ("compact_nullable_bytes", true, true),
            ("records", false, false),
            ("compact_records", true, false),
            ("nullable_records", false, true),
            ("compact_nullable_records", true, true),
        ] {
            writes(kind, |v, w| {
                let b = blob(v);
                w.opt_bytes(b.as_deref(), compact, nullable, "v");
                opt_bytes_size(b.as_deref(), compact, nullable, "v").expect("size")
            });
        }
    }
}
