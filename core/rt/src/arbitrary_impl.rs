//! Random owned values valid at a given version (feature `arbitrary`), for structured fuzzing
//! and property tests.
//!
//! Values are made as a random [`dynamic`](crate::dynamic) tree laid out by the message's
//! field-level schema ([`crate::reflect`]) at that version, encoded by the codec and parsed: fields
//! the version lacks keep their defaults, nulls appear only where the version allows them, and
//! every value encodes at that version.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use arbitrary::{Result, Unstructured};

use crate::dynamic::{self, Struct, Value};
use crate::owned::OwnedMessage;
use crate::reflect::{FieldDesc, Kind, StructDesc};
use crate::Message;

/// Owned messages that can be generated at a version.
pub trait ArbitraryAt: OwnedMessage {
    /// A random value valid at `version` (which must be one of the message's versions).
    fn arbitrary_at(u: &mut Unstructured<'_>, version: i16) -> Result<Self> {
        let desc = <Self::View<'static> as Message<'static>>::SCHEMA;
        let bytes = arbitrary_bytes(desc, version, u)?;
        Self::parse(&bytes, version).map_err(|_| arbitrary::Error::IncorrectFormat)
    }
}

impl<T: OwnedMessage> ArbitraryAt for T {}

/// Arrays below this depth (each struct and each array element is a level) are empty; the
/// deepest struct that several fields share is reached at depth 8.
const MAX_DEPTH: u32 = 8;

/// Random well-formed bytes of the struct `desc` at `version`.
pub fn arbitrary_bytes(desc: &StructDesc, version: i16, u: &mut Unstructured<'_>) -> Result<Vec<u8>> {
    let s = arbitrary_struct(desc, version, u, 0)?;
    dynamic::struct_to_vec(desc, &s, version).map_err(|_| arbitrary::Error::IncorrectFormat)
}

fn arbitrary_struct<'u>(desc: &StructDesc, v: i16, u: &mut Unstructured<'u>, depth: u32) -> Result<Struct<'u>> {
    let mut s = Struct::new(desc);
    for (slot, f) in s.fields.iter_mut().zip(desc.fields) {
        // A tagged field is sent or not; a regular one always is.
        if f.in_version(v) && (!f.tagged_at(v) || u.arbitrary::<bool>()?) {
            *slot = Some(arbitrary_field(f, v, u, depth)?);
        }
    }
    if desc.flexible_at(v) && u.ratio(1, 8)? {
        // An unknown tagged field, above every tag the schemas use.
        let tag = u.int_in_range(64..=1000)?;
        let data: &[u8] = u.arbitrary()?;
        s.unknown_tags
            .push((tag, Cow::Borrowed(data.get(..data.len().min(16)).unwrap_or(&[]))));
    }
    Ok(s)
}

fn arbitrary_field<'u>(f: &FieldDesc, v: i16, u: &mut Unstructured<'u>, depth: u32) -> Result<Value<'u>> {
    if !f.array {
        return arbitrary_one(f.kind, v, u, f.nullable_at(v), depth);
    }
    if f.nullable_at(v) && u.ratio(1, 6)? {
        return Ok(Value::Null);
    }
    let n = if depth > MAX_DEPTH {
        0
    } else {
        u.int_in_range(0..=3usize)?
    };
    let mut items = Vec::with_capacity(n);
    for _ in 0..n {
        items.push(arbitrary_one(f.kind, v, u, false, depth + 1)?);
    }
    Ok(Value::Array(items))
}

fn arbitrary_one<'u>(kind: Kind, v: i16, u: &mut Unstructured<'u>, nullable: bool, depth: u32) -> Result<Value<'u>> {
    if let Some(n) = kind.number() {
        // `width` bytes, as a value of the type; too little input reads as zeros.
        let mut b = [0u8; 8];
        u.fill_buffer(b.get_mut(..n.width).unwrap_or_default())?;
        return Ok(if n.float {
            Value::Float(f64::from_be_bytes(b))
        } else {
            Value::Int(n.int_from_be(&b))
        });
    }
    let null = nullable && u.ratio(1, 6)?;
    Ok(match kind {
        Kind::Bool => Value::Bool(u.arbitrary()?),
        Kind::Uuid => Value::Uuid(uuid::Uuid::from_bytes(u.arbitrary()?)),
        _ if null => Value::Null,
        Kind::String => {
            let s: &str = u.arbitrary()?;
            let mut end = s.len().min(64);
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            Value::Str(Cow::Borrowed(s.get(..end).unwrap_or("")))
        }
        Kind::Bytes | Kind::Records => {
            let b: &[u8] = u.arbitrary()?;
            Value::Bytes(Cow::Borrowed(b.get(..b.len().min(64)).unwrap_or(&[])))
        }
        Kind::Struct(d) => Value::Struct(arbitrary_struct(d, v, u, depth + 1)?),
        // The numbers, returned above.
        _ => Value::Int(0),
    })
}
