//! The consumer against a scripted broker: every request it writes is parsed as Kafka parses
//! requests (kafka-wire's request frame parser, checked against Kafka's Java classes), every
//! answer is encoded by kafka-wire's response encoder, record batches by its batch builder. The
//! assertions are Kafka's consumer rules: the start asked of ListOffsets (-2 earliest, -1
//! latest), fetching from the position, records before the fetch offset left out of a batch
//! that starts earlier, the position after the last batch, `OFFSET_OUT_OF_RANGE` resolved by
//! the reset policy, a leader error asking Metadata again, and a batch failing its CRC ending
//! the connection without moving the position.

use kafka_wire::frame::{encode_response_frame, parse_request_frame, Mode};
use kafka_wire::messages::api_versions_response::{ApiVersion, ApiVersionsResponse};
use kafka_wire::messages::fetch_response::{FetchResponse, FetchableTopicResponse, PartitionData};
use kafka_wire::messages::list_offsets_response::{
    ListOffsetsPartitionResponse, ListOffsetsResponse, ListOffsetsTopicResponse,
};
use kafka_wire::messages::metadata_response::{
    MetadataResponse, MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use kafka_wire::records::{BatchBuilder, BatchRecords, NewRecord};
use kafka_wire::{ApiKey, Array, ErrorCode, RequestBody, ResponseBody, Uuid};
use kafka_wire_client::consumer::{Event, Item, Offset, Reset};
use kafka_wire_client::{CloseReason, ConnId, Consumer, ConsumerConfig, ProtocolError, TopicId};

mod common;

type C = Consumer<'static, 4, 3>;

const TOPIC: &str = "t";
const TOPIC_ID: Uuid = Uuid::from_u128(0x5678);

/// A request the consumer wrote, as the broker reads it.
#[derive(Debug)]
struct Req {
    conn: ConnId,
    key: ApiKey,
    version: i16,
    correlation_id: i32,
    /// ListOffsets: (partition, timestamp); Fetch: (partition, fetch offset).
    parts: Vec<(i32, i64)>,
}

fn transmits(c: &mut C, now: u64) -> Vec<Req> {
    let mut out = vec![0u8; 8192];
    let mut v = Vec::new();
    while let Some(t) = common::client(|| c.poll_transmit(now, &mut out)).unwrap() {
        let f = parse_request_frame(&out[..t.len], Mode::Strict).expect("the broker parses the request");
        let mut parts = Vec::new();
        match &f.body {
            RequestBody::ListOffsets(l) => {
                assert_eq!(l.replica_id, -1);
                for t in l.topics.iter() {
                    assert_eq!(t.name, TOPIC);
                    parts.extend(t.partitions.iter().map(|p| (p.partition_index, p.timestamp)));
                }
            }
            RequestBody::Fetch(fr) => {
                assert_eq!((fr.session_id, fr.session_epoch), (0, -1), "no fetch session");
                for t in fr.topics.iter() {
                    if f.api_version >= 13 {
                        assert_eq!(t.topic_id, TOPIC_ID);
                    } else {
                        assert_eq!(t.topic, TOPIC);
                    }
                    parts.extend(t.partitions.iter().map(|p| (p.partition, p.fetch_offset)));
                }
            }
            _ => {}
        }
        v.push(Req {
            conn: t.conn,
            key: f.api_key,
            version: f.api_version,
            correlation_id: f.header.correlation_id,
            parts,
        });
    }
    v
}

fn frame(r: &Req, body: &ResponseBody<'_>) -> Vec<u8> {
    let mut buf = vec![0u8; 1 << 16];
    let n = encode_response_frame(r.correlation_id, body, r.version, &mut buf).unwrap();
    buf.truncate(n);
    buf
}

fn answer(c: &mut C, r: &Req, body: ResponseBody<'_>, now: u64) {
    let f = frame(r, &body);
    common::client(|| c.on_frame(r.conn, &f, now).map(|_| ())).expect("a well-formed answer");
}

fn api_versions(c: &mut C, r: &Req) {
    assert_eq!(r.key, ApiKey::ApiVersions);
    let keys = [(1, 4, 17), (2, 1, 10), (3, 0, 13)].map(|(k, lo, hi)| ApiVersion {
        api_key: k,
        min_version: lo,
        max_version: hi,
        ..ApiVersion::DEFAULT
    });
    let body = ApiVersionsResponse {
        api_keys: Array::from_slice(&keys),
        ..ApiVersionsResponse::DEFAULT
    };
    answer(c, r, ResponseBody::ApiVersions(body), 0);
}

/// Metadata: broker 1 at the bootstrap address, topic `t` of 2 partitions led by `leader`.
fn metadata(c: &mut C, r: &Req, leader: i32) {
    assert_eq!(r.key, ApiKey::Metadata);
    let brokers = [
        MetadataResponseBroker {
            node_id: 1,
            host: "k1",
            port: 9092,
            ..MetadataResponseBroker::DEFAULT
        },
        MetadataResponseBroker {
            node_id: 2,
            host: "k2",
            port: 9092,
            ..MetadataResponseBroker::DEFAULT
        },
    ];
    let parts = [0, 1].map(|i| MetadataResponsePartition {
        partition_index: i,
        leader_id: leader,
        leader_epoch: 3,
        ..MetadataResponsePartition::DEFAULT
    });
    let topics = [MetadataResponseTopic {
        name: Some(TOPIC),
        topic_id: TOPIC_ID,
        partitions: Array::from_slice(&parts),
        ..MetadataResponseTopic::DEFAULT
    }];
    let body = MetadataResponse {
        brokers: Array::from_slice(&brokers),
        topics: Array::from_slice(&topics),
        ..MetadataResponse::DEFAULT
    };
    answer(c, r, ResponseBody::Metadata(body), 0);
}

fn list_offsets_answer(c: &mut C, r: &Req, results: &[(i32, ErrorCode, i64)]) {
    assert_eq!(r.key, ApiKey::ListOffsets);
    let parts: Vec<_> = results
        .iter()
        .map(|&(i, e, offset)| ListOffsetsPartitionResponse {
            partition_index: i,
            error_code: e.code(),
            offset,
            ..ListOffsetsPartitionResponse::DEFAULT
        })
        .collect();
    let topics = [ListOffsetsTopicResponse {
        name: TOPIC,
        partitions: Array::from_slice(&parts),
        ..ListOffsetsTopicResponse::DEFAULT
    }];
    let body = ListOffsetsResponse {
        topics: Array::from_slice(&topics),
        ..ListOffsetsResponse::DEFAULT
    };
    answer(c, r, ResponseBody::ListOffsets(body), 0);
}

/// A batch of `values.len()` records from `base`.
fn batch(base: i64, values: &[&[u8]]) -> Vec<u8> {
    let recs: Vec<NewRecord<'_>> = values
        .iter()
        .enumerate()
        .map(|(i, v)| NewRecord {
            offset_delta: i as i32,
            value: Some(v),
            ..NewRecord::DEFAULT
        })
        .collect();
    let b = BatchBuilder {
        base_offset: base,
        base_timestamp: 1000,
        records: BatchRecords::Plain(&recs),
        ..BatchBuilder::DEFAULT
    };
    let mut out = vec![0u8; b.encoded_len().unwrap()];
    b.encode_to_slice(&mut out).unwrap();
    out
}

fn fetch_frame(r: &Req, results: &[(i32, ErrorCode, &[u8])]) -> Vec<u8> {
    throttled_fetch_frame(r, results, 0)
}

fn throttled_fetch_frame(r: &Req, results: &[(i32, ErrorCode, &[u8])], throttle_ms: i32) -> Vec<u8> {
    assert_eq!(r.key, ApiKey::Fetch);
    let parts: Vec<_> = results
        .iter()
        .map(|&(i, e, records)| PartitionData {
            partition_index: i,
            error_code: e.code(),
            high_watermark: 100,
            last_stable_offset: 100,
            records: Some(records),
            ..PartitionData::DEFAULT
        })
        .collect();
    let topics = [FetchableTopicResponse {
        topic: if r.version >= 13 { "" } else { TOPIC },
        topic_id: if r.version >= 13 { TOPIC_ID } else { Uuid::nil() },
        partitions: Array::from_slice(&parts),
        ..FetchableTopicResponse::DEFAULT
    }];
    frame(
        r,
        &ResponseBody::Fetch(FetchResponse {
            responses: Array::from_slice(&topics),
            throttle_time_ms: throttle_ms,
            ..FetchResponse::DEFAULT
        }),
    )
}

fn connects(c: &mut C) -> Vec<(ConnId, String)> {
    let mut v = Vec::new();
    while let Some(e) = c.poll_event(0) {
        match e {
            Event::Connect { conn, host, .. } => v.push((conn, host.to_string())),
            e => panic!("unexpected {e:?}"),
        }
    }
    v
}

/// A consumer connected to broker 1, versions negotiated, Metadata answered.
fn ready(reset: Reset) -> C {
    let mut config = ConsumerConfig::new("test", &[("k1", 9092)]);
    config.reset = reset;
    let mut c: C = Consumer::new(config, &[TOPIC]).unwrap();
    assert_eq!(connects(&mut c), [(ConnId(0), "k1".to_string())]);
    c.on_connected(ConnId(0), 0);
    let r = transmits(&mut c, 0);
    api_versions(&mut c, &r[0]);
    let r = transmits(&mut c, 0);
    assert_eq!(r.len(), 1);
    metadata(&mut c, &r[0], 1);
    assert_eq!(c.partitions(TopicId(0)), Some(2));
    c
}

#[test]
fn earliest_then_fetch_from_the_position() {
    let mut c = ready(Reset::Latest);
    c.assign(TopicId(0), 0, Offset::Earliest).unwrap();
    c.assign(TopicId(0), 1, Offset::Latest).unwrap();
    // Metadata again for the assignment, then ListOffsets for both partitions.
    let r = transmits(&mut c, 0);
    metadata(&mut c, &r[0], 1);
    let r = transmits(&mut c, 0);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].key, ApiKey::ListOffsets);
    assert_eq!(r[0].version, 10, "the highest version both speak");
    assert_eq!(r[0].parts, [(0, -2), (1, -1)]);
    list_offsets_answer(&mut c, &r[0], &[(0, ErrorCode::None, 5), (1, ErrorCode::None, 40)]);
    assert_eq!(c.position(TopicId(0), 0), Some(5));
    let r = transmits(&mut c, 0);
    assert_eq!(r.len(), 1, "one Fetch in flight per connection");
    assert_eq!(r[0].key, ApiKey::Fetch);
    assert_eq!(r[0].version, 17);
    assert_eq!(r[0].parts, [(0, 5), (1, 40)]);
    assert!(transmits(&mut c, 0).is_empty());
    // A batch from offset 3: records 3 and 4 come before the position and are left out.
    let b = batch(3, &[b"a", b"b", b"c", b"d", b"e"]);
    let f = fetch_frame(&r[0], &[(0, ErrorCode::None, &b), (1, ErrorCode::None, &[])]);
    let fetched = c.on_frame(r[0].conn, &f, 0).unwrap();
    let got: Vec<(i32, i64, Vec<u8>)> = fetched
        .items()
        .map(|i| match i {
            Item::Record(r) => (r.partition, r.offset, r.value.unwrap().to_vec()),
            i => panic!("unexpected {i:?}"),
        })
        .collect();
    assert_eq!(
        got,
        [(0, 5, b"c".to_vec()), (0, 6, b"d".to_vec()), (0, 7, b"e".to_vec())]
    );
    assert_eq!(c.position(TopicId(0), 0), Some(8));
    assert_eq!(c.end_offset(TopicId(0), 0), Some(100));
    let r = transmits(&mut c, 0);
    assert_eq!(r[0].parts, [(0, 8), (1, 40)]);
}

#[test]
fn a_batch_failing_its_crc_closes_the_connection_and_keeps_the_position() {
    let mut c = ready(Reset::Latest);
    c.assign(TopicId(0), 0, Offset::At(10)).unwrap();
    let r = transmits(&mut c, 0);
    metadata(&mut c, &r[0], 1);
    let r = transmits(&mut c, 0);
    assert_eq!(r[0].parts, [(0, 10)]);
    let mut b = batch(10, &[b"x", b"y"]);
    let last = b.len() - 1;
    b[last] ^= 1;
    let f = fetch_frame(&r[0], &[(0, ErrorCode::None, &b)]);
    let e = c.on_frame(r[0].conn, &f, 0).unwrap_err();
    assert!(matches!(e, ProtocolError::Decode(_)), "{e:?}");
    assert_eq!(c.position(TopicId(0), 0), Some(10));
    assert_eq!(
        c.poll_event(0),
        Some(Event::Close {
            conn: ConnId(0),
            why: CloseReason::Protocol(e)
        })
    );
    c.on_closed(ConnId(0), 0);
    // After the backoff the connection is opened again and the same offset fetched.
    let now = 1000;
    assert!(matches!(
        c.poll_event(now),
        Some(Event::Connect { conn: ConnId(0), .. })
    ));
    c.on_connected(ConnId(0), now);
    let r = transmits(&mut c, now);
    api_versions(&mut c, &r[0]);
    // Metadata, asked again after the loss, and the Fetch (the leader is known) go together.
    let r = transmits(&mut c, now);
    assert_eq!(r.len(), 2);
    assert_eq!(r[0].key, ApiKey::Metadata);
    assert_eq!((r[1].key, r[1].parts.clone()), (ApiKey::Fetch, vec![(0, 10)]));
}

#[test]
fn out_of_range_follows_the_reset_policy() {
    for (reset, asked) in [(Reset::Earliest, -2), (Reset::Latest, -1)] {
        let mut c = ready(reset);
        c.assign(TopicId(0), 0, Offset::At(500)).unwrap();
        let r = transmits(&mut c, 0);
        metadata(&mut c, &r[0], 1);
        let r = transmits(&mut c, 0);
        let f = fetch_frame(&r[0], &[(0, ErrorCode::OffsetOutOfRange, &[])]);
        assert!(c.on_frame(r[0].conn, &f, 0).unwrap().is_empty());
        let r = transmits(&mut c, 1000);
        assert_eq!((r[0].key, r[0].parts.clone()), (ApiKey::ListOffsets, vec![(0, asked)]));
    }
    let mut c = ready(Reset::Fail);
    c.assign(TopicId(0), 0, Offset::At(500)).unwrap();
    let r = transmits(&mut c, 0);
    metadata(&mut c, &r[0], 1);
    let r = transmits(&mut c, 0);
    let f = fetch_frame(&r[0], &[(0, ErrorCode::OffsetOutOfRange, &[])]);
    c.on_frame(r[0].conn, &f, 0).unwrap();
    assert_eq!(
        c.poll_event(0),
        Some(Event::Failed {
            topic: TopicId(0),
            partition: 0,
            error: ErrorCode::OffsetOutOfRange
        })
    );
    assert!(transmits(&mut c, 1000).is_empty(), "a failed partition is not fetched");
}

#[test]
fn a_leader_error_asks_metadata_and_fetches_from_the_new_leader() {
    let mut c = ready(Reset::Latest);
    c.assign(TopicId(0), 0, Offset::At(7)).unwrap();
    let r = transmits(&mut c, 0);
    metadata(&mut c, &r[0], 1);
    let r = transmits(&mut c, 0);
    let f = fetch_frame(&r[0], &[(0, ErrorCode::NotLeaderOrFollower, &[])]);
    c.on_frame(r[0].conn, &f, 0).unwrap();
    let r = transmits(&mut c, 0);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].key, ApiKey::Metadata);
    metadata(&mut c, &r[0], 2);
    assert_eq!(connects(&mut c), [(ConnId(1), "k2".to_string())]);
    c.on_connected(ConnId(1), 0);
    let r = transmits(&mut c, 200);
    api_versions(&mut c, &r[0]);
    let r = transmits(&mut c, 200);
    assert_eq!(
        (r[0].conn, r[0].key, r[0].parts.clone()),
        (ConnId(1), ApiKey::Fetch, vec![(0, 7)])
    );
}

#[test]
fn no_allocation_per_record() {
    let mut c = ready(Reset::Latest);
    c.assign(TopicId(0), 0, Offset::At(0)).unwrap();
    let r = transmits(&mut c, 0);
    metadata(&mut c, &r[0], 1);
    let values: Vec<Vec<u8>> = (0..40).map(|i| vec![i as u8; 100]).collect();
    let values: Vec<&[u8]> = values.iter().map(|v| v.as_slice()).collect();
    let mut read = 0i64;
    while read < 10_000 {
        let r = transmits(&mut c, 0);
        assert_eq!(r[0].parts, [(0, read)]);
        // Two batches of 40 records from the position.
        let mut records = batch(read, &values);
        records.extend(batch(read + 40, &values));
        let f = fetch_frame(&r[0], &[(0, ErrorCode::None, &records)]);
        let n = common::client(|| {
            let fetched = c.on_frame(r[0].conn, &f, 0).unwrap();
            let mut n = 0;
            for item in fetched.items() {
                let Item::Record(rec) = item else { panic!("{item:?}") };
                assert_eq!(rec.offset, read + n);
                n += 1;
            }
            n
        });
        assert_eq!(n, 80);
        read += n;
    }
    let (allocs, calls) = common::client_allocations();
    assert!(calls > 100);
    assert_eq!(allocs, 0, "allocations in {calls} calls into the consumer");
}

/// KIP-219: after a Fetch answer with `throttle_time_ms`, nothing is sent on that connection
/// until the throttle has passed, as Kafka's consumer does.
#[test]
fn a_throttled_fetch_waits_for_the_throttle_to_end() {
    let mut c = ready(Reset::Latest);
    c.assign(TopicId(0), 0, Offset::At(10)).unwrap();
    let r = transmits(&mut c, 0);
    metadata(&mut c, &r[0], 1);
    let r = transmits(&mut c, 0);
    assert_eq!(r[0].key, ApiKey::Fetch);
    let f = throttled_fetch_frame(&r[0], &[(0, ErrorCode::None, &[])], 700);
    c.on_frame(r[0].conn, &f, 5).unwrap();
    assert!(transmits(&mut c, 5).is_empty(), "throttled until 705");
    assert_eq!(c.next_timeout(), Some(705));
    assert!(transmits(&mut c, 704).is_empty());
    let r = transmits(&mut c, 705);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].key, ApiKey::Fetch);
}
