//! A producer: what a device that produces to Kafka sends and reads. It encodes the request
//! frames of ApiVersions v3, Metadata v12, InitProducerId v4 and Produce v9 (with a record
//! batch of an idempotent producer built on the stack) and parses the canned answers of a
//! single-node Kafka 4.4.0 cluster (`canned/`, written by `core/tests/firmware_canned.rs`),
//! checking what a producer needs from each. Built alone (feature `producer`) to measure what
//! a producer costs in flash and stack.

use kafka_wire::frame::{encode_request_frame, parse_response_frame_to, Mode};
use kafka_wire::messages::metadata_request::MetadataRequestTopic;
use kafka_wire::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kafka_wire::messages::{ApiVersionsRequest, InitProducerIdRequest, MetadataRequest, ProduceRequest};
use kafka_wire::records::{BatchBuilder, BatchRecords, NewHeader, NewRecord, RecordBatch};
use kafka_wire::{Array, RequestBody};

use crate::report::Checks;

const CLIENT_ID: &str = "kw-firmware";
const TOPIC: &str = "firmware";
const BROKER_ID: i32 = 1;
const PRODUCER_ID: i64 = 4000;

static API_VERSIONS: &[u8] = include_bytes!("../canned/api_versions_response_v3.bin");
static METADATA: &[u8] = include_bytes!("../canned/metadata_response_v12.bin");
static INIT_PRODUCER_ID: &[u8] = include_bytes!("../canned/init_producer_id_response_v4.bin");
static PRODUCE: &[u8] = include_bytes!("../canned/produce_response_v9.bin");

/// Encodes one request frame into `buf`; its length, or 0 after a failed check.
fn send(
    c: &mut Checks,
    what: &'static str,
    correlation_id: i32,
    body: &RequestBody<'_>,
    version: i16,
    buf: &mut [u8],
) -> usize {
    match encode_request_frame(correlation_id, Some(CLIENT_ID), body, version, buf) {
        Ok(n) => {
            c.check(n > 12, what);
            n
        }
        Err(e) => {
            say!("FAILED: {} request: {}", what, e);
            c.check(false, what);
            0
        }
    }
}

pub fn run(c: &mut Checks, buf: &mut [u8]) {
    // ApiVersions v3: the broker must speak Produce v9, Metadata v12 and InitProducerId v4.
    let req = ApiVersionsRequest {
        client_software_name: "kafka-wire-firmware",
        client_software_version: "0.1.0",
        ..ApiVersionsRequest::DEFAULT
    };
    send(
        c,
        "producer: ApiVersions v3 frame",
        1,
        &RequestBody::ApiVersions(req),
        3,
        buf,
    );
    match parse_response_frame_to::<ApiVersionsRequest<'_>>(API_VERSIONS, 3, Mode::Strict) {
        Ok(f) => {
            c.eq("producer: ApiVersions correlation id", f.header.correlation_id, 1);
            c.eq("producer: ApiVersions error", f.body.error_code, 0);
            let speaks = |key: i16, v: i16| {
                f.body
                    .api_keys
                    .iter()
                    .any(|k| k.api_key == key && k.min_version <= v && v <= k.max_version)
            };
            c.check(speaks(0, 9), "producer: the broker speaks Produce v9");
            c.check(speaks(3, 12), "producer: the broker speaks Metadata v12");
            c.check(speaks(22, 4), "producer: the broker speaks InitProducerId v4");
            say!("ApiVersions v3: {} APIs", f.body.api_keys.len());
        }
        Err(e) => {
            say!("FAILED: ApiVersions v3 response: {}", e);
            c.check(false, "producer: ApiVersions response");
        }
    }

    // Metadata v12 for the topic: the leader of partition 0 and its address.
    let topics = [MetadataRequestTopic {
        name: Some(TOPIC),
        ..MetadataRequestTopic::DEFAULT
    }];
    let req = MetadataRequest {
        topics: Some(Array::from_slice(&topics)),
        ..MetadataRequest::DEFAULT
    };
    send(
        c,
        "producer: Metadata v12 frame",
        2,
        &RequestBody::Metadata(req),
        12,
        buf,
    );
    match parse_response_frame_to::<MetadataRequest<'_>>(METADATA, 12, Mode::Strict) {
        Ok(f) => {
            c.eq("producer: Metadata correlation id", f.header.correlation_id, 2);
            let topic = f.body.topics.iter().find(|t| t.name == Some(TOPIC));
            let leader = topic
                .and_then(|t| {
                    t.partitions
                        .iter()
                        .find(|p| p.partition_index == 0 && p.error_code == 0)
                })
                .map(|p| p.leader_id);
            c.eq("producer: partition 0's leader", leader, Some(BROKER_ID));
            let broker = f.body.brokers.iter().find(|b| Some(b.node_id) == leader);
            c.eq("producer: the leader's port", broker.map(|b| b.port), Some(9092));
            if let Some(b) = broker {
                say!(
                    "Metadata v12: {} partition 0 leader {} at {}:{}",
                    TOPIC,
                    b.node_id,
                    b.host,
                    b.port
                );
            }
        }
        Err(e) => {
            say!("FAILED: Metadata v12 response: {}", e);
            c.check(false, "producer: Metadata response");
        }
    }

    // InitProducerId v4: an idempotent producer's id and epoch.
    let req = InitProducerIdRequest {
        transactional_id: None,
        transaction_timeout_ms: -1,
        ..InitProducerIdRequest::DEFAULT
    };
    send(
        c,
        "producer: InitProducerId v4 frame",
        3,
        &RequestBody::InitProducerId(req),
        4,
        buf,
    );
    let (producer_id, producer_epoch) =
        match parse_response_frame_to::<InitProducerIdRequest<'_>>(INIT_PRODUCER_ID, 4, Mode::Strict) {
            Ok(f) => {
                c.eq("producer: InitProducerId correlation id", f.header.correlation_id, 3);
                c.eq("producer: InitProducerId error", f.body.error_code, 0);
                c.eq("producer: producer id", f.body.producer_id, PRODUCER_ID);
                say!(
                    "InitProducerId v4: producer id {} epoch {}",
                    f.body.producer_id,
                    f.body.producer_epoch
                );
                (f.body.producer_id, f.body.producer_epoch)
            }
            Err(e) => {
                say!("FAILED: InitProducerId v4 response: {}", e);
                c.check(false, "producer: InitProducerId response");
                (-1, -1)
            }
        };

    // Produce v9: one batch of three records, built on the stack.
    let headers = [NewHeader::new("unit", Some(b"celsius"))];
    let records = [
        NewRecord {
            offset_delta: 0,
            key: Some(b"sensor-1"),
            value: Some(b"21.5"),
            headers: &headers,
            ..NewRecord::DEFAULT
        },
        NewRecord {
            offset_delta: 1,
            timestamp_delta: 1000,
            key: Some(b"sensor-1"),
            value: Some(b"21.7"),
            headers: &headers,
            ..NewRecord::DEFAULT
        },
        NewRecord {
            offset_delta: 2,
            timestamp_delta: 2000,
            key: Some(b"sensor-2"),
            value: None,
            ..NewRecord::DEFAULT
        },
    ];
    let batch = BatchBuilder {
        base_timestamp: 1_764_633_600_000,
        producer_id,
        producer_epoch,
        base_sequence: 0,
        records: BatchRecords::Plain(&records),
        ..BatchBuilder::DEFAULT
    };
    let mut batch_buf = [0u8; 256];
    let batch_len = match batch.encode_to_slice(&mut batch_buf) {
        Ok(n) => n,
        Err(e) => {
            say!("FAILED: record batch: {}", e);
            0
        }
    };
    let batch_bytes = batch_buf.get(..batch_len).unwrap_or(&[]);
    // The batch reads back: three records, its CRC checked.
    let batch_ok = RecordBatch::parse(batch_bytes)
        .is_ok_and(|(b, rest)| rest.is_empty() && b.record_count == 3 && b.producer_id == producer_id);
    c.check(batch_ok, "producer: the record batch reads back");
    let partitions = [PartitionProduceData {
        index: 0,
        records: Some(batch_bytes),
        ..PartitionProduceData::DEFAULT
    }];
    let topics = [TopicProduceData {
        name: TOPIC,
        partition_data: Array::from_slice(&partitions),
        ..TopicProduceData::DEFAULT
    }];
    let req = ProduceRequest {
        acks: -1,
        timeout_ms: 30_000,
        topic_data: Array::from_slice(&topics),
        ..ProduceRequest::DEFAULT
    };
    let n = send(c, "producer: Produce v9 frame", 4, &RequestBody::Produce(req), 9, buf);
    say!(
        "Produce v9: a {}-byte frame with a {}-byte batch of 3 records",
        n,
        batch_len
    );
    match parse_response_frame_to::<ProduceRequest<'_>>(PRODUCE, 9, Mode::Strict) {
        Ok(f) => {
            c.eq("producer: Produce correlation id", f.header.correlation_id, 4);
            let p = f
                .body
                .responses
                .iter()
                .find(|t| t.name == TOPIC)
                .and_then(|t| t.partition_responses.iter().find(|p| p.index == 0));
            c.eq("producer: Produce partition error", p.map(|p| p.error_code), Some(0));
            c.eq("producer: base offset", p.map(|p| p.base_offset), Some(0));
            say!("Produce v9 response: base offset {}", p.map_or(-1, |p| p.base_offset));
        }
        Err(e) => {
            say!("FAILED: Produce v9 response: {}", e);
            c.check(false, "producer: Produce response");
        }
    }
}
