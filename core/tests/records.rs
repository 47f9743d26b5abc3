//! Record batches: golden batches written by hand from the format (CRCs computed by an
//! independent bit-by-bit implementation, not by this crate), round trips through the builder,
//! control and metadata records, legacy message sets, truncated Fetch tails, and typed errors
//! for corrupt or lying input.

use kafka_wire::frame::encode_metadata_record;
use kafka_wire::messages::leader_change_message::Voter as LeaderVoter;
use kafka_wire::messages::voters_record::Voter;
use kafka_wire::messages::{
    EndTxnMarker, KRaftVersionRecord, LeaderChangeMessage, SnapshotFooterRecord, SnapshotHeaderRecord, VotersRecord,
};
use kafka_wire::metadata::{FeatureLevelRecord, PartitionRecord, TopicRecord};
use kafka_wire::records::{
    crc32_ieee, crc32c, encode_records, Attributes, Batch, BatchBuilder, BatchRecords, Batches, Compression,
    ControlRecordType, ControlValue, NewHeader, NewRecord, Record, RecordBatch, Records, TimestampType,
};
use kafka_wire::{
    Array, DecodeError, DecodeErrorKind, EncodeErrorKind, Message, MetadataRecord, MetadataRecordType, Uuid,
};

const T0: i64 = 1_700_000_000_000; // 0x0000018BCFE56800

/// An uncompressed batch: three records, with headers, a null key and value, an empty key, an
/// empty header key and value.
#[rustfmt::skip]
const GOLDEN_PLAIN: &[u8] = &[
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, // base offset 16
    0x00, 0x00, 0x00, 0x5a,                         // batch length 90
    0x00, 0x00, 0x00, 0x05,                         // partition leader epoch 5
    0x02,                                           // magic 2
    0xcd, 0xe7, 0x85, 0xd0,                         // CRC-32C of attributes..end
    0x00, 0x00,                                     // attributes: none, CreateTime
    0x00, 0x00, 0x00, 0x02,                         // last offset delta 2
    0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, // base timestamp T0
    0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x07, // max timestamp T0 + 7
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // producer id -1
    0xff, 0xff,                                     // producer epoch -1
    0xff, 0xff, 0xff, 0xff,                         // base sequence -1
    0x00, 0x00, 0x00, 0x03,                         // 3 records
    // record 0: length 23, attributes 0, timestamp delta 0, offset delta 0
    0x2e, 0x00, 0x00, 0x00,
    0x04, b'k', b'0',                               // key "k0"
    0x0a, b'h', b'e', b'l', b'l', b'o',             // value "hello"
    0x04,                                           // 2 headers
    0x04, b'h', b'1', 0x04, b'v', b'1',             //   h1 = "v1"
    0x04, b'h', b'2', 0x01,                         //   h2 = null
    // record 1: length 6, timestamp delta 7, offset delta 1, key null, value null, no headers
    0x0c, 0x00, 0x0e, 0x02, 0x01, 0x01, 0x00,
    // record 2: length 9, timestamp delta 3, offset delta 2, key "" (not null), value "x",
    // one header with an empty key and an empty value
    0x12, 0x00, 0x06, 0x04, 0x00, 0x02, b'x', 0x02, 0x00, 0x00,
];

/// A transactional data batch: producer 4000, epoch 2, sequence 0, one record.
#[rustfmt::skip]
const GOLDEN_TXN: &[u8] = &[
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x13, // base offset 19
    0x00, 0x00, 0x00, 0x3b,                         // batch length 59
    0x00, 0x00, 0x00, 0x05,                         // partition leader epoch 5
    0x02,                                           // magic
    0x64, 0xbd, 0xd4, 0xd6,                         // CRC-32C
    0x00, 0x10,                                     // attributes: transactional
    0x00, 0x00, 0x00, 0x00,                         // last offset delta 0
    0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, // base timestamp
    0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, // max timestamp
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0f, 0xa0, // producer id 4000
    0x00, 0x02,                                     // producer epoch 2
    0x00, 0x00, 0x00, 0x00,                         // base sequence 0
    0x00, 0x00, 0x00, 0x01,                         // 1 record
    0x12, 0x00, 0x00, 0x00, 0x02, b'a', 0x04, b'v', b'1', 0x00, // key "a", value "v1"
];

/// The COMMIT marker that ends the transaction above: a control batch with one control record.
#[rustfmt::skip]
const GOLDEN_COMMIT: &[u8] = &[
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, // base offset 20
    0x00, 0x00, 0x00, 0x42,                         // batch length 66
    0x00, 0x00, 0x00, 0x05,                         // partition leader epoch 5
    0x02,                                           // magic
    0x72, 0x17, 0x23, 0x92,                         // CRC-32C
    0x00, 0x30,                                     // attributes: transactional, control
    0x00, 0x00, 0x00, 0x00,                         // last offset delta
    0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x69, 0x00, // base timestamp T0 + 256
    0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x69, 0x00, // max timestamp
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0f, 0xa0, // producer id 4000
    0x00, 0x02,                                     // producer epoch 2
    0xff, 0xff, 0xff, 0xff,                         // base sequence -1
    0x00, 0x00, 0x00, 0x01,                         // 1 record
    0x20, 0x00, 0x00, 0x00,                         // record: length 16, attributes, deltas
    0x08, 0x00, 0x00, 0x00, 0x01,                   // key: version 0, type 1 (COMMIT)
    0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07,       // value: version 0, coordinator epoch 7
    0x00,                                           // no headers
];

/// A raft control batch: LEADER_CHANGE then SNAPSHOT_HEADER, each value the bare flexible struct.
#[rustfmt::skip]
const GOLDEN_RAFT: &[u8] = &[
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // base offset 0
    0x00, 0x00, 0x00, 0x65,                         // batch length 101
    0x00, 0x00, 0x00, 0x01,                         // partition leader epoch 1
    0x02,                                           // magic
    0x2c, 0x60, 0xe3, 0x59,                         // CRC-32C
    0x00, 0x20,                                     // attributes: control
    0x00, 0x00, 0x00, 0x01,                         // last offset delta 1
    0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, // base timestamp
    0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, // max timestamp
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // producer id -1
    0xff, 0xff,                                     // producer epoch -1
    0xff, 0xff, 0xff, 0xff,                         // base sequence -1
    0x00, 0x00, 0x00, 0x02,                         // 2 records
    0x3a, 0x00, 0x00, 0x00,                         // record 0: length 29
    0x08, 0x00, 0x00, 0x00, 0x02,                   // key: version 0, type 2 (LEADER_CHANGE)
    0x26,                                           // value: 19 bytes of LeaderChangeMessage v0
    0x00, 0x00,                                     //   version 0
    0x00, 0x00, 0x00, 0x01,                         //   leader id 1
    0x02, 0x00, 0x00, 0x00, 0x01, 0x00,             //   voters [1]
    0x02, 0x00, 0x00, 0x00, 0x01, 0x00,             //   granting voters [1]
    0x00,                                           //   no tagged fields
    0x00,                                           // no headers
    0x2a, 0x00, 0x00, 0x02,                         // record 1: length 21, offset delta 1
    0x08, 0x00, 0x00, 0x00, 0x03,                   // key: version 0, type 3 (SNAPSHOT_HEADER)
    0x16,                                           // value: 11 bytes of SnapshotHeaderRecord v0
    0x00, 0x00,                                     //   version 0
    0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, //   last contained log timestamp T0
    0x00,                                           //   no tagged fields
    0x00,                                           // no headers
];

/// A legacy magic 0 message then a magic 1 message.
#[rustfmt::skip]
const GOLDEN_LEGACY: &[u8] = &[
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // offset 0
    0x00, 0x00, 0x00, 0x11,                         // message size 17
    0x43, 0xdc, 0x3f, 0xaf,                         // CRC-32 (IEEE) of magic..end
    0x00,                                           // magic 0
    0x00,                                           // attributes: uncompressed
    0xff, 0xff, 0xff, 0xff,                         // key null
    0x00, 0x00, 0x00, 0x03, b'a', b'b', b'c',       // value "abc"
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, // offset 1
    0x00, 0x00, 0x00, 0x19,                         // message size 25
    0x3e, 0x73, 0x16, 0x74,                         // CRC-32
    0x01,                                           // magic 1
    0x00,                                           // attributes: uncompressed, CreateTime
    0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, // timestamp T0
    0x00, 0x00, 0x00, 0x01, b'k',                   // key "k"
    0x00, 0x00, 0x00, 0x02, b'v', b'1',             // value "v1"
];

fn only_v2(bytes: &[u8]) -> RecordBatch<'_> {
    let mut it = Batches::strict(bytes);
    let Some(Ok(Batch::V2(b))) = it.next() else {
        panic!("expected one magic 2 batch")
    };
    assert!(it.next().is_none());
    b
}

fn build(b: &BatchBuilder<'_>) -> Vec<u8> {
    let n = b.encoded_len().expect("encoded_len");
    let mut out = vec![0u8; n];
    assert_eq!(
        b.encode_to_slice(&mut out).expect("encode"),
        n,
        "encoded_len must equal the bytes written"
    );
    out
}

/// Rebuilds a batch from its parsed view through the builder.
fn rebuild(b: &RecordBatch<'_>) -> Vec<u8> {
    let recs: Vec<Record<'_>> = b.records().expect("uncompressed").iter().collect();
    let headers: Vec<Vec<NewHeader<'_>>> = recs
        .iter()
        .map(|r| {
            r.headers
                .iter()
                .map(|h| NewHeader {
                    key: h.key,
                    value: h.value,
                })
                .collect()
        })
        .collect();
    let new: Vec<NewRecord<'_>> = recs
        .iter()
        .zip(&headers)
        .map(|(r, h)| NewRecord {
            attributes: r.attributes,
            timestamp_delta: r.timestamp_delta,
            offset_delta: r.offset_delta,
            key: r.key,
            value: r.value,
            headers: h,
        })
        .collect();
    build(&BatchBuilder {
        base_offset: b.base_offset,
        partition_leader_epoch: b.partition_leader_epoch,
        attributes: b.attributes,
        last_offset_delta: Some(b.last_offset_delta),
        base_timestamp: b.base_timestamp,
        max_timestamp: Some(b.max_timestamp),
        producer_id: b.producer_id,
        producer_epoch: b.producer_epoch,
        base_sequence: b.base_sequence,
        records: BatchRecords::Plain(&new),
    })
}

/// Writes a fresh CRC-32C into a magic 2 batch (after a test changed a byte it covers).
fn fix_crc(batch: &mut [u8]) {
    let crc = crc32c(&batch[21..]);
    batch[17..21].copy_from_slice(&crc.to_be_bytes());
}

#[test]
fn crc_functions_match_the_standard_check_values() {
    assert_eq!(crc32c(b"123456789"), 0xe306_9283);
    assert_eq!(crc32_ieee(b"123456789"), 0xcbf4_3926);
}

#[test]
fn golden_plain_batch_every_header_field() {
    let b = only_v2(GOLDEN_PLAIN);
    assert_eq!(b.base_offset, 16);
    assert_eq!(b.batch_length, 90);
    assert_eq!(b.size_in_bytes(), GOLDEN_PLAIN.len());
    assert_eq!(b.partition_leader_epoch, 5);
    assert_eq!(b.magic, 2);
    assert_eq!(b.crc, 0xcde7_85d0);
    assert_eq!(b.computed_crc(), b.crc);
    assert_eq!(b.attributes, Attributes(0));
    assert_eq!(b.compression(), Compression::None);
    assert_eq!(b.timestamp_type(), TimestampType::CreateTime);
    assert!(!b.is_transactional() && !b.is_control() && !b.has_delete_horizon());
    assert_eq!(b.delete_horizon_ms(), None);
    assert_eq!(b.last_offset_delta, 2);
    assert_eq!(b.last_offset(), 18);
    assert_eq!(b.next_offset(), 19);
    assert_eq!(b.base_timestamp, T0);
    assert_eq!(b.max_timestamp, T0 + 7);
    assert_eq!(
        (b.producer_id, b.producer_epoch, b.base_sequence, b.last_sequence()),
        (-1, -1, -1, -1)
    );
    assert_eq!(b.record_count, 3);
    assert_eq!(b.position(), 0);
    assert_eq!(b.bytes(), GOLDEN_PLAIN);
    assert_eq!(b.records_bytes(), &GOLDEN_PLAIN[61..]);
    assert_eq!(b.compressed_records(), None);
}

#[test]
fn golden_plain_batch_records_and_headers() {
    let b = only_v2(GOLDEN_PLAIN);
    let records = b.records().expect("uncompressed");
    assert_eq!(records.len(), 3);
    let rs: Vec<Record<'_>> = records.iter().collect();
    assert_eq!(records.iter().len(), 3, "ExactSizeIterator");

    let r0 = &rs[0];
    assert_eq!(
        (r0.length, r0.attributes, r0.timestamp_delta, r0.offset_delta),
        (23, 0, 0, 0)
    );
    assert_eq!(r0.key, Some(&b"k0"[..]));
    assert_eq!(r0.value, Some(&b"hello"[..]));
    assert_eq!(r0.position, 61);
    assert_eq!(r0.bytes(), &GOLDEN_PLAIN[61..85]);
    let hs: Vec<_> = r0.headers.iter().collect();
    assert_eq!(hs.len(), 2);
    assert_eq!((hs[0].key_str(), hs[0].value), (Some("h1"), Some(&b"v1"[..])));
    assert_eq!((hs[1].key_str(), hs[1].value), (Some("h2"), None));
    assert_eq!((b.offset_of(r0), b.timestamp_of(r0)), (16, T0));

    let r1 = &rs[1];
    assert_eq!(
        (r1.timestamp_delta, r1.offset_delta, r1.key, r1.value),
        (7, 1, None, None)
    );
    assert!(r1.headers.is_empty());
    assert_eq!((b.offset_of(r1), b.timestamp_of(r1)), (17, T0 + 7));
    assert_eq!(r1.position, 85);

    let r2 = &rs[2];
    assert_eq!((r2.key, r2.value), (Some(&b""[..]), Some(&b"x"[..])));
    let h = r2.headers.iter().next().unwrap();
    assert_eq!((h.key, h.value), (&b""[..], Some(&b""[..])));
    assert_eq!(b.offset_of(r2), 18);
}

#[test]
fn golden_batches_round_trip_through_the_builder() {
    for golden in [GOLDEN_PLAIN, GOLDEN_TXN, GOLDEN_COMMIT, GOLDEN_RAFT] {
        let b = only_v2(golden);
        assert_eq!(rebuild(&b), golden, "batch at offset {}", b.base_offset);
    }
}

#[test]
fn builder_computes_deltas_and_timestamps_and_writes_the_golden_bytes() {
    let h = [NewHeader::new("h1", Some(b"v1")), NewHeader::new("h2", None)];
    let h2 = [NewHeader::new("", Some(b""))];
    let recs = [
        NewRecord {
            key: Some(b"k0"),
            value: Some(b"hello"),
            headers: &h,
            ..NewRecord::DEFAULT
        },
        NewRecord {
            timestamp_delta: 7,
            offset_delta: 1,
            ..NewRecord::DEFAULT
        },
        NewRecord {
            timestamp_delta: 3,
            offset_delta: 2,
            key: Some(b""),
            value: Some(b"x"),
            headers: &h2,
            ..NewRecord::DEFAULT
        },
    ];
    let builder = BatchBuilder {
        base_offset: 16,
        partition_leader_epoch: 5,
        base_timestamp: T0,
        records: BatchRecords::Plain(&recs),
        ..BatchBuilder::DEFAULT
    };
    assert_eq!(builder.written_last_offset_delta(), 2);
    assert_eq!(builder.written_max_timestamp(), T0 + 7);
    assert_eq!(build(&builder), GOLDEN_PLAIN);

    // Into a heapless vector and a Vec-like slice sink, with the same bytes.
    let mut hv: heapless::Vec<u8, 128> = heapless::Vec::new();
    assert_eq!(builder.encode(&mut hv).unwrap(), GOLDEN_PLAIN.len());
    assert_eq!(&hv[..], GOLDEN_PLAIN);

    // A buffer one byte short is an error before anything is written.
    let mut short = vec![0xaa; GOLDEN_PLAIN.len() - 1];
    let e = builder.encode_to_slice(&mut short).unwrap_err();
    assert_eq!(
        e.kind(),
        EncodeErrorKind::BufferTooShort {
            needed: GOLDEN_PLAIN.len()
        }
    );
    assert_eq!(e.message(), "RecordBatch");
    assert!(short.iter().all(|&x| x == 0xaa));

    // The codec bits of the attributes are ignored for plain records.
    let gz = BatchBuilder {
        attributes: Attributes::NONE.with_compression(Compression::Gzip),
        ..builder
    };
    assert_eq!(build(&gz), GOLDEN_PLAIN);
}

#[test]
fn a_batch_sealed_in_place_after_its_records_is_the_golden_batch() {
    // The golden batch's records, appended one at a time after room for the header, as a
    // producer fills its batch buffer; the header and CRC written last, in place.
    let h = [NewHeader::new("h1", Some(b"v1")), NewHeader::new("h2", None)];
    let h2 = [NewHeader::new("", Some(b""))];
    let recs = [
        NewRecord {
            key: Some(b"k0"),
            value: Some(b"hello"),
            headers: &h,
            ..NewRecord::DEFAULT
        },
        NewRecord {
            timestamp_delta: 7,
            offset_delta: 1,
            ..NewRecord::DEFAULT
        },
        NewRecord {
            timestamp_delta: 3,
            offset_delta: 2,
            key: Some(b""),
            value: Some(b"x"),
            headers: &h2,
            ..NewRecord::DEFAULT
        },
    ];
    let mut space = [0u8; 256];
    let mut len = 61;
    for r in &recs {
        let mut rest: &mut [u8] = &mut space[len..];
        len += encode_records(std::slice::from_ref(r), &mut rest).unwrap();
    }
    let mut buf = space[..len].to_vec();
    let header = BatchBuilder {
        base_offset: 16,
        partition_leader_epoch: 5,
        base_timestamp: T0,
        max_timestamp: Some(T0 + 7),
        ..BatchBuilder::DEFAULT
    };
    header.seal_in_place(&mut buf, Compression::None, 3).unwrap();
    assert_eq!(buf, GOLDEN_PLAIN);

    // Sealed again with a producer id, epoch and sequence: those fields and the CRC change, and
    // the batch still checks.
    let stamped = BatchBuilder {
        producer_id: 7,
        producer_epoch: 1,
        base_sequence: 40,
        ..header
    };
    stamped.seal_in_place(&mut buf, Compression::None, 3).unwrap();
    let b = only_v2(&buf);
    assert!(b.is_crc_valid());
    assert_eq!(
        (b.producer_id, b.producer_epoch, b.base_sequence, b.last_sequence()),
        (7, 1, 40, 42)
    );
    assert_eq!(b.records_bytes(), &GOLDEN_PLAIN[61..]);

    // Too short for a header, or a negative count: an error, nothing written.
    let mut short = [0xaau8; 60];
    assert!(header.seal_in_place(&mut short, Compression::None, 0).is_err());
    assert!(short.iter().all(|&x| x == 0xaa));
    assert!(header.seal_in_place(&mut buf, Compression::None, -1).is_err());
}

#[test]
fn builder_round_trips_varied_records() {
    let big = vec![7u8; 300]; // two-byte varint lengths
    let hdrs = [
        NewHeader::new("a", None),
        NewHeader::new("bb", Some(&big[..200])),
        NewHeader::new("ccc", Some(b"")),
    ];
    let recs = [
        NewRecord {
            timestamp_delta: -5,
            offset_delta: 0,
            key: None,
            value: Some(&big),
            headers: &hdrs,
            ..NewRecord::DEFAULT
        },
        NewRecord {
            timestamp_delta: i64::MAX / 2,
            offset_delta: 3,
            key: Some(&big[..129]),
            value: None,
            ..NewRecord::DEFAULT
        },
        NewRecord {
            timestamp_delta: 0,
            offset_delta: 70_000,
            attributes: 0,
            ..NewRecord::DEFAULT
        },
    ];
    let attrs = Attributes::NONE
        .with_timestamp_type(TimestampType::LogAppendTime)
        .with_transactional(true)
        .with_delete_horizon(true);
    let builder = BatchBuilder {
        base_offset: 1 << 40,
        partition_leader_epoch: 9,
        attributes: attrs,
        base_timestamp: 42,
        max_timestamp: Some(99),
        producer_id: 123_456_789,
        producer_epoch: 3,
        base_sequence: i32::MAX - 1,
        records: BatchRecords::Plain(&recs),
        ..BatchBuilder::DEFAULT
    };
    let bytes = build(&builder);
    let b = only_v2(&bytes);
    assert_eq!(b.attributes, attrs);
    assert_eq!(b.timestamp_type(), TimestampType::LogAppendTime);
    assert!(b.is_transactional() && b.has_delete_horizon() && !b.is_control());
    assert_eq!(b.delete_horizon_ms(), Some(42));
    assert_eq!(b.last_offset_delta, 70_000);
    assert_eq!(b.last_sequence(), 69_998, "sequence numbers wrap at i32::MAX");
    let rs: Vec<_> = b.records().unwrap().iter().collect();
    assert_eq!(rs.len(), 3);
    assert_eq!(rs[0].value, Some(&big[..]));
    assert_eq!(rs[0].timestamp_delta, -5);
    assert_eq!(
        b.timestamp_of(&rs[0]),
        99,
        "LogAppendTime: every record has the max timestamp"
    );
    let hs: Vec<_> = rs[0].headers.iter().collect();
    assert_eq!(hs.len(), 3);
    assert_eq!(hs[1].value, Some(&big[..200]));
    assert_eq!(rs[1].key, Some(&big[..129]));
    assert_eq!(rs[1].timestamp_delta, i64::MAX / 2);
    assert_eq!(b.offset_of(&rs[2]), (1 << 40) + 70_000);
    assert_eq!(rebuild(&b), bytes);

    // An empty batch.
    let empty = build(&BatchBuilder {
        base_offset: 5,
        ..BatchBuilder::DEFAULT
    });
    assert_eq!(empty.len(), 61);
    let e = only_v2(&empty);
    assert_eq!((e.record_count, e.records().unwrap().len()), (0, 0));
}

#[test]
fn transactional_batch_and_commit_marker() {
    let mut log = GOLDEN_TXN.to_vec();
    log.extend_from_slice(GOLDEN_COMMIT);
    let items: Vec<Batch<'_>> = Batches::strict(&log).collect::<Result<_, _>>().unwrap();
    assert_eq!(items.len(), 2);
    let (Batch::V2(data), Batch::V2(marker)) = (items[0], items[1]) else {
        panic!()
    };

    assert!(data.is_transactional() && !data.is_control());
    assert_eq!(
        (data.producer_id, data.producer_epoch, data.base_sequence),
        (4000, 2, 0)
    );
    let r = data.records().unwrap().iter().next().unwrap();
    assert_eq!((r.key, r.value), (Some(&b"a"[..]), Some(&b"v1"[..])));
    assert!(r.control().is_err(), "a one-byte key is not a control record key");

    assert!(marker.is_transactional() && marker.is_control());
    assert_eq!(marker.position(), GOLDEN_TXN.len());
    assert_eq!(marker.base_offset, 20);
    let records = marker.records().unwrap();
    let controls: Vec<_> = records.control().unwrap().collect();
    assert_eq!(controls.len(), 1);
    let (rec, c) = controls[0];
    assert_eq!(marker.offset_of(&rec), 20);
    assert_eq!(c.key_version, 0);
    assert_eq!(c.record_type, ControlRecordType::Commit);
    assert_eq!(c.record_type.name(), "COMMIT");
    assert_eq!(c.version, 0);
    let ControlValue::EndTxn(m) = c.value else {
        panic!("{:?}", c.value)
    };
    assert_eq!(
        m,
        EndTxnMarker {
            coordinator_epoch: 7,
            ..EndTxnMarker::DEFAULT
        }
    );
    assert_eq!(c.value_bytes, &[0, 0, 0, 7]);
    assert_eq!(c.value.schema().unwrap().name, "EndTxnMarker");
}

#[test]
fn raft_control_records_by_hand() {
    let b = only_v2(GOLDEN_RAFT);
    assert!(b.is_control() && !b.is_transactional());
    let cs: Vec<_> = b.records().unwrap().control().unwrap().collect();
    assert_eq!(cs.len(), 2);
    assert_eq!(cs[0].1.record_type, ControlRecordType::LeaderChange);
    let ControlValue::LeaderChange(lc) = cs[0].1.value else {
        panic!()
    };
    assert_eq!((lc.version, lc.leader_id), (0, 1));
    assert_eq!(lc.voters.iter().map(|v| v.voter_id).collect::<Vec<_>>(), [1]);
    assert_eq!(lc.granting_voters.iter().map(|v| v.voter_id).collect::<Vec<_>>(), [1]);
    assert_eq!(cs[1].1.record_type, ControlRecordType::SnapshotHeader);
    let ControlValue::SnapshotHeader(sh) = cs[1].1.value else {
        panic!()
    };
    assert_eq!(sh.last_contained_log_timestamp, T0);
    assert_eq!(b.offset_of(&cs[1].0), 1);
}

fn control_record<'a>(ty: i16, value: &'a [u8], key: &'a mut [u8; 4]) -> NewRecord<'a> {
    key[2..].copy_from_slice(&ty.to_be_bytes());
    NewRecord {
        key: Some(&key[..]),
        value: Some(value),
        ..NewRecord::DEFAULT
    }
}

#[test]
fn raft_control_records_through_the_generated_encoders() {
    fn enc<'a, M: Message<'a>>(m: &M) -> Vec<u8> {
        let mut buf = [0u8; 256];
        let n = m.encode_to_slice(&mut buf, 0).unwrap();
        buf[..n].to_vec()
    }
    let voters = [Voter {
        voter_id: 3,
        voter_directory_id: Uuid::from_u128(77),
        ..Voter::DEFAULT
    }];
    let lvoters = [LeaderVoter {
        voter_id: 3,
        ..LeaderVoter::DEFAULT
    }];
    let lc = enc(&LeaderChangeMessage {
        leader_id: 3,
        voters: Array::from_slice(&lvoters),
        ..LeaderChangeMessage::DEFAULT
    });
    let kv = enc(&KRaftVersionRecord {
        k_raft_version: 1,
        ..KRaftVersionRecord::DEFAULT
    });
    let vr = enc(&VotersRecord {
        voters: Array::from_slice(&voters),
        ..VotersRecord::DEFAULT
    });
    let sf = enc(&SnapshotFooterRecord::DEFAULT);
    let sh = enc(&SnapshotHeaderRecord {
        last_contained_log_timestamp: 5,
        ..SnapshotHeaderRecord::DEFAULT
    });
    // An ABORT marker, version-prefixed; and a marker written at a future version 3 with an
    // extra field, read at version 0 as Kafka does.
    let abort = [0u8, 0, 0, 0, 0, 9];
    let future = [0u8, 3, 0, 0, 0, 11, 0xee, 0xee];
    let unknown = [1u8, 2, 3];
    let (mut k0, mut k1, mut k2, mut k3, mut k4, mut k5, mut k6, mut k7, mut k8) = (
        [0u8; 4], [0u8; 4], [0u8; 4], [0u8; 4], [0u8; 4], [0u8; 4], [0u8; 4], [0u8; 4], [0u8; 4],
    );
    let mut recs = vec![
        control_record(3, &sh, &mut k0),
        control_record(2, &lc, &mut k1),
        control_record(5, &kv, &mut k2),
        control_record(6, &vr, &mut k3),
        control_record(4, &sf, &mut k4),
        control_record(0, &abort, &mut k5),
        control_record(1, &future, &mut k6),
        control_record(99, &unknown, &mut k7),
    ];
    k8[1] = 1; // key version 1: read as version 0
    k8[3] = 1;
    recs.push(NewRecord {
        key: Some(&k8),
        value: Some(&abort),
        ..NewRecord::DEFAULT
    });
    for (i, r) in recs.iter_mut().enumerate() {
        r.offset_delta = i as i32;
    }
    let bytes = build(&BatchBuilder {
        attributes: Attributes::NONE.with_control(true),
        base_timestamp: T0,
        records: BatchRecords::Plain(&recs),
        ..BatchBuilder::DEFAULT
    });
    let b = only_v2(&bytes);
    let cs: Vec<_> = b.records().unwrap().control().unwrap().map(|(_, c)| c).collect();
    let types: Vec<&str> = cs.iter().map(|c| c.record_type.name()).collect();
    assert_eq!(
        types,
        [
            "SNAPSHOT_HEADER",
            "LEADER_CHANGE",
            "KRAFT_VERSION",
            "KRAFT_VOTERS",
            "SNAPSHOT_FOOTER",
            "ABORT",
            "COMMIT",
            "UNKNOWN",
            "COMMIT"
        ]
    );
    let ControlValue::SnapshotHeader(x) = cs[0].value else {
        panic!()
    };
    assert_eq!(x.last_contained_log_timestamp, 5);
    let ControlValue::LeaderChange(x) = cs[1].value else {
        panic!()
    };
    assert_eq!(x.leader_id, 3);
    let ControlValue::KRaftVersion(x) = cs[2].value else {
        panic!()
    };
    assert_eq!(x.k_raft_version, 1);
    let ControlValue::Voters(x) = cs[3].value else { panic!() };
    let v = x.voters.iter().next().unwrap();
    assert_eq!((v.voter_id, v.voter_directory_id), (3, Uuid::from_u128(77)));
    assert!(matches!(cs[4].value, ControlValue::SnapshotFooter(_)));
    let ControlValue::EndTxn(x) = cs[5].value else { panic!() };
    assert_eq!((cs[5].record_type, x.coordinator_epoch), (ControlRecordType::Abort, 9));
    let ControlValue::EndTxn(x) = cs[6].value else { panic!() };
    assert_eq!(
        (cs[6].version, x.coordinator_epoch, cs[6].value_bytes),
        (0, 11, &[0u8, 0, 0, 11][..])
    );
    assert_eq!(cs[7].record_type, ControlRecordType::Unknown(99));
    assert_eq!(
        (cs[7].version, cs[7].value, cs[7].value_bytes),
        (-1, ControlValue::Unknown, &unknown[..])
    );
    assert_eq!(cs[8].key_version, 1);
    // Each value's bytes are exactly the struct the schema describes.
    assert_eq!(cs[3].value_bytes, &vr[..]);
    assert_eq!(cs[3].value.schema().unwrap().name, "VotersRecord");
}

#[test]
fn bad_control_records_are_typed_errors_with_absolute_offsets() {
    let short_key = [0u8, 0, 0];
    let neg_marker = [0xffu8, 0xff, 0, 0, 0, 1];
    let key_commit = [0u8, 0, 0, 1];
    let cases: [(NewRecord<'_>, DecodeErrorKind, &str); 4] = [
        (
            NewRecord {
                key: Some(&short_key),
                value: Some(b"x"),
                ..NewRecord::DEFAULT
            },
            DecodeErrorKind::UnexpectedEof { needed: 1 },
            "key",
        ),
        (
            NewRecord {
                key: None,
                value: Some(b"x"),
                ..NewRecord::DEFAULT
            },
            DecodeErrorKind::NullNotAllowed,
            "key",
        ),
        (
            NewRecord {
                key: Some(&key_commit),
                value: None,
                ..NewRecord::DEFAULT
            },
            DecodeErrorKind::NullNotAllowed,
            "value",
        ),
        (
            NewRecord {
                key: Some(&key_commit),
                value: Some(&neg_marker),
                ..NewRecord::DEFAULT
            },
            DecodeErrorKind::InvalidFrame { value: -1 },
            "value.version",
        ),
    ];
    for (rec, kind, field) in cases {
        let recs = [rec];
        let bytes = build(&BatchBuilder {
            attributes: Attributes::NONE.with_control(true),
            records: BatchRecords::Plain(&recs),
            ..BatchBuilder::DEFAULT
        });
        let b = only_v2(&bytes);
        let e = b.records().unwrap().control().unwrap_err();
        assert_eq!((e.kind(), e.field(), e.message()), (kind, field, "ControlRecord"));
        // Offsets point into the batch: the key starts at byte 61 + 5 (length, attributes, two
        // deltas, key length).
        assert!(e.offset() >= 61 && e.offset() <= bytes.len(), "{e}");
    }
    // A truncated EndTxnMarker body: the error comes from the generated parser, shifted to the
    // absolute offset of the field inside the batch.
    let cut = [0u8, 0, 0, 0];
    let recs = [NewRecord {
        key: Some(&key_commit),
        value: Some(&cut),
        ..NewRecord::DEFAULT
    }];
    let bytes = build(&BatchBuilder {
        attributes: Attributes::NONE.with_control(true),
        records: BatchRecords::Plain(&recs),
        ..BatchBuilder::DEFAULT
    });
    let e = only_v2(&bytes).records().unwrap().control().unwrap_err();
    assert_eq!(e.field(), "coordinator_epoch");
    assert_eq!(e.message(), "EndTxnMarker");
    let value_at = 61 + 1 + 3 + 1 + 4 + 1;
    assert_eq!(e.offset(), value_at + 2);
}

#[test]
fn metadata_records_in_a_batch() {
    let topic = MetadataRecord::Topic(TopicRecord {
        name: "orders",
        topic_id: Uuid::from_u128(1),
        ..TopicRecord::DEFAULT
    });
    let replicas = [1, 2, 3];
    let elr = [2];
    let part = MetadataRecord::Partition(PartitionRecord {
        partition_id: 0,
        topic_id: Uuid::from_u128(1),
        replicas: Array::from_slice(&replicas),
        isr: Array::from_slice(&replicas[..1]),
        leader: 1,
        eligible_leader_replicas: Some(Array::from_slice(&elr)),
        last_known_elr: Some(Array::from_slice(&elr)),
        ..PartitionRecord::DEFAULT
    });
    let feature = MetadataRecord::FeatureLevel(FeatureLevelRecord {
        name: "metadata.version",
        feature_level: 27,
        ..FeatureLevelRecord::DEFAULT
    });
    let mut frames = Vec::new();
    for (r, v) in [(&topic, 0i16), (&part, 2), (&feature, 0)] {
        let mut buf = [0u8; 256];
        let n = encode_metadata_record(r, v, &mut buf).unwrap();
        frames.push(buf[..n].to_vec());
    }
    let recs: Vec<NewRecord<'_>> = frames
        .iter()
        .enumerate()
        .map(|(i, f)| NewRecord {
            offset_delta: i as i32,
            value: Some(f),
            ..NewRecord::DEFAULT
        })
        .collect();
    let bytes = build(&BatchBuilder {
        base_offset: 100,
        partition_leader_epoch: 1,
        base_timestamp: T0,
        records: BatchRecords::Plain(&recs),
        ..BatchBuilder::DEFAULT
    });
    let b = only_v2(&bytes);
    let ms: Vec<_> = b.records().unwrap().metadata().unwrap().collect();
    assert_eq!(ms.len(), 3);
    assert_eq!(ms[0].1.record_type, MetadataRecordType::Topic);
    assert_eq!(ms[0].1.record, topic);
    assert_eq!((ms[1].1.version, ms[1].1.record), (2, part));
    let MetadataRecord::Partition(p) = ms[1].1.record else {
        panic!()
    };
    assert_eq!(p.eligible_leader_replicas.unwrap().iter().collect::<Vec<_>>(), [2]);
    assert_eq!(ms[2].1.record, feature);
    assert_eq!(b.offset_of(&ms[2].0), 102);

    // A record whose value is not a framed metadata record fails with an offset inside it.
    let junk = [NewRecord {
        value: Some(&[1, 0xff, 0xff, 0xff, 0x7f]),
        ..NewRecord::DEFAULT
    }];
    let bytes = build(&BatchBuilder {
        records: BatchRecords::Plain(&junk),
        ..BatchBuilder::DEFAULT
    });
    let e = only_v2(&bytes).records().unwrap().metadata().unwrap_err();
    assert_eq!(e.message(), "MetadataRecordFrame");
    assert_eq!(
        e.offset(),
        61 + 1 + 1 + 3 + 1 + 1,
        "the record_type varint, inside the batch"
    );
    // A null value.
    let null = [NewRecord::DEFAULT];
    let bytes = build(&BatchBuilder {
        records: BatchRecords::Plain(&null),
        ..BatchBuilder::DEFAULT
    });
    let e = only_v2(&bytes).records().unwrap().metadata().unwrap_err();
    assert_eq!(e.kind(), DecodeErrorKind::NullNotAllowed);
}

#[test]
fn legacy_magic_0_and_1() {
    let items: Vec<Batch<'_>> = Batches::strict(GOLDEN_LEGACY).collect::<Result<_, _>>().unwrap();
    let [Batch::Legacy(m0), Batch::Legacy(m1)] = items[..] else {
        panic!("{items:?}")
    };
    assert_eq!(
        (m0.offset, m0.message_size, m0.crc, m0.magic, m0.attributes),
        (0, 17, 0x43dc_3faf, 0, 0)
    );
    assert_eq!(
        (m0.timestamp, m0.timestamp_type(), m0.key, m0.value),
        (None, None, None, Some(&b"abc"[..]))
    );
    assert_eq!(m0.compression(), Compression::None);
    assert_eq!(m0.compressed_inner(), None);
    assert_eq!(m0.computed_crc(), m0.crc);
    assert_eq!(m1.position(), 29);
    assert_eq!((m1.offset, m1.message_size, m1.magic), (1, 25, 1));
    assert_eq!(
        (m1.timestamp, m1.timestamp_type()),
        (Some(T0), Some(TimestampType::CreateTime))
    );
    assert_eq!((m1.key, m1.value), (Some(&b"k"[..]), Some(&b"v1"[..])));
    assert_eq!(m1.bytes(), &GOLDEN_LEGACY[29..]);
}

/// A legacy message with a valid CRC.
fn legacy(
    offset: i64,
    magic: i8,
    attributes: i8,
    ts: Option<i64>,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
) -> Vec<u8> {
    let mut body = vec![magic as u8, attributes as u8];
    if let Some(t) = ts {
        body.extend(t.to_be_bytes());
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
fn legacy_wrapper_hands_out_the_compressed_inner_set() {
    // Core does not decompress: any bytes stand for the compressed inner set here.
    let inner = b"\x1f\x8b compressed inner message set";
    for (codec, id) in [(Compression::Gzip, 1), (Compression::Snappy, 2), (Compression::Lz4, 3)] {
        let w = legacy(11, 1, id | 0x08, Some(T0), None, Some(inner));
        let Some(Ok(Batch::Legacy(m))) = Batches::strict(&w).next() else {
            panic!()
        };
        assert_eq!(m.compression(), codec);
        assert_eq!(m.timestamp_type(), Some(TimestampType::LogAppendTime));
        assert_eq!(m.compressed_inner(), Some((codec, &inner[..])));
        // Magic 1: inner offsets are relative; the wrapper has the last one's absolute offset.
        assert_eq!((m.inner_offset(0, 1), m.inner_offset(1, 1)), (10, 11));
    }
    let w0 = legacy(7, 0, 1, None, None, Some(inner));
    let Some(Ok(Batch::Legacy(m))) = Batches::strict(&w0).next() else {
        panic!()
    };
    assert_eq!(m.inner_offset(6, 7), 6, "magic 0 inner offsets are absolute");
    // Zstandard needs magic 2; a wrapper with a null value is an error.
    let z = legacy(0, 1, 4, Some(0), None, Some(inner));
    let e = Batches::strict(&z).next().unwrap().unwrap_err();
    assert_eq!(
        (e.kind(), e.field(), e.offset()),
        (DecodeErrorKind::InvalidFrame { value: 4 }, "attributes", 17)
    );
    let n = legacy(0, 1, 1, Some(0), None, None);
    let e = Batches::strict(&n).next().unwrap().unwrap_err();
    assert_eq!((e.kind(), e.field()), (DecodeErrorKind::NullNotAllowed, "value"));
}

#[test]
fn compressed_batches_hand_out_codec_and_bytes() {
    let payload = b"compressed record bytes (core never looks inside)";
    for codec in [
        Compression::Gzip,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ] {
        let bytes = build(&BatchBuilder {
            base_timestamp: T0,
            records: BatchRecords::Compressed {
                compression: codec,
                record_count: 1000,
                bytes: payload,
            },
            ..BatchBuilder::DEFAULT
        });
        let b = only_v2(&bytes);
        assert_eq!(b.compression(), codec);
        assert_eq!(b.attributes.compression(), Some(codec));
        assert_eq!(b.records(), None);
        assert_eq!(b.compressed_records(), Some((codec, &payload[..])));
        assert_eq!(
            b.record_count, 1000,
            "the count of a compressed batch is checked after decompression"
        );
        assert_eq!(b.last_offset_delta, 999);
        // What a decompressor then checks: the count against the records.
        let e = Records::parse(b"", b.record_count).unwrap_err();
        assert_eq!(e.kind(), DecodeErrorKind::LengthExceedsInput { length: 1000 });
    }
    // Codec ids 5-7 are undefined.
    let mut bytes = build(&BatchBuilder::DEFAULT);
    bytes[22] = 5;
    fix_crc(&mut bytes);
    let e = Batches::new(&bytes).next().unwrap().unwrap_err();
    assert_eq!(
        (e.kind(), e.field(), e.offset()),
        (DecodeErrorKind::InvalidFrame { value: 5 }, "attributes", 21)
    );
}

#[test]
fn truncated_fetch_tail_is_reported_not_an_error() {
    let mut log = GOLDEN_PLAIN.to_vec();
    log.extend_from_slice(GOLDEN_TXN);
    for cut in GOLDEN_PLAIN.len() + 1..log.len() {
        let input = &log[..cut];
        let items: Vec<_> = Batches::new(input).collect();
        assert_eq!(items.len(), 2, "cut at {cut}");
        assert!(matches!(items[0], Ok(Batch::V2(_))));
        let Ok(Batch::Truncated(t)) = items[1] else {
            panic!("cut at {cut}: {:?}", items[1])
        };
        assert_eq!(t.position, GOLDEN_PLAIN.len());
        assert_eq!(t.bytes, &log[GOLDEN_PLAIN.len()..cut]);
        if t.bytes.len() >= 8 {
            assert_eq!(t.base_offset(), Some(19));
        }
        if t.bytes.len() >= 12 {
            assert_eq!(t.batch_length(), Some(59));
        }
        // Strict: the same input is an error at the partial batch.
        let e = Batches::strict(input).nth(1).unwrap().unwrap_err();
        if cut - GOLDEN_PLAIN.len() < 12 {
            assert_eq!(
                e.kind(),
                DecodeErrorKind::UnexpectedEof {
                    needed: 12 - (cut - GOLDEN_PLAIN.len())
                }
            );
        } else {
            assert_eq!(e.kind(), DecodeErrorKind::LengthExceedsInput { length: 59 });
            assert_eq!((e.offset(), e.field()), (GOLDEN_PLAIN.len() + 8, "batch_length"));
        }
    }
    // The whole log: two batches, then the end.
    let mut it = Batches::new(&log);
    assert!(matches!(it.next(), Some(Ok(Batch::V2(_)))));
    assert_eq!(it.position(), GOLDEN_PLAIN.len());
    assert!(matches!(it.next(), Some(Ok(Batch::V2(_)))));
    assert!(it.next().is_none());
    assert_eq!(it.position(), log.len());
    assert!(Batches::new(&[]).next().is_none());
}

fn err_of(bytes: &[u8]) -> DecodeError {
    match Batches::new(bytes).find_map(|x| x.err()) {
        Some(e) => e,
        None => panic!("expected an error"),
    }
}

#[test]
fn a_corrupted_crc_is_an_error_that_names_the_batch() {
    let mut log = GOLDEN_PLAIN.to_vec();
    log.extend_from_slice(GOLDEN_TXN);
    let second = GOLDEN_PLAIN.len();
    log[second + 61 + 5] ^= 0x20; // a byte of the second batch's record
    let mut it = Batches::new(&log);
    assert!(matches!(it.next(), Some(Ok(Batch::V2(_)))));
    let e = it.next().unwrap().unwrap_err();
    assert_eq!(e.kind(), DecodeErrorKind::InvalidFrame { value: 0x64bd_d4d6 });
    assert_eq!(
        (e.offset(), e.message(), e.version(), e.field()),
        (second, "RecordBatch", 2, "crc")
    );
    assert_eq!(
        e.to_string(),
        format!(
            "invalid framing value {} at byte {second} in RecordBatch v2 crc",
            0x64bd_d4d6u32
        )
    );
    assert!(it.next().is_none(), "the iterator ends after an error");
    // The batch's base offset is at the error's offset.
    assert_eq!(
        i64::from_be_bytes(log[e.offset()..e.offset() + 8].try_into().unwrap()),
        19
    );

    // With verification off the batch is handed out, and says its CRC is wrong.
    let b = Batches::new(&log).verify_crc(false).nth(1).unwrap().unwrap();
    let Batch::V2(b) = b else { panic!() };
    assert!(!b.is_crc_valid());
    assert_ne!(b.computed_crc(), b.crc);
    // RecordBatch::parse checks it as well; parse_with can skip it.
    assert_eq!(RecordBatch::parse(&log[second..]).unwrap_err().field(), "crc");
    assert!(RecordBatch::parse_with(&log[second..], false).is_ok());

    // A changed CRC field, and legacy messages' CRC-32.
    let mut c = GOLDEN_PLAIN.to_vec();
    c[20] ^= 1;
    assert_eq!(err_of(&c).field(), "crc");
    let mut l = GOLDEN_LEGACY.to_vec();
    l[29 + 25] ^= 1;
    let e = err_of(&l);
    assert_eq!(
        (e.offset(), e.message(), e.version(), e.field()),
        (29, "MessageSet", 1, "crc")
    );
    assert_eq!(e.kind(), DecodeErrorKind::InvalidFrame { value: 0x3e73_1674 });
}

#[test]
fn lying_counts_and_lengths_fail_fast_with_typed_errors() {
    // A record count of i32::MAX in a 61-byte batch: rejected before any record is read.
    let mut b = build(&BatchBuilder::DEFAULT);
    b[57..61].copy_from_slice(&i32::MAX.to_be_bytes());
    fix_crc(&mut b);
    let e = err_of(&b);
    assert_eq!(
        (e.kind(), e.offset(), e.field()),
        (
            DecodeErrorKind::LengthExceedsInput {
                length: i32::MAX as i64
            },
            57,
            "record_count"
        )
    );
    // A negative record count.
    b[57..61].copy_from_slice(&(-1i32).to_be_bytes());
    fix_crc(&mut b);
    assert_eq!(err_of(&b).kind(), DecodeErrorKind::InvalidFrame { value: -1 });

    // One record more, and one fewer, than the batch holds.
    let mut more = GOLDEN_PLAIN.to_vec();
    more[60] = 4;
    fix_crc(&mut more);
    let e = err_of(&more);
    assert!(matches!(e.kind(), DecodeErrorKind::UnexpectedEof { .. }), "{e}");
    assert_eq!(e.offset(), GOLDEN_PLAIN.len());
    let mut fewer = GOLDEN_PLAIN.to_vec();
    fewer[60] = 2;
    fix_crc(&mut fewer);
    let e = err_of(&fewer);
    assert_eq!(
        (e.kind(), e.offset(), e.field()),
        (DecodeErrorKind::TrailingBytes { count: 10 }, 92, "records")
    );

    // A record length past the batch's end.
    let mut len = GOLDEN_PLAIN.to_vec();
    len[92] = 0x7e; // record 2 claims 63 bytes
    fix_crc(&mut len);
    let e = err_of(&len);
    assert_eq!(
        (e.kind(), e.offset(), e.field()),
        (
            DecodeErrorKind::LengthExceedsInput { length: 63 },
            92,
            "records[].length"
        )
    );
    // A record length shorter than its fields.
    let mut short = GOLDEN_PLAIN.to_vec();
    short[85] = 0x0a; // record 1 claims 5 bytes instead of 6
    fix_crc(&mut short);
    let e = err_of(&short);
    assert_eq!(e.field(), "records[].headers");
    // A key length past the record's end, a header count past it, a header key that is null.
    let mut key = GOLDEN_PLAIN.to_vec();
    key[65] = 0x7e;
    fix_crc(&mut key);
    let e = err_of(&key);
    assert_eq!(
        (e.kind(), e.offset(), e.field()),
        (DecodeErrorKind::LengthExceedsInput { length: 63 }, 65, "records[].key")
    );
    let mut hc = GOLDEN_PLAIN.to_vec();
    hc[74] = 0xfe; // 0xfe 0x04... : a two-byte varint; header count 0x1ff
    fix_crc(&mut hc);
    assert_eq!(err_of(&hc).field(), "records[].headers");
    let mut hn = GOLDEN_PLAIN.to_vec();
    hn[75] = 0x01; // header key length -1
    fix_crc(&mut hn);
    let e = err_of(&hn);
    assert_eq!(
        (e.kind(), e.offset(), e.field()),
        (DecodeErrorKind::NullNotAllowed, 75, "records[].headers[].key")
    );
    // A varint that never ends.
    let mut v = GOLDEN_PLAIN.to_vec();
    v[61..66].copy_from_slice(&[0xff; 5]);
    fix_crc(&mut v);
    assert_eq!(err_of(&v).kind(), DecodeErrorKind::InvalidVarint);

    // A batch length larger than the bytes: strict framing and RecordBatch::parse fail at the
    // length field.
    let mut big = GOLDEN_PLAIN.to_vec();
    big[8..12].copy_from_slice(&i32::MAX.to_be_bytes());
    let e = RecordBatch::parse(&big).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset(), e.field()),
        (
            DecodeErrorKind::LengthExceedsInput {
                length: i32::MAX as i64
            },
            8,
            "batch_length"
        )
    );
    assert_eq!(Batches::strict(&big).next().unwrap().unwrap_err(), e);
    // A batch length below the smallest batch, or negative, is corruption even in a Fetch.
    for bad in [48i32, 13, -1, i32::MIN] {
        let mut s = GOLDEN_PLAIN.to_vec();
        s[8..12].copy_from_slice(&bad.to_be_bytes());
        let e = err_of(&s);
        assert_eq!(
            (e.kind(), e.offset(), e.field()),
            (DecodeErrorKind::InvalidFrame { value: bad as i64 }, 8, "batch_length")
        );
    }
    // An unknown magic.
    let mut m = GOLDEN_PLAIN.to_vec();
    m[16] = 3;
    let e = err_of(&m);
    assert_eq!(
        (e.kind(), e.offset(), e.field()),
        (DecodeErrorKind::UnsupportedVersion { version: 3 }, 16, "magic")
    );
    assert_eq!(
        RecordBatch::parse(GOLDEN_LEGACY).unwrap_err().kind(),
        DecodeErrorKind::UnsupportedVersion { version: 0 }
    );
    // Legacy messages: a size below the minimum, and a value length past the end.
    let mut l = GOLDEN_LEGACY.to_vec();
    l[29 + 11] = 21;
    let e = err_of(&l[..]);
    assert_eq!(
        (e.kind(), e.offset()),
        (DecodeErrorKind::InvalidFrame { value: 21 }, 37)
    );
    let mut l = GOLDEN_LEGACY.to_vec();
    l[12 + 10 + 3] = 0x09; // value length 9 in a 17-byte message
    let crc = crc32_ieee(&l[16..29]);
    l[12..16].copy_from_slice(&crc.to_be_bytes());
    let e = err_of(&l);
    assert_eq!(
        (e.kind(), e.offset(), e.field()),
        (DecodeErrorKind::LengthExceedsInput { length: 9 }, 22, "value")
    );
}

#[test]
fn records_parse_standalone() {
    let section = &GOLDEN_PLAIN[61..];
    let r = Records::parse(section, 3).unwrap();
    assert_eq!(r.len(), 3);
    assert_eq!(r.iter().next().unwrap().position, 0);
    assert_eq!(r.iter().nth(2).unwrap().position, 31);
    assert_eq!(
        Records::parse(section, 2).unwrap_err().kind(),
        DecodeErrorKind::TrailingBytes { count: 10 }
    );
    assert_eq!(
        Records::parse(section, -3).unwrap_err().kind(),
        DecodeErrorKind::InvalidFrame { value: -3 }
    );
    assert!(Records::parse(&[], 0).unwrap().is_empty());
}

/// Every single-byte change and every truncation of every golden input either parses or fails
/// with an error; nothing panics, and a batch that parses iterates without failing.
#[test]
fn mutations_never_panic() {
    let mut all = Vec::new();
    for g in [GOLDEN_PLAIN, GOLDEN_TXN, GOLDEN_COMMIT, GOLDEN_RAFT, GOLDEN_LEGACY] {
        all.extend_from_slice(g);
    }
    let walk = |bytes: &[u8]| {
        for item in Batches::new(bytes).verify_crc(false) {
            if let Ok(Batch::V2(b)) = item {
                if let Some(rs) = b.records() {
                    for r in rs.iter() {
                        let _ = r.headers.iter().count();
                        let _ = r.control();
                        let _ = r.metadata();
                    }
                    let _ = rs.control().map(|c| c.count());
                }
            }
        }
    };
    for i in 0..all.len() {
        walk(&all[..i]);
        for x in [0x00, 0x01, 0x7f, 0x80, 0xff] {
            let mut m = all.clone();
            m[i] = x;
            walk(&m);
            walk(&m[i.min(m.len())..]);
        }
    }
}

/// The `records` of a parsed FetchResponse (ending in a partial batch, as brokers cut them) and
/// of a ProduceRequest, read in place.
#[test]
fn records_fields_of_fetch_and_produce_views() {
    use kafka_wire::messages::fetch_response::{FetchResponse, FetchableTopicResponse, PartitionData};
    use kafka_wire::messages::produce_request::{PartitionProduceData, ProduceRequest, TopicProduceData};

    let mut fetched = GOLDEN_PLAIN.to_vec();
    fetched.extend_from_slice(GOLDEN_TXN);
    fetched.extend_from_slice(&GOLDEN_COMMIT[..40]);
    let parts = [PartitionData {
        partition_index: 0,
        high_watermark: 21,
        records: Some(&fetched),
        ..PartitionData::DEFAULT
    }];
    let topics = [FetchableTopicResponse {
        topic_id: Uuid::from_u128(1),
        partitions: Array::from_slice(&parts),
        ..FetchableTopicResponse::DEFAULT
    }];
    let resp = FetchResponse {
        responses: Array::from_slice(&topics),
        ..FetchResponse::DEFAULT
    };
    let mut buf = [0u8; 1024];
    let n = resp.encode_to_slice(&mut buf, 16).unwrap();
    let view = FetchResponse::parse(&buf[..n], 16).unwrap();
    let records = view
        .responses
        .iter()
        .next()
        .unwrap()
        .partitions
        .iter()
        .next()
        .unwrap()
        .records
        .unwrap();
    let items: Vec<_> = Batches::new(records).collect::<Result<_, _>>().unwrap();
    assert_eq!(items.len(), 3);
    assert!(matches!(items[1], Batch::V2(b) if b.is_transactional() && b.base_offset == 19));
    let Batch::Truncated(t) = items[2] else { panic!() };
    assert_eq!(
        (t.position, t.bytes.len(), t.base_offset()),
        (GOLDEN_PLAIN.len() + GOLDEN_TXN.len(), 40, Some(20))
    );

    let produce_parts = [PartitionProduceData {
        index: 0,
        records: Some(GOLDEN_PLAIN),
        ..PartitionProduceData::DEFAULT
    }];
    let produce_topics = [TopicProduceData {
        name: "orders",
        partition_data: Array::from_slice(&produce_parts),
        ..TopicProduceData::DEFAULT
    }];
    let req = ProduceRequest {
        acks: -1,
        timeout_ms: 30_000,
        topic_data: Array::from_slice(&produce_topics),
        ..ProduceRequest::DEFAULT
    };
    let n = req.encode_to_slice(&mut buf, 9).unwrap();
    let view = ProduceRequest::parse(&buf[..n], 9).unwrap();
    let records = view
        .topic_data
        .iter()
        .next()
        .unwrap()
        .partition_data
        .iter()
        .next()
        .unwrap()
        .records
        .unwrap();
    let b = only_v2(records);
    assert_eq!(b.bytes(), GOLDEN_PLAIN, "a proxy can forward the batch as it is");
    assert_eq!(
        b.records()
            .unwrap()
            .iter()
            .map(|r| r.value.map(<[u8]>::len))
            .collect::<Vec<_>>(),
        [Some(5), None, Some(1)]
    );
}

#[test]
fn a_second_pass_with_revisit_reads_what_the_first_read() {
    let mut log = GOLDEN_PLAIN.to_vec();
    log.extend_from_slice(GOLDEN_TXN);
    let keys = |it: Batches<'_>| -> Vec<Vec<Option<Vec<u8>>>> {
        it.map(|b| match b.unwrap() {
            Batch::V2(b) => b.records().unwrap().iter().map(|r| r.key.map(<[u8]>::to_vec)).collect(),
            other => panic!("{other:?}"),
        })
        .collect()
    };
    let first = keys(Batches::new(&log));
    assert_eq!(first[0], [Some(b"k0".to_vec()), None, Some(Vec::new())]);
    assert_eq!(keys(Batches::new(&log).revisit()), first);

    // Bytes no pass read: a record length that overruns its batch, under a CRC that matches.
    // The checking pass refuses the batch; `revisit` hands it out, and its records end early
    // instead of failing.
    let mut bad = GOLDEN_PLAIN.to_vec();
    bad[61] = 0x7e; // the first record's length: 63 instead of 23
    fix_crc(&mut bad);
    assert!(Batches::new(&bad).next().unwrap().is_err());
    let Some(Ok(Batch::V2(b))) = Batches::new(&bad).revisit().next() else {
        panic!("revisit hands the batch out")
    };
    assert!(b.records().unwrap().iter().count() < 3);
}
