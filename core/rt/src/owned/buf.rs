//! [`OwnedBytes`]: the type of every owned `bytes` and `records` field.
//!
//! Without the `bytes` feature it holds a `Vec<u8>`. With it, a [`bytes::Bytes`]: decoding from
//! a `Bytes` ([`OwnedMessage::parse_bytes`](crate::OwnedMessage::parse_bytes)) slices the input
//! (a reference count bumped, nothing copied), so the record sets of a Fetch response or a
//! Produce request cost no copy. The API is the same either way, with conversions to and from
//! `Bytes` added by the feature, so that enabling `bytes` anywhere in a build breaks no code
//! written without it.

// One source for both layouts: a conversion that is the identity without the feature is not one
// with it.
#![allow(clippy::useless_conversion)]

use alloc::vec::Vec;
use core::fmt;
use core::ops::Deref;

use crate::read::Cursor;

#[cfg(feature = "bytes")]
type Inner = bytes::Bytes;
#[cfg(not(feature = "bytes"))]
type Inner = Vec<u8>;

/// Owned bytes: a `Vec<u8>`, or with the `bytes` feature a shared [`bytes::Bytes`].
///
/// Reads as a `&[u8]` (`Deref`); build it from a `Vec<u8>`, a slice, or with the `bytes`
/// feature a `Bytes`, all with `.into()`.
///
/// ```
/// # #[cfg(feature = "alloc")] {
/// use kafka_wire::OwnedBytes;
/// let b: OwnedBytes = vec![1, 2, 3].into();
/// assert_eq!(&b[..], &[1, 2, 3]);
/// assert_eq!(b, [1u8, 2, 3]);
/// # }
/// ```
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OwnedBytes(Inner);

impl OwnedBytes {
    /// Empty, without allocating.
    #[inline]
    pub const fn new() -> Self {
        OwnedBytes(Inner::new())
    }

    /// Bytes that live for the whole program: shared without a copy with the `bytes` feature,
    /// copied without it.
    #[inline]
    pub fn from_static(b: &'static [u8]) -> Self {
        #[cfg(feature = "bytes")]
        return OwnedBytes(bytes::Bytes::from_static(b));
        #[cfg(not(feature = "bytes"))]
        return OwnedBytes(b.to_vec());
    }

    /// A copy of `b`.
    #[inline]
    pub fn copy_from_slice(b: &[u8]) -> Self {
        #[cfg(feature = "bytes")]
        return OwnedBytes(bytes::Bytes::copy_from_slice(b));
        #[cfg(not(feature = "bytes"))]
        return OwnedBytes(b.to_vec());
    }

    /// The bytes.
    #[inline(always)]
    pub fn as_slice(&self) -> &[u8] {
        &self.0
    }

    /// The bytes as a `Vec`: no copy without the `bytes` feature; with it, none either when
    /// nothing else shares them and they were made from a `Vec`.
    #[inline]
    pub fn into_vec(self) -> Vec<u8> {
        self.0.into()
    }

    /// The shared buffer (feature `bytes`).
    #[cfg(feature = "bytes")]
    #[inline(always)]
    pub fn as_bytes(&self) -> &bytes::Bytes {
        &self.0
    }

    /// The shared buffer, by value (feature `bytes`).
    #[cfg(feature = "bytes")]
    #[inline(always)]
    pub fn into_bytes(self) -> bytes::Bytes {
        self.0
    }

    /// `part` as owned bytes: with the `bytes` feature, a slice of `self` (no copy) when `part`
    /// lies within `self`; otherwise, and without the feature, a copy.
    #[inline]
    pub fn share_slice(&self, part: &[u8]) -> OwnedBytes {
        #[cfg(feature = "bytes")]
        if let Some(b) = slice_within(&self.0, part) {
            return OwnedBytes(b);
        }
        Self::copy_from_slice(part)
    }

    /// `part`, bytes read through `c`, as owned bytes: with the `bytes` feature a slice of the
    /// buffer `c` reads from when it has one and `part` lies within it, else a copy.
    #[inline]
    #[doc(hidden)]
    pub fn from_wire(#[allow(unused_variables)] c: &Cursor<'_>, part: &[u8]) -> Self {
        #[cfg(feature = "bytes")]
        if let Some(b) = c.shared.and_then(|src| slice_within(src, part)) {
            return OwnedBytes(b);
        }
        Self::copy_from_slice(part)
    }
}

/// `part` as a slice of `src`, or `None` when it does not lie within `src` (it was read from
/// other bytes). Address arithmetic, so that `Bytes::slice_ref`'s panic cannot be reached.
#[cfg(feature = "bytes")]
#[inline]
pub(super) fn slice_within(src: &bytes::Bytes, part: &[u8]) -> Option<bytes::Bytes> {
    let start = (part.as_ptr() as usize).checked_sub(src.as_ptr() as usize)?;
    let end = start.checked_add(part.len())?;
    if end > src.len() {
        return None;
    }
    Some(src.slice(start..end))
}

impl Deref for OwnedBytes {
    type Target = [u8];
    #[inline(always)]
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl AsRef<[u8]> for OwnedBytes {
    #[inline(always)]
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl core::borrow::Borrow<[u8]> for OwnedBytes {
    #[inline(always)]
    fn borrow(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Debug for OwnedBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

impl From<Vec<u8>> for OwnedBytes {
    #[inline]
    fn from(v: Vec<u8>) -> Self {
        OwnedBytes(v.into())
    }
}

impl From<&[u8]> for OwnedBytes {
    #[inline]
    fn from(b: &[u8]) -> Self {
        Self::copy_from_slice(b)
    }
}

impl<const N: usize> From<&[u8; N]> for OwnedBytes {
    #[inline]
    fn from(b: &[u8; N]) -> Self {
        Self::copy_from_slice(b)
    }
}

impl From<alloc::boxed::Box<[u8]>> for OwnedBytes {
    #[inline]
    fn from(b: alloc::boxed::Box<[u8]>) -> Self {
        OwnedBytes(Vec::from(b).into())
    }
}

impl From<OwnedBytes> for Vec<u8> {
    #[inline]
    fn from(b: OwnedBytes) -> Self {
        b.into_vec()
    }
}

#[cfg(feature = "bytes")]
impl From<bytes::Bytes> for OwnedBytes {
    #[inline(always)]
    fn from(b: bytes::Bytes) -> Self {
        OwnedBytes(b)
    }
}

#[cfg(feature = "bytes")]
impl From<OwnedBytes> for bytes::Bytes {
    #[inline(always)]
    fn from(b: OwnedBytes) -> Self {
        b.0
    }
}

impl FromIterator<u8> for OwnedBytes {
    fn from_iter<I: IntoIterator<Item = u8>>(iter: I) -> Self {
        iter.into_iter().collect::<Vec<u8>>().into()
    }
}

impl PartialEq<[u8]> for OwnedBytes {
    #[inline]
    fn eq(&self, other: &[u8]) -> bool {
        self.as_slice() == other
    }
}

impl PartialEq<&[u8]> for OwnedBytes {
    #[inline]
    fn eq(&self, other: &&[u8]) -> bool {
        self.as_slice() == *other
    }
}

impl<const N: usize> PartialEq<[u8; N]> for OwnedBytes {
    #[inline]
    fn eq(&self, other: &[u8; N]) -> bool {
        self.as_slice() == other
    }
}

impl PartialEq<Vec<u8>> for OwnedBytes {
    #[inline]
    fn eq(&self, other: &Vec<u8>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl PartialEq<OwnedBytes> for [u8] {
    #[inline]
    fn eq(&self, other: &OwnedBytes) -> bool {
        self == other.as_slice()
    }
}

impl PartialEq<OwnedBytes> for Vec<u8> {
    #[inline]
    fn eq(&self, other: &OwnedBytes) -> bool {
        self.as_slice() == other.as_slice()
    }
}
