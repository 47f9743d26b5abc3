//! Allocations per frame through the connection layer, counted by a global allocator over more
//! than 10,000 real frames: the request frames real clients sent (`tests/clients/frames/`) and
//! real brokers' ApiVersions answers (`core/tests/data/api-versions/`).
//!
//! - `kafka_wire::conn` (cutter, observer, client) allocates nothing, ever.
//! - The tokio codec allocates nothing per frame once its buffers have grown, while the
//!   responses it hands out are dropped before the next read (as a client that decodes and
//!   moves on does).

mod common;

use std::path::Path;

use kafka_wire::conn::{Client, Cut, Decoded, FrameCutter, Observer};
use kafka_wire::frame::Mode;
use kafka_wire::messages::ApiVersionsRequest;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Every request frame in tests/clients/frames (MANIFEST.tsv; committed without their size
/// prefix), with its 4-byte size put back.
fn client_requests() -> Vec<Vec<u8>> {
    let dir = root().join("tests/clients/frames");
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("MANIFEST.tsv");
    let frames: Vec<Vec<u8>> = manifest
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .map(|f| {
            let payload = std::fs::read(dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
            let mut frame = (payload.len() as i32).to_be_bytes().to_vec();
            frame.extend_from_slice(&payload);
            frame
        })
        .collect();
    assert!(frames.len() >= 150, "{} client frames", frames.len());
    frames
}

fn broker_answer(name: &str) -> Vec<u8> {
    std::fs::read(root().join("core/tests/data/api-versions").join(name)).expect(name)
}

fn with_request_id(frame: &[u8], id: i32) -> Vec<u8> {
    let mut f = frame.to_vec();
    f[8..12].copy_from_slice(&id.to_be_bytes());
    f
}

fn with_response_id(frame: &[u8], id: i32) -> Vec<u8> {
    let mut f = frame.to_vec();
    f[4..8].copy_from_slice(&id.to_be_bytes());
    f
}

#[test]
fn the_no_std_layer_allocates_nothing_over_10000_real_frames() {
    let requests = client_requests();
    let (v3, v0) = (
        broker_answer("4.4.0-broker-v3.bin"),
        broker_answer("4.4.0-broker-v0.bin"),
    );
    // The conversation: each real request under a fresh correlation id, and after each
    // ApiVersions request at v0 or v3-v4 the real 4.4.0 broker's answer in that shape under
    // the same id (the other requests go unanswered, as a Produce with acks 0 does).
    let mut exchanges: Vec<(Vec<u8>, Option<Vec<u8>>)> = Vec::new();
    let (mut n_req, mut n_resp) = (0, 0);
    let mut id = 0;
    while n_req + n_resp < 10_000 {
        for r in &requests {
            id += 1;
            let key = i16::from_be_bytes([r[4], r[5]]);
            let version = i16::from_be_bytes([r[6], r[7]]);
            let answer = match (key, version) {
                (18, 0) => Some(with_response_id(&v0, id)),
                (18, 3..=4) => Some(with_response_id(&v3, id)),
                _ => None,
            };
            n_req += 1;
            n_resp += usize::from(answer.is_some());
            exchanges.push((with_request_id(r, id), answer));
        }
    }
    let ((decoded, paired), used) = common::counted(|| {
        let mut obs: Observer<256> = Observer::new();
        let mut req_cut = FrameCutter::new([0u8; 1 << 16], 1 << 16);
        let mut resp_cut = FrameCutter::new([0u8; 4096], 4092);
        let (mut decoded, mut paired) = (0usize, 0usize);
        for (req, resp) in &exchanges {
            // Each frame arrives in pieces cut at arbitrary points.
            for piece in req.chunks(97) {
                let mut piece = piece;
                while !piece.is_empty() {
                    let n = req_cut.push(piece);
                    piece = &piece[n..];
                    while let Cut::Frame(f) = req_cut.next_frame().expect("a real request frame") {
                        if matches!(obs.request(f).decoded, Decoded::Request(_)) {
                            decoded += 1;
                        }
                    }
                }
            }
            for piece in resp.iter().flat_map(|r| r.chunks(211)) {
                let mut piece = piece;
                while !piece.is_empty() {
                    let n = resp_cut.push(piece);
                    piece = &piece[n..];
                    while let Cut::Frame(f) = resp_cut.next_frame().expect("a real response frame") {
                        let ev = obs.response(f);
                        if matches!(ev.decoded, Decoded::Response(_)) && ev.strict() {
                            paired += 1;
                        }
                    }
                }
            }
        }
        (decoded, paired)
    });
    assert_eq!(decoded, n_req, "every real request decodes");
    assert_eq!(paired, n_resp, "every answer pairs with its ApiVersions request");
    assert!(
        n_resp > 100 && n_req + n_resp >= 10_000,
        "{n_req} requests, {n_resp} responses"
    );
    assert_eq!(used.allocs, 0, "{used:?}");

    // The client side: send and pair 10,000 ApiVersions exchanges.
    let (ok, used) = common::counted(|| {
        let mut client: Client<8> = Client::new();
        let mut out = [0u8; 128];
        let mut ok = 0;
        for _ in 0..10_000 {
            let sent = client
                .send(&ApiVersionsRequest::DEFAULT, 3, Some("kwire"), &mut out)
                .unwrap();
            let frame = with_response_id(&v3, sent.correlation_id);
            if client
                .receive_as::<ApiVersionsRequest<'_>>(&frame, Mode::Strict)
                .is_ok()
            {
                ok += 1;
            }
        }
        ok
    });
    assert_eq!(ok, 10_000);
    // The only allocations are the test's own copies of the answer (`with_response_id`).
    assert_eq!(used.allocs, 10_000, "{used:?}");
}

#[cfg(feature = "tokio")]
#[test]
fn the_tokio_codec_allocates_nothing_per_frame_once_its_buffers_have_grown() {
    use kafka_wire::bytes::BytesMut;
    use kafka_wire_ext::tokio_codec::{ClientCodec, Outgoing};
    use tokio_util::codec::{Decoder, Encoder};

    let answers: Vec<Vec<u8>> = ["4.4.0-broker-v3.bin", "4.4.0-broker-v0.bin", "4.4.0-controller-v3.bin"]
        .iter()
        .map(|f| broker_answer(f))
        .collect();
    let mut codec: ClientCodec<16> = ClientCodec::new(Some("kwire"), 1 << 20);
    let mut out = BytesMut::with_capacity(4096);
    let mut src = BytesMut::with_capacity(64 * 1024);
    // One round: 8 requests written, their 8 answers read in 1,000-byte pieces and decoded as
    // views, the responses dropped.
    let round = |codec: &mut ClientCodec<16>, src: &mut BytesMut, out: &mut BytesMut, wire: &mut Vec<u8>| {
        out.clear();
        wire.clear();
        for i in 0..8 {
            let id = codec.client().next_correlation_id();
            codec
                .encode(Outgoing::new(ApiVersionsRequest::DEFAULT, 3), out)
                .unwrap();
            let a = &answers[i % answers.len()];
            let at = wire.len();
            wire.extend_from_slice(a);
            wire[at + 4..at + 8].copy_from_slice(&id.to_be_bytes());
        }
        let mut frames = 0;
        for piece in wire.chunks(1000) {
            src.extend_from_slice(piece);
            while let Some(r) = codec.decode(src).unwrap() {
                // The v0 answer is read through the version-0 fallback.
                assert!(r.view(Mode::Lenient).is_ok());
                frames += 1;
            }
        }
        frames
    };
    let mut wire = Vec::with_capacity(16 * 1024);
    for _ in 0..20 {
        round(&mut codec, &mut src, &mut out, &mut wire);
    }
    let (frames, used) = common::counted(|| {
        let mut frames = 0;
        for _ in 0..1_250 {
            frames += round(&mut codec, &mut src, &mut out, &mut wire);
        }
        frames
    });
    assert_eq!(frames, 10_000);
    assert_eq!(used.allocs, 0, "{used:?} over {frames} frames");
}
