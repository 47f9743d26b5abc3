//! AlterPartitionRequest v3 (ISR with broker epochs), and its transcoding to v2 (plain ISR).

#[cfg(any(feature = "probe", feature = "parse-path"))]
use core::hint::black_box;

use kafka_wire::messages::alter_partition_request::{AlterPartitionRequest, BrokerState, PartitionData, TopicData};
#[cfg(not(any(feature = "probe", feature = "parse-path")))]
use kafka_wire::EncodeErrorKind;
use kafka_wire::{Array, Message, Uuid};

use crate::report::Checks;

const VERSION: i16 = 3;
const BROKER_ID: i32 = 3;
const BROKER_EPOCH: i64 = 0x0000_0001_0000_0042;
const TOPIC_ID: u128 = 0x6f1c_3c2a_5e0b_4e44_9a43_8d0c_1b2e_7f01;

const ISR_0: [(i32, i64); 3] = [(1, 100), (2, 200), (3, BROKER_EPOCH)];
const ISR_1: [(i32, i64); 1] = [(3, BROKER_EPOCH)];

struct Part {
    index: i32,
    leader_epoch: i32,
    recovery: i8,
    epoch: i32,
    isr: &'static [(i32, i64)],
}

const PARTITIONS: [Part; 2] = [
    Part {
        index: 0,
        leader_epoch: 5,
        recovery: 0,
        epoch: 10,
        isr: &ISR_0,
    },
    Part {
        index: 7,
        leader_epoch: 6,
        recovery: 1,
        epoch: 11,
        isr: &ISR_1,
    },
];

fn broker(&(broker_id, broker_epoch): &(i32, i64)) -> BrokerState<'static> {
    BrokerState {
        broker_id,
        broker_epoch,
        ..BrokerState::DEFAULT
    }
}

fn partition<'a>(p: &Part, isr: &'a [BrokerState<'a>]) -> PartitionData<'a> {
    PartitionData {
        partition_index: p.index,
        leader_epoch: p.leader_epoch,
        new_isr_with_epochs: Array::from_slice(isr),
        leader_recovery_state: p.recovery,
        partition_epoch: p.epoch,
        ..PartitionData::DEFAULT
    }
}

/// Builds the request on the stack and hands it to `f`.
fn with_request<R>(f: impl FnOnce(&AlterPartitionRequest<'_>) -> R) -> R {
    let isr_0 = ISR_0.each_ref().map(broker);
    let isr_1 = ISR_1.each_ref().map(broker);
    let [p0, p1] = &PARTITIONS;
    let parts = [partition(p0, &isr_0), partition(p1, &isr_1)];
    let topics = [TopicData {
        topic_id: Uuid::from_u128(TOPIC_ID),
        partitions: Array::from_slice(&parts),
        ..TopicData::DEFAULT
    }];
    let req = AlterPartitionRequest {
        broker_id: BROKER_ID,
        broker_epoch: BROKER_EPOCH,
        topics: Array::from_slice(&topics),
        ..AlterPartitionRequest::DEFAULT
    };
    f(&req)
}

/// Checks every field of a parsed request at `version` (3, or 2 after transcoding).
#[cfg_attr(feature = "probe", allow(dead_code))]
fn check_view(c: &mut Checks, v: &AlterPartitionRequest<'_>, version: i16) {
    c.eq("apr.broker_id", v.broker_id, BROKER_ID);
    c.eq("apr.broker_epoch", v.broker_epoch, BROKER_EPOCH);
    c.check(v.unknown_tagged_fields.is_empty(), "apr._tagged_fields");
    c.eq("apr.topics.len", v.topics.len(), 1);
    for t in v.topics.iter() {
        c.eq("apr.topics[].topic_name", t.topic_name, "");
        c.eq("apr.topics[].topic_id", t.topic_id, Uuid::from_u128(TOPIC_ID));
        c.check(t.unknown_tagged_fields.is_empty(), "apr.topics[]._tagged_fields");
        c.eq("apr.topics[].partitions.len", t.partitions.len(), PARTITIONS.len());
        for (p, want) in t.partitions.iter().zip(PARTITIONS.iter()) {
            c.eq("apr.partitions[].partition_index", p.partition_index, want.index);
            c.eq("apr.partitions[].leader_epoch", p.leader_epoch, want.leader_epoch);
            c.eq(
                "apr.partitions[].leader_recovery_state",
                p.leader_recovery_state,
                want.recovery,
            );
            c.eq("apr.partitions[].partition_epoch", p.partition_epoch, want.epoch);
            c.check(p.unknown_tagged_fields.is_empty(), "apr.partitions[]._tagged_fields");
            if version >= 3 {
                c.check(p.new_isr.is_empty(), "apr.partitions[].new_isr (absent at v3)");
                c.eq(
                    "apr.partitions[].new_isr_with_epochs.len",
                    p.new_isr_with_epochs.len(),
                    want.isr.len(),
                );
                for (b, &(id, epoch)) in p.new_isr_with_epochs.iter().zip(want.isr.iter()) {
                    c.eq("apr.new_isr_with_epochs[].broker_id", b.broker_id, id);
                    c.eq("apr.new_isr_with_epochs[].broker_epoch", b.broker_epoch, epoch);
                    c.check(
                        b.unknown_tagged_fields.is_empty(),
                        "apr.new_isr_with_epochs[]._tagged_fields",
                    );
                }
            } else {
                c.check(
                    p.new_isr_with_epochs.is_empty(),
                    "apr.partitions[].new_isr_with_epochs (absent at v2)",
                );
                c.check(
                    p.new_isr.len() == want.isr.len() && p.new_isr.iter().eq(want.isr.iter().map(|&(id, _)| id)),
                    "apr.partitions[].new_isr",
                );
            }
        }
    }
}

#[cfg(not(any(feature = "probe", feature = "parse-path")))]
pub fn run(c: &mut Checks, buf: &mut [u8], scratch: &mut [u8]) {
    // Encode v3 into the static buffer.
    let n = with_request(|req| match req.encode_to_slice(buf, VERSION) {
        Ok(n) => {
            c.eq("apr: encoded_len is exact", req.encoded_len(VERSION), Ok(n));
            n
        }
        Err(e) => {
            say!("FAILED: AlterPartitionRequest v3 encode: {}", e);
            c.check(false, "apr: encode v3");
            0
        }
    });
    let bytes = buf.get(..n).unwrap_or(&[]);

    // Parse it back and check every field, then the whole value.
    let view = match AlterPartitionRequest::parse(bytes, VERSION) {
        Ok(v) => v,
        Err(e) => {
            say!("FAILED: AlterPartitionRequest v3 parse: {}", e);
            c.check(false, "apr: parse v3");
            return;
        }
    };
    check_view(c, &view, VERSION);
    with_request(|req| c.check(view == *req, "apr: view == value"));
    show!("AlterPartitionRequest v3 view", view);
    match view.encode_to_slice(scratch, VERSION) {
        Ok(m) => c.check(
            scratch.get(..m) == Some(bytes),
            "apr: the view re-encodes to the same bytes",
        ),
        Err(_) => c.check(false, "apr: re-encode the view"),
    };
    #[cfg(feature = "alloc")]
    {
        let mut v: alloc::vec::Vec<u8> = alloc::vec::Vec::new();
        let ok = with_request(|req| req.encode(&mut v, VERSION)) == Ok(n) && v.as_slice() == bytes;
        c.check(ok, "apr: encode into a Vec<u8> (alloc)");
        say!(
            "alloc: AlterPartitionRequest v3 encoded into a Vec<u8> of {} bytes",
            v.len()
        ); // Owned, decoded from a shared `Bytes` (kafka-wire's `bytes` feature, no std), and
           // encoded again.
        use kafka_wire::messages::alter_partition_request::owned;
        use kafka_wire::OwnedMessage;
        let shared = kafka_wire::bytes::Bytes::copy_from_slice(bytes);
        let again = match owned::AlterPartitionRequest::parse_bytes(shared, VERSION) {
            Ok(m) => {
                c.check(
                    m.topics.iter().map(|t| t.partitions.len()).sum::<usize>() == PARTITIONS.len(),
                    "apr: owned value from a Bytes (bytes)",
                );
                m.to_vec(VERSION).ok()
            }
            Err(_) => None,
        };
        c.check(
            again.as_deref() == Some(bytes),
            "apr: the owned value re-encodes to the same bytes",
        );
        say!("alloc: AlterPartitionRequest v3 owned from a Bytes and encoded again");

        // `kafka_wire::dynamic`: the message laid out by its schema at run time, encoded by the
        // runtime's schema walker (linked here, so the panic-site budget covers it too), against
        // the generated encoder.
        use kafka_wire::dynamic::{self, Struct, Value};
        let desc = AlterPartitionRequest::SCHEMA;
        let mut s = Struct::new(desc);
        s.set(0, Value::Int(i64::from(BROKER_ID)));
        s.set(1, Value::Int(BROKER_EPOCH));
        let dynamic_bytes = dynamic::to_vec(&AlterPartitionRequest::INFO, desc, &s, core::hint::black_box(VERSION));
        let typed = AlterPartitionRequest {
            broker_id: BROKER_ID,
            broker_epoch: BROKER_EPOCH,
            ..AlterPartitionRequest::DEFAULT
        };
        let mut tb = [0u8; 32];
        let typed_bytes = typed.encode_to_slice(&mut tb, VERSION).ok().and_then(|n| tb.get(..n));
        c.check(
            dynamic_bytes.as_deref().ok() == typed_bytes && typed_bytes.is_some(),
            "apr: the dynamic encoder writes the generated encoder's bytes (alloc)",
        );
        say!("alloc: AlterPartitionRequest v3 from a dynamic value, as the generated encoder writes it");
    }
    say!(
        "AlterPartitionRequest v{}: {} bytes, {} partitions, every field checked",
        VERSION,
        n,
        PARTITIONS.len()
    );

    // Transcode to v2. The v3 view cannot be encoded at v2 as it is: v2 has no
    // new_isr_with_epochs, and a non-default field that the target version lacks is an error.
    match view.encode_to_slice(scratch, 2) {
        Err(e) => {
            c.eq(
                "apr: v3 view at v2 error kind",
                e.kind(),
                EncodeErrorKind::FieldNotInVersion,
            );
            c.eq(
                "apr: v3 view at v2 error field",
                e.field(),
                "topics[].partitions[].new_isr_with_epochs",
            );
            say!("AlterPartitionRequest v3 view encoded at v2: {}", e);
        }
        Ok(_) => {
            c.check(false, "apr: a v3 view with new_isr_with_epochs must not encode at v2");
        }
    }
    transcode_v2(c, &view, scratch);
}

const MAX_TOPICS: usize = 2;
const MAX_PARTITIONS: usize = 4;
const MAX_ISR: usize = 4;

/// Builds the v2 request from the parsed v3 view (new_isr = the broker ids of
/// new_isr_with_epochs) on the stack, encodes it into `out`, parses it back and checks it.
#[cfg(not(any(feature = "probe", feature = "parse-path")))]
fn transcode_v2(c: &mut Checks, view: &AlterPartitionRequest<'_>, out: &mut [u8]) {
    let fits = view.topics.len() <= MAX_TOPICS
        && view.topics.iter().all(|t| {
            t.partitions.len() <= MAX_PARTITIONS && t.partitions.iter().all(|p| p.new_isr_with_epochs.len() <= MAX_ISR)
        });
    if !c.check(fits, "apr v2: the request fits the transcoding buffers") {
        return;
    }
    let mut ids = [[[0i32; MAX_ISR]; MAX_PARTITIONS]; MAX_TOPICS];
    for (t, ids_t) in view.topics.iter().zip(ids.iter_mut()) {
        for (p, ids_p) in t.partitions.iter().zip(ids_t.iter_mut()) {
            for (b, id) in p.new_isr_with_epochs.iter().zip(ids_p.iter_mut()) {
                *id = b.broker_id;
            }
        }
    }
    let mut parts = [[PartitionData::DEFAULT; MAX_PARTITIONS]; MAX_TOPICS];
    for ((t, parts_t), ids_t) in view.topics.iter().zip(parts.iter_mut()).zip(ids.iter()) {
        for ((p, slot), ids_p) in t.partitions.iter().zip(parts_t.iter_mut()).zip(ids_t.iter()) {
            *slot = PartitionData {
                partition_index: p.partition_index,
                leader_epoch: p.leader_epoch,
                new_isr: Array::from_slice(ids_p.get(..p.new_isr_with_epochs.len()).unwrap_or(&[])),
                new_isr_with_epochs: Array::EMPTY,
                leader_recovery_state: p.leader_recovery_state,
                partition_epoch: p.partition_epoch,
                unknown_tagged_fields: p.unknown_tagged_fields,
            };
        }
    }
    let mut topics = [TopicData::DEFAULT; MAX_TOPICS];
    for ((t, slot), parts_t) in view.topics.iter().zip(topics.iter_mut()).zip(parts.iter()) {
        *slot = TopicData {
            topic_name: t.topic_name,
            topic_id: t.topic_id,
            partitions: Array::from_slice(parts_t.get(..t.partitions.len()).unwrap_or(&[])),
            unknown_tagged_fields: t.unknown_tagged_fields,
        };
    }
    let v2 = AlterPartitionRequest {
        broker_id: view.broker_id,
        broker_epoch: view.broker_epoch,
        topics: Array::from_slice(topics.get(..view.topics.len()).unwrap_or(&[])),
        unknown_tagged_fields: view.unknown_tagged_fields,
    };
    let n = match v2.encode_to_slice(out, 2) {
        Ok(n) => n,
        Err(e) => {
            say!("FAILED: AlterPartitionRequest v2 encode: {}", e);
            c.check(false, "apr v2: encode");
            return;
        }
    };
    match AlterPartitionRequest::parse(out.get(..n).unwrap_or(&[]), 2) {
        Ok(back) => {
            check_view(c, &back, 2);
            c.check(back == v2, "apr v2: view == value");
            say!(
                "AlterPartitionRequest v3 -> v2: {} bytes, ISR broker ids carried over, every field checked",
                n
            );
        }
        Err(e) => {
            say!("FAILED: AlterPartitionRequest v2 parse: {}", e);
            c.check(false, "apr v2: parse");
        }
    }
}

/// Size probe: encode and parse at a version the compiler cannot see.
#[cfg(feature = "probe")]
pub fn probe(buf: &mut [u8]) {
    with_request(|req| {
        let req = black_box(req);
        if cfg!(feature = "probe-build") {
            return;
        }
        let n = req.encode_to_slice(buf, crate::probe_version(VERSION)).unwrap_or(0);
        let parsed =
            AlterPartitionRequest::parse(black_box(buf.get(..n).unwrap_or(&[])), crate::probe_version(VERSION));
        black_box(&parsed);
    });
}

/// Parse path: parse bytes the compiler cannot see and read every field.
#[cfg(feature = "parse-path")]
pub fn parse_path(c: &mut Checks, bytes: &[u8]) {
    if let Ok(v) = AlterPartitionRequest::parse(black_box(bytes), black_box(VERSION)) {
        check_view(c, &v, black_box(VERSION));
    }
}
