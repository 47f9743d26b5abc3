//! Compound values: arrays, nullable and tagged structs, and tagged-field sections, read,
//! skipped, visited, sized and written from their elements' [`Elem`](crate::types::Elem) and
//! [`Struct`](crate::Struct) functions.
//! The generated code reaches these through `rt::read`, `rt::write` and `rt::visit`, beside the
//! wire primitives.
//!
//! The array, nullable-struct and tag-section readers are marked
//! `shared!` (`crate::profile`): inlined into every struct that calls them, or one function per
//! element type that every struct calls (feature `small-code`). The array readers themselves
//! are the build's own (`crate::profile`).

// A generated struct is an array element: the impl of `Elem` for every `Struct` is the
// build's own (`crate::profile`).

/// Arrays, structs and tag sections read from a cursor.
pub mod read {
    use crate::error::{DecodeErrorKind as K, Fail};
    use crate::read::*;
    use crate::structs::Struct;
    use crate::types::{Array, Elem, TaggedFields};

    /// The element count of an array that may be null at this version, checked against the bytes
    /// that remain (every element takes at least one byte); a null array returns `$null` from the
    /// calling function. A macro rather than a function: a function returning
    /// `Result<Option<usize>, _>` costs the parse measurably more, even inlined.
    macro_rules! element_count {
        ($c:expr, $compact:expr, $nullable:expr, $f:expr, $null:expr) => {{
            let at: &[u8] = $c.rest();
            match if $compact { small_compact_len($c) } else { None } {
                // One byte: a non-null count below 127.
                Some(n) if n <= $c.len() => n,
                Some(n) => {
                    #[allow(clippy::cast_possible_wrap, reason = "n < 127: a one-byte compact length")]
                    let length = n as i64;
                    return Err(fail($c, at.len(), K::LengthExceedsInput { length }, $f));
                }
                None => {
                    let len = len_prefix($c, $compact, false, $f)?;
                    if len < 0 {
                        null_len($c, len);
                        return if $nullable {
                            $null
                        } else {
                            Err(fail($c, at.len(), K::NullNotAllowed, $f))
                        };
                    }
                    #[allow(clippy::cast_possible_wrap, reason = "a slice's length is at most isize::MAX")]
                    let rem = $c.len() as i64;
                    if len > rem {
                        return Err(fail($c, at.len(), K::LengthExceedsInput { length: len }, $f));
                    }
                    if len > MAX_ELEMENTS {
                        return Err(too_many_elements($c, at.len(), len, $f));
                    }
                    #[allow(
                        clippy::cast_possible_truncation,
                        clippy::cast_sign_loss,
                        reason = "0 <= len <= MAX_ELEMENTS: both bounds are checked above"
                    )]
                    let n = len as usize;
                    n
                }
            }
        }};
    }
    pub(crate) use element_count;

    /// [`element_count!`] for the visitor: `None` is a null array.
    #[inline(always)]
    #[doc(hidden)]
    pub fn array_count(
        c: &mut Cursor<'_>,
        compact: bool,
        nullable: bool,
        f: &'static str,
    ) -> Result<Option<usize>, Fail> {
        Ok(Some(element_count!(c, compact, nullable, f, Ok(None))))
    }

    pub use crate::profile::{check_array, opt_array};

    /// An array that is never null.
    #[inline(always)]
    #[doc(hidden)]
    pub fn array<'a, T: Elem<'a>>(
        c: &mut Cursor<'a>,
        compact: bool,
        version: i16,
        f: &'static str,
    ) -> Result<Array<'a, T>, Fail> {
        match opt_array(c, compact, false, version, f)? {
            Some(a) => Ok(a),
            // Not nullable: the reader reports a null as an error and never returns `None`.
            None => crate::profile::null_array(c, f),
        }
    }

    crate::profile::shared! {
        /// A known tagged field holding an array that may be null at this version, into `out`: the
        /// array, the check that it took the `size` its header declared (`before`: the bytes that
        /// remained when it started), and the note of a field sent at its default (null where
        /// `null_default`, else empty). Shared, one body per element type: a record with several
        /// tagged `[]int32` fields links one.
        #[doc(hidden)]
        #[allow(clippy::too_many_arguments)]
        pub fn tagged_opt_array<'a, T: Elem<'a>>(
            c: &mut Cursor<'a>,
            out: &mut Option<Array<'a, T>>,
            before: usize,
            (tag, size): (u32, u32),
            nullable: bool,
            null_default: bool,
            version: i16,
            f: &'static str,
        ) -> Result<(), Fail> {
            let a = opt_array::<T>(c, true, nullable, version, f)?;
            check_tag_size(c, before, size, tag, f)?;
            let at_default = match &a {
                None => null_default,
                Some(a) => !null_default && a.is_empty(),
            };
            tag_at_default(c, at_default);
            *out = a;
            Ok(())
        }
    }

    crate::profile::shared! {
        /// [`tagged_opt_array`] for an array that is never null (its default is empty).
        #[doc(hidden)]
        pub fn tagged_array<'a, T: Elem<'a>>(
            c: &mut Cursor<'a>,
            out: &mut Array<'a, T>,
            before: usize,
            (tag, size): (u32, u32),
            version: i16,
            f: &'static str,
        ) -> Result<(), Fail> {
            let a = array::<T>(c, true, version, f)?;
            check_tag_size(c, before, size, tag, f)?;
            tag_at_default(c, a.is_empty());
            *out = a;
            Ok(())
        }
    }

    crate::profile::shared! {
        /// A nullable struct inside a tagged field: Kafka marks its presence with an unsigned varint
        /// (greater than zero, read as a 32-bit int, is present; otherwise null), not the int8 marker of
        /// untagged nullable structs.
        #[doc(hidden)]
        pub fn opt_struct_tagged<'a, T: Struct<'a>>(
            c: &mut Cursor<'a>,
            nullable: bool,
            version: i16,
            f: &'static str,
        ) -> Result<Option<T>, Fail> {
            if !tagged_present(c, nullable, f)? {
                return Ok(None);
            }
            T::read(c, version).map(Some)
        }
    }

    /// Builds the view of the unknown tagged fields of one struct, once its section is read.
    /// `section` is where the section's fields began and `c` where they end; `known` has a bit for
    /// each tag the struct knows, which iteration skips.
    #[inline(always)]
    #[doc(hidden)]
    pub fn unknown_tags<'a>(section: &'a [u8], c: &[u8], n: u32, unknown: u32, known: u64) -> TaggedFields<'a> {
        if unknown == 0 {
            return TaggedFields::EMPTY;
        }
        let used = section.len() - c.len();
        TaggedFields::wire(section.get(..used).unwrap_or(&[]), n, known, unknown)
    }

    crate::profile::shared! {
        /// Reads a whole tagged-field section of a struct that knows no tags.
        #[doc(hidden)]
        pub fn unknown_tags_only<'a>(c: &mut Cursor<'a>, f: &'static str) -> Result<TaggedFields<'a>, Fail> {
            let (n, section) = tag_section(c, f)?;
            if n == 0 {
                return Ok(TaggedFields::EMPTY);
            }
            let mut next = 0u64;
            for _ in 0..n {
                let (_, size) = next_tag(c, &mut next, f)?;
                skip_tag(c, size, f)?;
            }
            Ok(unknown_tags(section, c, n, n, 0))
        }
    }

    crate::profile::shared! {
        /// A struct that may be null at this version: a marker byte (negative is null) comes first,
        /// at nullable versions only.
        #[doc(hidden)]
        pub fn opt_struct<'a, T: Struct<'a>>(
            c: &mut Cursor<'a>,
            nullable: bool,
            version: i16,
            f: &'static str,
        ) -> Result<Option<T>, Fail> {
            if !present(c, nullable, f)? {
                return Ok(None);
            }
            T::read(c, version).map(Some)
        }
    }

    /// Steps over `n` elements. Out of line and cold: `opt_array` is inlined into every generated
    /// reader, and the parse itself never takes this path.
    #[cold]
    #[inline(never)]
    pub(crate) fn skip_elems<'a, S: Fn(&mut Cursor<'a>, i16, bool) -> Option<()>>(
        c: &mut Cursor<'a>,
        n: usize,
        version: i16,
        compact: bool,
        skip: &S,
    ) -> Option<()> {
        for _ in 0..n {
            skip(c, version, compact)?;
        }
        Some(())
    }

    /// Steps over an array, null or not: fixed-width elements in one step, others one by one.
    #[inline(always)]
    #[doc(hidden)]
    pub fn skip_array<'a, T: Elem<'a>>(c: &mut Cursor<'a>, compact: bool, version: i16) -> Option<()> {
        let len = skip_prefix(c, compact, false)?;
        if len <= 0 {
            return Some(());
        }
        #[allow(clippy::cast_possible_wrap, reason = "a slice's length is at most isize::MAX")]
        let rem = c.len() as i64;
        if len > rem {
            return None;
        }
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "0 < len <= rem: both bounds are checked above"
        )]
        let n = len as usize;
        match T::WIDTH {
            Some(w) => skip(c, n.saturating_mul(w)),
            None => {
                for _ in 0..len {
                    T::skip_elem(c, version, compact)?;
                }
                Some(())
            }
        }
    }

    /// Steps over a struct that may be null at this version (`nullable`).
    #[inline(always)]
    #[doc(hidden)]
    pub fn skip_opt_struct<'a, T: Struct<'a>>(c: &mut Cursor<'a>, nullable: bool, version: i16) -> Option<()> {
        if nullable && i8(c, "").ok()? < 0 {
            return Some(());
        }
        crate::profile::struct_skip::<T>(c, version)
    }

    /// Validates the tagged-field section of a struct that knows no tags, keeping nothing: an empty
    /// section inline, any other out of line (with the bytes by value, so that the caller's cursor
    /// can stay in registers).
    #[inline(always)]
    #[doc(hidden)]
    pub fn check_tags(c: &mut Cursor<'_>, f: &'static str) -> Result<(), Fail> {
        if let Some((0, t)) = c.rest.split_first() {
            c.rest = t;
            return Ok(());
        }
        let mut l = Cursor::new(c.rest);
        if check_tags_slow(&mut l, f).is_err() {
            return Err(c.failed(l));
        }
        c.join_at(l);
        Ok(())
    }

    #[inline(never)]
    #[doc(hidden)]
    pub fn check_tags_slow(c: &mut Cursor<'_>, f: &'static str) -> Result<(), Fail> {
        unknown_tags_only(c, f).map(|_| ())
    }
}

/// Arrays, structs and unknown tags written and sized.
pub mod write {
    use crate::error::EncodeError;
    use crate::structs::Struct;
    use crate::types::{Array, Elem, RawTaggedField, TaggedFields};
    use crate::write::*;

    impl Writer<'_> {
        /// An array.
        #[inline]
        #[doc(hidden)]
        pub fn array<'a, T: Elem<'a>>(&mut self, a: &Array<'a, T>, compact: bool, v: i16, f: &'static str) {
            a.write(self, v, compact, f)
        }

        /// A nullable array.
        #[inline]
        #[doc(hidden)]
        pub fn opt_array<'a, T: Elem<'a>>(
            &mut self,
            a: &Option<Array<'a, T>>,
            compact: bool,
            nullable: bool,
            v: i16,
            f: &'static str,
        ) {
            match a {
                Some(a) => a.write(self, v, compact, f),
                None => self.null_len(compact, nullable, f),
            }
        }

        crate::profile::shared! {
            /// A tagged field holding an array that may be null at this version: its tag, its
            /// size and the array. Shared, one body per element type (a record with several tagged
            /// `[]int32` fields links one).
            #[doc(hidden)]
            pub fn tagged_opt_array<'a, T: Elem<'a>>(
                &mut self,
                tag: u32,
                a: &Option<Array<'a, T>>,
                nullable: bool,
                v: i16,
                f: &'static str,
            ) {
                let s = self.ok(opt_array_size(a, true, nullable, v, f));
                self.tag_header(tag, s, f);
                self.opt_array(a, true, nullable, v, f);
            }
        }

        crate::profile::shared! {
            /// A tagged field holding an array that is never null: its tag, its size and the array.
            #[doc(hidden)]
            pub fn tagged_array<'a, T: Elem<'a>>(&mut self, tag: u32, a: &Array<'a, T>, v: i16, f: &'static str) {
                let s = self.ok(array_size(a, true, v, f));
                self.tag_header(tag, s, f);
                self.array(a, true, v, f);
            }
        }

        /// A nullable struct: the marker byte at nullable versions, then the struct.
        #[inline]
        #[doc(hidden)]
        pub fn opt_struct<'a, T: Struct<'a>>(&mut self, s: &Option<T>, nullable: bool, v: i16, f: &'static str) {
            match s {
                Some(s) => {
                    if nullable {
                        self.i8(1, f);
                    }
                    s.write(self, v)
                }
                None if !nullable => self.fail(null_not_allowed(f)),
                None => self.i8(-1, f),
            }
        }

        /// A nullable struct inside a tagged field: an unsigned varint marker (1 present, 0 null).
        #[inline]
        #[doc(hidden)]
        pub fn opt_struct_tagged<'a, T: Struct<'a>>(&mut self, s: &Option<T>, nullable: bool, v: i16, f: &'static str) {
            match s {
                Some(s) => {
                    if nullable {
                        self.uvarint(1, f);
                    }
                    s.write(self, v)
                }
                None if !nullable => self.fail(null_not_allowed(f)),
                None => self.uvarint(0, f),
            }
        }

        crate::profile::shared! {
            /// A tagged field's tag and the size of its payload, which the caller writes next; a
            /// size above `i32::MAX`, which Kafka cannot read, is a `TooLong` error.
            #[doc(hidden)]
            pub fn tag_header(&mut self, tag: u32, size: usize, f: &'static str) {
                self.uvarint(tag, f);
                if let Some(s) = self.at_most_i32(size, f) {
                    self.uvarint(s, f)
                }
            }
        }

        crate::profile::shared! {
            /// The tagged-field section of a struct that knows no tags: its unknown fields. Shared,
            /// one function per holder type.
            #[doc(hidden)]
            pub fn unknown_tags_only<U: UnknownTags + ?Sized>(&mut self, t: &U) {
                let n = t.count();
                if n == 0 {
                    return self.arr([0], "_tagged_fields");
                }
                if let Some(n) = self.at_most_i32(n, "_tagged_fields") {
                    self.uvarint(n, "_tagged_fields");
                    self.raw_tags_in(t, 0, u32::MAX)
                }
            }
        }

        /// Writes the unknown tagged fields that go after the known tag `lo` and before the
        /// next known tag, `last + 1` (see [`unknown_between`]). A section opens with
        /// `lo` 0 and ends with `last` `u32::MAX`.
        #[inline(always)]
        #[doc(hidden)]
        pub fn unknown_tags_in<U: UnknownTags + ?Sized>(&mut self, t: &U, lo: u32, last: u32) {
            if crate::profile::UNKNOWN_TAGS_INLINE_CHECK && t.count() == 0 {
                return;
            }
            self.raw_tags_in(t, lo, last)
        }

        /// [`Writer::unknown_tags_in`], out of line: unknown fields are rare.
        #[inline(never)]
        fn raw_tags_in<U: UnknownTags + ?Sized>(&mut self, t: &U, lo: u32, last: u32) {
            for r in unknown_between(t.each(), lo, last) {
                self.raw_tag(r);
            }
        }

        /// The error where unknown tagged fields are set at a version without tagged fields.
        #[inline(always)]
        #[doc(hidden)]
        pub fn no_tags(&mut self, n: usize, f: &'static str) {
            if n != 0 {
                self.fail(tags_not_in_version(f));
            }
        }

        /// One unknown tagged field: its tag, its size and its payload as held (a payload too
        /// long for its size is refused by [`Writer::tag_header`], as [`raw_tag_size`] refuses
        /// it).
        #[doc(hidden)]
        pub fn raw_tag(&mut self, r: RawTaggedField<'_>) {
            self.tag_header(r.tag, r.data.len(), "_tagged_fields");
            self.put(r.data, "_tagged_fields")
        }
    }

    /// The unknown tagged fields of a struct, as views ([`TaggedFields`]) and owned values
    /// (`OwnedTaggedFields`) hold them; the encoders of both write them through this.
    #[doc(hidden)]
    pub trait UnknownTags {
        /// How many there are.
        fn count(&self) -> usize;
        /// The fields, in the order held.
        fn each(&self) -> impl Iterator<Item = RawTaggedField<'_>>;
    }

    impl UnknownTags for TaggedFields<'_> {
        #[inline(always)]
        fn count(&self) -> usize {
            self.len()
        }
        #[inline]
        fn each(&self) -> impl Iterator<Item = RawTaggedField<'_>> {
            self.iter()
        }
    }

    /// Where an encoder puts unknown tagged fields, as Kafka does: the known and unknown fields
    /// of a section go in ascending tag order, and an unknown field holding a known field's tag
    /// goes after it. So after the known tag `lo`, and before the next known tag, `last + 1`, go
    /// the unknown fields whose tags are in `lo..=last`, in the order held; views, owned values
    /// and `dynamic` all place them by this.
    #[inline]
    #[doc(hidden)]
    pub fn unknown_between<'t>(
        tags: impl Iterator<Item = RawTaggedField<'t>>,
        lo: u32,
        last: u32,
    ) -> impl Iterator<Item = RawTaggedField<'t>> {
        tags.filter(move |r| lo <= r.tag && r.tag <= last)
    }

    /// Size of an array.
    #[inline]
    #[doc(hidden)]
    pub fn array_size<'a, T: Elem<'a>>(
        a: &Array<'a, T>,
        compact: bool,
        v: i16,
        f: &'static str,
    ) -> Result<usize, EncodeError> {
        a.size(v, compact, f)
    }

    /// Size of a nullable array.
    #[inline]
    #[doc(hidden)]
    pub fn opt_array_size<'a, T: Elem<'a>>(
        a: &Option<Array<'a, T>>,
        compact: bool,
        nullable: bool,
        v: i16,
        f: &'static str,
    ) -> Result<usize, EncodeError> {
        match a {
            Some(a) => a.size(v, compact, f),
            None if !nullable => Err(null_not_allowed(f)),
            None => Ok(if compact { 1 } else { 4 }),
        }
    }

    /// Size of a struct field (`rt::write::struct_size`): what the build sizes structs with
    /// (`crate::profile`).
    #[inline(always)]
    #[doc(hidden)]
    pub fn struct_size<'a, T: Struct<'a>>(s: &T, v: i16) -> Result<usize, EncodeError> {
        crate::profile::struct_size(s, v)
    }

    /// Size of a nullable struct.
    #[inline]
    #[doc(hidden)]
    pub fn opt_struct_size<'a, T: Struct<'a>>(
        s: &Option<T>,
        nullable: bool,
        v: i16,
        f: &'static str,
    ) -> Result<usize, EncodeError> {
        match s {
            Some(s) => Ok(usize::from(nullable) + crate::profile::struct_size(s, v)?),
            None if !nullable => Err(null_not_allowed(f)),
            None => Ok(1),
        }
    }
}

/// Arrays, structs and tag sections handed to a visitor.
pub mod visit {
    use crate::error::Fail;
    use crate::read::{self, Cursor};
    use crate::structs::Struct;
    use crate::types::Elem;
    use crate::visit::{FieldId, Visitor};
    use core::ops::DerefMut;

    crate::profile::shared! {
        /// An array field, null or not; elements are visited as they are read.
        #[doc(hidden)]
        pub fn array<'a, T: Elem<'a>, V: Visitor<'a> + ?Sized>(
            c: &mut Cursor<'a>,
            compact: bool,
            nullable: bool,
            version: i16,
            id: FieldId,
            vis: &mut V,
            f: &'static str,
        ) -> Result<(), Fail> {
            let Some(n) = super::read::array_count(c, compact, nullable, f)? else {
                vis.null(id);
                return Ok(());
            };
            #[allow(clippy::cast_possible_truncation, reason = "array_count bounds n by MAX_ELEMENTS")]
            let count = n as u32;
            vis.begin_array(id, count);
            if let Some(w) = T::WIDTH {
                // Fixed width: one bounds check for the whole array, then each element in place.
                let len = n.saturating_mul(w);
                if c.rest.len() < len {
                    read::take(c, len, f)?;
                }
                for _ in 0..n {
                    T::visit_elem(c, version, compact, id, vis, f)?;
                }
            } else {
                // On a local copy of the cursor, which the optimiser can keep in registers.
                let mut l = c.fork();
                for _ in 0..n {
                    if T::visit_elem(&mut l, version, compact, id, vis, f).is_err() {
                        return Err(c.failed(l));
                    }
                }
                c.join(l);
            }
            vis.end_array(id);
            Ok(())
        }
    }

    /// A struct field (`present` is false for a null one).
    #[inline(always)]
    #[doc(hidden)]
    pub fn struct_field<'a, T: Struct<'a>, V: Visitor<'a> + ?Sized>(
        c: &mut Cursor<'a>,
        present: bool,
        version: i16,
        id: FieldId,
        vis: &mut V,
    ) -> Result<(), Fail> {
        if !present {
            vis.null(id);
            return Ok(());
        }
        vis.begin_struct(id);
        T::visit_fields(c, version, vis)?;
        vis.end_struct(id);
        Ok(())
    }

    /// The tagged-field section of a struct that knows no tags.
    #[inline(always)]
    #[doc(hidden)]
    pub fn tags_only<'a, V: Visitor<'a> + ?Sized>(
        c: &mut Cursor<'a>,
        id: FieldId,
        vis: &mut V,
        f: &'static str,
    ) -> Result<(), Fail> {
        if let Some((0, t)) = c.rest().split_first() {
            *c.deref_mut() = t;
            return Ok(());
        }
        // Out of line, on a cursor of its own: the caller's stays in registers.
        let mut l = Cursor::new(c.rest());
        if tags_slow(&mut l, id, vis, f).is_err() {
            return Err(c.failed(l));
        }
        c.join_at(l);
        Ok(())
    }

    #[inline(never)]
    fn tags_slow<'a, V: Visitor<'a> + ?Sized>(
        c: &mut Cursor<'a>,
        id: FieldId,
        vis: &mut V,
        f: &'static str,
    ) -> Result<(), Fail> {
        let n = read::tag_count(c, f)?;
        let mut next = 0u64;
        for _ in 0..n {
            let (tag, size) = read::next_tag(c, &mut next, f)?;
            unknown_tag(c, tag, size, id, vis, f)?;
        }
        Ok(())
    }

    /// An unknown tagged field's payload, handed to the visitor.
    #[inline(always)]
    #[doc(hidden)]
    pub fn unknown_tag<'a, V: Visitor<'a> + ?Sized>(
        c: &mut Cursor<'a>,
        tag: u32,
        size: u32,
        id: FieldId,
        vis: &mut V,
        f: &'static str,
    ) -> Result<(), Fail> {
        let data = read::skip_tag(c, size, f)?;
        vis.unknown_tag(id, tag, data);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! Arrays and tagged-field sections against the vectors of Kafka's own classes
    //! (`crate::vectors`): `ArrayOf` and `CompactArrayOf` for arrays, and the generated
    //! `ResponseHeaderData` v1 (a struct that knows no tags) for tagged-field sections.

    use super::read::{array, opt_array, unknown_tags_only};
    use super::write::opt_array_size;
    use crate::read::Cursor;
    use crate::types::{Array, RawTaggedField, TaggedFields};
    use crate::vectors::{blob, hex, list, of, reads, show_blob, show_list, text, writes, Outcome};
    use crate::write::uvarint_size;
    use std::format;
    use std::string::{String, ToString};
    use std::vec::Vec;

    const INT32_ARRAYS: [(&str, bool, bool); 4] = [
        ("array_int32", false, false),
        ("nullable_array_int32", false, true),
        ("compact_array_int32", true, false),
        ("compact_nullable_array_int32", true, true),
    ];

    fn show_ints(a: Option<Array<'_, i32>>) -> String {
        show_list(a.map(|a| a.iter().map(|x| x.to_string()).collect::<Vec<_>>()))
    }

    fn show_strs(a: Option<Array<'_, &str>>) -> String {
        show_list(a.map(|a| a.iter().map(|s| show_blob(Some(s.as_bytes()))).collect::<Vec<_>>()))
    }

    /// Null where not allowed, counts past the end (up to 2^31 - 1) and counts the bytes run out
    /// before are errors, never an allocation or a panic.
    #[test]
    fn int32_arrays() {
        for (kind, compact, nullable) in INT32_ARRAYS {
            reads(kind, true, |c| {
                Ok(show_ints(opt_array::<i32>(c, compact, nullable, 0, "v")?))
            });
            if !nullable {
                reads(kind, true, |c| Ok(show_ints(Some(array::<i32>(c, compact, 0, "v")?))));
            }
            writes(kind, |v, w| {
                let items: Option<Vec<i32>> = list(v).map(|l| l.iter().map(|x| x.parse().expect("int32")).collect());
                let a = items.as_deref().map(Array::from_slice);
                w.opt_array(&a, compact, nullable, 0, "v");
                opt_array_size(&a, compact, nullable, 0, "v").expect("size")
            });
        }
    }

    #[test]
    fn string_arrays() {
        for (kind, compact) in [("array_string", false), ("compact_array_string", true)] {
            reads(kind, true, |c| {
                Ok(show_strs(opt_array::<&str>(c, compact, false, 0, "v")?))
            });
            writes(kind, |v, w| {
                let owned: Vec<String> = list(v)
                    .expect("not null")
                    .iter()
                    .map(|s| text(s).expect("a string"))
                    .collect();
                let strs: Vec<&str> = owned.iter().map(String::as_str).collect();
                let a = Some(Array::from_slice(&strs[..]));
                w.opt_array(&a, compact, false, 0, "v");
                opt_array_size(&a, compact, false, 0, "v").expect("size")
            });
        }
    }

    /// The unknown fields of a section are kept, in wire order, whatever their order.
    #[test]
    fn tag_sections() {
        reads("tags", true, |c| {
            let t = unknown_tags_only(c, "v")?;
            Ok(show_list(Some(
                t.iter().map(|r| format!("{}:{}", r.tag, show_blob(Some(r.data)))),
            )))
        });
        writes("tags", |v, w| {
            let fields: Vec<(u32, Vec<u8>)> = list(v)
                .expect("a list")
                .iter()
                .map(|f| {
                    let (tag, data) = f.split_once(':').expect("tag:data");
                    (tag.parse().expect("a tag"), blob(data).expect("data"))
                })
                .collect();
            let raw: Vec<RawTaggedField<'_>> = fields
                .iter()
                .map(|(tag, data)| RawTaggedField { tag: *tag, data })
                .collect();
            let t = TaggedFields::from_slice(&raw);
            w.unknown_tags_only(&t);
            uvarint_size(t.len() as u32) + t.size().expect("size")
        });
    }

    /// Kafka's generated readers accept tags out of ascending order and repeated tags, and its
    /// writer refuses them: the runtime reads them too, and notes them as not what an encoder
    /// writes, so that they are never copied out as they are.
    #[test]
    fn tags_out_of_order() {
        let mut seen = 0;
        for v in of("tags").into_iter().filter(|v| v.outcome == Outcome::Unwritable) {
            let tags: Vec<u32> = list(v.value)
                .expect("a list")
                .iter()
                .map(|f| f.split(':').next().and_then(|t| t.parse().ok()).expect("a tag"))
                .collect();
            if tags.windows(2).all(|p| p[0] < p[1]) {
                continue;
            }
            let mut c = Cursor::new(&v.bytes);
            assert!(unknown_tags_only(&mut c, "v").is_ok(), "line {}", v.line);
            assert!(c.is_odd(), "line {}: not noted", v.line);
            seen += 1;
        }
        assert_eq!(seen, 2, "the out-of-order and repeated-tag vectors");
    }

    /// A count of elements is checked against the bytes that remain before any element is read:
    /// Kafka's count of 2^31 - 1 with nothing after it fails at the count, and so does the same
    /// count in front of a few elements' worth of bytes.
    #[test]
    fn count_past_the_end_fails_at_the_count() {
        let v = of("array_int32")
            .into_iter()
            .find(|v| v.bytes == hex("7fffffff"))
            .expect("vector");
        assert!(matches!(v.outcome, Outcome::Error(_)));
        let mut input = v.bytes.clone();
        input.extend_from_slice(&[0; 12]);
        let mut c = Cursor::new(&input);
        let e = opt_array::<i32>(&mut c, false, false, 0, "v").map(|_| ()).unwrap_err();
        let e = c.error(e).finish(input.len(), "", -1);
        assert_eq!(
            (e.kind(), e.offset()),
            (
                crate::DecodeErrorKind::LengthExceedsInput {
                    length: i64::from(i32::MAX)
                },
                0
            )
        );
    }
}
