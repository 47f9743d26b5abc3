//! The proxy's forwarding path allocates nothing per frame once warm: real client requests
//! (captured from Kafka's Java client 4.4.0, tests/clients/frames) and their responses go
//! through a request pump and a response pump, decoded strictly and paired, with address
//! rewriting on and logging off, under a counting global allocator (tests/common). A response
//! whose addresses are rewritten costs one allocation: the new broker list.

mod common;

use std::io;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use kafka_wire::frame::{encode_request_frame, encode_response_frame, parse_request, Mode};
use kafka_wire::messages::metadata_response::{MetadataResponse, MetadataResponseBroker};
use kafka_wire::messages::{
    ApiVersionsResponse, FetchResponse, HeartbeatResponse, ListOffsetsResponse, OffsetCommitResponse, ProduceResponse,
};
use kafka_wire::{ApiKey, Array, ResponseBody};
use kafka_wire_ext::proxy::{AddressMap, Direction, Pairing, Pump, Stats};

mod chunked;
use chunked::Chunked;

/// Every broker is reached through `proxy:9000+id` (no allocation to answer).
struct Fixed;
impl AddressMap for Fixed {
    fn map(&self, node_id: i32, _host: &str, _port: i32) -> Option<(&str, i32)> {
        Some(("proxy", 9000 + node_id))
    }
}

/// The captured request frames, re-numbered with correlation ids 0.., and a response for each.
fn conversation() -> (Vec<u8>, Vec<u8>, usize) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/clients/frames/java-4.4.0");
    let names = [
        "ApiVersions-v5-1.bin",
        "Metadata-v13-1.bin",
        "Produce-v13-1.bin",
        "Produce-v13-2.bin",
        "Fetch-v18-1.bin",
        "ListOffsets-v11-1.bin",
        "Heartbeat-v4-1.bin",
        "OffsetCommit-v10-1.bin",
    ];
    let (mut reqs, mut resps) = (Vec::new(), Vec::new());
    let mut buf = vec![0u8; 1 << 16];
    for (corr, name) in names.iter().enumerate() {
        let payload = std::fs::read(dir.join(name)).unwrap();
        let f = parse_request(&payload, Mode::Strict).unwrap();
        let n = encode_request_frame(corr as i32, f.header.client_id, &f.body, f.api_version, &mut buf).unwrap();
        reqs.extend_from_slice(&buf[..n]);
        let body = match f.api_key {
            ApiKey::ApiVersions => ResponseBody::ApiVersions(ApiVersionsResponse::DEFAULT),
            // No brokers: nothing to rewrite (the rewrite is measured on its own below).
            ApiKey::Metadata => ResponseBody::Metadata(MetadataResponse::DEFAULT),
            ApiKey::Produce => ResponseBody::Produce(ProduceResponse::DEFAULT),
            ApiKey::Fetch => ResponseBody::Fetch(FetchResponse::DEFAULT),
            ApiKey::ListOffsets => ResponseBody::ListOffsets(ListOffsetsResponse::DEFAULT),
            ApiKey::Heartbeat => ResponseBody::Heartbeat(HeartbeatResponse::DEFAULT),
            ApiKey::OffsetCommit => ResponseBody::OffsetCommit(OffsetCommitResponse::DEFAULT),
            k => panic!("{k:?}"),
        };
        let n = encode_response_frame(corr as i32, &body, f.api_version, &mut buf).unwrap();
        resps.extend_from_slice(&buf[..n]);
    }
    (reqs, resps, names.len())
}

#[test]
fn forwarding_allocates_nothing_per_frame_once_warm() {
    let (reqs, resps, n) = conversation();
    let pairing = Arc::new(Pairing::new());
    let stats = Arc::new(Stats::default());
    let map: Arc<dyn AddressMap> = Arc::new(Fixed);
    let mut req = Pump::new(Direction::Request, 1, pairing.clone(), stats.clone());
    let mut resp = Pump::new(Direction::Response, 1, pairing.clone(), stats.clone()).rewrite_with(map);
    let mut round = |chunk: usize| {
        let mut sink = io::sink();
        req.run(&mut Chunked { bytes: &reqs, chunk }, &mut sink).unwrap();
        resp.run(&mut Chunked { bytes: &resps, chunk }, &mut sink).unwrap();
    };
    // Warm-up: buffers grow to the largest frame.
    for chunk in [usize::MAX, 1000, 333] {
        round(chunk);
    }
    let rounds = 2000;
    let ((), used) = common::counted(|| {
        for i in 0..rounds {
            round([usize::MAX, 1000, 333, 4096][i % 4]);
        }
    });
    let frames = stats.frames.load(Ordering::Relaxed);
    assert_eq!(frames, 2 * n as u64 * (rounds as u64 + 3));
    assert_eq!(stats.strict.load(Ordering::Relaxed), frames, "{}", stats.summary());
    assert_eq!(pairing.waiting(), 0);
    assert_eq!(
        used.allocs,
        0,
        "{} allocations ({} bytes) for {} frames",
        used.allocs,
        used.bytes,
        2 * n * rounds
    );
    println!(
        "{} frames ({} bytes each round) forwarded, decoded and paired: {used:?}",
        2 * n * rounds,
        reqs.len() + resps.len()
    );
}

#[test]
fn a_rewritten_response_allocates_once() {
    let brokers = [
        MetadataResponseBroker {
            node_id: 1,
            host: "kafka-1",
            port: 9092,
            ..MetadataResponseBroker::DEFAULT
        },
        MetadataResponseBroker {
            node_id: 2,
            host: "kafka-2",
            port: 9092,
            ..MetadataResponseBroker::DEFAULT
        },
    ];
    let body = ResponseBody::Metadata(MetadataResponse {
        brokers: Array::from_slice(&brokers),
        ..MetadataResponse::DEFAULT
    });
    let mut buf = vec![0u8; 4096];
    let (mut reqs, mut resps) = (Vec::new(), Vec::new());
    for corr in 0..10 {
        let req = kafka_wire::RequestBody::Metadata(kafka_wire::messages::MetadataRequest::DEFAULT);
        let n = encode_request_frame(corr, None, &req, 12, &mut buf).unwrap();
        reqs.extend_from_slice(&buf[..n]);
        let n = encode_response_frame(corr, &body, 12, &mut buf).unwrap();
        resps.extend_from_slice(&buf[..n]);
    }
    let pairing = Arc::new(Pairing::new());
    let stats = Arc::new(Stats::default());
    let mut req = Pump::new(Direction::Request, 1, pairing.clone(), stats.clone());
    let mut resp = Pump::new(Direction::Response, 1, pairing.clone(), stats.clone()).rewrite_with(Arc::new(Fixed));
    let mut round = || {
        let mut sink = io::sink();
        req.run(
            &mut Chunked {
                bytes: &reqs,
                chunk: 1 << 20,
            },
            &mut sink,
        )
        .unwrap();
        resp.run(
            &mut Chunked {
                bytes: &resps,
                chunk: 1 << 20,
            },
            &mut sink,
        )
        .unwrap();
    };
    round();
    let ((), used) = common::counted(|| (0..100).for_each(|_| round()));
    assert_eq!(stats.rewritten.load(Ordering::Relaxed), 10 * 101);
    assert_eq!(used.allocs, 10 * 100, "one allocation per rewritten response: {used:?}");
}
