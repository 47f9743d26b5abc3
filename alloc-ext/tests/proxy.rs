//! `kafka_wire_ext::proxy`'s pump: frames split across reads, pairing, and the address rewrites
//! of Metadata, FindCoordinator (both shapes), DescribeCluster and Produce node endpoints. The
//! proxy on real sockets is in `proxy_server.rs`.

use std::io;
use std::sync::{Arc, Mutex};

use kafka_wire::conn;
use kafka_wire::frame::{parse_response, Mode};
use kafka_wire::messages::{
    describe_cluster_response::{DescribeClusterBroker, DescribeClusterResponse},
    find_coordinator_response::{Coordinator, FindCoordinatorResponse},
    metadata_response::{MetadataResponse, MetadataResponseBroker},
    produce_response::{NodeEndpoint, ProduceResponse},
    ApiVersionsRequest, ApiVersionsResponse, DescribeClusterRequest, FindCoordinatorRequest, MetadataRequest,
};
use kafka_wire::{ApiKey, Array, RequestBody, ResponseBody};
use kafka_wire_ext::proxy::{AddressMap, Direction, Forwarded, FrameObserver, Pairing, Pump, Stats};

mod frames;
use frames::{request, response};

/// Maps every broker to `proxy:(9000 + node id)`.
struct Fixed;
impl AddressMap for Fixed {
    fn map(&self, node_id: i32, _host: &str, _port: i32) -> Option<(&str, i32)> {
        Some(("proxy", 9000 + node_id))
    }
}

mod chunked;
use chunked::Chunked;

/// How a frame decoded, as the pump's observer saw it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Decoded {
    Strict,
    /// Bytes after the body.
    Lenient(usize),
    Failed,
    Unpaired,
}

/// Direction, API, version, correlation id, outcome, the rewritten frame.
type Event = (Direction, Option<ApiKey>, i16, i32, Decoded, Option<Vec<u8>>);
#[derive(Default, Clone)]
struct Seen(Arc<Mutex<Vec<Event>>>);
impl FrameObserver for Seen {
    fn frame(&mut self, f: &Forwarded<'_>) {
        let e = &f.event;
        let decoded = match &e.decoded {
            conn::Decoded::Request(r) if r.trailing.is_empty() => Decoded::Strict,
            conn::Decoded::Response(r) if r.trailing.is_empty() => Decoded::Strict,
            conn::Decoded::Request(r) => Decoded::Lenient(r.trailing.len()),
            conn::Decoded::Response(r) => Decoded::Lenient(r.trailing.len()),
            conn::Decoded::Failed(_) => Decoded::Failed,
            conn::Decoded::Unpaired => Decoded::Unpaired,
        };
        self.0.lock().unwrap().push((
            e.direction,
            e.api.map(|(k, _)| k),
            e.api.map_or(-1, |(_, v)| v),
            e.correlation_id.unwrap_or(-1),
            decoded,
            f.rewritten.map(<[u8]>::to_vec),
        ));
    }
}

/// Pushes `requests` then `responses` through a request and a response pump in pieces of
/// `chunk` bytes; returns what each side wrote and what the observer saw.
fn pump_through(
    requests: &[u8],
    responses: &[u8],
    chunk: usize,
    map: Option<Arc<dyn AddressMap>>,
) -> (Vec<u8>, Vec<u8>, Seen, Arc<Stats>) {
    let pairing = Arc::new(Pairing::new());
    let stats = Arc::new(Stats::default());
    let seen = Seen::default();
    let mut req = Pump::new(Direction::Request, 1, pairing.clone(), stats.clone()).observe(Box::new(seen.clone()));
    let mut resp = Pump::new(Direction::Response, 1, pairing.clone(), stats.clone()).observe(Box::new(seen.clone()));
    if let Some(m) = map {
        resp = resp.rewrite_with(m);
    }
    let (mut up, mut down) = (Vec::new(), Vec::new());
    req.run(&mut Chunked { bytes: requests, chunk }, &mut up).unwrap();
    resp.run(
        &mut Chunked {
            bytes: responses,
            chunk,
        },
        &mut down,
    )
    .unwrap();
    assert_eq!(pairing.waiting(), 0, "every request was answered");
    (up, down, seen, stats)
}

#[test]
fn frames_split_anywhere_are_forwarded_byte_for_byte_and_paired() {
    let mut reqs = Vec::new();
    let mut resps = Vec::new();
    for corr in 0..20 {
        reqs.extend(request(corr, RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT), 3));
        let body = ApiVersionsResponse {
            throttle_time_ms: corr,
            ..ApiVersionsResponse::DEFAULT
        };
        resps.extend(response(corr, ResponseBody::ApiVersions(body), 3));
    }
    for chunk in [1, 3, 7, 64, 1 << 20] {
        let (up, down, seen, stats) = pump_through(&reqs, &resps, chunk, Some(Arc::new(Fixed)));
        assert_eq!(up, reqs, "chunk {chunk}");
        assert_eq!(down, resps, "chunk {chunk}");
        let seen = seen.0.lock().unwrap();
        assert_eq!(seen.len(), 40);
        for (i, (dir, key, v, corr, d, rw)) in seen.iter().enumerate() {
            assert_eq!(
                *dir,
                if i < 20 {
                    Direction::Request
                } else {
                    Direction::Response
                }
            );
            assert_eq!(
                (*key, *v, *corr % 20, *d, rw.is_none()),
                (Some(ApiKey::ApiVersions), 3, i as i32 % 20, Decoded::Strict, true)
            );
        }
        assert!(
            stats
                .summary()
                .starts_with("frames 40: 40 strict, 0 lenient, 0 not decoded, 0 rewritten, 0 unpaired"),
            "{}",
            stats.summary()
        );
    }
}

#[test]
fn lenient_and_undecodable_frames_are_forwarded_with_their_outcome() {
    // Two bytes after the body: lenient. A header with an unknown API key: not decoded.
    let mut odd = request(5, RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT), 3);
    odd.extend([0xAA, 0xBB]);
    let size = (odd.len() - 4) as i32;
    odd[..4].copy_from_slice(&size.to_be_bytes());
    let mut stream = odd.clone();
    stream.extend([0, 0, 0, 8, 0x7f, 0x00, 0, 0, 0, 0, 0, 6]);
    // A response nobody asked for.
    let resps = response(99, ResponseBody::ApiVersions(ApiVersionsResponse::DEFAULT), 3);
    let pairing = Arc::new(Pairing::new());
    let stats = Arc::new(Stats::default());
    let seen = Seen::default();
    let mut up = Vec::new();
    Pump::new(Direction::Request, 1, pairing.clone(), stats.clone())
        .observe(Box::new(seen.clone()))
        .run(
            &mut Chunked {
                bytes: &stream,
                chunk: 5,
            },
            &mut up,
        )
        .unwrap();
    assert_eq!(up, stream);
    let mut down = Vec::new();
    Pump::new(Direction::Response, 1, pairing.clone(), stats.clone())
        .observe(Box::new(seen.clone()))
        .run(
            &mut Chunked {
                bytes: &resps,
                chunk: 5,
            },
            &mut down,
        )
        .unwrap();
    assert_eq!(down, resps);
    let seen = seen.0.lock().unwrap();
    assert!(matches!(seen[0].4, Decoded::Lenient(2)), "{:?}", seen[0]);
    assert_eq!(seen[1].4, Decoded::Failed, "{:?}", seen[1]);
    assert_eq!(seen[2].4, Decoded::Unpaired);
    assert_eq!(pairing.waiting(), 1, "the ApiVersions request (5) still waits");
    assert!(
        stats
            .summary()
            .starts_with("frames 3: 0 strict, 1 lenient, 1 not decoded, 0 rewritten, 1 unpaired"),
        "{}",
        stats.summary()
    );
}

#[test]
fn a_large_frame_grows_the_buffer_to_at_most_twice_its_size_until_relax() {
    let stats = Arc::new(Stats::default());
    let mut p = Pump::new(Direction::Request, 1, Arc::new(Pairing::new()), stats).buffer(16 * 1024, 8 << 20);
    // A 1 MiB frame (its bytes need not decode to be forwarded), read 64 KiB at a time.
    let mut frame = ((1i32 << 20) - 4).to_be_bytes().to_vec();
    frame.resize(1 << 20, 7);
    let mut forwarded = Vec::new();
    p.run(
        &mut Chunked {
            bytes: &frame,
            chunk: 64 * 1024,
        },
        &mut forwarded,
    )
    .unwrap();
    assert_eq!(forwarded, frame, "forwarded whole");
    let grown = p.buffer_capacity();
    assert!(((1 << 20)..=2 << 20).contains(&grown), "{grown}");
    // The grown buffer stays for the next frame, until the connection is relaxed.
    assert!(p.relax());
    assert_eq!(p.buffer_capacity(), 16 * 1024);
    assert!(!p.relax(), "nothing more to give back");
}

#[test]
fn a_negative_or_oversized_frame_size_closes_the_stream() {
    let stats = Arc::new(Stats::default());
    let mut p = Pump::new(Direction::Request, 1, Arc::new(Pairing::new()), stats).max_frame(100);
    let e = p
        .run(
            &mut Chunked {
                bytes: &[0, 0, 1, 0, 1, 2],
                chunk: 64,
            },
            &mut Vec::new(),
        )
        .unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    let e = p
        .run(
            &mut Chunked {
                bytes: &[0xff, 0xff, 0xff, 0xff],
                chunk: 64,
            },
            &mut Vec::new(),
        )
        .unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidData);
}

/// Sends one request and its response through the pumps with [`Fixed`]; returns the forwarded
/// response parsed back, and whether it was rewritten.
fn rewrite(key_req: RequestBody<'_>, resp: ResponseBody<'_>, version: i16, check: impl Fn(&ResponseBody<'_>)) -> bool {
    let reqs = request(7, key_req, version);
    let resps = response(7, resp, version);
    let (_, down, seen, stats) = pump_through(&reqs, &resps, 1 << 20, Some(Arc::new(Fixed)));
    let f =
        parse_response(&down[4..], resp.key(), version, Mode::Strict).expect("the forwarded response decodes strictly");
    assert_eq!(f.header.correlation_id, 7);
    check(&f.body);
    let rewritten = seen.0.lock().unwrap()[1].5.clone();
    assert_eq!(rewritten.is_some(), down != resps);
    if let Some(r) = rewritten {
        assert_eq!(r, down);
    }
    stats.rewritten.load(std::sync::atomic::Ordering::Relaxed) == 1
}

#[test]
fn metadata_brokers_are_rewritten_at_every_version() {
    let brokers = [
        MetadataResponseBroker {
            node_id: 1,
            host: "kafka-1.internal",
            port: 9092,
            rack: None,
            ..MetadataResponseBroker::DEFAULT
        },
        MetadataResponseBroker {
            node_id: 2,
            host: "kafka-2.internal",
            port: 9093,
            rack: None,
            ..MetadataResponseBroker::DEFAULT
        },
    ];
    for v in 0..=13 {
        let body = MetadataResponse {
            brokers: Array::from_slice(&brokers),
            controller_id: if v >= 1 { 2 } else { -1 },
            ..MetadataResponse::DEFAULT
        };
        let req = RequestBody::Metadata(MetadataRequest {
            topics: if v == 0 { Some(Array::EMPTY) } else { None },
            ..MetadataRequest::DEFAULT
        });
        let was = rewrite(req, ResponseBody::Metadata(body), v, |b| {
            let ResponseBody::Metadata(m) = b else { panic!() };
            let got: Vec<_> = m.brokers.iter().map(|b| (b.node_id, b.host, b.port)).collect();
            assert_eq!(got, [(1, "proxy", 9001), (2, "proxy", 9002)], "v{v}");
            if v >= 1 {
                assert_eq!(m.controller_id, 2);
            }
        });
        assert!(was, "v{v}");
    }
}

#[test]
fn find_coordinator_is_rewritten_in_both_shapes() {
    // Versions 0-3: one coordinator in the body.
    for v in 0..=3 {
        let body = FindCoordinatorResponse {
            node_id: 3,
            host: "kafka-3",
            port: 9094,
            ..FindCoordinatorResponse::DEFAULT
        };
        let req = RequestBody::FindCoordinator(FindCoordinatorRequest {
            key: "g",
            ..FindCoordinatorRequest::DEFAULT
        });
        assert!(rewrite(req, ResponseBody::FindCoordinator(body), v, |b| {
            let ResponseBody::FindCoordinator(m) = b else { panic!() };
            assert_eq!((m.node_id, m.host, m.port), (3, "proxy", 9003), "v{v}");
        }));
        // An error (no coordinator yet) is left alone.
        let body = FindCoordinatorResponse {
            error_code: 15,
            node_id: -1,
            host: "",
            port: -1,
            ..FindCoordinatorResponse::DEFAULT
        };
        assert!(!rewrite(req, ResponseBody::FindCoordinator(body), v, |_| {}));
    }
    // Versions 4+ (KIP-699): an array of coordinators; failed ones keep their address.
    let cs = [
        Coordinator {
            key: "a",
            node_id: 1,
            host: "kafka-1",
            port: 9092,
            ..Coordinator::DEFAULT
        },
        Coordinator {
            key: "b",
            node_id: -1,
            host: "",
            port: -1,
            error_code: 15,
            ..Coordinator::DEFAULT
        },
        Coordinator {
            key: "c",
            node_id: 2,
            host: "kafka-2",
            port: 9092,
            ..Coordinator::DEFAULT
        },
    ];
    for v in 4..=6 {
        let body = FindCoordinatorResponse {
            coordinators: Array::from_slice(&cs),
            ..FindCoordinatorResponse::DEFAULT
        };
        let req = RequestBody::FindCoordinator(FindCoordinatorRequest {
            key: "",
            ..FindCoordinatorRequest::DEFAULT
        });
        assert!(rewrite(req, ResponseBody::FindCoordinator(body), v, |b| {
            let ResponseBody::FindCoordinator(m) = b else { panic!() };
            let got: Vec<_> = m
                .coordinators
                .iter()
                .map(|c| (c.key, c.node_id, c.host, c.port, c.error_code))
                .collect();
            assert_eq!(
                got,
                [
                    ("a", 1, "proxy", 9001, 0),
                    ("b", -1, "", -1, 15),
                    ("c", 2, "proxy", 9002, 0)
                ],
                "v{v}"
            );
        }));
    }
}

#[test]
fn describe_cluster_and_produce_node_endpoints_are_rewritten() {
    let brokers = [DescribeClusterBroker {
        broker_id: 4,
        host: "kafka-4",
        port: 9092,
        ..DescribeClusterBroker::DEFAULT
    }];
    for v in 0..=2 {
        let body = DescribeClusterResponse {
            brokers: Array::from_slice(&brokers),
            cluster_id: "c1",
            ..DescribeClusterResponse::DEFAULT
        };
        assert!(rewrite(
            RequestBody::DescribeCluster(DescribeClusterRequest::DEFAULT),
            ResponseBody::DescribeCluster(body),
            v,
            |b| {
                let ResponseBody::DescribeCluster(m) = b else { panic!() };
                let got: Vec<_> = m.brokers.iter().map(|b| (b.broker_id, b.host, b.port)).collect();
                assert_eq!(got, [(4, "proxy", 9004)]);
                assert_eq!(m.cluster_id, "c1");
            }
        ));
    }
    // Produce v10+ names the new leader's endpoint (KIP-951).
    let eps = [NodeEndpoint {
        node_id: 5,
        host: "kafka-5",
        port: 9092,
        ..NodeEndpoint::DEFAULT
    }];
    let body = ProduceResponse {
        node_endpoints: Array::from_slice(&eps),
        ..ProduceResponse::DEFAULT
    };
    let req = RequestBody::Produce(kafka_wire::messages::ProduceRequest {
        acks: -1,
        ..kafka_wire::messages::ProduceRequest::DEFAULT
    });
    assert!(rewrite(req, ResponseBody::Produce(body), 11, |b| {
        let ResponseBody::Produce(m) = b else { panic!() };
        let got: Vec<_> = m.node_endpoints.iter().map(|b| (b.node_id, b.host, b.port)).collect();
        assert_eq!(got, [(5, "proxy", 9005)]);
    }));
    // Without endpoints, a Produce response goes out as it came.
    assert!(!rewrite(
        req,
        ResponseBody::Produce(ProduceResponse::DEFAULT),
        11,
        |_| {}
    ));
}

#[test]
fn produce_with_acks_0_expects_no_response() {
    let req = RequestBody::Produce(kafka_wire::messages::ProduceRequest {
        acks: 0,
        ..kafka_wire::messages::ProduceRequest::DEFAULT
    });
    let pairing = Arc::new(Pairing::new());
    let mut p = Pump::new(Direction::Request, 1, pairing.clone(), Arc::new(Stats::default()));
    p.run(
        &mut Chunked {
            bytes: &request(1, req, 9),
            chunk: 100,
        },
        &mut Vec::new(),
    )
    .unwrap();
    assert_eq!(pairing.waiting(), 0);
}
