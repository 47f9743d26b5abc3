//! Owned values encode into a caller's slice in one pass: the checks, errors and bytes must be
//! those of the sized encode into a sink.

use kafka_wire::messages::alter_partition_request::owned::{
    AlterPartitionRequest, BrokerState, PartitionData, TopicData,
};
use kafka_wire::messages::fetch_request::owned::FetchRequest;
use kafka_wire::messages::metadata_request::owned::{MetadataRequest, MetadataRequestTopic};
use kafka_wire::{EncodeErrorKind, SmallVec};
use kafka_wire::{OwnedMessage, OwnedRawTaggedField};

mod common;

fn same_error<M: OwnedMessage>(m: &M, v: i16, kind: EncodeErrorKind, field: &str) {
    let sized = m.encoded_len(v).unwrap_err();
    assert_eq!((sized.kind(), sized.field()), (kind, field));
    let mut big = vec![0u8; 1 << 17];
    assert_eq!(
        m.encode_to_slice(&mut big, v).unwrap_err(),
        sized,
        "one pass, room enough"
    );
    assert_eq!(m.encode_to_slice(&mut [], v).unwrap_err(), sized, "one pass, no room");
    assert_eq!(m.to_vec(v).unwrap_err(), sized, "sink");
}

fn alter_partition() -> AlterPartitionRequest {
    let isr: SmallVec<[BrokerState; 4]> = (1..=3)
        .map(|b| BrokerState {
            broker_id: b,
            broker_epoch: 10 * i64::from(b),
            ..Default::default()
        })
        .collect();
    let partitions = (0..5)
        .map(|p| PartitionData {
            partition_index: p,
            leader_epoch: 2,
            new_isr_with_epochs: isr.clone(),
            partition_epoch: 4,
            ..Default::default()
        })
        .collect();
    AlterPartitionRequest {
        broker_id: 7,
        broker_epoch: 9,
        topics: vec![TopicData {
            partitions,
            ..Default::default()
        }],
        ..Default::default()
    }
}

#[test]
fn one_pass_checks_match_the_size_pass() {
    same_error(
        &alter_partition(),
        2,
        EncodeErrorKind::FieldNotInVersion,
        "topics[].partitions[].new_isr_with_epochs",
    );
    let m = MetadataRequest {
        topics: None,
        ..Default::default()
    };
    same_error(&m, 0, EncodeErrorKind::NullNotAllowed, "topics");
    let long = "x".repeat(40_000);
    let m = MetadataRequest {
        topics: Some(vec![MetadataRequestTopic {
            name: Some(long.as_str().into()),
            ..Default::default()
        }]),
        ..Default::default()
    };
    same_error(&m, 12, EncodeErrorKind::TooLong { length: 40_000 }, "topics[].name");
    let mut m = MetadataRequest::default();
    m.unknown_tagged_fields.push(OwnedRawTaggedField {
        tag: 9,
        data: vec![1, 2],
    });
    same_error(&m, 0, EncodeErrorKind::TaggedFieldsNotInVersion, "_tagged_fields");
    let f = FetchRequest {
        cluster_id: Some(long.as_str().into()),
        ..Default::default()
    };
    same_error(&f, 12, EncodeErrorKind::TooLong { length: 40_000 }, "cluster_id");
}

#[test]
fn one_pass_bytes_and_short_buffers() {
    let m = alter_partition();
    let bytes = m.to_vec(3).unwrap();
    let n = bytes.len();
    assert_eq!(m.encoded_len(3).unwrap(), n);
    for len in 0..n {
        let mut buf = vec![0u8; len];
        assert_eq!(
            m.encode_to_slice(&mut buf, 3).unwrap_err().kind(),
            EncodeErrorKind::BufferTooShort { needed: n },
            "buffer of {len}"
        );
    }
    let mut buf = vec![0xAAu8; n + 3];
    let (r, used) = common::counted(|| m.encode_to_slice(&mut buf, 3));
    assert_eq!(r.unwrap(), n);
    assert_eq!(used.allocs, 0, "an owned value encodes into a slice without allocating");
    assert_eq!(&buf[..n], &bytes[..]);
    assert_eq!(AlterPartitionRequest::parse(&bytes, 3).unwrap(), m);
}
