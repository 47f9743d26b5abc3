//! Sequential visiting: one pass over a message that checks every byte as it reads it and
//! hands each field to a [`Visitor`], in wire order.
//!
//! The lazy views that [`Message::parse`](crate::Message::parse) returns are the right tool
//! for a consumer that looks at a few fields: the parse validates everything once, and only
//! what is iterated is read again. A consumer that touches every field of a large message pays
//! for that laziness: iterating an array of structs re-reads each element, and finding where an
//! element ends means stepping over its nested arrays again. [`Message::visit`](crate::Message::visit)
//! reads each byte once instead, and calls the visitor for every field as it goes.
//!
//! What the visitor sees:
//! - the fields the version has, in the order they are on the wire (fields the version lacks
//!   are not visited; the views give their defaults);
//! - a known tagged field when its tag is met in its struct's tagged-field section, in the order
//!   the sender wrote them; an unknown one through [`Visitor::unknown_tag`];
//! - an array as [`Visitor::begin_array`], its elements, then [`Visitor::end_array`]; a struct
//!   (a struct field or an array element) as [`Visitor::begin_struct`], its fields, then
//!   [`Visitor::end_struct`]; a null array or struct as [`Visitor::null`];
//! - elements of an array under the array's own field id.
//!
//! Field ids ([`FieldId`]) are numbered per message; each message module has them as constants
//! in its `fields` module (named after the field's path, as in error messages) and in its
//! reflection tables ([`FieldDesc::id`](crate::reflect::FieldDesc::id)).
//!
//! The checks are the parse's, and so are the errors: `visit` fails exactly where `parse`
//! does. The events before the error have been delivered by then, so a visitor that must not
//! act on a message that turns out to be malformed should parse first, or buffer.
//!
//! ```
//! use kafka_wire::messages::alter_partition_request::{fields, AlterPartitionRequest, BrokerState, PartitionData, TopicData};
//! use kafka_wire::{Array, FieldId, Message, Visitor};
//!
//! // The ISR members of every partition, summed, without building a view of any of them.
//! #[derive(Default)]
//! struct IsrTotal(i64);
//! impl<'a> Visitor<'a> for IsrTotal {
//!     fn i32(&mut self, f: FieldId, x: i32) {
//!         if f == fields::TOPICS_PARTITIONS_NEW_ISR_WITH_EPOCHS_BROKER_ID {
//!             self.0 += i64::from(x);
//!         }
//!     }
//! }
//!
//! let isr = [BrokerState { broker_id: 1, ..BrokerState::DEFAULT }, BrokerState { broker_id: 2, ..BrokerState::DEFAULT }];
//! let parts = [PartitionData { new_isr_with_epochs: Array::from_slice(&isr), ..PartitionData::DEFAULT }];
//! let topics = [TopicData { partitions: Array::from_slice(&parts), ..TopicData::DEFAULT }];
//! let req = AlterPartitionRequest { topics: Array::from_slice(&topics), ..AlterPartitionRequest::DEFAULT };
//! let mut buf = [0u8; 128];
//! let n = req.encode_to_slice(&mut buf, 3)?;
//!
//! let mut total = IsrTotal::default();
//! AlterPartitionRequest::visit(&buf[..n], 3, &mut total)?;
//! assert_eq!(total.0, 3);
//! assert!(AlterPartitionRequest::visit(&buf[..n - 1], 3, &mut total).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::codec::Struct;
use crate::error::DecodeError;
use crate::read::{self, Cursor};
use crate::types::Elem;
use core::ops::DerefMut;

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
    /// A `records` field, as the raw bytes (see [`crate::records`]); `None` is null.
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

/// An array field, null or not; elements are visited as they are read.
#[inline(always)]
pub(crate) fn array<'a, T: Elem<'a>, V: Visitor<'a> + ?Sized>(
    c: &mut Cursor<'a>,
    compact: bool,
    nullable: bool,
    version: i16,
    id: FieldId,
    vis: &mut V,
    f: &'static str,
) -> Result<(), DecodeError> {
    let Some(n) = read::array_count(c, compact, nullable, f)? else {
        vis.null(id);
        return Ok(());
    };
    vis.begin_array(id, n as u32);
    if let Some(w) = T::WIDTH {
        // Fixed width: one bounds check for the whole array, then each element in place.
        let bytes = read::take(c, n.saturating_mul(w), f)?;
        let mut e = Cursor::new(bytes);
        for _ in 0..n {
            T::visit_elem(&mut e, version, compact, id, vis, f)?;
        }
    } else {
        // On a local copy of the cursor, which the optimiser can keep in registers.
        let mut l = c.fork();
        for _ in 0..n {
            T::visit_elem(&mut l, version, compact, id, vis, f)?;
        }
        c.join(l);
    }
    vis.end_array(id);
    Ok(())
}

/// A struct field (`present` is false for a null one).
#[inline(always)]
pub(crate) fn struct_field<'a, T: Struct<'a>, V: Visitor<'a> + ?Sized>(
    c: &mut Cursor<'a>,
    present: bool,
    version: i16,
    id: FieldId,
    vis: &mut V,
) -> Result<(), DecodeError> {
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
pub(crate) fn tags_only<'a, V: Visitor<'a> + ?Sized>(
    c: &mut Cursor<'a>,
    id: FieldId,
    vis: &mut V,
    f: &'static str,
) -> Result<(), DecodeError> {
    if let Some((0, t)) = c.rest().split_first() {
        *c.deref_mut() = t;
        return Ok(());
    }
    // Out of line, on a cursor of its own: the caller's stays in registers.
    let mut l = Cursor::new(c.rest());
    tags_slow(&mut l, id, vis, f)?;
    c.join_at(l);
    Ok(())
}

#[inline(never)]
fn tags_slow<'a, V: Visitor<'a> + ?Sized>(
    c: &mut Cursor<'a>,
    id: FieldId,
    vis: &mut V,
    f: &'static str,
) -> Result<(), DecodeError> {
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
pub(crate) fn unknown_tag<'a, V: Visitor<'a> + ?Sized>(
    c: &mut Cursor<'a>,
    tag: u32,
    size: u32,
    id: FieldId,
    vis: &mut V,
    f: &'static str,
) -> Result<(), DecodeError> {
    let data = read::skip_tag(c, size, f)?;
    vis.unknown_tag(id, tag, data);
    Ok(())
}
