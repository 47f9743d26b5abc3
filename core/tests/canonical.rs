//! Encoding a parsed view at the version it was parsed at copies the validated bytes of its
//! arrays only when they are exactly what the encoder writes. Input that Kafka reads the same
//! way but that the encoder would write differently (non-minimal varints, `bool` bytes other
//! than 0 and 1, tagged fields out of order or at their default) must still come out in the
//! encoder's form, with `encoded_len` exact.

use kafka_wire::messages::api_versions_response::{ApiVersion, ApiVersionsResponse};
use kafka_wire::messages::fetch_response::{FetchResponse, FetchableTopicResponse, LeaderIdAndEpoch, PartitionData};
use kafka_wire::messages::metadata_response::{MetadataResponse, MetadataResponseTopic};
use kafka_wire::{Array, Message, RawTaggedField, TaggedFields, Uuid};

fn encode<'a, M: Message<'a>>(m: &M, v: i16) -> Vec<u8> {
    let mut out = vec![0u8; m.encoded_len(v).unwrap()];
    let n = m.encode_to_slice(&mut out, v).unwrap();
    assert_eq!(n, out.len(), "encoded_len is exact");
    out
}

fn replace_once(hay: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    let at = hay
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("needle present");
    assert!(
        hay[at + 1..].windows(needle.len()).all(|w| w != needle),
        "needle unique"
    );
    let mut out = hay[..at].to_vec();
    out.extend_from_slice(with);
    out.extend_from_slice(&hay[at + needle.len()..]);
    out
}

/// Re-encodes `input` through a view at `v` and requires `want`.
fn reencodes_to<'a, M: Message<'a>>(input: &'a [u8], v: i16, want: &[u8]) {
    let view = M::parse(input, v).expect("non-canonical input is valid");
    assert_eq!(view.encoded_len(v).unwrap(), want.len());
    assert_eq!(encode(&view, v), want);
}

#[test]
fn canonical_arrays_are_copied_as_they_are() {
    let keys: Vec<ApiVersion> = (0..5)
        .map(|k| ApiVersion {
            api_key: k,
            min_version: 0,
            max_version: 3,
            ..ApiVersion::DEFAULT
        })
        .collect();
    let m = ApiVersionsResponse {
        api_keys: Array::from_slice(&keys),
        ..ApiVersionsResponse::DEFAULT
    };
    let bytes = encode(&m, 3);
    reencodes_to::<ApiVersionsResponse>(&bytes, 3, &bytes);
    // At another version the elements are written one by one.
    let v2 = encode(&m, 2);
    let view = ApiVersionsResponse::parse(&bytes, 3).unwrap();
    assert_eq!(encode(&view, 2), v2);
}

#[test]
fn non_minimal_varint_in_an_array_element() {
    let keys = [ApiVersion {
        api_key: 0x1234,
        min_version: 0x0a0b,
        max_version: 0x0c0d,
        ..ApiVersion::DEFAULT
    }];
    let m = ApiVersionsResponse {
        api_keys: Array::from_slice(&keys),
        ..ApiVersionsResponse::DEFAULT
    };
    let canonical = encode(&m, 3);
    // The element's tagged-field count 0 written in two bytes.
    let odd = replace_once(
        &canonical,
        &[0x12, 0x34, 0x0a, 0x0b, 0x0c, 0x0d, 0x00],
        &[0x12, 0x34, 0x0a, 0x0b, 0x0c, 0x0d, 0x80, 0x00],
    );
    reencodes_to::<ApiVersionsResponse>(&odd, 3, &canonical);
}

#[test]
fn bool_byte_other_than_one_in_an_array_element() {
    let id = Uuid::from_u128(0x0102_0304_0506_0708_090a_0b0c_0d0e_0f10);
    let topics = [MetadataResponseTopic {
        name: Some("t"),
        topic_id: id,
        is_internal: true,
        ..MetadataResponseTopic::DEFAULT
    }];
    let m = MetadataResponse {
        topics: Array::from_slice(&topics),
        ..MetadataResponse::DEFAULT
    };
    let canonical = encode(&m, 13);
    let mut with = id.as_bytes().to_vec();
    with.push(2);
    let mut needle = id.as_bytes().to_vec();
    needle.push(1);
    let odd = replace_once(&canonical, &needle, &with);
    let view = MetadataResponse::parse(&odd, 13).unwrap();
    assert!(view.topics.iter().next().unwrap().is_internal);
    reencodes_to::<MetadataResponse>(&odd, 13, &canonical);
}

fn fetch_bytes(leader: LeaderIdAndEpoch<'_>, unknown: &[RawTaggedField<'_>]) -> Vec<u8> {
    let parts = [PartitionData {
        partition_index: 0x55667788,
        current_leader: leader,
        aborted_transactions: None,
        records: None,
        unknown_tagged_fields: TaggedFields::from_slice(unknown),
        ..PartitionData::DEFAULT
    }];
    let topics = [FetchableTopicResponse {
        topic: "t",
        partitions: Array::from_slice(&parts),
        ..FetchableTopicResponse::DEFAULT
    }];
    let m = FetchResponse {
        responses: Array::from_slice(&topics),
        ..FetchResponse::DEFAULT
    };
    encode(&m, 12)
}

#[test]
fn tagged_fields_out_of_order_in_an_array_element() {
    let leader = LeaderIdAndEpoch {
        leader_id: 3,
        leader_epoch: 4,
        ..LeaderIdAndEpoch::DEFAULT
    };
    let unknown = [RawTaggedField { tag: 5, data: b"x" }];
    let canonical = fetch_bytes(leader, &unknown);
    // Known tag 1 (leader 3, epoch 4, no tags), then unknown tag 5: swapped.
    let tag1 = [1u8, 9, 0, 0, 0, 3, 0, 0, 0, 4, 0];
    let tag5 = [5u8, 1, b'x'];
    let mut section = vec![2u8];
    section.extend_from_slice(&tag1);
    section.extend_from_slice(&tag5);
    let mut swapped = vec![2u8];
    swapped.extend_from_slice(&tag5);
    swapped.extend_from_slice(&tag1);
    let odd = replace_once(&canonical, &section, &swapped);
    reencodes_to::<FetchResponse>(&odd, 12, &canonical);
}

#[test]
fn known_tagged_field_at_its_default_in_an_array_element() {
    let leader = LeaderIdAndEpoch {
        leader_id: 3,
        leader_epoch: 4,
        ..LeaderIdAndEpoch::DEFAULT
    };
    let with_leader = fetch_bytes(leader, &[]);
    let canonical = fetch_bytes(LeaderIdAndEpoch::DEFAULT, &[]);
    // The leader sent explicitly as its default (-1, -1): the encoder leaves it out.
    let odd = replace_once(
        &with_leader,
        &[1u8, 9, 0, 0, 0, 3, 0, 0, 0, 4, 0],
        &[1u8, 9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0],
    );
    reencodes_to::<FetchResponse>(&odd, 12, &canonical);
}
