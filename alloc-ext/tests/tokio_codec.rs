//! The tokio codecs (`kafka_wire_ext::tokio_codec`, feature `tokio`) on real peers' bytes.
//!
//! The client codec: the ApiVersions answers in `core/tests/data/api-versions/` and the request
//! `tests/broker/api_versions.py` sent to get them. The server codec: every request frame real
//! clients sent (`tests/clients/frames/`, with the API, version and client id the capture
//! recorded in its manifest), and replies that must equal real brokers' answers byte for byte
//! (the ApiVersions answers above, and the Kafka 4.4.0 broker's Metadata v13 and Produce v13
//! answers to Kafka's Java client recorded in `kwire/src/samples/`).
#![cfg(feature = "tokio")]

use std::path::{Path, PathBuf};

use kafka_wire::bytes::BytesMut;
use kafka_wire::conn::{ClientError, CutError};
use kafka_wire::frame::{encode_request_frame_to, parse_response_frame, Mode};
use kafka_wire::messages::api_versions_response::owned::ApiVersionsResponse;
use kafka_wire::messages::produce_request::owned::ProduceRequest;
use kafka_wire::messages::{ApiVersionsRequest, MetadataResponse};
use kafka_wire::{ApiKey, DecodeErrorKind, ErrorCode, RequestBody, ResponseBody};
use kafka_wire_ext::tokio_codec::{ClientCodec, CodecError, IncomingRequest, Outgoing, ServerCodec};
use tokio_util::codec::{Decoder, Encoder};

fn answer(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
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
    let view = got[1].view(Mode::Strict).unwrap();
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

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A frame of `tests/clients/frames` (header and body, without the size prefix) with its size
/// prefix.
fn sized(payload: &[u8]) -> Vec<u8> {
    [&(payload.len() as i32).to_be_bytes()[..], payload].concat()
}

/// The client id each capture step of `tests/clients` set, by the manifest's `action` (which
/// the capture derived from it).
fn client_id_of(action: &str) -> &'static str {
    match action {
        "admin" => "kwire-admin",
        "produce" => "kwire-producer",
        "consume" => "kwire-consumer",
        "consume-kip848" => "kwire-consumer-kip848",
        other => panic!("unknown action {other}"),
    }
}

/// Feeds `stream` to a server codec in pieces of `piece` bytes; every request it yields.
fn serve(stream: &[u8], piece: usize) -> Vec<IncomingRequest> {
    let mut c = ServerCodec::new(100 << 20);
    let mut src = BytesMut::new();
    let mut got = Vec::new();
    for b in stream.chunks(piece) {
        src.extend_from_slice(b);
        while let Some(r) = c.decode(&mut src).unwrap() {
            got.push(r);
        }
    }
    assert!(src.is_empty(), "{} bytes left over", src.len());
    got
}

#[test]
fn the_server_codec_reads_every_real_clients_request_in_any_pieces() {
    let dir = repo("tests/clients/frames");
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap();
    // file, action, api key, api version
    let entries: Vec<(String, String, i16, i16)> = manifest
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            (c[0].into(), c[3].into(), c[4].parse().unwrap(), c[6].parse().unwrap())
        })
        .collect();
    assert!(entries.len() >= 180, "{} frames", entries.len());
    let payloads: Vec<Vec<u8>> = entries.iter().map(|e| read(&dir.join(&e.0))).collect();
    let stream: Vec<u8> = payloads.iter().flat_map(|p| sized(p)).collect();

    for piece in [7, 1000, stream.len()] {
        let got = serve(&stream, piece);
        assert_eq!(got.len(), entries.len());
        for ((e, payload), r) in entries.iter().zip(&payloads).zip(&got) {
            let (file, action, key, version) = e;
            assert_eq!(r.api_key.id(), *key, "{file}");
            assert_eq!(r.api_version, *version, "{file}");
            assert_eq!(r.client_id(), Some(client_id_of(action)), "{file}");
            // Every header starts with the API key, the version and the correlation id.
            assert_eq!(r.correlation_id.to_be_bytes(), payload[4..8], "{file}");
            assert_eq!(&r.frame[..], &sized(payload)[..], "{file}");
            // The body cut after the header is the frame's tail and reads strictly as the
            // manifest's API and version.
            let body = r.body();
            assert!(payload.ends_with(&body) && body.len() < payload.len(), "{file}");
            RequestBody::parse(r.api_key, &body, r.api_version).unwrap_or_else(|e| panic!("{file}: {e}"));
            assert_eq!(r.view(Mode::Strict).unwrap().body_bytes, &body[..], "{file}");
        }
    }

    // An owned Produce request from the shared frame: its record batches are slices of the
    // frame's buffer, not copies.
    let got = serve(&stream, stream.len());
    let produce_frames = entries.iter().filter(|e| e.2 == 0 && e.3 >= 3).count();
    let mut shared = 0;
    for r in got
        .iter()
        .filter(|r| r.api_key == ApiKey::Produce && r.api_version >= 3)
    {
        let produce: ProduceRequest = r.parse().unwrap();
        let span = r.frame.as_ptr_range();
        for t in &produce.topic_data {
            for p in &t.partition_data {
                let records = p.records.as_ref().unwrap();
                assert!(span.contains(&records.as_ptr()), "a copy of the records");
                shared += 1;
            }
        }
    }
    assert!(
        produce_frames > 0 && shared >= produce_frames,
        "{shared} record sets in {produce_frames} frames"
    );
}

/// The reply to `request` (a whole frame) with the body of a real `answer` (a whole frame,
/// read at `version`), encoded by the server codec after bytes already queued.
fn reply(request: &[u8], answer: &[u8], version: i16) -> (IncomingRequest, Vec<u8>) {
    let mut got = serve(request, request.len());
    assert_eq!(got.len(), 1);
    let req = got.remove(0);
    let body = parse_response_frame(answer, req.api_key, version, Mode::Strict)
        .unwrap()
        .body;
    let mut out = BytesMut::from(&b"queued"[..]);
    ServerCodec::new(100 << 20)
        .encode(req.reply(body).at_version(version), &mut out)
        .unwrap();
    assert_eq!(&out[..6], b"queued");
    let frame = out[6..].to_vec();
    (req, frame)
}

#[test]
fn the_server_codecs_replies_are_real_brokers_answers_byte_for_byte() {
    // ApiVersions v3 (response header v0 although v3 is flexible): the 4.4.0 broker's answer
    // to the request of tests/broker/api_versions.py.
    let real = answer("4.4.0-broker-v3.bin");
    let (req, out) = reply(&capture_request_v3(), &real, 3);
    assert_eq!(
        (
            req.api_key,
            req.api_version,
            req.correlation_id,
            req.header_version,
            req.client_id()
        ),
        (ApiKey::ApiVersions, 3, 1, 2, Some("kwire-capture"))
    );
    assert_eq!(out, real);

    // ApiVersions v5 to a broker that does not speak it (3.9.1): answered at version 0.
    let real = answer("3.9.1-broker-v5.bin");
    let mut v5 = [0u8; 64];
    let n = encode_request_frame_to(1, Some("kwire-capture"), &ApiVersionsRequest::DEFAULT, 5, &mut v5).unwrap();
    let (req, out) = reply(&v5[..n], &real, 0);
    assert_eq!(req.api_version, 5);
    assert_eq!(out, real);

    // Metadata v13 and Produce v13 (response header v1, tagged fields): Kafka's Java client
    // 4.4.0 asked, a 4.4.0 broker answered on the recorded connection with the same
    // correlation ids (1 and 4) as these requests of the same client.
    let samples = repo("kwire/src/samples");
    for (request, answer, key) in [
        ("Metadata-v13-1.bin", "metadata_response_v13.bin", ApiKey::Metadata),
        ("Produce-v13-1.bin", "produce_response_v13.bin", ApiKey::Produce),
    ] {
        let request = sized(&read(&repo("tests/clients/frames/java-4.4.0").join(request)));
        let real = read(&samples.join(answer));
        let (req, out) = reply(&request, &real, 13);
        assert_eq!((req.api_key, req.api_version), (key, 13));
        assert_eq!(out, real, "{answer}");
    }
}

#[test]
fn bad_requests_and_replies_are_errors() {
    let mut c = ServerCodec::new(1 << 20);
    // An unknown API key: an error at the key's offset, the frame taken off the stream.
    let mut src = BytesMut::from(&sized(&[0x27, 0x0f, 0, 0, 0, 0, 0, 7, 0, 0])[..]);
    match c.decode(&mut src) {
        Err(CodecError::Header(e)) => {
            assert_eq!(e.kind(), DecodeErrorKind::UnknownApiKey { key: 9999 });
            assert_eq!(e.offset(), 4);
        }
        other => panic!("{other:?}"),
    }
    assert!(src.is_empty());
    // Frames too short for their header, at every length.
    let whole = sized(&capture_request_v3()[4..]);
    for len in 0..24 {
        let mut src = BytesMut::from(&sized(&whole[4..4 + len])[..]);
        assert!(
            matches!(c.decode(&mut src), Err(CodecError::Header(e)) if matches!(e.kind(), DecodeErrorKind::UnexpectedEof { .. })),
            "{len}"
        );
    }
    // A size prefix above the maximum.
    let mut src = BytesMut::from(&(2i32 << 20).to_be_bytes()[..]);
    assert!(matches!(
        c.decode(&mut src),
        Err(CodecError::Cut(CutError::TooLarge { size, .. })) if size == 2 << 20
    ));
    // A Metadata body answering an ApiVersions request: refused, nothing written.
    let mut src = BytesMut::from(&capture_request_v3()[..]);
    let req = c.decode(&mut src).unwrap().unwrap();
    let mut out = BytesMut::from(&b"queued"[..]);
    let wrong = req.reply(ResponseBody::Metadata(MetadataResponse::DEFAULT));
    assert!(matches!(
        c.encode(wrong, &mut out),
        Err(CodecError::WrongReply {
            request: ApiKey::ApiVersions,
            reply: ApiKey::Metadata
        })
    ));
    assert_eq!(&out[..], b"queued");
}
