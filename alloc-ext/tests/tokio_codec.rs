//! The tokio codec (`kafka_wire_ext::tokio_codec`, feature `tokio`) on real brokers' bytes: the
//! ApiVersions answers in `core/tests/data/api-versions/` and the request
//! `tests/broker/api_versions.py` sent to get them.
#![cfg(feature = "tokio")]

use kafka_wire::bytes::BytesMut;
use kafka_wire::conn::{ClientError, CutError};
use kafka_wire::messages::api_versions_response::owned::ApiVersionsResponse;
use kafka_wire::messages::ApiVersionsRequest;
use kafka_wire::ErrorCode;
use kafka_wire_ext::tokio_codec::{ClientCodec, CodecError, Outgoing};
use tokio_util::codec::{Decoder, Encoder};

fn answer(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/data/api-versions")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The request `tests/broker/api_versions.py` sends at v3 with correlation id 1.
fn capture_request_v3() -> Vec<u8> {
    let c = b"kwire-capture";
    let mut m = Vec::new();
    m.extend_from_slice(&18i16.to_be_bytes());
    m.extend_from_slice(&3i16.to_be_bytes());
    m.extend_from_slice(&1i32.to_be_bytes());
    m.extend_from_slice(&(c.len() as i16).to_be_bytes());
    m.extend_from_slice(c);
    m.push(0);
    m.push(c.len() as u8 + 1);
    m.extend_from_slice(c);
    m.extend_from_slice(&[2, b'1', 0]);
    let mut f = (m.len() as i32).to_be_bytes().to_vec();
    f.extend_from_slice(&m);
    f
}

fn codec() -> ClientCodec<4> {
    ClientCodec::new(Some("kwire-capture"), 100 << 20)
}

fn request() -> Outgoing<ApiVersionsRequest<'static>> {
    Outgoing::new(
        ApiVersionsRequest {
            client_software_name: "kwire-capture",
            client_software_version: "1",
            ..ApiVersionsRequest::DEFAULT
        },
        3,
    )
}

#[test]
fn the_codec_writes_what_a_real_peer_wrote_and_reads_the_real_answer_in_any_pieces() {
    let mut c = codec();
    let mut out = BytesMut::new();
    // Correlation ids start at 0: a first request to burn id 0, answered below as id 0.
    c.encode(request(), &mut out).unwrap();
    out.clear();
    c.encode(request(), &mut out).unwrap();
    assert_eq!(&out[..], &capture_request_v3()[..]);
    assert_eq!(c.client().in_flight(), 2);

    let real = answer("4.4.0-broker-v3.bin");
    let mut as_zero = real.clone();
    as_zero[4..8].copy_from_slice(&0i32.to_be_bytes());
    let stream = [as_zero, real.clone()].concat();
    let mut src = BytesMut::new();
    let mut got = Vec::new();
    for b in stream.chunks(7) {
        src.extend_from_slice(b);
        while let Some(r) = c.decode(&mut src).unwrap() {
            got.push(r);
        }
    }
    assert_eq!(got.len(), 2);
    assert_eq!(&got[1].frame[..], &real[..]);
    assert_eq!(got[1].in_flight.correlation_id, 1);
    let owned: ApiVersionsResponse = got[1].parse().unwrap();
    assert!(owned
        .api_keys
        .iter()
        .any(|k| k.api_key == 0 && k.min_version == 0 && k.max_version == 13));
    // The owned value and the view agree.
    let view = got[1].view(kafka_wire::frame::Mode::Strict).unwrap();
    assert_eq!(view.body_bytes, &real[8..]);
    assert_eq!(c.client().in_flight(), 0);
}

#[test]
fn an_answer_in_version_0s_shape_is_read_at_version_0() {
    let mut c = codec();
    let mut out = BytesMut::new();
    c.encode(Outgoing::new(ApiVersionsRequest::DEFAULT, 0), &mut out)
        .unwrap();
    c.encode(Outgoing::new(ApiVersionsRequest::DEFAULT, 5), &mut out)
        .unwrap();
    // The 3.9.1 broker's answer to v5 (correlation id 1): UNSUPPORTED_VERSION, v0's shape.
    let mut src = BytesMut::from(&answer("3.9.1-broker-v5.bin")[..]);
    let r = c.decode(&mut src).unwrap().unwrap();
    let owned: ApiVersionsResponse = r.parse().unwrap();
    assert_eq!(ErrorCode::from_code(owned.error_code), ErrorCode::UnsupportedVersion);
    assert_eq!(owned.api_keys.len(), 1);
}

#[test]
fn bad_streams_are_errors() {
    let mut c = codec();
    // An answer to nothing sent.
    let mut src = BytesMut::from(&answer("4.4.0-broker-v3.bin")[..]);
    assert!(matches!(
        c.decode(&mut src),
        Err(CodecError::Client(ClientError::UnknownCorrelationId {
            correlation_id: 1
        }))
    ));
    // A size prefix above the maximum, refused before anything is reserved for it.
    let mut src = BytesMut::from(&(200i32 << 20).to_be_bytes()[..]);
    assert!(matches!(
        c.decode(&mut src),
        Err(CodecError::Cut(CutError::TooLarge { size, .. })) if size == 200 << 20
    ));
    // 100 MiB announced and nothing else: the buffer grows by one step at most.
    let mut src = BytesMut::from(&(100i32 << 20).to_be_bytes()[..]);
    assert!(c.decode(&mut src).unwrap().is_none());
    assert!(src.capacity() <= 4 + kafka_wire::conn::GROW_STEP, "{}", src.capacity());
    // A full in-flight table.
    let mut out = BytesMut::new();
    for _ in 0..4 {
        c.encode(request(), &mut out).unwrap();
    }
    assert!(matches!(
        c.encode(request(), &mut out),
        Err(CodecError::Client(ClientError::Full { capacity: 4 }))
    ));
}
