//! Random owned values valid at a given version (feature `arbitrary`), for structured fuzzing
//! and property tests.
//!
//! Values are made by writing random but well-formed bytes for the message's schema at that
//! version (from its field-level schema, [`crate::reflect`]) and parsing them: fields the version
//! lacks keep their defaults, nulls appear only where the version allows them, and every value
//! encodes at that version.
//!
//! Layer 6: uses `codec`, `owned` and `reflect`.

use alloc::vec::Vec;

use arbitrary::{Result, Unstructured};

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

/// Random well-formed bytes of the struct `desc` at `version`.
pub fn arbitrary_bytes(desc: &StructDesc, version: i16, u: &mut Unstructured<'_>) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    write_struct(desc, version, u, &mut out, 0)?;
    Ok(out)
}

fn uvarint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn len(out: &mut Vec<u8>, n: Option<usize>, compact: bool, short: bool) {
    match (n, compact, short) {
        (Some(n), true, _) => uvarint(out, n as u32 + 1),
        (None, true, _) => out.push(0),
        (Some(n), false, true) => out.extend_from_slice(&(n as i16).to_be_bytes()),
        (None, false, true) => out.extend_from_slice(&(-1i16).to_be_bytes()),
        (Some(n), false, false) => out.extend_from_slice(&(n as i32).to_be_bytes()),
        (None, false, false) => out.extend_from_slice(&(-1i32).to_be_bytes()),
    }
}

fn write_struct(desc: &StructDesc, v: i16, u: &mut Unstructured<'_>, out: &mut Vec<u8>, depth: u32) -> Result<()> {
    for f in desc.fields {
        if f.in_version(v) && !f.tagged_at(v) {
            write_field(f, v, u, out, f.compact_at(v), f.nullable_at(v), false, depth)?;
        }
    }
    if desc.flexible_at(v) {
        let mut tags: Vec<(u32, Vec<u8>)> = Vec::new();
        for f in desc.fields {
            if f.tagged_at(v) && u.arbitrary::<bool>()? {
                let mut b = Vec::new();
                write_field(f, v, u, &mut b, true, f.nullable_at(v), true, depth)?;
                tags.push((f.tag, b));
            }
        }
        if u.ratio(1, 8)? {
            let tag = u.int_in_range(64..=1000)?;
            let data: &[u8] = u.arbitrary()?;
            tags.push((tag, data.get(..data.len().min(16)).unwrap_or(&[]).to_vec()));
        }
        tags.sort_by_key(|(t, _)| *t);
        uvarint(out, tags.len() as u32);
        for (t, b) in tags {
            uvarint(out, t);
            uvarint(out, b.len() as u32);
            out.extend_from_slice(&b);
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn write_field(
    f: &FieldDesc,
    v: i16,
    u: &mut Unstructured<'_>,
    out: &mut Vec<u8>,
    compact: bool,
    nullable: bool,
    tagged: bool,
    depth: u32,
) -> Result<()> {
    if f.array {
        if nullable && u.ratio(1, 6)? {
            len(out, None, compact, false);
            return Ok(());
        }
        let n = if depth > 8 { 0 } else { u.int_in_range(0..=3usize)? };
        len(out, Some(n), compact, false);
        for _ in 0..n {
            write_one(f.kind, v, u, out, compact, false, false, depth + 1)?;
        }
        return Ok(());
    }
    write_one(f.kind, v, u, out, compact, nullable, tagged, depth)
}

#[allow(clippy::too_many_arguments)]
fn write_one(
    kind: Kind,
    v: i16,
    u: &mut Unstructured<'_>,
    out: &mut Vec<u8>,
    compact: bool,
    nullable: bool,
    tagged: bool,
    depth: u32,
) -> Result<()> {
    let null = nullable && u.ratio(1, 6)?;
    match kind {
        Kind::Bool => out.push(u8::from(u.arbitrary::<bool>()?)),
        Kind::Int8 => out.push(u.arbitrary::<u8>()?),
        Kind::Int16 | Kind::Uint16 => out.extend_from_slice(&u.arbitrary::<u16>()?.to_be_bytes()),
        Kind::Int32 | Kind::Uint32 => out.extend_from_slice(&u.arbitrary::<u32>()?.to_be_bytes()),
        Kind::Int64 | Kind::Float64 => out.extend_from_slice(&u.arbitrary::<u64>()?.to_be_bytes()),
        Kind::Uuid => out.extend_from_slice(&u.arbitrary::<[u8; 16]>()?),
        Kind::String => {
            if null {
                len(out, None, compact, true);
            } else {
                let s: &str = u.arbitrary()?;
                let mut end = s.len().min(64);
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                let s = s.get(..end).unwrap_or("");
                len(out, Some(s.len()), compact, true);
                out.extend_from_slice(s.as_bytes());
            }
        }
        Kind::Bytes | Kind::Records => {
            if null {
                len(out, None, compact, false);
            } else {
                let b: &[u8] = u.arbitrary()?;
                let b = b.get(..b.len().min(64)).unwrap_or(&[]);
                len(out, Some(b.len()), compact, false);
                out.extend_from_slice(b);
            }
        }
        Kind::Struct(d) => {
            if nullable {
                if null {
                    // int8 -1 untagged; unsigned varint 0 inside a tagged field.
                    out.push(if tagged { 0 } else { 0xff });
                    return Ok(());
                }
                out.push(1);
            }
            write_struct(d, v, u, out, depth + 1)?;
        }
    }
    Ok(())
}
