//! `kwire pcap` on a capture made here (tests/pcap/clients.pcapng, remade by
//! tests/pcap/capture.sh): librdkafka, kafka-python and Kafka's Java client talking to a real
//! Kafka 4.4.0 broker, recorded by tcpdump on the loopback interface.
//!
//! - every frame decodes strictly, every response pairs with its request, specific values;
//! - the same packets as classic pcap give the same frames;
//! - reordered and duplicated segments, and a capture that starts mid-stream, give the same
//!   frames (the mid-stream one from the first frame boundary it can find);
//! - tshark's Kafka dissector agrees on the API key, version and correlation id of every frame
//!   whose API key and version it knows, and on the client id, topic names and error codes
//!   (tests/pcap/clients.tshark.tsv, made by tests/pcap/tshark.sh; `KWIRE_TSHARK_TSV` names a
//!   fresh one, as the CI stage `.ci/pcap.sh` does).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::Command;

use base64::Engine as _;
use kafka_wire_ext::conversation::{Decoded, Direction, FrameEvent};
use kwire::pcap::{decode_capture, tcp_segment, Decoder, Options, Segment};
use pcap_file::pcap::{PcapPacket, PcapWriter};
use pcap_file::pcapng::{Block, PcapNgReader};
use pcap_file::DataLink;
use serde_json::Value;

fn capture_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/pcap/clients.pcapng")
}

fn decode(bytes: &[u8]) -> (Vec<FrameEvent>, Decoder) {
    let mut d = Decoder::new(Options::default());
    let mut events = Vec::new();
    decode_capture(bytes, &mut d, &mut |_| {}, &mut |e| events.push(e)).expect("the capture reads");
    (events, d)
}

/// The capture's packets: (seconds, Ethernet frame).
fn packets() -> Vec<(f64, Vec<u8>)> {
    let bytes = std::fs::read(capture_path()).unwrap();
    let mut r = PcapNgReader::new(&bytes[..]).unwrap();
    let mut out = Vec::new();
    let mut unit = 1e-6;
    while let Some(b) = r.next_block() {
        match b.unwrap() {
            Block::InterfaceDescription(i) => {
                assert_eq!(i.linktype, DataLink::ETHERNET);
                for o in &i.options {
                    if let pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionOption::IfTsResol(r) =
                        o
                    {
                        unit = 10f64.powi(-i32::from(*r));
                    }
                }
            }
            Block::EnhancedPacket(p) => out.push((p.timestamp.as_nanos() as f64 * unit, p.data.to_vec())),
            _ => {}
        }
    }
    out
}

/// A frame's identity and content, without its time.
fn key(e: &FrameEvent) -> (String, &'static str, i32) {
    (
        e.json["connection"].as_str().unwrap().to_string(),
        e.direction.as_str(),
        e.correlation_id.unwrap_or(-1),
    )
}

fn content(e: &FrameEvent) -> Value {
    let mut j = e.json.clone();
    j.as_object_mut().unwrap().remove("time");
    j
}

#[test]
fn every_frame_of_the_real_capture_decodes_strictly_and_pairs() {
    let bytes = std::fs::read(capture_path()).unwrap();
    assert!(
        bytes.len() < 64 * 1024,
        "the committed capture stays small: {} bytes",
        bytes.len()
    );
    let (events, d) = decode(&bytes);
    let s = &d.summary;
    println!("{}", d.summary_json());
    assert_eq!(s.frames, events.len() as u64);
    assert!(events.len() >= 100, "{} frames", events.len());
    for e in &events {
        assert_eq!(e.decoded, Decoded::Strict, "{}", e.json);
        assert!(e.api.is_some() && e.correlation_id.is_some(), "{}", e.json);
    }
    assert_eq!((s.undecoded, s.lenient, s.unpaired_responses), (0, 0, 0));
    assert_eq!(d.stats.unanswered_requests, 0);
    assert_eq!(
        (
            d.stats.resyncs,
            d.stats.lost_bytes,
            d.stats.incomplete_bytes,
            d.stats.oversized_frames
        ),
        (0, 0, 0, 0)
    );
    for ((k, v), (req, resp)) in &s.per_api {
        assert_eq!(req, resp, "API {k} v{v}: every request answered");
    }

    // Each response sits after its request on the same connection, with the same key and version.
    let mut requests: HashMap<(String, i32), (usize, i16, i16)> = HashMap::new();
    for (i, e) in events.iter().enumerate() {
        let conn = e.json["connection"].as_str().unwrap().to_string();
        let (api, v) = e.api.unwrap();
        match e.direction {
            Direction::Request => {
                assert_eq!(e.json["header"]["requestApiKey"], api.id());
                assert_eq!(e.json["header"]["requestApiVersion"], v);
                requests.insert((conn, e.correlation_id.unwrap()), (i, api.id(), v));
            }
            Direction::Response => {
                let (at, k, rv) = requests[&(conn, e.correlation_id.unwrap())];
                assert!(at < i);
                assert_eq!((k, rv), (api.id(), v), "{}", e.json);
                assert_eq!(e.json["header"]["correlationId"], e.correlation_id.unwrap());
            }
        }
    }

    // The three clients, by client id.
    let ids: BTreeSet<&str> = events
        .iter()
        .filter_map(|e| e.json["header"]["clientId"].as_str())
        .collect();
    for want in [
        "kwire-pcap-admin",
        "kwire-pcap-producer",
        "kwire-pcap-consumer",
        "kwire-pcap-kafka-python",
        "kwire-pcap-java-admin",
        "kwire-pcap-java-producer",
        "kwire-pcap-java-consumer",
    ] {
        assert!(ids.contains(want), "{want} in {ids:?}");
    }

    // The second CreateTopics: TOPIC_ALREADY_EXISTS, named through the error-code enum.
    let created: Vec<&FrameEvent> = events
        .iter()
        .filter(|e| e.json["apiName"] == "CreateTopics" && e.direction == Direction::Response)
        .collect();
    assert_eq!(created.len(), 2);
    assert!(created[0].error_codes.is_empty());
    assert_eq!(created[1].json["errorCodes"][0]["path"], "topics[0].errorCode");
    assert_eq!(created[1].json["errorCodes"][0]["name"], "TOPIC_ALREADY_EXISTS");
    assert_eq!(created[1].json["body"]["topics"][0]["name"], "kwire-pcap");

    // Each client's records are in its Produce requests, and come back in Fetch responses.
    let records = |api: &str, dir: Direction| -> Vec<u8> {
        let mut all = Vec::new();
        for e in events.iter().filter(|e| e.json["apiName"] == api && e.direction == dir) {
            collect_records(&e.json["body"], &mut all);
        }
        all
    };
    let produced = records("Produce", Direction::Request);
    let fetched = records("Fetch", Direction::Response);
    for v in ["librdkafka record 2", "kafka-python record 1", "java record 1"] {
        assert!(find(&produced, v.as_bytes()), "{v} produced");
        assert!(find(&fetched, v.as_bytes()), "{v} fetched");
    }

    // The cluster id agrees between DescribeCluster and Metadata.
    let cid = |api: &str| -> BTreeSet<String> {
        events
            .iter()
            .filter(|e| e.json["apiName"] == api && e.direction == Direction::Response)
            .filter_map(|e| e.json["body"]["clusterId"].as_str().map(str::to_string))
            .collect()
    };
    assert_eq!(cid("DescribeCluster").len(), 1);
    assert_eq!(cid("DescribeCluster"), cid("Metadata"));
}

fn collect_records(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if k == "records" {
                    if let Some(s) = x.as_str() {
                        out.extend(base64::engine::general_purpose::STANDARD.decode(s).unwrap());
                    }
                } else {
                    collect_records(x, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| collect_records(x, out)),
        _ => {}
    }
}

fn find(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn the_same_packets_as_classic_pcap_give_the_same_frames() {
    let (ng, _) = decode(&std::fs::read(capture_path()).unwrap());
    let mut classic = Vec::new();
    {
        let mut w = PcapWriter::new(&mut classic).unwrap();
        for (t, data) in packets() {
            let ts = std::time::Duration::from_secs_f64(t);
            w.write_packet(&PcapPacket::new(ts, data.len() as u32, &data)).unwrap();
        }
    }
    assert_eq!(
        &classic[..4],
        &[0xd4, 0xc3, 0xb2, 0xa1],
        "a little-endian microsecond pcap"
    );
    let (pc, _) = decode(&classic);
    assert_eq!(pc.len(), ng.len());
    for (a, b) in pc.iter().zip(&ng) {
        assert_eq!(content(a), content(b));
        let (ta, tb) = (a.json["time"].as_f64().unwrap(), b.json["time"].as_f64().unwrap());
        assert!((ta - tb).abs() < 2e-6 && ta > 1.7e9, "{ta} {tb}");
    }
}

fn run_packets(packets: &[(f64, Vec<u8>)]) -> (Vec<FrameEvent>, Decoder) {
    let mut d = Decoder::new(Options::default());
    let mut events = Vec::new();
    for (t, p) in packets {
        d.packet(DataLink::ETHERNET, *t, p, &mut |e| events.push(e));
    }
    d.finish(0.0, &mut |e| events.push(e));
    (events, d)
}

/// A TCP segment of `s`'s addresses and ports carrying `payload` at sequence number `seq`.
fn rebuilt(s: &Segment<'_>, seq: u32, payload: &[u8]) -> Vec<u8> {
    let (IpAddr::V4(src), IpAddr::V4(dst)) = (s.src.ip(), s.dst.ip()) else {
        panic!("the capture is IPv4")
    };
    let b = etherparse::PacketBuilder::ethernet2([0; 6], [0; 6])
        .ipv4(src.octets(), dst.octets(), 64)
        .tcp(s.src.port(), s.dst.port(), seq, 65535)
        .ack(1);
    let mut out = Vec::new();
    b.write(&mut out, payload).unwrap();
    out
}

#[test]
fn reordered_and_repeated_segments_give_the_same_frames() {
    let pk = packets();
    let (want, _) = run_packets(&pk);
    // Every packet with 3 or more payload bytes is cut into three segments, sent last first,
    // with the first sent twice and the whole packet sent again at the end (a retransmission).
    let mut messy = Vec::new();
    let mut cut = 0;
    for (t, p) in &pk {
        let s = tcp_segment(DataLink::ETHERNET, p).unwrap();
        if s.payload.len() < 3 || s.syn || s.fin || s.rst {
            messy.push((*t, p.clone()));
            continue;
        }
        cut += 1;
        let n = s.payload.len();
        let (a, b) = (n / 3, 2 * n / 3);
        for (from, to) in [(b, n), (0, a), (a, b), (0, a)] {
            messy.push((*t, rebuilt(&s, s.seq.wrapping_add(from as u32), &s.payload[from..to])));
        }
        messy.push((*t, p.clone()));
    }
    let (got, d) = run_packets(&messy);
    assert!(cut > 100, "{cut} packets cut");
    // One packet of the capture is itself a retransmission: its pieces are all old bytes.
    assert!(
        d.stats.out_of_order_segments <= cut && d.stats.out_of_order_segments + 1 >= cut,
        "{cut}: {:?}",
        d.stats
    );
    let payload: u64 = pk
        .iter()
        .map(|(_, p)| tcp_segment(DataLink::ETHERNET, p).unwrap().payload.len() as u64)
        .sum();
    assert!(d.stats.retransmitted_bytes > payload, "{:?}", d.stats);
    let by_key = |ev: &[FrameEvent]| -> BTreeMap<(String, &'static str, i32), Value> {
        ev.iter().map(|e| (key(e), content(e))).collect()
    };
    assert_eq!(got.len(), want.len());
    assert_eq!(by_key(&got), by_key(&want));
    assert_eq!(d.summary.undecoded, 0);
}

#[test]
fn a_capture_that_starts_mid_stream_picks_up_at_the_next_frame() {
    let pk = packets();
    let (all, _) = run_packets(&pk);
    let full: HashMap<_, _> = all.iter().map(|e| (key(e), content(e))).collect();
    // Drop the first 100 packets: handshakes are missing. On the connections that began before,
    // the first payload of each direction loses its first 7 bytes, so that it starts inside a
    // frame.
    let mut seen = BTreeSet::new();
    let mut partial = Vec::new();
    for (t, p) in &pk[100..] {
        let s = tcp_segment(DataLink::ETHERNET, p).unwrap();
        if s.syn {
            seen.insert((s.src, s.dst));
            seen.insert((s.dst, s.src));
        }
        if s.payload.len() > 7 && seen.insert((s.src, s.dst)) {
            partial.push((*t, rebuilt(&s, s.seq.wrapping_add(7), &s.payload[7..])));
        } else {
            partial.push((*t, p.clone()));
        }
    }
    let (got, d) = run_packets(&partial);
    println!("{:?}", d.stats);
    assert!(d.stats.resyncs >= 4 && d.stats.skipped_bytes > 0, "{:?}", d.stats);
    assert!(got.len() > all.len() / 3, "{} of {}", got.len(), all.len());
    // Whatever decodes is what the full capture decoded; only responses whose request was not
    // captured may fail (they cannot be paired).
    let mut same = 0;
    for e in &got {
        if e.decoded == Decoded::Failed {
            assert_eq!(e.direction, Direction::Response, "{}", e.json);
            assert!(
                e.json["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("no request with correlation id"),
                "{}",
                e.json
            );
            continue;
        }
        assert_eq!(full.get(&key(e)), Some(&content(e)), "{}", e.json);
        same += 1;
    }
    println!(
        "{same} of {} frames after the cut equal the full capture's ({} in all)",
        got.len(),
        all.len()
    );
    assert!(same as f64 > 0.9 * got.len() as f64, "{same} of {}", got.len());
}

/// One row of tests/pcap/tshark.sh's output.
#[derive(Debug)]
struct Row {
    frame: u64,
    direction: String,
    client_port: u16,
    api_key: String,
    api_version: String,
    correlation_id: String,
    client_id: String,
    topics: Vec<String>,
    errors: Vec<i64>,
    known: String,
}

fn tshark_rows() -> (Vec<Row>, String) {
    let (path, what) = match std::env::var("KWIRE_TSHARK_TSV") {
        Ok(p) => (PathBuf::from(&p), format!("fresh tshark output {p}")),
        Err(_) => (
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/pcap/clients.tshark.tsv"),
            "the committed tshark output".to_string(),
        ),
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap().split('\t').collect::<Vec<_>>()[..3],
        ["frame", "stream", "direction"]
    );
    let split = |s: &str| -> Vec<String> { s.split('|').filter(|x| !x.is_empty()).map(str::to_string).collect() };
    let rows = lines
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            assert_eq!(c.len(), 11, "{l}");
            Row {
                frame: c[0].parse().unwrap(),
                direction: c[2].to_string(),
                client_port: c[3].parse().unwrap(),
                api_key: c[4].to_string(),
                api_version: c[5].to_string(),
                correlation_id: c[6].to_string(),
                client_id: c[7].to_string(),
                topics: split(c[8]),
                errors: split(c[9]).iter().map(|x| x.parse().unwrap()).collect(),
                known: c[10].to_string(),
            }
        })
        .collect();
    (rows, what)
}

/// Every string in a JSON value.
fn strings<'a>(v: &'a Value, out: &mut BTreeSet<&'a str>) {
    match v {
        Value::String(s) => {
            out.insert(s);
        }
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(m) => m.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

#[test]
fn tshark_agrees_on_every_frame_it_knows() {
    let (events, _) = decode(&std::fs::read(capture_path()).unwrap());
    let (rows, what) = tshark_rows();
    // tshark and kwire see the same frames, in the same order.
    assert_eq!(rows.len(), events.len(), "{what}: one row per Kafka frame");
    let port = |e: &FrameEvent| -> u16 {
        let c = e.json["connection"].as_str().unwrap();
        c.split(" > ")
            .next()
            .unwrap()
            .rsplit(':')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let mut known: HashMap<(u16, String), bool> = HashMap::new();
    let mut compared: BTreeMap<(i16, i16), (u32, u32)> = BTreeMap::new();
    let mut unknown_to_tshark: BTreeSet<(i16, i16)> = BTreeSet::new();
    let (mut topics, mut errors, mut client_ids) = (0, 0, 0);
    for (r, e) in rows.iter().zip(&events) {
        let at = format!("frame {} ({what}): {r:?}\nkwire: {}", r.frame, e.json);
        assert_eq!(r.direction, e.direction.as_str(), "{at}");
        assert_eq!(r.client_port, port(e), "{at}");
        assert_eq!(r.correlation_id, e.correlation_id.unwrap().to_string(), "{at}");
        let (api, v) = e.api.unwrap();
        let is_known = match e.direction {
            Direction::Request => {
                let k = r.known == "1";
                known.insert((r.client_port, r.correlation_id.clone()), k);
                k
            }
            Direction::Response => known[&(r.client_port, r.correlation_id.clone())],
        };
        if !is_known {
            unknown_to_tshark.insert((api.id(), v));
            continue;
        }
        assert_eq!(r.api_key, api.id().to_string(), "{at}");
        assert_eq!(r.api_version, v.to_string(), "{at}");
        let entry = compared.entry((api.id(), v)).or_default();
        match e.direction {
            Direction::Request => entry.0 += 1,
            Direction::Response => entry.1 += 1,
        }
        if e.direction == Direction::Request {
            assert_eq!(r.client_id, e.json["header"]["clientId"].as_str().unwrap_or(""), "{at}");
            client_ids += 1;
        }
        let mut all = BTreeSet::new();
        strings(&e.json["body"], &mut all);
        for t in &r.topics {
            assert!(all.contains(t.as_str()), "topic {t} not in kwire's body: {at}");
            topics += 1;
        }
        // tshark's error codes that are not zero are kwire's, in order.
        let theirs: Vec<i64> = r.errors.iter().copied().filter(|&c| c != 0).collect();
        let ours: Vec<i64> = e.error_codes.iter().map(|c| i64::from(c.code.code())).collect();
        assert_eq!(theirs, ours, "error codes: {at}");
        errors += r.errors.len();
    }
    println!("compared with {what}: {:?}", compared);
    println!("tshark does not know: {unknown_to_tshark:?}");
    println!("{client_ids} client ids, {topics} topic names, {errors} error codes compared");
    // The API keys and versions of the committed capture that Debian's tshark 4.0 knows.
    assert!(compared.len() >= 5, "{compared:?}");
    assert!(compared.values().all(|(a, b)| a == b && *a > 0));
    assert!(
        topics >= 2 && errors >= 10 && client_ids >= 10,
        "{topics} {errors} {client_ids}"
    );
    assert!(errors > 0);
}

#[test]
fn the_command_filters_by_api_and_errors_and_ends_with_the_summary() {
    let out = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(["pcap", "--api", "CreateTopics,19", "--errors-only"])
        .arg(capture_path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["apiName"], "CreateTopics");
    assert_eq!(lines[0]["errorCodes"][0]["code"], 36);
    let s = &lines[1]["summary"];
    assert_eq!(s["printed"], 1);
    assert_eq!(s["undecoded"], 0);
    assert!(s["frames"].as_u64().unwrap() >= 100);
    assert_eq!(s["capture"]["streams"], 17);

    // A port with no traffic: nothing but the summary; an unknown API name is an error.
    let out = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(["pcap", "--port", "1234"])
        .arg(capture_path())
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1);
    assert!(text.contains("\"frames\":0"), "{text}");
    let out = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(["pcap", "--api", "Nope"])
        .arg(capture_path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown API \"Nope\""));
}

#[test]
fn a_reader_that_goes_away_ends_the_command_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    // The whole output is larger than a pipe's buffer (64 KiB on Linux) and kwire's own, so
    // kwire is still writing when the reader below goes away.
    let whole = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .arg("pcap")
        .arg(capture_path())
        .output()
        .unwrap();
    assert!(whole.stdout.len() > (64 + 8) * 1024, "{}", whole.stdout.len());
    // `kwire pcap … | head -1`: the output closes after one line.
    let mut child = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .arg("pcap")
        .arg(capture_path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with('{'), "{first}");
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn hex_gives_each_frame_s_bytes_as_the_capture_carried_them() {
    let bytes = std::fs::read(capture_path()).unwrap();
    let mut d = Decoder::new(Options {
        hex: true,
        ..Options::default()
    });
    let mut events = Vec::new();
    decode_capture(&bytes[..], &mut d, &mut |_| {}, &mut |e| events.push(e)).unwrap();
    // Each direction's bytes, from its TCP payloads put in sequence-number order (the capture
    // has a few retransmitted segments: bytes already taken are taken once).
    type Half = (String, &'static str);
    let mut segments: BTreeMap<Half, Vec<(u32, Vec<u8>)>> = BTreeMap::new();
    for (_, p) in packets() {
        let s = tcp_segment(DataLink::ETHERNET, &p).unwrap();
        let (conn, dir) = if s.dst.port() == 9092 {
            (format!("{} > {}", s.src, s.dst), "request")
        } else {
            (format!("{} > {}", s.dst, s.src), "response")
        };
        if !s.payload.is_empty() {
            segments
                .entry((conn, dir))
                .or_default()
                .push((s.seq, s.payload.to_vec()));
        }
    }
    let mut carried: BTreeMap<Half, Vec<u8>> = BTreeMap::new();
    for (k, segs) in segments {
        let first = segs[0].0;
        let mut at: Vec<(i64, Vec<u8>)> = segs
            .into_iter()
            .map(|(seq, p)| (i64::from(seq.wrapping_sub(first) as i32), p))
            .collect();
        at.sort_by_key(|(off, _)| *off);
        let mut next = at[0].0;
        let mut bytes = Vec::new();
        for (off, p) in at {
            assert!(off <= next, "{k:?}: a hole in the capture at {next}");
            let skip = (next - off) as usize;
            if skip < p.len() {
                bytes.extend_from_slice(&p[skip..]);
                next = off + p.len() as i64;
            }
        }
        carried.insert(k, bytes);
    }
    // The frames' bytes, laid end to end per connection and direction, are those bytes.
    let mut framed: BTreeMap<Half, Vec<u8>> = BTreeMap::new();
    for e in &events {
        let frame = hex::decode(e.json["hex"].as_str().expect("\"hex\" on every frame")).unwrap();
        assert_eq!(
            i32::from_be_bytes(frame[..4].try_into().unwrap()) as usize,
            frame.len() - 4,
            "size prefix included: {}",
            e.json
        );
        assert_eq!(frame.len() - 4, e.size);
        let key = (e.json["connection"].as_str().unwrap().to_string(), e.direction.as_str());
        framed.entry(key).or_default().extend_from_slice(&frame);
    }
    assert_eq!(framed.len(), carried.len());
    for (k, v) in &carried {
        assert!(framed[k] == *v, "{k:?}: the frames' bytes differ from the capture's");
    }
    // Without the option, the same lines without "hex".
    let (plain, _) = decode(&bytes);
    assert_eq!(plain.len(), events.len());
    for (p, e) in plain.iter().zip(&events) {
        let mut e = e.json.clone();
        assert!(e.as_object_mut().unwrap().remove("hex").is_some());
        assert_eq!(p.json, e);
        assert!(p.json.get("hex").is_none());
    }

    // The command: --hex adds the field, and `kwire decode --hex` reads it back to the same frame.
    let run = |args: &[&str]| -> Vec<Value> {
        let out = Command::new(env!("CARGO_BIN_EXE_kwire"))
            .args(args)
            .arg(capture_path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let with = run(&["pcap", "--hex", "--no-summary", "--api", "Produce"]);
    let without = run(&["pcap", "--no-summary", "--api", "Produce"]);
    assert_eq!(with.len(), without.len());
    assert!(with.len() >= 8, "{}", with.len());
    for (w, o) in with.iter().zip(&without) {
        let mut w = w.clone();
        let hex = w.as_object_mut().unwrap().remove("hex").unwrap();
        assert_eq!(&w, o);
        if w["direction"] == "request" {
            let mut child = Command::new(env!("CARGO_BIN_EXE_kwire"))
                .args(["decode", "--hex"])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            use std::io::Write as _;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(hex.as_str().unwrap().as_bytes())
                .unwrap();
            let out = child.wait_with_output().unwrap();
            let decoded: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(decoded["header"], w["header"]);
            assert_eq!(decoded["body"], w["body"]);
        }
    }
}
