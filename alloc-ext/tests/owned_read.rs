//! Owned values are read straight from the wire in one pass (`OwnedMessage::parse`). They must
//! agree with the views on every input: the same value (compared through its encoding) where the
//! view parses, and the same error (kind, offset, message, version, field path) where it does
//! not. Checked on every message and version, on random well-formed messages, every cut of them
//! and copies with one byte changed. Decoding from a `Bytes` (`OwnedMessage::parse_bytes`, which
//! shares the input's bytes and records) must give the same values and errors again.

mod noise;
use noise::noise;

use arbitrary::Unstructured;
use kafka_wire::catalog::{Entry, ALL};
use kafka_wire::{arbitrary_bytes, CodecError};

/// The view path (parse, then encode at the same version) and the owned path, side by side.
fn agree(e: &Entry, bytes: &[u8], v: i16, out: &mut [u8]) -> bool {
    let view = (e.transcode)(bytes, v, out, v).map(|n| out[..n].to_vec());
    let owned = (e.owned_transcode)(bytes, v, v);
    let shared = (e.bytes_transcode)(kafka_wire::bytes::Bytes::copy_from_slice(bytes), v, v);
    assert_eq!(shared, owned, "{} v{v}: decoding from Bytes differs", e.info.name);
    match (&view, &owned) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{} v{v}: the owned value differs from the view", e.info.name),
        (Err(CodecError::Decode(a)), Err(CodecError::Decode(b))) => {
            assert_eq!(a, b, "{} v{v}: the owned read fails differently", e.info.name);
        }
        _ => panic!("{} v{v}: view {view:?}, owned {owned:?}", e.info.name),
    }
    view.is_ok()
}

#[test]
fn owned_reads_agree_with_views_on_values_and_errors() {
    let mut out = vec![0u8; 1 << 20];
    let (mut good, mut bad) = (0usize, 0usize);
    for e in ALL {
        for v in e.info.min_version..=e.info.max_version {
            for seed in 0..6u64 {
                let data = noise(seed * 101 + 31 * v as u64 + e.info.name.len() as u64, 4096);
                let Ok(bytes) = arbitrary_bytes(e.schema, v, &mut Unstructured::new(&data)) else {
                    continue;
                };
                assert!(
                    agree(e, &bytes, v, &mut out),
                    "{} v{v}: a generated message fails",
                    e.info.name
                );
                good += 1;
                // Cut short, and with one byte changed, at a sample of places.
                let step = (bytes.len() / 64).max(1);
                for at in (0..bytes.len()).step_by(step) {
                    bad += usize::from(!agree(e, &bytes[..at], v, &mut out));
                    let mut flipped = bytes.clone();
                    flipped[at] ^= 0x80 | (seed as u8 + 1);
                    agree(e, &flipped, v, &mut out);
                }
            }
        }
    }
    assert!(good > 1000 && bad > 10_000, "{good} {bad}");
}

/// Arrays of small fixed-width structs (an ApiVersionsResponse's keys, a partition's ISR with
/// epochs) are read in one bounds check when no element has tagged fields (up to 4 of them
/// straight into the `SmallVec`'s inline buffer); an element that has some, or a cut inside the
/// array, falls back to the element-by-element read.
#[test]
fn arrays_of_fixed_width_structs_with_and_without_tagged_fields() {
    use kafka_wire::messages::api_versions_response::owned::{ApiVersion, ApiVersionsResponse};
    use kafka_wire::{OwnedMessage, OwnedRawTaggedField};
    for (len, tagged_at) in [
        (0, None),
        (1, None),
        (1, Some(0)),
        (3, None),
        (3, Some(1)),
        (4, None),
        (4, Some(3)),
        (5, None),
        (5, Some(4)),
        (40, None),
        (40, Some(0)),
        (40, Some(39)),
        (40, Some(17)),
    ] {
        let mut m = ApiVersionsResponse {
            api_keys: (0..len)
                .map(|k| ApiVersion {
                    api_key: k,
                    min_version: 0,
                    max_version: k % 7,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        if let Some(i) = tagged_at {
            m.api_keys[i].unknown_tagged_fields.push(OwnedRawTaggedField {
                tag: 9,
                data: vec![1, 2],
            });
        }
        let bytes = m.to_vec(3).unwrap();
        let parsed = ApiVersionsResponse::parse(&bytes, 3).unwrap();
        assert_eq!(parsed, m, "{len} {tagged_at:?}");
        assert_eq!(parsed.api_keys.spilled(), len > 4, "{len} {tagged_at:?}");
        let e = ALL.iter().find(|e| e.info.name == "ApiVersionsResponse").unwrap();
        let mut out = vec![0u8; 4096];
        for cut in 0..bytes.len() {
            agree(e, &bytes[..cut], 3, &mut out);
        }
    }
}
