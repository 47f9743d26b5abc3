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

pub use kafka_wire_rt::visit::{FieldId, Visitor};
