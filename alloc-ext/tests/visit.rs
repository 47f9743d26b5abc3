//! The sequential visitor (`Message::visit`) against an independent reading of the same bytes
//! driven by the reflection tables, for every message and version; and its errors against the
//! parse's, on truncated and corrupted input.

mod noise;
use noise::noise;

use arbitrary::Unstructured;
use kafka_wire::catalog;
use kafka_wire::reflect::{FieldDesc, Kind, StructDesc};
use kafka_wire::{CodecError, FieldId, Visitor};

type Events = Vec<(FieldId, String)>;

/// Records every event as text.
#[derive(Default)]
struct Recorder(Events);

impl<'a> Visitor<'a> for Recorder {
    fn bool(&mut self, f: FieldId, x: bool) {
        self.0.push((f, format!("bool {x}")));
    }
    fn i8(&mut self, f: FieldId, x: i8) {
        self.0.push((f, format!("i8 {x}")));
    }
    fn i16(&mut self, f: FieldId, x: i16) {
        self.0.push((f, format!("i16 {x}")));
    }
    fn u16(&mut self, f: FieldId, x: u16) {
        self.0.push((f, format!("u16 {x}")));
    }
    fn i32(&mut self, f: FieldId, x: i32) {
        self.0.push((f, format!("i32 {x}")));
    }
    fn u32(&mut self, f: FieldId, x: u32) {
        self.0.push((f, format!("u32 {x}")));
    }
    fn i64(&mut self, f: FieldId, x: i64) {
        self.0.push((f, format!("i64 {x}")));
    }
    fn f64(&mut self, f: FieldId, x: f64) {
        self.0.push((f, format!("f64 {:#x}", x.to_bits())));
    }
    fn uuid(&mut self, f: FieldId, x: kafka_wire::Uuid) {
        self.0.push((f, format!("uuid {x}")));
    }
    fn str(&mut self, f: FieldId, x: Option<&'a str>) {
        self.0.push((f, format!("str {x:?}")));
    }
    fn bytes(&mut self, f: FieldId, x: Option<&'a [u8]>) {
        self.0.push((f, format!("bytes {x:?}")));
    }
    fn records(&mut self, f: FieldId, x: Option<&'a [u8]>) {
        self.0.push((f, format!("records {x:?}")));
    }
    fn begin_array(&mut self, f: FieldId, len: u32) {
        self.0.push((f, format!("[ {len}")));
    }
    fn end_array(&mut self, f: FieldId) {
        self.0.push((f, "]".into()));
    }
    fn begin_struct(&mut self, f: FieldId) {
        self.0.push((f, "{".into()));
    }
    fn end_struct(&mut self, f: FieldId) {
        self.0.push((f, "}".into()));
    }
    fn null(&mut self, f: FieldId) {
        self.0.push((f, "null".into()));
    }
    fn unknown_tag(&mut self, f: FieldId, tag: u32, data: &'a [u8]) {
        self.0.push((f, format!("tag {tag} {data:?}")));
    }
}

/// The expected events, read from bytes a parse accepted, by the schema tables alone.
struct Oracle<'b> {
    b: &'b [u8],
    ev: Events,
}

impl<'b> Oracle<'b> {
    fn take(&mut self, n: usize) -> &'b [u8] {
        let (h, t) = self.b.split_at(n);
        self.b = t;
        h
    }
    fn fixed<const N: usize>(&mut self) -> [u8; N] {
        self.take(N).try_into().unwrap()
    }
    fn uvarint(&mut self) -> u32 {
        let mut v = 0u32;
        for i in 0..5 {
            let b = self.take(1)[0];
            v |= u32::from(b & 0x7f).wrapping_shl(7 * i);
            if b < 0x80 {
                break;
            }
        }
        v
    }
    fn len(&mut self, compact: bool, short: bool) -> i64 {
        if compact {
            i64::from((self.uvarint() as i32).wrapping_sub(1))
        } else if short {
            i64::from(i16::from_be_bytes(self.fixed()))
        } else {
            i64::from(i32::from_be_bytes(self.fixed()))
        }
    }
    fn st(&mut self, d: &StructDesc, v: i16) {
        for f in d.fields {
            if f.in_version(v) && !f.tagged_at(v) {
                self.field(f, v, f.compact_at(v), false);
            }
        }
        if d.flexible_at(v) {
            let n = self.uvarint() as i32;
            for _ in 0..n.max(0) {
                let tag = self.uvarint();
                let size = self.uvarint() as usize;
                match d.fields.iter().find(|f| f.tagged_at(v) && f.tag == tag) {
                    Some(f) => self.field(f, v, true, true),
                    None => {
                        let data = self.take(size);
                        self.ev.push((d.tags_id, format!("tag {tag} {data:?}")));
                    }
                }
            }
        }
    }
    fn field(&mut self, f: &FieldDesc, v: i16, compact: bool, tagged: bool) {
        if f.array {
            let n = self.len(compact, false);
            if n < 0 {
                self.ev.push((f.id, "null".into()));
                return;
            }
            self.ev.push((f.id, format!("[ {n}")));
            for _ in 0..n {
                self.one(f.kind, f.id, v, compact, false, false);
            }
            self.ev.push((f.id, "]".into()));
            return;
        }
        self.one(f.kind, f.id, v, compact, f.nullable_at(v), tagged);
    }
    fn one(&mut self, kind: Kind, id: FieldId, v: i16, compact: bool, nullable: bool, tagged: bool) {
        let e = match kind {
            Kind::Bool => format!("bool {}", self.fixed::<1>()[0] != 0),
            Kind::Int8 => format!("i8 {}", i8::from_be_bytes(self.fixed())),
            Kind::Int16 => format!("i16 {}", i16::from_be_bytes(self.fixed())),
            Kind::Uint16 => format!("u16 {}", u16::from_be_bytes(self.fixed())),
            Kind::Int32 => format!("i32 {}", i32::from_be_bytes(self.fixed())),
            Kind::Uint32 => format!("u32 {}", u32::from_be_bytes(self.fixed())),
            Kind::Int64 => format!("i64 {}", i64::from_be_bytes(self.fixed())),
            Kind::Float64 => format!("f64 {:#x}", u64::from_be_bytes(self.fixed())),
            Kind::Uuid => format!("uuid {}", kafka_wire::Uuid::from_bytes(self.fixed())),
            Kind::String => {
                let n = self.len(compact, true);
                let s = (n >= 0).then(|| std::str::from_utf8(self.take(n as usize)).unwrap());
                format!("str {s:?}")
            }
            Kind::Bytes | Kind::Records => {
                let n = self.len(compact, false);
                let b = (n >= 0).then(|| self.take(n as usize));
                let what = if matches!(kind, Kind::Records) {
                    "records"
                } else {
                    "bytes"
                };
                format!("{what} {b:?}")
            }
            Kind::Struct(d) => {
                if nullable {
                    let null = if tagged {
                        (self.uvarint() as i32) <= 0
                    } else {
                        (self.fixed::<1>()[0] as i8) < 0
                    };
                    if null {
                        self.ev.push((id, "null".into()));
                        return;
                    }
                }
                self.ev.push((id, "{".into()));
                self.st(d, v);
                "}".into()
            }
        };
        self.ev.push((id, e));
    }
}

#[test]
fn visiting_reports_every_field_the_schema_tables_find() {
    let mut n = 0;
    let mut events = 0usize;
    for e in catalog::ALL {
        for v in e.info.min_version..=e.info.max_version {
            for seed in 0..3u64 {
                let data = noise(seed * 13 + 77 + 31 * v as u64 + e.info.name.len() as u64, 2048);
                let bytes = kafka_wire::arbitrary_bytes(e.schema, v, &mut Unstructured::new(&data)).unwrap();
                let mut rec = Recorder::default();
                (e.visit)(&bytes, v, &mut rec).unwrap_or_else(|err| panic!("{} v{v}: {err}", e.info.name));
                let mut oracle = Oracle {
                    b: &bytes,
                    ev: Vec::new(),
                };
                oracle.st(e.schema, v);
                assert!(oracle.b.is_empty(), "{} v{v}: the oracle left bytes", e.info.name);
                assert_eq!(rec.0, oracle.ev, "{} v{v} seed {seed}", e.info.name);
                events += rec.0.len();
                n += 1;
            }
        }
    }
    assert!(n > 2500, "{n}");
    assert!(events > 20_000, "{events}");
}

#[test]
fn visiting_fails_where_parsing_fails_with_the_same_error() {
    let mut buf = vec![0u8; 1 << 17];
    let (mut failed, mut passed) = (0, 0);
    for e in catalog::ALL {
        for v in e.info.min_version..=e.info.max_version {
            let data = noise(4242 + 31 * v as u64 + e.info.name.len() as u64, 2048);
            let bytes = kafka_wire::arbitrary_bytes(e.schema, v, &mut Unstructured::new(&data)).unwrap();
            let mut inputs: Vec<Vec<u8>> = (0..bytes.len())
                .step_by(1 + bytes.len() / 24)
                .map(|k| bytes[..k].to_vec())
                .collect();
            for (k, r) in noise(v as u64 + 9, 16).chunks(2).enumerate() {
                let mut bad = bytes.clone();
                if !bad.is_empty() {
                    let at = (usize::from(r[0]) * 131 + k) % bad.len();
                    bad[at] = r[1];
                }
                inputs.push(bad);
            }
            let mut long = bytes.clone();
            long.push(0);
            inputs.push(long);
            for input in &inputs {
                let parsed = match (e.transcode)(input, v, &mut buf, v) {
                    Err(CodecError::Decode(d)) => Err(d),
                    _ => Ok(()),
                };
                let visited = (e.visit)(input, v, &mut Recorder::default());
                assert_eq!(visited, parsed, "{} v{v} on {input:?}", e.info.name);
                if parsed.is_err() {
                    failed += 1;
                } else {
                    passed += 1;
                }
            }
        }
    }
    assert!(failed > 10_000 && passed > 1_000, "{failed} failed, {passed} passed");
}
