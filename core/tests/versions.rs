//! Request/response pairing, version negotiation, Kafka's error table and the release tables.

use kafka_wire::frame::{parse_response_frame_to, Mode};
use kafka_wire::messages::api_versions_response::{ApiVersion, ApiVersionsResponse};
use kafka_wire::messages::metadata_response::{MetadataResponse, MetadataResponseBroker};
use kafka_wire::messages::{
    ApiVersionsRequest, ControlledShutdownRequest, FetchRequest, MetadataRequest, ProduceRequest,
};
use kafka_wire::versions::{
    parse_api_versions_response, Advertised, Negotiated, NegotiationError, Node, Release, RELEASES,
};
use kafka_wire::{ApiKey, Array, ErrorCode, Message, Request};

// --- pairing ---

fn response_name<'a, R: Request<'a>>() -> &'static str {
    <R::Response<'static> as Message<'static>>::INFO.name
}

#[test]
fn each_request_knows_its_key_response_and_header_versions() {
    assert_eq!(<MetadataRequest<'_> as Request<'_>>::API_KEY, ApiKey::Metadata);
    assert_eq!(response_name::<MetadataRequest<'_>>(), "MetadataResponse");
    assert_eq!(response_name::<ProduceRequest<'_>>(), "ProduceResponse");
    assert_eq!(response_name::<FetchRequest<'_>>(), "FetchResponse");
    // Metadata is flexible from v9: header v2 out, v1 back.
    assert_eq!(MetadataRequest::request_header_version(8), 1);
    assert_eq!(MetadataRequest::response_header_version(8), 0);
    assert_eq!(MetadataRequest::request_header_version(9), 2);
    assert_eq!(MetadataRequest::response_header_version(9), 1);
    // ApiVersions responses always use header v0; ControlledShutdown v0 requests use header v0.
    assert_eq!(ApiVersionsRequest::request_header_version(5), 2);
    assert_eq!(ApiVersionsRequest::response_header_version(5), 0);
    assert_eq!(ControlledShutdownRequest::request_header_version(0), 0);
}

#[test]
fn every_key_pairs_a_request_with_the_response_of_the_same_api() {
    for &k in ApiKey::ALL {
        let req = k.request_info();
        let resp = k.response_info();
        assert_eq!(req.api_key, Some(k.id()));
        assert_eq!(resp.api_key, Some(k.id()));
        assert_eq!(
            req.name.strip_suffix("Request"),
            resp.name.strip_suffix("Response"),
            "{k:?}"
        );
        assert_eq!(
            (req.min_version, req.max_version),
            (resp.min_version, resp.max_version),
            "{k:?}"
        );
    }
}

#[test]
fn a_response_frame_decodes_from_the_request_type_alone() {
    let brokers = [MetadataResponseBroker {
        node_id: 1,
        host: "b1",
        port: 9092,
        ..MetadataResponseBroker::DEFAULT
    }];
    let body = MetadataResponse {
        brokers: Array::from_slice(&brokers),
        ..MetadataResponse::DEFAULT
    };
    for version in [1i16, 9, 12, 13] {
        let header_v = MetadataRequest::response_header_version(version);
        let mut frame = vec![0u8; 8];
        frame[4..8].copy_from_slice(&77i32.to_be_bytes());
        if header_v == 1 {
            frame.push(0); // empty tagged section
        }
        let mut b = vec![0u8; body.encoded_len(version).unwrap()];
        body.encode_to_slice(&mut b, version).unwrap();
        frame.extend_from_slice(&b);
        let size = (frame.len() - 4) as i32;
        frame[..4].copy_from_slice(&size.to_be_bytes());
        let r = parse_response_frame_to::<MetadataRequest<'_>>(&frame, version, Mode::Strict).unwrap();
        assert_eq!(r.header_version, header_v);
        assert_eq!(r.header.correlation_id, 77);
        let b = r.body.brokers.iter().next().unwrap();
        assert_eq!((b.node_id, b.host, b.port), (1, "b1", 9092), "v{version}");
        // A frame one byte short is an error, not a panic.
        assert!(
            parse_response_frame_to::<MetadataRequest<'_>>(&frame[..frame.len() - 1], version, Mode::Strict).is_err()
        );
    }
    // A version the response does not have is refused.
    assert!(parse_response_frame_to::<MetadataRequest<'_>>(&[0, 0, 0, 4, 0, 0, 0, 1], 99, Mode::Strict).is_err());
}

// --- negotiation ---

fn answer(keys: &[ApiVersion<'static>]) -> Vec<u8> {
    let r = ApiVersionsResponse {
        api_keys: Array::from_slice(keys),
        ..ApiVersionsResponse::DEFAULT
    };
    let mut b = vec![0u8; r.encoded_len(3).unwrap()];
    r.encode_to_slice(&mut b, 3).unwrap();
    b
}

fn av(key: i16, min: i16, max: i16) -> ApiVersion<'static> {
    ApiVersion {
        api_key: key,
        min_version: min,
        max_version: max,
        ..ApiVersion::DEFAULT
    }
}

#[test]
fn negotiation_takes_the_highest_common_version_and_drops_absent_or_disjoint_apis() {
    let bytes = answer(&[av(0, 3, 13), av(1, 4, 18), av(3, 0, 13), av(18, 0, 5), av(32767, 0, 1)]);
    let (resp, v) = parse_api_versions_response(&bytes, 3).unwrap();
    assert_eq!(v, 3);
    let n = Negotiated::new(&resp, |k| match k {
        ApiKey::Produce => Some((0, 9)),   // 3-9: 9
        ApiKey::Fetch => Some((0, 3)),     // disjoint with 4-18
        ApiKey::Metadata => Some((0, 20)), // 0-13: 13
        ApiKey::ApiVersions => Some((0, 3)),
        ApiKey::ListOffsets => Some((0, 11)), // not in the answer
        _ => None,
    })
    .unwrap();
    assert_eq!(n.version(ApiKey::Produce), Some(9));
    assert_eq!(n.version(ApiKey::Fetch), None);
    assert_eq!(n.version(ApiKey::Metadata), Some(13));
    assert_eq!(n.version(ApiKey::ApiVersions), Some(3));
    assert_eq!(n.version(ApiKey::ListOffsets), None);
    assert_eq!(n.iter().count(), 3);
    // kafka-wire's own ranges: everything the broker lists that the crate knows.
    let all = Negotiated::with_kafka_wire(&resp).unwrap();
    assert_eq!(all.version(ApiKey::Produce), Some(13));
    assert_eq!(all.version(ApiKey::Fetch), Some(18));
    assert_eq!(all.version(ApiKey::ApiVersions), Some(5));
}

#[test]
fn unsupported_version_answers_in_v0_shape_and_asks_for_a_retry() {
    // A broker that speaks ApiVersions v0-3, asked at v5: error 35 and its ApiVersions range, in
    // version 0's layout.
    let keys = [av(18, 0, 3)];
    let r = ApiVersionsResponse {
        error_code: 35,
        api_keys: Array::from_slice(&keys),
        ..ApiVersionsResponse::DEFAULT
    };
    let mut bytes = vec![0u8; r.encoded_len(0).unwrap()];
    r.encode_to_slice(&mut bytes, 0).unwrap();
    assert!(
        ApiVersionsResponse::parse(&bytes, 5).is_err(),
        "a v0 body is not a v5 body"
    );
    let (resp, v) = parse_api_versions_response(&bytes, 5).unwrap();
    assert_eq!(v, 0);
    assert_eq!(resp.error_code, 35);
    let ours = |k: ApiKey| (k == ApiKey::ApiVersions).then_some((0, 5));
    assert_eq!(
        Negotiated::new(&resp, ours),
        Err(NegotiationError::RetryApiVersions { retry_version: 3 })
    );
    // Without its ApiVersions range, the retry is at version 0.
    let bare = ApiVersionsResponse {
        error_code: 35,
        ..ApiVersionsResponse::DEFAULT
    };
    assert_eq!(
        Negotiated::new(&bare, ours),
        Err(NegotiationError::RetryApiVersions { retry_version: 0 })
    );
    // Other errors are the broker's.
    let other = ApiVersionsResponse {
        error_code: 3,
        ..ApiVersionsResponse::DEFAULT
    };
    assert_eq!(
        Negotiated::new(&other, ours),
        Err(NegotiationError::Broker(ErrorCode::UnknownTopicOrPartition))
    );
    // Garbage parses at neither version: the error is the one at the version asked for.
    let e = parse_api_versions_response(&[0xff; 3], 5).unwrap_err();
    assert_eq!(e.version(), 5);
}

// --- error codes ---

#[test]
fn error_codes_convert_both_ways_and_carry_kafkas_facts() {
    for c in -300i16..300 {
        let e = ErrorCode::from_code(c);
        assert_eq!(e.code(), c);
        assert_eq!(i16::from(e), c);
        assert_eq!(e.name().is_none(), matches!(e, ErrorCode::Unknown(_)));
    }
    let mut last = i16::MIN;
    for e in ErrorCode::ALL {
        assert!(e.code() > last, "ALL is in code order without repeats");
        last = e.code();
        assert_eq!(ErrorCode::from_code(e.code()), *e);
    }
    assert!(ErrorCode::ALL.len() > 130);
    assert_eq!(ErrorCode::from_code(0), ErrorCode::None);
    assert!(ErrorCode::None.is_none() && !ErrorCode::None.is_retriable());
    assert_eq!(ErrorCode::from_code(3), ErrorCode::UnknownTopicOrPartition);
    assert!(ErrorCode::UnknownTopicOrPartition.is_retriable());
    assert!(ErrorCode::NotLeaderOrFollower.is_retriable());
    assert!(!ErrorCode::UnsupportedVersion.is_retriable());
    assert!(!ErrorCode::Unknown(999).is_retriable());
    assert_eq!(ErrorCode::UnsupportedVersion.code(), 35);
    assert_eq!(ErrorCode::UnknownServerError.code(), -1);
    assert_eq!(
        ErrorCode::UnknownTopicOrPartition.exception(),
        Some("UnknownTopicOrPartitionException")
    );
    assert_eq!(ErrorCode::None.exception(), None);
    assert_eq!(ErrorCode::NotLeaderOrFollower.to_string(), "NOT_LEADER_OR_FOLLOWER");
    assert_eq!(ErrorCode::from_code(999).to_string(), "UNKNOWN_ERROR_CODE(999)");
}

// --- release tables ---

#[test]
fn release_tables_are_sorted_and_cover_3_0_to_4_4() {
    assert!(RELEASES.len() >= 30, "{} releases", RELEASES.len());
    assert_eq!(RELEASES[0].name, "3.0.0");
    assert_eq!(Release::latest().name, "4.4.0");
    for r in RELEASES {
        for node in Node::ALL {
            assert!(
                r.node(node).windows(2).all(|w| w[0].key < w[1].key),
                "{} {node:?} sorted by key",
                r.name
            );
        }
        assert!(!r.apis.is_empty() && !r.controller.is_empty(), "{}", r.name);
        assert_eq!(r.zk_broker.is_empty(), r.name.starts_with("4."), "{}", r.name);
    }
    // Every range a 4.4.0 or 3.9.1 node advertises, unstable versions included, is one
    // kafka-wire decodes.
    for name in ["4.4.0", "3.9.1"] {
        let r = Release::find(name).unwrap();
        for node in Node::ALL {
            for a in r.node(node) {
                let i = ApiKey::from_i16(a.key).unwrap().request_info();
                assert!(
                    a.min >= i.min_version && a.unstable_max <= i.max_version,
                    "{name} {a:?}"
                );
            }
        }
    }
    assert_eq!(Release::find("9.9.9"), None);
}

/// One committed answer of a real broker or controller (core/tests/data/api-versions/README.md):
/// the release and kind of node named by its file, the ApiVersions version it answers, and the
/// response frame.
struct RealAnswer {
    file: String,
    release: String,
    node: Node,
    version: i16,
    frame: Vec<u8>,
}

fn real_answers() -> Vec<RealAnswer> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/api-versions");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let file = e.unwrap().file_name().into_string().unwrap();
        let Some(stem) = file.strip_suffix(".bin") else {
            continue;
        };
        // RELEASE-NODE-vN.bin
        let (release, rest) = stem.split_once('-').unwrap();
        let (node, version) = rest.rsplit_once("-v").unwrap();
        let node = match node {
            "broker" => Node::Broker,
            "controller" => Node::Controller,
            "zk-broker" => Node::ZkBroker,
            n => panic!("{file}: unknown node {n}"),
        };
        let frame = std::fs::read(dir.join(&file)).unwrap();
        out.push(RealAnswer {
            release: release.to_string(),
            node,
            version: version.parse().unwrap(),
            frame,
            file,
        });
    }
    out.sort_by(|a, b| a.file.cmp(&b.file));
    out
}

fn ranges(resp: &ApiVersionsResponse<'_>) -> Vec<(i16, i16, i16)> {
    let mut v: Vec<(i16, i16, i16)> = resp
        .api_keys
        .iter()
        .map(|k| (k.api_key, k.min_version, k.max_version))
        .collect();
    v.sort_unstable();
    v
}

fn minor(release: &str) -> &str {
    &release[..release.rfind('.').unwrap()]
}

#[test]
fn real_answers_fit_the_release_and_node_they_came_from() {
    let answers = real_answers();
    // The committed answers: 4.4.0's from tests/pcap/clients.pcapng, and brokers started by
    // tests/broker/capture-api-versions.sh.
    assert!(answers.len() >= 30, "{} answers", answers.len());
    for (release, node) in [
        ("4.4.0", Node::Broker),
        ("4.3.1", Node::Broker),
        ("4.0.0", Node::Broker),
        ("3.9.1", Node::Broker),
        ("3.9.1", Node::ZkBroker),
        ("4.4.0", Node::Controller),
    ] {
        assert!(
            answers
                .iter()
                .any(|a| a.release == release && a.node == node && a.version == 3),
            "{release} {node:?}"
        );
    }
    for a in &answers {
        let f = parse_response_frame_to::<ApiVersionsRequest<'_>>(&a.frame, a.version, Mode::Strict).unwrap();
        if f.version != a.version {
            // Answered in version 0's shape: a version the node does not speak (tests/frames.rs).
            assert_eq!(f.body.error_code, 35, "{}: UNSUPPORTED_VERSION", a.file);
            continue;
        }
        let resp = f.body;
        assert_eq!(resp.error_code, 0, "{}", a.file);
        let release = Release::find(&a.release).unwrap_or_else(|| panic!("{}: release not in the table", a.file));
        assert_eq!(release.fits_as(&resp), Some(a.node), "{}", a.file);
        // The table's default ranges for that node are the answer's, key by key.
        let table: Vec<(i16, i16, i16)> = release
            .node(a.node)
            .iter()
            .filter(|r| r.when == Advertised::Always)
            .map(|r| (r.key, r.min, r.max))
            .collect();
        assert_eq!(table, ranges(&resp), "{}", a.file);
        // The answer names its own release, and only releases of the same minor release, or
        // whose same node advertises exactly the same ranges (3.3.x and 3.4.x KRaft brokers).
        let fitting: Vec<&str> = Release::fitting(resp).map(|r| r.name).collect();
        assert!(fitting.contains(&a.release.as_str()), "{}: {fitting:?}", a.file);
        for name in &fitting {
            let other = Release::find(name).unwrap();
            assert!(
                minor(name) == minor(&a.release) || other.node(a.node) == release.node(a.node),
                "{}: {fitting:?}",
                a.file
            );
        }
    }
}

/// The 4.4.0 broker's answer from tests/pcap/clients.pcapng, parsed.
fn real_4_4_0() -> (Vec<u8>, &'static Release) {
    let a = real_answers()
        .into_iter()
        .find(|a| a.file == "4.4.0-broker-v3.bin")
        .unwrap();
    let f = parse_response_frame_to::<ApiVersionsRequest<'_>>(&a.frame, 3, Mode::Strict).unwrap();
    (f.body_bytes.to_vec(), Release::find("4.4.0").unwrap())
}

#[test]
fn real_4_4_0_answer_facts() {
    let (bytes, r) = real_4_4_0();
    let (resp, _) = parse_api_versions_response(&bytes, 3).unwrap();
    let got = ranges(&resp);
    // Facts of the real answer: Produce from v0 (4.x brokers still advertise v0-2), no
    // controller-only APIs, no telemetry APIs without a telemetry reporter.
    assert!(got.contains(&(0, 0, 13)));
    assert!(!got.iter().any(|k| k.0 == 52 || k.0 == 71 || k.0 == 72));
    assert_eq!(r.versions(ApiKey::Produce), Some((0, 13)));
    assert_eq!(r.versions(ApiKey::ApiVersions), Some((0, 5)));
    assert_eq!(Release::find("3.9.1").unwrap().versions(ApiKey::Produce), Some((0, 11)));
}

#[test]
fn fits_is_exact_with_optional_telemetry_and_unstable_mode() {
    let (bytes, r) = real_4_4_0();
    let (resp, _) = parse_api_versions_response(&bytes, 3).unwrap();
    let keys: Vec<ApiVersion<'static>> = resp
        .api_keys
        .iter()
        .map(|k| av(k.api_key, k.min_version, k.max_version))
        .collect();
    let fits = |keys: &[ApiVersion<'static>]| {
        let b = answer(keys);
        let (resp, _) = parse_api_versions_response(&b, 3).unwrap();
        r.fits(&resp)
    };
    assert!(fits(&keys));
    // With a telemetry reporter, the broker also lists GetTelemetrySubscriptions and
    // PushTelemetry (v0 in 4.4.0): still 4.4.0.
    let mut tele = keys.clone();
    tele.extend([av(71, 0, 0), av(72, 0, 0)]);
    assert!(fits(&tele));
    tele.pop();
    tele.push(av(72, 0, 1));
    assert!(!fits(&tele), "a telemetry API with another range");
    // A missing API, another range, an unknown API: not 4.4.0.
    assert!(!fits(&keys[1..]));
    let mut other = keys.clone();
    other[0].min_version = 3;
    assert!(!fits(&other));
    let mut odd = keys.clone();
    odd.push(av(30000, 0, 0));
    assert!(!fits(&odd));
    let b = answer(&odd);
    let (resp, _) = parse_api_versions_response(&b, 3).unwrap();
    assert_eq!(Release::fitting(resp).count(), 0);
    // unstable.api.versions.enable=true: every API up to its unstable_max, and the APIs
    // advertised only then.
    let unstable: Vec<ApiVersion<'static>> = r
        .apis
        .iter()
        .filter(|a| a.when != Advertised::Telemetry)
        .map(|a| av(a.key, a.min, a.unstable_max))
        .collect();
    assert!(fits(&unstable));
    // The answer's error code must be 0.
    let err = ApiVersionsResponse {
        error_code: 35,
        api_keys: Array::from_slice(&keys),
        ..ApiVersionsResponse::DEFAULT
    };
    assert!(!r.fits(&err));
}
