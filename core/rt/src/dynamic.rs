//! The runtime half of `kafka_wire::dynamic` (documented there).

use alloc::borrow::Cow;
use alloc::vec::Vec;

use crate::codec::{checked_len, MessageInfo};
use crate::compound::write::unknown_between;
use crate::error::{EncodeError, EncodeErrorKind as K};
use crate::reflect::{DefaultValue, FieldDesc, Kind, StructDesc};
use crate::types::RawTaggedField;
use crate::write::{len_size, null_not_allowed, raw_tag_size, str_size, tagged_size, too_long, uvarint_size, Writer};

/// A field's value (an array element's, for arrays).
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    /// Null: a nullable string, bytes, records, array or struct.
    Null,
    /// `bool`.
    Bool(bool),
    /// Any integer kind; it must fit the field's kind.
    Int(i64),
    /// `float64`.
    Float(f64),
    /// `uuid`.
    Uuid(uuid::Uuid),
    /// `string`.
    Str(Cow<'a, str>),
    /// `bytes` or `records`.
    Bytes(Cow<'a, [u8]>),
    /// An array, of the field's kind.
    Array(Vec<Value<'a>>),
    /// A struct.
    Struct(Struct<'a>),
}

/// The value of a struct: a slot per field of its schema, and its unknown tagged fields.
#[derive(Clone, Debug, PartialEq)]
pub struct Struct<'a> {
    /// One slot per field of the struct's [`StructDesc::fields`], in that order; `None` is the
    /// field's default.
    pub fields: Vec<Option<Value<'a>>>,
    /// Unknown tagged fields: tag and payload, in any order (they are written sorted).
    pub unknown_tags: Vec<(u32, Cow<'a, [u8]>)>,
}

impl<'a> Struct<'a> {
    /// The struct `desc` with every field at its default.
    pub fn new(desc: &StructDesc) -> Self {
        Struct {
            fields: alloc::vec![None; desc.fields.len()],
            unknown_tags: Vec::new(),
        }
    }

    /// Sets the field at index `i` of the schema's fields (ignored when out of range).
    pub fn set(&mut self, i: usize, v: Value<'a>) {
        if let Some(slot) = self.fields.get_mut(i) {
            *slot = Some(v);
        }
    }
}

/// Encodes `s`, a value of the message whose facts are `info` and whose schema is `desc`, at
/// `version`. The errors are the generated encoders', plus [`WrongType`](crate::EncodeErrorKind::WrongType) for a value that
/// does not fit its field.
pub fn to_vec(info: &MessageInfo, desc: &StructDesc, s: &Struct<'_>, version: i16) -> Result<Vec<u8>, EncodeError> {
    let n = checked_len(info, version, || {
        let mut c = Count(0);
        emit_struct(&mut c, desc, s, version)?;
        Ok(c.0)
    })?;
    let mut buf = alloc::vec![0u8; n];
    let mut w = Writer::new(&mut buf);
    // The size pass has found every error of the value; the writer records its own.
    if let Err(e) = emit_struct(&mut w, desc, s, version) {
        return Err(e.finish(info.name, version));
    }
    w.finish().map_err(|e| e.finish(info.name, version))?;
    Ok(buf)
}

/// Encodes `s` as the struct `desc` at `version`, without the message-level version check:
/// for values made to fit their schema at that version.
#[cfg(feature = "arbitrary")]
pub fn struct_to_vec(desc: &StructDesc, s: &Struct<'_>, version: i16) -> Result<Vec<u8>, EncodeError> {
    let mut c = Count(0);
    emit_struct(&mut c, desc, s, version)?;
    let mut buf = alloc::vec![0u8; c.0];
    let mut w = Writer::new(&mut buf);
    emit_struct(&mut w, desc, s, version)?;
    w.finish()?;
    Ok(buf)
}

/// What a traversal writes to: a byte counter (the size pass) or a [`Writer`].
trait Out {
    fn fixed(&mut self, bytes: &[u8], f: &'static str);
    fn uvarint(&mut self, v: u32, f: &'static str);
    fn len_prefix(&mut self, len: usize, compact: bool, f: &'static str) -> Result<(), EncodeError>;
    fn str(&mut self, s: &str, compact: bool, f: &'static str) -> Result<(), EncodeError>;
    fn raw(&mut self, b: &[u8], f: &'static str);
    fn tag_header(&mut self, tag: u32, size: usize, f: &'static str);
}

/// The size pass.
struct Count(usize);

impl Out for Count {
    fn fixed(&mut self, bytes: &[u8], _: &'static str) {
        self.0 += bytes.len();
    }
    fn uvarint(&mut self, v: u32, _: &'static str) {
        self.0 += uvarint_size(v);
    }
    fn len_prefix(&mut self, len: usize, compact: bool, f: &'static str) -> Result<(), EncodeError> {
        if len > i32::MAX as usize - 1 {
            return Err(too_long(len, f));
        }
        self.0 += len_size(len, compact);
        Ok(())
    }
    fn str(&mut self, s: &str, compact: bool, f: &'static str) -> Result<(), EncodeError> {
        self.0 += str_size(s, compact, f)?;
        Ok(())
    }
    fn raw(&mut self, b: &[u8], _: &'static str) {
        self.0 += b.len();
    }
    fn tag_header(&mut self, tag: u32, size: usize, _: &'static str) {
        self.0 += tagged_size(tag, size) - size;
    }
}

impl Out for Writer<'_> {
    fn fixed(&mut self, bytes: &[u8], f: &'static str) {
        self.put(bytes, f)
    }
    fn uvarint(&mut self, v: u32, f: &'static str) {
        Writer::uvarint(self, v, f)
    }
    fn len_prefix(&mut self, len: usize, compact: bool, f: &'static str) -> Result<(), EncodeError> {
        Writer::len_prefix(self, len, compact, f);
        Ok(())
    }
    fn str(&mut self, s: &str, compact: bool, f: &'static str) -> Result<(), EncodeError> {
        Writer::str(self, s, compact, f);
        Ok(())
    }
    fn raw(&mut self, b: &[u8], f: &'static str) {
        self.put(b, f)
    }
    fn tag_header(&mut self, tag: u32, size: usize, f: &'static str) {
        Writer::tag_header(self, tag, size, f)
    }
}

fn wrong_type(f: &'static str) -> EncodeError {
    EncodeError::new(K::WrongType, f)
}

fn emit_struct<O: Out>(o: &mut O, desc: &StructDesc, s: &Struct<'_>, v: i16) -> Result<(), EncodeError> {
    if s.fields.len() != desc.fields.len() {
        return Err(wrong_type(desc.name));
    }
    for (f, slot) in desc.fields.iter().zip(&s.fields) {
        if !f.in_version(v) {
            if let Some(x) = slot {
                if !f.ignorable && !is_default(f, x) {
                    return Err(EncodeError::new(K::FieldNotInVersion, f.name));
                }
            }
            continue;
        }
        if f.tagged_at(v) {
            continue;
        }
        match slot {
            Some(x) => emit_field(o, f, x, v, f.compact_at(v), false)?,
            None => emit_field(o, f, &default_value(f), v, f.compact_at(v), false)?,
        }
    }
    if !desc.flexible_at(v) {
        if !s.unknown_tags.is_empty() {
            return Err(EncodeError::new(K::TaggedFieldsNotInVersion, "_tagged_fields"));
        }
        return Ok(());
    }
    // Known tagged fields in ascending tag order, each with the unknown ones that go after it
    // (`unknown_between`, the rule the generated encoders follow).
    let mut known: Vec<(&FieldDesc, &Value<'_>)> = desc
        .fields
        .iter()
        .zip(&s.fields)
        .filter_map(|(f, slot)| match slot {
            Some(x) if f.tagged_at(v) && !is_default(f, x) => Some((f, x)),
            _ => None,
        })
        .collect();
    known.sort_by_key(|(f, _)| f.tag);
    let n = known.len() + s.unknown_tags.len();
    let count = i32::try_from(n).map_err(|_| too_long(n, "_tagged_fields"))?;
    o.uvarint(count.cast_unsigned(), "_tagged_fields");
    let unknown = || {
        s.unknown_tags
            .iter()
            .map(|(tag, data)| RawTaggedField { tag: *tag, data })
    };
    let mut lo = 0u32;
    for (f, x) in known {
        if f.tag > lo {
            raw_tags(o, unknown_between(unknown(), lo, f.tag - 1))?;
        }
        lo = f.tag;
        let mut c = Count(0);
        emit_field(&mut c, f, x, v, true, true)?;
        o.tag_header(f.tag, c.0, f.name);
        emit_field(o, f, x, v, true, true)?;
    }
    raw_tags(o, unknown_between(unknown(), lo, u32::MAX))
}

fn raw_tags<'t, O: Out>(o: &mut O, tags: impl Iterator<Item = RawTaggedField<'t>>) -> Result<(), EncodeError> {
    for r in tags {
        raw_tag_size(r.tag, r.data.len())?;
        o.tag_header(r.tag, r.data.len(), "_tagged_fields");
        o.raw(r.data, "_tagged_fields");
    }
    Ok(())
}

fn emit_field<O: Out>(
    o: &mut O,
    f: &FieldDesc,
    x: &Value<'_>,
    v: i16,
    compact: bool,
    tagged: bool,
) -> Result<(), EncodeError> {
    let nullable = f.nullable_at(v);
    if !f.array {
        return emit_one(o, f.kind, x, v, compact, nullable, tagged, f.name);
    }
    match x {
        Value::Null => null_len(o, compact, nullable, f.name),
        Value::Array(items) => {
            o.len_prefix(items.len(), compact, f.name)?;
            for it in items {
                emit_one(o, f.kind, it, v, compact, false, false, f.name)?;
            }
            Ok(())
        }
        _ => Err(wrong_type(f.name)),
    }
}

fn null_len<O: Out>(o: &mut O, compact: bool, nullable: bool, f: &'static str) -> Result<(), EncodeError> {
    if !nullable {
        return Err(null_not_allowed(f));
    }
    if compact {
        o.uvarint(0, f)
    } else {
        o.fixed(&(-1i32).to_be_bytes(), f)
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn emit_one<O: Out>(
    o: &mut O,
    kind: Kind,
    x: &Value<'_>,
    v: i16,
    compact: bool,
    nullable: bool,
    tagged: bool,
    f: &'static str,
) -> Result<(), EncodeError> {
    if let Some(n) = kind.number() {
        // An integer in the type's range, or a float for `float64`.
        let (b, at) = match x {
            Value::Float(d) if n.float => (d.to_be_bytes(), 0),
            Value::Int(i) => n.int_bytes(*i).ok_or_else(|| wrong_type(f))?,
            _ => return Err(wrong_type(f)),
        };
        o.fixed(b.get(at..).unwrap_or_default(), f);
        return Ok(());
    }
    match (kind, x) {
        (Kind::String, Value::Null) => {
            if !nullable {
                return Err(null_not_allowed(f));
            }
            if compact {
                o.uvarint(0, f)
            } else {
                o.fixed(&(-1i16).to_be_bytes(), f)
            }
        }
        (Kind::Bytes | Kind::Records, Value::Null) => null_len(o, compact, nullable, f)?,
        (Kind::Struct(_), Value::Null) => {
            if !nullable {
                return Err(null_not_allowed(f));
            }
            // An unsigned varint marker inside a tagged field, an int8 otherwise.
            if tagged {
                o.uvarint(0, f)
            } else {
                o.fixed(&[0xff], f)
            }
        }
        (Kind::Bool, Value::Bool(b)) => o.fixed(&[u8::from(*b)], f),
        (Kind::Uuid, Value::Uuid(u)) => o.fixed(u.as_bytes(), f),
        (Kind::String, Value::Str(s)) => o.str(s, compact, f)?,
        (Kind::Bytes | Kind::Records, Value::Bytes(b)) => {
            o.len_prefix(b.len(), compact, f)?;
            o.raw(b, f)
        }
        (Kind::Struct(d), Value::Struct(s)) => {
            if nullable {
                if tagged {
                    o.uvarint(1, f)
                } else {
                    o.fixed(&[1], f)
                }
            }
            emit_struct(o, d, s, v)?
        }
        _ => return Err(wrong_type(f)),
    }
    Ok(())
}

/// The default of field `f`, as a value.
fn default_value(f: &FieldDesc) -> Value<'static> {
    if f.array {
        return match f.default {
            DefaultValue::Null => Value::Null,
            _ => Value::Array(Vec::new()),
        };
    }
    match (f.default, f.kind) {
        (DefaultValue::Null, _) => Value::Null,
        (DefaultValue::Int(i), _) => Value::Int(i),
        (DefaultValue::Bool(b), _) => Value::Bool(b),
        (DefaultValue::Float(bits), _) => Value::Float(f64::from_bits(bits)),
        (DefaultValue::Str(s), _) => Value::Str(Cow::Borrowed(s)),
        (DefaultValue::Uuid(u), _) => Value::Uuid(uuid::Uuid::from_u128(u)),
        (DefaultValue::Zero, Kind::Bool) => Value::Bool(false),
        (DefaultValue::Zero, k) if k.number().is_some_and(|n| n.float) => Value::Float(0.0),
        (DefaultValue::Zero, Kind::String) => Value::Str(Cow::Borrowed("")),
        (DefaultValue::Zero, Kind::Bytes | Kind::Records) => Value::Bytes(Cow::Borrowed(&[])),
        (DefaultValue::Zero, Kind::Uuid) => Value::Uuid(uuid::Uuid::nil()),
        (DefaultValue::Zero, Kind::Struct(d)) => Value::Struct(Struct::new(d)),
        (DefaultValue::Zero, _) => Value::Int(0),
    }
}

/// True when `x` is field `f`'s default, as the generated encoders decide it (floats by their
/// bits, structs field by field and without unknown tagged fields).
fn is_default(f: &FieldDesc, x: &Value<'_>) -> bool {
    match (f.kind, x) {
        (Kind::Struct(d), Value::Struct(s)) if !f.array && f.default != DefaultValue::Null => {
            s.unknown_tags.is_empty()
                && s.fields.len() == d.fields.len()
                && d.fields
                    .iter()
                    .zip(&s.fields)
                    .all(|(g, slot)| slot.as_ref().is_none_or(|y| is_default(g, y)))
        }
        (_, Value::Float(b)) => matches!(default_value(f), Value::Float(a) if a.to_bits() == b.to_bits()),
        _ => default_value(f) == *x,
    }
}
