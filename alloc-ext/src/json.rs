//! JSON in the shape of Kafka's generated `JsonConverter`s, for every message, from views and
//! owned values, and back into owned values.
//!
//! One walker serves every message: it interprets the wire bytes with the message's field-level
//! schema (`kafka_wire::reflect`), which the generator emits beside the code. The shape follows
//! Kafka's converters: camelCase field names; a field is present when the version has it; tagged
//! fields only when they differ from their default; 64-bit integers as JSON numbers; UUIDs in
//! Kafka's URL-safe base64; bytes in standard base64; null as `null`.
//!
//! Two additions keep the round trip lossless, where Kafka's converters drop data: `records`
//! fields carry their bytes in base64 (Kafka writes an empty string), and unknown tagged fields
//! appear as `"_unknownTaggedFields": [{"tag": N, "data": "<base64>"}]`.

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine as _;
use kafka_wire::reflect::{DefaultValue, FieldDesc, Kind, StructDesc};
use kafka_wire::{Message, OwnedMessage};
use serde_json::{Map, Number, Value};

/// Why a conversion failed.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonError {
    /// The bytes did not follow the schema (offset, what).
    Wire(usize, String),
    /// The JSON did not fit the schema (field path, what).
    Json(String, String),
    /// The typed codec rejected the result.
    Decode(kafka_wire::DecodeError),
    /// The typed codec could not encode the value.
    Encode(kafka_wire::EncodeError),
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JsonError::Wire(at, what) => write!(f, "{what} at byte {at}"),
            JsonError::Json(path, what) => write!(f, "{what} at {path}"),
            JsonError::Decode(e) => e.fmt(f),
            JsonError::Encode(e) => e.fmt(f),
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
    wire_to_json(M::SCHEMA, &bytes, version)
}

/// The JSON of an owned value at `version`.
pub fn owned_to_json<M: OwnedMessage>(m: &M, version: i16) -> Result<Value, JsonError> {
    let bytes = m.to_vec(version)?;
    wire_to_json(<M::View<'static> as Message<'static>>::SCHEMA, &bytes, version)
}

/// An owned value from its JSON at `version`.
pub fn from_json<M: OwnedMessage>(json: &Value, version: i16) -> Result<M, JsonError> {
    let bytes = json_to_wire(<M::View<'static> as Message<'static>>::SCHEMA, json, version)?;
    Ok(M::parse(&bytes, version)?)
}

/// The JSON of encoded bytes of the struct `desc` at `version`; the bytes must be exactly one
/// struct.
pub fn wire_to_json(desc: &StructDesc, bytes: &[u8], version: i16) -> Result<Value, JsonError> {
    let mut r = Reader { bytes, pos: 0 };
    let v = r.read_struct(desc, version)?;
    if r.pos != bytes.len() {
        return Err(JsonError::Wire(
            r.pos,
            format!("{} trailing byte(s)", bytes.len() - r.pos),
        ));
    }
    Ok(v)
}

/// The encoded bytes of the struct `desc` at `version`, from its JSON.
pub fn json_to_wire(desc: &StructDesc, json: &Value, version: i16) -> Result<Vec<u8>, JsonError> {
    let mut out = Vec::new();
    write_struct(desc, json, version, &mut out, desc.name)?;
    Ok(out)
}

/// Kafka's text form of a UUID.
pub fn uuid_to_string(u: &kafka_wire::Uuid) -> String {
    URL_SAFE_NO_PAD.encode(u.as_bytes())
}

struct Reader<'b> {
    bytes: &'b [u8],
    pos: usize,
}

impl<'b> Reader<'b> {
    fn err<T>(&self, what: &str) -> Result<T, JsonError> {
        Err(JsonError::Wire(self.pos, what.to_string()))
    }
    fn take(&mut self, n: usize) -> Result<&'b [u8], JsonError> {
        match self.bytes.get(self.pos..self.pos.saturating_add(n)) {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => self.err("input ended"),
        }
    }
    fn arr<const N: usize>(&mut self) -> Result<[u8; N], JsonError> {
        let s = self.take(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }
    fn uvarint(&mut self) -> Result<u32, JsonError> {
        let mut v: u32 = 0;
        for i in 0..5 {
            let b = self.arr::<1>()?[0];
            v |= u32::from(b & 0x7f).wrapping_shl(7 * i);
            if b < 0x80 {
                return Ok(v);
            }
        }
        self.err("invalid varint")
    }
    /// A length: classic (`short` for strings) or compact; negative is null.
    fn len(&mut self, compact: bool, short: bool) -> Result<i64, JsonError> {
        Ok(if compact {
            i64::from((self.uvarint()? as i32).wrapping_sub(1))
        } else if short {
            i64::from(i16::from_be_bytes(self.arr()?))
        } else {
            i64::from(i32::from_be_bytes(self.arr()?))
        })
    }

    fn read_struct(&mut self, desc: &StructDesc, v: i16) -> Result<Value, JsonError> {
        let mut map = Map::new();
        for f in desc.fields {
            if f.in_version(v) && !f.tagged_at(v) {
                let val = self.read_field(f, v, f.compact_at(v), f.nullable_at(v), false)?;
                map.insert(f.json.to_string(), val);
            }
        }
        if desc.flexible_at(v) {
            let n = self.uvarint()?;
            if n > 10_000 {
                return self.err("more than 10000 tagged fields");
            }
            let mut unknown = Vec::new();
            for _ in 0..n {
                let tag = self.uvarint()?;
                let size = self.uvarint()? as usize;
                let start = self.pos;
                match desc.fields.iter().find(|f| f.tagged_at(v) && f.tag == tag) {
                    Some(f) => {
                        let val = self.read_field(f, v, true, f.nullable_at(v), true)?;
                        if self.pos - start != size {
                            return self.err("tagged field size mismatch");
                        }
                        if !is_default(f, &val, v) {
                            map.insert(f.json.to_string(), val);
                        }
                    }
                    None => {
                        let data = self.take(size)?;
                        let mut t = Map::new();
                        t.insert("tag".into(), Value::from(tag));
                        t.insert("data".into(), Value::from(STANDARD.encode(data)));
                        unknown.push(Value::Object(t));
                    }
                }
            }
            if !unknown.is_empty() {
                map.insert("_unknownTaggedFields".into(), Value::Array(unknown));
            }
        }
        Ok(Value::Object(map))
    }

    fn read_field(
        &mut self,
        f: &FieldDesc,
        v: i16,
        compact: bool,
        nullable: bool,
        tagged: bool,
    ) -> Result<Value, JsonError> {
        if f.array {
            let n = self.len(compact, false)?;
            if n < 0 {
                return if nullable {
                    Ok(Value::Null)
                } else {
                    self.err("null array")
                };
            }
            if n as usize > self.bytes.len() - self.pos {
                return self.err("array count exceeds the input");
            }
            if n > 1_000_000 {
                return self.err("array of more than 1000000 elements");
            }
            let mut items = Vec::with_capacity(n as usize);
            for _ in 0..n {
                items.push(self.read_one(f.kind, v, compact, false, false)?);
            }
            return Ok(Value::Array(items));
        }
        self.read_one(f.kind, v, compact, nullable, tagged)
    }

    fn read_one(
        &mut self,
        kind: Kind,
        v: i16,
        compact: bool,
        nullable: bool,
        tagged: bool,
    ) -> Result<Value, JsonError> {
        Ok(match kind {
            Kind::Bool => Value::Bool(self.arr::<1>()?[0] != 0),
            Kind::Int8 => Value::from(i8::from_be_bytes(self.arr()?)),
            Kind::Int16 => Value::from(i16::from_be_bytes(self.arr()?)),
            Kind::Uint16 => Value::from(u16::from_be_bytes(self.arr()?)),
            Kind::Int32 => Value::from(i32::from_be_bytes(self.arr()?)),
            Kind::Uint32 => Value::from(u32::from_be_bytes(self.arr()?)),
            Kind::Int64 => Value::from(i64::from_be_bytes(self.arr()?)),
            Kind::Float64 => float_json(f64::from_be_bytes(self.arr()?)),
            Kind::Uuid => Value::from(URL_SAFE_NO_PAD.encode(self.arr::<16>()?)),
            Kind::String => {
                let n = self.len(compact, true)?;
                if n < 0 {
                    return if nullable {
                        Ok(Value::Null)
                    } else {
                        self.err("null string")
                    };
                }
                let s = self.take(n as usize)?;
                match std::str::from_utf8(s) {
                    Ok(s) => Value::from(s),
                    Err(_) => return self.err("invalid UTF-8"),
                }
            }
            Kind::Bytes | Kind::Records => {
                let n = self.len(compact, false)?;
                if n < 0 {
                    return if nullable {
                        Ok(Value::Null)
                    } else {
                        self.err("null bytes")
                    };
                }
                Value::from(STANDARD.encode(self.take(n as usize)?))
            }
            Kind::Struct(d) => {
                // The null marker: int8 (negative is null) untagged, an unsigned varint (not
                // above zero is null) inside a tagged field.
                if nullable {
                    let null = if tagged {
                        (self.uvarint()? as i32) <= 0
                    } else {
                        (self.arr::<1>()?[0] as i8) < 0
                    };
                    if null {
                        return Ok(Value::Null);
                    }
                }
                self.read_struct(d, v)?
            }
        })
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
        (DefaultValue::Zero, Kind::Float64) => float_json(0.0),
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

fn put_uvarint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_len(out: &mut Vec<u8>, n: Option<usize>, compact: bool, short: bool) {
    match (n, compact) {
        (Some(n), true) => put_uvarint(out, n as u32 + 1),
        (None, true) => out.push(0),
        (Some(n), false) if short => out.extend_from_slice(&(n as i16).to_be_bytes()),
        (None, false) if short => out.extend_from_slice(&(-1i16).to_be_bytes()),
        (Some(n), false) => out.extend_from_slice(&(n as i32).to_be_bytes()),
        (None, false) => out.extend_from_slice(&(-1i32).to_be_bytes()),
    }
}

fn write_struct(desc: &StructDesc, json: &Value, v: i16, out: &mut Vec<u8>, path: &str) -> Result<(), JsonError> {
    let Value::Object(obj) = json else {
        return jerr(path, format!("expected an object for {}", desc.name));
    };
    for f in desc.fields {
        if f.in_version(v) && !f.tagged_at(v) {
            let p = format!("{path}.{}", f.json);
            let Some(val) = obj.get(f.json) else {
                return jerr(
                    &p,
                    format!("unable to locate field '{}', which is mandatory in version {v}", f.json),
                );
            };
            write_field(f, val, v, f.compact_at(v), f.nullable_at(v), false, out, &p)?;
        }
    }
    if desc.flexible_at(v) {
        let mut tags: Vec<(u32, Vec<u8>)> = Vec::new();
        for f in desc.fields {
            if f.tagged_at(v) {
                if let Some(val) = obj.get(f.json) {
                    let mut b = Vec::new();
                    write_field(
                        f,
                        val,
                        v,
                        true,
                        f.nullable_at(v),
                        true,
                        &mut b,
                        &format!("{path}.{}", f.json),
                    )?;
                    tags.push((f.tag, b));
                }
            }
        }
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
                    (Some(t), Some(d)) => tags.push((t, d)),
                    _ => return jerr(&p, "expected {\"tag\": integer, \"data\": base64}"),
                }
            }
        }
        tags.sort_by_key(|(t, _)| *t);
        put_uvarint(out, tags.len() as u32);
        for (t, b) in tags {
            put_uvarint(out, t);
            put_uvarint(out, b.len() as u32);
            out.extend_from_slice(&b);
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn write_field(
    f: &FieldDesc,
    val: &Value,
    v: i16,
    compact: bool,
    nullable: bool,
    tagged: bool,
    out: &mut Vec<u8>,
    p: &str,
) -> Result<(), JsonError> {
    if f.array {
        return match val {
            Value::Null if nullable => {
                put_len(out, None, compact, false);
                Ok(())
            }
            Value::Array(items) => {
                put_len(out, Some(items.len()), compact, false);
                for (i, it) in items.iter().enumerate() {
                    write_one(f.kind, it, v, compact, false, false, out, &format!("{p}[{i}]"))?;
                }
                Ok(())
            }
            _ => jerr(p, "expected an array"),
        };
    }
    write_one(f.kind, val, v, compact, nullable, tagged, out, p)
}

fn int(val: &Value, p: &str, lo: i64, hi: i64) -> Result<i64, JsonError> {
    match val.as_i64() {
        Some(i) if (lo..=hi).contains(&i) => Ok(i),
        _ => jerr(p, format!("expected an integer from {lo} to {hi}")),
    }
}

#[allow(clippy::too_many_arguments)]
fn write_one(
    kind: Kind,
    val: &Value,
    v: i16,
    compact: bool,
    nullable: bool,
    tagged: bool,
    out: &mut Vec<u8>,
    p: &str,
) -> Result<(), JsonError> {
    if val.is_null() && nullable {
        match kind {
            Kind::String => put_len(out, None, compact, true),
            Kind::Bytes | Kind::Records => put_len(out, None, compact, false),
            Kind::Struct(_) => out.push(if tagged { 0 } else { 0xff }),
            _ => return jerr(p, "null is not allowed here"),
        }
        return Ok(());
    }
    match kind {
        Kind::Bool => match val.as_bool() {
            Some(b) => out.push(u8::from(b)),
            None => return jerr(p, "expected a boolean"),
        },
        Kind::Int8 => out.push(int(val, p, i8::MIN.into(), i8::MAX.into())? as i8 as u8),
        Kind::Int16 => out.extend_from_slice(&(int(val, p, i16::MIN.into(), i16::MAX.into())? as i16).to_be_bytes()),
        Kind::Uint16 => out.extend_from_slice(&(int(val, p, 0, u16::MAX.into())? as u16).to_be_bytes()),
        Kind::Int32 => out.extend_from_slice(&(int(val, p, i32::MIN.into(), i32::MAX.into())? as i32).to_be_bytes()),
        Kind::Uint32 => out.extend_from_slice(&(int(val, p, 0, u32::MAX.into())? as u32).to_be_bytes()),
        Kind::Int64 => out.extend_from_slice(&int(val, p, i64::MIN, i64::MAX)?.to_be_bytes()),
        Kind::Float64 => {
            let x = match val {
                Value::Number(n) => n.as_f64().unwrap_or(0.0),
                Value::String(s) if s == "NaN" => f64::NAN,
                Value::String(s) if s == "Infinity" => f64::INFINITY,
                Value::String(s) if s == "-Infinity" => f64::NEG_INFINITY,
                _ => return jerr(p, "expected a number"),
            };
            out.extend_from_slice(&x.to_be_bytes());
        }
        Kind::Uuid => {
            let bytes = val
                .as_str()
                .and_then(|s| URL_SAFE_NO_PAD.decode(s).ok())
                .filter(|b| b.len() == 16);
            match bytes {
                Some(b) => out.extend_from_slice(&b),
                None => return jerr(p, "expected a UUID in Kafka's base64 form"),
            }
        }
        Kind::String => match val.as_str() {
            Some(s) => {
                if s.len() > 0x7fff {
                    return jerr(p, "string longer than 32767 bytes");
                }
                put_len(out, Some(s.len()), compact, true);
                out.extend_from_slice(s.as_bytes());
            }
            None => return jerr(p, "expected a string"),
        },
        Kind::Bytes | Kind::Records => match val.as_str().and_then(|s| STANDARD.decode(s).ok()) {
            Some(b) => {
                put_len(out, Some(b.len()), compact, false);
                out.extend_from_slice(&b);
            }
            None => return jerr(p, "expected base64 bytes"),
        },
        Kind::Struct(d) => {
            if nullable {
                out.push(1);
            }
            write_struct(d, val, v, out, p)?;
        }
    }
    Ok(())
}
