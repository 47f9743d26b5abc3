//! `kwire-stub`: a one-node Kafka server stub built on kafka-wire, for capturing the request
//! frames that real clients send.
//!
//! It answers ApiVersions, Metadata, CreateTopics, DeleteTopics, DescribeConfigs, ListGroups,
//! InitProducerId, Produce, Fetch, ListOffsets, OffsetForLeaderEpoch, the classic consumer-group
//! APIs (FindCoordinator, JoinGroup, SyncGroup, Heartbeat, OffsetFetch, OffsetCommit,
//! LeaveGroup) and KIP-848's ConsumerGroupHeartbeat: enough for a client to create a topic,
//! produce to it, consume it back in a group, list the groups and delete a topic. Every
//! request is parsed with `kafka_wire::frame::parse_request` (strict mode first; lenient mode
//! only when strict fails, which is recorded) and every response is encoded with the codec at
//! the version the client asked for.
//!
//! Every request frame (its bytes after the 4-byte size prefix) is written to
//! `OUT/CLIENT/<Api>-v<version>-<n>.bin`, keeping the first `--keep` frames of each API and
//! version (every Produce frame, and the first ApiVersions frame that names the cluster and
//! node, KIP-1242), and described by one line of `OUT/CLIENT/captured.tsv` (the columns of
//! tests/clients/frames/MANIFEST.tsv). The action column comes from the request's client id:
//! the client scripts use `kwire-producer`, `kwire-consumer` and `kwire-admin`.
//!
//! ```text
//! kwire-stub --client NAME --client-version VERSION --out DIR [--port-file FILE] [--keep N]
//! ```
//!
//! It listens on 127.0.0.1 (an ephemeral port, written to the port file) until it is killed.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kafka_wire::frame::{parse_request, Mode, RequestFrame};
use kafka_wire::messages::ResponseHeader;
use kafka_wire::records::{Batch, Batches};
use kafka_wire::OwnedStr as Str;
use kafka_wire::{ApiKey, EncodeError, Message, OwnedMessage, RequestBody, Uuid};

/// The APIs the stub answers, and so advertises in ApiVersions.
const HANDLED: &[ApiKey] = &[
    ApiKey::Produce,
    ApiKey::Fetch,
    ApiKey::ListOffsets,
    ApiKey::Metadata,
    ApiKey::OffsetCommit,
    ApiKey::OffsetFetch,
    ApiKey::FindCoordinator,
    ApiKey::JoinGroup,
    ApiKey::Heartbeat,
    ApiKey::LeaveGroup,
    ApiKey::SyncGroup,
    ApiKey::ApiVersions,
    ApiKey::CreateTopics,
    ApiKey::InitProducerId,
    ApiKey::OffsetForLeaderEpoch,
    ApiKey::DescribeConfigs,
    ApiKey::ConsumerGroupHeartbeat,
    ApiKey::DeleteTopics,
    ApiKey::ListGroups,
];

const NODE_ID: i32 = 1;
const CLUSTER_ID: &str = "kwire-stub-cluster-0001";

struct Topic {
    id: Uuid,
    partitions: i32,
    /// Partition 0's batches (or legacy messages): base offset, record count, bytes (with the
    /// base offset already rewritten).
    log: Vec<(i64, i64, Vec<u8>)>,
    next_offset: i64,
}

#[derive(Default)]
struct State {
    topics: BTreeMap<Str, Topic>,
    committed: BTreeMap<(Str, Str, i32), i64>,
    /// KIP-848 groups: (group, member) -> (member epoch, subscribed topics).
    cg_members: BTreeMap<(Str, Str), (i32, Vec<Str>)>,
    /// Groups seen, with their type (`classic` or `consumer`).
    groups: BTreeMap<Str, &'static str>,
    generation: i32,
    members: u32,
    /// Frames kept per (api, version).
    counts: BTreeMap<(i16, i16), usize>,
    /// Whether an ApiVersions request naming the cluster and node (v5+, KIP-1242) was kept.
    kept_cluster_check: bool,
    manifest: Vec<String>,
}

impl State {
    fn topic(&mut self, name: &str, partitions: i32) -> &mut Topic {
        let n = self.topics.len() as u128;
        self.topics.entry(name.into()).or_insert_with(|| Topic {
            // Deterministic, distinct, never zero.
            id: Uuid::from_u128(0x6b77_6972_6500_0000_0000_0000_0000_0000 | (n + 1)),
            partitions: partitions.max(1),
            log: Vec::new(),
            next_offset: 0,
        })
    }
    fn by_id(&self, id: Uuid) -> Option<(&Str, &Topic)> {
        self.topics.iter().find(|(_, t)| t.id == id)
    }
}

struct Config {
    client: String,
    client_version: String,
    out: PathBuf,
    keep: usize,
    port: u16,
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut client, mut client_version, mut out, mut port_file, mut keep) = (None, None, None, None, 3usize);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| die(&format!("{a} needs a value")));
        match a.as_str() {
            "--client" => client = Some(val()),
            "--client-version" => client_version = Some(val()),
            "--out" => out = Some(PathBuf::from(val())),
            "--port-file" => port_file = Some(PathBuf::from(val())),
            "--keep" => keep = val().parse().unwrap_or_else(|_| die("--keep takes a number")),
            _ => die(&format!("unknown argument {a}")),
        }
    }
    let client = client.unwrap_or_else(|| die("--client is required"));
    let out = out.unwrap_or_else(|| die("--out is required"));
    std::fs::create_dir_all(out.join(&client)).unwrap_or_else(|e| die(&format!("create {}: {e}", out.display())));
    let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| die(&format!("bind: {e}")));
    let port = listener
        .local_addr()
        .map(|a| a.port())
        .unwrap_or_else(|e| die(&format!("local_addr: {e}")));
    let cfg = Arc::new(Config {
        client,
        client_version: client_version.unwrap_or_else(|| "unknown".into()),
        out,
        keep,
        port,
    });
    if let Some(p) = port_file {
        std::fs::write(&p, format!("{port}\n")).unwrap_or_else(|e| die(&format!("write {}: {e}", p.display())));
    }
    eprintln!("kwire-stub: {} listening on 127.0.0.1:{port}", cfg.client);
    let state = Arc::new(Mutex::new(State::default()));
    for conn in listener.incoming() {
        let Ok(conn) = conn else { continue };
        let (cfg, state) = (Arc::clone(&cfg), Arc::clone(&state));
        std::thread::spawn(move || {
            if let Err(e) = serve(conn, &cfg, &state) {
                eprintln!("kwire-stub: connection closed: {e}");
            }
        });
    }
}

fn die(msg: &str) -> ! {
    eprintln!("kwire-stub: {msg}");
    std::process::exit(2)
}

fn serve(mut conn: TcpStream, cfg: &Config, state: &Mutex<State>) -> Result<(), String> {
    conn.set_nodelay(true).ok();
    loop {
        let mut size = [0u8; 4];
        match conn.read_exact(&mut size) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e.to_string()),
        }
        let n = i32::from_be_bytes(size);
        if !(0..=64 << 20).contains(&n) {
            return Err(format!("bad frame size {n}"));
        }
        let mut payload = vec![0u8; n as usize];
        conn.read_exact(&mut payload).map_err(|e| e.to_string())?;
        let (frame, lenient_reason) = match parse_request(&payload, Mode::Strict) {
            Ok(f) => (f, None),
            Err(strict) => match parse_request(&payload, Mode::Lenient) {
                Ok(f) => (f, Some(strict.to_string())),
                Err(e) => {
                    record(cfg, state, &payload, None, "undecodable", &e.to_string());
                    return Err(format!("undecodable request: {e}"));
                }
            },
        };
        match &lenient_reason {
            Some(r) => record(cfg, state, &payload, Some(&frame), "lenient", r),
            None => record(cfg, state, &payload, Some(&frame), "strict", ""),
        }
        let response = respond(&frame, cfg, state).map_err(|e| {
            format!(
                "encoding the response to {:?} v{}: {e}",
                frame.api_key, frame.api_version
            )
        })?;
        conn.write_all(&response).map_err(|e| e.to_string())?;
    }
}

/// Saves one request frame and its manifest line (the first `keep` of each API and version).
fn record(
    cfg: &Config,
    state: &Mutex<State>,
    payload: &[u8],
    frame: Option<&RequestFrame<'_>>,
    mode: &str,
    note: &str,
) {
    let key = i16::from_be_bytes([
        payload.first().copied().unwrap_or(0),
        payload.get(1).copied().unwrap_or(0),
    ]);
    let version = i16::from_be_bytes([
        payload.get(2).copied().unwrap_or(0),
        payload.get(3).copied().unwrap_or(0),
    ]);
    let name = ApiKey::from_i16(key).map_or_else(|| format!("Api{key}"), |k| format!("{k:?}"));
    let action = match frame.and_then(|f| f.header.client_id) {
        Some(id) if id.contains("kip848") => "consume-kip848",
        Some(id) if id.contains("producer") => "produce",
        Some(id) if id.contains("consumer") => "consume",
        Some(id) if id.contains("admin") => "admin",
        _ => "other",
    };
    let mut st = state.lock().unwrap_or_else(|p| p.into_inner());
    let count = st.counts.entry((key, version)).or_insert(0);
    *count += 1;
    // Produce requests carry the record batches: all of them are kept. So is the first
    // ApiVersions request that names the cluster and node (KIP-1242): clients send it only on
    // connections to a broker they know from metadata, after their first few ApiVersions.
    let cluster_check = matches!(frame.map(|f| &f.body), Some(RequestBody::ApiVersions(r)) if r.cluster_id.is_some());
    let first_cluster_check = cluster_check && !st.kept_cluster_check;
    st.kept_cluster_check |= cluster_check && mode == "strict";
    let count = *st.counts.get(&(key, version)).unwrap_or(&0);
    if count > cfg.keep && mode == "strict" && key != ApiKey::Produce.id() && !first_cluster_check {
        return;
    }
    let file = format!("{name}-v{version}-{count}.bin");
    let path = cfg.out.join(&cfg.client).join(&file);
    if let Err(e) = std::fs::write(&path, payload) {
        eprintln!("kwire-stub: write {}: {e}", path.display());
        return;
    }
    let line = format!(
        "{}/{file}\t{}\t{}\t{action}\t{key}\t{name}\t{version}\t{mode}\t{}",
        cfg.client,
        cfg.client,
        cfg.client_version,
        note.replace(['\t', '\n'], " ")
    );
    st.manifest.push(line);
    let all = st.manifest.join("\n") + "\n";
    let mpath = cfg.out.join(&cfg.client).join("captured.tsv");
    if let Err(e) = std::fs::write(&mpath, all) {
        eprintln!("kwire-stub: write {}: {e}", mpath.display());
    }
}

/// A whole response frame: size, header (the version's header version), body.
fn frame_of<M: OwnedMessage>(key: ApiKey, version: i16, correlation_id: i32, body: &M) -> Result<Vec<u8>, String> {
    frame_inner(key, version, correlation_id, body).map_err(|e| e.to_string())
}

fn frame_inner<M: OwnedMessage>(
    key: ApiKey,
    version: i16,
    correlation_id: i32,
    body: &M,
) -> Result<Vec<u8>, EncodeError> {
    let hv = key.response_header_version(version);
    let header = ResponseHeader {
        correlation_id,
        ..ResponseHeader::DEFAULT
    };
    let mut out = vec![0u8; 4];
    header.encode(&mut out, hv)?;
    body.encode(&mut out, version)?;
    let size = (out.len() - 4) as i32;
    out[..4].copy_from_slice(&size.to_be_bytes());
    Ok(out)
}

fn advertised(key: ApiKey) -> (i16, i16) {
    let info = key.request_info();
    let max = if info.latest_version_unstable {
        info.max_version - 1
    } else {
        info.max_version
    };
    (info.min_version, max)
}

fn respond(f: &RequestFrame<'_>, cfg: &Config, state: &Mutex<State>) -> Result<Vec<u8>, String> {
    use kafka_wire::messages::*;
    let v = f.api_version;
    let corr = f.header.correlation_id;
    let key = f.api_key;
    match &f.body {
        RequestBody::ApiVersions(req) => {
            use api_versions_response::owned as o;
            // KIP-1242: a client naming another cluster or node gets REBOOTSTRAP_REQUIRED, as
            // from a Kafka 4.4 broker.
            if req
                .cluster_id
                .is_some_and(|c| c != CLUSTER_ID || req.node_id != NODE_ID)
            {
                return frame_of(
                    key,
                    v,
                    corr,
                    &o::ApiVersionsResponse {
                        error_code: 129,
                        ..Default::default()
                    },
                );
            }
            let api_keys = HANDLED
                .iter()
                .map(|k| {
                    let (min, max) = advertised(*k);
                    o::ApiVersion {
                        api_key: k.id(),
                        min_version: min,
                        max_version: max,
                        ..Default::default()
                    }
                })
                .collect();
            frame_of(
                key,
                v,
                corr,
                &o::ApiVersionsResponse {
                    api_keys,
                    ..Default::default()
                },
            )
        }
        RequestBody::Metadata(req) => {
            use metadata_response::owned as o;
            let req = metadata_request::owned::MetadataRequest::from_view(req);
            let mut st = state.lock().unwrap_or_else(|p| p.into_inner());
            let mut topics = Vec::new();
            let mk = |name: &str, t: &Topic| o::MetadataResponseTopic {
                name: Some(name.into()),
                topic_id: if v >= 10 { t.id } else { Uuid::nil() },
                partitions: (0..t.partitions)
                    .map(|p| o::MetadataResponsePartition {
                        partition_index: p,
                        leader_id: NODE_ID,
                        leader_epoch: if v >= 7 { 0 } else { -1 },
                        replica_nodes: [NODE_ID].into_iter().collect(),
                        isr_nodes: [NODE_ID].into_iter().collect(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            };
            match &req.topics {
                None => {
                    for (name, t) in &st.topics {
                        topics.push(mk(name, t));
                    }
                }
                Some(list) => {
                    for rt in list {
                        match &rt.name {
                            Some(name) => {
                                st.topic(name, 1);
                                let t = &st.topics[name];
                                topics.push(mk(name, t));
                            }
                            None => match st.by_id(rt.topic_id) {
                                Some((name, t)) => topics.push(mk(name, t)),
                                None => topics.push(o::MetadataResponseTopic {
                                    error_code: 100, // UNKNOWN_TOPIC_ID
                                    topic_id: rt.topic_id,
                                    ..Default::default()
                                }),
                            },
                        }
                    }
                }
            }
            let resp = o::MetadataResponse {
                brokers: vec![o::MetadataResponseBroker {
                    node_id: NODE_ID,
                    host: "127.0.0.1".into(),
                    port: i32::from(cfg.port),
                    rack: None,
                    ..Default::default()
                }],
                cluster_id: Some(CLUSTER_ID.into()),
                controller_id: NODE_ID,
                topics,
                ..Default::default()
            };
            frame_of(key, v, corr, &resp)
        }
        RequestBody::CreateTopics(req) => {
            use create_topics_response::owned as o;
            let req = create_topics_request::owned::CreateTopicsRequest::from_view(req);
            let mut st = state.lock().unwrap_or_else(|p| p.into_inner());
            let topics = req
                .topics
                .iter()
                .map(|t| {
                    let exists = st.topics.contains_key(&t.name);
                    let n = if t.num_partitions > 0 { t.num_partitions } else { 1 };
                    let id = st.topic(&t.name, n).id;
                    o::CreatableTopicResult {
                        name: t.name.clone(),
                        topic_id: if v >= 7 { id } else { Uuid::nil() },
                        error_code: if exists { 36 } else { 0 }, // TOPIC_ALREADY_EXISTS
                        error_message: if exists && v >= 1 {
                            Some(format!("Topic '{}' already exists.", t.name).into())
                        } else {
                            None
                        },
                        num_partitions: if v >= 5 { n } else { -1 },
                        replication_factor: if v >= 5 { 1 } else { -1 },
                        configs: if v >= 5 { Some(Vec::new()) } else { None },
                        ..Default::default()
                    }
                })
                .collect();
            frame_of(
                key,
                v,
                corr,
                &o::CreateTopicsResponse {
                    topics,
                    ..Default::default()
                },
            )
        }
        RequestBody::DescribeConfigs(req) => {
            use describe_configs_response::owned as o;
            let req = describe_configs_request::owned::DescribeConfigsRequest::from_view(req);
            let known = [
                ("cleanup.policy", "delete"),
                ("retention.ms", "604800000"),
                ("max.message.bytes", "1048588"),
            ];
            let results = req
                .resources
                .iter()
                .map(|r| o::DescribeConfigsResult {
                    resource_type: r.resource_type,
                    resource_name: r.resource_name.clone(),
                    configs: known
                        .iter()
                        .filter(|(k, _)| r.configuration_keys.as_ref().is_none_or(|ks| ks.iter().any(|x| x == k)))
                        .map(|(k, val)| o::DescribeConfigsResourceResult {
                            name: (*k).into(),
                            value: Some((*val).into()),
                            is_default: v == 0,
                            config_source: if v >= 1 { 5 } else { -1 }, // DEFAULT_CONFIG
                            config_type: if v >= 3 {
                                if *k == "cleanup.policy" {
                                    7
                                } else {
                                    5
                                }
                            } else {
                                0
                            },
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                })
                .collect();
            frame_of(
                key,
                v,
                corr,
                &o::DescribeConfigsResponse {
                    results,
                    ..Default::default()
                },
            )
        }
        RequestBody::InitProducerId(_) => {
            use init_producer_id_response::owned as o;
            frame_of(
                key,
                v,
                corr,
                &o::InitProducerIdResponse {
                    producer_id: 4000,
                    producer_epoch: 0,
                    ..Default::default()
                },
            )
        }
        RequestBody::Produce(req) => {
            use produce_response::owned as o;
            let req = produce_request::owned::ProduceRequest::from_view(req);
            let mut st = state.lock().unwrap_or_else(|p| p.into_inner());
            let mut responses = Vec::new();
            for td in &req.topic_data {
                let name = if td.name.is_empty() {
                    st.by_id(td.topic_id).map(|(n, _)| n.clone()).unwrap_or_default()
                } else {
                    td.name.clone()
                };
                let mut partition_responses = Vec::new();
                for pd in &td.partition_data {
                    let (error_code, base_offset) = if name.is_empty() {
                        (100, -1) // UNKNOWN_TOPIC_ID
                    } else {
                        let t = st.topic(&name, 1);
                        match append(t, pd.records.as_deref().unwrap_or_default()) {
                            Ok(base) => (0, base),
                            Err(e) => {
                                eprintln!("kwire-stub: produce to {name}: {e}");
                                (87, -1) // INVALID_RECORD
                            }
                        }
                    };
                    partition_responses.push(o::PartitionProduceResponse {
                        index: pd.index,
                        error_code,
                        base_offset,
                        log_start_offset: if v >= 5 { 0 } else { -1 },
                        ..Default::default()
                    });
                }
                responses.push(o::TopicProduceResponse {
                    name: if v >= 13 { Str::default() } else { td.name.clone() },
                    topic_id: if v >= 13 { td.topic_id } else { Uuid::nil() },
                    partition_responses,
                    ..Default::default()
                });
            }
            frame_of(
                key,
                v,
                corr,
                &o::ProduceResponse {
                    responses,
                    ..Default::default()
                },
            )
        }
        RequestBody::Fetch(req) => {
            use fetch_response::owned as o;
            let req = fetch_request::owned::FetchRequest::from_view(req);
            let build = |st: &State| {
                let mut any = false;
                let responses: Vec<o::FetchableTopicResponse> = req
                    .topics
                    .iter()
                    .map(|ft| {
                        let found = if v >= 13 {
                            st.by_id(ft.topic_id)
                        } else {
                            st.topics.get_key_value(&ft.topic)
                        };
                        let partitions = ft
                            .partitions
                            .iter()
                            .map(|fp| match found {
                                Some((_, t)) if fp.partition < t.partitions => {
                                    let mut records = Vec::new();
                                    if fp.partition == 0 {
                                        for (base, count, b) in &t.log {
                                            if base + count > fp.fetch_offset {
                                                records.extend_from_slice(b);
                                            }
                                        }
                                    }
                                    any |= !records.is_empty();
                                    let hw = if fp.partition == 0 { t.next_offset } else { 0 };
                                    o::PartitionData {
                                        partition_index: fp.partition,
                                        high_watermark: hw,
                                        last_stable_offset: if v >= 4 { hw } else { -1 },
                                        log_start_offset: if v >= 5 { 0 } else { -1 },
                                        aborted_transactions: if v >= 4 { Some(Default::default()) } else { None },
                                        records: Some(records.into()),
                                        ..Default::default()
                                    }
                                }
                                _ => o::PartitionData {
                                    partition_index: fp.partition,
                                    error_code: if v >= 13 { 100 } else { 3 },
                                    high_watermark: -1,
                                    records: Some(Default::default()),
                                    ..Default::default()
                                },
                            })
                            .collect();
                        o::FetchableTopicResponse {
                            topic: if v >= 13 { Str::default() } else { ft.topic.clone() },
                            topic_id: if v >= 13 { ft.topic_id } else { Uuid::nil() },
                            partitions,
                            ..Default::default()
                        }
                    })
                    .collect();
                (responses, any)
            };
            let (mut responses, any) = build(&state.lock().unwrap_or_else(|p| p.into_inner()));
            if !any {
                // Long poll, shortened: wait a little, then answer with what there is.
                std::thread::sleep(Duration::from_millis(
                    u64::try_from(req.max_wait_ms.clamp(0, 200)).unwrap_or(0),
                ));
                responses = build(&state.lock().unwrap_or_else(|p| p.into_inner())).0;
            }
            frame_of(
                key,
                v,
                corr,
                &o::FetchResponse {
                    responses,
                    ..Default::default()
                },
            )
        }
        RequestBody::ListOffsets(req) => {
            use list_offsets_response::owned as o;
            let req = list_offsets_request::owned::ListOffsetsRequest::from_view(req);
            let st = state.lock().unwrap_or_else(|p| p.into_inner());
            let topics = req
                .topics
                .iter()
                .map(|lt| o::ListOffsetsTopicResponse {
                    name: lt.name.clone(),
                    partitions: lt
                        .partitions
                        .iter()
                        .map(|lp| {
                            let end = st
                                .topics
                                .get(&lt.name)
                                .filter(|_| lp.partition_index == 0)
                                .map_or(0, |t| t.next_offset);
                            let offset = if lp.timestamp == -1 { end } else { 0 };
                            o::ListOffsetsPartitionResponse {
                                partition_index: lp.partition_index,
                                old_style_offsets: if v == 0 {
                                    [offset].into_iter().collect()
                                } else {
                                    Default::default()
                                },
                                timestamp: -1,
                                offset: if v >= 1 { offset } else { -1 },
                                leader_epoch: if v >= 4 { 0 } else { -1 },
                                ..Default::default()
                            }
                        })
                        .collect(),
                    ..Default::default()
                })
                .collect();
            frame_of(
                key,
                v,
                corr,
                &o::ListOffsetsResponse {
                    topics,
                    ..Default::default()
                },
            )
        }
        RequestBody::OffsetForLeaderEpoch(req) => {
            use offset_for_leader_epoch_response::owned as o;
            let req = offset_for_leader_epoch_request::owned::OffsetForLeaderEpochRequest::from_view(req);
            let st = state.lock().unwrap_or_else(|p| p.into_inner());
            let topics = req
                .topics
                .iter()
                .map(|t| o::OffsetForLeaderTopicResult {
                    topic: t.topic.clone(),
                    partitions: t
                        .partitions
                        .iter()
                        .map(|p| o::EpochEndOffset {
                            partition: p.partition,
                            leader_epoch: if v >= 1 { 0 } else { -1 },
                            end_offset: st
                                .topics
                                .get(&t.topic)
                                .filter(|_| p.partition == 0)
                                .map_or(0, |t| t.next_offset),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                })
                .collect();
            frame_of(
                key,
                v,
                corr,
                &o::OffsetForLeaderEpochResponse {
                    topics,
                    ..Default::default()
                },
            )
        }
        RequestBody::FindCoordinator(req) => {
            use find_coordinator_response::owned as o;
            let req = find_coordinator_request::owned::FindCoordinatorRequest::from_view(req);
            let port = i32::from(cfg.port);
            let resp = if v >= 4 {
                o::FindCoordinatorResponse {
                    coordinators: req
                        .coordinator_keys
                        .iter()
                        .map(|k| o::Coordinator {
                            key: k.clone(),
                            node_id: NODE_ID,
                            host: "127.0.0.1".into(),
                            port,
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                }
            } else {
                o::FindCoordinatorResponse {
                    node_id: NODE_ID,
                    host: "127.0.0.1".into(),
                    port,
                    ..Default::default()
                }
            };
            frame_of(key, v, corr, &resp)
        }
        RequestBody::JoinGroup(req) => {
            use join_group_response::owned as o;
            let req = join_group_request::owned::JoinGroupRequest::from_view(req);
            let mut st = state.lock().unwrap_or_else(|p| p.into_inner());
            st.groups.insert(req.group_id.clone(), "classic");
            st.generation += 1;
            let member_id = if req.member_id.is_empty() {
                st.members += 1;
                Str::from(format!("{}-member-{}", cfg.client, st.members))
            } else {
                req.member_id.clone()
            };
            let proto = req.protocols.first();
            let resp = o::JoinGroupResponse {
                generation_id: st.generation,
                protocol_type: if v >= 7 { Some(req.protocol_type.clone()) } else { None },
                protocol_name: proto.map(|p| p.name.clone()),
                leader: member_id.clone(),
                member_id: member_id.clone(),
                members: vec![o::JoinGroupResponseMember {
                    member_id,
                    group_instance_id: if v >= 5 { req.group_instance_id.clone() } else { None },
                    metadata: proto.map(|p| p.metadata.clone()).unwrap_or_default(),
                    ..Default::default()
                }],
                ..Default::default()
            };
            frame_of(key, v, corr, &resp)
        }
        RequestBody::SyncGroup(req) => {
            use sync_group_response::owned as o;
            let req = sync_group_request::owned::SyncGroupRequest::from_view(req);
            let assignment = req
                .assignments
                .iter()
                .find(|a| a.member_id == req.member_id)
                .map(|a| a.assignment.clone())
                .unwrap_or_default();
            let resp = o::SyncGroupResponse {
                protocol_type: if v >= 5 { req.protocol_type.clone() } else { None },
                protocol_name: if v >= 5 { req.protocol_name.clone() } else { None },
                assignment,
                ..Default::default()
            };
            frame_of(key, v, corr, &resp)
        }
        RequestBody::ConsumerGroupHeartbeat(req) => {
            use consumer_group_heartbeat_response::owned as o;
            let req = consumer_group_heartbeat_request::owned::ConsumerGroupHeartbeatRequest::from_view(req);
            let mut st = state.lock().unwrap_or_else(|p| p.into_inner());
            let member_id = if req.member_id.is_empty() {
                st.members += 1;
                Str::from(format!("{}-member-{}", cfg.client, st.members))
            } else {
                req.member_id.clone()
            };
            st.groups.insert(req.group_id.clone(), "consumer");
            let slot = (req.group_id.clone(), member_id.clone());
            if req.member_epoch < 0 {
                // Leaving the group.
                st.cg_members.remove(&slot);
                let resp = o::ConsumerGroupHeartbeatResponse {
                    member_id: Some(member_id),
                    member_epoch: req.member_epoch,
                    ..Default::default()
                };
                return frame_of(key, v, corr, &resp);
            }
            let (old_epoch, old_topics) = st.cg_members.get(&slot).cloned().unwrap_or((0, Vec::new()));
            let topics = req.subscribed_topic_names.clone().unwrap_or(old_topics.clone());
            let changed = req.member_epoch == 0 || topics != old_topics;
            let epoch = if changed { old_epoch + 1 } else { old_epoch };
            st.cg_members.insert(slot, (epoch, topics.clone()));
            let assignment = changed.then(|| o::Assignment {
                topic_partitions: topics
                    .iter()
                    .map(|name| {
                        let t = st.topic(name, 1);
                        o::TopicPartitions {
                            topic_id: t.id,
                            partitions: (0..t.partitions).collect(),
                            ..Default::default()
                        }
                    })
                    .collect(),
                ..Default::default()
            });
            let resp = o::ConsumerGroupHeartbeatResponse {
                member_id: Some(member_id),
                member_epoch: epoch,
                heartbeat_interval_ms: 500,
                assignment,
                ..Default::default()
            };
            frame_of(key, v, corr, &resp)
        }
        RequestBody::DeleteTopics(req) => {
            use delete_topics_response::owned as o;
            let req = delete_topics_request::owned::DeleteTopicsRequest::from_view(req);
            let mut st = state.lock().unwrap_or_else(|p| p.into_inner());
            let wanted: Vec<(Option<Str>, Uuid)> = if v >= 6 {
                req.topics.iter().map(|t| (t.name.clone(), t.topic_id)).collect()
            } else {
                req.topic_names.iter().map(|n| (Some(n.clone()), Uuid::nil())).collect()
            };
            let responses = wanted
                .into_iter()
                .map(|(name, id)| {
                    let name = name.or_else(|| st.by_id(id).map(|(n, _)| n.clone()));
                    let removed = name.as_ref().and_then(|n| st.topics.remove(n));
                    o::DeletableTopicResult {
                        name: name.clone(),
                        topic_id: if v >= 6 {
                            removed.as_ref().map_or(id, |t| t.id)
                        } else {
                            Uuid::nil()
                        },
                        error_code: if removed.is_some() { 0 } else { 3 }, // UNKNOWN_TOPIC_OR_PARTITION
                        ..Default::default()
                    }
                })
                .collect();
            frame_of(
                key,
                v,
                corr,
                &o::DeleteTopicsResponse {
                    responses,
                    ..Default::default()
                },
            )
        }
        RequestBody::ListGroups(_) => {
            use list_groups_response::owned as o;
            let st = state.lock().unwrap_or_else(|p| p.into_inner());
            let groups = st
                .groups
                .iter()
                .map(|(g, ty)| o::ListedGroup {
                    group_id: g.clone(),
                    protocol_type: "consumer".into(),
                    group_state: if v >= 4 { "Empty".into() } else { Str::default() },
                    group_type: if v >= 5 { (*ty).into() } else { Str::default() },
                    ..Default::default()
                })
                .collect();
            frame_of(
                key,
                v,
                corr,
                &o::ListGroupsResponse {
                    groups,
                    ..Default::default()
                },
            )
        }
        RequestBody::Heartbeat(_) => frame_of(key, v, corr, &heartbeat_response::owned::HeartbeatResponse::default()),
        RequestBody::LeaveGroup(req) => {
            use leave_group_response::owned as o;
            let req = leave_group_request::owned::LeaveGroupRequest::from_view(req);
            let members = if v >= 3 {
                req.members
                    .iter()
                    .map(|m| o::MemberResponse {
                        member_id: m.member_id.clone(),
                        group_instance_id: m.group_instance_id.clone(),
                        ..Default::default()
                    })
                    .collect()
            } else {
                Vec::new()
            };
            frame_of(
                key,
                v,
                corr,
                &o::LeaveGroupResponse {
                    members,
                    ..Default::default()
                },
            )
        }
        RequestBody::OffsetCommit(req) => {
            use offset_commit_response::owned as o;
            let req = offset_commit_request::owned::OffsetCommitRequest::from_view(req);
            let mut st = state.lock().unwrap_or_else(|p| p.into_inner());
            let mut topics = Vec::new();
            for t in &req.topics {
                let name = if t.name.is_empty() {
                    st.by_id(t.topic_id).map(|(n, _)| n.clone()).unwrap_or_default()
                } else {
                    t.name.clone()
                };
                let mut partitions = kafka_wire::SmallVec::new();
                for p in &t.partitions {
                    st.committed.insert(
                        (req.group_id.clone(), name.clone(), p.partition_index),
                        p.committed_offset,
                    );
                    partitions.push(o::OffsetCommitResponsePartition {
                        partition_index: p.partition_index,
                        ..Default::default()
                    });
                }
                topics.push(o::OffsetCommitResponseTopic {
                    name: if v >= 10 { Str::default() } else { t.name.clone() },
                    topic_id: if v >= 10 { t.topic_id } else { Uuid::nil() },
                    partitions,
                    ..Default::default()
                });
            }
            frame_of(
                key,
                v,
                corr,
                &o::OffsetCommitResponse {
                    topics,
                    ..Default::default()
                },
            )
        }
        RequestBody::OffsetFetch(req) => {
            use offset_fetch_response::owned as o;
            let req = offset_fetch_request::owned::OffsetFetchRequest::from_view(req);
            let st = state.lock().unwrap_or_else(|p| p.into_inner());
            let committed = |group: &str, topic: &str, p: i32| {
                st.committed
                    .get(&(group.into(), topic.into(), p))
                    .copied()
                    .unwrap_or(-1)
            };
            let resp = if v >= 8 {
                let groups = req
                    .groups
                    .iter()
                    .map(|g| o::OffsetFetchResponseGroup {
                        group_id: g.group_id.clone(),
                        topics: g
                            .topics
                            .iter()
                            .flatten()
                            .map(|t| {
                                let name = if t.name.is_empty() {
                                    st.by_id(t.topic_id).map(|(n, _)| n.clone()).unwrap_or_default()
                                } else {
                                    t.name.clone()
                                };
                                o::OffsetFetchResponseTopics {
                                    name: if v >= 10 { Str::default() } else { t.name.clone() },
                                    topic_id: if v >= 10 { t.topic_id } else { Uuid::nil() },
                                    partitions: t
                                        .partition_indexes
                                        .iter()
                                        .map(|&p| o::OffsetFetchResponsePartitions {
                                            partition_index: p,
                                            committed_offset: committed(&g.group_id, &name, p),
                                            metadata: Some(Str::default()),
                                            ..Default::default()
                                        })
                                        .collect(),
                                    ..Default::default()
                                }
                            })
                            .collect(),
                        ..Default::default()
                    })
                    .collect();
                o::OffsetFetchResponse {
                    groups,
                    ..Default::default()
                }
            } else {
                let topics = req
                    .topics
                    .iter()
                    .flatten()
                    .map(|t| o::OffsetFetchResponseTopic {
                        name: t.name.clone(),
                        partitions: t
                            .partition_indexes
                            .iter()
                            .map(|&p| o::OffsetFetchResponsePartition {
                                partition_index: p,
                                committed_offset: committed(&req.group_id, &t.name, p),
                                metadata: Some(Str::default()),
                                ..Default::default()
                            })
                            .collect(),
                        ..Default::default()
                    })
                    .collect();
                o::OffsetFetchResponse {
                    topics,
                    ..Default::default()
                }
            };
            frame_of(key, v, corr, &resp)
        }
        other => {
            // Not advertised, so a client should not send it; answer nothing and close.
            Err(format!("{} is not answered by the stub", other.info().name))
        }
    }
}

/// Appends a Produce request's record batches (or uncompressed legacy messages) to the log,
/// giving them offsets; returns the base offset of the first.
fn append(t: &mut Topic, records: &[u8]) -> Result<i64, String> {
    let first = t.next_offset;
    for b in Batches::strict(records) {
        let (count, bytes) = match b.map_err(|e| e.to_string())? {
            Batch::V2(b) => (b.last_offset() - b.base_offset + 1, b.bytes()),
            Batch::Legacy(m) if m.compressed_inner().is_none() => (1, m.bytes()),
            Batch::Legacy(_) => return Err("compressed legacy messages are not stored".into()),
            Batch::Truncated(_) => return Err("truncated batch".into()),
        };
        let mut bytes = bytes.to_vec();
        // The offset (base offset) is the first field, outside the CRC.
        bytes[..8].copy_from_slice(&t.next_offset.to_be_bytes());
        t.log.push((t.next_offset, count, bytes));
        t.next_offset += count;
    }
    Ok(first)
}
