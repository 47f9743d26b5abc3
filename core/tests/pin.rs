//! `KAFKA_WIRE_PIN`: versions fixed at build time.
//!
//! The same tests run in two builds. Unpinned (the workspace's `cargo test`), every message's
//! `INFO` carries the protocol's versions. CI runs this file once more with
//! `KAFKA_WIRE_PIN="api-api-versions=3,PartitionChangeRecord=1"`; then those schemas accept their
//! pinned version only, and everything else is as before.

use kafka_wire::messages::api_versions_request::ApiVersionsRequest;
use kafka_wire::messages::api_versions_response::{ApiVersion, ApiVersionsResponse};
use kafka_wire::messages::metadata_request::MetadataRequest;
use kafka_wire::metadata::partition_change_record::PartitionChangeRecord;
use kafka_wire::{ApiKey, Array, DecodeErrorKind, EncodeErrorKind, Message, MetadataRecordType, RequestBody, Uuid};

/// The pin this test binary was built with, read the same way the codec reads it.
const PIN: Option<&str> = option_env!("KAFKA_WIRE_PIN");

fn pinned(key: &str, min: i16, max: i16) -> Option<i16> {
    kafka_wire::pin::version(PIN, key, min, max)
}

fn encode<'a, M: Message<'a>>(m: &M, v: i16) -> Vec<u8> {
    let n = m.encoded_len(v).expect("encoded_len");
    let mut buf = vec![0u8; n];
    assert_eq!(m.encode_to_slice(&mut buf, v).expect("encode"), n);
    buf
}

#[test]
fn info_lists_the_pinned_version_or_the_protocols() {
    let catalog = ApiKey::ApiVersions.request_info();
    // The catalog describes the protocol, whatever the build pins.
    assert_eq!((catalog.min_version, catalog.max_version), (0, 5));
    let records = MetadataRecordType::PartitionChange.info();
    assert_eq!((records.min_version, records.max_version), (0, 2));
    let info = ApiVersionsRequest::INFO;
    match pinned("api-api-versions", 0, 5) {
        Some(p) => assert_eq!((info.min_version, info.max_version), (p, p)),
        None => assert_eq!((info.min_version, info.max_version), (0, 5)),
    }
    let info = PartitionChangeRecord::INFO;
    match pinned("PartitionChangeRecord", 0, 2) {
        Some(p) => assert_eq!((info.min_version, info.max_version), (p, p)),
        None => assert_eq!((info.min_version, info.max_version), (0, 2)),
    }
    // A schema the pin does not name keeps its range.
    assert_eq!(
        (MetadataRequest::INFO.min_version, MetadataRequest::INFO.max_version),
        (0, 13)
    );
}

#[test]
fn every_allowed_version_round_trips_and_the_others_are_refused() {
    let keys = [ApiVersion {
        api_key: 18,
        min_version: 0,
        max_version: 4,
        ..ApiVersion::DEFAULT
    }];
    let resp = ApiVersionsResponse {
        error_code: 0,
        api_keys: Array::from_slice(&keys),
        throttle_time_ms: 5,
        ..ApiVersionsResponse::DEFAULT
    };
    let req = ApiVersionsRequest {
        client_software_name: "kafka-wire",
        client_software_version: "1",
        ..ApiVersionsRequest::DEFAULT
    };
    let info = ApiVersionsRequest::INFO;
    let mut allowed = 0;
    for v in 0..=5i16 {
        let bytes_req = req.encoded_len(v);
        let bytes_resp = resp.encoded_len(v);
        if info.is_valid(v) {
            allowed += 1;
            let b = encode(&req, v);
            let back = ApiVersionsRequest::parse(&b, v).expect("parse request");
            if v >= 3 {
                assert_eq!(back.client_software_name, "kafka-wire");
            }
            let b = encode(&resp, v);
            let back = ApiVersionsResponse::parse(&b, v).expect("parse response");
            assert_eq!(back.api_keys.len(), 1);
            assert_eq!(back.throttle_time_ms, if v >= 1 { 5 } else { 0 });
        } else {
            assert!(matches!(
                bytes_req.unwrap_err().kind(),
                EncodeErrorKind::UnsupportedVersion { version } if version == v
            ));
            assert!(bytes_resp.is_err());
            // Any bytes at that version are refused, before any read.
            let e = ApiVersionsRequest::parse(&[0u8; 64], v).unwrap_err();
            assert!(matches!(e.kind(), DecodeErrorKind::UnsupportedVersion { .. }), "{e}");
            assert_eq!(e.offset(), 0);
            // So does dispatch by key, on the bytes of the allowed version.
            let ok = info.min_version;
            let b = encode(&req, ok);
            let e = RequestBody::parse(ApiKey::ApiVersions, &b, v).unwrap_err();
            assert!(matches!(e.kind(), DecodeErrorKind::UnsupportedVersion { .. }), "{e}");
        }
    }
    match pinned("api-api-versions", 0, 5) {
        Some(_) => assert_eq!(allowed, 1),
        None => assert_eq!(allowed, 6),
    }

    let rec = PartitionChangeRecord {
        partition_id: 2,
        topic_id: Uuid::from_u128(7),
        leader: 3,
        ..PartitionChangeRecord::DEFAULT
    };
    let mut allowed = 0;
    for v in 0..=2i16 {
        if PartitionChangeRecord::INFO.is_valid(v) {
            allowed += 1;
            let b = encode(&rec, v);
            let back = PartitionChangeRecord::parse(&b, v).expect("parse record");
            assert_eq!((back.partition_id, back.leader), (2, 3));
        } else {
            assert!(rec.encoded_len(v).is_err());
        }
    }
    match pinned("PartitionChangeRecord", 0, 2) {
        Some(_) => assert_eq!(allowed, 1),
        None => assert_eq!(allowed, 3),
    }
}

#[test]
fn the_list_parser_finds_its_key_among_others() {
    let list = Some(" api-produce = 9 ,api-metadata=12,, PartitionChangeRecord=2 ");
    assert_eq!(kafka_wire::pin::version(list, "api-produce", 0, 13), Some(9));
    assert_eq!(kafka_wire::pin::version(list, "api-metadata", 0, 13), Some(12));
    assert_eq!(kafka_wire::pin::version(list, "PartitionChangeRecord", 0, 2), Some(2));
    assert_eq!(kafka_wire::pin::version(list, "api-fetch", 0, 17), None);
    // A key is matched whole, not as a prefix.
    assert_eq!(kafka_wire::pin::version(list, "api-produc", 0, 13), None);
    assert_eq!(kafka_wire::pin::version(None, "api-produce", 0, 13), None);
}
