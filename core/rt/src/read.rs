//! Hand-written decoding primitives used by the generated code.
//!
//! Every function reads from a source ([`Src`]: a plain slice of the bytes that remain, or the
//! generated readers' [`Cursor`]) and either advances it or fails with a [`DecodeError`] that
//! records how many bytes remained, which the public entry points turn into an offset. From a
//! slice the error is returned; from a cursor it is recorded in the cursor and the reader
//! returns the zero-sized [`Fail`], so that every `?` in the generated code passes a `Result`
//! that fits in registers instead of copying the error (the entry points take it back with
//! [`Cursor::error`]). Lengths and counts read off the wire are checked against the bytes that
//! remain before anything else is done with them.
//!
//! The rules follow Kafka's Java implementation: a negative length means null (an error where
//! the field is not nullable); compact lengths are unsigned varints holding `length + 1`;
//! unsigned varints are at most five bytes, and bits beyond 32 in the fifth byte are dropped;
//! strings are at most 32767 bytes; any non-zero byte is `true`.
//!
//! The readers of strings, bytes and tagged fields are marked `shared!` (`crate::profile`):
//! inlined into every struct that reads such a field, or one function that every struct calls
//! (feature `small-code`). The readers of the fixed-width numbers (one per row of the table in
//! `crate::prim`) and the unsigned varint reader are the build's own (`crate::profile`).

use crate::error::{DecodeError, DecodeErrorKind as K, Fail};

/// The cursor type of the hand-written readers: the bytes that remain.
pub type Cur<'a, 'c> = &'c mut &'a [u8];

/// The cursor of the generated readers: the bytes that remain, and whether anything read since
/// the flag was last cleared was encoded in a form other than the one the encoder writes
/// (a non-minimal varint, a `bool` byte other than 0 or 1, a null length other than -1, a null
/// marker other than -1 or 1, tagged fields out of ascending order, a known tagged field at its
/// default value, ...). Such input is valid and is read as Kafka reads it; the flag only tells
/// [`Array`](crate::Array) that its validated bytes are not what encoding its values would write, so they
/// must not be copied out as they are.
pub struct Cursor<'a> {
    #[doc(hidden)]
    pub rest: &'a [u8],
    odd: bool,
    /// The bytes were validated by an earlier parse (an array being iterated): arrays nested
    /// in what is read are stepped over rather than read element by element.
    #[doc(hidden)]
    pub validated: bool,
    /// The shared buffer the bytes are part of (owned decoding from `Bytes`): owned `bytes` and
    /// `records` fields are sliced from it instead of copied.
    #[cfg(feature = "bytes")]
    #[doc(hidden)]
    pub shared: Option<&'a bytes::Bytes>,
    /// The error of the last read that failed: the generated readers return a [`Fail`], and
    /// the entry point takes the details from here ([`Cursor::error`]). A `Result` with a
    /// zero-sized error is returned in registers; one carrying the whole [`DecodeError`] is
    /// copied through memory at every `?`.
    fault: Option<DecodeError>,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `bytes`.
    #[inline(always)]
    #[doc(hidden)]
    pub fn new(bytes: &'a [u8]) -> Self {
        Cursor {
            rest: bytes,
            odd: false,
            validated: false,
            #[cfg(feature = "bytes")]
            shared: None,
            fault: None,
        }
    }
    /// A cursor over bytes that a parse has validated; `canonical` is what that parse found
    /// for them, and arrays read from them are canonical only if it was.
    #[inline(always)]
    #[doc(hidden)]
    pub fn validated(bytes: &'a [u8], canonical: bool) -> Self {
        Cursor {
            rest: bytes,
            odd: !canonical,
            validated: true,
            #[cfg(feature = "bytes")]
            shared: None,
            fault: None,
        }
    }
    /// A copy to read with, in a local variable the optimiser can keep in registers; hand it
    /// back with [`Cursor::join`] once the reads succeed (on an error the position is not
    /// needed: errors carry their own).
    #[inline(always)]
    #[doc(hidden)]
    pub fn fork(&self) -> Self {
        Cursor {
            rest: self.rest,
            odd: self.odd,
            validated: self.validated,
            #[cfg(feature = "bytes")]
            shared: self.shared,
            fault: None,
        }
    }
    /// Runs `f` on a [`Cursor::fork`] of this cursor: on success this cursor takes its
    /// position and flag, on failure its error.
    #[inline(always)]
    #[doc(hidden)]
    pub fn forked<R>(&mut self, f: impl FnOnce(&mut Cursor<'a>) -> Result<R, Fail>) -> Result<R, Fail> {
        let mut l = self.fork();
        match f(&mut l) {
            Ok(r) => {
                self.join(l);
                Ok(r)
            }
            Err(_) => Err(self.failed(l)),
        }
    }
    /// Takes the error of a [`Cursor::fork`] that failed.
    #[inline(always)]
    #[doc(hidden)]
    pub fn failed(&mut self, f: Cursor<'a>) -> Fail {
        self.fault = f.fault;
        Fail
    }
    /// Records `e` as the error of the read that failed here.
    #[inline(always)]
    #[doc(hidden)]
    pub fn put(&mut self, e: DecodeError) -> Fail {
        self.fault = Some(e);
        Fail
    }
    /// True when a read has recorded an error.
    #[inline(always)]
    #[doc(hidden)]
    pub fn has_fault(&self) -> bool {
        self.fault.is_some()
    }
    /// The error recorded by the read that returned `Fail`, with its position still as
    /// bytes remaining (see [`DecodeError::finish`]).
    #[cold]
    #[inline(never)]
    #[doc(hidden)]
    pub fn error(&mut self, _: Fail) -> DecodeError {
        // A `Fail` is only made with an error recorded; the fallback is never used.
        self.fault
            .take()
            .unwrap_or(DecodeError::at(K::UnexpectedEof { needed: 1 }, self.rest.len(), ""))
    }
    /// Renames the field path of the recorded error (see [`DecodeError::renamed`]).
    #[inline(always)]
    #[doc(hidden)]
    pub fn renamed(&mut self, e: Fail, paths: &[(&'static str, &'static str)]) -> Fail {
        if let Some(f) = &mut self.fault {
            *f = f.renamed(paths);
        }
        e
    }
    /// Takes the position and flag of a [`Cursor::fork`] back.
    #[inline(always)]
    #[doc(hidden)]
    pub fn join(&mut self, f: Cursor<'a>) {
        self.rest = f.rest;
        self.odd = f.odd;
    }
    /// Takes the position of a cursor that read on from here, and ors its flag in. Kept apart
    /// from [`Cursor::join`], a plain store, because the or is measurably slower on the hot
    /// path of every generated reader (`benches/`).
    #[inline(always)]
    #[doc(hidden)]
    pub fn join_at(&mut self, f: Cursor<'a>) {
        self.rest = f.rest;
        self.odd |= f.odd;
    }
    /// The bytes that remain.
    #[inline(always)]
    #[doc(hidden)]
    pub fn rest(&self) -> &'a [u8] {
        self.rest
    }
    /// Clears the flag and returns its old value.
    #[inline(always)]
    #[doc(hidden)]
    pub fn take_odd(&mut self) -> bool {
        core::mem::replace(&mut self.odd, false)
    }
    /// True when something non-canonical was read since the flag was last cleared.
    #[inline(always)]
    #[doc(hidden)]
    pub fn is_odd(&self) -> bool {
        self.odd
    }
    /// Ors `old` back into the flag.
    #[inline(always)]
    #[doc(hidden)]
    pub fn restore_odd(&mut self, old: bool) {
        self.odd |= old;
    }
}

impl<'a> core::ops::Deref for Cursor<'a> {
    type Target = &'a [u8];
    #[inline(always)]
    fn deref(&self) -> &&'a [u8] {
        &self.rest
    }
}

impl<'a> core::ops::DerefMut for Cursor<'a> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut &'a [u8] {
        &mut self.rest
    }
}

/// Either cursor: the generated readers' [`Cursor`], which notes non-canonical encodings, or a
/// plain slice (hand-written readers), which ignores them.
pub trait Src<'a> {
    /// What a failed read returns: the [`DecodeError`] itself from a plain slice, a [`Fail`]
    /// (the error recorded in the cursor) from a [`Cursor`].
    type Err;
    /// The bytes that remain.
    fn cur(&mut self) -> &mut &'a [u8];
    /// Notes a non-canonical encoding.
    fn odd(&mut self);
    /// Hands `e` back in this source's way.
    fn put(&mut self, e: DecodeError) -> Self::Err;
}

impl<'a> Src<'a> for &'a [u8] {
    type Err = DecodeError;
    #[inline(always)]
    fn put(&mut self, e: DecodeError) -> DecodeError {
        e
    }
    #[inline(always)]
    fn cur(&mut self) -> &mut &'a [u8] {
        self
    }
    #[inline(always)]
    fn odd(&mut self) {}
}

impl<'a> Src<'a> for Cursor<'a> {
    type Err = Fail;
    #[inline(always)]
    fn put(&mut self, e: DecodeError) -> Fail {
        Cursor::put(self, e)
    }
    #[inline(always)]
    fn cur(&mut self) -> &mut &'a [u8] {
        &mut self.rest
    }
    #[inline(always)]
    fn odd(&mut self) {
        self.odd = true;
    }
}

crate::profile::shared_cold! {
    /// The error of an input that ends inside a field, `need` bytes wanted, handed back through
    /// `c` (recorded in it when it is a [`Cursor`]); `rem` is the number of bytes that remained
    /// where the field starts. The error is built out of line and
    /// stored here: a cursor passed by reference to a function that is not inlined would live in
    /// memory in every reader that can fail, instead of in registers (the parse measured 20-30%
    /// more instructions).
    pub fn fail_eof<'a, C: Src<'a>>(c: &mut C, rem: usize, need: usize, f: &'static str) -> C::Err {
        c.put(eof_at(rem, need, f))
    }
}

#[cold]
#[inline(never)]
fn eof_at(rem: usize, need: usize, f: &'static str) -> DecodeError {
    DecodeError::at(
        K::UnexpectedEof {
            needed: need.saturating_sub(rem),
        },
        rem,
        f,
    )
}

crate::profile::shared_cold! {
    /// The error `kind`, handed back through `c`; `rem` is the number of bytes that remained where
    /// it was found.
    pub fn fail<'a, C: Src<'a>>(c: &mut C, rem: usize, kind: K, f: &'static str) -> C::Err {
        c.put(DecodeError::at(kind, rem, f))
    }
}

#[inline(always)]
pub fn chunk<'a, const N: usize, C: Src<'a>>(c: &mut C, f: &'static str) -> Result<[u8; N], C::Err> {
    let r = c.cur();
    match r.split_first_chunk::<N>() {
        Some((h, t)) => {
            *r = t;
            Ok(*h)
        }
        None => {
            let rem = r.len();
            Err(fail_eof(c, rem, N, f))
        }
    }
}

/// Reads `n` bytes.
#[inline(always)]
pub fn take<'a, C: Src<'a>>(c: &mut C, n: usize, f: &'static str) -> Result<&'a [u8], C::Err> {
    let r = c.cur();
    match r.split_at_checked(n) {
        Some((h, t)) => {
            *r = t;
            Ok(h)
        }
        None => {
            let rem = r.len();
            Err(fail_eof(c, rem, n, f))
        }
    }
}

/// `bool`: one byte, non-zero is true.
#[inline(always)]
pub fn bool<'a, C: Src<'a>>(c: &mut C, f: &'static str) -> Result<bool, C::Err> {
    let b = chunk::<1, C>(c, f)?[0];
    Ok(canon_bool(c, b))
}

/// A `bool` from its byte: non-zero is true; bytes other than 0 and 1 are noted as
/// non-canonical.
#[inline(always)]
pub fn canon_bool<'a, C: Src<'a>>(c: &mut C, b: u8) -> bool {
    if b > 1 {
        c.odd();
    }
    b != 0
}
pub use crate::profile::numbers::*;
pub use crate::profile::uvarint;

/// `uuid`: 16 bytes, most significant first.
#[inline(always)]
pub fn uuid<'a, C: Src<'a>>(c: &mut C, f: &'static str) -> Result<uuid::Uuid, C::Err> {
    Ok(uuid::Uuid::from_bytes(chunk::<16, C>(c, f)?))
}

/// A run of `N` bytes of fixed-width fields, read with one bounds check.
#[inline(always)]
pub fn run<const N: usize>(c: Cur<'_, '_>) -> Option<[u8; N]> {
    let (h, t) = c.split_first_chunk::<N>()?;
    *c = t;
    Some(*h)
}

/// The cold path of a run of fixed-width fields read with one bounds check, on an input too
/// short for it: returns from the calling reader the error of the first field that does not fit,
/// at the position where it starts, short by as many bytes as it lacks. Each field is given as
/// `path: primitive = width`; one shared function walks the table of paths and widths, out of
/// the reader's hot path.
#[macro_export]
#[doc(hidden)]
macro_rules! short_run {
    ($c:expr; $f0:literal: $p0:ident = $w0:literal $(, $f:literal: $p:ident = $w:literal)* $(,)?) => {{
        return Err($crate::read::short_run_table($c, &[($f0, $w0) $(, ($f, $w))*]));
    }};
}
pub use crate::short_run;

crate::profile::shared_cold! {
    /// The error for a run of fixed-width fields that `c` is too short for: `fields` holds the
    /// run's field paths and widths in wire order ([`short_run!`], and the record batch header).
    pub fn short_run_table<'a, C: Src<'a>>(c: &mut C, fields: &'static [(&'static str, u8)]) -> C::Err {
        let rem = c.cur().len();
        c.put(short_run_at(rem, fields))
    }
}

#[cold]
#[inline(never)]
fn short_run_at(mut rest: usize, fields: &'static [(&'static str, u8)]) -> DecodeError {
    for &(f, w) in fields {
        let w = usize::from(w);
        if rest < w {
            return DecodeError::at(K::UnexpectedEof { needed: w - rest }, rest, f);
        }
        rest -= w;
    }
    // Not reached when the run did not fit; reported as `short` reports it, past the run.
    let f = fields.first().map_or("", |&(f, _)| f);
    DecodeError::at(K::UnexpectedEof { needed: 1 }, rest, f)
}

/// The error for a run that the field-by-field cold path did not pin on one field.
#[inline(always)]
pub fn short<'a, C: Src<'a>>(c: &mut C, f: &'static str) -> C::Err {
    let rem = c.cur().len();
    fail_eof(c, rem, rem.saturating_add(1), f)
}

#[inline(always)]
pub fn sub<const N: usize, const L: usize>(r: &[u8; N], off: usize) -> [u8; L] {
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
        #[doc(hidden)]
        pub fn $name<const N: usize, const O: usize>(r: &[u8; N]) -> $t {
            let f: fn([u8; $w]) -> $t = $conv;
            f(sub::<N, $w>(r, O))
        }
    )*};
}
at_fns! {
    bool_at => bool, 1, |a| a[0] != 0;
    u8_at => u8, 1, |a| a[0];
    uuid_at => uuid::Uuid, 16, uuid::Uuid::from_bytes;
}
macro_rules! number_at_fns {
    ($($s:ident $k:ident $t:ident $at:ident $w:literal $d:literal,)*) => {
        at_fns! { $($at => $t, $w, <$t>::from_be_bytes;)* }
    };
}
crate::prim::numbers!(number_at_fns);

/// The unsigned varint reader both builds share: the one-byte form inline, the others through
/// [`uvarint_slow`]. [`uvarint`] calls it, inlined or not.
#[inline(always)]
pub(crate) fn uvarint_inline<'a, C: Src<'a>>(c: &mut C, f: &'static str) -> Result<u32, C::Err> {
    let r = c.cur();
    if let Some((&b, t)) = r.split_first() {
        if b < 0x80 {
            *r = t;
            return Ok(u32::from(b));
        }
    }
    let Some((value, used, odd)) = uvarint_slow(r) else {
        return Err(bad_uvarint(c, f));
    };
    let r = c.cur();
    *r = r.get(used..).unwrap_or_default();
    if odd {
        c.odd();
    }
    Ok(value)
}

/// The varint's value, its length, and whether it is non-canonical; `None` when it is cut
/// short or longer than five bytes ([`bad_uvarint`] tells which). Takes the bytes by value: a
/// cursor passed by reference to a function that is not inlined lives in memory in the
/// caller, and every field read would then store it back.
#[inline(never)]
pub fn uvarint_slow(start: &[u8]) -> Option<(u32, usize, bool)> {
    if let Some(two) = crate::profile::uvarint_two_bytes(start) {
        return Some(two);
    }
    let mut value: u32 = 0;
    for (i, &b) in start.iter().take(5).enumerate() {
        #[allow(
            clippy::cast_possible_truncation,
            reason = "i < 5: the loop takes five bytes at most"
        )]
        let shift = 7 * i as u32;
        value |= u32::from(b & 0x7f).wrapping_shl(shift);
        if b < 0x80 {
            // Non-minimal (a zero last byte after the first) or bits past 32 in the fifth
            // byte: valid, but not what the encoder writes.
            let odd = (i > 0 && b == 0) || (i == 4 && b > 0x0f);
            return Some((value, i + 1, odd));
        }
    }
    None
}

crate::profile::shared_cold! {
    /// The error of an unsigned varint that [`uvarint_slow`] could not read at the start of `c`.
    pub fn bad_uvarint<'a, C: Src<'a>>(c: &mut C, f: &'static str) -> C::Err {
        let rem = c.cur().len();
        c.put(bad_uvarint_at(rem, f))
    }
}

#[cold]
#[inline(never)]
fn bad_uvarint_at(rem: usize, f: &'static str) -> DecodeError {
    if rem < 5 {
        return eof_at(rem, rem.saturating_add(1), f);
    }
    DecodeError::at(K::InvalidVarint, rem, f)
}

/// Signed (zig-zag) varint, at most five bytes.
pub fn varint<'a, C: Src<'a>>(c: &mut C, f: &'static str) -> Result<i32, C::Err> {
    let u = uvarint(c, f)?;
    Ok((u >> 1).cast_signed() ^ -(u & 1).cast_signed())
}

/// Signed (zig-zag) varlong, at most ten bytes.
pub fn varlong<'a, C: Src<'a>>(c: &mut C, f: &'static str) -> Result<i64, C::Err> {
    let start: &'a [u8] = c.cur();
    let mut r = start;
    let mut value: u64 = 0;
    for i in 0..10u32 {
        let Some((&b, t)) = r.split_first() else {
            return Err(fail_eof(c, start.len(), start.len().saturating_add(1), f));
        };
        r = t;
        value |= u64::from(b & 0x7f).wrapping_shl(7 * i);
        if b < 0x80 {
            *c.cur() = r;
            return Ok((value >> 1).cast_signed() ^ -(value & 1).cast_signed());
        }
    }
    Err(fail(c, start.len(), K::InvalidVarint, f))
}

crate::profile::shared! {
    /// A length prefix: `int16`/`int32` (classic) or unsigned varint minus one (compact).
    /// Negative means null.
    pub fn len_prefix<'a, C: Src<'a>>(c: &mut C, compact: bool, short: bool, f: &'static str) -> Result<i64, C::Err> {
        if compact {
            // Java reads the varint as a signed 32-bit int and subtracts one.
            Ok(i64::from(uvarint(c, f)?.cast_signed().wrapping_sub(1)))
        } else if short {
            Ok(i64::from(i16(c, f)?))
        } else {
            Ok(i64::from(i32(c, f)?))
        }
    }
}

/// A null length: notes one other than -1 (the encoder's) as non-canonical.
#[inline(always)]
pub fn null_len<'a, C: Src<'a>>(c: &mut C, len: i64) {
    if len != -1 {
        c.odd();
    }
}

/// The common case of a compact length prefix: one byte holding a non-null length below 127.
/// Returns the length, having consumed the byte; `None` leaves the cursor for the general path.
#[inline(always)]
pub fn small_compact_len(c: &mut &[u8]) -> Option<usize> {
    match c.split_first() {
        Some((&b, t)) if b.wrapping_sub(1) < 0x7f => {
            *c = t;
            Some(usize::from(b - 1))
        }
        _ => None,
    }
}

/// `bytes` as UTF-8; an error is reported where `start` remains (the string's first byte).
#[inline(always)]
pub fn utf8<'a, C: Src<'a>>(c: &mut C, start: &[u8], bytes: &'a [u8], f: &'static str) -> Result<&'a str, C::Err> {
    match crate::profile::str_of(bytes) {
        Some(s) => Ok(s),
        None => Err(fail(c, start.len(), K::InvalidUtf8, f)),
    }
}

crate::profile::shared! {
    /// A string that may be null at this version (`nullable`); `None` is null.
    pub fn opt_str<'a, C: Src<'a>>(
        c: &mut C,
        compact: bool,
        nullable: bool,
        f: &'static str,
    ) -> Result<Option<&'a str>, C::Err> {
        match opt_str_raw(c, compact, nullable, f)? {
            Some((start, bytes)) => utf8(c, start, bytes, f).map(Some),
            None => Ok(None),
        }
    }
}

/// `(start, bytes)`: a string's bytes, not yet checked as UTF-8, and the input from where they
/// start (the offset a UTF-8 error reports).
pub type RawStr<'a> = (&'a [u8], &'a [u8]);

crate::profile::shared! {
    /// A string's bytes, with every check of [`opt_str`] but UTF-8's; `None` is null. For a reader
    /// that validates the text where it keeps it.
    pub fn opt_str_raw<'a, C: Src<'a>>(
        c: &mut C,
        compact: bool,
        nullable: bool,
        f: &'static str,
    ) -> Result<Option<RawStr<'a>>, C::Err> {
        let at: &'a [u8] = c.cur();
        if compact {
            if let Some(n) = small_compact_len(c.cur()) {
                let start: &'a [u8] = c.cur();
                let bytes = take(c, n, f)?;
                return Ok(Some((start, bytes)));
            }
        }
        let len = len_prefix(c, compact, true, f)?;
        if len < 0 {
            null_len(c, len);
            return if nullable {
                Ok(None)
            } else {
                Err(fail(c, at.len(), K::NullNotAllowed, f))
            };
        }
        if len > 0x7fff {
            return Err(fail(c, at.len(), K::StringTooLong { length: len }, f));
        }
        let start: &'a [u8] = c.cur();
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "0 <= len <= 0x7fff: both bounds are checked above"
        )]
        let n = len as usize;
        let bytes = take(c, n, f)?;
        Ok(Some((start, bytes)))
    }
}

crate::profile::shared! {
    /// A string that is never null.
    pub fn str<'a, C: Src<'a>>(c: &mut C, compact: bool, f: &'static str) -> Result<&'a str, C::Err> {
        match opt_str(c, compact, false, f)? {
            Some(s) => Ok(s),
            None => {
                let rem = c.cur().len();
                Err(fail(c, rem, K::NullNotAllowed, f))
            }
        }
    }
}

crate::profile::shared! {
    /// Bytes (or records) that may be null at this version.
    pub fn opt_bytes<'a, C: Src<'a>>(
        c: &mut C,
        compact: bool,
        nullable: bool,
        f: &'static str,
    ) -> Result<Option<&'a [u8]>, C::Err> {
        let at: &'a [u8] = c.cur();
        let len = len_prefix(c, compact, false, f)?;
        if len < 0 {
            null_len(c, len);
            return if nullable {
                Ok(None)
            } else {
                Err(fail(c, at.len(), K::NullNotAllowed, f))
            };
        }
        #[allow(clippy::cast_possible_wrap, reason = "a slice's length is at most isize::MAX")]
        let rem = c.cur().len() as i64;
        if len > rem {
            return Err(fail(c, at.len(), K::LengthExceedsInput { length: len }, f));
        }
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "0 <= len <= rem: both bounds are checked above"
        )]
        let n = len as usize;
        take(c, n, f).map(Some)
    }
}

crate::profile::shared! {
    /// Bytes that are never null.
    pub fn bytes<'a, C: Src<'a>>(c: &mut C, compact: bool, f: &'static str) -> Result<&'a [u8], C::Err> {
        match opt_bytes(c, compact, false, f)? {
            Some(b) => Ok(b),
            None => {
                let rem = c.cur().len();
                Err(fail(c, rem, K::NullNotAllowed, f))
            }
        }
    }
}

/// The marker byte before an untagged nullable struct: negative means null.
#[inline(always)]
pub fn struct_present(c: &mut Cursor<'_>, nullable: bool, f: &'static str) -> Result<bool, Fail> {
    let at = c.rest.len();
    let m = i8(c, f)?;
    if m != 1 && m != -1 {
        c.odd();
    }
    if m < 0 {
        if nullable {
            Ok(false)
        } else {
            Err(fail(c, at, K::NullNotAllowed, f))
        }
    } else {
        Ok(true)
    }
}

/// The most elements Kafka reads in one array; a larger count is an error even when the bytes
/// are there. (One-byte compact counts never reach it.)
pub const MAX_ELEMENTS: i64 = 1_000_000;

/// The most fields Kafka reads in one tagged-field section.
pub const MAX_TAGGED_FIELDS: u32 = 10_000;

#[inline(always)]
pub fn too_many_elements<'a, C: Src<'a>>(c: &mut C, at: usize, count: i64, f: &'static str) -> C::Err {
    fail(c, at, K::TooManyElements { count }, f)
}

#[inline(always)]
pub fn too_many_tagged_fields<'a, C: Src<'a>>(c: &mut C, at: usize, count: u32, f: &'static str) -> C::Err {
    fail(c, at, K::TooManyTaggedFields { count }, f)
}

/// Reads the header of a tagged-field section: the number of fields, at most
/// [`MAX_TAGGED_FIELDS`] as in Kafka's reader (which also refuses a count that is negative as a
/// 32-bit int, 2^31 or more).
#[inline(always)]
pub fn tag_count(c: &mut Cursor<'_>, f: &'static str) -> Result<u32, Fail> {
    let at = c.rest.len();
    let n = uvarint(c, f)?;
    if n > MAX_TAGGED_FIELDS {
        return Err(too_many_tagged_fields(c, at, n, f));
    }
    Ok(n)
}

/// Reads one tag header: `(tag, size)`. The size is checked where it is used.
#[inline(always)]
pub fn tag_header<'a, C: Src<'a>>(c: &mut C, f: &'static str) -> Result<(u32, u32), C::Err> {
    let tag = uvarint(c, f)?;
    let size = uvarint(c, f)?;
    Ok((tag, size))
}

crate::profile::shared! {
    /// Reads the next tag header of a section; `next` is the lowest tag the encoder could write
    /// next (one past the previous tag), so a tag below it (out of order, or repeated) is noted as
    /// non-canonical.
    pub fn next_tag(c: &mut Cursor<'_>, next: &mut u64, f: &'static str) -> Result<(u32, u32), Fail> {
        let (tag, size) = tag_header(c, f)?;
        if u64::from(tag) < *next {
            c.odd();
        }
        *next = u64::from(tag) + 1;
        Ok((tag, size))
    }
}

/// Notes a known tagged field sent with its default value (the encoder leaves it out).
#[inline(always)]
pub fn tag_at_default(c: &mut Cursor<'_>, is_default: bool) {
    if is_default {
        c.odd();
    }
}

crate::profile::shared! {
    /// Skips an unknown tagged field's payload of `size` bytes.
    pub fn skip_tag<'a, C: Src<'a>>(c: &mut C, size: u32, f: &'static str) -> Result<&'a [u8], C::Err> {
        let rem = c.cur().len();
        if size.cast_signed() < 0 || size as usize > rem {
            return Err(fail(
                c,
                rem,
                K::LengthExceedsInput {
                    length: i64::from(size),
                },
                f,
            ));
        }
        take(c, size as usize, f)
    }
}

crate::profile::shared! {
    /// Checks that a known tagged field's value took exactly the `size` its header declared.
    /// `before` is the number of bytes that remained when the value started.
    pub fn check_tag_size<'a, C: Src<'a>>(
        c: &mut C,
        before: usize,
        size: u32,
        tag: u32,
        f: &'static str,
    ) -> Result<(), C::Err> {
        let rem = c.cur().len();
        if before - rem == size as usize {
            Ok(())
        } else {
            Err(fail(c, rem, K::TaggedFieldSize { tag, size }, f))
        }
    }
}

/// The presence marker of a struct inside a tagged field, where it is `nullable`: an unsigned
/// varint, present when above zero as a 32-bit int.
#[inline(always)]
pub fn tagged_present(c: &mut Cursor<'_>, nullable: bool, f: &'static str) -> Result<bool, Fail> {
    if !nullable {
        return Ok(true);
    }
    let m = uvarint(c, f)?;
    if m > 1 {
        c.odd();
    }
    Ok(m.cast_signed() > 0)
}

/// The presence marker of an untagged struct, where it is `nullable`.
#[inline(always)]
pub fn present(c: &mut Cursor<'_>, nullable: bool, f: &'static str) -> Result<bool, Fail> {
    if !nullable {
        return Ok(true);
    }
    struct_present(c, true, f)
}

crate::profile::shared! {
    /// Reads a tagged-field section's count and returns it with the section's start.
    pub fn tag_section<'a>(c: &mut Cursor<'a>, f: &'static str) -> Result<(u32, &'a [u8]), Fail> {
        let n = tag_count(c, f)?;
        Ok((n, c.rest()))
    }
}

/// The error for a known tag sent at a version that does not have it.
#[inline(always)]
pub fn tag_not_in_version<'a, C: Src<'a>>(c: &mut C, tag: u32, f: &'static str) -> C::Err {
    let rem = c.cur().len();
    fail(c, rem, K::TagNotInVersion { tag }, f)
}

// ---- Stepping over validated bytes -------------------------------------------------------------
// The generated `skip` functions use these to step over an element of an array that a parse has
// already validated. They check bounds (never panic) but build no errors: `None` means the bytes
// were not what the caller promised, and `opt_array` reports it as an error there.

/// Steps over `n` bytes.
#[inline(always)]
pub fn skip(c: &mut Cursor<'_>, n: usize) -> Option<()> {
    c.rest = c.rest.get(n..)?;
    Some(())
}

/// An unsigned varint; the one-byte case inline.
#[inline(always)]
pub fn skip_uvarint(c: &mut Cursor<'_>) -> Option<u32> {
    uvarint_opt(&mut c.rest)
}

/// An unsigned varint of bytes already validated, building no error; the one-byte case inline.
#[inline(always)]
pub fn uvarint_opt(r: Cur<'_, '_>) -> Option<u32> {
    if let Some((&b, t)) = r.split_first() {
        if b < 0x80 {
            *r = t;
            return Some(u32::from(b));
        }
    }
    let (value, used, _) = uvarint_slow(r)?;
    *r = r.get(used..)?;
    Some(value)
}

/// Reads a length or count prefix (`short`: a classic `int16` one); negative is null.
#[inline(always)]
pub fn skip_prefix(c: &mut Cursor<'_>, compact: bool, short: bool) -> Option<i64> {
    Some(if compact {
        i64::from(skip_uvarint(c)?.cast_signed().wrapping_sub(1))
    } else if short {
        i64::from(i16(c, "").ok()?)
    } else {
        i64::from(i32(c, "").ok()?)
    })
}

/// Steps over a length-prefixed value (`short`: a classic `int16` prefix); negative is null.
#[inline(always)]
pub fn skip_len(c: &mut Cursor<'_>, compact: bool, short: bool) -> Option<()> {
    let len = skip_prefix(c, compact, short)?;
    if len > 0 {
        skip(c, usize::try_from(len).ok()?)?;
    }
    Some(())
}

/// Steps over a string, null or not.
#[inline(always)]
pub fn skip_str(c: &mut Cursor<'_>, compact: bool) -> Option<()> {
    skip_len(c, compact, true)
}

/// Steps over bytes or records, null or not.
#[inline(always)]
pub fn skip_bytes(c: &mut Cursor<'_>, compact: bool) -> Option<()> {
    skip_len(c, compact, false)
}

/// Steps over a tagged-field section, known and unknown fields alike; an empty one inline.
#[inline(always)]
pub fn skip_tags(c: &mut Cursor<'_>) -> Option<()> {
    if let Some((0, t)) = c.rest.split_first() {
        c.rest = t;
        return Some(());
    }
    skip_tag_fields(c)
}

#[inline(never)]
pub fn skip_tag_fields(c: &mut Cursor<'_>) -> Option<()> {
    // A count read as a negative `int32` is no fields, as Kafka reads it. A countdown rather than
    // a range over `i32`, whose stepping keeps a panic path in some builds.
    let mut left = skip_uvarint(c)?.cast_signed();
    while left > 0 {
        left -= 1;
        skip_uvarint(c)?;
        let size = skip_uvarint(c)?;
        skip(c, size as usize)?;
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::uvarint_slow;

    /// Unsigned varints as the protocol encodes them (seven bits a byte, low group first; the
    /// protobuf documentation's 300 = AC 02), through the two-byte shortcut and the loop.
    #[test]
    fn uvarint_forms() {
        assert_eq!(uvarint_slow(&[0x80, 0x01]), Some((128, 2, false)));
        assert_eq!(uvarint_slow(&[0xac, 0x02, 0x55]), Some((300, 2, false)));
        assert_eq!(uvarint_slow(&[0xff, 0x7f]), Some((16_383, 2, false)));
        assert_eq!(uvarint_slow(&[0x80, 0x80, 0x01]), Some((16_384, 3, false)));
        assert_eq!(
            uvarint_slow(&[0xff, 0xff, 0xff, 0xff, 0x0f]),
            Some((u32::MAX, 5, false))
        );
        // Non-minimal: a zero last byte after the first, or bits past 32.
        assert_eq!(uvarint_slow(&[0x80, 0x00]), Some((0, 2, true)));
        assert_eq!(uvarint_slow(&[0xff, 0xff, 0xff, 0xff, 0x1f]), Some((u32::MAX, 5, true)));
        // Cut short, or longer than five bytes.
        assert_eq!(uvarint_slow(&[0x80]), None);
        assert_eq!(uvarint_slow(&[0x80, 0x80]), None);
        assert_eq!(uvarint_slow(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x01]), None);
        // A one-byte varint read here too (the callers' fast path takes these first).
        assert_eq!(uvarint_slow(&[0x05, 0x01]), Some((5, 1, false)));
    }
}

#[cfg(test)]
mod kafka_vectors {
    //! The primitive readers against the vectors that Kafka's own classes write and read
    //! (`crate::vectors`): Kafka's value, exactly the bytes consumed, and an error where Kafka's
    //! reader throws.

    use super as r;
    use crate::vectors::{reads, show_blob, show_number};
    use std::format;
    use std::string::ToString;

    #[test]
    fn fixed_width() {
        macro_rules! numbers {
            ($($s:ident $k:ident $t:ident $at:ident $w:literal $d:literal,)*) => {$(
                reads(stringify!($s), true, |c| Ok(show_number(stringify!($s), &r::$t(c, "v")?.to_be_bytes())));
            )*};
        }
        crate::prim::numbers!(numbers);
        reads("uuid", true, |c| Ok(format!("{:032x}", r::uuid(c, "v")?.as_u128())));
        // Any non-zero byte is true; Kafka writes 1 back, and the cursor notes the others.
        reads("bool", true, |c| Ok(r::bool(c, "v")?.to_string()));
    }

    #[test]
    fn varints() {
        reads("uvarint", true, |c| Ok(r::uvarint(c, "v")?.to_string()));
        reads("varint", true, |c| Ok(r::varint(c, "v")?.to_string()));
        // The varlong reader notes no non-canonical form (no message field is a varlong).
        reads("varlong", false, |c| Ok(r::varlong(c, "v")?.to_string()));
    }

    #[test]
    fn strings() {
        for (kind, compact, nullable) in [
            ("string", false, false),
            ("compact_string", true, false),
            ("nullable_string", false, true),
            ("compact_nullable_string", true, true),
        ] {
            reads(kind, true, |c| {
                Ok(show_blob(r::opt_str(c, compact, nullable, "v")?.map(str::as_bytes)))
            });
            if !nullable {
                reads(kind, true, |c| Ok(show_blob(Some(r::str(c, compact, "v")?.as_bytes()))));
            }
        }
    }

    /// Bytes and records (which the runtime reads as bytes).
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
            reads(kind, true, |c| Ok(show_blob(r::opt_bytes(c, compact, nullable, "v")?)));
            if !nullable {
                reads(kind, true, |c| Ok(show_blob(Some(r::bytes(c, compact, "v")?))));
            }
        }
    }
}
