//! Owned decoding from a `Bytes` (feature `bytes`): `OwnedMessage::parse_bytes` slices the
//! input for every `bytes` and `records` field instead of copying it, so a Fetch response or a
//! Produce request costs one allocation per array, not one per record set. Decoding from `&[u8]`
//! still copies. Owned values encode into a `BytesMut` too, and owned record batches read from
//! such a field share it down to each record's key, value and headers. Strings longer than fit
//! inline share the input too.

mod common;

use kafka_wire::bytes::{Bytes, BytesMut};
use kafka_wire::messages::broker_registration_request::owned::{BrokerRegistrationRequest, Listener};
use kafka_wire::messages::fetch_response::owned::{FetchResponse, FetchableTopicResponse, PartitionData};
use kafka_wire::messages::produce_request::owned::{PartitionProduceData, ProduceRequest, TopicProduceData};
use kafka_wire::messages::sasl_authenticate_request::owned::SaslAuthenticateRequest;
use kafka_wire::records::{
    BatchBuilder, BatchRecords, Compression, NewHeader, NewRecord, OwnedBatch, OwnedBatchRecords, OwnedRecord,
    OwnedRecordBatch,
};
use kafka_wire::{OwnedBytes, OwnedMessage, Uuid};

/// A record batch of `n` records whose values are `len` bytes of `fill`.
fn batch(n: usize, len: usize, fill: u8) -> Vec<u8> {
    let value = vec![fill; len];
    let recs: Vec<NewRecord<'_>> = (0..n)
        .map(|i| NewRecord {
            offset_delta: i as i32,
            key: Some(b"key"),
            value: Some(&value),
            ..NewRecord::DEFAULT
        })
        .collect();
    let b = BatchBuilder {
        base_offset: 10,
        records: BatchRecords::Plain(&recs),
        ..BatchBuilder::DEFAULT
    };
    let mut out = Vec::new();
    b.encode(&mut out).expect("batch encodes");
    out
}

/// True when `part` lies inside `whole`, by address.
fn inside(whole: &[u8], part: &[u8]) -> bool {
    let (w, p) = (whole.as_ptr() as usize, part.as_ptr() as usize);
    p >= w && p + part.len() <= w + whole.len()
}

fn fetch(topics: usize, partitions: usize) -> FetchResponse {
    FetchResponse {
        responses: (0..topics)
            .map(|t| FetchableTopicResponse {
                topic: format!("topic-{t}").into(),
                topic_id: Uuid::from_u128(t as u128 + 1),
                partitions: (0..partitions)
                    .map(|p| PartitionData {
                        partition_index: p as i32,
                        high_watermark: 100,
                        records: Some(batch(3, 200, p as u8).into()),
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
fn fetch_records_share_the_input_and_cost_no_allocation() {
    let m = fetch(4, 5);
    for v in [4, 12, 16, 17] {
        let wire = m.to_bytes(v).expect("encodes");
        // A `Bytes` made from a `Vec` allocates its shared count on its first clone; a
        // received buffer has been cloned or sliced before it is decoded.
        let input = wire.clone();
        let (shared, used) = common::counted(|| FetchResponse::parse_bytes(input, v));
        let shared = shared.expect("decodes");
        let copied = FetchResponse::parse(&wire, v).expect("decodes");
        assert_eq!(shared, copied, "v{v}");
        // The responses array, and one partitions array per topic: no allocation per record set.
        assert_eq!(used.allocs, 1 + 4, "v{v}");
        for (a, b) in shared.responses.iter().zip(&copied.responses) {
            for (p, q) in a.partitions.iter().zip(&b.partitions) {
                let (p, q) = (p.records.as_deref().unwrap(), q.records.as_deref().unwrap());
                assert!(inside(&wire, p), "v{v}: parse_bytes copied the records");
                assert!(!inside(&wire, q), "v{v}: parse shared the records");
            }
        }
        // The same records, readable as batches.
        let first = shared.responses[0].partitions[1].records.clone().unwrap();
        assert_eq!(first, batch(3, 200, 1));
    }
}

#[test]
fn fetch_records_outlive_the_message_they_came_from() {
    let wire = fetch(1, 2).to_bytes(12).expect("encodes");
    let records: Bytes = {
        let m = FetchResponse::parse_bytes(wire.clone(), 12).expect("decodes");
        m.responses[0].partitions[1].records.clone().unwrap().into_bytes()
    };
    drop(wire);
    assert_eq!(&records[..], &batch(3, 200, 1)[..]);
}

#[test]
fn produce_records_share_the_input() {
    let m = ProduceRequest {
        acks: -1,
        timeout_ms: 1000,
        topic_data: (0..3)
            .map(|t| TopicProduceData {
                name: format!("t{t}").into(),
                partition_data: (0..4)
                    .map(|p| PartitionProduceData {
                        index: p,
                        records: Some(batch(2, 64, t as u8).into()),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    for v in [3, 9, 12] {
        let wire = m.to_bytes(v).expect("encodes");
        let input = wire.clone();
        let (got, used) = common::counted(|| ProduceRequest::parse_bytes(input, v));
        let got = got.expect("decodes");
        assert_eq!(got, m, "v{v}");
        assert_eq!(used.allocs, 1 + 3, "v{v}");
        for t in got.topic_data.iter() {
            for p in t.partition_data.iter() {
                assert!(inside(&wire, p.records.as_deref().unwrap()), "v{v}");
            }
        }
    }
}

#[test]
fn plain_bytes_fields_share_the_input_too() {
    let m = SaslAuthenticateRequest {
        auth_bytes: b"\0user\0password-long-enough".into(),
        ..Default::default()
    };
    for v in [0, 1, 2] {
        let wire = m.to_bytes(v).expect("encodes");
        let got = SaslAuthenticateRequest::parse_bytes(wire.clone(), v).expect("decodes");
        assert_eq!(got, m);
        assert!(inside(&wire, &got.auth_bytes), "v{v}");
    }
}

#[test]
fn errors_from_bytes_equal_errors_from_slices() {
    let wire = fetch(2, 2).to_vec(12).expect("encodes");
    for cut in [0, 1, 7, wire.len() / 2, wire.len() - 1] {
        let a = FetchResponse::parse(&wire[..cut], 12).unwrap_err();
        let b = FetchResponse::parse_bytes(Bytes::copy_from_slice(&wire[..cut]), 12).unwrap_err();
        assert_eq!(a, b, "cut at {cut}");
    }
    let mut long = wire.clone();
    long.push(0);
    let a = FetchResponse::parse(&long, 12).unwrap_err();
    let b = FetchResponse::parse_bytes(Bytes::from(long), 12).unwrap_err();
    assert_eq!(a, b);
}

/// A BrokerRegistrationRequest whose cluster id is `cluster` and whose one listener's host is
/// `host`.
fn registration(cluster: &str, host: &str) -> BrokerRegistrationRequest {
    BrokerRegistrationRequest {
        broker_id: 3,
        cluster_id: cluster.into(),
        listeners: vec![Listener {
            name: "PLAINTEXT".into(),
            host: host.into(),
            port: 9092,
            ..Default::default()
        }],
        rack: Some("rack-a".into()),
        ..Default::default()
    }
}

#[test]
fn long_strings_share_the_input_and_short_ones_stay_inline() {
    let long_host = "broker-0.kafka.cluster.internal.example"; // longer than 24 bytes
    let m = registration("cluster-id-that-is-quite-long", long_host);
    for v in [0, 4] {
        let wire = m.to_bytes(v).expect("encodes");
        let input = wire.clone();
        let (shared, used) = common::counted(|| BrokerRegistrationRequest::parse_bytes(input, v));
        let shared = shared.expect("decodes");
        let copied = BrokerRegistrationRequest::parse(&wire, v).expect("decodes");
        assert_eq!(shared, m, "v{v}");
        assert_eq!(copied, m, "v{v}");
        // The listeners array, and no allocation for the two long strings.
        assert_eq!(used.allocs, 1, "v{v}");
        let (host, cluster) = (&shared.listeners[0].host, &shared.cluster_id);
        assert!(host.is_shared() && inside(&wire, host.as_bytes()), "v{v}");
        assert!(cluster.is_shared() && inside(&wire, cluster.as_bytes()), "v{v}");
        // Short strings are inline; a parse from a slice never shares.
        assert!(!shared.listeners[0].name.is_shared() && !shared.rack.as_ref().unwrap().is_shared());
        assert!(!copied.listeners[0].host.is_shared() && !inside(&wire, copied.listeners[0].host.as_bytes()));
        // A shared string outlives the message and the buffer it came from.
        let kept = shared.listeners[0].host.clone();
        drop((shared, wire));
        assert_eq!(kept, long_host);
    }
}

#[test]
fn a_long_string_that_is_not_utf8_fails_alike_from_bytes_and_slices() {
    let host = "h".repeat(40);
    let mut wire = registration("c", &host).to_vec(4).expect("encodes");
    let at = wire.windows(40).position(|w| w == host.as_bytes()).unwrap();
    for bad in [[0xff, 0xfe].as_slice(), &[0xc3], &[0xe2, 0x82]] {
        wire[at + 20..at + 20 + bad.len()].copy_from_slice(bad);
        let a = BrokerRegistrationRequest::parse(&wire, 4).unwrap_err();
        let b = BrokerRegistrationRequest::parse_bytes(Bytes::copy_from_slice(&wire), 4).unwrap_err();
        assert_eq!(a, b, "{bad:?}");
        assert_eq!(a.kind(), kafka_wire::DecodeErrorKind::InvalidUtf8, "{bad:?}");
        wire[at + 20..at + 20 + bad.len()].fill(b'h');
    }
}

#[test]
fn owned_values_encode_into_bytes_mut() {
    let m = fetch(2, 3);
    let mut buf = BytesMut::from(&b"head"[..]);
    let n = m.encode(&mut buf, 12).expect("encodes");
    assert_eq!(n, m.encoded_len(12).unwrap());
    assert_eq!(&buf[..4], b"head");
    assert_eq!(&buf[4..], &m.to_vec(12).unwrap()[..]);
    assert_eq!(m.to_bytes(12).unwrap(), &buf[4..]);
}

#[test]
fn owned_bytes_convert_without_copies() {
    let b = Bytes::from(vec![1u8, 2, 3, 4]);
    let o: OwnedBytes = b.clone().into();
    assert_eq!(o.as_ptr(), b.as_ptr());
    assert_eq!(o.as_bytes().as_ptr(), b.as_ptr());
    let back: Bytes = o.clone().into();
    assert_eq!(back.as_ptr(), b.as_ptr());
    // Built from a Vec and not shared: back to a Vec without a copy.
    let v = vec![9u8; 100];
    let p = v.as_ptr();
    let o = OwnedBytes::from(v);
    let back = o.into_vec();
    assert_eq!(back.as_ptr(), p);
    // Comparisons and formatting read the bytes.
    let o = OwnedBytes::from_static(b"abc");
    assert_eq!(o, *b"abc");
    assert_eq!(o, b"abc".to_vec());
    assert_eq!(format!("{o:?}"), "[97, 98, 99]");
    assert_eq!(OwnedBytes::new().len(), 0);
    assert_eq!([1u8, 2].iter().copied().collect::<OwnedBytes>(), [1u8, 2]);
}

/// Two batches, the second compressed (its bytes are taken as they are), and the first 20
/// bytes of a third: what the records of a Fetch response may hold.
fn two_batches_and_a_tail() -> (Vec<u8>, usize) {
    let headers = [NewHeader::new("trace", Some(b"abc")), NewHeader::new("empty", None)];
    let recs = [
        NewRecord {
            key: Some(b"k1"),
            value: Some(b"first value"),
            headers: &headers,
            ..NewRecord::DEFAULT
        },
        NewRecord {
            offset_delta: 1,
            timestamp_delta: 3,
            key: None,
            value: Some(b"second value"),
            ..NewRecord::DEFAULT
        },
    ];
    let mut out = Vec::new();
    BatchBuilder {
        base_offset: 7,
        base_timestamp: 1_700_000_000_000,
        producer_id: 42,
        producer_epoch: 1,
        base_sequence: 0,
        records: BatchRecords::Plain(&recs),
        ..BatchBuilder::DEFAULT
    }
    .encode(&mut out)
    .unwrap();
    BatchBuilder {
        base_offset: 9,
        records: BatchRecords::Compressed {
            compression: Compression::Zstd,
            record_count: 3,
            bytes: b"not really zstd",
        },
        ..BatchBuilder::DEFAULT
    }
    .encode(&mut out)
    .unwrap();
    let whole = out.len();
    let tail = out[..20].to_vec();
    out.extend_from_slice(&tail);
    (out, whole)
}

#[test]
fn owned_record_batches_share_the_fetched_bytes() {
    let (records, whole) = two_batches_and_a_tail();
    let m = FetchResponse {
        responses: vec![FetchableTopicResponse {
            topic_id: Uuid::from_u128(1),
            partitions: vec![PartitionData {
                records: Some(records.clone().into()),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let wire = m.to_bytes(16).unwrap();
    let got = FetchResponse::parse_bytes(wire.clone(), 16).unwrap();
    let field = got.responses[0].partitions[0].records.as_ref().unwrap();

    let (batches, used) = common::counted(|| OwnedRecordBatch::parse_all(field, false));
    let batches = batches.unwrap();
    // The list, the first batch's records, and the headers of its first record.
    assert_eq!(used.allocs, 3);
    assert_eq!(batches.len(), 2, "the partial third batch is left out");
    let OwnedBatch::V2(first) = &batches[0] else {
        panic!("{batches:?}")
    };
    assert_eq!((first.base_offset, first.producer_id, first.producer_epoch), (7, 42, 1));
    let OwnedBatchRecords::Plain(recs) = &first.records else {
        panic!()
    };
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[0].key.as_deref(), Some(&b"k1"[..]));
    assert_eq!(recs[0].headers[0].key, *b"trace");
    assert_eq!(recs[0].headers[1].value, None);
    assert_eq!(
        (recs[1].offset_delta, recs[1].timestamp_delta, recs[1].key.is_none()),
        (1, 3, true)
    );
    for r in recs {
        assert!(inside(&wire, r.value.as_deref().unwrap()));
        for h in &r.headers {
            assert!(inside(&wire, &h.key));
        }
    }
    let OwnedBatch::V2(second) = &batches[1] else { panic!() };
    let OwnedBatchRecords::Compressed {
        compression,
        record_count,
        bytes,
    } = &second.records
    else {
        panic!()
    };
    assert_eq!((*compression, *record_count), (Compression::Zstd, 3));
    assert_eq!(*bytes, *b"not really zstd");
    assert!(inside(&wire, bytes));

    // Written back, the two whole batches are the bytes they were read from.
    let mut again = Vec::new();
    for b in &batches {
        let OwnedBatch::V2(b) = b else { panic!() };
        b.encode(&mut again).unwrap();
    }
    assert_eq!(again, records[..whole]);

    // Strict reading (a Produce request's records) rejects the partial batch.
    assert!(OwnedRecordBatch::parse_all(field, true).is_err());
    // A damaged CRC is an error.
    let mut bad = records[..whole].to_vec();
    bad[30] ^= 1;
    assert!(OwnedRecordBatch::parse_all(&bad.into(), false).is_err());
}

#[test]
fn owned_records_read_a_decompressed_section() {
    let recs = [NewRecord {
        key: Some(b"k"),
        value: Some(b"v"),
        ..NewRecord::DEFAULT
    }];
    let mut section = Vec::new();
    kafka_wire::records::encode_records(&recs, &mut section).unwrap();
    let section: OwnedBytes = Bytes::from(section).into();
    let got = OwnedRecord::parse_all(&section, 1).unwrap();
    assert_eq!(got[0].value.as_deref(), Some(&b"v"[..]));
    assert!(inside(&section, got[0].value.as_deref().unwrap()));
    assert!(OwnedRecord::parse_all(&section, 2).is_err());
}
