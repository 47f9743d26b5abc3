//! DescribeMirrorsResponse v0 (kafka-wire's draft of the KIP-1279 mirror RPCs).

#[cfg(any(feature = "probe", feature = "parse-path"))]
use core::hint::black_box;

use kafka_wire::messages::describe_mirrors_response::{
    DescribeMirrorsResponse, DescribedMirror, PartitionDetail, TopicPartitions,
};
use kafka_wire::{Array, Message};

use crate::report::Checks;

const VERSION: i16 = 0;
const THROTTLE_TIME_MS: i32 = 25;
const ERROR_MESSAGE: Option<&str> = Some("ok");
const MIRROR_NAME: &str = "dr-west";
const AUTHORIZED_OPERATIONS: i32 = 0x0000_0f08;
// (partition, source offset, destination offset, lag, state, last mirror epoch)
type Detail = (i32, i64, i64, i64, &'static str, i32);
const ORDERS: [Detail; 2] = [(0, 1000, 990, 10, "ACTIVE", 3), (1, 2000, 2000, 0, "ACTIVE", 3)];
const PAYMENTS: [Detail; 1] = [(0, 5, -1, -1, "PAUSED", -1)];
const TOPICS: [(&str, &[Detail]); 2] = [("orders", &ORDERS), ("payments", &PAYMENTS)];

fn detail(
    &(partition_index, source_offset, destination_offset, lag, state, last_mirror_epoch): &Detail,
) -> PartitionDetail<'static> {
    PartitionDetail {
        partition_index,
        source_offset,
        destination_offset,
        lag,
        state,
        last_mirror_epoch,
        ..PartitionDetail::DEFAULT
    }
}

/// Builds the response on the stack and hands it to `f`.
fn with_response<R>(f: impl FnOnce(&DescribeMirrorsResponse<'_>) -> R) -> R {
    let orders = ORDERS.each_ref().map(detail);
    let payments = PAYMENTS.each_ref().map(detail);
    let topics = [
        TopicPartitions {
            topic_name: TOPICS[0].0,
            partitions: Array::from_slice(&orders),
            ..TopicPartitions::DEFAULT
        },
        TopicPartitions {
            topic_name: TOPICS[1].0,
            partitions: Array::from_slice(&payments),
            ..TopicPartitions::DEFAULT
        },
    ];
    let mirrors = [DescribedMirror {
        error_code: 0,
        mirror_name: MIRROR_NAME,
        authorized_operations: AUTHORIZED_OPERATIONS,
        topics: Array::from_slice(&topics),
        ..DescribedMirror::DEFAULT
    }];
    let resp = DescribeMirrorsResponse {
        throttle_time_ms: THROTTLE_TIME_MS,
        error_code: 0,
        error_message: ERROR_MESSAGE,
        mirrors: Array::from_slice(&mirrors),
        ..DescribeMirrorsResponse::DEFAULT
    };
    f(&resp)
}

/// Checks every field of a parsed response.
#[cfg_attr(feature = "probe", allow(dead_code))]
fn check_view(c: &mut Checks, v: &DescribeMirrorsResponse<'_>) {
    c.eq("dmr.throttle_time_ms", v.throttle_time_ms, THROTTLE_TIME_MS);
    c.eq("dmr.error_code", v.error_code, 0);
    c.eq("dmr.error_message", v.error_message, ERROR_MESSAGE);
    c.check(v.unknown_tagged_fields.is_empty(), "dmr._tagged_fields");
    c.eq("dmr.mirrors.len", v.mirrors.len(), 1);
    for m in v.mirrors.iter() {
        c.eq("dmr.mirrors[].error_code", m.error_code, 0);
        c.eq("dmr.mirrors[].mirror_name", m.mirror_name, MIRROR_NAME);
        c.eq(
            "dmr.mirrors[].authorized_operations",
            m.authorized_operations,
            AUTHORIZED_OPERATIONS,
        );
        c.check(m.unknown_tagged_fields.is_empty(), "dmr.mirrors[]._tagged_fields");
        c.eq("dmr.mirrors[].topics.len", m.topics.len(), TOPICS.len());
        for (t, &(name, details)) in m.topics.iter().zip(TOPICS.iter()) {
            c.eq("dmr.topics[].topic_name", t.topic_name, name);
            c.check(t.unknown_tagged_fields.is_empty(), "dmr.topics[]._tagged_fields");
            c.eq("dmr.topics[].partitions.len", t.partitions.len(), details.len());
            for (p, &(index, source, destination, lag, state, epoch)) in t.partitions.iter().zip(details.iter()) {
                c.eq("dmr.partitions[].partition_index", p.partition_index, index);
                c.eq("dmr.partitions[].source_offset", p.source_offset, source);
                c.eq("dmr.partitions[].destination_offset", p.destination_offset, destination);
                c.eq("dmr.partitions[].lag", p.lag, lag);
                c.eq("dmr.partitions[].state", p.state, state);
                c.eq("dmr.partitions[].last_mirror_epoch", p.last_mirror_epoch, epoch);
                c.check(p.unknown_tagged_fields.is_empty(), "dmr.partitions[]._tagged_fields");
            }
        }
    }
}

#[cfg(not(any(feature = "probe", feature = "parse-path")))]
pub fn run(c: &mut Checks, buf: &mut [u8]) {
    let n = with_response(|resp| match resp.encode_to_slice(buf, VERSION) {
        Ok(n) => {
            c.eq("dmr: encoded_len is exact", resp.encoded_len(VERSION), Ok(n));
            n
        }
        Err(e) => {
            say!("FAILED: DescribeMirrorsResponse v0 encode: {}", e);
            c.check(false, "dmr: encode");
            0
        }
    });
    let bytes = buf.get(..n).unwrap_or(&[]);
    match DescribeMirrorsResponse::parse(bytes, VERSION) {
        Ok(view) => {
            check_view(c, &view);
            with_response(|resp| c.check(view == *resp, "dmr: view == value"));
            show!("DescribeMirrorsResponse v0 view", view);
            say!(
                "DescribeMirrorsResponse v{}: {} bytes, {} mirror, {} topics, every field checked",
                VERSION,
                n,
                view.mirrors.len(),
                TOPICS.len()
            );
        }
        Err(e) => {
            say!("FAILED: DescribeMirrorsResponse v0 parse: {}", e);
            c.check(false, "dmr: parse");
        }
    }
}

/// Size probe: encode and parse at a version the compiler cannot see.
#[cfg(feature = "probe")]
pub fn probe(buf: &mut [u8]) {
    with_response(|resp| {
        let resp = black_box(resp);
        if cfg!(feature = "probe-build") {
            return;
        }
        let n = resp.encode_to_slice(buf, crate::probe_version(VERSION)).unwrap_or(0);
        let parsed =
            DescribeMirrorsResponse::parse(black_box(buf.get(..n).unwrap_or(&[])), crate::probe_version(VERSION));
        black_box(&parsed);
    });
}

/// Parse path: parse bytes the compiler cannot see and read every field.
#[cfg(feature = "parse-path")]
pub fn parse_path(c: &mut Checks, bytes: &[u8]) {
    if let Ok(v) = DescribeMirrorsResponse::parse(black_box(bytes), black_box(VERSION)) {
        check_view(c, &v);
    }
}
