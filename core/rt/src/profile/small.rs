//! Feature `small-code`: tuned for flash. Every function here has a twin of the same signature
//! in `fast.rs`; see the module documentation of `profile`.
//!
//! What it saves, and what it costs in instructions, is measured in tests/firmware/BUDGETS.md.

use crate::codec::{finished, short_sink, unsupported, Message, MessageInfo};
use crate::compound::read::element_count;
use crate::error::{DecodeError, DecodeErrorKind, DecodeErrorKind as K, EncodeError, EncodeErrorKind, Fail};
use crate::read::*;
use crate::structs::Struct;
use crate::types::{Array, Elem};
use crate::visit::{FieldId, Visitor};
use crate::write::{Sink, Writer};

// Messages: parse and encode. A view's size is its writer run into a counter, so the encoders
// need only the writer, and take it as a `&dyn Fn`: their bodies are then functions of their
// own, one for every message, rather than copies inlined into each message's methods.

/// [`Message::parse`]: the read, then no bytes may be left; one error path for every message.
#[inline(always)]
pub fn parse<'a, M: Message<'a>>(bytes: &'a [u8], version: i16) -> Result<M, DecodeError> {
    let mut c = Cursor::new(bytes);
    if M::INFO.is_valid(version) {
        if let Ok(m) = M::read(&mut c, version) {
            if c.rest().is_empty() {
                return Ok(m);
            }
        }
    }
    Err(parse_error(&M::INFO, bytes, version, &mut c))
}

/// [`Message::parse_lenient`]: the read; one error path for every message.
#[inline(always)]
pub fn parse_lenient<'a, M: Message<'a>>(bytes: &'a [u8], version: i16) -> Result<(M, &'a [u8]), DecodeError> {
    let mut c = Cursor::new(bytes);
    if M::INFO.is_valid(version) {
        if let Ok(m) = M::read(&mut c, version) {
            return Ok((m, c.rest()));
        }
    }
    Err(parse_error(&M::INFO, bytes, version, &mut c))
}

/// [`Message::encoded_len`]: the writer run into a counter.
#[inline(always)]
pub fn encoded_len<'a, M: Message<'a>>(m: &M, version: i16) -> Result<usize, EncodeError> {
    counted(&M::INFO, version, &|w| m.write(w, version))
}

/// [`Message::encode`]: the counter, then the writer into exactly that many bytes.
#[inline(always)]
pub fn encode<'a, M: Message<'a>, S: Sink + ?Sized>(m: &M, sink: &mut S, version: i16) -> Result<usize, EncodeError> {
    let write: Write<'_> = &|w| m.write(w, version);
    let n = counted(&M::INFO, version, write)?;
    match sink.reserve(n) {
        Some(buf) => written(&M::INFO, version, buf, write),
        None => Err(short_sink(&M::INFO, version, n)),
    }
}

/// [`Message::encode_to_slice`]: the writer; the counter runs only to report a short buffer.
#[inline(always)]
pub fn encode_to_slice<'a, M: Message<'a>>(m: &M, buf: &mut [u8], version: i16) -> Result<usize, EncodeError> {
    encode_one_pass(&M::INFO, version, buf, &|w| m.write(w, version))
}

/// A message's writer at one version.
type Write<'s> = &'s dyn Fn(&mut Writer<'_>);

/// The error of a parse that failed, one function for every message: a version the message
/// does not have (nothing was read), the error the read recorded in `c`, or else the bytes
/// left after the message (a strict parse).
#[cold]
#[inline(never)]
fn parse_error(info: &MessageInfo, bytes: &[u8], version: i16, c: &mut Cursor<'_>) -> DecodeError {
    if !info.is_valid(version) {
        let kind = DecodeErrorKind::UnsupportedVersion {
            version: i32::from(version),
        };
        return DecodeError::new_at(kind, 0, info.name, version, "");
    }
    if c.has_fault() {
        return c.error(Fail).finish(bytes.len(), info.name, version);
    }
    let rest = c.rest().len();
    let kind = DecodeErrorKind::TrailingBytes { count: rest };
    DecodeError::new_at(kind, bytes.len() - rest, info.name, version, "")
}

/// The exact encoded size, after checking the version: the writer run into a counter.
#[inline(never)]
fn counted(info: &MessageInfo, version: i16, write: Write<'_>) -> Result<usize, EncodeError> {
    if !info.is_valid(version) {
        return Err(unsupported(info, version));
    }
    let mut w = Writer::counter();
    write(&mut w);
    finished(w.finish(), info, version)
}

/// Writes into `buf`, which holds exactly the encoded size.
#[inline(never)]
fn written(info: &MessageInfo, version: i16, buf: &mut [u8], write: Write<'_>) -> Result<usize, EncodeError> {
    let mut w = Writer::new(buf);
    write(&mut w);
    finished(w.finish(), info, version)
}

/// Writes into `buf` in one pass; the counter runs only to report a short buffer. The same
/// steps as `codec::encode_one_pass`, written out: calling that one with a closure over
/// `counted` links a copy of its cold error path for the closure.
#[inline(never)]
fn encode_one_pass(info: &MessageInfo, version: i16, buf: &mut [u8], write: Write<'_>) -> Result<usize, EncodeError> {
    if !info.is_valid(version) {
        return Err(unsupported(info, version));
    }
    let mut w = Writer::new(buf);
    write(&mut w);
    match w.finish() {
        Ok(n) => Ok(n),
        Err(e) => Err(match e.kind() {
            EncodeErrorKind::BufferTooShort { .. } => match counted(info, version, write) {
                Ok(needed) => short_sink(info, version, needed),
                Err(e) => e,
            },
            _ => e.finish(info.name, version),
        }),
    }
}

/// A generated struct is an array element: its check and skip are its reader, its size its
/// writer run into a counter.
impl<'a, T: Struct<'a>> Elem<'a> for T {
    #[inline]
    fn read_elem(c: &mut Cursor<'a>, version: i16, _: bool, _: &'static str) -> Result<Self, Fail> {
        T::read(c, version)
    }
    #[inline]
    fn check_elem(c: &mut Cursor<'a>, version: i16, _: bool, _: &'static str) -> Result<(), Fail> {
        match T::read(c, version) {
            Ok(_) => Ok(()),
            Err(e) => Err(e),
        }
    }
    #[inline]
    fn skip_elem(c: &mut Cursor<'a>, version: i16, _: bool) -> Option<()> {
        match T::read(c, version) {
            Ok(_) => Some(()),
            Err(_) => None,
        }
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
        struct_size(self, version)
    }
    #[inline]
    fn write_elem(&self, w: &mut Writer<'_>, version: i16, _: bool, _: &'static str) {
        self.write(w, version)
    }
}

// Structs: what arrays and nested fields call. A struct's `check`, `skip` and `size` are not
// called: one function per struct (its reader, its writer) is linked instead of four.

/// A struct's size: its writer run into a counter, with the same checks, size and first error
/// as its size pass.
#[inline]
pub fn struct_size<'a, T: Struct<'a>>(s: &T, version: i16) -> Result<usize, EncodeError> {
    let mut w = Writer::counter();
    s.write(&mut w, version);
    w.finish()
}

/// Steps over a struct in validated bytes: its reader, with the value dropped.
#[inline(always)]
pub fn struct_skip<'a, T: Struct<'a>>(c: &mut Cursor<'a>, version: i16) -> Option<()> {
    T::read(c, version).ok().map(|_| ())
}

// Readers.

macro_rules! readers {
    ($($s:ident $k:ident $t:ident $at:ident $w:tt $d:literal,)*) => {$(reader!($s $t $w);)*};
}
macro_rules! reader {
    ($s:ident $t:ident 1) => {
        #[doc = concat!("`", stringify!($s), "`: one byte, inline.")]
        #[inline(always)]
        pub fn $t<'a, C: Src<'a>>(c: &mut C, f: &'static str) -> Result<$t, C::Err> {
            Ok(<$t>::from_be_bytes(chunk::<1, C>(c, f)?))
        }
    };
    ($s:ident $t:ident 8) => {
        #[doc = concat!("`", stringify!($s), "`, through `be`.")]
        #[inline(always)]
        pub fn $t<'a, C: Src<'a>>(c: &mut C, f: &'static str) -> Result<$t, C::Err> {
            match be(c, 8, f) {
                Ok(v) => Ok(<$t>::from_be_bytes(v.to_be_bytes())),
                Err(e) => Err(e),
            }
        }
    };
    ($s:ident $t:ident $w:tt) => {
        #[doc = concat!("`", stringify!($s), "`, through `be`.")]
        #[inline(always)]
        pub fn $t<'a, C: Src<'a>>(c: &mut C, f: &'static str) -> Result<$t, C::Err> {
            match be(c, $w, f) {
                Ok(v) => Ok(<$t>::from_be_bytes(low::<$w>(v))),
                Err(e) => Err(e),
            }
        }
    };
}
/// The readers of the fixed-width numbers, one per row of the table.
pub mod numbers {
    use super::*;
    crate::prim::numbers!(readers);
}

/// The low `N` bytes of `v`, big-endian.
#[inline(always)]
fn low<const N: usize>(v: u64) -> [u8; N] {
    match v.to_be_bytes().last_chunk::<N>() {
        Some(b) => *b,
        None => [0; N],
    }
}

/// A big-endian number of `n` bytes (at most 8): every fixed-width number wider than a byte is
/// read by this one function (per kind of source).
#[inline(never)]
fn be<'a, C: Src<'a>>(c: &mut C, n: usize, f: &'static str) -> Result<u64, C::Err> {
    let r = c.cur();
    match r.split_at_checked(n) {
        Some((h, t)) => {
            *r = t;
            Ok(h.iter().fold(0u64, |v, b| v << 8 | u64::from(*b)))
        }
        None => {
            let rem = r.len();
            Err(fail_eof(c, rem, n, f))
        }
    }
}

/// Unsigned varint, at most five bytes, as Kafka reads it (the result is 32 bits): one
/// function for every field.
#[inline(never)]
pub fn uvarint<'a, C: Src<'a>>(c: &mut C, f: &'static str) -> Result<u32, C::Err> {
    uvarint_inline(c, f)
}

/// No shortcut for two-byte varints: [`uvarint_slow`]'s loop reads them in less flash.
#[inline(always)]
pub fn uvarint_two_bytes(_: &[u8]) -> Option<(u32, usize, bool)> {
    None
}

/// `bytes` as a `str`, or `None` where they are not valid UTF-8: `core::str::from_utf8` alone,
/// as the ASCII check costs flash (tests/firmware/BUDGETS.md).
#[inline(always)]
pub fn str_of(bytes: &[u8]) -> Option<&str> {
    core::str::from_utf8(bytes).ok()
}

/// An array that may be null at this version: a generic shim over one reader shared by every
/// element type ([`opt_array_dyn`]), which calls the element's check through a function
/// pointer.
#[inline(always)]
#[doc(hidden)]
pub fn opt_array<'a, T: Elem<'a>>(
    c: &mut Cursor<'a>,
    compact: bool,
    nullable: bool,
    version: i16,
    f: &'static str,
) -> Result<Option<Array<'a, T>>, Fail> {
    let r = opt_array_dyn(c, compact, nullable, version, f, ElemFns::of::<T>())?;
    Ok(r.map(|(bytes, n, canonical)| Array::wire(bytes, n, version, compact, canonical)))
}

/// Validates an array (null or not): the shared reader, with the view it builds dropped.
#[inline(always)]
#[doc(hidden)]
pub fn check_array<'a, T: Elem<'a>>(
    c: &mut Cursor<'a>,
    compact: bool,
    nullable: bool,
    version: i16,
    f: &'static str,
) -> Result<(), Fail> {
    opt_array_dyn(c, compact, nullable, version, f, ElemFns::of::<T>()).map(|_| ())
}

/// What [`array`](crate::compound::read::array) returns where [`opt_array`] found a null array
/// that is not nullable, which it never does: the shared reader is out of line, so the branch
/// is not folded away, and an empty array costs less than building an error at every call.
#[inline(always)]
pub fn null_array<'a, T: Elem<'a>>(_: &mut Cursor<'a>, _: &'static str) -> Result<Array<'a, T>, Fail> {
    Ok(Array::EMPTY)
}

/// A validated array: its bytes, its element count and whether the bytes are canonical.
type WireArray<'a> = (&'a [u8], u32, bool);

/// What the shared array reader needs of an element type.
struct ElemFns<'a> {
    width: Option<usize>,
    copy_wire: bool,
    check: fn(&mut Cursor<'a>, i16, bool, &'static str) -> Result<(), Fail>,
}

impl<'a> ElemFns<'a> {
    #[inline(always)]
    fn of<T: Elem<'a>>() -> Self {
        ElemFns {
            width: T::WIDTH,
            copy_wire: T::COPY_WIRE,
            check: T::check_elem,
        }
    }
}

/// The body of [`opt_array`] once for every element type: the validated bytes, the element
/// count and whether the bytes are canonical, or `None` for a null array. The same steps as
/// the default build's generic reader, through `e`.
#[inline(never)]
fn opt_array_dyn<'a>(
    c: &mut Cursor<'a>,
    compact: bool,
    nullable: bool,
    version: i16,
    f: &'static str,
    e: ElemFns<'a>,
) -> Result<Option<WireArray<'a>>, Fail> {
    let n = element_count!(c, compact, nullable, f, Ok(None));
    let start: &'a [u8] = c.rest();
    if let Some(w) = e.width {
        let bytes = take(c, n.saturating_mul(w), f)?;
        if !e.copy_wire && bytes.iter().any(|&b| b > 1) {
            c.odd();
        }
        #[allow(clippy::cast_possible_truncation, reason = "element_count! bounds n by MAX_ELEMENTS")]
        let count = n as u32;
        return Ok(Some((bytes, count, e.copy_wire)));
    }
    let outer = c.take_odd();
    if c.validated {
        c.restore_odd(outer);
        // A struct's skip is its reader here: the check is the same call.
        for _ in 0..n {
            if (e.check)(c, version, compact, f).is_err() {
                return Err(short(c, f));
            }
        }
    } else {
        let mut l = c.fork();
        for _ in 0..n {
            if (e.check)(&mut l, version, compact, f).is_err() {
                return Err(c.failed(l));
            }
        }
        c.join(l);
    }
    let canonical = !c.is_odd();
    c.restore_odd(outer);
    let used = start.len().wrapping_sub(c.len());
    let (bytes, _) = start.split_at_checked(used).unwrap_or((start, &[]));
    #[allow(clippy::cast_possible_truncation, reason = "element_count! bounds n by MAX_ELEMENTS")]
    let count = n as u32;
    Ok(Some((bytes, count, canonical)))
}

// Writers.

/// Whether a writer of unknown tagged fields returns early, inline, when there are none: not
/// here, where that check is made once, in the shared writer.
pub const UNKNOWN_TAGS_INLINE_CHECK: bool = false;

/// Writes the `N` bytes `a` of a fixed-width field: a call to one shared writer that leaves
/// the field path out. The only error a fixed-width write can record is a short buffer, and
/// the entry points report that one for the whole message (they size first, or size again to
/// give the length needed), never with the field where it ran out.
#[inline(always)]
pub fn write_fixed<const N: usize>(w: &mut Writer<'_>, a: [u8; N], _: &'static str) {
    put_shared(w, &a);
}

/// [`Writer::put`], not inlined: every fixed-width write.
#[inline(never)]
fn put_shared(w: &mut Writer<'_>, bytes: &[u8]) {
    w.put(bytes, "")
}
