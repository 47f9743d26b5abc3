//! The runtime half of `kafka_wire::visit` (documented there).

/// A field's number within its message (see the module docs).
pub type FieldId = u16;

/// Receives the fields of a message from [`Message::visit`](crate::Message::visit). Every
/// method does nothing by default; implement the ones you need.
#[allow(unused_variables)]
pub trait Visitor<'a> {
    /// A `bool` field or element.
    #[inline(always)]
    fn bool(&mut self, f: FieldId, x: bool) {}
    /// An `int8`.
    #[inline(always)]
    fn i8(&mut self, f: FieldId, x: i8) {}
    /// An `int16`.
    #[inline(always)]
    fn i16(&mut self, f: FieldId, x: i16) {}
    /// A `uint16`.
    #[inline(always)]
    fn u16(&mut self, f: FieldId, x: u16) {}
    /// An `int32`.
    #[inline(always)]
    fn i32(&mut self, f: FieldId, x: i32) {}
    /// A `uint32`.
    #[inline(always)]
    fn u32(&mut self, f: FieldId, x: u32) {}
    /// An `int64`.
    #[inline(always)]
    fn i64(&mut self, f: FieldId, x: i64) {}
    /// A `float64`.
    #[inline(always)]
    fn f64(&mut self, f: FieldId, x: f64) {}
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
    fn i8(&mut self, f: FieldId, x: i8) {
        self.inner.i8(self.id(f), x);
    }
    fn i16(&mut self, f: FieldId, x: i16) {
        self.inner.i16(self.id(f), x);
    }
    fn u16(&mut self, f: FieldId, x: u16) {
        self.inner.u16(self.id(f), x);
    }
    fn i32(&mut self, f: FieldId, x: i32) {
        self.inner.i32(self.id(f), x);
    }
    fn u32(&mut self, f: FieldId, x: u32) {
        self.inner.u32(self.id(f), x);
    }
    fn i64(&mut self, f: FieldId, x: i64) {
        self.inner.i64(self.id(f), x);
    }
    fn f64(&mut self, f: FieldId, x: f64) {
        self.inner.f64(self.id(f), x);
    }
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
