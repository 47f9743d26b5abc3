//! [`OwnedStr`]: the type of every owned `string` field.
//!
//! A [`CompactString`] holds up to 24 bytes inline (12 on 32-bit targets), which covers most topic
//! names, hosts and ids, and allocates for longer strings. With the `bytes` feature a longer string
//! decoded by [`OwnedMessage::parse_bytes`](crate::OwnedMessage::parse_bytes) is instead a
//! [`bytestring::ByteString`] sliced from the input: a reference count bumped, no allocation, and
//! its UTF-8 validated once, while it is read. The API is the same either way (conversions to and
//! from `ByteString` are added by the feature), so enabling `bytes` anywhere in a build breaks no
//! code written without it.

use alloc::boxed::Box;
use alloc::string::String;
use core::borrow::Borrow;
use core::cmp::Ordering;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::ops::Deref;

use compact_str::CompactString;

use crate::error::{DecodeErrorKind, Fail};
use crate::read::{self, Cursor};

/// An owned string: inline up to 24 bytes, else on the heap, or with the `bytes` feature shared
/// with the buffer it was decoded from.
///
/// Reads as a `&str` (`Deref`); build it from a `&str`, a `String` or a [`CompactString`] with
/// `.into()`. Equality, order and hash are those of the text, whatever holds it.
///
/// ```
/// # #[cfg(feature = "alloc")] {
/// use kafka_wire::OwnedStr;
/// let s: OwnedStr = "orders".into();
/// assert_eq!(s, "orders");
/// assert_eq!(s.len(), 6);
/// # }
/// ```
#[derive(Clone)]
pub struct OwnedStr(Repr);

#[derive(Clone)]
enum Repr {
    Inline(CompactString),
    #[cfg(feature = "bytes")]
    Shared(bytestring::ByteString),
}

impl OwnedStr {
    /// Empty, without allocating.
    #[inline]
    pub const fn new() -> Self {
        OwnedStr(Repr::Inline(CompactString::const_new("")))
    }

    /// A string that lives for the whole program, without allocating.
    #[inline]
    pub const fn from_static(s: &'static str) -> Self {
        OwnedStr(Repr::Inline(CompactString::const_new(s)))
    }

    /// The text.
    #[inline(always)]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline(s) => s.as_str(),
            #[cfg(feature = "bytes")]
            Repr::Shared(s) => s,
        }
    }

    /// True when the text shares a buffer it was decoded from (feature `bytes`) rather than
    /// being held inline or in an allocation of its own.
    #[inline]
    pub fn is_shared(&self) -> bool {
        match &self.0 {
            Repr::Inline(_) => false,
            #[cfg(feature = "bytes")]
            Repr::Shared(_) => true,
        }
    }

    /// A string read through `c`: with the `bytes` feature, one longer than fits inline and read
    /// from a shared buffer is a slice of that buffer.
    #[inline(always)]
    fn from_wire<'a>(c: &mut Cursor<'a>, start: &[u8], raw: &'a [u8], f: &'static str) -> Result<Self, Fail> {
        #[cfg(feature = "bytes")]
        if raw.len() > size_of::<CompactString>() {
            if let Some(b) = c.shared.and_then(|src| super::buf::slice_within(src, raw)) {
                return match bytestring::ByteString::try_from(b) {
                    Ok(s) => Ok(OwnedStr(Repr::Shared(s))),
                    Err(_) => Err(read::fail(c, start.len(), DecodeErrorKind::InvalidUtf8, f)),
                };
            }
        }
        read::utf8(c, start, raw, f).map(|s| OwnedStr(Repr::Inline(CompactString::from(s))))
    }
}

/// Reads an owned string that may be null at this version.
#[inline(always)]
pub fn read_opt_str(
    c: &mut Cursor<'_>,
    compact: bool,
    nullable: bool,
    f: &'static str,
) -> Result<Option<OwnedStr>, Fail> {
    match read::opt_str_raw(c, compact, nullable, f)? {
        Some((start, raw)) => OwnedStr::from_wire(c, start, raw, f).map(Some),
        None => Ok(None),
    }
}

/// Reads an owned string that is never null.
#[inline(always)]
pub fn read_str(c: &mut Cursor<'_>, compact: bool, f: &'static str) -> Result<OwnedStr, Fail> {
    match read_opt_str(c, compact, false, f)? {
        Some(s) => Ok(s),
        None => {
            let rem = c.rest.len();
            Err(read::fail(c, rem, DecodeErrorKind::NullNotAllowed, f))
        }
    }
}

impl Default for OwnedStr {
    #[inline]
    fn default() -> Self {
        Self::new()
    }
}

impl Deref for OwnedStr {
    type Target = str;
    #[inline(always)]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for OwnedStr {
    #[inline(always)]
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<[u8]> for OwnedStr {
    #[inline(always)]
    fn as_ref(&self) -> &[u8] {
        self.as_str().as_bytes()
    }
}

impl Borrow<str> for OwnedStr {
    #[inline(always)]
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Debug for OwnedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for OwnedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl PartialEq for OwnedStr {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for OwnedStr {}

impl PartialOrd for OwnedStr {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OwnedStr {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for OwnedStr {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl PartialEq<str> for OwnedStr {
    #[inline]
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for OwnedStr {
    #[inline]
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for OwnedStr {
    #[inline]
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<OwnedStr> for str {
    #[inline]
    fn eq(&self, other: &OwnedStr) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<OwnedStr> for &str {
    #[inline]
    fn eq(&self, other: &OwnedStr) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<OwnedStr> for String {
    #[inline]
    fn eq(&self, other: &OwnedStr) -> bool {
        self.as_str() == other.as_str()
    }
}

impl From<&str> for OwnedStr {
    #[inline]
    fn from(s: &str) -> Self {
        OwnedStr(Repr::Inline(CompactString::from(s)))
    }
}

impl From<&String> for OwnedStr {
    #[inline]
    fn from(s: &String) -> Self {
        Self::from(s.as_str())
    }
}

impl From<String> for OwnedStr {
    #[inline]
    fn from(s: String) -> Self {
        OwnedStr(Repr::Inline(CompactString::from(s)))
    }
}

impl From<Box<str>> for OwnedStr {
    #[inline]
    fn from(s: Box<str>) -> Self {
        OwnedStr(Repr::Inline(CompactString::from(s)))
    }
}

impl From<CompactString> for OwnedStr {
    #[inline]
    fn from(s: CompactString) -> Self {
        OwnedStr(Repr::Inline(s))
    }
}

impl From<OwnedStr> for String {
    #[inline]
    fn from(s: OwnedStr) -> Self {
        match s.0 {
            Repr::Inline(s) => s.into(),
            #[cfg(feature = "bytes")]
            Repr::Shared(s) => s.into(),
        }
    }
}

impl From<OwnedStr> for CompactString {
    #[inline]
    fn from(s: OwnedStr) -> Self {
        match s.0 {
            Repr::Inline(s) => s,
            #[cfg(feature = "bytes")]
            Repr::Shared(s) => CompactString::from(&*s),
        }
    }
}

#[cfg(feature = "bytes")]
impl From<bytestring::ByteString> for OwnedStr {
    #[inline]
    fn from(s: bytestring::ByteString) -> Self {
        OwnedStr(Repr::Shared(s))
    }
}

#[cfg(feature = "bytes")]
impl From<OwnedStr> for bytestring::ByteString {
    #[inline]
    fn from(s: OwnedStr) -> Self {
        match s.0 {
            Repr::Inline(s) => bytestring::ByteString::from(s.as_str()),
            Repr::Shared(s) => s,
        }
    }
}

impl core::str::FromStr for OwnedStr {
    type Err = core::convert::Infallible;
    #[inline]
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(s.into())
    }
}

impl FromIterator<char> for OwnedStr {
    fn from_iter<I: IntoIterator<Item = char>>(iter: I) -> Self {
        OwnedStr(Repr::Inline(iter.into_iter().collect()))
    }
}

impl<'a> FromIterator<&'a str> for OwnedStr {
    fn from_iter<I: IntoIterator<Item = &'a str>>(iter: I) -> Self {
        OwnedStr(Repr::Inline(iter.into_iter().collect()))
    }
}
