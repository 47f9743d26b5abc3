//! The framing layers under callgrind: request and response frames (size, header, body),
//! record batches and legacy message sets, `__cluster_metadata` record framing, and a response
//! frame through the connection layer (cut, paired, parsed) beside its bare parse.
//!
//! `framing_ir list` prints the operations with their input sizes; `framing_ir OP ITERS` runs OP
//! once to warm up, then ITERS times inside `kw_bench_measured` (the function callgrind's
//! `--toggle-collect` counts). Only kafka-wire is measured: these are its own entry points.
//!
//! The connection operations (`conn_*`, beside `parse_*` on the same frame) take a response
//! frame through `kafka_wire::conn`: a `FrameCutter` over a fixed buffer receives it, cuts it,
//! and a `Client` pairs it with its request and parses it. The requests are sent before the
//! measured loop (one per iteration and one for the warm-up, each with its own correlation id),
//! so each iteration answers one of them. `conn_typed` receives the frame as a socket read does,
//! in place: the previous frame's bytes are still in the cutter's buffer, and only the 4 bytes
//! that differ (the correlation id) are written into `space()` before `filled`; the copy of the
//! rest is the read's, as the bare parse's input is already in memory. `conn_push` copies the
//! whole frame in (`FrameCutter::push`), for a caller that does not read in place.
//!
//! ```text
//! valgrind --tool=callgrind --toggle-collect=kw_bench_measured framing_ir batches_small 20
//! ```

use std::hint::black_box;

use kafka_wire::conn::{Client, Cut, FrameCutter};
use kafka_wire::frame::{self, Mode};
use kafka_wire::messages::{ApiVersionsRequest, ApiVersionsResponse, MetadataRequest};
use kafka_wire::records::{crc32_ieee, Batch, BatchBuilder, BatchRecords, Batches, NewHeader, NewRecord};
use kafka_wire::Request;
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

/// MetadataResponse v13 in a frame (response header v1: correlation id 0, no tagged fields):
/// the body of the `metadata_response_v13` case of `benches/callgrind.sh`.
fn metadata_response_v13_frame() -> &'static [u8] {
    let body = kafka_wire_bench::gen::metadata();
    let mut f = Vec::with_capacity(body.len() + 9);
    f.extend(((body.len() + 5) as i32).to_be_bytes());
    f.extend(0i32.to_be_bytes());
    f.push(0);
    f.extend(body);
    leak(f)
}

/// A real Kafka 4.4.0 broker's answer to ApiVersions v3 (`benches/data/README.md`).
const API_VERSIONS_RESPONSE_V3: &[u8] = include_bytes!("../../data/api_versions_response_v3.bin");

/// Requests in flight at most in the connection operations: one per iteration, and the warm-up.
const CONN_SLOTS: usize = 64;

/// The connection operations on one response frame answering `R` at `version`, and their bare
/// parses (see the module documentation).
fn conn_ops<R: Request<'static> + Copy + 'static>(
    v: &mut Vec<(&'static str, usize, Op)>,
    names: [&'static str; 5],
    request: R,
    version: i16,
    frame: &'static [u8],
    iters: u64,
) {
    let [parse_typed, conn_typed, conn_push, parse_by_key, conn_by_key] = names;
    // Every operation reads the frame from the start of a heap allocation, as the cutter's
    // buffer holds it: the same alignment, so strings are validated at the same cost.
    let frame = leak(frame.to_vec());
    let n = frame.len();
    // A client with one request in flight per call of the operation, correlation ids 0, 1, ...
    let client = move || {
        let mut c: Client<CONN_SLOTS> = Client::new();
        let mut out = [0u8; 256];
        let calls = iters.saturating_add(1);
        assert!(calls <= CONN_SLOTS as u64, "at most {} iterations", CONN_SLOTS - 1);
        for _ in 0..calls {
            c.send(&request, version, Some("kafka-wire-bench"), &mut out)
                .expect("send");
        }
        c
    };
    // The cutter's fixed buffer: room for the frame, as a connection sized for its largest.
    let cutter = move || {
        let buf: &'static mut [u8] = Box::leak(vec![0u8; n.next_power_of_two()].into_boxed_slice());
        let mut cut = FrameCutter::new(buf, n);
        assert_eq!(cut.push(frame), n);
        assert!(matches!(cut.next_frame(), Ok(Cut::Frame(f)) if f == frame));
        cut
    };
    v.push((
        parse_typed,
        n,
        Box::new(move || {
            let f = frame::parse_response_frame_to::<R>(black_box(frame), version, Mode::Strict).expect("frame");
            f.header.correlation_id as u64
        }),
    ));
    let (mut cut, mut c, mut id) = (cutter(), client(), 0i32);
    v.push((
        conn_typed,
        n,
        Box::new(move || {
            let space = cut.space();
            space[4..8].copy_from_slice(&black_box(id).to_be_bytes());
            cut.filled(n);
            id += 1;
            let Ok(Cut::Frame(f)) = cut.next_frame() else {
                panic!("no frame")
            };
            let r = c.receive_as::<R>(f, Mode::Strict).expect("receive");
            r.header.correlation_id as u64
        }),
    ));
    let (mut cut, mut c, mut id) = (cutter(), client(), 0i32);
    let mut src = frame.to_vec();
    v.push((
        conn_push,
        n,
        Box::new(move || {
            src[4..8].copy_from_slice(&black_box(id).to_be_bytes());
            id += 1;
            cut.push(black_box(&src));
            let Ok(Cut::Frame(f)) = cut.next_frame() else {
                panic!("no frame")
            };
            let r = c.receive_as::<R>(f, Mode::Strict).expect("receive");
            r.header.correlation_id as u64
        }),
    ));
    v.push((
        parse_by_key,
        n,
        Box::new(move || {
            let f = frame::parse_response_frame(black_box(frame), R::API_KEY, version, Mode::Strict).expect("frame");
            f.header.correlation_id as u64
        }),
    ));
    let (mut cut, mut c, mut id) = (cutter(), client(), 0i32);
    v.push((
        conn_by_key,
        n,
        Box::new(move || {
            let space = cut.space();
            space[4..8].copy_from_slice(&black_box(id).to_be_bytes());
            cut.filled(n);
            id += 1;
            let Ok(Cut::Frame(f)) = cut.next_frame() else {
                panic!("no frame")
            };
            let r = c.receive(f, Mode::Strict).expect("receive");
            debug_assert_eq!(r.in_flight.api_key, R::API_KEY);
            r.frame.header.correlation_id as u64
        }),
    ));
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

fn ops(iters: u64) -> Vec<(&'static str, usize, Op)> {
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
    conn_ops(
        &mut v,
        [
            "parse_typed_metadata_v13",
            "conn_typed_metadata_v13",
            "conn_push_metadata_v13",
            "parse_by_key_metadata_v13",
            "conn_by_key_metadata_v13",
        ],
        MetadataRequest::DEFAULT,
        13,
        metadata_response_v13_frame(),
        iters,
    );
    conn_ops(
        &mut v,
        [
            "parse_typed_api_versions_v3",
            "conn_typed_api_versions_v3",
            "conn_push_api_versions_v3",
            "parse_by_key_api_versions_v3",
            "conn_by_key_api_versions_v3",
        ],
        ApiVersionsRequest::DEFAULT,
        3,
        API_VERSIONS_RESPONSE_V3,
        iters,
    );
    v
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let iters: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut ops = ops(iters);
    if args.len() < 2 || args[1] == "list" {
        for (name, bytes, _) in &ops {
            println!("{name} {bytes}");
        }
        return;
    }
    let (_, bytes, op) = ops
        .iter_mut()
        .find(|(n, _, _)| *n == args[1].as_str())
        .unwrap_or_else(|| panic!("no op {}", args[1]));
    black_box(op());
    kw_bench_measured(op, iters);
    println!("op={} bytes={bytes} iters={iters}", args[1]);
}
