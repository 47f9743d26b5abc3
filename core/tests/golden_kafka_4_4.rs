//! Golden byte vectors for what Kafka 4.4.0 added, written by hand from the Kafka wire format
//! and the 4.4.0 JSON schemas (schemas/kafka/4.4.0).
//!
//! Each vector is an annotated byte array: one line per field, with the field name and its
//! wire encoding. None of them were produced by running this crate's encoder. For each
//! (message, version) the test builds the value on the stack, checks that encoding it gives
//! exactly the hand-written bytes (and that `encoded_len` agrees), parses the hand-written
//! bytes back, checks the parse equals the built value, and spot-checks a few fields through
//! the view API.
//!
//! Covered: the new APIs UnregisterController (94) and StreamsGroupTopologyDescriptionUpdate
//! (93), the new metadata record UnregisterControllerRecord (29), and the new fields of
//! RegisterBrokerRecord v4, BrokerRegistrationChangeRecord v3, ApiVersionsRequest v5,
//! TxnOffsetCommitRequest/Response v6, WriteTxnMarkersRequest v2, StreamsGroupHeartbeatResponse
//! v1 (and v0 for the renamed AcceptableRecoveryLagLegacy), DeleteGroupsResponse v3,
//! DescribeLogDirsResponse v5, BrokerHeartbeatRequest v2, ShareFetchRequest v2 and
//! AddRaftVoterRequest v1. A few vectors at the previous version show the new field absent.
//!
//! Values are chosen to differ from every field's default (and from each other) so that a
//! dropped, duplicated or swapped field shows up in the bytes; they are not meant to describe a
//! realistic cluster.
//!
//! Wire reminders used below (every vector here is at a flexible version):
//! * compact string / array / bytes: unsigned varint (length + 1), 0 = null;
//! * every struct ends with a tagged-field section: uvarint count, then per field in ascending
//!   tag order: uvarint tag, uvarint payload size, payload; a tagged field at its default is not
//!   written (a non-nullable array: when empty; a nullable one with default null: when null,
//!   an empty one is written);
//! * integers big-endian; uuid = 16 bytes, most significant first; bool = 1 byte 0/1.

use core::fmt::Debug;

use kafka_wire::{Array, Message, TaggedFields};
use uuid::Uuid;

// ---------------------------------------------------------------------------------------------
// Shared values
// ---------------------------------------------------------------------------------------------

/// Wire bytes: 01 23 45 67 89 ab cd ef fe dc ba 98 76 54 32 10.
const U_A: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;
/// Wire bytes: a1 a2 a3 a4 b1 b2 c1 c2 d1 d2 d3 d4 d5 d6 d7 d8.
const U_B: u128 = 0xa1a2_a3a4_b1b2_c1c2_d1d2_d3d4_d5d6_d7d8;
/// Wire bytes: 00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff.
const U_C: u128 = 0x0011_2233_4455_6677_8899_aabb_ccdd_eeff;

fn ua() -> Uuid {
    Uuid::from_u128(U_A)
}
fn ub() -> Uuid {
    Uuid::from_u128(U_B)
}
fn uc() -> Uuid {
    Uuid::from_u128(U_C)
}
/// Log directory `k` (1..=8): the byte `k * 0x11` sixteen times (D1 = 11 11 .., D8 = 88 88 ..).
fn dir(k: u8) -> Uuid {
    Uuid::from_bytes([k * 0x11; 16])
}

// ---------------------------------------------------------------------------------------------
// The check
// ---------------------------------------------------------------------------------------------

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(" ")
}

fn describe_diff(got: &[u8], want: &[u8]) -> String {
    let first = got
        .iter()
        .zip(want.iter())
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    let from = first.saturating_sub(8);
    format!(
        "first difference at byte {first} (encoded {} bytes, golden {} bytes)\n  encoded[{from}..]: {}\n  golden [{from}..]: {}\n  encoded: {}\n  golden:  {}",
        got.len(),
        want.len(),
        hex(&got[from.min(got.len())..got.len().min(first + 24)]),
        hex(&want[from.min(want.len())..want.len().min(first + 24)]),
        hex(got),
        hex(want),
    )
}

/// Encodes `built` at `version` and compares with `golden`; parses `golden` and compares with
/// `built`. Returns the parsed view for spot checks.
fn check<'a, M>(built: &M, version: i16, golden: &'a [u8]) -> M
where
    M: Message<'a> + PartialEq + Debug,
{
    let name = M::INFO.name;
    let len = built
        .encoded_len(version)
        .unwrap_or_else(|e| panic!("{name} v{version}: encoded_len failed: {e:?}"));
    let mut buf = [0u8; 1024];
    let n = built
        .encode_to_slice(&mut buf, version)
        .unwrap_or_else(|e| panic!("{name} v{version}: encode failed: {e:?}"));
    let encoded = &buf[..n];
    assert!(
        encoded == golden,
        "{name} v{version}: encoded bytes differ from the golden vector: {}",
        describe_diff(encoded, golden)
    );
    assert_eq!(len, golden.len(), "{name} v{version}: encoded_len");
    let parsed = M::parse(golden, version).unwrap_or_else(|e| panic!("{name} v{version}: parse failed: {e:?}"));
    assert_eq!(
        parsed, *built,
        "{name} v{version}: parsed value differs from the built value"
    );
    parsed
}

fn ints(a: Array<'_, i32>) -> Vec<i32> {
    a.iter().collect()
}

fn strs<'a>(a: Array<'a, &'a str>) -> Vec<&'a str> {
    a.iter().collect()
}

fn uuids(a: Array<'_, Uuid>) -> Vec<Uuid> {
    a.iter().collect()
}

// ---------------------------------------------------------------------------------------------
// UnregisterControllerRequest (API 94, new in 4.4.0): valid 0, flexible 0+.
// controller_id int32.
// ---------------------------------------------------------------------------------------------

mod unregister_controller_request {
    use super::*;
    use kafka_wire::messages::unregister_controller_request::UnregisterControllerRequest;

    #[rustfmt::skip]
    const V0: &[u8] = &[
        0x00, 0x00, 0x0b, 0xb9,                         // controller_id: int32 3001
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v0() {
        let req = UnregisterControllerRequest {
            controller_id: 3001,
            ..UnregisterControllerRequest::DEFAULT
        };
        let view = check(&req, 0, V0);
        assert_eq!(view.controller_id, 3001);
        assert!(view.unknown_tagged_fields.is_empty());
        assert_eq!(UnregisterControllerRequest::INFO.api_key, Some(94));
    }
}

// ---------------------------------------------------------------------------------------------
// UnregisterControllerResponse (API 94, new in 4.4.0): valid 0, flexible 0+.
// throttle_time_ms int32, error_code int16, error_message nullable string.
// ---------------------------------------------------------------------------------------------

mod unregister_controller_response {
    use super::*;
    use kafka_wire::messages::unregister_controller_response::UnregisterControllerResponse;

    #[rustfmt::skip]
    const V0: &[u8] = &[
        0x00, 0x00, 0x00, 0xfa,                         // throttle_time_ms: int32 250
        0x00, 0x29,                                     // error_code: int16 41 (NOT_CONTROLLER)
        0x0f, b'n', b'o', b't', b' ', b'c', b'o', b'n',
              b't', b'r', b'o', b'l', b'l', b'e', b'r', // error_message: compact nullable string length+1 = 15 -> "not controller" (14)
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v0() {
        let resp = UnregisterControllerResponse {
            throttle_time_ms: 250,
            error_code: 41,
            error_message: Some("not controller"),
            ..UnregisterControllerResponse::DEFAULT
        };
        let view = check(&resp, 0, V0);
        assert_eq!(view.throttle_time_ms, 250);
        assert_eq!(view.error_code, 41);
        assert_eq!(view.error_message, Some("not controller"));
        assert_eq!(UnregisterControllerResponse::INFO.api_key, Some(94));
    }

    #[rustfmt::skip]
    const V0_NULL_MESSAGE: &[u8] = &[
        0x00, 0x00, 0x00, 0x03,                         // throttle_time_ms: int32 3
        0x00, 0x00,                                     // error_code: int16 0
        0x00,                                           // error_message: compact nullable string 0 -> null
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v0_null_message() {
        let resp = UnregisterControllerResponse {
            throttle_time_ms: 3,
            error_code: 0,
            error_message: None,
            ..UnregisterControllerResponse::DEFAULT
        };
        let view = check(&resp, 0, V0_NULL_MESSAGE);
        assert_eq!(view.throttle_time_ms, 3);
        assert_eq!(view.error_message, None);
    }
}

// ---------------------------------------------------------------------------------------------
// StreamsGroupTopologyDescriptionUpdateRequest (API 93, new in 4.4.0): valid 0, flexible 0+.
// group_id, member_id, topology_epoch int32, topology_description TopologyDescription
// {subtopologies[] {subtopology_id, nodes[] Node}, global_stores[] {source Node, processor Node}}
// where Node = {name, node_type int8, source_topics []string, sink_topic nullable string,
// stores []string, successors []string}. Every struct (nested ones too) ends with its own
// tagged-field section.
// ---------------------------------------------------------------------------------------------

mod streams_group_topology_description_update_request {
    use super::*;
    use kafka_wire::messages::streams_group_topology_description_update_request::{
        StreamsGroupTopologyDescriptionUpdateRequest, TopologyDescription, TopologyDescriptionGlobalStore,
        TopologyDescriptionNode, TopologyDescriptionSubtopology,
    };

    #[rustfmt::skip]
    const V0: &[u8] = &[
        0x06, b'a', b'p', b'p', b'-', b'1',             // group_id: compact string "app-1"
        0x04, b'm', b'-', b'7',                         // member_id: compact string "m-7"
        0x00, 0x00, 0x00, 0x0c,                         // topology_epoch: int32 12
                                                        // topology_description (struct, inline):
        0x02,                                           //   subtopologies: compact array length+1 = 2 -> 1
        0x02, b'0',                                     //     [0].subtopology_id: compact string "0"
        0x02,                                           //     [0].nodes: compact array length+1 = 2 -> 1
        0x07, b'n', b'o', b'd', b'e', b'-', b'a',       //       [0].name: compact string "node-a"
        0x02,                                           //       [0].node_type: int8 2 (PROCESSOR)
        0x03,                                           //       [0].source_topics: compact array length+1 = 3 -> 2
        0x05, b'i', b'n', b'-', b'a',                   //         [0]: compact string "in-a"
        0x05, b'i', b'n', b'-', b'b',                   //         [1]: compact string "in-b"
        0x04, b'o', b'u', b't',                         //       [0].sink_topic: compact nullable string "out"
        0x02,                                           //       [0].stores: compact array length+1 = 2 -> 1
        0x06, b's', b't', b'o', b'r', b'e',             //         [0]: compact string "store"
        0x02,                                           //       [0].successors: compact array length+1 = 2 -> 1
        0x07, b'n', b'o', b'd', b'e', b'-', b'b',       //         [0]: compact string "node-b"
        0x00,                                           //       node [0] tagged fields: count 0
        0x00,                                           //     subtopology [0] tagged fields: count 0
        0x02,                                           //   global_stores: compact array length+1 = 2 -> 1
                                                        //     [0].source (node):
        0x06, b'g', b'-', b's', b'r', b'c',             //       name: compact string "g-src"
        0x01,                                           //       node_type: int8 1 (SOURCE)
        0x02,                                           //       source_topics: compact array length+1 = 2 -> 1
        0x05, b'g', b'l', b'o', b'b',                   //         [0]: compact string "glob"
        0x00,                                           //       sink_topic: compact nullable string 0 -> null
        0x01,                                           //       stores: compact array length+1 = 1 -> empty
        0x02,                                           //       successors: compact array length+1 = 2 -> 1
        0x07, b'g', b'-', b'p', b'r', b'o', b'c',       //         [0]: compact string "g-proc"
        0x00,                                           //       source tagged fields: count 0
                                                        //     [0].processor (node):
        0x07, b'g', b'-', b'p', b'r', b'o', b'c',       //       name: compact string "g-proc"
        0x02,                                           //       node_type: int8 2 (PROCESSOR)
        0x01,                                           //       source_topics: compact array length+1 = 1 -> empty
        0x00,                                           //       sink_topic: compact nullable string 0 -> null
        0x02,                                           //       stores: compact array length+1 = 2 -> 1
        0x08, b'g', b'-', b's', b't', b'o', b'r', b'e', //         [0]: compact string "g-store"
        0x01,                                           //       successors: compact array length+1 = 1 -> empty
        0x00,                                           //       processor tagged fields: count 0
        0x00,                                           //     global store [0] tagged fields: count 0
        0x00,                                           //   topology_description tagged fields: count 0
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v0() {
        let source_topics = ["in-a", "in-b"];
        let stores = ["store"];
        let successors = ["node-b"];
        let nodes = [TopologyDescriptionNode {
            name: "node-a",
            node_type: 2,
            source_topics: Array::from_slice(&source_topics),
            sink_topic: Some("out"),
            stores: Array::from_slice(&stores),
            successors: Array::from_slice(&successors),
            unknown_tagged_fields: TaggedFields::EMPTY,
        }];
        let subtopologies = [TopologyDescriptionSubtopology {
            subtopology_id: "0",
            nodes: Array::from_slice(&nodes),
            ..TopologyDescriptionSubtopology::DEFAULT
        }];
        let glob = ["glob"];
        let g_proc = ["g-proc"];
        let g_store = ["g-store"];
        let global_stores = [TopologyDescriptionGlobalStore {
            source: TopologyDescriptionNode {
                name: "g-src",
                node_type: 1,
                source_topics: Array::from_slice(&glob),
                sink_topic: None,
                stores: Array::EMPTY,
                successors: Array::from_slice(&g_proc),
                unknown_tagged_fields: TaggedFields::EMPTY,
            },
            processor: TopologyDescriptionNode {
                name: "g-proc",
                node_type: 2,
                source_topics: Array::EMPTY,
                sink_topic: None,
                stores: Array::from_slice(&g_store),
                successors: Array::EMPTY,
                unknown_tagged_fields: TaggedFields::EMPTY,
            },
            unknown_tagged_fields: TaggedFields::EMPTY,
        }];
        let req = StreamsGroupTopologyDescriptionUpdateRequest {
            group_id: "app-1",
            member_id: "m-7",
            topology_epoch: 12,
            topology_description: TopologyDescription {
                subtopologies: Array::from_slice(&subtopologies),
                global_stores: Array::from_slice(&global_stores),
                unknown_tagged_fields: TaggedFields::EMPTY,
            },
            unknown_tagged_fields: TaggedFields::EMPTY,
        };
        let view = check(&req, 0, V0);
        assert_eq!(
            (view.group_id, view.member_id, view.topology_epoch),
            ("app-1", "m-7", 12)
        );
        let sub = view.topology_description.subtopologies.iter().next().unwrap();
        assert_eq!(sub.subtopology_id, "0");
        let node = sub.nodes.iter().next().unwrap();
        assert_eq!((node.name, node.node_type, node.sink_topic), ("node-a", 2, Some("out")));
        assert_eq!(strs(node.source_topics), ["in-a", "in-b"]);
        assert_eq!(strs(node.stores), ["store"]);
        assert_eq!(strs(node.successors), ["node-b"]);
        let gs = view.topology_description.global_stores.iter().next().unwrap();
        assert_eq!(
            (gs.source.name, gs.source.node_type, gs.source.sink_topic),
            ("g-src", 1, None)
        );
        assert_eq!(strs(gs.source.source_topics), ["glob"]);
        assert!(gs.source.stores.is_empty());
        assert_eq!((gs.processor.name, gs.processor.node_type), ("g-proc", 2));
        assert_eq!(strs(gs.processor.stores), ["g-store"]);
        assert!(gs.processor.successors.is_empty());
        assert_eq!(StreamsGroupTopologyDescriptionUpdateRequest::INFO.api_key, Some(93));
    }
}

// ---------------------------------------------------------------------------------------------
// StreamsGroupTopologyDescriptionUpdateResponse (API 93, new in 4.4.0): valid 0, flexible 0+.
// throttle_time_ms int32, error_code int16, error_message nullable string (default null).
// ---------------------------------------------------------------------------------------------

mod streams_group_topology_description_update_response {
    use super::*;
    use kafka_wire::messages::streams_group_topology_description_update_response::StreamsGroupTopologyDescriptionUpdateResponse;

    #[rustfmt::skip]
    const V0: &[u8] = &[
        0x00, 0x00, 0x00, 0x07,                         // throttle_time_ms: int32 7
        0x00, 0x19,                                     // error_code: int16 25 (UNKNOWN_MEMBER_ID)
        0x07, b'f', b'e', b'n', b'c', b'e', b'd',       // error_message: compact nullable string "fenced"
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v0() {
        let resp = StreamsGroupTopologyDescriptionUpdateResponse {
            throttle_time_ms: 7,
            error_code: 25,
            error_message: Some("fenced"),
            ..StreamsGroupTopologyDescriptionUpdateResponse::DEFAULT
        };
        let view = check(&resp, 0, V0);
        assert_eq!(
            (view.throttle_time_ms, view.error_code, view.error_message),
            (7, 25, Some("fenced"))
        );
    }
}

// ---------------------------------------------------------------------------------------------
// UnregisterControllerRecord (metadata record 29, new in 4.4.0): valid 0, flexible 0+.
// controller_id int32.
// ---------------------------------------------------------------------------------------------

mod unregister_controller_record {
    use super::*;
    use kafka_wire::metadata::unregister_controller_record::UnregisterControllerRecord;

    #[rustfmt::skip]
    const V0: &[u8] = &[
        0x00, 0x00, 0x0b, 0xba,                         // controller_id: int32 3002
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v0() {
        let rec = UnregisterControllerRecord {
            controller_id: 3002,
            ..UnregisterControllerRecord::DEFAULT
        };
        let view = check(&rec, 0, V0);
        assert_eq!(view.controller_id, 3002);
        assert_eq!(UnregisterControllerRecord::INFO.api_key, Some(29));
    }
}

// ---------------------------------------------------------------------------------------------
// RegisterBrokerRecord (metadata record 0): valid 0-4, flexible 0+; v4 adds CordonedLogDirs.
// broker_id, is_migrating_zk_broker (v2+; second on the wire), incarnation_id, broker_epoch,
// end_points[] {name, host, port uint16, security_protocol int16}, features[] {name,
// min_supported_version, max_supported_version}, rack (nullable), fenced (default true),
// in_controlled_shutdown (v1+); tagged: 0 log_dirs (v3+, written when non-empty),
// 1 cordoned_log_dirs (v4+, nullable, default null, written when non-null).
// ---------------------------------------------------------------------------------------------

mod register_broker_record {
    use super::*;
    use kafka_wire::metadata::register_broker_record::{BrokerEndpoint, BrokerFeature, RegisterBrokerRecord};

    const END_POINTS: [BrokerEndpoint<'static>; 1] = [BrokerEndpoint {
        name: "EXT",
        host: "b2.local",
        port: 9092,
        security_protocol: 2,
        unknown_tagged_fields: TaggedFields::EMPTY,
    }];
    const FEATURES: [BrokerFeature<'static>; 1] = [BrokerFeature {
        name: "metadata.version",
        min_supported_version: 1,
        max_supported_version: 28,
        unknown_tagged_fields: TaggedFields::EMPTY,
    }];

    fn base<'a>() -> RegisterBrokerRecord<'a> {
        RegisterBrokerRecord {
            broker_id: 1002,
            is_migrating_zk_broker: true,
            incarnation_id: ua(),
            broker_epoch: 4_294_967_301,
            end_points: Array::from_slice(&END_POINTS),
            features: Array::from_slice(&FEATURES),
            rack: Some("rack-2"),
            fenced: false,
            in_controlled_shutdown: true,
            ..RegisterBrokerRecord::DEFAULT
        }
    }

    fn spot_check(view: &RegisterBrokerRecord<'_>) {
        assert_eq!(view.broker_id, 1002);
        assert!(view.is_migrating_zk_broker);
        assert_eq!(view.incarnation_id, ua());
        assert_eq!(view.broker_epoch, 4_294_967_301);
        let e = view.end_points.iter().next().unwrap();
        assert_eq!(
            (e.name, e.host, e.port, e.security_protocol),
            ("EXT", "b2.local", 9092, 2)
        );
        let f = view.features.iter().next().unwrap();
        assert_eq!(
            (f.name, f.min_supported_version, f.max_supported_version),
            ("metadata.version", 1, 28)
        );
        assert_eq!(view.rack, Some("rack-2"));
        assert!(!view.fenced);
        assert!(view.in_controlled_shutdown);
    }

    #[rustfmt::skip]
    const V4: &[u8] = &[
        0x00, 0x00, 0x03, 0xea,                         // broker_id: int32 1002
        0x01,                                           // is_migrating_zk_broker: bool true
        0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
        0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, // incarnation_id: uuid U_A
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x05, // broker_epoch: int64 4294967301 (0x1_0000_0005)
        0x02,                                           // end_points: compact array length+1 = 2 -> 1
        0x04, b'E', b'X', b'T',                         //   [0].name: compact string "EXT"
        0x09, b'b', b'2', b'.', b'l', b'o', b'c', b'a', b'l', //   [0].host: compact string "b2.local"
        0x23, 0x84,                                     //   [0].port: uint16 9092
        0x00, 0x02,                                     //   [0].security_protocol: int16 2 (SASL_PLAINTEXT)
        0x00,                                           //   [0] tagged fields: count 0
        0x02,                                           // features: compact array length+1 = 2 -> 1
        0x11, b'm', b'e', b't', b'a', b'd', b'a', b't', b'a', b'.',
              b'v', b'e', b'r', b's', b'i', b'o', b'n', //   [0].name: compact string "metadata.version" (16)
        0x00, 0x01,                                     //   [0].min_supported_version: int16 1
        0x00, 0x1c,                                     //   [0].max_supported_version: int16 28
        0x00,                                           //   [0] tagged fields: count 0
        0x07, b'r', b'a', b'c', b'k', b'-', b'2',       // rack: compact nullable string "rack-2"
        0x00,                                           // fenced: bool false (default is true)
        0x01,                                           // in_controlled_shutdown: bool true
        0x02,                                           // tagged fields: count 2
        0x00,                                           //   tag 0 (log_dirs)
        0x21,                                           //   size 33
        0x03,                                           //   log_dirs: compact array length+1 = 3 -> 2
        0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33,
        0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, //     log_dirs[0]: uuid D3
        0x44, 0x44, 0x44, 0x44, 0x44, 0x44, 0x44, 0x44,
        0x44, 0x44, 0x44, 0x44, 0x44, 0x44, 0x44, 0x44, //     log_dirs[1]: uuid D4
        0x01,                                           //   tag 1 (cordoned_log_dirs)
        0x11,                                           //   size 17
        0x02,                                           //   cordoned_log_dirs: compact array length+1 = 2 -> 1
        0x44, 0x44, 0x44, 0x44, 0x44, 0x44, 0x44, 0x44,
        0x44, 0x44, 0x44, 0x44, 0x44, 0x44, 0x44, 0x44, //     cordoned_log_dirs[0]: uuid D4
    ];

    #[test]
    fn v4() {
        let dirs = [dir(3), dir(4)];
        let cordoned = [dir(4)];
        let rec = RegisterBrokerRecord {
            log_dirs: Array::from_slice(&dirs),
            cordoned_log_dirs: Some(Array::from_slice(&cordoned)),
            ..base()
        };
        let view = check(&rec, 4, V4);
        spot_check(&view);
        assert_eq!(uuids(view.log_dirs), [dir(3), dir(4)]);
        assert_eq!(uuids(view.cordoned_log_dirs.unwrap()), [dir(4)]);
        assert!(view.unknown_tagged_fields.is_empty());
    }

    #[rustfmt::skip]
    const V4_EMPTY_CORDONED: &[u8] = &[
        0x00, 0x00, 0x03, 0xea,                         // broker_id: int32 1002
        0x01,                                           // is_migrating_zk_broker: bool true
        0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
        0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, // incarnation_id: uuid U_A
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x05, // broker_epoch: int64 4294967301
        0x02,                                           // end_points: compact array length+1 = 2 -> 1
        0x04, b'E', b'X', b'T',                         //   [0].name: compact string "EXT"
        0x09, b'b', b'2', b'.', b'l', b'o', b'c', b'a', b'l', //   [0].host: compact string "b2.local"
        0x23, 0x84,                                     //   [0].port: uint16 9092
        0x00, 0x02,                                     //   [0].security_protocol: int16 2
        0x00,                                           //   [0] tagged fields: count 0
        0x02,                                           // features: compact array length+1 = 2 -> 1
        0x11, b'm', b'e', b't', b'a', b'd', b'a', b't', b'a', b'.',
              b'v', b'e', b'r', b's', b'i', b'o', b'n', //   [0].name: compact string "metadata.version"
        0x00, 0x01,                                     //   [0].min_supported_version: int16 1
        0x00, 0x1c,                                     //   [0].max_supported_version: int16 28
        0x00,                                           //   [0] tagged fields: count 0
        0x07, b'r', b'a', b'c', b'k', b'-', b'2',       // rack: compact nullable string "rack-2"
        0x00,                                           // fenced: bool false
        0x01,                                           // in_controlled_shutdown: bool true
        0x01,                                           // tagged fields: count 1 (log_dirs empty: not written)
        0x01,                                           //   tag 1 (cordoned_log_dirs)
        0x01,                                           //   size 1
        0x01,                                           //   cordoned_log_dirs: compact array length+1 = 1 -> empty (not null)
    ];

    #[test]
    fn v4_empty_cordoned() {
        let rec = RegisterBrokerRecord {
            log_dirs: Array::EMPTY,
            cordoned_log_dirs: Some(Array::EMPTY),
            ..base()
        };
        let view = check(&rec, 4, V4_EMPTY_CORDONED);
        spot_check(&view);
        assert!(view.log_dirs.is_empty());
        assert_eq!(view.cordoned_log_dirs.map(|a| a.len()), Some(0), "empty is not null");
    }
}

// ---------------------------------------------------------------------------------------------
// BrokerRegistrationChangeRecord (metadata record 17): valid 0-3, flexible 0+; v3 adds
// CordonedLogDirs. broker_id, broker_epoch; tagged: 0 fenced int8, 1 in_controlled_shutdown
// int8 (v1+), 2 log_dirs (v2+), 3 cordoned_log_dirs (v3+, nullable, default null).
// ---------------------------------------------------------------------------------------------

mod broker_registration_change_record {
    use super::*;
    use kafka_wire::metadata::broker_registration_change_record::BrokerRegistrationChangeRecord;

    #[rustfmt::skip]
    const V3: &[u8] = &[
        0x00, 0x00, 0x03, 0xeb,                         // broker_id: int32 1003
        0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x07, // broker_epoch: int64 8589934599 (0x2_0000_0007)
        0x04,                                           // tagged fields: count 4 (tags 0-3)
        0x00,                                           //   tag 0 (fenced)
        0x01,                                           //   size 1
        0xff,                                           //   fenced: int8 -1 (unfenced)
        0x01,                                           //   tag 1 (in_controlled_shutdown)
        0x01,                                           //   size 1
        0x01,                                           //   in_controlled_shutdown: int8 1
        0x02,                                           //   tag 2 (log_dirs)
        0x21,                                           //   size 33
        0x03,                                           //   log_dirs: compact array length+1 = 3 -> 2
        0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55,
        0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, //     log_dirs[0]: uuid D5
        0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
        0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, //     log_dirs[1]: uuid D6
        0x03,                                           //   tag 3 (cordoned_log_dirs)
        0x11,                                           //   size 17
        0x02,                                           //   cordoned_log_dirs: compact array length+1 = 2 -> 1
        0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
        0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, //     cordoned_log_dirs[0]: uuid D6
    ];

    #[test]
    fn v3() {
        let dirs = [dir(5), dir(6)];
        let cordoned = [dir(6)];
        let rec = BrokerRegistrationChangeRecord {
            broker_id: 1003,
            broker_epoch: 8_589_934_599,
            fenced: -1,
            in_controlled_shutdown: 1,
            log_dirs: Array::from_slice(&dirs),
            cordoned_log_dirs: Some(Array::from_slice(&cordoned)),
            unknown_tagged_fields: TaggedFields::EMPTY,
        };
        let view = check(&rec, 3, V3);
        assert_eq!((view.broker_id, view.broker_epoch), (1003, 8_589_934_599));
        assert_eq!((view.fenced, view.in_controlled_shutdown), (-1, 1));
        assert_eq!(uuids(view.log_dirs), [dir(5), dir(6)]);
        assert_eq!(uuids(view.cordoned_log_dirs.unwrap()), [dir(6)]);
        assert!(view.unknown_tagged_fields.is_empty());
    }

    #[rustfmt::skip]
    const V3_CORDONED_ONLY: &[u8] = &[
        0x00, 0x00, 0x03, 0xeb,                         // broker_id: int32 1003
        0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x08, // broker_epoch: int64 8589934600 (0x2_0000_0008)
        0x01,                                           // tagged fields: count 1 (tags 0-2 at their defaults)
        0x03,                                           //   tag 3 (cordoned_log_dirs)
        0x01,                                           //   size 1
        0x01,                                           //   cordoned_log_dirs: compact array length+1 = 1 -> empty (no dir cordoned any more)
    ];

    #[test]
    fn v3_cordoned_only() {
        let rec = BrokerRegistrationChangeRecord {
            broker_id: 1003,
            broker_epoch: 8_589_934_600,
            cordoned_log_dirs: Some(Array::EMPTY),
            ..BrokerRegistrationChangeRecord::DEFAULT
        };
        let view = check(&rec, 3, V3_CORDONED_ONLY);
        assert_eq!((view.fenced, view.in_controlled_shutdown), (0, 0));
        assert!(view.log_dirs.is_empty());
        assert_eq!(view.cordoned_log_dirs.map(|a| a.len()), Some(0), "empty is not null");
    }
}

// ---------------------------------------------------------------------------------------------
// ApiVersionsRequest (API 18): valid 0-5, flexible 3+; v5 adds ClusterId (nullable, default
// null) and NodeId (int32, default -1) after client_software_name / client_software_version.
// ---------------------------------------------------------------------------------------------

mod api_versions_request {
    use super::*;
    use kafka_wire::messages::api_versions_request::ApiVersionsRequest;

    #[rustfmt::skip]
    const V5: &[u8] = &[
        0x0b, b'k', b'a', b'f', b'k', b'a', b'-', b'w', b'i', b'r', b'e', // client_software_name: compact string "kafka-wire" (10)
        0x06, b'0', b'.', b'9', b'.', b'1',             // client_software_version: compact string "0.9.1"
        0x0a, b'c', b'l', b'u', b's', b't', b'e', b'r', b'-', b'b', // cluster_id: compact nullable string "cluster-b" (9)
        0x00, 0x00, 0x00, 0x05,                         // node_id: int32 5
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v5() {
        let req = ApiVersionsRequest {
            client_software_name: "kafka-wire",
            client_software_version: "0.9.1",
            cluster_id: Some("cluster-b"),
            node_id: 5,
            unknown_tagged_fields: TaggedFields::EMPTY,
        };
        let view = check(&req, 5, V5);
        assert_eq!(
            (view.client_software_name, view.client_software_version),
            ("kafka-wire", "0.9.1")
        );
        assert_eq!(view.cluster_id, Some("cluster-b"));
        assert_eq!(view.node_id, 5);
    }

    #[rustfmt::skip]
    const V5_UNKNOWN_TARGET: &[u8] = &[
        0x03, b'k', b'w',                               // client_software_name: compact string "kw"
        0x04, b'1', b'.', b'0',                         // client_software_version: compact string "1.0"
        0x00,                                           // cluster_id: compact nullable string 0 -> null
        0xff, 0xff, 0xff, 0xff,                         // node_id: int32 -1
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v5_unknown_target() {
        let req = ApiVersionsRequest {
            client_software_name: "kw",
            client_software_version: "1.0",
            ..ApiVersionsRequest::DEFAULT
        };
        assert_eq!((req.cluster_id, req.node_id), (None, -1), "schema defaults");
        let view = check(&req, 5, V5_UNKNOWN_TARGET);
        assert_eq!(view.cluster_id, None);
        assert_eq!(view.node_id, -1);
    }
}

// ---------------------------------------------------------------------------------------------
// TxnOffsetCommitRequest (API 28): valid 0-6, flexible 3+; v6 identifies topics by TopicId
// (uuid) instead of Name. transactional_id, group_id, producer_id int64, producer_epoch int16,
// generation_id_or_member_epoch int32 (v3+), member_id (v3+), group_instance_id (v3+,
// nullable), topics[] {name (v0-5) | topic_id (v6+), partitions[] {partition_index,
// committed_offset int64, committed_leader_epoch int32 (v2+), committed_metadata (nullable)}}.
// ---------------------------------------------------------------------------------------------

mod txn_offset_commit_request {
    use super::*;
    use kafka_wire::messages::txn_offset_commit_request::{
        TxnOffsetCommitRequest, TxnOffsetCommitRequestPartition, TxnOffsetCommitRequestTopic,
    };

    #[rustfmt::skip]
    const V6: &[u8] = &[
        0x06, b't', b'x', b'n', b'-', b'1',             // transactional_id: compact string "txn-1"
        0x06, b'g', b'r', b'p', b'-', b'1',             // group_id: compact string "grp-1"
        0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xe2, 0x40, // producer_id: int64 123456
        0x00, 0x03,                                     // producer_epoch: int16 3
        0x00, 0x00, 0x00, 0x11,                         // generation_id_or_member_epoch: int32 17
        0x09, b'm', b'e', b'm', b'b', b'e', b'r', b'-', b'x', // member_id: compact string "member-x"
        0x07, b'i', b'n', b's', b't', b'-', b'1',       // group_instance_id: compact nullable string "inst-1"
        0x03,                                           // topics: compact array length+1 = 3 -> 2
        0xa1, 0xa2, 0xa3, 0xa4, 0xb1, 0xb2, 0xc1, 0xc2,
        0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, //   [0].topic_id: uuid U_B (no name at v6)
        0x03,                                           //   [0].partitions: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //     [0].partition_index: int32 1
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x64, //     [0].committed_offset: int64 100
        0x00, 0x00, 0x00, 0x05,                         //     [0].committed_leader_epoch: int32 5
        0x05, b'm', b'e', b't', b'a',                   //     [0].committed_metadata: compact nullable string "meta"
        0x00,                                           //     [0] tagged fields: count 0
        0x00, 0x00, 0x00, 0x04,                         //     [1].partition_index: int32 4
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, //     [1].committed_offset: int64 4294967296
        0xff, 0xff, 0xff, 0xff,                         //     [1].committed_leader_epoch: int32 -1
        0x00,                                           //     [1].committed_metadata: compact nullable string 0 -> null
        0x00,                                           //     [1] tagged fields: count 0
        0x00,                                           //   [0] tagged fields: count 0
        0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
        0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, //   [1].topic_id: uuid U_C
        0x02,                                           //   [1].partitions: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x02,                         //     [0].partition_index: int32 2
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x4d, //     [0].committed_offset: int64 77
        0x00, 0x00, 0x00, 0x09,                         //     [0].committed_leader_epoch: int32 9
        0x01,                                           //     [0].committed_metadata: compact nullable string length+1 = 1 -> "" (not null)
        0x00,                                           //     [0] tagged fields: count 0
        0x00,                                           //   [1] tagged fields: count 0
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v6() {
        let p0 = [
            TxnOffsetCommitRequestPartition {
                partition_index: 1,
                committed_offset: 100,
                committed_leader_epoch: 5,
                committed_metadata: Some("meta"),
                unknown_tagged_fields: TaggedFields::EMPTY,
            },
            TxnOffsetCommitRequestPartition {
                partition_index: 4,
                committed_offset: 4_294_967_296,
                committed_leader_epoch: -1,
                committed_metadata: None,
                unknown_tagged_fields: TaggedFields::EMPTY,
            },
        ];
        let p1 = [TxnOffsetCommitRequestPartition {
            partition_index: 2,
            committed_offset: 77,
            committed_leader_epoch: 9,
            committed_metadata: Some(""),
            unknown_tagged_fields: TaggedFields::EMPTY,
        }];
        let topics = [
            TxnOffsetCommitRequestTopic {
                topic_id: ub(),
                partitions: Array::from_slice(&p0),
                ..TxnOffsetCommitRequestTopic::DEFAULT
            },
            TxnOffsetCommitRequestTopic {
                topic_id: uc(),
                partitions: Array::from_slice(&p1),
                ..TxnOffsetCommitRequestTopic::DEFAULT
            },
        ];
        let req = TxnOffsetCommitRequest {
            transactional_id: "txn-1",
            group_id: "grp-1",
            producer_id: 123_456,
            producer_epoch: 3,
            generation_id_or_member_epoch: 17,
            member_id: "member-x",
            group_instance_id: Some("inst-1"),
            topics: Array::from_slice(&topics),
            unknown_tagged_fields: TaggedFields::EMPTY,
        };
        let view = check(&req, 6, V6);
        assert_eq!((view.transactional_id, view.group_id), ("txn-1", "grp-1"));
        assert_eq!((view.producer_id, view.producer_epoch), (123_456, 3));
        assert_eq!(view.generation_id_or_member_epoch, 17);
        assert_eq!((view.member_id, view.group_instance_id), ("member-x", Some("inst-1")));
        let ids: Vec<Uuid> = view.topics.iter().map(|t| t.topic_id).collect();
        assert_eq!(ids, [ub(), uc()]);
        assert!(view.topics.iter().all(|t| t.name.is_empty()), "no topic name at v6");
        let parts: Vec<(i32, i64, i32, Option<&str>)> = view
            .topics
            .iter()
            .flat_map(|t| t.partitions.iter())
            .map(|p| {
                (
                    p.partition_index,
                    p.committed_offset,
                    p.committed_leader_epoch,
                    p.committed_metadata,
                )
            })
            .collect();
        assert_eq!(
            parts,
            [
                (1, 100, 5, Some("meta")),
                (4, 4_294_967_296, -1, None),
                (2, 77, 9, Some(""))
            ]
        );
    }
}

// ---------------------------------------------------------------------------------------------
// TxnOffsetCommitResponse (API 28): valid 0-6, flexible 3+; v6 identifies topics by TopicId.
// throttle_time_ms, topics[] {name (v0-5) | topic_id (v6+), partitions[] {partition_index,
// error_code}}.
// ---------------------------------------------------------------------------------------------

mod txn_offset_commit_response {
    use super::*;
    use kafka_wire::messages::txn_offset_commit_response::{
        TxnOffsetCommitResponse, TxnOffsetCommitResponsePartition, TxnOffsetCommitResponseTopic,
    };

    #[rustfmt::skip]
    const V6: &[u8] = &[
        0x00, 0x00, 0x00, 0x0f,                         // throttle_time_ms: int32 15
        0x03,                                           // topics: compact array length+1 = 3 -> 2
        0xa1, 0xa2, 0xa3, 0xa4, 0xb1, 0xb2, 0xc1, 0xc2,
        0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, //   [0].topic_id: uuid U_B
        0x03,                                           //   [0].partitions: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //     [0].partition_index: int32 1
        0x00, 0x00,                                     //     [0].error_code: int16 0
        0x00,                                           //     [0] tagged fields: count 0
        0x00, 0x00, 0x00, 0x04,                         //     [1].partition_index: int32 4
        0x00, 0x71,                                     //     [1].error_code: int16 113 (STALE_MEMBER_EPOCH)
        0x00,                                           //     [1] tagged fields: count 0
        0x00,                                           //   [0] tagged fields: count 0
        0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
        0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, //   [1].topic_id: uuid U_C
        0x02,                                           //   [1].partitions: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x02,                         //     [0].partition_index: int32 2
        0x00, 0x64,                                     //     [0].error_code: int16 100 (UNKNOWN_TOPIC_ID)
        0x00,                                           //     [0] tagged fields: count 0
        0x00,                                           //   [1] tagged fields: count 0
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v6() {
        let p0 = [
            TxnOffsetCommitResponsePartition {
                partition_index: 1,
                error_code: 0,
                ..TxnOffsetCommitResponsePartition::DEFAULT
            },
            TxnOffsetCommitResponsePartition {
                partition_index: 4,
                error_code: 113,
                ..TxnOffsetCommitResponsePartition::DEFAULT
            },
        ];
        let p1 = [TxnOffsetCommitResponsePartition {
            partition_index: 2,
            error_code: 100,
            ..TxnOffsetCommitResponsePartition::DEFAULT
        }];
        let topics = [
            TxnOffsetCommitResponseTopic {
                topic_id: ub(),
                partitions: Array::from_slice(&p0),
                ..TxnOffsetCommitResponseTopic::DEFAULT
            },
            TxnOffsetCommitResponseTopic {
                topic_id: uc(),
                partitions: Array::from_slice(&p1),
                ..TxnOffsetCommitResponseTopic::DEFAULT
            },
        ];
        let resp = TxnOffsetCommitResponse {
            throttle_time_ms: 15,
            topics: Array::from_slice(&topics),
            unknown_tagged_fields: TaggedFields::EMPTY,
        };
        let view = check(&resp, 6, V6);
        assert_eq!(view.throttle_time_ms, 15);
        let got: Vec<(Uuid, i32, i16)> = view
            .topics
            .iter()
            .flat_map(|t| {
                t.partitions
                    .iter()
                    .map(move |p| (t.topic_id, p.partition_index, p.error_code))
            })
            .collect();
        assert_eq!(got, [(ub(), 1, 0), (ub(), 4, 113), (uc(), 2, 100)]);
        assert!(view.topics.iter().all(|t| t.name.is_empty()), "no topic name at v6");
    }
}

// ---------------------------------------------------------------------------------------------
// WriteTxnMarkersRequest (API 27): valid 1-2, flexible 1+; v2 adds TransactionVersion (int8,
// default 0) at the end of each marker. markers[] {producer_id int64, producer_epoch int16,
// transaction_result bool, topics[] {name, partition_indexes []int32}, coordinator_epoch int32,
// transaction_version int8 (v2+)}.
// ---------------------------------------------------------------------------------------------

mod write_txn_markers_request {
    use super::*;
    use kafka_wire::messages::write_txn_markers_request::{
        WritableTxnMarker, WritableTxnMarkerTopic, WriteTxnMarkersRequest,
    };

    #[rustfmt::skip]
    const V2: &[u8] = &[
        0x03,                                           // markers: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xe2, 0x40, //   [0].producer_id: int64 123456
        0x00, 0x03,                                     //   [0].producer_epoch: int16 3
        0x01,                                           //   [0].transaction_result: bool true (COMMIT)
        0x02,                                           //   [0].topics: compact array length+1 = 2 -> 1
        0x07, b'o', b'r', b'd', b'e', b'r', b's',       //     [0].name: compact string "orders"
        0x03,                                           //     [0].partition_indexes: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x00,                         //       [0]: int32 0
        0x00, 0x00, 0x00, 0x05,                         //       [1]: int32 5
        0x00,                                           //     [0] tagged fields: count 0
        0x00, 0x00, 0x00, 0x0b,                         //   [0].coordinator_epoch: int32 11
        0x02,                                           //   [0].transaction_version: int8 2 (TV2)
        0x00,                                           //   [0] tagged fields: count 0
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, //   [1].producer_id: int64 7
        0x00, 0x01,                                     //   [1].producer_epoch: int16 1
        0x00,                                           //   [1].transaction_result: bool false (ABORT)
        0x01,                                           //   [1].topics: compact array length+1 = 1 -> empty
        0x00, 0x00, 0x00, 0x0c,                         //   [1].coordinator_epoch: int32 12
        0x01,                                           //   [1].transaction_version: int8 1 (TV1)
        0x00,                                           //   [1] tagged fields: count 0
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v2() {
        let parts = [0, 5];
        let topics = [WritableTxnMarkerTopic {
            name: "orders",
            partition_indexes: Array::from_slice(&parts),
            ..WritableTxnMarkerTopic::DEFAULT
        }];
        let markers = [
            WritableTxnMarker {
                producer_id: 123_456,
                producer_epoch: 3,
                transaction_result: true,
                topics: Array::from_slice(&topics),
                coordinator_epoch: 11,
                transaction_version: 2,
                unknown_tagged_fields: TaggedFields::EMPTY,
            },
            WritableTxnMarker {
                producer_id: 7,
                producer_epoch: 1,
                transaction_result: false,
                topics: Array::EMPTY,
                coordinator_epoch: 12,
                transaction_version: 1,
                unknown_tagged_fields: TaggedFields::EMPTY,
            },
        ];
        let req = WriteTxnMarkersRequest {
            markers: Array::from_slice(&markers),
            unknown_tagged_fields: TaggedFields::EMPTY,
        };
        let view = check(&req, 2, V2);
        let got: Vec<(i64, i16, bool, i32, i8)> = view
            .markers
            .iter()
            .map(|m| {
                (
                    m.producer_id,
                    m.producer_epoch,
                    m.transaction_result,
                    m.coordinator_epoch,
                    m.transaction_version,
                )
            })
            .collect();
        assert_eq!(got, [(123_456, 3, true, 11, 2), (7, 1, false, 12, 1)]);
        let t = view.markers.iter().next().unwrap().topics.iter().next().unwrap();
        assert_eq!((t.name, ints(t.partition_indexes)), ("orders", vec![0, 5]));
    }

    #[rustfmt::skip]
    const V1: &[u8] = &[
        0x02,                                           // markers: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xe2, 0x40, //   [0].producer_id: int64 123456
        0x00, 0x03,                                     //   [0].producer_epoch: int16 3
        0x01,                                           //   [0].transaction_result: bool true
        0x02,                                           //   [0].topics: compact array length+1 = 2 -> 1
        0x07, b'o', b'r', b'd', b'e', b'r', b's',       //     [0].name: compact string "orders"
        0x02,                                           //     [0].partition_indexes: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x05,                         //       [0]: int32 5
        0x00,                                           //     [0] tagged fields: count 0
        0x00, 0x00, 0x00, 0x0b,                         //   [0].coordinator_epoch: int32 11
                                                        //   (no transaction_version before v2)
        0x00,                                           //   [0] tagged fields: count 0
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v1() {
        let parts = [5];
        let topics = [WritableTxnMarkerTopic {
            name: "orders",
            partition_indexes: Array::from_slice(&parts),
            ..WritableTxnMarkerTopic::DEFAULT
        }];
        let markers = [WritableTxnMarker {
            producer_id: 123_456,
            producer_epoch: 3,
            transaction_result: true,
            topics: Array::from_slice(&topics),
            coordinator_epoch: 11,
            ..WritableTxnMarker::DEFAULT
        }];
        let req = WriteTxnMarkersRequest {
            markers: Array::from_slice(&markers),
            unknown_tagged_fields: TaggedFields::EMPTY,
        };
        let view = check(&req, 1, V1);
        let m = view.markers.iter().next().unwrap();
        assert_eq!(m.transaction_version, 0, "absent before v2: the default");
        assert_eq!(m.coordinator_epoch, 11);
    }
}

// ---------------------------------------------------------------------------------------------
// StreamsGroupHeartbeatResponse (API 88): valid 0-1, flexible 0+. v1 drops the int32
// AcceptableRecoveryLagLegacy (v0 only, before task_offset_interval_ms) and adds the int64
// AcceptableRecoveryLag (v1+, default -1, after task_offset_interval_ms) and
// TopologyDescriptionRequired (bool, v1+, between warmup_tasks and endpoint_information_epoch).
// Order: throttle_time_ms, error_code, error_message (nullable), member_id, member_epoch,
// heartbeat_interval_ms, [acceptable_recovery_lag_legacy], task_offset_interval_ms,
// [acceptable_recovery_lag], status[] (nullable) {status_code int8, status_detail},
// active_tasks / standby_tasks / warmup_tasks[] (nullable) {subtopology_id, partitions []int32},
// [topology_description_required], endpoint_information_epoch, partitions_by_user_endpoint[]
// (nullable) {user_endpoint {host, port uint16}, active_partitions[] / standby_partitions[]
// {topic, partitions []int32}}.
// ---------------------------------------------------------------------------------------------

mod streams_group_heartbeat_response {
    use super::*;
    use kafka_wire::messages::streams_group_heartbeat_response::{
        Endpoint, EndpointToPartitions, Status, StreamsGroupHeartbeatResponse, TaskIds, TopicPartition,
    };

    #[rustfmt::skip]
    const V1: &[u8] = &[
        0x00, 0x00, 0x00, 0x01,                         // throttle_time_ms: int32 1
        0x00, 0x00,                                     // error_code: int16 0
        0x00,                                           // error_message: compact nullable string 0 -> null
        0x06, b'm', b'e', b'm', b'-', b'1',             // member_id: compact string "mem-1"
        0x00, 0x00, 0x00, 0x08,                         // member_epoch: int32 8
        0x00, 0x00, 0x13, 0x88,                         // heartbeat_interval_ms: int32 5000
                                                        // (no acceptable_recovery_lag_legacy at v1)
        0x00, 0x00, 0xea, 0x60,                         // task_offset_interval_ms: int32 60000
        0x00, 0x00, 0x00, 0x02, 0x54, 0x0b, 0xe4, 0x00, // acceptable_recovery_lag: int64 10000000000 (0x2_540b_e400)
        0x02,                                           // status: compact nullable array length+1 = 2 -> 1
        0x06,                                           //   [0].status_code: int8 6 (MISSING_CLIENT_TAGS)
        0x05, b'r', b'a', b'c', b'k',                   //   [0].status_detail: compact string "rack"
        0x00,                                           //   [0] tagged fields: count 0
        0x02,                                           // active_tasks: compact nullable array length+1 = 2 -> 1
        0x02, b'0',                                     //   [0].subtopology_id: compact string "0"
        0x03,                                           //   [0].partitions: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x00,                         //     [0]: int32 0
        0x00, 0x00, 0x00, 0x01,                         //     [1]: int32 1
        0x00,                                           //   [0] tagged fields: count 0
        0x00,                                           // standby_tasks: compact nullable array 0 -> null
        0x01,                                           // warmup_tasks: compact nullable array length+1 = 1 -> empty
        0x01,                                           // topology_description_required: bool true
        0x00, 0x00, 0x00, 0x03,                         // endpoint_information_epoch: int32 3
        0x02,                                           // partitions_by_user_endpoint: compact nullable array length+1 = 2 -> 1
        0x03, b'h', b'1',                               //   [0].user_endpoint.host: compact string "h1"
        0x1f, 0x90,                                     //   [0].user_endpoint.port: uint16 8080
        0x00,                                           //   [0].user_endpoint tagged fields: count 0
        0x02,                                           //   [0].active_partitions: compact array length+1 = 2 -> 1
        0x05, b'i', b'n', b'-', b'a',                   //     [0].topic: compact string "in-a"
        0x02,                                           //     [0].partitions: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x00,                         //       [0]: int32 0
        0x00,                                           //     [0] tagged fields: count 0
        0x01,                                           //   [0].standby_partitions: compact array length+1 = 1 -> empty
        0x00,                                           //   [0] tagged fields: count 0
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v1() {
        let status = [Status {
            status_code: 6,
            status_detail: "rack",
            unknown_tagged_fields: TaggedFields::EMPTY,
        }];
        let active_parts = [0, 1];
        let active = [TaskIds {
            subtopology_id: "0",
            partitions: Array::from_slice(&active_parts),
            unknown_tagged_fields: TaggedFields::EMPTY,
        }];
        let tp_parts = [0];
        let tps = [TopicPartition {
            topic: "in-a",
            partitions: Array::from_slice(&tp_parts),
            unknown_tagged_fields: TaggedFields::EMPTY,
        }];
        let endpoints = [EndpointToPartitions {
            user_endpoint: Endpoint {
                host: "h1",
                port: 8080,
                unknown_tagged_fields: TaggedFields::EMPTY,
            },
            active_partitions: Array::from_slice(&tps),
            standby_partitions: Array::EMPTY,
            unknown_tagged_fields: TaggedFields::EMPTY,
        }];
        let resp = StreamsGroupHeartbeatResponse {
            throttle_time_ms: 1,
            error_code: 0,
            error_message: None,
            member_id: "mem-1",
            member_epoch: 8,
            heartbeat_interval_ms: 5000,
            acceptable_recovery_lag_legacy: 0,
            task_offset_interval_ms: 60_000,
            acceptable_recovery_lag: 10_000_000_000,
            status: Some(Array::from_slice(&status)),
            active_tasks: Some(Array::from_slice(&active)),
            standby_tasks: None,
            warmup_tasks: Some(Array::EMPTY),
            topology_description_required: true,
            endpoint_information_epoch: 3,
            partitions_by_user_endpoint: Some(Array::from_slice(&endpoints)),
            unknown_tagged_fields: TaggedFields::EMPTY,
        };
        let view = check(&resp, 1, V1);
        assert_eq!(view.acceptable_recovery_lag, 10_000_000_000);
        assert_eq!(view.acceptable_recovery_lag_legacy, 0, "absent at v1: the default");
        assert!(view.topology_description_required);
        assert_eq!(
            (view.member_id, view.member_epoch, view.heartbeat_interval_ms),
            ("mem-1", 8, 5000)
        );
        assert_eq!(view.task_offset_interval_ms, 60_000);
        let s = view.status.unwrap().iter().next().unwrap();
        assert_eq!((s.status_code, s.status_detail), (6, "rack"));
        let a = view.active_tasks.unwrap().iter().next().unwrap();
        assert_eq!((a.subtopology_id, ints(a.partitions)), ("0", vec![0, 1]));
        assert!(view.standby_tasks.is_none());
        assert_eq!(view.warmup_tasks.map(|w| w.len()), Some(0));
        assert_eq!(view.endpoint_information_epoch, 3);
        let e = view.partitions_by_user_endpoint.unwrap().iter().next().unwrap();
        assert_eq!((e.user_endpoint.host, e.user_endpoint.port), ("h1", 8080));
        assert_eq!(e.active_partitions.iter().next().unwrap().topic, "in-a");
        assert!(e.standby_partitions.is_empty());
    }

    #[rustfmt::skip]
    const V0: &[u8] = &[
        0x00, 0x00, 0x00, 0x02,                         // throttle_time_ms: int32 2
        0x00, 0x19,                                     // error_code: int16 25 (UNKNOWN_MEMBER_ID)
        0x06, b's', b't', b'a', b'l', b'e',             // error_message: compact nullable string "stale"
        0x06, b'm', b'e', b'm', b'-', b'0',             // member_id: compact string "mem-0"
        0x00, 0x00, 0x00, 0x04,                         // member_epoch: int32 4
        0x00, 0x00, 0x0b, 0xb8,                         // heartbeat_interval_ms: int32 3000
        0x00, 0x00, 0x27, 0x10,                         // acceptable_recovery_lag_legacy: int32 10000 (v0 only)
        0x00, 0x00, 0x75, 0x30,                         // task_offset_interval_ms: int32 30000
                                                        // (no acceptable_recovery_lag at v0)
        0x00,                                           // status: compact nullable array 0 -> null
        0x00,                                           // active_tasks: compact nullable array 0 -> null
        0x02,                                           // standby_tasks: compact nullable array length+1 = 2 -> 1
        0x02, b'1',                                     //   [0].subtopology_id: compact string "1"
        0x02,                                           //   [0].partitions: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x02,                         //     [0]: int32 2
        0x00,                                           //   [0] tagged fields: count 0
        0x00,                                           // warmup_tasks: compact nullable array 0 -> null
                                                        // (no topology_description_required at v0)
        0x00, 0x00, 0x00, 0x01,                         // endpoint_information_epoch: int32 1
        0x00,                                           // partitions_by_user_endpoint: compact nullable array 0 -> null
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v0() {
        let standby_parts = [2];
        let standby = [TaskIds {
            subtopology_id: "1",
            partitions: Array::from_slice(&standby_parts),
            unknown_tagged_fields: TaggedFields::EMPTY,
        }];
        let resp = StreamsGroupHeartbeatResponse {
            throttle_time_ms: 2,
            error_code: 25,
            error_message: Some("stale"),
            member_id: "mem-0",
            member_epoch: 4,
            heartbeat_interval_ms: 3000,
            acceptable_recovery_lag_legacy: 10_000,
            task_offset_interval_ms: 30_000,
            status: None,
            active_tasks: None,
            standby_tasks: Some(Array::from_slice(&standby)),
            warmup_tasks: None,
            endpoint_information_epoch: 1,
            partitions_by_user_endpoint: None,
            ..StreamsGroupHeartbeatResponse::DEFAULT
        };
        assert_eq!(resp.acceptable_recovery_lag, -1, "schema default");
        assert!(!resp.topology_description_required, "schema default");
        let view = check(&resp, 0, V0);
        assert_eq!(view.acceptable_recovery_lag_legacy, 10_000);
        assert_eq!(view.acceptable_recovery_lag, -1, "absent at v0: the default");
        assert!(!view.topology_description_required);
        assert_eq!((view.error_code, view.error_message), (25, Some("stale")));
        let s = view.standby_tasks.unwrap().iter().next().unwrap();
        assert_eq!((s.subtopology_id, ints(s.partitions)), ("1", vec![2]));
        assert!(view.status.is_none() && view.active_tasks.is_none() && view.warmup_tasks.is_none());
        assert!(view.partitions_by_user_endpoint.is_none());
    }
}

// ---------------------------------------------------------------------------------------------
// DeleteGroupsResponse (API 42): valid 0-3, flexible 2+; v3 adds ErrorMessage (nullable,
// default null) to each result. throttle_time_ms, results[] {group_id, error_code,
// error_message (v3+)}.
// ---------------------------------------------------------------------------------------------

mod delete_groups_response {
    use super::*;
    use kafka_wire::messages::delete_groups_response::{DeletableGroupResult, DeleteGroupsResponse};

    #[rustfmt::skip]
    const V3: &[u8] = &[
        0x00, 0x00, 0x00, 0x14,                         // throttle_time_ms: int32 20
        0x03,                                           // results: compact array length+1 = 3 -> 2
        0x04, b'g', b'-', b'a',                         //   [0].group_id: compact string "g-a"
        0x00, 0x00,                                     //   [0].error_code: int16 0
        0x00,                                           //   [0].error_message: compact nullable string 0 -> null
        0x00,                                           //   [0] tagged fields: count 0
        0x04, b'g', b'-', b'b',                         //   [1].group_id: compact string "g-b"
        0x00, 0x86,                                     //   [1].error_code: int16 134 (GROUP_DELETION_FAILED)
        0x0d, b'o', b'f', b'f', b's', b'e', b't', b's',
              b' ', b'l', b'e', b'f', b't',             //   [1].error_message: compact nullable string length+1 = 13 -> "offsets left" (12)
        0x00,                                           //   [1] tagged fields: count 0
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v3() {
        let results = [
            DeletableGroupResult {
                group_id: "g-a",
                error_code: 0,
                error_message: None,
                ..DeletableGroupResult::DEFAULT
            },
            DeletableGroupResult {
                group_id: "g-b",
                error_code: 134,
                error_message: Some("offsets left"),
                ..DeletableGroupResult::DEFAULT
            },
        ];
        let resp = DeleteGroupsResponse {
            throttle_time_ms: 20,
            results: Array::from_slice(&results),
            unknown_tagged_fields: TaggedFields::EMPTY,
        };
        let view = check(&resp, 3, V3);
        assert_eq!(view.throttle_time_ms, 20);
        let got: Vec<(&str, i16, Option<&str>)> = view
            .results
            .iter()
            .map(|r| (r.group_id, r.error_code, r.error_message))
            .collect();
        assert_eq!(got, [("g-a", 0, None), ("g-b", 134, Some("offsets left"))]);
    }

    #[rustfmt::skip]
    const V2: &[u8] = &[
        0x00, 0x00, 0x00, 0x14,                         // throttle_time_ms: int32 20
        0x02,                                           // results: compact array length+1 = 2 -> 1
        0x04, b'g', b'-', b'b',                         //   [0].group_id: compact string "g-b"
        0x00, 0x44,                                     //   [0].error_code: int16 68 (NON_EMPTY_GROUP)
                                                        //   (no error_message before v3)
        0x00,                                           //   [0] tagged fields: count 0
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v2() {
        let results = [DeletableGroupResult {
            group_id: "g-b",
            error_code: 68,
            ..DeletableGroupResult::DEFAULT
        }];
        let resp = DeleteGroupsResponse {
            throttle_time_ms: 20,
            results: Array::from_slice(&results),
            unknown_tagged_fields: TaggedFields::EMPTY,
        };
        let view = check(&resp, 2, V2);
        let r = view.results.iter().next().unwrap();
        assert_eq!((r.group_id, r.error_code, r.error_message), ("g-b", 68, None));
    }
}

// ---------------------------------------------------------------------------------------------
// DescribeLogDirsResponse (API 35): valid 1-5, flexible 2+; v5 adds IsCordoned (bool, default
// false) at the end of each result. throttle_time_ms, error_code (v3+), results[] {error_code,
// log_dir, topics[] {name, partitions[] {partition_index, partition_size int64, offset_lag
// int64, is_future_key bool}}, total_bytes int64 (v4+), usable_bytes int64 (v4+), is_cordoned
// (v5+)}.
// ---------------------------------------------------------------------------------------------

mod describe_log_dirs_response {
    use super::*;
    use kafka_wire::messages::describe_log_dirs_response::{
        DescribeLogDirsPartition, DescribeLogDirsResponse, DescribeLogDirsResult, DescribeLogDirsTopic,
    };

    #[rustfmt::skip]
    const V5: &[u8] = &[
        0x00, 0x00, 0x00, 0x09,                         // throttle_time_ms: int32 9
        0x00, 0x00,                                     // error_code: int16 0
        0x03,                                           // results: compact array length+1 = 3 -> 2
        0x00, 0x00,                                     //   [0].error_code: int16 0
        0x04, b'/', b'd', b'1',                         //   [0].log_dir: compact string "/d1"
        0x02,                                           //   [0].topics: compact array length+1 = 2 -> 1
        0x02, b't',                                     //     [0].name: compact string "t"
        0x02,                                           //     [0].partitions: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x03,                         //       [0].partition_index: int32 3
        0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, //       [0].partition_size: int64 1048576
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, //       [0].offset_lag: int64 2
        0x01,                                           //       [0].is_future_key: bool true
        0x00,                                           //       [0] tagged fields: count 0
        0x00,                                           //     [0] tagged fields: count 0
        0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, //   [0].total_bytes: int64 1099511627776 (2^40)
        0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, //   [0].usable_bytes: int64 549755813888 (2^39)
        0x01,                                           //   [0].is_cordoned: bool true
        0x00,                                           //   [0] tagged fields: count 0
        0x00, 0x38,                                     //   [1].error_code: int16 56 (KAFKA_STORAGE_ERROR)
        0x04, b'/', b'd', b'2',                         //   [1].log_dir: compact string "/d2"
        0x01,                                           //   [1].topics: compact array length+1 = 1 -> empty
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, //   [1].total_bytes: int64 -1
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, //   [1].usable_bytes: int64 -1
        0x00,                                           //   [1].is_cordoned: bool false
        0x00,                                           //   [1] tagged fields: count 0
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v5() {
        let parts = [DescribeLogDirsPartition {
            partition_index: 3,
            partition_size: 1_048_576,
            offset_lag: 2,
            is_future_key: true,
            unknown_tagged_fields: TaggedFields::EMPTY,
        }];
        let topics = [DescribeLogDirsTopic {
            name: "t",
            partitions: Array::from_slice(&parts),
            unknown_tagged_fields: TaggedFields::EMPTY,
        }];
        let results = [
            DescribeLogDirsResult {
                error_code: 0,
                log_dir: "/d1",
                topics: Array::from_slice(&topics),
                total_bytes: 1 << 40,
                usable_bytes: 1 << 39,
                is_cordoned: true,
                unknown_tagged_fields: TaggedFields::EMPTY,
            },
            DescribeLogDirsResult {
                error_code: 56,
                log_dir: "/d2",
                topics: Array::EMPTY,
                total_bytes: -1,
                usable_bytes: -1,
                is_cordoned: false,
                unknown_tagged_fields: TaggedFields::EMPTY,
            },
        ];
        let resp = DescribeLogDirsResponse {
            throttle_time_ms: 9,
            error_code: 0,
            results: Array::from_slice(&results),
            unknown_tagged_fields: TaggedFields::EMPTY,
        };
        let view = check(&resp, 5, V5);
        assert_eq!(view.throttle_time_ms, 9);
        let got: Vec<(i16, &str, i64, i64, bool)> = view
            .results
            .iter()
            .map(|r| (r.error_code, r.log_dir, r.total_bytes, r.usable_bytes, r.is_cordoned))
            .collect();
        assert_eq!(got, [(0, "/d1", 1 << 40, 1 << 39, true), (56, "/d2", -1, -1, false)]);
        let p = view
            .results
            .iter()
            .next()
            .unwrap()
            .topics
            .iter()
            .next()
            .unwrap()
            .partitions
            .iter()
            .next()
            .unwrap();
        assert_eq!(
            (p.partition_index, p.partition_size, p.offset_lag, p.is_future_key),
            (3, 1_048_576, 2, true)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// BrokerHeartbeatRequest (API 63): valid 0-2, flexible 0+; v2 adds CordonedLogDirs (tag 1,
// nullable, default null). broker_id, broker_epoch int64, current_metadata_offset int64,
// want_fence, want_shut_down; tagged: 0 offline_log_dirs (v1+), 1 cordoned_log_dirs (v2+).
// ---------------------------------------------------------------------------------------------

mod broker_heartbeat_request {
    use super::*;
    use kafka_wire::messages::broker_heartbeat_request::BrokerHeartbeatRequest;

    #[rustfmt::skip]
    const V2: &[u8] = &[
        0x00, 0x00, 0x03, 0xec,                         // broker_id: int32 1004
        0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x09, // broker_epoch: int64 12884901897 (0x3_0000_0009)
        0x00, 0x00, 0x00, 0x00, 0x07, 0x5b, 0xcd, 0x15, // current_metadata_offset: int64 123456789
        0x00,                                           // want_fence: bool false
        0x01,                                           // want_shut_down: bool true
        0x02,                                           // tagged fields: count 2
        0x00,                                           //   tag 0 (offline_log_dirs)
        0x11,                                           //   size 17
        0x02,                                           //   offline_log_dirs: compact array length+1 = 2 -> 1
        0x77, 0x77, 0x77, 0x77, 0x77, 0x77, 0x77, 0x77,
        0x77, 0x77, 0x77, 0x77, 0x77, 0x77, 0x77, 0x77, //     offline_log_dirs[0]: uuid D7
        0x01,                                           //   tag 1 (cordoned_log_dirs)
        0x21,                                           //   size 33
        0x03,                                           //   cordoned_log_dirs: compact array length+1 = 3 -> 2
        0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88,
        0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, //     cordoned_log_dirs[0]: uuid D8
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, //     cordoned_log_dirs[1]: uuid D1
    ];

    #[test]
    fn v2() {
        let offline = [dir(7)];
        let cordoned = [dir(8), dir(1)];
        let req = BrokerHeartbeatRequest {
            broker_id: 1004,
            broker_epoch: 12_884_901_897,
            current_metadata_offset: 123_456_789,
            want_fence: false,
            want_shut_down: true,
            offline_log_dirs: Array::from_slice(&offline),
            cordoned_log_dirs: Some(Array::from_slice(&cordoned)),
            unknown_tagged_fields: TaggedFields::EMPTY,
        };
        let view = check(&req, 2, V2);
        assert_eq!(
            (view.broker_id, view.broker_epoch, view.current_metadata_offset),
            (1004, 12_884_901_897, 123_456_789)
        );
        assert!(!view.want_fence && view.want_shut_down);
        assert_eq!(uuids(view.offline_log_dirs), [dir(7)]);
        assert_eq!(uuids(view.cordoned_log_dirs.unwrap()), [dir(8), dir(1)]);
    }

    #[rustfmt::skip]
    const V2_EMPTY_CORDONED: &[u8] = &[
        0x00, 0x00, 0x03, 0xec,                         // broker_id: int32 1004
        0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x0a, // broker_epoch: int64 12884901898 (0x3_0000_000a)
        0x00, 0x00, 0x00, 0x00, 0x07, 0x5b, 0xcd, 0x16, // current_metadata_offset: int64 123456790
        0x01,                                           // want_fence: bool true
        0x00,                                           // want_shut_down: bool false
        0x01,                                           // tagged fields: count 1 (offline_log_dirs empty: not written)
        0x01,                                           //   tag 1 (cordoned_log_dirs)
        0x01,                                           //   size 1
        0x01,                                           //   cordoned_log_dirs: compact array length+1 = 1 -> empty (not null)
    ];

    #[test]
    fn v2_empty_cordoned() {
        let req = BrokerHeartbeatRequest {
            broker_id: 1004,
            broker_epoch: 12_884_901_898,
            current_metadata_offset: 123_456_790,
            want_fence: true,
            want_shut_down: false,
            offline_log_dirs: Array::EMPTY,
            cordoned_log_dirs: Some(Array::EMPTY),
            unknown_tagged_fields: TaggedFields::EMPTY,
        };
        let view = check(&req, 2, V2_EMPTY_CORDONED);
        assert!(view.offline_log_dirs.is_empty());
        assert_eq!(view.cordoned_log_dirs.map(|a| a.len()), Some(0), "empty is not null");
    }
}

// ---------------------------------------------------------------------------------------------
// ShareFetchRequest (API 78): valid 1-2, flexible 0+; v2 adds ShareAcquireMode (int8, default
// 0) and IsRenewAck (bool, default false) after batch_size. group_id (nullable), member_id
// (nullable), share_session_epoch, max_wait_ms, min_bytes, max_bytes, max_records (v1+),
// batch_size (v1+), [share_acquire_mode, is_renew_ack], topics[] {topic_id, partitions[]
// {partition_index, partition_max_bytes (v0 only), acknowledgement_batches[] {first_offset,
// last_offset, acknowledge_types []int8}}}, forgotten_topics_data[] {topic_id, partitions
// []int32}.
// ---------------------------------------------------------------------------------------------

mod share_fetch_request {
    use super::*;
    use kafka_wire::messages::share_fetch_request::{
        AcknowledgementBatch, FetchPartition, FetchTopic, ForgottenTopic, ShareFetchRequest,
    };

    #[rustfmt::skip]
    const V2: &[u8] = &[
        0x08, b's', b'h', b'a', b'r', b'e', b'-', b'g', // group_id: compact nullable string "share-g"
        0x05, b'm', b'-', b'2', b'2',                   // member_id: compact nullable string "m-22"
        0x00, 0x00, 0x00, 0x02,                         // share_session_epoch: int32 2
        0x00, 0x00, 0x01, 0xf4,                         // max_wait_ms: int32 500
        0x00, 0x00, 0x00, 0x01,                         // min_bytes: int32 1
        0x00, 0x10, 0x00, 0x00,                         // max_bytes: int32 1048576
        0x00, 0x00, 0x00, 0xc8,                         // max_records: int32 200
        0x00, 0x00, 0x00, 0x32,                         // batch_size: int32 50
        0x01,                                           // share_acquire_mode: int8 1 (record-limit)
        0x01,                                           // is_renew_ack: bool true
        0x02,                                           // topics: compact array length+1 = 2 -> 1
        0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
        0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, //   [0].topic_id: uuid U_A
        0x02,                                           //   [0].partitions: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x06,                         //     [0].partition_index: int32 6
                                                        //     (no partition_max_bytes after v0)
        0x02,                                           //     [0].acknowledgement_batches: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, //       [0].first_offset: int64 10
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, //       [0].last_offset: int64 12
        0x04,                                           //       [0].acknowledge_types: compact array length+1 = 4 -> 3
        0x01, 0x04, 0x00,                               //         int8 1 (Accept), 4 (Renew), 0 (Gap)
        0x00,                                           //       [0] tagged fields: count 0
        0x00,                                           //     [0] tagged fields: count 0
        0x00,                                           //   [0] tagged fields: count 0
        0x02,                                           // forgotten_topics_data: compact array length+1 = 2 -> 1
        0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
        0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, //   [0].topic_id: uuid U_C
        0x03,                                           //   [0].partitions: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x07,                         //     [0]: int32 7
        0x00, 0x00, 0x00, 0x08,                         //     [1]: int32 8
        0x00,                                           //   [0] tagged fields: count 0
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v2() {
        let ack_types: [i8; 3] = [1, 4, 0];
        let batches = [AcknowledgementBatch {
            first_offset: 10,
            last_offset: 12,
            acknowledge_types: Array::from_slice(&ack_types),
            unknown_tagged_fields: TaggedFields::EMPTY,
        }];
        let partitions = [FetchPartition {
            partition_index: 6,
            acknowledgement_batches: Array::from_slice(&batches),
            ..FetchPartition::DEFAULT
        }];
        let topics = [FetchTopic {
            topic_id: ua(),
            partitions: Array::from_slice(&partitions),
            unknown_tagged_fields: TaggedFields::EMPTY,
        }];
        let forgotten_parts = [7, 8];
        let forgotten = [ForgottenTopic {
            topic_id: uc(),
            partitions: Array::from_slice(&forgotten_parts),
            unknown_tagged_fields: TaggedFields::EMPTY,
        }];
        let req = ShareFetchRequest {
            group_id: Some("share-g"),
            member_id: Some("m-22"),
            share_session_epoch: 2,
            max_wait_ms: 500,
            min_bytes: 1,
            max_bytes: 1_048_576,
            max_records: 200,
            batch_size: 50,
            share_acquire_mode: 1,
            is_renew_ack: true,
            topics: Array::from_slice(&topics),
            forgotten_topics_data: Array::from_slice(&forgotten),
            unknown_tagged_fields: TaggedFields::EMPTY,
        };
        let view = check(&req, 2, V2);
        assert_eq!(view.share_acquire_mode, 1);
        assert!(view.is_renew_ack);
        assert_eq!((view.group_id, view.member_id), (Some("share-g"), Some("m-22")));
        assert_eq!(
            (view.max_records, view.batch_size, view.max_bytes),
            (200, 50, 1_048_576)
        );
        let t = view.topics.iter().next().unwrap();
        assert_eq!(t.topic_id, ua());
        let p = t.partitions.iter().next().unwrap();
        assert_eq!(p.partition_index, 6);
        assert_eq!(p.partition_max_bytes, 0, "absent after v0: the default");
        let b = p.acknowledgement_batches.iter().next().unwrap();
        let types: Vec<i8> = b.acknowledge_types.iter().collect();
        assert_eq!((b.first_offset, b.last_offset, types), (10, 12, vec![1, 4, 0]));
        let f = view.forgotten_topics_data.iter().next().unwrap();
        assert_eq!((f.topic_id, ints(f.partitions)), (uc(), vec![7, 8]));
    }
}

// ---------------------------------------------------------------------------------------------
// AddRaftVoterRequest (API 80): valid 0-1, flexible 0+; v1 adds AckWhenCommitted (bool,
// default true) at the end. cluster_id (nullable), timeout_ms, voter_id, voter_directory_id,
// listeners[] {name, host, port uint16}.
// ---------------------------------------------------------------------------------------------

mod add_raft_voter_request {
    use super::*;
    use kafka_wire::messages::add_raft_voter_request::{AddRaftVoterRequest, Listener};

    const LISTENERS: [Listener<'static>; 1] = [Listener {
        name: "CONTROLLER",
        host: "c3",
        port: 9094,
        unknown_tagged_fields: TaggedFields::EMPTY,
    }];

    fn base<'a>() -> AddRaftVoterRequest<'a> {
        AddRaftVoterRequest {
            cluster_id: Some("c-1"),
            timeout_ms: 30_000,
            voter_id: 3003,
            voter_directory_id: ub(),
            listeners: Array::from_slice(&LISTENERS),
            ..AddRaftVoterRequest::DEFAULT
        }
    }

    #[rustfmt::skip]
    const V1: &[u8] = &[
        0x04, b'c', b'-', b'1',                         // cluster_id: compact nullable string "c-1"
        0x00, 0x00, 0x75, 0x30,                         // timeout_ms: int32 30000
        0x00, 0x00, 0x0b, 0xbb,                         // voter_id: int32 3003
        0xa1, 0xa2, 0xa3, 0xa4, 0xb1, 0xb2, 0xc1, 0xc2,
        0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, // voter_directory_id: uuid U_B
        0x02,                                           // listeners: compact array length+1 = 2 -> 1
        0x0b, b'C', b'O', b'N', b'T', b'R', b'O', b'L', b'L', b'E', b'R', //   [0].name: compact string "CONTROLLER" (10)
        0x03, b'c', b'3',                               //   [0].host: compact string "c3"
        0x23, 0x86,                                     //   [0].port: uint16 9094
        0x00,                                           //   [0] tagged fields: count 0
        0x00,                                           // ack_when_committed: bool false (default is true)
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v1() {
        let req = AddRaftVoterRequest {
            ack_when_committed: false,
            ..base()
        };
        let view = check(&req, 1, V1);
        assert!(!view.ack_when_committed);
        assert_eq!(
            (view.cluster_id, view.timeout_ms, view.voter_id),
            (Some("c-1"), 30_000, 3003)
        );
        assert_eq!(view.voter_directory_id, ub());
        let l = view.listeners.iter().next().unwrap();
        assert_eq!((l.name, l.host, l.port), ("CONTROLLER", "c3", 9094));
    }

    #[rustfmt::skip]
    const V0: &[u8] = &[
        0x04, b'c', b'-', b'1',                         // cluster_id: compact nullable string "c-1"
        0x00, 0x00, 0x75, 0x30,                         // timeout_ms: int32 30000
        0x00, 0x00, 0x0b, 0xbb,                         // voter_id: int32 3003
        0xa1, 0xa2, 0xa3, 0xa4, 0xb1, 0xb2, 0xc1, 0xc2,
        0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, // voter_directory_id: uuid U_B
        0x02,                                           // listeners: compact array length+1 = 2 -> 1
        0x0b, b'C', b'O', b'N', b'T', b'R', b'O', b'L', b'L', b'E', b'R', //   [0].name: compact string "CONTROLLER"
        0x03, b'c', b'3',                               //   [0].host: compact string "c3"
        0x23, 0x86,                                     //   [0].port: uint16 9094
        0x00,                                           //   [0] tagged fields: count 0
                                                        // (no ack_when_committed before v1)
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v0() {
        let req = base();
        assert!(req.ack_when_committed, "schema default");
        let view = check(&req, 0, V0);
        assert!(view.ack_when_committed, "absent at v0: the default (true)");
        assert_eq!(view.voter_id, 3003);
    }
}
