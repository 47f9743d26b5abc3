//! JSON in the shape of Kafka's generated `JsonConverter`s, for every message, from views and
//! owned values, and back into owned values.
//!
//! Both directions go through the codec, with the message's field-level schema
//! (`kafka_wire::reflect`) for names and defaults: to JSON, the message's visitor
//! ([`kafka_wire::Message::visit`]) reads the bytes and a [`Visitor`] here builds the JSON as
//! the fields arrive; from JSON, the JSON becomes a [`kafka_wire::dynamic`] value, which core
//! encodes with the generated encoders' wire primitives. This module knows JSON, not the wire
//! format.
//!
//! The shape follows Kafka's converters: camelCase field names; a field is present when the
//! version has it; tagged fields only when they differ from their default; 64-bit integers as
//! JSON numbers; UUIDs in Kafka's URL-safe base64; bytes in standard base64; null as `null`.
//!
//! Two additions keep the round trip lossless, where Kafka's converters drop data: `records`
//! fields carry their bytes in base64 (Kafka writes an empty string), and unknown tagged fields
//! appear as `"_unknownTaggedFields": [{"tag": N, "data": "<base64>"}]`.

use std::borrow::Cow;

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine as _;
use kafka_wire::catalog::{self, Entry};
use kafka_wire::dynamic::{self, Struct};
use kafka_wire::reflect::{DefaultValue, FieldDesc, Kind, StructDesc};
use kafka_wire::{FieldId, Message, OwnedMessage, Visitor};
use serde_json::{Map, Number, Value};

/// Why a conversion failed.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonError {
    /// The JSON did not fit the schema (field path, what).
    Json(String, String),
    /// The bytes did not decode.
    Decode(kafka_wire::DecodeError),
    /// The value could not be encoded.
    Encode(kafka_wire::EncodeError),
    /// The schema is not a message's, or its tables disagree with the message's visitor.
    Schema(String),
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JsonError::Json(path, what) => write!(f, "{what} at {path}"),
            JsonError::Decode(e) => e.fmt(f),
            JsonError::Encode(e) => e.fmt(f),
            JsonError::Schema(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for JsonError {}

impl From<kafka_wire::DecodeError> for JsonError {
    fn from(e: kafka_wire::DecodeError) -> Self {
        JsonError::Decode(e)
    }
}
impl From<kafka_wire::EncodeError> for JsonError {
    fn from(e: kafka_wire::EncodeError) -> Self {
        JsonError::Encode(e)
    }
}

/// The JSON of a view (or any borrowed value) at `version`.
pub fn to_json<'a, M: Message<'a>>(m: &M, version: i16) -> Result<Value, JsonError> {
    let mut bytes = Vec::new();
    m.encode(&mut bytes, version)?;
    wire_to_json(entry_of(M::SCHEMA)?, &bytes, version)
}

/// The JSON of an owned value at `version`.
pub fn owned_to_json<M: OwnedMessage>(m: &M, version: i16) -> Result<Value, JsonError> {
    let bytes = m.to_vec(version)?;
    let mut b = JsonBuilder::new(<M::View<'static> as Message<'static>>::SCHEMA, version);
    <M::View<'_> as Message<'_>>::visit(&bytes, version, &mut b)?;
    b.finish()
}

/// An owned value from its JSON at `version`.
pub fn from_json<M: OwnedMessage>(json: &Value, version: i16) -> Result<M, JsonError> {
    let info = <M::View<'static> as Message<'static>>::INFO;
    let desc = <M::View<'static> as Message<'static>>::SCHEMA;
    let bytes = dynamic::to_vec(&info, desc, &json_struct(desc, json, version, desc.name)?, version)?;
    Ok(M::parse(&bytes, version)?)
}

/// The JSON of `bytes`, exactly one message of the catalog entry `e` at `version`.
pub fn wire_to_json(e: &Entry, bytes: &[u8], version: i16) -> Result<Value, JsonError> {
    let mut b = JsonBuilder::new(e.schema, version);
    (e.visit)(bytes, version, &mut b)?;
    b.finish()
}

/// The encoded bytes of a message of the catalog entry `e` at `version`, from its JSON.
pub fn json_to_wire(e: &Entry, json: &Value, version: i16) -> Result<Vec<u8>, JsonError> {
    let s = json_struct(e.schema, json, version, e.schema.name)?;
    Ok(dynamic::to_vec(&e.info, e.schema, &s, version)?)
}

/// The catalog entry of the message whose schema is `desc` (`M::SCHEMA`, `body.schema()`,
/// `record.schema()`), for [`wire_to_json`] and [`json_to_wire`].
pub fn entry_of(desc: &StructDesc) -> Result<&'static Entry, JsonError> {
    catalog::find(desc.name)
        .filter(|e| std::ptr::eq(e.schema, desc))
        .ok_or_else(|| JsonError::Schema(format!("no message in the catalog has the schema {}", desc.name)))
}

/// Kafka's text form of a UUID.
pub fn uuid_to_string(u: &kafka_wire::Uuid) -> String {
    URL_SAFE_NO_PAD.encode(u.as_bytes())
}

/// What the JSON builder is filling: a struct's object (with its unknown tagged fields) or an
/// array's elements.
enum Frame {
    Struct {
        desc: &'static StructDesc,
        map: Map<String, Value>,
        unknown: Vec<Value>,
    },
    Array {
        field: &'static FieldDesc,
        items: Vec<Value>,
    },
}

/// A [`Visitor`] that builds the JSON of a message as its fields arrive. The stack holds the
/// struct or array each event belongs to; a field id is looked up in the descriptor of the
/// struct on top, reached from the message's descriptor through each struct field's
/// [`Kind::Struct`].
struct JsonBuilder {
    version: i16,
    stack: Vec<Frame>,
    /// The first inconsistency between the events and the schema tables.
    err: Option<String>,
}

impl JsonBuilder {
    fn new(desc: &'static StructDesc, version: i16) -> Self {
        JsonBuilder {
            version,
            stack: vec![Frame::Struct {
                desc,
                map: Map::new(),
                unknown: Vec::new(),
            }],
            err: None,
        }
    }

    fn fail(&mut self, what: String) {
        if self.err.is_none() {
            self.err = Some(what);
        }
    }

    /// The field `id` of the struct on top, or of the array on top.
    fn field(&mut self, id: FieldId) -> Option<&'static FieldDesc> {
        let found = match self.stack.last() {
            Some(Frame::Struct { desc, .. }) => desc.fields.iter().find(|f| f.id == id),
            Some(Frame::Array { field, .. }) => Some(*field).filter(|f| f.id == id),
            None => None,
        };
        if found.is_none() {
            self.fail(format!(
                "the visitor reported field id {id}, which the schema does not have there"
            ));
        }
        found
    }

    /// A finished value of field `id` (an element, when an array is on top).
    fn put(&mut self, id: FieldId, val: Value) {
        let Some(f) = self.field(id) else { return };
        let v = self.version;
        match self.stack.last_mut() {
            Some(Frame::Array { items, .. }) => items.push(val),
            // A tagged field at its default is left out.
            Some(Frame::Struct { map, .. }) if !(f.tagged_at(v) && is_default(f, &val, v)) => {
                map.insert(f.json.to_string(), val);
            }
            Some(Frame::Struct { .. }) | None => {}
        }
    }

    fn object(map: Map<String, Value>, unknown: Vec<Value>) -> Value {
        let mut map = map;
        if !unknown.is_empty() {
            map.insert("_unknownTaggedFields".into(), Value::Array(unknown));
        }
        Value::Object(map)
    }

    fn finish(mut self) -> Result<Value, JsonError> {
        if let Some(e) = self.err {
            return Err(JsonError::Schema(e));
        }
        match (self.stack.pop(), self.stack.is_empty()) {
            (Some(Frame::Struct { map, unknown, .. }), true) => Ok(Self::object(map, unknown)),
            _ => Err(JsonError::Schema("the visitor left a struct or an array open".into())),
        }
    }
}

impl<'a> Visitor<'a> for JsonBuilder {
    fn bool(&mut self, f: FieldId, x: bool) {
        self.put(f, Value::Bool(x))
    }
    fn int(&mut self, f: FieldId, x: i64) {
        self.put(f, Value::from(x))
    }
    fn f64(&mut self, f: FieldId, x: f64) {
        self.put(f, float_json(x))
    }
    fn uuid(&mut self, f: FieldId, x: kafka_wire::Uuid) {
        self.put(f, Value::from(uuid_to_string(&x)))
    }
    fn str(&mut self, f: FieldId, x: Option<&'a str>) {
        self.put(f, x.map_or(Value::Null, Value::from))
    }
    fn bytes(&mut self, f: FieldId, x: Option<&'a [u8]>) {
        self.put(f, x.map_or(Value::Null, |b| Value::from(STANDARD.encode(b))))
    }
    fn records(&mut self, f: FieldId, x: Option<&'a [u8]>) {
        self.put(f, x.map_or(Value::Null, |b| Value::from(STANDARD.encode(b))))
    }
    fn begin_array(&mut self, f: FieldId, len: u32) {
        if let Some(field) = self.field(f) {
            self.stack.push(Frame::Array {
                field,
                items: Vec::with_capacity(len as usize),
            });
        }
    }
    fn end_array(&mut self, f: FieldId) {
        match self.stack.pop() {
            Some(Frame::Array { items, .. }) => self.put(f, Value::Array(items)),
            _ => self.fail(format!("the visitor ended array {f}, which is not open")),
        }
    }
    fn begin_struct(&mut self, f: FieldId) {
        match self.field(f).map(|field| field.kind) {
            Some(Kind::Struct(desc)) => self.stack.push(Frame::Struct {
                desc,
                map: Map::new(),
                unknown: Vec::new(),
            }),
            Some(_) => self.fail(format!("the visitor began a struct in field {f}, which holds none")),
            None => {}
        }
    }
    fn end_struct(&mut self, f: FieldId) {
        // The root struct stays: only the structs `begin_struct` pushed are closed.
        if self.stack.len() > 1 {
            if let Some(Frame::Struct { map, unknown, .. }) = self.stack.pop() {
                self.put(f, Self::object(map, unknown));
                return;
            }
        }
        self.fail(format!("the visitor ended struct {f}, which is not open"));
    }
    fn null(&mut self, f: FieldId) {
        self.put(f, Value::Null)
    }
    fn unknown_tag(&mut self, _: FieldId, tag: u32, data: &'a [u8]) {
        match self.stack.last_mut() {
            Some(Frame::Struct { unknown, .. }) => {
                let mut t = Map::new();
                t.insert("tag".into(), Value::from(tag));
                t.insert("data".into(), Value::from(STANDARD.encode(data)));
                unknown.push(Value::Object(t));
            }
            _ => self.fail("the visitor reported an unknown tag outside a struct".into()),
        }
    }
}

fn float_json(x: f64) -> Value {
    match Number::from_f64(x) {
        Some(n) => Value::Number(n),
        // JSON has no NaN or infinities; Jackson writes them as these strings.
        None if x.is_nan() => Value::from("NaN"),
        None if x > 0.0 => Value::from("Infinity"),
        None => Value::from("-Infinity"),
    }
}

/// The JSON form of a field's default, for comparisons.
fn default_json(f: &FieldDesc, v: i16) -> Value {
    if f.array {
        return match f.default {
            DefaultValue::Null => Value::Null,
            _ => Value::Array(vec![]),
        };
    }
    match (f.default, f.kind) {
        (DefaultValue::Null, _) => Value::Null,
        (DefaultValue::Int(i), _) => Value::from(i),
        (DefaultValue::Bool(b), _) => Value::Bool(b),
        (DefaultValue::Float(bits), _) => float_json(f64::from_bits(bits)),
        (DefaultValue::Str(s), _) => Value::from(s),
        (DefaultValue::Uuid(u), _) => Value::from(URL_SAFE_NO_PAD.encode(u.to_be_bytes())),
        (DefaultValue::Zero, Kind::Bool) => Value::Bool(false),
        (DefaultValue::Zero, k) if k.number().is_some_and(|n| n.float) => float_json(0.0),
        (DefaultValue::Zero, Kind::String | Kind::Bytes | Kind::Records) => Value::from(""),
        (DefaultValue::Zero, Kind::Uuid) => Value::from(URL_SAFE_NO_PAD.encode([0u8; 16])),
        (DefaultValue::Zero, Kind::Struct(d)) => default_struct_json(d, v),
        (DefaultValue::Zero, _) => Value::from(0),
    }
}

fn default_struct_json(d: &StructDesc, v: i16) -> Value {
    let mut m = Map::new();
    for f in d.fields {
        if f.in_version(v) && !f.tagged_at(v) {
            m.insert(f.json.to_string(), default_json(f, v));
        }
    }
    Value::Object(m)
}

fn is_default(f: &FieldDesc, val: &Value, v: i16) -> bool {
    let d = default_json(f, v);
    match (&d, val) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        _ => &d == val,
    }
}

fn jerr<T>(path: &str, what: impl Into<String>) -> Result<T, JsonError> {
    Err(JsonError::Json(path.to_string(), what.into()))
}

/// The value of struct `desc` at version `v` from its JSON; `path` names it in errors.
fn json_struct<'j>(desc: &StructDesc, json: &'j Value, v: i16, path: &str) -> Result<Struct<'j>, JsonError> {
    let Value::Object(obj) = json else {
        return jerr(path, format!("expected an object for {}", desc.name));
    };
    let mut s = Struct::new(desc);
    for (i, f) in desc.fields.iter().enumerate() {
        if !f.in_version(v) {
            continue;
        }
        let p = format!("{path}.{}", f.json);
        let val = match obj.get(f.json) {
            Some(val) => val,
            None if f.tagged_at(v) => continue,
            None => {
                return jerr(
                    &p,
                    format!("unable to locate field '{}', which is mandatory in version {v}", f.json),
                )
            }
        };
        s.set(i, json_field(f, val, v, &p)?);
    }
    if desc.flexible_at(v) {
        if let Some(u) = obj.get("_unknownTaggedFields") {
            let p = format!("{path}._unknownTaggedFields");
            let Value::Array(items) = u else {
                return jerr(&p, "expected an array");
            };
            for it in items {
                let tag = it
                    .get("tag")
                    .and_then(Value::as_u64)
                    .and_then(|t| u32::try_from(t).ok());
                let data = it
                    .get("data")
                    .and_then(Value::as_str)
                    .and_then(|d| STANDARD.decode(d).ok());
                match (tag, data) {
                    (Some(t), Some(d)) => s.unknown_tags.push((t, Cow::Owned(d))),
                    _ => return jerr(&p, "expected {\"tag\": integer, \"data\": base64}"),
                }
            }
        }
    }
    Ok(s)
}

fn json_field<'j>(f: &FieldDesc, val: &'j Value, v: i16, p: &str) -> Result<dynamic::Value<'j>, JsonError> {
    let nullable = f.nullable_at(v);
    if !f.array {
        return json_one(f.kind, val, v, nullable, p);
    }
    match val {
        Value::Null if nullable => Ok(dynamic::Value::Null),
        Value::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, it) in items.iter().enumerate() {
                out.push(json_one(f.kind, it, v, false, &format!("{p}[{i}]"))?);
            }
            Ok(dynamic::Value::Array(out))
        }
        _ => jerr(p, "expected an array"),
    }
}

fn int(val: &Value, p: &str, lo: i64, hi: i64) -> Result<dynamic::Value<'static>, JsonError> {
    match val.as_i64() {
        Some(i) if (lo..=hi).contains(&i) => Ok(dynamic::Value::Int(i)),
        _ => jerr(p, format!("expected an integer from {lo} to {hi}")),
    }
}

fn json_one<'j>(kind: Kind, val: &'j Value, v: i16, nullable: bool, p: &str) -> Result<dynamic::Value<'j>, JsonError> {
    use dynamic::Value as D;
    if val.is_null() && nullable {
        return match kind {
            Kind::String | Kind::Bytes | Kind::Records | Kind::Struct(_) => Ok(D::Null),
            _ => jerr(p, "null is not allowed here"),
        };
    }
    if let Some(n) = kind.number() {
        if !n.float {
            return int(val, p, n.min, n.max);
        }
        return Ok(D::Float(match val {
            Value::Number(n) => n.as_f64().unwrap_or(0.0),
            Value::String(s) if s == "NaN" => f64::NAN,
            Value::String(s) if s == "Infinity" => f64::INFINITY,
            Value::String(s) if s == "-Infinity" => f64::NEG_INFINITY,
            _ => return jerr(p, "expected a number"),
        }));
    }
    Ok(match kind {
        Kind::Bool => match val.as_bool() {
            Some(b) => D::Bool(b),
            None => return jerr(p, "expected a boolean"),
        },
        Kind::Uuid => {
            let bytes = val
                .as_str()
                .and_then(|s| URL_SAFE_NO_PAD.decode(s).ok())
                .and_then(|b| <[u8; 16]>::try_from(b).ok());
            match bytes {
                Some(b) => D::Uuid(kafka_wire::Uuid::from_bytes(b)),
                None => return jerr(p, "expected a UUID in Kafka's base64 form"),
            }
        }
        Kind::String => match val.as_str() {
            Some(s) if s.len() > 0x7fff => return jerr(p, "string longer than 32767 bytes"),
            Some(s) => D::Str(Cow::Borrowed(s)),
            None => return jerr(p, "expected a string"),
        },
        Kind::Bytes | Kind::Records => match val.as_str().and_then(|s| STANDARD.decode(s).ok()) {
            Some(b) => D::Bytes(Cow::Owned(b)),
            None => return jerr(p, "expected base64 bytes"),
        },
        Kind::Struct(d) => D::Struct(json_struct(d, val, v, p)?),
        // The numbers, returned above.
        _ => return jerr(p, "expected a number"),
    })
}
