//! Kafka conversations: the frames of one TCP connection, in both directions, turned into
//! JSON values, with each response paired to its request.
//!
//! Responses do not name their API: a response is read with the API key and version of the
//! request that carried the same correlation id on the same connection. A [`Connection`] keeps
//! the requests that still wait for their answer; it is fed the frames (the bytes after the
//! 4-byte size, as [`crate::frames::Reassembler`] hands them out) in the order each direction
//! carried them.
//!
//! Each frame becomes one [`FrameEvent`], whose JSON is
//!
//! ```json
//! {"time": 1764635289.123456, "connection": "127.0.0.1:50310 > 127.0.0.1:9092",
//!  "direction": "request", "apiKey": 3, "apiName": "Metadata", "apiVersion": 12,
//!  "correlationId": 5, "header": {…}, "body": {…}}
//! ```
//!
//! with the header and body in the shape of [`crate::json`]. Frames are decoded strictly; a
//! frame that only decodes leniently (bytes after the body) gets `"note"`; a frame that does not
//! decode gets `"error": {"message": …}` instead of `header` and `body`, and the conversation
//! goes on. Responses with a non-zero error code anywhere in the body list them as
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
//! let ev = conn.frame(Direction::Request, 0.0, &buf[4..n]);
//! assert_eq!(ev.json["apiName"], "ApiVersions");
//! assert_eq!(ev.json["correlationId"], 7);
//! assert_eq!(conn.pending(), 1);
//! let mut summary = Summary::default();
//! summary.add(&ev);
//! assert_eq!(summary.frames, 1);
//! ```

use std::collections::{BTreeMap, HashMap};

use kafka_wire::frame::{self, Mode};
use kafka_wire::messages::{RequestHeader, ResponseHeader};
use kafka_wire::reflect::{Kind, StructDesc};
use kafka_wire::{ApiKey, ErrorCode, Message, RequestBody};
use serde_json::{json, Map, Value};

use crate::json::{entry_of, wire_to_json, JsonError};

/// Requests a connection remembers at most while they wait for an answer; past it the oldest
/// is forgotten (its response will be reported as unpaired).
pub const DEFAULT_MAX_PENDING: usize = 4096;

/// Which way a frame went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Direction {
    /// Client to broker.
    Request,
    /// Broker to client.
    Response,
}

impl Direction {
    /// `"request"` or `"response"`, as in the JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Request => "request",
            Direction::Response => "response",
        }
    }
}

/// How far a frame decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decoded {
    /// Strictly: every byte of the frame belongs to the header and body.
    Strict,
    /// Only leniently: bytes after the body (the event has a `note`).
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
    /// response; `None` when unknown (an unpaired response, or a request whose header is not
    /// a Kafka request header).
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
    /// A frame of `size` bytes that went in `direction`, before anything is decoded.
    fn undecoded(direction: Direction, size: usize) -> Self {
        FrameEvent {
            direction,
            api: None,
            correlation_id: None,
            decoded: Decoded::Failed,
            error_codes: Vec::new(),
            size,
            json: Value::Null,
        }
    }

    /// True for a response with at least one non-zero error code.
    pub fn has_error_code(&self) -> bool {
        !self.error_codes.is_empty()
    }
}

#[derive(Clone, Copy, Debug)]
struct Pending {
    key: ApiKey,
    version: i16,
    seq: u64,
}

/// One TCP connection's conversation: the requests waiting for their responses.
#[derive(Debug)]
pub struct Connection {
    label: String,
    pending: HashMap<i32, Pending>,
    max_pending: usize,
    seq: u64,
}

impl Connection {
    /// A connection named `label` in the JSON (for example `"10.0.0.1:50310 > 10.0.0.2:9092"`).
    pub fn new(label: impl Into<String>) -> Self {
        Self::with_max_pending(label, DEFAULT_MAX_PENDING)
    }

    /// A connection that remembers at most `max_pending` unanswered requests.
    pub fn with_max_pending(label: impl Into<String>, max_pending: usize) -> Self {
        Connection {
            label: label.into(),
            pending: HashMap::new(),
            max_pending: max_pending.max(1),
            seq: 0,
        }
    }

    /// The label given at creation.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Requests still waiting for a response.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// The API and version of the request waiting with `correlation_id`, if one is.
    pub fn pending_request(&self, correlation_id: i32) -> Option<(ApiKey, i16)> {
        self.pending.get(&correlation_id).map(|p| (p.key, p.version))
    }

    /// An event for a frame that could not even be cut out of the stream (for example a size
    /// above the limit): `"error": {"message": message}`, undecoded.
    pub fn error_event(&self, direction: Direction, time: f64, message: &str) -> FrameEvent {
        let mut out = self.base(time, direction);
        out.insert("error".into(), error_json(message));
        let mut ev = FrameEvent::undecoded(direction, 0);
        ev.json = Value::Object(out);
        ev
    }

    /// Decodes one frame (the bytes after the 4-byte size) that went in `direction` at `time`
    /// (seconds since the Unix epoch).
    pub fn frame(&mut self, direction: Direction, time: f64, payload: &[u8]) -> FrameEvent {
        match direction {
            Direction::Request => self.request(time, payload),
            Direction::Response => self.response(time, payload),
        }
    }

    /// Decodes a request frame and remembers it for its response (unless it expects none:
    /// Produce with `acks` 0).
    pub fn request(&mut self, time: f64, payload: &[u8]) -> FrameEvent {
        let mut out = self.base(time, Direction::Request);
        let mut ev = FrameEvent::undecoded(Direction::Request, payload.len());
        // The fixed start of every request header: key, version, correlation id.
        if payload.len() >= 8 {
            let k = i16::from_be_bytes([payload[0], payload[1]]);
            let v = i16::from_be_bytes([payload[2], payload[3]]);
            let c = i32::from_be_bytes([payload[4], payload[5], payload[6], payload[7]]);
            ev.correlation_id = Some(c);
            out.insert("apiKey".into(), k.into());
            if let Some(key) = ApiKey::from_i16(k) {
                out.insert("apiName".into(), key.name().into());
                ev.api = Some((key, v));
            }
            out.insert("apiVersion".into(), v.into());
            out.insert("correlationId".into(), c.into());
        }
        let strict = frame::parse_request(payload, Mode::Strict);
        let parsed = match strict {
            Ok(f) => Ok((f, None)),
            Err(e) => match frame::parse_request(payload, Mode::Lenient) {
                Ok(f) => Ok((
                    f,
                    Some(format!(
                        "decoded leniently: {} byte(s) after the body ({e})",
                        f.trailing.len()
                    )),
                )),
                Err(_) => Err(e.to_string()),
            },
        };
        let mut expects_response = ev.api.is_some();
        match parsed {
            Ok((f, note)) => {
                if let RequestBody::Produce(p) = f.body {
                    expects_response = p.acks != 0;
                }
                let header = schema_to_json(<RequestHeader as Message>::SCHEMA, f.header_bytes, f.header_version);
                let body = schema_to_json(f.body.schema(), f.body_bytes, f.api_version);
                match (header, body) {
                    (Ok(h), Ok(b)) => {
                        out.insert("header".into(), h);
                        out.insert("body".into(), b);
                        ev.decoded = if note.is_some() {
                            Decoded::Lenient
                        } else {
                            Decoded::Strict
                        };
                        if let Some(n) = note {
                            out.insert("note".into(), n.into());
                        }
                    }
                    (Err(e), _) | (_, Err(e)) => {
                        out.insert("error".into(), error_json(&format!("JSON conversion: {e}")));
                    }
                }
            }
            Err(e) => {
                out.insert("error".into(), error_json(&e));
            }
        }
        if let (true, Some((key, version)), Some(c)) = (expects_response, ev.api, ev.correlation_id) {
            self.remember(c, key, version);
        }
        ev.json = Value::Object(out);
        ev
    }

    /// Decodes a response frame with the API and version of the request it answers.
    pub fn response(&mut self, time: f64, payload: &[u8]) -> FrameEvent {
        let mut out = self.base(time, Direction::Response);
        let mut ev = FrameEvent::undecoded(Direction::Response, payload.len());
        let Some(c) = payload.get(..4).map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]])) else {
            out.insert("error".into(), error_json("response shorter than a correlation id"));
            ev.json = Value::Object(out);
            return ev;
        };
        ev.correlation_id = Some(c);
        let Some(p) = self.pending.remove(&c) else {
            out.insert("correlationId".into(), c.into());
            out.insert(
                "error".into(),
                error_json(&format!("no request with correlation id {c} on this connection")),
            );
            ev.json = Value::Object(out);
            return ev;
        };
        ev.api = Some((p.key, p.version));
        out.insert("apiKey".into(), p.key.id().into());
        out.insert("apiName".into(), p.key.name().into());
        out.insert("apiVersion".into(), p.version.into());
        out.insert("correlationId".into(), c.into());
        match decode_response(payload, p.key, p.version) {
            Ok(d) => {
                if d.version != p.version {
                    out.insert("apiVersion".into(), d.version.into());
                    ev.api = Some((p.key, d.version));
                }
                ev.decoded = if d.note.is_some() {
                    Decoded::Lenient
                } else {
                    Decoded::Strict
                };
                ev.error_codes = error_codes(schema_of_response(p.key), &d.body, d.version);
                out.insert("header".into(), d.header);
                out.insert("body".into(), d.body);
                if let Some(n) = d.note {
                    out.insert("note".into(), n.into());
                }
                if !ev.error_codes.is_empty() {
                    let list: Vec<Value> = ev
                        .error_codes
                        .iter()
                        .map(|e| json!({"path": e.path, "code": e.code.code(), "name": e.name()}))
                        .collect();
                    out.insert("errorCodes".into(), Value::Array(list));
                }
            }
            Err(e) => {
                out.insert("error".into(), error_json(&e));
            }
        }
        ev.json = Value::Object(out);
        ev
    }

    fn base(&self, time: f64, direction: Direction) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert(
            "time".into(),
            serde_json::Number::from_f64(time)
                .map(Value::Number)
                .unwrap_or(Value::Null),
        );
        m.insert("connection".into(), self.label.clone().into());
        m.insert("direction".into(), direction.as_str().into());
        m
    }

    fn remember(&mut self, correlation_id: i32, key: ApiKey, version: i16) {
        if self.pending.len() >= self.max_pending && !self.pending.contains_key(&correlation_id) {
            if let Some(oldest) = self.pending.iter().min_by_key(|(_, p)| p.seq).map(|(c, _)| *c) {
                self.pending.remove(&oldest);
            }
        }
        self.seq += 1;
        self.pending.insert(
            correlation_id,
            Pending {
                key,
                version,
                seq: self.seq,
            },
        );
    }
}

fn error_json(message: &str) -> Value {
    json!({ "message": message })
}

struct DecodedResponse {
    version: i16,
    header: Value,
    body: Value,
    note: Option<String>,
}

fn response_json(f: &frame::ResponseFrame<'_>, version: i16) -> Result<(Value, Value), String> {
    let header = schema_to_json(<ResponseHeader as Message>::SCHEMA, f.header_bytes, f.header_version)
        .map_err(|e| format!("JSON conversion: {e}"))?;
    let body = schema_to_json(f.body.schema(), f.body_bytes, version).map_err(|e| format!("JSON conversion: {e}"))?;
    Ok((header, body))
}

/// The JSON of `bytes`, one message whose schema is `desc`.
fn schema_to_json(desc: &'static StructDesc, bytes: &[u8], version: i16) -> Result<Value, JsonError> {
    wire_to_json(entry_of(desc)?, bytes, version)
}

/// Strict, then lenient. The frame parsers read an ApiVersions answer in version 0's shape (a
/// broker's answer to a version it does not support; `frame::reads_v0_fallback`): such an
/// answer is noted, and counted as lenient.
fn decode_response(payload: &[u8], key: ApiKey, version: i16) -> Result<DecodedResponse, String> {
    let strict_err = match frame::parse_response(payload, key, version, Mode::Strict) {
        Ok(f) => {
            let (header, body) = response_json(&f, f.version)?;
            let note = (f.version != version).then(|| {
                format!(
                    "decoded at version {}, as a broker answers an ApiVersions request at a version it does not support (sent at version {version})",
                    f.version
                )
            });
            return Ok(DecodedResponse {
                version: f.version,
                header,
                body,
                note,
            });
        }
        Err(e) => e,
    };
    if let Ok(f) = frame::parse_response(payload, key, version, Mode::Lenient) {
        let (header, body) = response_json(&f, f.version)?;
        let note = format!(
            "decoded leniently: {} byte(s) after the body ({strict_err})",
            f.trailing.len()
        );
        return Ok(DecodedResponse {
            version: f.version,
            header,
            body,
            note: Some(note),
        });
    }
    Err(strict_err.to_string())
}

fn schema_of_response(key: ApiKey) -> &'static StructDesc {
    let name = key.response_info().name;
    kafka_wire::catalog::ALL
        .iter()
        .find(|e| e.group == "messages" && e.info.name == name)
        .map(|e| e.schema)
        .expect("every API message is in the catalog")
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
    use kafka_wire::{Array, ResponseBody};

    fn req(corr: i32, body: RequestBody<'_>, v: i16) -> Vec<u8> {
        let mut buf = vec![0u8; 4096];
        let n = encode_request_frame(corr, Some("test-client"), &body, v, &mut buf).unwrap();
        buf[4..n].to_vec()
    }

    fn resp(corr: i32, body: ResponseBody<'_>, v: i16) -> Vec<u8> {
        let mut buf = vec![0u8; 4096];
        let n = encode_response_frame(corr, &body, v, &mut buf).unwrap();
        buf[4..n].to_vec()
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
        let r = c.request(1.5, &req(9, RequestBody::Metadata(MetadataRequest::DEFAULT), 12));
        assert_eq!(r.decoded, Decoded::Strict);
        assert_eq!(r.json["apiKey"], 3);
        assert_eq!(r.json["apiVersion"], 12);
        assert_eq!(r.json["header"]["clientId"], "test-client");
        assert_eq!(r.json["time"], 1.5);
        assert_eq!(r.json["connection"], "c > b");
        assert_eq!(c.pending(), 1);
        let ev = c.response(1.6, &metadata_with_errors());
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
        let ev = c.response(0.0, &metadata_with_errors());
        assert_eq!(ev.decoded, Decoded::Failed);
        assert!(ev.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no request with correlation id 9"));
        s.add(&ev);
        // A request whose body is cut short: an error, but its response still pairs.
        let mut r = req(9, RequestBody::Metadata(MetadataRequest::DEFAULT), 12);
        r.truncate(r.len() - 1);
        let ev = c.request(0.0, &r);
        assert_eq!(ev.decoded, Decoded::Failed);
        assert!(ev.json["error"]["message"].is_string());
        assert_eq!(ev.json["apiName"], "Metadata");
        s.add(&ev);
        let ev = c.response(0.0, &metadata_with_errors());
        assert_eq!(ev.decoded, Decoded::Strict);
        s.add(&ev);
        let ev = c.request(0.0, &[0, 1]);
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
        let ev = c.request(0.0, &r);
        assert_eq!(ev.decoded, Decoded::Lenient);
        assert!(ev.json["note"].as_str().unwrap().contains("2 byte(s) after the body"));
        assert!(ev.json["body"].is_object());
    }

    #[test]
    fn produce_with_acks_zero_waits_for_no_response() {
        let mut c = Connection::new("x");
        c.request(
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
        c.request(
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
        let mut c = Connection::with_max_pending("x", 2);
        for i in 0..5 {
            c.request(0.0, &req(i, RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT), 3));
        }
        assert_eq!(c.pending(), 2);
        // The newest two are kept.
        let ev = c.response(
            0.0,
            &resp(
                4,
                ResponseBody::ApiVersions(kafka_wire::messages::ApiVersionsResponse::DEFAULT),
                3,
            ),
        );
        assert_eq!(ev.decoded, Decoded::Strict, "{}", ev.json);
        let ev = c.response(
            0.0,
            &resp(
                0,
                ResponseBody::ApiVersions(kafka_wire::messages::ApiVersionsResponse::DEFAULT),
                3,
            ),
        );
        assert_eq!(ev.decoded, Decoded::Failed);
    }

    #[test]
    fn an_api_versions_answer_at_version_0_is_recognised() {
        use kafka_wire::messages::ApiVersionsResponse;
        let mut c = Connection::new("x");
        c.request(0.0, &req(1, RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT), 4));
        let body = ApiVersionsResponse {
            error_code: 35,
            ..ApiVersionsResponse::DEFAULT
        };
        let ev = c.response(0.0, &resp(1, ResponseBody::ApiVersions(body), 0));
        assert_eq!(ev.decoded, Decoded::Lenient, "{}", ev.json);
        assert_eq!(ev.api, Some((ApiKey::ApiVersions, 0)));
        assert_eq!(ev.error_codes[0].code, ErrorCode::UnsupportedVersion);
        assert_eq!(ev.error_codes[0].path, "errorCode");
    }
}
