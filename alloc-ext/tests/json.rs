//! Kafka-shaped JSON for typed views and owned values.

use kafka_wire::messages::alter_partition_request::{self as ap, AlterPartitionRequest};
use kafka_wire::metadata::partition_change_record::{owned, PartitionChangeRecord};
use kafka_wire::{Array, Message, OwnedMessage, Uuid};
use kafka_wire_ext::json::{from_json, owned_to_json, to_json};
use serde_json::json;

#[test]
fn view_json_has_kafka_names_and_version_dependent_fields() {
    let isr = [ap::BrokerState {
        broker_id: 1,
        broker_epoch: 10,
        ..ap::BrokerState::DEFAULT
    }];
    let parts = [ap::PartitionData {
        partition_index: 0,
        leader_epoch: 5,
        new_isr_with_epochs: Array::from_slice(&isr),
        ..ap::PartitionData::DEFAULT
    }];
    let topics = [ap::TopicData {
        topic_id: Uuid::from_u128(1),
        partitions: Array::from_slice(&parts),
        ..ap::TopicData::DEFAULT
    }];
    let req = AlterPartitionRequest {
        broker_id: 3,
        broker_epoch: 7,
        topics: Array::from_slice(&topics),
        ..AlterPartitionRequest::DEFAULT
    };
    let j = to_json(&req, 3).unwrap();
    assert_eq!(
        j,
        json!({"brokerId": 3, "brokerEpoch": 7, "topics": [{"topicId": "AAAAAAAAAAAAAAAAAAAAAQ", "partitions": [
            {"partitionIndex": 0, "leaderEpoch": 5, "newIsrWithEpochs": [{"brokerId": 1, "brokerEpoch": 10}],
             "leaderRecoveryState": 0, "partitionEpoch": 0}]}]})
    );
}

#[test]
fn tagged_fields_appear_only_when_not_default() {
    let rec = PartitionChangeRecord {
        partition_id: 1,
        leader: -2,
        ..PartitionChangeRecord::DEFAULT
    };
    let j = to_json(&rec, 2).unwrap();
    assert_eq!(j, json!({"partitionId": 1, "topicId": "AAAAAAAAAAAAAAAAAAAAAA"}));
    let elr = [4, 5];
    let rec = PartitionChangeRecord {
        eligible_leader_replicas: Some(Array::from_slice(&elr)),
        ..rec
    };
    let j = to_json(&rec, 2).unwrap();
    assert_eq!(j["eligibleLeaderReplicas"], json!([4, 5]));
}

#[test]
fn owned_json_round_trip() {
    let mut rec = owned::PartitionChangeRecord {
        partition_id: 9,
        isr: Some(kafka_wire::SmallVec::from_slice(&[1, 2])),
        ..Default::default()
    };
    rec.unknown_tagged_fields.push(kafka_wire::OwnedRawTaggedField {
        tag: 99,
        data: vec![1, 2, 3],
    });
    let j = owned_to_json(&rec, 1).unwrap();
    assert_eq!(j["_unknownTaggedFields"], json!([{"tag": 99, "data": "AQID"}]));
    let back: owned::PartitionChangeRecord = from_json(&j, 1).unwrap();
    assert_eq!(back, rec);
    // A mandatory field missing from the JSON is named.
    let e = from_json::<owned::PartitionChangeRecord>(&json!({"partitionId": 1}), 1).unwrap_err();
    assert!(e.to_string().contains("unable to locate field 'topicId'"), "{e}");
    // Owned encode agrees with the view encoder.
    let bytes = rec.to_vec(1).unwrap();
    let view = PartitionChangeRecord::parse(&bytes, 1).unwrap();
    assert_eq!(owned::PartitionChangeRecord::from(&view), rec);
}
