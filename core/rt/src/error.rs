//! Typed, `Copy` errors for decoding and encoding.
//!
//! Both error types are small, allocation-free and identical under every feature. Each names
//! what went wrong (a `#[non_exhaustive]` kind), where (the byte offset for decoding), and in
//! what (the message, its version and the field path).

use core::fmt;

/// What went wrong while decoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The input ended inside a field; `needed` more bytes were required at least.
    UnexpectedEof {
        /// Bytes still missing at the point of failure (a lower bound).
        needed: usize,
    },
    /// A length or element count that is negative where null is not allowed at this version.
    NullNotAllowed,
    /// A length or element count larger than the bytes that remain.
    LengthExceedsInput {
        /// The length read off the wire.
        length: i64,
    },
    /// A string longer than Kafka's limit of 32767 bytes.
    StringTooLong {
        /// The length read off the wire.
        length: i64,
    },
    /// A string that is not valid UTF-8.
    InvalidUtf8,
    /// An unsigned varint with its continuation bit set in the fifth byte, or a signed
    /// varlong longer than ten bytes.
    InvalidVarint,
    /// A tag that this message knows, sent at a version whose schema does not have it.
    TagNotInVersion {
        /// The tag.
        tag: u32,
    },
    /// A known tagged field whose value did not take exactly the size its header declared.
    /// (Kafka's Java reader ignores the declared size of known tags; we reject the mismatch.)
    TaggedFieldSize {
        /// The tag.
        tag: u32,
        /// The declared size.
        size: u32,
    },
    /// Bytes left over after the message (strict mode).
    TrailingBytes {
        /// How many.
        count: usize,
    },
    /// An API key, record type or coordinator record type that nothing here knows.
    UnknownApiKey {
        /// The key read.
        key: i32,
    },
    /// A message this build does not compile: the crate feature named enables it.
    NotEnabled {
        /// The Cargo feature of `kafka-wire` that compiles the message.
        feature: &'static str,
    },
    /// A version outside the message's valid versions.
    UnsupportedVersion {
        /// The version asked for.
        version: i32,
    },
    /// A framing field (frame version, size prefix) with a value that is not allowed.
    InvalidFrame {
        /// The value read.
        value: i64,
    },
    /// A frame whose size prefix does not cover the bytes given for it (a prefix smaller than
    /// its message, or a second frame where one was expected), reported at the prefix.
    FrameSize {
        /// The size prefix read.
        size: i32,
        /// The bytes that follow the prefix.
        given: usize,
    },
    /// An array with more elements than Kafka reads in one collection (1,000,000).
    TooManyElements {
        /// The element count read off the wire.
        count: i64,
    },
    /// A tagged-field section with more fields than Kafka reads (10,000); a count of 2^31 or
    /// more, which Kafka reads as negative, is one of these too.
    TooManyTaggedFields {
        /// The field count read off the wire.
        count: u32,
    },
}

/// A failed read inside the codec: the [`DecodeError`] itself waits in the cursor that was
/// read (`Cursor::error` takes it), so the readers return nothing bigger than this.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct Fail;

/// A decoding failure: its kind, the byte offset where it was found, and its context.
///
/// `Display` reads like
/// `invalid UTF-8 in a string at byte 37 in FetchResponse v12 responses[].partitions[].records`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeError {
    kind: DecodeErrorKind,
    /// While parsing: bytes remaining at the failure. After `finish`: offset from the start.
    pos: usize,
    message: &'static str,
    version: i16,
    field: &'static str,
}

impl DecodeError {
    /// Builds an error found with `remaining` bytes left in the input; the public entry points
    /// turn that into an offset from the start.
    #[cold]
    #[inline(never)]
    #[doc(hidden)]
    pub fn at(kind: DecodeErrorKind, remaining: usize, field: &'static str) -> Self {
        DecodeError {
            kind,
            pos: remaining,
            message: "",
            version: -1,
            field,
        }
    }

    /// Turns the "bytes remaining" position into an offset, and records the message and version.
    #[cold]
    #[inline(never)]
    #[doc(hidden)]
    pub fn finish(mut self, total: usize, message: &'static str, version: i16) -> Self {
        self.pos = total.saturating_sub(self.pos);
        if self.message.is_empty() {
            self.message = message;
            self.version = version;
        }
        self
    }

    /// Shifts the offset of a finished error by `base` bytes (for errors inside a frame).
    #[cold]
    #[doc(hidden)]
    pub fn shifted(mut self, base: usize) -> Self {
        self.pos = self.pos.saturating_add(base);
        self
    }

    /// Builds a finished error at an absolute offset.
    #[cold]
    #[doc(hidden)]
    pub fn new_at(
        kind: DecodeErrorKind,
        offset: usize,
        message: &'static str,
        version: i16,
        field: &'static str,
    ) -> Self {
        DecodeError {
            kind,
            pos: offset,
            message,
            version,
            field,
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> DecodeErrorKind {
        self.kind
    }
    /// Byte offset from the start of the input handed to the entry point.
    pub fn offset(&self) -> usize {
        self.pos
    }
    /// The message (or framing layer) being decoded, e.g. `"FetchResponse"`.
    pub fn message(&self) -> &'static str {
        self.message
    }
    /// The version being decoded, or -1 where none applies.
    pub fn version(&self) -> i16 {
        self.version
    }
    /// The field path inside the message, e.g. `"topics[].partitions[].leader_epoch"`.
    pub fn field(&self) -> &'static str {
        self.field
    }

    /// The same error with its field path replaced by its pair in `paths` (`(from, to)`), where
    /// it has one: a struct that several fields share reports the paths of the first of them,
    /// and its callers at the others rename.
    #[cold]
    #[inline(never)]
    #[doc(hidden)]
    pub fn renamed(mut self, paths: &[(&'static str, &'static str)]) -> Self {
        self.field = rename(self.field, paths);
        self
    }
}

/// `field`'s pair in `paths`, or `field` itself.
fn rename(field: &'static str, paths: &[(&'static str, &'static str)]) -> &'static str {
    paths
        .iter()
        .find(|(from, _)| *from == field)
        .map_or(field, |(_, to)| to)
}

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DecodeErrorKind::UnexpectedEof { needed } => {
                write!(f, "input ended, {needed} more byte(s) needed")
            }
            DecodeErrorKind::NullNotAllowed => f.write_str("null (negative length) in a non-nullable field"),
            DecodeErrorKind::LengthExceedsInput { length } => {
                write!(f, "length {length} exceeds the remaining input")
            }
            DecodeErrorKind::StringTooLong { length } => {
                write!(f, "string length {length} exceeds 32767")
            }
            DecodeErrorKind::InvalidUtf8 => f.write_str("invalid UTF-8 in a string"),
            DecodeErrorKind::InvalidVarint => f.write_str("invalid varint"),
            DecodeErrorKind::TagNotInVersion { tag } => {
                write!(f, "tagged field {tag} is not defined at this version")
            }
            DecodeErrorKind::TaggedFieldSize { tag, size } => {
                write!(f, "tagged field {tag} did not take its declared {size} byte(s)")
            }
            DecodeErrorKind::TrailingBytes { count } => {
                write!(f, "{count} trailing byte(s) after the message")
            }
            DecodeErrorKind::UnknownApiKey { key } => write!(f, "unknown API key or record type {key}"),
            DecodeErrorKind::NotEnabled { feature } => {
                write!(
                    f,
                    "message not compiled in (enable the `{feature}` feature of kafka-wire)"
                )
            }
            DecodeErrorKind::UnsupportedVersion { version } => {
                write!(f, "unsupported version {version}")
            }
            DecodeErrorKind::InvalidFrame { value } => write!(f, "invalid framing value {value}"),
            DecodeErrorKind::FrameSize { size, given } => {
                write!(
                    f,
                    "frame size prefix {size} does not match the {given} byte(s) that follow it"
                )
            }
            DecodeErrorKind::TooManyElements { count } => {
                write!(f, "array of {count} elements exceeds 1000000")
            }
            DecodeErrorKind::TooManyTaggedFields { count } => {
                write!(f, "{count} tagged fields exceed 10000")
            }
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind, self.pos)?;
        if !self.message.is_empty() {
            write!(f, " in {}", self.message)?;
            if self.version >= 0 {
                write!(f, " v{}", self.version)?;
            }
        }
        if !self.field.is_empty() {
            write!(f, " {}", self.field)?;
        }
        Ok(())
    }
}

impl core::error::Error for DecodeError {}

/// What went wrong while encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeErrorKind {
    /// The sink or buffer could not take the encoded bytes.
    BufferTooShort {
        /// Bytes the encoding needs in all.
        needed: usize,
    },
    /// A field holds a non-default value, but the target version does not have the field and
    /// the schema does not mark it ignorable.
    FieldNotInVersion,
    /// A field is null at a version where it is not nullable.
    NullNotAllowed,
    /// The version is outside the message's valid versions.
    UnsupportedVersion {
        /// The version asked for.
        version: i16,
    },
    /// A string, bytes or array too long for its length prefix (strings: 32767 bytes).
    TooLong {
        /// The length.
        length: usize,
    },
    /// Unknown tagged fields are set, but the target version is not flexible.
    TaggedFieldsNotInVersion,
    /// A value of [`crate::dynamic`] that does not fit its field: another type, an integer out of
    /// the field's range, or a struct with another number of fields than its schema.
    WrongType,
}

/// An encoding failure: its kind and the message, version and field it happened in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EncodeError {
    kind: EncodeErrorKind,
    message: &'static str,
    version: i16,
    field: &'static str,
}

impl EncodeError {
    #[cold]
    #[inline(never)]
    #[doc(hidden)]
    pub fn new(kind: EncodeErrorKind, field: &'static str) -> Self {
        EncodeError {
            kind,
            message: "",
            version: -1,
            field,
        }
    }

    #[cold]
    #[inline(never)]
    #[doc(hidden)]
    pub fn finish(mut self, message: &'static str, version: i16) -> Self {
        if self.message.is_empty() {
            self.message = message;
            self.version = version;
        }
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> EncodeErrorKind {
        self.kind
    }
    /// The message being encoded.
    pub fn message(&self) -> &'static str {
        self.message
    }
    /// The target version.
    pub fn version(&self) -> i16 {
        self.version
    }
    /// The field path, empty for errors about the whole message.
    pub fn field(&self) -> &'static str {
        self.field
    }

    /// The same error with its field path replaced by its pair in `paths`, as
    /// [`DecodeError::renamed`] does.
    #[cold]
    #[inline(never)]
    #[doc(hidden)]
    pub fn renamed(mut self, paths: &[(&'static str, &'static str)]) -> Self {
        self.field = rename(self.field, paths);
        self
    }
}

impl fmt::Display for EncodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EncodeErrorKind::BufferTooShort { needed } => {
                write!(f, "buffer too short, {needed} byte(s) needed")
            }
            EncodeErrorKind::FieldNotInVersion => {
                f.write_str("non-default value in a field the target version does not have")
            }
            EncodeErrorKind::NullNotAllowed => f.write_str("null in a field that is not nullable at this version"),
            EncodeErrorKind::UnsupportedVersion { version } => {
                write!(f, "unsupported version {version}")
            }
            EncodeErrorKind::TooLong { length } => write!(f, "length {length} too long for the field"),
            EncodeErrorKind::TaggedFieldsNotInVersion => {
                f.write_str("unknown tagged fields set, but the target version is not flexible")
            }
            EncodeErrorKind::WrongType => f.write_str("a value that does not fit the field's type"),
        }
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        if !self.message.is_empty() {
            write!(f, " in {}", self.message)?;
            if self.version >= 0 {
                write!(f, " v{}", self.version)?;
            }
        }
        if !self.field.is_empty() {
            write!(f, " {}", self.field)?;
        }
        Ok(())
    }
}

impl core::error::Error for EncodeError {}

/// A number that names no key of a key enum (`ApiKey::try_from(99)`, say).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownKey(pub i16);

impl fmt::Display for UnknownKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown key {}", self.0)
    }
}

impl core::error::Error for UnknownKey {}

impl<'a> ::nom::error::ParseError<&'a [u8]> for DecodeError {
    fn from_error_kind(input: &'a [u8], _kind: ::nom::error::ErrorKind) -> Self {
        DecodeError::at(DecodeErrorKind::UnexpectedEof { needed: 1 }, input.len(), "")
    }
    fn append(_input: &'a [u8], _kind: ::nom::error::ErrorKind, other: Self) -> Self {
        other
    }
}

#[cfg(test)]
mod tests {
    //! What a decoding error carries: its kind, the offset from the start of the input, and the
    //! field path it was read under. The inputs are vectors that Kafka's own readers reject
    //! (`crate::vectors`); each expected offset is read off the input's layout.

    use super::{DecodeError, DecodeErrorKind as K};
    use crate::compound::read::{opt_array, unknown_tags_only};
    use crate::read::{self, Cursor, Src};
    use crate::reflect::NUMBERS;
    use crate::vectors::{hex, of, Outcome};
    use std::string::ToString;

    /// The error of reading Kafka's rejected vector `kind`/`h` with `read`, finished as an entry
    /// point finishes it.
    fn fails(kind: &str, h: &str, read: impl Fn(&mut Cursor<'_>) -> Result<(), super::Fail>) -> DecodeError {
        let v = of(kind).into_iter().find(|v| v.bytes == hex(h)).expect("a vector");
        assert!(matches!(v.outcome, Outcome::Error(_)), "Kafka reads {kind} {h}");
        let mut c = Cursor::new(&v.bytes);
        let e = read(&mut c).expect_err("an error");
        c.error(e).finish(v.bytes.len(), "ResponseHeader", 1)
    }

    #[test]
    fn kinds_and_offsets() {
        let at = |e: DecodeError| (e.kind(), e.offset(), e.field());
        // Fixed width, one byte short: at the field.
        let e = fails("int32", "000000", |c| read::i32(c, "a.b").map(drop));
        assert_eq!(at(e), (K::UnexpectedEof { needed: 1 }, 0, "a.b"));
        // A negative string length: at the length.
        let e = fails("string", "ffff", |c| read::str(c, false, "s").map(drop));
        assert_eq!(at(e), (K::NullNotAllowed, 0, "s"));
        // A string of 5 bytes with 4 there: where its bytes begin, one short.
        let e = fails("string", "000561626364", |c| read::str(c, false, "s").map(drop));
        assert_eq!(at(e), (K::UnexpectedEof { needed: 1 }, 2, "s"));
        // Bytes of 5 with 3 there, and 32768 bytes of string: at the length.
        let e = fails("bytes", "00000005010203", |c| read::bytes(c, false, "b").map(drop));
        assert_eq!(at(e), (K::LengthExceedsInput { length: 5 }, 0, "b"));
        let e = fails("compact_string", "818002", |c| read::str(c, true, "s").map(drop));
        assert_eq!(at(e), (K::StringTooLong { length: 32768 }, 0, "s"));
        // A continuation bit in the fifth byte: at the varint.
        let e = fails("uvarint", "8080808080", |c| read::uvarint(c, "n").map(drop));
        assert_eq!(at(e), (K::InvalidVarint, 0, "n"));
        // A count of 2^31 - 2 with nothing after it: at the count.
        let e = fails("compact_array_int32", "ffffffff07", |c| {
            opt_array::<i32>(c, true, false, 0, "xs").map(drop)
        });
        assert_eq!(at(e), (K::LengthExceedsInput { length: 2_147_483_646 }, 0, "xs"));
        // Two strings, "a" and one of 2 bytes with none there: where the second one's bytes begin.
        let e = fails("array_string", "000000020001610002", |c| {
            opt_array::<&str>(c, false, false, 0, "xs").map(drop)
        });
        assert_eq!(at(e), (K::UnexpectedEof { needed: 2 }, 9, "xs"));
        // One string, null: at its length, after the count.
        let e = fails("array_string", "00000001ffff", |c| {
            opt_array::<&str>(c, false, false, 0, "xs").map(drop)
        });
        assert_eq!(at(e), (K::NullNotAllowed, 4, "xs"));
        // A tagged field of 5 bytes with 1 there: where its bytes begin, after count, tag and size.
        let e = fails("tags", "010005aa", |c| unknown_tags_only(c, "_tagged_fields").map(drop));
        assert_eq!(at(e), (K::LengthExceedsInput { length: 5 }, 3, "_tagged_fields"));
        assert_eq!((e.message(), e.version()), ("ResponseHeader", 1));
    }

    /// Read from a plain slice, the readers return the same error as from a cursor.
    #[test]
    fn slice_and_cursor_agree() {
        fn read_kind<'a, C: Src<'a>>(kind: &str, c: &mut C) -> Result<(), C::Err> {
            macro_rules! numbers {
                ($($s:ident $k:ident $t:ident $at:ident $w:literal $d:literal,)*) => {$(
                    if kind == stringify!($s) {
                        return read::$t(c, "v").map(drop);
                    }
                )*};
            }
            crate::prim::numbers!(numbers);
            match kind {
                "uuid" => read::uuid(c, "v").map(drop),
                "uvarint" => read::uvarint(c, "v").map(drop),
                "varint" => read::varint(c, "v").map(drop),
                "varlong" => read::varlong(c, "v").map(drop),
                "string" => read::str(c, false, "v").map(drop),
                "compact_string" => read::str(c, true, "v").map(drop),
                "bytes" => read::bytes(c, false, "v").map(drop),
                "compact_bytes" => read::bytes(c, true, "v").map(drop),
                _ => unreachable!(),
            }
        }
        let mut checked = 0;
        let numbers = NUMBERS.iter().map(|n| n.schema);
        for kind in numbers.chain([
            "uuid",
            "uvarint",
            "varint",
            "varlong",
            "string",
            "compact_string",
            "bytes",
            "compact_bytes",
        ]) {
            for v in of(kind).into_iter().filter(|v| matches!(v.outcome, Outcome::Error(_))) {
                let mut s: &[u8] = &v.bytes;
                let from_slice = read_kind(kind, &mut s).expect_err("an error");
                let mut c = Cursor::new(&v.bytes);
                let e = read_kind(kind, &mut c).expect_err("an error");
                assert_eq!(from_slice, c.error(e), "line {}", v.line);
                checked += 1;
            }
        }
        assert!(checked > 20, "{checked}");
    }

    /// `finish` turns bytes remaining into an offset and names the message once; `shifted`
    /// moves the offset into a frame; `renamed` swaps the path; `Display` reads as documented
    /// on [`DecodeError`].
    #[test]
    fn context() {
        let e = DecodeError::at(K::InvalidUtf8, 13, "responses[].partitions[].records").finish(50, "FetchResponse", 12);
        assert_eq!((e.offset(), e.message(), e.version()), (37, "FetchResponse", 12));
        assert_eq!(
            e.to_string(),
            "invalid UTF-8 in a string at byte 37 in FetchResponse v12 responses[].partitions[].records"
        );
        assert_eq!(e.finish(50, "Other", 3).message(), "FetchResponse");
        assert_eq!(e.shifted(4).offset(), 41);
        let r = e.renamed(&[("x", "y"), ("responses[].partitions[].records", "topics[].records")]);
        assert_eq!(r.field(), "topics[].records");
        assert_eq!(r.renamed(&[("x", "y")]).field(), "topics[].records");
    }
}
