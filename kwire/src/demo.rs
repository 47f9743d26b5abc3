//! `kwire demo`: the main job on built-in samples, offline.
//!
//! 1. A producer's conversation with a broker: its requests built on the stack and encoded as
//!    frames; the broker's answers are real ones (`samples/`, recorded from Apache Kafka 4.4.0),
//!    parsed as the answers to the requests sent; versions negotiated from the ApiVersions answer.
//! 2. Views and owned values as Kafka-shaped JSON, and back.
//! 3. What the seed KIPs added: ELR fields in a `__cluster_metadata` batch, and the AlterPartition,
//!    BrokerRegistration and KIP-1279 mirror messages as frames; each decoded back to JSON.
//!
//! Every frame and record built here is parsed back and must re-encode to the same bytes. The
//! last line is a one-line summary.

use std::io::Write;

use kafka_wire::frame::{
    encode_metadata_record, encode_request_frame, encode_request_frame_into, encode_response_frame_into,
    parse_request_frame, parse_response_frame, parse_response_frame_to, Mode,
};
use kafka_wire::messages::alter_partition_request::{self as apreq, AlterPartitionRequest};
use kafka_wire::messages::alter_partition_response::{self as apresp, AlterPartitionResponse};
use kafka_wire::messages::broker_registration_request::{self as brr, BrokerRegistrationRequest};
use kafka_wire::messages::bump_leader_epochs_request::{self as bler, BumpLeaderEpochsRequest};
use kafka_wire::messages::bump_leader_epochs_response::{self as blers, BumpLeaderEpochsResponse};
use kafka_wire::messages::describe_mirrors_request::DescribeMirrorsRequest;
use kafka_wire::messages::describe_mirrors_response::{self as dmr, DescribeMirrorsResponse};
use kafka_wire::messages::metadata_request::{MetadataRequest, MetadataRequestTopic};
use kafka_wire::messages::metadata_response::owned as owned_metadata;
use kafka_wire::messages::produce_request::{PartitionProduceData, ProduceRequest, TopicProduceData};
use kafka_wire::messages::read_mirror_states_request::{self as rmsr, ReadMirrorStatesRequest};
use kafka_wire::messages::read_mirror_states_response::{self as rmsrs, ReadMirrorStatesResponse};
use kafka_wire::messages::ApiVersionsRequest;
use kafka_wire::metadata::{ClearElrRecord, PartitionChangeRecord, PartitionRecord, TopicRecord};
use kafka_wire::records::{Batch, BatchBuilder, BatchRecords, Batches, NewHeader, NewRecord};
use kafka_wire::versions::Negotiated;
use kafka_wire::{ApiKey, Array, ErrorCode, Message, MetadataRecord, OwnedMessage, RequestBody, ResponseBody, Uuid};
use kafka_wire_ext::dump_log::metadata_record_json;
use kafka_wire_ext::json::{entry_of, from_json, owned_to_json, uuid_to_string, wire_to_json};
use serde_json::Value;

/// The broker's answer to ApiVersions v5 (correlation id 0).
const API_VERSIONS_ANSWER: &[u8] = include_bytes!("samples/api_versions_response_v5.bin");
/// The version of the ApiVersions request that answer answers.
const API_VERSIONS_ASKED: i16 = 5;
/// The broker's answer to Metadata v13 for topic `kwire-pcap` (correlation id 1).
const METADATA_ANSWER: &[u8] = include_bytes!("samples/metadata_response_v13.bin");
const METADATA_ASKED: i16 = 13;
/// The broker's answer to Produce v13 with acks -1, to `kwire-pcap` partition 0 (correlation id 4).
const PRODUCE_ANSWER: &[u8] = include_bytes!("samples/produce_response_v13.bin");
const PRODUCE_ASKED: i16 = 13;

/// The topic of the recorded conversation.
const TOPIC: &str = "kwire-pcap";
const CLIENT_ID: &str = "kwire-demo";

type Out<'o> = &'o mut dyn Write;

fn io(e: std::io::Error) -> String {
    format!("writing standard output: {e}")
}

fn err(what: &str) -> impl Fn(kafka_wire::DecodeError) -> String + '_ {
    move |e| format!("{what}: {e}")
}

/// Counts what the demo checked, for the summary line.
#[derive(Default)]
struct Tally {
    answers: usize,
    frames: usize,
    records: usize,
}

/// What this client speaks: a producer's APIs, at every stable version kafka-wire has.
fn ours(key: ApiKey) -> Option<(i16, i16)> {
    if !matches!(key, ApiKey::ApiVersions | ApiKey::Metadata | ApiKey::Produce) {
        return None;
    }
    let i = key.request_info();
    let max = if i.latest_version_unstable && i.max_version > i.min_version {
        i.max_version - 1
    } else {
        i.max_version
    };
    Some((i.min_version, max))
}

/// A request frame: encoded, parsed back strictly, its body re-encoded to the same bytes.
/// Returns the frame and the body as JSON.
fn request_round_trip(
    correlation_id: i32,
    body: &RequestBody<'_>,
    version: i16,
    t: &mut Tally,
) -> Result<(Vec<u8>, Value), String> {
    let name = body.info().name;
    let mut frame = Vec::new();
    encode_request_frame_into(correlation_id, Some(CLIENT_ID), body, version, &mut frame)
        .map_err(|e| format!("encoding {name} v{version}: {e}"))?;
    let f = parse_request_frame(&frame, Mode::Strict).map_err(err(name))?;
    let mut again = Vec::new();
    f.body
        .encode(&mut again, version)
        .map_err(|e| format!("re-encoding {name} v{version}: {e}"))?;
    if again != f.body_bytes || f.api_key != body.key() || f.header.correlation_id != correlation_id {
        return Err(format!("{name} v{version} did not round-trip"));
    }
    let json = wire_to_json(
        entry_of(f.body.schema()).map_err(|e| e.to_string())?,
        f.body_bytes,
        version,
    )
    .map_err(|e| e.to_string())?;
    t.frames += 1;
    Ok((frame, json))
}

/// The same for a response frame.
fn response_round_trip(body: &ResponseBody<'_>, version: i16, t: &mut Tally) -> Result<(Vec<u8>, Value), String> {
    let name = body.info().name;
    let mut frame = Vec::new();
    encode_response_frame_into(1, body, version, &mut frame).map_err(|e| format!("encoding {name} v{version}: {e}"))?;
    let f = parse_response_frame(&frame, body.key(), version, Mode::Strict).map_err(err(name))?;
    let mut again = Vec::new();
    f.body
        .encode(&mut again, version)
        .map_err(|e| format!("re-encoding {name} v{version}: {e}"))?;
    if again != f.body_bytes {
        return Err(format!("{name} v{version} did not round-trip"));
    }
    let json = wire_to_json(
        entry_of(f.body.schema()).map_err(|e| e.to_string())?,
        f.body_bytes,
        version,
    )
    .map_err(|e| e.to_string())?;
    t.frames += 1;
    Ok((frame, json))
}

/// Runs the demo, writing to `out`.
pub fn run(out: Out<'_>) -> Result<(), String> {
    let mut t = Tally::default();
    let versions = conversation(out, &mut t)?;
    seed_kips(out, &mut t)?;
    let v = |k| versions.version(k).map_or("-".to_string(), |v| format!("v{v}"));
    writeln!(
        out,
        "\nkwire demo: {} recorded broker answers parsed (ApiVersions {}, Metadata {}, Produce {} negotiated); {} frames and {} metadata records built, encoded, decoded and re-encoded",
        t.answers,
        v(ApiKey::ApiVersions),
        v(ApiKey::Metadata),
        v(ApiKey::Produce),
        t.frames,
        t.records,
    )
    .map_err(io)
}

/// Part 1 and 2: the producer's conversation, and its answers as JSON.
fn conversation(out: Out<'_>, t: &mut Tally) -> Result<Negotiated, String> {
    writeln!(
        out,
        "== A producer's conversation, offline: requests built here, answers recorded from a Kafka 4.4.0 broker"
    )
    .map_err(io)?;

    // ApiVersions: the first request on a connection, at the highest version this client speaks.
    let (_, av_version) = ours(ApiKey::ApiVersions).ok_or("no ApiVersions range")?;
    let request = ApiVersionsRequest {
        client_software_name: CLIENT_ID,
        client_software_version: env!("CARGO_PKG_VERSION"),
        ..ApiVersionsRequest::DEFAULT
    };
    let mut buf = [0u8; 64];
    let n = encode_request_frame(
        0,
        Some(CLIENT_ID),
        &RequestBody::ApiVersions(request),
        av_version,
        &mut buf,
    )
    .map_err(|e| format!("encoding ApiVersions: {e}"))?;
    request_round_trip(0, &RequestBody::ApiVersions(request), av_version, t)?;
    writeln!(
        out,
        "ApiVersions request v{av_version}, encoded on the stack ({n} bytes): {}",
        hex::encode(&buf[..n])
    )
    .map_err(io)?;
    if av_version != API_VERSIONS_ASKED {
        return Err(format!(
            "the recorded ApiVersions answer is to v{API_VERSIONS_ASKED}, this client sends v{av_version}"
        ));
    }

    // The broker's answer, read as the answer to that request: no API key given by hand.
    let answer = parse_response_frame_to::<ApiVersionsRequest<'_>>(API_VERSIONS_ANSWER, av_version, Mode::Strict)
        .map_err(err("the recorded ApiVersions answer"))?;
    t.answers += 1;
    writeln!(
        out,
        "ApiVersions response v{av_version} ({} bytes, recorded): correlation id {}, error {}, {} APIs listed",
        API_VERSIONS_ANSWER.len(),
        answer.header.correlation_id,
        ErrorCode::from_code(answer.body.error_code),
        answer.body.api_keys.len(),
    )
    .map_err(io)?;

    // Negotiation: the highest version both sides speak, per API this client uses.
    let versions = Negotiated::new(&answer.body, ours).map_err(|e| e.to_string())?;
    writeln!(out, "Negotiated (the highest version in both ranges):").map_err(io)?;
    for key in [ApiKey::ApiVersions, ApiKey::Metadata, ApiKey::Produce] {
        let broker = answer
            .body
            .api_keys
            .iter()
            .find(|k| k.api_key == key.id())
            .map_or("none".to_string(), |k| format!("{}-{}", k.min_version, k.max_version));
        let (lo, hi) = ours(key).ok_or("no range")?;
        let agreed = versions.version(key).map_or("none".to_string(), |v| format!("v{v}"));
        writeln!(
            out,
            "  {}: {agreed} (broker {broker}, this client {lo}-{hi})",
            key.name()
        )
        .map_err(io)?;
    }

    // Metadata for the topic, at the agreed version.
    let md_version = versions
        .version(ApiKey::Metadata)
        .ok_or("the broker serves no Metadata version we speak")?;
    if md_version != METADATA_ASKED {
        return Err(format!(
            "the recorded Metadata answer is to v{METADATA_ASKED}, negotiated v{md_version}"
        ));
    }
    let topics = [MetadataRequestTopic {
        name: Some(TOPIC),
        ..MetadataRequestTopic::DEFAULT
    }];
    let request = MetadataRequest {
        topics: Some(Array::from_slice(&topics)),
        ..MetadataRequest::DEFAULT
    };
    let (frame, _) = request_round_trip(1, &RequestBody::Metadata(request), md_version, t)?;
    writeln!(
        out,
        "\nMetadata request v{md_version} for topic {TOPIC} ({} bytes): {}",
        frame.len(),
        hex::encode(&frame)
    )
    .map_err(io)?;
    let md = parse_response_frame_to::<MetadataRequest<'_>>(METADATA_ANSWER, md_version, Mode::Strict)
        .map_err(err("the recorded Metadata answer"))?;
    t.answers += 1;
    writeln!(
        out,
        "Metadata response v{md_version} ({} bytes, recorded): correlation id {}, cluster {}, controller {}",
        METADATA_ANSWER.len(),
        md.header.correlation_id,
        md.body.cluster_id.unwrap_or("-"),
        md.body.controller_id,
    )
    .map_err(io)?;
    for b in md.body.brokers.iter() {
        writeln!(out, "  broker {} at {}:{}", b.node_id, b.host, b.port).map_err(io)?;
    }
    let mut topic_id = None;
    for topic in md.body.topics.iter() {
        for p in topic.partitions.iter() {
            writeln!(
                out,
                "  topic {} (id {}) partition {}: {}, leader {} epoch {}, replicas {:?}, isr {:?}",
                topic.name.unwrap_or("-"),
                uuid_to_string(&topic.topic_id),
                p.partition_index,
                ErrorCode::from_code(p.error_code),
                p.leader_id,
                p.leader_epoch,
                p.replica_nodes.iter().collect::<Vec<_>>(),
                p.isr_nodes.iter().collect::<Vec<_>>(),
            )
            .map_err(io)?;
        }
        if topic.name == Some(TOPIC) {
            topic_id = Some(topic.topic_id);
        }
    }
    let topic_id = topic_id.ok_or("the Metadata answer does not list the topic")?;

    // Produce: two records in a batch, the request borrowing it, all in stack buffers.
    let pr_version = versions
        .version(ApiKey::Produce)
        .ok_or("the broker serves no Produce version we speak")?;
    if pr_version != PRODUCE_ASKED {
        return Err(format!(
            "the recorded Produce answer is to v{PRODUCE_ASKED}, negotiated v{pr_version}"
        ));
    }
    let headers = [NewHeader::new("unit", Some(b"celsius"))];
    let records = [
        NewRecord {
            key: Some(b"sensor-7"),
            value: Some(b"21.5"),
            headers: &headers,
            ..NewRecord::DEFAULT
        },
        NewRecord {
            offset_delta: 1,
            timestamp_delta: 1000,
            key: Some(b"sensor-7"),
            value: Some(b"21.7"),
            ..NewRecord::DEFAULT
        },
    ];
    let batch = BatchBuilder {
        base_timestamp: 1_700_000_000_000,
        records: BatchRecords::Plain(&records),
        ..BatchBuilder::DEFAULT
    };
    let mut batch_buf = [0u8; 256];
    let batch_len = batch
        .encode_to_slice(&mut batch_buf)
        .map_err(|e| format!("encoding the batch: {e}"))?;
    // From v13 a Produce request names its topics by id (the Metadata answer gave it).
    let partitions = [PartitionProduceData {
        index: 0,
        records: Some(&batch_buf[..batch_len]),
        ..PartitionProduceData::DEFAULT
    }];
    let topics = [TopicProduceData {
        name: TOPIC,
        topic_id,
        partition_data: Array::from_slice(&partitions),
        ..TopicProduceData::DEFAULT
    }];
    let request = ProduceRequest {
        acks: -1,
        timeout_ms: 30_000,
        topic_data: Array::from_slice(&topics),
        ..ProduceRequest::DEFAULT
    };
    let mut frame_buf = [0u8; 512];
    let n = encode_request_frame(
        2,
        Some(CLIENT_ID),
        &RequestBody::Produce(request),
        pr_version,
        &mut frame_buf,
    )
    .map_err(|e| format!("encoding Produce: {e}"))?;
    request_round_trip(2, &RequestBody::Produce(request), pr_version, t)?;
    writeln!(
        out,
        "\nProduce request v{pr_version} to {} partition 0, acks -1, built on the stack: frame {n} bytes, record batch {batch_len} bytes",
        uuid_to_string(&topic_id)
    )
    .map_err(io)?;
    let parsed = parse_request_frame(&frame_buf[..n], Mode::Strict).map_err(err("Produce"))?;
    let RequestBody::Produce(produce) = parsed.body else {
        return Err("the Produce frame parsed as another API".into());
    };
    for topic in produce.topic_data.iter() {
        for partition in topic.partition_data.iter() {
            for batch in Batches::new(partition.records.unwrap_or_default()) {
                let Batch::V2(batch) = batch.map_err(err("the batch"))? else {
                    continue;
                };
                for record in batch.records().into_iter().flat_map(|r| r.iter()) {
                    writeln!(
                        out,
                        "  read back: offset {} key {:?} value {:?}, {} header(s)",
                        batch.offset_of(&record),
                        record.key.map(String::from_utf8_lossy).unwrap_or_default(),
                        record.value.map(String::from_utf8_lossy).unwrap_or_default(),
                        record.headers.iter().count(),
                    )
                    .map_err(io)?;
                }
            }
        }
    }
    // The answer's type comes from the request's: ProduceRequest::Response is ProduceResponse.
    let answer = parse_response_frame_to::<ProduceRequest<'_>>(PRODUCE_ANSWER, pr_version, Mode::Strict)
        .map_err(err("the recorded Produce answer"))?;
    t.answers += 1;
    writeln!(
        out,
        "Produce response v{pr_version} ({} bytes, recorded, the broker's answer to Kafka's Java producer): correlation id {}",
        PRODUCE_ANSWER.len(),
        answer.header.correlation_id
    )
    .map_err(io)?;
    for topic in answer.body.responses.iter() {
        for p in topic.partition_responses.iter() {
            writeln!(
                out,
                "  {} partition {}: {}, base offset {}, log start offset {}",
                uuid_to_string(&topic.topic_id),
                p.index,
                ErrorCode::from_code(p.error_code),
                p.base_offset,
                p.log_start_offset,
            )
            .map_err(io)?;
        }
    }

    // Part 2: the same answers as JSON, from the view and from an owned value.
    writeln!(out, "\n== Views and owned values as Kafka-shaped JSON").map_err(io)?;
    let entry =
        entry_of(<kafka_wire::messages::ProduceResponse<'_> as Message<'_>>::SCHEMA).map_err(|e| e.to_string())?;
    let json = wire_to_json(entry, answer.body_bytes, pr_version).map_err(|e| e.to_string())?;
    writeln!(
        out,
        "ProduceResponse v{pr_version}, from its view (as `kwire decode` prints it):\n  {json}"
    )
    .map_err(io)?;
    let owned = owned_metadata::MetadataResponse::parse(md.body_bytes, md_version).map_err(err("owned Metadata"))?;
    let json = owned_to_json(&owned, md_version).map_err(|e| e.to_string())?;
    writeln!(
        out,
        "MetadataResponse v{md_version}, parsed into an owned value, to JSON:\n  {json}"
    )
    .map_err(io)?;
    let back: owned_metadata::MetadataResponse = from_json(&json, md_version).map_err(|e| e.to_string())?;
    let bytes = back
        .to_vec(md_version)
        .map_err(|e| format!("encoding the owned Metadata answer: {e}"))?;
    if bytes != md.body_bytes {
        return Err("the Metadata answer did not survive JSON and back".into());
    }
    writeln!(
        out,
        "  and from that JSON back to an owned value, encoded: {} bytes, the broker's own",
        bytes.len()
    )
    .map_err(io)?;
    Ok(versions)
}

/// Part 3: the seed KIPs' records and messages.
fn seed_kips(out: Out<'_>, t: &mut Tally) -> Result<(), String> {
    writeln!(
        out,
        "\n== Seed KIPs: ELR fields (KIP-966) in a __cluster_metadata batch, decoded back to JSON"
    )
    .map_err(io)?;
    let topic_id = Uuid::from_u128(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef);
    let (replicas, isr, elr, last_known, none) = ([1, 2, 3], [1], [2], [3], [0i32; 0]);
    let metadata = [
        (
            MetadataRecord::Topic(TopicRecord {
                name: "orders",
                topic_id,
                ..TopicRecord::DEFAULT
            }),
            0,
        ),
        (
            MetadataRecord::Partition(PartitionRecord {
                partition_id: 0,
                topic_id,
                replicas: Array::from_slice(&replicas),
                isr: Array::from_slice(&replicas),
                leader: 1,
                leader_epoch: 3,
                partition_epoch: 4,
                eligible_leader_replicas: Some(Array::from_slice(&none)),
                last_known_elr: Some(Array::from_slice(&none)),
                ..PartitionRecord::DEFAULT
            }),
            2,
        ),
        (
            // Brokers 2 and 3 fell out of the ISR: 2 is eligible to lead, 3 was last known in it.
            MetadataRecord::PartitionChange(PartitionChangeRecord {
                partition_id: 0,
                topic_id,
                isr: Some(Array::from_slice(&isr)),
                eligible_leader_replicas: Some(Array::from_slice(&elr)),
                last_known_elr: Some(Array::from_slice(&last_known)),
                ..PartitionChangeRecord::DEFAULT
            }),
            2,
        ),
        (
            MetadataRecord::ClearElr(ClearElrRecord {
                topic_name: "orders",
                ..ClearElrRecord::DEFAULT
            }),
            0,
        ),
    ];
    let mut values = [[0u8; 96]; 4];
    let mut lens = [0usize; 4];
    for (i, (record, version)) in metadata.iter().enumerate() {
        lens[i] = encode_metadata_record(record, *version, &mut values[i])
            .map_err(|e| format!("encoding {:?} v{version}: {e}", record.key()))?;
    }
    let records: Vec<NewRecord<'_>> = (0..metadata.len())
        .map(|i| NewRecord {
            offset_delta: i as i32,
            value: Some(&values[i][..lens[i]]),
            ..NewRecord::DEFAULT
        })
        .collect();
    let batch = BatchBuilder {
        base_offset: 100,
        partition_leader_epoch: 1,
        base_timestamp: 1_700_000_000_000,
        records: BatchRecords::Plain(&records),
        ..BatchBuilder::DEFAULT
    };
    let mut segment = vec![0u8; batch.encoded_len().map_err(|e| e.to_string())?];
    batch.encode_to_slice(&mut segment).map_err(|e| e.to_string())?;
    for b in Batches::new(&segment) {
        let Batch::V2(b) = b.map_err(err("the metadata batch"))? else {
            return Err("not a magic 2 batch".into());
        };
        writeln!(
            out,
            "batch at offset {}: {} records, {} bytes, CRC {}",
            b.base_offset,
            b.record_count,
            segment.len(),
            if b.is_crc_valid() { "valid" } else { "INVALID" }
        )
        .map_err(io)?;
        let records = b.records().ok_or("the metadata batch is compressed")?;
        for (i, (record, framed)) in records.metadata().map_err(err("metadata records"))?.enumerate() {
            let (built, version) = &metadata[i];
            let mut again = [0u8; 96];
            let n = encode_metadata_record(&framed.record, framed.version, &mut again).map_err(|e| e.to_string())?;
            if framed.record_type != built.key() || framed.version != *version || again[..n] != values[i][..lens[i]] {
                return Err(format!("metadata record {i} did not round-trip"));
            }
            t.records += 1;
            let json = metadata_record_json(&framed).map_err(|e| e.to_string())?;
            writeln!(out, "  {}: {json}", b.offset_of(&record)).map_err(io)?;
        }
    }

    writeln!(
        out,
        "\n== Seed KIPs on the wire: AlterPartition (KIP-903, KIP-704), BrokerRegistration (KIP-966), mirrors (KIP-1279 drafts)"
    )
    .map_err(io)?;
    let states = [apreq::BrokerState {
        broker_id: 1,
        broker_epoch: 10,
        ..apreq::BrokerState::DEFAULT
    }];
    let parts = [apreq::PartitionData {
        partition_index: 0,
        leader_epoch: 5,
        new_isr_with_epochs: Array::from_slice(&states),
        partition_epoch: 6,
        ..apreq::PartitionData::DEFAULT
    }];
    let topics = [apreq::TopicData {
        topic_id,
        partitions: Array::from_slice(&parts),
        ..apreq::TopicData::DEFAULT
    }];
    let alter = AlterPartitionRequest {
        broker_id: 1,
        broker_epoch: 10,
        topics: Array::from_slice(&topics),
        ..AlterPartitionRequest::DEFAULT
    };
    let isr = [1, 2, 3];
    let rparts = [apresp::PartitionData {
        partition_index: 0,
        leader_id: 1,
        leader_epoch: 5,
        isr: Array::from_slice(&isr),
        leader_recovery_state: 1,
        partition_epoch: 7,
        ..apresp::PartitionData::DEFAULT
    }];
    let rtopics = [apresp::TopicData {
        topic_id,
        partitions: Array::from_slice(&rparts),
        ..apresp::TopicData::DEFAULT
    }];
    let altered = AlterPartitionResponse {
        topics: Array::from_slice(&rtopics),
        ..AlterPartitionResponse::DEFAULT
    };
    let listeners = [brr::Listener {
        name: "PLAINTEXT",
        host: "127.0.0.1",
        port: 9092,
        security_protocol: 0,
        ..brr::Listener::DEFAULT
    }];
    let register = BrokerRegistrationRequest {
        broker_id: 1,
        cluster_id: "demo-cluster",
        incarnation_id: Uuid::from_u128(99),
        listeners: Array::from_slice(&listeners),
        rack: Some("rack-a"),
        previous_broker_epoch: 41,
        ..BrokerRegistrationRequest::DEFAULT
    };
    let names = ["mirror-a"];
    let describe = DescribeMirrorsRequest {
        mirror_names: Some(Array::from_slice(&names)),
        ..DescribeMirrorsRequest::DEFAULT
    };
    let pd = [dmr::PartitionDetail {
        partition_index: 0,
        source_offset: 100,
        destination_offset: 90,
        lag: 10,
        state: "MIRRORING",
        last_mirror_epoch: 3,
        ..dmr::PartitionDetail::DEFAULT
    }];
    let tp = [dmr::TopicPartitions {
        topic_name: "orders",
        partitions: Array::from_slice(&pd),
        ..dmr::TopicPartitions::DEFAULT
    }];
    let mirrors = [dmr::DescribedMirror {
        mirror_name: "mirror-a",
        topics: Array::from_slice(&tp),
        ..dmr::DescribedMirror::DEFAULT
    }];
    let described = DescribeMirrorsResponse {
        mirrors: Array::from_slice(&mirrors),
        ..DescribeMirrorsResponse::DEFAULT
    };
    let les = [bler::LeaderEpochState {
        partition_index: 0,
        min_leader_epoch: 8,
        ..bler::LeaderEpochState::DEFAULT
    }];
    let ts = [bler::TopicState {
        topic_id,
        partitions: Array::from_slice(&les),
        ..bler::TopicState::DEFAULT
    }];
    let bump = BumpLeaderEpochsRequest {
        topics: Array::from_slice(&ts),
        ..BumpLeaderEpochsRequest::DEFAULT
    };
    let bpd = [blers::PartitionDetail {
        partition_index: 0,
        ..blers::PartitionDetail::DEFAULT
    }];
    let btp = [blers::TopicPartitions {
        topic_name: "orders",
        partitions: Array::from_slice(&bpd),
        ..blers::TopicPartitions::DEFAULT
    }];
    let bumped = BumpLeaderEpochsResponse {
        topics: Array::from_slice(&btp),
        ..BumpLeaderEpochsResponse::DEFAULT
    };
    let rp = [rmsr::PartitionData {
        partition_index: 0,
        ..rmsr::PartitionData::DEFAULT
    }];
    let rt = [rmsr::TopicData {
        name: "orders",
        partitions: Array::from_slice(&rp),
        ..rmsr::TopicData::DEFAULT
    }];
    let read = ReadMirrorStatesRequest {
        mirror_name: "mirror-a",
        topics: Array::from_slice(&rt),
        ..ReadMirrorStatesRequest::DEFAULT
    };
    let rr = [rmsrs::PartitionResult {
        partition_index: 0,
        last_mirror_epoch: 3,
        state: 1,
        ..rmsrs::PartitionResult::DEFAULT
    }];
    let rtr = [rmsrs::TopicResult {
        name: "orders",
        partitions: Array::from_slice(&rr),
        ..rmsrs::TopicResult::DEFAULT
    }];
    let states = ReadMirrorStatesResponse {
        topics: Array::from_slice(&rtr),
        ..ReadMirrorStatesResponse::DEFAULT
    };
    let requests = [
        RequestBody::AlterPartition(alter),
        RequestBody::BrokerRegistration(register),
        RequestBody::DescribeMirrors(describe),
        RequestBody::BumpLeaderEpochs(bump),
        RequestBody::ReadMirrorStates(read),
    ];
    for (i, body) in requests.iter().enumerate() {
        let version = body.info().max_version;
        let (frame, json) = request_round_trip(10 + i as i32, body, version, t)?;
        writeln!(out, "{} v{version} ({} bytes): {json}", body.info().name, frame.len()).map_err(io)?;
    }
    let responses = [
        ResponseBody::AlterPartition(altered),
        ResponseBody::DescribeMirrors(described),
        ResponseBody::BumpLeaderEpochs(bumped),
        ResponseBody::ReadMirrorStates(states),
    ];
    for body in &responses {
        let version = body.info().max_version;
        let (frame, json) = response_round_trip(body, version, t)?;
        writeln!(out, "{} v{version} ({} bytes): {json}", body.info().name, frame.len()).map_err(io)?;
    }
    Ok(())
}
