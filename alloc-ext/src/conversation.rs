//! Kafka conversations: the frames of one TCP connection, in both directions, turned into
//! JSON values, with each response paired to its request.
//!
//! Pairing and decoding are `kafka_wire::conn::Observer`'s: responses do not name their API,
//! and a response is read with the API key and version of the request that carried the same
//! correlation id on the same connection. A [`Connection`] is an observer and a label; it is
//! fed whole frames (size prefix included, as `kafka_wire::conn::FrameCutter` cuts them) in the
//! order each direction carried them. Each frame is parsed once; its JSON is read off the
//! bytes that parse delimited ([`to_json`], for a caller that observes frames itself).
//!
//! Each frame becomes one [`FrameEvent`], whose JSON is
//!
//! ```json
//! {"time": 1764635289.123456, "connection": "127.0.0.1:50310 > 127.0.0.1:9092",
//!  "direction": "request", "apiKey": 3, "apiName": "Metadata", "apiVersion": 12,
//!  "correlationId": 5, "header": {…}, "body": {…}}
//! ```
//!
//! with the header and body in the shape of [`crate::json`]. A frame that decodes only with
//! bytes left after its body gets `"note"`; a frame that does not decode gets
//! `"error": {"message": …}` instead of `header` and `body` (offsets count from the frame's
//! first byte, its size prefix), and the conversation goes on. Responses with a non-zero error
//! code anywhere in the body list them as
//! `"errorCodes": [{"path": "topics[0].errorCode", "code": 3, "name": "UNKNOWN_TOPIC_OR_PARTITION"}]`.
//!
//! [`Summary`] counts what a run saw: frames per API and version, error codes, frames that did
//! not decode.
//!
//! ```
//! use kafka_wire::frame::encode_request_frame;
//! use kafka_wire::messages::ApiVersionsRequest;
//! use kafka_wire::RequestBody;
//! use kafka_wire_ext::conversation::{Connection, Direction, Summary};
//!
//! let mut buf = [0u8; 64];
//! let req = RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT);
//! let n = encode_request_frame(7, Some("me"), &req, 3, &mut buf).unwrap();
//! let mut conn = Connection::new("client > broker");
//! let ev = conn.frame(Direction::Request, 0.0, &buf[..n]);
//! assert_eq!(ev.json["apiName"], "ApiVersions");
//! assert_eq!(ev.json["correlationId"], 7);
//! assert_eq!(conn.pending(), 1);
//! let mut summary = Summary::default();
//! summary.add(&ev);
//! assert_eq!(summary.frames, 1);
//! ```

use std::collections::BTreeMap;

use kafka_wire::conn::{self, Observer};
use kafka_wire::frame;
use kafka_wire::messages::{RequestHeader, ResponseHeader};
use kafka_wire::reflect::{Kind, StructDesc};
use kafka_wire::{ApiKey, ErrorCode, Message};
use serde_json::{json, Map, Value};

use crate::json::{entry_of, wire_to_json, JsonError};

pub use kafka_wire::conn::Direction;

/// Requests a connection remembers at most while they wait for an answer; a request past it
/// is not remembered (its response will be reported as unpaired).
pub const DEFAULT_MAX_PENDING: usize = 4096;

/// How far a frame decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decoded {
    /// Strictly: every byte of the frame belongs to the header and body.
    Strict,
    /// With a note: bytes after the body, or an ApiVersions answer in version 0's shape.
    Lenient,
    /// Not at all (the event has an `error`).
    Failed,
}

/// A non-zero error code found in a response body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorCodeAt {
    /// Where, as a JSON path: `topics[0].partitions[1].errorCode`.
    pub path: String,
    /// The code.
    pub code: ErrorCode,
}

impl ErrorCodeAt {
    /// Kafka's name for the code, or `UNKNOWN(n)` for a code Kafka's table does not have.
    pub fn name(&self) -> String {
        match self.code.name() {
            Some(n) => n.to_string(),
            None => format!("UNKNOWN({})", self.code.code()),
        }
    }
}

/// One frame, decoded.
#[derive(Clone, Debug)]
pub struct FrameEvent {
    /// Which way it went.
    pub direction: Direction,
    /// The API and version: from the header for a request, from the paired request for a
    /// response (the version read, for an ApiVersions answer in version 0's shape); `None`
    /// when unknown (an unpaired response, or a request whose API key Kafka does not have).
    pub api: Option<(ApiKey, i16)>,
    /// The correlation id, when the frame is long enough to have one.
    pub correlation_id: Option<i32>,
    /// How far it decoded.
    pub decoded: Decoded,
    /// Non-zero error codes in a response body, in wire order.
    pub error_codes: Vec<ErrorCodeAt>,
    /// The frame's size (without the 4-byte size prefix).
    pub size: usize,
    /// The JSON line (see the module docs).
    pub json: Value,
}

impl FrameEvent {
    /// True for a response with at least one non-zero error code.
    pub fn has_error_code(&self) -> bool {
        !self.error_codes.is_empty()
    }
}

/// One TCP connection's conversation: its label and the observer that pairs its frames.
#[derive(Debug)]
pub struct Connection {
    label: String,
    observer: Box<Observer<DEFAULT_MAX_PENDING>>,
}

impl Connection {
    /// A connection named `label` in the JSON (for example `"10.0.0.1:50310 > 10.0.0.2:9092"`).
    pub fn new(label: impl Into<String>) -> Self {
        Connection {
            label: label.into(),
            observer: Box::new(Observer::new()),
        }
    }

    /// The label given at creation.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Requests still waiting for a response.
    pub fn pending(&self) -> usize {
        self.observer.waiting()
    }

    /// The API and version of the request a response with `correlation_id` would answer.
    pub fn pending_request(&self, correlation_id: i32) -> Option<(ApiKey, i16)> {
        self.observer.pending(correlation_id).map(|p| (p.api_key, p.version))
    }

    /// An event for bytes that could not even be cut into a frame (for example a size above the
    /// limit): `"error": {"message": message}`, undecoded.
    pub fn error_event(&self, direction: Direction, time: f64, message: &str) -> FrameEvent {
        let mut out = base(&self.label, time, direction);
        out.insert("error".into(), error_json(message));
        FrameEvent {
            direction,
            api: None,
            correlation_id: None,
            decoded: Decoded::Failed,
            error_codes: Vec::new(),
            size: 0,
            json: Value::Object(out),
        }
    }

    /// Decodes one whole frame (size prefix included) that went in `direction` at `time`
    /// (seconds since the Unix epoch): a request is remembered for its response (unless Kafka
    /// does not answer it: Produce with `acks` 0), a response is paired and read as the answer
    /// to its request.
    pub fn frame(&mut self, direction: Direction, time: f64, frame: &[u8]) -> FrameEvent {
        let ev = match direction {
            Direction::Request => self.observer.request(frame),
            Direction::Response => self.observer.response(frame),
        };
        to_json(&self.label, time, &ev)
    }
}

/// The JSON line of a frame an observer decoded (see the module docs), on connection `label`
/// at `time`. Nothing is parsed again: the header's and body's JSON are read off the bytes the
/// observer's parse delimited.
pub fn to_json(label: &str, time: f64, ev: &conn::Event<'_>) -> FrameEvent {
    let mut out = base(label, time, ev.direction);
    let mut fe = FrameEvent {
        direction: ev.direction,
        api: ev.api,
        correlation_id: ev.correlation_id,
        decoded: Decoded::Failed,
        error_codes: Vec::new(),
        size: ev.frame.len().saturating_sub(4),
        json: Value::Null,
    };
    match ev.direction {
        Direction::Request => {
            if let Some((k, v, c)) = frame::peek_request_head(ev.frame) {
                out.insert("apiKey".into(), k.into());
                if let Some(key) = ApiKey::from_i16(k) {
                    out.insert("apiName".into(), key.name().into());
                }
                out.insert("apiVersion".into(), v.into());
                out.insert("correlationId".into(), c.into());
            }
        }
        Direction::Response => match (ev.correlation_id, ev.api) {
            (None, _) => {}
            (Some(c), None) => {
                out.insert("correlationId".into(), c.into());
            }
            (Some(c), Some((key, version))) => {
                out.insert("apiKey".into(), key.id().into());
                out.insert("apiName".into(), key.name().into());
                out.insert("apiVersion".into(), version.into());
                out.insert("correlationId".into(), c.into());
            }
        },
    }
    let parts = match &ev.decoded {
        conn::Decoded::Request(r) => Ok((
            (<RequestHeader as Message>::SCHEMA, r.header_bytes, r.header_version),
            (r.body.schema(), r.body_bytes, r.api_version),
            r.trailing.len(),
            None,
        )),
        conn::Decoded::Response(r) => {
            let asked = ev.api.map_or(r.version, |(_, v)| v);
            if r.version != asked {
                out.insert("apiVersion".into(), r.version.into());
                fe.api = ev.api.map(|(k, _)| (k, r.version));
            }
            Ok((
                (<ResponseHeader as Message>::SCHEMA, r.header_bytes, r.header_version),
                (r.body.schema(), r.body_bytes, r.version),
                r.trailing.len(),
                (r.version != asked).then(|| {
                    format!(
                        "decoded at version {}, as a broker answers an ApiVersions request at a version it does not support (sent at version {asked})",
                        r.version
                    )
                }),
            ))
        }
        conn::Decoded::Failed(e) => Err(e.to_string()),
        conn::Decoded::Unpaired => Err(match ev.correlation_id {
            Some(c) => format!("no request with correlation id {c} on this connection"),
            None => "response shorter than a correlation id".to_string(),
        }),
    };
    match parts {
        Ok(((hs, hb, hv), (bs, bb, bv), trailing, fallback)) => {
            match (schema_to_json(hs, hb, hv), schema_to_json(bs, bb, bv)) {
                (Ok(h), Ok(b)) => {
                    let note = if trailing > 0 {
                        Some(format!(
                            "decoded leniently: {trailing} byte(s) after the body (from offset {})",
                            ev.frame.len() - trailing
                        ))
                    } else {
                        fallback
                    };
                    if ev.direction == Direction::Response {
                        fe.error_codes = error_codes(bs, &b, bv);
                    }
                    out.insert("header".into(), h);
                    out.insert("body".into(), b);
                    fe.decoded = if note.is_some() {
                        Decoded::Lenient
                    } else {
                        Decoded::Strict
                    };
                    if let Some(n) = note {
                        out.insert("note".into(), n.into());
                    }
                    if !fe.error_codes.is_empty() {
                        let list: Vec<Value> = fe
                            .error_codes
                            .iter()
                            .map(|e| json!({"path": e.path, "code": e.code.code(), "name": e.name()}))
                            .collect();
                        out.insert("errorCodes".into(), Value::Array(list));
                    }
                }
                (Err(e), _) | (_, Err(e)) => {
                    out.insert("error".into(), error_json(&format!("JSON conversion: {e}")));
                }
            }
        }
        Err(message) => {
            out.insert("error".into(), error_json(&message));
        }
    }
    fe.json = Value::Object(out);
    fe
}

fn base(label: &str, time: f64, direction: Direction) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(
        "time".into(),
        serde_json::Number::from_f64(time)
            .map(Value::Number)
            .unwrap_or(Value::Null),
    );
    m.insert("connection".into(), label.into());
    m.insert("direction".into(), direction.as_str().into());
    m
}

fn error_json(message: &str) -> Value {
    json!({ "message": message })
}

/// The JSON of `bytes`, one message whose schema is `desc`.
fn schema_to_json(desc: &'static StructDesc, bytes: &[u8], version: i16) -> Result<Value, JsonError> {
    wire_to_json(entry_of(desc)?, bytes, version)
}

/// The non-zero error codes in `body`, the JSON of the struct `desc` at `version` (as
/// [`wire_to_json`] makes it): every `int16` field whose schema name ends in `ErrorCode`
/// (`ErrorCode`, `PartitionErrorCode`, `AcknowledgeErrorCode`, …), at any depth.
pub fn error_codes(desc: &StructDesc, body: &Value, version: i16) -> Vec<ErrorCodeAt> {
    let mut out = Vec::new();
    walk(desc, body, version, &mut String::new(), &mut out);
    out
}

fn walk(desc: &StructDesc, v: &Value, version: i16, path: &mut String, out: &mut Vec<ErrorCodeAt>) {
    let Value::Object(obj) = v else { return };
    for f in desc.fields {
        if !f.in_version(version) {
            continue;
        }
        let Some(val) = obj.get(f.json) else { continue };
        let len = path.len();
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(f.json);
        match f.kind {
            Kind::Int16 if f.name.ends_with("ErrorCode") => {
                let codes: Vec<(Option<usize>, &Value)> = match (f.array, val) {
                    (true, Value::Array(items)) => items.iter().enumerate().map(|(i, x)| (Some(i), x)).collect(),
                    (false, x) => vec![(None, x)],
                    _ => Vec::new(),
                };
                for (i, x) in codes {
                    let Some(code) = x.as_i64().and_then(|c| i16::try_from(c).ok()) else {
                        continue;
                    };
                    if code != 0 {
                        let p = match i {
                            Some(i) => format!("{path}[{i}]"),
                            None => path.clone(),
                        };
                        out.push(ErrorCodeAt {
                            path: p,
                            code: ErrorCode::from_code(code),
                        });
                    }
                }
            }
            Kind::Struct(d) => match val {
                Value::Array(items) if f.array => {
                    for (i, item) in items.iter().enumerate() {
                        let l2 = path.len();
                        path.push_str(&format!("[{i}]"));
                        walk(d, item, version, path, out);
                        path.truncate(l2);
                    }
                }
                Value::Object(_) => walk(d, val, version, path, out),
                _ => {}
            },
            _ => {}
        }
        path.truncate(len);
    }
}

/// Counts over a run: frames per API and version and direction, error codes, frames that did
/// not decode.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Frames seen.
    pub frames: u64,
    /// Requests and responses per (API key, version): `(requests, responses)`. Frames whose API
    /// is unknown are not in it.
    pub per_api: BTreeMap<(i16, i16), (u64, u64)>,
    /// Non-zero error codes found in responses, per (API key, code).
    pub error_codes: BTreeMap<(i16, i16), u64>,
    /// Responses with at least one non-zero error code.
    pub responses_with_errors: u64,
    /// Frames that decoded only leniently.
    pub lenient: u64,
    /// Frames that did not decode.
    pub undecoded: u64,
    /// Responses whose request was not seen on their connection.
    pub unpaired_responses: u64,
}

impl Summary {
    /// Counts one event.
    pub fn add(&mut self, ev: &FrameEvent) {
        self.frames += 1;
        if let Some((key, version)) = ev.api {
            let e = self.per_api.entry((key.id(), version)).or_default();
            match ev.direction {
                Direction::Request => e.0 += 1,
                Direction::Response => e.1 += 1,
            }
        } else if ev.direction == Direction::Response && ev.correlation_id.is_some() {
            self.unpaired_responses += 1;
        }
        match ev.decoded {
            Decoded::Strict => {}
            Decoded::Lenient => self.lenient += 1,
            Decoded::Failed => self.undecoded += 1,
        }
        if let (Some((key, _)), false) = (ev.api, ev.error_codes.is_empty()) {
            self.responses_with_errors += 1;
            for e in &ev.error_codes {
                *self.error_codes.entry((key.id(), e.code.code())).or_default() += 1;
            }
        }
    }

    /// The summary as JSON: `{"summary": {"frames": …, "apis": [{"apiKey", "apiName",
    /// "apiVersion", "requests", "responses"}], "errorCodes": [{"apiName", "code", "name",
    /// "count"}], "responsesWithErrors", "lenient", "undecoded", "unpairedResponses"}}`.
    pub fn to_json(&self) -> Value {
        let apis: Vec<Value> = self
            .per_api
            .iter()
            .map(|((k, v), (req, resp))| {
                let name = ApiKey::from_i16(*k).map(|a| a.name()).unwrap_or("?");
                json!({"apiKey": k, "apiName": name, "apiVersion": v, "requests": req, "responses": resp})
            })
            .collect();
        let errors: Vec<Value> = self
            .error_codes
            .iter()
            .map(|((k, c), n)| {
                let api = ApiKey::from_i16(*k).map(|a| a.name()).unwrap_or("?");
                let code = ErrorCode::from_code(*c);
                let name = code
                    .name()
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("UNKNOWN({c})"));
                json!({"apiName": api, "code": c, "name": name, "count": n})
            })
            .collect();
        json!({"summary": {
            "frames": self.frames,
            "apis": apis,
            "errorCodes": errors,
            "responsesWithErrors": self.responses_with_errors,
            "lenient": self.lenient,
            "undecoded": self.undecoded,
            "unpairedResponses": self.unpaired_responses,
        }})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kafka_wire::frame::{encode_request_frame, encode_response_frame};
    use kafka_wire::messages::metadata_response::{MetadataResponsePartition, MetadataResponseTopic};
    use kafka_wire::messages::{ApiVersionsRequest, MetadataRequest, MetadataResponse, ProduceRequest};
    use kafka_wire::{Array, RequestBody, ResponseBody};

    fn req(corr: i32, body: RequestBody<'_>, v: i16) -> Vec<u8> {
        let mut buf = vec![0u8; 4096];
        let n = encode_request_frame(corr, Some("test-client"), &body, v, &mut buf).unwrap();
        buf[..n].to_vec()
    }

    fn resp(corr: i32, body: ResponseBody<'_>, v: i16) -> Vec<u8> {
        let mut buf = vec![0u8; 4096];
        let n = encode_response_frame(corr, &body, v, &mut buf).unwrap();
        buf[..n].to_vec()
    }

    fn metadata_with_errors() -> Vec<u8> {
        let parts = [
            MetadataResponsePartition {
                partition_index: 0,
                ..MetadataResponsePartition::DEFAULT
            },
            MetadataResponsePartition {
                partition_index: 1,
                error_code: 6,
                ..MetadataResponsePartition::DEFAULT
            },
        ];
        let topics = [
            MetadataResponseTopic {
                name: Some("missing"),
                error_code: 3,
                ..MetadataResponseTopic::DEFAULT
            },
            MetadataResponseTopic {
                name: Some("t"),
                partitions: Array::from_slice(&parts),
                ..MetadataResponseTopic::DEFAULT
            },
        ];
        let body = MetadataResponse {
            topics: Array::from_slice(&topics),
            ..MetadataResponse::DEFAULT
        };
        resp(9, ResponseBody::Metadata(body), 12)
    }

    #[test]
    fn a_response_is_read_with_its_requests_key_and_version() {
        let mut c = Connection::new("c > b");
        let r = c.frame(
            Direction::Request,
            1.5,
            &req(9, RequestBody::Metadata(MetadataRequest::DEFAULT), 12),
        );
        assert_eq!(r.decoded, Decoded::Strict);
        assert_eq!(r.json["apiKey"], 3);
        assert_eq!(r.json["apiVersion"], 12);
        assert_eq!(r.json["header"]["clientId"], "test-client");
        assert_eq!(r.json["time"], 1.5);
        assert_eq!(r.json["connection"], "c > b");
        assert_eq!(c.pending(), 1);
        let ev = c.frame(Direction::Response, 1.6, &metadata_with_errors());
        assert_eq!(c.pending(), 0);
        assert_eq!(ev.decoded, Decoded::Strict, "{}", ev.json);
        assert_eq!(ev.api, Some((ApiKey::Metadata, 12)));
        assert_eq!(ev.json["direction"], "response");
        assert_eq!(ev.json["correlationId"], 9);
        assert_eq!(ev.json["body"]["topics"][0]["name"], "missing");
        let paths: Vec<&str> = ev.error_codes.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["topics[0].errorCode", "topics[1].partitions[1].errorCode"]);
        assert_eq!(ev.error_codes[0].code, ErrorCode::UnknownTopicOrPartition);
        assert_eq!(ev.json["errorCodes"][1]["name"], "NOT_LEADER_OR_FOLLOWER");
        assert_eq!(ev.json["errorCodes"][1]["code"], 6);
    }

    #[test]
    fn an_unpaired_or_broken_frame_gets_an_error_and_the_conversation_goes_on() {
        let mut c = Connection::new("x");
        let mut s = Summary::default();
        let ev = c.frame(Direction::Response, 0.0, &metadata_with_errors());
        assert_eq!(ev.decoded, Decoded::Failed);
        assert!(ev.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no request with correlation id 9"));
        s.add(&ev);
        // A request whose body is cut short: an error, but its response still pairs.
        let mut r = req(9, RequestBody::Metadata(MetadataRequest::DEFAULT), 12);
        r.truncate(r.len() - 1);
        let size = (r.len() - 4) as i32;
        r[..4].copy_from_slice(&size.to_be_bytes());
        let ev = c.frame(Direction::Request, 0.0, &r);
        assert_eq!(ev.decoded, Decoded::Failed);
        assert!(ev.json["error"]["message"].is_string());
        assert_eq!(ev.json["apiName"], "Metadata");
        s.add(&ev);
        let ev = c.frame(Direction::Response, 0.0, &metadata_with_errors());
        assert_eq!(ev.decoded, Decoded::Strict);
        s.add(&ev);
        let ev = c.frame(Direction::Request, 0.0, &[0, 0, 0, 2, 0, 1]);
        assert_eq!(ev.decoded, Decoded::Failed);
        s.add(&ev);
        assert_eq!(s.frames, 4);
        assert_eq!(s.undecoded, 3);
        assert_eq!(s.unpaired_responses, 1);
        assert_eq!(s.per_api.get(&(3, 12)), Some(&(1, 1)));
        assert_eq!(s.responses_with_errors, 1);
        assert_eq!(s.error_codes.get(&(3, 3)), Some(&1));
        assert_eq!(s.error_codes.get(&(3, 6)), Some(&1));
        let j = s.to_json();
        assert_eq!(j["summary"]["frames"], 4);
        assert_eq!(j["summary"]["apis"][0]["apiName"], "Metadata");
        assert_eq!(j["summary"]["errorCodes"][0]["name"], "UNKNOWN_TOPIC_OR_PARTITION");
    }

    #[test]
    fn trailing_bytes_decode_leniently_with_a_note() {
        let mut c = Connection::new("x");
        let mut r = req(1, RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT), 3);
        r.extend_from_slice(&[0xde, 0xad]);
        let size = (r.len() - 4) as i32;
        r[..4].copy_from_slice(&size.to_be_bytes());
        let ev = c.frame(Direction::Request, 0.0, &r);
        assert_eq!(ev.decoded, Decoded::Lenient);
        assert!(ev.json["note"].as_str().unwrap().contains("2 byte(s) after the body"));
        assert!(ev.json["body"].is_object());
    }

    #[test]
    fn produce_with_acks_zero_waits_for_no_response() {
        let mut c = Connection::new("x");
        c.frame(
            Direction::Request,
            0.0,
            &req(
                1,
                RequestBody::Produce(ProduceRequest {
                    acks: 0,
                    ..ProduceRequest::DEFAULT
                }),
                9,
            ),
        );
        assert_eq!(c.pending(), 0);
        c.frame(
            Direction::Request,
            0.0,
            &req(
                2,
                RequestBody::Produce(ProduceRequest {
                    acks: -1,
                    ..ProduceRequest::DEFAULT
                }),
                9,
            ),
        );
        assert_eq!(c.pending(), 1);
    }

    #[test]
    fn pending_requests_are_bounded() {
        let mut c = Connection::new("x");
        let n = DEFAULT_MAX_PENDING as i32;
        for i in 0..=n {
            c.frame(
                Direction::Request,
                0.0,
                &req(i, RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT), 3),
            );
        }
        assert_eq!(c.pending(), DEFAULT_MAX_PENDING);
        let answer = |i| {
            resp(
                i,
                ResponseBody::ApiVersions(kafka_wire::messages::ApiVersionsResponse::DEFAULT),
                3,
            )
        };
        // The request past the bound was not remembered; the oldest still pairs.
        let ev = c.frame(Direction::Response, 0.0, &answer(n));
        assert_eq!(ev.decoded, Decoded::Failed, "{}", ev.json);
        let ev = c.frame(Direction::Response, 0.0, &answer(0));
        assert_eq!(ev.decoded, Decoded::Strict, "{}", ev.json);
        assert_eq!(c.pending(), DEFAULT_MAX_PENDING - 1);
    }

    #[test]
    fn an_api_versions_answer_at_version_0_is_recognised() {
        use kafka_wire::messages::ApiVersionsResponse;
        let mut c = Connection::new("x");
        c.frame(
            Direction::Request,
            0.0,
            &req(1, RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT), 4),
        );
        let body = ApiVersionsResponse {
            error_code: 35,
            ..ApiVersionsResponse::DEFAULT
        };
        let ev = c.frame(Direction::Response, 0.0, &resp(1, ResponseBody::ApiVersions(body), 0));
        assert_eq!(ev.decoded, Decoded::Lenient, "{}", ev.json);
        assert_eq!(ev.api, Some((ApiKey::ApiVersions, 0)));
        assert_eq!(ev.error_codes[0].code, ErrorCode::UnsupportedVersion);
        assert_eq!(ev.error_codes[0].path, "errorCode");
    }
}
