//! The real `kwire dump-log` binary on log segments written by our own encoders: a
//! `__cluster_metadata` segment (raft control batch, metadata records, a compressed batch)
//! printed back exactly as `kwire decode --metadata-record` prints each record; a data segment
//! with headers, nulls, a transaction marker and a truncated tail; legacy message sets; and the
//! errors.

use std::io::Write;
use std::path::PathBuf;
use std::process::Output;

use kafka_wire::frame::encode_metadata_record;
use kafka_wire::messages::leader_change_message::Voter;
use kafka_wire::messages::LeaderChangeMessage;
use kafka_wire::metadata::register_broker_record::{BrokerEndpoint, BrokerFeature};
use kafka_wire::metadata::{
    FeatureLevelRecord, PartitionChangeRecord, PartitionRecord, RegisterBrokerRecord, TopicRecord,
};
use kafka_wire::records::{
    crc32_ieee, encode_records, Attributes, BatchBuilder, BatchRecords, Compression, NewHeader, NewRecord,
};
use kafka_wire::{Array, Message, MetadataRecord, Uuid};
use serde_json::{json, Value};

mod run;
use run::{kwire, text};

fn lines(o: &Output) -> Vec<Value> {
    assert!(o.status.success(), "kwire failed: {}", text(&o.stderr));
    text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kwire-dump-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn batch(b: &BatchBuilder<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    b.encode(&mut out).unwrap();
    out
}

fn framed(r: &MetadataRecord<'_>, version: i16) -> Vec<u8> {
    let mut buf = vec![0u8; 4096];
    let n = encode_metadata_record(r, version, &mut buf).unwrap();
    buf.truncate(n);
    buf
}

const T0: i64 = 1_700_000_000_000;

/// A `__cluster_metadata` segment: a LEADER_CHANGE control batch, a batch of three records,
/// then a gzip-compressed batch of two (PartitionRecord v2 and PartitionChangeRecord v2 with
/// eligible leader replicas). Returns the segment and each metadata record's framed bytes.
fn metadata_segment() -> (Vec<u8>, Vec<Vec<u8>>) {
    let topic_id = Uuid::from_u128(0x0123_4567_89ab_cdef_0011_2233_4455_6677);
    let endpoints = [BrokerEndpoint {
        name: "PLAINTEXT",
        host: "broker-1.example",
        port: 9092,
        security_protocol: 0,
        ..BrokerEndpoint::DEFAULT
    }];
    let features = [BrokerFeature {
        name: "metadata.version",
        min_supported_version: 7,
        max_supported_version: 27,
        ..BrokerFeature::DEFAULT
    }];
    let dirs = [Uuid::from_u128(99)];
    let replicas = [1, 2, 3];
    let isr = [1];
    let elr = [2, 3];
    let last_known = [4];
    let records = [
        (
            MetadataRecord::FeatureLevel(FeatureLevelRecord {
                name: "metadata.version",
                feature_level: 27,
                ..FeatureLevelRecord::DEFAULT
            }),
            0,
        ),
        (
            MetadataRecord::RegisterBroker(RegisterBrokerRecord {
                broker_id: 1,
                incarnation_id: Uuid::from_u128(7),
                broker_epoch: 42,
                end_points: Array::from_slice(&endpoints),
                features: Array::from_slice(&features),
                rack: Some("rack-a"),
                fenced: false,
                log_dirs: Array::from_slice(&dirs),
                ..RegisterBrokerRecord::DEFAULT
            }),
            3,
        ),
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
                isr: Array::from_slice(&isr),
                leader: 1,
                leader_epoch: 3,
                partition_epoch: 5,
                eligible_leader_replicas: Some(Array::from_slice(&elr)),
                last_known_elr: Some(Array::from_slice(&last_known)),
                ..PartitionRecord::DEFAULT
            }),
            2,
        ),
        (
            MetadataRecord::PartitionChange(PartitionChangeRecord {
                partition_id: 0,
                topic_id,
                isr: Some(Array::from_slice(&replicas[..2])),
                leader: 2,
                eligible_leader_replicas: Some(Array::from_slice(&elr[1..])),
                last_known_elr: Some(Array::from_slice(&[])),
                ..PartitionChangeRecord::DEFAULT
            }),
            2,
        ),
    ];
    let frames: Vec<Vec<u8>> = records.iter().map(|(r, v)| framed(r, *v)).collect();

    let voters = [Voter {
        voter_id: 1,
        ..Voter::DEFAULT
    }];
    let lc = LeaderChangeMessage {
        leader_id: 1,
        voters: Array::from_slice(&voters),
        granting_voters: Array::from_slice(&voters),
        ..LeaderChangeMessage::DEFAULT
    };
    let mut lc_bytes = Vec::new();
    lc.encode(&mut lc_bytes, 0).unwrap();
    let control = [NewRecord {
        key: Some(&[0, 0, 0, 2]),
        value: Some(&lc_bytes),
        ..NewRecord::DEFAULT
    }];

    let mut seg = batch(&BatchBuilder {
        base_offset: 0,
        partition_leader_epoch: 1,
        attributes: Attributes::NONE.with_control(true),
        base_timestamp: T0,
        records: BatchRecords::Plain(&control),
        ..BatchBuilder::DEFAULT
    });
    let first: Vec<NewRecord<'_>> = frames[..3]
        .iter()
        .enumerate()
        .map(|(i, f)| NewRecord {
            offset_delta: i as i32,
            timestamp_delta: i as i64,
            value: Some(f),
            ..NewRecord::DEFAULT
        })
        .collect();
    seg.extend(batch(&BatchBuilder {
        base_offset: 1,
        partition_leader_epoch: 1,
        base_timestamp: T0 + 10,
        records: BatchRecords::Plain(&first),
        ..BatchBuilder::DEFAULT
    }));
    let second: Vec<NewRecord<'_>> = frames[3..]
        .iter()
        .enumerate()
        .map(|(i, f)| NewRecord {
            offset_delta: i as i32,
            value: Some(f),
            ..NewRecord::DEFAULT
        })
        .collect();
    let mut plain = Vec::new();
    encode_records(&second, &mut plain).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&plain).unwrap();
    let gz = gz.finish().unwrap();
    seg.extend(batch(&BatchBuilder {
        base_offset: 4,
        partition_leader_epoch: 1,
        base_timestamp: T0 + 20,
        records: BatchRecords::Compressed {
            compression: Compression::Gzip,
            record_count: 2,
            bytes: &gz,
        },
        ..BatchBuilder::DEFAULT
    }));
    (seg, frames)
}

#[test]
fn metadata_segment_prints_every_record_as_decode_does() {
    let (seg, frames) = metadata_segment();
    let path = temp_file("00000000000000000000.log", &seg);
    let out = lines(&kwire(&["dump-log", "--metadata", path.to_str().unwrap()], b""));
    let kinds: Vec<&str> = out
        .iter()
        .map(|l| l.as_object().unwrap().keys().next().unwrap().as_str())
        .collect();
    assert_eq!(
        kinds,
        ["batch", "control", "batch", "record", "record", "record", "batch", "record", "record"]
    );

    // The raft control batch.
    assert_eq!(out[0]["batch"]["baseOffset"], 0);
    assert_eq!(out[0]["batch"]["isControl"], true);
    assert_eq!(out[0]["batch"]["crcValid"], true);
    assert_eq!(
        out[1]["control"],
        json!({"offset": 0, "timestamp": T0, "type": "LEADER_CHANGE", "typeId": 2, "keyVersion": 0, "version": 0,
               "data": {"version": 0, "leaderId": 1, "voters": [{"voterId": 1}], "grantingVoters": [{"voterId": 1}]}})
    );

    // Each metadata record's payload is exactly what `kwire decode --metadata-record` prints
    // for the same framed bytes.
    let payloads: Vec<&Value> = out
        .iter()
        .filter_map(|l| l.get("record"))
        .map(|r| &r["payload"])
        .collect();
    assert_eq!(payloads.len(), frames.len());
    for (p, f) in payloads.iter().zip(&frames) {
        let o = kwire(&["decode", "--metadata-record", "--hex"], hex::encode(f).as_bytes());
        assert!(o.status.success(), "{}", text(&o.stderr));
        let decoded: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(**p, decoded);
    }

    // And what they say, written out.
    assert_eq!(
        *payloads[0],
        json!({"type": "FEATURE_LEVEL_RECORD", "version": 0, "data": {"name": "metadata.version", "featureLevel": 27}})
    );
    assert_eq!(payloads[1]["type"], "REGISTER_BROKER_RECORD");
    assert_eq!(payloads[1]["version"], 3);
    assert_eq!(payloads[1]["data"]["brokerEpoch"], 42);
    assert_eq!(payloads[1]["data"]["rack"], "rack-a");
    assert_eq!(
        payloads[1]["data"]["endPoints"],
        json!([{"name": "PLAINTEXT", "host": "broker-1.example", "port": 9092, "securityProtocol": 0}])
    );
    assert_eq!(
        payloads[1]["data"]["features"],
        json!([{"name": "metadata.version", "minSupportedVersion": 7, "maxSupportedVersion": 27}])
    );
    assert_eq!(
        *payloads[2],
        json!({"type": "TOPIC_RECORD", "version": 0, "data": {"name": "orders", "topicId": "ASNFZ4mrze8AESIzRFVmdw"}})
    );
    let p = payloads[3];
    assert_eq!((&p["type"], &p["version"]), (&json!("PARTITION_RECORD"), &json!(2)));
    assert_eq!(p["data"]["replicas"], json!([1, 2, 3]));
    assert_eq!(p["data"]["isr"], json!([1]));
    assert_eq!(p["data"]["eligibleLeaderReplicas"], json!([2, 3]));
    assert_eq!(p["data"]["lastKnownElr"], json!([4]));
    assert_eq!(p["data"]["leaderEpoch"], 3);
    let c = payloads[4];
    assert_eq!(
        (&c["type"], &c["version"]),
        (&json!("PARTITION_CHANGE_RECORD"), &json!(2))
    );
    assert_eq!(c["data"]["leader"], 2);
    assert_eq!(c["data"]["isr"], json!([1, 2]));
    assert_eq!(c["data"]["eligibleLeaderReplicas"], json!([3]));
    assert_eq!(c["data"]["lastKnownElr"], json!([]));

    // Offsets and timestamps; the compressed batch.
    let recs: Vec<&Value> = out.iter().filter_map(|l| l.get("record")).collect();
    let offsets: Vec<i64> = recs.iter().map(|r| r["offset"].as_i64().unwrap()).collect();
    assert_eq!(offsets, [1, 2, 3, 4, 5]);
    assert_eq!(recs[2]["timestamp"], T0 + 12);
    assert_eq!(out[6]["batch"]["compression"], "gzip");
    assert_eq!(out[6]["batch"]["baseOffset"], 4);
    assert_eq!(out[6]["batch"]["lastOffset"], 5);

    // The same segment from standard input.
    let again = lines(&kwire(&["dump-log", "--metadata", "-"], &seg));
    assert_eq!(again, out);
}

#[test]
fn data_segment_with_headers_marker_and_truncated_tail() {
    let h = [NewHeader::new("trace", Some(b"t1")), NewHeader::new("empty", None)];
    let recs = [
        NewRecord {
            key: Some(b"k"),
            value: Some(b"hello"),
            headers: &h,
            ..NewRecord::DEFAULT
        },
        NewRecord {
            offset_delta: 1,
            timestamp_delta: 5,
            key: Some(b"k"),
            value: None,
            ..NewRecord::DEFAULT
        },
    ];
    let txn = Attributes::NONE.with_transactional(true);
    let mut seg = batch(&BatchBuilder {
        base_offset: 10,
        attributes: txn,
        base_timestamp: T0,
        producer_id: 4000,
        producer_epoch: 2,
        base_sequence: 0,
        records: BatchRecords::Plain(&recs),
        ..BatchBuilder::DEFAULT
    });
    let marker = [NewRecord {
        key: Some(&[0, 0, 0, 1]),
        value: Some(&[0, 0, 0, 0, 0, 7]),
        ..NewRecord::DEFAULT
    }];
    seg.extend(batch(&BatchBuilder {
        base_offset: 12,
        attributes: txn.with_control(true),
        base_timestamp: T0 + 100,
        producer_id: 4000,
        producer_epoch: 2,
        records: BatchRecords::Plain(&marker),
        ..BatchBuilder::DEFAULT
    }));
    let whole = seg.len();
    let next = batch(&BatchBuilder {
        base_offset: 13,
        records: BatchRecords::Plain(&recs),
        ..BatchBuilder::DEFAULT
    });
    seg.extend(&next[..30]);

    let out = lines(&kwire(&["dump-log", "-"], &seg));
    assert_eq!(out.len(), 6, "{out:?}");
    let b = &out[0]["batch"];
    assert_eq!(
        (&b["baseOffset"], &b["lastOffset"], &b["count"]),
        (&json!(10), &json!(11), &json!(2))
    );
    assert_eq!(
        (
            &b["isTransactional"],
            &b["isControl"],
            &b["producerId"],
            &b["lastSequence"]
        ),
        (&json!(true), &json!(false), &json!(4000), &json!(1))
    );
    assert_eq!(b["timestampType"], "CreateTime");
    assert_eq!(b["compression"], "none");
    let r0 = &out[1]["record"];
    assert_eq!(
        (&r0["offset"], &r0["key"], &r0["value"]),
        (&json!(10), &json!("aw=="), &json!("aGVsbG8="))
    );
    assert_eq!(
        r0["headers"],
        json!([{"key": "trace", "value": "dDE="}, {"key": "empty", "value": null}])
    );
    let r1 = &out[2]["record"];
    assert_eq!(
        (&r1["offset"], &r1["timestamp"], &r1["value"], &r1["valueSize"]),
        (&json!(11), &json!(T0 + 5), &Value::Null, &json!(-1))
    );
    assert_eq!(out[3]["batch"]["isControl"], true);
    assert_eq!(
        out[4]["control"],
        json!({"offset": 12, "timestamp": T0 + 100, "type": "COMMIT", "typeId": 1, "keyVersion": 0, "version": 0, "data": {"coordinatorEpoch": 7}})
    );
    assert_eq!(
        out[5],
        json!({"truncated": {"position": whole, "bytes": 30, "baseOffset": 13, "batchLength": next.len() - 12}})
    );
}

#[test]
fn a_corrupted_crc_stops_the_dump_and_names_the_batch() {
    let recs = [NewRecord {
        value: Some(b"payload"),
        ..NewRecord::DEFAULT
    }];
    let mut seg = batch(&BatchBuilder {
        base_offset: 0,
        records: BatchRecords::Plain(&recs),
        ..BatchBuilder::DEFAULT
    });
    let second = seg.len();
    seg.extend(batch(&BatchBuilder {
        base_offset: 77,
        records: BatchRecords::Plain(&recs),
        ..BatchBuilder::DEFAULT
    }));
    let n = seg.len();
    seg[n - 3] ^= 0x01; // inside the second batch's value

    let o = kwire(&["dump-log", "-"], &seg);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(err.contains("batch at offset 77"), "{err}");
    assert!(
        err.contains(&format!("at byte {second} in RecordBatch v2 crc")),
        "{err}"
    );
    // The batch before it was printed.
    assert_eq!(text(&o.stdout).lines().count(), 2);

    // --skip-crc-check prints it, marked.
    let out = lines(&kwire(&["dump-log", "--skip-crc-check", "-"], &seg));
    assert_eq!(out.len(), 4);
    assert_eq!(out[0]["batch"]["crcValid"], true);
    assert_eq!(out[2]["batch"]["crcValid"], false);

    // A batch that is not a record batch at all.
    let o = kwire(&["dump-log", "-"], &[0u8; 40]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("batch_length"), "{}", text(&o.stderr));
    // A missing file.
    let o = kwire(&["dump-log", "/nonexistent/0.log"], b"");
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("reading /nonexistent/0.log"));
}

fn legacy(offset: i64, magic: u8, attributes: u8, key: Option<&[u8]>, value: Option<&[u8]>) -> Vec<u8> {
    let mut body = vec![magic, attributes];
    if magic == 1 {
        body.extend(T0.to_be_bytes());
    }
    for b in [key, value] {
        match b {
            None => body.extend((-1i32).to_be_bytes()),
            Some(b) => {
                body.extend((b.len() as i32).to_be_bytes());
                body.extend(b);
            }
        }
    }
    let mut out = offset.to_be_bytes().to_vec();
    out.extend(((body.len() + 4) as i32).to_be_bytes());
    out.extend(crc32_ieee(&body).to_be_bytes());
    out.extend(body);
    out
}

#[test]
fn legacy_segment_with_a_compressed_wrapper() {
    let mut seg = legacy(0, 0, 0, None, Some(b"v0"));
    let mut inner = legacy(0, 1, 0, Some(b"a"), Some(b"x"));
    inner.extend(legacy(1, 1, 0, Some(b"b"), Some(b"y")));
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&inner).unwrap();
    seg.extend(legacy(2, 1, 1, None, Some(&gz.finish().unwrap())));

    let out = lines(&kwire(&["dump-log", "-"], &seg));
    assert_eq!(out.len(), 4);
    let m0 = &out[0]["message"];
    assert_eq!(
        (&m0["offset"], &m0["magic"], &m0["value"], &m0["crcValid"]),
        (&json!(0), &json!(0), &json!("djA="), &json!(true))
    );
    assert_eq!(m0["timestampType"], Value::Null);
    let w = &out[1]["message"];
    assert_eq!(
        (&w["offset"], &w["compression"], &w["timestampType"]),
        (&json!(2), &json!("gzip"), &json!("CreateTime"))
    );
    let inner: Vec<(i64, &str, i64)> = out[2..]
        .iter()
        .map(|l| {
            (
                l["message"]["offset"].as_i64().unwrap(),
                l["message"]["value"].as_str().unwrap(),
                l["message"]["wrapperOffset"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        inner,
        [(1, "eA==", 2), (2, "eQ==", 2)],
        "magic 1 inner offsets are relative to the wrapper's"
    );
}

#[test]
fn a_decompression_bomb_in_a_segment_is_an_error() {
    let zeros = vec![0u8; 2 << 20];
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&zeros).unwrap();
    let gz = gz.finish().unwrap();
    let seg = batch(&BatchBuilder {
        records: BatchRecords::Compressed {
            compression: Compression::Gzip,
            record_count: 1,
            bytes: &gz,
        },
        ..BatchBuilder::DEFAULT
    });
    let o = kwire(&["dump-log", "--max-decompressed-bytes", "1048576", "-"], &seg);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("gzip output exceeds the limit of 1048576 bytes"),
        "{}",
        text(&o.stderr)
    );
}
