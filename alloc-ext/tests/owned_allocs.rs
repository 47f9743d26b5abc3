//! How many allocations an owned decode makes: strings up to 24 bytes and arrays of up to 4
//! fixed-width elements (a replica set, an ISR with its broker epochs) are stored inline, so a
//! metadata response allocates once per array of structs, not once per partition.

mod common;

use kafka_wire::messages::alter_partition_request::owned::{
    AlterPartitionRequest, BrokerState, PartitionData, TopicData,
};
use kafka_wire::messages::metadata_response::owned::{
    MetadataResponse, MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use kafka_wire::{OwnedMessage, SmallVec, Uuid};

/// Decodes `bytes` as owned `M` at `v` (it must equal `expect`); returns the allocations made.
fn allocations<M: OwnedMessage + PartialEq + std::fmt::Debug>(bytes: &[u8], v: i16, expect: &M) -> usize {
    let (m, used) = common::counted(|| M::parse(bytes, v));
    assert_eq!(&m.expect("decodes"), expect);
    used.allocs
}

fn metadata(topics: usize, partitions: usize, replicas: usize, name_len: usize) -> MetadataResponse {
    let ids: Vec<i32> = (0..replicas as i32).collect();
    MetadataResponse {
        brokers: (0..3)
            .map(|i| MetadataResponseBroker {
                node_id: i,
                host: format!("broker-{i}").into(),
                port: 9092,
                ..Default::default()
            })
            .collect(),
        cluster_id: Some("cluster".into()),
        topics: (0..topics)
            .map(|t| MetadataResponseTopic {
                name: Some(format!("{t:0>name_len$}").into()),
                topic_id: Uuid::from_u128(t as u128 + 1),
                partitions: (0..partitions as i32)
                    .map(|p| MetadataResponsePartition {
                        partition_index: p,
                        leader_id: ids[0],
                        replica_nodes: SmallVec::from_slice(&ids),
                        isr_nodes: SmallVec::from_slice(&ids),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

#[test]
fn metadata_response_allocates_per_array_of_structs() {
    // 3 replicas, 10-byte names: the brokers and topics arrays, and one partitions array per topic.
    let m = metadata(20, 10, 3, 10);
    let bytes = m.to_vec(13).expect("encodes");
    assert_eq!(allocations(&bytes, 13, &m), 2 + 20);
    // 4 replicas still fit inline.
    let m = metadata(20, 10, 4, 10);
    let bytes = m.to_vec(13).expect("encodes");
    assert_eq!(allocations(&bytes, 13, &m), 2 + 20);
    // 5 replicas do not: the replica and ISR arrays of every partition allocate.
    let m = metadata(20, 10, 5, 10);
    let bytes = m.to_vec(13).expect("encodes");
    assert_eq!(allocations(&bytes, 13, &m), 2 + 20 + 2 * 20 * 10);
    // Names longer than 24 bytes are on the heap, one allocation each.
    let m = metadata(20, 10, 3, 30);
    let bytes = m.to_vec(13).expect("encodes");
    assert_eq!(allocations(&bytes, 13, &m), 2 + 20 + 20);
}

#[test]
fn alter_partition_request_keeps_isr_with_epochs_inline() {
    let m = AlterPartitionRequest {
        broker_id: 1,
        broker_epoch: 7,
        topics: (0..5)
            .map(|t| TopicData {
                topic_id: Uuid::from_u128(t + 1),
                partitions: (0..20)
                    .map(|p| PartitionData {
                        partition_index: p,
                        new_isr_with_epochs: (0..3)
                            .map(|b| BrokerState {
                                broker_id: b,
                                broker_epoch: 100 + i64::from(b),
                                ..Default::default()
                            })
                            .collect(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let bytes = m.to_vec(3).expect("encodes");
    assert_eq!(allocations(&bytes, 3, &m), 1 + 5);
}
