//! The dynamic encoder against the generated one: defaults, tagged fields, unknown tags, and the
//! errors for values that do not fit.
#![cfg(feature = "alloc")]

use std::borrow::Cow;

use kafka_wire::dynamic::{to_vec, Struct, Value};
use kafka_wire::metadata::partition_change_record::PartitionChangeRecord;
use kafka_wire::reflect::StructDesc;
use kafka_wire::{Array, EncodeErrorKind, Message, RawTaggedField, TaggedFields};

fn idx(d: &StructDesc, name: &str) -> usize {
    d.fields.iter().position(|f| f.name == name).unwrap()
}

const INFO: kafka_wire::MessageInfo = PartitionChangeRecord::INFO;

#[test]
fn tagged_fields_in_tag_order_defaults_left_out_unknown_tags_merged() {
    let d = PartitionChangeRecord::SCHEMA;
    let mut s = Struct::new(d);
    s.set(idx(d, "PartitionId"), Value::Int(4));
    // At its default (-2): left out, as the generated encoder does.
    s.set(idx(d, "Leader"), Value::Int(-2));
    s.set(idx(d, "LeaderRecoveryState"), Value::Int(1));
    // Listed before EligibleLeaderReplicas in the schema, but tag 8 comes after tag 6.
    s.set(
        idx(d, "Directories"),
        Value::Array(vec![Value::Uuid(kafka_wire::Uuid::from_u128(9))]),
    );
    s.set(
        idx(d, "EligibleLeaderReplicas"),
        Value::Array(vec![Value::Int(1), Value::Int(2)]),
    );
    s.unknown_tags.push((99, Cow::Borrowed(&[7u8][..])));
    s.unknown_tags.push((3, Cow::Borrowed(&[][..])));
    let dirs = [kafka_wire::Uuid::from_u128(9)];
    let elr = [1, 2];
    let raw = [
        RawTaggedField { tag: 3, data: &[] },
        RawTaggedField { tag: 99, data: &[7] },
    ];
    let typed = PartitionChangeRecord {
        partition_id: 4,
        leader_recovery_state: 1,
        directories: Some(Array::from_slice(&dirs)),
        eligible_leader_replicas: Some(Array::from_slice(&elr)),
        unknown_tagged_fields: TaggedFields::from_slice(&raw),
        ..PartitionChangeRecord::DEFAULT
    };
    assert_eq!(to_vec(&INFO, d, &s, 2).unwrap(), typed.to_vec(2).unwrap());
    // Every field at its default.
    assert_eq!(
        to_vec(&INFO, d, &Struct::new(d), 0).unwrap(),
        PartitionChangeRecord::DEFAULT.to_vec(0).unwrap()
    );
}

#[test]
fn values_that_do_not_fit_are_errors() {
    let d = PartitionChangeRecord::SCHEMA;
    let kind = |s: &Struct<'_>, v: i16| to_vec(&INFO, d, s, v).unwrap_err().kind();
    let mut s = Struct::new(d);
    s.set(idx(d, "PartitionId"), Value::Int(1 << 40));
    assert_eq!(kind(&s, 0), EncodeErrorKind::WrongType);
    let mut s = Struct::new(d);
    s.set(idx(d, "PartitionId"), Value::Str("x".into()));
    assert_eq!(kind(&s, 0), EncodeErrorKind::WrongType);
    let mut s = Struct::new(d);
    // A UUID is never null.
    s.set(idx(d, "TopicId"), Value::Null);
    assert_eq!(kind(&s, 0), EncodeErrorKind::WrongType);
    // A non-default value in a field version 0 lacks.
    let mut s = Struct::new(d);
    s.set(idx(d, "EligibleLeaderReplicas"), Value::Array(vec![Value::Int(1)]));
    assert_eq!(kind(&s, 0), EncodeErrorKind::FieldNotInVersion);
    assert_eq!(
        kind(&Struct::new(d), 9),
        EncodeErrorKind::UnsupportedVersion { version: 9 }
    );
}
