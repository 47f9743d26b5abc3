//! Kafka-shaped JSON for typed views and owned values.

mod noise;
use noise::noise;

use arbitrary::Unstructured;
use kafka_wire::messages::alter_partition_request::{self as ap, AlterPartitionRequest};
use kafka_wire::metadata::partition_change_record::{owned, PartitionChangeRecord};
use kafka_wire::{catalog, Array, Message, OwnedMessage, Uuid};
use kafka_wire_ext::json::{from_json, json_to_wire, owned_to_json, to_json, wire_to_json};
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

/// Bytes written by the generated encoders (`canonical`) go to JSON and back through the
/// dynamic encoder: the bytes must be the same, and so must the JSON of them.
fn round_trip(e: &catalog::Entry, canonical: &[u8], v: i16, what: &str) {
    let j = wire_to_json(e, canonical, v).unwrap_or_else(|err| panic!("{} v{v} {what}: {err}", e.info.name));
    let back = json_to_wire(e, &j, v).unwrap_or_else(|err| panic!("{} v{v} {what}: {err}\n{j}", e.info.name));
    assert_eq!(back, canonical, "{} v{v} {what}: {j}", e.info.name);
}

#[test]
fn json_to_wire_gives_the_generated_encoders_bytes_for_every_message_and_version() {
    let mut n = 0;
    for e in catalog::ALL {
        for v in e.info.min_version..=e.info.max_version {
            for seed in 0..4u64 {
                let data = noise(seed * 7919 + 31 * v as u64 + e.info.name.len() as u64, 4096);
                let raw = kafka_wire::arbitrary_bytes(e.schema, v, &mut Unstructured::new(&data)).unwrap();
                // The generated owned encoder's bytes of the value.
                let canonical = (e.owned_transcode)(&raw, v, v).unwrap();
                round_trip(e, &canonical, v, &format!("seed {seed}"));
                n += 1;
            }
            // Every field at its default.
            let desc = e.schema;
            if let Ok(b) = kafka_wire::dynamic::to_vec(&e.info, desc, &kafka_wire::dynamic::Struct::new(desc), v) {
                let canonical = (e.owned_transcode)(&b, v, v).unwrap();
                assert_eq!(b, canonical, "{} v{v}: defaults", e.info.name);
                round_trip(e, &canonical, v, "defaults");
            }
        }
    }
    assert!(n > 3000, "{n}");
}

/// The fuzz seed corpus: a sample of every API message and metadata record at every version,
/// written by the generator's own schema interpreter (`codegen/src/sample.rs`).
#[test]
fn json_to_wire_gives_the_generated_encoders_bytes_for_the_fuzz_corpus() {
    let squash = |s: &str| s.replace('_', "").to_ascii_lowercase();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    let mut n = 0;
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let (group, base) = if let Some(b) = name.strip_prefix("api_") {
            ("messages", b)
        } else if let Some(b) = name.strip_prefix("metadata_") {
            ("metadata", b)
        } else {
            continue;
        };
        for file in std::fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            let fname = file.file_name().unwrap().to_string_lossy().into_owned();
            let (suffix, v) = match fname.split_once("-v") {
                Some((dirn, v)) if group == "messages" => (if dirn == "request" { "request" } else { "response" }, v),
                None if group == "metadata" => ("record", fname.trim_start_matches('v')),
                _ => continue,
            };
            let Ok(v) = v.parse::<i16>() else { continue };
            let want = format!("{}{suffix}", squash(base));
            let e = catalog::ALL
                .iter()
                .find(|e| e.group == group && squash(e.info.name) == want)
                .unwrap_or_else(|| panic!("no catalog entry for {name}/{fname}"));
            let bytes = std::fs::read(&file).unwrap();
            // One byte of the fuzz target's own (direction and version), then the message.
            let canonical = (e.owned_transcode)(&bytes[1..], v, v).unwrap();
            assert_eq!(canonical, &bytes[1..], "{name}/{fname}: the sample is not canonical");
            round_trip(e, &canonical, v, &fname);
            n += 1;
        }
    }
    assert!(n > 700, "{n}");
}
