//! The schema facts of every generated struct, as static data: what a generic walker (JSON
//! conversion, fuzzers, tooling) needs to interpret the wire format of any message without
//! knowing its type at compile time. Version sets are bit masks: bit `v` is version `v`.

pub use kafka_wire_rt::reflect::{DefaultValue, FieldDesc, Kind, Number, StructDesc, NUMBERS};
