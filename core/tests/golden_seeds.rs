//! Golden byte vectors for the seed messages, written by hand from the Kafka wire format.
//!
//! Each vector is an annotated byte array: one line per field, with the field name and its
//! wire encoding. None of them were produced by running this crate's encoder. For each
//! (message, version) the test builds the value on the stack, checks that encoding it gives
//! exactly the hand-written bytes (and that `encoded_len` agrees), parses the hand-written
//! bytes back, checks the parse equals the built value, and spot-checks a few fields through
//! the view API.
//!
//! Values are chosen to differ from every field's default (and from each other) so that a
//! dropped, duplicated or swapped field shows up in the bytes; they are not meant to describe a
//! realistic cluster (a partition error next to a top-level error, for instance).
//!
//! Wire reminders used below (flexible versions; every seed message is flexible at all its
//! versions):
//! * compact string / array / bytes: unsigned varint (length + 1), 0 = null;
//! * every struct ends with a tagged-field section: uvarint count, then per field in ascending
//!   tag order: uvarint tag, uvarint payload size, payload;
//! * integers big-endian; uuid = 16 bytes, most significant first.

use core::fmt::Debug;

use kafka_wire::{Array, Message, RawTaggedField, TaggedFields};
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

// ---------------------------------------------------------------------------------------------
// PartitionChangeRecord (metadata record 5): valid 0-2, flexible 0+.
// partition_id int32, topic_id uuid, then everything else is tagged:
// 0 isr, 1 leader (default -2), 2 replicas, 3 removing_replicas, 4 adding_replicas,
// 5 leader_recovery_state (default -1), 8 directories (v1+), 6 eligible_leader_replicas (v2),
// 7 last_known_elr (v2). Nullable tagged arrays default to null, and null is not written.
// ---------------------------------------------------------------------------------------------

mod partition_change_record {
    use super::*;
    use kafka_wire::metadata::partition_change_record::PartitionChangeRecord;

    #[rustfmt::skip]
    const V0: &[u8] = &[
        0x00, 0x00, 0x00, 0x03,                         // partition_id: int32 3
        0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
        0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, // topic_id: uuid U_A
        0x06,                                           // tagged fields: uvarint count 6 (tags 0-5)
        0x00,                                           //   tag 0 (isr)
        0x09,                                           //   size 9
        0x03,                                           //   isr: compact array length+1 = 3 -> 2 elements
        0x00, 0x00, 0x00, 0x01,                         //     isr[0]: int32 1
        0x00, 0x00, 0x00, 0x02,                         //     isr[1]: int32 2
        0x01,                                           //   tag 1 (leader)
        0x04,                                           //   size 4
        0x00, 0x00, 0x00, 0x02,                         //   leader: int32 2
        0x02,                                           //   tag 2 (replicas)
        0x11,                                           //   size 17
        0x05,                                           //   replicas: compact array length+1 = 5 -> 4 elements
        0x00, 0x00, 0x00, 0x01,                         //     replicas[0]: int32 1
        0x00, 0x00, 0x00, 0x02,                         //     replicas[1]: int32 2
        0x00, 0x00, 0x00, 0x03,                         //     replicas[2]: int32 3
        0x00, 0x00, 0x00, 0x04,                         //     replicas[3]: int32 4
        0x03,                                           //   tag 3 (removing_replicas)
        0x09,                                           //   size 9
        0x03,                                           //   removing_replicas: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x03,                         //     removing_replicas[0]: int32 3
        0x00, 0x00, 0x00, 0x04,                         //     removing_replicas[1]: int32 4
        0x04,                                           //   tag 4 (adding_replicas)
        0x09,                                           //   size 9
        0x03,                                           //   adding_replicas: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x05,                         //     adding_replicas[0]: int32 5
        0x00, 0x00, 0x00, 0x06,                         //     adding_replicas[1]: int32 6
        0x05,                                           //   tag 5 (leader_recovery_state)
        0x01,                                           //   size 1
        0x01,                                           //   leader_recovery_state: int8 1
    ];

    #[test]
    fn v0() {
        let isr = [1, 2];
        let replicas = [1, 2, 3, 4];
        let removing = [3, 4];
        let adding = [5, 6];
        let rec = PartitionChangeRecord {
            partition_id: 3,
            topic_id: ua(),
            isr: Some(Array::from_slice(&isr)),
            leader: 2,
            replicas: Some(Array::from_slice(&replicas)),
            removing_replicas: Some(Array::from_slice(&removing)),
            adding_replicas: Some(Array::from_slice(&adding)),
            leader_recovery_state: 1,
            ..PartitionChangeRecord::DEFAULT
        };
        let view = check(&rec, 0, V0);
        assert_eq!(view.partition_id, 3);
        assert_eq!(view.topic_id, ua());
        assert_eq!(ints(view.isr.unwrap()), [1, 2]);
        assert_eq!(ints(view.replicas.unwrap()), [1, 2, 3, 4]);
        assert_eq!(view.leader, 2);
        assert_eq!(view.leader_recovery_state, 1);
        assert!(view.directories.is_none());
        assert!(view.unknown_tagged_fields.is_empty());
    }

    #[rustfmt::skip]
    const V1: &[u8] = &[
        0x00, 0x00, 0x00, 0x07,                         // partition_id: int32 7
        0xa1, 0xa2, 0xa3, 0xa4, 0xb1, 0xb2, 0xc1, 0xc2,
        0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, // topic_id: uuid U_B
        0x06,                                           // tagged fields: uvarint count 6 (tags 1-5, 8; isr is null)
        0x01,                                           //   tag 1 (leader)
        0x04,                                           //   size 4
        0xff, 0xff, 0xff, 0xff,                         //   leader: int32 -1 (no leader)
        0x02,                                           //   tag 2 (replicas)
        0x09,                                           //   size 9
        0x03,                                           //   replicas: compact array length+1 = 3 -> 2 elements
        0x00, 0x00, 0x00, 0x04,                         //     replicas[0]: int32 4
        0x00, 0x00, 0x00, 0x05,                         //     replicas[1]: int32 5
        0x03,                                           //   tag 3 (removing_replicas)
        0x01,                                           //   size 1
        0x01,                                           //   removing_replicas: compact array length+1 = 1 -> empty (not null)
        0x04,                                           //   tag 4 (adding_replicas)
        0x09,                                           //   size 9
        0x03,                                           //   adding_replicas: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x06,                         //     adding_replicas[0]: int32 6
        0x00, 0x00, 0x00, 0x07,                         //     adding_replicas[1]: int32 7
        0x05,                                           //   tag 5 (leader_recovery_state)
        0x01,                                           //   size 1
        0x00,                                           //   leader_recovery_state: int8 0 (default is -1)
        0x08,                                           //   tag 8 (directories)
        0x21,                                           //   size 33
        0x03,                                           //   directories: compact array length+1 = 3 -> 2
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, //     directories[0]: uuid D1
        0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22,
        0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, //     directories[1]: uuid D2
    ];

    #[test]
    fn v1() {
        let replicas = [4, 5];
        let adding = [6, 7];
        let dirs = [dir(1), dir(2)];
        let rec = PartitionChangeRecord {
            partition_id: 7,
            topic_id: ub(),
            isr: None,
            leader: -1,
            replicas: Some(Array::from_slice(&replicas)),
            removing_replicas: Some(Array::EMPTY),
            adding_replicas: Some(Array::from_slice(&adding)),
            leader_recovery_state: 0,
            directories: Some(Array::from_slice(&dirs)),
            ..PartitionChangeRecord::DEFAULT
        };
        let view = check(&rec, 1, V1);
        assert!(view.isr.is_none(), "isr absent from the tagged section parses as null");
        assert_eq!(view.leader, -1);
        assert_eq!(view.removing_replicas.map(|a| a.len()), Some(0), "empty is not null");
        assert_eq!(ints(view.adding_replicas.unwrap()), [6, 7]);
        let d: Vec<Uuid> = view.directories.unwrap().iter().collect();
        assert_eq!(d, [dir(1), dir(2)]);
    }

    #[rustfmt::skip]
    const V2: &[u8] = &[
        0x00, 0x00, 0x01, 0x02,                         // partition_id: int32 258
        0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
        0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, // topic_id: uuid U_C
        0x09,                                           // tagged fields: uvarint count 9 (tags 0-8, ascending)
        0x00,                                           //   tag 0 (isr)
        0x09,                                           //   size 9
        0x03,                                           //   isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //     isr[0]: int32 1
        0x00, 0x00, 0x00, 0x02,                         //     isr[1]: int32 2
        0x01,                                           //   tag 1 (leader)
        0x04,                                           //   size 4
        0x00, 0x00, 0x00, 0x01,                         //   leader: int32 1
        0x02,                                           //   tag 2 (replicas)
        0x0d,                                           //   size 13
        0x04,                                           //   replicas: compact array length+1 = 4 -> 3
        0x00, 0x00, 0x00, 0x01,                         //     replicas[0]: int32 1
        0x00, 0x00, 0x00, 0x02,                         //     replicas[1]: int32 2
        0x00, 0x00, 0x00, 0x03,                         //     replicas[2]: int32 3
        0x03,                                           //   tag 3 (removing_replicas)
        0x09,                                           //   size 9
        0x03,                                           //   removing_replicas: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x03,                         //     removing_replicas[0]: int32 3
        0x00, 0x00, 0x00, 0x04,                         //     removing_replicas[1]: int32 4
        0x04,                                           //   tag 4 (adding_replicas)
        0x09,                                           //   size 9
        0x03,                                           //   adding_replicas: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x07,                         //     adding_replicas[0]: int32 7
        0x00, 0x00, 0x00, 0x08,                         //     adding_replicas[1]: int32 8
        0x05,                                           //   tag 5 (leader_recovery_state)
        0x01,                                           //   size 1
        0x01,                                           //   leader_recovery_state: int8 1
        0x06,                                           //   tag 6 (eligible_leader_replicas)
        0x09,                                           //   size 9
        0x03,                                           //   eligible_leader_replicas: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x02,                         //     eligible_leader_replicas[0]: int32 2
        0x00, 0x00, 0x00, 0x03,                         //     eligible_leader_replicas[1]: int32 3
        0x07,                                           //   tag 7 (last_known_elr)
        0x09,                                           //   size 9
        0x03,                                           //   last_known_elr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x04,                         //     last_known_elr[0]: int32 4
        0x00, 0x00, 0x00, 0x05,                         //     last_known_elr[1]: int32 5
        0x08,                                           //   tag 8 (directories)
        0x81, 0x01,                                     //   size: uvarint 129 (0x81 0x01) = 1 + 8 * 16
        0x09,                                           //   directories: compact array length+1 = 9 -> 8
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, //     directories[0]: uuid D1
        0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22,
        0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, //     directories[1]: uuid D2
        0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33,
        0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, //     directories[2]: uuid D3
        0x44, 0x44, 0x44, 0x44, 0x44, 0x44, 0x44, 0x44,
        0x44, 0x44, 0x44, 0x44, 0x44, 0x44, 0x44, 0x44, //     directories[3]: uuid D4
        0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55,
        0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, //     directories[4]: uuid D5
        0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
        0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, //     directories[5]: uuid D6
        0x77, 0x77, 0x77, 0x77, 0x77, 0x77, 0x77, 0x77,
        0x77, 0x77, 0x77, 0x77, 0x77, 0x77, 0x77, 0x77, //     directories[6]: uuid D7
        0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88,
        0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, //     directories[7]: uuid D8
    ];

    #[test]
    fn v2() {
        let isr = [1, 2];
        let replicas = [1, 2, 3];
        let removing = [3, 4];
        let adding = [7, 8];
        let elr = [2, 3];
        let lke = [4, 5];
        let dirs = [dir(1), dir(2), dir(3), dir(4), dir(5), dir(6), dir(7), dir(8)];
        let rec = PartitionChangeRecord {
            partition_id: 258,
            topic_id: uc(),
            isr: Some(Array::from_slice(&isr)),
            leader: 1,
            replicas: Some(Array::from_slice(&replicas)),
            removing_replicas: Some(Array::from_slice(&removing)),
            adding_replicas: Some(Array::from_slice(&adding)),
            leader_recovery_state: 1,
            directories: Some(Array::from_slice(&dirs)),
            eligible_leader_replicas: Some(Array::from_slice(&elr)),
            last_known_elr: Some(Array::from_slice(&lke)),
            unknown_tagged_fields: TaggedFields::EMPTY,
        };
        let view = check(&rec, 2, V2);
        assert_eq!(view.partition_id, 258);
        assert_eq!(ints(view.eligible_leader_replicas.unwrap()), [2, 3]);
        assert_eq!(ints(view.last_known_elr.unwrap()), [4, 5]);
        let d: Vec<Uuid> = view.directories.unwrap().iter().collect();
        assert_eq!(d.len(), 8);
        assert_eq!(d[7], dir(8));
    }
}

// ---------------------------------------------------------------------------------------------
// PartitionRecord (metadata record 3): valid 0-2, flexible 0+.
// partition_id, topic_id, replicas, isr, removing_replicas, adding_replicas, leader,
// leader_epoch, partition_epoch, directories (v1+); tagged: 0 leader_recovery_state
// (default 0), 1 eligible_leader_replicas (v2, default null), 2 last_known_elr (v2, default null).
// ---------------------------------------------------------------------------------------------

mod partition_record {
    use super::*;
    use kafka_wire::metadata::partition_record::PartitionRecord;

    #[rustfmt::skip]
    const V0: &[u8] = &[
        0x00, 0x00, 0x00, 0x01,                         // partition_id: int32 1
        0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
        0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, // topic_id: uuid U_A
        0x04,                                           // replicas: compact array length+1 = 4 -> 3
        0x00, 0x00, 0x00, 0x01,                         //   replicas[0]: int32 1
        0x00, 0x00, 0x00, 0x02,                         //   replicas[1]: int32 2
        0x00, 0x00, 0x00, 0x03,                         //   replicas[2]: int32 3
        0x03,                                           // isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //   isr[0]: int32 1
        0x00, 0x00, 0x00, 0x02,                         //   isr[1]: int32 2
        0x03,                                           // removing_replicas: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x02,                         //   removing_replicas[0]: int32 2
        0x00, 0x00, 0x00, 0x03,                         //   removing_replicas[1]: int32 3
        0x03,                                           // adding_replicas: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x04,                         //   adding_replicas[0]: int32 4
        0x00, 0x00, 0x00, 0x05,                         //   adding_replicas[1]: int32 5
        0x00, 0x00, 0x00, 0x01,                         // leader: int32 1
        0x00, 0x00, 0x00, 0x0a,                         // leader_epoch: int32 10
        0x00, 0x00, 0x00, 0x14,                         // partition_epoch: int32 20
        0x01,                                           // tagged fields: uvarint count 1
        0x00,                                           //   tag 0 (leader_recovery_state)
        0x01,                                           //   size 1
        0x01,                                           //   leader_recovery_state: int8 1
    ];

    #[test]
    fn v0() {
        let replicas = [1, 2, 3];
        let isr = [1, 2];
        let removing = [2, 3];
        let adding = [4, 5];
        let rec = PartitionRecord {
            partition_id: 1,
            topic_id: ua(),
            replicas: Array::from_slice(&replicas),
            isr: Array::from_slice(&isr),
            removing_replicas: Array::from_slice(&removing),
            adding_replicas: Array::from_slice(&adding),
            leader: 1,
            leader_recovery_state: 1,
            leader_epoch: 10,
            partition_epoch: 20,
            ..PartitionRecord::DEFAULT
        };
        let view = check(&rec, 0, V0);
        assert_eq!(ints(view.replicas), [1, 2, 3]);
        assert_eq!(ints(view.isr), [1, 2]);
        assert_eq!(view.leader_epoch, 10);
        assert_eq!(view.partition_epoch, 20);
        assert_eq!(view.leader_recovery_state, 1);
    }

    #[rustfmt::skip]
    const V1: &[u8] = &[
        0x00, 0x00, 0x00, 0x02,                         // partition_id: int32 2
        0xa1, 0xa2, 0xa3, 0xa4, 0xb1, 0xb2, 0xc1, 0xc2,
        0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, // topic_id: uuid U_B
        0x04,                                           // replicas: compact array length+1 = 4 -> 3
        0x00, 0x00, 0x00, 0x03,                         //   replicas[0]: int32 3
        0x00, 0x00, 0x00, 0x04,                         //   replicas[1]: int32 4
        0x00, 0x00, 0x00, 0x05,                         //   replicas[2]: int32 5
        0x03,                                           // isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x03,                         //   isr[0]: int32 3
        0x00, 0x00, 0x00, 0x04,                         //   isr[1]: int32 4
        0x03,                                           // removing_replicas: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x04,                         //   removing_replicas[0]: int32 4
        0x00, 0x00, 0x00, 0x05,                         //   removing_replicas[1]: int32 5
        0x03,                                           // adding_replicas: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x06,                         //   adding_replicas[0]: int32 6
        0x00, 0x00, 0x00, 0x07,                         //   adding_replicas[1]: int32 7
        0x00, 0x00, 0x00, 0x03,                         // leader: int32 3
        0x00, 0x00, 0x00, 0x0b,                         // leader_epoch: int32 11
        0x00, 0x00, 0x00, 0x15,                         // partition_epoch: int32 21
        0x04,                                           // directories: compact array length+1 = 4 -> 3
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, //   directories[0]: uuid D1
        0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22,
        0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, //   directories[1]: uuid D2
        0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33,
        0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, //   directories[2]: uuid D3
        0x01,                                           // tagged fields: uvarint count 1
        0x00,                                           //   tag 0 (leader_recovery_state)
        0x01,                                           //   size 1
        0x01,                                           //   leader_recovery_state: int8 1
    ];

    #[test]
    fn v1() {
        let replicas = [3, 4, 5];
        let isr = [3, 4];
        let removing = [4, 5];
        let adding = [6, 7];
        let dirs = [dir(1), dir(2), dir(3)];
        let rec = PartitionRecord {
            partition_id: 2,
            topic_id: ub(),
            replicas: Array::from_slice(&replicas),
            isr: Array::from_slice(&isr),
            removing_replicas: Array::from_slice(&removing),
            adding_replicas: Array::from_slice(&adding),
            leader: 3,
            leader_recovery_state: 1,
            leader_epoch: 11,
            partition_epoch: 21,
            directories: Array::from_slice(&dirs),
            ..PartitionRecord::DEFAULT
        };
        let view = check(&rec, 1, V1);
        assert_eq!(view.leader, 3);
        let d: Vec<Uuid> = view.directories.iter().collect();
        assert_eq!(d, [dir(1), dir(2), dir(3)]);
        assert_eq!(ints(view.adding_replicas), [6, 7]);
    }

    #[rustfmt::skip]
    const V2: &[u8] = &[
        0x00, 0x00, 0x00, 0x03,                         // partition_id: int32 3
        0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
        0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, // topic_id: uuid U_C
        0x04,                                           // replicas: compact array length+1 = 4 -> 3
        0x00, 0x00, 0x00, 0x01,                         //   replicas[0]: int32 1
        0x00, 0x00, 0x00, 0x02,                         //   replicas[1]: int32 2
        0x00, 0x00, 0x00, 0x03,                         //   replicas[2]: int32 3
        0x03,                                           // isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //   isr[0]: int32 1
        0x00, 0x00, 0x00, 0x02,                         //   isr[1]: int32 2
        0x03,                                           // removing_replicas: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x03,                         //   removing_replicas[0]: int32 3
        0x00, 0x00, 0x00, 0x01,                         //   removing_replicas[1]: int32 1
        0x03,                                           // adding_replicas: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x04,                         //   adding_replicas[0]: int32 4
        0x00, 0x00, 0x00, 0x05,                         //   adding_replicas[1]: int32 5
        0x00, 0x00, 0x00, 0x02,                         // leader: int32 2
        0x00, 0x00, 0x00, 0x0c,                         // leader_epoch: int32 12
        0x00, 0x00, 0x00, 0x16,                         // partition_epoch: int32 22
        0x03,                                           // directories: compact array length+1 = 3 -> 2
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, //   directories[0]: uuid D1
        0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22,
        0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, //   directories[1]: uuid D2
        0x03,                                           // tagged fields: uvarint count 3
        0x00,                                           //   tag 0 (leader_recovery_state)
        0x01,                                           //   size 1
        0x01,                                           //   leader_recovery_state: int8 1
        0x01,                                           //   tag 1 (eligible_leader_replicas)
        0x09,                                           //   size 9
        0x03,                                           //   eligible_leader_replicas: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x02,                         //     eligible_leader_replicas[0]: int32 2
        0x00, 0x00, 0x00, 0x03,                         //     eligible_leader_replicas[1]: int32 3
        0x02,                                           //   tag 2 (last_known_elr)
        0x09,                                           //   size 9
        0x03,                                           //   last_known_elr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //     last_known_elr[0]: int32 1
        0x00, 0x00, 0x00, 0x04,                         //     last_known_elr[1]: int32 4
    ];

    #[test]
    fn v2() {
        let replicas = [1, 2, 3];
        let isr = [1, 2];
        let removing = [3, 1];
        let adding = [4, 5];
        let dirs = [dir(1), dir(2)];
        let elr = [2, 3];
        let lke = [1, 4];
        let rec = PartitionRecord {
            partition_id: 3,
            topic_id: uc(),
            replicas: Array::from_slice(&replicas),
            isr: Array::from_slice(&isr),
            removing_replicas: Array::from_slice(&removing),
            adding_replicas: Array::from_slice(&adding),
            leader: 2,
            leader_recovery_state: 1,
            leader_epoch: 12,
            partition_epoch: 22,
            directories: Array::from_slice(&dirs),
            eligible_leader_replicas: Some(Array::from_slice(&elr)),
            last_known_elr: Some(Array::from_slice(&lke)),
            unknown_tagged_fields: TaggedFields::EMPTY,
        };
        let view = check(&rec, 2, V2);
        assert_eq!(ints(view.eligible_leader_replicas.unwrap()), [2, 3]);
        assert_eq!(ints(view.last_known_elr.unwrap()), [1, 4]);
        assert_eq!(ints(view.removing_replicas), [3, 1]);
        assert_eq!(view.leader_epoch, 12);
    }

    /// v2 with a null ELR (default: not written), an empty last-known ELR (not the default:
    /// written as an empty compact array) and leader_recovery_state at its default 0 (not written).
    #[rustfmt::skip]
    const V2_NULL_ELR: &[u8] = &[
        0x00, 0x00, 0x00, 0x04,                         // partition_id: int32 4
        0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
        0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, // topic_id: uuid U_A
        0x02,                                           // replicas: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x01,                         //   replicas[0]: int32 1
        0x02,                                           // isr: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x01,                         //   isr[0]: int32 1
        0x01,                                           // removing_replicas: compact array length+1 = 1 -> empty
        0x01,                                           // adding_replicas: compact array length+1 = 1 -> empty
        0x00, 0x00, 0x00, 0x01,                         // leader: int32 1
        0x00, 0x00, 0x00, 0x00,                         // leader_epoch: int32 0
        0x00, 0x00, 0x00, 0x00,                         // partition_epoch: int32 0
        0x02,                                           // directories: compact array length+1 = 2 -> 1
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, //   directories[0]: uuid D1
        0x01,                                           // tagged fields: uvarint count 1 (tag 0 default, tag 1 null)
        0x02,                                           //   tag 2 (last_known_elr)
        0x01,                                           //   size 1
        0x01,                                           //   last_known_elr: compact array length+1 = 1 -> empty
    ];

    #[test]
    fn v2_null_elr_and_empty_last_known_elr() {
        let one = [1];
        let dirs = [dir(1)];
        let rec = PartitionRecord {
            partition_id: 4,
            topic_id: ua(),
            replicas: Array::from_slice(&one),
            isr: Array::from_slice(&one),
            leader: 1,
            leader_epoch: 0,
            partition_epoch: 0,
            directories: Array::from_slice(&dirs),
            eligible_leader_replicas: None,
            last_known_elr: Some(Array::EMPTY),
            ..PartitionRecord::DEFAULT
        };
        let view = check(&rec, 2, V2_NULL_ELR);
        assert!(view.eligible_leader_replicas.is_none());
        assert_eq!(view.last_known_elr.map(|a| a.len()), Some(0));
        assert_eq!(view.leader_recovery_state, 0);
    }
}

// ---------------------------------------------------------------------------------------------
// BrokerRegistrationRequest (API 62): valid 0-4, flexible 0+.
// broker_id, cluster_id, incarnation_id, listeners[] {name, host, port uint16,
// security_protocol int16}, features[] {name, min_supported_version, max_supported_version},
// rack (nullable), is_migrating_zk_broker (v1+), log_dirs (v2+), previous_broker_epoch (v3+).
// ---------------------------------------------------------------------------------------------

mod broker_registration_request {
    use super::*;
    use kafka_wire::messages::broker_registration_request::{BrokerRegistrationRequest, Feature, Listener};

    const LISTENERS: [Listener<'static>; 2] = [
        Listener {
            name: "SSL",
            host: "host-1",
            port: 9093,
            security_protocol: 1,
            unknown_tagged_fields: TaggedFields::EMPTY,
        },
        Listener {
            name: "INTERNAL",
            host: "10.0.0.7",
            port: 65000,
            security_protocol: 3,
            unknown_tagged_fields: TaggedFields::EMPTY,
        },
    ];
    const FEATURES: [Feature<'static>; 2] = [
        Feature {
            name: "metadata.version",
            min_supported_version: 7,
            max_supported_version: 27,
            ..Feature::DEFAULT
        },
        Feature {
            name: "group.version",
            min_supported_version: 1,
            max_supported_version: 1,
            ..Feature::DEFAULT
        },
    ];
    /// v4 may list a feature with minimum 0 (v0-v3 senders omit those).
    const FEATURES_V4: [Feature<'static>; 3] = [
        FEATURES[0],
        FEATURES[1],
        Feature {
            name: "kraft.version",
            min_supported_version: 0,
            max_supported_version: 1,
            ..Feature::DEFAULT
        },
    ];
    const LOG_DIRS: [u8; 2] = [1, 2];

    fn base<'a>(features: &'a [Feature<'a>]) -> BrokerRegistrationRequest<'a> {
        BrokerRegistrationRequest {
            broker_id: 1001,
            cluster_id: "cluster-a",
            incarnation_id: ub(),
            listeners: Array::from_slice(&LISTENERS),
            features: Array::from_slice(features),
            rack: Some("rack-1"),
            ..BrokerRegistrationRequest::DEFAULT
        }
    }

    fn spot_check(view: &BrokerRegistrationRequest<'_>) {
        assert_eq!(view.broker_id, 1001);
        assert_eq!(view.cluster_id, "cluster-a");
        assert_eq!(view.incarnation_id, ub());
        let ls: Vec<(&str, &str, u16, i16)> = view
            .listeners
            .iter()
            .map(|l| (l.name, l.host, l.port, l.security_protocol))
            .collect();
        assert_eq!(ls, [("SSL", "host-1", 9093, 1), ("INTERNAL", "10.0.0.7", 65000, 3)]);
        let f = view.features.iter().next().unwrap();
        assert_eq!(
            (f.name, f.min_supported_version, f.max_supported_version),
            ("metadata.version", 7, 27)
        );
    }

    #[rustfmt::skip]
    const V0: &[u8] = &[
        0x00, 0x00, 0x03, 0xe9,                         // broker_id: int32 1001
        0x0a,                                           // cluster_id: compact string length+1 = 10 -> 9 bytes
        b'c', b'l', b'u', b's', b't', b'e', b'r', b'-', b'a', //   "cluster-a"
        0xa1, 0xa2, 0xa3, 0xa4, 0xb1, 0xb2, 0xc1, 0xc2,
        0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, // incarnation_id: uuid U_B
        0x03,                                           // listeners: compact array length+1 = 3 -> 2
        0x04, b'S', b'S', b'L',                         //   [0].name: compact string "SSL"
        0x07, b'h', b'o', b's', b't', b'-', b'1',       //   [0].host: compact string "host-1"
        0x23, 0x85,                                     //   [0].port: uint16 9093
        0x00, 0x01,                                     //   [0].security_protocol: int16 1 (SSL)
        0x00,                                           //   [0] tagged fields: count 0
        0x09, b'I', b'N', b'T', b'E', b'R', b'N', b'A', b'L', //   [1].name: compact string "INTERNAL"
        0x09, b'1', b'0', b'.', b'0', b'.', b'0', b'.', b'7', //   [1].host: compact string "10.0.0.7"
        0xfd, 0xe8,                                     //   [1].port: uint16 65000
        0x00, 0x03,                                     //   [1].security_protocol: int16 3 (SASL_SSL)
        0x00,                                           //   [1] tagged fields: count 0
        0x03,                                           // features: compact array length+1 = 3 -> 2
        0x11, b'm', b'e', b't', b'a', b'd', b'a', b't', b'a', b'.',
              b'v', b'e', b'r', b's', b'i', b'o', b'n', //   [0].name: compact string "metadata.version" (16)
        0x00, 0x07,                                     //   [0].min_supported_version: int16 7
        0x00, 0x1b,                                     //   [0].max_supported_version: int16 27
        0x00,                                           //   [0] tagged fields: count 0
        0x0e, b'g', b'r', b'o', b'u', b'p', b'.',
              b'v', b'e', b'r', b's', b'i', b'o', b'n', //   [1].name: compact string "group.version" (13)
        0x00, 0x01,                                     //   [1].min_supported_version: int16 1
        0x00, 0x01,                                     //   [1].max_supported_version: int16 1
        0x00,                                           //   [1] tagged fields: count 0
        0x00,                                           // rack: compact nullable string 0 -> null
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v0() {
        let req = BrokerRegistrationRequest {
            rack: None,
            ..base(&FEATURES)
        };
        let view = check(&req, 0, V0);
        spot_check(&view);
        assert_eq!(view.rack, None);
    }

    #[rustfmt::skip]
    const V1: &[u8] = &[
        0x00, 0x00, 0x03, 0xe9,                         // broker_id: int32 1001
        0x0a,                                           // cluster_id: compact string length+1 = 10 -> 9 bytes
        b'c', b'l', b'u', b's', b't', b'e', b'r', b'-', b'a', //   "cluster-a"
        0xa1, 0xa2, 0xa3, 0xa4, 0xb1, 0xb2, 0xc1, 0xc2,
        0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, // incarnation_id: uuid U_B
        0x03,                                           // listeners: compact array length+1 = 3 -> 2
        0x04, b'S', b'S', b'L',                         //   [0].name: compact string "SSL"
        0x07, b'h', b'o', b's', b't', b'-', b'1',       //   [0].host: compact string "host-1"
        0x23, 0x85,                                     //   [0].port: uint16 9093
        0x00, 0x01,                                     //   [0].security_protocol: int16 1
        0x00,                                           //   [0] tagged fields: count 0
        0x09, b'I', b'N', b'T', b'E', b'R', b'N', b'A', b'L', //   [1].name: compact string "INTERNAL"
        0x09, b'1', b'0', b'.', b'0', b'.', b'0', b'.', b'7', //   [1].host: compact string "10.0.0.7"
        0xfd, 0xe8,                                     //   [1].port: uint16 65000
        0x00, 0x03,                                     //   [1].security_protocol: int16 3
        0x00,                                           //   [1] tagged fields: count 0
        0x03,                                           // features: compact array length+1 = 3 -> 2
        0x11, b'm', b'e', b't', b'a', b'd', b'a', b't', b'a', b'.',
              b'v', b'e', b'r', b's', b'i', b'o', b'n', //   [0].name: compact string "metadata.version"
        0x00, 0x07,                                     //   [0].min_supported_version: int16 7
        0x00, 0x1b,                                     //   [0].max_supported_version: int16 27
        0x00,                                           //   [0] tagged fields: count 0
        0x0e, b'g', b'r', b'o', b'u', b'p', b'.',
              b'v', b'e', b'r', b's', b'i', b'o', b'n', //   [1].name: compact string "group.version"
        0x00, 0x01,                                     //   [1].min_supported_version: int16 1
        0x00, 0x01,                                     //   [1].max_supported_version: int16 1
        0x00,                                           //   [1] tagged fields: count 0
        0x07, b'r', b'a', b'c', b'k', b'-', b'1',       // rack: compact nullable string "rack-1"
        0x01,                                           // is_migrating_zk_broker: bool true
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v1() {
        let req = BrokerRegistrationRequest {
            is_migrating_zk_broker: true,
            ..base(&FEATURES)
        };
        let view = check(&req, 1, V1);
        spot_check(&view);
        assert_eq!(view.rack, Some("rack-1"));
        assert!(view.is_migrating_zk_broker);
    }

    #[rustfmt::skip]
    const V2: &[u8] = &[
        0x00, 0x00, 0x03, 0xe9,                         // broker_id: int32 1001
        0x0a,                                           // cluster_id: compact string length+1 = 10 -> 9 bytes
        b'c', b'l', b'u', b's', b't', b'e', b'r', b'-', b'a', //   "cluster-a"
        0xa1, 0xa2, 0xa3, 0xa4, 0xb1, 0xb2, 0xc1, 0xc2,
        0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, // incarnation_id: uuid U_B
        0x03,                                           // listeners: compact array length+1 = 3 -> 2
        0x04, b'S', b'S', b'L',                         //   [0].name: compact string "SSL"
        0x07, b'h', b'o', b's', b't', b'-', b'1',       //   [0].host: compact string "host-1"
        0x23, 0x85,                                     //   [0].port: uint16 9093
        0x00, 0x01,                                     //   [0].security_protocol: int16 1
        0x00,                                           //   [0] tagged fields: count 0
        0x09, b'I', b'N', b'T', b'E', b'R', b'N', b'A', b'L', //   [1].name: compact string "INTERNAL"
        0x09, b'1', b'0', b'.', b'0', b'.', b'0', b'.', b'7', //   [1].host: compact string "10.0.0.7"
        0xfd, 0xe8,                                     //   [1].port: uint16 65000
        0x00, 0x03,                                     //   [1].security_protocol: int16 3
        0x00,                                           //   [1] tagged fields: count 0
        0x03,                                           // features: compact array length+1 = 3 -> 2
        0x11, b'm', b'e', b't', b'a', b'd', b'a', b't', b'a', b'.',
              b'v', b'e', b'r', b's', b'i', b'o', b'n', //   [0].name: compact string "metadata.version"
        0x00, 0x07,                                     //   [0].min_supported_version: int16 7
        0x00, 0x1b,                                     //   [0].max_supported_version: int16 27
        0x00,                                           //   [0] tagged fields: count 0
        0x0e, b'g', b'r', b'o', b'u', b'p', b'.',
              b'v', b'e', b'r', b's', b'i', b'o', b'n', //   [1].name: compact string "group.version"
        0x00, 0x01,                                     //   [1].min_supported_version: int16 1
        0x00, 0x01,                                     //   [1].max_supported_version: int16 1
        0x00,                                           //   [1] tagged fields: count 0
        0x07, b'r', b'a', b'c', b'k', b'-', b'1',       // rack: compact nullable string "rack-1"
        0x01,                                           // is_migrating_zk_broker: bool true
        0x03,                                           // log_dirs: compact array length+1 = 3 -> 2
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, //   log_dirs[0]: uuid D1
        0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22,
        0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, //   log_dirs[1]: uuid D2
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v2() {
        let dirs = LOG_DIRS.map(dir);
        let req = BrokerRegistrationRequest {
            is_migrating_zk_broker: true,
            log_dirs: Array::from_slice(&dirs),
            ..base(&FEATURES)
        };
        let view = check(&req, 2, V2);
        spot_check(&view);
        let d: Vec<Uuid> = view.log_dirs.iter().collect();
        assert_eq!(d, [dir(1), dir(2)]);
    }

    #[rustfmt::skip]
    const V3: &[u8] = &[
        0x00, 0x00, 0x03, 0xe9,                         // broker_id: int32 1001
        0x0a,                                           // cluster_id: compact string length+1 = 10 -> 9 bytes
        b'c', b'l', b'u', b's', b't', b'e', b'r', b'-', b'a', //   "cluster-a"
        0xa1, 0xa2, 0xa3, 0xa4, 0xb1, 0xb2, 0xc1, 0xc2,
        0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, // incarnation_id: uuid U_B
        0x03,                                           // listeners: compact array length+1 = 3 -> 2
        0x04, b'S', b'S', b'L',                         //   [0].name: compact string "SSL"
        0x07, b'h', b'o', b's', b't', b'-', b'1',       //   [0].host: compact string "host-1"
        0x23, 0x85,                                     //   [0].port: uint16 9093
        0x00, 0x01,                                     //   [0].security_protocol: int16 1
        0x00,                                           //   [0] tagged fields: count 0
        0x09, b'I', b'N', b'T', b'E', b'R', b'N', b'A', b'L', //   [1].name: compact string "INTERNAL"
        0x09, b'1', b'0', b'.', b'0', b'.', b'0', b'.', b'7', //   [1].host: compact string "10.0.0.7"
        0xfd, 0xe8,                                     //   [1].port: uint16 65000
        0x00, 0x03,                                     //   [1].security_protocol: int16 3
        0x00,                                           //   [1] tagged fields: count 0
        0x03,                                           // features: compact array length+1 = 3 -> 2
        0x11, b'm', b'e', b't', b'a', b'd', b'a', b't', b'a', b'.',
              b'v', b'e', b'r', b's', b'i', b'o', b'n', //   [0].name: compact string "metadata.version"
        0x00, 0x07,                                     //   [0].min_supported_version: int16 7
        0x00, 0x1b,                                     //   [0].max_supported_version: int16 27
        0x00,                                           //   [0] tagged fields: count 0
        0x0e, b'g', b'r', b'o', b'u', b'p', b'.',
              b'v', b'e', b'r', b's', b'i', b'o', b'n', //   [1].name: compact string "group.version"
        0x00, 0x01,                                     //   [1].min_supported_version: int16 1
        0x00, 0x01,                                     //   [1].max_supported_version: int16 1
        0x00,                                           //   [1] tagged fields: count 0
        0x07, b'r', b'a', b'c', b'k', b'-', b'1',       // rack: compact nullable string "rack-1"
        0x01,                                           // is_migrating_zk_broker: bool true
        0x03,                                           // log_dirs: compact array length+1 = 3 -> 2
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, //   log_dirs[0]: uuid D1
        0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22,
        0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, //   log_dirs[1]: uuid D2
        0x00, 0x00, 0x01, 0x1f, 0x71, 0xfb, 0x04, 0xcb, // previous_broker_epoch: int64 1234567890123 (0x11f71fb04cb)
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v3() {
        let dirs = LOG_DIRS.map(dir);
        let req = BrokerRegistrationRequest {
            is_migrating_zk_broker: true,
            log_dirs: Array::from_slice(&dirs),
            previous_broker_epoch: 1_234_567_890_123,
            ..base(&FEATURES)
        };
        let view = check(&req, 3, V3);
        spot_check(&view);
        assert_eq!(view.previous_broker_epoch, 1_234_567_890_123);
    }

    #[rustfmt::skip]
    const V4: &[u8] = &[
        0x00, 0x00, 0x03, 0xe9,                         // broker_id: int32 1001
        0x0a,                                           // cluster_id: compact string length+1 = 10 -> 9 bytes
        b'c', b'l', b'u', b's', b't', b'e', b'r', b'-', b'a', //   "cluster-a"
        0xa1, 0xa2, 0xa3, 0xa4, 0xb1, 0xb2, 0xc1, 0xc2,
        0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, // incarnation_id: uuid U_B
        0x03,                                           // listeners: compact array length+1 = 3 -> 2
        0x04, b'S', b'S', b'L',                         //   [0].name: compact string "SSL"
        0x07, b'h', b'o', b's', b't', b'-', b'1',       //   [0].host: compact string "host-1"
        0x23, 0x85,                                     //   [0].port: uint16 9093
        0x00, 0x01,                                     //   [0].security_protocol: int16 1
        0x00,                                           //   [0] tagged fields: count 0
        0x09, b'I', b'N', b'T', b'E', b'R', b'N', b'A', b'L', //   [1].name: compact string "INTERNAL"
        0x09, b'1', b'0', b'.', b'0', b'.', b'0', b'.', b'7', //   [1].host: compact string "10.0.0.7"
        0xfd, 0xe8,                                     //   [1].port: uint16 65000
        0x00, 0x03,                                     //   [1].security_protocol: int16 3
        0x00,                                           //   [1] tagged fields: count 0
        0x04,                                           // features: compact array length+1 = 4 -> 3
        0x11, b'm', b'e', b't', b'a', b'd', b'a', b't', b'a', b'.',
              b'v', b'e', b'r', b's', b'i', b'o', b'n', //   [0].name: compact string "metadata.version"
        0x00, 0x07,                                     //   [0].min_supported_version: int16 7
        0x00, 0x1b,                                     //   [0].max_supported_version: int16 27
        0x00,                                           //   [0] tagged fields: count 0
        0x0e, b'g', b'r', b'o', b'u', b'p', b'.',
              b'v', b'e', b'r', b's', b'i', b'o', b'n', //   [1].name: compact string "group.version"
        0x00, 0x01,                                     //   [1].min_supported_version: int16 1
        0x00, 0x01,                                     //   [1].max_supported_version: int16 1
        0x00,                                           //   [1] tagged fields: count 0
        0x0e, b'k', b'r', b'a', b'f', b't', b'.',
              b'v', b'e', b'r', b's', b'i', b'o', b'n', //   [2].name: compact string "kraft.version" (13)
        0x00, 0x00,                                     //   [2].min_supported_version: int16 0
        0x00, 0x01,                                     //   [2].max_supported_version: int16 1
        0x00,                                           //   [2] tagged fields: count 0
        0x07, b'r', b'a', b'c', b'k', b'-', b'1',       // rack: compact nullable string "rack-1"
        0x01,                                           // is_migrating_zk_broker: bool true
        0x03,                                           // log_dirs: compact array length+1 = 3 -> 2
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, //   log_dirs[0]: uuid D1
        0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22,
        0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, //   log_dirs[1]: uuid D2
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, // previous_broker_epoch: int64 -2
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v4() {
        let dirs = LOG_DIRS.map(dir);
        let req = BrokerRegistrationRequest {
            is_migrating_zk_broker: true,
            log_dirs: Array::from_slice(&dirs),
            previous_broker_epoch: -2,
            ..base(&FEATURES_V4)
        };
        let view = check(&req, 4, V4);
        spot_check(&view);
        let names: Vec<&str> = view.features.iter().map(|f| f.name).collect();
        assert_eq!(names, ["metadata.version", "group.version", "kraft.version"]);
        assert_eq!(view.previous_broker_epoch, -2);
    }
}

// ---------------------------------------------------------------------------------------------
// AlterPartitionRequest (API 56): valid 0-3 (0-1 from Kafka 3.9.1), flexible 0+.
// broker_id, broker_epoch, topics[] {topic_name (v0-1) | topic_id (v2+), partitions[]
// {partition_index, leader_epoch, new_isr (v0-2) | new_isr_with_epochs[] {broker_id,
// broker_epoch} (v3), leader_recovery_state (v1+), partition_epoch}}.
// ---------------------------------------------------------------------------------------------

mod alter_partition_request {
    use super::*;
    use kafka_wire::messages::alter_partition_request::{AlterPartitionRequest, BrokerState, PartitionData, TopicData};

    const ISR_1: [i32; 2] = [1, 2];
    const ISR_2: [i32; 2] = [2, 3];
    const ISR_3: [i32; 2] = [3, 1];

    /// The three partitions at v0-v2 (new_isr); `lrs` is leader_recovery_state (v1+).
    fn parts_isr(lrs: i8) -> ([PartitionData<'static>; 2], [PartitionData<'static>; 1]) {
        let p = |index, epoch, isr: &'static [i32], pe| PartitionData {
            partition_index: index,
            leader_epoch: epoch,
            new_isr: Array::from_slice(isr),
            leader_recovery_state: lrs,
            partition_epoch: pe,
            ..PartitionData::DEFAULT
        };
        ([p(1, 5, &ISR_1, 9), p(2, 6, &ISR_2, 10)], [p(3, 7, &ISR_3, 11)])
    }

    fn spot_check(view: &AlterPartitionRequest<'_>) {
        assert_eq!(view.broker_id, 2);
        assert_eq!(view.broker_epoch, 4_294_967_301);
        assert_eq!(view.topics.len(), 2);
        let idx: Vec<Vec<(i32, i32, i32)>> = view
            .topics
            .iter()
            .map(|t| {
                t.partitions
                    .iter()
                    .map(|p| (p.partition_index, p.leader_epoch, p.partition_epoch))
                    .collect()
            })
            .collect();
        assert_eq!(idx, [vec![(1, 5, 9), (2, 6, 10)], vec![(3, 7, 11)]]);
    }

    #[rustfmt::skip]
    const V0: &[u8] = &[
        0x00, 0x00, 0x00, 0x02,                         // broker_id: int32 2
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x05, // broker_epoch: int64 4294967301 (0x1_0000_0005)
        0x03,                                           // topics: compact array length+1 = 3 -> 2
        0x04, b'f', b'o', b'o',                         //   [0].topic_name: compact string "foo"
        0x03,                                           //   [0].partitions: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //     [0].partition_index: int32 1
        0x00, 0x00, 0x00, 0x05,                         //     [0].leader_epoch: int32 5
        0x03,                                           //     [0].new_isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //       int32 1
        0x00, 0x00, 0x00, 0x02,                         //       int32 2
        0x00, 0x00, 0x00, 0x09,                         //     [0].partition_epoch: int32 9
        0x00,                                           //     [0] tagged fields: count 0
        0x00, 0x00, 0x00, 0x02,                         //     [1].partition_index: int32 2
        0x00, 0x00, 0x00, 0x06,                         //     [1].leader_epoch: int32 6
        0x03,                                           //     [1].new_isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x02,                         //       int32 2
        0x00, 0x00, 0x00, 0x03,                         //       int32 3
        0x00, 0x00, 0x00, 0x0a,                         //     [1].partition_epoch: int32 10
        0x00,                                           //     [1] tagged fields: count 0
        0x00,                                           //   [0] tagged fields: count 0
        0x04, b'b', b'a', b'r',                         //   [1].topic_name: compact string "bar"
        0x02,                                           //   [1].partitions: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x03,                         //     [0].partition_index: int32 3
        0x00, 0x00, 0x00, 0x07,                         //     [0].leader_epoch: int32 7
        0x03,                                           //     [0].new_isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x03,                         //       int32 3
        0x00, 0x00, 0x00, 0x01,                         //       int32 1
        0x00, 0x00, 0x00, 0x0b,                         //     [0].partition_epoch: int32 11
        0x00,                                           //     [0] tagged fields: count 0
        0x00,                                           //   [1] tagged fields: count 0
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v0() {
        let (p1, p2) = parts_isr(0);
        let topics = [
            TopicData {
                topic_name: "foo",
                partitions: Array::from_slice(&p1),
                ..TopicData::DEFAULT
            },
            TopicData {
                topic_name: "bar",
                partitions: Array::from_slice(&p2),
                ..TopicData::DEFAULT
            },
        ];
        let req = AlterPartitionRequest {
            broker_id: 2,
            broker_epoch: 4_294_967_301,
            topics: Array::from_slice(&topics),
            ..AlterPartitionRequest::DEFAULT
        };
        let view = check(&req, 0, V0);
        spot_check(&view);
        let names: Vec<&str> = view.topics.iter().map(|t| t.topic_name).collect();
        assert_eq!(names, ["foo", "bar"]);
        let isr: Vec<i32> = view
            .topics
            .iter()
            .nth(1)
            .unwrap()
            .partitions
            .iter()
            .next()
            .unwrap()
            .new_isr
            .iter()
            .collect();
        assert_eq!(isr, [3, 1]);
    }

    #[rustfmt::skip]
    const V1: &[u8] = &[
        0x00, 0x00, 0x00, 0x02,                         // broker_id: int32 2
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x05, // broker_epoch: int64 4294967301
        0x03,                                           // topics: compact array length+1 = 3 -> 2
        0x04, b'f', b'o', b'o',                         //   [0].topic_name: compact string "foo"
        0x03,                                           //   [0].partitions: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //     [0].partition_index: int32 1
        0x00, 0x00, 0x00, 0x05,                         //     [0].leader_epoch: int32 5
        0x03,                                           //     [0].new_isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //       int32 1
        0x00, 0x00, 0x00, 0x02,                         //       int32 2
        0x01,                                           //     [0].leader_recovery_state: int8 1
        0x00, 0x00, 0x00, 0x09,                         //     [0].partition_epoch: int32 9
        0x00,                                           //     [0] tagged fields: count 0
        0x00, 0x00, 0x00, 0x02,                         //     [1].partition_index: int32 2
        0x00, 0x00, 0x00, 0x06,                         //     [1].leader_epoch: int32 6
        0x03,                                           //     [1].new_isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x02,                         //       int32 2
        0x00, 0x00, 0x00, 0x03,                         //       int32 3
        0x01,                                           //     [1].leader_recovery_state: int8 1
        0x00, 0x00, 0x00, 0x0a,                         //     [1].partition_epoch: int32 10
        0x00,                                           //     [1] tagged fields: count 0
        0x00,                                           //   [0] tagged fields: count 0
        0x04, b'b', b'a', b'r',                         //   [1].topic_name: compact string "bar"
        0x02,                                           //   [1].partitions: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x03,                         //     [0].partition_index: int32 3
        0x00, 0x00, 0x00, 0x07,                         //     [0].leader_epoch: int32 7
        0x03,                                           //     [0].new_isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x03,                         //       int32 3
        0x00, 0x00, 0x00, 0x01,                         //       int32 1
        0x01,                                           //     [0].leader_recovery_state: int8 1
        0x00, 0x00, 0x00, 0x0b,                         //     [0].partition_epoch: int32 11
        0x00,                                           //     [0] tagged fields: count 0
        0x00,                                           //   [1] tagged fields: count 0
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v1() {
        let (p1, p2) = parts_isr(1);
        let topics = [
            TopicData {
                topic_name: "foo",
                partitions: Array::from_slice(&p1),
                ..TopicData::DEFAULT
            },
            TopicData {
                topic_name: "bar",
                partitions: Array::from_slice(&p2),
                ..TopicData::DEFAULT
            },
        ];
        let req = AlterPartitionRequest {
            broker_id: 2,
            broker_epoch: 4_294_967_301,
            topics: Array::from_slice(&topics),
            ..AlterPartitionRequest::DEFAULT
        };
        let view = check(&req, 1, V1);
        spot_check(&view);
        let lrs: Vec<i8> = view
            .topics
            .iter()
            .flat_map(|t| t.partitions.iter().map(|p| p.leader_recovery_state))
            .collect();
        assert_eq!(lrs, [1, 1, 1]);
    }

    #[rustfmt::skip]
    const V2: &[u8] = &[
        0x00, 0x00, 0x00, 0x02,                         // broker_id: int32 2
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x05, // broker_epoch: int64 4294967301
        0x03,                                           // topics: compact array length+1 = 3 -> 2
        0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
        0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, //   [0].topic_id: uuid U_A
        0x03,                                           //   [0].partitions: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //     [0].partition_index: int32 1
        0x00, 0x00, 0x00, 0x05,                         //     [0].leader_epoch: int32 5
        0x03,                                           //     [0].new_isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //       int32 1
        0x00, 0x00, 0x00, 0x02,                         //       int32 2
        0x01,                                           //     [0].leader_recovery_state: int8 1
        0x00, 0x00, 0x00, 0x09,                         //     [0].partition_epoch: int32 9
        0x00,                                           //     [0] tagged fields: count 0
        0x00, 0x00, 0x00, 0x02,                         //     [1].partition_index: int32 2
        0x00, 0x00, 0x00, 0x06,                         //     [1].leader_epoch: int32 6
        0x03,                                           //     [1].new_isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x02,                         //       int32 2
        0x00, 0x00, 0x00, 0x03,                         //       int32 3
        0x01,                                           //     [1].leader_recovery_state: int8 1
        0x00, 0x00, 0x00, 0x0a,                         //     [1].partition_epoch: int32 10
        0x00,                                           //     [1] tagged fields: count 0
        0x00,                                           //   [0] tagged fields: count 0
        0xa1, 0xa2, 0xa3, 0xa4, 0xb1, 0xb2, 0xc1, 0xc2,
        0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, //   [1].topic_id: uuid U_B
        0x02,                                           //   [1].partitions: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x03,                         //     [0].partition_index: int32 3
        0x00, 0x00, 0x00, 0x07,                         //     [0].leader_epoch: int32 7
        0x03,                                           //     [0].new_isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x03,                         //       int32 3
        0x00, 0x00, 0x00, 0x01,                         //       int32 1
        0x01,                                           //     [0].leader_recovery_state: int8 1
        0x00, 0x00, 0x00, 0x0b,                         //     [0].partition_epoch: int32 11
        0x00,                                           //     [0] tagged fields: count 0
        0x00,                                           //   [1] tagged fields: count 0
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v2() {
        let (p1, p2) = parts_isr(1);
        let topics = [
            TopicData {
                topic_id: ua(),
                partitions: Array::from_slice(&p1),
                ..TopicData::DEFAULT
            },
            TopicData {
                topic_id: ub(),
                partitions: Array::from_slice(&p2),
                ..TopicData::DEFAULT
            },
        ];
        let req = AlterPartitionRequest {
            broker_id: 2,
            broker_epoch: 4_294_967_301,
            topics: Array::from_slice(&topics),
            ..AlterPartitionRequest::DEFAULT
        };
        let view = check(&req, 2, V2);
        spot_check(&view);
        let ids: Vec<Uuid> = view.topics.iter().map(|t| t.topic_id).collect();
        assert_eq!(ids, [ua(), ub()]);
        assert!(view.topics.iter().all(|t| t.topic_name.is_empty()));
    }

    #[rustfmt::skip]
    const V3: &[u8] = &[
        0x00, 0x00, 0x00, 0x02,                         // broker_id: int32 2
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x05, // broker_epoch: int64 4294967301
        0x03,                                           // topics: compact array length+1 = 3 -> 2
        0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
        0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, //   [0].topic_id: uuid U_A
        0x03,                                           //   [0].partitions: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //     [0].partition_index: int32 1
        0x00, 0x00, 0x00, 0x05,                         //     [0].leader_epoch: int32 5
        0x03,                                           //     [0].new_isr_with_epochs: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //       [0].broker_id: int32 1
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x65, //       [0].broker_epoch: int64 101
        0x00,                                           //       [0] tagged fields: count 0
        0x00, 0x00, 0x00, 0x02,                         //       [1].broker_id: int32 2
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x66, //       [1].broker_epoch: int64 102
        0x00,                                           //       [1] tagged fields: count 0
        0x01,                                           //     [0].leader_recovery_state: int8 1
        0x00, 0x00, 0x00, 0x09,                         //     [0].partition_epoch: int32 9
        0x00,                                           //     [0] tagged fields: count 0
        0x00, 0x00, 0x00, 0x02,                         //     [1].partition_index: int32 2
        0x00, 0x00, 0x00, 0x06,                         //     [1].leader_epoch: int32 6
        0x03,                                           //     [1].new_isr_with_epochs: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x02,                         //       [0].broker_id: int32 2
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x66, //       [0].broker_epoch: int64 102
        0x00,                                           //       [0] tagged fields: count 0
        0x00, 0x00, 0x00, 0x03,                         //       [1].broker_id: int32 3
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x67, //       [1].broker_epoch: int64 103
        0x00,                                           //       [1] tagged fields: count 0
        0x01,                                           //     [1].leader_recovery_state: int8 1
        0x00, 0x00, 0x00, 0x0a,                         //     [1].partition_epoch: int32 10
        0x00,                                           //     [1] tagged fields: count 0
        0x00,                                           //   [0] tagged fields: count 0
        0xa1, 0xa2, 0xa3, 0xa4, 0xb1, 0xb2, 0xc1, 0xc2,
        0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, //   [1].topic_id: uuid U_B
        0x02,                                           //   [1].partitions: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x03,                         //     [0].partition_index: int32 3
        0x00, 0x00, 0x00, 0x07,                         //     [0].leader_epoch: int32 7
        0x03,                                           //     [0].new_isr_with_epochs: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x03,                         //       [0].broker_id: int32 3
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x67, //       [0].broker_epoch: int64 103
        0x00,                                           //       [0] tagged fields: count 0
        0x00, 0x00, 0x00, 0x01,                         //       [1].broker_id: int32 1
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x65, //       [1].broker_epoch: int64 101
        0x00,                                           //       [1] tagged fields: count 0
        0x01,                                           //     [0].leader_recovery_state: int8 1
        0x00, 0x00, 0x00, 0x0b,                         //     [0].partition_epoch: int32 11
        0x00,                                           //     [0] tagged fields: count 0
        0x00,                                           //   [1] tagged fields: count 0
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v3() {
        let bs = |broker_id, broker_epoch| BrokerState {
            broker_id,
            broker_epoch,
            ..BrokerState::DEFAULT
        };
        let e1 = [bs(1, 101), bs(2, 102)];
        let e2 = [bs(2, 102), bs(3, 103)];
        let e3 = [bs(3, 103), bs(1, 101)];
        let p = |index, epoch, isr, pe| PartitionData {
            partition_index: index,
            leader_epoch: epoch,
            new_isr_with_epochs: isr,
            leader_recovery_state: 1,
            partition_epoch: pe,
            ..PartitionData::DEFAULT
        };
        let p1 = [p(1, 5, Array::from_slice(&e1), 9), p(2, 6, Array::from_slice(&e2), 10)];
        let p2 = [p(3, 7, Array::from_slice(&e3), 11)];
        let topics = [
            TopicData {
                topic_id: ua(),
                partitions: Array::from_slice(&p1),
                ..TopicData::DEFAULT
            },
            TopicData {
                topic_id: ub(),
                partitions: Array::from_slice(&p2),
                ..TopicData::DEFAULT
            },
        ];
        let req = AlterPartitionRequest {
            broker_id: 2,
            broker_epoch: 4_294_967_301,
            topics: Array::from_slice(&topics),
            ..AlterPartitionRequest::DEFAULT
        };
        let view = check(&req, 3, V3);
        spot_check(&view);
        let first = view.topics.iter().next().unwrap().partitions.iter().nth(1).unwrap();
        let epochs: Vec<(i32, i64)> = first
            .new_isr_with_epochs
            .iter()
            .map(|b| (b.broker_id, b.broker_epoch))
            .collect();
        assert_eq!(epochs, [(2, 102), (3, 103)]);
        assert!(first.new_isr.is_empty());
    }
}

// ---------------------------------------------------------------------------------------------
// AlterPartitionResponse (API 56): valid 0-3 (0-1 from Kafka 3.9.1), flexible 0+.
// throttle_time_ms, error_code, topics[] {topic_name (v0-1) | topic_id (v2+), partitions[]
// {partition_index, error_code, leader_id, leader_epoch, isr[], leader_recovery_state (v1+),
// partition_epoch}}.
// ---------------------------------------------------------------------------------------------

mod alter_partition_response {
    use super::*;
    use kafka_wire::messages::alter_partition_response::{AlterPartitionResponse, PartitionData, TopicData};

    const ISR_1: [i32; 2] = [1, 2];
    const ISR_2: [i32; 2] = [2, 3];
    const ISR_3: [i32; 2] = [3, 1];

    fn parts(lrs: i8) -> ([PartitionData<'static>; 2], [PartitionData<'static>; 1]) {
        let p = |index, err, leader, epoch, isr: &'static [i32], pe| PartitionData {
            partition_index: index,
            error_code: err,
            leader_id: leader,
            leader_epoch: epoch,
            isr: Array::from_slice(isr),
            leader_recovery_state: lrs,
            partition_epoch: pe,
            ..PartitionData::DEFAULT
        };
        (
            [p(1, 9, 1, 5, &ISR_1, 9), p(2, 6, 2, 6, &ISR_2, 10)],
            [p(3, 7, 3, 7, &ISR_3, 11)],
        )
    }

    fn build<'a>(topics: &'a [TopicData<'a>]) -> AlterPartitionResponse<'a> {
        AlterPartitionResponse {
            throttle_time_ms: 50,
            error_code: 41,
            topics: Array::from_slice(topics),
            ..AlterPartitionResponse::DEFAULT
        }
    }

    fn spot_check(view: &AlterPartitionResponse<'_>) {
        assert_eq!(view.throttle_time_ms, 50);
        assert_eq!(view.error_code, 41);
        let ps: Vec<(i32, i16, i32, i32, Vec<i32>, i32)> = view
            .topics
            .iter()
            .flat_map(|t| t.partitions.iter())
            .map(|p| {
                (
                    p.partition_index,
                    p.error_code,
                    p.leader_id,
                    p.leader_epoch,
                    p.isr.iter().collect(),
                    p.partition_epoch,
                )
            })
            .collect();
        assert_eq!(
            ps,
            [
                (1, 9, 1, 5, vec![1, 2], 9),
                (2, 6, 2, 6, vec![2, 3], 10),
                (3, 7, 3, 7, vec![3, 1], 11)
            ]
        );
    }

    #[rustfmt::skip]
    const V0: &[u8] = &[
        0x00, 0x00, 0x00, 0x32,                         // throttle_time_ms: int32 50
        0x00, 0x29,                                     // error_code: int16 41
        0x03,                                           // topics: compact array length+1 = 3 -> 2
        0x04, b'f', b'o', b'o',                         //   [0].topic_name: compact string "foo"
        0x03,                                           //   [0].partitions: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //     [0].partition_index: int32 1
        0x00, 0x09,                                     //     [0].error_code: int16 9
        0x00, 0x00, 0x00, 0x01,                         //     [0].leader_id: int32 1
        0x00, 0x00, 0x00, 0x05,                         //     [0].leader_epoch: int32 5
        0x03,                                           //     [0].isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //       int32 1
        0x00, 0x00, 0x00, 0x02,                         //       int32 2
        0x00, 0x00, 0x00, 0x09,                         //     [0].partition_epoch: int32 9
        0x00,                                           //     [0] tagged fields: count 0
        0x00, 0x00, 0x00, 0x02,                         //     [1].partition_index: int32 2
        0x00, 0x06,                                     //     [1].error_code: int16 6
        0x00, 0x00, 0x00, 0x02,                         //     [1].leader_id: int32 2
        0x00, 0x00, 0x00, 0x06,                         //     [1].leader_epoch: int32 6
        0x03,                                           //     [1].isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x02,                         //       int32 2
        0x00, 0x00, 0x00, 0x03,                         //       int32 3
        0x00, 0x00, 0x00, 0x0a,                         //     [1].partition_epoch: int32 10
        0x00,                                           //     [1] tagged fields: count 0
        0x00,                                           //   [0] tagged fields: count 0
        0x04, b'b', b'a', b'r',                         //   [1].topic_name: compact string "bar"
        0x02,                                           //   [1].partitions: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x03,                         //     [0].partition_index: int32 3
        0x00, 0x07,                                     //     [0].error_code: int16 7
        0x00, 0x00, 0x00, 0x03,                         //     [0].leader_id: int32 3
        0x00, 0x00, 0x00, 0x07,                         //     [0].leader_epoch: int32 7
        0x03,                                           //     [0].isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x03,                         //       int32 3
        0x00, 0x00, 0x00, 0x01,                         //       int32 1
        0x00, 0x00, 0x00, 0x0b,                         //     [0].partition_epoch: int32 11
        0x00,                                           //     [0] tagged fields: count 0
        0x00,                                           //   [1] tagged fields: count 0
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v0() {
        let (p1, p2) = parts(0);
        let topics = [
            TopicData {
                topic_name: "foo",
                partitions: Array::from_slice(&p1),
                ..TopicData::DEFAULT
            },
            TopicData {
                topic_name: "bar",
                partitions: Array::from_slice(&p2),
                ..TopicData::DEFAULT
            },
        ];
        let resp = build(&topics);
        let view = check(&resp, 0, V0);
        spot_check(&view);
        let names: Vec<&str> = view.topics.iter().map(|t| t.topic_name).collect();
        assert_eq!(names, ["foo", "bar"]);
    }

    #[rustfmt::skip]
    const V1: &[u8] = &[
        0x00, 0x00, 0x00, 0x32,                         // throttle_time_ms: int32 50
        0x00, 0x29,                                     // error_code: int16 41
        0x03,                                           // topics: compact array length+1 = 3 -> 2
        0x04, b'f', b'o', b'o',                         //   [0].topic_name: compact string "foo"
        0x03,                                           //   [0].partitions: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //     [0].partition_index: int32 1
        0x00, 0x09,                                     //     [0].error_code: int16 9
        0x00, 0x00, 0x00, 0x01,                         //     [0].leader_id: int32 1
        0x00, 0x00, 0x00, 0x05,                         //     [0].leader_epoch: int32 5
        0x03,                                           //     [0].isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //       int32 1
        0x00, 0x00, 0x00, 0x02,                         //       int32 2
        0x01,                                           //     [0].leader_recovery_state: int8 1
        0x00, 0x00, 0x00, 0x09,                         //     [0].partition_epoch: int32 9
        0x00,                                           //     [0] tagged fields: count 0
        0x00, 0x00, 0x00, 0x02,                         //     [1].partition_index: int32 2
        0x00, 0x06,                                     //     [1].error_code: int16 6
        0x00, 0x00, 0x00, 0x02,                         //     [1].leader_id: int32 2
        0x00, 0x00, 0x00, 0x06,                         //     [1].leader_epoch: int32 6
        0x03,                                           //     [1].isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x02,                         //       int32 2
        0x00, 0x00, 0x00, 0x03,                         //       int32 3
        0x01,                                           //     [1].leader_recovery_state: int8 1
        0x00, 0x00, 0x00, 0x0a,                         //     [1].partition_epoch: int32 10
        0x00,                                           //     [1] tagged fields: count 0
        0x00,                                           //   [0] tagged fields: count 0
        0x04, b'b', b'a', b'r',                         //   [1].topic_name: compact string "bar"
        0x02,                                           //   [1].partitions: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x03,                         //     [0].partition_index: int32 3
        0x00, 0x07,                                     //     [0].error_code: int16 7
        0x00, 0x00, 0x00, 0x03,                         //     [0].leader_id: int32 3
        0x00, 0x00, 0x00, 0x07,                         //     [0].leader_epoch: int32 7
        0x03,                                           //     [0].isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x03,                         //       int32 3
        0x00, 0x00, 0x00, 0x01,                         //       int32 1
        0x01,                                           //     [0].leader_recovery_state: int8 1
        0x00, 0x00, 0x00, 0x0b,                         //     [0].partition_epoch: int32 11
        0x00,                                           //     [0] tagged fields: count 0
        0x00,                                           //   [1] tagged fields: count 0
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v1() {
        let (p1, p2) = parts(1);
        let topics = [
            TopicData {
                topic_name: "foo",
                partitions: Array::from_slice(&p1),
                ..TopicData::DEFAULT
            },
            TopicData {
                topic_name: "bar",
                partitions: Array::from_slice(&p2),
                ..TopicData::DEFAULT
            },
        ];
        let resp = build(&topics);
        let view = check(&resp, 1, V1);
        spot_check(&view);
        assert!(view
            .topics
            .iter()
            .flat_map(|t| t.partitions.iter())
            .all(|p| p.leader_recovery_state == 1));
    }

    #[rustfmt::skip]
    const V2: &[u8] = &[
        0x00, 0x00, 0x00, 0x32,                         // throttle_time_ms: int32 50
        0x00, 0x29,                                     // error_code: int16 41
        0x03,                                           // topics: compact array length+1 = 3 -> 2
        0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
        0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, //   [0].topic_id: uuid U_A
        0x03,                                           //   [0].partitions: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //     [0].partition_index: int32 1
        0x00, 0x09,                                     //     [0].error_code: int16 9
        0x00, 0x00, 0x00, 0x01,                         //     [0].leader_id: int32 1
        0x00, 0x00, 0x00, 0x05,                         //     [0].leader_epoch: int32 5
        0x03,                                           //     [0].isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //       int32 1
        0x00, 0x00, 0x00, 0x02,                         //       int32 2
        0x01,                                           //     [0].leader_recovery_state: int8 1
        0x00, 0x00, 0x00, 0x09,                         //     [0].partition_epoch: int32 9
        0x00,                                           //     [0] tagged fields: count 0
        0x00, 0x00, 0x00, 0x02,                         //     [1].partition_index: int32 2
        0x00, 0x06,                                     //     [1].error_code: int16 6
        0x00, 0x00, 0x00, 0x02,                         //     [1].leader_id: int32 2
        0x00, 0x00, 0x00, 0x06,                         //     [1].leader_epoch: int32 6
        0x03,                                           //     [1].isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x02,                         //       int32 2
        0x00, 0x00, 0x00, 0x03,                         //       int32 3
        0x01,                                           //     [1].leader_recovery_state: int8 1
        0x00, 0x00, 0x00, 0x0a,                         //     [1].partition_epoch: int32 10
        0x00,                                           //     [1] tagged fields: count 0
        0x00,                                           //   [0] tagged fields: count 0
        0xa1, 0xa2, 0xa3, 0xa4, 0xb1, 0xb2, 0xc1, 0xc2,
        0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, //   [1].topic_id: uuid U_B
        0x02,                                           //   [1].partitions: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x03,                         //     [0].partition_index: int32 3
        0x00, 0x07,                                     //     [0].error_code: int16 7
        0x00, 0x00, 0x00, 0x03,                         //     [0].leader_id: int32 3
        0x00, 0x00, 0x00, 0x07,                         //     [0].leader_epoch: int32 7
        0x03,                                           //     [0].isr: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x03,                         //       int32 3
        0x00, 0x00, 0x00, 0x01,                         //       int32 1
        0x01,                                           //     [0].leader_recovery_state: int8 1
        0x00, 0x00, 0x00, 0x0b,                         //     [0].partition_epoch: int32 11
        0x00,                                           //     [0] tagged fields: count 0
        0x00,                                           //   [1] tagged fields: count 0
        0x00,                                           // tagged fields: count 0
    ];

    fn by_id<'a>(p1: &'a [PartitionData<'a>], p2: &'a [PartitionData<'a>]) -> [TopicData<'a>; 2] {
        [
            TopicData {
                topic_id: ua(),
                partitions: Array::from_slice(p1),
                ..TopicData::DEFAULT
            },
            TopicData {
                topic_id: ub(),
                partitions: Array::from_slice(p2),
                ..TopicData::DEFAULT
            },
        ]
    }

    #[test]
    fn v2() {
        let (p1, p2) = parts(1);
        let topics = by_id(&p1, &p2);
        let resp = build(&topics);
        let view = check(&resp, 2, V2);
        spot_check(&view);
        let ids: Vec<Uuid> = view.topics.iter().map(|t| t.topic_id).collect();
        assert_eq!(ids, [ua(), ub()]);
    }

    /// Version 3 is the same as version 2 on the wire (KIP-903 only changed the request).
    const V3: &[u8] = V2;

    #[test]
    fn v3() {
        let (p1, p2) = parts(1);
        let topics = by_id(&p1, &p2);
        let resp = build(&topics);
        let view = check(&resp, 3, V3);
        spot_check(&view);
        assert_eq!(view.topics.iter().nth(1).unwrap().topic_id, ub());
    }
}

// ---------------------------------------------------------------------------------------------
// DescribeMirrorsRequest (KIP-1279 draft): valid 0, flexible 0+.
// mirror_names: nullable []string (default null), include_authorized_operations: bool.
// ---------------------------------------------------------------------------------------------

mod describe_mirrors_request {
    use super::*;
    use kafka_wire::messages::describe_mirrors_request::DescribeMirrorsRequest;

    #[rustfmt::skip]
    const V0: &[u8] = &[
        0x03,                                           // mirror_names: compact nullable array length+1 = 3 -> 2
        0x03, b'm', b'1',                               //   [0]: compact string "m1"
        0x09, b'm', b'i', b'r', b'r', b'o', b'r', b'-', b'2', //   [1]: compact string "mirror-2"
        0x01,                                           // include_authorized_operations: bool true
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v0() {
        let names = ["m1", "mirror-2"];
        let req = DescribeMirrorsRequest {
            mirror_names: Some(Array::from_slice(&names)),
            include_authorized_operations: true,
            ..DescribeMirrorsRequest::DEFAULT
        };
        let view = check(&req, 0, V0);
        let got: Vec<&str> = view.mirror_names.unwrap().iter().collect();
        assert_eq!(got, ["m1", "mirror-2"]);
        assert!(view.include_authorized_operations);
    }

    #[rustfmt::skip]
    const V0_NULL: &[u8] = &[
        0x00,                                           // mirror_names: compact nullable array 0 -> null (every mirror)
        0x01,                                           // include_authorized_operations: bool true
        0x00,                                           // tagged fields: count 0
    ];

    #[rustfmt::skip]
    const V0_EMPTY: &[u8] = &[
        0x01,                                           // mirror_names: compact nullable array length+1 = 1 -> empty
        0x00,                                           // include_authorized_operations: bool false
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v0_null_and_empty_mirror_names() {
        let req = DescribeMirrorsRequest {
            mirror_names: None,
            include_authorized_operations: true,
            ..DescribeMirrorsRequest::DEFAULT
        };
        let view = check(&req, 0, V0_NULL);
        assert!(view.mirror_names.is_none());

        let req = DescribeMirrorsRequest {
            mirror_names: Some(Array::EMPTY),
            ..DescribeMirrorsRequest::DEFAULT
        };
        let view = check(&req, 0, V0_EMPTY);
        assert_eq!(view.mirror_names.map(|a| a.len()), Some(0));
        assert!(!view.include_authorized_operations);
    }
}

// ---------------------------------------------------------------------------------------------
// DescribeMirrorsResponse (KIP-1279 draft): valid 0, flexible 0+.
// throttle_time_ms, error_code, error_message (nullable), mirrors[] {error_code, mirror_name,
// authorized_operations, topics[] {topic_name, partitions[] {partition_index, source_offset,
// destination_offset, lag, state, last_mirror_epoch}}}.
// ---------------------------------------------------------------------------------------------

mod describe_mirrors_response {
    use super::*;
    use kafka_wire::messages::describe_mirrors_response::{
        DescribeMirrorsResponse, DescribedMirror, PartitionDetail, TopicPartitions,
    };

    #[rustfmt::skip]
    const V0: &[u8] = &[
        0x00, 0x00, 0x00, 0x64,                         // throttle_time_ms: int32 100
        0x00, 0x2a,                                     // error_code: int16 42
        0x08, b'p', b'a', b'r', b't', b'i', b'a', b'l', // error_message: compact nullable string "partial"
        0x03,                                           // mirrors: compact array length+1 = 3 -> 2
        0x00, 0x01,                                     //   [0].error_code: int16 1
        0x03, b'm', b'1',                               //   [0].mirror_name: compact string "m1"
        0x00, 0x00, 0x04, 0x08,                         //   [0].authorized_operations: int32 1032
        0x03,                                           //   [0].topics: compact array length+1 = 3 -> 2
        0x03, b't', b'1',                               //     [0].topic_name: compact string "t1"
        0x03,                                           //     [0].partitions: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //       [0].partition_index: int32 1
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe8, //       [0].source_offset: int64 1000
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xde, //       [0].destination_offset: int64 990
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, //       [0].lag: int64 10
        0x07, b'a', b'c', b't', b'i', b'v', b'e',       //       [0].state: compact string "active"
        0x00, 0x00, 0x00, 0x03,                         //       [0].last_mirror_epoch: int32 3
        0x00,                                           //       [0] tagged fields: count 0
        0x00, 0x00, 0x00, 0x02,                         //       [1].partition_index: int32 2
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, //       [1].source_offset: int64 4294967296
        0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xfe, 0xd8, //       [1].destination_offset: int64 4294967000
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x28, //       [1].lag: int64 296
        0x07, b'p', b'a', b'u', b's', b'e', b'd',       //       [1].state: compact string "paused"
        0x00, 0x00, 0x00, 0x04,                         //       [1].last_mirror_epoch: int32 4
        0x00,                                           //       [1] tagged fields: count 0
        0x00,                                           //     [0] tagged fields: count 0
        0x03, b't', b'2',                               //     [1].topic_name: compact string "t2"
        0x01,                                           //     [1].partitions: compact array length+1 = 1 -> empty
        0x00,                                           //     [1] tagged fields: count 0
        0x00,                                           //   [0] tagged fields: count 0
        0x00, 0x03,                                     //   [1].error_code: int16 3
        0x09, b'm', b'i', b'r', b'r', b'o', b'r', b'-', b'2', //   [1].mirror_name: compact string "mirror-2"
        0x00, 0x00, 0x00, 0x08,                         //   [1].authorized_operations: int32 8
        0x01,                                           //   [1].topics: compact array length+1 = 1 -> empty
        0x00,                                           //   [1] tagged fields: count 0
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v0() {
        let parts = [
            PartitionDetail {
                partition_index: 1,
                source_offset: 1000,
                destination_offset: 990,
                lag: 10,
                state: "active",
                last_mirror_epoch: 3,
                ..PartitionDetail::DEFAULT
            },
            PartitionDetail {
                partition_index: 2,
                source_offset: 4_294_967_296,
                destination_offset: 4_294_967_000,
                lag: 296,
                state: "paused",
                last_mirror_epoch: 4,
                ..PartitionDetail::DEFAULT
            },
        ];
        let topics = [
            TopicPartitions {
                topic_name: "t1",
                partitions: Array::from_slice(&parts),
                ..TopicPartitions::DEFAULT
            },
            TopicPartitions {
                topic_name: "t2",
                partitions: Array::EMPTY,
                ..TopicPartitions::DEFAULT
            },
        ];
        let mirrors = [
            DescribedMirror {
                error_code: 1,
                mirror_name: "m1",
                authorized_operations: 1032,
                topics: Array::from_slice(&topics),
                ..DescribedMirror::DEFAULT
            },
            DescribedMirror {
                error_code: 3,
                mirror_name: "mirror-2",
                authorized_operations: 8,
                ..DescribedMirror::DEFAULT
            },
        ];
        let resp = DescribeMirrorsResponse {
            throttle_time_ms: 100,
            error_code: 42,
            error_message: Some("partial"),
            mirrors: Array::from_slice(&mirrors),
            ..DescribeMirrorsResponse::DEFAULT
        };
        let view = check(&resp, 0, V0);
        assert_eq!(view.error_message, Some("partial"));
        let names: Vec<&str> = view.mirrors.iter().map(|m| m.mirror_name).collect();
        assert_eq!(names, ["m1", "mirror-2"]);
        let m1 = view.mirrors.iter().next().unwrap();
        assert_eq!(m1.authorized_operations, 1032);
        let p: Vec<(i32, i64, i64, i64, &str, i32)> = m1
            .topics
            .iter()
            .next()
            .unwrap()
            .partitions
            .iter()
            .map(|p| {
                (
                    p.partition_index,
                    p.source_offset,
                    p.destination_offset,
                    p.lag,
                    p.state,
                    p.last_mirror_epoch,
                )
            })
            .collect();
        assert_eq!(
            p,
            [
                (1, 1000, 990, 10, "active", 3),
                (2, 4_294_967_296, 4_294_967_000, 296, "paused", 4)
            ]
        );
        assert!(m1.topics.iter().nth(1).unwrap().partitions.is_empty());
    }

    #[rustfmt::skip]
    const V0_NULL: &[u8] = &[
        0x00, 0x00, 0x00, 0x05,                         // throttle_time_ms: int32 5
        0x00, 0x00,                                     // error_code: int16 0
        0x00,                                           // error_message: compact nullable string 0 -> null
        0x01,                                           // mirrors: compact array length+1 = 1 -> empty
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v0_null_error_message() {
        let resp = DescribeMirrorsResponse {
            throttle_time_ms: 5,
            ..DescribeMirrorsResponse::DEFAULT
        };
        let view = check(&resp, 0, V0_NULL);
        assert_eq!(view.error_message, None);
        assert!(view.mirrors.is_empty());
    }
}

// ---------------------------------------------------------------------------------------------
// BumpLeaderEpochsRequest (KIP-1279 draft): valid 0, flexible 0+.
// topics[] {topic_id, partitions[] {partition_index, min_leader_epoch}}.
// ---------------------------------------------------------------------------------------------

mod bump_leader_epochs_request {
    use super::*;
    use kafka_wire::messages::bump_leader_epochs_request::{BumpLeaderEpochsRequest, LeaderEpochState, TopicState};

    #[rustfmt::skip]
    const V0: &[u8] = &[
        0x03,                                           // topics: compact array length+1 = 3 -> 2
        0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
        0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, //   [0].topic_id: uuid U_A
        0x03,                                           //   [0].partitions: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //     [0].partition_index: int32 1
        0x00, 0x00, 0x00, 0x05,                         //     [0].min_leader_epoch: int32 5
        0x00,                                           //     [0] tagged fields: count 0
        0x00, 0x00, 0x00, 0x02,                         //     [1].partition_index: int32 2
        0x00, 0x01, 0x00, 0x00,                         //     [1].min_leader_epoch: int32 65536
        0x00,                                           //     [1] tagged fields: count 0
        0x00,                                           //   [0] tagged fields: count 0
        0xa1, 0xa2, 0xa3, 0xa4, 0xb1, 0xb2, 0xc1, 0xc2,
        0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, //   [1].topic_id: uuid U_B
        0x02,                                           //   [1].partitions: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x03,                         //     [0].partition_index: int32 3
        0x00, 0x00, 0x00, 0x07,                         //     [0].min_leader_epoch: int32 7
        0x00,                                           //     [0] tagged fields: count 0
        0x00,                                           //   [1] tagged fields: count 0
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v0() {
        let les = |partition_index, min_leader_epoch| LeaderEpochState {
            partition_index,
            min_leader_epoch,
            ..LeaderEpochState::DEFAULT
        };
        let p1 = [les(1, 5), les(2, 65536)];
        let p2 = [les(3, 7)];
        let topics = [
            TopicState {
                topic_id: ua(),
                partitions: Array::from_slice(&p1),
                ..TopicState::DEFAULT
            },
            TopicState {
                topic_id: ub(),
                partitions: Array::from_slice(&p2),
                ..TopicState::DEFAULT
            },
        ];
        let req = BumpLeaderEpochsRequest {
            topics: Array::from_slice(&topics),
            ..BumpLeaderEpochsRequest::DEFAULT
        };
        let view = check(&req, 0, V0);
        let all: Vec<(Uuid, i32, i32)> = view
            .topics
            .iter()
            .flat_map(|t| {
                t.partitions
                    .iter()
                    .map(move |p| (t.topic_id, p.partition_index, p.min_leader_epoch))
            })
            .collect();
        assert_eq!(all, [(ua(), 1, 5), (ua(), 2, 65536), (ub(), 3, 7)]);
    }
}

// ---------------------------------------------------------------------------------------------
// BumpLeaderEpochsResponse (KIP-1279 draft): valid 0, flexible 0+.
// throttle_time_ms, error_code, topics[] {topic_name, partitions[] {partition_index, error_code}}.
// ---------------------------------------------------------------------------------------------

mod bump_leader_epochs_response {
    use super::*;
    use kafka_wire::messages::bump_leader_epochs_response::{
        BumpLeaderEpochsResponse, PartitionDetail, TopicPartitions,
    };

    #[rustfmt::skip]
    const V0: &[u8] = &[
        0x00, 0x00, 0x00, 0x19,                         // throttle_time_ms: int32 25
        0x00, 0x01,                                     // error_code: int16 1
        0x03,                                           // topics: compact array length+1 = 3 -> 2
        0x03, b't', b'1',                               //   [0].topic_name: compact string "t1"
        0x03,                                           //   [0].partitions: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //     [0].partition_index: int32 1
        0x00, 0x06,                                     //     [0].error_code: int16 6
        0x00,                                           //     [0] tagged fields: count 0
        0x00, 0x00, 0x00, 0x02,                         //     [1].partition_index: int32 2
        0x00, 0x4b,                                     //     [1].error_code: int16 75
        0x00,                                           //     [1] tagged fields: count 0
        0x00,                                           //   [0] tagged fields: count 0
        0x03, b't', b'2',                               //   [1].topic_name: compact string "t2"
        0x02,                                           //   [1].partitions: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x03,                         //     [0].partition_index: int32 3
        0x00, 0x03,                                     //     [0].error_code: int16 3
        0x00,                                           //     [0] tagged fields: count 0
        0x00,                                           //   [1] tagged fields: count 0
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v0() {
        let pd = |partition_index, error_code| PartitionDetail {
            partition_index,
            error_code,
            ..PartitionDetail::DEFAULT
        };
        let p1 = [pd(1, 6), pd(2, 75)];
        let p2 = [pd(3, 3)];
        let topics = [
            TopicPartitions {
                topic_name: "t1",
                partitions: Array::from_slice(&p1),
                ..TopicPartitions::DEFAULT
            },
            TopicPartitions {
                topic_name: "t2",
                partitions: Array::from_slice(&p2),
                ..TopicPartitions::DEFAULT
            },
        ];
        let resp = BumpLeaderEpochsResponse {
            throttle_time_ms: 25,
            error_code: 1,
            topics: Array::from_slice(&topics),
            ..BumpLeaderEpochsResponse::DEFAULT
        };
        let view = check(&resp, 0, V0);
        assert_eq!(view.throttle_time_ms, 25);
        let all: Vec<(&str, i32, i16)> = view
            .topics
            .iter()
            .flat_map(|t| {
                t.partitions
                    .iter()
                    .map(move |p| (t.topic_name, p.partition_index, p.error_code))
            })
            .collect();
        assert_eq!(all, [("t1", 1, 6), ("t1", 2, 75), ("t2", 3, 3)]);
    }
}

// ---------------------------------------------------------------------------------------------
// ReadMirrorStatesRequest (KIP-1279 draft): valid 0, flexible 0+.
// mirror_name, topics[] {name, partitions[] {partition_index}}.
// This vector also carries tagged fields the schema does not know (kept for the round trip):
// Kafka writes them back in ascending tag order, like known ones.
// ---------------------------------------------------------------------------------------------

mod read_mirror_states_request {
    use super::*;
    use kafka_wire::messages::read_mirror_states_request::{PartitionData, ReadMirrorStatesRequest, TopicData};

    #[rustfmt::skip]
    const V0: &[u8] = &[
        0x03, b'm', b'1',                               // mirror_name: compact string "m1"
        0x03,                                           // topics: compact array length+1 = 3 -> 2
        0x03, b't', b'1',                               //   [0].name: compact string "t1"
        0x03,                                           //   [0].partitions: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //     [0].partition_index: int32 1
        0x00,                                           //     [0] tagged fields: count 0
        0x00, 0x00, 0x00, 0x02,                         //     [1].partition_index: int32 2
        0x01,                                           //     [1] tagged fields: count 1
        0xc8, 0x01,                                     //       tag: uvarint 200 (unknown)
        0x02,                                           //       size 2
        0xab, 0xcd,                                     //       raw payload
        0x00,                                           //   [0] tagged fields: count 0
        0x03, b't', b'2',                               //   [1].name: compact string "t2"
        0x02,                                           //   [1].partitions: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x03,                         //     [0].partition_index: int32 3
        0x00,                                           //     [0] tagged fields: count 0
        0x00,                                           //   [1] tagged fields: count 0
        0x02,                                           // tagged fields: count 2
        0x01,                                           //   tag: uvarint 1 (unknown)
        0x01,                                           //   size 1
        0x2a,                                           //   raw payload
        0xac, 0x02,                                     //   tag: uvarint 300 (unknown)
        0x00,                                           //   size 0 (empty payload)
    ];

    #[test]
    fn v0() {
        let raw_p = [RawTaggedField {
            tag: 200,
            data: &[0xab, 0xcd],
        }];
        let raw_top = [
            RawTaggedField { tag: 1, data: &[0x2a] },
            RawTaggedField { tag: 300, data: &[] },
        ];
        let p1 = [
            PartitionData {
                partition_index: 1,
                ..PartitionData::DEFAULT
            },
            PartitionData {
                partition_index: 2,
                unknown_tagged_fields: TaggedFields::from_slice(&raw_p),
            },
        ];
        let p2 = [PartitionData {
            partition_index: 3,
            ..PartitionData::DEFAULT
        }];
        let topics = [
            TopicData {
                name: "t1",
                partitions: Array::from_slice(&p1),
                ..TopicData::DEFAULT
            },
            TopicData {
                name: "t2",
                partitions: Array::from_slice(&p2),
                ..TopicData::DEFAULT
            },
        ];
        let req = ReadMirrorStatesRequest {
            mirror_name: "m1",
            topics: Array::from_slice(&topics),
            unknown_tagged_fields: TaggedFields::from_slice(&raw_top),
        };
        let view = check(&req, 0, V0);
        assert_eq!(view.mirror_name, "m1");
        let all: Vec<(&str, i32)> = view
            .topics
            .iter()
            .flat_map(|t| t.partitions.iter().map(move |p| (t.name, p.partition_index)))
            .collect();
        assert_eq!(all, [("t1", 1), ("t1", 2), ("t2", 3)]);
        let tags: Vec<(u32, &[u8])> = view.unknown_tagged_fields.iter().map(|t| (t.tag, t.data)).collect();
        assert_eq!(tags, [(1, &[0x2a][..]), (300, &[][..])]);
        let p = view.topics.iter().next().unwrap().partitions.iter().nth(1).unwrap();
        let t = p.unknown_tagged_fields.iter().next().unwrap();
        assert_eq!((t.tag, t.data), (200, &[0xab, 0xcd][..]));
    }
}

// ---------------------------------------------------------------------------------------------
// ReadMirrorStatesResponse (KIP-1279 draft): valid 0, flexible 0+.
// throttle_time_ms, error_code, error_message (nullable), topics[] {name, partitions[]
// {partition_index, last_mirror_epoch, state int8, error_code}}.
// ---------------------------------------------------------------------------------------------

mod read_mirror_states_response {
    use super::*;
    use kafka_wire::messages::read_mirror_states_response::{PartitionResult, ReadMirrorStatesResponse, TopicResult};

    #[rustfmt::skip]
    const V0: &[u8] = &[
        0x00, 0x00, 0x00, 0x0a,                         // throttle_time_ms: int32 10
        0x00, 0x01,                                     // error_code: int16 1
        0x08, b'p', b'a', b'r', b't', b'i', b'a', b'l', // error_message: compact nullable string "partial"
        0x03,                                           // topics: compact array length+1 = 3 -> 2
        0x03, b't', b'1',                               //   [0].name: compact string "t1"
        0x03,                                           //   [0].partitions: compact array length+1 = 3 -> 2
        0x00, 0x00, 0x00, 0x01,                         //     [0].partition_index: int32 1
        0x00, 0x00, 0x00, 0x04,                         //     [0].last_mirror_epoch: int32 4
        0x02,                                           //     [0].state: int8 2
        0x00, 0x06,                                     //     [0].error_code: int16 6
        0x00,                                           //     [0] tagged fields: count 0
        0x00, 0x00, 0x00, 0x02,                         //     [1].partition_index: int32 2
        0x01, 0x02, 0x03, 0x04,                         //     [1].last_mirror_epoch: int32 16909060
        0xff,                                           //     [1].state: int8 -1
        0x00, 0x64,                                     //     [1].error_code: int16 100
        0x00,                                           //     [1] tagged fields: count 0
        0x00,                                           //   [0] tagged fields: count 0
        0x03, b't', b'2',                               //   [1].name: compact string "t2"
        0x02,                                           //   [1].partitions: compact array length+1 = 2 -> 1
        0x00, 0x00, 0x00, 0x03,                         //     [0].partition_index: int32 3
        0x00, 0x00, 0x00, 0x05,                         //     [0].last_mirror_epoch: int32 5
        0x01,                                           //     [0].state: int8 1
        0x00, 0x03,                                     //     [0].error_code: int16 3
        0x00,                                           //     [0] tagged fields: count 0
        0x00,                                           //   [1] tagged fields: count 0
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v0() {
        let pr = |partition_index, last_mirror_epoch, state, error_code| PartitionResult {
            partition_index,
            last_mirror_epoch,
            state,
            error_code,
            ..PartitionResult::DEFAULT
        };
        let p1 = [pr(1, 4, 2, 6), pr(2, 16_909_060, -1, 100)];
        let p2 = [pr(3, 5, 1, 3)];
        let topics = [
            TopicResult {
                name: "t1",
                partitions: Array::from_slice(&p1),
                ..TopicResult::DEFAULT
            },
            TopicResult {
                name: "t2",
                partitions: Array::from_slice(&p2),
                ..TopicResult::DEFAULT
            },
        ];
        let resp = ReadMirrorStatesResponse {
            throttle_time_ms: 10,
            error_code: 1,
            error_message: Some("partial"),
            topics: Array::from_slice(&topics),
            ..ReadMirrorStatesResponse::DEFAULT
        };
        let view = check(&resp, 0, V0);
        assert_eq!(view.error_message, Some("partial"));
        let all: Vec<(&str, i32, i32, i8, i16)> = view
            .topics
            .iter()
            .flat_map(|t| {
                t.partitions
                    .iter()
                    .map(move |p| (t.name, p.partition_index, p.last_mirror_epoch, p.state, p.error_code))
            })
            .collect();
        assert_eq!(
            all,
            [("t1", 1, 4, 2, 6), ("t1", 2, 16_909_060, -1, 100), ("t2", 3, 5, 1, 3)]
        );
    }

    #[rustfmt::skip]
    const V0_NULL: &[u8] = &[
        0x00, 0x00, 0x00, 0x00,                         // throttle_time_ms: int32 0
        0x00, 0x00,                                     // error_code: int16 0
        0x00,                                           // error_message: compact nullable string 0 -> null
        0x01,                                           // topics: compact array length+1 = 1 -> empty
        0x00,                                           // tagged fields: count 0
    ];

    #[test]
    fn v0_null_error_message() {
        let resp = ReadMirrorStatesResponse::DEFAULT;
        let view = check(&resp, 0, V0_NULL);
        assert_eq!(view.error_message, None);
        assert!(view.topics.is_empty());
    }
}
