//! `defmt::Format` for the error types, written by hand (feature `defmt`); the key enums
//! (`ApiKey`, …) get theirs from the generator, printing their names.
//!
//! The output reads like the `Display` impls, e.g.
//! `length 2147483648 exceeds the remaining input at byte 25 in AlterPartitionRequest v3 topics`,
//! but formatting happens on the host: the target sends the string literals as interned indices
//! and only the numbers and the (`&'static str`) message names and field paths as bytes.
//! The generated message views implement `Format` too (the generator writes one impl per struct):
//! their text is that of the derived `Debug` (`Name { field: value, .. }`, strings quoted,
//! UUIDs hyphenated, arrays and bytes as lists), except that strings are not escaped and floats
//! print as `Display` does. The helpers below are what those impls call.

use defmt::{write, Format, Formatter};

use crate::types::{Array, Elem, RawTaggedField, TaggedFields};

use crate::codec::CodecError;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};

impl Format for DecodeErrorKind {
    fn format(&self, f: Formatter<'_>) {
        match *self {
            DecodeErrorKind::UnexpectedEof { needed } => {
                write!(f, "input ended, {=usize} more byte(s) needed", needed)
            }
            DecodeErrorKind::NullNotAllowed => write!(f, "null (negative length) in a non-nullable field"),
            DecodeErrorKind::LengthExceedsInput { length } => {
                write!(f, "length {=i64} exceeds the remaining input", length)
            }
            DecodeErrorKind::StringTooLong { length } => write!(f, "string length {=i64} exceeds 32767", length),
            DecodeErrorKind::InvalidUtf8 => write!(f, "invalid UTF-8 in a string"),
            DecodeErrorKind::InvalidVarint => write!(f, "invalid varint"),
            DecodeErrorKind::TagNotInVersion { tag } => {
                write!(f, "tagged field {=u32} is not defined at this version", tag)
            }
            DecodeErrorKind::TaggedFieldSize { tag, size } => {
                write!(
                    f,
                    "tagged field {=u32} did not take its declared {=u32} byte(s)",
                    tag, size
                )
            }
            DecodeErrorKind::TrailingBytes { count } => write!(f, "{=usize} trailing byte(s) after the message", count),
            DecodeErrorKind::UnknownApiKey { key } => write!(f, "unknown API key or record type {=i32}", key),
            DecodeErrorKind::NotEnabled { feature } => write!(f, "message not compiled in (feature {=str})", feature),
            DecodeErrorKind::UnsupportedVersion { version } => write!(f, "unsupported version {=i32}", version),
            DecodeErrorKind::InvalidFrame { value } => write!(f, "invalid framing value {=i64}", value),
            DecodeErrorKind::FrameSize { size, given } => write!(
                f,
                "frame size prefix {=i32} does not match the {=usize} byte(s) that follow it",
                size, given
            ),
            DecodeErrorKind::TooManyElements { count } => write!(f, "array of {=i64} elements exceeds 1000000", count),
            DecodeErrorKind::TooManyTaggedFields { count } => write!(f, "{=u32} tagged fields exceed 10000", count),
        }
    }
}

/// The "in Message vN field" tail shared by both error types.
fn context(f: Formatter<'_>, message: &str, version: i16, field: &str) {
    if !message.is_empty() {
        write!(f, " in {=str}", message);
        if version >= 0 {
            write!(f, " v{=i16}", version);
        }
    }
    if !field.is_empty() {
        write!(f, " {=str}", field);
    }
}

impl Format for DecodeError {
    fn format(&self, f: Formatter<'_>) {
        write!(f, "{} at byte {=usize}", self.kind(), self.offset());
        context(f, self.message(), self.version(), self.field());
    }
}

impl Format for EncodeErrorKind {
    fn format(&self, f: Formatter<'_>) {
        match *self {
            EncodeErrorKind::BufferTooShort { needed } => {
                write!(f, "buffer too short, {=usize} byte(s) needed", needed)
            }
            EncodeErrorKind::FieldNotInVersion => {
                write!(f, "non-default value in a field the target version does not have")
            }
            EncodeErrorKind::NullNotAllowed => write!(f, "null in a field that is not nullable at this version"),
            EncodeErrorKind::UnsupportedVersion { version } => write!(f, "unsupported version {=i16}", version),
            EncodeErrorKind::TooLong { length } => write!(f, "length {=usize} too long for the field", length),
            EncodeErrorKind::TaggedFieldsNotInVersion => {
                write!(f, "unknown tagged fields set, but the target version is not flexible")
            }
            EncodeErrorKind::WrongType => write!(f, "a value that does not fit the field's type"),
        }
    }
}

impl Format for EncodeError {
    fn format(&self, f: Formatter<'_>) {
        write!(f, "{}", self.kind());
        context(f, self.message(), self.version(), self.field());
    }
}

impl Format for CodecError {
    fn format(&self, f: Formatter<'_>) {
        match self {
            CodecError::Decode(e) => e.format(f),
            CodecError::Encode(e) => e.format(f),
        }
    }
}

/// An element of an [`Array`] that `defmt` can print: the wire primitives, strings, UUIDs and
/// every generated struct.
pub trait FormatElem {
    /// Writes the element as the derived `Debug` would.
    fn format_elem(&self, f: Formatter<'_>);
}

macro_rules! format_elem {
    ($($t:ty => $spec:literal),* $(,)?) => {$(
        impl FormatElem for $t {
            fn format_elem(&self, f: Formatter<'_>) {
                write!(f, $spec, *self)
            }
        }
    )*};
}
format_elem!(bool => "{=bool}");
macro_rules! format_numbers {
    ($($s:ident $k:ident $t:ident $at:ident $w:literal $d:literal,)*) => {
        format_elem!($($t => $d),*);
    };
}
crate::prim::numbers!(format_numbers);

impl FormatElem for &str {
    fn format_elem(&self, f: Formatter<'_>) {
        write!(f, "\"{=str}\"", *self)
    }
}

impl FormatElem for uuid::Uuid {
    fn format_elem(&self, f: Formatter<'_>) {
        UuidFmt(*self).format(f)
    }
}

impl<'a, T: crate::codec::Struct<'a> + Format> FormatElem for T {
    fn format_elem(&self, f: Formatter<'_>) {
        self.format(f)
    }
}

impl<'a, T: Elem<'a> + FormatElem> Format for Array<'a, T> {
    fn format(&self, f: Formatter<'_>) {
        write!(f, "[");
        for (i, e) in self.iter().enumerate() {
            if i > 0 {
                write!(f, ", ");
            }
            e.format_elem(f);
        }
        write!(f, "]");
    }
}

impl Format for RawTaggedField<'_> {
    fn format(&self, f: Formatter<'_>) {
        write!(
            f,
            "RawTaggedField {{ tag: {=u32}, data: {=[u8]} }}",
            self.tag, self.data
        )
    }
}

impl Format for TaggedFields<'_> {
    fn format(&self, f: Formatter<'_>) {
        write!(f, "[");
        for (i, t) in self.iter().enumerate() {
            if i > 0 {
                write!(f, ", ");
            }
            t.format(f);
        }
        write!(f, "]");
    }
}

/// A UUID in its hyphenated lower-case form, as `uuid`'s `Debug` prints it.
#[doc(hidden)]
pub struct UuidFmt(pub uuid::Uuid);

impl Format for UuidFmt {
    fn format(&self, f: Formatter<'_>) {
        let (a, b, c, d) = self.0.as_fields();
        let d16 = u16::from_be_bytes([d[0], d[1]]);
        let d48 = u64::from_be_bytes([0, 0, d[2], d[3], d[4], d[5], d[6], d[7]]);
        write!(
            f,
            "{=u32:08x}-{=u16:04x}-{=u16:04x}-{=u16:04x}-{=u64:012x}",
            a, b, c, d16, d48
        )
    }
}

/// A nullable string as the derived `Debug` prints it: `Some("..")` or `None`.
#[doc(hidden)]
pub struct OptStr<'a>(pub Option<&'a str>);

impl Format for OptStr<'_> {
    fn format(&self, f: Formatter<'_>) {
        match self.0 {
            Some(s) => write!(f, "Some(\"{=str}\")", s),
            None => write!(f, "None"),
        }
    }
}
