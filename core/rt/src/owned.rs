//! Owned values (feature `alloc`): the runtime half of the generated `owned` modules.
//!
//! Every generated struct has an owned twin in its module's `owned` submodule, made from a view
//! with `From` or read straight from the wire, and encoded with the same checks and sinks as the
//! views. Owned decoding is one pass with the views' checks and errors: every count is checked
//! against the bytes that remain before anything is reserved, and exact capacities are
//! allocated. Up to 4 fixed-width elements are read into the inline buffer of their `SmallVec`
//! directly, without a capacity check per element.
//!
//! The layout keeps allocations to one per large string and one per array that does not fit
//! inline:
//! - strings are [`OwnedStr`]: up to 24 bytes inline (12 on 32-bit targets), which covers most
//!   topic names, hosts and ids, and with the `bytes` feature longer ones decoded by
//!   [`OwnedMessage::parse_bytes`] share the input;
//! - arrays of small fixed-width elements (scalars, uuids, and structs of fixed-width fields
//!   taking at most 16 bytes, such as a broker id with its epoch) are [`SmallVec`]`<[T; 4]>`: a
//!   replica set, an ISR or a list of partition ids of up to 4 needs no allocation;
//! - other arrays are `Vec`;
//! - bytes and records are [`OwnedBytes`]: a `Vec<u8>`, or with the `bytes` feature a
//!   `bytes::Bytes` sliced from the input by [`OwnedMessage::parse_bytes`], without a copy;
//! - unknown tagged fields are one pointer, allocated only when there are some.
//!
//! Build them with `"name".into()`, `SmallVec::from_slice(&[1, 2, 3])` or `.collect()`.

use alloc::boxed::Box;
use alloc::vec::Vec;

mod buf;
mod str;
pub use buf::OwnedBytes;
pub use str::OwnedStr;
pub use str::{read_opt_str, read_str};

pub use compact_str::CompactString;
pub use smallvec::SmallVec;

use crate::codec::{self, Message, MessageInfo};
use crate::compound::read::array_count;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError, Fail};
use crate::read::{self, Cursor};
use crate::sealed::Sealed;
use crate::types::{RawTaggedField, TaggedFields};
use crate::write::{self, Sink, Writer};

/// One unknown tagged field, owned.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct OwnedRawTaggedField {
    /// The tag.
    pub tag: u32,
    /// The payload.
    pub data: Vec<u8>,
}

/// The unknown tagged fields of an owned struct, in ascending tag order.
///
/// One pointer wide: nearly every struct has none, and this sits in every owned struct (arrays
/// of small structs keep 4 of them inline).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[allow(clippy::box_collection)] // the box keeps the field one pointer wide
pub struct OwnedTaggedFields(Option<Box<Vec<OwnedRawTaggedField>>>);

impl OwnedTaggedFields {
    /// None.
    pub const fn new() -> Self {
        OwnedTaggedFields(None)
    }
    /// Number of fields.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |v| v.len())
    }
    /// True when there are none.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The fields, in order.
    #[inline]
    pub fn as_slice(&self) -> &[OwnedRawTaggedField] {
        self.0.as_deref().map_or(&[], |v| v.as_slice())
    }
    /// Appends a field; keep tags ascending and unknown to the schema, or encoding fails.
    #[inline]
    pub fn push(&mut self, field: OwnedRawTaggedField) {
        self.0.get_or_insert_with(Default::default).push(field);
    }
    /// Iterates them as borrowed fields.
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = RawTaggedField<'_>> + '_ {
        self.as_slice().iter().map(|t| RawTaggedField {
            tag: t.tag,
            data: &t.data,
        })
    }
    #[inline(always)]
    #[doc(hidden)]
    pub fn size(&self) -> Result<usize, EncodeError> {
        if self.is_empty() {
            return Ok(0);
        }
        self.size_some()
    }

    #[inline(never)]
    fn size_some(&self) -> Result<usize, EncodeError> {
        let mut n = 0usize;
        for t in self.iter() {
            n += write::raw_tag_size(t.tag, t.data.len())?;
        }
        Ok(n)
    }
}

impl crate::compound::write::UnknownTags for OwnedTaggedFields {
    #[inline(always)]
    fn count(&self) -> usize {
        self.len()
    }
    #[inline]
    fn each(&self) -> impl Iterator<Item = RawTaggedField<'_>> {
        self.iter()
    }
}

impl From<Vec<OwnedRawTaggedField>> for OwnedTaggedFields {
    fn from(v: Vec<OwnedRawTaggedField>) -> Self {
        OwnedTaggedFields((!v.is_empty()).then(|| Box::new(v)))
    }
}

impl From<&TaggedFields<'_>> for OwnedTaggedFields {
    // Every owned struct converts its (almost always empty) unknown tagged fields: the empty
    // case is inlined into the generated code, the rest is called.
    #[inline(always)]
    fn from(t: &TaggedFields<'_>) -> Self {
        if t.is_empty() {
            return OwnedTaggedFields(None);
        }
        Self::copied(t)
    }
}

impl OwnedTaggedFields {
    #[inline(never)]
    fn copied(t: &TaggedFields<'_>) -> Self {
        t.iter()
            .map(|r| OwnedRawTaggedField {
                tag: r.tag,
                data: r.data.to_vec(),
            })
            .collect::<Vec<_>>()
            .into()
    }
}

/// A generated owned struct: size and write at any version, with the views' checks.
pub trait OwnedStruct: Sealed {
    /// Written inline into the loop of the array that holds it (nested structs).
    #[doc(hidden)]
    const INLINE: bool = false;
    /// Exact encoded size at `version`, after the checks.
    #[doc(hidden)]
    fn size(&self, version: i16) -> Result<usize, EncodeError>;
    /// Writes at `version`, making the checks `size` makes; an error is kept in the writer.
    #[doc(hidden)]
    fn write(&self, w: &mut Writer<'_>, version: i16);
    /// Reads at `version` straight from the wire, with the checks and errors of the view's
    /// `read`.
    #[doc(hidden)]
    fn read(c: &mut Cursor<'_>, version: i16) -> Result<Self, Fail>
    where
        Self: Sized;
    /// For a struct of fixed-width fields only, at a version where they are all present and it
    /// is flexible: their width. An element without tagged fields then takes that many bytes
    /// and a zero, and an array of them is read in one bounds check ([`OwnedStruct::read_run`]).
    #[doc(hidden)]
    #[inline(always)]
    fn tagged_width(_version: i16) -> Option<usize> {
        None
    }
    /// The struct from the first [`OwnedStruct::tagged_width`] bytes of `r`, without tagged
    /// fields.
    #[doc(hidden)]
    #[inline(always)]
    fn read_run(_r: &[u8], _version: i16) -> Option<Self>
    where
        Self: Sized,
    {
        None
    }
}

/// An element of an owned array.
pub trait OwnedElem: Sealed {
    #[doc(hidden)]
    const WIDTH: Option<usize> = None;
    /// Written by a loop inlined into the array's writer.
    #[doc(hidden)]
    const INLINE: bool = false;
    #[doc(hidden)]
    fn size_elem(&self, version: i16, compact: bool, f: &'static str) -> Result<usize, EncodeError>;
    #[doc(hidden)]
    fn write_elem(&self, w: &mut Writer<'_>, version: i16, compact: bool, f: &'static str);
    /// Reads one element.
    #[doc(hidden)]
    fn read_elem(c: &mut Cursor<'_>, version: i16, compact: bool, f: &'static str) -> Result<Self, Fail>
    where
        Self: Sized;
    /// See [`OwnedStruct::tagged_width`].
    #[doc(hidden)]
    #[inline(always)]
    fn tagged_width(_version: i16) -> Option<usize> {
        None
    }
    /// See [`OwnedStruct::read_run`].
    #[doc(hidden)]
    #[inline(always)]
    fn read_run(_r: &[u8], _version: i16) -> Option<Self>
    where
        Self: Sized,
    {
        None
    }
    /// Writes fixed-width elements into their `WIDTH × len` bytes.
    #[doc(hidden)]
    fn put_all(_elems: &[Self], _dst: &mut [u8])
    where
        Self: Sized,
    {
    }
}

macro_rules! fixed_owned {
    ($($t:ty => $w:literal, $wr:ident, $be:expr;)*) => {$(
        impl OwnedElem for $t {
            const WIDTH: Option<usize> = Some($w);
            #[inline(always)]
            fn size_elem(&self, _: i16, _: bool, _: &'static str) -> Result<usize, EncodeError> {
                Ok($w)
            }
            #[inline(always)]
            fn write_elem(&self, w: &mut Writer<'_>, _: i16, _: bool, f: &'static str) {
                w.$wr(*self, f)
            }
            #[inline(always)]
            fn read_elem(c: &mut Cursor<'_>, _: i16, _: bool, f: &'static str) -> Result<Self, Fail> {
                read::$wr(c, f)
            }
            #[inline(always)]
            fn put_all(elems: &[Self], dst: &mut [u8]) {
                // Straight-line code for the short arrays (replica sets): a loop's set-up
                // costs more than the writes.
                const W: usize = $w;
                match elems {
                    [] => {}
                    [a] => {
                        if let Some(d) = dst.first_chunk_mut::<W>() {
                            *d = $be(*a);
                        }
                    }
                    [a, b] => {
                        if let Some(d) = dst.first_chunk_mut::<{ 2 * W }>() {
                            d[..W].copy_from_slice(&$be(*a));
                            d[W..].copy_from_slice(&$be(*b));
                        }
                    }
                    [a, b, c] => {
                        if let Some(d) = dst.first_chunk_mut::<{ 3 * W }>() {
                            d[..W].copy_from_slice(&$be(*a));
                            d[W..2 * W].copy_from_slice(&$be(*b));
                            d[2 * W..].copy_from_slice(&$be(*c));
                        }
                    }
                    _ => {
                        for (d, e) in dst.chunks_exact_mut(W).zip(elems) {
                            if let Some(d) = d.first_chunk_mut::<W>() {
                                *d = $be(*e);
                            }
                        }
                    }
                }
            }
        }
    )*};
}
fixed_owned! {
    bool => 1, bool, |b: bool| [u8::from(b)];
    uuid::Uuid => 16, uuid, |u: uuid::Uuid| *u.as_bytes();
}
macro_rules! number_owned {
    ($($s:ident $k:ident $t:ident $at:ident $w:literal $d:literal,)*) => {
        fixed_owned! { $($t => $w, $t, <$t>::to_be_bytes;)* }
    };
}
crate::prim::numbers!(number_owned);

impl Sealed for OwnedStr {}

impl OwnedElem for OwnedStr {
    #[inline]
    fn size_elem(&self, _: i16, compact: bool, f: &'static str) -> Result<usize, EncodeError> {
        write::str_size(self, compact, f)
    }
    #[inline]
    fn write_elem(&self, w: &mut Writer<'_>, _: i16, compact: bool, f: &'static str) {
        w.str(self, compact, f)
    }
    #[inline]
    fn read_elem(c: &mut Cursor<'_>, _: i16, compact: bool, f: &'static str) -> Result<Self, Fail> {
        read_str(c, compact, f)
    }
}

impl<T: OwnedStruct> OwnedElem for T {
    const INLINE: bool = T::INLINE;
    fn size_elem(&self, version: i16, _: bool, _: &'static str) -> Result<usize, EncodeError> {
        self.size(version)
    }
    #[inline(always)]
    fn write_elem(&self, w: &mut Writer<'_>, version: i16, _: bool, _: &'static str) {
        self.write(w, version)
    }
    #[inline(always)]
    fn read_elem(c: &mut Cursor<'_>, version: i16, _: bool, _: &'static str) -> Result<Self, Fail> {
        T::read(c, version)
    }
    #[inline(always)]
    fn tagged_width(version: i16) -> Option<usize> {
        T::tagged_width(version)
    }
    #[inline(always)]
    fn read_run(r: &[u8], version: i16) -> Option<Self> {
        T::read_run(r, version)
    }
}

/// The collection an owned array is read into: a `Vec`, or a `SmallVec` (fixed-width
/// elements, a few inline).
pub trait Coll<T>: Sized {
    fn with_capacity(n: usize) -> Self;
    fn push(&mut self, t: T);
    /// Appends what `it` yields; the capacity is reserved already.
    fn extend_from(&mut self, it: impl Iterator<Item = T>);
    /// The `n` elements that `elem` reads from the consecutive `w`-byte chunks of `all` (which
    /// holds exactly `n` of them), or `None` when `elem` refuses one.
    #[inline(always)]
    fn from_chunks(all: &[u8], n: usize, w: usize, elem: impl FnMut(&[u8]) -> Option<T>) -> Option<Self> {
        let mut out = Self::with_capacity(n);
        let whole = if n > 4 {
            extend_chunks(&mut out, all, w, elem)
        } else {
            push_chunks(&mut out, all, w, elem)
        };
        whole.then_some(out)
    }
}

/// [`Coll::from_chunks`] for a few elements: pushed one by one.
#[inline(always)]
fn push_chunks<T, C: Coll<T>>(out: &mut C, all: &[u8], w: usize, mut elem: impl FnMut(&[u8]) -> Option<T>) -> bool {
    all.chunks_exact(w).all(|e| elem(e).map(|t| out.push(t)).is_some())
}

/// [`Coll::from_chunks`] for more than a few elements: `extend` sets up once and then writes
/// without checking the capacity, where `push` checks it for each element.
#[inline(never)]
fn extend_chunks<T, C: Coll<T>>(out: &mut C, all: &[u8], w: usize, mut elem: impl FnMut(&[u8]) -> Option<T>) -> bool {
    let mut whole = true;
    out.extend_from(all.chunks_exact(w).map_while(|e| {
        let t = elem(e);
        whole &= t.is_some();
        t
    }));
    whole
}

impl<T> Coll<T> for Vec<T> {
    #[inline(always)]
    fn with_capacity(n: usize) -> Self {
        Vec::with_capacity(n)
    }
    #[inline(always)]
    fn push(&mut self, t: T) {
        Vec::push(self, t)
    }
    #[inline(always)]
    fn extend_from(&mut self, it: impl Iterator<Item = T>) {
        Extend::extend(self, it)
    }
}

impl<T: Default> Coll<T> for SmallVec<[T; 4]> {
    #[inline(always)]
    fn with_capacity(n: usize) -> Self {
        SmallVec::with_capacity(n)
    }
    #[inline(always)]
    fn push(&mut self, t: T) {
        SmallVec::push(self, t)
    }
    #[inline(always)]
    fn extend_from(&mut self, it: impl Iterator<Item = T>) {
        Extend::extend(self, it)
    }
    /// Up to 4 elements are read into an array that becomes the inline buffer: no capacity
    /// check per element, and the slots past `n` hold defaults that are never dropped.
    #[inline(always)]
    fn from_chunks(all: &[u8], n: usize, w: usize, mut elem: impl FnMut(&[u8]) -> Option<T>) -> Option<Self> {
        if n == 0 {
            return Some(SmallVec::new());
        }
        if n > 4 {
            let mut out = SmallVec::with_capacity(n);
            return extend_chunks(&mut out, all, w, elem).then_some(out);
        }
        let mut chunks = all.chunks_exact(w);
        let mut next = || match chunks.next() {
            Some(e) => elem(e),
            None => Some(T::default()),
        };
        let buf = [next()?, next()?, next()?, next()?];
        Some(SmallVec::from_buf_and_len(buf, n))
    }
}

/// Reads owned bytes (or records) that may be null at this version: shared with the input when
/// it is a `Bytes` (feature `bytes`), else copied.
#[inline(always)]
pub fn read_opt_bytes(
    c: &mut Cursor<'_>,
    compact: bool,
    nullable: bool,
    f: &'static str,
) -> Result<Option<OwnedBytes>, Fail> {
    Ok(read::opt_bytes(c, compact, nullable, f)?.map(|b| OwnedBytes::from_wire(c, b)))
}

/// Reads owned bytes (or records) that are never null.
#[inline(always)]
pub fn read_bytes(c: &mut Cursor<'_>, compact: bool, f: &'static str) -> Result<OwnedBytes, Fail> {
    let b = read::bytes(c, compact, f)?;
    Ok(OwnedBytes::from_wire(c, b))
}

/// Reads an owned array that may be null at this version, with the view's checks and errors:
/// the count is checked against the bytes that remain before anything is reserved, and
/// fixed-width elements take one bounds check for the whole array.
#[inline(always)]
pub fn read_opt_array<T: OwnedElem, C: Coll<T>>(
    c: &mut Cursor<'_>,
    compact: bool,
    nullable: bool,
    version: i16,
    f: &'static str,
) -> Result<Option<C>, Fail> {
    let Some(n) = array_count(c, compact, nullable, f)? else {
        return Ok(None);
    };
    if let Some(w) = T::WIDTH {
        let all = read::take(c, n.saturating_mul(w), f)?;
        let elem = |e: &[u8]| T::read_elem(&mut Cursor::new(e), version, compact, f).ok();
        if let Some(out) = C::from_chunks(all, n, w, elem) {
            return Ok(Some(out));
        }
        // An element refused: read them one by one from the start for its error.
        let mut all = Cursor::new(all);
        let mut out = C::with_capacity(n);
        for _ in 0..n {
            match T::read_elem(&mut all, version, compact, f) {
                Ok(e) => out.push(e),
                Err(_) => return Err(c.failed(all)),
            }
        }
        return Ok(Some(out));
    }
    if let Some(w) = T::tagged_width(version) {
        if let Some(all) = c.rest.get(..n.saturating_mul(w + 1)) {
            if let Some(out) = C::from_chunks(all, n, w + 1, |e| run_elem(e, version)) {
                c.rest = c.rest.get(all.len()..).unwrap_or_default();
                return Ok(Some(out));
            }
        }
        // Too few bytes, or an element with tagged fields: the element-by-element read below
        // gives the value or the error.
    }
    let mut out = C::with_capacity(n);
    for _ in 0..n {
        out.push(T::read_elem(c, version, compact, f)?);
    }
    Ok(Some(out))
}

/// One element of a run of fixed-width elements each followed by an empty tagged-field
/// section (a zero): its fields, when its tag section is a zero.
#[inline(always)]
fn run_elem<T: OwnedElem>(e: &[u8], version: i16) -> Option<T> {
    match e.last() {
        Some(0) => T::read_run(e, version),
        _ => None,
    }
}

/// Reads an owned array that is never null.
#[inline(always)]
pub fn read_array<T: OwnedElem, C: Coll<T>>(
    c: &mut Cursor<'_>,
    compact: bool,
    version: i16,
    f: &'static str,
) -> Result<C, Fail> {
    match read_opt_array::<T, C>(c, compact, false, version, f)? {
        Some(a) => Ok(a),
        None => {
            let rem = c.rest.len();
            Err(read::fail(c, rem, DecodeErrorKind::NullNotAllowed, f))
        }
    }
}

/// Reads an owned struct that may be null at this version (its marker byte first).
#[inline(always)]
pub fn read_opt_struct<T: OwnedStruct>(
    c: &mut Cursor<'_>,
    nullable: bool,
    version: i16,
    f: &'static str,
) -> Result<Option<T>, Fail> {
    if !read::present(c, nullable, f)? {
        return Ok(None);
    }
    T::read(c, version).map(Some)
}

/// Reads an owned nullable struct inside a tagged field (its varint marker first).
#[inline(always)]
pub fn read_opt_struct_tagged<T: OwnedStruct>(
    c: &mut Cursor<'_>,
    nullable: bool,
    version: i16,
    f: &'static str,
) -> Result<Option<T>, Fail> {
    if !read::tagged_present(c, nullable, f)? {
        return Ok(None);
    }
    T::read(c, version).map(Some)
}

/// Size of an owned array.
#[inline(always)]
pub fn vec_size<T: OwnedElem>(a: &[T], compact: bool, v: i16, f: &'static str) -> Result<usize, EncodeError> {
    match T::WIDTH {
        Some(w) if a.len() < i32::MAX as usize => Ok(write::len_size(a.len(), compact) + w * a.len()),
        _ => vec_size_elems(a, compact, v, f),
    }
}

fn vec_size_elems<T: OwnedElem>(a: &[T], compact: bool, v: i16, f: &'static str) -> Result<usize, EncodeError> {
    if a.len() > i32::MAX as usize - 1 {
        return Err(write::too_long(a.len(), f));
    }
    // Fixed-width elements are summed by `vec_size` unless the length is too long (above).
    let mut n = write::len_size(a.len(), compact);
    for e in a {
        n += e.size_elem(v, compact, f)?;
    }
    Ok(n)
}

/// Size of a nullable owned array.
pub fn opt_vec_size<T: OwnedElem>(
    a: Option<&[T]>,
    compact: bool,
    nullable: bool,
    v: i16,
    f: &'static str,
) -> Result<usize, EncodeError> {
    match a {
        Some(a) => vec_size(a, compact, v, f),
        None if !nullable => Err(write::null_not_allowed(f)),
        None => Ok(if compact { 1 } else { 4 }),
    }
}

/// Size of a nullable owned struct.
pub fn opt_struct_size<T: OwnedStruct>(
    s: &Option<T>,
    nullable: bool,
    v: i16,
    f: &'static str,
) -> Result<usize, EncodeError> {
    match s {
        Some(s) => Ok(usize::from(nullable) + s.size(v)?),
        None if !nullable => Err(write::null_not_allowed(f)),
        None => Ok(1),
    }
}

/// Writes an owned array.
#[inline(always)]
pub fn write_vec<T: OwnedElem>(w: &mut Writer<'_>, a: &[T], compact: bool, v: i16, f: &'static str) {
    if let Some(width) = T::WIDTH {
        // Inline, with one bounds check for the prefix and the elements: most arrays of
        // fixed-width elements are short (replica sets).
        if let Some(dst) = w.fixed_array(a.len(), width.saturating_mul(a.len()), compact, f) {
            T::put_all(a, dst);
        }
        return;
    }
    if T::INLINE {
        w.len_prefix(a.len(), compact, f);
        for e in a {
            e.write_elem(w, v, compact, f);
        }
        return;
    }
    write_vec_elems(w, a, compact, v, f)
}

fn write_vec_elems<T: OwnedElem>(w: &mut Writer<'_>, a: &[T], compact: bool, v: i16, f: &'static str) {
    w.len_prefix(a.len(), compact, f);
    for e in a {
        e.write_elem(w, v, compact, f);
    }
}

/// Writes a nullable owned array.
pub fn write_opt_vec<T: OwnedElem>(
    w: &mut Writer<'_>,
    a: Option<&[T]>,
    compact: bool,
    nullable: bool,
    v: i16,
    f: &'static str,
) {
    match a {
        Some(a) => write_vec(w, a, compact, v, f),
        None => w.null_len(compact, nullable, f),
    }
}

/// Writes a nullable owned struct.
pub fn write_opt_struct<T: OwnedStruct>(w: &mut Writer<'_>, s: &Option<T>, nullable: bool, v: i16, f: &'static str) {
    match s {
        Some(s) => {
            if nullable {
                w.i8(1, f);
            }
            s.write(w, v)
        }
        None if !nullable => w.fail(write::null_not_allowed(f)),
        None => w.i8(-1, f),
    }
}

/// Writes a nullable owned struct inside a tagged field (unsigned varint marker).
pub fn write_opt_struct_tagged<T: OwnedStruct>(
    w: &mut Writer<'_>,
    s: &Option<T>,
    nullable: bool,
    v: i16,
    f: &'static str,
) {
    match s {
        Some(s) => {
            if nullable {
                w.uvarint(1, f);
            }
            s.write(w, v)
        }
        None if !nullable => w.fail(write::null_not_allowed(f)),
        None => w.uvarint(0, f),
    }
}

/// A whole owned message: decode (through a validated view), size, encode.
pub trait OwnedMessage: OwnedStruct + Sized {
    /// The view type this is the owned twin of.
    type View<'a>: Message<'a>;

    /// Copies a view into an owned value.
    fn from_view(v: &Self::View<'_>) -> Self;

    /// The schema's facts.
    fn info() -> MessageInfo {
        <Self::View<'static> as Message<'static>>::INFO
    }

    /// Parses `bytes` strictly at `version` into an owned value.
    ///
    /// One pass over the wire, straight into owned values: the checks and errors are
    /// [`Message::parse`]'s.
    fn parse(bytes: &[u8], version: i16) -> Result<Self, DecodeError> {
        read_owned(bytes, Shared::default(), version)
    }

    /// Parses `bytes` strictly at `version`, like [`OwnedMessage::parse`], with every `bytes`
    /// and `records` field a slice of `bytes` rather than a copy (feature `bytes`): the record
    /// sets of a Fetch response or a Produce request are shared, not copied.
    #[cfg(feature = "bytes")]
    fn parse_bytes(bytes: bytes::Bytes, version: i16) -> Result<Self, DecodeError> {
        read_owned(&bytes, Some(&bytes), version)
    }

    /// Exact encoded size at `version`.
    fn encoded_len(&self, version: i16) -> Result<usize, EncodeError> {
        codec::checked_len(&Self::info(), version, || self.size(version))
    }

    /// Encodes at `version` into `sink`; returns the bytes written. The size is computed first,
    /// so a sink without room is an error before any byte is written.
    fn encode<S: Sink + ?Sized>(&self, sink: &mut S, version: i16) -> Result<usize, EncodeError> {
        codec::encode_sized(
            &Self::info(),
            version,
            sink,
            || self.size(version),
            |w| self.write(w, version),
        )
    }

    /// Encodes at `version` into the front of `buf`, in one pass; returns the bytes written.
    /// The checks and errors are [`OwnedMessage::encode`]'s; when `buf` is too short the error
    /// gives the size needed, and what was written into `buf` is unspecified.
    fn encode_to_slice(&self, buf: &mut [u8], version: i16) -> Result<usize, EncodeError> {
        codec::encode_one_pass(
            &Self::info(),
            version,
            buf,
            || self.size(version),
            |w| self.write(w, version),
        )
    }

    /// Encodes at `version` into a new `Vec`.
    fn to_vec(&self, version: i16) -> Result<Vec<u8>, EncodeError> {
        let mut v = Vec::new();
        self.encode(&mut v, version)?;
        Ok(v)
    }

    /// Encodes at `version` into a new `Bytes` (feature `bytes`); [`OwnedMessage::encode`]
    /// appends to a `BytesMut`.
    #[cfg(feature = "bytes")]
    fn to_bytes(&self, version: i16) -> Result<bytes::Bytes, EncodeError> {
        let mut b = bytes::BytesMut::new();
        self.encode(&mut b, version)?;
        Ok(b.freeze())
    }
}

/// The buffer `bytes` are part of, when they are shared (feature `bytes`).
#[cfg(feature = "bytes")]
type Shared<'a> = Option<&'a bytes::Bytes>;
#[cfg(not(feature = "bytes"))]
type Shared<'a> = core::marker::PhantomData<&'a ()>;

/// [`OwnedMessage::parse`] and [`OwnedMessage::parse_bytes`]: one call site of the message's
/// `read` for both, so that it is inlined as when there was one.
#[inline]
fn read_owned<M: OwnedMessage>(
    bytes: &[u8],
    #[allow(unused_variables)] shared: Shared<'_>,
    version: i16,
) -> Result<M, DecodeError> {
    let info = M::info();
    let read = codec::read_message(&info, bytes, version, |c| {
        #[cfg(feature = "bytes")]
        {
            c.shared = shared;
        }
        M::read(c, version)
    })?;
    codec::whole(&info, bytes, version, read)
}

/// Parses `input` strictly at `from` into an owned `M` sharing its bytes
/// ([`OwnedMessage::parse_bytes`]) and encodes it at `to`.
#[cfg(feature = "bytes")]
pub fn bytes_transcode<M: OwnedMessage>(input: bytes::Bytes, from: i16, to: i16) -> Result<Vec<u8>, crate::CodecError> {
    let m = M::parse_bytes(input, from)?;
    Ok(m.to_vec(to)?)
}

/// Parses `input` strictly at `from` into an owned `M` and encodes it at `to`.
pub fn owned_transcode<M: OwnedMessage>(input: &[u8], from: i16, to: i16) -> Result<Vec<u8>, crate::CodecError> {
    let m = M::parse(input, from)?;
    Ok(m.to_vec(to)?)
}

#[cfg(test)]
mod tests {
    //! Owned reads and writes against the vectors of Kafka's own classes (`crate::vectors`): the
    //! same values, errors and bytes as the views', into owned strings, bytes and collections.

    use super::*;
    use crate::vectors::{blob, list, reads, show_blob, show_list, text, writes};
    use std::string::{String, ToString};

    fn show<T: ToString>(a: Option<impl IntoIterator<Item = T>>) -> String {
        show_list(a.map(|a| a.into_iter().map(|x| x.to_string()).collect::<Vec<_>>()))
    }

    #[test]
    fn int32_arrays() {
        for (kind, compact, nullable) in [
            ("array_int32", false, false),
            ("nullable_array_int32", false, true),
            ("compact_array_int32", true, false),
            ("compact_nullable_array_int32", true, true),
        ] {
            reads(kind, true, |c| {
                Ok(show(read_opt_array::<i32, Vec<i32>>(c, compact, nullable, 0, "v")?))
            });
            reads(kind, true, |c| {
                Ok(show(read_opt_array::<i32, SmallVec<[i32; 4]>>(
                    c, compact, nullable, 0, "v",
                )?))
            });
            writes(kind, |v, w| {
                let a: Option<Vec<i32>> = list(v).map(|l| l.iter().map(|x| x.parse().expect("int32")).collect());
                write_opt_vec(w, a.as_deref(), compact, nullable, 0, "v");
                opt_vec_size(a.as_deref(), compact, nullable, 0, "v").expect("size")
            });
        }
    }

    #[test]
    fn strings_and_bytes() {
        for (kind, compact, nullable) in [
            ("string", false, false),
            ("compact_string", true, false),
            ("nullable_string", false, true),
            ("compact_nullable_string", true, true),
        ] {
            reads(kind, true, |c| {
                Ok(show_blob(
                    read_opt_str(c, compact, nullable, "v")?.as_ref().map(|s| s.as_bytes()),
                ))
            });
        }
        for (kind, compact) in [("array_string", false), ("compact_array_string", true)] {
            reads(kind, true, |c| {
                let a = read_opt_array::<OwnedStr, Vec<OwnedStr>>(c, compact, false, 0, "v")?;
                Ok(show_list(a.map(|a| {
                    a.iter().map(|s| show_blob(Some(s.as_bytes()))).collect::<Vec<_>>()
                })))
            });
            writes(kind, |v, w| {
                let a: Vec<OwnedStr> = list(v)
                    .expect("not null")
                    .iter()
                    .map(|s| text(s).expect("a string").into())
                    .collect();
                write_opt_vec(w, Some(&a[..]), compact, false, 0, "v");
                opt_vec_size(Some(&a[..]), compact, false, 0, "v").expect("size")
            });
        }
        for (kind, compact, nullable) in [
            ("bytes", false, false),
            ("compact_bytes", true, false),
            ("nullable_bytes", false, true),
            ("compact_nullable_bytes", true, true),
        ] {
            reads(kind, true, |c| {
                Ok(show_blob(read_opt_bytes(c, compact, nullable, "v")?.as_deref()))
            });
            // Owned bytes write through the views' writer.
            writes(kind, |v, w| {
                let b = blob(v).map(OwnedBytes::from);
                w.opt_bytes(b.as_deref(), compact, nullable, "v");
                write::opt_bytes_size(b.as_deref(), compact, nullable, "v").expect("size")
            });
        }
    }
}
