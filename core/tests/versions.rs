//! Request/response pairing, version negotiation, Kafka's error table and the release tables.

use kafka_wire::frame::{parse_response_frame_to, Mode};
use kafka_wire::messages::api_versions_response::{ApiVersion, ApiVersionsResponse};
use kafka_wire::messages::metadata_response::{MetadataResponse, MetadataResponseBroker};
use kafka_wire::messages::{
    ApiVersionsRequest, ControlledShutdownRequest, FetchRequest, MetadataRequest, ProduceRequest,
};
use kafka_wire::versions::{parse_api_versions_response, Negotiated, NegotiationError, Release, RELEASES};
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
fn release_tables_agree_with_the_schemas_kafka_wire_is_generated_from() {
    assert!(RELEASES.len() >= 30, "{} releases", RELEASES.len());
    assert_eq!(RELEASES[0].name, "3.0.0");
    assert_eq!(Release::latest().name, "4.4.0");
    for r in RELEASES {
        assert!(
            r.apis.windows(2).all(|w| w[0].key < w[1].key),
            "{} sorted by key",
            r.name
        );
    }
    let current = Release::find("4.4.0").unwrap();
    for &k in ApiKey::ALL {
        let info = k.request_info();
        match current.api(k.id()) {
            Some(a) => {
                assert_eq!(a.max, info.max_version, "{k:?}");
                assert!(a.min >= info.min_version, "{k:?}");
            }
            // Only 3.9.1's APIs and kafka-wire's drafts are missing from 4.4.0.
            None => assert!(
                info.provisional || Release::find("3.9.1").unwrap().api(k.id()).is_some(),
                "{k:?}"
            ),
        }
    }
    // Every range of every release is one kafka-wire decodes, except versions that Kafka 4.0
    // removed and that releases older than 3.9 still list (none below a 3.9.1 minimum).
    let old = Release::find("3.9.1").unwrap();
    for a in old.apis {
        let k = ApiKey::from_i16(a.key).unwrap();
        let i = k.request_info();
        assert!(a.min >= i.min_version && a.max <= i.max_version, "3.9.1 {k:?} {a:?}");
    }
    assert_eq!(old.versions(ApiKey::Produce), Some((0, 11)));
    assert_eq!(current.versions(ApiKey::ApiVersions), Some((0, 5)));
    assert_eq!(Release::find("9.9.9"), None);
}

#[test]
fn a_brokers_answer_fits_the_release_it_came_from() {
    let current = Release::latest();
    let keys: Vec<ApiVersion<'static>> = current
        .apis
        .iter()
        .filter(|a| a.listeners & kafka_wire::versions::Listeners::BROKER != 0)
        .map(|a| av(a.key, a.min, a.stable_max()))
        .collect();
    let bytes = answer(&keys);
    let (resp, _) = parse_api_versions_response(&bytes, 3).unwrap();
    assert!(current.fits(&resp));
    assert!(!Release::find("3.9.1").unwrap().fits(&resp));
    let fitting: Vec<&str> = Release::fitting(resp).map(|r| r.name).collect();
    assert!(fitting.contains(&"4.4.0"), "{fitting:?}");
    assert!(!fitting.contains(&"3.0.0"), "{fitting:?}");
    // An answer listing an API the release does not define fits no release.
    let mut odd = keys.clone();
    odd.push(av(30000, 0, 0));
    let bytes = answer(&odd);
    let (resp, _) = parse_api_versions_response(&bytes, 3).unwrap();
    assert_eq!(Release::fitting(resp).count(), 0);
}
