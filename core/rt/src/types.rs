//! The borrowed building blocks of every message: arrays and unknown tagged fields.
//!
//! A message struct is both the view that `parse` returns and the value a caller builds to
//! encode. Arrays and unknown tagged fields therefore come in two shapes behind one type:
//! bytes already validated by a parse (iterated lazily, without re-checking lengths), or a
//! slice of values the caller built.

use core::fmt;

use crate::error::{EncodeError, Fail};
use crate::read::{self, Cursor};
use crate::sealed::Sealed;
use crate::visit::{FieldId, Visitor};
use crate::write::{self, Writer};

/// A type that can be an element of an [`Array`]: the wire primitives, strings, UUIDs and every
/// generated struct.
///
/// The methods are the codec's internals, called by generated code; use the message-level
/// `parse`/`encode` instead.
pub trait Elem<'a>: Copy + Sized + Sealed {
    /// The encoded width when every element has the same one (`int32`, `uuid`, …).
    #[doc(hidden)]
    const WIDTH: Option<usize> = None;
    /// True when validated wire bytes can be copied out as they are (fixed-width numbers).
    #[doc(hidden)]
    const COPY_WIRE: bool = false;
    #[doc(hidden)]
    fn read_elem(c: &mut Cursor<'a>, version: i16, compact: bool, f: &'static str) -> Result<Self, Fail>;
    /// Validates one element as [`Elem::read_elem`] does, building nothing.
    #[doc(hidden)]
    #[inline]
    fn check_elem(c: &mut Cursor<'a>, version: i16, compact: bool, f: &'static str) -> Result<(), Fail> {
        Self::read_elem(c, version, compact, f).map(|_| ())
    }
    /// Steps over one element of bytes that a parse has already validated.
    #[doc(hidden)]
    #[inline]
    fn skip_elem(c: &mut Cursor<'a>, version: i16, compact: bool) -> Option<()> {
        Self::read_elem(c, version, compact, "").ok().map(|_| ())
    }
    /// Reads one element and hands it to a visitor under the array's field id `id`.
    #[doc(hidden)]
    fn visit_elem<V: Visitor<'a> + ?Sized>(
        c: &mut Cursor<'a>,
        version: i16,
        compact: bool,
        id: FieldId,
        vis: &mut V,
        f: &'static str,
    ) -> Result<(), Fail>;
    #[doc(hidden)]
    fn size_elem(&self, version: i16, compact: bool, f: &'static str) -> Result<usize, EncodeError>;
    #[doc(hidden)]
    fn write_elem(&self, w: &mut Writer<'_>, version: i16, compact: bool, f: &'static str);
}

macro_rules! fixed_elem {
    ($t:ty, $w:expr, $r:ident, $wr:ident, $copy:expr) => {
        impl<'a> Elem<'a> for $t {
            const WIDTH: Option<usize> = Some($w);
            const COPY_WIRE: bool = $copy;
            #[inline(always)]
            fn read_elem(c: &mut Cursor<'a>, _: i16, _: bool, f: &'static str) -> Result<Self, Fail> {
                read::$r(c, f)
            }
            #[inline(always)]
            fn visit_elem<V: Visitor<'a> + ?Sized>(
                c: &mut Cursor<'a>,
                _: i16,
                _: bool,
                id: FieldId,
                vis: &mut V,
                f: &'static str,
            ) -> Result<(), Fail> {
                vis.$r(id, read::$r(c, f)?);
                Ok(())
            }
            #[inline(always)]
            fn size_elem(&self, _: i16, _: bool, _: &'static str) -> Result<usize, EncodeError> {
                Ok($w)
            }
            #[inline(always)]
            fn write_elem(&self, w: &mut Writer<'_>, _: i16, _: bool, f: &'static str) {
                w.$wr(*self, f)
            }
        }
    };
}
fixed_elem!(bool, 1, bool, bool, false);
macro_rules! number_elems {
    ($($s:ident $k:ident $t:ident $at:ident $w:literal $d:literal,)*) => {$(fixed_elem!($t, $w, $t, $t, true);)*};
}
crate::prim::numbers!(number_elems);
fixed_elem!(uuid::Uuid, 16, uuid, uuid, true);

impl<'a> Elem<'a> for &'a str {
    #[inline]
    fn read_elem(c: &mut Cursor<'a>, _: i16, compact: bool, f: &'static str) -> Result<Self, Fail> {
        read::str(c, compact, f)
    }
    #[inline]
    fn skip_elem(c: &mut Cursor<'a>, _: i16, compact: bool) -> Option<()> {
        read::skip_str(c, compact)
    }
    #[inline]
    fn visit_elem<V: Visitor<'a> + ?Sized>(
        c: &mut Cursor<'a>,
        _: i16,
        compact: bool,
        id: FieldId,
        vis: &mut V,
        f: &'static str,
    ) -> Result<(), Fail> {
        vis.str(id, Some(read::str(c, compact, f)?));
        Ok(())
    }
    #[inline]
    fn size_elem(&self, _: i16, compact: bool, f: &'static str) -> Result<usize, EncodeError> {
        write::str_size(self, compact, f)
    }
    #[inline]
    fn write_elem(&self, w: &mut Writer<'_>, _: i16, compact: bool, f: &'static str) {
        w.str(self, compact, f)
    }
}

#[derive(Clone, Copy)]
enum Repr<'a, T> {
    /// Validated bytes holding `len` elements, encoded at `version`. `canonical`: the bytes are
    /// exactly what encoding the elements at `version` writes, so they can be copied out.
    Wire {
        bytes: &'a [u8],
        len: u32,
        version: i16,
        compact: bool,
        canonical: bool,
    },
    /// Values the caller built.
    Slice(&'a [T]),
}

/// An array field: a lazy, exact-size sequence of `T`.
///
/// From a parse it iterates the validated bytes; built by hand it wraps a slice
/// ([`Array::from_slice`]). Either way it encodes the same.
#[derive(Clone, Copy)]
pub struct Array<'a, T> {
    repr: Repr<'a, T>,
}

impl<'a, T> Array<'a, T> {
    /// An empty array.
    pub const EMPTY: Self = Array { repr: Repr::Slice(&[]) };

    /// An array over values the caller built.
    pub const fn from_slice(items: &'a [T]) -> Self {
        Array {
            repr: Repr::Slice(items),
        }
    }

    #[doc(hidden)]
    pub fn wire(bytes: &'a [u8], len: u32, version: i16, compact: bool, canonical: bool) -> Self {
        Array {
            repr: Repr::Wire {
                bytes,
                len,
                version,
                compact,
                canonical,
            },
        }
    }

    /// The validated bytes when they are exactly what encoding the elements at `version`
    /// (in compact form or not) writes: parsed at that version, and every value in them in the
    /// encoder's own form (see [`crate::read::Cursor`]).
    #[inline(always)]
    fn copyable(&self, version: i16, compact: bool) -> Option<&'a [u8]> {
        match self.repr {
            Repr::Wire {
                bytes,
                version: wv,
                compact: wc,
                canonical: true,
                ..
            } if wv == version && wc == compact => Some(bytes),
            _ => None,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self.repr {
            Repr::Wire { len, .. } => len as usize,
            Repr::Slice(s) => s.len(),
        }
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The encoded bytes of the elements when this array came from a parse.
    pub fn wire_bytes(&self) -> Option<&'a [u8]> {
        match self.repr {
            Repr::Wire { bytes, .. } => Some(bytes),
            Repr::Slice(_) => None,
        }
    }
}

impl<'a, T: Elem<'a>> Array<'a, T> {
    /// Iterates the elements.
    pub fn iter(&self) -> ArrayIter<'a, T> {
        match self.repr {
            Repr::Wire {
                bytes,
                len,
                version,
                compact,
                canonical,
            } => ArrayIter {
                repr: IterRepr::Wire {
                    rest: bytes,
                    left: len,
                    version,
                    compact,
                    canonical,
                },
            },
            Repr::Slice(s) => ArrayIter {
                repr: IterRepr::Slice(s.iter()),
            },
        }
    }

    #[doc(hidden)]
    pub fn size(&self, version: i16, compact: bool, f: &'static str) -> Result<usize, EncodeError> {
        let n = self.len();
        let mut total = write::len_size(n, compact);
        if let Some(w) = T::WIDTH {
            return Ok(total + n * w);
        }
        // Parsed at this version and canonical: encoding writes the same bytes.
        if let Some(b) = self.copyable(version, compact) {
            return Ok(total + b.len());
        }
        for e in self.iter() {
            total += e.size_elem(version, compact, f)?;
        }
        Ok(total)
    }

    #[doc(hidden)]
    pub fn write(&self, w: &mut Writer<'_>, version: i16, compact: bool, f: &'static str) {
        w.len_prefix(self.len(), compact, f);
        if let Repr::Wire { bytes, .. } = self.repr {
            if T::COPY_WIRE {
                return w.put(bytes, f);
            }
        }
        if let Some(b) = self.copyable(version, compact) {
            return w.put(b, f);
        }
        // Each element written where it is (a slice) or where it was read (validated bytes),
        // rather than moved out of an iterator: an element view can be tens of bytes.
        match self.repr {
            Repr::Slice(s) => {
                for e in s {
                    e.write_elem(w, version, compact, f);
                }
            }
            Repr::Wire {
                bytes,
                len,
                version: wv,
                compact: wc,
                canonical,
            } => {
                let mut c = Cursor::validated(bytes, canonical);
                for _ in 0..len {
                    match read_validated::<T>(&mut c, wv, wc) {
                        Ok(e) => e.write_elem(w, version, compact, f),
                        // Unreachable for validated bytes; end rather than panic.
                        Err(_) => break,
                    }
                }
            }
        }
    }
}

impl<'a, T> Default for Array<'a, T> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<'a, T: Elem<'a> + PartialEq> PartialEq for Array<'a, T> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<'a, T: Elem<'a> + fmt::Debug> fmt::Debug for Array<'a, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a, T: Elem<'a>> IntoIterator for Array<'a, T> {
    type Item = T;
    type IntoIter = ArrayIter<'a, T>;
    fn into_iter(self) -> ArrayIter<'a, T> {
        self.iter()
    }
}

impl<'a, T: Elem<'a>> IntoIterator for &Array<'a, T> {
    type Item = T;
    type IntoIter = ArrayIter<'a, T>;
    fn into_iter(self) -> ArrayIter<'a, T> {
        self.iter()
    }
}

#[derive(Clone)]
enum IterRepr<'a, T> {
    Wire {
        rest: &'a [u8],
        left: u32,
        version: i16,
        compact: bool,
        canonical: bool,
    },
    Slice(core::slice::Iter<'a, T>),
}

/// Iterator over an [`Array`]. It cannot fail: the bytes were validated by the parse.
#[derive(Clone)]
pub struct ArrayIter<'a, T> {
    repr: IterRepr<'a, T>,
}

impl<'a, T: Elem<'a>> Iterator for ArrayIter<'a, T> {
    type Item = T;
    #[inline]
    fn next(&mut self) -> Option<T> {
        match &mut self.repr {
            IterRepr::Wire {
                rest,
                left,
                version,
                compact,
                canonical,
            } => {
                if *left == 0 {
                    return None;
                }
                *left -= 1;
                if let Some(w) = T::WIDTH {
                    // Fixed width (`[]int32`, `[]uuid`, ...): read in place, inlined; one call per
                    // element out of line cost more than the read itself.
                    let (head, tail) = rest.split_at_checked(w)?;
                    *rest = tail;
                    return T::read_elem(&mut Cursor::new(head), *version, *compact, "").ok();
                }
                // Validated bytes: the element's nested arrays are stepped over, not read again.
                let mut c = Cursor::validated(rest, *canonical);
                let r = read_validated::<T>(&mut c, *version, *compact);
                *rest = c.rest();
                match r {
                    Ok(v) => Some(v),
                    Err(_) => {
                        // Unreachable for validated bytes; end rather than panic.
                        *left = 0;
                        None
                    }
                }
            }
            IterRepr::Slice(it) => it.next().copied(),
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match &self.repr {
            IterRepr::Wire { left, .. } => *left as usize,
            IterRepr::Slice(it) => it.len(),
        };
        (n, Some(n))
    }
}

impl<'a, T: Elem<'a>> ExactSizeIterator for ArrayIter<'a, T> {}

/// Reads one element of validated bytes, out of line: iteration runs in the size and write
/// passes, comparisons, `Debug` and owned conversions, and an inlined reader would be copied
/// into each of them (the validation loop in `read::opt_array` keeps its inlined copy).
#[inline(never)]
fn read_validated<'a, T: Elem<'a>>(c: &mut Cursor<'a>, version: i16, compact: bool) -> Result<T, Fail> {
    T::read_elem(c, version, compact, "")
}

/// A tagged field that the schema of its struct does not know: its tag and raw payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawTaggedField<'a> {
    /// The tag.
    pub tag: u32,
    /// The payload, as it was on the wire.
    pub data: &'a [u8],
}

#[derive(Clone, Copy)]
enum TRepr<'a> {
    Wire {
        section: &'a [u8],
        n: u32,
        known: u64,
        unknown: u32,
    },
    Slice(&'a [RawTaggedField<'a>]),
}

/// The unknown tagged fields of one struct, kept so that nothing is lost on a round trip.
///
/// Encoding writes them back interleaved with the known tagged fields in ascending tag order;
/// build them with [`TaggedFields::from_slice`] in ascending tag order.
#[derive(Clone, Copy)]
pub struct TaggedFields<'a> {
    repr: TRepr<'a>,
}

impl<'a> TaggedFields<'a> {
    /// No unknown tagged fields.
    pub const EMPTY: Self = TaggedFields {
        repr: TRepr::Slice(&[]),
    };

    /// Unknown tagged fields given by the caller, in ascending tag order.
    pub const fn from_slice(fields: &'a [RawTaggedField<'a>]) -> Self {
        TaggedFields {
            repr: TRepr::Slice(fields),
        }
    }

    #[doc(hidden)]
    pub fn wire(section: &'a [u8], n: u32, known: u64, unknown: u32) -> Self {
        TaggedFields {
            repr: TRepr::Wire {
                section,
                n,
                known,
                unknown,
            },
        }
    }

    /// Number of unknown tagged fields.
    pub fn len(&self) -> usize {
        match self.repr {
            TRepr::Wire { unknown, .. } => unknown as usize,
            TRepr::Slice(s) => s.len(),
        }
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Iterates the unknown tagged fields in wire order.
    pub fn iter(&self) -> TaggedIter<'a> {
        match self.repr {
            TRepr::Wire {
                section,
                n,
                known,
                unknown,
            } => TaggedIter {
                repr: TIterRepr::Wire {
                    rest: section,
                    n,
                    known,
                    left: unknown,
                },
            },
            TRepr::Slice(s) => TaggedIter {
                repr: TIterRepr::Slice(s.iter()),
            },
        }
    }

    /// Encoded size of the unknown fields alone (without the section count).
    #[doc(hidden)]
    pub fn size(&self) -> Result<usize, EncodeError> {
        let mut n = 0usize;
        for t in self.iter() {
            n += write::raw_tag_size(t.tag, t.data.len())?;
        }
        Ok(n)
    }
}

impl Default for TaggedFields<'_> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl PartialEq for TaggedFields<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl fmt::Debug for TaggedFields<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[derive(Clone)]
enum TIterRepr<'a> {
    Wire {
        rest: &'a [u8],
        n: u32,
        known: u64,
        left: u32,
    },
    Slice(core::slice::Iter<'a, RawTaggedField<'a>>),
}

/// Iterator over [`TaggedFields`].
#[derive(Clone)]
pub struct TaggedIter<'a> {
    repr: TIterRepr<'a>,
}

impl<'a> Iterator for TaggedIter<'a> {
    type Item = RawTaggedField<'a>;
    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.repr {
            TIterRepr::Wire { rest, n, known, left } => {
                while *left > 0 && *n > 0 {
                    *n -= 1;
                    let t = raw_tag(rest)?;
                    if t.tag < 64 && *known & (1u64 << t.tag) != 0 {
                        continue;
                    }
                    *left -= 1;
                    return Some(t);
                }
                None
            }
            TIterRepr::Slice(it) => it.next().copied(),
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match &self.repr {
            TIterRepr::Wire { left, .. } => *left as usize,
            TIterRepr::Slice(it) => it.len(),
        };
        (n, Some(n))
    }
}

impl ExactSizeIterator for TaggedIter<'_> {}

/// Reads one raw tagged field from validated bytes; used by [`TaggedFields`] iteration.
pub fn raw_tag<'a>(c: read::Cur<'a, '_>) -> Option<RawTaggedField<'a>> {
    let tag = read::uvarint_opt(c)?;
    let size = read::uvarint_opt(c)?;
    let (data, rest) = c.split_at_checked(size as usize)?;
    *c = rest;
    Some(RawTaggedField { tag, data })
}

#[cfg(test)]
mod tests {
    //! Arrays from a parse, written again: the bytes Kafka writes for their values, in the form
    //! they were read in (copied out where they are canonical) and in the other one (compact or
    //! classic, element by element).

    use super::{Array, Elem};
    use crate::compound::read::opt_array;
    use crate::read::Cursor;
    use crate::vectors::{of, to_hex};
    use crate::write::Writer;
    use std::vec;
    use std::vec::Vec;

    /// Parses a non-null array of `bytes` (compact when `from`) and writes it compact when `to`:
    /// the bytes written and the size the array gives; `None` when the parse fails.
    fn rewrite<'a, T: Elem<'a> + 'a>(bytes: &'a [u8], from: bool, to: bool) -> Option<(Vec<u8>, usize)> {
        let mut c = Cursor::new(bytes);
        let a = opt_array::<T>(&mut c, from, false, 0, "v").ok()??;
        let size = a.size(0, to, "v").expect("size");
        let mut buf = vec![0u8; size];
        let mut w = Writer::new(&mut buf);
        a.write(&mut w, 0, to, "v");
        assert_eq!(w.finish(), Ok(size));
        Some((buf, size))
    }

    fn rewrites(classic: &str, compact: &str, rewrite: impl Fn(&[u8], bool, bool) -> Option<(Vec<u8>, usize)>) {
        let mut checked = 0;
        for (kind, from) in [(classic, false), (compact, true)] {
            for v in of(kind) {
                for to in [false, true] {
                    let Some((got, size)) = rewrite(&v.bytes, from, to) else {
                        continue;
                    };
                    let other = of(if to { compact } else { classic });
                    let want = if to == from {
                        v.written()
                    } else {
                        other.iter().find(|o| o.value == v.value).and_then(|o| o.written())
                    };
                    let want = want.unwrap_or_else(|| panic!("line {}: no bytes of Kafka's for {}", v.line, v.value));
                    assert_eq!(to_hex(&got), to_hex(want), "line {} written compact={to}", v.line);
                    assert_eq!(size, want.len(), "line {}", v.line);
                    checked += 1;
                }
            }
        }
        assert!(checked >= 8, "{checked} arrays rewritten");
    }

    #[test]
    fn parsed_arrays_write_what_kafka_writes() {
        rewrites("array_int32", "compact_array_int32", |b, f, t| rewrite::<i32>(b, f, t));
        rewrites("array_string", "compact_array_string", |b, f, t| {
            rewrite::<&str>(b, f, t)
        });
    }

    #[test]
    fn from_slice_equals_parsed() {
        let v = of("compact_array_int32")
            .into_iter()
            .find(|v| v.value == "[1,-1,2147483647]")
            .expect("vector");
        let mut c = Cursor::new(&v.bytes);
        let parsed = opt_array::<i32>(&mut c, true, false, 0, "v")
            .ok()
            .flatten()
            .expect("an array");
        assert_eq!(parsed, Array::from_slice(&[1, -1, i32::MAX]));
        assert!(parsed.wire_bytes().is_some());
    }
}
