//! PartitionChangeRecord v2 (KRaft metadata), with the ELR fields of KIP-966
//! (`eligible_leader_replicas`, `last_known_elr`) and an unknown tagged field.

#[cfg(any(feature = "probe", feature = "parse-path"))]
use core::hint::black_box;

use kafka_wire::metadata::partition_change_record::PartitionChangeRecord;
use kafka_wire::{Array, Message, RawTaggedField, TaggedFields, Uuid};

use crate::report::Checks;

const VERSION: i16 = 2;
const PARTITION_ID: i32 = 4;
const TOPIC_ID: u128 = 0x6f1c_3c2a_5e0b_4e44_9a43_8d0c_1b2e_7f01;
const ISR: [i32; 3] = [1, 2, 3];
const LEADER: i32 = 2;
const REPLICAS: [i32; 4] = [1, 2, 3, 4];
const REMOVING: [i32; 1] = [4];
const RECOVERY: i8 = 1;
const DIRECTORIES: [u128; 4] = [0xd1, 0xd2, 0xd3, 0xd4];
const ELR: [i32; 2] = [3, 4];
const LAST_KNOWN_ELR: [i32; 1] = [1];
const UNKNOWN_TAG: u32 = 42;
const UNKNOWN_DATA: &[u8] = b"kw";

/// Builds the record on the stack and hands it to `f`.
fn with_record<R>(f: impl FnOnce(&PartitionChangeRecord<'_>) -> R) -> R {
    let directories = DIRECTORIES.map(Uuid::from_u128);
    let unknown = [RawTaggedField {
        tag: UNKNOWN_TAG,
        data: UNKNOWN_DATA,
    }];
    let rec = PartitionChangeRecord {
        partition_id: PARTITION_ID,
        topic_id: Uuid::from_u128(TOPIC_ID),
        isr: Some(Array::from_slice(&ISR)),
        leader: LEADER,
        replicas: Some(Array::from_slice(&REPLICAS)),
        removing_replicas: Some(Array::from_slice(&REMOVING)),
        adding_replicas: None,
        leader_recovery_state: RECOVERY,
        directories: Some(Array::from_slice(&directories)),
        eligible_leader_replicas: Some(Array::from_slice(&ELR)),
        last_known_elr: Some(Array::from_slice(&LAST_KNOWN_ELR)),
        unknown_tagged_fields: TaggedFields::from_slice(&unknown),
    };
    f(&rec)
}

fn check_ints(c: &mut Checks, what: &'static str, got: Option<Array<'_, i32>>, want: &[i32]) {
    match got {
        Some(a) => c.items(what, a, want),
        None => c.check(false, what),
    };
}

/// Checks every field of a parsed record.
#[cfg_attr(feature = "probe", allow(dead_code))]
fn check_view(c: &mut Checks, v: &PartitionChangeRecord<'_>) {
    c.eq("pcr.partition_id", v.partition_id, PARTITION_ID);
    c.eq("pcr.topic_id", v.topic_id, Uuid::from_u128(TOPIC_ID));
    check_ints(c, "pcr.isr (tag 0)", v.isr, &ISR);
    c.eq("pcr.leader (tag 1)", v.leader, LEADER);
    check_ints(c, "pcr.replicas (tag 2)", v.replicas, &REPLICAS);
    check_ints(c, "pcr.removing_replicas (tag 3)", v.removing_replicas, &REMOVING);
    c.check(v.adding_replicas.is_none(), "pcr.adding_replicas (tag 4, null)");
    c.eq("pcr.leader_recovery_state (tag 5)", v.leader_recovery_state, RECOVERY);
    check_ints(
        c,
        "pcr.eligible_leader_replicas (tag 6)",
        v.eligible_leader_replicas,
        &ELR,
    );
    check_ints(c, "pcr.last_known_elr (tag 7)", v.last_known_elr, &LAST_KNOWN_ELR);
    c.check(
        match v.directories {
            Some(d) => d.len() == DIRECTORIES.len() && d.iter().eq(DIRECTORIES.iter().map(|&u| Uuid::from_u128(u))),
            None => false,
        },
        "pcr.directories (tag 8)",
    );
    let mut unknown = v.unknown_tagged_fields.iter();
    c.eq(
        "pcr: unknown tagged field kept",
        unknown.next(),
        Some(RawTaggedField {
            tag: UNKNOWN_TAG,
            data: UNKNOWN_DATA,
        }),
    );
    c.eq("pcr: exactly one unknown tagged field", unknown.next(), None);
}

#[cfg(not(any(feature = "probe", feature = "parse-path")))]
pub fn run(c: &mut Checks, buf: &mut [u8]) {
    let n = with_record(|rec| match rec.encode_to_slice(buf, VERSION) {
        Ok(n) => {
            c.eq("pcr: encoded_len is exact", rec.encoded_len(VERSION), Ok(n));
            n
        }
        Err(e) => {
            say!("FAILED: PartitionChangeRecord v2 encode: {}", e);
            c.check(false, "pcr: encode");
            0
        }
    });
    let bytes = buf.get(..n).unwrap_or(&[]);
    match PartitionChangeRecord::parse(bytes, VERSION) {
        Ok(view) => {
            check_view(c, &view);
            with_record(|rec| c.check(view == *rec, "pcr: view == value"));
            show!("PartitionChangeRecord v2 view", view);
            // At v1 the ELR fields do not exist: a record that sets them cannot go there.
            let at_v1 = with_record(|rec| rec.encoded_len(1).map_err(|e| e.kind()));
            c.eq(
                "pcr: ELR fields at v1",
                at_v1,
                Err(kafka_wire::EncodeErrorKind::FieldNotInVersion),
            );
            say!(
                "PartitionChangeRecord v{}: {} bytes, ELR {} + last known {}, every field checked",
                VERSION,
                n,
                ELR.len(),
                LAST_KNOWN_ELR.len()
            );
        }
        Err(e) => {
            say!("FAILED: PartitionChangeRecord v2 parse: {}", e);
            c.check(false, "pcr: parse");
        }
    }
}

/// Size probe: encode and parse at a version the compiler cannot see.
#[cfg(feature = "probe")]
pub fn probe(buf: &mut [u8]) {
    with_record(|rec| {
        let rec = black_box(rec);
        if cfg!(feature = "probe-build") {
            return;
        }
        let n = rec.encode_to_slice(buf, crate::probe_version(VERSION)).unwrap_or(0);
        let parsed =
            PartitionChangeRecord::parse(black_box(buf.get(..n).unwrap_or(&[])), crate::probe_version(VERSION));
        black_box(&parsed);
    });
}

/// Parse path: parse bytes the compiler cannot see and read every field.
#[cfg(feature = "parse-path")]
pub fn parse_path(c: &mut Checks, bytes: &[u8]) {
    if let Ok(v) = PartitionChangeRecord::parse(black_box(bytes), black_box(VERSION)) {
        check_view(c, &v);
    }
}
