//! `ArbitraryAt`: random owned values valid at a version.

mod noise;
use noise::noise;

use arbitrary::Unstructured;
use kafka_wire::messages::alter_partition_request::owned::AlterPartitionRequest;
use kafka_wire::messages::metadata_request::owned::MetadataRequest;
use kafka_wire::{catalog, ArbitraryAt, OwnedMessage};

#[test]
fn nulls_only_where_the_version_allows() {
    let (mut nulls_v0, mut nulls_v4) = (0, 0);
    for seed in 0..300 {
        let data = noise(seed, 512);
        let v0 = MetadataRequest::arbitrary_at(&mut Unstructured::new(&data), 0).unwrap();
        nulls_v0 += usize::from(v0.topics.is_none());
        let v4 = MetadataRequest::arbitrary_at(&mut Unstructured::new(&data), 4).unwrap();
        nulls_v4 += usize::from(v4.topics.is_none());
        // Fields v0 lacks keep their defaults.
        assert!(
            v0.allow_auto_topic_creation,
            "v0 has no allow_auto_topic_creation: default true"
        );
    }
    assert_eq!(nulls_v0, 0, "MetadataRequest v0 topics are not nullable");
    assert!(
        nulls_v4 > 10,
        "v1+ topics are nullable and null should appear ({nulls_v4})"
    );
}

#[test]
fn fields_the_version_lacks_keep_defaults_and_values_encode() {
    for seed in 0..200 {
        let data = noise(seed, 1024);
        let v2 = AlterPartitionRequest::arbitrary_at(&mut Unstructured::new(&data), 2).unwrap();
        for t in &v2.topics {
            for p in &t.partitions {
                assert!(p.new_isr_with_epochs.is_empty());
            }
        }
        let bytes = v2.to_vec(2).expect("valid at v2");
        assert_eq!(AlterPartitionRequest::parse(&bytes, 2).unwrap(), v2);
        let v3 = AlterPartitionRequest::arbitrary_at(&mut Unstructured::new(&data), 3).unwrap();
        for t in &v3.topics {
            for p in &t.partitions {
                assert!(p.new_isr.is_empty());
            }
        }
        v3.to_vec(3).expect("valid at v3");
    }
}

#[test]
fn every_message_every_version_generates_valid_values() {
    let mut n = 0;
    for e in catalog::ALL {
        for v in e.info.min_version..=e.info.max_version {
            for seed in 0..5u64 {
                let data = noise(seed + 31 * v as u64 + e.info.name.len() as u64, 2048);
                let bytes = kafka_wire::arbitrary_bytes(e.schema, v, &mut Unstructured::new(&data)).unwrap();
                let once =
                    (e.owned_transcode)(&bytes, v, v).unwrap_or_else(|err| panic!("{} v{v}: {err}", e.info.name));
                let twice = (e.owned_transcode)(&once, v, v).unwrap();
                assert_eq!(once, twice, "{} v{v}", e.info.name);
                n += 1;
            }
        }
    }
    assert!(n > 4000, "{n}");
}

/// Iterating a parsed array re-reads its elements from bytes the parse validated, stepping over
/// each element's nested arrays with the generated `skip` functions. Converting a view to an
/// owned value iterates every array at every depth, so if a `skip` stepped over the wrong number
/// of bytes the owned value, and the bytes encoded from it, would differ from the input.
#[test]
fn iterating_validated_arrays_reads_back_every_value() {
    let mut n = 0;
    let mut buf = vec![0u8; 1 << 16];
    for e in catalog::ALL {
        for v in e.info.min_version..=e.info.max_version {
            for seed in 0..3u64 {
                let data = noise(seed * 7 + 1000 + 31 * v as u64 + e.info.name.len() as u64, 2048);
                let bytes = kafka_wire::arbitrary_bytes(e.schema, v, &mut Unstructured::new(&data)).unwrap();
                // The generator may write known tagged fields at their defaults, which encoding
                // leaves out: encode once to get the canonical bytes of the same values.
                let canonical =
                    (e.owned_transcode)(&bytes, v, v).unwrap_or_else(|err| panic!("{} v{v}: {err}", e.info.name));
                let owned =
                    (e.owned_transcode)(&canonical, v, v).unwrap_or_else(|err| panic!("{} v{v}: {err}", e.info.name));
                assert_eq!(owned, canonical, "{} v{v}: owned round trip", e.info.name);
                // From a view, canonical arrays are copied as they are: no iteration involved.
                let len = (e.transcode)(&canonical, v, &mut buf, v)
                    .unwrap_or_else(|err| panic!("{} v{v}: {err}", e.info.name));
                assert_eq!(&buf[..len], &canonical[..], "{} v{v}: view round trip", e.info.name);
                n += 1;
            }
        }
    }
    assert!(n > 2500, "{n}");
}
