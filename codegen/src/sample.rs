//! A second, independent writer of the wire format: it interprets the merged schemas directly
//! (no generated code) and writes random, valid, non-trivial messages. Tests parse its output
//! with the generated code and re-encode it; the bytes must come back identical.
//!
//! Values are chosen so that Kafka's own writer would produce the same bytes: booleans are 0 or
//! 1, tagged fields are written only when they differ from their default, tags ascend, and
//! unknown tags (from 100 up, so no schema knows them) are interleaved in order.

use crate::model::Message;
use crate::schema::{parse_int, parse_uuid, Field, Type, Versions};

/// A small deterministic generator (xorshift64*).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }
    pub fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }
}

/// How samples are made.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Largest array length.
    pub max_len: u64,
    /// Add unknown tagged fields at flexible versions.
    pub unknown_tags: bool,
    /// One in this many nullable values is null.
    pub null_one_in: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_len: 3,
            unknown_tags: true,
            null_one_in: 4,
        }
    }
}

struct Cx<'m> {
    m: &'m Message,
    v: u8,
    opt: Options,
}

/// Writes one random message at version `v`.
pub fn sample(m: &Message, v: u8, rng: &mut Rng, opt: Options) -> Vec<u8> {
    let cx = Cx { m, v, opt };
    let mut out = Vec::new();
    write_struct(&cx, &m.fields, rng, &mut out, 0);
    out
}

fn flexible(cx: &Cx) -> bool {
    cx.m.flexible.contains(cx.v)
}

fn compact(cx: &Cx, f: &Field) -> bool {
    flexible(cx) && f.flexible.is_none_or(|o: Versions| o.contains(cx.v))
}

fn uvarint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn struct_fields<'m>(cx: &Cx<'m>, f: &'m Field) -> &'m [Field] {
    match &f.fields {
        Some(fs) => fs,
        None => {
            let n = f.ty.struct_name().unwrap_or("");
            cx.m.common.iter().find(|c| c.name == n).map_or(&[], |c| &c.fields)
        }
    }
}

fn write_struct(cx: &Cx, fields: &[Field], rng: &mut Rng, out: &mut Vec<u8>, depth: u32) {
    for f in fields {
        if f.versions.contains(cx.v) && !f.tagged.contains(cx.v) {
            let nullable = f.nullable.contains(cx.v);
            write_value(cx, f, &f.ty, nullable, compact(cx, f), false, rng, out, depth, false);
        }
    }
    if !flexible(cx) {
        return;
    }
    let mut tags: Vec<(u32, Vec<u8>)> = Vec::new();
    for f in fields {
        if !f.tagged.contains(cx.v) || rng.chance(3) {
            continue;
        }
        let nullable = f.nullable.contains(cx.v);
        let mut val = Vec::new();
        write_value(cx, f, &f.ty, nullable, true, false, rng, &mut val, depth, true);
        let mut def = Vec::new();
        write_default(cx, f, &mut def, true);
        if val != def {
            tags.push((f.tag.unwrap_or(0), val));
        }
    }
    if cx.opt.unknown_tags && rng.chance(2) {
        for _ in 0..=rng.below(2) {
            let t = 100 + rng.below(30) as u32;
            if tags.iter().any(|(x, _)| *x == t) {
                continue;
            }
            let len = rng.below(5) as usize;
            tags.push((t, (0..len).map(|_| rng.next_u64() as u8).collect()));
        }
    }
    tags.sort_by_key(|(t, _)| *t);
    uvarint(out, tags.len() as u32);
    for (t, val) in tags {
        uvarint(out, t);
        uvarint(out, val.len() as u32);
        out.extend_from_slice(&val);
    }
}

/// The bytes a tagged field's default value would have.
fn write_default(cx: &Cx, f: &Field, out: &mut Vec<u8>, tagged: bool) {
    let d = f.default.as_deref();
    let null = d == Some("null") || (d.is_none() && matches!(f.ty, Type::Records));
    let int = |out: &mut Vec<u8>, w: usize| {
        let v = d.and_then(parse_int).unwrap_or(0) as i64;
        out.extend_from_slice(&v.to_be_bytes()[8 - w..]);
    };
    match &f.ty {
        _ if null => match &f.ty {
            // A null struct: int8 -1 untagged; unsigned varint 0 inside a tagged field.
            Type::Struct(_) if !tagged => out.push(0xff),
            _ => out.push(0),
        },
        Type::Bool => out.push(u8::from(d == Some("true"))),
        Type::Num(n) if !n.float => int(out, n.width),
        Type::Num(_) => out.extend_from_slice(&d.and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0).to_be_bytes()),
        Type::String => {
            let s = d.unwrap_or("");
            uvarint(out, s.len() as u32 + 1);
            out.extend_from_slice(s.as_bytes());
        }
        Type::Bytes | Type::Records | Type::Array(_) => out.push(1),
        Type::Uuid => out.extend_from_slice(&d.and_then(parse_uuid).unwrap_or(0).to_be_bytes()),
        Type::Struct(_) => {
            // The default struct: every field at its default, no tags.
            if f.nullable.contains(cx.v) {
                out.push(1);
            }
            for sf in struct_fields(cx, f) {
                if sf.versions.contains(cx.v) && !sf.tagged.contains(cx.v) {
                    write_default(cx, sf, out, false);
                }
            }
            if flexible(cx) {
                out.push(0);
            }
        }
    }
}

const CHARS: &[&str] = &["a", "b", "z", "0", "-", "_", ".", "é", "字", "🦀", " "];

#[allow(clippy::too_many_arguments)]
fn write_value(
    cx: &Cx,
    f: &Field,
    ty: &Type,
    nullable: bool,
    compact: bool,
    in_array: bool,
    rng: &mut Rng,
    out: &mut Vec<u8>,
    depth: u32,
    tagged: bool,
) {
    let null = nullable && !in_array && rng.chance(cx.opt.null_one_in);
    let len_prefix = |out: &mut Vec<u8>, n: usize, short: bool| {
        if compact {
            uvarint(out, n as u32 + 1);
        } else if short {
            out.extend_from_slice(&(n as i16).to_be_bytes());
        } else {
            out.extend_from_slice(&(n as i32).to_be_bytes());
        }
    };
    let null_prefix = |out: &mut Vec<u8>, short: bool| {
        if compact {
            out.push(0);
        } else if short {
            out.extend_from_slice(&(-1i16).to_be_bytes());
        } else {
            out.extend_from_slice(&(-1i32).to_be_bytes());
        }
    };
    match ty {
        Type::Bool => out.push(rng.below(2) as u8),
        Type::Num(n) => out.extend_from_slice(&rng.next_u64().to_be_bytes()[8 - n.width..]),
        Type::Uuid => {
            out.extend_from_slice(&rng.next_u64().to_be_bytes());
            out.extend_from_slice(&rng.next_u64().to_be_bytes());
        }
        Type::String => {
            if null {
                null_prefix(out, true);
            } else {
                let mut s = String::new();
                for _ in 0..rng.below(9) {
                    s.push_str(CHARS[rng.below(CHARS.len() as u64) as usize]);
                }
                len_prefix(out, s.len(), true);
                out.extend_from_slice(s.as_bytes());
            }
        }
        Type::Bytes | Type::Records => {
            if null {
                null_prefix(out, false);
            } else {
                let n = rng.below(12) as usize;
                len_prefix(out, n, false);
                out.extend((0..n).map(|_| rng.next_u64() as u8));
            }
        }
        Type::Array(e) => {
            if null {
                null_prefix(out, false);
            } else {
                let n = if depth > 3 {
                    0
                } else {
                    rng.below(cx.opt.max_len + 1) as usize
                };
                len_prefix(out, n, false);
                for _ in 0..n {
                    write_value(cx, f, e, false, compact, true, rng, out, depth + 1, false);
                }
            }
        }
        Type::Struct(_) => {
            if nullable && !in_array {
                if null {
                    // int8 -1 untagged; unsigned varint 0 inside a tagged field.
                    out.push(if tagged { 0 } else { 0xff });
                    return;
                }
                out.push(1);
            }
            write_struct(cx, struct_fields(cx, f), rng, out, depth + 1);
        }
    }
}
