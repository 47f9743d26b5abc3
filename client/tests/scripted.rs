//! The producer against a scripted broker: every request it writes is parsed as Kafka parses
//! requests (kafka-wire's request frame parser, checked against Kafka's Java classes), every
//! answer is encoded by kafka-wire's response encoder. The assertions are Kafka's producer
//! rules: a retried batch keeps its producer id, epoch and sequence; a sequence error bumps the
//! epoch and numbers batches from 0 again; a batch is reported once, with the offset the broker
//! gave; acks=0 gets no answer; a connection that breaks the protocol or times out is closed.

use kafka_wire::frame::{encode_response_frame, parse_request_frame, Mode};
use kafka_wire::messages::api_versions_response::{ApiVersion, ApiVersionsResponse};
use kafka_wire::messages::init_producer_id_response::InitProducerIdResponse;
use kafka_wire::messages::metadata_response::{
    MetadataResponse, MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use kafka_wire::messages::produce_response::{PartitionProduceResponse, ProduceResponse, TopicProduceResponse};
use kafka_wire::records::RecordBatch;
use kafka_wire::{ApiKey, Array, ErrorCode, RequestBody, ResponseBody, Uuid};
use kafka_wire_client::{
    Acks, CloseReason, Config, ConfigError, ConnId, Delivery, DeliveryError, Event, Producer, Record, TopicId,
};

mod common;

type P = Producer<'static, 8, 4, 1024, 3>;

const TOPIC: &str = "t";
const TOPIC_ID: Uuid = Uuid::from_u128(0x1234);

/// A request the producer wrote, as the broker reads it.
#[derive(Debug)]
struct Req {
    conn: ConnId,
    key: ApiKey,
    version: i16,
    correlation_id: i32,
    /// Produce: (partition, producer id, epoch, base sequence, record count) of each batch.
    batches: Vec<(i32, i64, i16, i32, i32)>,
    /// InitProducerId: the id and epoch asked to bump.
    bump: (i64, i16),
    acks: i16,
}

fn transmits(p: &mut P, now: u64) -> Vec<Req> {
    let mut out = vec![0u8; 8192];
    let mut v = Vec::new();
    while let Some(t) = common::client(|| p.poll_transmit(now, &mut out)).unwrap() {
        let f = parse_request_frame(&out[..t.len], Mode::Strict).expect("the broker parses the request");
        let mut r = Req {
            conn: t.conn,
            key: f.api_key,
            version: f.api_version,
            correlation_id: f.header.correlation_id,
            batches: Vec::new(),
            bump: (-1, -1),
            acks: 0,
        };
        match &f.body {
            RequestBody::Produce(pr) => {
                r.acks = pr.acks;
                for td in pr.topic_data.iter() {
                    for pd in td.partition_data.iter() {
                        let (b, rest) = RecordBatch::parse(pd.records.unwrap()).unwrap();
                        assert!(rest.is_empty() && b.is_crc_valid());
                        r.batches.push((
                            pd.index,
                            b.producer_id,
                            b.producer_epoch,
                            b.base_sequence,
                            b.record_count,
                        ));
                    }
                }
            }
            RequestBody::InitProducerId(i) => r.bump = (i.producer_id, i.producer_epoch),
            _ => {}
        }
        v.push(r);
    }
    v
}

#[derive(Debug, PartialEq)]
enum Ev {
    Connect(ConnId, String, u16),
    Close(ConnId, CloseReason),
    Delivery(Delivery),
}

fn events(p: &mut P, now: u64) -> Vec<Ev> {
    let mut v = Vec::new();
    while let Some(e) = common::client(|| p.poll_event(now)) {
        v.push(match e {
            Event::Connect { conn, host, port } => Ev::Connect(conn, host.to_string(), port),
            Event::Close { conn, why } => Ev::Close(conn, why),
            Event::Delivery(d) => Ev::Delivery(d),
        });
    }
    v
}

fn answer(p: &mut P, r: &Req, body: ResponseBody<'_>, now: u64) {
    let mut buf = vec![0u8; 8192];
    let n = encode_response_frame(r.correlation_id, &body, r.version, &mut buf).unwrap();
    common::client(|| p.on_frame(r.conn, &buf[..n], now)).expect("a well-formed answer");
}

fn api_versions(p: &mut P, r: &Req, now: u64) {
    assert_eq!(r.key, ApiKey::ApiVersions);
    let keys = [
        ApiVersion {
            api_key: 0,
            min_version: 3,
            max_version: 13,
            ..ApiVersion::DEFAULT
        },
        ApiVersion {
            api_key: 3,
            min_version: 0,
            max_version: 13,
            ..ApiVersion::DEFAULT
        },
        ApiVersion {
            api_key: 18,
            min_version: 0,
            max_version: 4,
            ..ApiVersion::DEFAULT
        },
        ApiVersion {
            api_key: 22,
            min_version: 0,
            max_version: 6,
            ..ApiVersion::DEFAULT
        },
    ];
    let body = ApiVersionsResponse {
        api_keys: Array::from_slice(&keys),
        ..ApiVersionsResponse::DEFAULT
    };
    answer(p, r, ResponseBody::ApiVersions(body), now);
}

/// Metadata: broker 1 at the bootstrap address, topic `t` of 2 partitions led by `leader`.
fn metadata(p: &mut P, r: &Req, leader: i32, now: u64) {
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
    answer(p, r, ResponseBody::Metadata(body), now);
}

fn init_pid(p: &mut P, r: &Req, epoch: i16, now: u64) {
    assert_eq!(r.key, ApiKey::InitProducerId);
    let body = InitProducerIdResponse {
        producer_id: 1000,
        producer_epoch: epoch,
        ..InitProducerIdResponse::DEFAULT
    };
    answer(p, r, ResponseBody::InitProducerId(body), now);
}

fn produce_answer(p: &mut P, r: &Req, results: &[(i32, ErrorCode, i64)], now: u64) {
    throttled_produce_answer(p, r, results, 0, now);
}

fn throttled_produce_answer(p: &mut P, r: &Req, results: &[(i32, ErrorCode, i64)], throttle_ms: i32, now: u64) {
    assert_eq!(r.key, ApiKey::Produce);
    let parts: Vec<PartitionProduceResponse<'_>> = results
        .iter()
        .map(|&(index, e, base_offset)| PartitionProduceResponse {
            index,
            error_code: e.code(),
            base_offset,
            ..PartitionProduceResponse::DEFAULT
        })
        .collect();
    let topics = [TopicProduceResponse {
        name: if r.version >= 13 { "" } else { TOPIC },
        topic_id: if r.version >= 13 { TOPIC_ID } else { Uuid::nil() },
        partition_responses: Array::from_slice(&parts),
        ..TopicProduceResponse::DEFAULT
    }];
    let body = ProduceResponse {
        responses: Array::from_slice(&topics),
        throttle_time_ms: throttle_ms,
        ..ProduceResponse::DEFAULT
    };
    answer(p, r, ResponseBody::Produce(body), now);
}

fn config() -> Config<'static> {
    Config::new("test", &[("k1", 9092)])
}

/// A producer connected to broker 1 (the bootstrap address), versions negotiated, Metadata
/// answered, and (idempotent) a producer id 1000 at epoch 0.
fn ready(config: Config<'static>) -> P {
    let mut p: P = Producer::new(config, &[TOPIC]).unwrap();
    assert_eq!(events(&mut p, 0), [Ev::Connect(ConnId(0), "k1".into(), 9092)]);
    assert!(
        p.send(TopicId(0), None, &Record::DEFAULT, 0).is_err(),
        "not ready before Metadata"
    );
    p.on_connected(ConnId(0), 0);
    let r = transmits(&mut p, 0);
    assert_eq!(r.len(), 1);
    api_versions(&mut p, &r[0], 0);
    // Metadata and, idempotent, InitProducerId, pipelined.
    let r = transmits(&mut p, 0);
    assert_eq!(r.len(), if config.idempotent { 2 } else { 1 }, "{r:?}");
    metadata(&mut p, &r[0], 1, 0);
    assert_eq!(p.partitions(TopicId(0)), Some(2));
    if config.idempotent {
        assert_eq!(r[1].bump, (-1, -1));
        init_pid(&mut p, &r[1], 0, 0);
        assert_eq!(p.producer_id(), (1000, 0));
    }
    // The bootstrap connection serves broker 1: no second connection to the same address.
    assert_eq!(events(&mut p, 0), []);
    p
}

fn rec(v: &'static [u8]) -> Record<'static> {
    Record {
        value: Some(v),
        timestamp: Some(1_700_000_000_000),
        ..Record::DEFAULT
    }
}

#[test]
fn batches_go_to_the_leader_with_sequences_and_are_reported_once() {
    let mut p = ready(config());
    for i in 0..3 {
        let id = p.send(TopicId(0), Some(0), &rec(b"a"), 1).unwrap();
        assert_eq!((id.partition, id.number), (0, i));
    }
    p.send(TopicId(0), Some(1), &rec(b"b"), 1).unwrap();
    // Nothing before the linger (5 ms) ends.
    assert!(transmits(&mut p, 2).is_empty());
    let r = transmits(&mut p, 6);
    assert_eq!(r.len(), 1, "both partitions in one request");
    assert_eq!(r[0].acks, -1);
    assert_eq!(r[0].batches, [(0, 1000, 0, 0, 3), (1, 1000, 0, 0, 1)]);
    produce_answer(&mut p, &r[0], &[(0, ErrorCode::None, 40), (1, ErrorCode::None, 7)], 7);
    let ev = events(&mut p, 7);
    assert_eq!(ev.len(), 2);
    assert!(ev.contains(&Ev::Delivery(Delivery {
        topic: TopicId(0),
        partition: 0,
        first: 0,
        count: 3,
        result: Ok(40)
    })));
    assert_eq!(p.pending(), 0);
    // The next batch of partition 0 continues its sequence.
    p.send(TopicId(0), Some(0), &rec(b"c"), 8).unwrap();
    p.flush();
    let r = transmits(&mut p, 8);
    assert_eq!(r[0].batches, [(0, 1000, 0, 3, 1)]);
}

#[test]
fn a_retried_batch_keeps_its_sequence_and_leader_errors_refresh_metadata() {
    let mut p = ready(config());
    p.send(TopicId(0), Some(0), &rec(b"a"), 0).unwrap();
    p.send(TopicId(0), Some(0), &rec(b"b"), 0).unwrap();
    p.flush();
    let r = transmits(&mut p, 1);
    assert_eq!(r[0].batches, [(0, 1000, 0, 0, 2)]);
    produce_answer(&mut p, &r[0], &[(0, ErrorCode::NotLeaderOrFollower, -1)], 2);
    // Metadata first; the batch waits for the retry backoff (100 ms).
    let r = transmits(&mut p, 2);
    assert_eq!(r.iter().map(|r| r.key).collect::<Vec<_>>(), [ApiKey::Metadata]);
    metadata(&mut p, &r[0], 1, 3);
    assert!(transmits(&mut p, 50).is_empty());
    let r = transmits(&mut p, 102);
    assert_eq!(
        r[0].batches,
        [(0, 1000, 0, 0, 2)],
        "same producer id, epoch and sequence"
    );
    // The broker already has it: a duplicate counts as delivered.
    produce_answer(&mut p, &r[0], &[(0, ErrorCode::DuplicateSequenceNumber, -1)], 103);
    assert_eq!(
        events(&mut p, 103),
        [Ev::Delivery(Delivery {
            topic: TopicId(0),
            partition: 0,
            first: 0,
            count: 2,
            result: Ok(-1)
        })]
    );
}

#[test]
fn a_sequence_error_bumps_the_epoch_and_numbers_batches_again() {
    let mut p = ready(config());
    p.send(TopicId(0), Some(0), &rec(b"a"), 0).unwrap();
    p.flush();
    let r = transmits(&mut p, 1);
    produce_answer(&mut p, &r[0], &[(0, ErrorCode::None, 0)], 1);
    events(&mut p, 1);
    p.send(TopicId(0), Some(0), &rec(b"b"), 2).unwrap();
    p.flush();
    let r = transmits(&mut p, 2);
    assert_eq!(r[0].batches, [(0, 1000, 0, 1, 1)]);
    produce_answer(&mut p, &r[0], &[(0, ErrorCode::OutOfOrderSequenceNumber, -1)], 3);
    // InitProducerId with the current id and epoch (version 3 onward bumps the epoch).
    let r = transmits(&mut p, 3);
    assert_eq!(r.len(), 1);
    assert_eq!((r[0].key, r[0].bump), (ApiKey::InitProducerId, (1000, 0)));
    init_pid(&mut p, &r[0], 1, 4);
    let r = transmits(&mut p, 200);
    assert_eq!(r[0].batches, [(0, 1000, 1, 0, 1)], "epoch 1, sequence from 0");
}

#[test]
fn a_lost_connection_sends_its_batches_again_after_reconnecting() {
    let mut p = ready(config());
    p.send(TopicId(0), Some(1), &rec(b"a"), 0).unwrap();
    p.flush();
    let r = transmits(&mut p, 1);
    assert_eq!(r[0].batches, [(1, 1000, 0, 0, 1)]);
    p.on_closed(ConnId(0), 2);
    // Reconnect after the backoff (50 ms); versions again; then the batch, same sequence.
    assert_eq!(events(&mut p, 10), []);
    assert_eq!(events(&mut p, 52), [Ev::Connect(ConnId(0), "k1".into(), 9092)]);
    p.on_connected(ConnId(0), 53);
    let r = transmits(&mut p, 53);
    api_versions(&mut p, &r[0], 53);
    let r = transmits(&mut p, 54);
    assert_eq!(r[0].key, ApiKey::Metadata);
    metadata(&mut p, &r[0], 1, 54);
    let r = transmits(&mut p, 110);
    assert_eq!(r[0].batches, [(1, 1000, 0, 0, 1)]);
    produce_answer(&mut p, &r[0], &[(1, ErrorCode::None, 5)], 111);
    assert!(matches!(
        events(&mut p, 111)[..],
        [Ev::Delivery(Delivery { result: Ok(5), .. })]
    ));
}

#[test]
fn a_leader_elsewhere_gets_its_own_connection() {
    let mut p = ready(config());
    p.send(TopicId(0), Some(0), &rec(b"a"), 0).unwrap();
    p.flush();
    let r = transmits(&mut p, 1);
    produce_answer(&mut p, &r[0], &[(0, ErrorCode::NotLeaderOrFollower, -1)], 2);
    let r = transmits(&mut p, 2);
    metadata(&mut p, &r[0], 2, 3);
    assert_eq!(events(&mut p, 3), [Ev::Connect(ConnId(1), "k2".into(), 9092)]);
    p.on_connected(ConnId(1), 4);
    let r = transmits(&mut p, 4);
    assert_eq!((r[0].conn, r[0].key), (ConnId(1), ApiKey::ApiVersions));
    api_versions(&mut p, &r[0], 5);
    let r = transmits(&mut p, 200);
    assert_eq!((r[0].conn, &r[0].batches[..]), (ConnId(1), &[(0, 1000, 0, 0, 1)][..]));
}

#[test]
fn acks_zero_is_reported_when_written_and_acks_one_has_no_producer_id() {
    let mut c = config();
    c.acks = Acks::None;
    c.idempotent = false;
    let mut p = ready(c);
    p.send(TopicId(0), Some(0), &rec(b"a"), 0).unwrap();
    p.flush();
    let r = transmits(&mut p, 1);
    assert_eq!((r[0].acks, &r[0].batches[..]), (0, &[(0, -1, -1, -1, 1)][..]));
    assert!(matches!(
        events(&mut p, 1)[..],
        [Ev::Delivery(Delivery {
            result: Ok(-1),
            count: 1,
            ..
        })]
    ));

    let mut c = config();
    c.acks = Acks::Leader;
    assert!(
        Producer::<'static, 8, 4, 1024, 3>::new(c, &[TOPIC]).is_err(),
        "idempotence needs acks=all"
    );
    c.idempotent = false;
    let mut p = ready(c);
    p.send(TopicId(0), Some(0), &rec(b"a"), 0).unwrap();
    p.flush();
    let r = transmits(&mut p, 1);
    assert_eq!((r[0].acks, &r[0].batches[..]), (1, &[(0, -1, -1, -1, 1)][..]));
}

#[test]
fn a_refused_batch_fails_and_timeouts_close_the_connection() {
    let mut p = ready(config());
    p.send(TopicId(0), Some(0), &rec(b"a"), 0).unwrap();
    p.flush();
    let r = transmits(&mut p, 1);
    produce_answer(&mut p, &r[0], &[(0, ErrorCode::MessageTooLarge, -1)], 2);
    assert!(matches!(
        events(&mut p, 2)[..],
        [Ev::Delivery(Delivery {
            result: Err(DeliveryError::Broker(ErrorCode::MessageTooLarge)),
            ..
        })]
    ));
    // A sent batch that failed leaves a gap in the sequence: the epoch is bumped.
    let r = transmits(&mut p, 3);
    assert_eq!((r[0].key, r[0].bump), (ApiKey::InitProducerId, (1000, 0)));
    init_pid(&mut p, &r[0], 1, 3);

    p.send(TopicId(0), Some(0), &rec(b"b"), 4).unwrap();
    p.flush();
    let r = transmits(&mut p, 4);
    assert_eq!(r[0].batches, [(0, 1000, 1, 0, 1)]);
    // No answer within the request timeout (30 s): the connection is closed.
    assert_eq!(events(&mut p, 30_003), []);
    assert_eq!(events(&mut p, 30_004), [Ev::Close(ConnId(0), CloseReason::Timeout)]);
}

#[test]
fn an_answer_that_breaks_the_protocol_closes_the_connection() {
    let mut p = ready(config());
    // A response to a correlation id nothing was sent with.
    let mut buf = [0u8; 64];
    let body = ResponseBody::InitProducerId(InitProducerIdResponse::DEFAULT);
    let n = encode_response_frame(999, &body, 4, &mut buf).unwrap();
    assert!(p.on_frame(ConnId(0), &buf[..n], 1).is_err());
    assert!(matches!(
        events(&mut p, 1)[..],
        [Ev::Close(ConnId(0), CloseReason::Protocol(_))]
    ));
    // Bytes that are no answer at all.
    p.on_closed(ConnId(0), 1);
    let mut p = ready(config());
    p.send(TopicId(0), Some(0), &rec(b"a"), 0).unwrap();
    p.flush();
    let r = transmits(&mut p, 1);
    let mut junk = vec![0, 0, 0, 8];
    junk.extend_from_slice(&r[0].correlation_id.to_be_bytes());
    junk.extend_from_slice(&[0xff; 4]);
    assert!(p.on_frame(ConnId(0), &junk, 2).is_err());
    assert!(matches!(
        events(&mut p, 2)[..],
        [Ev::Close(ConnId(0), CloseReason::Protocol(_))]
    ));
    // Its batch goes again on the next connection, not reported delivered.
    p.on_closed(ConnId(0), 2);
    assert_eq!(p.pending(), 1);
}

#[test]
fn full_buffers_and_bad_partitions_are_refused_without_losing_records() {
    let mut p = ready(config());
    // 4 buffers of 1 KiB: records of 600 bytes take one buffer each.
    let big = [7u8; 600];
    let r = Record {
        value: Some(&big),
        ..Record::DEFAULT
    };
    for i in 0..4 {
        p.send(TopicId(0), Some(0), &r, i).unwrap();
    }
    assert_eq!(
        p.send(TopicId(0), Some(0), &r, 5),
        Err(kafka_wire_client::SendError::Full)
    );
    assert!(matches!(
        p.send(TopicId(0), Some(2), &r, 5),
        Err(kafka_wire_client::SendError::NoSuchPartition {
            partition: 2,
            partitions: 2
        })
    ));
    let huge = [0u8; 2000];
    assert!(matches!(
        p.send(
            TopicId(0),
            Some(0),
            &Record {
                value: Some(&huge),
                ..Record::DEFAULT
            },
            5
        ),
        Err(kafka_wire_client::SendError::TooLarge { .. })
    ));
    assert_eq!(p.pending(), 4);
}

#[test]
fn no_allocation_per_record() {
    let mut p = ready(config());
    let mut delivered = 0u64;
    let mut now = 10;
    let mut next = 0u64;
    static VALUE: [u8; 100] = [7; 100];
    while delivered < 10_000 {
        now += 1;
        while next < 10_000 {
            let r = rec(&VALUE);
            match common::client(|| p.send(TopicId(0), Some((next % 2) as i32), &r, now)) {
                Ok(_) => next += 1,
                Err(kafka_wire_client::SendError::Full) => break,
                Err(e) => panic!("{e:?}"),
            }
        }
        common::client(|| p.flush());
        for r in transmits(&mut p, now) {
            let results: Vec<_> = r.batches.iter().map(|b| (b.0, ErrorCode::None, 0)).collect();
            produce_answer(&mut p, &r, &results, now);
        }
        for e in events(&mut p, now) {
            if let Ev::Delivery(d) = e {
                assert!(d.result.is_ok());
                delivered += u64::from(d.count);
            }
        }
    }
    let (allocs, calls) = common::client_allocations();
    assert!(calls > 10_000);
    assert_eq!(allocs, 0, "allocations in {calls} calls into the producer");
}

/// Kafka's `bootstrap.servers`: the addresses are tried in turn until one answers; after the
/// last, the first again once the reconnect backoff has passed. An empty list is refused.
#[test]
fn bootstrap_addresses_are_tried_in_turn() {
    let servers: &'static [(&'static str, u16)] = &[("k1", 9092), ("k2", 9093)];
    let mut p: P = Producer::new(Config::new("test", servers), &[TOPIC]).unwrap();
    assert_eq!(events(&mut p, 0), [Ev::Connect(ConnId(0), "k1".into(), 9092)]);
    p.on_closed(ConnId(0), 0);
    assert_eq!(
        events(&mut p, 0),
        [Ev::Connect(ConnId(0), "k2".into(), 9093)],
        "the next address at once"
    );
    p.on_closed(ConnId(0), 1);
    assert_eq!(
        events(&mut p, 50),
        [],
        "the whole list failed: the reconnect backoff (50 ms)"
    );
    assert_eq!(events(&mut p, 51), [Ev::Connect(ConnId(0), "k1".into(), 9092)]);
    p.on_closed(ConnId(0), 51);
    assert_eq!(events(&mut p, 51), [Ev::Connect(ConnId(0), "k2".into(), 9093)]);
    p.on_closed(ConnId(0), 52);
    assert_eq!(events(&mut p, 151), [], "the second round backs off twice as long");
    assert_eq!(events(&mut p, 152), [Ev::Connect(ConnId(0), "k1".into(), 9092)]);
    assert_eq!(
        P::new(Config::new("test", &[]), &[TOPIC]).err(),
        Some(ConfigError::NoBootstrap)
    );
}

/// KIP-219: a broker over a quota answers at once with `throttle_time_ms` and expects the client
/// to send nothing more on that connection until the time has passed, as Kafka's clients do.
#[test]
fn a_throttled_connection_sends_nothing_until_the_throttle_ends() {
    let mut p = ready(config());
    p.send(TopicId(0), Some(0), &rec(b"a"), 1).unwrap();
    let r = transmits(&mut p, 6);
    assert_eq!(r.len(), 1);
    throttled_produce_answer(&mut p, &r[0], &[(0, ErrorCode::None, 0)], 1000, 7);
    p.send(TopicId(0), Some(0), &rec(b"b"), 8).unwrap();
    assert_eq!(p.next_timeout(), Some(13), "the linger of the new record");
    assert!(transmits(&mut p, 13).is_empty(), "throttled until 1007");
    assert_eq!(p.next_timeout(), Some(1007), "the end of the throttle");
    assert!(transmits(&mut p, 1006).is_empty());
    let r = transmits(&mut p, 1007);
    assert_eq!(r.len(), 1, "sent once the throttle has passed");
    produce_answer(&mut p, &r[0], &[(0, ErrorCode::None, 1)], 1008);
}
