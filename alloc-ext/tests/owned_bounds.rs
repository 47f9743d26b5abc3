//! Owned decoding never reserves memory from a count read off the wire before checking it
//! against the bytes that remain: an input that claims 2^31 elements or a 2 GiB string fails at
//! once with a typed error and allocates no more than a small multiple of its own size.

mod common;

use kafka_wire::messages::alter_partition_request::owned::AlterPartitionRequest;
use kafka_wire::messages::metadata_request::owned::MetadataRequest;
use kafka_wire::messages::produce_request::owned::ProduceRequest;
use kafka_wire::messages::sasl_authenticate_request::owned::SaslAuthenticateRequest;
use kafka_wire::{DecodeErrorKind, OwnedMessage};

/// Parses `input` as owned `M` at `v`, returning the error kind and the bytes allocated.
fn hostile<M: OwnedMessage + std::fmt::Debug>(input: &[u8], v: i16) -> (DecodeErrorKind, usize) {
    let (r, used) = common::counted(|| M::parse(input, v));
    (r.expect_err("hostile input must fail").kind(), used.bytes)
}

fn assert_bounded(used: usize, input: &[u8]) {
    assert!(
        used <= 8 * input.len(),
        "allocated {used} bytes for a {}-byte input",
        input.len()
    );
}

#[test]
fn arrays_classic_and_compact() {
    // MetadataRequest v4 (classic): topics count 2^31-1 in 4 bytes + 4 more bytes.
    let input = [0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0];
    let (k, used) = hostile::<MetadataRequest>(&input, 4);
    assert!(matches!(k, DecodeErrorKind::LengthExceedsInput { .. }), "{k:?}");
    assert_bounded(used, &input);
    // AlterPartitionRequest v3 (compact): broker id, epoch, then a count of 2^31-2.
    let mut input = vec![0u8; 12];
    input.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x07]);
    let (k, used) = hostile::<AlterPartitionRequest>(&input, 3);
    assert!(matches!(k, DecodeErrorKind::LengthExceedsInput { .. }), "{k:?}");
    assert_bounded(used, &input);
}

#[test]
fn strings_classic_and_compact() {
    // MetadataRequest v4: one topic whose name claims 32767 bytes (the classic maximum).
    let input = [0, 0, 0, 1, 0x7f, 0xff, 0, 0];
    let (k, used) = hostile::<MetadataRequest>(&input, 4);
    assert!(matches!(k, DecodeErrorKind::UnexpectedEof { .. }), "{k:?}");
    assert_bounded(used, &input);
    // MetadataRequest v12: a compact name of 2 GiB (uvarint 0x80000000).
    let input = [
        0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x08,
    ];
    let (k, used) = hostile::<MetadataRequest>(&input, 12);
    assert!(matches!(k, DecodeErrorKind::StringTooLong { .. }), "{k:?}");
    assert_bounded(used, &input);
}

#[test]
fn bytes_classic_and_compact() {
    // SaslAuthenticateRequest v1 (classic bytes): 2 GiB - 1.
    let input = [0x7f, 0xff, 0xff, 0xff, 1, 2, 3, 4];
    let (k, used) = hostile::<SaslAuthenticateRequest>(&input, 1);
    assert!(matches!(k, DecodeErrorKind::LengthExceedsInput { .. }), "{k:?}");
    assert_bounded(used, &input);
    // v2 (compact bytes).
    let input = [0xff, 0xff, 0xff, 0xff, 0x07, 1, 2, 3];
    let (k, used) = hostile::<SaslAuthenticateRequest>(&input, 2);
    assert!(matches!(k, DecodeErrorKind::LengthExceedsInput { .. }), "{k:?}");
    assert_bounded(used, &input);
}

#[test]
fn records_classic_and_compact() {
    // ProduceRequest v3: transactional id null, acks, timeout, one topic "t", one partition,
    // records claiming 2 GiB - 1.
    let mut input = vec![
        0xff, 0xff, 0, 1, 0, 0, 0, 100, 0, 0, 0, 1, 0, 1, b't', 0, 0, 0, 1, 0, 0, 0, 0,
    ];
    input.extend_from_slice(&[0x7f, 0xff, 0xff, 0xff]);
    let (k, used) = hostile::<ProduceRequest>(&input, 3);
    assert!(matches!(k, DecodeErrorKind::LengthExceedsInput { .. }), "{k:?}");
    assert_bounded(used, &input);
    // ProduceRequest v9 (compact).
    let mut input = vec![0x00, 0, 1, 0, 0, 0, 100, 0x02, 0x02, b't', 0x02, 0, 0, 0, 0];
    input.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x07]);
    let (k, used) = hostile::<ProduceRequest>(&input, 9);
    assert!(matches!(k, DecodeErrorKind::LengthExceedsInput { .. }), "{k:?}");
    assert_bounded(used, &input);
}
