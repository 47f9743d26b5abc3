//! `kafka_wire::nom`: messages and frames as nom parsers, and `split_frame` built on them.

use kafka_wire::frame::{encode_request_frame, split_frame, Mode};
use kafka_wire::messages::{ApiVersionsRequest, ApiVersionsResponse};
use kafka_wire::{DecodeErrorKind, Message, RequestBody};
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
