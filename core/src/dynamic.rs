//! Encoding without a type known at compile time (feature `alloc`): a message as a tree of
//! [`Value`]s, laid out by its field-level schema ([`crate::reflect`]), encoded with the same
//! wire primitives the generated encoders use, to the same bytes.
//!
//! A [`Struct`] holds one slot per field of its [`StructDesc`](crate::reflect::StructDesc), in the schema's order. An empty
//! slot is the field's default: a regular field is written with its default, a tagged field is
//! left out. A tagged field whose value equals its default is left out too, and a field the
//! version lacks must be empty or hold its default (unless the schema marks it ignorable), as
//! in the generated encoders. Unknown tagged fields are written in tag order among the known
//! ones.
//!
//! ```
//! use kafka_wire::dynamic::{self, Struct, Value};
//! use kafka_wire::messages::alter_partition_request::AlterPartitionRequest;
//! use kafka_wire::Message;
//!
//! let desc = AlterPartitionRequest::SCHEMA;
//! let mut s = Struct::new(desc);
//! s.set(0, Value::Int(3)); // brokerId
//! let bytes = dynamic::to_vec(&AlterPartitionRequest::INFO, desc, &s, 3)?;
//! let typed = AlterPartitionRequest { broker_id: 3, ..AlterPartitionRequest::DEFAULT };
//! assert_eq!(bytes, typed.to_vec(3)?);
//! # Ok::<(), kafka_wire::EncodeError>(())
//! ```

pub use kafka_wire_rt::dynamic::{to_vec, Struct, Value};
