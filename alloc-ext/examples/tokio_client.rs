//! A tokio client on kafka-wire's codec (`kafka_wire_ext::tokio_codec`): ApiVersions and version
//! negotiation, CreateTopics, Metadata, and a Produce of a record batch built without
//! allocating, each response paired with its request by the codec and read as its type.
//!
//!     cargo run -p kafka-wire-ext --features tokio --example tokio_client -- 127.0.0.1:9092 [TOPIC]
//!
//! Prints one line per step and, last, `tokio_client: produced N records to TOPIC partition 0
//! at offset O`; exits non-zero on any error.

use futures_util::{SinkExt, StreamExt};
use kafka_wire::frame::Mode;
use kafka_wire::messages::create_topics_request::{CreatableTopic, CreateTopicsRequest};
use kafka_wire::messages::create_topics_response::owned::CreateTopicsResponse;
use kafka_wire::messages::metadata_request::{MetadataRequest, MetadataRequestTopic};
use kafka_wire::messages::metadata_response::owned::MetadataResponse;
use kafka_wire::messages::produce_request::{PartitionProduceData, ProduceRequest, TopicProduceData};
use kafka_wire::messages::produce_response::owned::ProduceResponse;
use kafka_wire::messages::ApiVersionsRequest;
use kafka_wire::records::{BatchBuilder, BatchRecords, NewRecord};
use kafka_wire::versions::{Negotiated, NegotiationError};
use kafka_wire::{ApiKey, Array, ErrorCode, ResponseBody};
use kafka_wire_ext::tokio_codec::{ClientCodec, Outgoing, Response};
use tokio::net::TcpStream;
use tokio_util::codec::Framed;

type Conn = Framed<TcpStream, ClientCodec<8>>;
type Error = Box<dyn std::error::Error>;

async fn answer(conn: &mut Conn) -> Result<Response, Error> {
    Ok(conn.next().await.ok_or("the broker closed the connection")??)
}

/// ApiVersions at the highest version kafka-wire knows, again at a lower one if the broker asks,
/// then the version of each API both sides speak.
async fn negotiate(conn: &mut Conn) -> Result<Negotiated, Error> {
    let req = ApiVersionsRequest {
        client_software_name: "kwire-tokio-client",
        client_software_version: env!("CARGO_PKG_VERSION"),
        ..ApiVersionsRequest::DEFAULT
    };
    let mut version = ApiKey::ApiVersions.request_info().max_version;
    loop {
        conn.send(Outgoing::new(req, version)).await?;
        let r = answer(conn).await?;
        let frame = r.view(Mode::Strict)?;
        let ResponseBody::ApiVersions(body) = frame.body else {
            return Err("not an ApiVersions answer".into());
        };
        match Negotiated::with_kafka_wire(&body) {
            Ok(n) => {
                println!("ApiVersions v{version}: {} APIs", body.api_keys.len());
                return Ok(n);
            }
            Err(NegotiationError::RetryApiVersions { retry_version }) if retry_version < version => {
                version = retry_version;
            }
            Err(e) => return Err(e.into()),
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let mut args = std::env::args().skip(1);
    let addr = args.next().ok_or("usage: tokio_client HOST:PORT [TOPIC]")?;
    let topic = args.next().unwrap_or_else(|| "kwire-tokio".into());
    let stream = TcpStream::connect(&addr).await?;
    stream.set_nodelay(true)?;
    let mut conn = Framed::new(stream, ClientCodec::<8>::new(Some("kwire-tokio-client"), 100 << 20));

    let versions = negotiate(&mut conn).await?;
    let version = |k: ApiKey| {
        versions
            .version(k)
            .ok_or(format!("the broker and kafka-wire share no {k:?} version"))
    };

    // The topic (already there is fine).
    let v = version(ApiKey::CreateTopics)?;
    let topics = [CreatableTopic {
        name: &topic,
        num_partitions: 1,
        replication_factor: 1,
        ..CreatableTopic::DEFAULT
    }];
    let create = CreateTopicsRequest {
        topics: Array::from_slice(&topics),
        timeout_ms: 30_000,
        ..CreateTopicsRequest::DEFAULT
    };
    conn.send(Outgoing::new(create, v)).await?;
    let created: CreateTopicsResponse = answer(&mut conn).await?.parse()?;
    for t in &created.topics {
        let e = ErrorCode::from_code(t.error_code);
        if !e.is_none() && e != ErrorCode::TopicAlreadyExists {
            return Err(format!("CreateTopics {}: {e}", t.name).into());
        }
        println!("CreateTopics v{v}: {} ({})", t.name, e.name().unwrap_or("NONE"));
    }

    // Its id and leader.
    let v = version(ApiKey::Metadata)?;
    let wanted = [MetadataRequestTopic {
        name: Some(&topic),
        ..MetadataRequestTopic::DEFAULT
    }];
    let md = MetadataRequest {
        topics: Some(Array::from_slice(&wanted)),
        ..MetadataRequest::DEFAULT
    };
    conn.send(Outgoing::new(md, v)).await?;
    let meta: MetadataResponse = answer(&mut conn).await?.parse()?;
    let t = meta.topics.first().ok_or("no topic in the Metadata answer")?;
    let leader = t.partitions.first().map_or(-1, |p| p.leader_id);
    println!(
        "Metadata v{v}: topic {} id {} partition 0 leader {leader}",
        topic, t.topic_id
    );

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
    let v = version(ApiKey::Produce)?;
    let parts = [PartitionProduceData {
        index: 0,
        records: Some(&batch[..n]),
        ..PartitionProduceData::DEFAULT
    }];
    // Version 13 names topics by id, earlier versions by name.
    let data = [if v >= 13 {
        TopicProduceData {
            topic_id: t.topic_id,
            partition_data: Array::from_slice(&parts),
            ..TopicProduceData::DEFAULT
        }
    } else {
        TopicProduceData {
            name: &topic,
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
    // A new topic's leader may not take writes yet (NOT_LEADER_OR_FOLLOWER): a retriable error
    // is sent again after a pause, as Kafka's producer does.
    for _ in 0..40 {
        conn.send(Outgoing::new(produce, v)).await?;
        let produced: ProduceResponse = answer(&mut conn).await?.parse()?;
        let p = produced
            .responses
            .first()
            .and_then(|t| t.partition_responses.first())
            .ok_or("no partition in the Produce answer")?;
        let e = ErrorCode::from_code(p.error_code);
        if e.is_retriable() {
            tokio::time::sleep(std::time::Duration::from_millis(250)).await;
            continue;
        }
        if !e.is_none() {
            return Err(format!("Produce v{v}: {e}").into());
        }
        println!(
            "tokio_client: produced {} records to {topic} partition 0 at offset {} (Produce v{v})",
            records.len(),
            p.base_offset
        );
        return Ok(());
    }
    Err(format!("Produce v{v}: still a retriable error after 40 tries").into())
}
