//! The trait every generated struct implements: read, check, skip, visit, size and write,
//! each covering every version. Users call the [`Message`](crate::Message) methods instead.

use crate::error::{EncodeError, Fail};
use crate::read::Cursor;
use crate::sealed::Sealed;
use crate::visit::Visitor;
use crate::write::Writer;

/// A generated struct: read, check, skip, visit, size and write, each covering every version.
///
/// Call the [`Message`](crate::Message) methods instead; these are the building blocks they use.
pub trait Struct<'a>: Copy + Sized + Sealed {
    /// Reads the struct at `version` from the cursor, validating every byte it covers.
    #[doc(hidden)]
    fn read(c: &mut Cursor<'a>, version: i16) -> Result<Self, Fail>;
    /// Validates the struct at `version` as [`Struct::read`] does, building nothing: what the
    /// parse runs over the elements of an array, which it does not keep.
    #[doc(hidden)]
    #[inline]
    fn check(c: &mut Cursor<'a>, version: i16) -> Result<(), Fail> {
        Self::read(c, version).map(|_| ())
    }
    /// Steps over the struct at `version` in bytes that a parse has already validated.
    #[doc(hidden)]
    #[inline]
    fn skip(c: &mut Cursor<'a>, version: i16) -> Option<()> {
        Self::read(c, version).ok().map(|_| ())
    }
    /// Reads the struct's fields at `version` and hands each to `vis` (see [`crate::visit`]).
    #[doc(hidden)]
    fn visit_fields<V: Visitor<'a> + ?Sized>(c: &mut Cursor<'a>, version: i16, vis: &mut V) -> Result<(), Fail>;
    /// Exact encoded size at `version`; also checks that the value can be encoded there.
    #[doc(hidden)]
    fn size(&self, version: i16) -> Result<usize, EncodeError>;
    /// Writes the struct at `version`, making the checks [`Struct::size`] makes; an error is
    /// kept in the writer.
    #[doc(hidden)]
    fn write(&self, w: &mut Writer<'_>, version: i16);
}

/// Where a struct that several fields share is read or written at a field other than the
/// first: its code reports the ids and paths of the first site, and the caller maps them to
/// this one's.
pub struct Alias {
    /// `(from, to, count)` id ranges, for [`crate::visit::Renumbered`].
    #[doc(hidden)]
    pub ids: &'static [(u16, u16, u16)],
    /// `(from, to)` field paths, for the errors' `renamed`.
    #[doc(hidden)]
    pub paths: &'static [(&'static str, &'static str)],
}
