//! A broker stub on kafka-wire's server codec (`kafka_wire_ext::tokio_codec::ServerCodec`): it
//! answers ApiVersions and Metadata, enough for a client to bootstrap and list metadata
//! (`kcat -L`), and closes the connection, with a logged line, on any other request.
//!
//!     cargo run -p kafka-wire-ext --features tokio --example tokio_server_stub -- [ADDR] [--once]
//!
//! - Listens on `ADDR` (default `127.0.0.1:0`, a free port) and prints `listening on HOST:PORT`
//!   as its first line, then one line per request and per connection closed.
//! - ApiVersions: the stub advertises the two APIs it answers, each with every version
//!   kafka-wire speaks (an unstable latest version left out). A request at a version above
//!   kafka-wire's is answered as Kafka's brokers do: at version 0, `UNSUPPORTED_VERSION`, and
//!   the ApiVersions range.
//! - Metadata: the stub is the only broker (node 1, at the address the client connected to,
//!   and the controller) of cluster `kwire-tokio-stub`. Every topic asked for by name exists,
//!   with one partition (0) whose leader and only replica is node 1, and a topic id derived
//!   from its name; a topic asked for by id only is `UNKNOWN_TOPIC_ID`; a request for all
//!   topics gets none.
//! - With `--once`, it exits after its first connection closes (connections opened meanwhile
//!   are served until then).

use std::net::SocketAddr;

use futures_util::{SinkExt, StreamExt};
use kafka_wire::frame::Mode;
use kafka_wire::messages::api_versions_response::{ApiVersion, ApiVersionsResponse};
use kafka_wire::messages::metadata_response::{
    MetadataResponse, MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use kafka_wire::{ApiKey, Array, ErrorCode, RequestBody, ResponseBody, Uuid};
use kafka_wire_ext::tokio_codec::{CodecError, IncomingRequest, Reply, ServerCodec};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::Framed;

const NODE_ID: i32 = 1;
const CLUSTER_ID: &str = "kwire-tokio-stub";
/// The largest request frame read (Kafka's brokers' default, `socket.request.max.bytes`).
const MAX_FRAME: usize = 100 << 20;

type Conn = Framed<TcpStream, ServerCodec>;

/// The versions kafka-wire speaks of `key`, without an unstable latest version.
fn spoken(key: ApiKey) -> (i16, i16) {
    let info = key.request_info();
    let max = if info.latest_version_unstable {
        info.max_version - 1
    } else {
        info.max_version
    };
    (info.min_version, max)
}

/// A topic id for `name`: two FNV-1a hashes of it, never zero (the id that means none).
fn topic_id(name: &str) -> Uuid {
    let fnv = |seed: u64| {
        name.bytes()
            .fold(seed, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
    };
    let id = u128::from(fnv(0xcbf2_9ce4_8422_2325)) << 64 | u128::from(fnv(0x8422_2325_cbf2_9ce4));
    Uuid::from_u128(id.max(1))
}

async fn send(conn: &mut Conn, reply: Reply<'_>) -> Result<(), CodecError> {
    conn.send(reply).await
}

async fn api_versions(conn: &mut Conn, req: &IncomingRequest) -> Result<(), CodecError> {
    let ours = [ApiKey::ApiVersions, ApiKey::Metadata].map(|k| {
        let (min_version, max_version) = spoken(k);
        ApiVersion {
            api_key: k.id(),
            min_version,
            max_version,
            ..ApiVersion::DEFAULT
        }
    });
    if req.api_version > spoken(ApiKey::ApiVersions).1 {
        let body = ApiVersionsResponse {
            error_code: ErrorCode::UnsupportedVersion.code(),
            api_keys: Array::from_slice(ours.get(..1).unwrap_or_default()),
            ..ApiVersionsResponse::DEFAULT
        };
        let reply = req.reply(ResponseBody::ApiVersions(body)).at_version(0);
        return send(conn, reply).await;
    }
    let body = ApiVersionsResponse {
        api_keys: Array::from_slice(&ours),
        ..ApiVersionsResponse::DEFAULT
    };
    send(conn, req.reply(ResponseBody::ApiVersions(body))).await
}

async fn metadata(conn: &mut Conn, req: &IncomingRequest, local: SocketAddr) -> Result<(), String> {
    let view = req.view(Mode::Strict).map_err(|e| e.to_string())?;
    let RequestBody::Metadata(asked) = view.body else {
        return Err("not a Metadata request".into());
    };
    let host = local.ip().to_string();
    let brokers = [MetadataResponseBroker {
        node_id: NODE_ID,
        host: &host,
        port: i32::from(local.port()),
        ..MetadataResponseBroker::DEFAULT
    }];
    let nodes = [NODE_ID];
    let partitions = [MetadataResponsePartition {
        partition_index: 0,
        leader_id: NODE_ID,
        leader_epoch: 0,
        replica_nodes: Array::from_slice(&nodes),
        isr_nodes: Array::from_slice(&nodes),
        ..MetadataResponsePartition::DEFAULT
    }];
    let topics: Vec<MetadataResponseTopic<'_>> = asked
        .topics
        .iter()
        .flat_map(|t| t.iter())
        .map(|t| match t.name {
            Some(name) => MetadataResponseTopic {
                name: Some(name),
                topic_id: topic_id(name),
                partitions: Array::from_slice(&partitions),
                ..MetadataResponseTopic::DEFAULT
            },
            None => MetadataResponseTopic {
                error_code: ErrorCode::UnknownTopicId.code(),
                // Names are nullable in answers from version 12.
                name: if req.api_version >= 12 { None } else { Some("") },
                topic_id: t.topic_id,
                ..MetadataResponseTopic::DEFAULT
            },
        })
        .collect();
    let body = MetadataResponse {
        brokers: Array::from_slice(&brokers),
        cluster_id: Some(CLUSTER_ID),
        controller_id: NODE_ID,
        topics: Array::from_slice(&topics),
        ..MetadataResponse::DEFAULT
    };
    send(conn, req.reply(ResponseBody::Metadata(body)))
        .await
        .map_err(|e| e.to_string())
}

/// Serves one connection until the client closes it or sends a request the stub does not
/// answer.
async fn serve(stream: TcpStream, peer: SocketAddr) {
    let local = match stream.local_addr() {
        Ok(a) => a,
        Err(e) => {
            println!("{peer}: closing: {e}");
            return;
        }
    };
    println!("{peer}: connected");
    let mut conn = Framed::new(stream, ServerCodec::new(MAX_FRAME));
    while let Some(req) = conn.next().await {
        let req = match req {
            Ok(r) => r,
            Err(e) => {
                println!("{peer}: closing: {e}");
                return;
            }
        };
        let name = req.api_key.name();
        let v = req.api_version;
        println!(
            "{peer}: {name} v{v} (correlation id {}, client id {:?})",
            req.correlation_id,
            req.client_id().unwrap_or("<null>")
        );
        let answered = match req.api_key {
            ApiKey::ApiVersions => api_versions(&mut conn, &req).await.map_err(|e| e.to_string()),
            ApiKey::Metadata => metadata(&mut conn, &req, local).await,
            _ => Err("not answered by this stub".into()),
        };
        if let Err(e) = answered {
            println!("{peer}: closing: {name} v{v}: {e}");
            return;
        }
    }
    println!("{peer}: closed by the client");
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut addr = "127.0.0.1:0".to_string();
    let mut once = false;
    for a in std::env::args().skip(1) {
        match a.as_str() {
            "--once" => once = true,
            s if !s.starts_with('-') => addr = a,
            _ => {
                eprintln!("usage: tokio_server_stub [ADDR] [--once]");
                std::process::exit(2);
            }
        }
    }
    let listener = match TcpListener::bind(&addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("tokio_server_stub: binding {addr}: {e}");
            std::process::exit(1);
        }
    };
    match listener.local_addr() {
        Ok(a) => println!("listening on {a}"),
        Err(e) => {
            eprintln!("tokio_server_stub: {e}");
            std::process::exit(1);
        }
    }
    let mut first = None;
    loop {
        let accepted = match first.as_mut() {
            Some(first) if once => tokio::select! {
                _ = first => break,
                a = listener.accept() => a,
            },
            _ => listener.accept().await,
        };
        match accepted {
            Ok((stream, peer)) => {
                let _ = stream.set_nodelay(true);
                let task = tokio::spawn(serve(stream, peer));
                if first.is_none() {
                    first = Some(task);
                }
            }
            Err(e) => println!("accept: {e}"),
        }
    }
    println!("tokio_server_stub: the first connection closed; exiting (--once)");
}
