//! The runtime half of `kafka_wire::visit` (documented there).

/// A field's number within its message (see the module docs).
pub type FieldId = u16;

macro_rules! visitor_methods {
    ($($s:ident $k:ident $t:ident $at:ident $w:literal $d:literal,)*) => {$(
        #[doc = concat!("A field or element of type `", stringify!($s), "`. ", to_int!(doc $t))]
        #[inline(always)]
        fn $t(&mut self, f: FieldId, x: $t) {
            to_int!(self, f, x, $t);
        }
    )*};
}
/// What a number method does by default: integers go to [`Visitor::int`], `float64` nowhere.
macro_rules! to_int {
    (doc f64) => {
        "Does nothing by default."
    };
    (doc $t:ident) => {
        "Calls [`Visitor::int`] by default."
    };
    ($v:ident, $f:ident, $x:ident, f64) => {
        let _ = ($f, $x);
    };
    ($v:ident, $f:ident, $x:ident, $t:ident) => {
        $v.int($f, i64::from($x))
    };
}
macro_rules! renumbered_methods {
    ($($s:ident $k:ident $t:ident $at:ident $w:literal $d:literal,)*) => {$(
        fn $t(&mut self, f: FieldId, x: $t) {
            self.inner.$t(self.id(f), x);
        }
    )*};
}

/// Receives the fields of a message from [`Message::visit`](crate::Message::visit). Every
/// method does nothing by default, but the integer ones, which call [`Visitor::int`]; implement
/// the ones you need.
#[allow(unused_variables)]
pub trait Visitor<'a> {
    /// A `bool` field or element.
    #[inline(always)]
    fn bool(&mut self, f: FieldId, x: bool) {}
    /// Any integer field or element (`int8` to `int64`, `uint16`, `uint32`) whose own method is
    /// not implemented.
    #[inline(always)]
    fn int(&mut self, f: FieldId, x: i64) {}
    crate::prim::numbers!(visitor_methods);
    /// A `uuid`.
    #[inline(always)]
    fn uuid(&mut self, f: FieldId, x: uuid::Uuid) {}
    /// A `string`; `None` is null.
    #[inline(always)]
    fn str(&mut self, f: FieldId, x: Option<&'a str>) {}
    /// A `bytes` field; `None` is null.
    #[inline(always)]
    fn bytes(&mut self, f: FieldId, x: Option<&'a [u8]>) {}
    /// A `records` field, as the raw bytes (see the `records` module of `kafka-wire`); `None` is null.
    #[inline(always)]
    fn records(&mut self, f: FieldId, x: Option<&'a [u8]>) {}
    /// An array of `len` elements begins.
    #[inline(always)]
    fn begin_array(&mut self, f: FieldId, len: u32) {}
    /// The array that `begin_array` began has ended.
    #[inline(always)]
    fn end_array(&mut self, f: FieldId) {}
    /// A struct begins: a struct field, or an element of an array of structs.
    #[inline(always)]
    fn begin_struct(&mut self, f: FieldId) {}
    /// The struct that `begin_struct` began has ended.
    #[inline(always)]
    fn end_struct(&mut self, f: FieldId) {}
    /// A null array or struct.
    #[inline(always)]
    fn null(&mut self, f: FieldId) {}
    /// A tagged field that the schema does not know; `f` is the id of the tagged-field section
    /// of the struct it is in.
    #[inline(always)]
    fn unknown_tag(&mut self, f: FieldId, tag: u32, data: &'a [u8]) {}
}

/// Hands every event on to `inner` with its field id moved by `ids` (`(from, to, count)`: ids
/// `from..from + count` become `to..to + count`): a struct that several fields share reports
/// the ids of the first of them, and its callers at the others renumber.
pub struct Renumbered<'v, V: ?Sized> {
    inner: &'v mut V,
    ids: &'static [(u16, u16, u16)],
}

impl<'v, V: ?Sized> Renumbered<'v, V> {
    #[inline(always)]
    #[doc(hidden)]
    pub fn new(inner: &'v mut V, ids: &'static [(u16, u16, u16)]) -> Self {
        Renumbered { inner, ids }
    }

    #[inline]
    fn id(&self, f: FieldId) -> FieldId {
        for &(from, to, count) in self.ids {
            if f >= from && f - from < count {
                return to + (f - from);
            }
        }
        f
    }
}

impl<'a, V: Visitor<'a> + ?Sized> Visitor<'a> for Renumbered<'_, V> {
    fn bool(&mut self, f: FieldId, x: bool) {
        self.inner.bool(self.id(f), x);
    }
    fn int(&mut self, f: FieldId, x: i64) {
        self.inner.int(self.id(f), x);
    }
    crate::prim::numbers!(renumbered_methods);
    fn uuid(&mut self, f: FieldId, x: uuid::Uuid) {
        self.inner.uuid(self.id(f), x);
    }
    fn str(&mut self, f: FieldId, x: Option<&'a str>) {
        self.inner.str(self.id(f), x);
    }
    fn bytes(&mut self, f: FieldId, x: Option<&'a [u8]>) {
        self.inner.bytes(self.id(f), x);
    }
    fn records(&mut self, f: FieldId, x: Option<&'a [u8]>) {
        self.inner.records(self.id(f), x);
    }
    fn begin_array(&mut self, f: FieldId, len: u32) {
        self.inner.begin_array(self.id(f), len);
    }
    fn end_array(&mut self, f: FieldId) {
        self.inner.end_array(self.id(f));
    }
    fn begin_struct(&mut self, f: FieldId) {
        self.inner.begin_struct(self.id(f));
    }
    fn end_struct(&mut self, f: FieldId) {
        self.inner.end_struct(self.id(f));
    }
    fn null(&mut self, f: FieldId) {
        self.inner.null(self.id(f));
    }
    fn unknown_tag(&mut self, f: FieldId, tag: u32, data: &'a [u8]) {
        self.inner.unknown_tag(self.id(f), tag, data);
    }
}
