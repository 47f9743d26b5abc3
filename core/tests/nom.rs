//! `kafka_wire::nom`: messages and frames as nom parsers, and `split_frame` built on them.

use kafka_wire::frame::{encode_metadata_record, encode_request_frame, parse_request_frame, split_frame, Mode};
use kafka_wire::messages::{ApiVersionsRequest, ApiVersionsResponse, RequestHeader};
use kafka_wire::metadata::PartitionRecord;
use kafka_wire::records::{BatchBuilder, BatchRecords, NewRecord};
use kafka_wire::{DecodeErrorKind, Message, MetadataRecord, MetadataRecordType, RequestBody};
use nom::{Err, Needed, Parser};

fn frame() -> ([u8; 64], usize) {
    let body = RequestBody::ApiVersions(ApiVersionsRequest {
        client_software_name: "t",
        ..ApiVersionsRequest::DEFAULT
    });
    let mut buf = [0u8; 64];
    let n = encode_request_frame(5, Some("c"), &body, 3, &mut buf).unwrap();
    (buf, n)
}

#[test]
fn a_short_frame_is_incomplete_with_the_bytes_needed() {
    let (buf, n) = frame();
    assert_eq!(
        kafka_wire::nom::size_prefixed(&buf[..2]),
        Err(Err::Incomplete(Needed::new(2)))
    );
    assert_eq!(
        kafka_wire::nom::size_prefixed(&buf[..n - 3]),
        Err(Err::Incomplete(Needed::new(3)))
    );
    let (rest, payload) = kafka_wire::nom::size_prefixed(&buf[..n + 1]).unwrap();
    assert_eq!((payload.len(), rest.len()), (n - 4, 1));
    // split_frame reports the same need as a typed error.
    let e = split_frame(&buf[..n - 3]).unwrap_err();
    assert_eq!(e.kind(), DecodeErrorKind::UnexpectedEof { needed: 3 });
    assert_eq!(e.field(), "payload");
    assert_eq!(split_frame(&buf[..1]).unwrap_err().field(), "size");
}

#[test]
fn a_negative_size_is_a_failure_not_an_error() {
    let bytes = (-1i32).to_be_bytes();
    match kafka_wire::nom::size_prefixed(&bytes) {
        Err(Err::Failure(e)) => assert_eq!(e.kind(), DecodeErrorKind::InvalidFrame { value: -1 }),
        other => panic!("{other:?}"),
    };
}

#[test]
fn request_frames_compose_and_errors_keep_frame_offsets() {
    let (buf, n) = frame();
    let mut two = vec![0u8; 2 * n];
    two[..n].copy_from_slice(&buf[..n]);
    two[n..].copy_from_slice(&buf[..n]);
    let (rest, (a, b)) = (
        kafka_wire::nom::request_frame(Mode::Strict),
        kafka_wire::nom::request_frame(Mode::Strict),
    )
        .parse(&two)
        .unwrap();
    assert!(rest.is_empty());
    assert_eq!((a.header.correlation_id, b.api_version), (5, 3));
    // An unknown API key: an error at offset 4, where the header starts.
    let mut bad = buf;
    bad[4..6].copy_from_slice(&999i16.to_be_bytes());
    match kafka_wire::nom::request_frame(Mode::Strict).parse(&bad[..n]) {
        Err(Err::Error(e)) => {
            assert_eq!(e.kind(), DecodeErrorKind::UnknownApiKey { key: 999 });
            assert_eq!(e.offset(), 4);
        }
        other => panic!("{other:?}"),
    };
}

#[test]
fn a_message_parser_returns_the_rest_and_fails_with_offsets() {
    let m = ApiVersionsResponse {
        throttle_time_ms: 9,
        ..ApiVersionsResponse::DEFAULT
    };
    let mut buf = [0u8; 32];
    let n = m.encode_to_slice(&mut buf, 3).unwrap();
    let (rest, got) = kafka_wire::nom::message::<ApiVersionsResponse<'_>>(3)
        .parse(&buf[..n + 2])
        .unwrap();
    assert_eq!((got, rest.len()), (m, 2));
    match kafka_wire::nom::message::<ApiVersionsResponse<'_>>(3).parse(&buf[..n - 1]) {
        Err(Err::Error(e)) => assert!(matches!(e.kind(), DecodeErrorKind::UnexpectedEof { .. }), "{e}"),
        other => panic!("{other:?}"),
    };
}

#[test]
fn header_parsers_compose_and_match_the_frame_parsers() {
    let (buf, n) = frame();
    let f = parse_request_frame(&buf[..n], Mode::Strict).unwrap();
    let (body, header) = kafka_wire::nom::request_header(f.header_version)
        .parse(&buf[4..n])
        .unwrap();
    assert_eq!(header, f.header);
    assert_eq!(body, f.body_bytes);
    // Cut inside the client id: the same error (kind, offset, field) as the header's own parse.
    let cut = &buf[4..4 + 9];
    let ours = match kafka_wire::nom::request_header(2).parse(cut) {
        Err(Err::Error(e)) => e,
        other => panic!("{other:?}"),
    };
    assert_eq!(ours, RequestHeader::parse(cut, 2).unwrap_err());
    assert_eq!(ours.field(), "client_id");
    // A header version the schema does not have.
    match kafka_wire::nom::request_header(3).parse(&buf[4..n]) {
        Err(Err::Error(e)) => assert_eq!(e.kind(), DecodeErrorKind::UnsupportedVersion { version: 3 }),
        other => panic!("{other:?}"),
    };

    let mut resp = [0u8; 8];
    resp[..4].copy_from_slice(&9i32.to_be_bytes());
    let (rest, h) = kafka_wire::nom::response_header(1).parse(&resp[..5]).unwrap();
    assert_eq!((h.correlation_id, rest.len()), (9, 0));
    match kafka_wire::nom::response_header(0).parse(&resp[..3]) {
        Err(Err::Error(e)) => {
            assert_eq!(e.kind(), DecodeErrorKind::UnexpectedEof { needed: 1 });
            assert_eq!(
                (e.offset(), e.field(), e.message()),
                (0, "correlation_id", "ResponseHeader")
            );
        }
        other => panic!("{other:?}"),
    };
}

#[test]
fn record_batches_and_metadata_records_as_nom_parsers() {
    let recs = [NewRecord {
        value: Some(b"v"),
        ..NewRecord::DEFAULT
    }];
    let b = BatchBuilder {
        base_offset: 10,
        records: BatchRecords::Plain(&recs),
        ..BatchBuilder::DEFAULT
    };
    let mut buf = [0u8; 256];
    let n = b.encode_to_slice(&mut buf).unwrap();
    buf.copy_within(..n, n);
    let (rest, (first, second)) = (kafka_wire::nom::record_batch, kafka_wire::nom::record_batch)
        .parse(&buf[..2 * n])
        .unwrap();
    assert!(rest.is_empty());
    assert_eq!((first.base_offset, second.record_count), (10, 1));
    match kafka_wire::nom::record_batch(&buf[..n - 1]) {
        Err(Err::Error(e)) => assert_eq!(e.kind(), DecodeErrorKind::LengthExceedsInput { length: n as i64 - 12 }),
        other => panic!("{other:?}"),
    };

    let rec = MetadataRecord::Partition(PartitionRecord {
        partition_id: 4,
        ..PartitionRecord::DEFAULT
    });
    let m = encode_metadata_record(&rec, 0, &mut buf).unwrap();
    let (rest, r) = kafka_wire::nom::metadata_record(&buf[..m]).unwrap();
    assert!(rest.is_empty());
    assert_eq!((r.record_type, r.version), (MetadataRecordType::Partition, 0));
    buf[0] = 2; // frame version 2
    match kafka_wire::nom::metadata_record(&buf[..m]) {
        Err(Err::Error(e)) => {
            assert_eq!(e.kind(), DecodeErrorKind::InvalidFrame { value: 2 });
            assert_eq!((e.offset(), e.field()), (0, "frame_version"));
        }
        other => panic!("{other:?}"),
    };
}
