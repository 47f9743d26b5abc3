//! A producer written as firmware would write it, on the blocking connection driver
//! (`kafka_wire::conn::Blocking`) over an `embedded-io` stream: ApiVersions and version
//! negotiation, Metadata, CreateTopics when the topic is missing, and a Produce of one record
//! batch of three records.
//!
//!     cargo run -p kafka-wire --features embedded-io,std --example embedded_io_client -- 127.0.0.1:9092 [TOPIC]
//!
//! Every request, the record batch and every response are encoded and read in buffers on the
//! stack: nothing is allocated for the conversation. The stream is a std `TcpStream` through
//! `embedded-io-adapters` (`FromStd`), where firmware would hand over its TCP stack's socket
//! (embassy-net's, smoltcp's); std also reads the arguments, prints and sleeps between retries.
//!
//! Prints one line per step and, last, `embedded_io_client: produced 3 records to TOPIC
//! partition 0 at offset O (Produce vN)`; exits 1 on any error, and 2 with a usage line when
//! no address is given.

use std::net::TcpStream;
use std::time::Duration;

use embedded_io_adapters::std::FromStd;
use kafka_wire::conn::{Blocking, EmbeddedIo};
use kafka_wire::frame::Mode;
use kafka_wire::messages::create_topics_request::{CreatableTopic, CreateTopicsRequest};
use kafka_wire::messages::metadata_request::{MetadataRequest, MetadataRequestTopic};
use kafka_wire::messages::produce_request::{PartitionProduceData, ProduceRequest, TopicProduceData};
use kafka_wire::messages::ApiVersionsRequest;
use kafka_wire::records::{BatchBuilder, BatchRecords, NewRecord};
use kafka_wire::versions::{Negotiated, NegotiationError};
use kafka_wire::{ApiKey, Array, ErrorCode, Uuid};

/// The connection: responses are cut and read in an 8 KiB buffer (frames of up to 8 KiB less
/// the size prefix), with at most 2 requests in flight.
type Conn = Blocking<EmbeddedIo<FromStd<TcpStream>>, [u8; 8192], 2>;
type Error = Box<dyn std::error::Error>;

const CLIENT_ID: &str = "kwire-embedded-io-client";

/// ApiVersions at the highest version kafka-wire knows, again at a lower one if the broker asks,
/// then the version of each API both sides speak.
fn negotiate(conn: &mut Conn, scratch: &mut [u8]) -> Result<Negotiated, Error> {
    let req = ApiVersionsRequest {
        client_software_name: CLIENT_ID,
        client_software_version: env!("CARGO_PKG_VERSION"),
        ..ApiVersionsRequest::DEFAULT
    };
    let mut version = ApiKey::ApiVersions.request_info().max_version;
    loop {
        let answer = conn.call(&req, version, scratch, Mode::Strict)?;
        match Negotiated::with_kafka_wire(&answer.body) {
            Ok(n) => {
                println!("ApiVersions v{version}: {} APIs", answer.body.api_keys.len());
                return Ok(n);
            }
            Err(NegotiationError::RetryApiVersions { retry_version }) if retry_version < version => {
                version = retry_version;
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// What the Metadata answer says of the topic: its error, its id, the leader of partition 0.
fn metadata(conn: &mut Conn, v: i16, topic: &str, scratch: &mut [u8]) -> Result<(ErrorCode, Uuid, i32), Error> {
    let wanted = [MetadataRequestTopic {
        name: Some(topic),
        ..MetadataRequestTopic::DEFAULT
    }];
    let req = MetadataRequest {
        topics: Some(Array::from_slice(&wanted)),
        ..MetadataRequest::DEFAULT
    };
    let answer = conn.call(&req, v, scratch, Mode::Strict)?;
    let t = answer
        .body
        .topics
        .iter()
        .next()
        .ok_or("no topic in the Metadata answer")?;
    let leader = t.partitions.iter().next().map_or(-1, |p| p.leader_id);
    Ok((ErrorCode::from_code(t.error_code), t.topic_id, leader))
}

fn run(addr: &str, topic: &str) -> Result<(), Error> {
    let stream = TcpStream::connect(addr)?;
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut conn: Conn = Blocking::new(EmbeddedIo(FromStd::new(stream)), [0u8; 8192], 8188, Some(CLIENT_ID));
    let mut scratch = [0u8; 512];

    let versions = negotiate(&mut conn, &mut scratch)?;
    let version = |k: ApiKey| {
        versions
            .version(k)
            .ok_or("the broker and kafka-wire share no version of an API")
    };

    // The topic: created when Metadata does not know it, then asked for until partition 0 has
    // a leader (a new topic's leader is elected shortly after CreateTopics answers).
    let mv = version(ApiKey::Metadata)?;
    let (mut error, mut topic_id, mut leader) = metadata(&mut conn, mv, topic, &mut scratch)?;
    println!("Metadata v{mv}: topic {topic}: {}", error.name().unwrap_or("NONE"));
    if error == ErrorCode::UnknownTopicOrPartition {
        let cv = version(ApiKey::CreateTopics)?;
        let topics = [CreatableTopic {
            name: topic,
            num_partitions: 1,
            replication_factor: 1,
            ..CreatableTopic::DEFAULT
        }];
        let create = CreateTopicsRequest {
            topics: Array::from_slice(&topics),
            timeout_ms: 30_000,
            ..CreateTopicsRequest::DEFAULT
        };
        let created = conn.call(&create, cv, &mut scratch, Mode::Strict)?;
        for t in created.body.topics.iter() {
            let e = ErrorCode::from_code(t.error_code);
            if !e.is_none() && e != ErrorCode::TopicAlreadyExists {
                return Err(format!("CreateTopics v{cv} {}: {e}", t.name).into());
            }
            println!("CreateTopics v{cv}: {} ({})", t.name, e.name().unwrap_or("NONE"));
        }
    }
    for _ in 0..40 {
        if error.is_none() && leader >= 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(250));
        (error, topic_id, leader) = metadata(&mut conn, mv, topic, &mut scratch)?;
    }
    if !error.is_none() || leader < 0 {
        return Err(format!("Metadata v{mv}: topic {topic}: {error}, partition 0 leader {leader}").into());
    }
    println!("Metadata v{mv}: topic {topic} id {topic_id} partition 0 leader {leader}");

    // Three records in one batch, built in a stack buffer.
    let records = [
        NewRecord {
            key: Some(b"sensor-7"),
            value: Some(b"21.5"),
            ..NewRecord::DEFAULT
        },
        NewRecord {
            offset_delta: 1,
            key: Some(b"sensor-7"),
            value: Some(b"21.7"),
            ..NewRecord::DEFAULT
        },
        NewRecord {
            offset_delta: 2,
            key: Some(b"sensor-8"),
            value: Some(b"19.0"),
            ..NewRecord::DEFAULT
        },
    ];
    let mut batch = [0u8; 256];
    let n = BatchBuilder {
        base_timestamp: 1_700_000_000_000,
        records: BatchRecords::Plain(&records),
        ..BatchBuilder::DEFAULT
    }
    .encode_to_slice(&mut batch)?;
    let pv = version(ApiKey::Produce)?;
    let parts = [PartitionProduceData {
        index: 0,
        records: Some(batch.get(..n).unwrap_or_default()),
        ..PartitionProduceData::DEFAULT
    }];
    // Version 13 names topics by id, earlier versions by name.
    let data = [if pv >= 13 {
        TopicProduceData {
            topic_id,
            partition_data: Array::from_slice(&parts),
            ..TopicProduceData::DEFAULT
        }
    } else {
        TopicProduceData {
            name: topic,
            partition_data: Array::from_slice(&parts),
            ..TopicProduceData::DEFAULT
        }
    }];
    let produce = ProduceRequest {
        acks: -1,
        timeout_ms: 30_000,
        topic_data: Array::from_slice(&data),
        ..ProduceRequest::DEFAULT
    };
    let produced = conn.call(&produce, pv, &mut scratch, Mode::Strict)?;
    let p = produced
        .body
        .responses
        .iter()
        .next()
        .and_then(|t| t.partition_responses.iter().next())
        .ok_or("no partition in the Produce answer")?;
    let e = ErrorCode::from_code(p.error_code);
    if !e.is_none() {
        return Err(format!("Produce v{pv}: {e}").into());
    }
    println!(
        "embedded_io_client: produced {} records to {topic} partition 0 at offset {} (Produce v{pv})",
        records.len(),
        p.base_offset
    );
    Ok(())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(addr) = args.next() else {
        eprintln!("usage: embedded_io_client HOST:PORT [TOPIC]");
        std::process::exit(2);
    };
    let topic = args.next().unwrap_or_else(|| "kwire-embedded-io".into());
    if let Err(e) = run(&addr, &topic) {
        eprintln!("embedded_io_client: {e}");
        std::process::exit(1);
    }
}
