//! The message trait every generated top-level struct implements, and the entry points built
//! on it: strict and lenient parsing, exact sizing, encoding into a sink, transcoding.

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind, Fail};
use crate::read::Cursor;
pub use crate::structs::Struct;
use crate::visit::Visitor;
use crate::write::{Sink, Writer};

/// What kind of schema a message comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MessageKind {
    /// A request body.
    Request,
    /// A response body.
    Response,
    /// A request or response header (or one of Kafka's generator test schemas).
    Header,
    /// A KRaft metadata record (or a remote-log metadata record).
    Metadata,
    /// The key of a coordinator record.
    CoordinatorKey,
    /// The value of a coordinator record.
    CoordinatorValue,
    /// Any other data schema (raft control records, storage, streams, …).
    Data,
}

/// The facts about a message that the schema gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MessageInfo {
    /// The schema name, e.g. `"AlterPartitionRequest"`.
    pub name: &'static str,
    /// The kind of schema.
    pub kind: MessageKind,
    /// API key, metadata record type or coordinator record type, where the schema has one.
    pub api_key: Option<i16>,
    /// Lowest valid version.
    pub min_version: i16,
    /// Highest valid version.
    pub max_version: i16,
    /// First flexible version, if any.
    pub flexible_min: Option<i16>,
    /// True when Kafka marks the highest version as not yet stable.
    pub latest_version_unstable: bool,
    /// True for drafts whose API key is provisional.
    pub provisional: bool,
}

impl MessageInfo {
    /// True when `version` is one of the message's valid versions.
    pub const fn is_valid(&self, version: i16) -> bool {
        version >= self.min_version && version <= self.max_version
    }
    /// True when `version` uses the flexible (compact, tagged) encoding.
    pub const fn is_flexible(&self, version: i16) -> bool {
        match self.flexible_min {
            Some(f) => version >= f,
            None => false,
        }
    }
}

/// A whole message: parse it from bytes, size it, encode it.
///
/// Parsing validates every byte of the message once; afterwards every accessor and iterator of
/// the returned view is infallible and cannot panic.
pub trait Message<'a>: Struct<'a> {
    /// The schema's facts.
    const INFO: MessageInfo;
    /// The field-level schema, for generic walkers (JSON, fuzzers).
    const SCHEMA: &'static crate::reflect::StructDesc;

    /// Parses `bytes` as this message at `version`. Strict: bytes left over are an error.
    fn parse(bytes: &'a [u8], version: i16) -> Result<Self, DecodeError> {
        crate::profile::parse(bytes, version)
    }

    /// Parses the message at the start of `bytes` and returns it with the bytes left over.
    fn parse_lenient(bytes: &'a [u8], version: i16) -> Result<(Self, &'a [u8]), DecodeError> {
        crate::profile::parse_lenient(bytes, version)
    }

    /// Reads `bytes` as this message at `version` in one pass, handing every field to `vis` in
    /// wire order (see [`crate::visit`]). The checks and errors are [`Message::parse`]'s,
    /// trailing bytes included; the fields before an error have been visited by then.
    fn visit<V: Visitor<'a> + ?Sized>(bytes: &'a [u8], version: i16, vis: &mut V) -> Result<(), DecodeError> {
        if !Self::INFO.is_valid(version) {
            return Err(DecodeError::new_at(
                DecodeErrorKind::UnsupportedVersion {
                    version: i32::from(version),
                },
                0,
                Self::INFO.name,
                version,
                "",
            ));
        }
        let mut c = Cursor::new(bytes);
        if let Err(e) = Self::visit_fields(&mut c, version, vis) {
            return Err(c.error(e).finish(bytes.len(), Self::INFO.name, version));
        }
        let rest = c.rest();
        if !rest.is_empty() {
            return Err(DecodeError::new_at(
                DecodeErrorKind::TrailingBytes { count: rest.len() },
                bytes.len() - rest.len(),
                Self::INFO.name,
                version,
                "",
            ));
        }
        Ok(())
    }

    /// The exact number of bytes [`Message::encode`] writes at `version`, after checking that
    /// the value can be encoded there.
    fn encoded_len(&self, version: i16) -> Result<usize, EncodeError> {
        crate::profile::encoded_len(self, version)
    }

    /// Encodes at `version` into `sink`; returns the number of bytes written. The size is
    /// computed first, so a sink without room is an error before any byte is written.
    fn encode<S: Sink + ?Sized>(&self, sink: &mut S, version: i16) -> Result<usize, EncodeError> {
        crate::profile::encode(self, sink, version)
    }

    /// Encodes at `version` into the front of `buf`, in one pass; returns the number of bytes
    /// written. The checks and errors are [`Message::encode`]'s; when `buf` is too short the
    /// error gives the size needed, and what was written into `buf` is unspecified.
    fn encode_to_slice(&self, buf: &mut [u8], version: i16) -> Result<usize, EncodeError> {
        crate::profile::encode_to_slice(self, buf, version)
    }

    /// Encodes at `version` into a new `Vec` of exactly the encoded size (feature `alloc`).
    #[cfg(feature = "alloc")]
    fn to_vec(&self, version: i16) -> Result<alloc::vec::Vec<u8>, EncodeError> {
        let mut v = alloc::vec![0; self.encoded_len(version)?];
        self.encode_to_slice(&mut v, version)?;
        Ok(v)
    }
}

// The bodies of `encoded_len`, `encode` and `encode_to_slice`, for views ([`Message`]) and
// owned values (`OwnedMessage`) alike, given the message's facts, its size pass and its writer.

/// The error for a version the message does not have.
#[cold]
#[inline(never)]
pub(crate) fn unsupported(info: &MessageInfo, version: i16) -> EncodeError {
    EncodeError::new(EncodeErrorKind::UnsupportedVersion { version }, "").finish(info.name, version)
}

/// The exact encoded size, after checking the version.
#[inline(always)]
pub fn checked_len(
    info: &MessageInfo,
    version: i16,
    size: impl Fn() -> Result<usize, EncodeError>,
) -> Result<usize, EncodeError> {
    if !info.is_valid(version) {
        return Err(unsupported(info, version));
    }
    finished(size(), info, version)
}

/// `r`, its error given the message's name and version. Not generic: every message's entry
/// points share it.
#[inline]
pub(crate) fn finished(r: Result<usize, EncodeError>, info: &MessageInfo, version: i16) -> Result<usize, EncodeError> {
    match r {
        Ok(n) => Ok(n),
        Err(e) => Err(e.finish(info.name, version)),
    }
}

/// The error of a sink without room for `needed` bytes.
#[cold]
#[inline(never)]
pub(crate) fn short_sink(info: &MessageInfo, version: i16, needed: usize) -> EncodeError {
    EncodeError::new(EncodeErrorKind::BufferTooShort { needed }, "").finish(info.name, version)
}

/// Sizes first, asks `sink` for exactly that many bytes, then writes into them.
#[inline(always)]
pub fn encode_sized<S: Sink + ?Sized>(
    info: &MessageInfo,
    version: i16,
    sink: &mut S,
    size: impl Fn() -> Result<usize, EncodeError>,
    write: impl Fn(&mut Writer<'_>),
) -> Result<usize, EncodeError> {
    let n = checked_len(info, version, size)?;
    let Some(buf) = sink.reserve(n) else {
        return Err(short_sink(info, version, n));
    };
    let mut w = Writer::new(buf);
    write(&mut w);
    finished(w.finish(), info, version)
}

/// Writes into `buf` in one pass; the size pass runs only to report a short buffer.
#[inline(always)]
pub fn encode_one_pass(
    info: &MessageInfo,
    version: i16,
    buf: &mut [u8],
    size: impl Fn() -> Result<usize, EncodeError>,
    write: impl Fn(&mut Writer<'_>),
) -> Result<usize, EncodeError> {
    if !info.is_valid(version) {
        return Err(unsupported(info, version));
    }
    let mut w = Writer::new(buf);
    write(&mut w);
    match w.finish() {
        Ok(n) => Ok(n),
        Err(e) => Err(encode_failed(e, size, info.name, version)),
    }
}

/// The error of a one-pass encode: a short buffer is reported with the size needed (or with
/// the size pass's own error).
#[cold]
#[inline(never)]
fn encode_failed(
    e: EncodeError,
    size: impl Fn() -> Result<usize, EncodeError>,
    name: &'static str,
    version: i16,
) -> EncodeError {
    let e = match e.kind() {
        EncodeErrorKind::BufferTooShort { .. } => match size() {
            Ok(needed) => EncodeError::new(EncodeErrorKind::BufferTooShort { needed }, ""),
            Err(e) => e,
        },
        _ => e,
    };
    e.finish(name, version)
}

/// A decode or an encode failure, for operations that do both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodecError {
    /// Decoding failed.
    Decode(DecodeError),
    /// Encoding failed.
    Encode(EncodeError),
}

impl core::fmt::Display for CodecError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            CodecError::Decode(e) => e.fmt(f),
            CodecError::Encode(e) => e.fmt(f),
        }
    }
}

impl core::error::Error for CodecError {}

impl From<DecodeError> for CodecError {
    fn from(e: DecodeError) -> Self {
        CodecError::Decode(e)
    }
}

impl From<EncodeError> for CodecError {
    fn from(e: EncodeError) -> Self {
        CodecError::Encode(e)
    }
}

/// Parses `input` strictly as `M` at `from` and encodes it at `to` into `out`; returns the
/// number of bytes written. With `from == to` this is a round trip.
pub fn transcode<'a, M: Message<'a>>(input: &'a [u8], from: i16, out: &mut [u8], to: i16) -> Result<usize, CodecError> {
    let m = M::parse(input, from)?;
    Ok(m.encode_to_slice(out, to)?)
}

/// How a parse treats bytes after what it reads: messages, the dispatch enums, frames and
/// record batches all take this one setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// Bytes after the message (or a partial last record batch) are an error.
    #[default]
    Strict,
    /// Bytes after the message are handed back (a frame's `trailing`); a partial last record
    /// batch is reported as truncated, as a Fetch response may end.
    Lenient,
}

/// Reads the message `info` at `version` from the start of `bytes` with `read`: the version
/// check, then the read, its errors given their offset and the message's name. Returns the
/// value and the bytes after it.
pub fn read_message<'a, T>(
    info: &MessageInfo,
    bytes: &'a [u8],
    version: i16,
    read: impl Fn(&mut Cursor<'a>) -> Result<T, Fail>,
) -> Result<(T, &'a [u8]), DecodeError> {
    if !info.is_valid(version) {
        return Err(DecodeError::new_at(
            DecodeErrorKind::UnsupportedVersion {
                version: i32::from(version),
            },
            0,
            info.name,
            version,
            "",
        ));
    }
    let mut c = Cursor::new(bytes);
    match read(&mut c) {
        Ok(m) => Ok((m, c.rest())),
        Err(e) => Err(c.error(e).finish(bytes.len(), info.name, version)),
    }
}

/// The value that `read_message` read from `bytes`, unless bytes are left after it (strict).
pub fn whole<T>(info: &MessageInfo, bytes: &[u8], version: i16, (m, rest): (T, &[u8])) -> Result<T, DecodeError> {
    if !rest.is_empty() {
        return Err(DecodeError::new_at(
            DecodeErrorKind::TrailingBytes { count: rest.len() },
            bytes.len() - rest.len(),
            info.name,
            version,
            "",
        ));
    }
    Ok(m)
}

/// Parses in `mode`: strictly (trailing bytes are an error, and the rest returned is empty) or
/// leniently (the bytes after the message are returned). Used by the generated dispatch.
pub fn parse_mode<'a, M: Message<'a>>(bytes: &'a [u8], version: i16, mode: Mode) -> Result<(M, &'a [u8]), DecodeError> {
    match mode {
        Mode::Lenient => M::parse_lenient(bytes, version),
        Mode::Strict => match M::parse(bytes, version) {
            Ok(m) => Ok((m, bytes.get(bytes.len()..).unwrap_or_default())),
            Err(e) => Err(e),
        },
    }
}

/// The error for a message that is known but not compiled in this build (dispatch by key).
#[cold]
#[allow(dead_code)] // unused in a build that compiles every message
pub fn not_enabled(feature: &'static str, message: &'static str, version: i16) -> DecodeError {
    DecodeError::new_at(DecodeErrorKind::NotEnabled { feature }, 0, message, version, "")
}

/// A value that cannot exist: the hidden variant of the dispatch enums, which keeps their
/// lifetime in use in a build that enables none of their messages.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Uninhabited<'a>(core::convert::Infallible, core::marker::PhantomData<&'a ()>);

impl Uninhabited<'_> {
    /// Never returns: there is no value to call it on.
    pub fn never(&self) -> ! {
        match self.0 {}
    }
}

/// Calls `f` as a function of its own, never inlined.
///
/// The generated code and the entry points that reach every message are `#[inline]`: Rust then
/// compiles them in the crate that calls them, so a program builds and links only the messages
/// it uses, and the codec's own build compiles none of them. Where a function is better called
/// than copied into its callers (a message's top-level struct, a dispatch over every message),
/// its `#[inline]` wrapper passes the body to `outline`: being generic, `outline` is also
/// compiled where it is used, and being `#[inline(never)]`, it keeps the body in one place.
#[inline(never)]
pub fn outline<R>(f: impl FnOnce() -> R) -> R {
    f()
}

crate::profile::shared! {
    /// [`outline`] with feature `small-code`, and inlined without it: for the readers of structs
    /// low in a message's tree, which are inlined into the loops that call them for speed, but with
    /// `small-code` are linked once for the parse, the check, the skip and the iteration to call.
    pub fn outline_small<R>(f: impl FnOnce() -> R) -> R {
        f()
    }
}
