//! The checks every fuzz target runs, shared with the regression tests that replay the inputs
//! the fuzzer found.
//!
//! On the bytes it is given, each check asserts: parsing never panics; a view that parses can be
//! fully iterated (re-encoding walks every array and tagged field); re-encoding at the same
//! version writes exactly `encoded_len` bytes, which parse again and re-encode to themselves
//! (views are compared through their canonical bytes, so a NaN `float64` does not count as a
//! difference); strict and lenient parsing agree apart from trailing bytes.

use kafka_wire::frame::{self, Mode};
use kafka_wire::{DecodeErrorKind, OwnedMessage};

/// Picks a version from the first input byte; returns it with the rest of the input.
pub fn pick_version(data: &[u8], min: i16, max: i16) -> Option<(i16, &[u8])> {
    let (&b, rest) = data.split_first()?;
    let span = (max - min + 1).max(1) as u16;
    Some((min + (u16::from(b & 0x7f) % span) as i16, rest))
}

/// Runs every check for message type `$m` (a generated view type, named without its lifetime)
/// at `$version` on `$data`. A macro rather than a generic function: the re-parse of the
/// re-encoded bytes borrows a local buffer, so it needs the type at a fresh lifetime.
#[macro_export]
macro_rules! check_message {
    ($m:ty, $data:expr, $version:expr) => {{
        use $crate::fuzzing::__rt::*;
        let (data, version): (&[u8], i16) = ($data, $version);
        let strict = <$m>::parse(data, version);
        let lenient = <$m>::parse_lenient(data, version);
        match (&strict, &lenient) {
            (Ok(_), Ok((_, rest))) => assert!(rest.is_empty(), "strict accepted what lenient calls trailing"),
            (Err(e), Ok((_, rest))) => assert!(
                matches!(e.kind(), DecodeErrorKind::TrailingBytes { count } if count == rest.len()),
                "strict: {e}, lenient left {}",
                rest.len()
            ),
            (Err(s), Err(l)) => assert_eq!(s, l, "strict and lenient fail differently"),
            (Ok(_), Err(e)) => panic!("lenient failed where strict passed: {e}"),
        }
        if let Ok((view, _)) = lenient {
            let n = view.encoded_len(version).expect("a parsed view encodes at its own version");
            let mut buf = vec![0u8; n];
            let w = view.encode_to_slice(&mut buf, version).expect("encode");
            assert_eq!(w, n, "encoded_len must equal the bytes written");
            let again = <$m>::parse(&buf, version).expect("re-encoded bytes parse");
            let mut buf2 = vec![0u8; n];
            let w2 = again.encode_to_slice(&mut buf2, version).expect("encode again");
            assert_eq!(&buf2[..w2], &buf[..], "re-encoding is not a fixed point");
        }
    }};
}

/// The API-key targets: bit 7 of the first byte picks request or response, the rest of that
/// byte the version.
#[macro_export]
macro_rules! check_api {
    ($req:ty, $resp:ty, $data:expr) => {{
        use $crate::fuzzing::__rt::*;
        let data: &[u8] = $data;
        if let Some(&first) = data.first() {
            if first & 0x80 == 0 {
                let i = <$req as Message>::INFO;
                if let Some((v, rest)) = $crate::fuzzing::pick_version(data, i.min_version, i.max_version) {
                    $crate::check_message!($req, rest, v);
                }
            } else {
                let i = <$resp as Message>::INFO;
                if let Some((v, rest)) = $crate::fuzzing::pick_version(data, i.min_version, i.max_version) {
                    $crate::check_message!($resp, rest, v);
                }
            }
        }
    }};
}

/// Single-message targets (metadata records): the first byte picks the version.
#[macro_export]
macro_rules! check_one {
    ($m:ty, $data:expr) => {{
        use $crate::fuzzing::__rt::*;
        let i = <$m as Message>::INFO;
        if let Some((v, rest)) = $crate::fuzzing::pick_version($data, i.min_version, i.max_version) {
            $crate::check_message!($m, rest, v);
        }
    }};
}

#[doc(hidden)]
pub mod __rt {
    pub use kafka_wire::{DecodeErrorKind, Message};
}

/// Whole request frames through the dispatch, and framed metadata records.
pub fn check_frames(data: &[u8]) {
    let strict = frame::parse_request_frame(data, Mode::Strict);
    let lenient = frame::parse_request_frame(data, Mode::Lenient);
    match (&strict, &lenient) {
        (Ok(s), Ok(l)) => {
            assert!(l.trailing.is_empty());
            assert_eq!(s.body_bytes, l.body_bytes);
        }
        (Err(e), Ok(l)) => assert!(matches!(e.kind(), DecodeErrorKind::TrailingBytes { .. }) && !l.trailing.is_empty(), "{e}"),
        (Err(_), Err(_)) => {}
        (Ok(_), Err(e)) => panic!("lenient failed where strict passed: {e}"),
    }
    if let Ok(f) = lenient {
        let mut out = vec![0u8; data.len() + 64];
        let n = frame::encode_request_frame(f.header.correlation_id, f.header.client_id, &f.body, f.api_version, &mut out)
            .expect("a parsed frame encodes");
        let again = frame::parse_request_frame(&out[..n], Mode::Strict).expect("re-encoded frame parses");
        assert_eq!(again.api_key, f.api_key);
    }
    if let Ok(r) = frame::parse_metadata_record(data) {
        let mut out = vec![0u8; data.len() + 16];
        let n = frame::encode_metadata_record(&r.record, r.version, &mut out).expect("encode record");
        frame::parse_metadata_record(&out[..n]).expect("re-encoded record parses");
    }
}

/// Coordinator records: the first byte picks the coordinator and whether a value follows;
/// the rest is split into key and value at the second byte.
pub fn check_coordinator(data: &[u8]) {
    let [sel, split, rest @ ..] = data else { return };
    let at = usize::from(*split).min(rest.len());
    let (key, value) = rest.split_at(at);
    let value = (sel & 0x80 == 0).then_some(value);
    match sel % 3 {
        0 => {
            let _ = frame::parse_group_coordinator_record(key, value);
        }
        1 => {
            let _ = frame::parse_share_coordinator_record(key, value);
        }
        _ => {
            let _ = frame::parse_transaction_coordinator_record(key, value);
        }
    }
}

/// The structured target: an arbitrary owned value of any message valid at a version; encode,
/// parse, convert to owned, compare with the original.
pub fn check_structured(data: &[u8]) {
    use arbitrary::Unstructured;
    let mut u = Unstructured::new(data);
    let Ok(i) = u.int_in_range(0..=kafka_wire::catalog::ALL.len() - 1) else { return };
    let e = &kafka_wire::catalog::ALL[i];
    let Ok(v) = u.int_in_range(e.info.min_version..=e.info.max_version) else { return };
    let Ok(bytes) = kafka_wire::arbitrary_bytes(e.schema, v, &mut u) else { return };
    let once = (e.owned_transcode)(&bytes, v, v).unwrap_or_else(|err| panic!("{} v{v}: generated value rejected: {err}", e.info.name));
    let twice = (e.owned_transcode)(&once, v, v).expect("owned round trip");
    assert_eq!(once, twice, "{} v{v}: owned round trip changed the bytes", e.info.name);
}

/// The typed structured check for one owned message type.
pub fn check_owned<M: OwnedMessage + PartialEq + std::fmt::Debug>(m: &M, version: i16) {
    let bytes = m.to_vec(version).expect("a generated value encodes");
    let back = M::parse(&bytes, version).expect("parses");
    assert_eq!(back.to_vec(version).expect("encodes"), bytes);
}
