//! A stream of real broker responses decoded by a client's tokio codec, under callgrind:
//! kafka-wire's `ClientCodec` (cut, paired, parsed) beside `tokio_util`'s
//! `LengthDelimitedCodec` with `kafka-protocol` 0.18 decoding each frame, on the same bytes.
//!
//! The stream is `benches/data/responses.bin` (the response frames a Kafka 4.4.0 broker sent to
//! three clients, `benches/data/README.md`), less the frames `kafka-protocol` cannot decode (an
//! API version above the ones it knows), with correlation ids renumbered 0, 1, ... in stream
//! order, as one connection's client numbers its requests; nothing else in the frames changes.
//! Each operation decodes the whole stream from one `BytesMut` holding it, with no I/O:
//! `Decoder::decode` until it has no whole frame left.
//!
//! - `kw_cut`: `ClientCodec::decode` (cut, paired with its request in flight).
//! - `kw_view`: the same, then each frame parsed as a view by its request's API key and version
//!   (`Response::view`).
//! - `kw_owned`: the same, then each body decoded as the owned value of its request's response
//!   type, slicing the frame's `Bytes` (`Response::parse`).
//! - `ld_cut`: `LengthDelimitedCodec` (4-byte big-endian length, stripped), each frame's
//!   correlation id looked up in a `HashMap` of the requests in flight.
//! - `kp_decode`: the same, then `kafka-protocol`'s `ResponseHeader::decode` and
//!   `ResponseKind::decode` by the request's API key and version.
//!
//! The codecs' requests in flight are recorded before the measured loop (one codec and one
//! buffer per call of an operation). Every operation drops what it decoded.
//!
//! `stream_ir list` prints the operations with the stream's frame count and bytes;
//! `stream_ir check` decodes the stream both ways and compares the frames (correlation id, a
//! few body fields per API, and each side's re-encoding of the body against the input);
//! `stream_ir OP ITERS` runs OP once, then ITERS times inside `kw_bench_measured`. A last
//! argument `api_versions` or `others` keeps only the ApiVersions answers, or every other frame
//! (`stream_ir kw_view 5 others`), to see where the instructions go.

use std::collections::HashMap;
use std::hint::black_box;

use bytes::{Bytes, BytesMut};
use kafka_protocol::messages::{self as kp, ResponseHeader, ResponseKind};
use kafka_protocol::protocol::Decodable;
use kafka_wire::frame::Mode;
use kafka_wire::messages as m;
use kafka_wire::{ApiKey, ResponseBody};
use kafka_wire_ext::tokio_codec::{ClientCodec, Outgoing, Response};
use tokio_util::codec::{Decoder, Encoder, LengthDelimitedCodec};

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

/// Requests one codec keeps in flight: at least the stream's frames.
const SLOTS: usize = 128;

/// Kafka's largest frame by default (`socket.request.max.bytes`), both codecs' maximum.
const MAX_FRAME: usize = 100 << 20;

const RESPONSES: &[u8] = include_bytes!("../../data/responses.bin");
const MANIFEST: &str = include_str!("../../data/responses.tsv");

/// One frame of the stream: the request it answers.
#[derive(Clone, Copy, Debug)]
struct Asked {
    key: ApiKey,
    kp_key: kp::ApiKey,
    version: i16,
}

/// Which frames of the stream to keep.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Subset {
    All,
    ApiVersions,
    Others,
}

/// The stream both crates decode, renumbered; its frames' requests; the frames left out (API
/// and version of each).
fn stream(subset: Subset) -> (&'static [u8], Vec<Asked>, Vec<String>) {
    let mut out = Vec::new();
    let mut asked = Vec::new();
    let mut left_out = Vec::new();
    for line in MANIFEST.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let [off, len, key, version] = [f[0], f[1], f[2], f[3]].map(|x| x.parse::<i64>().expect("manifest"));
        let (key, version) = (key as i16, version as i16);
        let frame = &RESPONSES[off as usize..(off + len) as usize];
        let ours = ApiKey::from_i16(key).expect("an API kafka-wire knows");
        let wanted = match subset {
            Subset::All => true,
            Subset::ApiVersions => ours == ApiKey::ApiVersions,
            Subset::Others => ours != ApiKey::ApiVersions,
        };
        if !wanted {
            continue;
        }
        let theirs = kp::ApiKey::try_from(key).ok().filter(|k| {
            let r = k.valid_versions();
            r.min <= version && version <= r.max
        });
        let Some(kp_key) = theirs else {
            left_out.push(format!("{} v{version}", ours.name()));
            continue;
        };
        let id = asked.len() as i32;
        let start = out.len();
        out.extend_from_slice(frame);
        out[start + 4..start + 8].copy_from_slice(&id.to_be_bytes());
        asked.push(Asked {
            key: ours,
            kp_key,
            version,
        });
    }
    assert!(asked.len() <= SLOTS);
    (Box::leak(out.into_boxed_slice()), asked, left_out)
}

/// Records a request of API `key` at `version` in flight in `codec` (its bytes are dropped).
fn send(codec: &mut ClientCodec<SLOTS>, key: ApiKey, version: i16) {
    let mut out = BytesMut::new();
    macro_rules! by_key {
        ($($k:ident => $req:ty),* $(,)?) => {
            match key {
                $(ApiKey::$k => codec.encode(Outgoing::new(<$req>::DEFAULT, version), &mut out),)*
                other => panic!("no request for {} here", other.name()),
            }
        };
    }
    by_key!(
        Produce => m::ProduceRequest<'_>,
        Fetch => m::FetchRequest<'_>,
        ListOffsets => m::ListOffsetsRequest<'_>,
        Metadata => m::MetadataRequest<'_>,
        OffsetCommit => m::OffsetCommitRequest<'_>,
        OffsetFetch => m::OffsetFetchRequest<'_>,
        FindCoordinator => m::FindCoordinatorRequest<'_>,
        JoinGroup => m::JoinGroupRequest<'_>,
        Heartbeat => m::HeartbeatRequest<'_>,
        LeaveGroup => m::LeaveGroupRequest<'_>,
        SyncGroup => m::SyncGroupRequest<'_>,
        ApiVersions => m::ApiVersionsRequest<'_>,
        CreateTopics => m::CreateTopicsRequest<'_>,
        InitProducerId => m::InitProducerIdRequest<'_>,
        DescribeCluster => m::DescribeClusterRequest<'_>,
    )
    .expect("encode");
}

/// A codec with every frame's request in flight, and a buffer holding the stream.
fn kw_state(bytes: &[u8], asked: &[Asked]) -> Box<(ClientCodec<SLOTS>, BytesMut)> {
    let mut codec = ClientCodec::<SLOTS>::new(Some("kafka-wire-bench"), MAX_FRAME);
    for a in asked {
        send(&mut codec, a.key, a.version);
    }
    Box::new((codec, BytesMut::from(bytes)))
}

/// `LengthDelimitedCodec` for Kafka: a 4-byte big-endian size first, not counted in it, and
/// not handed out with the frame.
fn length_delimited() -> LengthDelimitedCodec {
    LengthDelimitedCodec::builder()
        .length_field_offset(0)
        .length_field_length(4)
        .length_adjustment(0)
        .num_skip(4)
        .big_endian()
        .max_frame_length(MAX_FRAME)
        .new_codec()
}

type Pairing = HashMap<i32, (kp::ApiKey, i16)>;

/// The usual stack's state: the codec, the requests in flight by correlation id, the buffer.
fn kp_state(bytes: &[u8], asked: &[Asked]) -> Box<(LengthDelimitedCodec, Pairing, BytesMut)> {
    let pairing = asked
        .iter()
        .enumerate()
        .map(|(i, a)| (i as i32, (a.kp_key, a.version)))
        .collect();
    Box::new((length_delimited(), pairing, BytesMut::from(bytes)))
}

/// The request a frame (without its size prefix) answers, taken out of the table.
#[inline]
fn kp_pair(pairing: &mut Pairing, frame: &[u8]) -> (kp::ApiKey, i16) {
    let id = i32::from_be_bytes(frame[..4].try_into().expect("a correlation id"));
    pairing.remove(&id).expect("in flight")
}

/// A frame's header and body decoded by `kafka-protocol`.
fn kp_decode(frame: BytesMut, key: kp::ApiKey, version: i16) -> (ResponseHeader, ResponseKind, Bytes) {
    let mut b = frame.freeze();
    let header = ResponseHeader::decode(&mut b, key.response_header_version(version)).expect("header");
    let body_bytes = b.clone();
    let body = ResponseKind::decode(key, &mut b, version).expect("body");
    assert!(b.is_empty(), "kafka-protocol left {} bytes", b.len());
    (header, body, body_bytes)
}

/// Decodes the owned value of the response to the request in flight, dropping it.
fn kw_owned(r: &Response) -> u64 {
    macro_rules! by_key {
        ($($k:ident => $t:ty),* $(,)?) => {
            match r.in_flight.api_key {
                $(ApiKey::$k => {
                    let v: $t = r.parse().expect("owned decode");
                    black_box(&v);
                })*
                other => panic!("no response type for {} here", other.name()),
            }
        };
    }
    by_key!(
        Produce => m::produce_response::owned::ProduceResponse,
        Fetch => m::fetch_response::owned::FetchResponse,
        ListOffsets => m::list_offsets_response::owned::ListOffsetsResponse,
        Metadata => m::metadata_response::owned::MetadataResponse,
        OffsetCommit => m::offset_commit_response::owned::OffsetCommitResponse,
        OffsetFetch => m::offset_fetch_response::owned::OffsetFetchResponse,
        FindCoordinator => m::find_coordinator_response::owned::FindCoordinatorResponse,
        JoinGroup => m::join_group_response::owned::JoinGroupResponse,
        Heartbeat => m::heartbeat_response::owned::HeartbeatResponse,
        LeaveGroup => m::leave_group_response::owned::LeaveGroupResponse,
        SyncGroup => m::sync_group_response::owned::SyncGroupResponse,
        ApiVersions => m::api_versions_response::owned::ApiVersionsResponse,
        CreateTopics => m::create_topics_response::owned::CreateTopicsResponse,
        InitProducerId => m::init_producer_id_response::owned::InitProducerIdResponse,
        DescribeCluster => m::describe_cluster_response::owned::DescribeClusterResponse,
    );
    1
}

fn ops(bytes: &'static [u8], asked: &'static [Asked], iters: u64) -> Vec<(&'static str, Op)> {
    let calls = iters as usize + 1;
    let mut v: Vec<(&'static str, Op)> = Vec::new();
    // Each call takes a fresh state; the spent ones are kept until the process ends.
    let kw = |each: fn(&Response) -> u64| -> Op {
        let mut fresh: Vec<_> = (0..calls).map(|_| kw_state(bytes, asked)).collect();
        let mut spent = Vec::with_capacity(calls);
        Box::new(move || {
            let mut s = fresh.pop().expect("a state per call");
            let (codec, buf) = &mut *s;
            let mut acc = 0u64;
            while let Some(r) = codec.decode(buf).expect("decode") {
                acc = acc.wrapping_add(each(&r));
            }
            spent.push(s);
            acc
        })
    };
    v.push(("kw_cut", kw(|r| r.in_flight.correlation_id as u64)));
    v.push((
        "kw_view",
        kw(|r| {
            let f = r.view(Mode::Strict).expect("view");
            black_box(&f);
            f.header.correlation_id as u64
        }),
    ));
    v.push(("kw_owned", kw(kw_owned)));
    let kpop = |decode: bool| -> Op {
        let mut fresh: Vec<_> = (0..calls).map(|_| kp_state(bytes, asked)).collect();
        let mut spent = Vec::with_capacity(calls);
        Box::new(move || {
            let mut s = fresh.pop().expect("a state per call");
            let (codec, pairing, buf) = &mut *s;
            let mut acc = 0u64;
            while let Some(frame) = codec.decode(buf).expect("decode") {
                let (key, version) = kp_pair(pairing, &frame);
                if decode {
                    let mut b = frame.freeze();
                    let h = ResponseHeader::decode(&mut b, key.response_header_version(version)).expect("header");
                    let body = ResponseKind::decode(key, &mut b, version).expect("body");
                    black_box(&body);
                    acc = acc.wrapping_add(h.correlation_id as u64);
                } else {
                    acc = acc.wrapping_add(black_box(frame).len() as u64);
                }
            }
            spent.push(s);
            acc
        })
    };
    v.push(("ld_cut", kpop(false)));
    v.push(("kp_decode", kpop(true)));
    v
}

/// A few fields of a body: throttle time, error code, the length of its main array, and one or
/// two more, per API.
fn kw_fields(b: &ResponseBody<'_>) -> [i64; 5] {
    use ResponseBody as B;
    let n = |x: usize| x as i64;
    match b {
        B::Produce(r) => [r.throttle_time_ms.into(), 0, n(r.responses.len()), 0, 0],
        B::Fetch(r) => [
            r.throttle_time_ms.into(),
            r.error_code.into(),
            n(r.responses.len()),
            r.session_id.into(),
            0,
        ],
        B::ListOffsets(r) => [r.throttle_time_ms.into(), 0, n(r.topics.len()), 0, 0],
        B::Metadata(r) => [
            r.throttle_time_ms.into(),
            r.error_code.into(),
            n(r.topics.len()),
            r.controller_id.into(),
            n(r.brokers.len()),
        ],
        B::OffsetCommit(r) => [r.throttle_time_ms.into(), 0, n(r.topics.len()), 0, 0],
        B::OffsetFetch(r) => [
            r.throttle_time_ms.into(),
            r.error_code.into(),
            n(r.groups.len()),
            n(r.topics.len()),
            0,
        ],
        B::FindCoordinator(r) => [
            r.throttle_time_ms.into(),
            r.error_code.into(),
            n(r.coordinators.len()),
            r.node_id.into(),
            r.port.into(),
        ],
        B::JoinGroup(r) => [
            r.throttle_time_ms.into(),
            r.error_code.into(),
            n(r.members.len()),
            r.generation_id.into(),
            n(r.member_id.len()),
        ],
        B::Heartbeat(r) => [r.throttle_time_ms.into(), r.error_code.into(), 0, 0, 0],
        B::LeaveGroup(r) => [r.throttle_time_ms.into(), r.error_code.into(), n(r.members.len()), 0, 0],
        B::SyncGroup(r) => [
            r.throttle_time_ms.into(),
            r.error_code.into(),
            n(r.assignment.len()),
            0,
            0,
        ],
        B::ApiVersions(r) => [
            r.throttle_time_ms.into(),
            r.error_code.into(),
            n(r.api_keys.len()),
            r.finalized_features_epoch,
            0,
        ],
        B::CreateTopics(r) => [r.throttle_time_ms.into(), 0, n(r.topics.len()), 0, 0],
        B::InitProducerId(r) => [
            r.throttle_time_ms.into(),
            r.error_code.into(),
            0,
            r.producer_id,
            r.producer_epoch.into(),
        ],
        B::DescribeCluster(r) => [
            r.throttle_time_ms.into(),
            r.error_code.into(),
            n(r.brokers.len()),
            r.controller_id.into(),
            0,
        ],
        other => panic!("no fields for {} here", other.key().name()),
    }
}

/// The same fields of a `kafka-protocol` body.
fn kp_fields(b: &ResponseKind) -> [i64; 5] {
    use ResponseKind as K;
    let n = |x: usize| x as i64;
    match b {
        K::Produce(r) => [r.throttle_time_ms.into(), 0, n(r.responses.len()), 0, 0],
        K::Fetch(r) => [
            r.throttle_time_ms.into(),
            r.error_code.into(),
            n(r.responses.len()),
            r.session_id.into(),
            0,
        ],
        K::ListOffsets(r) => [r.throttle_time_ms.into(), 0, n(r.topics.len()), 0, 0],
        K::Metadata(r) => [
            r.throttle_time_ms.into(),
            r.error_code.into(),
            n(r.topics.len()),
            r.controller_id.0.into(),
            n(r.brokers.len()),
        ],
        K::OffsetCommit(r) => [r.throttle_time_ms.into(), 0, n(r.topics.len()), 0, 0],
        K::OffsetFetch(r) => [
            r.throttle_time_ms.into(),
            r.error_code.into(),
            n(r.groups.len()),
            n(r.topics.len()),
            0,
        ],
        K::FindCoordinator(r) => [
            r.throttle_time_ms.into(),
            r.error_code.into(),
            n(r.coordinators.len()),
            r.node_id.0.into(),
            r.port.into(),
        ],
        K::JoinGroup(r) => [
            r.throttle_time_ms.into(),
            r.error_code.into(),
            n(r.members.len()),
            r.generation_id.into(),
            n(r.member_id.len()),
        ],
        K::Heartbeat(r) => [r.throttle_time_ms.into(), r.error_code.into(), 0, 0, 0],
        K::LeaveGroup(r) => [r.throttle_time_ms.into(), r.error_code.into(), n(r.members.len()), 0, 0],
        K::SyncGroup(r) => [
            r.throttle_time_ms.into(),
            r.error_code.into(),
            n(r.assignment.len()),
            0,
            0,
        ],
        K::ApiVersions(r) => [
            r.throttle_time_ms.into(),
            r.error_code.into(),
            n(r.api_keys.len()),
            r.finalized_features_epoch,
            0,
        ],
        K::CreateTopics(r) => [r.throttle_time_ms.into(), 0, n(r.topics.len()), 0, 0],
        K::InitProducerId(r) => [
            r.throttle_time_ms.into(),
            r.error_code.into(),
            0,
            r.producer_id.0,
            r.producer_epoch.into(),
        ],
        K::DescribeCluster(r) => [
            r.throttle_time_ms.into(),
            r.error_code.into(),
            n(r.brokers.len()),
            r.controller_id.0.into(),
            0,
        ],
        _ => panic!("no fields for this API here"),
    }
}

/// Decodes the stream both ways and compares every frame; the number of frames compared.
fn check(bytes: &'static [u8], asked: &[Asked]) -> Result<usize, String> {
    let s = kw_state(bytes, asked);
    let (mut codec, mut buf) = *s;
    let mut ours = Vec::new();
    while let Some(r) = codec.decode(&mut buf).map_err(|e| format!("ClientCodec: {e}"))? {
        ours.push(r);
    }
    if !buf.is_empty() || codec.client().in_flight() != 0 {
        return Err(format!(
            "ClientCodec left {} bytes and {} requests in flight",
            buf.len(),
            codec.client().in_flight()
        ));
    }
    let s = kp_state(bytes, asked);
    let (mut ld, mut pairing, mut buf) = *s;
    let mut theirs = Vec::new();
    while let Some(frame) = ld.decode(&mut buf).map_err(|e| format!("LengthDelimitedCodec: {e}"))? {
        let (key, version) = kp_pair(&mut pairing, &frame);
        theirs.push(kp_decode(frame, key, version));
    }
    if ours.len() != asked.len() || theirs.len() != asked.len() {
        return Err(format!(
            "{} frames: ClientCodec cut {}, LengthDelimitedCodec {}",
            asked.len(),
            ours.len(),
            theirs.len()
        ));
    }
    for (i, ((r, (h, body, body_bytes)), a)) in ours.iter().zip(&theirs).zip(asked).enumerate() {
        let f = r.view(Mode::Strict).map_err(|e| format!("frame {i}: view: {e}"))?;
        let id = i as i32;
        if r.in_flight.correlation_id != id || f.header.correlation_id != id || h.correlation_id != id {
            return Err(format!(
                "frame {i}: correlation ids {} (paired), {} (view), {} (kafka-protocol)",
                r.in_flight.correlation_id, f.header.correlation_id, h.correlation_id
            ));
        }
        if r.in_flight.api_key != a.key || f.body.key() != a.key {
            return Err(format!("frame {i}: paired with {}", r.in_flight.api_key.name()));
        }
        if kw_fields(&f.body) != kp_fields(body) {
            return Err(format!(
                "frame {i} ({} v{}): fields {:?} in kafka-wire, {:?} in kafka-protocol",
                a.key.name(),
                a.version,
                kw_fields(&f.body),
                kp_fields(body)
            ));
        }
        // Each side's re-encoding of its decoded body gives back the body's bytes.
        let mut again = Vec::new();
        f.body
            .encode(&mut again, f.version)
            .map_err(|e| format!("frame {i}: kafka-wire encode: {e}"))?;
        if again != f.body_bytes || f.body_bytes != &body_bytes[..] {
            return Err(format!("frame {i}: kafka-wire's body differs from the input"));
        }
        let mut out = BytesMut::new();
        body.encode(&mut out, a.version)
            .map_err(|e| format!("frame {i}: kafka-protocol encode: {e}"))?;
        if out[..] != body_bytes[..] {
            return Err(format!(
                "frame {i} ({} v{}): kafka-protocol's re-encoding differs from the input",
                a.key.name(),
                a.version
            ));
        }
        // The owned decode reads the same body.
        kw_owned(r);
    }
    Ok(asked.len())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let subset = match args.get(3).map(String::as_str) {
        None => Subset::All,
        Some("api_versions") => Subset::ApiVersions,
        Some("others") => Subset::Others,
        Some(x) => panic!("no subset {x}: api_versions or others"),
    };
    let (bytes, asked, left_out) = stream(subset);
    let asked: &'static [Asked] = Box::leak(asked.into_boxed_slice());
    let iters: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let cmd = args.get(1).map_or("list", String::as_str);
    if cmd == "check" {
        match check(bytes, asked) {
            Ok(n) => {
                let mut apis: Vec<&str> = asked.iter().map(|a| a.key.name()).collect();
                apis.sort_unstable();
                apis.dedup();
                println!(
                    "ok: {n} response frames ({} bytes, {} APIs: {}) decode to the same correlation ids and fields in kafka-wire's ClientCodec and in LengthDelimitedCodec + kafka-protocol, and each re-encodes its body byte for byte; {} captured frames left out, at versions kafka-protocol does not know: {}",
                    bytes.len(),
                    apis.len(),
                    apis.join(", "),
                    left_out.len(),
                    left_out.join(", ")
                );
            }
            Err(e) => {
                println!("FAILED {e}");
                std::process::exit(1);
            }
        }
        return;
    }
    let mut ops = ops(bytes, asked, if cmd == "list" { 0 } else { iters });
    if cmd == "list" {
        for (name, _) in &ops {
            println!("{name} {} {}", asked.len(), bytes.len());
        }
        return;
    }
    let (_, op) = ops
        .iter_mut()
        .find(|(n, _)| *n == cmd)
        .unwrap_or_else(|| panic!("no op {cmd}"));
    black_box(op());
    kw_bench_measured(op, iters);
    println!("op={cmd} frames={} bytes={} iters={iters}", asked.len(), bytes.len());
}
