//! `proxy-latency`: request latency against a Kafka broker, one request in flight, per request
//! kind: ApiVersions v3, Metadata v12 (one topic), Produce v11 (one 100-byte record, acks=1).
//! Run it against the broker and against `kwire proxy` in front of it
//! (`benches/proxy_latency.sh` does both and writes the table).
//!
//! ```text
//! proxy-latency --bootstrap 127.0.0.1:9092 --label direct [--requests 5000] [--warmup 500]
//! ```
//!
//! Prints one Markdown table row per request kind: label, kind, requests, p50, p99, mean (µs).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Instant;

use kafka_wire::frame::{encode_request_frame, parse_response, Mode};
use kafka_wire::messages::create_topics_request::CreatableTopic;
use kafka_wire::messages::metadata_request::MetadataRequestTopic;
use kafka_wire::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kafka_wire::messages::{ApiVersionsRequest, CreateTopicsRequest, MetadataRequest, ProduceRequest};
use kafka_wire::records::{BatchBuilder, BatchRecords, NewRecord};
use kafka_wire::{Array, RequestBody, ResponseBody};

const TOPIC: &str = "kwire-proxy-latency";

struct Conn {
    s: TcpStream,
    corr: i32,
    out: Vec<u8>,
    inp: Vec<u8>,
}

impl Conn {
    /// Sends `body` at `version` and reads the whole response; returns its payload.
    fn call(&mut self, body: &RequestBody<'_>, version: i16) -> &[u8] {
        self.corr += 1;
        let n = encode_request_frame(self.corr, Some("proxy-latency"), body, version, &mut self.out).expect("encodes");
        self.s.write_all(&self.out[..n]).expect("send");
        let mut size = [0u8; 4];
        self.s.read_exact(&mut size).expect("response size");
        let size = i32::from_be_bytes(size) as usize;
        self.inp.resize(size, 0);
        self.s.read_exact(&mut self.inp).expect("response");
        &self.inp
    }
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

fn main() {
    let mut bootstrap = String::from("127.0.0.1:9092");
    let mut label = String::from("direct");
    let (mut requests, mut warmup) = (5000usize, 500usize);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().expect("a value after the option");
        match a.as_str() {
            "--bootstrap" => bootstrap = val(),
            "--label" => label = val(),
            "--requests" => requests = val().parse().expect("a number"),
            "--warmup" => warmup = val().parse().expect("a number"),
            _ => panic!("usage: proxy-latency --bootstrap HOST:PORT --label NAME [--requests N] [--warmup N]"),
        }
    }
    let s = TcpStream::connect(&bootstrap).expect("connect");
    s.set_nodelay(true).unwrap();
    let mut c = Conn {
        s,
        corr: 0,
        out: vec![0; 1 << 16],
        inp: Vec::new(),
    };

    // The topic (TOPIC_ALREADY_EXISTS on later runs is fine).
    let topics = [CreatableTopic {
        name: TOPIC,
        num_partitions: 1,
        replication_factor: 1,
        ..CreatableTopic::DEFAULT
    }];
    let create = RequestBody::CreateTopics(CreateTopicsRequest {
        topics: Array::from_slice(&topics),
        timeout_ms: 30_000,
        ..CreateTopicsRequest::DEFAULT
    });
    c.call(&create, 7);
    std::thread::sleep(std::time::Duration::from_millis(500));

    let value = [b'x'; 100];
    let recs = [NewRecord {
        value: Some(&value),
        ..NewRecord::DEFAULT
    }];
    let mut batch = Vec::new();
    BatchBuilder {
        base_timestamp: 1_760_000_000_000,
        records: BatchRecords::Plain(&recs),
        ..BatchBuilder::DEFAULT
    }
    .encode(&mut batch)
    .expect("batch");
    let parts = [PartitionProduceData {
        index: 0,
        records: Some(&batch),
        ..PartitionProduceData::DEFAULT
    }];
    let tdata = [TopicProduceData {
        name: TOPIC,
        partition_data: Array::from_slice(&parts),
        ..TopicProduceData::DEFAULT
    }];
    let mtopics = [MetadataRequestTopic {
        name: Some(TOPIC),
        ..MetadataRequestTopic::DEFAULT
    }];
    let kinds: [(&str, RequestBody<'_>, i16); 3] = [
        (
            "ApiVersions v3",
            RequestBody::ApiVersions(ApiVersionsRequest {
                client_software_name: "proxy-latency",
                client_software_version: "1",
                ..ApiVersionsRequest::DEFAULT
            }),
            3,
        ),
        (
            "Metadata v12",
            RequestBody::Metadata(MetadataRequest {
                topics: Some(Array::from_slice(&mtopics)),
                ..MetadataRequest::DEFAULT
            }),
            12,
        ),
        (
            "Produce v11",
            RequestBody::Produce(ProduceRequest {
                acks: 1,
                timeout_ms: 30_000,
                topic_data: Array::from_slice(&tdata),
                ..ProduceRequest::DEFAULT
            }),
            11,
        ),
    ];
    for (name, body, v) in kinds {
        // Check once that the broker accepts it.
        let p = c.call(&body, v).to_vec();
        let f = parse_response(&p, body.key(), v, Mode::Strict).expect("the response decodes");
        if let ResponseBody::Produce(r) = f.body {
            let e = r
                .responses
                .iter()
                .next()
                .and_then(|t| t.partition_responses.iter().next())
                .map(|p| p.error_code);
            assert_eq!(e, Some(0), "produce failed");
        }
        for _ in 0..warmup {
            c.call(&body, v);
        }
        let mut ns: Vec<u64> = Vec::with_capacity(requests);
        for _ in 0..requests {
            let t = Instant::now();
            c.call(&body, v);
            ns.push(t.elapsed().as_nanos() as u64);
        }
        ns.sort_unstable();
        let mean = ns.iter().sum::<u64>() as f64 / ns.len() as f64 / 1000.0;
        println!(
            "| {label} | {name} | {requests} | {:.0} | {:.0} | {:.0} |",
            percentile(&ns, 0.5),
            percentile(&ns, 0.99),
            mean
        );
    }
}
