//! The canned broker responses of the producer firmware (`tests/firmware/src/producer.rs`):
//! response frames in the shape a single-node Kafka 4.4.0 cluster gives a producer that sends
//! ApiVersions v3, Metadata v12, InitProducerId v4 and Produce v9 for one topic. The firmware
//! embeds the files in `tests/firmware/canned/`; this test rebuilds them from the values below
//! and fails when a file differs. `KW_BLESS=1 cargo test -p kafka-wire --test firmware_canned`
//! rewrites them.
//!
//! They are built here, not recorded: the ApiVersions answer lists only the four APIs the
//! firmware uses (a real broker lists every API it serves, 738 bytes where this is 44), with the
//! ranges the real 4.4.0 broker's answer gives them (`tests/data/api-versions/4.4.0-broker-v3.bin`).

use std::path::PathBuf;

use kafka_wire::frame::encode_response_frame;
use kafka_wire::frame::{parse_response_frame_to, Mode};
use kafka_wire::messages::api_versions_response::{ApiVersion, ApiVersionsResponse};
use kafka_wire::messages::init_producer_id_response::InitProducerIdResponse;
use kafka_wire::messages::metadata_response::{
    MetadataResponse, MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use kafka_wire::messages::produce_response::{PartitionProduceResponse, ProduceResponse, TopicProduceResponse};
use kafka_wire::messages::ApiVersionsRequest;
use kafka_wire::{ApiKey, Array, ResponseBody, Uuid};

/// What the firmware and these answers agree on.
const TOPIC: &str = "firmware";
const TOPIC_ID: u128 = 0x6b77_6669_726d_4000_8000_0000_0000_0001;
const CLUSTER_ID: &str = "kw-firmware-cluster";
const BROKER_ID: i32 = 1;
const PRODUCER_ID: i64 = 4000;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/firmware/canned")
}

fn frame(correlation_id: i32, body: &ResponseBody<'_>, version: i16) -> Vec<u8> {
    let mut out = vec![0u8; 4096];
    let n = encode_response_frame(correlation_id, body, version, &mut out).expect("encodes");
    out.truncate(n);
    out
}

/// (file, frame bytes) of every canned response.
fn canned() -> Vec<(&'static str, Vec<u8>)> {
    // The four APIs' ranges, as the real 4.4.0 broker's answer gives them.
    let real = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/api-versions/4.4.0-broker-v3.bin"),
    )
    .expect("the real 4.4.0 answer");
    let real = parse_response_frame_to::<ApiVersionsRequest<'_>>(&real, 3, Mode::Strict).expect("it parses");
    let keys: Vec<ApiVersion<'_>> = [
        ApiKey::Produce,
        ApiKey::Metadata,
        ApiKey::ApiVersions,
        ApiKey::InitProducerId,
    ]
    .iter()
    .map(|&k| {
        let a = real
            .body
            .api_keys
            .iter()
            .find(|a| a.api_key == k.id())
            .expect("the broker lists the API");
        ApiVersion {
            api_key: k.id(),
            min_version: a.min_version,
            max_version: a.max_version,
            ..ApiVersion::DEFAULT
        }
    })
    .collect();
    let api_versions = ApiVersionsResponse {
        api_keys: Array::from_slice(&keys),
        ..ApiVersionsResponse::DEFAULT
    };

    let brokers = [MetadataResponseBroker {
        node_id: BROKER_ID,
        host: "10.0.0.1",
        port: 9092,
        rack: None,
        ..MetadataResponseBroker::DEFAULT
    }];
    let replicas = [BROKER_ID];
    let partitions = [MetadataResponsePartition {
        partition_index: 0,
        leader_id: BROKER_ID,
        leader_epoch: 0,
        replica_nodes: Array::from_slice(&replicas),
        isr_nodes: Array::from_slice(&replicas),
        ..MetadataResponsePartition::DEFAULT
    }];
    let topics = [MetadataResponseTopic {
        name: Some(TOPIC),
        topic_id: Uuid::from_u128(TOPIC_ID),
        partitions: Array::from_slice(&partitions),
        topic_authorized_operations: i32::MIN,
        ..MetadataResponseTopic::DEFAULT
    }];
    let metadata = MetadataResponse {
        brokers: Array::from_slice(&brokers),
        cluster_id: Some(CLUSTER_ID),
        controller_id: BROKER_ID,
        topics: Array::from_slice(&topics),
        cluster_authorized_operations: i32::MIN,
        ..MetadataResponse::DEFAULT
    };

    let init = InitProducerIdResponse {
        producer_id: PRODUCER_ID,
        producer_epoch: 0,
        ..InitProducerIdResponse::DEFAULT
    };

    let produced = [PartitionProduceResponse {
        index: 0,
        base_offset: 0,
        log_append_time_ms: -1,
        log_start_offset: 0,
        ..PartitionProduceResponse::DEFAULT
    }];
    let responses = [TopicProduceResponse {
        name: TOPIC,
        partition_responses: Array::from_slice(&produced),
        ..TopicProduceResponse::DEFAULT
    }];
    let produce = ProduceResponse {
        responses: Array::from_slice(&responses),
        ..ProduceResponse::DEFAULT
    };

    vec![
        (
            "api_versions_response_v3.bin",
            frame(1, &ResponseBody::ApiVersions(api_versions), 3),
        ),
        (
            "metadata_response_v12.bin",
            frame(2, &ResponseBody::Metadata(metadata), 12),
        ),
        (
            "init_producer_id_response_v4.bin",
            frame(3, &ResponseBody::InitProducerId(init), 4),
        ),
        ("produce_response_v9.bin", frame(4, &ResponseBody::Produce(produce), 9)),
    ]
}

#[test]
fn canned_responses_are_up_to_date() {
    let bless = std::env::var_os("KW_BLESS").is_some();
    for (name, bytes) in canned() {
        let path = dir().join(name);
        if bless {
            std::fs::create_dir_all(dir()).unwrap();
            std::fs::write(&path, &bytes).unwrap();
        }
        let committed = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(committed, bytes, "{name} is stale: run with KW_BLESS=1");
    }
}

#[test]
fn canned_responses_parse_strictly() {
    use kafka_wire::frame::{parse_response_frame, Mode};
    let answers = [
        (ApiKey::ApiVersions, 3),
        (ApiKey::Metadata, 12),
        (ApiKey::InitProducerId, 4),
        (ApiKey::Produce, 9),
    ];
    for ((name, bytes), (key, version)) in canned().into_iter().zip(answers) {
        let f = parse_response_frame(&bytes, key, version, Mode::Strict).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(f.body.key(), key, "{name}");
    }
}
