//! Frame parsing against real brokers' bytes (`tests/data/api-versions/`, see its README): the
//! ApiVersions version-0 fallback, and a size prefix that does not match its message.

use kafka_wire::frame::{parse_response_frame, parse_response_frame_to, Mode};
use kafka_wire::messages::{ApiVersionsRequest, ApiVersionsResponse};
use kafka_wire::versions::parse_api_versions_response;
use kafka_wire::{ApiKey, DecodeErrorKind, ErrorCode, Message};

fn answer(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/api-versions")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The broker's own ApiVersions range, from its answer to a v3 request: (min, max).
fn own_range(v3_answer: &[u8]) -> (i16, i16) {
    let r = ApiVersionsResponse::parse(&v3_answer[8..], 3).unwrap();
    let k = r.api_keys.iter().find(|k| k.api_key == 18).unwrap();
    (k.min_version, k.max_version)
}

#[test]
fn a_3_9_brokers_answer_to_api_versions_v5_is_read_in_version_0s_shape_by_every_parser() {
    // Kafka 3.9.1 does not speak ApiVersions v5: it answered in version 0's shape with
    // UNSUPPORTED_VERSION, listing its own ApiVersions range.
    let frame = answer("3.9.1-broker-v5.bin");
    let (min, max) = own_range(&answer("3.9.1-broker-v3.bin"));
    assert!(max < 5, "3.9.1's broker advertises ApiVersions up to v{max}");

    let typed = parse_response_frame_to::<ApiVersionsRequest<'_>>(&frame, 5, Mode::Strict).unwrap();
    assert_eq!(typed.version, 0);
    assert_eq!(typed.header.correlation_id, 1);
    assert_eq!(
        ErrorCode::from_code(typed.body.error_code),
        ErrorCode::UnsupportedVersion
    );
    let listed: Vec<(i16, i16, i16)> = typed
        .body
        .api_keys
        .iter()
        .map(|k| (k.api_key, k.min_version, k.max_version))
        .collect();
    assert_eq!(listed, [(18, min, max)]);

    let by_key = parse_response_frame(&frame, ApiKey::ApiVersions, 5, Mode::Strict).unwrap();
    assert_eq!(by_key.version, 0);
    assert_eq!(by_key.body_bytes, typed.body_bytes);

    let (body, v) = parse_api_versions_response(typed.body_bytes, 5).unwrap();
    assert_eq!((v, body), (0, typed.body));
}

#[test]
fn an_answer_at_the_version_sent_is_read_at_that_version() {
    for (file, version) in [
        ("3.9.1-broker-v3.bin", 3),
        ("4.4.0-broker-v3.bin", 3),
        ("4.4.0-broker-v0.bin", 0),
    ] {
        let frame = answer(file);
        let typed = parse_response_frame_to::<ApiVersionsRequest<'_>>(&frame, version, Mode::Strict).unwrap();
        assert_eq!(typed.version, version, "{file}");
        assert_eq!(ErrorCode::from_code(typed.body.error_code), ErrorCode::None, "{file}");
    }
}

#[test]
fn a_fallback_that_fails_too_reports_the_error_at_the_version_sent() {
    let frame = answer("3.9.1-broker-v5.bin");
    // One byte short of the body, with the size prefix to match.
    let mut cut = frame[..frame.len() - 1].to_vec();
    let size = cut.len() as i32 - 4;
    cut[..4].copy_from_slice(&size.to_be_bytes());
    let at5 = ApiVersionsResponse::parse(&cut[8..], 5).unwrap_err();
    let e = parse_response_frame_to::<ApiVersionsRequest<'_>>(&cut, 5, Mode::Strict).unwrap_err();
    assert_eq!(e.version(), 5);
    assert_eq!(
        (e.kind(), e.offset(), e.field()),
        (at5.kind(), at5.offset() + 8, at5.field())
    );
    let e = parse_response_frame(&cut, ApiKey::ApiVersions, 5, Mode::Strict).unwrap_err();
    assert_eq!((e.kind(), e.offset(), e.version()), (at5.kind(), at5.offset() + 8, 5));
}

#[test]
fn a_size_prefix_smaller_than_its_message_is_reported_at_the_prefix() {
    let frame = answer("4.4.0-broker-v3.bin");
    let given = frame.len() - 4;
    let mut short = frame.clone();
    short[..4].copy_from_slice(&(given as i32 - 1).to_be_bytes());
    for e in [
        parse_response_frame_to::<ApiVersionsRequest<'_>>(&short, 3, Mode::Strict).unwrap_err(),
        parse_response_frame_to::<ApiVersionsRequest<'_>>(&short, 3, Mode::Lenient).unwrap_err(),
        parse_response_frame(&short, ApiKey::ApiVersions, 3, Mode::Strict).unwrap_err(),
    ] {
        assert_eq!(
            e.kind(),
            DecodeErrorKind::FrameSize {
                size: given as i32 - 1,
                given
            }
        );
        assert_eq!((e.offset(), e.field()), (0, "size"));
        assert_eq!(
            e.to_string(),
            format!(
                "frame size prefix {} does not match the {given} byte(s) that follow it at byte 0 in frame size",
                given - 1
            )
        );
    }
}
