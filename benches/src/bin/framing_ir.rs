//! The framing layers under callgrind: request and response frames (size, header, body),
//! record batches and legacy message sets, and `__cluster_metadata` record framing.
//!
//! `framing_ir list` prints the operations with their input sizes; `framing_ir OP ITERS` runs OP
//! once to warm up, then ITERS times inside `kw_bench_measured` (the function callgrind's
//! `--toggle-collect` counts). Only kafka-wire is measured: these are its own entry points.
//!
//! ```text
//! valgrind --tool=callgrind --toggle-collect=kw_bench_measured framing_ir batches_small 20
//! ```

use std::hint::black_box;

use kafka_wire::frame::{self, Mode};
use kafka_wire::messages::{ApiVersionsRequest, ApiVersionsResponse, MetadataRequest};
use kafka_wire::records::{crc32_ieee, Batch, BatchBuilder, BatchRecords, Batches, NewHeader, NewRecord};
use kafka_wire::{Message, MetadataRecord, RequestBody};

#[inline(never)]
#[no_mangle]
pub fn kw_bench_measured(op: &mut dyn FnMut() -> u64, iters: u64) -> u64 {
    let mut acc = 0u64;
    for _ in 0..iters {
        acc = acc.wrapping_add(op());
    }
    black_box(acc)
}

type Op = Box<dyn FnMut() -> u64>;

fn leak(v: Vec<u8>) -> &'static [u8] {
    Box::leak(v.into_boxed_slice())
}

/// ApiVersionsRequest v3 in a frame: request header v2 (client id, tagged fields).
fn api_versions_request_frame() -> &'static [u8] {
    let body = RequestBody::ApiVersions(ApiVersionsRequest {
        client_software_name: "kafka-wire-bench",
        client_software_version: "0.0.0",
        ..ApiVersionsRequest::DEFAULT
    });
    let mut buf = vec![0u8; 256];
    let n = frame::encode_request_frame(42, Some("bench-client"), &body, 3, &mut buf).expect("encode");
    buf.truncate(n);
    leak(buf)
}

/// MetadataRequest v1 in a frame: request header v1 (client id, no tagged fields).
fn metadata_request_frame() -> &'static [u8] {
    let body = RequestBody::Metadata(MetadataRequest::DEFAULT);
    let mut buf = vec![0u8; 256];
    let n = frame::encode_request_frame(42, Some("bench-client"), &body, 1, &mut buf).expect("encode");
    buf.truncate(n);
    leak(buf)
}

/// ApiVersionsResponse v3 (no API keys) in a frame: response header v0.
fn api_versions_response_frame() -> &'static [u8] {
    let body = ApiVersionsResponse {
        throttle_time_ms: 7,
        ..ApiVersionsResponse::DEFAULT
    };
    let mut buf = vec![0u8; 256];
    let n = body.encode_to_slice(&mut buf[8..], 3).expect("encode");
    buf[..4].copy_from_slice(&(n as i32 + 4).to_be_bytes());
    buf[4..8].copy_from_slice(&42i32.to_be_bytes());
    buf.truncate(n + 8);
    leak(buf)
}

/// 100 magic 2 batches of one small record each (framing dominates).
fn small_batches() -> &'static [u8] {
    let headers = [NewHeader::new("h", Some(b"v"))];
    let mut out = Vec::new();
    for i in 0..100i64 {
        let recs = [NewRecord {
            key: Some(b"key"),
            value: Some(b"value-0123456789"),
            headers: &headers,
            ..NewRecord::DEFAULT
        }];
        let b = BatchBuilder {
            base_offset: i,
            base_timestamp: 1_700_000_000_000 + i,
            records: BatchRecords::Plain(&recs),
            ..BatchBuilder::DEFAULT
        };
        let mut buf = vec![0u8; b.encoded_len().expect("size")];
        b.encode_to_slice(&mut buf).expect("encode");
        out.extend(buf);
    }
    leak(out)
}

/// One magic 2 batch of 100 small records (per-record validation dominates).
fn many_records_batch() -> &'static [u8] {
    let headers = [NewHeader::new("h", Some(b"v"))];
    let recs: Vec<NewRecord<'_>> = (0..100)
        .map(|i| NewRecord {
            offset_delta: i,
            timestamp_delta: i64::from(i),
            key: Some(b"key"),
            value: Some(b"value-0123456789"),
            headers: &headers,
            ..NewRecord::DEFAULT
        })
        .collect();
    let b = BatchBuilder {
        base_timestamp: 1_700_000_000_000,
        records: BatchRecords::Plain(&recs),
        ..BatchBuilder::DEFAULT
    };
    let mut buf = vec![0u8; b.encoded_len().expect("size")];
    b.encode_to_slice(&mut buf).expect("encode");
    leak(buf)
}

/// 100 legacy messages, alternating magic 0 and magic 1.
fn legacy_set() -> &'static [u8] {
    let mut out = Vec::new();
    for i in 0..100i64 {
        let magic = (i % 2) as u8;
        let mut body = vec![magic, 0];
        if magic == 1 {
            body.extend((1_700_000_000_000 + i).to_be_bytes());
        }
        for b in [&b"key"[..], &b"value-0123456789"[..]] {
            body.extend((b.len() as i32).to_be_bytes());
            body.extend(b);
        }
        out.extend(i.to_be_bytes());
        out.extend(((body.len() + 4) as i32).to_be_bytes());
        out.extend(crc32_ieee(&body).to_be_bytes());
        out.extend(body);
    }
    leak(out)
}

/// A framed PartitionRecord v0 (three varints, then the record).
fn metadata_record() -> &'static [u8] {
    let rec = MetadataRecord::Partition(kafka_wire::metadata::PartitionRecord {
        partition_id: 3,
        leader: 1,
        ..kafka_wire::metadata::PartitionRecord::DEFAULT
    });
    let mut buf = vec![0u8; 256];
    let n = frame::encode_metadata_record(&rec, 0, &mut buf).expect("encode");
    buf.truncate(n);
    leak(buf)
}

fn walk_batches(input: &[u8]) -> u64 {
    let mut n = 0u64;
    for b in Batches::strict(black_box(input)) {
        match b.expect("batch") {
            Batch::V2(b) => {
                for r in b.records().expect("uncompressed").iter() {
                    n = n.wrapping_add(r.offset_delta as u64);
                    n = n.wrapping_add(r.value.map_or(0, <[u8]>::len) as u64);
                }
            }
            Batch::Legacy(m) => n = n.wrapping_add(m.offset as u64),
            Batch::Truncated(_) => unreachable!(),
        }
    }
    n
}

fn ops() -> Vec<(&'static str, usize, Op)> {
    let mut v: Vec<(&'static str, usize, Op)> = Vec::new();
    let req = api_versions_request_frame();
    v.push((
        "request_frame_v2_header",
        req.len(),
        Box::new(move || {
            let f = frame::parse_request_frame(black_box(req), Mode::Strict).expect("frame");
            f.header.correlation_id as u64
        }),
    ));
    let req1 = metadata_request_frame();
    v.push((
        "request_frame_v1_header",
        req1.len(),
        Box::new(move || {
            let f = frame::parse_request_frame(black_box(req1), Mode::Strict).expect("frame");
            f.header.correlation_id as u64
        }),
    ));
    let resp = api_versions_response_frame();
    v.push((
        "response_frame",
        resp.len(),
        Box::new(move || {
            let f = frame::parse_response_frame_to::<ApiVersionsRequest<'_>>(black_box(resp), 3, Mode::Strict)
                .expect("frame");
            f.header.correlation_id as u64
        }),
    ));
    let small = small_batches();
    v.push(("batches_small", small.len(), Box::new(move || walk_batches(small))));
    let many = many_records_batch();
    v.push(("batch_100_records", many.len(), Box::new(move || walk_batches(many))));
    let legacy = legacy_set();
    v.push(("legacy_set", legacy.len(), Box::new(move || walk_batches(legacy))));
    let meta = metadata_record();
    v.push((
        "metadata_record",
        meta.len(),
        Box::new(move || {
            let r = frame::parse_metadata_record(black_box(meta)).expect("record");
            r.version as u64
        }),
    ));
    v
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut ops = ops();
    if args.len() < 2 || args[1] == "list" {
        for (name, bytes, _) in &ops {
            println!("{name} {bytes}");
        }
        return;
    }
    let iters: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let (_, bytes, op) = ops
        .iter_mut()
        .find(|(n, _, _)| *n == args[1].as_str())
        .unwrap_or_else(|| panic!("no op {}", args[1]));
    black_box(op());
    kw_bench_measured(op, iters);
    println!("op={} bytes={bytes} iters={iters}", args[1]);
}
